import Foundation
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTesting
@testable import TrellisServer

/// A Pins screen published through the control plane on a real socket (the pins themselves are
/// laid out in TrellisRenderingTests' PinsLayoutTests).
@Suite struct PinsPublishTests {
    static let viewport = "width=200&height=400&scale=1"

    /// The issue's card, as PinsLayoutTests builds it.
    static let card = #"{"type": "Pins", "id": "card", "properties": {}, "pins": ["H:|-16-[title]-(>=8)-[badge]-16-|", "H:|-16-[body]-16-|", "V:|-(20)-[title]-8-[body]-(>=20)-|", "V:[badge(24)]", "H:[badge(==badge.height)]"], "align": {"badge": "centerY:title"}, "subviews": [{"type": "Text", "id": "title", "values": {"text": "Hello"}}, {"type": "Text", "id": "body", "values": {"text": "A body text long enough to wrap onto a second line at this width"}}, {"type": "Circle", "id": "badge"}]}"#

    /// A publish is checked like a file: a pin naming no subview is refused with the string's
    /// path, line and column, and nothing changes; a good one is served at once.
    @Test func aPublishIsCheckedWithTheColumnOfTheMistake() throws {
        let config = try TemporaryConfig.withFonts(roots: ["s": Self.card], schemaVersion: 3)
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        func put(_ root: String) throws -> WireResponse {
            let body = #"{"id": "s", "schemaVersion": 3,\#n"root": \#(root)}"#
            let client = try TestClient(port: application.port)
            client.send("PUT /admin/screens/s HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(ControlPlaneLiveTests.token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return try #require(client.readResponse())
        }
        let typo = try put(Self.card.replacingOccurrences(of: "H:|-16-[body]-16-|", with: "H:|-16-[bdy]-16-|"))
        #expect(typo.status == 422)
        #expect(typo.text.contains(#""path": "$.root.pins[1]""#), "\(typo.text)")
        #expect(typo.text.contains(#"col 9: unknown view \"bdy\"; did you mean \"body\"?"#), "\(typo.text)")
        #expect(typo.text.contains(#""line": 2,"#), "\(typo.text)")
        let moved = try put(Self.card.replacingOccurrences(of: "H:|-16-[body]-16-|", with: "H:|-32-[body]-16-|"))
        #expect(moved.status == 200, "\(moved.text)")
        let client = try TestClient(port: application.port)
        client.send("GET /v1/screens/s/layout?\(Self.viewport) HTTP/1.1\r\nHost: t\r\n\r\n")
        let laidOut = try #require(client.readResponse())
        #expect(laidOut.text.contains(#""layoutId":"body","frame":{"x":32,"#), "\(laidOut.text.prefix(600))")
    }
}
