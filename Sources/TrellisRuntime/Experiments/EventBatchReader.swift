import TrellisJSON
import TrellisStore
import TrellisTargeting

/// Reads an app's batch of events (`POST /v1/events`: a JSON array, or NDJSON — one event a line)
/// into what the event store keeps, checking every event against the snapshot in force. A batch
/// is taken whole or not at all: every mistake is reported with the event's index, its JSON path
/// and line, and nothing is written.
///
/// An event is a tracked event — `{"id", "timestamp", "context", "name", "value"}`, what
/// OpenFeature's `track(name, context, {value})` carries — an exposure — `{"id", "timestamp",
/// "context", "exposure": {"experiment" | "flag" | "rollout", "variant"} | {"screen", "revision"}}`
/// — or a render beacon — `{"id", "timestamp", "context", "render": {"screen", "revision",
/// "component", "reason"}}`: the app could not render part of a screen, kept as the tracked event
/// ``RenderFailure/eventName(screen:)`` so that a metric over the screen's exposures counts it.
package struct EventBatchReader: Sendable {
    package struct Limits: Sendable, Equatable {
        /// Events in one batch (413 beyond).
        package var maxEvents = 1_000
        /// Bytes of one event's JSON (its line, in NDJSON).
        package var maxEventBytes = 8_192
        /// How far ahead of the server's clock an event's time may be.
        package var maxFutureSeconds = 300.0
        /// How old an event may be: older ones could outlive their id's deduplication.
        package var maxAgeSeconds = 7 * 86_400.0
        package init() {}
    }

    /// Who the events are about, when the request says it for all of them.
    package enum Identity: Sendable, Equatable {
        /// Each event names its user (`context.targetingKey`).
        case perEvent
        /// A verified signed context named `user` (and `country`): events may repeat the user, not
        /// name another.
        case signed(user: String, country: String?)
    }

    package enum Format: Sendable { case jsonArray, ndjson }

    package var limits = Limits()

    package init(limits: Limits = Limits()) { self.limits = limits }

    /// Why a batch was refused.
    package enum Failure: Error, Sendable {
        /// Not JSON (or not one JSON value a line): where it breaks.
        case malformed(Diagnostic)
        /// More events than ``Limits/maxEvents``.
        case tooMany(Int)
        /// Every mistake of every event, with its path (`$[3].exposure.variant`) and line.
        case invalid([Diagnostic])
    }

    /// The batch `bytes` holds, received at `now` (seconds since 1970).
    /// A batch as the store keeps it, and its render beacons as they were sent (for counting by reason).
    package struct Read: Sendable, Equatable {
        package var batch: EventBatch
        package var renderFailures: [RenderFailure]
    }

    package func read(
        _ bytes: [UInt8], format: Format, identity: Identity, now: Double, snapshot: Snapshot
    ) -> Result<Read, Failure> {
        if let read = EventBatchScanner(reader: self).read(bytes, format: format, identity: identity, now: now, snapshot: snapshot) {
            return .success(read)
        }
        return readReference(bytes, format: format, identity: identity, now: now, snapshot: snapshot)
    }

    /// The reading of every form and every mistake, without the scanner: what ``read(_:format:identity:now:snapshot:)``
    /// falls back to, and what the scanner is tested against.
    package func readReference(
        _ bytes: [UInt8], format: Format, identity: Identity, now: Double, snapshot: Snapshot
    ) -> Result<Read, Failure> {
        let items: [(value: JSONValue, bytes: Int)]
        switch format {
        case .jsonArray:
            switch parseArray(bytes) {
            case .success(let parsed): items = parsed
            case .failure(let failure): return .failure(failure)
            }
        case .ndjson:
            switch parseLines(bytes) {
            case .success(let parsed): items = parsed
            case .failure(let failure): return .failure(failure)
            }
        }
        guard items.count <= limits.maxEvents else { return .failure(.tooMany(items.count)) }
        let collector = DiagnosticsCollector()
        var batch = EventBatch()
        var renderFailures: [RenderFailure] = []
        for (index, item) in items.enumerated() {
            let path = JSONPath.root.appending(index)
            if item.bytes > limits.maxEventBytes {
                collector.report("an event is at most \(limits.maxEventBytes) bytes, this one has \(item.bytes)", at: path, item.value)
                continue
            }
            readEvent(item.value, at: path, identity: identity, now: now, snapshot: snapshot, into: &batch, &renderFailures, collector)
        }
        guard collector.isEmpty else { return .failure(.invalid(collector.diagnostics)) }
        return .success(Read(batch: batch, renderFailures: renderFailures))
    }

    // MARK: - Framing

    private func parseArray(_ bytes: [UInt8]) -> Result<[(value: JSONValue, bytes: Int)], Failure> {
        let parsed: (document: JSONValue, elementBytes: [Int])
        do { parsed = try JSONParser.parseMeasuringElements(bytes) } catch {
            return .failure(.malformed(Diagnostic(path: .root, location: error.location, message: error.reason)))
        }
        guard let array = parsed.document.arrayValue else {
            let document = parsed.document
            return .failure(.invalid([Diagnostic(path: .root, location: document.location, message: "expected an array of events, found \(document.typeName)")]))
        }
        return .success(zip(array, parsed.elementBytes).map { (value: $0, bytes: $1) })
    }

    /// One JSON value a line; blank lines are skipped; a line's errors carry its number.
    private func parseLines(_ bytes: [UInt8]) -> Result<[(value: JSONValue, bytes: Int)], Failure> {
        var items: [(value: JSONValue, bytes: Int)] = []
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            var text = Array(line)
            if text.last == 0x0D { text.removeLast() }
            guard text.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            guard text.count <= limits.maxEventBytes else {
                let location = SourceLocation(line: lineNumber, column: 1)
                return .failure(.invalid([
                    Diagnostic(path: .root.appending(items.count), location: location, message: "an event is at most \(limits.maxEventBytes) bytes, this one has \(text.count)")
                ]))
            }
            do {
                var value = try JSONParser.parse(text)
                value.location = SourceLocation(line: lineNumber, column: value.location.column)
                items.append((value, text.count))
            } catch {
                let location = SourceLocation(line: lineNumber, column: error.location.column)
                return .failure(.malformed(Diagnostic(path: .root.appending(items.count), location: location, message: error.reason)))
            }
            if items.count > limits.maxEvents { return .failure(.tooMany(items.count)) }
        }
        return .success(items)
    }

    // MARK: - One event

    private static let eventKeys: Set<String> = ["id", "timestamp", "context", "name", "value", "exposure", "render"]
    static let maximumIDBytes = 128

    private func readEvent(
        _ value: JSONValue, at path: JSONPath, identity: Identity, now: Double, snapshot: Snapshot, into batch: inout EventBatch,
        _ renderFailures: inout [RenderFailure], _ collector: DiagnosticsCollector
    ) {
        guard let object = collector.object(value, at: path, allowedKeys: Self.eventKeys) else { return }
        let before = collector.diagnostics.count
        let id = object.string("id", required: true).flatMap { id -> String? in
            if !Self.isEventID(id) {
                object.report("an event id is 1 to \(Self.maximumIDBytes) bytes without control characters", atMember: "id")
                return nil
            }
            return id
        }
        let at = time(object, now: now)
        let context = readContext(object, at: path.appending("context"), identity: identity, collector)
        let kinds = ["name", "exposure", "render"].filter(object.contains)
        guard kinds.count == 1 else {
            collector.report(
                "an event is tracked (\"name\", with an optional \"value\"), an exposure (\"exposure\") or a render beacon (\"render\"): give one of them",
                at: path, object.location)
            return
        }
        if kinds[0] == "render" {
            if object.contains("value") { object.report("a render beacon has no \"value\"", atMember: "value") }
            let failure = object.value("render").flatMap { readRenderFailure($0, at: path.appending("render"), snapshot: snapshot, collector) }
            guard collector.diagnostics.count == before, let id, let at, let context, let failure else { return }
            batch.events.append(
                TrackedEvent(id: id, user: context.user, name: RenderFailure.eventName(screen: failure.screen), value: nil, at: at, receivedAt: now))
            renderFailures.append(failure)
        } else if kinds[0] == "exposure" {
            if object.contains("value") { object.report("an exposure has no \"value\"", atMember: "value") }
            let exposed = object.value("exposure").flatMap { readExposure($0, at: path.appending("exposure"), snapshot: snapshot, collector) }
            guard collector.diagnostics.count == before, let at, let context, let exposed else { return }
            batch.exposures.append(
                Exposure(subject: exposed.subject, user: context.user, variant: exposed.variant, at: at, dimensions: context.dimensions, source: .client))
        } else {
            let name = object.string("name").flatMap { name -> String? in
                if let problem = TrackedEventName.problem(name, fromApp: true) {
                    object.report(problem, atMember: "name")
                    return nil
                }
                return name
            }
            var amount: Double?
            if let raw = object.value("value"), !raw.isNull {
                amount = object.number("value")
                if let number = amount, !Self.isEventValue(number) {
                    object.report("a value is a number of magnitude at most 1e15", atMember: "value")
                }
            }
            guard collector.diagnostics.count == before, let id, let at, let context, let name else { return }
            batch.events.append(TrackedEvent(id: id, user: context.user, name: name, value: amount, at: at, receivedAt: now))
        }
    }

    /// The event's time: RFC 3339 (`2026-12-02T15:00:00.250Z`), or the time it arrived when absent.
    private func time(_ object: JSONObjectReader, now: Double) -> Double? {
        guard object.contains("timestamp") else { return now }
        guard let text = object.string("timestamp") else { return nil }
        guard let at = RFC3339.seconds(from: text) else {
            object.report("expected a time such as 2026-12-02T15:00:00Z (RFC 3339), found \"\(text)\"", atMember: "timestamp")
            return nil
        }
        switch timeProblem(at, now: now) {
        case nil: return at
        case .ahead:
            object.report(
                "the event's time is \(Int(at - now)) s ahead of the server's clock; at most \(Int(limits.maxFutureSeconds)) s is taken (is the device's clock right?)",
                atMember: "timestamp")
            return nil
        case .tooOld:
            object.report("the event is older than \(Int(limits.maxAgeSeconds / 86_400)) days; older events are not taken", atMember: "timestamp")
            return nil
        }
    }

    // MARK: - What an event may hold (the scanner's checks too)

    enum TimeProblem { case ahead, tooOld }

    /// Whether an event's time is taken, received at `now`.
    func timeProblem(_ at: Double, now: Double) -> TimeProblem? {
        if at > now + limits.maxFutureSeconds { return .ahead }
        if at < now - limits.maxAgeSeconds { return .tooOld }
        return nil
    }

    /// 1 to ``maximumIDBytes`` bytes without control characters.
    static func isEventID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maximumIDBytes && !id.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    }

    /// A context field kept (the user, a breakdown): 1 to 256 bytes without control characters.
    static func isContextText(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256 && !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    }

    /// A tracked event's value: finite, of magnitude at most 1e15.
    static func isEventValue(_ value: Double) -> Bool { value.isFinite && abs(value) <= 1e15 }

    /// The context fields kept; the others an SDK sends are accepted and dropped.
    static let contextFields: Set<String> = ["targetingKey", "platform", "appVersion", "country"]

    private struct EventContext {
        var user: String
        var dimensions: ExposureDimensions
    }

    /// `context`: the user (`targetingKey`, OpenFeature's name) and the breakdown fields
    /// `platform`, `appVersion`, `country`; other attributes an SDK sends are accepted and not kept.
    private func readContext(_ object: JSONObjectReader, at path: JSONPath, identity: Identity, _ collector: DiagnosticsCollector) -> EventContext? {
        let value = object.value("context")
        var fields: [String: String] = [:]
        if let value {
            guard let members = value.objectValue else {
                collector.report("expected an object (the evaluation context), found \(value.typeName)", at: path, value)
                return nil
            }
            for member in members where Self.contextFields.contains(member.key) {
                guard let text = member.value.stringValue, Self.isContextText(text) else {
                    collector.report("expected a string of 1 to 256 bytes without control characters", at: path.appending(member.key), member.value)
                    return nil
                }
                fields[member.key] = text
            }
        }
        let user: String
        var country = fields["country"]
        switch identity {
        case .perEvent:
            guard let key = fields["targetingKey"] else {
                collector.report(
                    "missing the user: give \"context\": {\"targetingKey\": …}, the id screens are asked for with",
                    at: path, value?.location ?? object.location)
                return nil
            }
            user = key
        case .signed(let signedUser, let signedCountry):
            if let key = fields["targetingKey"], key != signedUser {
                collector.report("the signed context names another user; an event is about the user the request is signed for", at: path.appending("targetingKey"), value!)
                return nil
            }
            user = signedUser
            country = signedCountry
        }
        return EventContext(user: user, dimensions: ExposureDimensions(platform: fields["platform"], appVersion: fields["appVersion"], country: country))
    }

    // MARK: - Exposures

    private func readExposure(
        _ value: JSONValue, at path: JSONPath, snapshot: Snapshot, _ collector: DiagnosticsCollector
    ) -> (subject: ExposureSubject, variant: String)? {
        guard let object = collector.object(value, at: path, allowedKeys: ["experiment", "flag", "rollout", "variant", "screen", "revision"]) else {
            return nil
        }
        let named = ["experiment", "flag", "rollout", "screen"].filter(object.contains)
        guard named.count == 1 else {
            collector.report(
                "an exposure names one of \"experiment\", \"flag\", \"rollout\" (each with \"variant\") or \"screen\" (with \"revision\")",
                at: path, object.location)
            return nil
        }
        guard let key = object.string(named[0], required: true) else { return nil }
        let targeting = snapshot.targeting
        // A flag is a rollout or an experiment, as OFREP evaluates it.
        let kind = named[0] == "flag" ? (targeting.rollouts[key] != nil ? "rollout" : "experiment") : named[0]
        switch kind {
        case "screen":
            guard let revision = object.integer("revision", in: 1...Int(Int32.max), required: true),
                Self.checkRevision(revision, of: key, in: snapshot, object)
            else { return nil }
            return (.screen(key), String(revision))
        case "rollout":
            guard targeting.rollouts[key] != nil else {
                object.report(Self.unknown("rollout", key, known: targeting.rollouts.keys), atMember: named[0])
                return nil
            }
            guard let variant = object.string("variant", required: true) else { return nil }
            guard variant == "on" || variant == "off" else {
                object.report("a rollout's variant is \"on\" (admitted) or \"off\", as OFREP answers it", atMember: "variant")
                return nil
            }
            return (.rollout(key), variant)
        default:
            guard let experiment = targeting.experiments[key] else {
                let known = named[0] == "flag" ? Array(targeting.experiments.keys) + targeting.rollouts.keys : Array(targeting.experiments.keys)
                object.report(Self.unknown(named[0] == "flag" ? "flag" : "experiment", key, known: known), atMember: named[0])
                return nil
            }
            guard let variant = object.string("variant", required: true) else { return nil }
            guard experiment.variants.contains(where: { $0.name == variant }) else {
                object.report(
                    "experiment \"\(key)\" has no variant \"\(variant)\"; its variants are: \(experiment.variants.map(\.name).joined(separator: ", "))",
                    atMember: "variant")
                return nil
            }
            return (.experiment(key), variant)
        }
    }

    /// `{"screen", "revision", "component", "reason"}`: the screen and revision must exist, as an
    /// exposure's; the component path is the app's (what it could not render), at most 512 bytes.
    private func readRenderFailure(
        _ value: JSONValue, at path: JSONPath, snapshot: Snapshot, _ collector: DiagnosticsCollector
    ) -> RenderFailure? {
        guard let object = collector.object(value, at: path, allowedKeys: ["screen", "revision", "component", "reason"]) else { return nil }
        let screen = object.string("screen", required: true)
        let revision = object.integer("revision", in: 1...Int(Int32.max), required: true)
        let component = object.string("component")
        if let component, component.utf8.count > 512 || component.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            object.report("a component path is at most 512 bytes without control characters", atMember: "component")
        }
        var reason: RenderFailure.Reason?
        if let raw = object.string("reason", required: true) {
            reason = RenderFailure.Reason(rawValue: raw)
            if reason == nil {
                object.report(
                    "unknown reason \"\(raw)\"; expected \(RenderFailure.Reason.allCases.map(\.rawValue).joined(separator: ", "))", atMember: "reason")
            }
        }
        guard let screen, let revision, let reason, Self.checkRevision(revision, of: screen, in: snapshot, object) else { return nil }
        return RenderFailure(screen: screen, revision: revision, component: component, reason: reason)
    }

    /// Whether screen `id` is served and has revision `revision` (reported at `screen` or
    /// `revision` of `object` when not): an exposure's and a render beacon's screen.
    private static func checkRevision(_ revision: Int, of id: String, in snapshot: Snapshot, _ object: JSONObjectReader) -> Bool {
        guard let newest = snapshot.newestRevision(of: id) else {
            object.report(unknown("screen", id, known: snapshot.screens.keys), atMember: "screen")
            return false
        }
        guard revision <= newest else {
            object.report("screen \"\(id)\" has no revision \(revision) yet; its newest is \(newest)", atMember: "revision")
            return false
        }
        return true
    }

    private static func unknown(_ kind: String, _ key: String, known: some Sequence<String>) -> String {
        let list = known.sorted().joined(separator: ", ")
        return "no \(kind) \"\(key)\"; \(kind)s: \(list.isEmpty ? "none" : list)"
    }
}

/// An app could not render part of a screen it was served.
package struct RenderFailure: Sendable, Equatable {
    package enum Reason: String, Sendable, CaseIterable {
        /// A component type the app does not know (an app older than the screen).
        case unknownType = "unknown_type"
        /// A component the app knows whose values it could not read.
        case decodeFailure = "decode_failure"
        case imageFailed = "image_failed"
        case actionFailed = "action_failed"
        case other
    }

    package var screen: String
    package var revision: Int
    package var component: String?
    package var reason: Reason

    /// The tracked event a beacon is kept as: one name a screen, so that a proportion metric over
    /// the screen's exposures (per revision) is its render-failure rate. Apps cannot send it as a
    /// name: `:` marks names the server makes.
    package static func eventName(screen: String) -> String { "render_failure:" + screen }
}
