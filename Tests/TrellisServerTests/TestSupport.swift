import Foundation
import Logging
import Prometheus
import Synchronization
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
@testable import TrellisServer

/// A temporary directory shaped like `Config/`, removed when the value is released.
final class TemporaryConfig {
    let url: URL

    init(screens: [String: String] = ["home": TemporaryConfig.screen(id: "home", text: "Welcome")]) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url.appendingPathComponent("screens"), withIntermediateDirectories: true)
        for (id, text) in screens { try write(screen: id, text) }
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func write(screen id: String, _ text: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent("screens/\(id).json"))
    }

    func write(targeting text: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent("targeting.json"))
    }

    func remove(screen id: String) throws {
        try FileManager.default.removeItem(at: url.appendingPathComponent("screens/\(id).json"))
    }

    /// A small valid screen.
    static func screen(id: String, text: String) -> String {
        """
        {
          "id": "\(id)",
          "schemaVersion": 1,
          "title": "Test \(id)",
          "root": {
            "type": "VStack", "id": "root", "properties": {"spacing": 8, "padding": 16},
            "subviews": [
              {"type": "Text", "id": "greeting", "properties": {"font": "title"}, "values": {"text": "\(text)"}},
              {"type": "Text", "values": {"text": "\(String(repeating: "lorem ipsum ", count: 40))"}}
            ]
          }
        }
        """
    }
}

func loadSnapshot(_ config: TemporaryConfig, previous: Snapshot? = nil) throws -> Snapshot {
    try ConfigLoader(directory: config.url).load(previous: previous).get()
}

/// The application responder over `config`, called in-process (no socket).
struct InProcessApp {
    let state: ServerState
    let responder: TrellisResponder

    init(
        _ config: TemporaryConfig, configuration: ServerConfiguration = ServerConfiguration(),
        clock: @escaping @Sendable () -> Double = { 1_800_000_000 }
    ) throws {
        try self.init(directory: config.url, configuration: configuration, clock: clock)
    }

    /// The application over the configuration directory `directory` (the repository's Config/, say).
    init(
        directory: URL, configuration: ServerConfiguration = ServerConfiguration(),
        clock: @escaping @Sendable () -> Double = { 1_800_000_000 }
    ) throws {
        state = ServerState(
            published: PublishedSnapshot(try ConfigLoader(directory: directory).load(previous: nil).get()), configuration: configuration,
            metrics: PrometheusCollectorRegistry(), clock: clock)
        responder = TrellisResponder(state: state)
    }

    func request(_ target: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:]) -> HTTPResponse {
        let (path, query) = Self.split(target)
        let request = HTTPRequest(method: method, target: target, path: path, query: query, headers: headers)
        let context = HTTPRequestContext(requestID: "test-1", remoteAddress: "127.0.0.1:1", logger: Logger(label: "test"))
        return responder.respond(to: request, context: context).inProcessResponse
    }

    /// Splits `/a?x=1&y` the way the HTTP parser does, percent-decoding names and values.
    static func split(_ target: String) -> (String, HTTPQuery) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let items = parts.count > 1
            ? parts[1].split(separator: "&").map { pair -> HTTPQuery.Item in
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (part: Substring) in part.removingPercentEncoding ?? String(part) }
                return (decode(kv[0]), kv.count > 1 ? decode(kv[1]) : "")
            } : []
        return (String(parts[0]), HTTPQuery(items))
    }
}

extension HTTPResponse {
    var json: JSONValue? { try? JSONParser.parse(body) }
    var text: String { String(decoding: body, as: UTF8.self) }
}

extension HTTPReply {
    /// The response; deferred work runs here, synchronously (in-process tests have no event loop).
    var inProcessResponse: HTTPResponse {
        switch self {
        case .response(let response): return response
        case .deferred(_, let work): return work()
        case .pending(let start):
            let answered = DispatchSemaphore(value: 0)
            let response = Mutex<HTTPResponse?>(nil)
            start(HTTPReplyCompletion { given in
                response.withLock { $0 = given }
                answered.signal()
            })
            answered.wait()
            return response.withLock { $0! }
        case .stream(let stream): return stream.head  // its head and first bytes; events need a socket
        }
    }
}

extension LayoutAnswer {
    /// A layout answer straight from a responder's reply (PreviewChromiumTests calls the responder).
    init(_ reply: HTTPReply) throws { try self.init(reply.inProcessResponse) }
}

extension ServerConfiguration {
    /// Settings for an in-process server on a real socket: 127.0.0.1, a port the kernel picks, no
    /// access log, a short drain, runtime state in `dataDirectory`.
    static func live(dataDirectory: String) -> ServerConfiguration {
        var settings = ServerConfiguration()
        settings.host = "127.0.0.1"
        settings.port = 0
        settings.accessLog = false
        settings.dataDirectory = dataDirectory
        settings.limits.drainTimeoutSeconds = 2
        return settings
    }
}
