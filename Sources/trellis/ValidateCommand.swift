import ArgumentParser
import Foundation
import TrellisJSON
import TrellisRoutes
import TrellisServer
import TrellisStore

/// `trellis validate`: checks a configuration directory the way `serve` and a reload would.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check server.json and every screen; print each problem with file, JSON path and line.",
        discussion: """
            With --data-dir, also checks the runtime store there (what ops changed through the admin API) against \
            the configuration, as a start or a reload would, and writes nothing: run it before sending SIGHUP.
            """)

    @OptionGroup var options: ConfigOptions

    func run() throws {
        let settings = try options.loadConfiguration()
        let loader = ConfigLoader(directory: options.directory)
        guard options.dataDir != nil else {
            switch loader.load(previous: nil) {
            case .success(let snapshot): print("ok: server.json and \(Self.screens(snapshot))")
            case .failure(let error): throw Self.failure(error)
            }
            return
        }
        let path = settings.dataDirectory + "/" + SQLiteStore.fileName
        // Opening a missing store would create one: there is nothing runtime to check.
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("no runtime store at \(path); without --data-dir only the configuration is checked")
        }
        do {
            let snapshot = try ControlPlane.check(loader: loader, store: try SQLiteStore(path: path), now: ServerState.wallClock())
            let overrides = snapshot.runtime.rollouts.count + snapshot.runtime.experiments.count
            print("ok: server.json, \(Self.screens(snapshot)) and the runtime store at \(path) (\(overrides) runtime values)")
        } catch let error as ControlPlane.StartError {
            if case .config(let loadError) = error { throw Self.failure(loadError) }
            throw CommandFailure(error.description)
        }
    }

    static func screens(_ snapshot: Snapshot) -> String {
        let screens = "\(snapshot.screens.count) screens (\(snapshot.screens.keys.sorted().joined(separator: ", ")))"
        guard let routes = snapshot.routes else { return screens }
        return screens + ", \(routes.table.routes.count) routes"
    }

    static func failure(_ error: ConfigLoadError) -> CommandFailure {
        let count = error.errors.reduce(0) { $0 + $1.diagnostics.count }
        return CommandFailure(
            error.description + "\n\(count) problem\(count == 1 ? "" : "s") in \(error.errors.count) file\(error.errors.count == 1 ? "" : "s")")
    }
}
