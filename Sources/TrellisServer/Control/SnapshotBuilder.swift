import TrellisJSON
import TrellisRoutes
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// Builds the snapshot served from the configuration baseline and the runtime layer over it:
/// rollouts and experiments with their runtime values applied, and every screen at the revisions
/// its head names. Everything is checked again, so a runtime value the configuration no longer
/// fits (an experiment's variant removed from targeting.json, say) refuses the whole build, with
/// its source named, and the previous snapshot keeps serving.
struct SnapshotBuilder: Sendable {
    let loader: ConfigLoader

    /// - Parameter sameBaseline: `previous` was built on this very baseline, so only runtime values
    ///   changed. Those never add or remove a rule, rollout, experiment or variant, so a revision
    ///   `previous` served needs no second reference check; and its cached answers stay valid. (A
    ///   reload may bring new targeting and new fonts, which change references, layouts and previews.)
    /// - Parameter checked: screens already decoded and checked against these names (a body a
    ///   publish just checked), by content fingerprint; the baseline's files count as such too.
    /// - Parameter checkedRoutes: the same for route tables.
    func build(
        baseline: ConfigBaseline, runtime: RuntimeState, previous: Snapshot?, sameBaseline: Bool = false,
        checked: [String: Screen] = [:], checkedRoutes: [String: RouteTable] = [:]
    ) -> Result<Snapshot, ConfigLoadError> {
        var errors: [DiagnosticsError] = []
        guard let targeting = effectiveTargeting(baseline.targeting, runtime, &errors) else {
            return .failure(ConfigLoadError(errors: errors))
        }
        var checked = checked
        for file in baseline.screens.values { checked[file.fingerprint] = file.screen }
        var screens: [String: ScreenEntry] = [:]
        var staged: [String: StagedScreen] = [:]
        for (id, file) in baseline.screens where runtime.screens[id] == nil {
            screens[id] = ScreenEntry(screen: file.screen, revision: 1, resolver: loader.resolver)
        }
        for (id, stored) in runtime.screens where Self.isServed(stored, baseline: baseline) {
            guard let current = entry(stored.current, targeting, baseline.templates, previous, sameBaseline, checked, &errors) else { continue }
            screens[id] = current
            if let revision = stored.staged, let basisPoints = stored.head.stagedBasisPoints,
                let percentage = RolloutPercentage(basisPoints: basisPoints),
                let entry = entry(revision, targeting, baseline.templates, previous, sameBaseline, checked, &errors)
            {
                staged[id] = StagedScreen(entry: entry, percentage: percentage)
            }
        }
        let routes = routeTable(baseline, runtime, targeting, sameBaseline ? previous : nil, checkedRoutes, &errors)
        guard errors.isEmpty else { return .failure(ConfigLoadError(errors: errors)) }
        if Self.linksMayHaveChanged(screens: screens, staged: staged, routes: routes?.entry, previous: sameBaseline ? previous : nil) {
            errors = NavigationCheck.errors(
                routes: routes.map { NavigationCheck.TableSource(table: $0.entry.table, source: $0.source, bytes: $0.entry.document) },
                screens: screenSources(screens, staged, baseline, runtime), targeting: targeting)
            guard errors.isEmpty else { return .failure(ConfigLoadError(errors: errors)) }
        }
        var answers = AnswerCache(budget: loader.cacheBudget)
        if sameBaseline, let previous {
            let served = Set(screens.values.map(\.revisionKey) + staged.values.map(\.entry.revisionKey))
            answers = AnswerCache(carrying: previous.answers) { served.contains(ScreenEntry.RevisionKey(screen: $0.screen, revision: $0.revision)) }
        }
        return .success(
            Snapshot(
                screens: screens, targeting: targeting, resolver: loader.resolver, generation: (previous?.generation ?? 0) + 1,
                fonts: baseline.fonts, fontFiles: baseline.fontFiles, templates: baseline.templates, staged: staged, runtime: runtime, baselineTargeting: baseline.targeting, answers: answers,
                routes: routes?.entry))
    }

    /// Whether the links between screens and routes may differ from those of `previous`, a
    /// snapshot built on the same baseline (nil otherwise) that passed the navigation check: only
    /// when a served screen revision or the route table changed. A rollout or experiment value
    /// changes who is sent where, never which screens and routes there are, nor a rule's name.
    static func linksMayHaveChanged(
        screens: [String: ScreenEntry], staged: [String: StagedScreen], routes: RouteTableEntry?, previous: Snapshot?
    ) -> Bool {
        guard let previous else { return true }
        func revisions(_ screens: [String: ScreenEntry], _ staged: [String: StagedScreen]) -> Set<ScreenEntry.RevisionKey> {
            Set(screens.values.map(\.revisionKey) + staged.values.map(\.entry.revisionKey))
        }
        return revisions(screens, staged) != revisions(previous.screens, previous.staged)
            || routes?.revision != previous.routes?.revision || routes?.fingerprint != previous.routes?.fingerprint
    }

