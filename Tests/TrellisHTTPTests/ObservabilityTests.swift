#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Metrics
import MetricsTestKit
import Synchronization
import Testing
import TrellisTesting
@testable import TrellisHTTP

/// A log handler that keeps every record, for asserting on the access log.
struct CapturingLogHandler: LogHandler {
    struct Record: Sendable {
        var message: String
        var metadata: Logger.Metadata
        /// The thread that logged it.
        var thread = pthread_self()
    }

    final class Store: Sendable {
        let records = Mutex<[Record]>([])
    }

    let store: Store
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        all.merge(event.metadata ?? [:]) { $1 }
        let record = Record(message: event.message.description, metadata: all)
        store.records.withLock { $0.append(record) }
    }
}

@Suite struct ObservabilityTests {
    @Test func accessLogAndMetricsRecordEveryRequest() throws {
        let log = try TemporaryLog()
        let metrics = TestMetrics()
        var config = HTTPServer.Configuration()
        config.host = "127.0.0.1"
        config.port = 0
        config.eventLoopCount = 1
        config.accessLogFormat = .json
        config.accessLogPath = log.path
        let server = HTTPServer(configuration: config, responder: TestResponder(), logger: Logger(label: "t"), metricsFactory: metrics)
        try server.start()
        let client = try TestClient(port: server.port)
        client.send("GET /hello?x=1 HTTP/1.1\r\nHost: a\r\nX-Request-Id: req-42\r\n\r\nGET /nowhere HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        #expect(client.readResponse()?.status == 404)
        #expect(try metrics.expectMeter("http_open_connections").lastValue == 1)
        stop(server)

        let lines = try log.jsonLines()
        #expect(lines.count == 2)
        let first = try #require(lines.first)
        #expect(first["method"] as? String == "GET")
        #expect(first["path"] as? String == "/hello")
        #expect(first["target"] as? String == "/hello?x=1")
        #expect(first["status"] as? Int == 200)
        #expect(first["bytes"] as? Int == 5)
        #expect(first["request_id"] as? String == "req-42")
        #expect(first["route"] as? String == "/hello")
        #expect(first["duration_ms"] is Double || first["duration_ms"] is Int)
        #expect((first["remote"] as? String)?.hasPrefix("127.0.0.1:") == true)
        #expect(lines.last?["route"] is NSNull)

        #expect(try metrics.expectCounter("http_requests_total", [("route", "/hello"), ("status", "200")]).totalValue == 1)
        #expect(try metrics.expectCounter("http_requests_total", [("route", "unmatched"), ("status", "404")]).totalValue == 1)
        #expect(try metrics.expectTimer("http_request_duration_seconds", [("route", "/hello")]).values.count == 1)
        #expect(try metrics.expectMeter("http_open_connections").lastValue == 0)
    }

    @Test func accessLogCanBeSwitchedOff() throws {
        let log = try TemporaryLog()
        let server = try startServer {
            $0.accessLog = false
            $0.accessLogPath = log.path
        }
        let client = try TestClient(port: server.port)
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        stop(server)
        #expect(!FileManager.default.fileExists(atPath: log.path))
    }
}
