/// HPACK's static Huffman code (RFC 7541 §5.2, Appendix B): encoding octets, and decoding them
/// back with every malformation an error — the EOS symbol inside a string, padding longer than
/// seven bits, padding that is not the most significant bits of EOS.
///
/// Decoding walks a finite automaton four bits at a time (nghttp2's approach): each state is a
/// node of the code tree, and one lookup per nibble gives the next node and the octet completed,
/// if any (the shortest code has five bits, so a nibble completes at most one).
enum HPACKHuffman {
    /// How many octets `bytes` take once encoded.
    static func encodedCount(_ bytes: some Sequence<UInt8>) -> Int {
        var bits = 0
        for b in bytes { bits += Int(codes[Int(b)].length) }
        return (bits + 7) / 8
    }

    /// Appends the encoding of `bytes`, padded to an octet with the most significant bits of EOS (ones).
    static func encode(_ bytes: some Sequence<UInt8>, into out: inout [UInt8]) {
        // Only the low `pending` bits of `accumulator` are unwritten; at most 7 + 30 of them.
        var accumulator: UInt64 = 0
        var pending = 0
        for b in bytes {
            let (code, length) = codes[Int(b)]
            accumulator = accumulator &<< UInt64(length) | UInt64(code)
            pending += Int(length)
            while pending >= 8 {
                pending -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt64(pending)))
            }
        }
        if pending > 0 {
            out.append(UInt8(truncatingIfNeeded: accumulator &<< UInt64(8 - pending)) | (0xFF >> UInt8(pending)))
        }
    }

    /// Appends the octets `encoded` decodes to.
    /// - Throws: `HPACKError.huffmanEOS`, `.huffmanPaddingTooLong` or `.huffmanPaddingNotEOS`.
    static func decode(_ encoded: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) throws(HPACKError) {
        let automaton = HPACKHuffmanAutomaton.shared
        var state = 0
        out.reserveCapacity(out.count + encoded.count * 8 / 5)
        for byte in encoded {
            try advance(&state, Int(byte >> 4), automaton, &out)
            try advance(&state, Int(byte & 0x0F), automaton, &out)
        }
        switch automaton.endings[state] {
        case .complete: return
        case .paddingTooLong: throw .huffmanPaddingTooLong
        case .notEOSPrefix: throw .huffmanPaddingNotEOS
        }
    }

    @inline(__always)
    private static func advance(
        _ state: inout Int, _ nibble: Int, _ automaton: HPACKHuffmanAutomaton, _ out: inout [UInt8]
    ) throws(HPACKError) {
        let step = automaton.steps[state << 4 | nibble]
        if step.failed { throw .huffmanEOS }
        if step.emits { out.append(step.symbol) }
        state = Int(step.next)
    }
}

/// The decoding automaton, built once from ``HPACKHuffman/codes``: immutable after that.
struct HPACKHuffmanAutomaton: Sendable {
    struct Step: Sendable {
        var next: UInt8
        var symbol: UInt8
        var emits: Bool
        /// The nibble completes EOS, which a string must never contain (RFC 7541 §5.2).
        var failed: Bool
    }

    /// What it means for a string to end in a state.
    enum Ending: Sendable {
        /// At the root, or at most seven one-bits into EOS: valid padding.
        case complete
        /// Eight or more one-bits of padding.
        case paddingTooLong
        /// Inside a code that is not EOS's prefix.
        case notEOSPrefix
    }

    static let shared = HPACKHuffmanAutomaton()

    /// `steps[state << 4 | nibble]`; the states are the code tree's 256 internal nodes, 0 the root.
    let steps: [Step]
    let endings: [Ending]

    private init() {
        let tree = HPACKHuffmanTree()
        var steps: [Step] = []
        steps.reserveCapacity(tree.nodeCount * 16)
        for state in 0..<tree.nodeCount {
            for nibble in 0..<16 { steps.append(Self.step(from: state, nibble: nibble, tree)) }
        }
        self.steps = steps
        endings = (0..<tree.nodeCount).map { node in
            guard tree.onesOnly[node] else { return .notEOSPrefix }
            return tree.depth[node] <= 7 ? .complete : .paddingTooLong
        }
    }

    private static func step(from state: Int, nibble: Int, _ tree: HPACKHuffmanTree) -> Step {
        var node = state
        var step = Step(next: 0, symbol: 0, emits: false, failed: false)
        for shift in stride(from: 3, through: 0, by: -1) {
            let child = tree.children[node << 1 | (nibble >> shift) & 1]
            guard child < 0 else { node = Int(child); continue }
            let symbol = -Int(child) - 1
            if symbol == 256 { step.failed = true; return step }
            step.symbol = UInt8(symbol)
            step.emits = true
            node = 0
        }
        step.next = UInt8(node)
        return step
    }
}

/// The code as a binary tree: `children[node << 1 | bit]` is an internal node (≥ 0) or a leaf,
/// `-(symbol + 1)`.
private struct HPACKHuffmanTree {
    var children = [Int16](repeating: 0, count: 512)
    var depth: [Int] = [0]
    /// Every bit on the way from the root to the node is 1: the node lies on EOS's path.
    var onesOnly: [Bool] = [true]
    var nodeCount: Int { depth.count }

    init() {
        for (symbol, entry) in HPACKHuffman.codes.enumerated() {
            var node = 0
            for shift in stride(from: Int(entry.length) - 1, through: 1, by: -1) {
                node = childNode(of: node, bit: Int(entry.code >> UInt32(shift)) & 1)
            }
            children[node << 1 | Int(entry.code & 1)] = Int16(-(symbol + 1))
        }
    }

    /// The internal node below `node` on `bit`, made when it does not exist yet (0 = not yet: the
    /// root is nobody's child).
    private mutating func childNode(of node: Int, bit: Int) -> Int {
        let slot = node << 1 | bit
        if children[slot] == 0 {
            children[slot] = Int16(nodeCount)
            depth.append(depth[node] + 1)
            onesOnly.append(onesOnly[node] && bit == 1)
        }
        return Int(children[slot])
    }
}
