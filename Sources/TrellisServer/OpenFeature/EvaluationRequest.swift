import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTargeting

/// An OFREP error answer (`evaluationFailure`, `flagNotFound`, `bulkEvaluationFailure`): the
/// status, OpenFeature's error code, and what to fix, naming the JSON path and line.
struct OpenFeatureFailure: Error, Sendable {
    enum Code: String, Sendable {
        case parseError = "PARSE_ERROR", targetingKeyMissing = "TARGETING_KEY_MISSING", invalidContext = "INVALID_CONTEXT"
        case general = "GENERAL", flagNotFound = "FLAG_NOT_FOUND"
    }

    var status: HTTPStatus
    var code: Code
    var details: String
    var headers: HTTPHeaders = [:]

    /// `{key, errorCode, errorDetails}` (without `key` for a whole bulk request).
    func jsonValue(key: String?) -> JSONValue {
        let members: [(String, JSONValue)] = key.map { [("key", .string($0))] } ?? []
        return .object(members + [("errorCode", .string(code.rawValue)), ("errorDetails", .string(details))])
    }

    func response(key: String?) -> HTTPResponse {
        var headers = self.headers
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Cache-Control", value: "no-store")
        return HTTPResponse(status: status, headers: headers, body: JSONWriter.encode(jsonValue(key: key)))
    }
}

/// The body of an OFREP evaluation request, `{"context": {"targetingKey": …, …}}`, read into the
/// context parameters a screen request gives in its query: `targetingKey` is `user`; `platform`,
/// `appVersion`, `osVersion`, `schemaVersion`, `locale` and `country` are themselves; any other
/// member is the attribute `attr.NAME`. Strings are taken as they are, numbers and booleans as
/// their JSON text; `null` is no value. Members beside `context` are ignored (OFREP may add some).
struct EvaluationRequest: Sendable {
    /// Name/value pairs as ``UserContext/parse(_:)`` reads them.
    var parameters: [(name: String, value: String)]
    /// Where each parameter was written, for errors.
    var origins: [String: (path: JSONPath, location: SourceLocation)]
    /// Whether the context has a `targetingKey` member (an empty one means an anonymous user).
    var hasTargetingKey: Bool

    static let fieldNames: Set<String> = ["platform", "appVersion", "osVersion", "schemaVersion", "locale", "country"]

    /// - Throws: `PARSE_ERROR` for a body that is not JSON, `GENERAL` for JSON that is not an
    ///   object, `INVALID_CONTEXT` for a `context` that is not an object or holds an array or object.
    init(body: [UInt8]) throws(OpenFeatureFailure) {
        guard !body.isEmpty else {
            throw OpenFeatureFailure(
                status: .badRequest, code: .parseError, details: #"the body is empty; send {"context": {"targetingKey": "…"}}"#)
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(body)
        } catch {
            throw OpenFeatureFailure(status: .badRequest, code: .parseError, details: "the body is not JSON: \(error)")
        }
        guard let members = document.objectValue else {
            throw OpenFeatureFailure(
                status: .badRequest, code: .general,
                details: "$ (\(document.location)): expected an evaluation request object {\"context\": {…}}, found \(document.typeName)")
        }
        parameters = []
        origins = [:]
        hasTargetingKey = false
        guard let context = members.first(where: { $0.key == "context" })?.value, !context.isNull else { return }
        guard let fields = context.objectValue else {
            throw Self.invalid(JSONPath.root.appending("context"), context, "expected an object, found \(context.typeName)")
        }
        for field in fields { try read(field, at: JSONPath.root.appending("context").appending(field.key)) }
    }

    private mutating func read(_ field: JSONMember, at path: JSONPath) throws(OpenFeatureFailure) {
        let name = field.key == "targetingKey" ? "user" : Self.fieldNames.contains(field.key) ? field.key : "attr." + field.key
        if field.key == "targetingKey" { hasTargetingKey = true }
        let text: String
        switch field.value.kind {
        case .null: return
        case .string(let s): text = s
        case .bool, .number: text = JSONWriter.string(field.value)
        case .array, .object:
            throw Self.invalid(path, field.value, "expected a string, number or boolean, found \(field.value.typeName)")
        }
        if name == "user" && text.isEmpty { return }  // an anonymous user, as a request without `user`
        parameters.append((name, text))
        origins[name] = (path, field.value.location)
    }

    /// The problems ``UserContext/parse(_:)`` found, each at the path and line it was written.
    func invalidContext(_ error: UserContextError) -> OpenFeatureFailure {
        let messages = error.problems.map { problem in
            guard let origin = origins[problem.parameter] else { return problem.description }
            return "\(origin.path) (line \(origin.location.line)): \(problem.reason)"
        }
        return OpenFeatureFailure(status: .badRequest, code: .invalidContext, details: messages.joined(separator: "; "))
    }

    static func invalid(_ path: JSONPath, _ value: JSONValue, _ reason: String) -> OpenFeatureFailure {
        OpenFeatureFailure(status: .badRequest, code: .invalidContext, details: "\(path) (line \(value.location.line)): \(reason)")
    }
}
