import Foundation
import Testing
import TrellisRuntime
import TrellisStore
import TrellisTesting

/// The scanner reads the batches apps usually send without a JSON tree; the reference reader reads
/// every form. Whatever the scanner reads, the reference reads to the same events — on batches
/// generated from the forms an event may take, right and wrong, and on those batches with bytes
/// deleted, doubled or replaced.
@Suite struct EventBatchScannerTests {
    typealias Harness = RuntimeCommandTests.Harness
    static let now = TrackingTests.now

    @Test func whateverTheScannerReadsTheReferenceReadsAlike() throws {
        let harness = try Harness(try RuntimeCommandTests.config())
        var limits = EventBatchReader.Limits()
        limits.maxEvents = 12
        limits.maxEventBytes = 400
        let reader = EventBatchReader(limits: limits)
        var random = SplitMix64(seed: 0x5CA7_7E12)
        var scanned = 0
        var refused = 0
        let scanner = EventBatchScanner(reader: reader)
        let batches = 6_000
        for n in 0..<batches {
            let format: EventBatchReader.Format = random.next() % 2 == 0 ? .jsonArray : .ndjson
            let identity: EventBatchReader.Identity = random.next() % 4 == 0 ? .signed(user: "u1", country: "FR") : .perEvent
            let count = Int(random.next() % 14)
            let events = (0..<count).map { _ in EventText.random(using: &random) }
            var bytes = EventText.frame(events, format, using: &random)
            if n % 3 == 0 { EventText.mutate(&bytes, using: &random) }
            let reference = reader.readReference(bytes, format: format, identity: identity, now: Self.now, snapshot: harness.snapshot).success
            if reference == nil { refused += 1 }
            guard let read = scanner.read(bytes, format: format, identity: identity, now: Self.now, snapshot: harness.snapshot) else { continue }
            #expect(reference == read, "\(String(decoding: bytes, as: UTF8.self))")
            if !read.batch.events.isEmpty || !read.batch.exposures.isEmpty { scanned += 1 }
        }
        // Batches the reference refuses and batches the scanner reads are both common, so the
        // comparison was made on many of each.
        #expect(refused > batches / 8, "\(refused) refused")
        #expect(scanned > batches / 8, "\(scanned) scanned")
    }

    @Test func theBatchesAppsUsuallySendAreScannedNotParsed() throws {
        let harness = try Harness(try RuntimeCommandTests.config())
        let reader = EventBatchReader()
        let array = """
            [{"id": "e1", "timestamp": "2027-01-15T08:00:00.250Z", "context": {"targetingKey": "u1", "platform": "ios", "appVersion": "4.2.0",
              "country": "DE", "tier": "gold", "age": 41, "beta": true, "team": null}, "exposure": {"experiment": "hero", "variant": "big"}},
             {"id": "e2", "context": {"targetingKey": "u1"}, "name": "purchase", "value": 42.5},
             {"id": "e3", "context": {"targetingKey": "ü-2"}, "name": "client_error", "value": null},
             {"id": "e4", "context": {"targetingKey": "u2"}, "exposure": {"flag": "banner", "variant": "on"}},
             {"id": "e5", "context": {"targetingKey": "u2"}, "exposure": {"rollout": "banner", "variant": "off"}},
             {"id": "e6", "context": {"targetingKey": "u2"}, "exposure": {"screen": "home", "revision": 1}},
             {"id": "e7", "context": {"targetingKey": "u3"}, "name": "purchase", "value": -1.25e2}]
            """
        let lines = "{\"id\": \"e2\", \"context\": {\"targetingKey\": \"u1\"}, \"name\": \"purchase\", \"value\": 42}\r\n\n \t\n"
        for (text, format) in [(array, EventBatchReader.Format.jsonArray), (lines, .ndjson)] {
            let bytes = Array(text.utf8)
            let scanned = try #require(EventBatchScanner(reader: reader).read(bytes, format: format, identity: .perEvent, now: Self.now, snapshot: harness.snapshot))
            #expect(reader.readReference(bytes, format: format, identity: .perEvent, now: Self.now, snapshot: harness.snapshot).success == scanned)
        }
    }
}

extension Result {
    fileprivate var success: Success? { if case .success(let value) = self { value } else { nil } }
}

