import Foundation
import Logging
import Prometheus
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTesting
@testable import TrellisServer

/// The application over a real socket on 127.0.0.1 and an ephemeral port.
@Suite struct LiveServerTests {
    let config: TemporaryConfig
    let application: Application

    init() throws {
        config = try TemporaryConfig()
        let settings = ServerConfiguration.live(dataDirectory: config.url.appendingPathComponent("data").path)
        application = try Application(
            configDirectory: config.url, configuration: settings, logger: Logger(label: "test"),
            metrics: PrometheusCollectorRegistry())
        try application.start()
    }

    func get(_ target: String, _ headers: [String] = [], on client: TestClient? = nil) throws -> WireResponse {
        let client = try client ?? TestClient(port: application.port)
        client.send("GET \(target) HTTP/1.1\r\nHost: t\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
        return try #require(client.readResponse())
    }

    @Test func servesTheResolvedScreen() throws {
        defer { stop() }
        let response = try get("/v1/screens/home?user=u1")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.header("Vary")?.hasPrefix("Accept-Encoding, Accept, X-User-Id") == true)
        let json = try JSONParser.parse(response.body)
        #expect(json["id"]?.stringValue == "home")
        #expect(FileManager.default.fileExists(atPath: config.url.appendingPathComponent("data").path))
    }

    @Test func gzipOnTheWireDecodesToTheSameBytes() throws {
        defer { stop() }
        let identity = try get("/v1/screens/home?user=u1")
        let compressed = try get("/v1/screens/home?user=u1", ["Accept-Encoding: gzip"])
        #expect(compressed.header("Content-Encoding") == "gzip")
        #expect(compressed.body.count < identity.body.count)
        #expect(try Gzip.decompress(compressed.body) == identity.body)
        #expect(compressed.header("ETag") == identity.header("ETag"))
    }

    @Test func revalidationGives304WithoutABody() throws {
        defer { stop() }
        let etag = try #require(try get("/v1/screens/home?user=u1").header("ETag"))
        let again = try get("/v1/screens/home?user=u1", ["If-None-Match: \(etag)"])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.header("ETag") == etag)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        defer { stop() }
        let client = try TestClient(port: application.port)
        client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /v1/screens/nope HTTP/1.1\r\nHost: t\r\n\r\nGET /readyz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        let missing = try #require(client.readResponse())
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type") == "application/problem+json")
        #expect(client.readResponse()?.text.contains("\"ready\"") == true)
    }

    @Test func aReloadIsSeenByTheNextRequestAndABadOneChangesNothing() throws {
        defer { stop() }
        try config.write(screen: "home", TemporaryConfig.screen(id: "home", text: "Reloaded"))
        guard case .success = application.reload() else { Issue.record("valid reload refused"); return }
        let reloaded = try JSONParser.parse(try get("/v1/screens/home").body)
        #expect(reloaded["revision"]?.numberValue == 2)

        try config.write(screen: "home", "{\"id\": \"home\", \"schemaVersion\": 1, \"root\": {\"type\": \"Txt\"}}")
        guard case .failure(let error) = application.reload() else { Issue.record("invalid reload accepted"); return }
        #expect(error.description.contains("screens/home.json: $.root.type (line 1): unknown component type \"Txt\""))
        let still = try JSONParser.parse(try get("/v1/screens/home").body)
        #expect(still["revision"]?.numberValue == 2)
        #expect(JSONWriter.string(still).contains("Reloaded"))
    }

    @Test func shutdownStopsAcceptingAndReportsNotReady() throws {
        let client = try TestClient(port: application.port)
        application.shutdown()
        #expect(application.state.isDraining)
        application.waitUntilStopped()
        #expect(client.isClosedByServer())
        #expect(throws: (any Error).self) { try TestClient(port: application.port) }
    }

    func stop() {
        application.shutdown()
        application.waitUntilStopped()
    }
}
