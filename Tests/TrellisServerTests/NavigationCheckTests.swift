import Foundation
import Testing
import TrellisJSON
@testable import TrellisRuntime
import TrellisScreens
import TrellisStore
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

    /// A runtime change checks links again only for what it touched: a rollout's percentage
    /// cannot make a link dead; a published screen's own links are checked (a screen's links and
    /// parameters concern it and the table only); a new route table checks every screen. (A
    /// published screen with a dead link is still refused: RouteAdminTests.aScreenWithADeadLinkIsRefused.)
    @Test func aChangeChecksTheLinksOfWhatItTouched() {
        typealias Touched = SnapshotBuilder.Touched
        #expect(SnapshotBuilder.linkCheck(Touched(documents: true)) == .none)
        #expect(SnapshotBuilder.linkCheck(Touched(documents: true, screens: ["product"])) == .screens(["product"]))
        #expect(SnapshotBuilder.linkCheck(Touched(screens: ["product"], routes: true)) == .all)
        let publish = StoreChange(heads: [DocumentHead(key: .screen("product"), current: 2, version: 2, updatedAt: 0, updatedBy: "t")])
        #expect(Touched(publish) == Touched(screens: ["product"]))
        let routes = StoreChange(heads: [DocumentHead(key: .routeTable, current: 2, version: 2, updatedAt: 0, updatedBy: "t")])
        #expect(Touched(routes) == Touched(routes: true))
    }

    /// A screen published with a link the table cannot resolve is refused even when only it changed.
    @Test func aChangedScreenAloneIsCheckedAgainstTheTable() throws {
        let config = try TemporaryConfig(screens: ["product": Self.product("2")])
        try config.write(routes: #"{"routes": [{"pattern": "app://product/:id(int)", "screen": "product"}, \#(Self.reviews)]}"#)
        let snapshot = try loadSnapshot(config)
        let loader = ConfigLoader(directory: config.url)
        guard case .success(let baseline) = loader.loadBaseline() else { Issue.record("baseline"); return }
        let dead = Array(Self.product("2").replacingOccurrences(of: #"{"$format": "app://product/{id}/reviews"}"#, with: #""app://nowhere""#).utf8)
        var runtime = RuntimeState()
        let revision = DocumentRevision(key: .screen("product"), number: 2, document: dead, fingerprint: "x", origin: .publish, createdAt: 0, createdBy: "t")
        runtime.screens["product"] = RevisionedDocument(
            head: DocumentHead(key: .screen("product"), current: 2, version: 2, updatedAt: 0, updatedBy: "t"), current: revision, staged: nil,
            latestRevision: 2, latestConfigFingerprint: nil)
        let built = SnapshotBuilder(loader: loader).apply(
            SnapshotBuilder.Touched(screens: ["product"]), baseline: baseline, runtime: runtime, over: snapshot)
        guard case .failure(let error) = built else { Issue.record("a dead link was published"); return }
        #expect(error.description.contains("screens/product revision 2"))
        #expect(error.description.contains("dead link"))
    }
}

/// `templates/*.json` in a configuration directory: loaded, checked, and expanded into screens,
/// which get a new revision when a template they use changes.
@Suite struct TemplateLoadingTests {
    static let template = """
        {"id": "greeting", "parameters": {"name": {"type": "string"}},
         "root": {"type": "Text", "id": "hello", "values": {"text": {"$format": "Hello, {name}"}}}}
        """

    func config(template: String) throws -> TemporaryConfig {
        let config = try TemporaryConfig(screens: [
            "home": #"{"id": "home", "schemaVersion": 2, "root": {"type": "Template", "template": "greeting", "args": {"name": "Ada"}}}"#
        ])
        try FileManager.default.createDirectory(at: config.url.appendingPathComponent("templates"), withIntermediateDirectories: true)
        try Data(template.utf8).write(to: config.url.appendingPathComponent("templates/greeting.json"))
        return config
    }

    @Test func screensAreExpandedAndRevisedWhenTheirTemplateChanges() throws {
        let config = try self.config(template: Self.template)
        let first = try loadSnapshot(config)
        let home = try #require(first.screens["home"])
        #expect(JSONWriter.string(try first.screen(of: home).jsonValue(revision: 1)).contains("Hello, Ada"))
        try Data(Self.template.replacingOccurrences(of: "Hello", with: "Welcome").utf8)
            .write(to: config.url.appendingPathComponent("templates/greeting.json"))
        let second = try loadSnapshot(config, previous: first)
        #expect(second.screens["home"]?.revision == 2)
        #expect(JSONWriter.string(try second.screen(of: #require(second.screens["home"])).jsonValue(revision: 2)).contains("Welcome, Ada"))
        // The first revision decodes again with the templates it was checked with.
        #expect(JSONWriter.string(try first.screen(of: home).jsonValue(revision: 1)).contains("Hello, Ada"))
    }

    @Test func aBadTemplateRefusesTheLoadNamingItsFile() throws {
        let config = try self.config(template: #"{"id": "greeting", "root": {"type": "Text", "values": {"text": {"$param": "name"}}}}"#)
        let error = try #require(ConfigLoader(directory: config.url).load(previous: nil).failure)
        // The template's own mistake, then what it leaves the screen that uses it.
        #expect(error.errors.map(\.source) == ["templates/greeting.json", "screens/home.json"])
        #expect(error.errors.first?.diagnostics.first?.message.hasPrefix("\"name\" is not a parameter of this template") == true)
    }
}
