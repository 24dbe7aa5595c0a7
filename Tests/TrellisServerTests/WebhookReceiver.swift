import Foundation
import Synchronization
import TrellisCrypto
import TrellisRuntime

/// A webhook receiver on a local port, as a team would run one: it records every POST (its
/// target, headers and body), answers `status`, and can go down (connections refused) and come
/// back on the same port.
final class WebhookReceiver: @unchecked Sendable {
    struct Delivery {
        var target: String
        var headers: [String: String]
        var body: [UInt8]

        var id: String { headers["x-trellis-delivery"] ?? "" }
        var event: String { headers["x-trellis-event"] ?? "" }
        var json: JSONTree { JSONTree((try? JSONSerialization.jsonObject(with: Data(body))) ?? NSNull()) }

        /// Whether `X-Trellis-Signature` is HMAC-SHA256 under `secret` of the timestamp, a dot and the body.
        func isSigned(with secret: String) -> Bool {
            guard let timestamp = headers["x-trellis-timestamp"], let signature = headers["x-trellis-signature"],
                signature.hasPrefix("sha256="), let code = try? Hex.decode(signature.dropFirst(7))
            else { return false }
            return HMACSHA256.isValid(code, for: Array(timestamp.utf8) + [0x2E] + body, key: Array(secret.utf8))
        }
    }

    private(set) var port: Int = 0
    private let state = Mutex<(deliveries: [Delivery], status: Int, listener: Int32)>(([], 200, -1))

    init() throws { try up() }

    deinit { down() }

    /// What was received so far, in order.
    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    /// The status every next request is answered with.
    func answer(_ status: Int) { state.withLock { $0.status = status } }

    /// Listens (again) on its port; the first time on a free one.
    func up() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw ReceiverFailure(description: "bind/listen: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        state.withLock { $0.listener = fd }
        Thread.detachNewThread { [weak self] in self?.accept(on: fd) }
    }

    /// Stops listening: connections are refused until ``up()``.
    func down() {
        let fd = state.withLock { state in
            defer { state.listener = -1 }
            return state.listener
        }
        guard fd >= 0 else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    struct ReceiverFailure: Error, CustomStringConvertible { var description: String }

    private func accept(on listener: Int32) {
        while true {
            let connection = Glibc.accept(listener, nil, nil)
            guard connection >= 0 else { return }
            serve(connection)
            close(connection)
        }
    }

    /// Reads one request (head, then `Content-Length` bytes of body) and answers it.
    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        var expected = Int.max
        while received.count < expected {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received += buffer[0..<count]
            if headEnd == nil, let end = Self.find([13, 10, 13, 10], in: received) {
                headEnd = end
                let head = String(decoding: received[..<end], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                expected = end + 4 + length
            }
        }
        guard let headEnd else { return }
        let lines = String(decoding: received[..<headEnd], as: UTF8.self).split(separator: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let target = lines.first.map { String($0.split(separator: " ")[1]) } ?? ""
        let status = state.withLock { state in
            state.deliveries.append(Delivery(target: target, headers: headers, body: Array(received[(headEnd + 4)...])))
            return state.status
        }
        let answer = Array("HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
