/// Writes bytes through a pointer into room an array made for them beforehand
/// (``Swift/Array/appendWriting(atMost:_:)``). A log line is some twenty small pieces, and
/// `Array.append(contentsOf:)` checks uniqueness and capacity for each (about 90 instructions a
/// piece); here a piece is a bounds check and a copy.
struct ByteCursor {
    private(set) var position: UnsafeMutablePointer<UInt8>
    private let end: UnsafeMutablePointer<UInt8>

    init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        position = room.baseAddress!
        end = position + room.count
    }

    /// Stops the process rather than write past the room: the caller's bound was wrong, and a
    /// write past it would corrupt the array.
    @inline(__always) private func claim(_ count: Int) {
        precondition(count <= end - position, "ByteCursor: more bytes than the room made for them")
    }

    @inline(__always) mutating func put(_ byte: UInt8) {
        claim(1)
        position.pointee = byte
        position += 1
    }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        claim(bytes.count)
        position.update(from: base, count: bytes.count)
        position += bytes.count
    }

    mutating func put(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { put($0) } }

    @inline(__always) mutating func put(literal: StaticString) {
        put(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func put(utf8 string: String) { HTTPBytes.withBytes(string) { put($0) } }

    /// `n` in decimal; a negative `n` as `0`.
    mutating func put(decimal n: Int) {
        var n = max(n, 0), digits = 1, rest = n
        while rest >= 10 { rest /= 10; digits += 1 }
        claim(digits)
        var digit = position + digits
        repeat {
            digit -= 1
            digit.pointee = UInt8(48 + n % 10)
            n /= 10
        } while n > 0
        position += digits
    }
}

extension Array where Element == UInt8 {
    /// Appends what `write` puts through its cursor: at most `maxCount` bytes, which the array
    /// makes room for first (the cursor stops the process past them).
    mutating func appendWriting<R>(atMost maxCount: Int, _ write: (inout ByteCursor) -> R) -> R {
        let start = count, maxCount = Swift.max(maxCount, 1)  // room for one: never an empty buffer without an address
        var left = maxCount
        while left > 0 {
            let n = Swift.min(left, zeroPage.count)
            zeroPage.withUnsafeBufferPointer { append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<n])) }
            left -= n
        }
        let (result, written) = withUnsafeMutableBufferPointer { all in
            let room = UnsafeMutableBufferPointer(rebasing: all[start...])
            var cursor = ByteCursor(room)
            let result = write(&cursor)
            return (result, cursor.position - room.baseAddress!)
        }
        removeLast(maxCount - written)
        return result
    }
}

/// What ``Swift/Array/appendWriting(atMost:_:)`` grows an array by, a page at a time: one copy,
/// where `repeatElement(0, count:)` was stored a byte at a time.
private let zeroPage = [UInt8](repeating: 0, count: 4096)
