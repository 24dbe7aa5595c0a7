import Foundation
import TrellisJSON
import TrellisRuntime

extension TemporaryConfig {
    func write(routes text: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent("routes.json"))
    }

    /// A copy of the repository's `Config/` (screens, targeting, routes, fonts, server settings).
    static func copyOfRepository() throws -> TemporaryConfig {
        let config = try TemporaryConfig(screens: [:])
        let manager = FileManager.default
        for name in try manager.contentsOfDirectory(atPath: RepositoryConfig.url.path) {
            let target = config.url.appendingPathComponent(name)
            if manager.fileExists(atPath: target.path) { try manager.removeItem(at: target) }
            try manager.copyItem(at: RepositoryConfig.url.appendingPathComponent(name), to: target)
        }
        return config
    }
}

extension JSONValue {
    /// Element `index` of an array, for assertions.
    subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}
