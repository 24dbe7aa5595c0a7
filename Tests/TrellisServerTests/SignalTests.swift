import Foundation
import Testing
import TrellisRuntime

/// `trellis serve` handles its signals through libdispatch's signalfd, which gets a signal only
/// while every thread blocks it: a thread that could take one first (the main thread, an event
/// loop) made a SIGTERM sent just after a start go unhandled now and then.
@Suite struct SignalTests {
    static let handled: [Int32] = [SIGHUP, SIGINT, SIGUSR1, SIGTERM]

    @Test func everyThreadOfTheServerBlocksTheSignalsItHandles() throws {
        let config = try TemporaryConfig()
        let binary = try ServedBinary(config: config)
        // Started with nothing blocked, as a shell or an init system starts it (the test
        // process's own threads block SIGTERM, and a child inherits its parent thread's mask).
        try Self.withHandledSignalsUnblocked { try binary.start() }
        let process = try #require(binary.process)
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/task")
        #expect(tasks.count >= 3, "the main thread, the event loops and libdispatch's")
        for task in tasks {
            let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/task/\(task)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") })
            let blocked = try #require(UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16))
            for signal in Self.handled {
                #expect(blocked & (1 << UInt64(signal - 1)) != 0, "thread \(task) does not block signal \(signal): \(line)")
            }
        }
        binary.stop()
        #expect(process.terminationStatus == 0)
    }

    /// Runs `body` with the handled signals unblocked in this thread.
    static func withHandledSignalsUnblocked<T>(_ body: () throws -> T) rethrows -> T {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in handled { sigaddset(&set, signal) }
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &set, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }
}
