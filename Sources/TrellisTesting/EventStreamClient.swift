#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// One server-sent event (WHATWG HTML §9.2.6) as a test sees it: its fields, or a comment.
public struct ServerSentEvent: Sendable, Equatable {
    public var id: String?
    public var event: String?
    public var data: String?
    /// The text of a comment block (`: …`), for heartbeats and preludes.
    public var comment: String?
    public var retry: String?
}

/// A client of a `text/event-stream` answer on a raw socket: sends the request, reads the head,
/// then undoes HTTP/1.1 chunking and splits the body into events, each with the moment it was
/// read. A test that wants a slow reader sets a small receive buffer and does not read.
public final class EventStreamClient {
    private let fd: Int32
    private var raw: [UInt8] = []
    private var body: [UInt8] = []
    public private(set) var status = 0
    public private(set) var headers: [(name: String, value: String)] = []
    /// The last chunk (size 0) arrived: the server ended the stream cleanly.
    public private(set) var sawLastChunk = false
    /// The server closed the connection.
    public private(set) var sawEOF = false
    private var chunked = false

    /// Connects and sends `GET target` with `headers`.
    /// - Parameter receiveBufferBytes: `SO_RCVBUF` before connecting (a small one makes a slow reader).
    public init(port: Int, target: String, headers: [String: String] = [:], receiveBufferBytes: Int? = nil) throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if var size = receiveBufferBytes.map(Int32.init) {
            setsockopt(socketFD, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr)
        let rc = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let e = errno
            close(socketFD)
            throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO)
        }
        fd = socketFD
        var request = "GET \(target) HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        let bytes = Array((request + "\r\n").utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    deinit { close(fd) }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Waits up to `timeout` seconds for the response head; false if none came.
    public func readHead(timeout: Double = 5) -> Bool {
        let deadline = Self.now() + timeout
        while status == 0 {
            guard let end = Self.find([13, 10, 13, 10], in: raw) else {
                guard receive(until: deadline) else { return false }
                continue
            }
            let lines = String(decoding: raw[..<end], as: UTF8.self).split(separator: "\r\n")
            status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? -1
            headers = lines.dropFirst().compactMap { line in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
            }
            chunked = header("Transfer-Encoding")?.lowercased() == "chunked"
            raw.removeFirst(end + 4)
            if !chunked, let length = header("Content-Length").flatMap({ Int($0) }) {
                // An ordinary answer (an error): its body is all there is.
                while raw.count < length, receive(until: deadline) {}
                body += raw.prefix(length)
                raw = []
                sawLastChunk = true
            }
        }
        return true
    }

    /// The next event or comment block, waiting up to `timeout` seconds; nil when none came or
    /// the stream ended.
    public func next(timeout: Double = 5) -> ServerSentEvent? {
        let deadline = Self.now() + timeout
        if status == 0, !readHead(timeout: timeout) { return nil }
        while true {
            dechunk()
            if let end = Self.find([10, 10], in: body) {
                let block = String(decoding: body[..<end], as: UTF8.self)
                body.removeFirst(end + 2)
                return Self.parse(block)
            }
            if sawLastChunk || sawEOF { return nil }
            guard receive(until: deadline) else { return nil }
        }
    }

    /// Events (not comments) until `timeout` passes with none.
    public func events(quietFor timeout: Double) -> [ServerSentEvent] {
        var out: [ServerSentEvent] = []
        while let event = next(timeout: timeout) {
            if event.event != nil || event.data != nil { out.append(event) }
        }
        return out
    }

    /// Reads until the server ends the stream or `timeout` passes; true when it ended.
    public func waitForEnd(timeout: Double = 5) -> Bool {
        let deadline = Self.now() + timeout
        while !sawEOF, receive(until: deadline) {}
        dechunk()
        return sawEOF
    }

    /// Whatever body text arrived and was not read as events yet.
    public var pendingText: String {
        dechunk()
        return String(decoding: body, as: UTF8.self)
    }

    private func dechunk() {
        guard chunked else {
            body += raw
            raw = []
            return
        }
        while !sawLastChunk, let lineEnd = Self.find([13, 10], in: raw) {
            guard let size = Int(String(decoding: raw[..<lineEnd], as: UTF8.self), radix: 16) else { return }
            if size == 0 {
                sawLastChunk = true
                raw.removeFirst(min(raw.count, lineEnd + 4))
                return
            }
            guard raw.count >= lineEnd + 2 + size + 2 else { return }
            body += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
            raw.removeFirst(lineEnd + 2 + size + 2)
        }
    }

    /// One `recv`, waiting at most until `deadline`; false on timeout or EOF.
    private func receive(until deadline: Double) -> Bool {
        let wait = deadline - Self.now()
        guard wait > 0, !sawEOF else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(wait * 1000) + 1) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else {
            sawEOF = true
            return false
        }
        raw += chunk[0..<n]
        return true
    }

    private static func parse(_ block: String) -> ServerSentEvent {
        var event = ServerSentEvent()
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                event.comment = (event.comment.map { $0 + "\n" } ?? "") + line.dropFirst().drop { $0 == " " }
                continue
            }
            let name = line.prefix { $0 != ":" }
            var value = line.dropFirst(name.count + 1)
            if value.first == " " { value = value.dropFirst() }
            switch name {
            case "id": event.id = String(value)
            case "event": event.event = String(value)
            case "data": event.data = (event.data.map { $0 + "\n" } ?? "") + value
            case "retry": event.retry = String(value)
            default: break
            }
        }
        return event
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }

    /// Seconds on the monotonic clock.
    public static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
