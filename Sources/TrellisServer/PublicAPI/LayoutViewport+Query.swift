import TrellisHTTP
import TrellisJSON
import TrellisRendering
import TrellisRuntime

/// The one place a query becomes a viewport: the layout, the previews and a DrivenUI answer read
/// it here, and a bad parameter is a 400 listing every problem.
extension LayoutViewport {
    /// The viewport a layout or preview query describes: width and height are required.
    static func required(by query: QueryParameters, platform: String?) throws(Problem) -> LayoutViewport {
        do {
            return try parse({ query[$0] }, platform: platform)
        } catch {
            throw Problem(
                .badRequest, "invalid layout parameters: \(error.summary)",
                extensions: [
                    (
                        "errors",
                        .array(error.problems.map { .object([("parameter", .string($0.parameter)), ("message", .string($0.message))]) })
                    )
                ])
        }
    }

    /// The viewport a screen query describes, or nil when it names none of its parameters.
    static func given(by query: QueryParameters, platform: String?) throws(Problem) -> LayoutViewport? {
        guard query.items.contains(where: { isParameter($0.name) }) else { return nil }
        return try required(by: query, platform: platform)
    }
}
