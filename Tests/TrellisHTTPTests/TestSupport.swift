#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import TrellisTesting
@testable import TrellisHTTP

/// The responder the integration tests run against.
struct TestResponder: HTTPResponder {
    /// Signalled when `/sleep` starts (only the shutdown test uses `/sleep`).
    static let sleepStarted = DispatchSemaphore(value: 0)
    static let big: [UInt8] = Array(String(repeating: "{\"component\":\"Text\",\"value\":\"hello world\"},", count: 200).utf8)
    static let precomputedGzip = Gzip.compress(Array("PRECOMPUTED".utf8))

    func respond(to request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse {
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
        default:
            return HTTPResponse(status: .notFound, body: Array("not found".utf8))
        }
    }
}

/// Starts a server on 127.0.0.1 (or `host`), port 0, with test-sized limits.
func startServer(host: String = "127.0.0.1", _ adjust: (inout HTTPServer.Configuration) -> Void = { _ in }) throws -> HTTPServer {
    var config = HTTPServer.Configuration()
    config.host = host
    config.port = 0
    config.eventLoopCount = 2
    config.accessLog = false
    config.maxBodyBytes = 64 * 1024
    adjust(&config)
    var logger = Logger(label: "test.http")
    logger.logLevel = .critical
    let server = HTTPServer(configuration: config, responder: TestResponder(), logger: logger)
    try server.start()
    return server
}

func stop(_ server: HTTPServer) {
    server.shutdown()
    server.waitUntilStopped()
}
