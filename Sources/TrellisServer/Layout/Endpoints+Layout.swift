import TrellisHTTP
import TrellisJSON
import TrellisScreens
import TrellisTargeting
import TrellisText

extension Endpoints {
    /// `GET /v1/screens/{id}/layout` — the screen resolved as `GET /v1/screens/{id}` resolves it,
    /// laid out for the viewport the query describes, with every component's frame. Cached by
    /// outcome and viewport like the screen answer.
    func layout(_ request: HTTPRequest, id: String) throws(Problem) -> HTTPResponse {
        let resolving = try ScreenRequest(request, id: id, state: state, parameters: LayoutViewport.parameterNames.union(["pretty"]))
        let viewport = try LayoutViewport.parse(resolving.query, platform: resolving.context.platform)
        let pretty = try resolving.query.flag("pretty")
        try Self.requireFonts(resolving.snapshot)
        let body = resolving.answer(format: .layout, pretty: pretty, viewport: viewport) { resolved in
            let frames = ScreenLayout(viewport: viewport, fonts: resolving.snapshot.fonts).layOut(resolved)
            return JSONWriter.encode(frames.jsonValue(revision: resolving.entry.revision), style: pretty ? .pretty : .compact)
        }
        return Self.cached(body, request, cacheControl: state.screenCacheControl, vary: state.screenVary)
    }

    /// `GET /preview/{id}` (HTML) and `GET /preview/{id}/preview.svg` — the layout drawn for people.
    func preview(_ request: HTTPRequest, id: String, svg: Bool) throws(Problem) -> HTTPResponse {
        let resolving = try ScreenRequest(
            request, id: id, state: state, parameters: LayoutViewport.parameterNames.union(svg ? [] : ["check"]))
        let viewport = try LayoutViewport.parse(resolving.query, platform: resolving.context.platform)
        let check = try resolving.query.flag("check")
        try Self.requireFonts(resolving.snapshot)
        let body = resolving.answer(format: svg ? .svg : .html(check: check), viewport: viewport) { resolved in
            let frames = ScreenLayout(viewport: viewport, fonts: resolving.snapshot.fonts).layOut(resolved)
            return Array((svg ? PreviewSVG.render(frames) : PreviewHTML.render(frames, check: check)).utf8)
        }
        var response = Self.cached(
            body, request, cacheControl: state.screenCacheControl,
            contentType: svg ? "image/svg+xml; charset=utf-8" : "text/html; charset=utf-8", vary: state.screenVary)
        // The picture needs nothing from the network; a browser must not fetch anything for it.
        response.headers.add(name: "Content-Security-Policy", value: Self.previewContentSecurityPolicy)
        return response
    }

    /// Inline styles (and the `check=1` script) only: no fetches, no frames, no forms.
    static let previewContentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

    private static func requireFonts(_ snapshot: Snapshot) throws(Problem) {
        guard snapshot.fonts.families.isEmpty else { return }
        throw Problem(
            .serviceUnavailable,
            "no fonts are loaded, so text cannot be measured: put the font metrics packs (*.trfm) in the configuration's fonts/ directory and reload")
    }
}
