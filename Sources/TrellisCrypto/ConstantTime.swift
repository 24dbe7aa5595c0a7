import CCrypto

/// Comparisons whose running time does not depend on where two secrets first differ.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes. Uses `CRYPTO_memcmp`, which reads every byte
    /// whatever it finds; only the lengths (which are not secret here: digests and MACs have fixed
    /// lengths) decide early.
    public static func equal<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        guard a.count == b.count else { return false }
        return withContiguousBytes(a) { aBase, count in
            withContiguousBytes(b) { bBase, _ in CRYPTO_memcmp(aBase, bBase, count) == 0 }
        }
    }
}
