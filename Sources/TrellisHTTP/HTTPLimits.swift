#if canImport(Glibc)
import Glibc
#endif

extension HTTPServer {
    /// Every address, limit and timeout of the server, in one place (nginx-spirited defaults).
    /// Each property says its unit, its default, and what happens when a client exceeds it.
    /// Call `validate()` before starting; `HTTPServer.start()` calls it too.
    public struct Configuration: Sendable {
        // MARK: Listening

        /// Address to bind: an IPv4 or IPv6 literal (`127.0.0.1`, `::1`, `0.0.0.0`), `localhost`
        /// (= `127.0.0.1`), or `*` / `::` for every address of both families (IPv6 bound with
        /// `IPV6_V6ONLY`, beside IPv4). Default `*`.
        public var host: String = "*"
        /// TCP port; 0 asks the kernel for a free one (read it back from `HTTPServer.port`). Default 8080.
        public var port: Int = 8080
        /// `listen(2)` backlog: connections the kernel queues before they are accepted. Default 511.
        public var backlog: Int = 511
        /// Threads that each run an epoll loop owning a share of the connections. Default: one
        /// per online CPU.
        public var eventLoopCount: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

        // MARK: Request size limits

        /// Longest request line (method, target, version), bytes. Default 8192. Beyond → 414, close.
        public var maxRequestLineBytes: Int = 8192
        /// Largest head (request line and all header lines), bytes; also bounds a chunked body's
        /// trailer section. Default 32768 (nginx: 4 × 8 KB buffers). Beyond → 431, close.
        public var maxHeaderBytes: Int = 32768
        /// Most header fields in one head (and trailer fields). Default 100. Beyond → 431, close.
        public var maxHeaderCount: Int = 100
        /// Largest request body after de-chunking, bytes. Default 1 MiB (nginx
        /// `client_max_body_size`). A larger `Content-Length` → 413 before any body byte is read
        /// (and before `100 Continue`); a chunked body that grows past it → 413. Then close.
        public var maxBodyBytes: Int = 1 << 20
        /// Longest chunk-size line of a chunked body (size plus extensions), bytes. Default 4096.
        /// Beyond → 400, close.
        public var maxChunkLineBytes: Int = 4096

        // MARK: Timeouts

        /// Time to receive a complete head, from its first byte (nginx `client_header_timeout`).
        /// Default 60 s. Expiry → 408, close. A new connection that sends nothing at all in this
        /// time is closed silently.
        public var headTimeout: Duration = .seconds(60)
        /// Time to receive a complete body, from the end of the head (nginx
        /// `client_body_timeout`). Default 60 s. Expiry → 408, close.
        public var bodyTimeout: Duration = .seconds(60)
        /// How long a kept-alive connection may wait for its next request (nginx
        /// `keepalive_timeout`). Default 75 s. Expiry → closed silently.
        public var keepAliveTimeout: Duration = .seconds(75)
        /// How long a response write may make no progress because the client does not read
        /// (nginx `send_timeout`). Default 60 s. Expiry → closed.
        public var sendTimeout: Duration = .seconds(60)
        /// After the server decides to close (an error, `Connection: close`, drain), how long it
        /// keeps reading and discarding input so the client receives the response instead of a
        /// reset (nginx `lingering_timeout`). Default 2 s.
        public var lingerTimeout: Duration = .seconds(2)
        /// How long `shutdown()` lets in-flight requests finish before closing every connection.
        /// Default 10 s.
        public var drainTimeout: Duration = .seconds(10)

        // MARK: Connections

        /// Most open client connections. nil (the default): sized from the descriptor limit —
        /// `start()` raises the soft `RLIMIT_NOFILE` to the hard limit (nginx
        /// `worker_rlimit_nofile`) and allows that many less `reservedDescriptors`.
        /// When they are all open, a newcomer takes the place of an idle connection, closed
        /// silently: first one that has sent nothing for `silentConnectionGrace` since it was
        /// accepted (oldest first), else the keep-alive connection idle the longest (nginx's
        /// reusable connections). Only when none is idle is the newcomer closed at once, with no
        /// response; connections in the middle of a request are never disturbed.
        public var maxConnections: Int? = nil
        /// Descriptors left for everything but client connections (listeners, epoll and eventfd,
        /// log files, the application's files and database) when `maxConnections` is sized from
        /// the descriptor limit. Default 128.
        public var reservedDescriptors: Int = 128
        /// How long a new connection may stay silent before, with every slot taken, it is closed
        /// to make room for a newcomer. Default 1 s. (`headTimeout` still closes it after 60 s
        /// whatever the load.)
        public var silentConnectionGrace: Duration = .seconds(1)
        /// Most requests served on one connection; the last response carries `Connection: close`.
        /// nil = unlimited. Default 1000 (nginx `keepalive_requests`).
        public var maxRequestsPerConnection: Int? = 1000

        // MARK: Compression

