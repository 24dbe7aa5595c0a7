import CZlib

/// gzip (RFC 1952) through zlib, the same code for on-the-fly compression in the server and for
/// bodies an application compresses ahead of time.
public enum Gzip {
    /// Why `decompress` refused its input.
    public enum Error: Swift.Error, Equatable {
        case corrupt
        case tooLarge
    }

    /// When a body is worth compressing and how hard: one policy for the bodies the server
    /// compresses on the fly and for those an application compresses ahead of time.
    public enum Policy {
        /// Bodies smaller than this are sent as they are: gzip's 18-byte frame and a small
        /// body's poor ratio eat the gain (nginx's `gzip_min_length` is 20; 256 is where it pays).
        public static let minimumBytes = 256
        /// For a body compressed once and sent many times: the best ratio is worth its CPU.
        public static let compressedOnceLevel = 9
        /// For a body compressed for one or a few requests (on the fly; a client's own viewport):
        /// level 6 costs about half of level 9 for a few more bytes.
        public static let perRequestLevel = 6
        /// For a body made for one request and not kept: the cheapest compression.
        public static let singleUseLevel = 1
    }

    /// Compresses `bytes` into one gzip member.
    /// - Parameters:
    ///   - bytes: the identity-coded bytes.
    ///   - level: zlib level, clamped to 1…9; ``Policy/perRequestLevel`` (zlib's default, 6) unless told.
    /// - Returns: the gzip stream (header, deflate data, CRC-32 and size trailer).
    public static func compress(_ bytes: [UInt8], level: Int = Policy.perRequestLevel) -> [UInt8] {
        bytes.withUnsafeBytes { compress($0, level: level) }
    }

    /// The same, of bytes where they lie (a body an object keeps, ``SharedBytes``): no array of
    /// them made first.
    public static func compress(_ bytes: UnsafeRawBufferPointer, level: Int = Policy.perRequestLevel) -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16 = 31 asks zlib for a gzip wrapper instead of zlib's own.
        let status = deflateInit2_(
            &stream, Int32(min(max(level, 1), 9)), Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed (\(status)): out of memory")
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let produced: Int = output.withUnsafeMutableBufferPointer { out in
            stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
            stream.avail_in = uInt(bytes.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            let result = deflate(&stream, Z_FINISH)
            precondition(result == Z_STREAM_END, "deflate into deflateBound bytes did not finish (\(result))")
            return out.count - Int(stream.avail_out)
        }
        output.removeSubrange(produced...)
        return output
    }

    /// Decompresses a gzip stream (one or more members).
    /// - Parameter maxBytes: the most output accepted, against decompression bombs. Default 64 MiB.
    /// - Throws: `Gzip.Error.corrupt` for anything but a complete valid stream, `.tooLarge` past `maxBytes`.
    public static func decompress(_ bytes: [UInt8], maxBytes: Int = 64 << 20) throws(Gzip.Error) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, 31, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .corrupt
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var result: Int32 = Z_OK
        bytes.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    result = inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
                }
                // A new member may follow the end of one (RFC 1952 §2.2).
                if result == Z_STREAM_END && stream.avail_in > 0 {
                    result = inflateReset(&stream)
                }
            } while result == Z_OK && output.count <= maxBytes && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        if output.count > maxBytes { throw .tooLarge }
        guard result == Z_STREAM_END else { throw .corrupt }
        return output
    }
}
