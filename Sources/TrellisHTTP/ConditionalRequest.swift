extension HTTPHeaders {
    /// Whether `If-None-Match` names the representation whose strong entity tag is `etag`
    /// (quoted, e.g. `"0a1b…"`), so the answer is 304 Not Modified: a listed tag equal to it by
    /// weak comparison, or `*` (RFC 9110 §13.1.2, §8.8.3.2).
    public func ifNoneMatchMatches(_ etag: String) -> Bool {
        let current = Self.opaqueTag(Substring(etag))
        for field in values(for: "If-None-Match") {
            for candidate in field.split(separator: ",") {
                let tag = candidate.trimmingASCIIWhitespace()
                if tag == "*" || Self.opaqueTag(tag) == current { return true }
            }
        }
        return false
    }

    /// Whether `If-Match` allows a change to the representation whose strong entity tag is `etag`
    /// (nil when the resource does not exist): `*` when it exists, or a listed tag equal to it by
    /// strong comparison (RFC 9110 §13.1.1). Nil when the request has no `If-Match`.
    public func ifMatchMatches(_ etag: String?) -> Bool? {
        let fields = values(for: "If-Match")
        guard !fields.isEmpty else { return nil }
        for field in fields {
            for candidate in field.split(separator: ",") {
                let tag = candidate.trimmingASCIIWhitespace()
                if tag == "*" && etag != nil { return true }
                if let etag, !tag.hasPrefix("W/"), tag == Substring(etag) { return true }
            }
        }
        return false
    }

    /// The opaque tag without the weakness prefix `W/`.
    private static func opaqueTag(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}
