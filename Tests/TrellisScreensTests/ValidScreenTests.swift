import Testing
import TrellisJSON
import TrellisScreens
import TrellisTargeting

/// The forms docs/screens.md says are accepted.
@Suite struct ValidScreenTests {
    func decodes(_ root: String, schemaVersion: Int = 2, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Screen? {
        switch decodeScreen(document(root: root, schemaVersion: schemaVersion)) {
        case .success(let screen): return screen
        case .failure(let error):
            Issue.record("\(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test func minimalScreen() throws {
        let screen = try #require(decodes("{\"type\": \"Spacer\"}", schemaVersion: 1))
        #expect(screen.id == "test" && screen.schemaVersion == 1 && screen.title == nil && screen.metadata.isEmpty)
        guard case .component(let c) = screen.root else { Issue.record("not a component"); return }
        #expect(c.type == "Spacer" && c.id == nil && c.properties.isEmpty && c.values.isEmpty && c.subviews.isEmpty)
    }

    @Test func titleAndMetadataArePassedThrough() throws {
        let text = """
            {"id": "t", "schemaVersion": 2, "title": "T", "metadata": {"owner": "me", "n": [1, {"x": null}]},
             "root": {"type": "Spacer", "metadata": {"k": true}}}
            """
        let screen = try decodeScreen(text).get()
        #expect(screen.title == "T")
        #expect(JSONValue(.object(screen.metadata)) == (try JSONParser.parse("{\"owner\": \"me\", \"n\": [1, {\"x\": null}]}")))
        guard case .component(let c) = screen.root else { Issue.record("not a component"); return }
        #expect(c.metadata.map(\.key) == ["k"])
    }

    @Test(arguments: ["#abc", "#ABC", "#a1B2c3", "#A1B2C3FF", "#00000000"])
    func coloursInEveryForm(colour: String) {
        _ = decodes("{\"type\": \"Circle\", \"properties\": {\"backgroundColor\": \"\(colour)\"}}")
    }

    @Test(arguments: ["0", "120", "0.5", "\"50%\"", "\"0%\"", "\"100%\"", "\"33.3%\"", "\"fill\"", "\"auto\""])
    func dimensionsInEveryForm(dimension: String) {
        _ = decodes("{\"type\": \"Rectangle\", \"properties\": {\"width\": \(dimension), \"maxHeight\": \(dimension)}}")
    }

    @Test(arguments: [
        "16", "0", "{}", "{\"top\": 1, \"bottom\": 2, \"leading\": 3, \"trailing\": 4}", "{\"horizontal\": 16, \"vertical\": 8}",
    ])
    func insetsInEveryForm(insets: String) {
        _ = decodes("{\"type\": \"Spacer\", \"properties\": {\"padding\": \(insets)}}")
    }

    @Test(arguments: [
        "{\"type\": \"navigate\", \"url\": \"app://product/42\"}",
        "{\"type\": \"navigate\", \"url\": \"https://www.example.com/x\", \"presentation\": \"push\"}",
        "{\"type\": \"navigate\", \"url\": \"app://a\", \"presentation\": \"modal\"}",
        "{\"type\": \"navigate\", \"url\": \"app://a\", \"presentation\": \"sheet\"}",
        "{\"type\": \"navigate\", \"url\": \"app://a\", \"presentation\": \"replace\"}",
        "{\"type\": \"openURL\", \"url\": \"https://www.example.com/privacy\"}",
        "{\"type\": \"dismiss\"}",
        "{\"type\": \"track\", \"event\": \"tapped\"}",
        "{\"type\": \"track\", \"event\": \"tapped\", \"properties\": {\"source\": \"home\", \"n\": 1}}",
    ])
    func everyActionKind(action: String) {
        _ = decodes("{\"type\": \"Spacer\", \"properties\": {\"action\": \(action)}}")
    }

    /// Numeric ranges are inclusive at both ends.
    @Test(arguments: [
        ("Circle", "opacity", "0"), ("Circle", "opacity", "1"), ("Divider", "thickness", "0.1"), ("Divider", "thickness", "100"),
        ("Image", "aspectRatio", "0.01"), ("Image", "aspectRatio", "100"), ("TabBar", "selectedIndex", "0"),
        ("TabBar", "selectedIndex", "20"), ("Carousel", "autoScrollSeconds", "600"), ("Spacer", "minLength", "1000000"),
    ])
    func rangesIncludeTheirBounds(type: String, property: String, value: String) {
        let values = type == "Image" ? ", \"values\": {\"localImageName\": \"logo\"}" : ""
        _ = decodes("{\"type\": \"\(type)\", \"properties\": {\"\(property)\": \(value)}\(values)}")
    }

    @Test func textPropertiesAtTheirBounds() {
        _ = decodes(
            "{\"type\": \"Text\", \"properties\": {\"fontSize\": 512, \"lineLimit\": 1000, \"lineHeight\": 0.5, \"alignment\": \"trailing\"}, \"values\": {\"text\": \"\"}}")
        _ = decodes("{\"type\": \"Text\", \"properties\": {\"fontSize\": 1, \"lineLimit\": 1, \"lineHeight\": 4}, \"values\": {\"text\": \"a\"}}")
    }

    @Test(arguments: ["imageUrl\": \"http://cdn.example.com/a.png", "systemIconName\": \"star.fill", "localImageName\": \"logo"])
    func imageWithOneSource(source: String) {
        _ = decodes("{\"type\": \"Image\", \"values\": {\"\(source)\"}}")
    }

    @Test func idsUseTheDocumentedCharacters() throws {
        let long = String(repeating: "a", count: 64)
        _ = decodes("{\"type\": \"VStack\", \"id\": \"\(long)\", \"subviews\": [{\"type\": \"Spacer\", \"id\": \"A-z_0.9\"}]}")
        // The screen id and node ids are separate: a node may reuse the screen's id.
        _ = decodes("{\"type\": \"Spacer\", \"id\": \"test\"}")
    }

    @Test func nullVariantsShowNothing() throws {
        let screen = try #require(
            decodes("{\"type\": \"Experiment\", \"id\": \"x\", \"experiment\": \"e\", \"variants\": {\"on\": {\"type\": \"Spacer\"}, \"off\": null}}"))
        guard case .experiment(let id, let key, let variants) = screen.root else { Issue.record("not an experiment"); return }
        #expect(id == "x" && key == "e")
        #expect(variants.map(\.name) == ["on", "off"])
        #expect(variants[0].node != nil && variants[1].node == nil)
    }

    @Test func ruleWithAndWithoutElse() throws {
        let screen = try #require(
            decodes("""
                {"type": "VStack", "subviews": [
                  {"type": "Rule", "id": "r1", "rule": {"rule": "a"}, "child": {"type": "Spacer"}},
                  {"type": "Rule", "rule": {"not": {"rollout": "b"}}, "child": {"type": "Spacer"}, "else": {"type": "Divider"}}
                ]}
                """))
        guard case .component(let stack) = screen.root, stack.subviews.count == 2,
            case .rule(let id1, let rule1, _, let else1) = stack.subviews[0],
            case .rule(let id2, let rule2, _, let else2) = stack.subviews[1]
        else { Issue.record("unexpected shape"); return }
        #expect(id1 == "r1" && rule1 == .named("a") && else1 == nil)
        #expect(id2 == nil && rule2 == .not(.rollout("b")) && else2 != nil)
    }

    /// TabBar looks through rules and experiments: a Tab behind a rule is still a Tab.
    @Test func tabBarAcceptsTabsBehindRulesAndExperiments() {
        let tab = "{\"type\": \"Tab\", \"values\": {\"title\": \"A\", \"icon\": \"star\"}, \"subviews\": [{\"type\": \"Spacer\"}]}"
        _ = decodes("""
            {"type": "TabBar", "properties": {"selectedIndex": 1, "tintColor": "#2563EB"}, "subviews": [
              \(tab),
              {"type": "Rule", "rule": {"rollout": "rewards-tab"}, "child": \(tab)},
              {"type": "Experiment", "experiment": "e", "variants": {"a": \(tab), "b": null}}
            ]}
            """)
    }

    /// A Tab may appear outside a TabBar; only TabBar restricts its children.
    @Test func tabOutsideTabBar() {
        _ = decodes("{\"type\": \"VStack\", \"subviews\": [{\"type\": \"Tab\", \"values\": {\"title\": \"A\"}, \"subviews\": [{\"type\": \"Spacer\"}]}]}")
    }

    @Test(arguments: [
        ("Carousel", "{\"type\": \"HStack\"}"), ("Carousel", "{\"type\": \"Image\", \"values\": {\"systemIconName\": \"photo\"}}"),
        ("ScrollView", "{\"type\": \"VStack\"}"), ("Navigation", "{\"type\": \"Spacer\"}"),
        ("Carousel", "{\"type\": \"Rule\", \"rule\": {\"rule\": \"r\"}, \"child\": {\"type\": \"HStack\"}, \"else\": {\"type\": \"VStack\"}}"),
    ])
    func olderFallbacks(type: String, fallback: String) {
        let extra = type == "Navigation" ? ", \"values\": {\"title\": \"T\"}, \"subviews\": [{\"type\": \"Spacer\"}]" : ""
        _ = decodes("{\"type\": \"\(type)\"\(extra), \"fallback\": \(fallback)}")
    }

    /// Only the fallback's own type must be older; its subviews are resolved on their own.
    @Test func fallbackSubviewsMayBeNewer() {
        _ = decodes(
            "{\"type\": \"Carousel\", \"fallback\": {\"type\": \"HStack\", \"subviews\": [{\"type\": \"Button\", \"values\": {\"title\": \"Go\"}}]}}")
    }

    @Test func integersMayBeWrittenWithAFraction() {
        _ = decodes("{\"type\": \"Text\", \"properties\": {\"lineLimit\": 2.0}, \"values\": {\"text\": \"a\"}}")
    }

    @Test func navigationTitleMayBeEmptyAndSelectedIndexIsNotCheckedAgainstTabs() {
        _ = decodes("{\"type\": \"Navigation\", \"values\": {\"title\": \"\"}, \"subviews\": [{\"type\": \"Spacer\"}]}")
        _ = decodes(
            "{\"type\": \"TabBar\", \"properties\": {\"selectedIndex\": 5}, \"subviews\": [{\"type\": \"Tab\", \"values\": {\"title\": \"A\"}, \"subviews\": [{\"type\": \"Spacer\"}]}]}")
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(document(root: "{\"type\": \"Spacer\"}").utf8)
        #expect((try? ScreenDecoder().decode(bytes, source: "bom").get()) != nil)
    }

    @Test func emptySubviewsAreAllowedOnContainers() {
        for type in ["HStack", "VStack", "ZStack", "List", "ScrollView", "Carousel", "TabBar"] {
            _ = decodes("{\"type\": \"\(type)\", \"subviews\": []}")
        }
    }

    @Test func schemaVersion1AcceptsEveryVersion1Type() {
        _ = decodes(
            """
            {"type": "VStack", "subviews": [
              {"type": "HStack", "subviews": [{"type": "Circle"}, {"type": "Rectangle"}]},
              {"type": "ZStack", "subviews": [{"type": "Text", "values": {"text": "a"}}]},
              {"type": "List", "subviews": [{"type": "Image", "values": {"systemIconName": "star"}}]},
              {"type": "Spacer"}, {"type": "Divider"}
            ]}
            """, schemaVersion: 1)
    }
}

/// The vocabulary as docs/screens.md tables it.
@Suite struct RegistryTests {
    let registry = ComponentRegistry.standard