        /// Smallest identity body, bytes, that is gzipped on the fly (when the response has no
        /// precomputed `gzipBody`, is `compressible` and textual). Default 256 (``Gzip/Policy/minimumBytes``).
        public var gzipMinimumBytes: Int = Gzip.Policy.minimumBytes
        /// zlib level for on-the-fly gzip, 1 (fastest) … 9 (smallest). Default 6 (``Gzip/Policy/perRequestLevel``).
        public var gzipLevel: Int = Gzip.Policy.perRequestLevel

        // MARK: Logging

        /// One line per request (see `accessLogFormat`), written by each event loop in batches.
        /// Default on.
        public var accessLog: Bool = true
        /// `text`, `combined` (Apache/nginx) or `json`. Default `text`.
        public var accessLogFormat: AccessLogFormat = .text
        /// The file lines are appended to (created if missing, mode 0644; `HTTPServer.reopenAccessLog()`
        /// opens it anew after logrotate moved it). nil (the default): standard output.
        public var accessLogPath: String? = nil
        /// Each event loop writes its lines once this many bytes wait. Default 64 KiB (nginx
        /// `access_log … buffer=64k`); 0 writes every line at once.
        public var accessLogBufferBytes: Int = 64 * 1024
        /// Longest a line waits in a loop's buffer before it is written. Default 1 s (nginx
        /// `flush=1s`). Every line is written when the server stops.
        public var accessLogFlushInterval: Duration = .seconds(1)
        /// Longest `X-Request-Id` accepted from a client, characters; a longer one (or one with
        /// characters outside `A-Z a-z 0-9 - _ . : /`) is replaced by a generated id. Default 128.
        public var maxRequestIDLength: Int = 128

        // MARK: HTTP/2

        /// HTTP/2 (RFC 9113) beside HTTP/1.1: with prior knowledge (h2c) on plain listeners, and
        /// through ALPN `h2` on TLS ones. Default on; false serves HTTP/1.1 only.
        public var http2: Bool = true
        /// Most streams a client may have open at once on one connection
        /// (SETTINGS_MAX_CONCURRENT_STREAMS). Default 100 (nginx `http2_max_concurrent_streams`).
        /// Beyond → that stream is refused (RST_STREAM REFUSED_STREAM; the client may retry it).
        public var http2MaxConcurrentStreams: Int = 100
        /// How many octets of a request body a client may send on one stream before the server
        /// asks for more (SETTINGS_INITIAL_WINDOW_SIZE), bytes. Default 65535 (RFC 9113's initial
        /// window); at least that, at most 2³¹ − 1. Beyond → the stream is reset (FLOW_CONTROL_ERROR).
        public var http2StreamWindowBytes: Int = 65535
        /// How many octets of request bodies a client may send ahead on one connection, over all
        /// its streams (the connection's window), and the most its unfinished request bodies may
        /// hold in memory together, bytes. Default 1 MiB; at least 65535, at most 2³¹ − 1. A stream
        /// whose body would pass it is refused (RST_STREAM REFUSED_STREAM, the client may retry);
        /// DATA past the window itself closes the connection (GOAWAY FLOW_CONTROL_ERROR).
        public var http2ConnectionWindowBytes: Int = 1 << 20

        // MARK: TLS

        /// TLS on the server's own sockets (through OpenSSL); nil (the default): plain HTTP only.
        public var tls: TLS? = nil

        /// The certificate, key and listener of TLS, and its session limits.
        public struct TLS: Sendable, Equatable {
            /// PEM: the leaf certificate, then any intermediates (nginx `ssl_certificate`). Read at
            /// `start()` and again by `HTTPServer.reloadTLS()`.
            public var certificatePath: String
            /// PEM, unencrypted, EC or RSA (nginx `ssl_certificate_key`).
            public var privateKeyPath: String
            /// A TLS listener beside the plain one on `port` (0: the kernel chooses; read it back
            /// from `HTTPServer.tlsPort`). nil (the default): `port` itself speaks TLS only — an
            /// admin listener reachable over TLS alone.
            public var port: Int? = nil
            /// TLS 1.2 sessions kept for resumption by id, across every event loop. Default 20480
            /// (OpenSSL's; nginx's `ssl_session_cache shared:SSL:10m` holds about 40,000).
            public var sessionCacheSize: Int = 20480
            /// How long a cached session or a ticket resumes (nginx `ssl_session_timeout`). Default 300 s.
            public var sessionTimeout: Duration = .seconds(300)
            /// How long one session-ticket key encrypts tickets before a new one replaces it (the
            /// context is rebuilt from the same files; tickets under the old key then fall back to a
            /// full handshake once). Default 24 h. Reloads rotate it too.
            public var ticketKeyLifetime: Duration = .seconds(24 * 3600)

            public init(certificatePath: String, privateKeyPath: String, port: Int? = nil) {
                self.certificatePath = certificatePath
                self.privateKeyPath = privateKeyPath
                self.port = port
            }
        }

        public init() {}

