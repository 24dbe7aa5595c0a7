// The rendering module's own tests: a resolved screen made into frames, pictures and client
// formats, with no HTTP server in between.
//
// The harness below does what the server does for `GET /v1/screens/{id}/layout` and `/preview/{id}`
// (decode, resolve for the query's user, read the query's viewport, plan, lay out, write or draw),
// from the repository's shipped fonts, screens, templates and targeting.

import Foundation
import TrellisJSON
@testable import TrellisRendering
import TrellisScreens
import TrellisStrings
import TrellisStringsJSON
import TrellisTargeting
import TrellisText

/// The repository's Config/ directory, found from this file.
enum ShippedConfig {
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config")

    /// The `.json` files of a folder of Config/, sorted as the configuration loader reads them.
    static func jsonFiles(in folder: String) throws -> [(id: String, source: String, bytes: [UInt8])] {
        let directory = url.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
            .map { name in
                (String(name.dropLast(".json".count)), "\(folder)/\(name)", [UInt8](try Data(contentsOf: directory.appendingPathComponent(name))))
            }
    }
}

/// The shipped font metrics packs (Config/fonts/*.trfm) as the server loads them, and the font
/// files they were built from that are beside them, for the previews' `@font-face` rules.
struct ShippedFonts: Sendable {
    let collection: FontCollection
    let webFonts: WebFonts

    static let loaded = Result { try ShippedFonts() }

    /// The packs alone (what a test measures with); fails the test when they do not load.
    static func collection() throws -> FontCollection { try loaded.get().collection }

    private init() throws {
        let directory = ShippedConfig.url.appendingPathComponent("fonts")
        var collection = FontCollection(fallbackFamilies: FontCollection.shippedFallbackFamilies)
        var faces: [FontFace] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        where name.hasSuffix("." + MetricsPack.fileExtension) && !name.hasPrefix(".") {
            faces.append(try collection.addPack([UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))))
        }
        var files: [String: [UInt8]] = [:]
        for face in faces where WebFonts.contentType(of: face.sourceFile) != nil {
            let file = directory.appendingPathComponent(face.sourceFile)
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            let bytes = [UInt8](try Data(contentsOf: file))
            guard crc32(bytes) == face.sourceChecksum else { throw HarnessError(description: "fonts/\(face.sourceFile) is not its pack's source") }
            files[face.sourceFile] = bytes
        }
        self.collection = collection
        webFonts = WebFonts(faces: faces, files: files)
    }
}

struct HarnessError: Error, CustomStringConvertible { var description: String }

/// Screens decoded and resolved as the server does, without it: each user gets the outcomes of
/// the targeting for their context.
struct ScreenSet {
    let screens: [String: Screen]
    let evaluator: Evaluator
    /// The string tables the screens' `$string`s are written from (Config/strings for the shipped ones).
    var strings = StringCatalog(defaultLocale: "en", tables: [:])
    let resolver = ScreenResolver()

    /// Config/screens, expanded with Config/templates and targeted by Config/targeting.json.
    static let shipped = Result { try ScreenSet() }

    private init() throws {
        var templates: [Template] = []
        for file in try ShippedConfig.jsonFiles(in: "templates") {
            templates.append(try TemplateLibrary.decode(file.bytes, source: file.source, expectedID: file.id).get())
        }
        let library = TemplateLibrary(templates)
        var screens: [String: Screen] = [:]
        for file in try ShippedConfig.jsonFiles(in: "screens") {
            screens[file.id] = try ScreenDecoder().decode(file.bytes, source: file.source, expectedID: file.id, templates: library).get()
        }
        let targeting = try Data(contentsOf: ShippedConfig.url.appendingPathComponent("targeting.json"))
        var tables: [String: [String: Message]] = [:]
        for file in try ShippedConfig.jsonFiles(in: "strings") {
            tables[file.id] = try StringTableFile.decode(file.bytes, source: file.source).get()
        }
        strings = StringCatalog(defaultLocale: "en", tables: tables)
        self.screens = screens
        evaluator = Evaluator(try TargetingConfiguration.decode([UInt8](targeting), source: "targeting.json").get())
    }

    /// These screens, resolved with this targeting.
    init(screens: [String: Screen], evaluator: Evaluator) {
        self.screens = screens
        self.evaluator = evaluator
    }

    /// One screen per entry, each `root` given as JSON text, with no targeting.
    init(roots: [String: String], schemaVersion: Int = 2) throws {
        var screens: [String: Screen] = [:]
        for (id, root) in roots {
            let text = #"{"id": "\#(id)", "schemaVersion": \#(schemaVersion), "root": \#(root)}"#
            screens[id] = try ScreenDecoder().decode(Array(text.utf8), source: "screens/\(id).json", expectedID: id).get()
        }
        self.screens = screens
        evaluator = Evaluator(.empty)
    }

    /// Screen `id` resolved for the user of `context`, at the client's schema version capped at the
    /// screen's (the screen as written when the client gives none), its strings written in the
    /// context's locale (its parameters, if it has any, are left as they are).
    func resolve(_ id: String, for context: UserContext) throws -> ResolvedScreen {
        guard let screen = screens[id] else { throw HarnessError(description: "no screen \"\(id)\"") }
        let decisions = resolver.decisions(of: screen)
        let outcomes = resolver.outcomes(of: decisions, for: context, evaluator: evaluator)
        let resolved = resolver.resolve(
            screen, decisions: decisions, outcomes: outcomes,
            clientSchemaVersion: min(context.schemaVersion ?? screen.schemaVersion, screen.schemaVersion))
        guard screen.usesStrings else { return resolved }
        return try resolved.substituting([:], strings: strings.resolve(context.locale))
    }
}

