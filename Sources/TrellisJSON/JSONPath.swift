/// A path to a value inside a document, written the way people read it: `$.root.subviews[2].values.text`.
/// Keys that are not plain identifiers are quoted: `$.labels["dark mode"]`.
public struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    public enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// The last component, which leads back to the others. Decoders make the paths of the values
    /// they visit, in case they have something to report there: appending shares the path it
    /// extends rather than copying it, so it costs one small allocation whatever the depth.
    private let last: Link?

    private final class Link: Sendable {
        let parent: Link?
        let component: Component
        /// How many components the path ending here has.
        let count: Int

        init(parent: Link?, component: Component) {
            self.parent = parent
            self.component = component
            count = (parent?.count ?? 0) + 1
        }
    }

    public init(_ components: [Component] = []) {
        last = components.reduce(nil) { Link(parent: $0, component: $1) }
    }

    private init(last: Link?) { self.last = last }

    public static let root = JSONPath()

    public var components: [Component] { links.map(\.component).reversed() }

    /// The path's links, last first.
    private var links: UnfoldSequence<Link, Link?> {
        sequence(state: last) { link in
            defer { link = link?.parent }
            return link
        }
    }

    public func appending(_ key: String) -> JSONPath { JSONPath(last: Link(parent: last, component: .key(key))) }
    public func appending(_ index: Int) -> JSONPath { JSONPath(last: Link(parent: last, component: .index(index))) }

    public static func == (a: JSONPath, b: JSONPath) -> Bool {
        a.last === b.last || (a.last?.count == b.last?.count && a.links.elementsEqual(b.links) { $0.component == $1.component })
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(last?.count ?? 0)
        for link in links { hasher.combine(link.component) }
    }

    public var description: String {
        var out = "$"
        for component in components {
            switch component {
            case .index(let i): out += "[\(i)]"
            case .key(let k) where Self.isIdentifier(k): out += "." + k
            case .key(let k): out += "[" + JSONWriter.quoted(k) + "]"
            }
        }
        return out
    }

    private static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.utf8.first, first == 0x5F || (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first) else {
            return false
        }
        return s.utf8.allSatisfy { c in
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                || c == 0x5F || c == 0x2D
        }
    }
}

extension JSONValue {
    /// The value at `path` inside this one, or nil when the path leads nowhere.
    public func value(at path: JSONPath) -> JSONValue? {
        var current = self
        for component in path.components {
            switch component {
            case .key(let key):
                guard let next = current[key] else { return nil }
                current = next
            case .index(let index):
                guard let array = current.arrayValue, array.indices.contains(index) else { return nil }
                current = array[index]
            }
        }
        return current
    }
}

extension DiagnosticsError {
    /// The same diagnostics, with each unknown location filled in from where its path leads in
    /// `document` — for checks that run on a decoded model that no longer knows its lines.
    public func locating(in document: JSONValue) -> DiagnosticsError {
        var located = self
        for i in located.diagnostics.indices where located.diagnostics[i].location == .unknown {
            located.diagnostics[i].location = document.value(at: located.diagnostics[i].path)?.location ?? .unknown
        }
        return located
    }
}
