import TrellisHTTP
import TrellisRuntime

/// The values a matched route captured from the path, e.g. `id` in `/v1/screens/{id}`.
public struct PathParameters: Sendable {
    var values: [(String, String)] = []
    public subscript(name: String) -> String? { values.first { $0.0 == name }?.1 }
}

/// A handler: the request and its captured parameters in, a reply (a response now, or one
/// computed on another queue) or a problem out.
public typealias EndpointHandler = @Sendable (HTTPRequest, PathParameters, HTTPRequestContext) throws(Problem) -> HTTPReply

/// An immutable table of routes, built once at start. `HEAD` is served by `GET` routes (the HTTP
/// layer drops the body); a path that exists under another method gets 405 with `Allow`.
public struct EndpointRouter: Sendable {
    /// A class: a request walks the routes of its path's length, and a struct's members (pattern,
    /// segments, handler) were each retained and released at every step.
    final class Route: Sendable {
        enum Segment: Sendable, Equatable {
            case literal([UInt8])
            case parameter(String)
        }
        let method: HTTPMethod
        let pattern: String
        let segments: [Segment]
        let handler: EndpointHandler

        init(method: HTTPMethod, pattern: String, segments: [Segment], handler: @escaping EndpointHandler) {
            self.method = method
            self.pattern = pattern
            self.segments = segments
            self.handler = handler
        }
    }

    /// In the order added.
    private var routes: [Route] = []
    /// The same routes by their number of segments: only those can match a path with that many.
    private var routesBySegmentCount: [[Route]] = []

    public init() {}

    /// Adds `pattern` (e.g. `/v1/screens/{id}`) for `method`, answered at once.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String,
        _ handler: @escaping @Sendable (HTTPRequest, PathParameters, HTTPRequestContext) throws(Problem) -> HTTPResponse
    ) {
        add(method, pattern, replying: { request, parameters, context throws(Problem) in
            .response(try handler(request, parameters, context))
        })
    }

    /// Adds `pattern` for `method` with a handler that may answer later, from another queue.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, replying handler: @escaping EndpointHandler) {
        let segments = pattern.split(separator: "/").map { part -> Route.Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(Array(part.utf8))
        }
        precondition(!routes.contains { $0.method == method && $0.segments == segments }, "route \(method) \(pattern) added twice")
        let route = Route(method: method, pattern: pattern, segments: segments, handler: handler)
        routes.append(route)
        while routesBySegmentCount.count <= segments.count { routesBySegmentCount.append([]) }
        routesBySegmentCount[segments.count].append(route)
    }

    /// Every route as (method, pattern), in the order added; the OpenAPI test compares against it.
    public var table: [(method: HTTPMethod, pattern: String)] { routes.map { ($0.method, $0.pattern) } }

    public enum Match {
        case found(pattern: String, PathParameters, EndpointHandler)
        case methodNotAllowed(pattern: String, allowed: [HTTPMethod])
        case notFound
    }

    /// Finds the route for `method` and `path`. Paths compare segment by segment; empty segments
    /// (`//`, a trailing `/`) never match, so every resource has one spelling.
    public func match(_ method: HTTPMethod, _ path: String) -> Match {
        var path = path
        return path.withUTF8 { match(method, $0) }
    }

    /// On the path's bytes, every route compared without allocating: this runs for every request.
    private func match(_ method: HTTPMethod, _ path: UnsafeBufferPointer<UInt8>) -> Match {
        guard path.first == UInt8(ascii: "/") else { return .notFound }
        // A segment has a byte and its slash: at most half the path's bytes, on the stack.
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: path.count / 2 + 1) { space in
            guard let count = Self.segments(of: path, into: space) else { return .notFound }
            return match(method, path, UnsafeBufferPointer(rebasing: space[..<count]))
        }
    }

    /// The ranges of the path's segments, after its first `/`; nil when one is empty.
    private static func segments(of path: UnsafeBufferPointer<UInt8>, into space: UnsafeMutableBufferPointer<Range<Int>>) -> Int? {
        guard path.count > 1 else { return 0 }
        var count = 0, start = 1
        for i in 1...path.count where i == path.count || path[i] == UInt8(ascii: "/") {
            guard i > start else { return nil }
            space.initializeElement(at: count, to: start..<i)
            count += 1
            start = i + 1
        }
        return count
    }

    private func match(_ method: HTTPMethod, _ path: UnsafeBufferPointer<UInt8>, _ parts: UnsafeBufferPointer<Range<Int>>) -> Match {
        let lookup = method == .head ? HTTPMethod.get : method
        var allowed: [HTTPMethod] = []
        var allowedPattern = ""
        guard parts.count < routesBySegmentCount.count else { return .notFound }
        for route in routesBySegmentCount[parts.count] where Self.literalsMatch(route.segments, parts, path) {
            if route.method == lookup { return .found(pattern: route.pattern, Self.bind(route.segments, parts, path), route.handler) }
            allowed.append(route.method)
            allowedPattern = route.pattern
        }
        guard !allowed.isEmpty else { return .notFound }
        if allowed.contains(.get) { allowed.append(.head) }
        return .methodNotAllowed(pattern: allowedPattern, allowed: allowed)
    }

    private static func literalsMatch(_ segments: [Route.Segment], _ parts: UnsafeBufferPointer<Range<Int>>, _ path: UnsafeBufferPointer<UInt8>) -> Bool {
        for (segment, part) in zip(segments, parts) {
            guard case .literal(let literal) = segment else { continue }
            guard literal.count == part.count else { return false }
            for (i, byte) in literal.enumerated() where path[part.lowerBound + i] != byte { return false }
        }
        return true
    }

    /// The parameters of a route whose literals match the path.
    private static func bind(_ segments: [Route.Segment], _ parts: UnsafeBufferPointer<Range<Int>>, _ path: UnsafeBufferPointer<UInt8>) -> PathParameters {
        var parameters = PathParameters()
        for (segment, part) in zip(segments, parts) {
            if case .parameter(let name) = segment {
                parameters.values.append((name, String(decoding: UnsafeBufferPointer(rebasing: path[part]), as: UTF8.self)))
            }
        }
        return parameters
    }
}