        /// Checks every value and reports every problem at once.
        /// - Throws: `HTTPServer.ConfigurationError` listing each invalid setting.
        public func validate() throws(ConfigurationError) {
            var problems: [String] = []
            func check(_ ok: Bool, _ message: String) { if !ok { problems.append(message) } }
            check(ListenAddress.parse(host) != nil, "host '\(host)' is not an IP address, 'localhost', '*' or '::'")
            check((0...65535).contains(port), "port \(port) is not in 0…65535")
            check(backlog >= 1, "backlog must be at least 1")
            check((1...256).contains(eventLoopCount), "eventLoopCount must be in 1…256")
            check(maxRequestLineBytes >= 64, "maxRequestLineBytes must be at least 64")
            check(maxHeaderBytes >= maxRequestLineBytes, "maxHeaderBytes must be at least maxRequestLineBytes")
            check(maxHeaderCount >= 1, "maxHeaderCount must be at least 1")
            check(maxBodyBytes >= 0, "maxBodyBytes must not be negative")
            check(maxChunkLineBytes >= 16, "maxChunkLineBytes must be at least 16")
            for (name, value) in [("headTimeout", headTimeout), ("bodyTimeout", bodyTimeout),
                                  ("keepAliveTimeout", keepAliveTimeout), ("sendTimeout", sendTimeout),
                                  ("lingerTimeout", lingerTimeout), ("drainTimeout", drainTimeout)] {
                check(value > .zero, "\(name) must be positive")
            }
            check((maxConnections ?? 1) >= 1, "maxConnections must be at least 1 or nil")
            check(reservedDescriptors >= 0, "reservedDescriptors must not be negative")
            check(silentConnectionGrace >= .zero, "silentConnectionGrace must not be negative")
            check(accessLogPath.map { !$0.isEmpty } ?? true, "accessLogPath must not be empty (nil is standard output)")
            check((0...(64 << 20)).contains(accessLogBufferBytes), "accessLogBufferBytes must be in 0…67108864")
            check(accessLogFlushInterval > .zero, "accessLogFlushInterval must be positive")
            check((maxRequestsPerConnection ?? 1) >= 1, "maxRequestsPerConnection must be at least 1 or nil")
            check(gzipMinimumBytes >= 0, "gzipMinimumBytes must not be negative")
            check((1...9).contains(gzipLevel), "gzipLevel must be in 1…9")
            check(maxRequestIDLength >= 8, "maxRequestIDLength must be at least 8")
            check((1...Int(Int32.max)).contains(http2MaxConcurrentStreams), "http2MaxConcurrentStreams must be in 1…2147483647")
            check((65535...Int(Int32.max)).contains(http2StreamWindowBytes), "http2StreamWindowBytes must be in 65535…2147483647")
            check((65535...Int(Int32.max)).contains(http2ConnectionWindowBytes), "http2ConnectionWindowBytes must be in 65535…2147483647")
            if let tls {
                check(!tls.certificatePath.isEmpty, "tls.certificatePath must not be empty")
                check(!tls.privateKeyPath.isEmpty, "tls.privateKeyPath must not be empty")
                check(tls.port.map { (0...65535).contains($0) } ?? true, "tls.port \(tls.port ?? 0) is not in 0…65535")
                check(tls.port.map { $0 == 0 || $0 != port } ?? true, "tls.port \(tls.port ?? 0) is also the plain HTTP port")
                check(tls.sessionCacheSize >= 0, "tls.sessionCacheSize must not be negative")
                check(tls.sessionTimeout >= .seconds(1), "tls.sessionTimeout must be at least 1 s")
                check(tls.ticketKeyLifetime >= .seconds(60), "tls.ticketKeyLifetime must be at least 60 s")
            }
            if !problems.isEmpty { throw ConfigurationError(problems: problems) }
        }

        /// The connection limit in force: `maxConnections`, or the descriptor limit less
        /// `reservedDescriptors` (at least 1).
        func connectionLimit(descriptorLimit: Int) -> Int {
            maxConnections ?? max(1, descriptorLimit - reservedDescriptors)
        }

        var parserLimits: HTTPParserLimits {
            HTTPParserLimits(
                maxRequestLineBytes: maxRequestLineBytes, maxHeaderBytes: maxHeaderBytes,
                maxHeaderCount: maxHeaderCount, maxBodyBytes: maxBodyBytes, maxChunkLineBytes: maxChunkLineBytes)
        }
    }
}

extension HTTPServer.Configuration {
    /// The limits an HTTP/2 connection enforces (``HTTP2Limits``), from this configuration.
    var http2Limits: HTTP2Limits {
        var limits = HTTP2Limits()
        limits.maxConcurrentStreams = http2MaxConcurrentStreams
        limits.streamWindow = http2StreamWindowBytes
        limits.connectionWindow = http2ConnectionWindowBytes
        limits.maxHeaderListSize = maxHeaderBytes + HPACKDynamicTable.entryOverhead * maxHeaderCount
        limits.maxHeaderCount = maxHeaderCount
        limits.maxBodyBytes = maxBodyBytes
        return limits
    }
}

extension HTTPServer {
    /// Every problem `Configuration.validate()` found.
    public struct ConfigurationError: Error, CustomStringConvertible {
        public var problems: [String]
        public var description: String { "invalid HTTP server configuration: " + problems.joined(separator: "; ") }
    }
}
