import Testing
import TrellisTesting
import TrellisLayout

/// Seeded random pin strings: strings built from the grammar parse, and any string over the
/// grammar's alphabet (those strings mutated, or random tokens) is rejected or accepted without
/// crashing, with every error column within 1…length+1.
@Suite("Pin strings: seeded random strings")
struct VisualFormatFuzzTests {
    static let metrics = ["pad": 8.0, "prio": 500]

    @Test("2,000 strings derived from the grammar all parse, with columns, priorities and constants in range")
    func grammarStringsParse() {
        var random = SplitMix64(seed: 0x5EED_0001)
        for _ in 0..<2_000 {
            let text = Self.validPinString(&random)
            do {
                let format = try VisualFormat.parse(text, metrics: Self.metrics)
                checkInvariants(format, of: text)
            } catch {
                Issue.record("\(text): \(error)")
            }
        }
    }

    @Test("5,000 mutated grammar strings are accepted or rejected at a column within the string, without crashing")
    func mutatedGrammarStringsNeverCrash() {
        var random = SplitMix64(seed: 0x5EED_0002)
        for _ in 0..<5_000 {
            var scalars = Array(Self.validPinString(&random).unicodeScalars)
            for _ in 0...random.below(3) { Self.mutate(&scalars, &random) }
            check(String(String.UnicodeScalarView(scalars)))
        }
    }

    @Test("10,000 strings of random tokens are accepted or rejected at a column within the string, without crashing")
    func randomTokensNeverCrash() {
        var random = SplitMix64(seed: 0x5EED_0003)
        for _ in 0..<10_000 {
            check((0..<random.below(24)).map { _ in Self.tokens[random.below(Self.tokens.count)] }.joined())
        }
    }

    // MARK: - Checks

    private func check(_ text: String) {
        do {
            checkInvariants(try VisualFormat.parse(text, metrics: Self.metrics), of: text)
        } catch {
            #expect((1...text.count + 1).contains(error.column), "\(text): column \(error.column)")
            #expect(!error.message.isEmpty, "\(text)")
        }
    }

    private func checkInvariants(_ format: VisualFormat, of text: String) {
        for constraint in format.constraints {
            #expect((1...text.count).contains(constraint.column), "\(text): column \(constraint.column)")
            #expect((1...1000).contains(constraint.priority), "\(text): priority \(constraint.priority)")
            #expect(constraint.constant.isFinite && constraint.multiplier > 0, "\(text)")
        }
        for reference in format.viewReferences {
            #expect((1...text.count).contains(reference.column), "\(text)")
        }
    }

    // MARK: - Generators

    /// Pieces of pin strings, valid and not, including a space and a non-ASCII letter.
    static let tokens = [
        "H:", "V:", "X:", "|", "|>", "<|", "-", "(", ")", "[", "]", "==", ">=", "<=", ">==", "=", "@", "^", ",", ".",
        "*", "0", "8", "12.5", "-8", "a", "b", "pad", "prio", "width", "height", " ", "é", "_", "+", "1001",
    ]

    /// A string of the grammar in ``VisualFormat``'s documentation, from a random derivation.
    static func validPinString(_ random: inout SplitMix64) -> String {
        var text = ["", "H:", "V:"][random.below(3)]
        let viewCount = 1 + random.below(4)
        if random.coin() { text += ["|", "|>"][random.below(2)] + connection(&random) }
        for index in 0..<viewCount {
            if index > 0 { text += connection(&random) }
            text += view(&random)
        }
        if random.coin() { text += connection(&random) + ["|", "<|"][random.below(2)] }
        return text
    }

    private static func view(_ random: inout SplitMix64) -> String {
        let name = ["a", "b", "title", "_x1"][random.below(4)]
        guard random.coin() else { return "[\(name)]" }
        let predicates = (0...random.below(3)).map { _ in
            predicate(&random, object: ["50", "-4", "pad", "b", "b.height", "a.width*2", "b*0.5"][random.below(7)])
        }
        return "[\(name)(\(predicates.joined(separator: ",")))]"
    }

    private static func connection(_ random: inout SplitMix64) -> String {
        switch random.below(4) {
        case 0: return ""
        case 1: return "-"
        case 2: return "-" + ["8", "12.5", "pad"][random.below(3)] + "-"
        default:
            let predicates = (0...random.below(3)).map { _ in
                predicate(&random, object: ["8", "-8", "pad", "0.5"][random.below(4)])
            }
            return "-(\(predicates.joined(separator: ",")))-"
        }
    }

    private static func predicate(_ random: inout SplitMix64, object: String) -> String {
        let relation = ["", "==", ">=", "<=", ">=="][random.below(5)]
        let priority = ["", "@750", "^1", "@prio", "^1000"][random.below(5)]
        return relation + object + priority
    }

    /// Deletes, duplicates or replaces one character, or inserts a token.
    private static func mutate(_ scalars: inout [Unicode.Scalar], _ random: inout SplitMix64) {
        let index = random.below(scalars.count + 1)
        switch random.below(4) {
        case 0 where index < scalars.count: scalars.remove(at: index)
        case 1 where index < scalars.count: scalars.insert(scalars[index], at: index)
        case 2 where index < scalars.count: scalars[index] = tokens[random.below(tokens.count)].unicodeScalars.first ?? "a"
        default: scalars.insert(contentsOf: tokens[random.below(tokens.count)].unicodeScalars, at: index)
        }
    }
}
