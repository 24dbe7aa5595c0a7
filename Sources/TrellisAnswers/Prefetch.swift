import CPrefetch

/// Asking the CPU for memory before it is needed, which Swift cannot say: the answer path's
/// hints, and the only place that imports `CPrefetch` (a header of `__builtin_prefetch`, nothing
/// to link). A hint changes no result, only when lines arrive: each one is placed where the
/// code knows an address long enough before it reads it (docs/answer-path.md, "Prefetch").
enum Prefetch {
    /// Asks for the line at `address`, to be read, without waiting for it.
    @inline(__always)
    static func line(_ address: UnsafeRawPointer) { trellis_prefetch(address) }

    /// Asks for every line of the `count` bytes at `address`, to be read, without waiting for them.
    @inline(__always)
    static func bytes(_ address: UnsafeRawPointer?, count: Int) { trellis_prefetch_bytes(address, count) }
}
