import ArgumentParser
import Foundation
import TrellisJSON
import TrellisRuntime
import TrellisServer
import TrellisStore
import TrellisTargeting

/// `trellis results KEY`: an experiment's results, read from the stores a server of this
/// configuration uses (the data directory's, or `storage.url`), as `GET /admin/experiments/KEY/results`
/// answers them.
struct ResultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "results",
        abstract: "An experiment's results: per metric and variant against control, GrowthBook's figures.",
        discussion: """
            Reads the runtime store (the experiment and its metrics) and the event store of --data-dir, or of \
            storage.url when server.json names a PostgreSQL database, and prints a table: users, mean, relative \
            lift with its confidence interval, p-value, the sequential p-value and the Bayesian chance to win of \
            each variant against control, and the sample-ratio-mismatch check. --json prints the answer of \
            GET /admin/experiments/KEY/results. Writes nothing.
            """)

    @OptionGroup var options: ConfigOptions

    @Argument(help: "The experiment's key.")
    var key: String

    @Option(name: .long, help: "Break the figures down by platform, appVersion or country.")
    var dimension: String?

    @Option(name: .customLong("as-of"), help: "Count only what happened before this time (RFC 3339).")
    var asOf: String?

    @Flag(name: .long, help: "Print the JSON answer instead of a table.")
    var json = false

    func run() throws {
        let settings = try options.loadConfiguration()
        let dimension = try dimension.map { text -> MetricQuery.Dimension in
            guard let dimension = MetricQuery.Dimension(rawValue: text) else { throw ValidationError("--dimension: platform, appVersion or country") }
            return dimension
        }
        let now = ServerState.wallClock()
        let asOf = try asOf.map { text -> Double in
            guard let at = RFC3339.seconds(from: text) else { throw ValidationError("--as-of: a time such as 2026-12-02T15:00:00Z") }
            return at
        } ?? now
        let snapshot: Snapshot
        let events: any EventStore
        do {
            let runtimeStore: any RuntimeStore
            if let url = settings.storage.url {
                runtimeStore = try PostgresStore(url: url)
            } else {
                let path = settings.dataDirectory + "/" + SQLiteStore.fileName
                guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("no runtime store at \(path): is --data-dir the server's?") }
                runtimeStore = try SQLiteStore(path: path)
            }
            snapshot = try ControlPlane.check(loader: ConfigLoader(directory: options.directory), store: runtimeStore, now: now)
            events = try Application.openEventStore(settings)
        } catch let error as StartError {
            throw CommandFailure(error.description)
        } catch let error as StoreError {
            throw CommandFailure(error.description)
        }
        let results: JSONValue
        switch Result(catching: { () throws(Refusal) in try ExperimentResults.compute(key, in: snapshot, store: events, asOf: asOf, dimension: dimension) }) {
        case .success(let computed): results = computed
        case .failure(let refusal): throw CommandFailure(refusal.summary)
        }
        if json {
            print(String(decoding: JSONWriter.encode(results, style: .pretty), as: UTF8.self))
        } else {
            print(Self.table(results), terminator: "")
        }
    }

    /// The answer as people read it: one block per metric, one line per variant.
    static func table(_ results: JSONValue) -> String {
        var out = ""
        let users = results["variants"]?.arrayValue?.map { "\($0["name"]?.stringValue ?? "?") \(int($0["users"]))" } ?? []
        out += "\(results["experiment"]?.stringValue ?? "") as of \(results["asOf"]?.stringValue ?? ""): \(users.joined(separator: ", ")) users"
        if let multiple = results["multipleExposures"]?.numberValue, multiple > 0 { out += "; \(Int(multiple)) in several variants, left out" }
        out += "\n"
        if let srm = results["srm"] {
            out += "sample ratio: p = \(number(srm["pValue"], 4))"
            if let warning = srm["warning"]?.stringValue { out += "  WARNING: \(warning)" }
            out += "\n"
        }
        for metric in results["metrics"]?.arrayValue ?? [] {
            out += "\n\(metric["metric"]?.stringValue ?? "") (\(metric["role"]?.stringValue ?? ""), \(metric["type"]?.stringValue ?? "")"
            out += metric["higherIsBetter"]?.boolValue == false ? ", lower is better" : ""
            out += metric["cuped"]?.boolValue == true ? ", CUPED" : ""
            out += ")\n"
            if let error = metric["error"]?.stringValue {
                out += "  \(error)\n"
                continue
            }
            out += "  variant          users        mean     lift  interval (95%)         p      seq. p  chance to win\n"
            for variant in metric["variants"]?.arrayValue ?? [] {
                let name = (variant["variant"]?.stringValue ?? "").padding(toLength: 14, withPad: " ", startingAt: 0)
                var line = "  \(name) \(pad(int(variant["users"]), 8)) \(pad(number(variant["mean"], 4), 11))"
                if let relative = variant["relative"] {
                    let ci = relative["ci"]?.arrayValue ?? []
                    line += " \(pad(percent(relative["lift"]), 8))  [\(percent(ci.first)), \(percent(ci.last))]".padding(toLength: 34, withPad: " ", startingAt: 0)
                    line += " \(pad(number(relative["pValue"], 4), 9)) \(pad(number(variant["sequential"]?["pValue"], 4), 11))"
                    line += " \(pad(chance(variant["bayesian"]?["chanceToWin"]), 14))"
                    if let error = relative["error"]?.stringValue { line += "  (\(error))" }
                } else {
                    line += "  control"
                }
                out += line + "\n"
            }
        }
        return out
    }

    private static func int(_ value: JSONValue?) -> String { value?.numberValue.map { String(Int($0)) } ?? "-" }
    private static func number(_ value: JSONValue?, _ digits: Int) -> String {
        guard let n = value?.numberValue else { return "-" }
        return String(format: "%.\(digits)g", n)
    }
    private static func percent(_ value: JSONValue?) -> String {
        guard let n = value?.numberValue else { return "-" }
        return String(format: "%+.2f%%", n * 100)
    }
    private static func chance(_ value: JSONValue?) -> String {
        guard let n = value?.numberValue else { return "-" }
        return String(format: "%.1f%%", n * 100)
    }
    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
