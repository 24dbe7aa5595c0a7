import Testing
import TrellisJSON

extension JSONWriterTests {
    /// Integers are written digit by digit, without a String: the same digits as Swift's own.
    @Test func integersAreSpelledAsSwiftSpellsThem() {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 12_345, -987_654_321, .max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power]
        }
        for value in values {
            var out: [UInt8] = []
            JSONWriter.append(integer: value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(value))
        }
    }
}
