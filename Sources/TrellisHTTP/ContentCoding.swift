/// The content coding of one response, chosen from the request's `Accept-Encoding` and what the
/// response offers (RFC 9110 §12.5.3, §8.4).
enum ContentCoding: Equatable {
    /// Send the body as is. `varies` when gzip was possible, so the choice depended on the request.
    case identity(varies: Bool)
    /// Send `gzipBody`, or the body compressed now.
    case gzip(precomputed: Bool)
    /// The client refused identity and gzip is not possible → 406.
    case notAcceptable

    var variesOnAcceptEncoding: Bool {
        switch self {
        case .identity(let varies): return varies
        case .gzip: return true
        case .notAcceptable: return false
        }
    }

    static func choose(for response: HTTPResponse, accept: AcceptEncoding, options: ResponseWriter.Options) -> ContentCoding {
        let status = response.status.code
        // Bodiless answers and bodies a responder already encoded are never touched.
        if response.content.count == 0 || status == 204 || status == 304 || response.hasContentEncoding {
            return .identity(varies: false)
        }
        let precomputed = response.gzipBody != nil
        let canGzip = precomputed || (response.compressible && response.isTextual)
        let identityAllowed = accept.identity > 0
        if canGzip && accept.gzip > 0 {
            let bigEnough = precomputed || response.content.count >= options.gzipMinimumBytes
            if (accept.prefersGzip && bigEnough) || !identityAllowed { return .gzip(precomputed: precomputed) }
        }
        return identityAllowed ? .identity(varies: canGzip) : .notAcceptable
    }

    /// Textual types worth compressing: `text/*`, JSON, XML, JavaScript, SVG, form data.
    /// Compares bytes in place: no lowercased copies on the response path.
    static func isTextual(_ contentType: String?) -> Bool {
        guard var contentType else { return false }
        return contentType.withUTF8 { all in
            let semicolon = all.firstIndex(of: UInt8(ascii: ";")) ?? all.count
            let type = HTTPParser.trimmed(UnsafeBufferPointer(rebasing: all[..<semicolon]))
            func hasPrefix(_ p: StaticString) -> Bool {
                type.count >= p.utf8CodeUnitCount
                    && HTTPBytes.equalsLowercase(UnsafeBufferPointer(rebasing: type[..<p.utf8CodeUnitCount]), p)
            }
            func hasSuffix(_ p: StaticString) -> Bool {
                type.count >= p.utf8CodeUnitCount
                    && HTTPBytes.equalsLowercase(UnsafeBufferPointer(rebasing: type[(type.count - p.utf8CodeUnitCount)...]), p)
            }
            return hasPrefix("text/") || hasSuffix("+json") || hasSuffix("+xml")
                || HTTPBytes.equalsLowercase(type, "application/json")
                || HTTPBytes.equalsLowercase(type, "application/javascript")
                || HTTPBytes.equalsLowercase(type, "application/xml")
                || HTTPBytes.equalsLowercase(type, "application/x-www-form-urlencoded")
        }
    }
}
