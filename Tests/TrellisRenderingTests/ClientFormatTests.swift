import Foundation
import Testing
import TrellisJSON
@testable import TrellisScreens
@testable import TrellisRendering
import TrellisTargeting
import TrellisText

/// The sample screens, resolved for a spread of users, as the two third-party clients receive them.
@Suite struct ClientFormatSampleTests {
    static let viewport = LayoutViewport(width: 390, height: 844)
    /// The parameters the samples use (order.json's `order`).
    static let parameters: [String: JSONValue] = ["order": .number(88412)]

    /// Users × platforms × app versions × Gold or not, for a client of `schemaVersion`.
    static func contexts(schemaVersion: Int) -> [UserContext] {
        var contexts: [UserContext] = []
        for user in ["u-1", "u-42", "alice", "bob-7", "carol@example.com", "9f1c2d"] {
            for platform in ["ios", "android"] {
                for version in ["4.0", "5.3"] {
                    for gold in [true, false] {
                        contexts.append(UserContext(
                            userID: user, platform: platform, appVersion: SemanticVersion(version),
                            schemaVersion: schemaVersion, attributes: gold ? ["membership": "gold"] : [:]))
                    }
                }
            }
        }
        return contexts
    }

    /// Every sample screen resolved for every context, with a label for failures.
    static func resolutions(schemaVersion: Int) throws -> [(label: String, screen: ResolvedScreen)] {
        let shipped = try ScreenSet.shipped.get()
        var out: [(String, ResolvedScreen)] = []
        for id in shipped.screens.keys.sorted() {
            for context in contexts(schemaVersion: schemaVersion) {
                // At the client's schema version (`context.schemaVersion`) capped at the screen's.
                let resolved = try shipped.resolve(id, for: context).substituting(parameters)
                let label = "\(id) for \(context.userID!) \(context.platform!) \(context.appVersion!) gold=\(context.attributes["membership"] != nil)"
                out.append((label, resolved))
            }
        }
        return out
    }

    @Test func drivenUIDecodesEverySampleAndNothingMisdraws() throws {
        let fonts = try ShippedFonts.collection()
        let resolutions = try Self.resolutions(schemaVersion: 1)
        #expect(resolutions.count == 4 * 48)
        for (label, resolved) in resolutions {
            let frames = ScreenLayout(viewport: Self.viewport, fonts: fonts).layOut(resolved)
            for (how, body) in [("no frames", DrivenUIFormat.body(resolved)), ("frames", DrivenUIFormat.body(resolved, frames: frames))] {
                let bytes = JSONWriter.encode(body)
                #expect(throws: Never.self, "\(label), \(how)") { try DrivenComponent.decode(bytes) }
                #expect(DrivenMisdrawing.problems(body) == [], "\(label), \(how)")
                // What the user sees is all there: every visible Text and Image, nothing of another type.
                let visible = VisibleComponents(resolved.root)
                #expect(count(body, type: "Text") == visible.count("Text"), "\(label), \(how)")
                #expect(count(body, type: "Image") == visible.count("Image"), "\(label), \(how)")
                #expect(types(body).isSubset(of: DrivenUIFormat.viewTypes), "\(label), \(how)")
            }
        }
    }

    @Test func drivenUIWithFramesHasNoSizeLeftOutThatWasAuthored() throws {
        // home's hero Image is `width: "fill"` with horizontal padding: with frames, its wrapper is
        // the viewport's width and the image that less the padding.
        let (_, resolved) = try #require(try Self.resolutions(schemaVersion: 1).first { $0.label.hasPrefix("home ") })
        let body = DrivenUIFormat.body(resolved, frames: ScreenLayout(viewport: Self.viewport, fonts: try ShippedFonts.collection()).layOut(resolved))
        let widths = nodes(body).compactMap { $0["properties"]?["width"]?.numberValue }
        #expect(widths.contains(390))
        #expect(widths.contains(358))
        let unframed = nodes(DrivenUIFormat.body(resolved)).compactMap { $0["properties"]?["width"]?.numberValue }
        #expect(!unframed.contains(390))
    }

