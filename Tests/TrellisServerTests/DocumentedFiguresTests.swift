import Foundation
import Testing
import TrellisRuntime

/// Every measured figure in docs/ carries the command that prints it: in its paragraph or table
/// (or the paragraph that introduces the table), or in a heading above it. A figure is a count of
/// requests, instructions or time per request, or a ratio; it is *measured* when its section or
/// its paragraph says so (measured, benchmark, figures, profile, callgrind). And every file a doc
/// names in backticks (a script, a source folder, a fixture) exists.
@Suite struct DocumentedFiguresTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var command: Regex<AnyRegexOutput> { try! Regex(#"`[^`]*(scripts/[\w.-]+|trellis[ -][\w-]+|swift (test|run|build)|valgrind|perf (stat|record)|wrk )[^`]*`"#) }
    static var figure: Regex<AnyRegexOutput> {
        try! Regex(#"\d[\d,]*(\.\d+)?\s?([kKM]\s)?(req/s|requests/s|evaluations/s|misses/s|µs|instructions)|\d\s?ms\b|\d\.\d+×"#)
    }
    static var measured: Regex<AnyRegexOutput> { try! Regex(#"[Mm]easured|[Bb]enchmark|[Ff]igures|profile|callgrind"#) }
    /// A repository path in backticks: `scripts/…`, `Sources/…`, `Tests/…`, `Fixtures/…`, `Config/…`
    /// (not a pattern such as `Tests/…/Route*Tests.swift`).
    static var path: Regex<AnyRegexOutput> { try! Regex(#"`((scripts|Sources|Tests|Fixtures|Config)/[\w./+-]*[\w/])(?![\w.*/+-])"#) }
    static var heading: Regex<AnyRegexOutput> { try! Regex(#"^(#+) "#) }

    /// A paragraph, a table or a list: lines between blank lines, outside code blocks.
    struct Block {
        var firstLine: Int
        var lines: [(number: Int, text: String)]
        var text: String { lines.map(\.text).joined(separator: " ") }
        var isTable: Bool { lines.first?.text.hasPrefix("|") ?? false }
    }

    /// The figures of `markdown` that no command covers, as `line: text`.
    static func uncoveredFigures(_ markdown: String) -> [String] {
        let (command, figure, measured, heading) = (command, figure, measured, heading)
        var headings: [Int: (measured: Bool, command: Bool)] = [:]
        var block: [(number: Int, text: String)] = []
        var inCode = false
        var previousHadCommand = false
        var uncovered: [String] = []
        func flush() {
            defer { block = [] }
            guard !block.isEmpty else { return }
            let text = block.map(\.text).joined(separator: " ")
            let table = block[0].text.hasPrefix("|")
            let hasCommand = text.contains(command)
            let isMeasured = headings.values.contains { $0.measured } || text.contains(measured) || (table && previousHadCommand)
            let covered = headings.values.contains { $0.command } || hasCommand || (table && previousHadCommand)
            if isMeasured && !covered, let line = block.first(where: { $0.text.contains(figure) }) {
                uncovered.append("\(line.number): \(line.text.prefix(100))")
            }
            previousHadCommand = hasCommand || (table && previousHadCommand)
        }
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                inCode.toggle()
                continue
            }
            if inCode { continue }
            if let hashes = line.firstMatch(of: heading), let marks = hashes[1].substring {
                flush()
                let level = marks.count
                headings = headings.filter { $0.key < level }
                headings[level] = (line.contains(measured), line.contains(command))
                continue
            }
            if line.allSatisfy(\.isWhitespace) {
                flush()
                continue
            }
            block.append((index + 1, String(line)))
        }
        flush()
        return uncovered
    }

    static var documents: [URL] {
        let docs = repository.appendingPathComponent("docs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0) }
            + [repository.appendingPathComponent("README.md")]
    }

    @Test(arguments: documents.map(\.lastPathComponent))
    func everyMeasuredFigureNamesTheCommandThatPrintsIt(_ name: String) throws {
        let url = try #require(Self.documents.first { $0.lastPathComponent == name })
        let uncovered = Self.uncoveredFigures(try String(contentsOf: url, encoding: .utf8))
        #expect(uncovered.isEmpty, "\(name): figures without the command that prints them:\n\(uncovered.joined(separator: "\n"))")
    }

    @Test(arguments: documents.map(\.lastPathComponent))
    func everyFileADocNamesExists(_ name: String) throws {
        let url = try #require(Self.documents.first { $0.lastPathComponent == name })
        let text = try String(contentsOf: url, encoding: .utf8)
        let named = Set(text.matches(of: Self.path).compactMap { $0[1].substring.map(String.init) })
        let missing = named.filter { !FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent($0).path) }
        #expect(missing.isEmpty, "\(name) names files that are not in the repository: \(missing.sorted())")
    }

    /// The rule itself: a measured figure without a command is found; one under a heading or in
    /// a table introduced by a command is not.
    @Test func theRuleFindsAFigureWithoutItsCommand() {
        #expect(Self.uncoveredFigures("## Speed\n\nMeasured today: 90,000 req/s.\n") == ["3: Measured today: 90,000 req/s."])
        #expect(Self.uncoveredFigures("## Speed: `scripts/bench-http`\n\nMeasured today: 90,000 req/s.\n").isEmpty)
        #expect(Self.uncoveredFigures("Measured with `scripts/bench-http --no-build`:\n| a | b |\n|---|---|\n| 1.2× | 3 µs |\n").isEmpty)
        #expect(Self.uncoveredFigures("Measured with `scripts/bench-http`:\n\n| a | b |\n|---|---|\n| 1.20× | 3 µs |\n").isEmpty)
        #expect(Self.uncoveredFigures("The sweep runs every 50 ms.\n").isEmpty, "a setting, not a measurement")
    }
}
