/// Calls `body` with the bytes of `bytes` in contiguous memory, copying only when the collection
/// does not store them contiguously (arrays and native strings' `utf8` do).
///
/// The pointer is never nil, even for an empty collection: libcrypto treats a null key in `HMAC`
/// as "reuse the previous key" in some versions, so an empty input gets a valid address of length 0.
@inline(__always)
func withContiguousBytes<Bytes: Collection<UInt8>, Result>(
    _ bytes: Bytes, _ body: (UnsafeRawPointer, Int) -> Result
) -> Result {
    let direct = bytes.withContiguousStorageIfAvailable { buffer in
        withNonNullBase(UnsafeRawBufferPointer(buffer), body)
    }
    if let direct { return direct }
    return Array(bytes).withUnsafeBytes { withNonNullBase($0, body) }
}

@inline(__always)
private func withNonNullBase<Result>(_ buffer: UnsafeRawBufferPointer, _ body: (UnsafeRawPointer, Int) -> Result) -> Result {
    if let base = buffer.baseAddress { return body(base, buffer.count) }
    var placeholder: UInt8 = 0
    return withUnsafePointer(to: &placeholder) { body(UnsafeRawPointer($0), 0) }
}
