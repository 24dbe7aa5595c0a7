import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TrellisJSON
@testable import TrellisRendering

/// The previews of `GET /preview/{id}` and `/preview/{id}/preview.svg`: what they draw, and that
/// screen content can never inject markup. (Their status, content type and content security policy
/// are the server's: TrellisServerTests' PreviewEndpointTests.)
@Suite struct PreviewTests {
    static let hostile = #"<script>alert('x')</script> & \"quoted\" </span></div>"#
    static let viewport = "width=390&height=844&scale=3&safeTop=47&safeBottom=34"

    let renderer: Renderer

    init() throws {
        renderer = try Renderer(roots: [
            "evil": ##"{"type": "Navigation", "id": "nav", "values": {"title": "</title><script>alert(1)</script>"}, "subviews": [{"type": "VStack", "id": "stack", "##
                + ##""properties": {"backgroundColor": "#FF000080", "cornerRadius": 8, "borderWidth": 2, "borderColor": "#00F"}, "subviews": ["##
                + ##"{"type": "Text", "id": "t", "properties": {"foregroundColor": "#123456"}, "values": {"text": "\##(Self.hostile)"}},"##
                + ##"{"type": "Button", "id": "b", "values": {"title": "<img src=x onerror=alert(2)>"}},"##
                + ##"{"type": "Image", "id": "i", "values": {"localImageName": "\"><svg onload=alert(3)>"}},"##
                + ##"{"type": "Image", "values": {"imageUrl": "https://example.com/a/b.jpg?<x>"}},"##
                + ##"{"type": "Circle", "id": "c", "properties": {"width": 20, "foregroundColor": "#0A0"}}]}]}"##
        ])
    }

    func checkNoInjection(_ text: String) {
        for raw in ["<script>alert", "</title><script>", "<img src=x", "<svg onload", "<x>", "\"quoted\""] {
            #expect(!text.contains(raw), "\(raw) appears unescaped")
        }
    }

    @Test func htmlEscapesEveryStringFromTheScreen() throws {
        let html = try renderer.preview("evil", Self.viewport)
        checkNoInjection(html)
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;"))
        #expect(html.contains("&lt;img src=x onerror=alert(2)&gt;"))
        #expect(!html.contains("<script>"), "no script without check=1")
        #expect(try renderer.preview("evil", "\(Self.viewport)&check=1").contains("<script>"))
    }

    @Test func svgEscapesEveryStringAndIsWellFormed() throws {
        let svg = try renderer.preview("evil", Self.viewport, svg: true)
        checkNoInjection(svg)
        let parser = XMLParser(data: Data(svg.utf8))
        let ok = parser.parse()
        #expect(ok, "SVG is not well-formed XML: \(String(describing: parser.parserError))")
    }

    @Test func everyDrawnBoxCarriesItsLayoutIdAndFrame() throws {
        let answer = try renderer.layout("evil", Self.viewport)
        let html = try renderer.preview("evil", Self.viewport)
        let svg = try renderer.preview("evil", Self.viewport, svg: true)
        for (id, entry) in answer.components {
            #expect(html.contains("data-id=\"\(id)\""), "\(id) missing from the HTML")
            #expect(svg.contains("data-id=\"\(id)\""), "\(id) missing from the SVG")
            let f = entry.frame
            let box = "left:\(Markup.number(Float(f.x)))px;top:\(Markup.number(Float(f.y)))px;width:\(Markup.number(Float(f.width)))px;height:\(Markup.number(Float(f.height)))px"
            #expect(html.contains(box), "\(id): \(box)")
        }
        #expect(html.contains("background:rgba(255,0,0,0.502)"))
        #expect(html.contains("box-shadow:inset 0 0 0 2px rgba(0,0,255,1)"))
        #expect(html.contains("border-radius:50%"))
        #expect(html.contains("b.jpg?&lt;x&gt;"), "image placeholders are labelled, not fetched")
        let images = html.components(separatedBy: "<img").dropFirst().map { $0.prefix { $0 != ">" } }
        #expect(!images.isEmpty && images.allSatisfy { !$0.contains("src") }, "nothing is fetched: the image a screen reader is told of has no source")
    }

    @Test func colorsAreReadOnlyFromHexNotations() {
        #expect(PreviewPaint.css("#ABC") == "rgba(170,187,204,1)")
        #expect(PreviewPaint.css("#0a0B0c") == "rgba(10,11,12,1)")
        #expect(PreviewPaint.css("#00000000") == "rgba(0,0,0,0)")
        #expect(PreviewPaint.css("red") == nil)
        #expect(PreviewPaint.css("#12;}") == nil)
        #expect(Markup.number(0.3333333) == "0.3333" && Markup.number(-2) == "-2" && Markup.number(12.5) == "12.5")
    }
}
