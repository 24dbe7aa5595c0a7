import Foundation
import Logging
import Testing
import TrellisHTTP
import TrellisRuntime
@testable import TrellisServer

/// `/console`: the ops console's files, compiled into the binary and served from memory with their
/// security headers, ETag and gzip. scripts/console-check drives the console itself in a browser.
@Suite struct ConsoleEndpointTests {
    /// The console's sources, which the binary embeds.
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/TrellisServer/Console")

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
        let console = Console(ConsoleAssets.bundled())
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

    /// Browsers ask for `/favicon.ico` on their own: it is the console's icon, an SVG, cached and
    /// revalidated like the console's other files, so no page load logs a 404.
    @Test func theFaviconIsTheConsolesIcon() throws {
        let console = Console(ConsoleAssets.bundled())
        let icon = try console.get("/favicon.ico")
        #expect(icon.status == .ok)
        #expect(icon.headers["Content-Type"] == "image/svg+xml")
        #expect(icon.headers["Cache-Control"] == "no-cache")
        #expect(icon.text.hasPrefix("<svg"))
        Self.expectSecurityHeaders(icon)
        #expect(try console.get("/console/favicon.svg").headers["ETag"] == icon.headers["ETag"])
        let page = try String(contentsOf: Self.sources.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(page.contains(#"<link rel="icon" href="/console/favicon.svg" type="image/svg+xml">"#))
    }

    /// The binary serves exactly the files of `Console/`, as they are now: SwiftPM embeds each one
    /// under a name made from its own, and ``ConsoleAssets/bundledFiles`` lists them by hand.
    @Test func theBinaryEmbedsEveryFileOfTheConsoleFolderAsItIs() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { !$0.hasPrefix(".") }
        let embedded = ConsoleAssets.bundledFiles
        #expect(Set(embedded.map(\.name)) == Set(names), "Console/ and ConsoleAssets.bundledFiles name different files")
        #expect(embedded.count == Set(embedded.map(\.name)).count, "a file is listed twice")
        for (name, bytes) in embedded {
            let file = try [UInt8](Data(contentsOf: Self.sources.appendingPathComponent(name)))
            #expect(bytes == file, "\(name) is embedded as another file's bytes")
            #expect(ConsoleAssets.contentType(of: name) != nil, "\(name) has no content type, so it is not served")
        }
        #expect(ConsoleAssets.bundled().files.count == names.count)
    }

    /// The policy allows nothing inline: no `<script>` without `src`, no `<style>`, no `style=`
    /// or `on…=` attribute; and every module the page and its modules import is there.
    @Test func theBundledConsoleNeedsNothingInlineAndEveryImportIsThere() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path)
        let page = try String(contentsOf: Self.sources.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(!page.contains("<style"))
        #expect(page.range(of: #"\s(style|on[a-z]+)="#, options: .regularExpression) == nil)
        #expect(page.range(of: #"<script(?![^>]*\bsrc=)"#, options: .regularExpression) == nil)
        var referenced: [String] = []
        for match in page.matches(of: /(?:src|href)="\/console\/([^"]+)"/) { referenced.append(String(match.1)) }
        for name in names where name.hasSuffix(".js") {
            let module = try String(contentsOf: Self.sources.appendingPathComponent(name), encoding: .utf8)
            for match in module.matches(of: /from "\.\/([^"]+)"/) { referenced.append(String(match.1)) }
            #expect(!module.contains("innerHTML"), "\(name) builds HTML from strings")
        }
        #expect(referenced.contains("app.js"))
        #expect(referenced.contains("favicon.svg"))
        for name in referenced { #expect(names.contains(name), "\(name) is referenced but not in Sources/TrellisServer/Console") }
    }
}
