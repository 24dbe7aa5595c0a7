import TrellisHTTP

/// The wire formats one authored screen is served in: Trellis's envelope, and the bodies two
/// third-party clients decode unmodified (docs/clients.md). Chosen per request by `?format=` or,
/// without it, by `Accept`.
public enum ClientFormat: String, CaseIterable, Sendable, Hashable {
    case trellis, drivenui, matrioska

    /// The media type a client names in `Accept`.
    var mediaType: String { "application/vnd.\(rawValue)+json" }
    /// The answer's `Content-Type`. Trellis's own answer keeps `application/json`, which every
    /// client so far has been sent.
    var contentType: String { self == .trellis ? "application/json" : mediaType }

    /// The highest schema version the format's clients render: DrivenUI 0.1.1 knows version 1's
    /// vocabulary only; Matrioska builds whatever type the app registered.
    var schemaVersionLimit: Int? { self == .drivenui ? 1 : nil }

    /// The format `?format=` names, else the one `Accept` prefers (the first of the highest
    /// quality); 406 when `Accept` admits none.
    static func negotiate(_ request: HTTPRequest, query: QueryParameters) throws(Problem) -> ClientFormat {
        if let name = query["format"] {
            guard let format = ClientFormat(rawValue: name) else {
                throw Problem(.badRequest, "query parameter \"format\" must be one of \(allCases.map(\.rawValue).joined(separator: ", ")), not \"\(name)\"")
            }
            return format
        }
        guard let accept = request.headers["Accept"] else { return .trellis }
        var best: (format: ClientFormat, quality: Double)?
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { trimmed($0).lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            let quality = parts.dropFirst().compactMap { $0.hasPrefix("q=") ? Double($0.dropFirst(2)) : nil }.first ?? 1
            guard quality > 0, let format = format(forMediaRange: type) else { continue }
            if best.map({ quality > $0.quality }) ?? true { best = (format, quality) }
        }
        guard let best else {
            throw Problem(
                .notAcceptable,
                "Accept: \(accept) names no format this server produces: ask for \(allCases.map(\.mediaType).joined(separator: ", ")) or application/json, or use ?format=")
        }
        return best.format
    }

    /// `application/json`, `application/*` and `*/*` get Trellis's own answer.
    private static func format(forMediaRange range: String) -> ClientFormat? {
        if let format = allCases.first(where: { $0.mediaType == range }) { return format }
        return ["application/json", "application/*", "*/*"].contains(range) ? .trellis : nil
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
