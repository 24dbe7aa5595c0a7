import Foundation
import TrellisAnswers
import TrellisJSON
import TrellisRendering
import TrellisRoutes
import TrellisScreens
import TrellisStore
import TrellisStrings
import TrellisStringsJSON
import TrellisTargeting
import TrellisText

/// Every problem found while loading a configuration directory, file by file.
public struct ConfigLoadError: Error, Sendable, CustomStringConvertible {
    public var errors: [DiagnosticsError]

    public init(errors: [DiagnosticsError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// What a configuration directory says, checked: the baseline a deployment starts from, before
/// the runtime changes ops make through the admin API.
public struct ConfigBaseline: Sendable {
    public struct ScreenFile: Sendable {
        /// The file decoded and checked (its document is the file's bytes).
        public let checked: CheckedScreen
        /// The file's bytes, as authored (held deflated: ``CheckedScreen/document``).
        public var bytes: [UInt8] { checked.document.bytes }
        /// ``ScreenEntry/contentFingerprint(of:)``: equal for equal content, whatever the formatting.
        public var fingerprint: String { checked.fingerprint }
    }

    /// `routes.json`, decoded and checked on its own (against the screens, when a snapshot is built).
    public struct RoutesFile: Sendable {
        public let table: RouteTable
        public let bytes: [UInt8]
        /// ``RouteTableEntry/fingerprint(of:)`` of the file.
        public let fingerprint: String
    }

    public let targeting: TargetingConfiguration
    /// `templates/*.json`: the subtrees screens instantiate (empty without the directory).
    public let templates: TemplateLibrary
    /// Identifies the template files' names and bytes: equal, screens made of templates expand
    /// as they did (a reload keeps their decoded screens).
    public var templatesFingerprint: String = ""
    public let screens: [String: ScreenFile]
    /// Nil when the directory has no `routes.json`: no route table, so links are not checked.
    public let routes: RoutesFile?
    public let fonts: FontCollection
    /// The font files the packs were built from, served to previews (`GET /fonts/{file}`).
    public let fontFiles: FontFiles
    /// `strings/<locale>.json`: every locale's string table (none without the directory).
    public let strings: StringCatalog
    /// The bytes of each of those files, by locale: what the runtime store records of them.
    public var stringFiles: [String: [UInt8]] = [:]
}

extension ConfigBaseline {
    /// This baseline with every screen file whose content is unchanged since `old` holding the old
    /// one's decoded screen instead of its own. The snapshot a reload builds reuses the entries
    /// (and so the models) of the revisions it served before; without this the process would hold
    /// two models of every unchanged screen, one there and one here, after every reload.
    package func sharingScreens(with old: ConfigBaseline) -> ConfigBaseline {
        var screens = self.screens
        for (id, file) in screens where old.screens[id]?.fingerprint == file.fingerprint {
            screens[id] = old.screens[id]
        }
        return ConfigBaseline(
            targeting: targeting, templates: templates, templatesFingerprint: templatesFingerprint, screens: screens, routes: routes,
            fonts: fonts, fontFiles: fontFiles, strings: strings, stringFiles: stringFiles)
    }
}

/// Reads a directory shaped like `Config/` into a snapshot, all or nothing.
public struct ConfigLoader: Sendable {
    /// Files larger than this are refused: a screen is tens of kilobytes, not megabytes.
    public static let maximumFileBytes = 4 << 20

    public let directory: URL
    public let decoder: ScreenDecoder
    public let resolver: ScreenResolver
    /// The bytes the answer cache of each snapshot built from this directory may hold: fixed at
    /// start from `server.json`, and here so that whatever builds a snapshot reads it.
    public let cacheBudget: CacheBudget
    /// The locale whose string table has every key, and answers a request whose locale has no
    /// table (`strings.defaultLocale` in `server.json`).
    public let defaultLocale: String

    public init(
        directory: URL, decoder: ScreenDecoder = ScreenDecoder(), resolver: ScreenResolver = ScreenResolver(),
        cacheBudget: CacheBudget = .forThisMachine, defaultLocale: String = "en"
    ) {
        self.directory = directory
        self.decoder = decoder
        self.resolver = resolver
        self.cacheBudget = cacheBudget
        self.defaultLocale = defaultLocale
    }

    public var screensDirectory: URL { directory.appendingPathComponent("screens", isDirectory: true) }
    public var fontsDirectory: URL { directory.appendingPathComponent("fonts", isDirectory: true) }
    public var templatesDirectory: URL { directory.appendingPathComponent("templates", isDirectory: true) }
    public var stringsDirectory: URL { directory.appendingPathComponent("strings", isDirectory: true) }

    /// Loads `targeting.json` (optional: no file means no rules, rollouts or experiments) and every
    /// `screens/*.json`, and checks that every rule, rollout and experiment a screen names exists.
    /// A screen whose content is unchanged from `previous` keeps its revision; a changed one gets
    /// the next revision; a new one starts at 1. (A server with a runtime store takes revisions from
    /// the store instead: ``loadBaseline()`` and ``SnapshotBuilder``.)
    /// - Returns: a new snapshot, or every error of every file; one bad file refuses the whole load.
    public func load(previous: Snapshot?) -> Result<Snapshot, ConfigLoadError> {
        loadBaseline().flatMap { baseline in
            var screens: ScreenMap<ScreenEntry> = [:]
            for (id, file) in baseline.screens {
                if let old = previous?.screens[id], old.contentFingerprint == file.fingerprint {
                    screens[id] = old
                } else {
                    let revision = (previous?.screens[id]?.revision ?? 0) + 1
                    screens[id] = ScreenEntry(file.checked, revision: revision)
                }
            }
            let routes = baseline.routes.map { file in
                let unchanged = previous?.routes.flatMap { $0.fingerprint == file.fingerprint ? $0 : nil }
                return unchanged ?? RouteTableEntry(table: file.table, revision: (previous?.routes?.revision ?? 0) + 1, document: file.bytes)
            }
            let navigation = NavigationCheck.errors(
                routes: routes.map { NavigationCheck.TableSource(table: $0.table, source: "routes.json", bytes: $0.document) },
                screens: baseline.screens.values.map { NavigationCheck.ScreenSource(screen: $0.checked, source: "screens/\($0.checked.id).json", document: $0.checked.document) },
                served: .init(contains: { baseline.screens[$0] != nil }, ids: { Array(baseline.screens.keys) }), targeting: baseline.targeting)
            guard navigation.isEmpty else { return .failure(ConfigLoadError(errors: navigation)) }
            let strings = StringCheck.errors(
                screens: baseline.screens.values.map { NavigationCheck.ScreenSource(screen: $0.checked, source: "screens/\($0.checked.id).json", document: $0.checked.document) },
                catalog: baseline.strings)
                + StringCheck.errors(targeting: baseline.targeting, source: "targeting.json", catalog: baseline.strings)
            guard strings.isEmpty else { return .failure(ConfigLoadError(errors: strings)) }
            return .success(
                Snapshot(
                    screens: screens, targeting: baseline.targeting, resolver: resolver,
                    generation: (previous?.generation ?? 0) + 1, fonts: baseline.fonts, fontFiles: baseline.fontFiles,
                    templates: baseline.templates, strings: baseline.strings, caches: SnapshotCaches(answers: AnswerCache(budget: cacheBudget)),
                    routes: routes))
        }
    }

    /// Reads and checks the whole directory: targeting, fonts and every screen, all or nothing.
    /// - Parameter previous: the baseline in force (a reload): a screen file whose bytes are those
    ///   it read, and which uses no template, keeps its decoded screen — its references checked
    ///   against the new targeting — instead of being decoded again: a reload of 10,000 screens
    ///   where a few changed decodes those few, and never holds two models of the others.
    /// - Parameter stored: the runtime store's rows (a start): a screen file whose bytes are its
    ///   current revision's is checked as that revision (``checkedScreen(_:source:id:targeting:templates:storedAs:)``):
    ///   one copy of the document, compared once.
    public func loadBaseline(previous: ConfigBaseline? = nil, stored: StoredState? = nil) -> Result<ConfigBaseline, ConfigLoadError> {
        var errors: [DiagnosticsError] = []
        let targeting = loadTargeting(&errors)
        let (fonts, webFonts) = loadFonts(&errors)
        let routes = loadRoutes(&errors, targeting: targeting)
        var templateFiles: [UInt8] = []
        let templates = loadTemplates(&errors, files: &templateFiles)
        let templatesFingerprint = EncodedBody.fingerprint(templateFiles)
        let (strings, stringFiles) = loadStrings(&errors)
        let unchangedTemplates = previous?.templatesFingerprint == templatesFingerprint
        var screens: [String: ConfigBaseline.ScreenFile] = [:]
        let names: [String]
        do {
            names = try ConfigFiles.jsonFileNames(in: screensDirectory.path)
        } catch {
            return .failure(ConfigLoadError(errors: errors + [Self.fileError("screens/", error)]))
        }
        let revisions: [String: DocumentRevision] = Dictionary(
            (stored?.revisioned ?? []).compactMap { stored -> (String, DocumentRevision)? in
                guard case .screen(let id) = stored.head.key else { return nil }
                return (id, stored.current)
            }, uniquingKeysWith: { $1 })
        let directory = screensDirectory.path + "/"
        // Decoding and checking is most of a start at thousands of screens: each file on its own, on every core.
        let loaded = ParallelMap.map(names) { name in
            let source = "screens/" + name
            let id = String(name.dropLast(".json".count))
            return read(path: directory + name, source: source).flatMap { bytes in
                if let old = previous?.screens[id], old.checked.document.holds(bytes), old.checked.templateNames.isEmpty || unchangedTemplates,
                    let targeting, (try? old.checked.checkReferences(in: targeting, source: source)) != nil
                {
                    return .success((id, old))
                }
                let revision = revisions[id].flatMap { $0.heldDocument.holds(bytes) ? $0 : nil }
                return checkedScreen(bytes, source: source, id: id, targeting: targeting, templates: templates, storedAs: revision).map { checked in
                    (id, ConfigBaseline.ScreenFile(checked: checked))
                }
            }
        }
        for result in loaded {
            switch result {
            case .failure(let error): errors.append(error)
            case .success(let (id, file)): screens[id] = file
            }
        }
        guard errors.isEmpty, let targeting else { return .failure(ConfigLoadError(errors: errors)) }
        return .success(
            ConfigBaseline(
                targeting: targeting, templates: templates, templatesFingerprint: templatesFingerprint, screens: screens, routes: routes,
                fonts: fonts, fontFiles: FontFiles(webFonts), strings: strings, stringFiles: stringFiles))
    }

    /// Decodes and validates one screen document, then checks every rule, rollout and experiment it
    /// names against `targeting` (skipped when the targeting itself failed to load).
    public func checkScreen(
        _ bytes: [UInt8], source: String, id: String, targeting: TargetingConfiguration?, templates: TemplateLibrary
    ) -> Result<Screen, DiagnosticsError> {
        decoder.decode(bytes, source: source, expectedID: id, templates: templates).flatMap { screen in
            Self.checkReferences(resolver.decisions(of: screen), of: bytes, source: source, targeting: targeting).map { screen }
        }
    }

    /// Every rule, rollout and experiment `decisions` name, checked against `targeting` (nothing
    /// checked when the targeting itself failed to load), with the lines of `bytes`.
    private static func checkReferences(
        _ decisions: ScreenDecisions, of bytes: [UInt8], source: String, targeting: TargetingConfiguration?
    ) -> Result<Void, DiagnosticsError> {
        guard let targeting else { return .success(()) }
        do throws(DiagnosticsError) {
            try decisions.checkReferences(in: targeting, source: source)
            return .success(())
        } catch {
            // Decisions keep no lines; the document, parsed once more, does.
            return .failure(error.locating(inDocument: bytes))
        }
    }

    /// ``checkScreen(_:source:id:targeting:templates:)``, kept as a ``CheckedScreen`` of `bytes`
    /// (whose decision points the references are checked from: they are found once).
    /// - Parameter revision: a stored revision of these very bytes: the checked screen holds its
    ///   document (one copy, which the runtime state's revision then shares as it is) and, unless
    ///   the screen uses templates (whose content may have changed since), takes its content
    ///   fingerprint rather than encoding the model again for it (a content's fingerprint never
    ///   changes: ``ScreenEntry/contentFingerprint(of:)``) — a tenth of a start's work at 10,000 screens.
    public func checkedScreen(
        _ bytes: [UInt8], source: String, id: String, targeting: TargetingConfiguration?, templates: TemplateLibrary,
        storedAs revision: DocumentRevision? = nil
    ) -> Result<CheckedScreen, DiagnosticsError> {
        decoder.decode(bytes, source: source, expectedID: id, templates: templates).flatMap { screen in
            let checked = CheckedScreen(
                screen, document: revision?.heldDocument ?? DocumentBytes(bytes), decoder: decoder, templates: templates,
                resolver: resolver, fingerprint: screen.templates.isEmpty ? revision?.fingerprint : nil)
            return Self.checkReferences(checked.decisions, of: bytes, source: source, targeting: targeting).map { checked }
        }
    }

    /// Decodes and checks a route table on its own: patterns, targets, templates, redirects, and the
    /// rules its guards name (against `targeting`, skipped when that failed to load). Whether the
    /// screens it opens exist, and whether their links match it, is checked with the screens.
    public func checkRoutes(_ bytes: [UInt8], source: String, targeting: TargetingConfiguration?) -> Result<RouteTable, DiagnosticsError> {
        RouteTable.decode(bytes, source: source).flatMap { table in
            guard let targeting else { return .success(table) }
            let unknown = table.checkReferences(in: targeting)
            guard unknown.isEmpty else {
                let error = DiagnosticsError(source: source, diagnostics: unknown)
                return .failure(error.locating(inDocument: bytes))
            }
            return .success(table)
        }
    }

    /// `routes.json` (optional: without it there is no route table and links are not checked).
    private func loadRoutes(_ errors: inout [DiagnosticsError], targeting: TargetingConfiguration?) -> ConfigBaseline.RoutesFile? {
        let file = directory.appendingPathComponent("routes.json")
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        switch read(file, source: "routes.json").flatMap({ bytes in
            checkRoutes(bytes, source: "routes.json", targeting: targeting).map { (bytes, $0) }
        }) {
        case .failure(let error):
            errors.append(error)
            return nil
        case .success(let (bytes, table)):
            return ConfigBaseline.RoutesFile(table: table, bytes: bytes, fingerprint: RouteTableEntry.fingerprint(of: bytes))
        }
    }

    /// The directory's templates alone, for checking screen files one by one (`trellis validate PATH…`).
    public func loadTemplates() -> Result<TemplateLibrary, ConfigLoadError> {
        var errors: [DiagnosticsError] = []
        var files: [UInt8] = []
        let library = loadTemplates(&errors, files: &files)
        return errors.isEmpty ? .success(library) : .failure(ConfigLoadError(errors: errors))
    }

    /// Every `templates/*.json` (optional: no directory means no templates), each checked on its
    /// own, then together for cycles. A template is checked as a screen's part where it is used.
    /// - Parameter files: gets each file's name and bytes, for ``ConfigBaseline/templatesFingerprint``.
    private func loadTemplates(_ errors: inout [DiagnosticsError], files read: inout [UInt8]) -> TemplateLibrary {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: templatesDirectory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { return TemplateLibrary() }
        let names: [String]
        do {
            names = try ConfigFiles.jsonFileNames(in: templatesDirectory.path)
        } catch {
            errors.append(Self.fileError("templates/", error))
            return TemplateLibrary()
        }
        var templates: [Template] = []
        for name in names {
            let source = "templates/" + name
            switch self.read(path: templatesDirectory.path + "/" + name, source: source).flatMap({ bytes in
                read += Array(source.utf8) + [0] + bytes + [0]
                return TemplateLibrary.decode(bytes, source: source, expectedID: String(name.dropLast(".json".count)))
            }) {
            case .success(let template): templates.append(template)
            case .failure(let error): errors.append(error)
            }
        }
        let library = TemplateLibrary(templates)
        errors += library.cycles()
        return library
    }

    /// Every `strings/<locale>.json` (optional: no directory means no tables), each named by its
    /// locale tag as BCP 47 writes it (`de-AT.json`, not `de_at.json`); when there are tables, the
    /// default locale's must be among them.
    private func loadStrings(_ errors: inout [DiagnosticsError]) -> (StringCatalog, files: [String: [UInt8]]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: stringsDirectory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { return (StringCatalog(defaultLocale: defaultLocale, tables: [:]), [:]) }
        let names: [String]
        do {
            names = try ConfigFiles.jsonFileNames(in: stringsDirectory.path)
        } catch {
            errors.append(Self.fileError("strings/", error))
            return (StringCatalog(defaultLocale: defaultLocale, tables: [:]), [:])
        }
        var tables: [String: [String: Message]] = [:]
        var files: [String: [UInt8]] = [:]
        for name in names {
            let source = "strings/" + name
            let tag = String(name.dropLast(".json".count))
            guard StringTableFile.isLocaleTag(tag) else {
                errors.append(Self.nameError(source, "a string table's file is named by its locale tag as BCP 47 writes it, such as de.json or pt-BR.json"))
                continue
            }
            switch read(path: stringsDirectory.path + "/" + name, source: source).flatMap({ bytes in
                StringTableFile.decode(bytes, source: source).map { (bytes, $0) }
            }) {
            case .success(let (bytes, table)):
                tables[tag] = table
                files[tag] = bytes
            case .failure(let error): errors.append(error)
            }
        }
        let catalog = StringCatalog(defaultLocale: defaultLocale, tables: tables)
        if !tables.isEmpty, tables[catalog.defaultLocale] == nil {
            errors.append(
                Self.nameError(
                    "strings/", "the default locale \(catalog.defaultLocale) has no table; tables: \(tables.keys.sorted().joined(separator: ", ")) (set strings.defaultLocale in server.json)"))
        }
        return (catalog, files)
    }

    private static func nameError(_ source: String, _ message: String) -> DiagnosticsError {
        DiagnosticsError(source: source, diagnostics: [Diagnostic(path: .root, location: .unknown, message: message)])
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
    /// refused), and the font file each was built from when it is beside it (``WebFonts``). A pack
    /// that cannot be read or decoded is an error naming the file, table and offset; so is a font
    /// file that is not the one its pack was built from (another CRC-32).
    private func loadFonts(_ errors: inout [DiagnosticsError]) -> (FontCollection, WebFonts) {
        var collection = FontCollection(fallbackFamilies: FontCollection.shippedFallbackFamilies)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: fontsDirectory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { return (collection, WebFonts()) }
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(at: fontsDirectory, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == MetricsPack.fileExtension && !$0.lastPathComponent.hasPrefix(".") }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        } catch {
            errors.append(Self.fileError("fonts/", error))
            return (collection, WebFonts())
        }
        var faces: [FontFace] = []
        for file in files {
            let source = "fonts/" + file.lastPathComponent
            switch read(file, source: source) {
            case .failure(let error):
                errors.append(error)
            case .success(let bytes):
                do throws(FontError) {
                    faces.append(try collection.addPack(bytes))
                } catch {
                    errors.append(DiagnosticsError(source: source, diagnostics: [
                        Diagnostic(path: .root, location: .unknown, message: "not a valid font metrics pack: \(error.description)")
                    ]))
                }
            }
        }
        return (collection, WebFonts(faces: faces, files: loadFontFiles(faces, &errors)))
    }

    /// The bytes of each pack's source file present in `fonts/`, checked against the CRC-32 its
    /// pack recorded. A pack whose file is absent, or not a `.ttf`/`.otf`, has none.
    private func loadFontFiles(_ faces: [FontFace], _ errors: inout [DiagnosticsError]) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for face in faces where WebFonts.contentType(of: face.sourceFile) != nil && files[face.sourceFile] == nil {
            // The name comes from a pack: take it only as a plain name in fonts/, never as a path.
            guard !face.sourceFile.contains("/"), !face.sourceFile.hasPrefix(".") else { continue }
            let file = fontsDirectory.appendingPathComponent(face.sourceFile)
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            let source = "fonts/" + face.sourceFile
            switch read(file, source: source) {
            case .failure(let error):
                errors.append(error)
            case .success(let bytes):
                let checksum = Self.crc32(bytes)
                guard checksum == face.sourceChecksum else {
                    errors.append(DiagnosticsError(source: source, diagnostics: [
                        Diagnostic(path: .root, location: .unknown, message: "CRC-32 is \(Self.hex(checksum)), but the \(face.family) \(face.weight) pack was built from a file with CRC-32 \(Self.hex(face.sourceChecksum)): put the font file the pack was built from here, or rebuild the pack from this one (trellis fonts build)")
                    ]))
                    continue
                }
                files[face.sourceFile] = bytes
            }
        }
        return files
    }

    /// CRC-32 as TrellisText's ``TrellisText/crc32(_:)`` computes it, of an array. That one is
    /// generic, and called from another module it runs unspecialized, every byte through protocol
    /// witnesses, for every byte of the shipped fonts at every start.
    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        let table = crcTable
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes { crc = table[Int((crc ^ UInt32(b)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { i in
        var c = UInt32(i)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    private func read(_ file: URL, source: String) -> Result<[UInt8], DiagnosticsError> { read(path: file.path, source: source) }

    private func read(path: String, source: String) -> Result<[UInt8], DiagnosticsError> {
        ConfigFiles.bytes(at: path, limit: Self.maximumFileBytes).mapError { failure in
            switch failure {
            case .unreadable(let reason):
                Self.fileError(source, reason)
            case .tooLarge(let size):
                DiagnosticsError(source: source, diagnostics: [
                    Diagnostic(path: .root, location: .unknown, message: "file is \(size) bytes; the limit is \(Self.maximumFileBytes)")
                ])
            }
        }
    }

    package static func fileError(_ source: String, _ error: any Error) -> DiagnosticsError {
        let reason = (error as? ConfigFiles.Failure)?.description ?? (error as NSError).localizedDescription
        return DiagnosticsError(source: source, diagnostics: [Diagnostic(path: .root, location: .unknown, message: "cannot read: \(reason)")])
    }
}
