// Calls every GET operation of docs/openapi.yaml with the client swift-openapi-generator makes from
// it, against the server at TRELLIS_URL (admin calls with TRELLIS_TOKEN); see scripts/check-client.
// TRELLIS_GET_OPERATIONS (the spec's GET operation ids, space-separated) makes a GET this program
// does not call a failure, so a new endpoint cannot go unchecked.
import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

let environment = ProcessInfo.processInfo.environment
guard let serverURL = environment["TRELLIS_URL"].flatMap(URL.init(string:)), let token = environment["TRELLIS_TOKEN"] else {
    print("usage: TRELLIS_URL=http://127.0.0.1:PORT TRELLIS_TOKEN=trl_… TrellisClientCheck")
    exit(2)
}
let log = ExchangeLog()
let dates = TrellisDates()
let client = Client(
    serverURL: serverURL, configuration: Configuration(dateTranscoder: dates), transport: URLSessionTransport(),
    middlewares: [BearerToken(token: token), Recorder(log: log)])
let check = Checker(log: log, dates: dates)

// Who asks, and on what screen: a signed-in iPhone-sized user, and an Android viewport whose width
// is not a whole number of pixels (412 × 2.625 = 1081.5).
let user = "check-client-7"
let (width, height, scale) = (412.0, 915.0, 2.625)
/// Screens that read route parameters (`$param`, `$format`) need them: Config/screens/order.json
/// reads `order`.
func parameters(_ id: String) -> Components.Parameters.ScreenParameters? {
    id == "order" ? .init(additionalProperties: ["param.order": "42"]) : nil
}
let link = "app://product/42"

// MARK: Public

await check.json("getIndex") { (try await client.getIndex().ok.body.json, nil) }
await check.json("getHealth") { (try await client.getHealth().ok.body.json, nil) }
await check.json("getReadiness") { (try await client.getReadiness().ok.body.json, nil) }
await check.raw("getMetrics", contentType: "text/plain") { _ = try await client.getMetrics().ok.body.plainText; return nil }

var screenIDs: [String] = []
await check.json("listScreens") {
    let ok = try await client.listScreens().ok
    let body = try ok.body.json
    screenIDs = body.screens.map(\.id)
    return (body, ok.headers.eTag)
} again: { etag in
    if case .notModified = try await client.listScreens(headers: .init(ifNoneMatch: etag)) { return true }
    return false
}

for id in screenIDs {
    let query = Operations.GetScreen.Input.Query(user: user, platform: "ios", parameters: parameters(id))
    await check.json("getScreen") {
        let ok = try await client.getScreen(path: .init(id: id), query: query).ok
        return (try ok.body.json, ok.headers.eTag)
    } again: { etag in
        if case .notModified = try await client.getScreen(path: .init(id: id), query: query, headers: .init(ifNoneMatch: etag)) {
            return true
        }
        return false
    }
}

for id in screenIDs {
    let query = Operations.GetScreenLayout.Input.Query(
        user: user, platform: "android", parameters: parameters(id), width: width, height: height, scale: scale)
    await check.json("getScreenLayout") {
        let ok = try await client.getScreenLayout(path: .init(id: id), query: query).ok
        return (try ok.body.json, ok.headers.eTag)
    } again: { etag in
        if case .notModified = try await client.getScreenLayout(path: .init(id: id), query: query, headers: .init(ifNoneMatch: etag)) {
            return true
        }
        return false
    }
}

await check.json("listRoutes") {
    let ok = try await client.listRoutes().ok
    return (try ok.body.json, ok.headers.eTag)
} again: { etag in
    if case .notModified = try await client.listRoutes(headers: .init(ifNoneMatch: etag)) { return true }
    return false
}

let resolutions: [Operations.ResolveRoute.Input.Query] = [
    .init(url: link, user: user),
    .init(url: link, include: .screen, user: user),
    .init(url: link, include: .layout, user: user, platform: "android", width: width, height: height, scale: scale),
]
for query in resolutions {
    await check.json("resolveRoute") {
        let ok = try await client.resolveRoute(query: query).ok
        return (try ok.body.json, ok.headers.eTag)
    } again: { etag in
        if case .notModified = try await client.resolveRoute(query: query, headers: .init(ifNoneMatch: etag)) { return true }
        return false
    }
}

// The 303 to the product's preview is followed by URLSession, so the client sees the page.
await check.raw("followPreviewLink", contentType: "text/html", note: ", after the 303 URLSession follows") {
    _ = try await client.followPreviewLink(query: .init(url: link, user: user, width: width, height: height)).ok.body.html
    return nil
}

