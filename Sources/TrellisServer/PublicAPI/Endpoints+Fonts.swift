import TrellisHTTP
import TrellisRendering
import TrellisRuntime

/// The font files previews draw text in.
extension Endpoints {
    func registerFonts(in router: inout EndpointRouter) {
        router.add(.get, "/fonts/{file}") { request, parameters, _ throws(Problem) in
            try fontFile(request, name: parameters["file"] ?? "")
        }
    }

    /// `Cache-Control` of a font file asked for by its fingerprinted URL: that URL names these
    /// bytes for good (RFC 8246).
    static let immutableCacheControl = "public, max-age=31536000, immutable"

    /// `GET /fonts/{file}?v={fingerprint}` — a font file the metrics packs were built from, for a
    /// preview's `@font-face`. Only the files the snapshot loaded are served, by exact name, so no
    /// path reaches the file system. With the current `v` the answer is cacheable for a year; with
    /// none it must be revalidated (ETag); another `v` is 404, as that version is not here.
    func fontFile(_ request: HTTPRequest, name: String) throws(Problem) -> HTTPResponse {
        let query = try QueryParameters(request.query, allowed: ["v"])
        let fonts = state.published.snapshot.fontFiles
        guard let file = fonts.webFonts.files[name], let body = fonts.bodies[name] else {
            let served = fonts.webFonts.files.keys.sorted()
            throw Problem(
                .notFound,
                served.isEmpty
                    ? "no font file \"\(name)\": this server serves none (put the .ttf/.otf files the packs in fonts/ were built from beside them)"
                    : "no font file \"\(name)\": this server serves \(served.joined(separator: ", "))")
        }
        if let version = query["v"], version != file.fingerprint {
            throw Problem(.notFound, "font file \"\(name)\" is version \(file.fingerprint) here, not \(version): load the page that links it again")
        }
        return Self.cached(
            body, request, cacheControl: query["v"] == nil ? "no-cache" : Self.immutableCacheControl, contentType: file.contentType)
    }
}