    /// The route table in force: the stored head's revision while the file is there or ops
    /// published one, else the configuration's file, else none.
    /// - Parameter previous: the snapshot built on this same baseline, whose table may be reused.
    private func routeTable(
        _ baseline: ConfigBaseline, _ runtime: RuntimeState, _ targeting: TargetingConfiguration, _ previous: Snapshot?,
        _ checked: [String: RouteTable], _ errors: inout [DiagnosticsError]
    ) -> (entry: RouteTableEntry, source: String)? {
        guard let stored = runtime.routes, baseline.routes != nil || stored.current.origin != .config else {
            return baseline.routes.map { (RouteTableEntry(table: $0.table, revision: 1, document: $0.bytes), "routes.json") }
        }
        let revision = stored.current
        let source = "routes revision \(revision.number)"
        // Runtime values never add or remove a rule, rollout or experiment a guard could name, so on
        // the same baseline the table in force needs no second check (`previous` is nil otherwise).
        if let reusable = previous?.routes, reusable.revision == revision.number, reusable.fingerprint == revision.fingerprint {
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

    /// Every screen the snapshot serves (staged revisions too), with where it came from.
    private func screenSources(
        _ screens: [String: ScreenEntry], _ staged: [String: StagedScreen], _ baseline: ConfigBaseline, _ runtime: RuntimeState
    ) -> [NavigationCheck.ScreenSource] {
        func source(_ entry: ScreenEntry, _ stored: ScreenRevision?) -> NavigationCheck.ScreenSource {
            if let stored, stored.number == entry.revision {
                return .init(screen: entry.screen, source: "screens/\(entry.screen.id) revision \(entry.revision)", bytes: stored.document)
            }
            return .init(screen: entry.screen, source: "screens/\(entry.screen.id).json", bytes: baseline.screens[entry.screen.id]?.bytes ?? [])
        }
        return screens.values.map { source($0, runtime.screens[$0.screen.id]?.current) }
            + staged.values.map { source($0.entry, runtime.screens[$0.entry.screen.id]?.staged) }
    }

    /// A screen is served while its file is in the configuration directory or ops published it;
    /// deleting the file of a screen nobody published takes it down, as it did before there was a store.
    static func isServed(_ stored: StoredScreen, baseline: ConfigBaseline) -> Bool {
        baseline.screens[stored.head.screen] != nil || stored.current.origin != .config
    }

    /// The configuration's targeting with each runtime value applied, checked as a whole.
    private func effectiveTargeting(
        _ base: TargetingConfiguration, _ runtime: RuntimeState, _ errors: inout [DiagnosticsError]
    ) -> TargetingConfiguration? {
        var rollouts = base.rollouts
        var experiments = base.experiments
        // A runtime value for a key the configuration dropped is kept in the store but not applied.
        for (key, value) in runtime.rollouts {
            guard let rollout = rollouts[key] else { continue }
            if let problem = value.problem { errors.append(problem) }
            if let settings = value.settings { rollouts[key] = settings.applied(to: rollout) }
        }
        for (key, value) in runtime.experiments {
            guard let experiment = experiments[key] else { continue }
            if let problem = value.problem { errors.append(problem) }
            if let settings = value.settings { experiments[key] = settings.applied(to: experiment) }
        }
        do throws(DiagnosticsError) {
            let targeting = try TargetingConfiguration(rules: base.rules, rollouts: rollouts, experiments: experiments)
            return errors.isEmpty ? targeting : nil
        } catch {
            errors.append(DiagnosticsError(source: "runtime targeting (targeting.json with runtime values)", diagnostics: error.diagnostics))
            return nil
        }
    }

    /// The entry of one stored revision: the previous snapshot's when it served the same revision
    /// (its references checked again when the targeting's names may have changed); else one made
    /// of a screen already checked with the same content; else decoded and checked anew.
    private func entry(
        _ revision: ScreenRevision, _ targeting: TargetingConfiguration, _ templates: TemplateLibrary, _ previous: Snapshot?,
        _ sameBaseline: Bool, _ checked: [String: Screen], _ errors: inout [DiagnosticsError]
    ) -> ScreenEntry? {
        let source = "screens/\(revision.screen) revision \(revision.number)"
        let reusable = [previous?.screens[revision.screen], previous?.staged[revision.screen]?.entry]
            .compactMap { $0 }.first { $0.revision == revision.number && $0.contentFingerprint == revision.fingerprint }
        // A screen made of templates is expanded again on a new baseline: its templates may have changed.
        if let reusable, sameBaseline || reusable.screen.templates.isEmpty {
            if sameBaseline { return reusable }
            do throws(DiagnosticsError) {
                try reusable.screen.checkReferences(in: targeting, source: source)
                return reusable
            } catch {
                errors.append(error)
                return nil
            }
        }
        // Checked against this baseline's names, which runtime values never change.
        if let screen = checked[revision.fingerprint] {
            return ScreenEntry(screen: screen, revision: revision.number, resolver: loader.resolver)
        }
        switch loader.checkScreen(
            revision.document, source: source, id: revision.screen, targeting: targeting, templates: templates) {
        case .success(let screen): return ScreenEntry(screen: screen, revision: revision.number, resolver: loader.resolver)
        case .failure(let error):
            errors.append(error)
            return nil
        }
    }
}
