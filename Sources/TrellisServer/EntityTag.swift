import TrellisHTTP

/// Conditional requests (RFC 9110 §13.1.2): does `If-None-Match` name the current representation?
enum EntityTag {
    /// True when the request's `If-None-Match` lists `etag` (weak comparison) or is `*`.
    static func noneMatchFails(_ headers: HTTPHeaders, current etag: String) -> Bool {
        let current = opaque(Substring(etag))
        for field in headers.values(for: "If-None-Match") {
            for candidate in field.split(separator: ",") {
                let tag = candidate.trimmingSpaces
                if tag == "*" || opaque(tag) == current { return true }
            }
        }
        return false
    }

    /// The opaque tag without the weakness prefix `W/`.
    private static func opaque(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
