import Testing
import TrellisJSON
import TrellisTargeting

@Suite struct RolloutPercentageTests {
    /// The JSON number `text`, as the parser reads it.
    func number(_ text: String) throws -> Double { try #require(try JSONParser.parse(text).numberValue) }

    @Test(arguments: [
        ("0", 0), ("100", 10_000), ("25", 2_500), ("12.5", 1_250), ("0.25", 25), ("0.01", 1), ("99.99", 9_999),
        ("0.29", 29), ("12.50", 1_250), ("33.33", 3_333), ("1e1", 1_000), ("-0", 0), ("0.57", 57), ("1.15", 115),
    ])
    func jsonNumbersWithAtMostTwoDecimals(text: String, basisPoints: Int) throws {
        #expect(try RolloutPercentage(try number(text)).basisPoints == basisPoints)
    }

    @Test(arguments: [
        ("12.345", "expected a percentage with at most two decimals (such as 12.5 or 0.25), found 12.345"),
        ("0.001", "expected a percentage with at most two decimals (such as 12.5 or 0.25), found 0.001"),
        ("99.999", "expected a percentage with at most two decimals (such as 12.5 or 0.25), found 99.999"),
        ("101", "expected a percentage from 0 to 100, found 101"),
        ("100.01", "expected a percentage from 0 to 100, found 100.01"),
        ("-0.01", "expected a percentage from 0 to 100, found -0.01"),
        ("1e300", "expected a percentage from 0 to 100, found 1e+300"),
    ])
    func jsonNumbersRefused(text: String, reason: String) throws {
        #expect(throws: RolloutPercentageError(reason: reason)) { try RolloutPercentage(try number(text)) }
    }

    @Test(arguments: [
        ("0", 0), ("100", 10_000), ("12.5", 1_250), ("0.25", 25), ("12.50", 1_250), ("12.500", 1_250), ("007", 700),
        ("100.00", 10_000), ("0.07", 7),
    ])
    func textWithAtMostTwoDecimals(text: String, basisPoints: Int) throws {
        #expect(try RolloutPercentage(parsing: text).basisPoints == basisPoints)
    }

    @Test(arguments: [
        ("12.345", "expected a percentage with at most two decimals (such as 12.5 or 0.25), found 12.345"),
        ("100.01", "expected a percentage from 0 to 100, found 100.01"),
        ("1000", "expected a percentage from 0 to 100, found 1000"),
        ("99999999999999999999999", "expected a percentage from 0 to 100, found 99999999999999999999999"),
        ("", #"expected a percentage such as 25, 12.5 or 0.25, found """#),
        (".5", #"expected a percentage such as 25, 12.5 or 0.25, found ".5""#),
        ("5.", #"expected a percentage such as 25, 12.5 or 0.25, found "5.""#),
        ("-1", #"expected a percentage such as 25, 12.5 or 0.25, found "-1""#),
        ("+5", #"expected a percentage such as 25, 12.5 or 0.25, found "+5""#),
        ("1e2", #"expected a percentage such as 25, 12.5 or 0.25, found "1e2""#),
        ("25%", #"expected a percentage such as 25, 12.5 or 0.25, found "25%""#),
        (" 25", #"expected a percentage such as 25, 12.5 or 0.25, found " 25""#),
        ("1.2.3", #"expected a percentage such as 25, 12.5 or 0.25, found "1.2.3""#),
        ("١٢", #"expected a percentage such as 25, 12.5 or 0.25, found "١٢""#),
    ])
    func textRefused(text: String, reason: String) {
        #expect(throws: RolloutPercentageError(reason: reason)) { try RolloutPercentage(parsing: text) }
    }

    @Test func basisPointsAndLiterals() {
        #expect(RolloutPercentage(basisPoints: -1) == nil && RolloutPercentage(basisPoints: 10_001) == nil)
        #expect(RolloutPercentage(basisPoints: 1_250)?.description == "12.5")
        let literal: RolloutPercentage = 25
        #expect(literal.basisPoints == 2_500 && literal == RolloutPercentage(basisPoints: 2_500))
        #expect(RolloutPercentage.none.basisPoints == 0 && RolloutPercentage.all.basisPoints == 10_000)
        #expect(RolloutPercentage(basisPoints: 1_250)! < 13 && RolloutPercentage(basisPoints: 1_299)! > 12)
    }

    /// Every one of the 10,001 values prints in its shortest decimal form (`25`, `12.5`, `0.25`,
    /// never `25.0` or `12.50`), JSON writes the same text, and both read back to the same value.
    @Test func everyValueWritesShortAndReadsBack() throws {
        for basisPoints in 0...10_000 {
            let percentage = try #require(RolloutPercentage(basisPoints: basisPoints))
            let text = percentage.description
            let whole = basisPoints / 100, hundredths = basisPoints % 100
            let expected =
                hundredths == 0 ? "\(whole)" : hundredths % 10 == 0 ? "\(whole).\(hundredths / 10)"
                : "\(whole).\(hundredths < 10 ? "0" : "")\(hundredths)"
            #expect(text == expected)
            #expect(JSONWriter.string(percentage.jsonValue) == text)
            #expect(try RolloutPercentage(parsing: text) == percentage)
            #expect(try RolloutPercentage(try number(text)) == percentage)
        }
        #expect(RolloutPercentage(basisPoints: 2_500)!.description == "25")
        #expect(RolloutPercentage(basisPoints: 25)!.description == "0.25")
        #expect(RolloutPercentage(basisPoints: 5)!.description == "0.05")
    }

    @Test func decodeReportsWithPathAndLine() {
        let collector = DiagnosticsCollector()
        #expect(RolloutPercentage.decode(.string("25"), at: JSONPath.root.appending("percentage"), collector) == nil)
        #expect(
            collector.diagnostics.map(\.description)
                == [#"$.percentage: expected a percentage from 0 to 100 (a number such as 25 or 12.5), found a string"#])
    }
}
