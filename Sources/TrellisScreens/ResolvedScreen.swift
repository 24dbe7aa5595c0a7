import TrellisJSON

/// A screen as one client receives it: every Rule and Experiment node replaced by what won, every
/// component the client cannot render replaced by its fallback (or dropped), plus an envelope that
/// says what was assigned and what was replaced. Built by ``ScreenResolver/resolve(_:outcomes:clientSchemaVersion:)``.
public struct ResolvedScreen: Sendable {
    public var id: String
    /// The schema version the answer is written in: the lower of the client's and the screen's.
    public var schemaVersion: Int
    public var title: String?
    public var metadata: [JSONMember]
    /// Nil when the root itself resolved to nothing (a Rule without `else` that did not match, a
    /// null variant, a component with no fallback the client can render).
    public var root: ResolvedComponent?
    /// What the user was assigned on the way, for exposure logging.
    public var assignments: Assignments
    /// Components and actions replaced or dropped for the client's schema version, in tree order.
    public var replaced: [Replacement]
    /// Whether the tree may still hold `$param`, `$format` and `$string` objects (the screen uses
    /// parameters or strings), which ``substituting(_:strings:registry:)`` fills in per request.
    public var needsSubstitution: Bool

    /// Experiment and rollout assignments made while resolving, each once, in the order first met.
    public struct Assignments: Sendable, Equatable {
        /// Experiment key → variant name, for every Experiment node that was shown.
        public var experiments: [Pair<String>]
        /// Rollout key → admitted, for every rollout a shown Rule node's expression names directly.
        public var rollouts: [Pair<Bool>]

        public struct Pair<Value: Sendable & Equatable>: Sendable, Equatable {
            public var key: String
            public var value: Value
            public init(_ key: String, _ value: Value) {
                self.key = key
                self.value = value
            }
        }

        public init(experiments: [Pair<String>] = [], rollouts: [Pair<Bool>] = []) {
            self.experiments = experiments
            self.rollouts = rollouts
        }
    }

    /// One component or action the client was too old for.
    public struct Replacement: Sendable, Equatable {
        public enum How: String, Sendable {
            /// Its authored `fallback` stands in for it.
            case fallback
            /// A component: re-typed to its type's registered default fallback, keeping its subviews.
            /// An action: its kind's default (`back` → `dismiss`, `share` → `openURL`, `sequence` → its
            /// last action the client can perform).
            case defaultFallback
            /// Nothing the client can render (or perform) stands in for it.
            case dropped
        }

        /// What was replaced: a component, or an action (a property whose type is action, or one of a
        /// sequence's actions).
        public enum Subject: String, Sendable {
            case component
            case action
        }

        /// The component's id, when it has one (never for an action).
        public var id: String?
        /// Where the component or action is in the authored screen (`$.root.subviews[2].properties.action`).
        public var path: JSONPath
        /// The component type, or the action kind (`share`).
        public var type: String
        public var how: How
        /// The type or action kind shown instead; nil when dropped, or when the fallback resolved to nothing.
        public var replacement: String?
        public var subject: Subject

        public init(id: String?, path: JSONPath, type: String, how: How, replacement: String?, subject: Subject = .component) {
            self.id = id
            self.path = path
            self.type = type
            self.how = how
            self.replacement = replacement
            self.subject = subject
        }
    }


    /// The resolved wire format, with each component type's name (a ``ComponentKind``) in quotes
    /// where the sketch leaves them bare:
    ///
    /// ```
    /// {"id": "home", "revision": 3, "schemaVersion": 1, "title": "Home", "metadata": {…},
    ///  "assignments": {"experiments": {"home-hero": "big"}, "rollouts": {"gold-banner": true}},
    ///  "replaced": [{"id": "deals-carousel", "type": Carousel, "how": "fallback", "replacement": HStack}],
    ///  "root": {"type": VStack, …}}
    /// ```
    ///
    /// `title` and `metadata` are left out when absent; `assignments` (both members) and `replaced`
    /// are always present; `root` is `null` when nothing is shown. A replacement carries `path` (the
    /// authored JSON path) instead of `id` when the component has no id, and no `replacement` when
    /// dropped. An action's replacement always carries `path`, and its `type` is the action kind,
    /// which is lower-case where component types are capitalised:
    /// `{"path": "$.root.properties.action", "type": "share", "how": "defaultFallback", "replacement": "openURL"}`.
    public func jsonValue(revision: Int) -> JSONValue {
        var members = envelopeMembers(revision: revision)
        members.append(("root", root?.jsonValue ?? .null))
        return .object(members)
    }

