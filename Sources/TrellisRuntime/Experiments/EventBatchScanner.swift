import TrellisStore
import TrellisTargeting

/// Reads the batches apps usually send in one pass over their bytes, without a JSON tree: events
/// whose strings have no escapes, whose context fields are strings (other attributes scalars),
/// tracked (`name`, `value`) or exposures in their plain forms. Anything else — a render beacon,
/// an escape, a mistake of any kind — makes it give up, and ``EventBatchReader``'s reference
/// reading, which knows every form and every mistake, reads the batch instead.
///
/// The invariant, tested on generated and mutated batches (`EventBatchScannerTests`): when the
/// scanner reads a batch, the reference reads it too, to the same ``EventBatchReader/Read``.
/// The scanner never refuses; it only declines.
package struct EventBatchScanner {
    let reader: EventBatchReader

    package init(reader: EventBatchReader) { self.reader = reader }

    /// The batch `bytes` holds, as ``EventBatchReader/readReference(_:format:identity:now:snapshot:)``
    /// reads it; nil when the scanner declines.
    package func read(
        _ bytes: [UInt8], format: EventBatchReader.Format, identity: EventBatchReader.Identity, now: Double, snapshot: Snapshot
    ) -> EventBatchReader.Read? {
        bytes.withUnsafeBufferPointer { buffer in
            var events = Events(reader: reader, identity: identity, now: now, snapshot: snapshot)
            // Room for as many events as the bytes could hold (an event is rarely under 64), so
            // that appending never reallocates: the arrays are freed on the store's thread, and
            // every allocation made here is one that thread frees against this one's malloc arena.
            let room = min(bytes.count / 64 + 1, reader.limits.maxEvents)
            events.batch.events.reserveCapacity(room)
            events.batch.exposures.reserveCapacity(room)
            let read = switch format {
            case .jsonArray: events.readArray(buffer)
            case .ndjson: events.readLines(buffer)
            }
            return read ? EventBatchReader.Read(batch: events.batch, renderFailures: []) : nil
        }
    }
}

/// The batch being read; each `read…` answers false to decline.
private struct Events {
    let reader: EventBatchReader
    let identity: EventBatchReader.Identity
    let now: Double
    let snapshot: Snapshot
    var batch = EventBatch()
    var count = 0

    mutating func readArray(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var cursor = Cursor(bytes: bytes, start: 0, end: bytes.count)
        cursor.skipWhitespace()
        guard cursor.take(UInt8(ascii: "[")) else { return false }
        cursor.skipWhitespace()
        if !cursor.take(UInt8(ascii: "]")) {
            repeat {
                cursor.skipWhitespace()
                let start = cursor.index
                guard readEvent(&cursor), cursor.index - start <= reader.limits.maxEventBytes else { return false }
                cursor.skipWhitespace()
            } while cursor.take(UInt8(ascii: ","))
            guard cursor.take(UInt8(ascii: "]")) else { return false }
        }
        cursor.skipWhitespace()
        return cursor.atEnd
    }

