import Atomics
import Synchronization
import TrellisAnswers
import TrellisJSON
import TrellisRendering
import TrellisRoutes
import TrellisScreens
import TrellisStore
import TrellisStrings
import TrellisTargeting
import TrellisText

/// One screen revision ready to serve: its checked document and its revision. A class: every
/// request holds its screen's entry, and a reference costs one retain where the fields were ten.
///
/// What every request reads of the checked screen is kept here too (references to the same
/// storage, and the decisions' table as a value): at thousands of screens the checked screen and
/// its decisions are lines from memory of their own, which a hit in the answer cache then needs
/// for nothing else.
public final class ScreenEntry: Sendable {
    // In the order a request reads them: the object's first line holds the table.
    /// What a request decides its outcomes from: the decisions' table, kept here as a value.
    public let decisionTable: DecisionTable
    public let id: String
    public let revision: Int
    public let schemaVersion: Int
    /// The parameters the screen uses (`$param`, `$format`), sorted; empty for most screens.
    public let parameterNames: [String]
    public let checked: CheckedScreen
    /// Every Rule and Experiment of the screen, found once when it was checked.
    public let decisions: ScreenDecisions
    /// The plan of the screen's own schema version, once made, which most misses use: the same
    /// one ``CheckedScreen/plans`` keeps, found here in one step where there it is four objects
    /// away (``encodingPlan(for:in:)``).
    package let planOfItsVersion = AtomicLazyReference<EncodingPlans.Made>()

    public init(_ checked: CheckedScreen, revision: Int) {
        self.checked = checked
        self.revision = revision
        id = checked.id
        schemaVersion = checked.schemaVersion
        decisions = checked.decisions
        decisionTable = checked.decisions.table
        parameterNames = checked.parameterNames
    }

    /// Identifies the screen's content regardless of revision, to tell a changed file on reload.
    public var contentFingerprint: String { checked.fingerprint }

    /// The outcome of every decision of the screen for `context`, decided from the table this
    /// entry holds, lent where it lies (a copy would retain its buffers one after another).
    package func outcomes(for context: UserContext, in snapshot: Snapshot) -> Outcomes {
        snapshot.resolver.outcomes(of: decisionTable, for: context, evaluator: snapshot.evaluator)
    }

    /// Screen id and revision: what answer-cache keys name of a screen.
    package struct RevisionKey: Hashable {
        package let screen: String
        package let revision: Int
    }

    package var revisionKey: RevisionKey { RevisionKey(screen: id, revision: revision) }

    /// The rollouts the screen's rules name directly, for the exposures the server records.
    package var rolloutKeys: [String] { decisions.rollouts }

    /// The experiments the screen's Experiment nodes name, for the exposures the server records.
    package var experimentKeys: [String] {
        decisions.points.compactMap { point in
            if case .experiment(let key, _) = point.kind { key } else { nil }
        }
    }

    /// The fingerprint of the screen's compact bytes at revision 0 (`JSONWriter.encode(screen.jsonValue(revision: 0))`,
    /// written straight from the model). Stored with every revision: the bytes must never change.
    public static func contentFingerprint(of screen: Screen) -> String {
        EncodedBody.fingerprint(screen.encodedJSON(revision: 0))
    }
}

/// A revision served to a share of users instead of the current one, before it is promoted or
/// abandoned. Users are chosen as a rollout chooses them (group `screen:{id}`), so raising the
/// share only adds users.
public struct StagedScreen: Sendable {
    public let entry: ScreenEntry
    public let percentage: RolloutPercentage

    /// The rollout group staged revisions of screen `id` bucket users on.
    public static func groupID(screen id: String) -> String { "screen:" + id }

    /// Whether the user of `context` gets this revision; users without an id never do.
    public func admits(_ context: UserContext) -> Bool {
        guard let userID = context.userID else { return false }
        return Bucketing.isInRollout(percentage: percentage, groupID: Self.groupID(screen: entry.id), userID: userID)
    }
}

