import Foundation
import Testing
import TrellisRuntime

/// docs/architecture.md names code as `File.swift: symbol` (a hop of a path, a place a new thing
/// goes); each such name must exist: the file under Sources/, and every name of the symbol
/// declared in it. A renamed function or a moved file fails here, not in a newcomer's first hour.
@Suite struct ArchitectureDocTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Folder/File.swift: Type.member(label:)` in backticks.
    static var reference: Regex<AnyRegexOutput> { try! Regex(#"`([\w+/.-]+\.swift): ([^`]+)`"#) }

    /// Every Swift file under Sources/, by its path from Sources/.
    static func sources() throws -> [String] {
        let root = repository.appendingPathComponent("Sources").path
        return try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".swift") }
    }

    /// The names a symbol reference declares: `SnapshotCache.answer(for:make:)` → SnapshotCache, answer.
    static func names(of symbol: String) -> [String] {
        let bare = symbol.split(separator: "(").first.map(String.init) ?? symbol
        return bare.split(separator: ".").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func declares(_ name: String, in text: String) -> Bool {
        if name == "init" { return text.contains("init(") }
        let pattern = #"(func|struct|class|enum|protocol|extension|typealias|case|var|let|actor)\s+"# + NSRegularExpression.escapedPattern(for: name) + #"\b"#
        return text.range(of: pattern, options: .regularExpression) != nil
    }

    /// Each reference of `markdown` that names a missing file or symbol, with why.
    static func broken(_ markdown: String, sources: [String]) throws -> [String] {
        var broken: [String] = []
        for match in markdown.matches(of: reference) {
            guard let file = match.output[1].substring.map(String.init), let symbol = match.output[2].substring.map(String.init) else { continue }
            let candidates = sources.filter { $0 == file || $0.hasSuffix("/" + file) }
            guard candidates.count == 1, let path = candidates.first else {
                broken.append("\(file): \(candidates.isEmpty ? "no such file under Sources/" : "names \(candidates.count) files")")
                continue
            }
            let text = try String(contentsOf: repository.appendingPathComponent("Sources").appendingPathComponent(path), encoding: .utf8)
            for name in names(of: symbol) where !declares(name, in: text) {
                broken.append("\(file): \(symbol): \(name) is not declared in Sources/\(path)")
            }
        }
        return broken
    }

    @Test func everyFileAndSymbolTheArchitectureNamesExists() throws {
        let markdown = try String(contentsOf: Self.repository.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let references = markdown.matches(of: Self.reference).count
        #expect(references >= 10, "the page names code as `File.swift: symbol`")
        #expect(try Self.broken(markdown, sources: try Self.sources()) == [])
    }

    @Test func aMissingSymbolOrFileIsReported() throws {
        let sources = try Self.sources()
        let broken = try Self.broken(
            "`Commands/Runtime.swift: execute(_:as:ifMatch:)` `Commands/Runtime.swift: Runtime.nowhere` `Nowhere/Gone.swift: thing`",
            sources: sources)
        #expect(broken.count == 2)
        #expect(broken.contains { $0.contains("nowhere is not declared") })
        #expect(broken.contains { $0.contains("no such file") })
    }
}
