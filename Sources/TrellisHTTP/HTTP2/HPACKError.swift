/// Why a header block could not be decoded (RFC 7541). Every case but `headerListTooLarge` is a
/// connection error of type COMPRESSION_ERROR in HTTP/2 (RFC 9113 §4.3): the decoder's table can no
/// longer be trusted. After `headerListTooLarge` the table is still in step with the peer's, so
/// only the one request is refused (431).
enum HPACKError: Error, Sendable, Equatable {
    /// The block ends inside a representation.
    case truncated
    /// An integer needs more than 32 bits, or more continuation octets than any such value (§5.1).
    case integerOverflow
    /// Index 0, or one past the static and dynamic tables (§2.3.3, §6.1).
    case invalidIndex(Int)
    /// A Huffman-coded string contains the EOS symbol (§5.2).
    case huffmanEOS
    /// A Huffman-coded string ends with more than seven bits of padding (§5.2).
    case huffmanPaddingTooLong
    /// A Huffman-coded string's padding is not the most significant bits of EOS (§5.2).
    case huffmanPaddingNotEOS
    /// A dynamic table size update above the limit the settings allow (§6.3).
    case tableSizeUpdateTooLarge(requested: Int, allowed: Int)
    /// A dynamic table size update after the first field of a block (§4.2).
    case tableSizeUpdateNotAtStart
    /// The settings lowered the table size, and the block did not begin with the update that
    /// must acknowledge it (§4.2).
    case tableSizeUpdateMissing
    /// The decoded fields (name and value octets plus 32 each, RFC 9113 §6.5.2) exceed the limit.
    /// The whole block was still decoded, so the dynamic table is in step.
    case headerListTooLarge(limit: Int)
}
