import TrellisAnswers
import TrellisJSON
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// A screen document decoded and checked once, held as its bytes and what serving and checking
/// need of it: its encoding plan, decision points, links and parameters. Not its model: the
/// decoded tree takes several times the document's memory, and a request rarely needs it —
/// answers come from the encoding plan (``ScreenEncodingPlan``), made from the model the check
/// decoded, which then goes at once: at 10,000 screens the process would hold a model of each
/// for nothing, and models freed later leave the heap in pieces the system never gets back.
/// Layouts, previews and client formats decode the model again when they miss, through the
/// snapshot's cache of models (``Snapshot/screen(of:)``).
///
/// Shared by every revision with this content (by ``fingerprint``) and by the configuration
/// baseline's file it came from.
public final class CheckedScreen: Sendable {
    public let id: String
    public let schemaVersion: Int
    public let title: String?
    /// The document as authored: the file's bytes, or the stored revision's; deflated once the
    /// screen is prepared (``prepare(resolver:)``), for it is read only when the model is decoded
    /// again, a diagnostic is located, or an admin reads it (the runtime state's revision shares
    /// this copy: ``RuntimeState/sharingDocuments(of:served:staged:)``).
    public let document: DocumentBytes
    /// ``ScreenEntry/contentFingerprint(of:)`` of the model: equal for equal content, whatever the formatting.
    public let fingerprint: String
    /// Every Rule and Experiment of the screen, with the rollouts they name.
    public let decisions: ScreenDecisions
    /// Where the screen's navigate actions lead (``Screen/links``, without their paths), for the
    /// navigation check; it finds the paths again, from the model, only for a link it refuses.
    public var links: [ScreenLink.Target] { packedLinks.targets }
    private let packedLinks: PackedLinkTargets
    /// The screen's `$param` and `$format` placeholders (``Screen/parameters``).
    public let parameters: [ParameterUse]
    /// The parameters' names, each once, sorted; empty for most screens.
    public let parameterNames: [String]
    /// The screen's `$string`s (``Screen/strings``): checked against the string tables.
    public let strings: [StringUse]
    /// Whether its answers depend on the request's locale.
    public var usesStrings: Bool { !strings.isEmpty }
    /// The templates the screen uses, by name: a reload with other templates decodes it again.
    public let templateNames: [String]
    /// What decoded it, with the templates it was expanded with: decoding the document again with
    /// them gives the same model.
    private let decoder: ScreenDecoder
    private let templates: TemplateLibrary
    /// The screen pre-encoded per client schema version, for answer-cache misses: each made by the
    /// first miss that needs it, or, for its own version, when the screen is prepared.
    package let plans: EncodingPlans

    /// - Parameter document: the bytes `screen` was decoded from.
    /// - Parameter fingerprint: the screen's content fingerprint when already known (stored with
    ///   these bytes); else it is computed from the model.
    public init(
        _ screen: Screen, document: DocumentBytes, decoder: ScreenDecoder, templates: TemplateLibrary, resolver: ScreenResolver,
        fingerprint: String? = nil
    ) {
        id = screen.id
        schemaVersion = screen.schemaVersion
        title = screen.title
        self.document = document
        self.fingerprint = fingerprint ?? ScreenEntry.contentFingerprint(of: screen)
        decisions = resolver.decisions(of: screen)
        packedLinks = PackedLinkTargets(screen.links.map(\.target))
        // Their paths outlive the model they were made in: each in one buffer, not a link per component.
        parameters = screen.parameters.map { ParameterUse(name: $0.name, path: $0.path.packed(), expects: $0.expects, hasDefault: $0.hasDefault) }
        parameterNames = screen.parameterNames.sorted()
        strings = screen.strings.map { StringUse(key: $0.key, path: $0.path.packed(), arguments: $0.arguments) }
        templateNames = screen.templates
        self.decoder = decoder
        // A screen without templates keeps none alive.
        self.templates = screen.templates.isEmpty ? TemplateLibrary() : templates
        plans = EncodingPlans(schemaVersions: screen.schemaVersion)
    }

