import Testing
import TrellisLayout

/// Rejected pin strings: each error at the first wrong character, with its message.
@Suite("Pin strings: rejected with the column and message of the first wrong character")
struct VisualFormatErrorTests {
    /// A pin string that must be rejected, and the error it must be rejected with.
    struct Rejection: Sendable, CustomTestStringConvertible {
        let text: String
        let column: Int
        let message: String

        var testDescription: String { text.isEmpty ? "(empty)" : text }
    }

    /// (pin string, column, message)
    static let cases: [Rejection] = [(String, Int, String)]([
        ("", 1, "empty pin string"),
        ("H:", 3, #"expected "|", "|>" or "[" at the start"#),
        ("H|[a]", 2, #"expected ":" after the orientation"#),
        ("X:|[a]|", 1, #"unknown orientation "X"; use H or V"#),
        ("title", 1, #"expected "H:", "V:", "|" or "[" at the start (a view is written [title])"#),
        ("H:|-16-[titel", 14, #"expected "]" after the view name"#),
        ("H:|-16-[]-|", 9, "expected a view name"),
        ("H:[é]", 4, "expected a view name"),
        ("H:[my-view]", 6, #"expected "]" after the view name (a view named in a pin string may use only A-Z, a-z, 0-9 and "_")"#),
        ("H:|-(>=)-[a]", 8, "expected a number or metric name"),
        ("H:[a(50@1001)]", 9, "priority 1001 is out of range 1…1000"),
        ("H:[a(50@0)]", 9, "priority 0 is out of range 1…1000"),
        ("H:|[a]|x", 8, "expected the end of the pin string after the end edge"),
        ("H:[a]||", 7, "expected the end of the pin string after the end edge"),
        ("H:||[a]", 4, #"expected "-" or "[""#),
        ("H:|-|", 5, #"expected a number, a metric name, "(" or "[" after "-""#),
        ("H:[a]-", 7, #"expected a number, a metric name, "(", "[", "|" or "<|" after "-""#),
        ("H:[a]-|>", 8, #"expected the end after "|" (the safe area's end edge is written "<|")"#),
        ("H:<|-[a]", 3, #"expected "|", "|>" or "[" at the start"#),
        ("H:|-pad-[a]", 5, #"unknown metric "pad""#),
        ("H:[a(==b.depth)]", 10, #"expected "width" or "height" after ".""#),
        ("H:[a(<5)]", 7, #"expected "=" after "<" (relations are ==, <=, >= and >==)"#),
        ("H:[a(=5)]", 7, #"expected "=" after "=" (relations are ==, <=, >= and >==)"#),
        ("H:[a]-8@750-[b]", 8, #"expected "-" after the gap (a priority needs parentheses, as in -(8@750)-)"#),
        ("H:[a]-8[b]", 8, #"expected "-" after the gap"#),
        ("H:[a] -[b]", 6, "spaces are not allowed in a pin string"),
        ("H:[a(>=50,)]", 11, "expected a number, metric name or view name"),
        ("H:[a(==b*0)]", 10, "a multiplier must be greater than 0"),
        ("H:[a(==b*)]", 10, #"expected a number or metric name after "*""#),
        ("H:[a]-(8)[b]", 10, #"expected "-" after ")""#),
        ("H:[a(8]", 7, #"expected "," or ")""#),
        ("H:[a(8)", 8, #"expected "]" after the predicates"#),
        ("H:[a(1.)]", 8, #"expected a digit after ".""#),
        ("H:[a(>=-)]", 9, #"expected a digit after "-""#),
        ("H:[a(1234567890123)]", 6, "a number may have at most 12 digits"),
        ("H:[a(1,2,3,4,5,6,7,8,9)]", 22, "a list may have at most 8 predicates"),
        ("H:[a]-(8)-[b]é", 14, #"expected "-", "[", "|" or "<|""#),
        ("H:[a]x", 6, #"expected "-", "[", "|" or "<|""#),
        ("H:[a]-(8)-x", 11, #"expected "[", "|" or "<|" after the gap"#),
        ("H:|-(8)-|", 9, #"expected "[" after the gap"#),
    ]).map { Rejection(text: $0.0, column: $0.1, message: $0.2) }

    @Test("Each rejected pin string's error is at its first wrong character, with its message", arguments: cases)
    func errorAtItsColumn(_ rejection: Rejection) {
        #expect(
            error(parsing: rejection.text) == VisualFormatError(column: rejection.column, message: rejection.message),
            "\(rejection.text)")
    }

    @Test("A metric that is not a finite number is rejected at its use")
    func nonFiniteMetric() {
        #expect(
            error(parsing: "H:[a(w)]", metrics: ["w": .infinity])
                == VisualFormatError(column: 6, message: #"metric "w" is not a finite number"#))
    }

    @Test("Length, name and view-count limits are enforced at the character that passes them, and 64 views are allowed")
    func limits() {
        let long = "H:[a]" + String(repeating: "-", count: 1_000)
        #expect(
            error(parsing: long) == VisualFormatError(column: 1_001, message: "a pin string may have at most 1000 characters"))
        // Past the limit with a multi-byte character before it: the error is at that character.
        #expect(error(parsing: "[é]" + long).column == 2)
        let name = String(repeating: "n", count: 65)
        #expect(
            error(parsing: "H:[\(name)]") == VisualFormatError(column: 4, message: "a name may have at most 64 characters"))
        let views = String(repeating: "[v]", count: 65)
        #expect(
            error(parsing: views) == VisualFormatError(column: 193, message: "a pin string may name at most 64 views"))
        #expect(parsed(String(repeating: "[v]", count: 64)) != nil)
    }

    @Test("An error's description starts with its column")
    func errorDescriptionNamesTheColumn() {
        #expect(error(parsing: "H:[]").description == "column 4: expected a view name")
    }

    private func error(parsing text: String, metrics: [String: Double] = [:]) -> VisualFormatError {
        do {
            let format = try VisualFormat.parse(text, metrics: metrics)
            return VisualFormatError(column: 0, message: "parsed into \(format.constraints.count) constraints")
        } catch {
            return error
        }
    }
}
