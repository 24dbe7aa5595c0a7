/// One event an app tracked: a name such as `purchase`, with an optional number.
public struct TrackedEvent: Sendable, Equatable {
    /// The client's id for the event, unique per event of its user: a second event of the same
    /// user with the same id is dropped as a retransmission (``EventStore/append(_:)``).
    public var id: String
    public var user: String
    public var name: String
    /// The event's number (an amount, a duration), or nil. A ``MetricQuery/Measure/sum(event:)``
    /// counts an event without one as 1.
    public var value: Double?
    /// When it happened, in seconds since 1970 (UTC), by the app's clock.
    public var at: Double
    /// When the server received it, in seconds since 1970 (UTC), by the server's clock: the order
    /// of the export (``EventStore/events(after:limit:)``).
    public var receivedAt: Double

    public init(id: String, user: String, name: String, value: Double? = nil, at: Double, receivedAt: Double) {
        self.id = id
        self.user = user
        self.name = name
        self.value = value
        self.at = at
        self.receivedAt = receivedAt
    }

    /// The position just after this event in the export.
    public var cursor: EventCursor { EventCursor(receivedAt: receivedAt, id: id, user: user) }
}

/// A position in the export of tracked events: the (receivedAt, id, user) of the last event read.
/// The user too, because ids are unique per user only: two users' events may share a receipt
/// time and an id, and a page may end between them.
public struct EventCursor: Sendable, Hashable {
    public var receivedAt: Double
    public var id: String
    public var user: String

    public init(receivedAt: Double, id: String, user: String) {
        self.receivedAt = receivedAt
        self.id = id
        self.user = user
    }
}

/// What an exposure is to: an experiment, a rollout, or a screen (whose staged revision is an
/// experiment of its own). Stored as two columns, ``kind`` and ``key``.
public enum ExposureSubject: Hashable, Sendable, CustomStringConvertible {
    case experiment(String)
    case rollout(String)
    case screen(String)

    /// The subject from its stored columns; nil for a kind this build does not know.
    public init?(kind: String, key: String) {
        switch kind {
        case "experiment": self = .experiment(key)
        case "rollout": self = .rollout(key)
        case "screen": self = .screen(key)
        default: return nil
        }
    }

    /// `experiment`, `rollout` or `screen`.
    public var kind: String {
        switch self {
        case .experiment: "experiment"
        case .rollout: "rollout"
        case .screen: "screen"
        }
    }

    /// The experiment's or rollout's key, the screen's id.
    public var key: String {
        switch self {
        case .experiment(let key), .rollout(let key), .screen(let key): key
        }
    }

    public var description: String { "\(kind) \(key)" }
}

/// What the app said about itself with an exposure, for breaking results down
/// (``MetricQuery/dimension``). Each is nil when the app did not say.
public struct ExposureDimensions: Sendable, Equatable {
    public var platform: String?
    public var appVersion: String?
    public var country: String?

    public init(platform: String? = nil, appVersion: String? = nil, country: String? = nil) {
        self.platform = platform
        self.appVersion = appVersion
        self.country = country
    }
}

/// Who reported an exposure.
public enum ExposureSource: String, Sendable, Equatable, CaseIterable {
    /// The app, when it showed the variant.
    case client
    /// The server, when it decided the variant for a request.
    case server
}

/// A user was shown a variant of a subject.
public struct Exposure: Sendable, Equatable {
    public var subject: ExposureSubject
    public var user: String
    /// A variant's name for an experiment; `in` or `out` for a rollout; a revision number
    /// (decimal) for a screen.
    public var variant: String
    /// When, in seconds since 1970 (UTC). The store keeps the earliest time of each (subject, user,
    /// variant): the user's *first exposure* to it.
    public var at: Double
    public var dimensions: ExposureDimensions
    public var source: ExposureSource

    public init(
        subject: ExposureSubject, user: String, variant: String, at: Double, dimensions: ExposureDimensions = ExposureDimensions(),
        source: ExposureSource = .client
    ) {
        self.subject = subject
        self.user = user
        self.variant = variant
        self.at = at
        self.dimensions = dimensions
        self.source = source
    }

    /// The position just after this exposure in its subject's export.
    public var cursor: ExposureCursor { ExposureCursor(user: user, variant: variant) }
}

/// A position in the export of a subject's exposures: the (user, variant) of the last one read.
public struct ExposureCursor: Sendable, Hashable {
    public var user: String
    public var variant: String

    public init(user: String, variant: String) {
        self.user = user
        self.variant = variant
    }
}

/// What one ``EventStore/append(_:)`` writes.
public struct EventBatch: Sendable, Equatable {
    public var events: [TrackedEvent]
    public var exposures: [Exposure]

    public init(events: [TrackedEvent] = [], exposures: [Exposure] = []) {
        self.events = events
        self.exposures = exposures
    }

    public var isEmpty: Bool { events.isEmpty && exposures.isEmpty }
}
