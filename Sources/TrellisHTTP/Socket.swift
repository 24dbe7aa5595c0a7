#if canImport(Glibc)
import Glibc
#endif

/// A failed socket call, with the address and the errno text: "bind [::1]:8080: Address already in use".
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var address: String
    public var errno: Int32
    public var description: String {
        "\(operation) \(address): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Where to listen, from `Configuration.host`.
enum ListenAddress: Sendable {
    case ipv4(in_addr)
    case ipv6(in6_addr)

    /// The addresses for a host setting; `*` and `::` mean both wildcards.
    static func parse(_ host: String) -> [ListenAddress]? {
        switch host {
        case "*", "::": return [.ipv4(in_addr(s_addr: INADDR_ANY)), .ipv6(in6addr_any)]
        case "localhost": return parse("127.0.0.1")
        default: break
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return [.ipv4(v4)] }
        var v6 = in6_addr()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if inet_pton(AF_INET6, bare, &v6) == 1 { return [.ipv6(v6)] }
        return nil
    }

    var family: Int32 {
        switch self {
        case .ipv4: return AF_INET
        case .ipv6: return AF_INET6
        }
    }
}

/// Thin wrappers over the POSIX socket calls the server makes.
enum Socket {
    /// Creates a non-blocking listening socket (SO_REUSEADDR; IPV6_V6ONLY for IPv6).
    static func listen(_ address: ListenAddress, port: Int, backlog: Int) throws(HTTPServerError) -> Int32 {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError(operation: "socket", address: describe(address, port), errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let result: Int32
        switch address {
        case .ipv4(let a):
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = in_port_t(UInt16(port).bigEndian)
            sa.sin_addr = a
            result = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6(let a):
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = in_port_t(UInt16(port).bigEndian)
            sa.sin6_addr = a
            result = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        guard result == 0, Glibc.listen(fd, Int32(backlog)) == 0 else {
            let error = HTTPServerError(operation: result == 0 ? "listen" : "bind", address: describe(address, port), errno: errno)
            close(fd)
            throw error
        }
        return fd
    }

    /// The port a socket is bound to.
    static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return port(of: storage)
    }

    static func port(of storage: sockaddr_storage) -> Int {
        var storage = storage
        return withUnsafePointer(to: &storage) { p in
            switch Int32(p.pointee.ss_family) {
            case AF_INET: return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            case AF_INET6: return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            default: return 0
            }
        }
    }

    /// `127.0.0.1:53122` or `[::1]:53122`.
    static func describe(_ storage: sockaddr_storage) -> String {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(storage.ss_family)
        withUnsafePointer(to: &storage) { p in
            switch family {
            case AF_INET:
                p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var a = sin.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
                }
            case AF_INET6:
                p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                    var a = sin.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
                }
            default: break
            }
        }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(host)]:\(port(of: storage))" : "\(host):\(port(of: storage))"
    }

    static func describe(_ address: ListenAddress, _ port: Int) -> String {
        var storage = sockaddr_storage()
        withUnsafeMutablePointer(to: &storage) { p in
            switch address {
            case .ipv4(let a):
                p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_family = sa_family_t(AF_INET)
                    $0.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
                    $0.pointee.sin_addr = a
                }
            case .ipv6(let a):
                p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
                    $0.pointee.sin6_addr = a
                }
            }
        }
        return describe(storage)
    }

    /// `accept`, then non-blocking and close-on-exec (`accept4` needs `_GNU_SOURCE`, which
    /// Swift's Glibc module is not built with).
    static func acceptNonBlocking(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> Int32 {
        let c = accept(fd, address, length)
        if c >= 0 {
            _ = fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK)
            _ = fcntl(c, F_SETFD, FD_CLOEXEC)
        }
        return c
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}

/// Starts a detached POSIX thread running `body` (no Foundation `Thread` on the server path).
func spawnThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { arg in
        Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    pthread_detach(thread)
}

/// The process's limit on open descriptors (`RLIMIT_NOFILE`).
enum DescriptorLimit {
    /// Raises the soft limit to the hard one, as nginx's `worker_rlimit_nofile` does (an unlimited
    /// hard limit counts as 1,048,576, Linux's default `nr_open`).
    /// - Returns: the soft limit before and after (equal when it could not be raised).
    static func raiseSoftToHard() -> (before: Int, after: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (1024, 1024) }
        let before = Int(clamping: limit.rlim_cur)
        let hard = limit.rlim_max == rlim_t.max ? rlim_t(1 << 20) : limit.rlim_max  // RLIM_INFINITY
        guard limit.rlim_cur < hard else { return (before, before) }
        limit.rlim_cur = hard
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (before, before) }
        return (before, Int(clamping: hard))
    }
}
