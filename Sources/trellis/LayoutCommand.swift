import ArgumentParser
import Foundation
import TrellisJSON
import TrellisLayout
import TrellisLayoutJSON
import TrellisRuntime

/// `trellis layout TREE.json`: lays out a tree written with Yoga style names and prints the frames.
struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout",
        abstract: "Lay out a flexbox tree and print every node's frame as JSON.",
        discussion: """
            TREE.json is a node {"id", "style", "children", "text"} with Yoga style names
            ("flexDirection": "row", "width": "50%", "marginStart": 8, …), or a fixture case
            with a "tree" member. Text leaves are measured as Ahem 10px. The output has the
            fixtures' "expected" shape: {"id", "left", "top", "width", "height", "children"}.
            With --batch, TREE is a file of JSON lines (or - for standard input), one tree a line;
            each gives one line of compact frames, or {"error": "line N: …"} (exit code 1).
            """)

    @Argument(help: "The tree to lay out (JSON), or with --batch a file of JSON lines (- for standard input).")
    var tree: String

    @Flag(help: "Lay out one tree per line of TREE and print one line of frames per tree.")
    var batch = false

    @Option(help: "Available width in points (default: unbounded).")
    var width: Float?

    @Option(help: "Available height in points (default: unbounded).")
    var height: Float?

    @Flag(help: "Lay out right-to-left.")
    var rtl = false

    @Flag(help: "Use CSS defaults (row, flex-shrink 1, automatic minimum sizes) instead of Yoga's.")
    var web = false

    @Option(help: "Pixels per point: frames are rounded to this pixel grid.")
    var scale: Float = 1

    func validate() throws {
        if let width, !(width >= 0) || !width.isFinite { throw fail("--width must be a non-negative number") }
        if let height, !(height >= 0) || !height.isFinite { throw fail("--height must be a non-negative number") }
        if !(scale >= 0) || !scale.isFinite { throw fail("--scale must be a non-negative number") }
    }

    func run() throws {
        let bytes: [UInt8]
        do {
            bytes = batch && tree == "-"
                ? [UInt8](FileHandle.standardInput.readDataToEndOfFile())
                : [UInt8](try Data(contentsOf: URL(fileURLWithPath: tree)))
        } catch {
            throw fail("\(tree): cannot read the file (\(error.localizedDescription))")
        }
        if batch { return try runBatch(bytes) }
        switch layout(bytes, source: tree) {
        case .success(let frames): print(JSONWriter.string(frames, style: .pretty), terminator: "")
        case .failure(let error): throw fail(error.message)
        }
    }

    /// One tree per line: a line of frames each, or an error object naming the line.
    private func runBatch(_ bytes: [UInt8]) throws {
        var output = ""
        var failed = 0
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) { continue }
            switch layout(Array(line), source: "\(tree == "-" ? "stdin" : tree):\(index + 1)") {
            case .success(let frames):
                output += JSONWriter.string(frames)
            case .failure(let error):
                failed += 1
                output += JSONWriter.string(.object([("error", .string("line \(index + 1): \(error.message)"))]))
            }
            output += "\n"
        }
        FileHandle.standardOutput.write(Data(output.utf8))
        if failed > 0 { throw fail("\(failed) of the trees in \(tree) could not be laid out (see their lines)") }
    }

    private struct LayoutFailure: Error { let message: String }

    /// Parses one tree (or fixture case), lays it out with the command's options and returns its frames.
    private func layout(_ bytes: [UInt8], source: String) -> Result<JSONValue, LayoutFailure> {
        let mode: LayoutMode = web ? .web : .yoga
        let root: LayoutNode
        do {
            let json = try JSONParser.parse(bytes)
            // A whole fixture case is accepted too: its "tree" member is the tree.
            if let caseTree = json["tree"] {
                root = try LayoutTree.build(caseTree, mode: mode, at: JSONPath.root.appending("tree"), source: source)
            } else {
                root = try LayoutTree.build(json, mode: mode, source: source)
            }
        } catch let error as JSONSyntaxError {
            return .failure(LayoutFailure(message: "\(source): \(error)"))
        } catch {
            return .failure(LayoutFailure(message: "\(error)"))
        }
        root.calculateLayout(availableWidth: width, availableHeight: height, direction: rtl ? .rtl : .ltr,
                             config: LayoutConfig(mode: mode, pointScaleFactor: scale))
        return .success(LayoutTree.frames(root))
    }

    private func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data(("error: " + message + "\n").utf8))
        return ExitCode(1)
    }
}
