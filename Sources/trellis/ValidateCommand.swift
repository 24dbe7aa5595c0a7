import ArgumentParser
import TrellisJSON
import TrellisServer

/// `trellis validate`: checks a configuration directory the way `serve` and a reload would.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check server.json and every screen; print each problem with file, JSON path and line.")

    @OptionGroup var options: ConfigOptions

    func run() throws {
        _ = try options.loadConfiguration()
        switch ConfigLoader(directory: options.directory).load(previous: nil) {
        case .success(let snapshot):
            let ids = snapshot.screens.keys.sorted().joined(separator: ", ")
            print("ok: server.json and \(snapshot.screens.count) screens (\(ids))")
        case .failure(let error):
            let count = error.errors.reduce(0) { $0 + $1.diagnostics.count }
            throw CommandFailure(error.description + "\n\(count) problem\(count == 1 ? "" : "s") in \(error.errors.count) file\(error.errors.count == 1 ? "" : "s")")
        }
    }
}
