import TrellisHTTP
import TrellisRendering
import TrellisRuntime

extension ClientFormat {
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
