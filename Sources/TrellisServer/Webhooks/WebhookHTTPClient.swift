import TrellisHTTP
import TrellisRuntime

#if canImport(Glibc)
import Glibc
#endif

/// The one HTTP request webhooks need: a POST over a fresh HTTP/1.1 connection (`Connection:
/// close`), in TLS for `https://` (the receiver's certificate verified for its host), answered by
/// its status code. Blocking POSIX sockets with bounded waits, so it runs on the deliverer's own
/// queue and never on an event loop.
struct WebhookHTTPClient: WebhookTransport {
    /// Whom `https://` receivers must prove they are to.
    let tls: TLSClientContext
    /// How long to wait for the receiver to accept the connection, per address.
    var connectTimeoutSeconds = 5.0
    /// How long any one send or receive (or TLS handshake step) may wait once connected.
    var ioTimeoutSeconds = 10.0
    /// Whether an internal address (``InternalAddress``) may be connected to.
    var allowPrivate = false

    typealias Failure = WebhookTransportFailure

    /// POSTs `body` with `headers` to `url`; the status code the receiver answered.
    func post(_ url: WebhookURL, headers: [(String, String)], body: [UInt8]) throws(Failure) -> Int {
        let fd = try connect(url)
        defer { close(fd) }
        let hostHeader = url.host.contains(":") ? "[\(url.host)]" : url.host
        let defaultPort = url.isTLS ? 443 : 80
        var head = "POST \(url.target) HTTP/1.1\r\nHost: \(hostHeader)\(url.port == defaultPort ? "" : ":\(url.port)")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let request = Array(head.utf8) + body
        guard url.isTLS else {
            try send(request, fd)
            return try statusCode(readStatusLine { () throws(Failure) in try receive(fd) })
        }
        let session: TLSClientSession
        do throws(TLSError) {
            session = try TLSClientSession(context: tls, fd: fd, host: url.host)
            try session.write(request)
        } catch {
            throw Failure(description: error.description)
        }
        return try statusCode(readStatusLine { () throws(Failure) in
            do throws(TLSError) { return try session.read(upTo: 1024) } catch { throw Failure(description: error.description) }
        })
    }

    /// A connected blocking socket to the first address of `url`'s host that accepts, with the
    /// send and receive timeouts set.
    private func connect(_ url: WebhookURL) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(url.host, String(url.port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(description: "cannot resolve \(url.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            next = info.pointee.ai_next
            // Judged on the very address connected to, so a name resolved again gains nothing.
            if !allowPrivate, let address = info.pointee.ai_addr, let reason = InternalAddress.reason(address) {
                lastError = "refused: the address is \(reason) (admin.webhookAllowPrivate)"
                continue
            }
            switch connect(info.pointee) {
            case .success(let fd): return fd
            case .failure(let failure): lastError = failure.description
            }
        }
        throw Failure(description: "cannot connect to \(url.host):\(url.port): \(lastError)")
    }

    /// A non-blocking connect bounded by `connectTimeoutSeconds`, then the socket made blocking
    /// with send and receive timeouts.
    private func connect(_ info: addrinfo) -> Result<Int32, Failure> {
        let fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Failure(description: Self.errorText(errno))) }
        if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else {
                let error = errno
                close(fd)
                return .failure(Failure(description: Self.errorText(error)))
            }
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, Int32(connectTimeoutSeconds * 1000))
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard ready == 1, error == 0 else {
                close(fd)
                return .failure(Failure(description: ready == 1 ? Self.errorText(error) : "connect timed out after \(connectTimeoutSeconds) s"))
            }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var timeout = timeval(tv_sec: Int(ioTimeoutSeconds), tv_usec: Int((ioTimeoutSeconds.truncatingRemainder(dividingBy: 1)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return .success(fd)
    }

    private func send(_ bytes: [UInt8], _ fd: Int32) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { throw Failure(description: "sending the request: \(Self.timeoutAware(errno))") }
            offset += sent
        }
    }

    /// Up to 1 KiB from the plain socket; empty at the end of the stream.
    private func receive(_ fd: Int32) throws(Failure) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw Failure(description: "reading the answer: \(Self.timeoutAware(errno))") }
            return Array(buffer.prefix(count))
        }
    }

    /// The response's first line, from what `receive` gives (at most 8 KiB are read; the rest of
    /// the answer is not needed).
    private func readStatusLine(_ receive: () throws(Failure) -> [UInt8]) throws(Failure) -> String {
        var received: [UInt8] = []
        while !received.contains(0x0A), received.count < 8192 {
            let bytes = try receive()
            guard !bytes.isEmpty else { throw Failure(description: "the receiver closed the connection without answering") }
            received += bytes
        }
        return String(decoding: received.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
    }

    /// `HTTP/1.1 204 No Content` → 204.
    private func statusCode(_ line: String) throws(Failure) -> Int {
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let code = Int(parts[1]) else {
            // What a non-HTTP service says is never echoed: the delivery log must not be a banner grabber.
            throw Failure(description: "the receiver did not answer HTTP/1.x")
        }
        return code
    }

    private static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    private static func timeoutAware(_ code: Int32) -> String {
        code == EAGAIN || code == EWOULDBLOCK ? "timed out" : errorText(code)
    }
}
