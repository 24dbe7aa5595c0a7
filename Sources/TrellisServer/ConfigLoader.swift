import Foundation
import TrellisJSON
import TrellisScreens
import TrellisTargeting
import TrellisText

/// Every problem found while loading a configuration directory, file by file.
public struct ConfigLoadError: Error, Sendable, CustomStringConvertible {
    public var errors: [DiagnosticsError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// Reads a directory shaped like `Config/` into a snapshot, all or nothing.
public struct ConfigLoader: Sendable {
    /// Files larger than this are refused: a screen is tens of kilobytes, not megabytes.
    public static let maximumFileBytes = 4 << 20

    public let directory: URL
    public let decoder: ScreenDecoder
    public let resolver: ScreenResolver

    public init(directory: URL, decoder: ScreenDecoder = ScreenDecoder(), resolver: ScreenResolver = ScreenResolver()) {
        self.directory = directory
        self.decoder = decoder
        self.resolver = resolver
    }

    public var screensDirectory: URL { directory.appendingPathComponent("screens", isDirectory: true) }
    public var fontsDirectory: URL { directory.appendingPathComponent("fonts", isDirectory: true) }

    /// Loads `targeting.json` (optional: no file means no rules, rollouts or experiments) and every
    /// `screens/*.json`, and checks that every rule, rollout and experiment a screen names exists.
    /// A screen whose content is unchanged from `previous` keeps its revision; a changed one gets
    /// the next revision; a new one starts at 1.
    /// - Returns: a new snapshot, or every error of every file; one bad file refuses the whole load.
    public func load(previous: Snapshot?) -> Result<Snapshot, ConfigLoadError> {
        var errors: [DiagnosticsError] = []
        let targeting = loadTargeting(&errors)
        let fonts = loadFonts(&errors)
        var screens: [String: ScreenEntry] = [:]
        let files: [URL]
        do {
            files = try screenFiles()
        } catch {
            return .failure(ConfigLoadError(errors: errors + [Self.fileError("screens/", error)]))
        }
        for file in files {
            let source = "screens/" + file.lastPathComponent
            let id = file.deletingPathExtension().lastPathComponent
            let bytes: [UInt8]
            let screen: Screen
            switch read(file, source: source) {
            case .failure(let error):
                errors.append(error)
                continue
            case .success(let read):
                bytes = read
            }
            switch decoder.decode(bytes, source: source, expectedID: id) {
            case .failure(let error):
                errors.append(error)
                continue
            case .success(let decoded):
                screen = decoded
            }
            if let targeting {
                do throws(DiagnosticsError) {
                    try screen.checkReferences(in: targeting, source: source)
                } catch {
                    // The model keeps no lines; the document, parsed once more, does.
                    errors.append((try? JSONParser.parse(bytes)).map(error.locating(in:)) ?? error)
                }
            }
            let old = previous?.screens[id]
            if let old, old.contentFingerprint == ScreenEntry.contentFingerprint(of: screen) {
                screens[id] = old
            } else {
                screens[id] = ScreenEntry(screen: screen, revision: (old?.revision ?? 0) + 1, resolver: resolver)
            }
        }
        guard errors.isEmpty, let targeting else { return .failure(ConfigLoadError(errors: errors)) }
        return .success(
            Snapshot(
                screens: screens, targeting: targeting, resolver: resolver, generation: (previous?.generation ?? 0) + 1,
                fonts: fonts))
    }

    private func loadTargeting(_ errors: inout [DiagnosticsError]) -> TargetingConfiguration? {
        let file = directory.appendingPathComponent("targeting.json")
        let bytes: [UInt8]
        if FileManager.default.fileExists(atPath: file.path) {
            switch read(file, source: "targeting.json") {
            case .success(let read): bytes = read
            case .failure(let error):
                errors.append(error)
                return nil
            }
        } else {
            bytes = Array("{}".utf8)
        }
        switch TargetingConfiguration.decode(bytes, source: "targeting.json") {
        case .success(let configuration): return configuration
        case .failure(let error):
            errors.append(error)
            return nil
        }
    }

    /// Every `fonts/*.trfm` metrics pack (optional: no directory means no fonts, and layouts are
    /// refused). A pack that cannot be read or decoded is an error naming the file, table and offset.
    private func loadFonts(_ errors: inout [DiagnosticsError]) -> FontCollection {
        var collection = FontCollection(fallbackFamilies: FontCollection.shippedFallbackFamilies)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: fontsDirectory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { return collection }
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(at: fontsDirectory, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == MetricsPack.fileExtension && !$0.lastPathComponent.hasPrefix(".") }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        } catch {
            errors.append(Self.fileError("fonts/", error))
            return collection
        }
        for file in files {
            let source = "fonts/" + file.lastPathComponent
            switch read(file, source: source) {
            case .failure(let error):
                errors.append(error)
            case .success(let bytes):
                do throws(FontError) {
                    try collection.addPack(bytes)
                } catch {
                    errors.append(DiagnosticsError(source: source, diagnostics: [
                        Diagnostic(path: .root, location: .unknown, message: "not a valid font metrics pack: \(error.description)")
                    ]))
                }
            }
        }
        return collection
    }

    private func screenFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: screensDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    private func read(_ file: URL, source: String) -> Result<[UInt8], DiagnosticsError> {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            return .failure(Self.fileError(source, error))
        }
        guard data.count <= Self.maximumFileBytes else {
            return .failure(DiagnosticsError(source: source, diagnostics: [
                Diagnostic(path: .root, location: .unknown, message: "file is \(data.count) bytes; the limit is \(Self.maximumFileBytes)")
            ]))
        }
        return .success([UInt8](data))
    }

    static func fileError(_ source: String, _ error: any Error) -> DiagnosticsError {
        let reason = (error as NSError).localizedDescription
        return DiagnosticsError(source: source, diagnostics: [Diagnostic(path: .root, location: .unknown, message: "cannot read: \(reason)")])
    }
}
