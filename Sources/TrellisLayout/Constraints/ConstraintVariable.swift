/// A variable of a constraint system, made by `ConstraintSolver.makeVariable()`.
///
/// Ids are dense and start at 0 in each solver, in the order the variables were made, so a caller
/// can keep per-variable data in an array indexed by `id`. A variable means nothing to another solver
/// (unless that solver is a copy of the one that made it).
public struct ConstraintVariable: Hashable, Sendable {
    /// The variable's index among its solver's variables.
    public let id: Int32

    init(id: Int32) {
        self.id = id
    }
}

/// Identifies a constraint added to a `ConstraintSolver`, for `ConstraintSolver.remove(_:)`.
public struct ConstraintHandle: Hashable, Sendable {
    /// Handles are never reused by a solver, so a stale handle is reported, never misapplied.
    let id: Int32
}

/// Auto Layout's constraint priorities: 1000 is required, anything lower is optional.
///
/// Optional priorities are strictly hierarchical: no amount of error at one priority is traded for
/// less error at any higher priority (a 751 constraint wins outright against a 750 one).
public enum ConstraintPriority {
    /// Must hold; adding a required constraint that cannot hold throws `ConstraintError.unsatisfiable`.
    public static let required: Double = 1000
    /// Auto Layout's `defaultHigh` (a button's content hugging, for example).
    public static let defaultHigh: Double = 750
    /// Auto Layout's `defaultLow`.
    public static let defaultLow: Double = 250
    /// Auto Layout's `fittingSizeLevel`: the level at which a view is pulled to its fitting size.
    public static let fittingSizeLevel: Double = 50

    /// Priorities are in (0, 1000]; non-integers and values below 1 are allowed.
    static func isValid(_ priority: Double) -> Bool {
        priority > 0 && priority <= required
    }
}

/// Why a `ConstraintSolver` refused a request. The solver is left exactly as it was before the call.
public enum ConstraintError: Error, Equatable, Sendable {
    /// A required constraint conflicts with the required constraints already added.
    case unsatisfiable
    /// The handle names no constraint of this solver (never added, or already removed).
    case unknownConstraint
    /// The variable was not made by this solver.
    case unknownVariable
    /// A coefficient or the constant of the expression is NaN or infinite.
    case invalidExpression
    /// A constraint's priority is NaN or outside (0, 1000].
    case invalidPriority
    /// A suggested value is NaN or infinite.
    case invalidValue
    /// The variable is already an edit variable.
    case duplicateEditVariable
    /// The variable is not an edit variable.
    case unknownEditVariable
    /// An edit variable's priority must be optional: in (0, 1000).
    case badEditPriority
}
