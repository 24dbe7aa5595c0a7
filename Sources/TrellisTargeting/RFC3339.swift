/// Dates in rules: `2026-12-01` (midnight UTC) or RFC 3339 date-times such as
/// `2026-12-01T09:30:00Z`, `2026-12-01T09:30:00.5+02:00`. Parsed without Foundation.
public enum RFC3339 {
    /// Seconds since the Unix epoch, or nil when `text` is not a valid date.
    public static func seconds(from text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count == 10 || b.count >= 20 else { return nil }
        guard let year = number(b, 0, 4), b[4] == 0x2D, let month = number(b, 5, 2), b[7] == 0x2D,
            let day = number(b, 8, 2), (1...12).contains(month), (1...daysIn(month, year)).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year, month, day)) * 86_400
        guard b.count > 10 else { return seconds }
        guard b[10] == 0x54 || b[10] == 0x74, let hour = number(b, 11, 2), b[13] == 0x3A,
            let minute = number(b, 14, 2), b[16] == 0x3A, let second = number(b, 17, 2),
            hour < 24, minute < 60, second < 61
        else { return nil }
        seconds += Double(hour * 3600 + minute * 60 + second)
        var i = 19
        if b[i] == 0x2E {
            let start = i + 1
            i = start
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > start, let fraction = Double("0." + String(decoding: b[start..<i], as: UTF8.self)) else { return nil }
            seconds += fraction
        }
        guard i < b.count else { return nil }
        if (b[i] == 0x5A || b[i] == 0x7A) && i + 1 == b.count { return seconds }
        guard b[i] == 0x2B || b[i] == 0x2D, i + 6 == b.count, let oh = number(b, i + 1, 2), b[i + 3] == 0x3A,
            let om = number(b, i + 4, 2), oh < 24, om < 60
        else { return nil }
        let offset = Double(oh * 3600 + om * 60)
        return b[i] == 0x2B ? seconds - offset : seconds + offset
    }

    private static func number(_ b: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start + count <= b.count else { return nil }
        var n = 0
        for c in b[start..<start + count] {
            guard (0x30...0x39).contains(c) else { return nil }
            n = n * 10 + Int(c - 0x30)
        }
        return n
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's days_from_civil: days since 1970-01-01 in the proleptic Gregorian calendar.
    private static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

extension RFC3339 {
    /// `2026-12-01T09:30:00Z`; fractions of a second are kept to the millisecond.
    public static func string(fromSeconds seconds: Double) -> String {
        // Round to the millisecond first, so that 0.9996 s carries into the next second.
        let totalMillis = Int((seconds * 1000).rounded())
        var whole = totalMillis / 1000
        var millis = totalMillis % 1000
        if millis < 0 { millis += 1000; whole -= 1 }
        var days = whole / 86_400
        var rest = whole % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = y >= 0 && y < 1000 ? String(String(10_000 + y).dropFirst()) : String(y)
        var text = "\(year)-\(two(m))-\(two(d))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))"
        if millis > 0 { text += "." + String(String(1000 + millis).dropFirst()) }
        return text + "Z"
    }

    /// Howard Hinnant's civil_from_days, the inverse of daysFromCivil.
    private static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
