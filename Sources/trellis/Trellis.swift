import ArgumentParser
import TrellisRuntime

@main
struct Trellis: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trellis",
        abstract: "A server-driven UI backend: screens, targeting and layout over HTTP.",
        subcommands: [
            ServeCommand.self, ValidateCommand.self, LayoutCommand.self, FontsCommand.self, TokenCommand.self, ContextCommand.self,
            BucketCommand.self, BackupCommand.self, SchemaCommand.self, BenchCommand.self, TLSCommand.self, ResultsCommand.self, LintCommand.self,
        ])
}
