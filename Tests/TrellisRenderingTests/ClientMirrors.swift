import Foundation
import TrellisJSON

// Mirrors of the two third-party clients, built from their facts files
// (/work/shared/clients/drivenui-0.1.1.md, /work/shared/clients/matrioska.md) and nothing else:
// a body these accept is a body the clients accept.

// MARK: DrivenUI 0.1.1

/// DrivenUI's component exactly as its facts file declares it. Synthesised `Decodable` decodes
/// every optional with `decodeIfPresent`, in declaration order, and throws at the first value of the
/// wrong type — as DrivenUI's compiler-generated decoder does. Unknown keys are ignored. (DrivenUI
/// also has an `id: UUID` made locally, never decoded, so it is left out.)
struct DrivenComponent: Decodable {
    var type: ViewType?
    var values: Values?
    var properties: ViewProperties?
    var subviews: [DrivenComponent]?

    enum ViewType: String, Decodable {
        case Image, Text, HStack, VStack, ZStack, Rectangle, Circle, Spacer, Divider, List
    }

    struct Values: Decodable {
        var text: String?
        var imageUrl: String?
        var systemIconName: String?
        var localImageName: String?
    }

    struct ViewProperties: Decodable {
        var font: String?
        var fontWeight: String?
        var foregroundColor: String?
        var backgroundColor: String?
        var borderColor: String?
        var borderWidth: Int?
        var padding: Int?
        var spacing: Int?
        var width: Float?
        var height: Float?
        var minLength: Float?
        var horizontalAlignment: HorizontalAlignment?
        var verticalAlignment: VerticalAlignment?
    }

    enum HorizontalAlignment: String, Decodable { case leading, center, trailing }
    enum VerticalAlignment: String, Decodable { case top, center, bottom, firstTextBaseline, lastTextBaseline }

    /// As DrivenUI's README decodes a response: the whole body is one component.
    static func decode(_ body: [UInt8]) throws -> DrivenComponent {
        try JSONDecoder().decode(DrivenComponent.self, from: Data(body))
    }
}

/// The body conditions under which DrivenUI decodes without error but draws something other than
/// what was meant (its facts file, "Drawing behaviour"), each found with its JSON path.
enum DrivenMisdrawing {
    static let fonts: Set<String> = ["largeTitle", "title", "headline", "subheadline", "body", "callout", "footnote", "caption"]
    static let weights: Set<String> = ["ultraLight", "thin", "light", "regular", "medium", "semibold", "bold", "heavy", "black"]
    static let containers: Set<String> = ["HStack", "VStack", "ZStack", "List"]

    static func problems(_ node: JSONValue, at path: String = "$") -> [String] {
        var found: [String] = []
        let type = node["type"]?.stringValue ?? ""
        let properties = node["properties"]
        for key in ["foregroundColor", "backgroundColor", "borderColor"] {
            guard let value = properties?[key] else { continue }
            let text = value.stringValue ?? ""
            let isHex6 = text.utf8.count == 6 && text.allSatisfy(\.isHexDigit)
            if text.hasPrefix("#") || !isHex6 { found.append("\(path).properties.\(key): colour \(JSONWriter.string(value)) is drawn black") }
        }
        if containers.contains(type) && node["subviews"] == nil { found.append("\(path): \(type) without subviews draws \"Please Add Subview\"") }
        if type == "Image" {
            let sources = ["imageUrl", "systemIconName", "localImageName"].compactMap { node["values"]?[$0]?.stringValue }
            if sources.isEmpty { found.append("\(path): Image without a source draws \"Image value could not read\"") }
        }
        if let font = properties?["font"], !fonts.contains(font.stringValue ?? "") {
            found.append("\(path).properties.font: \(JSONWriter.string(font)) is drawn as body")
        }
        if let weight = properties?["fontWeight"], !weights.contains(weight.stringValue ?? "") {
            found.append("\(path).properties.fontWeight: \(JSONWriter.string(weight)) is drawn regular")
        }
        if properties?["weight"] != nil { found.append("\(path).properties.weight: DrivenUI reads fontWeight; drawn regular") }
        for (index, child) in (node["subviews"]?.arrayValue ?? []).enumerated() {
            found += problems(child, at: "\(path).subviews[\(index)]")
        }
        return found
    }
}

// MARK: Matrioska

/// Matrioska's `JSONFactory` as its facts file describes it, for an app that registered a builder
/// for every type Trellis sends under its own name.
struct MatrioskaFactory {
    enum Builder {
        /// A leaf.
        case single
        /// Any number of children.
        case cluster
        /// Exactly one child; only the first is used.
        case wrapper
    }

    enum Failure: Error, Equatable {
        case noStructure
        case noType(path: String)
    }

    /// A view controller the factory made.
    struct Built {
        var type: String
        var meta: [JSONMember]
        var children: [Built]
        var count: Int { 1 + children.reduce(0) { $0 + $1.count } }
    }

    var builders: [String: Builder]

    /// Built-ins (`stack`, `tabbar`) and a builder per Trellis type that is not a stack or tab bar.
    static let trellisApp = MatrioskaFactory(builders: [
        "stack": .cluster, "tabbar": .cluster,
        "Text": .single, "Image": .single, "Button": .single, "Rectangle": .single, "Circle": .single,
        "Spacer": .single, "Divider": .single,
        "ZStack": .cluster, "List": .cluster, "ScrollView": .cluster, "Carousel": .cluster,
        "Navigation": .wrapper, "Tab": .wrapper,
    ])

    /// The structure built, or nil when its root was dropped.
    /// - Throws: ``Failure/noStructure`` without `structure`; ``Failure/noType(path:)`` for a node without `type`.
    func build(_ document: JSONValue) throws(Failure) -> Built? {
        guard let structure = document["structure"], structure.objectValue != nil else { throw .noStructure }
        return try build(structure, at: "$.structure")
    }

    private func build(_ node: JSONValue, at path: String) throws(Failure) -> Built? {
        guard let type = node["type"]?.stringValue else { throw .noType(path: path) }
        guard let builder = builders[type] else { return nil }  // unregistered: dropped with its subtree
        let meta = node["meta"]?.objectValue ?? []
        var children: [Built] = []
        let given = node["children"]?.arrayValue ?? []
        switch builder {
        case .single: break
        case .cluster, .wrapper:
            for (index, child) in given.prefix(builder == .wrapper ? 1 : given.count).enumerated() {
                guard let built = try build(child, at: "\(path).children[\(index)]") else { continue }
                if type == "tabbar" {
                    let m = JSONValue(.object(built.meta))
                    guard m["title"]?.stringValue != nil, m["icon_name"]?.stringValue != nil else { continue }
                }
                children.append(built)
            }
        }
        return Built(type: type, meta: meta, children: children)
    }
}