    @Test(arguments: [1, 2, 3])
    func matrioskaBuildsEveryNode(schemaVersion: Int) throws {
        for (label, resolved) in try Self.resolutions(schemaVersion: schemaVersion) {
            let document = MatrioskaFormat.document(resolved)
            let structure = try #require(document["structure"])
            let built = try #require(try MatrioskaFactory.trellisApp.build(document), "\(label)")
            let visible = VisibleComponents(resolved.root).all
            #expect(built.count == nodes(structure, children: "children").count, "\(label): a node was dropped")
            #expect(built.count == visible, "\(label): \(built.count) built, \(visible) shown")
            for node in nodes(structure, children: "children") {
                #expect(Set(node.objectValue!.map(\.key)).isSubset(of: ["type", "meta", "children"]), "\(label): no rule, nothing else")
                let meta = try #require(node["meta"])
                if node["type"]?.stringValue == "stack" {
                    #expect(meta["spacing"]?.numberValue != nil, "\(label): Matrioska would space it 10")
                    #expect(["vertical", "horizontal"].contains(meta["orientation"]?.stringValue ?? ""))
                }
                for member in meta.objectValue! where member.key.hasSuffix("_color") {
                    let text = member.value.stringValue ?? ""
                    #expect(text.hasPrefix("0x") && text.count == 8 && text.dropFirst(2).allSatisfy(\.isHexDigit), "\(label): \(text)")
                }
            }
        }
    }

    @Test func tabBarsReachMatrioskaWithEveryTab() throws {
        let (_, resolved) = try #require(try Self.resolutions(schemaVersion: 2).first { $0.label.hasPrefix("profile ") })
        let document = MatrioskaFormat.document(resolved)
        let tabbar = try #require(nodes(document["structure"]!, children: "children").first { $0["type"]?.stringValue == "tabbar" })
        #expect(tabbar["meta"]?["selected_index"]?.numberValue == 0)
        let tabs = tabbar["children"]?.arrayValue ?? []
        #expect(tabs.compactMap { $0["meta"]?["title"]?.stringValue } == ["Overview", "Orders", "Settings"])
        #expect(tabs.compactMap { $0["meta"]?["icon_name"]?.stringValue } == ["person.crop.circle", "shippingbox", "gearshape"])
        let built = try #require(try MatrioskaFactory.trellisApp.build(document))
        #expect(built.count == nodes(document["structure"]!, children: "children").count)
    }

    @Test func headersAreASCIIWithoutLineBreaks() throws {
        for (label, resolved) in try Self.resolutions(schemaVersion: 1) {
            let headers = DrivenUIFormat.headers(resolved, revision: 7)
            #expect(headers.map(\.name) == ["X-Trellis-Screen", "X-Trellis-Revision", "X-Trellis-Schema-Version", "X-Trellis-Assignments", "X-Trellis-Replaced"])
            for (name, value) in headers {
                #expect(value.utf8.allSatisfy { (0x20..<0x7F).contains($0) }, "\(label): \(name)")
                if name != "X-Trellis-Screen" { #expect(throws: Never.self) { try JSONParser.parse(Array(value.utf8)) } }
            }
            #expect(headers[1].value == "7")
            #expect(headers[0].value == resolved.id)
        }
    }
}

// MARK: Walking answers

/// The components a client shows: not hidden, counted by type.
struct VisibleComponents {
    var byType: [String: Int] = [:]
    var all: Int { byType.values.reduce(0, +) }

    init(_ root: ResolvedComponent?) {
        func visit(_ c: ResolvedComponent) {
            guard ComponentProperties(members: c.properties).bool("hidden") != true else { return }
            byType[c.type, default: 0] += 1
            c.subviews.forEach(visit)
        }
        root.map(visit)
    }

    func count(_ type: String) -> Int { byType[type] ?? 0 }
}

/// Every node of a tree, depth first.
func nodes(_ root: JSONValue, children: String = "subviews") -> [JSONValue] {
    [root] + (root[children]?.arrayValue ?? []).flatMap { nodes($0, children: children) }
}

func count(_ root: JSONValue, type: String) -> Int { nodes(root).filter { $0["type"]?.stringValue == type }.count }
func types(_ root: JSONValue) -> Set<String> { Set(nodes(root).compactMap { $0["type"]?.stringValue }) }
