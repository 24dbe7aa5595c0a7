import Foundation
import Testing
import TrellisTesting

@testable import TrellisStore

/// Acknowledged means durable for apps' events too: the event store's connections run WAL with
/// `synchronous=FULL`, and every append's fsync of the WAL is seen to happen before ``SQLiteEventStore/append(_:)``
/// returns (the same LD_PRELOAD probe as DurabilityProbeTests, whose negative control shows the
/// probe catches a store that does not sync at commit).
@Suite struct EventStoreDurabilityTests {
    static let appends = 20

    @Test func theEventStoresConnectionsAreWALWithSynchronousFull() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteEventStore(path: directory.appendingPathComponent(SQLiteEventStore.fileName).path)
        let settings = try store.durabilitySettings()
        #expect(settings.writer == DurabilitySettings(journalMode: "wal", synchronous: 2))
        #expect(settings.reader == DurabilitySettings(journalMode: "wal", synchronous: 2))
    }

    @Test func everyAppendSyncsTheWALBeforeItReturns() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-events-fsync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let probe = try FsyncProbe(in: directory)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["--testing-library", "swift-testing", "--filter", "EventStoreDurabilityTests/appendsInAChildProcess"]
        child.environment = probe.environment.merging(["TRELLIS_EVENT_FSYNC_PROBE_DIRECTORY": directory.path]) { _, new in new }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        try #require(child.terminationStatus == 0, "the child failed:\n\(printed)")
        let intervals = try String(contentsOf: directory.appendingPathComponent("appends"), encoding: .utf8).split(separator: "\n").map { line in
            let times = line.split(separator: " ").compactMap { Int64($0) }
            return times[0]...times[1]
        }
        try #require(intervals.count == Self.appends, "the child made \(intervals.count) appends:\n\(printed)")
        let wal = FsyncProbe.resolved(directory.path) + "/" + SQLiteEventStore.fileName + "-wal"
        #expect(try probe.unsynced(intervals, path: wal) == [], "appends acknowledged without an fsync of the WAL")
    }

    /// Runs only in the child the probe starts: appends ``appends`` batches, writing when each began and returned.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TRELLIS_EVENT_FSYNC_PROBE_DIRECTORY"] != nil, "runs in the child process of the fsync probe"))
    func appendsInAChildProcess() throws {
        let directory = URL(fileURLWithPath: try #require(ProcessInfo.processInfo.environment["TRELLIS_EVENT_FSYNC_PROBE_DIRECTORY"]))
        let store = try SQLiteEventStore(path: directory.appendingPathComponent(SQLiteEventStore.fileName).path)
        var lines = ""
        for i in 1...Self.appends {
            let batch = EventBatch(events: [TrackedEvent(id: "e\(i)", user: "u\(i)", name: "purchase", value: 1, at: 1_800_000_000, receivedAt: 1_800_000_000)])
            let start = FsyncProbe.now()
            try store.append(batch)
            lines += "\(start) \(FsyncProbe.now())\n"
        }
        try Data(lines.utf8).write(to: directory.appendingPathComponent("appends"))
    }
}
