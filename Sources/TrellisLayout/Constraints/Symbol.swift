/// What a symbol of the simplex tableau stands for. Symbols are numbered from 0 in the order they
/// are made; the numbers order pivoting choices (Bland's rule), so equal inputs pivot identically.
enum SymbolKind: UInt8, Sendable, Equatable {
    /// A caller's variable: unrestricted in sign.
    case external
    /// An inequality's slack (`expression ± slack = 0`, slack ≥ 0), or an artificial variable.
    case slack
    /// An optional constraint's error (≥ 0), minimised by the objective at the constraint's priority.
    case error
    /// Marks a required equality; always 0, never pivoted in except to remove its constraint.
    case dummy

    /// Restricted symbols are ≥ 0; a tableau is feasible when their rows have non-negative constants.
    var isRestricted: Bool { self == .slack || self == .error }
    /// Only restricted symbols may enter the basis when optimising.
    var isPivotable: Bool { isRestricted }
}

/// The tolerance under which coefficients are treated as zero and dropped, and under which an
/// infeasibility is treated as rounding error.
let constraintEpsilon = 1e-8

@inline(__always) func isNearZero(_ value: Double) -> Bool {
    value < constraintEpsilon && value > -constraintEpsilon
}

@inline(__always) func absoluteValue(_ value: Double) -> Double {
    value < 0 ? -value : value
}