    @Test func versions() {
        // Version 3 added action kinds and the Pins container.
        #expect(ComponentRegistry.latestSchemaVersion == 3)
        let byVersion = Dictionary(grouping: registry.types.values, by: \.introduced).mapValues { Set($0.map(\.name)) }
        #expect(byVersion[1] == ["Text", "Image", "HStack", "VStack", "ZStack", "List", "Rectangle", "Circle", "Spacer", "Divider"])
        #expect(byVersion[2] == ["Button", "ScrollView", "TabBar", "Tab", "Navigation", "Carousel"])
        #expect(byVersion[3] == ["Pins"])
        #expect(byVersion.count == 3)
    }

    @Test func children() {
        let many = Set(registry.types.values.filter { $0.children == .many }.map(\.name))
        let one = Set(registry.types.values.filter { $0.children == .one }.map(\.name))
        #expect(many == ["HStack", "VStack", "ZStack", "List", "ScrollView", "TabBar", "Carousel", "Pins"])
        #expect(one == ["Tab", "Navigation"])
        #expect(registry.types.values.filter { $0.allowedChildren != nil }.map(\.name) == ["TabBar"])
        #expect(registry["TabBar"]?.allowedChildren == [.tab])
    }

    @Test func defaultFallbacks() {
        let fallbacks = Dictionary(uniqueKeysWithValues: registry.types.values.compactMap { t in t.defaultFallback.map { (t.name, $0.name) } })
        #expect(
            fallbacks == [
                "ScrollView": "VStack", "Carousel": "HStack", "TabBar": "VStack", "Tab": "VStack", "Navigation": "VStack",
                "Pins": "VStack",
            ])
        for (type, fallback) in fallbacks {
            #expect(registry[fallback]!.introduced < registry[type]!.introduced)
        }
    }

