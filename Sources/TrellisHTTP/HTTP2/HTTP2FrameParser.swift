/// Reads HTTP/2 frames (RFC 9113 §4, §6) from bytes. No I/O and no state but the frame size
/// limit: give it the bytes not yet consumed, and it returns one complete frame, "need more", or
/// the error the bytes are — never a trap, whatever they are.
///
/// The checks here are the ones a frame fails on its own: its size against SETTINGS_MAX_FRAME_SIZE
/// (§4.2), its stream identifier being zero or not as its type requires, its payload's length
/// and padding, the values of its settings. What depends on the connection's state (which stream
/// is open, whether a field block is in progress) is the connection's to check.
struct HTTP2FrameParser: Sendable {
    enum Event: Sendable, Equatable {
        /// The input ends inside a frame; call again with the same bytes and more.
        case needMoreData
        case frame(HTTP2Frame)
        /// A connection error ends the connection; after a stream error the frame is consumed and
        /// the next one may follow.
        case error(HTTP2Error)
    }

    /// SETTINGS_MAX_FRAME_SIZE as this endpoint announced it: a longer frame is a connection error
    /// before its payload is waited for.
    var maxFrameSize = HTTP2Bounds.minMaxFrameSize

    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// Parses the frame at the start of `input`.
    /// - Returns: the event and how many bytes of `input` it consumed (0 unless a whole frame was read).
    func next(_ input: Bytes) -> (event: Event, consumed: Int) {
        guard input.count >= HTTP2Bounds.frameHeaderBytes else { return (.needMoreData, 0) }
        let length = Int(input[0]) << 16 | Int(input[1]) << 8 | Int(input[2])
        guard length <= maxFrameSize else {
            return (.error(.connection(.frameSizeError, "frame of \(length) octets exceeds SETTINGS_MAX_FRAME_SIZE \(maxFrameSize)")), 0)
        }
        let total = HTTP2Bounds.frameHeaderBytes + length
        guard input.count >= total else { return (.needMoreData, 0) }
        let header = FrameHeader(type: input[3], flags: input[4], stream: Self.uint32(input, at: 5) & 0x7FFF_FFFF)
        let payload = Bytes(rebasing: input[HTTP2Bounds.frameHeaderBytes..<total])
        do throws(HTTP2Error) {
            return (.frame(try Self.frame(header, payload)), total)
        } catch {
            return (.error(error), total)
        }
    }

    struct FrameHeader {
        var type: UInt8
        var flags: UInt8
        var stream: UInt32

        func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
    }

    static func frame(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        guard let type = HTTP2FrameType(rawValue: header.type) else {
            return HTTP2Frame(stream: header.stream, .unknown(type: header.type))
        }
        switch type {
        case .data: return try data(header, payload)
        case .headers: return try headers(header, payload)
        case .priority: return try priority(header, payload)
        case .rstStream: return try rstStream(header, payload)
        case .settings: return try settings(header, payload)
        case .pushPromise: return try pushPromise(header, payload)
        case .ping: return try ping(header, payload)
        case .goAway: return try goAway(header, payload)
        case .windowUpdate: return try windowUpdate(header, payload)
        case .continuation: return try continuation(header, payload)
        }
    }

    // MARK: - Frames carrying a stream's data (§6.1, §6.2, §6.6, §6.10)

    private static func data(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        try requireStream(header, "DATA")
        let content = try unpadded(header, payload, reserving: 0, "DATA")
        return HTTP2Frame(stream: header.stream, .data(
            bytes: Array(content), endStream: header.has(HTTP2Flags.endStream), flowControlled: payload.count))
    }

    private static func headers(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        try requireStream(header, "HEADERS")
        let hasPriority = header.has(HTTP2Flags.priority)
        var content = try unpadded(header, payload, reserving: hasPriority ? 5 : 0, "HEADERS")
        var priority: HTTP2Priority?
        if hasPriority {
            priority = priorityFields(Bytes(rebasing: content[content.startIndex..<content.startIndex + 5]))
            content = Bytes(rebasing: content[(content.startIndex + 5)...])
        }
        return HTTP2Frame(stream: header.stream, .headers(
            fragment: Array(content), endStream: header.has(HTTP2Flags.endStream),
            endHeaders: header.has(HTTP2Flags.endHeaders), priority: priority))
    }

    private static func pushPromise(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        try requireStream(header, "PUSH_PROMISE")
        let content = try unpadded(header, payload, reserving: 4, "PUSH_PROMISE")
        let promised = uint32(content, at: content.startIndex) & 0x7FFF_FFFF
        return HTTP2Frame(stream: header.stream, .pushPromise(
            promised: promised, fragment: Array(content[(content.startIndex + 4)...]), endHeaders: header.has(HTTP2Flags.endHeaders)))
    }

    private static func continuation(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        try requireStream(header, "CONTINUATION")
        return HTTP2Frame(stream: header.stream, .continuation(fragment: Array(payload), endHeaders: header.has(HTTP2Flags.endHeaders)))
    }

    /// The payload without its padding (§6.1): the Pad Length octet, then `reserving` octets of
    /// fixed fields, then content, then that many octets of padding.
    private static func unpadded(_ header: FrameHeader, _ payload: Bytes, reserving fixed: Int, _ name: String) throws(HTTP2Error) -> Bytes {
        guard header.has(HTTP2Flags.padded) else {
            guard payload.count >= fixed else { throw .connection(.frameSizeError, "\(name) too short for its fields") }
            return payload
        }
        guard payload.count >= 1 + fixed else { throw .connection(.frameSizeError, "\(name) too short for its fields") }
        let padLength = Int(payload[0])
        guard padLength <= payload.count - 1 - fixed else {
            throw .connection(.protocolError, "\(name) padding of \(padLength) octets exceeds its payload")
        }
        return Bytes(rebasing: payload[1..<(payload.count - padLength)])
    }

