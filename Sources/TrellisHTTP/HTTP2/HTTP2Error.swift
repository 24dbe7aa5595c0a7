/// An HTTP/2 error code (RFC 9113 §7), as RST_STREAM and GOAWAY carry it. Codes this server does
/// not know are kept as received: they must not be treated as anything special (§7).
struct HTTP2ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    var rawValue: UInt32
    init(rawValue: UInt32) { self.rawValue = rawValue }

    static let noError = Self(rawValue: 0x0)
    static let protocolError = Self(rawValue: 0x1)
    static let internalError = Self(rawValue: 0x2)
    static let flowControlError = Self(rawValue: 0x3)
    static let settingsTimeout = Self(rawValue: 0x4)
    static let streamClosed = Self(rawValue: 0x5)
    static let frameSizeError = Self(rawValue: 0x6)
    static let refusedStream = Self(rawValue: 0x7)
    static let cancel = Self(rawValue: 0x8)
    static let compressionError = Self(rawValue: 0x9)
    static let connectError = Self(rawValue: 0xA)
    static let enhanceYourCalm = Self(rawValue: 0xB)
    static let inadequateSecurity = Self(rawValue: 0xC)
    static let http11Required = Self(rawValue: 0xD)

    private static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
        "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]
    var description: String { rawValue < Self.names.count ? Self.names[Int(rawValue)] : "0x" + String(rawValue, radix: 16) }
}

/// What went wrong on an HTTP/2 connection, and how far it reaches (RFC 9113 §5.4): a connection
/// error ends the connection with GOAWAY; a stream error ends one stream with RST_STREAM and the
/// connection goes on.
struct HTTP2Error: Error, Sendable, Equatable, CustomStringConvertible {
    enum Scope: Sendable, Equatable {
        case connection
        case stream(UInt32)
    }

    var scope: Scope
    var code: HTTP2ErrorCode
    /// For the log and GOAWAY's debug data: which rule the peer broke.
    var reason: String
    /// The limit of ``HTTP2Limits`` the peer reached, when that is what the error is: the label
    /// `http2_limit_refusals_total` counts it under.
    var limit: String? = nil

    /// The same error, counted as reaching `limit`.
    func reaching(_ limit: String) -> Self {
        var tagged = self
        tagged.limit = limit
        return tagged
    }

    static func connection(_ code: HTTP2ErrorCode, _ reason: String) -> Self { Self(scope: .connection, code: code, reason: reason) }
    static func stream(_ id: UInt32, _ code: HTTP2ErrorCode, _ reason: String) -> Self { Self(scope: .stream(id), code: code, reason: reason) }

    var description: String {
        switch scope {
        case .connection: "connection error \(code): \(reason)"
        case .stream(let id): "stream \(id) error \(code): \(reason)"
        }
    }
}
