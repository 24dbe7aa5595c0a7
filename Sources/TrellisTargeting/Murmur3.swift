/// MurmurHash3, x86 32-bit variant (Austin Appleby, `MurmurHash3_x86_32` in the reference
/// `MurmurHash3.cpp`): the hash Trellis buckets users with. It is defined over bytes, so the same
/// input gives the same hash on every machine and in every language; strings are hashed as their
/// UTF-8 bytes. Never use Swift's `hashValue` for bucketing: it is seeded per process.
public enum Murmur3 {
    /// The 32-bit hash of `bytes` with `seed`; the value Python's `mmh3.hash(data, seed, signed=False)` gives.
    public static func hash32(_ bytes: some Sequence<UInt8>, seed: UInt32 = 0) -> UInt32 {
        var state = State(seed: seed)
        state.combine(bytes)
        return state.finalize()
    }

    /// The hash of `text`'s UTF-8 bytes.
    public static func hash32(_ text: String, seed: UInt32 = 0) -> UInt32 {
        hash32(text.utf8, seed: seed)
    }

    /// The hash of bytes given in pieces, without copying them into one buffer: combining
    /// `"gold-banner"`, `":"` and `"user-1"` gives the hash of `"gold-banner:user-1"`.
    public struct State: Sendable {
        private var h: UInt32
        /// The bytes of the block being filled, little-endian.
        private var k: UInt32 = 0
        /// How many bits of `k` are filled: 0, 8, 16 or 24.
        private var shift: UInt32 = 0
        /// The length so far, modulo 2^32 (the reference mixes in a 32-bit length).
        private var length: UInt32 = 0

        public init(seed: UInt32) { h = seed }

        /// Appends `bytes` to the input.
        public mutating func combine(_ bytes: some Sequence<UInt8>) {
            // A native string's bytes are contiguous: reading them through the buffer, not the
            // view's iterator, is what makes bucketing cheap enough for every request.
            let contiguous: Void? = bytes.withContiguousStorageIfAvailable { buffer in
                combine(UnsafeRawBufferPointer(buffer))
            }
            if contiguous == nil {
                for byte in bytes { combine(byte) }
            }
        }

        /// Bytes up to the next block one at a time, then whole blocks read as words (a quarter of
        /// the work of a byte at a time: a targeted screen hashes the user id once per rollout and
        /// experiment it names), then the rest one at a time.
        private mutating func combine(_ buffer: UnsafeRawBufferPointer) {
            var index = 0
            while shift != 0, index < buffer.count {
                combine(buffer[index])
                index += 1
            }
            while buffer.count - index >= 4 {
                mix(block: UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: index, as: UInt32.self)))
                length &+= 4
                index += 4
            }
            while index < buffer.count {
                combine(buffer[index])
                index += 1
            }
        }

        /// Appends one byte to the input.
        @inline(__always) public mutating func combine(_ byte: UInt8) {
            length &+= 1
            k |= UInt32(byte) << shift
            shift += 8
            guard shift == 32 else { return }
            mix(block: k)
            k = 0
            shift = 0
        }

        /// Body: a full little-endian 4-byte block.
        @inline(__always) private mutating func mix(block: UInt32) {
            h ^= Self.scramble(block)
            h = h.rotatedLeft(13) &* 5 &+ 0xe654_6b64
        }

        /// The hash of everything combined.
        public func finalize() -> UInt32 {
            var h = self.h
            // Tail: the last 1–3 bytes.
            if shift > 0 { h ^= Self.scramble(k) }
            // Finalisation: mix in the length, then avalanche.
            h ^= length
            h ^= h >> 16
            h = h &* 0x85eb_ca6b
            h ^= h >> 13
            h = h &* 0xc2b2_ae35
            h ^= h >> 16
            return h
        }

        @inline(__always) private static func scramble(_ k: UInt32) -> UInt32 {
            (k &* 0xcc9e_2d51).rotatedLeft(15) &* 0x1b87_3593
        }
    }
}

extension UInt32 {
    @inline(__always) fileprivate func rotatedLeft(_ r: UInt32) -> UInt32 { (self << r) | (self >> (32 - r)) }
}
