import Foundation
import TrellisJSON
import TrellisTargeting

/// The repository root, found from this file: Tests/TrellisTargetingTests/Support.swift → ../..
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

func repositoryFile(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: repositoryRoot.appendingPathComponent(path)))
}

/// Decodes a targeting document given as text.
func decodeTargeting(_ text: String) -> Result<TargetingConfiguration, DiagnosticsError> {
    TargetingConfiguration.decode(Array(text.utf8), source: "targeting.json")
}

/// `Config/targeting.json`, which must decode.
func configTargeting() throws -> TargetingConfiguration {
    try TargetingConfiguration.decode(try repositoryFile("Config/targeting.json"), source: "targeting.json").get()
}
