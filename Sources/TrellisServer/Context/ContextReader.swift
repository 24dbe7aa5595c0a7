import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTargeting

/// Who is asking: the context parameters of one request, from its query, its headers and, when
/// signing is configured, a gateway's signed `X-Trellis-Context` (docs/configuration.md, "Who is
/// asking").
///
/// - Query and headers say the same things (`user` / `X-User-Id`, …); a value given both ways
///   must agree (400 naming both). `Accept-Language` is the exception: user agents add it on their
///   own, so an explicit `locale` in the query wins over it instead of contradicting it.
/// - With `context.signingKeys`, identity — `user`, `country`, `attr.*` — comes only from the
///   signed context; unsigned identity values are dropped or refused (`context.unsigned`), with or
///   without a signed context in the request, since otherwise leaving the header out would be a
///   way around it. Client facts (platform, versions, locale) stay unsigned.
/// - Without signing keys, `X-Trellis-Context` is refused (400): a gateway that believes it
///   vouches for users should learn that nobody checks.
public struct ContextReader: Sendable {
    public let configuration: ServerConfiguration.Context

    public init(configuration: ServerConfiguration.Context) { self.configuration = configuration }

    /// The request headers an answer may depend on, for `Vary` (RFC 9110 §12.5.5).
    ///
    /// Always the same list, whatever the configuration, so the header line can be built once.
    /// `X-Attr-NAME` cannot be listed: `Vary` names fields, it has no wildcard. Screen answers are
    /// `private`, and with the default `no-cache` clients revalidate by ETag, which differs per
    /// outcome, so a changed attribute header still gets the right answer; with
    /// `screenMaxAgeSeconds` above 0, clients should send attributes in the query or signed.
    public static let varyHeaders: [String] =
        ContextHeaders.fixed.map(\.header) + [ContextHeaders.acceptLanguage, ContextHeaders.signedContext]

    /// The merged name/value pairs ``UserContext/parse(_:)`` reads.
    /// - Parameters:
    ///   - queryItems: the request's query items that are context parameters (already checked for
    ///     repeats and unknown names).
    ///   - now: seconds since 1970 (UTC), for the signed context's `exp`.
    /// - Throws: 401 for a signed context that does not verify; 400 for a repeated context header,
    ///   query and header disagreeing, `X-Trellis-Context` without signing keys, or unsigned
    ///   identity values when `context.unsigned` is `refuse`.
    public func parameters(
        of request: HTTPRequest, queryItems: [(name: String, value: String)], now: Double
    ) throws(Problem) -> [(name: String, value: String)] {
        let headers = try ContextHeaders(request.headers)
        // The common case on the hot path: a client that sends its context in the query only.
        if headers.parameters.isEmpty, headers.signed.isEmpty, configuration.signingKeys.isEmpty { return queryItems }
        return try read(headers, queryItems: queryItems, now: now).map { (name: $0.name, value: $0.value) }
    }

    /// The user context itself: ``parameters(of:queryItems:now:)`` parsed, with `now` set. A bad
    /// value's error names where it came from (`X-User-Id`, `X-Trellis-Context user`), not only
    /// the parameter.
    public func context(
        of request: HTTPRequest, queryItems: [(name: String, value: String)], now: Double
    ) throws(Problem) -> UserContext {
        let headers = try ContextHeaders(request.headers)
        // The common case on the hot path: the context in the query only, nothing to merge or verify.
        if headers.parameters.isEmpty, headers.signed.isEmpty, configuration.signingKeys.isEmpty {
            do {
                var context = try UserContext.parse(queryItems)
                context.now = now
                return context
            } catch {
                throw Problem.invalidContext(error)
            }
        }
        let parameters = try read(headers, queryItems: queryItems, now: now)
        do {
            var context = try UserContext.parse(parameters.map { (name: $0.name, value: $0.value) })
            context.now = now
            return context
        } catch {
            throw Self.invalid(error, parameters)
        }
    }

    /// The 400 of ``Problem/invalidContext(_:)``, naming each bad value by its source.
    private static func invalid(_ error: UserContextError, _ parameters: [ContextParameter]) -> Problem {
        let problems = error.problems.map { problem in
            let source = parameters.first { $0.name == problem.parameter }?.source ?? problem.parameter
            return ContextParameterProblem(parameter: source, reason: problem.reason)
        }
        let errors: [JSONValue] = problems.map { .object([("parameter", .string($0.parameter)), ("message", .string($0.reason))]) }
        let detail = "invalid user context: " + problems.map(\.description).joined(separator: "; ")
        return Problem(.badRequest, detail, extensions: [("errors", .array(errors))])
    }

