import ArgumentParser
import Foundation
import TrellisJSON
import TrellisLint
import TrellisRuntime
import TrellisServer
import TrellisText

/// `trellis lint`: every screen of a configuration laid out on the lint's phones and text sizes,
/// and what a user would meet reported (docs/lint.md).
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Lay every screen out on small and large phones at three text sizes and report what users would meet.",
        discussion: """
            Rules: text-truncated, tap-target, contrast, label, overflow (docs/lint.md). Every variant a user can be \
            shown is linted (each Rule branch, each Experiment variant); a screen that takes route parameters is laid \
            out with sample values. Prints one finding a line — screen, path, rule, locale, configuration \
            (device@fontScale), measured value — or, with --json, an array of objects. Exits 1 when a rule named by \
            --errors fires, else 0.
            """)

    @Option(name: .long, help: "A directory shaped like Config/: screens/, templates/, targeting.json, fonts/.")
    var config = "Config"

    @Flag(help: "Print the findings as a JSON array.")
    var json = false

    @Option(
        name: .long, parsing: .singleValue,
        help: ArgumentHelp("Rules whose findings fail the run (comma-separated): exit 1 when one fires.", valueName: "rule,rule"))
    var errors: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only these screens (comma-separated ids).", valueName: "id,id"))
    var screens: String?

    @Option(name: .long, help: ArgumentHelp("Only this device (ios-small, ios-large, android-small, android-large).", valueName: "name"))
    var device: String?

    @Option(name: .customLong("font-scale"), help: ArgumentHelp("Only this font scale (1, 1.3 or another).", valueName: "scale"))
    var fontScale: Float?

    @Option(
        name: .customLong("min-target"),
        help: ArgumentHelp("The least tap target on every platform, with WCAG 2.5.8's spacing exception (24 for axe-core's target-size); default: 44 pt on iOS, 48 dp on Android without it.", valueName: "points"))
    var minimumTarget: Float?

    var errorRules: Set<LintRule> {
        get throws {
            do { return try LintRule.rules(named: errors.joined(separator: ",")) } catch { throw ValidationError("--errors: \(error)") }
        }
    }

    func validate() throws {
        _ = try errorRules
        if let device, !Device.standard.contains(where: { $0.name == device }) {
            throw ValidationError("--device: no device \"\(device)\"; the devices are \(Device.standard.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        let directory = URL(fileURLWithPath: config, isDirectory: true)
        // server.json names the default locale: the one a screen without strings is linted in.
        let serverFile = FileManager.default.contents(atPath: directory.appendingPathComponent("server.json").path).map { [UInt8]($0) }
        let settings = try ServerConfiguration.load(
            fileBytes: serverFile, source: "server.json", environment: ProcessInfo.processInfo.environment, overrides: []
        ).mapError { CommandFailure($0.description) }.get()
        let snapshot: Snapshot
        switch ConfigLoader(directory: directory, defaultLocale: settings.strings.defaultLocale).load(previous: nil) {
        case .success(let loaded): snapshot = loaded
        case .failure(let error): throw ValidateCommand.failure(error)
        }
        var options = LintOptions()
        if let minimumTarget { options = LintOptions(minimumTarget: [.ios: minimumTarget, .android: minimumTarget], targetSpacingException: true) }
        let lint = ScreenLint(fonts: snapshot.fonts, options: options)
        let configurations = LintConfiguration.matrix.filter {
            (device == nil || $0.device.name == device) && (fontScale == nil || $0.fontScale == fontScale)
        }
        let wanted = screens.map { Set($0.split(separator: ",").map(String.init)) }
        var findings: [LintFinding] = []
        var linted = 0
        for id in snapshot.screens.keys.sorted() where wanted?.contains(id) ?? true {
            guard let entry = snapshot.screens[id] else { continue }
            linted += 1
            let screen = try snapshot.screen(of: entry)
            do {
                findings += try lint.findings(of: screen, strings: snapshot.strings, configurations: configurations)
            } catch {
                throw CommandFailure("screens/\(id): its sample parameters do not fit it: \(error)")
            }
        }
        findings.sort()
        if json {
            print(JSONWriter.string(.array(findings.map(Self.jsonValue)), style: .pretty), terminator: "")
        } else {
            for finding in findings { print(finding) }
            FileHandle.standardError.write(Data("\(findings.count) finding\(findings.count == 1 ? "" : "s") in \(linted) screen\(linted == 1 ? "" : "s") × \(configurations.count) configuration\(configurations.count == 1 ? "" : "s")\n".utf8))
        }
        if !findings.errors(try errorRules).isEmpty { throw ExitCode(1) }
    }

    static func jsonValue(_ finding: LintFinding) -> JSONValue {
        let c = finding.configuration
        // The shortest decimal that reads back as the Float (1.3, not 1.2999999523162842).
        func number(_ value: Float) -> JSONValue { .number(Double(value.description) ?? Double(value)) }
        return .object([
            ("screen", .string(finding.screenId)), ("path", .string(finding.path)), ("layoutId", .string(finding.layoutId)),
            ("rule", .string(finding.rule.rawValue)), ("locale", .string(finding.locale)), ("device", .string(c.device.name)),
            ("platform", .string(c.device.platform.rawValue)), ("width", number(c.device.width)),
            ("height", number(c.device.height)), ("scale", number(c.device.scale)), ("fontScale", number(c.fontScale)),
            ("value", .string(finding.value)),
        ])
    }
}
