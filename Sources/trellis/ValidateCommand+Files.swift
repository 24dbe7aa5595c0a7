import Foundation
import TrellisJSON
import TrellisRuntime
import TrellisScreens
import TrellisServer
import TrellisTargeting

extension ValidateCommand {
    /// `trellis validate PATH…`: screen files checked one by one, as the loader checks `screens/*.json`.
    struct ScreenFiles {
        let paths: [String]
        /// The configuration directory whose `targeting.json` and templates the screens are checked against.
        let config: URL

        /// Prints `ok: PATH` or the problems of each file.
        /// - Throws: `CommandFailure` counting the problems, when there are any.
        func check() throws {
            let loader = ConfigLoader(directory: config)
            let targeting = try loadTargeting()
            let templates: TemplateLibrary
            switch loader.loadTemplates() {
            case .success(let library): templates = library
            case .failure(let error): throw CommandFailure(error.description + "\nthe screens are checked with these templates; fix them first")
            }
            var problems = 0
            var failedFiles = 0
            for file in try files() {
                let id = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
                let result = read(file).flatMap { loader.checkScreen($0, source: file, id: id, targeting: targeting, templates: templates) }
                switch result {
                case .success: print("ok: \(file)")
                case .failure(let error):
                    print(error.description)
                    problems += error.diagnostics.count
                    failedFiles += 1
                }
            }
            guard failedFiles == 0 else {
                throw CommandFailure("\(problems) problem\(problems == 1 ? "" : "s") in \(failedFiles) file\(failedFiles == 1 ? "" : "s")")
            }
        }

        /// The files to check: each path that is a file, and the `*.json` files of each folder, by name.
        private func files() throws -> [String] {
            var files: [String] = []
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    throw CommandFailure("\(path): no such file or folder")
                }
                guard isDirectory.boolValue else {
                    files.append(path)
                    continue
                }
                let names = try FileManager.default.contentsOfDirectory(atPath: path)
                    .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
                if names.isEmpty { throw CommandFailure("\(path): no *.json files in this folder") }
                files += names.map { (path.hasSuffix("/") ? path : path + "/") + $0 }
            }
            return files
        }

        private func read(_ file: String) -> Result<[UInt8], DiagnosticsError> {
            func failure(_ message: String) -> Result<[UInt8], DiagnosticsError> {
                .failure(DiagnosticsError(source: file, diagnostics: [Diagnostic(path: .root, location: .unknown, message: message)]))
            }
            guard let data = FileManager.default.contents(atPath: file) else { return failure("cannot read the file") }
            guard data.count <= ConfigLoader.maximumFileBytes else {
                return failure("file is \(data.count) bytes; the limit is \(ConfigLoader.maximumFileBytes)")
            }
            return .success([UInt8](data))
        }

        /// `targeting.json` of the configuration (none means no rules, rollouts or experiments), as the loader reads it.
        private func loadTargeting() throws -> TargetingConfiguration {
            let file = config.appendingPathComponent("targeting.json")
            let bytes = FileManager.default.fileExists(atPath: file.path) ? FileManager.default.contents(atPath: file.path) : Data("{}".utf8)
            guard let bytes else { throw CommandFailure("\(file.path): cannot read the file") }
            switch TargetingConfiguration.decode([UInt8](bytes), source: file.path) {
            case .success(let targeting): return targeting
            case .failure(let error): throw CommandFailure(error.description + "\nthe screens are checked against this targeting; fix it first")
            }
        }
    }
}
