#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Fixtures/fsync-probe/fsync_probe.c compiled into a shared library, to be loaded with LD_PRELOAD
/// into a process whose fsync and fdatasync calls a test wants to see (and a log those calls go to).
/// Shared by the store's and the server's durability tests.
public struct FsyncProbe: Sendable {
    /// The compiled shim.
    public let library: URL
    /// Where the shim appends one line per call, for a process started with ``environment``.
    public let log: URL

    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/fsync-probe/fsync_probe.c")

    /// Compiles the shim into `directory` with `cc` (or the Swift toolchain's `clang`).
    public init(in directory: URL) throws {
        library = directory.appendingPathComponent("fsync_probe.so")
        log = directory.appendingPathComponent("fsync.log")
        var printed = ""
        for compiler in ["cc", "clang"] {
            let cc = Process()
            cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            cc.arguments = [compiler, "-shared", "-fPIC", "-O2", "-o", library.path, Self.source.path, "-ldl"]
            let output = Pipe()
            cc.standardOutput = output
            cc.standardError = output
            try cc.run()
            printed += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            cc.waitUntilExit()
            if cc.terminationStatus == 0 { return }
        }
        throw Failure(description: "neither cc nor clang could build the fsync probe:\n\(printed)")
    }

    /// The environment (added to the current one) that loads the shim and names its log.
    public var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["LD_PRELOAD": library.path, "TRELLIS_FSYNC_LOG": log.path]) { _, new in new }
    }

    /// One call the shim saw.
    public struct Sync: Sendable {
        public var sequence: Int
        /// CLOCK_MONOTONIC, taken after the call returned.
        public var finished: Int64
        public var call: String
        public var result: Int
        public var path: String
    }

    /// Every call logged so far.
    public func syncs() throws -> [Sync] {
        guard FileManager.default.fileExists(atPath: log.path) else { return [] }
        return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5, let sequence = Int(fields[0]), let finished = Int64(fields[1]), let result = Int(fields[3]) else {
                return nil
            }
            return Sync(sequence: sequence, finished: finished, call: String(fields[2]), result: result, path: String(fields[4]))
        }
    }

    /// The indices of the `writes` during which no successful fsync or fdatasync of `path` finished:
    /// each write is the time its request was sent and the time its acknowledgement was read, so a
    /// write not listed had its file synced before it was acknowledged. Writes must not overlap (one
    /// writer, one at a time), so each sync is counted for one write at most.
    public func unsynced(_ writes: [ClosedRange<Int64>], path: String) throws -> [Int] {
        let times = try syncs().filter { $0.result == 0 && $0.path == path }.map(\.finished)
        return writes.indices.filter { i in !times.contains { writes[i].contains($0) } }
    }

    /// Now on CLOCK_MONOTONIC, the clock the shim stamps its lines with (one clock for every process).
    public static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// `path` with symbolic links resolved, as the shim reads it from /proc/self/fd.
    public static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }
}
