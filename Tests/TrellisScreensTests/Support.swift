import Foundation
import Testing
import TrellisJSON
import TrellisScreens

/// `Config/screens`, found from this file: Tests/TrellisScreensTests/Support.swift → ../../Config/screens.
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

/// The diagnostics of a document that must not decode; records an issue when it does.
func diagnostics(_ text: String, expectedID: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation)
    -> [Diagnostic]
{
    switch decodeScreen(text, expectedID: expectedID) {
    case .success: Issue.record("the document decoded", sourceLocation: sourceLocation); return []
    case .failure(let error): return error.diagnostics
    }
}
