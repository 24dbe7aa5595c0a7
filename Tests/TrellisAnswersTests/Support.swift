import Foundation
import TrellisJSON
import TrellisScreens
import TrellisStrings
import TrellisStringsJSON

// The few helpers of TrellisScreensTests' Support.swift that these tests use (test targets share no files).

/// `Config/screens`, found from this file: Tests/TrellisAnswersTests/Support.swift → ../../Config/screens.
let screensDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Config").appendingPathComponent("screens")

/// `Config/templates`, decoded: what the sample screens instantiate.
let configTemplates: TemplateLibrary = {
    let directory = screensDirectory.deletingLastPathComponent().appendingPathComponent("templates")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return TemplateLibrary(files.filter { $0.hasSuffix(".json") }.compactMap { file in
        let id = String(file.dropLast(5))
        let bytes = Array((try? Data(contentsOf: directory.appendingPathComponent(file))) ?? Data())
        return try? TemplateLibrary.decode(bytes, source: "templates/" + file, expectedID: id).get()
    })
}()

/// `Config/strings`, read: what the shipped screens' `$string`s are written from.
let configStrings: StringCatalog = {
    let directory = screensDirectory.deletingLastPathComponent().appendingPathComponent("strings")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    var tables: [String: [String: Message]] = [:]
    for file in files where file.hasSuffix(".json") {
        let bytes = Array((try? Data(contentsOf: directory.appendingPathComponent(file))) ?? Data())
        tables[String(file.dropLast(5))] = try? StringTableFile.decode(bytes, source: "strings/" + file).get()
    }
    return StringCatalog(defaultLocale: "en", tables: tables)
}()

/// Config/screens/NAME.json, decoded.
func configScreen(_ name: String) throws -> Screen {
    let bytes = Array(try Data(contentsOf: screensDirectory.appendingPathComponent(name + ".json")))
    return try ScreenDecoder().decode(bytes, source: name, expectedID: name, templates: configTemplates).get()
}

func decodeScreen(_ text: String, expectedID: String? = nil) -> Result<Screen, DiagnosticsError> {
    ScreenDecoder().decode(Array(text.utf8), source: "test.json", expectedID: expectedID)
}

/// A screen document whose `root` value starts on line 4, so a one-line root reports line 4.
func document(root: String, schemaVersion: Int = 2) -> String {
    """
    {
      "id": "test",
      "schemaVersion": \(schemaVersion),
      "root": \(root)
    }
    """
}

/// A screen whose root is `root`, decoded.
func inlineScreen(_ root: String, schemaVersion: Int = 2) throws -> Screen {
    try decodeScreen(document(root: root, schemaVersion: schemaVersion)).get()
}
