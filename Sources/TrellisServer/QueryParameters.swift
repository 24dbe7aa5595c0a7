import TrellisHTTP

/// Reads a request's query string against the parameters an endpoint knows. An unknown or
/// repeated parameter is an error, so a typo (`?prety=1`) is reported instead of ignored.
struct QueryParameters {
    private let query: HTTPQuery

    init(_ query: HTTPQuery, allowed: Set<String>) throws(Problem) {
        var seen: Set<String> = []
        for item in query {
            guard allowed.contains(item.name) else {
                let known = allowed.isEmpty ? "this endpoint takes no query parameters" : "known: " + allowed.sorted().joined(separator: ", ")
                throw Problem(.badRequest, "unknown query parameter \"\(item.name)\"; \(known)")
            }
            guard seen.insert(item.name).inserted else {
                throw Problem(.badRequest, "query parameter \"\(item.name)\" is given more than once")
            }
        }
        self.query = query
    }

    /// A yes/no flag: `1`, `true`, `0`, `false`, or empty (present means yes).
    func flag(_ name: String) throws(Problem) -> Bool {
        guard let value = query[name] else { return false }
        switch value {
        case "", "1", "true": return true
        case "0", "false": return false
        default: throw Problem(.badRequest, "query parameter \"\(name)\" must be 1, true, 0 or false, not \"\(value)\"")
        }
    }
}
