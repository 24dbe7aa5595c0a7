import Testing
import TrellisText

/// Platform text styles, font scale, and face selection in a collection.
@Suite struct TextStyleTests {
    @Test func iosTable() {
        let m = TextStyle.body.metrics(on: .ios)
        #expect(m == TextStyleMetrics(size: 17, weight: 400, lineHeight: 22))
        #expect(TextStyle.headline.metrics(on: .ios).weight == 600)
        #expect(TextStyle.largeTitle.metrics(on: .ios).size == 34)
        #expect(TextStyle.caption2.metrics(on: .ios) == TextStyleMetrics(size: 11, weight: 400, lineHeight: 13))
        #expect(TextStyle.iosStyles.map(\.name) == [
            "largeTitle", "title", "title2", "title3", "headline", "body", "callout", "subheadline", "footnote",
            "caption", "caption2",
        ])
        // Sizes never grow down the list.
        let sizes = TextStyle.iosStyles.map { $0.metrics(on: .ios).size }
        #expect(sizes == sizes.sorted(by: >))
    }

    @Test func androidTableAndNames() throws {
        #expect(TextStyle.body.metrics(on: .android) == TextStyleMetrics(size: 16, weight: 400, lineHeight: 24))
        #expect(TextStyle.headline.metrics(on: .android) == TextStyleMetrics(size: 16, weight: 500, lineHeight: 24))
        let display = try #require(TextStyle(name: "displayLarge"))
        #expect(display.metrics(on: .android) == TextStyleMetrics(size: 57, weight: 400, lineHeight: 64))
        #expect(display.metrics(on: .ios) == TextStyle.largeTitle.metrics(on: .ios))
        #expect(TextStyle.materialStyles.count == 15)
        for style in TextStyle.iosStyles + TextStyle.materialStyles {
            #expect(TextStyle(name: style.name) == style)
            #expect(style.metrics(on: .android).size > 0)
        }
        #expect(TextStyle(name: "title1") == .title)
        #expect(TextStyle(name: "caption1") == .caption)
        #expect(TextStyle(name: "Body") == nil)
        #expect(TextStyle(name: "huge") == nil)
    }

    @Test func fontScaleMultipliesSizeAndLineHeight() throws {
        let a = TextStyle.body.attributes(on: .ios, fontScale: 1.5)
        #expect(a.family == "Inter")
        #expect(a.size == 25.5)
        #expect(a.lineHeight == .points(33))
        #expect(TextStyle.body.attributes(on: .android).family == "Roboto")
        #expect(TextStyle.body.attributes(on: .ios, fontScale: 0).size == 17)  // nonsense scale: 1

        let fonts = try Fixture.shippedCollection()
        let text = "Welcome back, Anna! Your order has shipped."
        let normal = fonts.measure(text, TextStyle.body.attributes(on: .ios))
        let large = fonts.measure(text, TextStyle.body.attributes(on: .ios, fontScale: 2))
        #expect(abs(large.width - 2 * normal.width) < 1e-6)
        #expect(large.height == 44)
        // Larger text wraps into more lines in the same box.
        let box = normal.width * 0.6
        #expect(fonts.measure(text, TextStyle.body.attributes(on: .ios), availableWidth: box).lineCount == 2)
        #expect(fonts.measure(text, TextStyle.body.attributes(on: .ios, fontScale: 2), availableWidth: box).lineCount >= 3)
    }

    @Test func weightMatching() throws {
        let fonts = try Fixture.shippedCollection()
        func weight(_ family: String, _ w: Int) -> Int? { fonts.face(family: family, weight: w)?.weight }
        #expect(weight("Roboto", 400) == 400)
        #expect(weight("roboto", 500) == 500)
        #expect(weight("Roboto", 600) == 700)  // above 500: heavier first
        #expect(weight("Roboto", 450) == 500)  // 400–500: up to 500 first
        #expect(weight("Roboto", 300) == 400)  // below 400: lighter first, then heavier
        #expect(weight("Roboto", 900) == 700)
        #expect(weight("Inter", 600) == 600)
        #expect(weight("Nope", 400) == nil)
        // Italic asked, none shipped: the upright face.
        #expect(fonts.face(family: "Roboto", weight: 700, italic: true)?.weight == 700)
    }

    @Test func fallbackChainCoversCJK() throws {
        let fonts = try Fixture.shippedCollection()
        let chain = fonts.chain(family: "Roboto")
        #expect(chain.faces.map(\.family) == ["Roboto", "Noto Color Emoji", "Droid Sans Fallback"])
        // Droid Sans Fallback: 1000 units per em, ideographs 1000 units wide.
        #expect(abs(chain.singleLineWidth("東京", size: 17) - 34) < 1e-9)
        // Unknown family: the fallbacks alone still measure.
        #expect(fonts.chain(family: "Nope").faces.map(\.family) == ["Noto Color Emoji", "Droid Sans Fallback"])
        // Emoji sequences measure as one emoji (Noto Color Emoji: 2550 of 2048 units).
        let emoji = 2550.0 / 2048 * 17
        for sequence in ["👍", "👍🏽", "👩‍💻", "🇫🇷", "🧑‍🤝‍🧑"] {
            #expect(abs(chain.singleLineWidth(sequence, size: 17) - emoji) < 1e-9, "\(sequence)")
        }
        #expect(abs(chain.singleLineWidth("🇯🇵🇩🇪", size: 17) - 2 * emoji) < 1e-9)
        // No break inside a sequence, even in a box narrower than one emoji.
        #expect(chain.measure("👩‍💻👩‍💻", size: 17, availableWidth: 1).lines.map(\.range) == [0..<3, 3..<6])
        // Nothing at all: 0.5 em per character, 1.2 em lines.
        let none = FontCollection().measure("abcd", TextAttributes(family: "X", size: 10))
        #expect(none.width == 20 && none.height == 12)
    }
}
