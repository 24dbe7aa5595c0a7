import Testing
@testable import TrellisRendering

/// The `@font-face` rules a preview declares: a rule for each face it draws text in, pointing at
/// that face's fingerprinted font file. (Serving the files, and the previews' policy that lets a
/// browser load them: TrellisServerTests' WebFontsTests.)
@Suite struct WebFontFacesTests {
    @Test func previewsDeclareTheFacesTheyDraw() throws {
        let fonts = try ShippedFonts.loaded.get()
        let renderer = try Renderer(try ScreenSet.shipped.get(), webFonts: fonts.webFonts)
        let html = try renderer.preview("home", "user=u1&platform=android&width=412&height=915")
        let regular = try #require(fonts.webFonts.files["Roboto-Regular.ttf"]), medium = try #require(fonts.webFonts.files["Roboto-Medium.ttf"])
        #expect(html.contains("@font-face{font-family:'Roboto';src:url('\(regular.url)') format('truetype');font-weight:400;font-style:normal"))
        #expect(html.contains(medium.url))
        #expect(!html.contains("Inter-Regular.otf"), "an Android preview draws no Inter")
        let svg = try renderer.preview("home", "user=u1&platform=ios&width=390&height=844", svg: true)
        let inter = try #require(fonts.webFonts.files["Inter-Regular.otf"])
        #expect(svg.contains("src:url('\(inter.url)') format('opentype');font-weight:400"))
        #expect(svg.contains("font-family=\"'Inter'"))
    }
}
