/// One metric over one subject's exposed users, for ``EventStore/statistics(_:)``.
///
/// The users are those exposed to the subject at or before ``asOf``. A user exposed to more than
/// one variant of it is left out of every row and counted in
/// ``MetricStatistics/multipleExposures`` (as GrowthBook does). Every other user counts, with
/// zeros when they have no events. A user's *value* is ``measure`` over their events from their
/// first exposure (inclusive) to first exposure + ``window`` (exclusive), never after ``asOf``.
public struct MetricQuery: Sendable, Equatable {
    /// How a user's events become the user's value.
    public indirect enum Measure: Sendable, Hashable {
        /// 1 if the user has at least one `event`, else 0.
        case proportion(event: String)
        /// The sum of the user's `event`s' values, an event without a value counting 1.
        case sum(event: String)
        /// How many `event`s the user has.
        case count(event: String)
        /// Two measures per user, whose sums' quotient is the metric (e.g. revenue per session).
        /// Neither may be a ratio itself.
        case ratio(numerator: Measure, denominator: Measure)
    }

    /// Which of an exposure's ``ExposureDimensions`` to break the rows down by.
    public enum Dimension: String, Sendable, CaseIterable {
        case platform
        case appVersion
        case country
    }

    public var subject: ExposureSubject
    public var measure: Measure
    /// Seconds after the user's first exposure that count. The default, nil, counts up to ``asOf``.
    public var window: Double?
    /// CUPED: when set, each row also carries the moments of the same measure (a ratio's
    /// numerator) over the `covariateLookback` seconds before the user's first exposure
    /// (inclusive start, exclusive end). The default, nil, computes none.
    public var covariateLookback: Double?
    /// When set, rows are per value of this dimension (as the user's exposure carried it, nil
    /// when it carried none) and variant. The default, nil, gives one row per variant.
    public var dimension: Dimension?
    /// Seconds since 1970: only exposures and events at or before it count.
    public var asOf: Double

    public init(
        subject: ExposureSubject, measure: Measure, window: Double? = nil, covariateLookback: Double? = nil, dimension: Dimension? = nil,
        asOf: Double
    ) {
        self.subject = subject
        self.measure = measure
        self.window = window
        self.covariateLookback = covariateLookback
        self.dimension = dimension
        self.asOf = asOf
    }

    /// Refuses what has no meaning: a ratio of ratios, a window or lookback that is not a
    /// positive finite number, an `asOf` that is not finite.
    public func validate() throws(StoreError) {
        if case .ratio(let numerator, let denominator) = measure {
            if case .ratio = numerator { throw StoreError.failure("a ratio's numerator cannot be a ratio") }
            if case .ratio = denominator { throw StoreError.failure("a ratio's denominator cannot be a ratio") }
        }
        if let window, !(window.isFinite && window > 0) { throw StoreError.failure("the window must be a positive number of seconds") }
        if let covariateLookback, !(covariateLookback.isFinite && covariateLookback > 0) {
            throw StoreError.failure("the covariate lookback must be a positive number of seconds")
        }
        guard asOf.isFinite else { throw StoreError.failure("asOf must be a finite time") }
    }
}

/// The sums of a second per-user quantity `y` beside a row's main one `x`: Σy, Σy², Σxy.
public struct Moments: Sendable, Equatable {
    public var sum: Double
    public var sumSquares: Double
    /// Σ(main × this), over the same users.
    public var sumProducts: Double

    public init(sum: Double, sumSquares: Double, sumProducts: Double) {
        self.sum = sum
        self.sumSquares = sumSquares
        self.sumProducts = sumProducts
    }
}

/// The sufficient statistics of one variant (and dimension value): per-user values summed by SQL,
/// each user's total first (GROUP BY user), then the sums over users, in double precision.
public struct VariantStatistics: Sendable, Equatable {
    /// The dimension's value, nil without a ``MetricQuery/dimension`` or for exposures without one.
    public var dimension: String?
    public var variant: String
    /// Users exposed to this variant only (with this dimension value).
    public var users: Int
    /// Σx over the users, x the measure (a ratio's numerator).
    public var sum: Double
    /// Σx².
    public var sumSquares: Double
    /// A ratio's denominator d: Σd, Σd², Σxd; nil for other measures.
    public var denominator: Moments?
    /// CUPED's covariate c, the measure before first exposure: Σc, Σc², Σxc; nil without a
    /// ``MetricQuery/covariateLookback``.
    public var covariate: Moments?

    public init(
        dimension: String? = nil, variant: String, users: Int, sum: Double, sumSquares: Double, denominator: Moments? = nil,
        covariate: Moments? = nil
    ) {
        self.dimension = dimension
        self.variant = variant
        self.users = users
        self.sum = sum
        self.sumSquares = sumSquares
        self.denominator = denominator
        self.covariate = covariate
    }
}

/// What ``EventStore/statistics(_:)`` answers.
public struct MetricStatistics: Sendable, Equatable {
    /// One row per (dimension value, variant) with at least one user, ordered by dimension value
    /// (nil first) then variant, both by their UTF-8 bytes.
    public var rows: [VariantStatistics]
    /// Users exposed to more than one variant of the subject (at or before `asOf`): in no row.
    public var multipleExposures: Int

    public init(rows: [VariantStatistics], multipleExposures: Int) {
        self.rows = rows
        self.multipleExposures = multipleExposures
    }
}
