import Foundation
import Testing
import TrellisRuntime
import TrellisTesting

/// The `trellis` executable as an operator runs it: flags, exit codes, signals.
@Suite(.serialized) struct CommandLineTests {
    /// `swift build` puts the executable beside the test bundle.
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("trellis")

    /// Runs `trellis` to completion; returns its exit status and everything it printed.
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) { try Self.run(arguments) }

    /// Runs `trellis` to completion with `environment` added to this process's.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func validateAcceptsTheBundledConfig() throws {
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config")
        let (status, output) = try run(["validate", "--config", config.path])
        #expect(status == 0)
        #expect(output == "ok: server.json, 4 screens, 1 template, 4 rules, 2 rollouts, 2 experiments, 22 routes, 4 string tables\n")

        let verbose = try run(["validate", "--config", config.path, "--verbose"])
        #expect(verbose.status == 0)
        #expect(verbose.output.split(separator: "\n").map(String.init) == [
            "ok: server.json, 4 screens, 1 template, 4 rules, 2 rollouts, 2 experiments, 22 routes, 4 string tables",
            "screens: home, order, product, profile",
            "templates: product-card",
            "rules: is_gold_member, is_modern_client, is_staff, signed_in",
            "rollouts: checkout-v2, gold-banner",
            "experiments: home-hero, product-related",
        ])
    }

    /// A big catalogue is counted, with thousands separators, not listed: the ids only with --verbose.
    @Test func validateSummarisesABigCatalogue() throws {
        let config = try TemporaryConfig(screens: [:])
        for number in 1...1_001 { try config.write(screen: "s\(number)", TemporaryConfig.screen(id: "s\(number)", text: "Hi")) }
        let (status, output) = try run(["validate", "--config", config.url.path])
        #expect(status == 0, "\(output)")
        #expect(output == "ok: server.json, 1,001 screens, 0 templates, 0 rules, 0 rollouts, 0 experiments\n")
        let verbose = try run(["validate", "--config", config.url.path, "--verbose"])
        #expect(verbose.output.contains("\nscreens: s1, s10, s100, s1000, s1001, s101,"))
        #expect(!verbose.output.contains("templates:"))
    }

    @Test func validateListsEveryProblemAndExits1() throws {
        let config = try TemporaryConfig()
        try config.write(screen: "bad", "{\n \"id\": \"bad\",\n \"schemaVersion\": 7,\n \"root\": {\"type\": \"Txt\"}\n}")
        let (status, output) = try run(["validate", "--config", config.url.path])
        #expect(status == 1)
        #expect(output.contains("screens/bad.json: $.schemaVersion (line 3): expected an integer from 1 to 3, found 7"))
        #expect(output.contains("screens/bad.json: $.root.type (line 4): unknown component type \"Txt\""))
        #expect(output.contains("2 problems in 1 file"))
    }

    @Test func validateReportsDeadLinksWithTheRest() throws {
        let config = try TemporaryConfig(screens: [
            "home": """
            {"id": "home", "schemaVersion": 2,
             "root": {"type": "Button", "id": "go",
                      "properties": {"action": {"type": "navigate", "url": "app://prodcut/42"}},
                      "values": {"title": "Go"}}}
            """
        ])
        try config.write(routes: #"{"routes": [{"pattern": "app://product/:id(int)", "screen": "home"}]}"#)
        let (status, output) = try run(["validate", "--config", config.url.path])
        #expect(status == 1)
        #expect(output.contains("screens/home.json: $.root.properties.action.url (line 3): dead link: no route matches \"app://prodcut/42\""))
        #expect(output.contains("app://product/:id(int)"))
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func validateChecksScreenFilesAndFolders() throws {
        let screens = Self.repository.appendingPathComponent("Config/screens").path
        let fixture = Self.repository.appendingPathComponent("Fixtures/screens/valid/actions.json").path
        let (status, output) = try run(["validate", "--config", Self.repository.appendingPathComponent("Config").path, screens, fixture])
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines == ["home", "order", "product", "profile"].map { "ok: \(screens)/\($0).json" } + ["ok: \(fixture)"])
    }

    /// Each file on its own, as the loader checks it: its id is its name, and what it names must be in
    /// the targeting of --config.
    @Test func validateReportsEveryProblemOfEveryFileWithPathAndLine() throws {
        let folder = try TemporaryConfig(screens: [:])
        let screens = folder.url.appendingPathComponent("screens")
        try folder.write(screen: "good", TemporaryConfig.screen(id: "good", text: "Hi"))
        try folder.write(screen: "colour", "{\"id\": \"colour\", \"schemaVersion\": 1,\n \"root\": {\"type\": \"Circle\", \"properties\": {\"backgroundColor\": \"#12345\"}}}")
        try folder.write(screen: "renamed", TemporaryConfig.screen(id: "other", text: "Hi"))
        try folder.write(screen: "rollout", """
            {"id": "rollout", "schemaVersion": 2,
             "root": {"type": "Rule", "rule": {"rollout": "nope"},
                      "child": {"type": "Text", "values": {"text": "Hi"}}}}
            """)
        let config = Self.repository.appendingPathComponent("Config").path
        let (status, output) = try run(["validate", "--config", config, screens.path])
        #expect(status == 1)
        #expect(output.contains("ok: \(screens.path)/good.json"))
        #expect(output.contains("\(screens.path)/colour.json: $.root.properties.backgroundColor (line 2): \"#12345\" is not a colour"))
        #expect(output.contains("\(screens.path)/renamed.json: $.id (line 2): screen id \"other\" does not match \"renamed\""))
        #expect(output.contains("\(screens.path)/rollout.json: $.root.rule.rollout (line 2): unknown rollout \"nope\""))
        #expect(output.contains("3 problems in 3 files"))

        let one = try run(["validate", "--config", config, screens.appendingPathComponent("good.json").path])
        #expect(one.status == 0)
        #expect(one.output == "ok: \(screens.path)/good.json\n")
        #expect(try run(["validate", "--config", config, screens.appendingPathComponent("missing.json").path]).status == 1)
    }

    @Test func schemaPrintsOrWritesTheCommittedSchema() throws {
        let committed = try String(contentsOf: Self.repository.appendingPathComponent("docs/screen.schema.json"), encoding: .utf8)
        let printed = try run(["schema"])
        #expect(printed.status == 0)
        #expect(printed.output == committed)
        let folder = try TemporaryConfig(screens: [:])
        let file = folder.url.appendingPathComponent("schema.json")
        let written = try run(["schema", "--output", file.path])
        #expect(written.status == 0)
        #expect(try String(contentsOf: file, encoding: .utf8) == committed)
    }

    /// `trellis bench spread` answers every request of each phase 200, and counts the answers a
    /// phase made: none for the one screen it already answered, some for new users' outcomes.
    @Test func benchSpreadRunsItsPhasesOverTheBundledConfig() throws {
        let (status, output) = try run(["bench", "spread", "--config", Self.repository.appendingPathComponent("Config").path, "--requests", "300"])
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").filter { $0.hasSuffix("%)") }
        let names = lines.map { String($0.prefix { !$0.isNumber }).trimmingCharacters(in: .whitespaces) }
        #expect(
            names == [
                "one screen, one user", "one screen, a new user each", "a random screen, a new user each", "again", "one screen again",
                "a random screen, one user (hits)",
            ])
        let made = lines.map { line in line.split(separator: " ").dropLast(2).last.flatMap { Int($0) } ?? -1 }
        #expect(made.count == 6 && made[0] == 0 && made[4] == 0, "\(output)")
        #expect(made[5] == 0, "every answer of the last phase was made before it is timed: \(output)")
        #expect(made[2] > 0, "new users draw outcomes not answered before: \(output)")
        #expect(output.contains("the spread over one screen"))
        #expect(output.contains("over one screen, a new user each"))
        #expect(output.contains("a hit among 4 screens"), "\(output)")

        let withoutHome = try TemporaryConfig(screens: ["other": TemporaryConfig.screen(id: "other", text: "Hi")])
        let refused = try run(["bench", "spread", "--config", withoutHome.url.path, "--requests", "10"])
        #expect(refused.status != 0)
        #expect(refused.output.contains("no screen \"home\""), "\(refused.output)")
    }

    @Test func serveRefusesABadSettingBeforeListening() throws {
        let config = try TemporaryConfig()
        try Data(#"{"port": "eighty"}"#.utf8).write(to: config.url.appendingPathComponent("server.json"))
        let (status, output) = try run(["serve", "--config", config.url.path])
        #expect(status == 1)
        #expect(output.contains("server.json: $.port (line 1): expected an integer from 0 to 65535, found \"eighty\""))
    }

    /// A start refused for its configuration exits 1, every time: never a crash while a worker
    /// thread still runs (50 refused starts: a screen of an unknown type, a missing directory).
    @Test func aRefusedStartExitsOneEveryTime() throws {
        let config = try TemporaryConfig(screens: ["home": #"{"id": "home", "schemaVersion": 1, "root": {"type": "Carousel"}}"#])
        let missing = config.url.appendingPathComponent("nowhere").path
        for attempt in 0..<50 {
            let directory = attempt.isMultiple(of: 2) ? config.url.path : missing
            let process = Process()
            process.executableURL = Self.executable
            process.arguments = [
                "serve", "--config", directory, "--host", "127.0.0.1", "--port", "0",
                "--data-dir", config.url.appendingPathComponent("data-\(attempt)").path, "--set", "accessLog=false",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationReason == .exit && process.terminationStatus == 1, "attempt \(attempt) (\(directory)): \(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus)")
        }
    }

    @Test func sighupReloadsAndSigtermDrainsAndExitsZero() throws {
        let config = try TemporaryConfig()
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = [
            "serve", "--config", config.url.path, "--host", "127.0.0.1", "--port", "0",
            "--data-dir", config.url.appendingPathComponent("data").path, "--set", "accessLog=false",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let log = LogReader(pipe.fileHandleForReading)
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let serving = try #require(log.waitForLine(containing: "serving"), "no 'serving' line: \(log.text)")
        let port = try #require(Self.port(in: serving))
        #expect(try Self.revision(port: port) == 1)

        try config.write(screen: "home", TemporaryConfig.screen(id: "home", text: "After SIGHUP"))
        kill(process.processIdentifier, SIGHUP)
        #expect(log.waitForLine(containing: "reloaded") != nil)
        #expect(try Self.revision(port: port) == 2)

        try config.write(screen: "home", "{")
        kill(process.processIdentifier, SIGHUP)
        #expect(log.waitForLine(containing: "reload refused") != nil)
        #expect(try Self.revision(port: port) == 2)

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(log.waitForLine(containing: "stopped") != nil)
    }

    static func port(in line: String) -> Int? {
        guard let range = line.range(of: "port=") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    static func revision(port: Int) throws -> Double? {
        let client = try TestClient(port: port)
        client.send("GET /v1/screens/home HTTP/1.1\r\nHost: t\r\n\r\n")
        guard let body = client.readResponse()?.text else { return nil }
        guard let range = body.range(of: "\"revision\":") else { return nil }
        return Double(body[range.upperBound...].prefix { $0.isNumber })
    }
}

/// Collects a child process's output on a background thread so tests can wait for a line.
final class LogReader: @unchecked Sendable {
    // `lock` guards `buffer`; the reader thread appends, the test thread reads.
    private let lock = NSCondition()
    private var buffer = ""

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.lock()
                buffer += String(decoding: data, as: UTF8.self)
                lock.broadcast()
                lock.unlock()
            }
        }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return buffer
    }

    /// The first line containing `fragment` that arrives (or arrived), or nil after `timeout` seconds.
    func waitForLine(containing fragment: String, timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let line = buffer.split(separator: "\n").first(where: { $0.contains(fragment) }) { return String(line) }
            guard lock.wait(until: deadline) else { return nil }
        }
    }
}
