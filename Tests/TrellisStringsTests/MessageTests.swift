import Foundation
import Testing

@testable import TrellisStrings

/// ICU messages as TrellisStrings writes them, against ICU's own MessageFormat on the same message
/// and arguments (Fixtures/strings/messages.json, scripts/strings-oracle): 800 generated messages
/// in 51 locales — apostrophes, numbers in three styles, plurals with offsets and exact cases,
/// ordinals, selects, nesting; numbers on every category, on rounding ties, large and negative.
@Suite struct MessageTests {
    struct Fixture: Decodable {
        let provenance: String
        let cases: [Case]
        struct Case: Decodable {
            let locale: String
            let message: String
            let arguments: [String: Argument]
            let output: String
        }
        enum Argument: Decodable {
            case number(Double), string(String)
            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let number = try? container.decode(Double.self) { self = .number(number) } else { self = .string(try container.decode(String.self)) }
            }
            var value: MessageArgument {
                switch self {
                case .number(let n): .number(n)
                case .string(let s): .string(s)
                }
            }
        }
    }

    static func fixture() throws -> Fixture { try stringsFixture("messages.json", as: Fixture.self) }

    @Test func everyMessageIsWrittenAsICUWritesIt() throws {
        let fixture = try Self.fixture()
        #expect(fixture.cases.count >= 500)
        var locales: [String: MessageLocale] = [:]
        var differences: [String] = []
        var refusedRepeats = 0
        for item in fixture.cases {
            let locale = locales[item.locale] ?? MessageLocale(item.locale)
            locales[item.locale] = locale
            let message: Message
            do {
                message = try Message(item.message)
            } catch where error.reason.hasSuffix("is there twice") {
                // ICU takes the first of a repeated case; Trellis refuses the message: a case
                // written twice is a translator's mistake, and which one wins is not visible.
                refusedRepeats += 1
                continue
            } catch {
                differences.append("\(item.locale) \(item.message): \(error)")
                continue
            }
            let got = message.format(item.arguments.mapValues(\.value), in: locale)
            if got != item.output {
                differences.append("\(item.locale) \(item.message) \(item.arguments.mapValues(\.value)): \(got.debugDescription), ICU \(item.output.debugDescription)")
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differences:\n\(differences.prefix(8).joined(separator: "\n"))")
        #expect(refusedRepeats <= fixture.cases.count / 100, "\(refusedRepeats) refused for a repeated case")
    }

    @Test func numbersAreWrittenAsTheLocaleWritesThem() {
        let cases: [(String, NumberFormat.Style, Double, String)] = [
            ("en", .decimal, 1234567.891, "1,234,567.891"), ("de", .decimal, -1234.5, "-1.234,5"), ("hi", .decimal, 1234567, "12,34,567"),
            ("ar", .decimal, 12.5, "١٢٫٥"), ("fr", .percent, 0.256, "26\u{A0}%"), ("en", .integer, 2.5, "2"), ("en", .integer, 3.5, "4"),
            ("en", .decimal, 1.0005, "1"), ("en", .decimal, 1.0015, "1.002"), ("en", .decimal, 1e16, "10,000,000,000,000,000"),
            ("en", .decimal, 2.5e-7, "0"), ("de-CH", .decimal, 1234.5, "1’234.5"), ("en", .decimal, 0.1 + 0.2, "0.3"),
        ]
        for (locale, style, value, expected) in cases {
            #expect(NumberFormat(NumberSymbols(for: locale), style).string(value) == expected, "\(locale) \(value)")
        }
    }

    @Test func aMessageThatDoesNotParseSaysWhereAndWhy() {
        let cases: [(String, Int, Int, String)] = [
            ("{count, plural, one {# item}}", 1, 1, "needs an `other` case"),
            ("Hello {name", 1, 12, "the message ends"),
            ("{n, plural, one {x} lots {y} other {z}}", 1, 21, "not a plural category"),
            ("line one\n{n, date}", 2, 5, "not one Trellis formats"),
            ("{n, number, currency}", 1, 13, "integer or percent"),
            ("{g, select, a {x} a {y} other {z}}", 1, 19, "twice"),
            ("{n, plural, =1 {x} other {y}", 1, 29, "the message ends"),
            ("{, number}", 1, 2, "argument's name"),
        ]
        for (text, line, column, reason) in cases {
            do {
                _ = try Message(text)
                Issue.record("\(text) parsed")
            } catch {
                #expect((error.line, error.column) == (line, column), "\(text): \(error)")
                #expect(error.reason.contains(reason), "\(text): \(error)")
            }
        }
    }

    @Test func theArgumentsAMessageNamesAreListedWithTheirUse() throws {
        let message = try Message("{name} has {count, plural, one {# {kind}} other {# {kind}s}} {g, select, other {{total, number}}}")
        #expect(message.arguments == ["name": .any, "count": .number, "kind": .any, "g": .any, "total": .number])
    }

    @Test func aMissingArgumentIsWrittenAsICUWritesIt() throws {
        let locale = MessageLocale("en")
        #expect(try Message("Hi {name}, {n, plural, other {# x}}").format([:], in: locale) == "Hi {name}, {n}")
        #expect(try Message("a } and '{b}' and it's").format([:], in: locale) == "a } and {b} and it's")
        #expect(try Message("{n, plural, offset:1 =1 {just you} one {you and # other} other {you and # others}}").format(["n": .number(2)], in: locale) == "you and 1 other")
    }
}
