import ArgumentParser
import Foundation
import TrellisAnswers
import TrellisHTTP
import TrellisJSON
import TrellisRendering
import TrellisRuntime
import TrellisScreens
import TrellisServer
import TrellisTargeting

/// `trellis bench outcomes|layout`: in-process timings of the parts of an answer, for
/// `scripts/bench-http` to print beside its HTTP figures (docs/benchmarks.md).
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time the parts of an answer in-process: outcome evaluation, a layout miss stage by stage, a catalogue's answers.",
        subcommands: [BenchOutcomesCommand.self, BenchLayoutCommand.self, BenchSpreadCommand.self])

    /// The synthetic users both benchmarks ask as: a new user id each, one of four platforms and
    /// one of six app versions (the same mix as scripts/bench/personalised.lua).
    static func users(_ count: Int) -> [UserContext] {
        let platforms = ["ios", "android", "ipados", "web"]
        let versions = ["4.9.0", "5.0.0", "5.1.0", "5.2.3", "5.3.0", "6.0.1"].map { SemanticVersion($0)! }
        return (0..<count).map { n in
            UserContext(userID: "u\(n)", platform: platforms[n % platforms.count], appVersion: versions[n % versions.count])
        }
    }


    static func padded(_ label: String) -> String { label + String(repeating: " ", count: max(0, 30 - label.count)) }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}

/// `trellis bench outcomes`: evaluations per second of one screen's decision points.
struct BenchOutcomesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outcomes",
        abstract: "Evaluate every decision point of a screen for many users; print evaluations per second.")

    @OptionGroup var source: BenchSource
    @Option(help: "Distinct users, each evaluated once per round.") var users = 100_000
    @Option(help: "Rounds; the best is printed.") var rounds = 5

    func run() throws {
        let (snapshot, entry) = try source.load()
        let screen = source.screen
        let contexts = BenchCommand.users(users)
        let resolver = snapshot.resolver
        var best = Double.infinity
        var distinct = Set<Outcomes>()
        for round in 0..<max(rounds, 1) {
            let start = ContinuousClock.now
            var checksum = 0
            for context in contexts {
                let outcomes = resolver.outcomes(of: entry.decisions, for: context, evaluator: snapshot.evaluator)
                checksum &+= Int(outcomes.bytes.last ?? 0)
                if round == 0 { distinct.insert(outcomes) }
            }
            best = min(best, BenchCommand.seconds(ContinuousClock.now - start))
            if checksum == -1 { print("") }  // keeps the loop's work observable
        }
        let points = entry.decisions.points.count
        let rollouts = entry.decisions.rollouts.count
        print(String(
            format: "outcomes of %@: %d decision points, %d rollouts; %d users → %.0f evaluations/s (%.2f µs each), %d distinct outcomes",
            screen, points, rollouts, users, Double(users) / best, best / Double(users) * 1e6, distinct.count))
    }
}

/// `trellis bench layout`: what a layout-answer miss spends, stage by stage.
struct BenchLayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout",
        abstract: "Build layout answers for many widths as a miss does; print each stage's time per answer.")

    @OptionGroup var source: BenchSource
    @Option(help: "Distinct widths (300.00, 300.01, …), one answer each.") var widths = 2_000
    @Option(help: "The user asking: platform.") var platform = "ios"
    @Option(help: "The user asking: app version.") var appVersion = "5.3"

    func run() throws {
        let (snapshot, entry) = try source.load()
        let screen = source.screen
        let model = try snapshot.screen(of: entry)
        let context = UserContext(userID: "u1", platform: platform, appVersion: SemanticVersion(appVersion))
        let resolver = snapshot.resolver
        var time = [Duration](repeating: .zero, count: 6)
        var bytes = 0
        var gzipBytes = 0
        let clock = ContinuousClock()
        var plans: [Outcomes: LayoutPlan] = [:]  // as the snapshot keeps them: a plan and its nodes per outcome
        for n in 0..<widths {
            var mark = clock.now
            func lap(_ stage: Int) {
                let now = clock.now
                time[stage] += now - mark
                mark = now
            }
            let outcomes = resolver.outcomes(of: entry.decisions, for: context, evaluator: snapshot.evaluator)
            lap(0)
            let resolved = resolver.resolve(
                model, decisions: entry.decisions, outcomes: outcomes, clientSchemaVersion: entry.schemaVersion)
            lap(1)
            let viewport = LayoutViewport(width: 300 + Float(n) / 100, height: 844)
            let layout = ScreenLayout(viewport: viewport, fonts: snapshot.fonts, keepsLines: false)
            let kept = plans[outcomes]
            let planned = layout.plan(resolved, revision: entry.revision)  // what a new outcome's miss spends
            lap(2)
            let plan = kept ?? planned
            if kept == nil { plans[outcomes] = planned }
            let encoded = layout.answer(plan)
            lap(3)
            let body = EncodedBody(bytes: encoded)
            lap(4)
            let gzip = Gzip.compress(body.bytes, level: Gzip.Policy.perRequestLevel)
            lap(5)
            bytes = encoded.count
            gzipBytes = gzip.count
        }
        // The server keeps resolved screens and plans per outcome (and viewport kind): a miss at a
        // new size of a known outcome spends the stages from layout on.
        let stages = ["outcomes", "resolve (cached per outcome)", "plan (cached per outcome)", "layout and JSON bytes", "ETag",
                      "gzip (only when asked)"]
        let sizeMiss = time[0] + time[3] + time[4]
        let firstMiss = sizeMiss + time[1] + time[2]
        print("layout misses of \(screen), \(widths) widths, \(bytes) B JSON, \(gzipBytes) B gzip (level \(Gzip.Policy.perRequestLevel)); µs per answer:")
        for (name, spent) in zip(stages, time) {
            print("  " + BenchCommand.padded(name) + String(format: "%9.1f", BenchCommand.seconds(spent) / Double(widths) * 1e6))
        }
        for (name, spent) in [("total, a new size", sizeMiss), ("total, a new outcome", firstMiss), ("  with gzip", firstMiss + time[5])] {
            let seconds = BenchCommand.seconds(spent)
            print("  " + BenchCommand.padded(name) + String(format: "%9.1f  (%.0f answers/s on one core)", seconds / Double(widths) * 1e6, Double(widths) / seconds))
        }
    }
}

/// The configuration and the screen a benchmark reads.
struct BenchSource: ParsableArguments {
    @Option(help: "A directory shaped like Config/.") var config = "Config"
    @Option(help: "The screen measured.") var screen = "home"

    func load() throws -> (Snapshot, ScreenEntry) {
        switch ConfigLoader(directory: URL(fileURLWithPath: config, isDirectory: true)).load(previous: nil) {
        case .failure(let error): throw CommandFailure(error.description)
        case .success(let snapshot):
            guard let entry = snapshot.screens[screen] else {
                throw CommandFailure("no screen \"\(screen)\" in \(config); screens: \(snapshot.screens.keys.sorted().joined(separator: ", "))")
            }
            return (snapshot, entry)
        }
    }
}
