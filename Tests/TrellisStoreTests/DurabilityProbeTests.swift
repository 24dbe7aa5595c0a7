import Foundation
import Testing
import TrellisTesting

@testable import TrellisStore

/// The store's durability settings, read back from the connections GRDB opened, and every commit's
/// fsync of the WAL seen happen before ``SQLiteStore/commit(_:)`` returns — with the check shown to
/// catch a store opened with `synchronous=NORMAL`, which in WAL mode does not sync at commit.
///
/// The fsyncs are seen by Fixtures/fsync-probe/fsync_probe.c, an LD_PRELOAD shim. LD_PRELOAD acts
/// only when a process starts, so the commits run in a child: this test binary again, running only
/// ``commitsInAChildProcess()`` with the shim loaded and the level to open the store with.
@Suite struct DurabilityProbeTests {
    @Test func theLiveConnectionsAreWALWithSynchronousFull() throws {
        let t = try TemporaryStore()
        let settings = try t.store.durabilitySettings()
        #expect(settings.writer == DurabilitySettings(journalMode: "wal", synchronous: 2))
        #expect(settings.reader == DurabilitySettings(journalMode: "wal", synchronous: 2))
        // The accessor reads the connection, not a constant: a store opened otherwise says so.
        let normal = try SQLiteStore(path: t.directory.appendingPathComponent("normal.sqlite").path, synchronous: .normal)
        #expect(try normal.durabilitySettings().writer == DurabilitySettings(journalMode: "wal", synchronous: 1))
    }

    static let commits = 20

    /// The probe's verdict on `commits` commits made by a child process on a store opened with `level`:
    /// the commits during which the WAL was not synced, and how many syncs of the WAL there were.
    static func probe(_ level: SQLiteStore.Synchronous) throws -> (unsynced: [Int], walSyncs: Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-fsync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let probe = try FsyncProbe(in: directory)

        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["--testing-library", "swift-testing", "--filter", "DurabilityProbeTests/commitsInAChildProcess"]
        child.environment = probe.environment.merging(["TRELLIS_FSYNC_PROBE_DIRECTORY": directory.path, "TRELLIS_FSYNC_PROBE_SYNCHRONOUS": level.rawValue]) { _, new in new }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw FsyncProbe.Failure(description: "the child failed:\n\(printed)") }

        let intervals = try String(contentsOf: directory.appendingPathComponent("commits"), encoding: .utf8).split(separator: "\n").map { line in
            let times = line.split(separator: " ").compactMap { Int64($0) }
            return times[0]...times[1]
        }
        guard intervals.count == commits else { throw FsyncProbe.Failure(description: "the child made \(intervals.count) commits:\n\(printed)") }
        let wal = FsyncProbe.resolved(directory.path) + "/" + SQLiteStore.fileName + "-wal"
        return (try probe.unsynced(intervals, path: wal), try probe.syncs().filter { $0.path == wal && $0.result == 0 }.count)
    }

    @Test func everyCommitSyncsTheWALBeforeItReturns() throws {
        let full = try Self.probe(.full)
        #expect(full.unsynced == [], "commits acknowledged without an fsync of the WAL: \(full.unsynced)")
        #expect(full.walSyncs >= Self.commits)
        let extra = try Self.probe(.extra)
        #expect(extra.unsynced == [])
    }

    /// The negative control: the same check on a store opened with `synchronous=NORMAL` finds the
    /// commits that returned with the WAL not synced (under WAL, NORMAL syncs only at checkpoints).
    @Test func theCheckCatchesSynchronousNormal() throws {
        let normal = try Self.probe(.normal)
        print("synchronous=NORMAL: \(normal.unsynced.count) of \(Self.commits) commits returned without an fsync of the WAL (\(normal.walSyncs) WAL syncs in all)")
        #expect(normal.unsynced == Array(0..<Self.commits), "the probe missed NORMAL's unsynced commits: \(normal.unsynced)")
    }

    /// Runs only in the child ``probe(_:)`` starts: opens a store with the level it is given, checks the
    /// connection has it, and makes ``commits`` commits, writing when each began and returned.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TRELLIS_FSYNC_PROBE_DIRECTORY"] != nil, "runs in the child process of the fsync probe"))
    func commitsInAChildProcess() throws {
        let environment = ProcessInfo.processInfo.environment
        let directory = URL(fileURLWithPath: try #require(environment["TRELLIS_FSYNC_PROBE_DIRECTORY"]))
        let level = try #require(environment["TRELLIS_FSYNC_PROBE_SYNCHRONOUS"].flatMap(SQLiteStore.Synchronous.init(rawValue:)))
        let store = try SQLiteStore(path: directory.appendingPathComponent(SQLiteStore.fileName).path, synchronous: level)
        let expected = ["FULL": 2, "EXTRA": 3, "NORMAL": 1][level.rawValue]
        #expect(try store.durabilitySettings().writer.synchronous == expected)
        var lines = ""
        for i in 1...Self.commits {
            let document = StoredDocument(
                kind: "rollout", key: "banner", body: Array(#"{"percentage":\#(i)}"#.utf8), revision: i, updatedAt: 1_800_000_000,
                updatedBy: "ops")
            let start = FsyncProbe.now()
            try store.commit(StoreChange(documents: [document], audit: [audit("rollouts/banner")]))
            lines += "\(start) \(FsyncProbe.now())\n"
        }
        try Data(lines.utf8).write(to: directory.appendingPathComponent("commits"))
    }
}
