/// MurmurHash3, x86 32-bit variant (Austin Appleby, `MurmurHash3_x86_32` in the reference
/// `MurmurHash3.cpp`): the hash Trellis buckets users with. It is defined over bytes, so the same
/// input gives the same hash on every machine and in every language; strings are hashed as their
/// UTF-8 bytes. Never use Swift's `hashValue` for bucketing: it is seeded per process.
public enum Murmur3 {
    /// The 32-bit hash of `bytes` with `seed`; the value Python's `mmh3.hash(data, seed, signed=False)` gives.
    public static func hash32(_ bytes: some Collection<UInt8>, seed: UInt32 = 0) -> UInt32 {
        let c1: UInt32 = 0xcc9e_2d51
        let c2: UInt32 = 0x1b87_3593
        var h = seed
        var k: UInt32 = 0
        var shift: UInt32 = 0
        // Body: little-endian 4-byte blocks.
        for byte in bytes {
            k |= UInt32(byte) << shift
            shift += 8
            if shift == 32 {
                k = (k &* c1).rotatedLeft(15) &* c2
                h ^= k
                h = h.rotatedLeft(13) &* 5 &+ 0xe654_6b64
                k = 0
                shift = 0
            }
        }
        // Tail: the last 1–3 bytes.
        if shift > 0 {
            k = (k &* c1).rotatedLeft(15) &* c2
            h ^= k
        }
        // Finalisation: mix in the length, then avalanche.
        h ^= UInt32(truncatingIfNeeded: bytes.count)
        h ^= h >> 16
        h = h &* 0x85eb_ca6b
        h ^= h >> 13
        h = h &* 0xc2b2_ae35
        h ^= h >> 16
        return h
    }

    /// The hash of `text`'s UTF-8 bytes.
    public static func hash32(_ text: String, seed: UInt32 = 0) -> UInt32 {
        hash32(text.utf8, seed: seed)
    }
}

extension UInt32 {
    @inline(__always) fileprivate func rotatedLeft(_ r: UInt32) -> UInt32 { (self << r) | (self >> (32 - r)) }
}
