/// Every limit of the route table and of the URLs it resolves, in one place. Each is checked
/// before the work it bounds is done, and exceeding one is an error that names it.
public enum RouteLimits {
    /// The longest URL ``AppURL`` parses, in UTF-8 bytes: what app-link handlers and browsers
    /// reliably carry. A longer one is refused before anything is built from it.
    public static let maximumURLBytes = 2048
    /// The most path segments in a URL or a pattern.
    public static let maximumSegments = 32
    /// The most query parameters in one URL.
    public static let maximumQueryParameters = 32
    /// The most hops (a guard's `otherwise` or a `redirects` entry) one resolution follows; one
    /// more is ``RouteFailure/tooManyRedirects(_:)``.
    public static let maximumHops = 5
    /// The most routes in one table (`Config/routes.json`); matching scans them all.
    public static let maximumRoutes = 1000
    /// The most choices of one enum type (`a|b|c`); a template check tries each.
    public static let maximumChoices = 64
    /// How many patterns ``RouteFailure/noMatch(url:closest:after:)`` suggests.
    public static let closestPatterns = 3
    /// The largest magnitude of an `int` parameter: 2^53 − 1, the largest integer a JSON number
    /// (a `Double` in ``TrellisJSON/JSONValue``) holds exactly. A larger id would silently become
    /// its neighbour, so it is refused as not an `int`.
    public static let largestInteger: Int64 = 9_007_199_254_740_991
}
