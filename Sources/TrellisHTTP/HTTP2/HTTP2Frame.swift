/// One HTTP/2 frame (RFC 9113 §4.1, §6), its payload decoded. Padding is gone once parsed, but a
/// DATA frame keeps the length flow control counts (§6.1: padding included).
struct HTTP2Frame: Sendable, Equatable {
    /// The stream the frame belongs to; 0 for the connection. The reserved bit is dropped (§4.1).
    var stream: UInt32
    var payload: Payload

    init(stream: UInt32, _ payload: Payload) {
        self.stream = stream
        self.payload = payload
    }

    enum Payload: Sendable, Equatable {
        /// §6.1. `flowControlled`: the whole payload's length, padding included.
        case data(bytes: [UInt8], endStream: Bool, flowControlled: Int)
        /// §6.2. The field block fragment; the priority fields when the PRIORITY flag is set.
        case headers(fragment: [UInt8], endStream: Bool, endHeaders: Bool, priority: HTTP2Priority?)
        /// §6.3 (deprecated by RFC 9113 §5.3.2, still parsed and checked).
        case priority(HTTP2Priority)
        /// §6.4
        case rstStream(HTTP2ErrorCode)
        /// §6.5. An acknowledgement has no settings.
        case settings(ack: Bool, [HTTP2Setting])
        /// §6.6. Only a server sends it; this server never does, and refuses one received.
        case pushPromise(promised: UInt32, fragment: [UInt8], endHeaders: Bool)
        /// §6.7. Eight opaque octets, echoed in the acknowledgement.
        case ping(ack: Bool, opaque: UInt64)
        /// §6.8
        case goAway(lastStream: UInt32, code: HTTP2ErrorCode, debug: [UInt8])
        /// §6.9. A positive increment (0 is refused when parsed).
        case windowUpdate(increment: UInt32)
        /// §6.10
        case continuation(fragment: [UInt8], endHeaders: Bool)
        /// A type this implementation does not know: ignored, except that it may not interrupt a
        /// field block (§4.1, §5.5).
        case unknown(type: UInt8)
    }
}

/// The frame types of RFC 9113 §6.
enum HTTP2FrameType: UInt8, Sendable {
    case data = 0x0, headers = 0x1, priority = 0x2, rstStream = 0x3, settings = 0x4, pushPromise = 0x5, ping = 0x6
    case goAway = 0x7, windowUpdate = 0x8, continuation = 0x9
}

/// The flags of RFC 9113 §6, by the bit each sets; which apply depends on the frame type.
enum HTTP2Flags {
    static let endStream: UInt8 = 0x1
    static let ack: UInt8 = 0x1
    static let endHeaders: UInt8 = 0x4
    static let padded: UInt8 = 0x8
    static let priority: UInt8 = 0x20
}

/// A PRIORITY frame's fields, or a HEADERS frame's with the PRIORITY flag (RFC 9113 §5.3.2: the
/// signal is deprecated; it is parsed so its format errors are caught, then ignored).
struct HTTP2Priority: Sendable, Equatable {
    var exclusive: Bool
    var dependency: UInt32
    /// The weight field's value: the weight less one.
    var weight: UInt8
}

/// One setting of a SETTINGS frame (RFC 9113 §6.5.1); identifiers this server does not know are kept
/// and ignored (§6.5.2).
struct HTTP2Setting: Sendable, Equatable {
    var identifier: UInt16
    var value: UInt32

    init(_ identifier: UInt16, _ value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    static let headerTableSize: UInt16 = 0x1
    static let enablePush: UInt16 = 0x2
    static let maxConcurrentStreams: UInt16 = 0x3
    static let initialWindowSize: UInt16 = 0x4
    static let maxFrameSize: UInt16 = 0x5
    static let maxHeaderListSize: UInt16 = 0x6
}

/// Bounds RFC 9113 sets on frames and windows.
enum HTTP2Bounds {
    /// The frame header: length (24 bits), type, flags, stream (31 bits and a reserved bit) (§4.1).
    static let frameHeaderBytes = 9
    /// SETTINGS_MAX_FRAME_SIZE's initial value and floor (§6.5.2).
    static let minMaxFrameSize = 1 << 14
    /// SETTINGS_MAX_FRAME_SIZE's ceiling (§6.5.2).
    static let maxMaxFrameSize = (1 << 24) - 1
    /// The largest flow-control window (§6.9.1).
    static let maxWindowSize = Int(Int32.max)
    /// Every connection's and stream's window before any setting or WINDOW_UPDATE (§6.9.2).
    static let defaultWindowSize = 65535
    /// What a client sends first on every connection (§3.4), before its SETTINGS.
    static let clientPreface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
}
