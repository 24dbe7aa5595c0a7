#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Metrics
import TrellisTesting
@testable import TrellisHTTP

/// The responder the integration tests run against. Paths under `/deferred/` answer what the
/// same path without that prefix answers, but through `.deferred` on `replyQueue`.
struct TestResponder: HTTPResponder {
    /// Serial, and only ever given quick work, so tests running in parallel do not wait on each other.
    static let replyQueue: DispatchQueue = {
        let queue = DispatchQueue(label: "test.deferred")
        queue.setSpecific(key: onReplyQueue, value: true)
        return queue
    }()
    static let onReplyQueue = DispatchSpecificKey<Bool>()
    /// Signalled when `/sleep` starts (only the shutdown test uses `/sleep`).
    static let sleepStarted = DispatchSemaphore(value: 0)
    static let big: [UInt8] = Array(String(repeating: "{\"component\":\"Text\",\"value\":\"hello world\"},", count: 200).utf8)
    static let precomputedGzip = Gzip.compress(Array("PRECOMPUTED".utf8))

    func respond(to request: HTTPRequest, context: HTTPRequestContext) -> HTTPReply {
        switch request.path {
        case "/deferred":
            let responderThread = pthread_self()
            return .deferred(on: Self.replyQueue) { Self.threadReport(responderThread: responderThread) }
        case "/slow-deferred":
            let ms = Int(request.query["ms"] ?? "500") ?? 500
            // Its own queue, held for the whole sleep (the loop must not care).
            return .deferred(on: DispatchQueue(label: "test.slow-deferred")) {
                usleep(UInt32(ms * 1000))
                return HTTPResponse(body: Array("slept \(ms) deferred".utf8), route: "/slow-deferred")
            }
        case let path where path.hasPrefix("/deferred/"):
            let inner = HTTPRequest(
                method: request.method, target: request.target, path: String(path.dropFirst("/deferred".count)),
                query: request.query, version: request.version, headers: request.headers, body: request.body)
            return .deferred(on: Self.replyQueue) { [inner] in answer(inner, context) }
        default:
            return .response(answer(request, context))
        }
    }

    /// Which threads took part in a `/deferred` reply: the responder's (the loop's), the work's,
    /// and whether the work ran on `replyQueue`.
    private static func threadReport(responderThread: pthread_t) -> HTTPResponse {
        let headers: HTTPHeaders = [
            "X-Responder-Thread": String(UInt(responderThread)),
            "X-Work-Thread": String(UInt(pthread_self())),
            "X-Work-On-Queue": String(DispatchQueue.getSpecific(key: onReplyQueue) == true),
        ]
        return HTTPResponse(headers: headers, body: Array("deferred".utf8), route: "/deferred")
    }

    /// The immediate answers.
    func answer(_ request: HTTPRequest, _ context: HTTPRequestContext) -> HTTPResponse {
        switch request.path {
        case "/hello":
            return HTTPResponse(headers: ["Content-Type": "text/plain"], body: Array("hello".utf8), route: "/hello")
        case "/echo":
            return HTTPResponse(headers: ["Content-Type": "application/octet-stream"], body: request.body, route: "/echo")
        case "/sleep":
            let ms = Int(request.query["ms"] ?? "100") ?? 100
            Self.sleepStarted.signal()
            usleep(UInt32(ms * 1000))
            return HTTPResponse(body: Array("slept \(ms)".utf8), route: "/sleep")
        case "/big":
            return HTTPResponse(headers: ["Content-Type": "application/json"], body: Self.big, route: "/big")
        case "/shared/big":
            return HTTPResponse(headers: ["Content-Type": "application/json"], sharing: HeldBytes.big, route: "/shared/big")
        case "/shared/hello":
            return HTTPResponse(headers: ["Content-Type": "text/plain"], sharing: HeldBytes.hello, route: "/shared/hello")
        case "/pre":
            return HTTPResponse(headers: ["Content-Type": "application/json"], body: Array("IDENTITY".utf8),
                                gzipBody: Self.precomputedGzip, route: "/pre")
        case "/id":
            return HTTPResponse(body: Array(context.requestID.utf8), route: "/id")
        case "/path":
            var text = request.path
            for item in request.query { text += "|\(item.name)=\(item.value)" }
            return HTTPResponse(body: Array(text.utf8), route: "/path")
        case "/bad-headers":
            return HTTPResponse(headers: ["X-Evil": "a\r\nInjected: yes", "Content-Length": "999", "X-Good": "ok"],
                                body: Array("x".utf8))
        case "/close":
            return HTTPResponse(headers: ["Connection": "close"], body: Array("bye".utf8))
        case "/nocontent":
            return HTTPResponse(status: .noContent, body: Array("ignored".utf8))
        case "/etag":
            let etag = "\"v1\""
            if request.headers.ifNoneMatchMatches(etag) { return HTTPResponse(status: .notModified, headers: ["ETag": etag]) }
            return HTTPResponse(headers: ["ETag": etag, "Content-Type": "text/plain"], body: Array("tagged".utf8))
        default:
            return HTTPResponse(status: .notFound, body: Array("not found".utf8))
        }
    }
}

/// Bytes in memory of their own, as a cached answer keeps them (``SharedBytes``): sent from where
/// they lie. Made once, never changed, freed with the object.
final class HeldBytes: SharedBytes, @unchecked Sendable {
    static let big = HeldBytes(TestResponder.big)
    static let hello = HeldBytes(Array("hello".utf8))

    private let memory: UnsafeMutableRawBufferPointer
    private let count: Int
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: memory[..<count]) }

    init(_ bytes: [UInt8]) {
        count = bytes.count
        memory = .allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: memory[..<bytes.count]).copyMemory(from: $0) }
    }

    deinit { memory.deallocate() }
}

/// Starts a server on 127.0.0.1 (or `host`), port 0, with test-sized limits.
func startServer(
    host: String = "127.0.0.1", responder: some HTTPResponder = TestResponder(),
    metrics: any MetricsFactory = MetricsSystem.factory, logger: Logger? = nil,
    _ adjust: (inout HTTPServer.Configuration) -> Void = { _ in }
) throws -> HTTPServer {
    var config = HTTPServer.Configuration()
    config.host = host
    config.port = 0
    config.eventLoopCount = 2
    config.accessLog = false
    config.maxBodyBytes = 64 * 1024
    adjust(&config)
    var quiet = Logger(label: "test.http")
    quiet.logLevel = .critical
    let server = HTTPServer(configuration: config, responder: responder, logger: logger ?? quiet, metricsFactory: metrics)
    try server.start()
    return server
}

func stop(_ server: HTTPServer) {
    server.shutdown()
    server.waitUntilStopped()
}

/// A log file path in a fresh temporary directory, removed when the value goes.
final class TemporaryLog {
    let directory: URL
    var path: String { directory.appendingPathComponent("access.log").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The lines of the file at `path` (default: the log), without their newlines; [] when it does not exist.
    func lines(_ path: String? = nil) -> [String] {
        guard let data = FileManager.default.contents(atPath: path ?? self.path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Each line parsed as a JSON object.
    func jsonLines(_ path: String? = nil) throws -> [[String: Any]] {
        try lines(path).map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw NotAnObject(line: line)
            }
            return object
        }
    }

    struct NotAnObject: Error { var line: String }
}
