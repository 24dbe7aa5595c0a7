import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTargeting

/// Reads a request's query string against the parameters an endpoint knows. An unknown or
/// repeated parameter is an error, so a typo (`?prety=1`) is reported instead of ignored.
struct QueryParameters: Sendable {
    let items: [HTTPQuery.Item]

    /// - Parameters:
    ///   - allowed: the parameter names the endpoint takes.
    ///   - takesContext: the endpoint also takes the user context's parameters
    ///     (``UserContext/isParameter(_:)``: its names and `attr.NAME`). They are most of a
    ///     screen query's names, and are looked for in a short list instead of hashed into `allowed`.
    ///   - allowedPrefixes: name prefixes it also takes (`param.` for a screen's parameters).
    init(
        _ query: HTTPQuery, allowed: Set<String>, takesContext: Bool = false, allowedPrefixes: [String] = []
    ) throws(Problem) {
        let items = query.items
        // A query has a handful of items: comparing each with the earlier ones costs less than
        // hashing every name into a set. Only a long one (a crafted one may hold thousands) gets a set.
        var seen: Set<String>? = items.count > 16 ? Set(minimumCapacity: items.count) : nil
        for (index, item) in items.enumerated() {
            guard (takesContext && UserContext.isParameter(item.name)) || allowed.contains(item.name)
                || allowedPrefixes.contains(where: { item.name.hasPrefix($0) })
            else {
                throw Self.unknown(item.name, allowed: allowed, takesContext: takesContext, allowedPrefixes: allowedPrefixes)
            }
            let repeated = seen != nil ? !seen!.insert(item.name).inserted : items[..<index].contains { $0.name == item.name }
            guard !repeated else {
                throw Problem(.badRequest, "query parameter \"\(item.name)\" is given more than once")
            }
        }
        self.items = items
    }

    private static func unknown(_ name: String, allowed: Set<String>, takesContext: Bool, allowedPrefixes: [String]) -> Problem {
        let names = takesContext ? allowed.union(UserContext.parameterNames) : allowed
        let prefixes = (takesContext ? ["attr."] : []) + allowedPrefixes
        let known = (names.sorted() + prefixes.map { $0 + "NAME" }).joined(separator: ", ")
        return Problem(
            .badRequest,
            "unknown query parameter \"\(name)\"; " + (known.isEmpty ? "this endpoint takes no query parameters" : "known: " + known))
    }

    /// The first value of `name`. Lengths are compared first: most items are not the one asked
    /// for, a length is read without a call, and `==` on two short strings of different text is one.
    subscript(name: String) -> String? {
        let length = name.utf8.count
        return items.first { $0.name.utf8.count == length && $0.name == name }?.value
    }

    /// The items that are user-context parameters (``UserContext/isParameter(_:)``): the items
    /// themselves, not a copy, when the query is all context, as most are.
    var contextItems: [HTTPQuery.Item] {
        items.allSatisfy { UserContext.isParameter($0.name) } ? items : items.filter { UserContext.isParameter($0.name) }
    }

    /// A yes/no flag: `1`, `true`, `0`, `false`, or empty (present means yes).
    func flag(_ name: String) throws(Problem) -> Bool {
        guard let value = self[name] else { return false }
        switch value {
        case "", "1", "true": return true
        case "0", "false": return false
        default: throw Problem(.badRequest, "query parameter \"\(name)\" must be 1, true, 0 or false, not \"\(value)\"")
        }
    }
}

extension QueryParameters {
    /// `name=value&…`, each part percent-encoded (RFC 3986 unreserved characters kept), for links
    /// the server writes into its own pages and `Location` headers.
    static func encode(_ items: [(name: String, value: String)]) -> String {
        items.map { component($0.name) + "=" + component($0.value) }.joined(separator: "&")
    }

    static func component(_ text: String) -> String { PercentEncoding.encode(text) }
}
