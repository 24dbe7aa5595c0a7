// libFuzzer entry for the route table, built by scripts/fuzz-routes with the sources of TrellisJSON,
// TrellisTargeting and TrellisRoutes compiled as one module (not part of the package). The first
// byte chooses what the rest is:
//   - even: a URL resolved against the shipped Config/routes.json for a user chosen from the input
//     (and checked as a screen's link would be). Invariants: a resolution's URL parses again and
//     matches the route it names; a failure has a description; at most RouteLimits.maximumHops hops.
//   - odd: a whole route table decoded; one that decodes resolves its own sample links without
//     crashing and encodes to JSON that decodes to the same number of routes.

let shippedTable: RouteTable = {
    guard case .success(let table) = RouteTable.decode(Array(shippedRoutesJSON.utf8), source: "routes.json") else {
        fatalError("Config/routes.json does not decode")
    }
    return table
}()

let targeting: TargetingConfiguration = {
    guard case .success(let configuration) = TargetingConfiguration.decode(Array(shippedTargetingJSON.utf8), source: "targeting.json")
    else { fatalError("Config/targeting.json does not decode") }
    return configuration
}()

func resolveEverywhere(_ url: String, in table: RouteTable, user: UInt8) {
    let context = UserContext(userID: user == 0 ? nil : "user-\(user)")
    switch table.resolve(url, context: context, evaluator: Evaluator(targeting)) {
    case .success(let resolution):
        precondition(resolution.redirects.count <= RouteLimits.maximumHops, "more hops than the limit")
        precondition((try? AppURL(parsing: resolution.url)) != nil, "a resolution's URL does not parse: \(resolution.url)")
        _ = JSONWriter.encode(resolution.jsonValue)
    case .failure(let failure):
        precondition(!failure.description.isEmpty, "a failure without a description")
    }
    _ = table.linkProblem(url)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let rest = Array(bytes.dropFirst())
    if bytes[0] % 2 == 0 {
        resolveEverywhere(String(decoding: rest, as: UTF8.self), in: shippedTable, user: bytes[0])
    } else if case .success(let table) = RouteTable.decode(rest, source: "fuzz") {
        for route in table.routes { resolveEverywhere(route.pattern, in: table, user: bytes[0]) }
        let encoded = JSONWriter.encode(table.jsonValue)
        precondition((try? JSONParser.parse(encoded)) != nil, "the table's JSON does not parse")
    }
    return 0
}
