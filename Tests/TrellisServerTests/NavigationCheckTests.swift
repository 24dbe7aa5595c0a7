import Foundation
import Testing
import TrellisJSON
@testable import TrellisServer

/// Screens and the route table are checked against each other wherever a snapshot is built:
/// screens a route opens exist, links lead somewhere, and parameters a screen needs are given.
@Suite struct NavigationCheckTests {
    static func product(_ value: String) -> String {
        """
        {"id": "product", "schemaVersion": 3,
         "root": {"type": "VStack", "id": "root", "subviews": [
           {"type": "Text", "id": "title", "values": {"text": {"$format": "Product {id}"}}},
           {"type": "Text", "id": "stars", "properties": {"lineLimit": \(value)}, "values": {"text": "★"}},
           {"type": "Button", "id": "reviews", "values": {"title": "Reviews"},
            "properties": {"action": {"type": "navigate", "url": {"$format": "app://product/{id}/reviews"}}}}
         ]}}
        """
    }

    func errors(screen: String, routes: String) throws -> [String] {
        let config = try TemporaryConfig(screens: ["product": screen])
        try config.write(routes: routes)
        switch ConfigLoader(directory: config.url).load(previous: nil) {
        case .success: return []
        case .failure(let error): return error.errors.flatMap { e in e.diagnostics.map { "\(e.source): \($0)" } }
        }
    }

    static let reviews = #"{"pattern": "app://product/:id(int)/reviews", "native": "product.reviews"}"#

    @Test func everyRouteThatOpensAScreenGivesItsParameters() throws {
        let fine = #"{"routes": [{"pattern": "app://product/:id(int)", "screen": "product"}, \#(Self.reviews)]}"#
        #expect(try errors(screen: Self.product("2"), routes: fine) == [])

        let without = #"{"routes": [{"pattern": "app://product/:id(int)", "screen": "product"}, {"pattern": "app://featured", "screen": "product"}, \#(Self.reviews)]}"#
        let missing = try errors(screen: Self.product("2"), routes: without)
        #expect(missing.count == 2)  // the title and the link's template both need it
        #expect(missing.first?.hasPrefix("screens/product.json: $.root.subviews[0].values.text (line 3): parameter \"id\" is not always given by route app://featured") == true)

        let optional = #"{"routes": [{"pattern": "app://p", "screen": "product", "query": {"id": "int?"}}, \#(Self.reviews)]}"#
        #expect(try errors(screen: Self.product("2"), routes: optional).count == 2)
    }

    @Test func aParameterMustHaveTheTypeTheValueNeeds() throws {
        let routes = #"{"routes": [{"pattern": "app://product/:id", "screen": "product"}, \#(Self.reviews)]}"#
        let screen = Self.product(#"{"$param": "id"}"#)
        let problems = try errors(screen: screen, routes: routes)
        #expect(problems.contains { $0.contains("$.root.subviews[1].properties.lineLimit") && $0.contains("must be an integer, but route app://product/:id declares it string") })
        let typed = #"{"routes": [{"pattern": "app://product/:id(int)", "screen": "product"}, \#(Self.reviews)]}"#
        #expect(try errors(screen: screen, routes: typed) == [])
    }

    @Test func aLinkTemplateIsCheckedWithValuesOfItsParametersTypes() throws {
        let noReviews = #"{"routes": [{"pattern": "app://product/:id(int)", "screen": "product"}]}"#
        let problems = try errors(screen: Self.product("2"), routes: noReviews)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("screens/product.json: $.root.subviews[2].properties.action.url (line 6): dead link: ") == true)
        #expect(problems.first?.contains("app://product/1/reviews") == true)
    }

    @Test func aRouteMayOnlyOpenScreensThatExist() throws {
        let routes = #"{"routes": [{"pattern": "app://product/:id(int)", "screen": "product"}, {"pattern": "app://cart", "screen": "cart"}, \#(Self.reviews)]}"#
        let problems = try errors(screen: Self.product("2"), routes: routes)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("routes.json: $.routes[1].screen (line 1): route app://cart opens screen \"cart\", which does not exist") == true)
    }
}
