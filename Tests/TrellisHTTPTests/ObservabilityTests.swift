#if canImport(Glibc)
import Glibc
#endif
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
        let store = CapturingLogHandler.Store()
        let metrics = TestMetrics()
        var config = HTTPServer.Configuration()
        config.host = "127.0.0.1"
        config.port = 0
        config.eventLoopCount = 1
        let logger = Logger(label: "access") { _ in CapturingLogHandler(store: store) }
        let server = HTTPServer(configuration: config, responder: TestResponder(), logger: logger, metricsFactory: metrics)
        try server.start()
        let client = try TestClient(port: server.port)
        client.send("GET /hello?x=1 HTTP/1.1\r\nHost: a\r\nX-Request-Id: req-42\r\n\r\nGET /nowhere HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        #expect(client.readResponse()?.status == 404)
        #expect(try metrics.expectGauge("http_open_connections").lastValue == 1)
        stop(server)

        let lines = store.records.withLock { $0 }.filter { $0.metadata["status"] != nil }
        #expect(lines.count == 2)
        let first = try #require(lines.first)
        #expect(first.message == "GET /hello 200")
        #expect(first.metadata["method"] == "GET")
        #expect(first.metadata["path"] == "/hello")
        #expect(first.metadata["bytes"]?.description == "5")
        #expect(first.metadata["request-id"] == "req-42")
        #expect(first.metadata["route"] == "/hello")
        #expect(first.metadata["duration_ms"] != nil)
        #expect(first.metadata["remote"]?.description.hasPrefix("127.0.0.1:") == true)
        #expect(lines.last?.metadata["route"] == "unmatched")

        #expect(try metrics.expectCounter("http_requests_total", [("route", "/hello"), ("status", "200")]).totalValue == 1)
        #expect(try metrics.expectCounter("http_requests_total", [("route", "unmatched"), ("status", "404")]).totalValue == 1)
        #expect(try metrics.expectTimer("http_request_duration_seconds", [("route", "/hello")]).values.count == 1)
        #expect(try metrics.expectGauge("http_open_connections").lastValue == 0)
    }

    @Test func accessLogCanBeSwitchedOff() throws {
        let store = CapturingLogHandler.Store()
        var config = HTTPServer.Configuration()
        config.host = "127.0.0.1"
        config.port = 0
        config.accessLog = false
        let logger = Logger(label: "access") { _ in CapturingLogHandler(store: store) }
        let server = HTTPServer(configuration: config, responder: TestResponder(), logger: logger, metricsFactory: TestMetrics())
        try server.start()
        let client = try TestClient(port: server.port)
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        stop(server)
        #expect(store.records.withLock { $0 }.allSatisfy { $0.metadata["status"] == nil })
    }
}
