import ArgumentParser
import TrellisJSON
import TrellisRuntime
import TrellisTargeting

/// `trellis bucket --group G --user U`: where a user stands in a rollout group and an experiment.
struct BucketCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bucket",
        abstract: "Print a user's rollout bucket and position, and optionally a variant target, as JSON.",
        discussion: """
            bucket = murmur3("G:U", seed 0) % 100 + 1 (Unleash); position = (h % 100) * 100 + (h / 100) % 100 \
            in hundredths of a percent, printed with two decimals: a percentage P admits the user when \
            position < P. With --weight-total W: target = murmur3("G:U", seed 86028157) % W + 1. \
            See docs/targeting.md.
            """)

    @Option(help: "The rollout's groupId (for a target: the experiment key).")
    var group: String

    @Option(help: "The user id.")
    var user: String

    @Option(name: .customLong("weight-total"), help: "An experiment's total weight: print the user's variant target, 1…W.")
    var weightTotal: Int?

    @Option(help: "A rollout percentage, 0 to 100 with up to two decimals: print whether it admits the user.")
    var percentage: String?

    func validate() throws {
        if group.isEmpty { throw ValidationError("--group must not be empty") }
        if user.isEmpty { throw ValidationError("--user must not be empty") }
        if let weightTotal, !(1...Int(UInt32.max)).contains(weightTotal) {
            throw ValidationError("--weight-total must be from 1 to \(UInt32.max), not \(weightTotal)")
        }
        _ = try parsedPercentage()
    }

    func run() throws {
        let report = BucketingReport(groupID: group, userID: user, percentage: try parsedPercentage(), totalWeight: weightTotal)
        print(JSONWriter.string(report.jsonValue, style: .pretty), terminator: "")
    }

    private func parsedPercentage() throws -> RolloutPercentage? {
        guard let percentage else { return nil }
        do {
            return try RolloutPercentage(parsing: percentage)
        } catch {
            throw ValidationError("--percentage: \(error.reason)")
        }
    }
}
