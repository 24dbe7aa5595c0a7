/// Rule expressions laid flat for evaluation: the nodes of every expression added, in prefix
/// order, in one array of fixed-size instructions, with the names and conditions they use in
/// arrays of their own. A ``RuleExpression`` is a box per node; at thousands of screens the rules
/// of a screen nobody asked for lately are cold memory, and a request waited on a load per box.
/// Evaluating flat rules (``Evaluator/evaluate(_:at:for:)``) reads a few contiguous arrays, and
/// means what evaluating the expression means.
public struct FlatRules: Sendable {
    struct Instruction: Sendable {
        enum Operation: UInt8, Sendable { case all, any, not, named, rollout, experiment, condition }
        let operation: Operation
        /// `named`, `rollout`: the index of the name (rule, rollout) in `names`; `experiment`: of
        /// the experiment's key, its variant's following; `condition`: the index of the condition
        /// in `conditions`.
        let operand: UInt32
        /// The index past the node's last descendant: where its next sibling starts.
        let end: UInt32
    }

    private(set) var code: [Instruction] = []
    private(set) var names: [String] = []
    private(set) var conditions: [AttributeCondition] = []

    public init() {}

    /// Adds `expression`.
    /// - Returns: where it starts, for ``Evaluator/evaluate(_:at:for:)``.
    @discardableResult
    public mutating func append(_ expression: RuleExpression) -> Int {
        let start = code.count
        switch expression {
        case .all(let list): appendList(.all, list)
        case .any(let list): appendList(.any, list)
        case .not(let inner):
            code.append(Instruction(operation: .not, operand: 0, end: 0))
            append(inner)
            close(start)
        case .named(let name): appendLeaf(.named, operand: index(ofName: name))
        case .rollout(let key): appendLeaf(.rollout, operand: index(ofName: key))
        case .experiment(let key, let variant):
            appendLeaf(.experiment, operand: append(name: key))
            append(name: variant)
        case .condition(let condition):
            if let known = conditions.firstIndex(of: condition) {
                appendLeaf(.condition, operand: known)
            } else {
                conditions.append(condition)
                appendLeaf(.condition, operand: conditions.count - 1)
            }
        }
        return start
    }

    /// Adds a name (an experiment's key or variant) for the caller to find by index.
    @discardableResult
    public mutating func append(name: String) -> Int {
        names.append(name)
        return names.count - 1
    }

    /// The name added at `index` (``append(name:)``).
    public func name(at index: Int) -> String { names[index] }

    /// Reads every line of the three arrays, one load after another with nothing in between that
    /// waits for them, so that they come from memory together (``DecisionTable/warm()``).
    /// - Returns: a sum of what it read, for the caller to use: a result nobody reads would not be loaded.
    public func warm() -> Int {
        code.withUnsafeBytes(Self.everyLine) &+ names.withUnsafeBytes(Self.everyLine) &+ conditions.withUnsafeBytes(Self.everyLine)
    }

    /// A byte of every 64-byte cache line `bytes` spans, added up (never negative).
    public static func everyLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard !bytes.isEmpty else { return 0 }
        var sum = Int(bytes.load(fromByteOffset: bytes.count - 1, as: UInt8.self))
        var offset = 0
        while offset < bytes.count {
            sum &+= Int(bytes.load(fromByteOffset: offset, as: UInt8.self))
            offset += 64
        }
        return sum
    }

    /// The names added from `range` on, for a caller that added a list of them in a row.
    public func names(in range: Range<Int>) -> ArraySlice<String> { names[range] }

    /// The same rules without the arrays' growth room, for rules kept as long as their screen.
    public func exactlySized() -> FlatRules {
        var sized = FlatRules()
        sized.code = code.withUnsafeBufferPointer { Array($0) }
        sized.names = names.withUnsafeBufferPointer { Array($0) }
        sized.conditions = conditions.withUnsafeBufferPointer { Array($0) }
        return sized
    }

    /// The index of `name` among the names, added unless it is there: a screen's rules name a
    /// handful of rollouts and rules, each many times (and so for conditions).
    public mutating func index(ofName name: String) -> Int {
        names.firstIndex(of: name) ?? append(name: name)
    }

    private mutating func appendList(_ operation: Instruction.Operation, _ list: [RuleExpression]) {
        let start = code.count
        code.append(Instruction(operation: operation, operand: 0, end: 0))
        for item in list { append(item) }
        close(start)
    }

    private mutating func appendLeaf(_ operation: Instruction.Operation, operand: Int) {
        code.append(Instruction(operation: operation, operand: UInt32(operand), end: UInt32(code.count + 1)))
    }

    /// Sets the end of the node at `start`, whose descendants are all added.
    private mutating func close(_ start: Int) {
        let open = code[start]
        code[start] = Instruction(operation: open.operation, operand: open.operand, end: UInt32(code.count))
    }
}

