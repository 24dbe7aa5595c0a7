// TEMPORARY: the shape the event store's branch provides; deleted when it is merged.
public struct TrackedEvent: Sendable, Equatable {
    public var id: String
    public var user: String
    public var name: String
    public var value: Double?
    public var at: Double
    public var receivedAt: Double
    public init(id: String, user: String, name: String, value: Double?, at: Double, receivedAt: Double) {
        self.id = id; self.user = user; self.name = name; self.value = value; self.at = at; self.receivedAt = receivedAt
    }
}
public enum ExposureSubject: Hashable, Sendable { case experiment(String), rollout(String), screen(String) }
public struct ExposureDimensions: Sendable, Equatable {
    public var platform: String?
    public var appVersion: String?
    public var country: String?
    public init(platform: String? = nil, appVersion: String? = nil, country: String? = nil) {
        self.platform = platform; self.appVersion = appVersion; self.country = country
    }
}
public enum ExposureSource: String, Sendable { case client, server }
public struct Exposure: Sendable, Equatable {
    public var subject: ExposureSubject
    public var user: String
    public var variant: String
    public var at: Double
    public var dimensions: ExposureDimensions
    public var source: ExposureSource
    public init(subject: ExposureSubject, user: String, variant: String, at: Double, dimensions: ExposureDimensions, source: ExposureSource) {
        self.subject = subject; self.user = user; self.variant = variant; self.at = at; self.dimensions = dimensions; self.source = source
    }
}
public struct EventBatch: Sendable {
    public var events: [TrackedEvent]
    public var exposures: [Exposure]
    public init(events: [TrackedEvent] = [], exposures: [Exposure] = []) { self.events = events; self.exposures = exposures }
}
public struct AppendReport: Sendable { public var eventsWritten: Int; public var duplicates: Int; public var exposuresNew: Int }
public enum ExposureDimension: String, Sendable { case platform, appVersion, country }
public struct MetricQuery: Sendable {
    public indirect enum Measure: Sendable, Equatable {
        case proportion(event: String), sum(event: String), count(event: String)
        case ratio(numerator: Measure, denominator: Measure)
    }
    public var subject: ExposureSubject
    public var measure: Measure
    public var window: Double?
    public var covariateLookback: Double?
    public var dimension: ExposureDimension?
    public var asOf: Double
    public init(subject: ExposureSubject, measure: Measure, window: Double?, covariateLookback: Double?, dimension: ExposureDimension?, asOf: Double) {
        self.subject = subject; self.measure = measure; self.window = window; self.covariateLookback = covariateLookback; self.dimension = dimension; self.asOf = asOf
    }
}
public struct Moments: Sendable, Equatable { public var sum: Double; public var sumSquares: Double; public var sumProducts: Double }
public struct MetricStatisticsRow: Sendable, Equatable {
    public var dimensionValue: String?
    public var variant: String
    public var users: Int
    public var sum: Double
    public var sumSquares: Double
    public var denominator: Moments?
    public var covariate: Moments?
}
public struct MetricStatistics: Sendable { public var rows: [MetricStatisticsRow]; public var multipleExposures: Int }
public struct ExposureDay: Sendable, Equatable { public var day: String; public var variant: String; public var users: Int }
public struct EventCursor: Sendable, Equatable { public var receivedAt: Double; public var id: String }
public protocol EventStore: Sendable {
    @discardableResult func append(_ batch: EventBatch) throws(StoreError) -> AppendReport
    func statistics(_ query: MetricQuery) throws(StoreError) -> MetricStatistics
    func exposuresPerDay(_ subject: ExposureSubject, asOf: Double) throws(StoreError) -> [ExposureDay]
    @discardableResult func pruneEvents(before cutoff: Double) throws(StoreError) -> Int
    func events(after cursor: EventCursor?, limit: Int) throws(StoreError) -> [TrackedEvent]
}