    /// Every member of ``jsonValue(revision:)`` but `root`, in order: what a layout answer wraps
    /// its frames in, without encoding the component tree twice.
    public func envelopeMembers(revision: Int) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("id", .string(id)), ("revision", .number(revision)), ("schemaVersion", .number(schemaVersion)),
        ]
        if let title { members.append(("title", .string(title))) }
        if !metadata.isEmpty { members.append(("metadata", JSONValue(.object(metadata)))) }
        members.append((
            "assignments",
            .object([
                ("experiments", .object(assignments.experiments.map { ($0.key, .string($0.value)) })),
                ("rollouts", .object(assignments.rollouts.map { ($0.key, .bool($0.value)) })),
            ])
        ))
        members.append(("replaced", .array(replaced.map(\.jsonValue))))
        return members
    }
}

extension ResolvedScreen.Replacement {
    /// `{"id" | "path", "type", "how", "replacement"?}`; actions always by `path`.
    public var jsonValue: JSONValue {
        let byID = subject == .component ? id : nil
        var members: [(String, JSONValue)] = [byID.map { ("id", .string($0)) } ?? ("path", .string(path.description))]
        members.append(("type", .string(type)))
        members.append(("how", .string(how.rawValue)))
        if let replacement { members.append(("replacement", .string(replacement))) }
        return .object(members)
    }
}

/// A component a client renders: DrivenUI's `type` / `properties` / `values` / `subviews`, with
/// the `id` and `metadata` the author gave. No rules, experiments or fallbacks are left in it.
public struct ResolvedComponent: Sendable {
    public var kind: ComponentKind
    public var id: String?
    public var properties: [JSONMember]
    public var values: [JSONMember]
    public var subviews: [ResolvedComponent]
    public var metadata: [JSONMember]
    /// The author's raw flexbox style (Yoga style names), as written.
    public var style: [JSONMember]
    /// A Pins container's pins; nil for every other component (and for a Pins container shown to a
    /// client too old for it, which gets a VStack).
    public var pins: PinSpec?

    public init(
        kind: ComponentKind, id: String? = nil, properties: [JSONMember] = [], values: [JSONMember] = [],
        subviews: [ResolvedComponent] = [], metadata: [JSONMember] = [], style: [JSONMember] = [],
        pins: PinSpec? = nil
    ) {
        self.kind = kind
        self.id = id
        self.properties = properties
        self.values = values
        self.subviews = subviews
        self.metadata = metadata
        self.style = style
        self.pins = pins
    }

    /// The kind's name, as the resolved format's `type` spells it (for encoding; what depends on
    /// the kind switches over ``kind``).
    public var type: String { kind.name }

    /// Keys in the order `type`, `id`, `properties`, `values`, `style`, pins, `subviews`, `metadata`;
    /// empty ones and a missing id are left out, as in the authoring format.
    public var jsonValue: JSONValue {
        Component.encode(
            type: type, id: id, properties: properties, values: values, style: style, pins: pins,
            subviews: subviews.map(\.jsonValue), fallback: nil, metadata: metadata)
    }
}

extension ResolvedScreen {
    /// An answer's envelope with nothing in it (no root, assignments or replacements): what an
    /// encoding plan (TrellisAnswers) takes the bytes every answer of a screen shares from.
    package static func envelope(id: String, schemaVersion: Int, title: String?, metadata: [JSONMember]) -> ResolvedScreen {
        ResolvedScreen(
            id: id, schemaVersion: schemaVersion, title: title, metadata: metadata, root: nil, assignments: .init(), replaced: [],
            needsSubstitution: false)
    }
}
