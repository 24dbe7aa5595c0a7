import Foundation
import Logging
import Prometheus
import Testing
import TrellisHTTP
import TrellisRuntime
@testable import TrellisServer

/// docs/openapi.yaml is the API reference; it must describe exactly the routes the server has.
@Suite struct OpenAPITests {
    static let specURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml")

    /// (method, path) pairs of the spec, read from its two-space-indented `paths:` block.
    static func documentedOperations() throws -> Set<String> {
        let lines = try String(contentsOf: specURL, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var operations: Set<String> = []
        var inPaths = false
        var path = ""
        for line in lines {
            if line == "paths:" { inPaths = true; continue }
            if inPaths, let first = line.first, first != " " { break }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let method = ["get", "put", "post", "delete", "patch"].first(where: { line == "    \($0):" }) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedPathIsRouted() throws {
        let config = try TemporaryConfig()
        var settings = ServerConfiguration()
        settings.dataDirectory = config.url.appendingPathComponent("data").path
        let app = try Application(
            configDirectory: config.url, configuration: settings, logger: Logger(label: "test"), metrics: PrometheusCollectorRegistry())
        let routed = Set(app.routeTable.map { "\($0.method.rawValue) \($0.pattern)" })
        let documented = try Self.documentedOperations()
        #expect(!documented.isEmpty)
        #expect(routed.subtracting(documented).isEmpty, "routes missing from docs/openapi.yaml")
        #expect(documented.subtracting(routed).isEmpty, "documented in docs/openapi.yaml but not routed")
    }
}
