import ArgumentParser
import Foundation
import TrellisJSON
import TrellisRoutes
import TrellisRuntime
import TrellisScreens
import TrellisServer
import TrellisStore
import TrellisStrings
import TrellisTargeting

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

            A whole configuration that passes is summarised on one line (how many screens, templates, rules, \
            rollouts, experiments and routes); --verbose lists their names too.
            """)

    @OptionGroup var options: ConfigOptions

    @Argument(help: ArgumentHelp("Screen files or folders of them to check, instead of the whole configuration.", valueName: "path"))
    var paths: [String] = []

    @Flag(name: .long, help: "After the summary of a whole configuration, list the ids of its screens, templates, rules, rollouts and experiments.")
    var verbose = false

    func validate() throws {
        if !paths.isEmpty && options.dataDir != nil {
            throw ValidationError("--data-dir checks a whole configuration; give it without PATHs")
        }
    }

    func run() throws {
        guard paths.isEmpty else { return try ScreenFiles(paths: paths, config: options.directory).check() }
        let settings = try options.loadConfiguration()
        let loader = ConfigLoader(directory: options.directory, defaultLocale: settings.strings.defaultLocale)
        guard options.dataDir != nil else {
            switch loader.load(previous: nil) {
            case .success(let snapshot): report("ok: server.json, \(Self.summary(snapshot))", snapshot)
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
            report("ok: server.json, \(Self.summary(snapshot)) and the runtime store at \(path) (\(Self.count(overrides, "runtime value")))", snapshot)
        } catch let error as StartError {
            if case .config(let loadError) = error { throw Self.failure(loadError) }
            throw CommandFailure(error.description)
        }
    }

    /// Prints the summary line, a warning for each locale whose table lacks a translation, and,
    /// with --verbose, the names it counts, one kind a line.
    private func report(_ line: String, _ snapshot: Snapshot) {
        print(line)
        for warning in Self.translationWarnings(snapshot) { print(warning) }
        guard verbose else { return }
        for (kind, names) in Self.names(snapshot) where !names.isEmpty {
            print("\(kind): \(names.joined(separator: ", "))")
        }
    }

    /// "1,004 screens, 3 templates, 4 rules, 52 rollouts, 7 experiments, 22 routes": what the snapshot
    /// holds, counted (routes only when there is a route table).
    static func summary(_ snapshot: Snapshot) -> String {
        var parts = [
            count(snapshot.screens.count, "screen"), count(snapshot.templates.templates.count, "template"),
            count(snapshot.targeting.rules.count, "rule"), count(snapshot.targeting.rollouts.count, "rollout"),
            count(snapshot.targeting.experiments.count, "experiment"),
        ]
        if let routes = snapshot.routes { parts.append(count(routes.table.routes.count, "route")) }
        if !snapshot.strings.tables.isEmpty { parts.append(count(snapshot.strings.tables.count, "string table")) }
        return parts.joined(separator: ", ")
    }

    /// "warning: strings/de: 2 of 14 keys not translated (86 %): cart.items, home.title" — a
    /// translation not made yet is shown in the default locale's text, never refused — and keys
    /// a table has that the default's does not, which can never be shown.
    static func translationWarnings(_ snapshot: Snapshot) -> [String] {
        snapshot.strings.coverage().flatMap { coverage -> [String] in
            var lines: [String] = []
            if !coverage.missing.isEmpty {
                let share = Int((coverage.translated * 100).rounded(.down))
                lines.append(
                    "warning: strings/\(coverage.locale): \(coverage.missing.count) of \(coverage.keys) keys not translated (\(share) % translated): \(coverage.missing.joined(separator: ", "))")
            }
            if !coverage.unknown.isEmpty {
                lines.append("warning: strings/\(coverage.locale): keys the default locale's table does not have: \(coverage.unknown.joined(separator: ", "))")
            }
            for (key, names) in coverage.extraArguments.sorted(by: { $0.key < $1.key }) {
                lines.append("warning: strings/\(coverage.locale): \"\(key)\" names arguments the default's message does not: \(names.joined(separator: ", "))")
            }
            return lines
        }
    }

    /// The ids `summary` counts, sorted, by kind.
    static func names(_ snapshot: Snapshot) -> [(String, [String])] {
        [
            ("screens", snapshot.screens.keys.sorted()), ("templates", snapshot.templates.templates.keys.sorted()),
            ("rules", snapshot.targeting.rules.keys.sorted()), ("rollouts", snapshot.targeting.rollouts.keys.sorted()),
            ("experiments", snapshot.targeting.experiments.keys.sorted()),
        ]
    }

    /// "1 screen", "1,004 screens": the number with thousands separators, and the noun in the plural unless it is 1.
    static func count(_ number: Int, _ noun: String) -> String {
        "\(grouped(number)) \(noun)\(number == 1 ? "" : "s")"
    }

    /// 1004 → "1,004" (English grouping, whatever the locale).
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return number < 0 ? "-" + out : out
    }

    static func failure(_ error: ConfigLoadError) -> CommandFailure {
        let count = error.errors.reduce(0) { $0 + $1.diagnostics.count }
        return CommandFailure(
            error.description + "\n\(count) problem\(count == 1 ? "" : "s") in \(error.errors.count) file\(error.errors.count == 1 ? "" : "s")")
    }
}