    /// One event a line, as the reference splits them: a line's one trailing CR is not its own,
    /// a line of spaces and tabs is skipped, and the limit counts the rest of the line.
    mutating func readLines(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            let next = end + 1
            if end > start, bytes[end - 1] == 0x0D { end -= 1 }
            if bytes[start..<end].contains(where: { $0 != 0x20 && $0 != 0x09 }) {
                guard end - start <= reader.limits.maxEventBytes else { return false }
                var cursor = Cursor(bytes: bytes, start: start, end: end)
                cursor.skipWhitespace()
                guard readEvent(&cursor) else { return false }
                cursor.skipWhitespace()
                guard cursor.atEnd else { return false }
            }
            start = next
        }
        return true
    }

    /// The members an event may have, as bits of a set (a repeated key is JSON the reference refuses).
    private enum Member: Int {
        case id, timestamp, context, name, value, exposure
    }

    /// The text of each member, as read.
    private struct Fields {
        var seen = 0
        var id: String?
        var timestamp: String?
        var user: String?
        var platform: String?
        var appVersion: String?
        var country: String?
        var name: String?
        var value: Double?
        var exposure: (kind: ExposureKind, key: String, variant: String?, revision: Int?)?

        mutating func mark(_ member: Member) -> Bool { Events.once(&seen, member.rawValue) }
    }

    private enum ExposureKind { case experiment, flag, rollout, screen }

    mutating func readEvent(_ cursor: inout Cursor) -> Bool {
        guard let fields = readMembers(&cursor) else { return false }
        count += 1
        guard count <= reader.limits.maxEvents, let id = fields.id, EventBatchReader.isEventID(id) else { return false }
        guard let at = time(fields.timestamp), let (user, dimensions) = context(fields) else { return false }
        if let name = fields.name {
            guard fields.exposure == nil, TrackedEventName.problem(name, fromApp: true) == nil else { return false }
            if let value = fields.value, !EventBatchReader.isEventValue(value) { return false }
            batch.events.append(TrackedEvent(id: id, user: user, name: name, value: fields.value, at: at, receivedAt: now))
            return true
        }
        guard let exposure = fields.exposure, fields.seen & (1 << Member.value.rawValue) == 0,
            let (subject, variant) = exposed(exposure)
        else { return false }
        batch.exposures.append(Exposure(subject: subject, user: user, variant: variant, at: at, dimensions: dimensions, source: .client))
        return true
    }

    private func time(_ text: String?) -> Double? {
        guard let text else { return now }
        guard let at = RFC3339.seconds(from: text), reader.timeProblem(at, now: now) == nil else { return nil }
        return at
    }

    private func context(_ fields: Fields) -> (String, ExposureDimensions)? {
        for text in [fields.user, fields.platform, fields.appVersion, fields.country] {
            if let text, !EventBatchReader.isContextText(text) { return nil }
        }
        switch identity {
        case .perEvent:
            guard let user = fields.user else { return nil }
            return (user, ExposureDimensions(platform: fields.platform, appVersion: fields.appVersion, country: fields.country))
        case .signed(let user, let country):
            guard fields.user == nil || fields.user == user else { return nil }
            return (user, ExposureDimensions(platform: fields.platform, appVersion: fields.appVersion, country: country))
        }
    }

    private func exposed(_ exposure: (kind: ExposureKind, key: String, variant: String?, revision: Int?)) -> (ExposureSubject, String)? {
        let key = exposure.key
        switch exposure.kind {
        case .screen:
            guard let revision = exposure.revision, exposure.variant == nil, let newest = snapshot.newestRevision(of: key), revision <= newest else {
                return nil
            }
            return (.screen(key), String(revision))
        case .experiment, .flag, .rollout:
            guard let variant = exposure.variant, exposure.revision == nil else { return nil }
            if exposure.kind != .experiment, snapshot.targeting.rollouts[key] != nil {
                return variant == "on" || variant == "off" ? (.rollout(key), variant) : nil
            }
            guard exposure.kind != .rollout, let experiment = snapshot.targeting.experiments[key],
                experiment.variants.contains(where: { $0.name == variant })
            else { return nil }
            return (.experiment(key), variant)
        }
    }

    // MARK: - Members

    private func readMembers(_ cursor: inout Cursor) -> Fields? {
        var fields = Fields()
        let complete = cursor.readObject { cursor, key in
            switch key {
            case "id": return fields.mark(.id) && cursor.readString(into: &fields.id)
            case "timestamp": return fields.mark(.timestamp) && cursor.readString(into: &fields.timestamp)
            case "name": return fields.mark(.name) && cursor.readString(into: &fields.name)
            case "value":
                guard fields.mark(.value) else { return false }
                if cursor.takeLiteral("null") { return true }
                fields.value = cursor.readNumber()
                return fields.value != nil
            case "context":
                guard fields.mark(.context) else { return false }
                return readContext(&cursor, into: &fields)
            case "exposure":
                guard fields.mark(.exposure) else { return false }
                return readExposure(&cursor, into: &fields)
            default: return false
            }
        }
        return complete ? fields : nil
    }

    /// The four fields kept; other attributes only when scalars, each key once.
    private func readContext(_ cursor: inout Cursor, into fields: inout Fields) -> Bool {
        var seen = 0
        var others: [String] = []
        return cursor.readObject { cursor, key in
            switch key {
            case "targetingKey": return Self.once(&seen, 0) && cursor.readString(into: &fields.user)
            case "platform": return Self.once(&seen, 1) && cursor.readString(into: &fields.platform)
            case "appVersion": return Self.once(&seen, 2) && cursor.readString(into: &fields.appVersion)
            case "country": return Self.once(&seen, 3) && cursor.readString(into: &fields.country)
            default:
                guard others.count < 16, !others.contains(key) else { return false }
                others.append(key)
                return cursor.skipScalar()
            }
        }
    }

    private func readExposure(_ cursor: inout Cursor, into fields: inout Fields) -> Bool {
        var seen = 0
        var key: String?
        var kind: ExposureKind?
        var variant: String?
        var revision: Int?
        let complete = cursor.readObject { cursor, member in
            switch member {
            case "experiment", "flag", "rollout", "screen":
                guard kind == nil else { return false }
                kind = member == "experiment" ? .experiment : member == "flag" ? .flag : member == "rollout" ? .rollout : .screen
                return cursor.readString(into: &key)
            case "variant": return Self.once(&seen, 0) && cursor.readString(into: &variant)
            case "revision":
                guard Self.once(&seen, 1) else { return false }
                revision = cursor.readRevision()
                return revision != nil
            default: return false
            }
        }
        guard complete, let kind, let key else { return false }
        fields.exposure = (kind, key, variant, revision)
        return true
    }

    /// Whether `bit` of `seen` was clear (a key not read before), setting it.
    static func once(_ seen: inout Int, _ bit: Int) -> Bool {
        guard seen & (1 << bit) == 0 else { return false }
        seen |= 1 << bit
        return true
    }
}

