import Testing
import TrellisJSON
import TrellisStrings
import TrellisStringsJSON

@Suite struct StringTableFileTests {
    @Test func nestedAndDottedKeysReadAlike() throws {
        let dotted = try StringTableFile.decode(Array(#"{"cart.items": "{n, plural, one {# item} other {# items}}", "cart.title": "Cart"}"#.utf8), source: "en.json").get()
        let nested = try StringTableFile.decode(Array(#"{"cart": {"items": "{n, plural, one {# item} other {# items}}", "title": "Cart"}}"#.utf8), source: "en.json").get()
        #expect(dotted == nested)
        #expect(dotted.keys.sorted() == ["cart.items", "cart.title"])
    }

    @Test func everyMistakeIsReportedWithItsPathAndLine() {
        let text = """
            {
              "ok": "Fine",
              "cart": {"items": "{n, plural, one {# item}}"},
              "count": 3,
              "bad key!": "x",
              "a": {"b": "one"},
              "a.b": "two"
            }
            """
        guard case .failure(let error) = StringTableFile.decode(Array(text.utf8), source: "strings/en.json") else {
            Issue.record("a table with mistakes was read")
            return
        }
        let found = error.diagnostics.map { "\($0.path) \($0.location.line): \($0.message)" }
        #expect(found.count == 4, "\(found)")
        #expect(found.contains { $0.hasPrefix("$.cart.items 3: the message does not parse at line 1, column 1") && $0.contains("`other`") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("$.count 4: a message is a string") }, "\(found)")
        #expect(found.contains { $0.contains("bad key!") && $0.contains(" 5: a key is letters") }, "\(found)")
        #expect(found.contains { $0.contains("a.b") && $0.contains(" 7: \"a.b\" is in the table twice") }, "\(found)")
    }

    @Test func notAnObjectOrNotJSONIsRefused() {
        for text in ["[]", "\"x\"", "{\"a\": }"] {
            guard case .failure(let error) = StringTableFile.decode(Array(text.utf8), source: "x.json") else {
                Issue.record("\(text) was read")
                continue
            }
            #expect(!error.diagnostics.isEmpty)
        }
    }

    @Test func aTablesLocaleIsABCP47Tag() {
        for tag in ["de", "de-AT", "zh-Hant-TW", "es-419", "fil", "en-XA"] { #expect(StringTableFile.isLocaleTag(tag), "\(tag)") }
        for tag in ["", "DE", "de_AT", "de-at", "german", "de-AT-x", "zh-hant", "e"] { #expect(!StringTableFile.isLocaleTag(tag), "\(tag)") }
    }
}
