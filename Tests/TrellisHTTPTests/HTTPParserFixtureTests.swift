import Testing
@testable import TrellisHTTP

/// Every fixture in `Fixtures/http/` runs whole, byte by byte, and with trailing bytes (h11's `tr`).
@Suite struct HTTPParserFixtureTests {
    static let invalid = ParserFixture.load("invalid")
    static let valid = ParserFixture.load("valid")

    @Test func corpusIsLargeEnough() {
        #expect(Self.invalid.count >= 60)
        #expect(Self.valid.count >= 20)
        #expect(Self.invalid.allSatisfy { $0.expectedStatus != nil })
        #expect(Self.valid.allSatisfy { !$0.expectedEvents.isEmpty })
    }

    @Test(arguments: invalid) func invalidWhole(_ f: ParserFixture) {
        let events = ParserDriver.events(f.bytes, limits: f.limits)
        #expect(events.last == "error \(f.expectedStatus ?? 0)", "\(events)")
    }

    @Test(arguments: invalid) func invalidByteByByte(_ f: ParserFixture) {
        let events = ParserDriver.events(f.bytes, limits: f.limits, pieces: Array(repeating: 1, count: f.bytes.count))
        #expect(events.last == "error \(f.expectedStatus ?? 0)", "\(events)")
    }

    @Test(arguments: invalid) func invalidWithTrailingBytes(_ f: ParserFixture) {
        let events = ParserDriver.events(f.bytes + Array("\r\n\r\nGET / HTTP/1.1\r\n".utf8), limits: f.limits)
        #expect(events.last == "error \(f.expectedStatus ?? 0)", "\(events)")
    }

    @Test(arguments: valid) func validWhole(_ f: ParserFixture) {
        #expect(ParserDriver.events(f.bytes, limits: f.limits) == f.expectedEvents)
    }

    @Test(arguments: valid) func validByteByByte(_ f: ParserFixture) {
        let events = ParserDriver.events(f.bytes, limits: f.limits, pieces: Array(repeating: 1, count: f.bytes.count))
        #expect(events == f.expectedEvents)
    }

    @Test(arguments: valid) func validWithTrailingBytes(_ f: ParserFixture) {
        let events = ParserDriver.events(f.bytes + Array("XYZ garbage\r\n".utf8), limits: f.limits)
        #expect(Array(events.prefix(f.expectedEvents.count)) == f.expectedEvents)
    }

    @Test(arguments: valid) func validEverySplitPoint(_ f: ParserFixture) {
        for split in 1..<f.bytes.count {
            #expect(ParserDriver.events(f.bytes, limits: f.limits, pieces: [split]) == f.expectedEvents, "split at \(split)")
        }
    }
}