/// Everything a request reads, frozen. A reload builds a new snapshot beside the old one and
/// publishes it by swapping one reference; a request keeps the snapshot it started with.
public final class Snapshot: Sendable, AtomicReference {
    /// Every served screen at its current revision.
    public let screens: ScreenMap<ScreenEntry>
    /// Screens with a staged revision, by id.
    public let staged: ScreenMap<StagedScreen>
    /// The rollouts, experiments and rules in force: the configuration's, with runtime values applied.
    public let targeting: TargetingConfiguration
    /// The configuration's targeting alone, to show what a runtime value overrides.
    public let baselineTargeting: TargetingConfiguration
    /// The route table in force; nil without one (no `routes.json`, nothing published).
    public let routes: RouteTableEntry?
    /// What the runtime store held when this snapshot was built (empty without a store).
    public let runtime: RuntimeState
    /// The experiments whose exposures the server records where it decides (`"exposures": "server"`):
    /// empty, the request path records nothing and costs nothing.
    package let serverExposedExperiments: Set<String>
    /// The rollouts a guard watches: who was admitted (`on`) and who was not (`off`) is recorded
    /// where a screen or OFREP decides it, the guard's two arms.
    package let guardedRollouts: Set<String>
    public let evaluator: Evaluator
    public let resolver: ScreenResolver
    /// The font metrics packs of `fonts/*.trfm`, for measuring text in layouts; empty without them.
    public let fonts: FontCollection
    /// The font files the packs were built from, served to previews; empty without them.
    public let fontFiles: FontFiles
    /// The templates the screens were expanded with (`templates/*.json`), for a revision read
    /// from the store (`?revision=N`) to be expanded as the served ones were.
    public let templates: TemplateLibrary
    /// Every locale's string table (`strings/*.json`), which a screen's `$string`s are written from.
    public let strings: StringCatalog
    /// `GET /v1/screens`, compact and pretty: encoded by the first request that asks after the
    /// screens changed, not by the change (at 10,000 screens a publish would encode the list twice),
    /// and shared by snapshots that serve the same screens.
    public var screenList: (compact: EncodedBody, pretty: EncodedBody) { screenListCell.value(of: screens) }
    private let screenListCell: ScreenListCell
    /// The caches of answers made from snapshots of one configuration, shared by every snapshot
    /// built on it; a reload starts empty ones (``SnapshotCaches``).
    public let caches: SnapshotCaches
    /// Encoded answers (``SnapshotCaches/answers``).
    public var answers: AnswerCache { caches.answers }
    /// Resolved screens for layout and preview misses (``SnapshotCaches/resolvedScreens``).
    public var resolvedScreens: SnapshotCache<ResolvedScreen> { caches.resolvedScreens }
    /// Layout plans (``SnapshotCaches/layoutPlans``).
    public var layoutPlans: SnapshotCache<LayoutPlan> { caches.layoutPlans }

    /// The model of `entry`'s screen, for what the encoding plan cannot answer (layouts, previews,
    /// client formats, pretty answers, plans for older clients): decoded again from its document,
    /// through ``SnapshotCaches/models``.
    public func screen(of entry: ScreenEntry) throws(ScreenNoLongerDecodes) -> Screen {
        let key = AnswerKey(screen: entry.id, revision: entry.revision, schemaVersion: 0, outcomes: Outcomes([]), pretty: false)
        return try caches.models.answer(for: key) { () throws(ScreenNoLongerDecodes) in
            switch entry.checked.decodeModel() {
            case .success(let screen): return screen
            case .failure(let error): throw ScreenNoLongerDecodes(id: entry.id, revision: entry.revision, reason: "\(error)")
            }
        }.body
    }
    /// Counts the snapshots this process has published, starting at 1.
    public let generation: Int
    /// Names the targeting in force (rollouts, experiments, rules, with runtime values), whatever
    /// else changed: a fingerprint of its encoding, equal on every replica serving the same
    /// targeting. OpenFeature answers carry it, and the change stream's `targeting` events.
    public let targetingRevision: String

