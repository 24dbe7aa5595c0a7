/// Header fields in the order received or added. Names compare case-insensitively (RFC 9110 §5.1);
/// the spelling a field was added with is kept for the wire.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)
    private var fields: [Field]

    public init() { fields = [] }
    public init(_ fields: [Field]) { self.fields = fields }
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of the field `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.equalNames($0.name, name) }?.value
    }

    /// Every value of the field `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.equalNames($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public mutating func add(name: String, value: String) { fields.append((name, value)) }

    /// Replaces every field `name` with one field, or appends it.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append((name, value))
    }

    public mutating func remove(name: String) {
        fields.removeAll { Self.equalNames($0.name, name) }
    }

    /// ASCII case-insensitive comparison without allocating lowercased copies.
    static func equalNames(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return HTTPBytes.withBytes(a) { a in
            HTTPBytes.withBytes(b) { b in
                for i in 0..<a.count where a[i] != b[i] {
                    let x = a[i] | 0x20
                    guard x == b[i] | 0x20, x >= 0x61, x <= 0x7A else { return false }
                }
                return true
            }
        }
    }
}
