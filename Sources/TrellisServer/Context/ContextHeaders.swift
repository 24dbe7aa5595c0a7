import TrellisHTTP
import TrellisRuntime

/// One context value and where it came from, so an error names what the client actually sent.
struct ContextParameter: Sendable, Equatable {
    /// The name ``UserContext/parse(_:)`` reads: `user`, `attr.tier`.
    var name: String
    var value: String
    /// `user` for the query, `X-User-Id` for a header, `X-Trellis-Context user` for a signed value.
    var source: String
}

/// The context headers a request carries, read in one pass over its fields.
///
/// `X-User-Id`, `X-Platform`, `X-App-Version`, `X-OS-Version`, `X-Schema-Version`, `X-Country`
/// and `X-Attr-NAME` stand for the query parameters `user`, `platform`, `appVersion`,
/// `osVersion`, `schemaVersion`, `country` and `attr.NAME`; `Accept-Language` gives `locale`.
/// Field names match case-insensitively (RFC 9110 §5.1); the attribute name is taken exactly as
/// written after `X-Attr-`, since attribute names are case-sensitive in rules.
struct ContextHeaders {
    static let fixed: [(header: String, parameter: String)] = [
        ("X-User-Id", "user"), ("X-Platform", "platform"), ("X-App-Version", "appVersion"),
        ("X-OS-Version", "osVersion"), ("X-Schema-Version", "schemaVersion"), ("X-Country", "country"),
    ]
    static let attributePrefix = "X-Attr-"
    static let acceptLanguage = "Accept-Language"
    static let signedContext = "X-Trellis-Context"

    /// Context values from headers other than the signed context, one per parameter.
    var parameters: [ContextParameter] = []
    /// Every `X-Trellis-Context` field (more than one is an error for the caller to report).
    var signed: [String] = []

    /// - Throws: 400 when a context header other than `Accept-Language` (a list, RFC 9110 §12.5.4)
    ///   is given more than once, for the same reason a repeated query parameter is refused.
    init(_ headers: HTTPHeaders) throws(Problem) {
        var languages: [String] = []
        var attributeFields: Set<String> = []
        for (name, value) in headers {
            let utf8 = name.utf8
            guard let first = utf8.first, first | 0x20 == 0x78 || first | 0x20 == 0x61 else { continue }  // x or a
            if ASCII.equalsIgnoringCase(name, Self.signedContext) {
                signed.append(value)
            } else if ASCII.equalsIgnoringCase(name, Self.acceptLanguage) {
                languages.append(value)
            } else if ASCII.hasPrefixIgnoringCase(name, Self.attributePrefix) {
                let attribute = String(name.dropFirst(Self.attributePrefix.count))
                // X-Attr-Tier and x-attr-tier are one field name, though they spell two attributes.
                guard attributeFields.insert(attribute.lowercased()).inserted else { throw Self.repeated(name) }
                parameters.append(ContextParameter(name: "attr." + attribute, value: value, source: name))
            } else if let known = Self.fixed.first(where: { ASCII.equalsIgnoringCase(name, $0.header) }) {
                guard !parameters.contains(where: { $0.name == known.parameter }) else { throw Self.repeated(known.header) }
                parameters.append(ContextParameter(name: known.parameter, value: value, source: known.header))
            }
        }
        // Several Accept-Language fields form one list (RFC 9110 §5.3).
        if !languages.isEmpty, let tag = AcceptLanguage.preferredTag(languages.joined(separator: ",")) {
            parameters.append(ContextParameter(name: "locale", value: tag, source: Self.acceptLanguage))
        }
    }

    private static func repeated(_ header: String) -> Problem {
        Problem(.badRequest, "header \(header) is given more than once")
    }
}

/// Case-insensitive ASCII comparisons of header names without allocating lowercased copies.
enum ASCII {
    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && hasPrefixIgnoringCase(a, b)
    }

    static func hasPrefixIgnoringCase(_ text: String, _ prefix: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next(), lower(byte) == lower(expected) else { return false }
        }
        return true
    }

    private static func lower(_ c: UInt8) -> UInt8 { (0x41...0x5A).contains(c) ? c | 0x20 : c }
}
