/// The dynamic table of HPACK (RFC 7541 §2.3.2, §4): the most recent fields first, evicted
/// oldest first so that the sum of entry sizes stays within ``maxSize``.
///
/// A ring buffer: inserting and evicting move no entry. An entry's size is counted from the octets
/// as they were sent (RFC 7541 §4.1), not from the strings made of them, so both ends of a
/// connection agree even when those octets are not valid UTF-8.
struct HPACKDynamicTable: Sendable {
    struct Entry: Sendable, Equatable {
        var name: String
        var value: String
        /// Name and value octets plus 32.
        var size: Int
    }

    /// Entries are counted at 32 octets above their name and value (RFC 7541 §4.1).
    static let entryOverhead = 32

    private var ring: [Entry?] = []
    /// Where the oldest entry is in `ring`.
    private var oldest = 0
    private(set) var count = 0
    /// The sum of the entries' sizes.
    private(set) var size = 0
    /// The most the entries may take, as the last size update set it.
    private(set) var maxSize: Int

    init(maxSize: Int) { self.maxSize = maxSize }

    /// Entry `index`, 1 being the newest (dynamic index 62 on the wire).
    subscript(index: Int) -> Entry {
        precondition(index >= 1 && index <= count, "dynamic table index out of range")
        return ring[(oldest + count - index) % ring.count]!
    }

    /// Adds a field as the newest entry, evicting what no longer fits. An entry larger than the
    /// whole table empties it and is not added (RFC 7541 §4.4).
    mutating func insert(name: String, value: String, octets: Int) {
        let entry = Entry(name: name, value: value, size: octets + Self.entryOverhead)
        evict(toFit: maxSize - entry.size)
        guard entry.size <= maxSize else { return }
        if count == ring.count { grow() }
        ring[(oldest + count) % ring.count] = entry
        count += 1
        size += entry.size
    }

    /// Sets a new maximum size, evicting until the entries fit (RFC 7541 §4.3).
    mutating func resize(to newMax: Int) {
        maxSize = newMax
        evict(toFit: newMax)
    }

    /// The newest entry matching `name` and `value`, else the newest with `name`, else nil.
    func match(name: String, value: String) -> (index: Int, fullMatch: Bool)? {
        var nameOnly: Int?
        for index in stride(from: 1, through: count, by: 1) {
            let entry = self[index]
            guard entry.name == name else { continue }
            if entry.value == value { return (index, true) }
            if nameOnly == nil { nameOnly = index }
        }
        return nameOnly.map { ($0, false) }
    }

    private mutating func evict(toFit limit: Int) {
        while size > max(limit, 0), count > 0 {
            size -= ring[oldest]!.size
            ring[oldest] = nil
            oldest = (oldest + 1) % ring.count
            count -= 1
        }
    }

    private mutating func grow() {
        let entries = (0..<count).map { ring[(oldest + $0) % ring.count] }
        ring = entries + Array(repeating: nil, count: max(8, ring.count))
        oldest = 0
    }
}
