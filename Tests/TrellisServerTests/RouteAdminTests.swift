import Foundation
import Testing
import TrellisRuntime
import TrellisTesting

/// The route table as ops change it, end to end: the real binary, a real SQLite file. A table is
/// published in revisions, audited, rolled back and survives kill -9; a table or a screen that
/// would leave a link leading nowhere is refused with its path and line, and nothing changes.
@Suite(.serialized) struct RouteAdminTests {
    static func screen(linkingTo url: String) -> String {
        """
        {
          "id": "home", "schemaVersion": 2,
          "root": {"type": "VStack", "id": "root", "subviews": [
            {"type": "Button", "id": "go", "properties": {"action": {"type": "navigate", "url": "\(url)"}},
             "values": {"title": "Go"}}
          ]}
        }
        """
    }

    static let table = """
        {"routes": [
          {"pattern": "app://home", "screen": "home"},
          {"pattern": "app://deals/:slug", "native": "deals.deal"}
        ]}
        """

    static func served() throws -> ServedBinary {
        let config = try TemporaryConfig(screens: ["home": screen(linkingTo: "app://deals/autumn")])
        try config.write(routes: table)
        let binary = try ServedBinary(config: config)
        try binary.start()
        return binary
    }

    @Test func publishRollBackAndAuditTheTable() throws {
        let server = try Self.served()
        let first = try server.request("GET", "/admin/routes", token: ServedBinary.readToken)
        #expect(first.status == 200)
        #expect(first.json["revision"]?.number == 1)
        #expect(first.json["source"]?.string == "config")
        #expect(first.json["table"]?["routes"]?.array.count == 2)
        let etag = try #require(first.header("ETag"))
        #expect(try server.request("GET", "/v1/routes/resolve?url=app://sale").status == 404)

        let extended = """
            {"routes": [
              {"pattern": "app://home", "screen": "home"},
              {"pattern": "app://deals/:slug", "native": "deals.deal"},
              {"pattern": "app://sale", "redirects": [{"to": "app://deals/autumn"}]}
            ]}
            """
        #expect(try server.request("PUT", "/admin/routes", headers: ["If-Match": "\"routes-v9\""], body: extended).status == 412)
        let published = try server.request("PUT", "/admin/routes", headers: ["If-Match": etag], body: extended)
        #expect(published.status == 200)
        #expect(published.json["revision"]?.number == 2)
        #expect(published.json["source"]?.string == "runtime")
        let sale = try server.request("GET", "/v1/routes/resolve?url=app://sale")
        #expect(sale.json["native"]?.string == "deals.deal")
        #expect(sale.json["redirects"]?[0]?["because"]?.string == "always")
        #expect(try server.request("GET", "/v1/routes").json["revision"]?.number == 2)

        let revisions = try server.request("GET", "/admin/routes/revisions", token: ServedBinary.readToken)
        #expect(revisions.json["revisions"]?.array.map { $0["origin"]?.string } == ["config", "publish"])
        let old = try server.request("GET", "/admin/routes/revisions/1", token: ServedBinary.readToken)
        #expect(old.status == 200)
        #expect(String(decoding: old.body, as: UTF8.self) == Self.table)
        #expect(try server.request("GET", "/admin/routes/revisions/7", token: ServedBinary.readToken).status == 404)

        // Survives kill -9: acknowledged means durable.
        server.killNine()
        try server.start()
        #expect(try server.request("GET", "/v1/routes/resolve?url=app://sale").json["native"]?.string == "deals.deal")

        let rolledBack = try server.request("POST", "/admin/routes/rollback", body: #"{"revision": 1}"#)
        #expect(rolledBack.status == 200)
        #expect(rolledBack.json["revision"]?.number == 3)
        #expect(try server.request("GET", "/v1/routes/resolve?url=app://sale").status == 404)

        let audit = try server.request("GET", "/admin/audit?resource=routes", token: ServedBinary.readToken)
        #expect(audit.json["entries"]?.array.map { $0["action"]?.string } == ["routes.import", "routes.publish", "routes.rollback"])
    }

    @Test func aTableThatBreaksAScreenLinkIsRefused() throws {
        let server = try Self.served()
        let withoutDeals = "{\"routes\": [\n  {\"pattern\": \"app://home\", \"screen\": \"home\"}\n]}"
        let refused = try server.request("PUT", "/admin/routes", body: withoutDeals)
        #expect(refused.status == 422)
        let error = refused.json["errors"]?[0]
        #expect(error?["source"]?.string?.hasPrefix("screens/home") == true)
        #expect(error?["path"]?.string == "$.root.subviews[0].properties.action.url")
        #expect(error?["line"]?.number == 4)
        #expect(error?["message"]?.string?.contains("app://deals/autumn") == true)

        let typo = "{\"routes\": [\n  {\"pattern\": \"app://home\", \"screen\": \"home\", \"presentaton\": \"push\"}\n]}"
        let invalid = try server.request("PUT", "/admin/routes", body: typo)
        #expect(invalid.status == 422)
        #expect(invalid.json["errors"]?[0]?["line"]?.number == 2)
        let missingScreen = try server.request("PUT", "/admin/routes", body: #"{"routes": [{"pattern": "app://deals/:slug", "screen": "deals"}, {"pattern": "app://home", "screen": "home"}]}"#)
        #expect(missingScreen.status == 422)
        #expect(missingScreen.json["errors"]?[0]?["message"]?.string?.contains("opens screen \"deals\", which does not exist") == true)
        #expect(missingScreen.json["errors"]?[0]?["path"]?.string == "$.routes[0].screen")
        // Nothing changed.
        #expect(try server.request("GET", "/admin/routes", token: ServedBinary.readToken).json["revision"]?.number == 1)
        #expect(try server.request("GET", "/v1/routes/resolve?url=app://deals/x").json["native"]?.string == "deals.deal")
    }

    @Test func anEditedRoutesFileIsTheNextRevisionOnReload() throws {
        let server = try Self.served()
        try server.config.write(routes: """
            {"routes": [
              {"pattern": "app://home", "screen": "home"},
              {"pattern": "app://deals/:slug", "native": "deals.deal", "presentation": "sheet"}
            ]}
            """)
        #expect(try server.reload().contains("reloaded"))
        let head = try server.request("GET", "/admin/routes", token: ServedBinary.readToken)
        #expect(head.json["revision"]?.number == 2)
        #expect(head.json["origin"]?.string == "config")
        #expect(try server.request("GET", "/v1/routes/resolve?url=app://deals/x").json["presentation"]?["style"]?.string == "sheet")

        // A file that breaks a link is refused and the table in force keeps serving.
        try server.config.write(routes: #"{"routes": [{"pattern": "app://home", "screen": "home"}]}"#)
        #expect(try server.reload().contains("reload refused"))
        #expect(server.log?.text.contains("dead link: no route matches") == true)
        #expect(try server.request("GET", "/v1/routes/resolve?url=app://deals/x").status == 200)
    }

    @Test func aScreenWithADeadLinkIsRefused() throws {
        let server = try Self.served()
        let dead = try server.request("PUT", "/admin/screens/home", body: Self.screen(linkingTo: "app://dael/autumn"))
        #expect(dead.status == 422)
        #expect(dead.json["errors"]?[0]?["path"]?.string == "$.root.subviews[0].properties.action.url")
        #expect(dead.json["errors"]?[0]?["line"]?.number == 4)
        #expect(dead.json["errors"]?[0]?["message"]?.string?.contains("dead link") == true)
        let alive = try server.request("PUT", "/admin/screens/home", body: Self.screen(linkingTo: "app://deals/winter"))
        #expect(alive.status == 200)
    }
}