    private func read(_ headers: ContextHeaders, queryItems: [(name: String, value: String)], now: Double) throws(Problem) -> [ContextParameter] {
        var query = queryItems.map { ContextParameter(name: $0.name, value: $0.value, source: $0.name) }
        var fromHeaders = headers.parameters
        guard !configuration.signingKeys.isEmpty else {
            if !headers.signed.isEmpty { throw Self.signingNotConfigured }
            return try Self.merge(query, fromHeaders)
        }
        let signed = try verifiedParameters(headers.signed, now: now)
        try applyUnsignedPolicy(to: &query, &fromHeaders)
        return try Self.merge(query, fromHeaders) + signed
    }

    /// The signed values, or none when the request carries no signed context.
    private func verifiedParameters(_ values: [String], now: Double) throws(Problem) -> [ContextParameter] {
        guard let value = values.first else { return [] }
        guard values.count == 1 else {
            throw SignedContextError(.malformed, "given \(values.count) times; send one").problem
        }
        do {
            return try SignedContext.verify(value, keys: configuration.signingKeys, now: now, maxLifetimeSeconds: configuration.maxLifetimeSeconds).context.parameters
        } catch {
            throw error.problem
        }
    }

    /// Drops or refuses `user`, `country` and `attr.*` from the query and headers.
    private func applyUnsignedPolicy(to query: inout [ContextParameter], _ headers: inout [ContextParameter]) throws(Problem) {
        let unsigned = (query + headers).filter { Self.isIdentity($0.name) }
        guard !unsigned.isEmpty else { return }
        switch configuration.unsigned {
        case .ignore:
            query.removeAll { Self.isIdentity($0.name) }
            headers.removeAll { Self.isIdentity($0.name) }
        case .refuse:
            let errors: [JSONValue] = unsigned.map {
                .object([("parameter", .string($0.source)), ("message", .string("must come signed in \(SignedContext.headerName)"))])
            }
            throw Problem(
                .badRequest,
                "\(unsigned.map(\.source).joined(separator: ", ")): this server takes user, country and attributes only from a signed \(SignedContext.headerName)",
                extensions: [("errors", .array(errors))])
        }
    }

    static func isIdentity(_ name: String) -> Bool { name == "user" || name == "country" || name.hasPrefix("attr.") }

    /// Query values, then header values the query does not have; every disagreement is reported.
    static func merge(_ query: [ContextParameter], _ headers: [ContextParameter]) throws(Problem) -> [ContextParameter] {
        guard !headers.isEmpty else { return query }
        var merged = query
        var conflicts: [(ContextParameter, ContextParameter)] = []
        for header in headers {
            guard let given = query.first(where: { $0.name == header.name }) else {
                merged.append(header)
                continue
            }
            // An explicit locale wins over the Accept-Language a user agent adds by itself.
            if header.source == ContextHeaders.acceptLanguage { continue }
            if !agree(given, header) { conflicts.append((given, header)) }
        }
        guard !conflicts.isEmpty else { return merged }
        let messages = conflicts.map { "\($0.source) and \($1.source) disagree (\(JSONWriter.quoted($0.value)) and \(JSONWriter.quoted($1.value)))" }
        let errors: [JSONValue] = zip(conflicts, messages).map {
            .object([("parameter", .string($0.0.source)), ("header", .string($0.1.source)), ("message", .string($1))])
        }
        throw Problem(.badRequest, "the query and the headers disagree: " + messages.joined(separator: "; "), extensions: [("errors", .array(errors))])
    }

    /// Equal values; platform and country ignoring ASCII case, as their parser does.
    private static func agree(_ a: ContextParameter, _ b: ContextParameter) -> Bool {
        if a.name == "platform" || a.name == "country" { return ASCII.equalsIgnoringCase(a.value, b.value) }
        return a.value == b.value
    }

    private static let signingNotConfigured = Problem(
        .badRequest,
        "\(SignedContext.headerName): signing is not configured on this server (context.signingKeys is empty); send the context in the query or headers instead")
}
