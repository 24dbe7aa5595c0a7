import Foundation
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisText
@testable import TrellisServer

/// The raw `style` key: checked by the engine's parser when the screen loads, and passed through
/// to clients. (Its layout: TrellisRenderingTests' LayoutStyleTests.)
@Suite struct LayoutStyleTests {
    @Test func theScreenEndpointPassesTheStyleThrough() throws {
        let config = try TemporaryConfig.withFonts(roots: [
            "s": #"{"type": "VStack", "id": "root", "style": {"flexDirection": "row", "justifyContent": "flex-end", "paddingEnd": 5}, "subviews": ["#
                + #"{"type": "Rectangle", "id": "a", "properties": {"width": 10, "height": 10}}, {"type": "Rectangle", "id": "b", "properties": {"width": 20, "height": 10}}]}"#
        ])
        let screen = try InProcessApp(config).request("/v1/screens/s")
        #expect(screen.json?["root"]?["style"]?["flexDirection"]?.stringValue == "row")
    }

    @Test func badStylesAreRefusedAtLoadWithPathAndLine() throws {
        let config = try TemporaryConfig(screens: [
            "s": """
                {"id": "s", "schemaVersion": 1, "root": {"type": "VStack",
                  "style": {"flexDirection": "sideways",
                            "widht": 3,
                            "flexGrow": true},
                  "subviews": [{"type": "Text", "style": "row", "values": {"text": "x"}}]}}
                """
        ])
        let error = try #require(ConfigLoader(directory: config.url).load(previous: nil).failure)
        let diagnostics = error.errors.flatMap(\.diagnostics)
        let byPath = Dictionary(diagnostics.map { ($0.path.description, $0) }, uniquingKeysWith: { a, _ in a })
        let direction = try #require(byPath["$.root.style.flexDirection"])
        #expect(direction.location.line == 2)
        #expect(direction.message.contains("invalid value \"sideways\" for flexDirection"))
        #expect(byPath["$.root.style.widht"]?.message == "unknown style property \"widht\"")
        #expect(byPath["$.root.style.widht"]?.location.line == 3)
        #expect(byPath["$.root.style.flexGrow"]?.message.contains("expected a number or a string") == true)
        #expect(byPath["$.root.subviews[0].style"]?.message.contains("expected an object") == true)
    }

    @Test func fontPacksAreLoadedAllOrNothingWithTheFileNamed() throws {
        let config = try TemporaryConfig()
        try config.copyFonts()
        try Data("TRFM broken".utf8).write(to: config.url.appendingPathComponent("fonts/Broken.trfm"))
        let error = try #require(ConfigLoader(directory: config.url).load(previous: nil).failure)
        #expect(error.errors.map(\.source) == ["fonts/Broken.trfm"])
        #expect(error.description.contains("not a valid font metrics pack"))
        try FileManager.default.removeItem(at: config.url.appendingPathComponent("fonts/Broken.trfm"))
        let snapshot = try ConfigLoader(directory: config.url).load(previous: nil).get()
        #expect(snapshot.fonts.families.contains("Inter") && snapshot.fonts.families.contains("Roboto"))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
