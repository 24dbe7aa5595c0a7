import Foundation
import Testing
import TrellisJSON
@testable import TrellisServer

@Suite struct ConfigLoaderTests {
    @Test func loadsEveryScreenAtRevisionOne() throws {
        let config = try TemporaryConfig(screens: [
            "home": TemporaryConfig.screen(id: "home", text: "Hi"), "about": TemporaryConfig.screen(id: "about", text: "Us"),
        ])
        let snapshot = try loadSnapshot(config)
        #expect(snapshot.screens.keys.sorted() == ["about", "home"])
        #expect(snapshot.screens["home"]?.revision == 1)
        #expect(snapshot.generation == 1)
    }

    @Test func oneInvalidFileRefusesTheWholeLoadAndNamesFilePathAndLine() throws {
        let config = try TemporaryConfig()
        try config.write(screen: "broken", """
            {
              "id": "broken", "schemaVersion": 1,
              "root": {"type": "Txet", "values": {"text": 1}}
            }
            """)
        try config.write(screen: "syntax", "{\n  \"id\": \"syntax\",\n}")
        let result = ConfigLoader(directory: config.url).load(previous: nil, compress: noCompression)
        guard case .failure(let error) = result else { Issue.record("expected failure"); return }
        #expect(error.errors.map(\.source) == ["screens/broken.json", "screens/syntax.json"])
        #expect(error.description.contains("screens/broken.json: $.root.type (line 3): unknown component type \"Txet\""))
        #expect(error.description.contains("screens/syntax.json: $ (line 3): trailing comma before '}'"))
    }

    @Test func fileNameAndScreenIDMustAgree() throws {
        let config = try TemporaryConfig(screens: ["home": TemporaryConfig.screen(id: "start", text: "x")])
        let result = ConfigLoader(directory: config.url).load(previous: nil, compress: noCompression)
        guard case .failure(let error) = result else { Issue.record("expected failure"); return }
        #expect(error.description.contains("screen id \"start\" does not match \"home\""))
    }

    @Test func reloadKeepsUnchangedRevisionsAndBumpsChangedOnes() throws {
        let config = try TemporaryConfig(screens: [
            "home": TemporaryConfig.screen(id: "home", text: "Hi"), "about": TemporaryConfig.screen(id: "about", text: "Us"),
        ])
        let first = try loadSnapshot(config)
        try config.write(screen: "home", TemporaryConfig.screen(id: "home", text: "Hello"))
        try config.write(screen: "new", TemporaryConfig.screen(id: "new", text: "New"))
        let second = try loadSnapshot(config, previous: first)
        #expect(second.generation == 2)
        #expect(second.screens["home"]?.revision == 2)
        #expect(second.screens["about"]?.revision == 1)
        #expect(second.screens["about"]?.compact.etag == first.screens["about"]?.compact.etag)
        #expect(second.screens["home"]?.compact.etag != first.screens["home"]?.compact.etag)
        #expect(second.screens["new"]?.revision == 1)
    }

    @Test func whitespaceOnlyEditsKeepTheRevision() throws {
        let config = try TemporaryConfig()
        let first = try loadSnapshot(config)
        try config.write(screen: "home", TemporaryConfig.screen(id: "home", text: "Welcome") + "\n\n  ")
        #expect(try loadSnapshot(config, previous: first).screens["home"]?.revision == 1)
    }

    @Test func missingScreensDirectoryIsAnError() throws {
        let config = try TemporaryConfig(screens: [:])
        try FileManager.default.removeItem(at: config.url.appendingPathComponent("screens"))
        let result = ConfigLoader(directory: config.url).load(previous: nil, compress: noCompression)
        guard case .failure(let error) = result else { Issue.record("expected failure"); return }
        #expect(error.description.hasPrefix("screens/: $: cannot read"))
    }
}

