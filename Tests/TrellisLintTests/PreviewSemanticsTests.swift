import Foundation
import Testing
import TrellisLint
import TrellisRendering
import TrellisScreens

/// The preview tells a screen reader (and axe-core, scripts/lint-vs-axe) what the lint judges.
@Suite struct PreviewSemanticsTests {
    @Test func thePreviewNamesImagesAndControlsAsTheLintReadsThem() throws {
        let s = try screen(root: ##"{"type": "VStack", "subviews": ["##
            + ##"{"type": "Image", "id": "unnamed", "values": {"imageUrl": "https://cdn.example.com/a.jpg"}},"##
            + ##"{"type": "Image", "id": "named", "properties": {"accessibilityLabel": "A kettle"}, "values": {"imageUrl": "https://cdn.example.com/a.jpg"}},"##
            + ##"{"type": "Image", "id": "ornament", "properties": {"decorative": true}, "values": {"localImageName": "flourish"}},"##
            + ##"{"type": "Button", "id": "buy", "properties": {"accessibilityLabel": "Buy the kettle"}, "values": {"title": "Buy"}},"##
            + ##"{"type": "HStack", "id": "row", "properties": {"action": {"type": "track", "event": "e"}}, "subviews": []}]}"##)
        let resolved = s.reachableScreens()[0].screen
        let frames = ScreenLayout(viewport: LintConfiguration(device: .iosSmall, fontScale: 1).viewport, fonts: try ShippedFonts.collection.get())
            .layOut(resolved)
        let html = PreviewHTML.render(frames, check: false)
        func element(_ id: String) -> Substring {
            guard let start = html.range(of: "data-id=\"\(id)\"") else { return "" }
            return html[start.lowerBound...].prefix { $0 != "\n" }
        }
        #expect(element("unnamed").contains("<img class=\"image\">"), "no alt: axe's image-alt fails it, as the lint's label rule does")
        #expect(element("named").contains("<img class=\"image\" alt=\"A kettle\">"))
        #expect(element("ornament").contains("<img class=\"image\" alt=\"\">"))
        #expect(html.contains("<button data-id=\"buy\" data-type=\"Button\" type=\"button\" aria-label=\"Buy the kettle\""))
        #expect(element("row").contains("<span class=\"target\" role=\"button\" tabindex=\"0\">"))
    }
}
