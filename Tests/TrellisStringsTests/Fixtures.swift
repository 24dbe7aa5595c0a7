import Foundation

/// A fixture of Fixtures/strings/ (scripts/strings-oracle), decoded.
func stringsFixture<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/strings/\(name)").standardizedFileURL
    return try JSONDecoder().decode(type, from: Data(contentsOf: url))
}
