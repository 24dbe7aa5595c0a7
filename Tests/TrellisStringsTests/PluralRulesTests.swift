import Foundation
import Testing

@testable import TrellisStrings

/// CLDR's plural rules as TrellisStrings evaluates them against Babel's evaluation of the same rules
/// (Fixtures/strings/plurals.json, scripts/strings-oracle): 230 numbers, integers and decimals with
/// visible trailing zeros, cardinal and ordinal, in 78 locales — one of every distinct rule set.
@Suite struct PluralRulesTests {
    struct Fixture: Decodable {
        let provenance: String
        let categories: [String]
        let numbers: [String]
        let locales: [String: Expected]
        struct Expected: Decodable {
            let cardinal: String
            let ordinal: String
        }
    }

    static func fixture() throws -> Fixture { try stringsFixture("plurals.json", as: Fixture.self) }

    @Test func everyCategoryEqualsBabelsOnTheSameCLDRRules() throws {
        let fixture = try Self.fixture()
        #expect(fixture.locales.count >= 30)
        #expect(fixture.categories == PluralCategory.allCases.map(\.rawValue))
        let integers = fixture.numbers.filter { !$0.contains(".") }
        var differences: [String] = []
        for (locale, expected) in fixture.locales.sorted(by: { $0.key < $1.key }) {
            for (kind, numbers, digits) in [
                (PluralRules.Kind.cardinal, fixture.numbers, expected.cardinal), (.ordinal, integers, expected.ordinal),
            ] {
                let rules = PluralRules(for: locale, kind)
                for (number, digit) in zip(numbers, digits) {
                    let want = fixture.categories[Int(String(digit))!]
                    let got = rules.category(try #require(PluralOperands(decimal: number))).rawValue
                    if got != want { differences.append("\(locale) \(kind) \(number): \(got), Babel \(want)") }
                }
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differences: \(differences.prefix(10).joined(separator: "; "))")
    }

    @Test func everyLocaleOfTheTableParses() throws {
        for (locale, rules) in PluralRules.cldr {
            for (category, text) in rules.cardinal + rules.ordinal {
                #expect(PluralCategory(rawValue: category) != nil, "\(locale): \(category)")
                #expect(throws: Never.self, "\(locale): \(text)") { try PluralCondition(text) }
            }
        }
        #expect(PluralRules.cldr.count >= 150)
    }

    @Test func operandsAreReadFromTheWrittenDecimal() throws {
        let operands = try #require(PluralOperands(decimal: "-1.50"))
        #expect(operands == PluralOperands(decimal: "1.50"))
        #expect((operands.n, operands.i, operands.v, operands.w, operands.f, operands.t) == (1.5, 1, 2, 1, 50, 5))
        #expect(PluralOperands(decimal: "12") == PluralOperands(12))
        for bad in ["", "1.", ".5", "1e3", "1,5", "--1", "x"] {
            #expect(PluralOperands(decimal: bad) == nil, "\(bad)")
        }
    }

    @Test func aLocaleFallsBackToItsLanguageThenToOther() {
        #expect(LocaleTag.fallbacks(of: "zh_hant_tw") == ["zh-Hant-TW", "zh-Hant", "zh"])
        #expect(LocaleTag.fallbacks(of: "de-AT-u-nu-latn") == ["de-AT", "de"])
        #expect(PluralRules(for: "de-AT").locale == "de")
        #expect(PluralRules(for: "pt-PT").category(PluralOperands(0)) == .other)
        #expect(PluralRules(for: "pt-BR").category(PluralOperands(0)) == .one)
        #expect(PluralRules(for: "tlh").locale == "root")
        #expect(PluralRules(for: "tlh").category(PluralOperands(1)) == .other)
        #expect(PluralRules(for: "ar").categories == [.zero, .one, .two, .few, .many, .other])
    }

    @Test func bothSpellingsOfTheSyntaxAndSamplesParse() throws {
        let xml = try PluralCondition("n % 10 = 2..4 and n % 100 != 12..14 @integer 2~4, 22~24")
        let babel = try PluralCondition("n mod 10 in 2..4 and n mod 100 not in 12..14")
        for number in ["2", "12", "22", "2.0", "2.5", "112", "104"] {
            let operands = try #require(PluralOperands(decimal: number))
            #expect(xml.matches(operands) == babel.matches(operands), "\(number)")
        }
        #expect(try PluralCondition("n within 0..2").matches(#require(PluralOperands(decimal: "1.5"))))
        #expect(try !PluralCondition("n in 0..2").matches(#require(PluralOperands(decimal: "1.5"))))
        #expect(try PluralCondition("i is not 1").matches(PluralOperands(2)))
    }

    @Test func aConditionThatDoesNotParseSaysWhere() {
        let cases: [(String, Int, String)] = [
            ("n mod 0 in 1", 6, "a modulus of 0"), ("q in 1", 0, "expected an operand"), ("n in 3..1", 5, "end is below"),
            ("n in", 4, "expected a number"), ("n like 1", 2, "expected =, !="), ("n in 1 xor i in 2", 7, "expected `and`"),
        ]
        for (text, offset, reason) in cases {
            do {
                _ = try PluralCondition(text)
                Issue.record("\(text) parsed")
            } catch {
                #expect(error.offset == offset, "\(text): \(error)")
                #expect(error.reason.contains(reason), "\(text): \(error)")
            }
        }
    }
}
