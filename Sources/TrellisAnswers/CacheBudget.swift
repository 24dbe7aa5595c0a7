import Foundation

/// The bytes the answer cache of each snapshot may hold: `cache.maxBytes` in `server.json` (read
/// by the server), or a share of the memory this process may use. Fixed when the server starts.
public struct CacheBudget: Sendable, Equatable {
    public let maxBytes: Int

    public init(maxBytes: Int) { self.maxBytes = maxBytes }

    /// ``SnapshotCacheLimits/defaultShareOfMemory`` of `memory`, within
    /// ``SnapshotCacheLimits/defaultBytes``; the least of those when the memory is unknown.
    public static func `default`(forMemory memory: Int?) -> CacheBudget {
        let bounds = SnapshotCacheLimits.defaultBytes
        guard let memory else { return CacheBudget(maxBytes: bounds.lowerBound) }
        return CacheBudget(maxBytes: min(max(memory / SnapshotCacheLimits.defaultShareOfMemory, bounds.lowerBound), bounds.upperBound))
    }

    /// The budget of a server whose `server.json` says nothing (``default(forMemory:)`` of
    /// ``MachineMemory/usableBytes()``), read once: what a cache made without a budget gets
    /// (`trellis validate`, tests).
    public static let forThisMachine = CacheBudget.default(forMemory: MachineMemory.usableBytes())
}

/// How much memory this process may use: the machine's, or its control group's limit when that
/// is lower (a container's memory limit).
public enum MachineMemory {
    /// The least of physical memory and every cgroup limit that applies; nil when none can be read.
    public static func usableBytes() -> Int? {
        let files = cgroupLimitFiles(ownGroups: try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8))
        let limits = files.compactMap { path in cgroupLimit(try? String(contentsOfFile: path, encoding: .utf8)) }
        return ([physicalBytes()].compactMap { $0 } + limits).min()
    }

    /// `sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE)`.
    static func physicalBytes() -> Int? {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, pageSize > 0 else { return nil }
        return pages.multipliedReportingOverflow(by: pageSize).overflow ? Int.max : pages * pageSize
    }

    /// A cgroup limit file's contents as bytes: nil for `max` (cgroup v2: no limit), for nothing
    /// (no such file) and for anything else that is not a positive number. cgroup v1 writes an
    /// unlimited group's limit as a number near 2^63, which physical memory undercuts.
    static func cgroupLimit(_ contents: String?) -> Int? {
        guard let text = contents?.trimmingCharacters(in: .whitespacesAndNewlines), let bytes = Int(text), bytes > 0 else { return nil }
        return bytes
    }

    /// Where the memory limits of this process's control group may be: at the root of the
    /// hierarchy (what a container with its own cgroup namespace sees of its group) and at the
    /// process's own group, named in `ownGroups` (`/proc/self/cgroup`: `0::/path` for cgroup v2,
    /// `N:memory:/path` for v1), for v2's `memory.max` and v1's `memory.limit_in_bytes`.
    static func cgroupLimitFiles(ownGroups: String?) -> [String] {
        var files = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
        for line in (ownGroups ?? "").split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[2] != "/" else { continue }
            let path = String(fields[2])
            if fields[0] == "0" && fields[1].isEmpty {
                files.append("/sys/fs/cgroup" + path + "/memory.max")
            } else if fields[1].split(separator: ",").contains("memory") {
                files.append("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes")
            }
        }
        return files
    }
}
