/// The static table of HPACK (RFC 7541 Appendix A): indices 1…61, shared by every connection.
enum HPACKStaticTable {
    /// Entry `i` at `entries[i - 1]`.
    static let entries: [(name: String, value: String)] = [
        (":authority", ""), (":method", "GET"), (":method", "POST"), (":path", "/"), (":path", "/index.html"),
        (":scheme", "http"), (":scheme", "https"), (":status", "200"), (":status", "204"), (":status", "206"),
        (":status", "304"), (":status", "400"), (":status", "404"), (":status", "500"), ("accept-charset", ""),
        ("accept-encoding", "gzip, deflate"), ("accept-language", ""), ("accept-ranges", ""), ("accept", ""),
        ("access-control-allow-origin", ""), ("age", ""), ("allow", ""), ("authorization", ""),
        ("cache-control", ""), ("content-disposition", ""), ("content-encoding", ""), ("content-language", ""),
        ("content-length", ""), ("content-location", ""), ("content-range", ""), ("content-type", ""),
        ("cookie", ""), ("date", ""), ("etag", ""), ("expect", ""), ("expires", ""), ("from", ""), ("host", ""),
        ("if-match", ""), ("if-modified-since", ""), ("if-none-match", ""), ("if-range", ""),
        ("if-unmodified-since", ""), ("last-modified", ""), ("link", ""), ("location", ""), ("max-forwards", ""),
        ("proxy-authenticate", ""), ("proxy-authorization", ""), ("range", ""), ("referer", ""), ("refresh", ""),
        ("retry-after", ""), ("server", ""), ("set-cookie", ""), ("strict-transport-security", ""),
        ("transfer-encoding", ""), ("user-agent", ""), ("vary", ""), ("via", ""), ("www-authenticate", ""),
    ]

    static var count: Int { entries.count }

    /// The first index of each name; entries of one name are consecutive (`:status` is 8…14).
    private static let firstIndexByName: [String: Int] = {
        var map: [String: Int] = [:]
        for (i, entry) in entries.enumerated() where map[entry.name] == nil { map[entry.name] = i + 1 }
        return map
    }()

    /// The entry matching `name` and `value`, else the first entry with `name` alone, else nil.
    static func match(name: String, value: String) -> (index: Int, fullMatch: Bool)? {
        guard let first = firstIndexByName[name] else { return nil }
        var i = first
        while i <= entries.count && entries[i - 1].name == name {
            if entries[i - 1].value == value { return (i, true) }
            i += 1
        }
        return (first, false)
    }
}
