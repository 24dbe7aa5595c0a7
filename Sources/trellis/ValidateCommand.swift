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

            With PATHs, checks only those screens, for an editor or a pre-commit hook: each *.json file given, or \
            found in a folder given (not in its subfolders), is decoded as a screen whose id must be its file name, \
            and the rules, rollouts and experiments it names are checked against the targeting.json of --config. \
            Prints "ok: PATH" or every problem with path and line; exits 1 on any problem. Links are checked \
            against the route table only when the whole configuration is (without PATHs).
            """)

    @OptionGroup var options: ConfigOptions

    @Argument(help: ArgumentHelp("Screen files or folders of them to check, instead of the whole configuration.", valueName: "path"))
    var paths: [String] = []

    func validate() throws {
        if !paths.isEmpty && options.dataDir != nil {
            throw ValidationError("--data-dir checks a whole configuration; give it without PATHs")
        }
    }

    func run() throws {
        guard paths.isEmpty else { return try ScreenFiles(paths: paths, config: options.directory).check() }
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
            let overrides = snapshot.runtime.documentCount
            print("ok: server.json, \(Self.screens(snapshot)) and the runtime store at \(path) (\(overrides) runtime values)")
        } catch let error as StartError {
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
