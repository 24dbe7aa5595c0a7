import Testing
import TrellisHTTP
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
        #expect(html.headers["Content-Security-Policy"]?.hasPrefix("default-src 'none'") == true)
        #expect(app.request("/preview/s?\(Self.viewport)&check=1").status == .ok)
        let svg = app.request("/preview/s/preview.svg?\(Self.viewport)")
        #expect(svg.status == .ok)
        #expect(svg.headers["Content-Type"] == "image/svg+xml; charset=utf-8")
    }
}
