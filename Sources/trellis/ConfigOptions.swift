import ArgumentParser
import Foundation
import TrellisJSON
import TrellisRuntime
import TrellisServer

/// Options every command that reads a configuration directory shares.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "A directory shaped like Config/: server.json and screens/.")
    var config = "Config"

    @Option(name: .long, help: "Address to listen on: an IPv4 or IPv6 address, or * for both families.")
    var host: String?

    @Option(name: .long, help: "Port to listen on (0 picks a free one).")
    var port: Int?

    @Option(name: .customLong("data-dir"), help: "Directory for runtime state.")
    var dataDir: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?

    @Option(name: .customLong("set"), help: ArgumentHelp("Any setting of server.json, e.g. limits.maxBodyBytes=2097152.", valueName: "name=value"))
    var settings: [String] = []

    var directory: URL { URL(fileURLWithPath: config, isDirectory: true) }

    /// server.json, then TRELLIS_* environment variables, then flags.
    func loadConfiguration() throws -> ServerConfiguration {
        var overrides: [SettingOverride] = []
        for setting in settings {
            guard let eq = setting.firstIndex(of: "=") else {
                throw ValidationError("--set takes name=value, not \"\(setting)\"")
            }
            overrides.append(SettingOverride(name: String(setting[..<eq]), value: String(setting[setting.index(after: eq)...]), origin: "--set"))
        }
        let flags: [(String, String?, String)] = [
            ("host", host, "--host"), ("port", port.map(String.init), "--port"),
            ("dataDirectory", dataDir, "--data-dir"), ("logLevel", logLevel, "--log-level"),
        ]
        for (name, value, flag) in flags {
            if let value { overrides.append(SettingOverride(name: name, value: value, origin: flag)) }
        }
        let file = directory.appendingPathComponent("server.json")
        let bytes = FileManager.default.contents(atPath: file.path).map { [UInt8]($0) }
        let result = ServerConfiguration.load(
            fileBytes: bytes, source: "server.json", environment: ProcessInfo.processInfo.environment, overrides: overrides)
        return try result.mapError { CommandFailure($0.description) }.get()
    }
}

/// A failure already described for the user; printed as is, exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
