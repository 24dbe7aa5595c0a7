#if canImport(Glibc)
import Glibc
#endif

/// A configuration directory read with the system's calls rather than Foundation's: `FileManager`
/// makes a URL per entry to list `screens/`, and `Data(contentsOf:)` is a copy more than one
/// `read` into the array — both on the path to `/readyz` at thousands of screens
/// (`scripts/bench-scale` times the start).
package enum ConfigFiles {
    /// Why the system would not list or read: `strerror` of its error.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String

        package init(errno code: Int32) { description = String(cString: strerror(code)) }
        package init(_ description: String) { self.description = description }
    }

    /// The names of the `*.json` entries of `directory`, hidden ones (`.name`) left out, sorted.
    package static func jsonFileNames(in directory: String) throws(Failure) -> [String] {
        guard let stream = opendir(directory) else { throw Failure(errno: errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw Failure(errno: errno) }
                break
            }
            let name = name(of: entry)
            if name.hasSuffix(".json"), name.utf8.count > 5, !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    /// The name of a directory entry, read up to its terminating zero and no further. An entry
    /// `readdir` returns is only as long as its name (`d_reclen`), not `sizeof(struct dirent)`:
    /// copying its 256-byte `d_name` read past the end of the last entry of the stream's buffer,
    /// and a reload of 10,004 screens once died there, on a page nothing was mapped at.
    package static func name(of entry: UnsafePointer<dirent>) -> String {
        let start = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \.d_name)!
        return String(cString: start.assumingMemoryBound(to: CChar.self))
    }

    /// The bytes of the file at `path`; one larger than `limit` is refused before it is read.
    package static func bytes(at path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return .failure(.unreadable(Failure(errno: errno))) }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { return .failure(.unreadable(Failure(errno: errno))) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { return .failure(.unreadable(Failure("not a regular file"))) }
        let size = Int(status.st_size)
        guard size <= limit else { return .failure(.tooLarge(size)) }
        // One byte more than the size, to learn of a file that grew since `fstat` (then read on).
        var (bytes, failure) = readChunk(file, capacity: size + 1)
        var filled = bytes.count == size + 1
        while failure == 0, filled, bytes.count <= limit {
            let (more, error) = readChunk(file, capacity: 64 << 10)
            bytes += more
            (failure, filled) = (error, more.count == 64 << 10)
        }
        if failure != 0 { return .failure(.unreadable(Failure(errno: failure))) }
        if bytes.count > limit { return .failure(.tooLarge(bytes.count)) }
        return .success(bytes)
    }

    /// Up to `capacity` bytes, fewer at the end of the file; and `errno` if a read failed.
    private static func readChunk(_ file: Int32, capacity: Int) -> ([UInt8], Int32) {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            initialized = 0
            while initialized < buffer.count {
                let read = Glibc.read(file, buffer.baseAddress! + initialized, buffer.count - initialized)
                if read > 0 {
                    initialized += read
                } else if read == 0 {
                    break
                } else if errno != EINTR {
                    failure = errno
                    break
                }
            }
        }
        return (bytes, failure)
    }

    package enum ReadFailure: Error {
        case unreadable(Failure)
        /// The file's size, over the limit.
        case tooLarge(Int)
    }
}
