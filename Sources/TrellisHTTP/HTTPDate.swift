#if canImport(Glibc)
import Glibc
#endif

/// The `Date` header line (RFC 9110 §6.6.1, IMF-fixdate), rebuilt at most once per second.
/// Each event loop owns one, so reading it takes no lock.
struct HTTPDateCache {
    private var second = -1
    /// `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n`
    private(set) var line: [UInt8] = []
    /// The same date as a field value alone (`Sun, 06 Nov 1994 08:49:37 GMT`), for HTTP/2.
    private(set) var value = ""

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Refreshes the line if `epochSeconds` moved on.
    mutating func update(epochSeconds: Int) {
        guard epochSeconds != second else { return }
        second = epochSeconds
        var t = time_t(epochSeconds)
        var tm = tm()
        gmtime_r(&t, &tm)
        var out: [UInt8] = []
        out.reserveCapacity(37)
        out.append(contentsOf: "Date: ".utf8)
        out.append(contentsOf: Self.days[Int(tm.tm_wday)].utf8)
        out.append(contentsOf: ", ".utf8)
        Self.twoDigits(Int(tm.tm_mday), &out)
        out.append(HTTPBytes.sp)
        out.append(contentsOf: Self.months[Int(tm.tm_mon)].utf8)
        out.append(HTTPBytes.sp)
        ResponseWriter.appendDecimal(Int(tm.tm_year) + 1900, to: &out)
        out.append(HTTPBytes.sp)
        Self.twoDigits(Int(tm.tm_hour), &out)
        out.append(HTTPBytes.colon)
        Self.twoDigits(Int(tm.tm_min), &out)
        out.append(HTTPBytes.colon)
        Self.twoDigits(Int(tm.tm_sec), &out)
        out.append(contentsOf: " GMT\r\n".utf8)
        line = out
        value = String(decoding: out[6..<(out.count - 2)], as: UTF8.self)
    }

    private static func twoDigits(_ n: Int, _ out: inout [UInt8]) {
        out.append(UInt8(48 + n / 10))
        out.append(UInt8(48 + n % 10))
    }
}
