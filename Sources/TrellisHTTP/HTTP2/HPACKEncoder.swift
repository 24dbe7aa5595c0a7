/// Encodes header blocks (RFC 7541 §6) against one connection's dynamic table, as the peer's
/// decoder will rebuild it. No I/O: fields in, octets appended.
///
/// The representation of each field: indexed when the static or the dynamic table holds it
/// whole; else a literal naming the table's entry for its name when there is one (the static
/// table's first), with incremental indexing unless the field says otherwise or it would not fit
/// the table anyway. This is the choice RFC 7541's Appendix C examples make, so they come out byte
/// for byte.
struct HPACKEncoder: Sendable {
    enum HuffmanPolicy: Sendable, Equatable {
        /// Every string as its octets.
        case never
        /// Huffman-coded whenever that is not longer (RFC 7541's examples code even when equal).
        case whenNotLonger
    }

    var huffman: HuffmanPolicy
    private(set) var table: HPACKDynamicTable
    /// The most our table may take whatever the peer allows: what memory we give it.
    let ownLimit: Int
    /// Table sizes to announce at the start of the next block: the smallest the peer's settings
    /// went to since the last one, and the final (RFC 7541 §4.2).
    private var pendingSizeUpdate: (smallest: Int, final: Int)?

    /// - Parameter maxTableSize: the table size both ends start with (4096, RFC 9113 §6.5.2), and
    ///   the most this encoder will ever use.
    init(maxTableSize: Int = 4096, huffman: HuffmanPolicy = .whenNotLonger) {
        table = HPACKDynamicTable(maxSize: maxTableSize)
        ownLimit = maxTableSize
        self.huffman = huffman
    }

    /// The peer's SETTINGS_HEADER_TABLE_SIZE arrived: the table follows it (up to `ownLimit`), and
    /// the next block says so.
    mutating func peerAllowsTableSize(_ size: Int) {
        let target = min(size, ownLimit)
        let smallest = min(pendingSizeUpdate?.smallest ?? table.maxSize, target)
        pendingSizeUpdate = smallest == table.maxSize && target == table.maxSize ? nil : (smallest, target)
    }

    /// Appends one complete header block for `fields`, in order.
    mutating func encode(_ fields: [HPACKField], into out: inout [UInt8]) {
        announceSizeUpdate(into: &out)
        for field in fields { encode(field, into: &out) }
    }

    private mutating func encode(_ field: HPACKField, into out: inout [UInt8]) {
        let match = lookup(field)
        if field.indexing == .indexed, let match, match.fullMatch {
            return HPACKWriter.appendInteger(match.index, prefixBits: 7, flags: 0x80, to: &out)
        }
        let octets = field.name.utf8.count + field.value.utf8.count
        var indexing = field.indexing
        if indexing == .indexed && octets + HPACKDynamicTable.entryOverhead > table.maxSize { indexing = .withoutIndexing }
        let (prefixBits, flags): (Int, UInt8) =
            switch indexing {
            case .indexed: (6, 0x40)
            case .withoutIndexing: (4, 0x00)
            case .neverIndexed: (4, 0x10)
            }
        HPACKWriter.appendInteger(match?.index ?? 0, prefixBits: prefixBits, flags: flags, to: &out)
        if match == nil { HPACKWriter.appendString(field.name, huffman: huffman, to: &out) }
        HPACKWriter.appendString(field.value, huffman: huffman, to: &out)
        if indexing == .indexed { table.insert(name: field.name, value: field.value, octets: octets) }
    }

    /// The best entry for `field`: a whole match (static first), else a name match (static first).
    private func lookup(_ field: HPACKField) -> (index: Int, fullMatch: Bool)? {
        let inStatic = HPACKStaticTable.match(name: field.name, value: field.value)
        if let inStatic, inStatic.fullMatch { return inStatic }
        let inDynamic = table.match(name: field.name, value: field.value).map { (HPACKStaticTable.count + $0.index, $0.fullMatch) }
        if let inDynamic, inDynamic.1 { return inDynamic }
        return inStatic ?? inDynamic
    }

    private mutating func announceSizeUpdate(into out: inout [UInt8]) {
        guard let update = pendingSizeUpdate else { return }
        pendingSizeUpdate = nil
        if update.smallest < update.final {
            HPACKWriter.appendInteger(update.smallest, prefixBits: 5, flags: 0x20, to: &out)
            table.resize(to: update.smallest)
        }
        HPACKWriter.appendInteger(update.final, prefixBits: 5, flags: 0x20, to: &out)
        table.resize(to: update.final)
    }
}
