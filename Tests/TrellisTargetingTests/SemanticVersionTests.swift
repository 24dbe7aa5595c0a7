import Testing
import TrellisTargeting

@Suite struct SemanticVersionTests {
    @Test(arguments: [
        ("5", [5], []),
        ("5.2", [5, 2], []),
        ("5.2.1", [5, 2, 1], []),
        ("17.4.1.2", [17, 4, 1, 2], []),
        ("0.0.0", [0, 0, 0], []),
        ("17.4-beta.1", [17, 4], ["beta", "1"]),
        ("1.0.0-rc-1", [1, 0, 0], ["rc-1"]),
        ("1.0.0-0", [1, 0, 0], ["0"]),
        ("1.0.0-x-y.-1", [1, 0, 0], ["x-y", "-1"]),
        ("1.0.0+build.7", [1, 0, 0], []),
        ("1.0.0-beta+exp.sha.5114f85", [1, 0, 0], ["beta"]),
        ("999999999.1", [999_999_999, 1], []),
    ] as [(String, [Int], [String])])
    func parses(text: String, numbers: [Int], prerelease: [String]) throws {
        let version = try #require(SemanticVersion(text))
        #expect(version.numbers == numbers)
        #expect(version.prerelease == prerelease)
    }

    @Test(arguments: [
        "", "v5.2", "5.", ".5", "5..2", "1.2.3.4.5", "5.x", " 5.2", "5.2 ", "5.2-", "5.2-beta..1", "5.2-beta.",
        "1234567890.0", "-1.0", "5.-2", "1.0.0-beta!", "1.0.0-bêta", "1.0.0-01", "1.0.0-beta.007", "+build",
        "５.2",
    ])
    func refuses(text: String) {
        #expect(SemanticVersion(text) == nil, "\(text) parsed")
    }

    /// The precedence example of SemVer 2.0 §11.4, in order.
    @Test func ordersLikeSemVer() throws {
        let texts = [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1", "1.10", "2.0.0-0", "2.0.0",
        ]
        let versions = try texts.map { try #require(SemanticVersion($0)) }
        for (i, a) in versions.enumerated() {
            for (j, b) in versions.enumerated() {
                #expect((a < b) == (i < j), "\(a) < \(b)")
                #expect((a == b) == (i == j), "\(a) == \(b)")
            }
        }
        #expect(versions.shuffled().sorted() == versions)
    }

    @Test func missingPartsAreZero() throws {
        let a = try #require(SemanticVersion("5.2"))
        let b = try #require(SemanticVersion("5.2.0"))
        let c = try #require(SemanticVersion("5.2.0.0"))
        #expect(a == b && b == c)
        #expect(Set([a, b, c]).count == 1)
        let beta = try #require(SemanticVersion("5.2-beta"))
        #expect(SemanticVersion("5.2.0-beta") == beta)
        #expect(beta < a)
        #expect(SemanticVersion("5.2.1").map { $0 > a } == true)
        #expect(SemanticVersion("5.10").flatMap { x in SemanticVersion("5.9").map { x > $0 } } == true)
    }

    /// The parts are compared from the first, each deciding where those before it are equal, up
    /// to nine digits each: against the comparison of the parts as lists, 0 for a missing one.
    @Test func eachPartDecidesInTurn() throws {
        var generator = SplitMix64(seed: 30)
        for _ in 0..<5_000 {
            let a = (0..<generator.next(4) + 1).map { _ in Self.part(&generator) }
            let b = (0..<generator.next(4) + 1).map { _ in Self.part(&generator) }
            let x = try #require(SemanticVersion(a.map { String($0) }.joined(separator: ".")))
            let y = try #require(SemanticVersion(b.map { String($0) }.joined(separator: ".")))
            let padded = (a + [0, 0, 0, 0]).prefix(4), other = (b + [0, 0, 0, 0]).prefix(4)
            #expect((x < y) == padded.lexicographicallyPrecedes(other), "\(x) < \(y)")
            #expect((x == y) == padded.elementsEqual(other), "\(x) == \(y)")
            #expect((x == y) == (x.hashValue == y.hashValue), "\(x), \(y): equal versions hash alike")
        }
    }

    /// A part of a version: mostly small and often equal, sometimes the largest of nine digits.
    private static func part(_ random: inout SplitMix64) -> Int {
        switch random.next(8) {
        case 0: 999_999_999
        case 1: random.next(1_000_000_000)
        default: random.next(3)
        }
    }

    /// A prerelease identifier of digits compares as a number; `-1` has a hyphen, so it is alphanumeric
    /// and sorts after every numeric identifier (SemVer §11.4.3).
    @Test func numericIdentifiersSortBeforeAlphanumericOnes() throws {
        let numeric = try #require(SemanticVersion("1.0.0-9"))
        let hyphen = try #require(SemanticVersion("1.0.0--1"))
        #expect(numeric < hyphen)
        #expect(try #require(SemanticVersion("1.0.0-2")) < SemanticVersion("1.0.0-10")!)
        #expect(try #require(SemanticVersion("1.0.0-a10")) < SemanticVersion("1.0.0-a2")!)
    }

    @Test func buildMetadataIsIgnored() throws {
        #expect(try #require(SemanticVersion("1.0.0+001")) == SemanticVersion("1.0.0+20260101")!)
    }

    @Test(arguments: ["5", "5.2", "5.2.1", "17.4.1-beta.2", "1.0.0-rc-1"])
    func descriptionRoundTrips(text: String) throws {
        let version = try #require(SemanticVersion(text))
        #expect(version.description == text)
        #expect(SemanticVersion(version.description) == version)
    }
}