    /// Whether the screen is as it is served at rest: the plan for its own schema version (which
    /// its clients' misses use) made, the document deflated.
    package var isPrepared: Bool { plans.isMade(for: schemaVersion) && document.isSettled }

    /// Makes the plan for the screen's own schema version, from the model decoded again, and
    /// deflates the document (``ScreenPreparation``): a check, which `/readyz` waits for at start
    /// for every screen, leaves both to after it — at 10,000 screens they would make it half again
    /// as long. The model is decoded outside any snapshot's cache of models: preparing a catalogue
    /// would evict the models requests use.
    package func prepare(resolver: ScreenResolver) {
        _ = plans.plan(for: schemaVersion) {
            guard case .success(let screen) = decodeModel() else { return nil }
            return ScreenEncodingPlan.make(screen, decisions: decisions, clientSchemaVersion: schemaVersion, resolver: resolver)
        }
        document.deflate(dictionary: Self.documentDictionary)
    }

    /// The screen format's words (``ComponentRegistry/documentVocabulary``), preset for deflating
    /// every document: a seventh fewer bytes held than each deflated on its own (10,004 generated
    /// screens), a tenth to a sixth for the shipped ones.
    private static let documentDictionary = DeflateDictionary(ComponentRegistry.standard.documentVocabulary)

    /// The model, decoded again from the document as it was checked.
    package func decodeModel() -> Result<Screen, DiagnosticsError> {
        decoder.decode(document.bytes, source: "screens/\(id)", expectedID: id, templates: templates)
    }

    /// Every name the screen uses that `targeting` does not define (``ScreenDecisions/checkReferences(in:source:)``).
    package func checkReferences(in targeting: TargetingConfiguration, source: String) throws(DiagnosticsError) {
        try decisions.checkReferences(in: targeting, source: source)
    }
}

/// Link targets in one buffer: read by the navigation check, a few times per catalogue change,
/// and otherwise only held — as an array of enums with a string each, some 120 bytes a link.
/// Each target is a tag (0 a URL, 1 a URL template, 2 a parameter, 3 a parameter with a default)
/// and its strings, each a 32-bit length and its UTF-8 bytes; a template's placeholders follow
/// their count.
private struct PackedLinkTargets: Sendable {
    private let bytes: [UInt8]

    package init(_ targets: [ScreenLink.Target]) {
        var bytes: [UInt8] = []
        func append(_ string: String) {
            withUnsafeBytes(of: UInt32(string.utf8.count).littleEndian) { bytes += $0 }
            bytes += string.utf8
        }
        for target in targets {
            switch target {
            case .url(let url):
                bytes.append(0)
                append(url)
            case .template(let template, let placeholders):
                bytes.append(1)
                append(template)
                withUnsafeBytes(of: UInt32(placeholders.count).littleEndian) { bytes += $0 }
                placeholders.forEach(append)
            case .parameter(let name, nil):
                bytes.append(2)
                append(name)
            case .parameter(let name, let fallback?):
                bytes.append(3)
                append(name)
                append(fallback)
            }
        }
        self.bytes = bytes.withUnsafeBufferPointer { Array($0) }
    }

    package var targets: [ScreenLink.Target] {
        var targets: [ScreenLink.Target] = []
        var i = 0
        func number() -> Int {
            defer { i += 4 }
            return Int(UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24)
        }
        func string() -> String {
            let count = number()
            defer { i += count }
            return String(decoding: bytes[i..<i + count], as: UTF8.self)
        }
        while i < bytes.count {
            let tag = bytes[i]
            i += 1
            switch tag {
            case 0: targets.append(.url(string()))
            case 1:
                let template = string()
                targets.append(.template(template, placeholders: (0..<number()).map { _ in string() }))
            case 2: targets.append(.parameter(string(), default: nil))
            default:
                let name = string()
                targets.append(.parameter(name, default: string()))
            }
        }
        return targets
    }
}