    /// The newest revision screen `id` has had: served now (its staged one, or the current) or
    /// before (a staged one abandoned, a current one rolled back), so apps that got it moments
    /// before a halt may still report on it; nil for a screen not served.
    package func newestRevision(of id: String) -> Int? {
        screens[id].map { max($0.revision, staged[id]?.entry.revision ?? 0, runtime.screens[id]?.latestRevision ?? 0) }
    }

    /// The revision of screen `id` this user gets: the staged one if it admits them, else the current one.
    public func entry(_ id: String, for context: UserContext) -> ScreenEntry? {
        // Most snapshots stage nothing: no lookup (a hash of the id) for them.
        if !staged.isEmpty, let staged = staged[id], staged.admits(context) { return staged.entry }
        return screens[id]
    }

    /// - Parameter sameScreens: a snapshot serving exactly these screens at these revisions, whose
    ///   encoded screen list this one shares.
    public init(
        screens: ScreenMap<ScreenEntry>, targeting: TargetingConfiguration, resolver: ScreenResolver, generation: Int,
        fonts: FontCollection = FontCollection(), fontFiles: FontFiles = FontFiles(), templates: TemplateLibrary = TemplateLibrary(),
        strings: StringCatalog = StringCatalog(defaultLocale: "en", tables: [:]), staged: ScreenMap<StagedScreen> = [:], runtime: RuntimeState = RuntimeState(),
        baselineTargeting: TargetingConfiguration? = nil, caches: SnapshotCaches = SnapshotCaches(), routes: RouteTableEntry? = nil,
        sharingScreenListOf sameScreens: Snapshot? = nil
    ) {
        self.screens = screens
        self.routes = routes
        self.staged = staged
        self.runtime = runtime
        self.baselineTargeting = baselineTargeting ?? targeting
        self.fonts = fonts
        self.fontFiles = fontFiles
        self.templates = templates
        self.strings = strings
        self.targeting = targeting
        self.evaluator = Evaluator(targeting)
        serverExposedExperiments = Set(targeting.experiments.filter { $0.value.exposures == .server }.keys)
        guardedRollouts = Set(runtime.operations.guards.keys.compactMap { if case .rollout(let key) = $0 { key } else { nil } })
        targetingRevision = EncodedBody.fingerprint(JSONWriter.encode(targeting.jsonValue))
        self.resolver = resolver
        self.generation = generation
        self.caches = caches
        screenListCell = sameScreens?.screenListCell ?? ScreenListCell()
    }

    package static func listValue(_ entries: [ScreenEntry]) -> JSONValue {
        .object([
            (
                "screens",
                .array(
                    entries.map { entry in
                        var members: [(String, JSONValue)] = [
                            ("id", .string(entry.id)), ("revision", .number(entry.revision)),
                            ("schemaVersion", .number(entry.schemaVersion)),
                        ]
                        if let title = entry.checked.title { members.append(("title", .string(title))) }
                        return .object(members)
                    })
            )
        ])
    }
}

