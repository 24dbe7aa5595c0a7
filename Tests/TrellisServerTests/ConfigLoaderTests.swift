import Foundation
import Testing
import TrellisJSON
@testable import TrellisRuntime
import TrellisScreens
import TrellisStore
import TrellisTargeting
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
        let result = ConfigLoader(directory: config.url).load(previous: nil)
        guard case .failure(let error) = result else { Issue.record("expected failure"); return }
        #expect(error.errors.map(\.source) == ["screens/broken.json", "screens/syntax.json"])
        #expect(error.description.contains("screens/broken.json: $.root.type (line 3): unknown component type \"Txet\""))
        #expect(error.description.contains("screens/syntax.json: $ (line 3): trailing comma before '}'"))
    }

    @Test func fileNameAndScreenIDMustAgree() throws {
        let config = try TemporaryConfig(screens: ["home": TemporaryConfig.screen(id: "start", text: "x")])
        let result = ConfigLoader(directory: config.url).load(previous: nil)
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
        #expect(second.screens["about"]?.contentFingerprint == first.screens["about"]?.contentFingerprint)
        #expect(second.screens["home"]?.contentFingerprint != first.screens["home"]?.contentFingerprint)
        #expect(second.screens["new"]?.revision == 1)
    }

    /// A reload decodes only the files whose bytes changed: the others keep the screen decoded
    /// before (shown by a previous baseline whose "about" holds another screen's model under the
    /// file's very bytes), so 10,000 unchanged screens are neither decoded again nor held twice.
    @Test func aReloadDecodesOnlyTheFilesThatChanged() throws {
        let config = try TemporaryConfig(screens: [
            "home": TemporaryConfig.screen(id: "home", text: "Hi"), "about": TemporaryConfig.screen(id: "about", text: "Us"),
        ])
        let loader = ConfigLoader(directory: config.url)
        guard case .success(let first) = loader.loadBaseline(), let home = first.screens["home"], let about = first.screens["about"]
        else { Issue.record("the first load failed"); return }
        var doctored = first.screens
        let homeModel = try loader.checkScreen(home.bytes, source: "home", id: "home", targeting: first.targeting, templates: first.templates).get()
        doctored["about"] = .init(
            checked: CheckedScreen(
                homeModel, document: DocumentBytes(about.bytes), decoder: loader.decoder, templates: first.templates, resolver: loader.resolver))
        let previous = ConfigBaseline(
            targeting: first.targeting, templates: first.templates, templatesFingerprint: first.templatesFingerprint, screens: doctored,
            routes: first.routes, fonts: first.fonts, fontFiles: first.fontFiles, strings: first.strings)
        try config.write(screen: "home", TemporaryConfig.screen(id: "home", text: "Hello"))
        guard case .success(let second) = loader.loadBaseline(previous: previous) else { Issue.record("the reload failed"); return }
        #expect(second.screens["about"]?.checked.id == "home", "unchanged bytes: the previous model, not decoded again")
        #expect(second.screens["home"]?.checked.id == "home")
        #expect(second.screens["home"]?.fingerprint != home.fingerprint, "changed bytes: decoded anew")
        guard case .success(let fresh) = loader.loadBaseline() else { Issue.record("a load without a previous one failed"); return }
        #expect(fresh.screens["about"]?.checked.id == "about")
    }

    @Test func whitespaceOnlyEditsKeepTheRevision() throws {
        let config = try TemporaryConfig()
        let first = try loadSnapshot(config)
        try config.write(screen: "home", TemporaryConfig.screen(id: "home", text: "Welcome") + "\n\n  ")
        #expect(try loadSnapshot(config, previous: first).screens["home"]?.revision == 1)
    }

    @Test func screensMustOnlyNameRulesRolloutsAndExperimentsThatExist() throws {
        let config = try TemporaryConfig()
        try config.write(screen: "gated", """
            {
              "id": "gated", "schemaVersion": 1,
              "root": {"type": "Rule", "rule": {"rollout": "new-cards"},
                       "child": {"type": "Text", "values": {"text": "new"}}}
            }
            """)
        let result = ConfigLoader(directory: config.url).load(previous: nil)
        guard case .failure(let error) = result else { Issue.record("expected failure"); return }
        #expect(error.errors.map(\.source) == ["screens/gated.json"])
        #expect(error.description.contains("$.root.rule.rollout (line 3)"))
        #expect(error.description.contains("new-cards"))
    }

    @Test func anInvalidTargetingFileRefusesTheLoad() throws {
        let config = try TemporaryConfig()
        try config.write(targeting: #"{"rollouts": {"x": {"percentage": 120}}}"#)
        let result = ConfigLoader(directory: config.url).load(previous: nil)
        guard case .failure(let error) = result else { Issue.record("expected failure"); return }
        #expect(error.errors.map(\.source) == ["targeting.json"])
        #expect(error.description.contains("$.rollouts.x.percentage"))
    }

    @Test func theBundledConfigLoads() throws {
        let bundled = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config")
        let snapshot = try ConfigLoader(directory: bundled).load(previous: nil).get()
        #expect(snapshot.screens.keys.sorted() == ["home", "order", "product", "profile"])
        #expect(snapshot.targeting.rollouts["gold-banner"] != nil)
    }

    /// The screens are the `*.json` files of `screens/`: hidden files, other files and folders
    /// are not screens; a file that cannot be read, or is over the size limit, is named with the reason.
    @Test func screensAreTheJSONFilesOfTheirDirectory() throws {
        let config = try TemporaryConfig(screens: ["b": TemporaryConfig.screen(id: "b", text: "B"), "a": TemporaryConfig.screen(id: "a", text: "A")])
        let screens = config.url.appendingPathComponent("screens")
        try Data("{".utf8).write(to: screens.appendingPathComponent(".draft.json"))
        try Data("notes".utf8).write(to: screens.appendingPathComponent("README.md"))
        try Data("{".utf8).write(to: screens.appendingPathComponent("c.json.orig"))
        #expect(try loadSnapshot(config).screens.keys.sorted() == ["a", "b"])

        try FileManager.default.createDirectory(at: screens.appendingPathComponent("folder.json"), withIntermediateDirectories: false)
        try Data(repeating: UInt8(ascii: " "), count: ConfigLoader.maximumFileBytes + 1).write(to: screens.appendingPathComponent("huge.json"))
        try FileManager.default.createSymbolicLink(atPath: screens.appendingPathComponent("gone.json").path, withDestinationPath: "nowhere.json")
        guard case .failure(let error) = ConfigLoader(directory: config.url).load(previous: nil) else {
            Issue.record("expected failure")
            return
        }
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.contains("screens/folder.json: $: cannot read: not a regular file"), "\(lines)")
        #expect(lines.contains("screens/huge.json: $: file is \(ConfigLoader.maximumFileBytes + 1) bytes; the limit is \(ConfigLoader.maximumFileBytes)"), "\(lines)")
        #expect(lines.contains("screens/gone.json: $: cannot read: No such file or directory"), "\(lines)")
        #expect(lines.count == 3, "\(lines)")
    }

    /// An entry's name is read up to its zero, never to the end of `d_name`: here the entry is the
    /// last thing on a page with nothing mapped after it, as the last entry of `readdir`'s buffer
    /// can be. Reading all 256 bytes of `d_name` (the old way) dies with SIGSEGV.
    @Test func aDirectoryEntrysNameIsReadNoFurtherThanItsZero() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapped = try #require(
            mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        defer { munmap(mapped, 2 * page) }
        #expect(mprotect(mapped + page, page, PROT_NONE) == 0)
        let name = "screen1.json"
        let nameOffset = try #require(MemoryLayout<dirent>.offset(of: \.d_name))
        // The name and its zero end the page; the entry starts where its alignment allows.
        let start = page - nameOffset - name.utf8.count - 1
        #expect(start % MemoryLayout<dirent>.alignment == 0)
        let entry = mapped + start
        let nameBytes = Array(name.utf8) + [0]
        (entry + nameOffset).copyMemory(from: nameBytes, byteCount: nameBytes.count)
        #expect(ConfigFiles.name(of: entry.assumingMemoryBound(to: dirent.self)) == name)
    }

    /// A file longer than its size said when it was opened (as `/proc` files, which say 0) is read
    /// to its end, and still refused past the limit.
    @Test func aFileIsReadToItsEndWhateverItsSizeSaid() throws {
        let expected = try #require(FileManager.default.contents(atPath: "/proc/self/cmdline"))
        guard case .success(let bytes) = ConfigFiles.bytes(at: "/proc/self/cmdline", limit: 1 << 20) else {
            Issue.record("/proc/self/cmdline not read")
            return
        }
        #expect(bytes == [UInt8](expected) && !bytes.isEmpty)
        guard case .failure(.tooLarge(let size)) = ConfigFiles.bytes(at: "/proc/self/maps", limit: 64) else {
            Issue.record("/proc/self/maps read past the limit")
            return
        }
        #expect(size > 64)
    }

    @Test func missingScreensDirectoryIsAnError() throws {
        let config = try TemporaryConfig(screens: [:])
        try FileManager.default.removeItem(at: config.url.appendingPathComponent("screens"))
        let result = ConfigLoader(directory: config.url).load(previous: nil)
        guard case .failure(let error) = result else { Issue.record("expected failure"); return }
        #expect(error.description.hasPrefix("screens/: $: cannot read: No such file or directory"))
    }
}

