import ArgumentParser
import Foundation
import TrellisJSON
import TrellisLayout
import TrellisLayoutJSON

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
            """)

    @Argument(help: "The tree to lay out (JSON).")
    var tree: String

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
            bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: tree)))
        } catch {
            throw fail("\(tree): cannot read the file (\(error.localizedDescription))")
        }
        let mode: LayoutMode = web ? .web : .yoga
        let root: LayoutNode
        do {
            let json = try JSONParser.parse(bytes)
            // A whole fixture case is accepted too: its "tree" member is the tree.
            if let caseTree = json["tree"] {
                root = try LayoutTree.build(caseTree, mode: mode, at: JSONPath.root.appending("tree"), source: tree)
            } else {
                root = try LayoutTree.build(json, mode: mode, source: tree)
            }
        } catch let error as JSONSyntaxError {
            throw fail("\(tree): \(error)")
        } catch {
            throw fail("\(error)")
        }
        root.calculateLayout(availableWidth: width, availableHeight: height, direction: rtl ? .rtl : .ltr,
                             config: LayoutConfig(mode: mode, pointScaleFactor: scale))
        print(JSONWriter.string(LayoutTree.frames(root), style: .pretty), terminator: "")
    }

    private func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data(("error: " + message + "\n").utf8))
        return ExitCode(1)
    }
}