    // MARK: - Frames about a stream (§6.3, §6.4, §6.9)

    private static func priority(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        try requireStream(header, "PRIORITY")
        guard payload.count == 5 else { throw .stream(header.stream, .frameSizeError, "PRIORITY of \(payload.count) octets, not 5") }
        return HTTP2Frame(stream: header.stream, .priority(priorityFields(payload)))
    }

    private static func rstStream(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        try requireStream(header, "RST_STREAM")
        guard payload.count == 4 else { throw .connection(.frameSizeError, "RST_STREAM of \(payload.count) octets, not 4") }
        return HTTP2Frame(stream: header.stream, .rstStream(HTTP2ErrorCode(rawValue: uint32(payload, at: 0))))
    }

    private static func windowUpdate(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        guard payload.count == 4 else { throw .connection(.frameSizeError, "WINDOW_UPDATE of \(payload.count) octets, not 4") }
        let increment = uint32(payload, at: 0) & 0x7FFF_FFFF
        guard increment > 0 else {
            let reason = "WINDOW_UPDATE with an increment of 0"
            throw header.stream == 0 ? .connection(.protocolError, reason) : .stream(header.stream, .protocolError, reason)
        }
        return HTTP2Frame(stream: header.stream, .windowUpdate(increment: increment))
    }

    // MARK: - Frames about the connection (§6.5, §6.7, §6.8)

    private static func settings(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        try requireConnection(header, "SETTINGS")
        let ack = header.has(HTTP2Flags.ack)
        guard !ack || payload.isEmpty else { throw .connection(.frameSizeError, "SETTINGS acknowledgement with a payload") }
        guard payload.count % 6 == 0 else { throw .connection(.frameSizeError, "SETTINGS of \(payload.count) octets, not a multiple of 6") }
        var settings: [HTTP2Setting] = []
        settings.reserveCapacity(payload.count / 6)
        for offset in stride(from: 0, to: payload.count, by: 6) {
            let setting = HTTP2Setting(UInt16(payload[offset]) << 8 | UInt16(payload[offset + 1]), uint32(payload, at: offset + 2))
            try check(setting)
            settings.append(setting)
        }
        return HTTP2Frame(stream: 0, .settings(ack: ack, settings))
    }

    /// The values §6.5.2 bounds.
    private static func check(_ setting: HTTP2Setting) throws(HTTP2Error) {
        switch setting.identifier {
        case HTTP2Setting.enablePush where setting.value > 1:
            throw .connection(.protocolError, "SETTINGS_ENABLE_PUSH of \(setting.value), not 0 or 1")
        case HTTP2Setting.initialWindowSize where setting.value > UInt32(HTTP2Bounds.maxWindowSize):
            throw .connection(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE of \(setting.value) exceeds 2^31-1")
        case HTTP2Setting.maxFrameSize
            where setting.value < UInt32(HTTP2Bounds.minMaxFrameSize) || setting.value > UInt32(HTTP2Bounds.maxMaxFrameSize):
            throw .connection(.protocolError, "SETTINGS_MAX_FRAME_SIZE of \(setting.value) outside 2^14…2^24-1")
        default:
            return
        }
    }

    private static func ping(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        try requireConnection(header, "PING")
        guard payload.count == 8 else { throw .connection(.frameSizeError, "PING of \(payload.count) octets, not 8") }
        let opaque = UInt64(uint32(payload, at: 0)) << 32 | UInt64(uint32(payload, at: 4))
        return HTTP2Frame(stream: 0, .ping(ack: header.has(HTTP2Flags.ack), opaque: opaque))
    }

    private static func goAway(_ header: FrameHeader, _ payload: Bytes) throws(HTTP2Error) -> HTTP2Frame {
        try requireConnection(header, "GOAWAY")
        guard payload.count >= 8 else { throw .connection(.frameSizeError, "GOAWAY of \(payload.count) octets, under 8") }
        return HTTP2Frame(stream: 0, .goAway(
            lastStream: uint32(payload, at: 0) & 0x7FFF_FFFF, code: HTTP2ErrorCode(rawValue: uint32(payload, at: 4)),
            debug: Array(payload[8...])))
    }

    // MARK: - Helpers

    private static func requireStream(_ header: FrameHeader, _ name: String) throws(HTTP2Error) {
        guard header.stream != 0 else { throw .connection(.protocolError, "\(name) on stream 0") }
    }

    private static func requireConnection(_ header: FrameHeader, _ name: String) throws(HTTP2Error) {
        guard header.stream == 0 else { throw .connection(.protocolError, "\(name) on stream \(header.stream), not 0") }
    }

    private static func priorityFields(_ b: Bytes) -> HTTP2Priority {
        let word = uint32(b, at: b.startIndex)
        return HTTP2Priority(exclusive: word & 0x8000_0000 != 0, dependency: word & 0x7FFF_FFFF, weight: b[b.startIndex + 4])
    }

    /// The big-endian 32-bit integer at `offset`.
    static func uint32(_ b: Bytes, at offset: Int) -> UInt32 {
        UInt32(b[offset]) << 24 | UInt32(b[offset + 1]) << 16 | UInt32(b[offset + 2]) << 8 | UInt32(b[offset + 3])
    }
}
