import TrellisAnswers
import TrellisHTTP
import TrellisJSON
import TrellisRendering
import TrellisRuntime
import TrellisTargeting
import TrellisText

/// Layouts: a screen's frames for the client's viewport.
extension Endpoints {
    func registerLayout(in router: inout EndpointRouter) {
        router.add(.get, "/v1/screens/{id}/layout") { request, parameters, _ throws(Problem) in
            try layout(request, id: parameters["id"] ?? "")
        }
    }

    /// `GET /v1/screens/{id}/layout` — the screen resolved as `GET /v1/screens/{id}` resolves it,
    /// laid out for the viewport the query describes, with every component's frame. Cached by
    /// outcome and viewport like the screen answer.
    func layout(_ request: HTTPRequest, id: String) throws(Problem) -> HTTPResponse {
        let resolving = try ScreenRequest(request, id: id, state: state, parameters: Self.layoutQueryNames)
        recordExposures(resolving)
        let viewport = try LayoutViewport.required(by: resolving.query, platform: resolving.context.platform)
        let body = try layoutAnswer(resolving, viewport: viewport, pretty: try resolving.query.flag("pretty"))
        return Self.cached(body, request, cacheControl: state.screenCacheControl, vary: state.screenVary, language: resolving.language)
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
            return EncodedBody(bytes: bytes, compressionLevel: Gzip.Policy.perRequestLevel)
        }
    }

    static func requireFonts(_ snapshot: Snapshot) throws(Problem) {
        guard snapshot.fonts.isEmpty else { return }
        throw Problem(
            .serviceUnavailable,
            "no fonts are loaded, so text cannot be measured: put the font metrics packs (*.trfm) in the configuration's fonts/ directory and reload")
    }
}
