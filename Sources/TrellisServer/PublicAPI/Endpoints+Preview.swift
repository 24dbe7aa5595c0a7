import Foundation
import TrellisAnswers
import TrellisCrypto
import TrellisHTTP
import TrellisJSON
import TrellisRendering
import TrellisRoutes
import TrellisRuntime
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// Previews: the layout drawn for people (HTML and SVG), and links followed as the app would.
extension Endpoints {
    func registerPreviews(in router: inout EndpointRouter) {
        router.add(.get, "/preview") { request, _, _ throws(Problem) in try previewLink(request) }
        router.add(.get, "/preview/{id}", replying: { request, parameters, context throws(Problem) in
            try preview(request, context, id: parameters["id"] ?? "", svg: false)
        })
        router.add(.get, "/preview/{id}/preview.svg", replying: { request, parameters, context throws(Problem) in
            try preview(request, context, id: parameters["id"] ?? "", svg: true)
        })
    }

    /// `GET /preview/{id}` (HTML) and `GET /preview/{id}/preview.svg` — the layout drawn for people.
    /// With `revision=N`, any stored revision (a staged one too) drawn for this user, read from the
    /// store on its read queue, as `GET /v1/screens/{id}?revision=N` resolves it.
    func preview(_ request: HTTPRequest, _ context: HTTPRequestContext, id: String, svg: Bool) throws(Problem) -> HTTPReply {
        let resolving = try ScreenRequest(
            request, id: id, state: state,
            parameters: LayoutViewport.parameterNames.union(svg ? ["revision", "grant"] : ["check", "revision", "grant"]))
        guard let text = resolving.query["revision"] else { return .response(try preview(resolving, request, svg: svg)) }
        return try storedRevision(resolving, request, context, revision: text) { () throws(Problem) in
            // Checked before the store is read, so a bad viewport is a 400 either way.
            _ = try LayoutViewport.required(by: resolving.query, platform: resolving.context.platform)
        } answer: { earlier, _, _ throws(Problem) in
            try preview(earlier, request, svg: svg)
        }
    }

    /// The drawing of one resolved request, through the answer cache.
    func preview(_ resolving: ScreenRequest, _ request: HTTPRequest, svg: Bool) throws(Problem) -> HTTPResponse {
        let viewport = try LayoutViewport.required(by: resolving.query, platform: resolving.context.platform)
        let check = try resolving.query.flag("check")
        try Self.requireFonts(resolving.snapshot)
        // Links carry who is looking and at what size on to the next preview (so they are part of
        // the key); a revision is this screen's, not the next one's.
        let linkQuery = svg ? "" : QueryParameters.encode(
            resolving.query.items.filter {
                $0.name != "check" && $0.name != "revision" && !$0.name.hasPrefix(ScreenRequest.parameterPrefix)
            }.map { ($0.name, $0.value) })
        let body = try resolving.cached(format: svg ? .svg : .html(check: check), viewport: viewport, linkQuery: linkQuery) {
            () throws(Problem) in
            let fonts = resolving.snapshot.fonts
            let frames = ScreenLayout(viewport: viewport, fonts: fonts).layOut(try resolving.layoutPlan(for: viewport))
            let fontFaces = resolving.snapshot.fontFiles.webFonts.fontFaceRules(frames, fonts: fonts)
            let page = svg ? PreviewSVG.render(frames, fontFaces: fontFaces)
                : PreviewHTML.render(frames, check: check, linkQuery: linkQuery, fontFaces: fontFaces)
            return EncodedBody(bytes: Array(page.utf8), compressionLevel: Gzip.Policy.perRequestLevel)
        }
        var response = Self.cached(
            body, request, cacheControl: state.screenCacheControl,
            contentType: svg ? "image/svg+xml; charset=utf-8" : "text/html; charset=utf-8", vary: state.screenVary, language: resolving.language)
        // The picture needs nothing from the network; a browser must not fetch anything for it.
        response.headers.add(name: "Content-Security-Policy", value: check ? Self.checkedPreviewContentSecurityPolicy : Self.previewContentSecurityPolicy)
        return response
    }

    /// `GET /preview?url=app://…` (with the preview's user and viewport parameters) — follows a link
    /// in a preview as the app would for this user: to the preview of the screen it opens (303, the
    /// route's parameters as `param.NAME`), to the external page, or, for a handler the app
    /// implements itself, a page saying which and with what.
    func previewLink(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let query = try QueryParameters(
            request.query, allowed: LayoutViewport.parameterNames.union(["url"]), takesContext: true)
        guard let url = query["url"], !url.isEmpty else {
            throw Problem(.badRequest, "query parameter \"url\" is required: the in-app URL to follow, such as url=app://product/42")
        }
        let context = try state.contextReader.context(
            of: request, queryItems: query.contextItems, now: state.clock())
        let snapshot = state.published.snapshot
        let resolution = try Self.resolve(url, in: try Self.routeTable(snapshot), for: context, snapshot)
        let carried = query.items.filter { $0.name != "url" }.map { ($0.name, $0.value) }
        let location: String
        switch resolution.target {
        case .screen(let id):
            let parameters = resolution.parameters.map { (ScreenRequest.parameterPrefix + $0.name, $0.value.stringValue ?? JSONWriter.string($0.value)) }
            location = "/preview/" + QueryParameters.component(id) + "?" + QueryParameters.encode(carried + parameters)
        case .external(let external):
            location = external
        case .native(let handler):
            let body = PreviewHTML.nativeTarget(resolution, handler: handler)
            var response = HTTPResponse(headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"], body: Array(body.utf8))
            response.headers.add(name: "Content-Security-Policy", value: Self.previewContentSecurityPolicy)
            return response
        }
        return HTTPResponse(status: .seeOther, headers: ["Location": location, "Cache-Control": "no-store"])
    }

    /// Inline styles and this server's font files only: no script, no other fetches, no forms,
    /// framed by this origin alone (the console's frames; it shares the origin).
    static let previewContentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'none'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"

    /// The same, with the one script `check=1` adds allowed by its hash: never any other.
    static let checkedPreviewContentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-\(Data(SHA256.hash(Array(PreviewHTML.checkScriptText.utf8))).base64EncodedString())'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
}
