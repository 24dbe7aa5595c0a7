import ArgumentParser
import Foundation
import TrellisJSON
import TrellisRuntime
import TrellisScreens

/// `trellis schema [--output PATH]`: the JSON Schema of the authoring format.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft 2020-12) of the screen authoring format, or write it to a file.",
        discussion: """
            The schema is generated from the component registry, so it always describes what this build's \
            decoder accepts. docs/screen.schema.json is its output, and a test fails when that file is stale: \
            regenerate it with `\(AuthoringSchema.regenerateCommand)`. See docs/screens.md, \
            "Editor support and the JSON Schema".
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write (default: standard output).", valueName: "path"))
    var output: String?

    func run() throws {
        let bytes = Array(AuthoringSchema.text().utf8)
        guard let output else {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CommandFailure("\(output): cannot write (\(error.localizedDescription))")
        }
        print("wrote \(output) (\(bytes.count) bytes)")
    }
}
