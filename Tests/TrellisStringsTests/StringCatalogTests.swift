import Testing

@testable import TrellisStrings

@Suite struct StringCatalogTests {
    static func catalog() throws -> StringCatalog {
        let en: [String: Message] = [
            "cart.items": try Message("{count, plural, =0 {Your cart is empty} one {# item} other {# items}}"),
            "cart.title": try Message("Cart"),
            "greeting": try Message("Hello, {name}!"),
        ]
        let de: [String: Message] = [
            "cart.items": try Message("{count, plural, =0 {Ihr Warenkorb ist leer} one {# Artikel} other {# Artikel}}"),
            "cart.title": try Message("Warenkorb"),
            "legacy.key": try Message("Alt"),
        ]
        let deAT: [String: Message] = ["cart.title": try Message("Einkaufswagen {store}")]
        let ar: [String: Message] = ["cart.items": try Message("{count, plural, zero {لا عناصر} one {عنصر واحد} two {عنصران} few {# عناصر} many {# عنصرًا} other {# عنصر}}")]
        return StringCatalog(defaultLocale: "en", tables: ["en": en, "de": de, "de_at": deAT, "ar": ar])
    }

    @Test func aRequestIsAnsweredAlongItsLocalesFallbackChainThenTheDefault() throws {
        let catalog = try Self.catalog()
        let austrian = catalog.resolve("de-AT")
        #expect(austrian.tag == "de-AT")
        #expect(austrian.chain == ["de-AT", "de", "en"])
        #expect(austrian.string("cart.title", ["store": .string("Wien")]) == "Einkaufswagen Wien")
        #expect(austrian.string("cart.items", ["count": .number(1234)]) == "1.234 Artikel")
        #expect(austrian.string("greeting", ["name": .string("Anna")]) == "Hello, Anna!")
        #expect(catalog.resolve("de-CH").tag == "de")
        #expect(catalog.resolve("fr-FR").tag == "en")
        #expect(catalog.resolve(nil).tag == "en")
        #expect(austrian.string("no.such.key", [:]) == nil)
    }

    @Test func pluralsFollowTheLocalesRules() throws {
        let catalog = try Self.catalog()
        let arabic = catalog.resolve("ar-EG")
        let written = [0, 1, 2, 3, 11, 100].map { arabic.string("cart.items", ["count": .number(Double($0))])! }
        #expect(written == ["لا عناصر", "عنصر واحد", "عنصران", "٣ عناصر", "١١ عنصرًا", "١٠٠ عنصر"])
        #expect(catalog.resolve("en").string("cart.items", ["count": .number(0)]) == "Your cart is empty")
    }

    @Test func thePseudoLocaleAccentsBracketsAndLengthensTheDefaultsText() throws {
        let catalog = try Self.catalog()
        let pseudo = catalog.resolve("en-XA")
        #expect(pseudo.pseudo && pseudo.tag == "en-XA")
        let written = try #require(pseudo.string("greeting", ["name": .string("Anna")]))
        let plain = "Hello, Anna!"
        #expect(written.hasPrefix("[Ĥéļļö, Anna!"), "\(written): the argument is left as it is")
        #expect(written.hasSuffix("]"))
        #expect(Double(written.count) >= Double(plain.count) * 1.4, "\(written)")
        #expect(pseudo.string("cart.items", ["count": .number(2)])?.hasPrefix("[2 îţéɱš") == true)
    }

    @Test func coverageListsWhatEachTableLacksAndWhatTheDefaultDoesNotHave() throws {
        let coverage = try Self.catalog().coverage()
        #expect(coverage.map(\.locale) == ["ar", "de", "de-AT"])
        let de = try #require(coverage.first { $0.locale == "de" })
        #expect(de.missing == ["greeting"])
        #expect(de.unknown == ["legacy.key"])
        #expect(abs(de.translated - 2.0 / 3.0) < 1e-12)
        let austrian = try #require(coverage.first { $0.locale == "de-AT" })
        #expect(austrian.extraArguments == ["cart.title": ["store"]])
    }
}
