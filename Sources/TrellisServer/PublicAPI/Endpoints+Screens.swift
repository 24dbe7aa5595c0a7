import TrellisAnswers
import TrellisHTTP
import TrellisJSON
import TrellisRendering
import TrellisRuntime
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// Screens: the list, one screen for one user in any client format, and earlier revisions.
extension Endpoints {
    func registerScreens(in router: inout EndpointRouter) {
        router.add(.get, "/v1/screens") { request, _, _ throws(Problem) in try screenList(request) }
        router.add(.get, "/v1/screens/{id}", replying: { request, parameters, context throws(Problem) in
            try screen(request, context, id: parameters["id"] ?? "")
        })
    }

    /// `GET /v1/screens/{id}` — the screen resolved for the user the query describes: rules,
    /// rollouts and experiments decided, components the client's schema version cannot render
    /// replaced. Answers are cached per outcome; 304 when the client has this one already.
    func screen(_ request: HTTPRequest, _ context: HTTPRequestContext, id: String) throws(Problem) -> HTTPReply {
        var resolving = try ScreenRequest(request, id: id, state: state, parameters: Self.screenQueryNames)
        recordExposures(resolving)
        let format = try ClientFormat.negotiate(request, query: resolving.query)
        let pretty = try resolving.query.flag("pretty")
        // A viewport sizes what DrivenUI cannot say itself ("fill", percentages); other formats have
        // no use for one. (Formats are told apart by pattern, not `==`, which would compare raw strings.)
        let viewport: LayoutViewport?
        if case .drivenui = format {
            viewport = try LayoutViewport.given(by: resolving.query, platform: resolving.context.platform)
        } else if let name = resolving.query.items.first(where: { LayoutViewport.isParameter($0.name) })?.name {
            throw Problem(
                .badRequest,
                "query parameter \"\(name)\" describes a viewport: it sizes format=drivenui answers, or use /v1/screens/\(id)/layout")
        } else {
            viewport = nil
        }
        if let revision = resolving.query["revision"] {
            guard case .trellis = format else { throw Problem(.badRequest, "revision=N is answered in Trellis's format only") }
            return try earlierRevision(resolving, request, context, revision: revision)
        }
        guard case .trellis = format else {
            resolving = resolving.limited(toSchemaVersion: format.schemaVersionLimit)
            let body = try clientAnswer(resolving, format: format, viewport: viewport, pretty: pretty)
            return .response(Self.cached(body, request, cacheControl: state.screenCacheControl, contentType: format.contentType, vary: state.screenVary, language: resolving.language))
        }
        let body = try screenAnswer(resolving, pretty: pretty)
        return .response(Self.cached(body, request, cacheControl: state.screenCacheControl, vary: state.screenVary, language: resolving.language))
    }

    /// The query parameters `GET /v1/screens/{id}` takes besides the user context; made once, not per request.
    static let screenQueryNames = LayoutViewport.parameterNames.union(["pretty", "revision", "grant", "format"])

    /// A third-party client's body, with the envelope's facts in headers. DrivenUI cannot say
    /// "fill" or a percentage, so with a viewport (`width`, `height`) those sizes are computed by
    /// the layout core; without one they are left out.
    func clientAnswer(
        _ resolving: ScreenRequest, format: ClientFormat, viewport: LayoutViewport?, pretty: Bool
    ) throws(Problem) -> EncodedBody {
        if viewport != nil { try Self.requireFonts(resolving.snapshot) }
        let revision = resolving.entry.revision
        let fonts = resolving.snapshot.fonts
        return try resolving.cached(format: .client(format), pretty: pretty, viewport: viewport) { () throws(Problem) in
            let resolved = try resolving.resolve()
            let style: JSONWriter.Style = pretty ? .pretty : .compact
            switch format {
            case .drivenui:
                let frames = viewport.map { ScreenLayout(viewport: $0, fonts: fonts).layOut(resolved) }
                return EncodedBody(
                    bytes: JSONWriter.encode(DrivenUIFormat.body(resolved, frames: frames), style: style),
                    headers: DrivenUIFormat.headers(resolved, revision: revision))
            case .matrioska:
                return EncodedBody(
                    bytes: JSONWriter.encode(MatrioskaFormat.document(resolved), style: style),
                    headers: MatrioskaFormat.headers(resolved, revision: revision))
            case .trellis:
                return EncodedBody(bytes: JSONWriter.encode(resolved.jsonValue(revision: revision), style: style))
            }
        }
    }

