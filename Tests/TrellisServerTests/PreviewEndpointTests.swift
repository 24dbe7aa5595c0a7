import Foundation
import Testing
import TrellisCrypto
import TrellisHTTP
import TrellisRuntime
import TrellisTesting
@testable import TrellisServer

/// `GET /preview/{id}` and `/preview/{id}/preview.svg` as HTTP answers: their status, content type
/// and content security policy. (What they draw: TrellisRenderingTests' PreviewTests.)
@Suite struct PreviewEndpointTests {
    static let viewport = "width=390&height=844&scale=3&safeTop=47&safeBottom=34"

    @Test func previewsAreServedAsHTMLAndSVGWithAStrictPolicy() throws {
        let app = try InProcessApp(try TemporaryConfig.withFonts(roots: [
            "s": #"{"type": "VStack", "id": "root", "subviews": [{"type": "Text", "id": "t", "values": {"text": "Hi"}}]}"#
        ]))
        let html = app.request("/preview/s?\(Self.viewport)")
        #expect(html.status == .ok)
        #expect(html.headers["Content-Type"] == "text/html; charset=utf-8")
        let policy = html.headers["Content-Security-Policy"] ?? ""
        #expect(policy.hasPrefix("default-src 'none'"))
        // No script at all, framed by this origin (the console's) only.
        #expect(policy.contains("script-src 'none'") && policy.contains("frame-ancestors 'self'"), "\(policy)")
        // With check=1, its one script, allowed by its hash and nothing else.
        let checked = app.request("/preview/s?\(Self.viewport)&check=1")
        #expect(checked.status == .ok)
        let page = String(decoding: checked.body, as: UTF8.self)
        let script = try #require(page.split(separator: "<script>").dropFirst().first?.split(separator: "</script>").first.map(String.init))
        let hash = Data(SHA256.hash(Array(script.utf8))).base64EncodedString()
        #expect(checked.headers["Content-Security-Policy"]?.contains("script-src 'sha256-\(hash)'") == true)
        #expect(checked.headers["Content-Security-Policy"]?.contains("unsafe-inline'; font") == false)
        let svg = app.request("/preview/s/preview.svg?\(Self.viewport)")
        #expect(svg.status == .ok)
        #expect(svg.headers["Content-Type"] == "image/svg+xml; charset=utf-8")
    }

    /// `revision=N` draws a stored revision (the console puts the served and the staged one side
    /// by side): after a publish, revision 1 still draws what it said, the current one the new text.
    @Test func aRevisionIsDrawnAsItWasWritten() throws {
        let config = try TemporaryConfig.withFonts(roots: [
            "home": #"{"type": "VStack", "id": "root", "subviews": [{"type": "Text", "id": "t", "values": {"text": "Before"}}]}"#
        ])
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        let after = #"{"id": "home", "schemaVersion": 2, "root": {"type": "VStack", "id": "root", "subviews": [{"type": "Text", "id": "t", "values": {"text": "After"}}]}}"#
        let put = try client.exchange("PUT", "/admin/screens/home", token: ControlPlaneLiveTests.token, body: after)
        #expect(put.status == 200, "\(put.text)")

        for path in ["/preview/home", "/preview/home/preview.svg"] {
            // Revision 1 is no longer served to everybody: not public, an ops token reads it.
            #expect(try client.exchange("GET", "\(path)?\(Self.viewport)&revision=1", token: nil).status == 401)
            let first = try client.exchange("GET", "\(path)?\(Self.viewport)&revision=1", token: ControlPlaneLiveTests.token)
            #expect(first.status == 200, "\(first.text)")
            #expect(first.text.contains("Before") && !first.text.contains("After"), "\(first.text)")
            let current = try client.exchange("GET", "\(path)?\(Self.viewport)", token: nil)
            #expect(current.text.contains("After") && !current.text.contains("Before"), "\(current.text)")
            let second = try client.exchange("GET", "\(path)?\(Self.viewport)&revision=2", token: nil)
            #expect(second.status == 200, "\(second.text)")
            #expect(second.text.contains("After") && !second.text.contains("Before"), "\(second.text)")
            // Asked again: the cached answer of revision 1 is still revision 1's.
            #expect(try client.exchange("GET", "\(path)?\(Self.viewport)&revision=1", token: ControlPlaneLiveTests.token).text == first.text)
        }
        #expect(try client.exchange("GET", "/preview/home?\(Self.viewport)&revision=9", token: ControlPlaneLiveTests.token).status == 404)
        #expect(try client.exchange("GET", "/preview/home?\(Self.viewport)&revision=one", token: nil).status == 400)
    }
}
