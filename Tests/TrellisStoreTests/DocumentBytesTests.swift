import Testing
import TrellisStore

/// A document held deflated is the document: the same bytes back, equal to its plain copy, and
/// never larger than it.
@Suite struct DocumentBytesTests {
    static let screen = Array(
        (#"{"id":"home","schemaVersion":2,"root":{"type":"VStack","subviews":["#
            + (0..<40).map { #"{"type":"Text","id":"t\#($0)","values":{"text":"line \#($0)"}}"# }.joined(separator: ",") + "]}}").utf8)

    @Test func aDeflatedDocumentGivesItsBytesBack() {
        let held = DocumentBytes.deflating(Self.screen)
        #expect(held.isDeflated)
        #expect(held.count == Self.screen.count)
        #expect(held.bytes == Self.screen)
        #expect(held.holds(Self.screen))
        #expect(!held.holds(Array(Self.screen.dropLast())))
    }

    @Test func equalityIgnoresHowTheBytesAreHeld() {
        let plain = DocumentBytes(Self.screen)
        let deflated = DocumentBytes.deflating(Self.screen)
        #expect(plain == deflated && deflated == plain)
        #expect(deflated == DocumentBytes.deflating(Self.screen))
        var other = Self.screen
        other[other.count - 3] = UInt8(ascii: "x")
        #expect(DocumentBytes.deflating(other) != deflated)
        #expect(DocumentBytes(other) != deflated)
    }

    /// A start holds its documents as they are and deflates them later, for every holder at once:
    /// the runtime state's revision and the checked screen share one copy.
    @Test func deflatingInPlaceDeflatesEveryCopy() {
        let document = DocumentBytes(Self.screen)
        let copy = document
        #expect(!document.isDeflated && !document.isSettled)
        #expect(copy.isShared(with: document) && !DocumentBytes(Self.screen).isShared(with: document))
        document.deflate()
        #expect(copy.isDeflated && copy.isSettled)
        #expect(copy.bytes == Self.screen && copy == DocumentBytes(Self.screen))
        let tiny = DocumentBytes(Array("{}".utf8))
        tiny.deflate()
        #expect(tiny.isSettled && !tiny.isDeflated, "not worth deflating, and not tried again")
    }

    @Test func readersGetTheSameBytesWhileTheDocumentIsDeflated() async {
        for _ in 0..<20 {
            let document = DocumentBytes(Self.screen)
            let read = await withTaskGroup(of: Bool.self) { group in
                for reader in 0..<4 {
                    group.addTask {
                        if reader == 0 { document.deflate() }
                        return (0..<50).allSatisfy { _ in document.bytes == Self.screen && document.count == Self.screen.count }
                    }
                }
                return await group.reduce(true) { $0 && $1 }
            }
            #expect(read && document.isDeflated)
        }
    }

    /// Words preset in the window: fewer bytes held, the same document back, equal to its other
    /// copies however they are held.
    @Test func aDictionaryShrinksTheStreamAndInflatesWithIt() {
        let words = DeflateDictionary(Array(#"{"type":"Text","id":"t","values":{"text":"line "}}"#.utf8))
        let alone = DocumentBytes.deflating(Self.screen)
        let preset = DocumentBytes(Self.screen)
        preset.deflate(dictionary: words)
        #expect(preset.isDeflated && preset.count == Self.screen.count)
        #expect(preset.heldCount < alone.heldCount, "\(preset.heldCount) bytes with the words, \(alone.heldCount) without")
        #expect(preset.bytes == Self.screen)
        #expect(preset == alone && alone == preset && preset == DocumentBytes(Self.screen))
        let again = DocumentBytes(Self.screen)
        again.deflate(dictionary: words)
        #expect(again == preset)
        var other = Self.screen
        other[other.count - 3] = UInt8(ascii: "x")
        let otherPreset = DocumentBytes(other)
        otherPreset.deflate(dictionary: words)
        #expect(otherPreset != preset && otherPreset != alone && otherPreset.bytes == other)
    }

    @Test func whatDoesNotShrinkIsKeptAsItIs() {
        let tiny = Array("{}".utf8)
        #expect(!DocumentBytes.deflating(tiny).isDeflated)
        #expect(DocumentBytes.deflating(tiny).bytes == tiny)
        #expect(DocumentBytes.deflating([]).bytes.isEmpty)
    }

    @Test func aRevisionHoldsItsDocumentEitherWay() {
        var revision = DocumentRevision(
            key: .screen("home"), number: 1, held: .deflating(Self.screen), fingerprint: "f", origin: .publish, createdAt: 0, createdBy: "t")
        #expect(revision.document == Self.screen)
        #expect(revision.summary.bytes == Self.screen.count)
        let plain = DocumentRevision(
            key: .screen("home"), number: 1, document: Self.screen, fingerprint: "f", origin: .publish, createdAt: 0, createdBy: "t")
        #expect(revision == plain)
        revision.document = Array("{}".utf8)
        #expect(!revision.heldDocument.isDeflated && revision.document == Array("{}".utf8))
    }
}

private extension DocumentBytes {
    /// `bytes`, deflated at once (a server deflates a document when its screen is prepared).
    static func deflating(_ bytes: [UInt8]) -> DocumentBytes {
        let document = DocumentBytes(bytes)
        document.deflate()
        return document
    }
}
