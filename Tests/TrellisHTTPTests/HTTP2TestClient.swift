@testable import TrellisHTTP

/// A client that drives an `HTTP2Connection` with bytes, as a socket would, and reads what the
/// server sends back as frames, its field blocks decoded.
struct HTTP2TestClient {
    var connection: HTTP2Connection
    var encoder = HPACKEncoder()
    var decoder = HPACKDecoder()
    /// Events the server reported, in order, over every `send`.
    var events: [HTTP2Connection.Event] = []
    /// Octets the server has not consumed yet.
    var unconsumed: [UInt8] = []

    init(limits: HTTP2Limits = HTTP2Limits()) {
        connection = HTTP2Connection(limits: limits)
    }

    /// The preface and SETTINGS, then the server's output read.
    @discardableResult
    mutating func start(_ settings: [HTTP2Setting] = []) -> [ReceivedFrame] {
        var bytes = HTTP2Bounds.clientPreface
        HTTP2FrameWriter.appendSettings(settings, ack: false, to: &bytes)
        send(bytes)
        return read()
    }

    /// Feeds `bytes` (after any the server left unconsumed) and records the events.
    @discardableResult
    mutating func send(_ bytes: [UInt8]) -> [HTTP2Connection.Event] {
        unconsumed += bytes
        let (consumed, new) = connection.receive(unconsumed)
        unconsumed.removeFirst(consumed)
        events += new
        return new
    }

    @discardableResult
    mutating func send(_ frame: HTTP2Frame) -> [HTTP2Connection.Event] {
        var bytes: [UInt8] = []
        HTTP2FrameWriter.append(frame, to: &bytes)
        return send(bytes)
    }

    /// A request's field block, encoded with this client's table.
    mutating func block(_ path: String, method: String = "GET", _ extra: [HPACKField] = []) -> [UInt8] {
        var block: [UInt8] = []
        encoder.encode(Self.fields(path, method: method) + extra, into: &block)
        return block
    }

    static func fields(_ path: String, method: String = "GET") -> [HPACKField] {
        [HPACKField(":method", method), HPACKField(":scheme", "https"), HPACKField(":path", path),
         HPACKField(":authority", "example.com")]
    }

    /// HEADERS for a request on `stream`, whole.
    @discardableResult
    mutating func request(_ stream: UInt32, _ path: String, method: String = "GET", _ extra: [HPACKField] = [],
                          endStream: Bool = true) -> [HTTP2Connection.Event] {
        let fragment = block(path, method: method, extra)
        return send(HTTP2Frame(stream: stream, .headers(fragment: fragment, endStream: endStream, endHeaders: true, priority: nil)))
    }

    /// What the server sent since the last read, as frames; field blocks decoded.
    mutating func read() -> [ReceivedFrame] {
        let bytes = connection.takeOutput()
        var frames: [ReceivedFrame] = []
        var offset = 0
        let parser = HTTP2FrameParser(maxFrameSize: HTTP2Bounds.maxMaxFrameSize)
        while offset < bytes.count {
            let (event, consumed) = bytes.withUnsafeBufferPointer { parser.next(UnsafeBufferPointer(rebasing: $0[offset...])) }
            guard case .frame(let frame) = event else { fatalError("the server wrote a frame the parser refuses: \(event)") }
            offset += consumed
            frames.append(ReceivedFrame(frame: frame, fields: decodeIfBlock(frame)))
        }
        return frames
    }

    private mutating func decodeIfBlock(_ frame: HTTP2Frame) -> [HPACKField]? {
        guard case .headers(let fragment, _, true, _) = frame.payload else { return nil }
        return try? decoder.decode(fragment)
    }

    /// The request of each `.request` event so far, by stream.
    var requests: [(stream: UInt32, request: HTTPRequest)] {
        events.compactMap { if case .request(let s, let r) = $0 { (s, r) } else { nil } }
    }
}

/// A frame the server sent, with its decoded fields when it is a whole field block.
struct ReceivedFrame: CustomStringConvertible {
    var frame: HTTP2Frame
    var fields: [HPACKField]?

    var stream: UInt32 { frame.stream }
    var description: String { fields.map { "\(frame.stream) HEADERS \($0.map { "\($0.name)=\($0.value)" })" } ?? "\(frame.stream) \(frame.payload)" }

    var status: String? { fields?.first { $0.name == ":status" }?.value }
    var data: [UInt8]? { if case .data(let bytes, _, _) = frame.payload { bytes } else { nil } }
    var endsStream: Bool {
        switch frame.payload {
        case .data(_, let end, _), .headers(_, let end, _, _): end
        default: false
        }
    }
    var resetCode: HTTP2ErrorCode? { if case .rstStream(let code) = frame.payload { code } else { nil } }
    var goAway: (lastStream: UInt32, code: HTTP2ErrorCode)? {
        if case .goAway(let last, let code, _) = frame.payload { (last, code) } else { nil }
    }
}

extension HTTP2Limits {
    /// The defaults with a few changed, for tests.
    static func with(_ change: (inout HTTP2Limits) -> Void) -> HTTP2Limits {
        var limits = HTTP2Limits()
        change(&limits)
        return limits
    }
}

/// A response head as the server makes it, with fixed date and request id.
func responseHead(_ response: HTTPResponse, head: Bool = false) -> HTTP2ResponseHead {
    HTTP2ResponseHead(
        response, request: RequestFacts(isHead: head, acceptEncoding: .absent), requestID: "r1",
        date: "Thu, 03 Dec 2026 18:00:00 GMT", options: ResponseWriter.Options(gzipMinimumBytes: 256, gzipLevel: 6))
}