for id in screenIDs {
    let query = Operations.GetPreview.Input.Query(user: user, parameters: parameters(id), width: width, height: height, scale: scale)
    await check.raw("getPreview", contentType: "text/html") {
        let ok = try await client.getPreview(path: .init(id: id), query: query).ok
        _ = try ok.body.html
        return ok.headers.eTag
    } again: { etag in
        if case .notModified = try await client.getPreview(path: .init(id: id), query: query, headers: .init(ifNoneMatch: etag)) {
            return true
        }
        return false
    }
    let svgQuery = Operations.GetPreviewSVG.Input.Query(user: user, parameters: parameters(id), width: width, height: height, scale: scale)
    await check.raw("getPreviewSVG", contentType: "image/svg+xml") {
        let ok = try await client.getPreviewSVG(path: .init(id: id), query: svgQuery).ok
        _ = try ok.body.imageSvgXml
        return ok.headers.eTag
    } again: { etag in
        if case .notModified = try await client.getPreviewSVG(path: .init(id: id), query: svgQuery, headers: .init(ifNoneMatch: etag)) {
            return true
        }
        return false
    }
}

// A font file the previews name, revalidated as a browser without the fingerprinted URL would.
await check.raw("getFontFile", contentType: "font/ttf") {
    let ok = try await client.getFontFile(path: .init(file: "Roboto-Regular.ttf")).ok
    _ = ok.body
    return ok.headers.eTag
} again: { etag in
    if case .notModified = try await client.getFontFile(path: .init(file: "Roboto-Regular.ttf"), headers: .init(ifNoneMatch: etag)) {
        return true
    }
    return false
}

// The ops console's page and one of its modules, revalidated as a browser does.
await check.raw("getConsole", contentType: "text/html") {
    let ok = try await client.getConsole().ok
    _ = try ok.body.html
    return ok.headers.eTag
} again: { etag in
    if case .notModified = try await client.getConsole(headers: .init(ifNoneMatch: etag)) { return true }
    return false
}
await check.raw("getConsoleFile", contentType: "text/javascript") {
    let ok = try await client.getConsoleFile(path: .init(file: "app.js")).ok
    _ = ok.body
    return ok.headers.eTag
} again: { etag in
    if case .notModified = try await client.getConsoleFile(path: .init(file: "app.js"), headers: .init(ifNoneMatch: etag)) {
        return true
    }
    return false
}

// The icon browsers ask for by themselves: the console's SVG.
await check.raw("getFavicon", contentType: "image/svg+xml") {
    let ok = try await client.getFavicon().ok
    _ = ok.body
    return ok.headers.eTag
} again: { etag in
    if case .notModified = try await client.getFavicon(headers: .init(ifNoneMatch: etag)) { return true }
    return false
}

// MARK: Admin (an admin token: tokens and webhooks need one). Admin GETs take no If-None-Match in the spec: their ETags are for If-Match.

var rolloutKeys: [String] = []
await check.json("listRollouts") {
    let body = try await client.listRollouts().ok.body.json
    rolloutKeys = body.rollouts.map(\.key)
    return (body, nil)
}
for key in rolloutKeys {
    await check.json("getRollout") { (try await client.getRollout(path: .init(key: key)).ok.body.json, nil) }
}

var experimentKeys: [String] = []
await check.json("listExperiments") {
    let body = try await client.listExperiments().ok.body.json
    experimentKeys = body.experiments.map(\.key)
    return (body, nil)
}
for key in experimentKeys {
    await check.json("getExperiment") { (try await client.getExperiment(path: .init(key: key)).ok.body.json, nil) }
}

await check.json("listAdminScreens") { (try await client.listAdminScreens().ok.body.json, nil) }
for id in screenIDs {
    await check.json("getAdminScreen") { (try await client.getAdminScreen(path: .init(id: id)).ok.body.json, nil) }
    var latest = 1
    await check.json("listScreenRevisions") {
        let body = try await client.listScreenRevisions(path: .init(id: id)).ok.body.json
        latest = body.value2.revisions.map(\.revision).max() ?? 1
        return (body, nil)
    }
    await check.json("getScreenRevision") {
        (try await client.getScreenRevision(path: .init(id: id, revision: latest)).ok.body.json, nil)
    }
    await check.json("explain") {
        (try await client.explain(query: .init(screen: id, user: user, platform: "ios")).ok.body.json, nil)
    }
}

