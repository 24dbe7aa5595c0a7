import Foundation
import Logging
import Testing
import TrellisHTTP
import TrellisRuntime
@testable import TrellisServer

/// `/console`: the ops console's files, served from memory with their security headers, ETag and
/// gzip. scripts/console-check drives the console itself in a browser.
@Suite struct ConsoleEndpointTests {
    static let bundled = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config/console")

    /// The console's routes over `assets`, called in-process.
    struct Console {
        var router = EndpointRouter()
        init(_ assets: ConsoleAssets) { Endpoints.registerConsole(assets, in: &router) }

        func get(_ path: String, _ headers: HTTPHeaders = [:]) throws -> HTTPResponse {
            guard case .found(_, let parameters, let handler) = router.match(.get, path) else {
                throw ConsoleTestError(message: "no route for \(path)")
            }
            let request = HTTPRequest(method: .get, target: path, path: path, query: HTTPQuery([]), headers: headers)
            let context = HTTPRequestContext(requestID: "test-1", remoteAddress: "127.0.0.1:1", logger: Logger(label: "test"))
            return try handler(request, parameters, context).inProcessResponse
        }
    }

    struct ConsoleTestError: Error { let message: String }

    static func expectSecurityHeaders(_ response: HTTPResponse) {
        #expect(response.headers["Content-Security-Policy"]?.hasPrefix("default-src 'self'; script-src 'self'; style-src 'self';") == true)
        #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(response.headers["X-Frame-Options"] == "DENY")
        #expect(response.headers["Referrer-Policy"] == "no-referrer")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
    }

    @Test func servesThePageAndItsFilesWithSecurityHeadersETagAndGzip() throws {
        let console = Console(ConsoleAssets(directory: Self.bundled))
        let page = try console.get("/console", ["Accept-Encoding": "gzip"])
        #expect(page.status == .ok)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.headers["Cache-Control"] == "no-cache")
        #expect(page.gzipBody != nil)
        Self.expectSecurityHeaders(page)
        let etag = try #require(page.headers["ETag"])
        let again = try console.get("/console", ["If-None-Match": etag])
        #expect(again.status == .notModified)
        Self.expectSecurityHeaders(again)

        let module = try console.get("/console/app.js")
        #expect(module.status == .ok)
        #expect(module.headers["Content-Type"] == "text/javascript; charset=utf-8")
        Self.expectSecurityHeaders(module)
        #expect(try console.get("/console/console.css").headers["Content-Type"] == "text/css; charset=utf-8")

        let missing = try console.get("/console/nothing.js")
        #expect(missing.status == .notFound)
        Self.expectSecurityHeaders(missing)
        #expect(try console.get("/console/..%2Fserver.json").status == .notFound)
    }

    @Test func withoutTheDirectoryEveryAnswerSaysThereIsNoConsole() throws {
        let console = Console(ConsoleAssets(directory: URL(fileURLWithPath: "/nonexistent/console")))
        let page = try console.get("/console")
        #expect(page.status == .notFound)
        #expect(page.text.contains("this server has no console"))
        Self.expectSecurityHeaders(page)
    }

    /// The policy allows nothing inline: no `<script>` without `src`, no `<style>`, no `style=`
    /// or `on…=` attribute; and every module the page and its modules import is there.
    @Test func theBundledConsoleNeedsNothingInlineAndEveryImportIsThere() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.bundled.path)
        let page = try String(contentsOf: Self.bundled.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(!page.contains("<style"))
        #expect(page.range(of: #"\s(style|on[a-z]+)="#, options: .regularExpression) == nil)
        #expect(page.range(of: #"<script(?![^>]*\bsrc=)"#, options: .regularExpression) == nil)
        var referenced: [String] = []
        for match in page.matches(of: /(?:src|href)="\/console\/([^"]+)"/) { referenced.append(String(match.1)) }
        for name in names where name.hasSuffix(".js") {
            let module = try String(contentsOf: Self.bundled.appendingPathComponent(name), encoding: .utf8)
            for match in module.matches(of: /from "\.\/([^"]+)"/) { referenced.append(String(match.1)) }
            #expect(!module.contains("innerHTML"), "\(name) builds HTML from strings")
        }
        #expect(referenced.contains("app.js"))
        for name in referenced { #expect(names.contains(name), "\(name) is referenced but not in Config/console") }
    }
}