/// A position in the bytes of one batch (or one line of it), and the JSON forms the scanner takes.
private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int
    let end: Int

    init(bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int) {
        self.bytes = bytes
        index = start
        self.end = end
    }

    var atEnd: Bool { index == end }

    mutating func skipWhitespace() {
        while index < end, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < end, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func takeLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - index >= count, bytes[index..<index + count].elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: count)) else {
            return false
        }
        index += count
        return true
    }

    /// `{ "key": value, … }`, `member` reading each value (false declines); keys without escapes.
    mutating func readObject(_ member: (inout Cursor, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            skipWhitespace()
            guard let key = plainString() else { return false }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard member(&self, key) else { return false }
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// A string without escapes or control characters, valid UTF-8: the text between its quotes.
    mutating func plainString() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var ascii = true
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        return nil
    }

    mutating func readString(into field: inout String?) -> Bool {
        field = plainString()
        return field != nil
    }

    /// A JSON number, as the reference parser reads it (small integers exactly, the rest by the
    /// standard library's correctly rounded conversion); nil for one out of range.
    mutating func readNumber() -> Double? {
        let start = index
        _ = take(UInt8(ascii: "-"))
        let digits = index
        guard skipDigits(), bytes[digits] != UInt8(ascii: "0") || index - digits == 1 else { return nil }
        if take(UInt8(ascii: ".")) { guard skipDigits() else { return nil } }
        if index < end, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            _ = take(UInt8(ascii: "+")) || take(UInt8(ascii: "-"))
            guard skipDigits() else { return nil }
        }
        guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)), value.isFinite else {
            return nil
        }
        return value
    }

    /// A revision: 1 to 2^31 − 1, plain digits.
    mutating func readRevision() -> Int? {
        let start = index
        guard skipDigits(), index - start <= 10, bytes[start] != UInt8(ascii: "0") else { return nil }
        var value = 0
        for digit in bytes[start..<index] { value = value * 10 + Int(digit - 0x30) }
        return value <= Int(Int32.max) ? value : nil
    }

    /// A string, number, `true`, `false` or `null` read and dropped.
    mutating func skipScalar() -> Bool {
        guard index < end else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""): return plainString() != nil
        case UInt8(ascii: "t"): return takeLiteral("true")
        case UInt8(ascii: "f"): return takeLiteral("false")
        case UInt8(ascii: "n"): return takeLiteral("null")
        default: return readNumber() != nil
        }
    }

    /// One or more digits.
    private mutating func skipDigits() -> Bool {
        let start = index
        while index < end, bytes[index] &- 0x30 < 10 { index += 1 }
        return index > start
    }
}
