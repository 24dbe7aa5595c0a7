#if canImport(Glibc)
import Glibc
#endif
import Foundation

// Test helpers shared by the HTTP and server test suites: a raw TCP client that speaks exact bytes.

/// A response read off the wire by `TestClient`.
public struct WireResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Takes one response off the front of `buffer`, appending what `receive` delivers (nil at the
    /// connection's end) until the head and a `Content-Length` body are there.
    /// `headRequest` means no body follows whatever `Content-Length` says. Nil when the connection
    /// ends first or the status line is not HTTP/1.1's.
    public static func read(from buffer: inout [UInt8], headRequest: Bool = false, receive: () -> [UInt8]?) -> WireResponse? {
        var end: Int?
        while true {
            if let r = buffer.firstRange(of: Array("\r\n\r\n".utf8)) { end = r.upperBound; break }
            guard let more = receive() else { return nil }
            buffer += more
        }
        let head = String(decoding: buffer[0..<end!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else { return nil }
        let headers: [(String, String)] = lines.filter { !$0.isEmpty }.map { line in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        buffer.removeFirst(end!)
        var response = WireResponse(status: status, headers: headers, body: [])
        let length = headRequest || status < 200 || status == 204 || status == 304 ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        while buffer.count < length {
            guard let more = receive() else { return nil }
            buffer += more
        }
        response.body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return response
    }
}

/// A blocking raw-TCP client with a receive timeout, for speaking exact bytes to the server.
public final class TestClient {
    public let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host:port` with a receive timeout of `timeout` seconds.
    ///
    /// `fd` is stored only once the connection stands: a throwing initializer of a fully
    /// initialized class also runs `deinit`, and a second `close` of the number would close
    /// whatever descriptor the process (other tests run in parallel) has reused it for.
    public init(port: Int, host: String = "127.0.0.1", timeout: Double = 5) throws {
        let v6 = host.contains(":")
        let socketFD = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let rc: Int32
        if v6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &sa.sin6_addr)
            rc = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &sa.sin_addr)
            rc = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard rc == 0 else {
            let e = errno
            close(socketFD)
            throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO)
        }
        fd = socketFD
    }

    deinit { close(fd) }

    public func send(_ text: String) { send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, bytes.count - off, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// The next bytes the socket delivers; nil on EOF, error or timeout.
    private func receive() -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? Array(chunk[0..<n]) : nil
    }

    /// Reads one response; `headRequest` means no body follows whatever Content-Length says.
    public func readResponse(headRequest: Bool = false) -> WireResponse? {
        WireResponse.read(from: &buffer, headRequest: headRequest, receive: receive)
    }

    /// Whether bytes from the server wait to be read (or are buffered already), without waiting:
    /// for a test that asserts an answer has not come yet.
    public func hasBytesWaiting() -> Bool {
        guard buffer.isEmpty else { return true }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// True when the server closed the connection (EOF or reset) within the receive timeout.
    public func isClosedByServer() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
            buffer += chunk[0..<n]
        }
    }
}

