/// A path to a value inside a document, written the way people read it: `$.root.subviews[2].values.text`.
/// Keys that are not plain identifiers are quoted: `$.labels["dark mode"]`.
public struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    public enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// The components a ``packed()`` path holds in one buffer, before those of ``last``.
    private let prefix: Packed?
    /// The last component, which leads back to the others. Decoders make the paths of the values
    /// they visit, in case they have something to report there: appending shares the path it
    /// extends rather than copying it, so it costs one small allocation whatever the depth.
    private let last: Link?

    private final class Link: Sendable {
        let parent: Link?
        let component: Component
        /// How many components the path ending here has (without the prefix's).
        let count: Int

        init(parent: Link?, component: Component) {
            self.parent = parent
            self.component = component
            count = (parent?.count ?? 0) + 1
        }
    }

    /// Components in one byte buffer: a key as 0, its UTF-8 length (LEB128) and bytes; an index as
    /// 1 and the index (LEB128). A path kept for as long as a screen is served (its links, its
    /// decision points) costs one allocation of a few dozen bytes instead of a link per component.
    private final class Packed: Sendable {
        let bytes: [UInt8]
        let count: Int

        /// `components`, in one buffer.
        init(_ components: some Sequence<Component>) {
            var bytes: [UInt8] = []
            var count = 0
            for component in components {
                Self.append(component, to: &bytes)
                count += 1
            }
            self.bytes = bytes.withUnsafeBufferPointer { Array($0) }
            self.count = count
        }

        /// The components of `prefix`, then those of the links ending at `last`.
        init(_ prefix: Packed?, _ last: Link?) {
            var links: [Link] = []
            links.reserveCapacity(last?.count ?? 0)
            var link = last
            while let current = link {
                links.append(current)
                link = current.parent
            }
            var bytes = prefix?.bytes ?? []
            bytes.reserveCapacity(bytes.count + links.count * 10)
            for link in links.reversed() { Self.append(link.component, to: &bytes) }
            self.bytes = bytes.withUnsafeBufferPointer { Array($0) }
            count = (prefix?.count ?? 0) + links.count
        }

        private static func append(_ component: Component, to bytes: inout [UInt8]) {
            switch component {
            case .key(let key):
                bytes.append(0)
                append(key.utf8.count, to: &bytes)
                bytes += key.utf8
            case .index(let index):
                bytes.append(1)
                append(index, to: &bytes)
            }
        }

        var components: [Component] {
            var result: [Component] = []
            result.reserveCapacity(count)
            var i = 0
            while i < bytes.count {
                let tag = bytes[i]
                i += 1
                let number = Self.number(in: bytes, at: &i)
                if tag == 0 {
                    result.append(.key(String(decoding: bytes[i..<i + number], as: UTF8.self)))
                    i += number
                } else {
                    result.append(.index(number))
                }
            }
            return result
        }

        private static func append(_ value: Int, to bytes: inout [UInt8]) {
            var rest = UInt(bitPattern: value)
            while rest >= 0x80 {
                bytes.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            bytes.append(UInt8(rest))
        }

        private static func number(in bytes: [UInt8], at i: inout Int) -> Int {
            var value: UInt = 0
            var shift: UInt = 0
            while true {
                let byte = bytes[i]
                i += 1
                value |= UInt(byte & 0x7F) << shift
                if byte < 0x80 { return Int(bitPattern: value) }
                shift += 7
            }
        }
    }

    public init(_ components: [Component] = []) {
        prefix = nil
        last = components.reduce(nil) { Link(parent: $0, component: $1) }
    }

    private init(prefix: Packed?, last: Link?) {
        self.prefix = prefix
        self.last = last
    }

    public static let root = JSONPath()

    public var components: [Component] { (prefix?.components ?? []) + links.map(\.component).reversed() }

    /// How many components the path has.
    public var count: Int { (prefix?.count ?? 0) + (last?.count ?? 0) }

    /// The path of `components`, in one buffer (``Packed``): for a path kept long after the walk
    /// that made it, which has its components at hand.
    public init(packing components: [Component]) {
        prefix = components.isEmpty ? nil : Packed(components)
        last = nil
    }

    /// The same path in one buffer (``Packed``), for paths kept long after the decoding that made them.
    public func packed() -> JSONPath {
        guard last != nil else { return self }  // empty, or packed already
        return JSONPath(prefix: Packed(prefix, last), last: nil)
    }

    /// The path's links, last first.
    private var links: UnfoldSequence<Link, Link?> {
        sequence(state: last) { link in
            defer { link = link?.parent }
            return link
        }
    }

    public func appending(_ key: String) -> JSONPath { JSONPath(prefix: prefix, last: Link(parent: last, component: .key(key))) }
    public func appending(_ index: Int) -> JSONPath { JSONPath(prefix: prefix, last: Link(parent: last, component: .index(index))) }

    public static func == (a: JSONPath, b: JSONPath) -> Bool {
        if a.prefix === b.prefix {
            return a.last === b.last || (a.last?.count == b.last?.count && a.links.elementsEqual(b.links) { $0.component == $1.component })
        }
        return a.count == b.count && a.components == b.components
    }

    public func hash(into hasher: inout Hasher) {
        // Last first, whatever holds the components: equal paths hash equal, packed or not.
        hasher.combine(count)
        for link in links { hasher.combine(link.component) }
        for component in (prefix?.components ?? []).reversed() { hasher.combine(component) }
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

    /// ``locating(in:)`` the document `bytes` hold, parsed once more; as it is when they do not parse.
    public func locating(inDocument bytes: [UInt8]) -> DiagnosticsError {
        (try? JSONParser.parse(bytes)).map(locating(in:)) ?? self
    }
}
