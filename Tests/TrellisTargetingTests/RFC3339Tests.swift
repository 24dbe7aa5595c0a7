import Testing
@testable import TrellisTargeting

@Suite struct RFC3339Tests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0),
        ("1970-01-01", 0),
        ("2026-12-01", 1_796_083_200),
        ("2026-12-01T00:00:00Z", 1_796_083_200),
        ("2026-12-01t07:30:00z", 1_796_110_200),
        ("2026-12-01T09:30:00+02:00", 1_796_110_200),
        ("2026-12-01T02:00:00-05:30", 1_796_110_200),
        ("2026-12-01T07:30:00-00:00", 1_796_110_200),
        ("2026-12-01T07:30:00.5Z", 1_796_110_200.5),
        ("2026-12-01T07:30:00.250+00:00", 1_796_110_200.25),
        ("2024-02-29", 1_709_164_800),
        ("2000-02-29T12:00:00Z", 951_825_600),
        ("1969-12-31T23:59:59Z", -1),
        ("1900-01-01", -2_208_988_800),
        ("0001-01-01", -62_135_596_800),
        ("2016-12-31T23:59:60Z", 1_483_228_800),
    ])
    func parses(text: String, seconds: Double) {
        #expect(RFC3339.seconds(from: text) == seconds)
    }

    @Test(arguments: [
        "2026-02-30", "2026-02-29", "2100-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-12-00",
        "2026-12-32", "2026-1-01", "26-12-01", "2026/12/01", "2026-12-01T", "2026-12-01T09:30Z",
        "2026-12-01T09:30:00", "2026-12-01 09:30:00Z", "2026-12-01T24:00:00Z", "2026-12-01T09:60:00Z",
        "2026-12-01T09:30:61Z", "2026-12-01T09:30:00+24:00", "2026-12-01T09:30:00+02:60",
        "2026-12-01T09:30:00+0200", "2026-12-01T09:30:00+02", "2026-12-01T09:30:00.Z", "2026-12-01T09:30:00ZZ",
        "2026-12-01T09:30:00.5", "+2026-12-01", "2026-12-01Z", "", "tomorrow",
    ])
    func refuses(text: String) {
        #expect(RFC3339.seconds(from: text) == nil, "\(text) parsed")
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (1.5, "1970-01-01T00:00:01.500Z"),
        (0.001, "1970-01-01T00:00:00.001Z"),
        (0.9996, "1970-01-01T00:00:01Z"),
        (-0.25, "1969-12-31T23:59:59.750Z"),
        (1_796_110_200, "2026-12-01T07:30:00Z"),
        (951_825_600, "2000-02-29T12:00:00Z"),
        (-62_135_596_800, "0001-01-01T00:00:00Z"),
    ])
    func formats(seconds: Double, text: String) {
        #expect(RFC3339.string(fromSeconds: seconds) == text)
    }

    /// Every canonical string (UTC, milliseconds or none) survives parse → format unchanged.
    @Test(arguments: [
        "1970-01-01T00:00:00Z", "2026-12-01T07:30:00Z", "2026-12-01T07:30:00.125Z", "1999-12-31T23:59:59.999Z",
        "2024-02-29T00:00:00Z", "1850-06-15T12:34:56Z", "9999-12-31T23:59:59Z",
    ])
    func canonicalStringsRoundTrip(text: String) throws {
        let seconds = try #require(RFC3339.seconds(from: text))
        #expect(RFC3339.string(fromSeconds: seconds) == text)
    }

    /// Every day from 1900 to 2100 formats and parses back to itself (checks the civil calendar both ways).
    @Test func everyDayRoundTrips() throws {
        var day = -2_208_988_800.0
        var previous = ""
        while day < 4_102_444_800 {
            let text = RFC3339.string(fromSeconds: day + 45_296)
            #expect(text > previous)
            #expect(RFC3339.seconds(from: text) == day + 45_296, "\(text)")
            #expect(RFC3339.seconds(from: String(text.prefix(10))) == day, "\(text)")
            previous = text
            day += 86_400
        }
    }
}
