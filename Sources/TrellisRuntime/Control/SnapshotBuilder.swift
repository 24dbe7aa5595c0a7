import Dispatch
import TrellisAnswers
import TrellisJSON
import TrellisRoutes
import TrellisScreens
import TrellisStore
import TrellisStrings
import TrellisStringsJSON
import TrellisTargeting

/// Builds the snapshot served from the configuration baseline and the runtime layer over it:
/// rollouts and experiments with their runtime values applied, and every screen at the revisions
/// its head names. What is built is checked, so a runtime value the configuration no longer fits
/// (an experiment's variant removed from targeting.json, say) refuses the whole build, with its
/// source named, and the previous snapshot keeps serving.
///
/// Two ways in. ``build(baseline:runtime:previous:checked:checkedRoutes:)`` makes everything, for
/// a start or a reload. ``apply(_:baseline:runtime:over:checked:checkedRoutes:)`` makes only what a
/// runtime change touched, on the snapshot before it: a change costs what it touches, not the size
/// of the catalogue — a rollout's percentage rebuilds the targeting and nothing else, a publish
/// decodes and checks that one screen.
package struct SnapshotBuilder: Sendable {
    package let loader: ConfigLoader

    /// What a runtime change touched, as its store rows say.
    package struct Touched: Sendable, Equatable {
        /// A rollout's or experiment's runtime value.
        package var documents = false
        /// Screens whose head (and with it, maybe, served revisions) changed, by id.
        package var screens: Set<String> = []
        /// The route table's head.
        package var routes = false
        /// A string table's head.
        package var strings = false

        package init(documents: Bool = false, screens: Set<String> = [], routes: Bool = false, strings: Bool = false) {
            self.documents = documents
            self.screens = screens
            self.routes = routes
            self.strings = strings
        }

        package init(_ change: StoreChange) {
            documents = !change.documents.isEmpty
            for head in change.heads { note(head.key) }
        }

        /// Notes that the revisioned document of `key` changed (the targeting history changes only
        /// with the documents it records).
        package mutating func note(_ key: RevisionedKey) {
            switch key {
            case .screen(let id): screens.insert(id)
            case .routeTable: routes = true
            case .strings: strings = true
            case .targeting: break
            }
        }
    }

    /// Which screens' links a build must check against the route table.
    package enum LinkCheck: Equatable {
        /// None: no served revision and no table changed (a rollout's or experiment's value changes
        /// who is sent where, never which screens and routes there are, nor a rule's name).
        case none
        /// These screens' links (a screen's links and parameters concern it and the table only),
        /// and that every route still opens a served screen.
        case screens(Set<String>)
        /// Every screen: the table changed, or everything was built.
        case all
    }

    package static func linkCheck(_ touched: Touched) -> LinkCheck {
        if touched.routes { return .all }
        return touched.screens.isEmpty ? .none : .screens(touched.screens)
    }

    // MARK: - Everything

    /// Builds every part anew: at start (`previous` nil) and on a reload.
    /// - Parameter previous: the snapshot of an earlier baseline, whose screens are reused when
    ///   their revision and content are the same (their references checked again: the targeting's
    ///   names may have changed; a screen made of templates is expanded again).
    /// - Parameter checked: screens already decoded and checked against these names, by content
    ///   fingerprint; the baseline's files count as such too.
    /// - Parameter checkedRoutes: the same for route tables.
    package func build(
        baseline: ConfigBaseline, runtime: RuntimeState, previous: Snapshot?, checked: [String: CheckedScreen] = [:],
        checkedRoutes: [String: RouteTable] = [:]
    ) -> Result<Snapshot, ConfigLoadError> {
        var errors: [DiagnosticsError] = []
        guard let targeting = Self.effectiveTargeting(baseline.targeting, runtime, &errors) else {
            return .failure(ConfigLoadError(errors: errors))
        }
        var checking = checked
        // Room for every screen from the start: grown as they came, 10,000 were rehashed fourteen times.
        checking.reserveCapacity(checked.count + baseline.screens.count)
        for file in baseline.screens.values { checking[file.fingerprint] = file.checked }
        let checked = checking
        var sources: [String: EntrySource] = [:]
        sources.reserveCapacity(max(baseline.screens.count, runtime.screens.count))
        for (id, file) in baseline.screens where runtime.screens[id] == nil { sources[id] = .file(file) }
        for (id, stored) in runtime.screens where Self.isServed(stored, baseline: baseline) { sources[id] = .stored(stored) }
        let made = ParallelMap.map(Array(sources)) { id, source in
            (id, makeEntries(source, targeting, baseline.templates, previous, checked))
        }
        var screens: ScreenMap<ScreenEntry> = [:]
        var staged: ScreenMap<StagedScreen> = [:]
        for (id, result) in made {
            switch result {
            case .failure(let error): errors.append(contentsOf: error.errors)
            case .success(let entries):
                screens[id] = entries.current
                staged[id] = entries.staged
            }
        }
        let routes = routeTable(baseline, runtime, targeting, reusing: nil, checkedRoutes, &errors)
        let strings = Self.stringCatalog(baseline, runtime, &errors)
        guard errors.isEmpty else { return .failure(ConfigLoadError(errors: errors.sorted { $0.source < $1.source })) }
        // The baseline's files were checked against its own names; runtime values may have
        // created or retired some since.
        if Self.referenceableNames(targeting) != Self.referenceableNames(baseline.targeting) {
            errors = referenceErrors(screens, staged, routes?.entry, except: Touched(), baseline, runtime, targeting)
            guard errors.isEmpty else { return .failure(ConfigLoadError(errors: errors)) }
        }
        errors = navigationErrors(.all, screens, staged, routes, baseline, runtime, targeting)
        errors += StringCheck.errors(screens: screenSources(screens.keys, screens, staged, runtime), catalog: strings)
        errors += StringCheck.errors(targeting: targeting, source: Self.targetingSource(runtime), catalog: strings)
        guard errors.isEmpty else { return .failure(ConfigLoadError(errors: errors)) }
        let runtime = runtime.sharingDocuments(of: Array(runtime.screens.keys), served: screens, staged: staged)
        return .success(
            Snapshot(
                screens: screens, targeting: targeting, resolver: loader.resolver, generation: (previous?.generation ?? 0) + 1,
                fonts: baseline.fonts, fontFiles: baseline.fontFiles, templates: baseline.templates, strings: strings, staged: staged, runtime: runtime,
                baselineTargeting: baseline.targeting, caches: SnapshotCaches(answers: AnswerCache(budget: loader.cacheBudget)),
                routes: routes?.entry))
    }

    // MARK: - What a change touched

    /// The snapshot after a runtime change that touched `touched`, built on `previous`, which was
    /// built on this same `baseline` and holds everything else as it stays. Shares the previous
    /// snapshot's caches: an answer is a pure function of its key, which names the revision.
    package func apply(
        _ touched: Touched, baseline: ConfigBaseline, runtime: RuntimeState, over previous: Snapshot,
        checked: [String: CheckedScreen] = [:], checkedRoutes: [String: RouteTable] = [:]
    ) -> Result<Snapshot, ConfigLoadError> {
        var errors: [DiagnosticsError] = []
        var targeting = previous.targeting
        if touched.documents {
            guard let effective = Self.effectiveTargeting(baseline.targeting, runtime, &errors) else {
                return .failure(ConfigLoadError(errors: errors))
            }
            targeting = effective
            // A rule, rollout, experiment or variant created or retired: what refers to names is
            // checked again (a ramp or a kill changes no name, and costs nothing here).
            if Self.referenceableNames(targeting) != Self.referenceableNames(previous.targeting) {
                errors = referenceErrors(previous.screens, previous.staged, previous.routes, except: touched, baseline, runtime, targeting)
                guard errors.isEmpty else { return .failure(ConfigLoadError(errors: errors)) }
            }
        }
        var screens = previous.screens
        var staged = previous.staged
        for id in touched.screens.sorted() {
            screens[id] = nil
            staged[id] = nil
            guard let source = entrySource(id, baseline, runtime) else { continue }  // taken down
            var checked = checked
            if let file = baseline.screens[id] { checked[file.fingerprint] = file.checked }
            switch makeEntries(source, targeting, baseline.templates, previous, checked, sameBaseline: true) {
            case .failure(let error): errors.append(contentsOf: error.errors)
            case .success(let entries):
                screens[id] = entries.current
                staged[id] = entries.staged
            }
        }
        var routes = previous.routes.map { (entry: $0, source: Self.routesSource($0, runtime)) }
        if touched.routes { routes = routeTable(baseline, runtime, targeting, reusing: previous.routes, checkedRoutes, &errors) }
        let strings = touched.strings ? Self.stringCatalog(baseline, runtime, &errors) : previous.strings
        guard errors.isEmpty else { return .failure(ConfigLoadError(errors: errors)) }
        errors = navigationErrors(Self.linkCheck(touched), screens, staged, routes, baseline, runtime, targeting)
        // A screen's strings concern it and the tables only: every screen when a table changed.
        let stringsChecked = touched.strings ? Array(screens.keys) : Array(touched.screens)
        errors += StringCheck.errors(screens: screenSources(stringsChecked, screens, staged, runtime), catalog: strings)
        if touched.documents || touched.strings {
            errors += StringCheck.errors(targeting: targeting, source: Self.targetingSource(runtime), catalog: strings)
        }
        guard errors.isEmpty else { return .failure(ConfigLoadError(errors: errors)) }
        let runtime = runtime.sharingDocuments(of: touched.screens, served: screens, staged: staged)
        return .success(
            Snapshot(
                screens: screens, targeting: targeting, resolver: loader.resolver, generation: previous.generation + 1,
                fonts: baseline.fonts, fontFiles: baseline.fontFiles, templates: baseline.templates, strings: strings, staged: staged, runtime: runtime,
                // Answers are cached by locale, not by table revision: a table changed starts new caches.
                baselineTargeting: baseline.targeting, caches: touched.strings ? SnapshotCaches(answers: AnswerCache(budget: loader.cacheBudget)) : previous.caches,
                routes: routes?.entry,
                sharingScreenListOf: Self.listsTheSame(touched, screens, previous) ? previous : nil))
    }

    /// Whether the served screens' list (ids, revisions, titles) is that of `previous`.
    private static func listsTheSame(_ touched: Touched, _ screens: ScreenMap<ScreenEntry>, _ previous: Snapshot) -> Bool {
        touched.screens.allSatisfy { id in
            screens[id]?.revision == previous.screens[id]?.revision && screens[id]?.contentFingerprint == previous.screens[id]?.contentFingerprint
        }
    }

    // MARK: - Screens

    /// Where a served screen's entries come from.
    package enum EntrySource {
        /// A configuration file the store has not recorded (a server without a store).
        case file(ConfigBaseline.ScreenFile)
        /// The store's head and the revisions it names.
        case stored(RevisionedDocument)
    }

    /// The source of screen `id`, or nil when it is not served.
    private func entrySource(_ id: String, _ baseline: ConfigBaseline, _ runtime: RuntimeState) -> EntrySource? {
        if let stored = runtime.screens[id] { return Self.isServed(stored, baseline: baseline) ? .stored(stored) : nil }
        return baseline.screens[id].map(EntrySource.file)
    }

    /// A screen is served while its file is in the configuration directory or ops published it;
    /// deleting the file of a screen nobody published takes it down, as it did before there was a store.
    package static func isServed(_ stored: RevisionedDocument, baseline: ConfigBaseline) -> Bool {
        baseline.screens[stored.head.key.name] != nil || stored.current.origin != .config
    }

    /// The current entry of one screen and, when its head stages one, the staged entry.
    private func makeEntries(
        _ source: EntrySource, _ targeting: TargetingConfiguration, _ templates: TemplateLibrary, _ previous: Snapshot?,
        _ checked: [String: CheckedScreen], sameBaseline: Bool = false
    ) -> Result<(current: ScreenEntry, staged: StagedScreen?), ConfigLoadError> {
        switch source {
        case .file(let file):
            return .success((ScreenEntry(file.checked, revision: 1), nil))
        case .stored(let stored):
            var errors: [DiagnosticsError] = []
            let current = entry(stored.current, targeting, templates, previous, sameBaseline, checked, &errors)
            var staged: StagedScreen?
            if let revision = stored.staged, let basisPoints = stored.head.stagedBasisPoints,
                let percentage = RolloutPercentage(basisPoints: basisPoints),
                let entry = entry(revision, targeting, templates, previous, sameBaseline, checked, &errors)
            {
                staged = StagedScreen(entry: entry, percentage: percentage)
            }
            guard let current, errors.isEmpty else { return .failure(ConfigLoadError(errors: errors)) }
            return .success((current, staged))
        }
    }

    /// The entry of one stored revision: the previous snapshot's when it served the same revision
    /// (its references checked again when the targeting's names may have changed); else one made
    /// of a screen already checked with the same content; else decoded and checked anew.
    private func entry(
        _ revision: DocumentRevision, _ targeting: TargetingConfiguration, _ templates: TemplateLibrary, _ previous: Snapshot?,
        _ sameBaseline: Bool, _ checked: [String: CheckedScreen], _ errors: inout [DiagnosticsError]
    ) -> ScreenEntry? {
        let source = "screens/\(revision.key.name) revision \(revision.number)"
        let reusable = [previous?.screens[revision.key.name], previous?.staged[revision.key.name]?.entry]
            .compactMap { $0 }.first { $0.revision == revision.number && $0.contentFingerprint == revision.fingerprint }
        // A screen made of templates is expanded again on a new baseline: its templates may have changed.
        if let reusable, sameBaseline || reusable.checked.templateNames.isEmpty {
            if sameBaseline { return reusable }
            do throws(DiagnosticsError) {
                try reusable.checked.checkReferences(in: targeting, source: source)
                return reusable
            } catch {
                errors.append(error)
                return nil
            }
        }
        // Checked against this baseline's names, which runtime values never change.
        if let screen = checked[revision.fingerprint] { return ScreenEntry(screen, revision: revision.number) }
        switch loader.checkedScreen(
            revision.document, source: source, id: revision.key.name, targeting: targeting, templates: templates) {
        case .success(let screen): return ScreenEntry(screen, revision: revision.number)
        case .failure(let error):
            errors.append(error)
            return nil
        }
    }

    // MARK: - Routes and links

    /// The route table in force: the stored head's revision while the file is there or ops
    /// published one, else the configuration's file, else none.
    /// - Parameter reusable: the table in force before, on this same baseline.
    private func routeTable(
        _ baseline: ConfigBaseline, _ runtime: RuntimeState, _ targeting: TargetingConfiguration, reusing reusable: RouteTableEntry?,
        _ checked: [String: RouteTable], _ errors: inout [DiagnosticsError]
    ) -> (entry: RouteTableEntry, source: String)? {
        guard let stored = runtime.routes, baseline.routes != nil || stored.current.origin != .config else {
            return baseline.routes.map { (RouteTableEntry(table: $0.table, revision: 1, document: $0.bytes), "routes.json") }
        }
        let revision = stored.current
        let source = "routes revision \(revision.number)"
        // On the same baseline the table in force was checked when it was built; a change of the
        // names it may refer to checks it again (referenceErrors).
        if let reusable, reusable.revision == revision.number, reusable.fingerprint == revision.fingerprint {
            return (reusable, source)
        }
        // Checked against this baseline's names, as the baseline's own file was.
        var checked = checked
        if let file = baseline.routes { checked[file.fingerprint] = file.table }
        if let table = checked[revision.fingerprint] {
            return (RouteTableEntry(table: table, revision: revision.number, document: revision.document), source)
        }
        switch loader.checkRoutes(revision.document, source: source, targeting: targeting) {
        case .success(let table): return (RouteTableEntry(table: table, revision: revision.number, document: revision.document), source)
        case .failure(let error):
            errors.append(error)
            return nil
        }
    }

    // MARK: - Strings

    /// How error messages name the targeting in force.
    private static func targetingSource(_ runtime: RuntimeState) -> String {
        runtime.documentCount == 0 ? "targeting.json" : "runtime targeting (targeting.json with runtime values)"
    }

    /// The string tables in force: each locale's stored head (a file the store recorded, or one
    /// published), or without a store the configuration's files; a table whose file was deleted
    /// and that nobody published is gone. When there are tables, the default locale's must be one.
    package static func stringCatalog(_ baseline: ConfigBaseline, _ runtime: RuntimeState, _ errors: inout [DiagnosticsError]) -> StringCatalog {
        var tables = baseline.strings.tables
        for (locale, stored) in runtime.strings {
            guard baseline.strings.tables[locale] != nil || stored.current.origin != .config else {
                tables[locale] = nil
                continue
            }
            // A head at a revision from the configuration is at its file's (the reconciler records
            // every change of a file), read when the directory was.
            if stored.current.origin == .config { continue }
            switch StringTableFile.decode(stored.current.document, source: "strings/\(locale) revision \(stored.current.number)") {
            case .success(let table): tables[locale] = table
            case .failure(let error): errors.append(error)
            }
        }
        let catalog = StringCatalog(defaultLocale: baseline.strings.defaultLocale, tables: tables)
        if !tables.isEmpty, tables[catalog.defaultLocale] == nil {
            errors.append(
                DiagnosticsError(
                    source: "strings", diagnostics: [
                        Diagnostic(
                            path: .root, location: .unknown,
                            message: "the default locale \(catalog.defaultLocale) has no table; tables: \(tables.keys.sorted().joined(separator: ", "))")
                    ]))
        }
        return catalog
    }

    /// How error messages name the table in force.
    private static func routesSource(_ entry: RouteTableEntry, _ runtime: RuntimeState) -> String {
        runtime.routes?.current.number == entry.revision ? "routes revision \(entry.revision)" : "routes.json"
    }

    /// The navigation check's problems for the screens `scope` names.
    private func navigationErrors(
        _ scope: LinkCheck, _ screens: ScreenMap<ScreenEntry>, _ staged: ScreenMap<StagedScreen>,
        _ routes: (entry: RouteTableEntry, source: String)?, _ baseline: ConfigBaseline, _ runtime: RuntimeState,
        _ targeting: TargetingConfiguration
    ) -> [DiagnosticsError] {
        guard let routes else { return [] }
        var checking: [NavigationCheck.ScreenSource] = []
        switch scope {
        case .none: return []
        case .all: checking = screenSources(screens.keys, screens, staged, runtime)
        case .screens(let ids): checking = screenSources(ids, screens, staged, runtime)
        }
        return NavigationCheck.errors(
            routes: NavigationCheck.TableSource(table: routes.entry.table, source: routes.source, bytes: routes.entry.document),
            screens: checking, served: .init(contains: { screens[$0] != nil }, ids: { Array(screens.keys) }), targeting: targeting)
    }

    /// The served screens of `ids` (staged revisions too), with where they came from.
    private func screenSources(
        _ ids: some Collection<String>, _ screens: ScreenMap<ScreenEntry>, _ staged: ScreenMap<StagedScreen>, _ runtime: RuntimeState
    ) -> [NavigationCheck.ScreenSource] {
        func source(_ entry: ScreenEntry, _ stored: DocumentRevision?) -> NavigationCheck.ScreenSource {
            if let stored, stored.number == entry.revision {
                return .init(screen: entry.checked, source: "screens/\(entry.id) revision \(entry.revision)", document: stored.heldDocument)
            }
            return .init(screen: entry.checked, source: "screens/\(entry.id).json", document: entry.checked.document)
        }
        var sources: [NavigationCheck.ScreenSource] = []
        for id in ids {
            if let entry = screens[id] { sources.append(source(entry, runtime.screens[id]?.current)) }
            if let entry = staged[id]?.entry { sources.append(source(entry, runtime.screens[id]?.staged)) }
        }
        return sources
    }

    // MARK: - Targeting

    /// The names screens and route guards may refer to: rules, rollouts, experiments and their variants.
    package static func referenceableNames(_ targeting: TargetingConfiguration) -> Set<String> {
        var names = Set(targeting.rules.keys.map { "rule " + $0 })
        names.formUnion(targeting.rollouts.keys.map { "rollout " + $0 })
        for (key, experiment) in targeting.experiments {
            names.insert("experiment " + key)
            names.formUnion(experiment.variants.map { "variant \(key) \($0.name)" })
        }
        return names
    }

    /// Every reference to a name `targeting` does not define, in the served screens (current and
    /// staged) and the route table that the change did not touch (those it touched are decoded and
    /// checked anew), each with its source and line.
    private func referenceErrors(
        _ screens: ScreenMap<ScreenEntry>, _ staged: ScreenMap<StagedScreen>, _ routes: RouteTableEntry?, except touched: Touched,
        _ baseline: ConfigBaseline, _ runtime: RuntimeState, _ targeting: TargetingConfiguration
    ) -> [DiagnosticsError] {
        var errors: [DiagnosticsError] = []
        for source in screenSources(screens.keys.filter { !touched.screens.contains($0) }, screens, staged, runtime) {
            let diagnostics = source.screen.decisions.unknownReferences(in: targeting)
            guard !diagnostics.isEmpty else { continue }
            let error = DiagnosticsError(source: source.source, diagnostics: diagnostics)
            errors.append(error.locating(inDocument: source.document.bytes))
        }
        if !touched.routes, let routes {
            let diagnostics = routes.table.checkReferences(in: targeting)
            if !diagnostics.isEmpty {
                errors.append(DiagnosticsError(source: Self.routesSource(routes, runtime), diagnostics: diagnostics))
            }
        }
        return errors.sorted { $0.source < $1.source }
    }

    /// The configuration's targeting with each runtime value applied, checked as a whole: every
    /// rule's references known and no cycle between rules, every experiment's weights and default.
    package static func effectiveTargeting(
        _ base: TargetingConfiguration, _ runtime: RuntimeState, _ errors: inout [DiagnosticsError]
    ) -> TargetingConfiguration? {
        var rules = base.rules
        var rollouts = base.rollouts
        var experiments = base.experiments
        var problems: [DiagnosticsError] = []
        for (key, value) in runtime.rules {
            if let problem = value.problem { problems.append(problem) }
            if let form = value.settings?.form { rules[key] = form.entry(over: rules[key]) { expression, _ in expression } }
        }
        // Settings for a key the configuration dropped are kept in the store but not applied.
        for (key, value) in runtime.rollouts {
            if let problem = value.problem { problems.append(problem) }
            if let form = value.settings?.form { rollouts[key] = form.entry(over: rollouts[key]) { $0.applied(to: $1) } }
        }
        for (key, value) in runtime.experiments {
            if let problem = value.problem { problems.append(problem) }
            if let form = value.settings?.form { experiments[key] = form.entry(over: experiments[key]) { $0.applied(to: $1) } }
        }
        errors += problems
        do throws(DiagnosticsError) {
            let targeting = try TargetingConfiguration(rules: rules, rollouts: rollouts, experiments: experiments)
            return problems.isEmpty ? targeting : nil
        } catch {
            errors.append(DiagnosticsError(source: "runtime targeting (targeting.json with runtime values)", diagnostics: error.diagnostics))
            return nil
        }
    }
}
