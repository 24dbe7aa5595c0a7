import TrellisJSON

/// A URL with `{name}` placeholders, as `otherwise`, `to` and `external` are written:
/// `app://login?next={url}`, `https://help.example.com/{path}`.
///
/// `{name}` is a parameter of the route (path or query); `{url}` is the URL being resolved. When
/// the template is expanded each value is percent-encoded (RFC 3986 §2.1; unreserved characters
/// kept, and a wildcard's `/`), so `{url}` fits in a query value. An optional query parameter the
/// URL does not give expands to nothing.
public struct URLTemplate: Sendable, Equatable, CustomStringConvertible {
    public enum Part: Sendable, Equatable {
        case text(String)
        case placeholder(String)
    }

    /// The reserved placeholder for the URL being resolved.
    public static let urlPlaceholder = "url"

    /// The template as written.
    public let text: String
    public let parts: [Part]

    public var description: String { text }

    /// Parses `{name}` placeholders; a `{` without its `}`, a stray `}` or a bad name is an error.
    init(parsing text: String) throws(RouteSyntaxError) {
        var parts: [Part] = []
        var rest = text[...]
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{" else { throw RouteSyntaxError("\"}\" without \"{\" in \"\(text)\"") }
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(where: { $0 == "{" || $0 == "}" }), rest[close] == "}" else {
                throw RouteSyntaxError("\"{\" without \"}\" in \"\(text)\"")
            }
            let name = String(rest[afterOpen..<close])
            guard RouteParameter.isName(name) else { throw RouteSyntaxError("placeholder {\(name)}: \(RouteParameter.nameRule(name))") }
            parts.append(.placeholder(name))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        self.text = text
        self.parts = parts
    }

    /// The placeholder names in written order (repeats included).
    public var placeholders: [String] {
        parts.compactMap { if case .placeholder(let name) = $0 { name } else { nil } }
    }

    /// The text with each placeholder replaced by `value(name)`, percent-encoded (keeping `/` when
    /// it says so); a placeholder without a value expands to nothing.
    func expand(_ value: (String) -> (text: String, keepsSlash: Bool)?) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .placeholder(let name):
                if let (text, keepsSlash) = value(name) { out += PercentEncoding.encode(text, keepingSlash: keepsSlash) }
            }
        }
        return out
    }
}
