/// One header field as HPACK carries it. Names and values are the octets received, read as UTF-8
/// (invalid sequences replaced, as the HTTP/1.1 parser does); what HTTP/2 allows in them is checked
/// by the layer above (RFC 9113 §8.2).
struct HPACKField: Sendable, Equatable {
    /// How a field is, or is to be, represented (RFC 7541 §6.1, §6.2).
    enum Indexing: Sendable, Equatable {
        /// From or into the dynamic table: indexed, or a literal with incremental indexing.
        case indexed
        /// A literal the table does not keep.
        case withoutIndexing
        /// A literal no intermediary may ever put in a table (a credential).
        case neverIndexed
    }

    var name: String
    var value: String
    var indexing: Indexing = .indexed

    init(_ name: String, _ value: String, indexing: Indexing = .indexed) {
        self.name = name
        self.value = value
        self.indexing = indexing
    }
}

/// Decodes header blocks (RFC 7541 §3, §6) against one connection's dynamic table. No I/O: a
/// complete block in (HEADERS and its CONTINUATIONs joined), fields or a precise error out.
///
/// Limits: a table size update may not exceed what our settings allow (`allowedTableSize`), and
/// the fields' total size (RFC 9113 §6.5.2) may not exceed `maxHeaderListSize`. Past that limit the
/// block is still decoded to its end, keeping the table in step, but no more fields are kept —
/// so a block that indexes one large entry thousands of times costs a few operations per octet
/// and no memory — and the block ends in `headerListTooLarge`.
struct HPACKDecoder: Sendable {
    private(set) var table: HPACKDynamicTable
    /// The most a size update may set: SETTINGS_HEADER_TABLE_SIZE as we sent it (RFC 9113 §6.5.2).
    private(set) var allowedTableSize: Int
    var maxHeaderListSize: Int
    /// The settings lowered `allowedTableSize` below the table's size: the next block must begin
    /// with a size update (RFC 7541 §4.2).
    private var sizeUpdateRequired = false

    init(allowedTableSize: Int = 4096, maxHeaderListSize: Int = .max) {
        table = HPACKDynamicTable(maxSize: allowedTableSize)
        self.allowedTableSize = allowedTableSize
        self.maxHeaderListSize = maxHeaderListSize
    }

    /// Our SETTINGS_HEADER_TABLE_SIZE changed and the peer acknowledged it.
    mutating func setAllowedTableSize(_ size: Int) {
        if size < table.maxSize { sizeUpdateRequired = true }
        allowedTableSize = size
    }

    mutating func decode(_ block: [UInt8]) throws(HPACKError) -> [HPACKField] {
        try block.withUnsafeBufferPointer { (bytes) throws(HPACKError) in try decode(bytes) }
    }

    /// Decodes one complete header block.
    /// - Throws: `HPACKError`; after any case but `headerListTooLarge` the connection must end.
    mutating func decode(_ block: UnsafeBufferPointer<UInt8>) throws(HPACKError) -> [HPACKField] {
        var reader = HPACKReader(block)
        var list = DecodedList(limit: maxHeaderListSize)
        while !reader.isAtEnd {
            let first = try reader.peek()
            if first & 0xE0 == 0x20 {
                guard list.isEmpty else { throw .tableSizeUpdateNotAtStart }
                try applySizeUpdate(reader.readInteger(prefixBits: 5))
                continue
            }
            if sizeUpdateRequired { throw .tableSizeUpdateMissing }
            list.started = true
            if first & 0x80 != 0 {
                let index = try reader.readInteger(prefixBits: 7)
                let entry = try entry(at: index)
                list.add(HPACKField(entry.name, entry.value), octets: entry.octets)
            } else {
                try readLiteral(first, &reader, into: &list)
            }
        }
        guard !list.overLimit else { throw .headerListTooLarge(limit: maxHeaderListSize) }
        return list.fields
    }

    /// A literal field (§6.2): incremental indexing `01`, without indexing `0000`, never indexed `0001`.
    private mutating func readLiteral(_ first: UInt8, _ reader: inout HPACKReader, into list: inout DecodedList) throws(HPACKError) {
        let indexing: HPACKField.Indexing =
            first & 0xC0 == 0x40 ? .indexed : first & 0x10 != 0 ? .neverIndexed : .withoutIndexing
        let nameIndex = try reader.readInteger(prefixBits: indexing == .indexed ? 6 : 4)
        let name: String
        var octets: Int
        if nameIndex == 0 {
            let bytes = try reader.readString()
            name = String(decoding: bytes, as: UTF8.self)
            octets = bytes.count
        } else {
            let entry = try entry(at: nameIndex)
            name = entry.name
            octets = entry.nameOctets
        }
        let valueBytes = try reader.readString()
        octets += valueBytes.count
        let field = HPACKField(name, String(decoding: valueBytes, as: UTF8.self), indexing: indexing)
        if indexing == .indexed { table.insert(name: field.name, value: field.value, octets: octets) }
        list.add(field, octets: octets)
    }

    private mutating func applySizeUpdate(_ size: Int) throws(HPACKError) {
        guard size <= allowedTableSize else { throw .tableSizeUpdateTooLarge(requested: size, allowed: allowedTableSize) }
        table.resize(to: size)
        sizeUpdateRequired = false
    }

    /// Entry `index` of the static table (1…61) followed by the dynamic one (§2.3.3).
    private func entry(at index: Int) throws(HPACKError) -> (name: String, value: String, octets: Int, nameOctets: Int) {
        if index >= 1 && index <= HPACKStaticTable.count {
            let entry = HPACKStaticTable.entries[index - 1]
            return (entry.name, entry.value, entry.name.utf8.count + entry.value.utf8.count, entry.name.utf8.count)
        }
        let dynamic = index - HPACKStaticTable.count
        guard dynamic >= 1 && dynamic <= table.count else { throw .invalidIndex(index) }
        let entry = table[dynamic]
        return (entry.name, entry.value, entry.size - HPACKDynamicTable.entryOverhead, entry.name.utf8.count)
    }
}

/// The fields of one block as they are decoded, and their size against the limit.
private struct DecodedList {
    let limit: Int
    var fields: [HPACKField] = []
    var size = 0
    var overLimit = false
    /// A field representation has been read: size updates are over (RFC 7541 §4.2).
    var started = false
    var isEmpty: Bool { !started }

    mutating func add(_ field: HPACKField, octets: Int) {
        size += octets + HPACKDynamicTable.entryOverhead
        if size > limit { overLimit = true }
        if !overLimit { fields.append(field) }
    }
}
