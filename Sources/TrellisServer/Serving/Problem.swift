import Dispatch
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTargeting

/// An error answer in RFC 9457 form (`application/problem+json`), written for a person to act on.
public struct Problem: Error, Sendable {
    public var status: HTTPStatus
    /// What to fix, in one or two sentences.
    public var detail: String
    /// Extra members, e.g. the `errors` of a validation failure.
    public var extensions: [(String, JSONValue)]
    /// Headers the answer must carry, e.g. `Allow` on 405.
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, _ detail: String, extensions: [(String, JSONValue)] = [], headers: HTTPHeaders = [:]) {
        self.status = status
        self.detail = detail
        self.extensions = extensions
        self.headers = headers
    }

    /// The answer for a request to `instance`, tagged with the request id so logs can be found.
    public func response(instance: String, requestID: String, route: String?) -> HTTPResponse {
        let members: [(String, JSONValue)] =
            [
                ("type", .string("about:blank")), ("title", .string(status.reasonPhrase)), ("status", .number(status.code)),
                ("detail", .string(detail)), ("instance", .string(instance)), ("requestId", .string(requestID)),
            ] + extensions
        var headers = self.headers
        headers.add(name: "Content-Type", value: "application/problem+json")
        headers.add(name: "Cache-Control", value: "no-store")
        return HTTPResponse(status: status, headers: headers, body: JSONWriter.encode(.object(members), style: .pretty), route: route)
    }

    /// A 400 (or `status`) listing every diagnostic with its path and line.
    public static func invalid(
        _ detail: String, _ diagnostics: [Diagnostic], source: String? = nil, status: HTTPStatus = .badRequest
    ) -> Problem {
        invalid(detail, diagnostics.map { (source, $0) }, status: status)
    }

    /// The same for diagnostics of several sources (files, revisions, runtime values).
    static func invalid(_ detail: String, _ diagnostics: [(source: String?, Diagnostic)], status: HTTPStatus) -> Problem {
        let errors: [JSONValue] = diagnostics.map { source, d in
            var members: [(String, JSONValue)] = []
            if let source { members.append(("source", .string(source))) }
            members.append(("path", .string(d.path.description)))
            if d.location != .unknown {
                members.append(("line", .number(d.location.line)))
                members.append(("column", .number(d.location.column)))
            }
            members.append(("message", .string(d.message)))
            return .object(members)
        }
        return Problem(status, detail, extensions: [("errors", .array(errors))])
    }

    /// A 400 naming each query parameter that does not describe a user.
    static func invalidContext(_ error: UserContextError) -> Problem {
        let errors: [JSONValue] = error.problems.map {
            .object([("parameter", .string($0.parameter)), ("message", .string($0.reason))])
        }
        return Problem(.badRequest, "invalid user context: \(error.description)", extensions: [("errors", .array(errors))])
    }
}

extension HTTPReply {
    /// Answered later by `work` on `queue`; a problem it throws is the answer, as a handler's is.
    static func deferred(
        on queue: DispatchQueue, for request: HTTPRequest, _ context: HTTPRequestContext,
        _ work: @escaping @Sendable () throws(Problem) -> HTTPResponse
    ) -> HTTPReply {
        .deferred(on: queue) {
            do throws(Problem) {
                return try work()
            } catch {
                return error.response(instance: request.path, requestID: context.requestID, route: nil)
            }
        }
    }
}