/// A layout or preview query (`user=u1&width=390&height=844&direction=rtl…`) read as the server
/// reads one: the user context's parameters and the viewport's, and nothing else.
struct ViewQuery {
    let context: UserContext
    let viewport: LayoutViewport
    /// `check=1` (previews only).
    let check: Bool
    /// What a preview's links carry on: the query without `check`.
    let linkQuery: String

    init(_ query: String) throws {
        let pairs = query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in part.removingPercentEncoding ?? String(part) }
            return (raw: String(pair), name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : "")
        }
        for pair in pairs where !UserContext.isParameter(pair.name) && !LayoutViewport.parameterNames.contains(pair.name) && pair.name != "check" {
            throw HarnessError(description: "unknown query parameter \"\(pair.name)\"")
        }
        context = try UserContext.parse(pairs.filter { UserContext.isParameter($0.name) }.map { ($0.name, $0.value) })
        viewport = try LayoutViewport.parse({ name in pairs.last { $0.name == name }?.value }, platform: context.platform)
        check = pairs.contains { $0.name == "check" && ["", "1", "true"].contains($0.value) }
        linkQuery = pairs.filter { $0.name != "check" }.map(\.raw).joined(separator: "&")
    }
}

/// Screens laid out and drawn as the layout and preview endpoints lay them out and draw them.
struct Renderer {
    /// The revision a screen loaded once has.
    static let revision = 1

    let screens: ScreenSet
    let fonts: FontCollection
    /// Served font files; none for screens made in a test (their configuration had the packs alone).
    let webFonts: WebFonts

    init(_ screens: ScreenSet, webFonts: WebFonts = WebFonts()) throws {
        self.screens = screens
        self.fonts = try ShippedFonts.collection()
        self.webFonts = webFonts
    }

    /// One screen per entry, each `root` given as JSON text, with the shipped font packs.
    init(roots: [String: String], schemaVersion: Int = 2) throws {
        try self.init(try ScreenSet(roots: roots, schemaVersion: schemaVersion))
    }

    /// The screen planned for the query's user and viewport, as the layout endpoint plans it.
    func plan(_ id: String, _ query: String) throws -> (plan: LayoutPlan, query: ViewQuery) {
        let view = try ViewQuery(query)
        let resolved = try screens.resolve(id, for: view.context)
        return (ScreenLayout(viewport: view.viewport, fonts: fonts).plan(resolved, revision: Self.revision), view)
    }

    /// What `GET /v1/screens/{id}/layout?{query}` answers.
    func layout(_ id: String, _ query: String) throws -> FramedAnswer {
        let (plan, view) = try plan(id, query)
        return try FramedAnswer(ScreenLayout(viewport: view.viewport, fonts: fonts, keepsLines: false).answer(plan))
    }

    /// What `GET /preview/{id}?{query}` draws (`svg`: `/preview/{id}/preview.svg`).
    func preview(_ id: String, _ query: String, svg: Bool = false) throws -> String {
        let (plan, view) = try plan(id, query)
        let frames = ScreenLayout(viewport: view.viewport, fonts: fonts).layOut(plan)
        let fontFaces = webFonts.fontFaceRules(frames, fonts: fonts)
        return svg ? PreviewSVG.render(frames, fontFaces: fontFaces)
            : PreviewHTML.render(frames, check: view.check, linkQuery: view.linkQuery, fontFaces: fontFaces)
    }
}

/// A frame read back from a layout answer.
struct AnswerFrame: Equatable, CustomStringConvertible {
    var x: Double, y: Double, width: Double, height: Double

    init(_ x: Double, _ y: Double, _ width: Double, _ height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    init?(_ value: JSONValue?) {
        let numbers = ["x", "y", "width", "height"].compactMap { value?[$0]?.numberValue }
        guard numbers.count == 4 else { return nil }
        self.init(numbers[0], numbers[1], numbers[2], numbers[3])
    }

    var description: String { "(\(x), \(y), \(width), \(height))" }
}

/// A layout answer's bytes, with its components found by layout id (bars and separators included)
/// and their frames relative to their parents.
struct FramedAnswer {
    let json: JSONValue
    let text: String
    let components: [String: (component: JSONValue, frame: AnswerFrame)]

    init(_ bytes: [UInt8]) throws {
        json = try JSONParser.parse(bytes)
        text = String(decoding: bytes, as: UTF8.self)
        var found: [String: (JSONValue, AnswerFrame)] = [:]
        var pending = json["root"].map { [$0] } ?? []
        while let node = pending.popLast() {
            guard let id = node["layoutId"]?.stringValue, let frame = AnswerFrame(node["frame"]) else { continue }
            found[id] = (node, frame)
            let parts = (node["bar"].map { [$0] } ?? []) + (node["separators"]?.arrayValue ?? [])
            for part in parts {
                if let partID = part["layoutId"]?.stringValue, let partFrame = AnswerFrame(part) { found[partID] = (part, partFrame) }
            }
            pending += node["subviews"]?.arrayValue ?? []
        }
        components = found
    }

    func frame(_ id: String) -> AnswerFrame? { components[id]?.frame }
}