    @Test func commonPropertiesOnEveryType() {
        let common = [
            "padding", "backgroundColor", "foregroundColor", "cornerRadius", "borderWidth", "borderColor", "opacity", "width",
            "height", "minWidth", "maxWidth", "minHeight", "maxHeight", "flexGrow", "accessibilityLabel", "hidden", "action",
            "ignoresSafeArea",
        ]
        for type in registry.types.values {
            for name in common { #expect(type.properties[name] != nil, "\(type.name).\(name)") }
            #expect(type.properties["action"]?.introduced == 2)
        }
    }

    /// Every property and value docs/screens.md names for each type, beyond the common ones.
    @Test func ownPropertiesAndValues() {
        let common: Set<String> = [
            "padding", "backgroundColor", "foregroundColor", "cornerRadius", "borderWidth", "borderColor", "opacity", "width",
            "height", "minWidth", "maxWidth", "minHeight", "maxHeight", "flexGrow", "accessibilityLabel", "hidden", "action",
            "ignoresSafeArea",
        ]
        let expected: [String: (properties: Set<String>, values: Set<String>, required: Set<String>)] = [
            "Text": (["font", "fontSize", "weight", "alignment", "lineLimit", "lineHeight"], ["text"], ["text"]),
            "Image": (["contentMode", "aspectRatio", "decorative"], ["imageUrl", "systemIconName", "localImageName"], []),
            "HStack": (["spacing", "verticalAlignment"], [], []),
            "VStack": (["spacing", "horizontalAlignment"], [], []),
            "ZStack": (["alignment"], [], []),
            "List": (["spacing", "separators", "style"], [], []),
            "Rectangle": ([], [], []), "Circle": ([], [], []),
            "Spacer": (["minLength"], [], []),
            "Divider": (["thickness"], [], []),
            "Button": (["style"], ["title"], ["title"]),
            "ScrollView": (["axis", "spacing"], [], []),
            "TabBar": (["selectedIndex", "tintColor"], [], []),
            "Tab": ([], ["title", "icon"], ["title"]),
            "Navigation": (["titleDisplayMode"], ["title"], ["title"]),
            "Carousel": (["spacing", "itemWidth", "pageIndicator", "autoScrollSeconds"], [], []),
            "Pins": ([], [], []),
        ]
        #expect(Set(expected.keys) == Set(registry.types.keys))
        for (name, spec) in expected {
            guard let type = registry[name] else { continue }
            #expect(Set(type.properties.keys).subtracting(common) == spec.properties, "\(name)")
            #expect(Set(type.values.keys) == spec.values, "\(name)")
            #expect(Set(type.values.filter(\.value.required).keys) == spec.required, "\(name)")
            #expect(type.properties.values.allSatisfy { !$0.required }, "\(name)")
            let newer = name == "Image" ? ["action", "decorative", "ignoresSafeArea"] : ["action", "ignoresSafeArea"]
            #expect(type.properties.filter { $0.value.introduced > 1 }.keys.sorted() == newer, "\(name)")
            #expect(type.values.values.allSatisfy { $0.introduced == 1 }, "\(name)")
        }
        #expect(registry["Image"]?.oneValueOf == ["imageUrl", "systemIconName", "localImageName"])
        #expect(registry.types.values.filter { !$0.oneValueOf.isEmpty }.count == 1)
    }
}
