import ArgumentParser
import Foundation
import TrellisRuntime
import TrellisStore

/// `trellis backup`: a consistent copy of the runtime store, taken while the server runs.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the runtime store (rollouts, experiments, screen revisions, audit log) while the server runs.",
        discussion: """
            Uses SQLite's online backup API, so the copy is consistent even while writes go on. To restore, stop the \
            server and put the copy in place as DATA_DIR/\(SQLiteStore.fileName) (see docs/operations.md).
            """)

    @Option(name: .customLong("data-dir"), help: "The server's data directory.")
    var dataDir = "data"

    @Option(name: .customLong("to"), help: "The file to write; it must not exist yet.")
    var destination: String

    func run() throws {
        let source = URL(fileURLWithPath: dataDir).appendingPathComponent(SQLiteStore.fileName).path
        // Opening a missing store would create an empty one and back that up: refuse instead.
        guard FileManager.default.fileExists(atPath: source) else {
            throw CommandFailure("no runtime store at \(source); is --data-dir the server's data directory?")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw CommandFailure("\(destination) exists; choose a new file name")
        }
        do {
            try SQLiteStore(path: source).backup(to: destination)
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw CommandFailure("backup failed: \(error)")
        }
        print("backed up \(source) to \(destination)")
    }
}
