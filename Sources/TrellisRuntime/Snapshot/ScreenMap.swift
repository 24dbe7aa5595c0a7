import HashTreeCollections

/// Values by screen id, persistent: a copy changed in one place shares every other entry with the
/// original (a hash-array mapped trie), so the snapshot after a publish costs the path to one
/// screen, not a copy of 10,000 — and dropping the old snapshot frees only what it did not share.
public struct ScreenMap<Value: Sendable>: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    private var tree: TreeDictionary<String, Value>

    public init() { tree = [:] }

    public init(dictionaryLiteral elements: (String, Value)...) {
        tree = TreeDictionary(uniqueKeysWithValues: elements)
    }

    public init(_ dictionary: [String: Value]) {
        tree = TreeDictionary(dictionary)
    }

    public subscript(id: String) -> Value? {
        get { tree[id] }
        set { tree[id] = newValue }
    }

    public var count: Int { tree.count }
    public var isEmpty: Bool { tree.isEmpty }
    public var keys: some Collection<String> { tree.keys }
    public var values: some Collection<Value> { tree.values }

    public struct Iterator: IteratorProtocol {
        package var base: TreeDictionary<String, Value>.Iterator
        public mutating func next() -> (key: String, value: Value)? { base.next() }
    }

    public func makeIterator() -> Iterator { Iterator(base: tree.makeIterator()) }

    public func mapValues<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> ScreenMap<T> {
        ScreenMap<T>(tree: try tree.mapValues(transform))
    }

    public func filter(_ isIncluded: ((key: String, value: Value)) throws -> Bool) rethrows -> ScreenMap<Value> {
        ScreenMap(tree: try tree.filter(isIncluded))
    }

    private init(tree: TreeDictionary<String, Value>) { self.tree = tree }
}
