import Foundation
import Testing
import TrellisRuntime
import TrellisTesting

/// The access log of the real `trellis serve`: every line written on SIGTERM, and a new file after
/// logrotate's rename and SIGUSR1.
@Suite struct AccessLogBinaryTests {
    static func served(format: String) throws -> (ServedBinary, path: String) {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("start")])
        try config.write(targeting: AdminFlowTests.targeting)
        let server = try ServedBinary(config: config)
        let path = config.url.appendingPathComponent("access.log").path
        server.accessLogArguments = ["--set", "accessLog=true", "--set", "accessLog.format=\(format)", "--set", "accessLog.path=\(path)"]
        try server.start()
        return (server, path)
    }

    static func lines(_ path: String) -> [Substring] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    }

    /// `count` requests spread over a few connections, each named by its `X-Request-Id`.
    static func requests(_ server: ServedBinary, _ count: Int, prefix: String) throws {
        var clients: [TestClient] = []
        for n in 0..<count {
            if n % 10 == 0 { clients.append(try TestClient(port: server.port, timeout: 10)) }
            let response = try clients.last!.exchange("GET", "/v1/screens/home?user=u\(n)", token: nil, headers: ["X-Request-Id": "\(prefix)-\(n)"])
            #expect(response.status == 200)
        }
    }

    @Test func sigtermWritesEveryLine() throws {
        let (server, path) = try Self.served(format: "combined")
        try Self.requests(server, 57, prefix: "term")
        server.stop()
        let lines = Self.lines(path)
        #expect(lines.count == 57)
        #expect(lines.allSatisfy { $0.hasPrefix("127.0.0.1 - - [") && $0.contains("\"GET /v1/screens/home?user=u") && $0.contains("\" 200 ") })
    }

    @Test func sigusr1ReopensTheFileLogrotateMoved() throws {
        let (server, path) = try Self.served(format: "json")
        try Self.requests(server, 12, prefix: "before")
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try server.reopenAccessLog()
        try Self.requests(server, 7, prefix: "after")
        server.stop()
        let ids = { (file: String) in
            Self.lines(file).compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["request_id"] as? String
            }
        }
        #expect(Set(ids(path + ".1")) == Set((0..<12).map { "before-\($0)" }))
        #expect(Set(ids(path)) == Set((0..<7).map { "after-\($0)" }))
        #expect(Self.lines(path + ".1").count == 12 && Self.lines(path).count == 7)
    }
}
