// The lint's tests: screens written here or shipped, decoded as the server decodes them, linted
// with the shipped font packs.

import Foundation
import TrellisJSON
import TrellisLint
import TrellisScreens
import TrellisText

/// The repository, found from this file.
enum Repository {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `.json` files of a folder, sorted, as (id, bytes).
    static func jsonFiles(in folder: String) throws -> [(id: String, bytes: [UInt8])] {
        let directory = url.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
            .map { (String($0.dropLast(".json".count)), [UInt8](try Data(contentsOf: directory.appendingPathComponent($0)))) }
    }
}

struct LintTestError: Error, CustomStringConvertible { var description: String }

/// The shipped font metrics packs (Config/fonts/*.trfm), as the server loads them.
enum ShippedFonts {
    static let collection = Result { () throws -> FontCollection in
        let directory = Repository.url.appendingPathComponent("Config/fonts")
        var fonts = FontCollection(fallbackFamilies: FontCollection.shippedFallbackFamilies)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        where name.hasSuffix("." + MetricsPack.fileExtension) {
            _ = try fonts.addPack([UInt8](try Data(contentsOf: directory.appendingPathComponent(name))))
        }
        return fonts
    }

    static func lint(_ options: LintOptions = LintOptions()) throws -> ScreenLint { ScreenLint(fonts: try collection.get(), options: options) }
}

/// A screen decoded from JSON text, with the shipped templates when `templates` is true.
func screen(_ text: String, id: String = "s", templates: TemplateLibrary = TemplateLibrary()) throws -> Screen {
    switch ScreenDecoder().decode(Array(text.utf8), source: "screens/\(id).json", expectedID: id, templates: templates) {
    case .success(let screen): return screen
    case .failure(let error): throw LintTestError(description: "\(error)")
    }
}

/// A screen of schema version 3 whose root is `root` (JSON text).
func screen(root: String) throws -> Screen {
    try screen(#"{"id": "s", "schemaVersion": 3, "root": \#(root)}"#)
}

/// The findings of `screen` on `configurations` (the small iPhone at font scale 1 by default).
func findings(
    _ screen: Screen, _ configurations: [LintConfiguration] = [LintConfiguration(device: .iosSmall, fontScale: 1)],
    options: LintOptions = LintOptions()
) throws -> [LintFinding] {
    try ShippedFonts.lint(options).findings(screen: screen, locale: "en", configurations: configurations)
}

extension [LintFinding] {
    /// `path rule value` of each: what a test compares.
    var lines: [String] { map { "\($0.path) \($0.rule.rawValue) \($0.value)" } }
}