await check.json("getAdminRoutes") { (try await client.getAdminRoutes().ok.body.json, nil) }
var routeRevision = 1
await check.json("listRouteRevisions") {
    let body = try await client.listRouteRevisions().ok.body.json
    routeRevision = body.value2.revisions.map(\.revision).max() ?? 1
    return (body, nil)
}
await check.json("getRouteRevision") { (try await client.getRouteRevision(path: .init(revision: routeRevision)).ok.body.json, nil) }
await check.json("listStringTables") { (try await client.listStringTables().ok.body.json, nil) }
await check.json("getStringTable") { (try await client.getStringTable(path: .init(locale: "de")).ok.body.json, nil) }
var stringsRevision = 1
await check.json("listStringTableRevisions") {
    let body = try await client.listStringTableRevisions(path: .init(locale: "de")).ok.body.json
    stringsRevision = body.value2.revisions.map(\.revision).max() ?? 1
    return (body, nil)
}
await check.json("getStringTableRevision") {
    (try await client.getStringTableRevision(path: .init(locale: "de", revision: stringsRevision)).ok.body.json, nil)
}
await check.json("getAudit") { (try await client.getAudit(query: .init(limit: 50)).ok.body.json, nil) }
await check.json("whoAmI") { (try await client.whoAmI().ok.body.json, nil) }
await check.json("listTokens") { (try await client.listTokens().ok.body.json, nil) }
await check.json("listWebhooks") { (try await client.listWebhooks().ok.body.json, nil) }
await check.json("listWebhookDeliveries") {
    (try await client.listWebhookDeliveries(query: .init(failed: false, limit: 10)).ok.body.json, nil)
}

// Experiments: metrics, results, exports, a revision's health, guards.
await check.json("listMetrics") { (try await client.listMetrics().ok.body.json, nil) }
await check.json("getMetric") { (try await client.getMetric(path: .init(name: "purchase-rate")).ok.body.json, nil) }
await check.json("getExperimentResults") {
    (try await client.getExperimentResults(path: .init(key: "home-hero"), query: .init(dimension: .platform)).ok.body.json, nil)
}
await check.raw("exportEvents", contentType: "application/x-ndjson") {
    _ = try await client.exportEvents(query: .init(limit: 100)).ok.body
    return nil
}
await check.raw("exportExposures", contentType: "application/x-ndjson") {
    _ = try await client.exportExposures(path: .init(key: "home-hero"), query: .init(limit: 100)).ok.body
    return nil
}
await check.json("getScreenRevisionHealth") {
    (try await client.getScreenRevisionHealth(path: .init(id: "home", revision: 1)).ok.body.json, nil)
}
await check.json("listGuards") { (try await client.listGuards().ok.body.json, nil) }
await check.json("getRolloutGuard") { (try await client.getRolloutGuard(path: .init(key: "gold-banner")).ok.body.json, nil) }
await check.json("getScreenGuard") { (try await client.getScreenGuard(path: .init(id: "home")).ok.body.json, nil) }

var ruleNames: [String] = []
await check.json("listRules") {
    let body = try await client.listRules().ok.body.json
    ruleNames = body.rules.map(\.name)
    return (body, nil)
}
for name in ruleNames {
    await check.json("getRule") { (try await client.getRule(path: .init(name: name)).ok.body.json, nil) }
}
await check.json("getTargeting") { (try await client.getTargeting().ok.body.json, nil) }
var targetingRevision = 1
await check.json("listTargetingRevisions") {
    let body = try await client.listTargetingRevisions().ok.body.json
    targetingRevision = body.revisions.map(\.revision).max() ?? 1
    return (body, nil)
}
await check.json("getTargetingRevision") {
    (try await client.getTargetingRevision(path: .init(revision: targetingRevision)).ok.body.json, nil)
}
await check.json("getStaleTargeting") { (try await client.getStaleTargeting(query: .init(days: 0)).ok.body.json, nil) }

// scripts/check-client makes one change request before this runs.
var changeIDs: [Int] = []
await check.json("listChanges") {
    let body = try await client.listChanges().ok.body.json
    changeIDs = body.changes.map(\.id)
    return (body, nil)
}
await check.json("listChanges") { (try await client.listChanges(query: .init(status: .approved)).ok.body.json, nil) }
for id in changeIDs {
    await check.json("getChange") { (try await client.getChange(path: .init(id: id)).ok.body.json, nil) }
}

// MARK: Summary

let expected = Set((environment["TRELLIS_GET_OPERATIONS"] ?? "").split(separator: " ").map(String.init))
let missed = expected.subtracting(check.called).sorted()
for operation in missed { print("FAIL  \(operation): a GET of the spec that this check does not call") }
let failed = Set(check.failures).union(missed)
print(
    "check-client: \(check.called.count) GET operations in \(check.calls) calls; "
        + (failed.isEmpty ? "all decode, re-encode to what was sent and revalidate with 304" : "\(failed.count) operation(s) failing: \(failed.sorted().joined(separator: ", "))"))
exit(failed.isEmpty ? 0 : 1)