/// What one user's evaluation of one set of flat rules has decided so far, by the index of a name
/// in the rules: each rollout and each named rule of the configuration decided once. A screen's
/// rules name a few rollouts and rules, each in several of them (and every rollout once more for
/// the answer's assignments); deciding a rollout is a dictionary lookup and a hash of the user's
/// id, a named rule a lookup and its expression. A few words, no allocation; names past the 64th
/// are decided each time.
public struct EvaluationMemo: Sendable {
    private var rollouts = Bits()
    private var rules = Bits()

    public init() {}

    /// Whether the rollout named at `index` admits the user: `decide()` the first time, as it
    /// said after.
    public mutating func isInRollout(named index: Int, _ decide: () -> Bool) -> Bool {
        rollouts.value(at: index, decide)
    }

    /// Whether the configuration's rule named at `index` holds: `decide()` the first time.
    mutating func holds(rule index: Int, _ decide: () -> Bool) -> Bool {
        rules.value(at: index, decide)
    }

    private struct Bits: Sendable {
        var known: UInt64 = 0
        var set: UInt64 = 0

        mutating func value(at index: Int, _ decide: () -> Bool) -> Bool {
            guard index < UInt64.bitWidth else { return decide() }
            let bit = UInt64(1) << UInt64(index)
            if known & bit != 0 { return set & bit != 0 }
            let value = decide()
            known |= bit
            if value { set |= bit }
            return value
        }
    }
}

extension Evaluator {
    /// Whether the expression added to `rules` at `start` (``FlatRules/append(_:)``) holds for
    /// `context`: what ``evaluate(_:for:)`` says of that expression.
    public func evaluate(_ rules: FlatRules, at start: Int, for context: UserContext) -> Bool {
        var memo = EvaluationMemo()
        return evaluate(rules, at: start, for: context, memo: &memo)
    }

    /// The same, deciding each rollout and named rule once across calls that share `memo` (the
    /// same rules, the same user and configuration).
    public func evaluate(_ rules: FlatRules, at start: Int, for context: UserContext, memo: inout EvaluationMemo) -> Bool {
        rules.code.withUnsafeBufferPointer { code in evaluate(code, rules, at: start, context, &memo) }
    }

    private func evaluate(
        _ code: UnsafeBufferPointer<FlatRules.Instruction>, _ rules: FlatRules, at index: Int, _ context: UserContext, _ memo: inout EvaluationMemo
    ) -> Bool {
        let instruction = code[index]
        switch instruction.operation {
        case .all, .any:
            // `all` stops at the first false child, `any` at the first true one.
            let stopsAt = instruction.operation == .any
            var child = index + 1
            while child < Int(instruction.end) {
                if evaluate(code, rules, at: child, context, &memo) == stopsAt { return stopsAt }
                child = Int(code[child].end)
            }
            return !stopsAt
        case .not:
            return !evaluate(code, rules, at: index + 1, context, &memo)
        case .named:
            return memo.holds(rule: Int(instruction.operand)) { holdsNamedRule(rules.names[Int(instruction.operand)], for: context) }
        case .rollout:
            return memo.isInRollout(named: Int(instruction.operand)) { isInRollout(rules.names[Int(instruction.operand)], for: context) }
        case .experiment:
            return variant(of: rules.names[Int(instruction.operand)], for: context) == rules.names[Int(instruction.operand) + 1]
        case .condition:
            // Read where it lies: `conditions[i]` was a copy, retaining the attribute's and the
            // operand's storage — for a screen nobody asked for lately, lines from memory written.
            return rules.conditions.withUnsafeBufferPointer { Self.holds($0[Int(instruction.operand)], for: context) }
        }
    }

    /// Whether the configuration's rule `name` holds: false for a name it does not have.
    func holdsNamedRule(_ name: String, for context: UserContext) -> Bool {
        guard let start = namedRuleStarts[name] else { return false }
        // Its own memo: its names are indexed in the named rules, not in the caller's.
        var memo = EvaluationMemo()
        return evaluate(namedRules, at: start, for: context, memo: &memo)
    }
}