/// Events as text, from the forms a member may take, most of them right.
private enum EventText {
    static func random(using random: inout SplitMix64) -> String {
        var members: [String] = []
        if random.chance(0.995) { members.append(#""id": \#(pick(ids, &random))"#) }
        if random.chance(0.4) { members.append(#""timestamp": \#(pick(timestamps, &random))"#) }
        if random.chance(0.995) { members.append(#""context": \#(context(&random))"#) }
        switch random.next() % 50 {
        case 0: members.append(#""render": {"screen": "home", "revision": 1, "reason": "unknown_type"}"#)
        case 1...20: members.append(#""exposure": \#(pick(exposures, &random))"#)
        default:
            members.append(#""name": \#(pick(names, &random))"#)
            if random.chance(0.7) { members.append(#""value": \#(pick(values, &random))"#) }
        }
        if random.chance(0.005) { members.append(#""value": 1"#) }
        if random.chance(0.005) { members.append(pick(members.isEmpty ? [#""x": 1"#] : members, &random)) }
        if random.chance(0.005) { members.append(#""colour": "red""#) }
        members.shuffle(using: &random)
        let gap = pick(["", " ", "\n ", "\t"], &random)
        return "{" + gap + members.joined(separator: "," + gap) + gap + "}"
    }

    static func context(_ random: inout SplitMix64) -> String {
        var fields: [String] = []
        if random.chance(0.995) { fields.append(#""targetingKey": \#(pick(users, &random))"#) }
        let kept: [(String, Forms)] = [("platform", ([#""ios""#, #""android""#], ["1"])), ("appVersion", ([#""4.2.0""#], [#""""#])), ("country", ([#""DE""#], [#""""#]))]
        for (key, values) in kept {
            if random.chance(0.3) { fields.append(#""\#(key)": \#(pick(values, &random))"#) }
        }
        if random.chance(0.3) { fields.append(#""\#(pick(["tier", "age", "plan"], &random))": \#(pick(attributes, &random))"#) }
        fields.shuffle(using: &random)
        return random.chance(0.995) ? "{" + fields.joined(separator: ", ") + "}" : pick(["null", "[]", #""u1""#], &random)
    }

    /// Each member's forms: the plain ones apps send, then others — some the reference refuses,
    /// some it takes and the scanner leaves to it — picked one time in `otherOneIn`.
    typealias Forms = (plain: [String], other: [String])

    static let ids: Forms = (
        [#""e1""#, #""e2""#, #""évènement-3""#],
        ["\"e\u{7F}\"", #""e\"q""#, #""""#, #""e\u0001""#, "7", #""\#(String(repeating: "i", count: 129))""#]
    )
    static let timestamps: Forms = (
        [#""2027-01-15T08:00:00Z""#, #""2027-01-15T08:00:00.125+01:00""#],
        [#""2027-01-15T08:10:00Z""#, #""2026-12-01T00:00:00Z""#, #""yesterday""#, "1", "null"]
    )
    static let users: Forms = ([#""u1""#, #""u2""#, #""ü-3""#], [#""""#, #""u\n""#, "null", #""\#(String(repeating: "u", count: 257))""#])
    static let attributes: Forms = (
        [#""gold""#, "41", "-0.5e3", "true", "false", "null", #""\#(String(repeating: "a", count: 300))""#], [#""g\u00f6ld""#, "{}", "[1]", "01", "1e999", "+1"]
    )
    static let names: Forms = (
        [#""purchase""#, #""client_error""#], [#""""#, #""render_failure:home""#, #""a\tb""#, "3", #""\#(String(repeating: "n", count: 200))""#]
    )
    static let values: Forms = (
        ["42", "42.5", "-0", "0.1", "1e3", "-1.25E+2", "1e15", "null", "123456789012345678"],
        ["1.0000001e15", "1e400", "01", "1.", ".5", "-", "true", #""5""#]
    )
    static let exposures: Forms = (
        [
            #"{"experiment": "hero", "variant": "big"}"#, #"{"flag": "hero", "variant": "control"}"#, #"{"flag": "banner", "variant": "on"}"#,
            #"{"rollout": "banner", "variant": "off"}"#, #"{"screen": "home", "revision": 1}"#,
        ],
        [
            #"{"screen": "home", "revision": 1.0}"#, #"{"experiment": "hero", "variant": "big", "revision": 1}"#,
            #"{"screen": "home", "variant": "big", "revision": 1}"#,
            #"{"experiment": "hero", "variant": "huge"}"#, #"{"experiment": "nope", "variant": "big"}"#, #"{"flag": "banner", "variant": "big"}"#,
            #"{"rollout": "hero", "variant": "big"}"#, #"{"screen": "home", "revision": 2}"#, #"{"screen": "home", "revision": 0}"#,
            #"{"screen": "home", "revision": "1"}"#, #"{"screen": "nowhere", "revision": 1}"#, #"{"screen": "home", "variant": "big"}"#,
            #"{"experiment": "hero", "flag": "banner", "variant": "big"}"#, #"{"experiment": "hero"}"#,
            #"{"experiment": "hero", "variant": "big", "variant": "big"}"#, "{}", "[]",
        ]
    )
    static let otherOneIn: UInt64 = 60

    static func pick(_ forms: Forms, _ random: inout SplitMix64) -> String {
        random.next() % otherOneIn == 0 ? pick(forms.other, &random) : pick(forms.plain, &random)
    }

    /// A batch of `events`: an array (with random whitespace) or one a line (some lines blank, some
    /// ending in CR).
    static func frame(_ events: [String], _ format: EventBatchReader.Format, using random: inout SplitMix64) -> [UInt8] {
        switch format {
        case .jsonArray:
            let gap = pick(["", " ", "\n", "\r\n  "], &random)
            return Array(("[" + gap + events.joined(separator: "," + gap) + gap + "]").utf8)
        case .ndjson:
            var text = ""
            for event in events {
                text += event.replacingOccurrences(of: "\n", with: " ") + pick(["\n", "\r\n", "\n\n", " \t\n", "\r\r\n"], &random)
            }
            return Array(text.utf8)
        }
    }

    /// A byte deleted, doubled or replaced (with one of JSON's own, or one that is not UTF-8).
    static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        let at = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 3 {
        case 0: bytes.remove(at: at)
        case 1: bytes.insert(bytes[at], at: at)
        default: bytes[at] = pick(Array(#"{}[]",:\ 0.-e"#.utf8) + [0x0A, 0x0D, 0xFF, 0xC3, 0x7F, 0x01], &random)
        }
    }

    static func pick<T>(_ choices: [T], _ random: inout SplitMix64) -> T { choices[Int(random.next() % UInt64(choices.count))] }
}

extension SplitMix64 {
    fileprivate mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) < p * 1_000_000 }
}
