import Foundation
import TrellisJSON
import TrellisScreens

/// Every problem found while loading a configuration directory, file by file.
public struct ConfigLoadError: Error, Sendable, CustomStringConvertible {
    public var errors: [DiagnosticsError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// Reads a directory shaped like `Config/` into a snapshot, all or nothing.
public struct ConfigLoader: Sendable {
    /// Screens larger than this are refused: a screen is tens of kilobytes, not megabytes.
    public static let maximumScreenFileBytes = 4 << 20

    public let directory: URL
    public let decoder: ScreenDecoder

    public init(directory: URL, decoder: ScreenDecoder = ScreenDecoder()) {
        self.directory = directory
        self.decoder = decoder
    }

    public var screensDirectory: URL { directory.appendingPathComponent("screens", isDirectory: true) }

    /// Loads every `screens/*.json`. A screen whose content is unchanged from `previous` keeps its
    /// revision; a changed one gets the next revision; a new one starts at 1.
    /// - Returns: a new snapshot, or every error of every file; one bad file refuses the whole load.
    public func load(previous: Snapshot?, compress: ([UInt8]) -> [UInt8]?) -> Result<Snapshot, ConfigLoadError> {
        var screens: [String: ScreenEntry] = [:]
        var errors: [DiagnosticsError] = []
        let files: [URL]
        do {
            files = try screenFiles()
        } catch {
            return .failure(ConfigLoadError(errors: [Self.fileError("screens/", error)]))
        }
        for file in files {
            let source = "screens/" + file.lastPathComponent
            let id = file.deletingPathExtension().lastPathComponent
            switch readScreen(file, source: source, id: id) {
            case .failure(let error):
                errors.append(error)
            case .success(let screen):
                let old = previous?.screens[id]
                if let old, old.contentFingerprint == ScreenEntry.contentFingerprint(of: screen) {
                    screens[id] = old
                } else {
                    screens[id] = ScreenEntry(screen: screen, revision: (old?.revision ?? 0) + 1, compress: compress)
                }
            }
        }
        guard errors.isEmpty else { return .failure(ConfigLoadError(errors: errors)) }
        return .success(Snapshot(screens: screens, generation: (previous?.generation ?? 0) + 1, compress: compress))
    }

    private func screenFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: screensDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    private func readScreen(_ file: URL, source: String, id: String) -> Result<Screen, DiagnosticsError> {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            return .failure(Self.fileError(source, error))
        }
        guard data.count <= Self.maximumScreenFileBytes else {
            return .failure(DiagnosticsError(source: source, diagnostics: [
                Diagnostic(path: .root, location: .unknown, message: "file is \(data.count) bytes; the limit is \(Self.maximumScreenFileBytes)")
            ]))
        }
        return decoder.decode([UInt8](data), source: source, expectedID: id)
    }

    static func fileError(_ source: String, _ error: any Error) -> DiagnosticsError {
        let reason = (error as NSError).localizedDescription
        return DiagnosticsError(source: source, diagnostics: [Diagnostic(path: .root, location: .unknown, message: "cannot read: \(reason)")])
    }
}