    /// The screen answer for one resolved request, from the answer cache.
    func screenAnswer(_ resolving: ScreenRequest, pretty: Bool) throws(Problem) -> EncodedBody {
        try resolving.cached(format: .screen, pretty: pretty) { () throws(Problem) in try resolving.encodedScreen(pretty: pretty) }
    }

    /// `GET /v1/screens/{id}?revision=N` — any stored revision resolved for this user, for previews
    /// and comparisons. Read from the store on its read queue; never cached by the answer cache.
    func earlierRevision(
        _ resolving: ScreenRequest, _ request: HTTPRequest, _ context: HTTPRequestContext, revision text: String
    ) throws(Problem) -> HTTPReply {
        let cacheControl = state.screenCacheControl
        let vary = state.screenVary
        return try storedRevision(resolving, request, context, revision: text) { () throws(Problem) in
            try resolving.query.flag("pretty")
        } answer: { earlier, number, pretty throws(Problem) in
            let body = EncodedBody(bytes: JSONWriter.encode(try earlier.resolve().jsonValue(revision: number), style: pretty ? .pretty : .compact))
            return Self.cached(body, request, cacheControl: cacheControl, vary: vary)
        }
    }

    /// Stored revision `text` of the requested screen, read from the store on its read queue and
    /// checked against the targeting in force (409 when it no longer fits), answered by `answer`
    /// with the request for that revision. `prepare` checks the rest of the request first, so a
    /// bad one is refused before the store is read.
    func storedRevision<Prepared: Sendable>(
        _ resolving: ScreenRequest, _ request: HTTPRequest, _ context: HTTPRequestContext, revision text: String,
        prepare: () throws(Problem) -> Prepared,
        answer: @escaping @Sendable (ScreenRequest, _ revision: Int, Prepared) throws(Problem) -> HTTPResponse
    ) throws(Problem) -> HTTPReply {
        guard let number = Int(text), number >= 1, String(number) == text else {
            throw Problem(.badRequest, "query parameter \"revision\" must be a revision number (1, 2, …), not \"\(text)\"")
        }
        guard let control else { throw Problem(.notFound, "this server keeps no revision history") }
        let id = resolving.id
        if number != resolving.snapshot.screens[id]?.revision {
            // Only the revision served to everybody is public: a staged, abandoned or earlier one is
            // ops' to preview, with a token that may read.
            guard let readers else {
                throw Problem(.notFound, "screen \(id) serves revision \(resolving.snapshot.screens[id]?.revision ?? 0) to everybody; others are not public here")
            }
            let granted = resolving.query["grant"].map { readers.accepts(previewGrant: $0, screen: id, revision: number, now: state.clock()) } ?? false
            if !granted { _ = try readers.authorize(request, context, role: .read) }
        }
        let prepared = try prepare()
        return .deferred(on: control.readQueue, for: request, context) { () throws(Problem) in
            let stored: DocumentRevision?
            do { stored = try control.store.revision(of: .screen(id), number: number) } catch {
                throw Problem(.serviceUnavailable, "cannot read revision \(number): \(error)")
            }
            guard let stored else { throw Problem(.notFound, "screen \(id) has no revision \(number)") }
            let source = "screens/\(id) revision \(number)"
            let screen: CheckedScreen
            switch control.builder.loader.checkedScreen(
                stored.document, source: source, id: id, targeting: resolving.snapshot.targeting,
                templates: resolving.snapshot.templates) {
            case .success(let checked): screen = checked
            case .failure(let error):
                throw Problem.invalid("revision \(number) no longer fits the targeting in force", error.diagnostics, source: source, status: .conflict)
            }
            // The revision is part of every cache key an answer goes through (answers, resolved
            // screens, layout plans), so revisions never share an entry.
            return try answer(resolving.with(ScreenEntry(screen, revision: number)), number, prepared)
        }
    }

    /// `GET /v1/screens` — the id, revision, schema version and title of every screen.
    func screenList(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let pretty = try QueryParameters(request.query, allowed: ["pretty"]).flag("pretty")
        let list = state.published.snapshot.screenList
        return Self.cached(pretty ? list.pretty : list.compact, request, cacheControl: "no-cache")
    }
}
