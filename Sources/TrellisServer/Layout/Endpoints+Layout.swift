import TrellisHTTP
import TrellisJSON
import TrellisRoutes
import TrellisScreens
import TrellisTargeting
import TrellisText

extension Endpoints {
    /// `GET /v1/screens/{id}/layout` — the screen resolved as `GET /v1/screens/{id}` resolves it,
    /// laid out for the viewport the query describes, with every component's frame. Cached by
    /// outcome and viewport like the screen answer.
    func layout(_ request: HTTPRequest, id: String) throws(Problem) -> HTTPResponse {
        let resolving = try ScreenRequest(request, id: id, state: state, parameters: Self.layoutQueryNames)
        let viewport = try LayoutViewport.parse(resolving.query, platform: resolving.context.platform)
        let body = try layoutAnswer(resolving, viewport: viewport, pretty: try resolving.query.flag("pretty"))
        return Self.cached(body, request, cacheControl: state.screenCacheControl, vary: state.screenVary)
    }

    /// The query parameters of the layout endpoint beside the user context's.
    static let layoutQueryNames = LayoutViewport.parameterNames.union(["pretty"])

    /// The layout answer for one resolved request, from the answer cache.
    func layoutAnswer(_ resolving: ScreenRequest, viewport: LayoutViewport, pretty: Bool) throws(Problem) -> EncodedBody {
        try Self.requireFonts(resolving.snapshot)
        return try resolving.cached(format: .layout, pretty: pretty, viewport: viewport) { () throws(Problem) in
            let plan = try resolving.layoutPlan(for: viewport)
            let layout = ScreenLayout(viewport: viewport, fonts: resolving.snapshot.fonts, keepsLines: false)
            let bytes = pretty
                ? JSONWriter.encode(layout.layOut(plan).jsonValue(revision: resolving.entry.revision), style: .pretty)
                : layout.answer(plan)
            return EncodedBody(bytes: bytes, compressionLevel: EncodedBody.viewportCompressionLevel)
        }
    }

    /// `GET /preview/{id}` (HTML) and `GET /preview/{id}/preview.svg` — the layout drawn for people.
    func preview(_ request: HTTPRequest, id: String, svg: Bool) throws(Problem) -> HTTPResponse {
        let resolving = try ScreenRequest(
            request, id: id, state: state, parameters: LayoutViewport.parameterNames.union(svg ? [] : ["check"]))
        let viewport = try LayoutViewport.parse(resolving.query, platform: resolving.context.platform)
        let check = try resolving.query.flag("check")
        try Self.requireFonts(resolving.snapshot)
        // Links carry who is looking and at what size on to the next preview (so they are part of the key).
        let linkQuery = svg ? "" : QueryParameters.encode(
            resolving.query.items.filter { $0.name != "check" && !$0.name.hasPrefix(ScreenRequest.parameterPrefix) }.map { ($0.name, $0.value) })
        let body = try resolving.cached(format: svg ? .svg : .html(check: check), viewport: viewport, linkQuery: linkQuery) {
            () throws(Problem) in
            let fonts = resolving.snapshot.fonts
            let frames = ScreenLayout(viewport: viewport, fonts: fonts).layOut(try resolving.layoutPlan(for: viewport))
            let fontFaces = resolving.snapshot.webFonts.fontFaceRules(frames, fonts: fonts)
            let page = svg ? PreviewSVG.render(frames, fontFaces: fontFaces)
                : PreviewHTML.render(frames, check: check, linkQuery: linkQuery, fontFaces: fontFaces)
            return EncodedBody(bytes: Array(page.utf8), compressionLevel: EncodedBody.viewportCompressionLevel)
        }
        var response = Self.cached(
            body, request, cacheControl: state.screenCacheControl,
            contentType: svg ? "image/svg+xml; charset=utf-8" : "text/html; charset=utf-8", vary: state.screenVary)
        // The picture needs nothing from the network; a browser must not fetch anything for it.
        response.headers.add(name: "Content-Security-Policy", value: Self.previewContentSecurityPolicy)
        return response
    }

    /// `GET /preview?url=app://…` (with the preview's user and viewport parameters) — follows a link
    /// in a preview as the app would for this user: to the preview of the screen it opens (303, the
    /// route's parameters as `param.NAME`), to the external page, or, for a handler the app
    /// implements itself, a page saying which and with what.
    func previewLink(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let query = try QueryParameters(
            request.query, allowed: UserContext.parameterNames.union(LayoutViewport.parameterNames).union(["url"]), allowedPrefixes: ["attr."])
        guard let url = query["url"], !url.isEmpty else {
            throw Problem(.badRequest, "query parameter \"url\" is required: the in-app URL to follow, such as url=app://product/42")
        }
        let context = try state.contextReader.context(
            of: request, queryItems: query.items.filter { UserContext.isParameter($0.name) }, now: state.clock())
        let snapshot = state.store.snapshot
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

    /// Inline styles (and the `check=1` script) and this server's font files only: no other
    /// fetches, no frames, no forms.
    static let previewContentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; font-src 'self'; base-uri 'none'; form-action 'none'"

    static func requireFonts(_ snapshot: Snapshot) throws(Problem) {
        guard snapshot.fonts.isEmpty else { return }
        throw Problem(
            .serviceUnavailable,
            "no fonts are loaded, so text cannot be measured: put the font metrics packs (*.trfm) in the configuration's fonts/ directory and reload")
    }
}