/// The caches of answers made from the snapshots of one configuration baseline. Each value is a
/// pure function of its key, which names the screen revision (the resolver's contract): a runtime
/// change — a rollout's percentage, a publish — makes new keys, never new bytes for an old key, so
/// the snapshots it leads to share these caches, and a change costs nothing here however many
/// answers are cached. Answers of revisions no longer served are never hit again and make room
/// first. A reload (new targeting, templates or fonts) starts empty caches.
public final class SnapshotCaches: Sendable {
    /// Encoded answers: screens, client formats, layouts, previews, route resolutions.
    public let answers: AnswerCache
    /// Screens resolved for layout and preview misses, keyed as the screen answer (viewport nil):
    /// a client sweeping viewports resolves each outcome once.
    public let resolvedScreens = SnapshotCache<ResolvedScreen>(capacity: SnapshotCacheLimits.resolvedScreens)
    /// Layout plans of the resolved screens (``LayoutPlan``), keyed as the layout answer with the
    /// viewport's width and height left out: every size of one outcome is laid out from one plan.
    public let layoutPlans = SnapshotCache<LayoutPlan>(capacity: SnapshotCacheLimits.layoutPlans)
    /// Screen models decoded again for what their encoding plans cannot answer
    /// (``Snapshot/screen(of:)``), keyed by screen and revision (the rest of the key left empty).
    public let models = SnapshotCache<Screen>(capacity: SnapshotCacheLimits.models)

    public init(answers: AnswerCache = AnswerCache()) { self.answers = answers }
}

/// `GET /v1/screens` encoded once per set of served screens, on first use: the list names each
/// screen's id, revision, schema version and title, so snapshots whose screens did not change (a
/// rollout's percentage did) share one cell, and a publish makes the next request encode anew.
package final class ScreenListCell: Sendable {
    package typealias Bodies = (compact: EncodedBody, pretty: EncodedBody)
    package final class Encoded: Sendable {
        package let bodies: Bodies
        package init(_ bodies: Bodies) { self.bodies = bodies }
    }
    private let encoded = ManagedAtomicLazyReference<Encoded>()

    /// The list of `screens`, which must be the screens of every snapshot sharing this cell (two
    /// first requests racing may both encode; one result is kept and both return it).
    package func value(of screens: ScreenMap<ScreenEntry>) -> Bodies {
        if let done = encoded.load() { return done.bodies }
        let list = Snapshot.listValue(screens.values.sorted { $0.id < $1.id })
        return encoded.storeIfNilThenLoad(
            Encoded((
                EncodedBody(bytes: JSONWriter.encode(list), compression: .cachedAnswer),
                EncodedBody(bytes: JSONWriter.encode(list, style: .pretty), compression: .cachedAnswer)))
        ).bodies
    }
}

/// The served fonts' files encoded once per configuration load for `GET /fonts/{file}`, so
/// snapshots built on the same baseline share each file's gzip form.
public struct FontFiles: Sendable {
    /// The files and faces, without the files' bytes, which `bodies` hold.
    public let webFonts: WebFonts
    /// Each file's bytes, by name, with its fingerprint as ETag.
    package let bodies: [String: EncodedBody]

    public init(_ webFonts: WebFonts = WebFonts()) {
        bodies = webFonts.files.mapValues { EncodedBody(bytes: $0.bytes, fingerprint: $0.fingerprint, compression: .cachedAnswer) }
        // An `EncodedBody` keeps its bytes in its own storage: the files' arrays would be a second copy.
        self.webFonts = webFonts.withoutBytes
    }
}

/// The published snapshot: one cell every request reads with one atomic load (no lock in the
/// request path), and the control plane replaces whole.
public final class PublishedSnapshot: Sendable {
    private let current: ManagedAtomic<Snapshot>

    public init(_ snapshot: Snapshot) { current = ManagedAtomic(snapshot) }

    /// The snapshot to use for the whole of one request.
    public var snapshot: Snapshot { current.load(ordering: .acquiring) }

    /// Publishes `snapshot` for every request that starts from now on.
    public func publish(_ snapshot: Snapshot) { current.store(snapshot, ordering: .releasing) }
}

/// A served screen whose document no longer decodes with the templates it was checked with: a bug,
/// not bad input (the check decoded the same bytes).
public struct ScreenNoLongerDecodes: Error, CustomStringConvertible {
    public let id: String
    public let revision: Int
    public let reason: String

    public var description: String { "screen \(id) revision \(revision) no longer decodes: \(reason)" }
}
