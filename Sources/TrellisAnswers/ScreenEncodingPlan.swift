import TrellisJSON
import TrellisScreens
import TrellisStrings
import TrellisTargeting

/// A screen's compact answer for one client schema version, encoded ahead of any request, with a
/// hole at each decision point: a miss of the answer cache then copies bytes and picks branches
/// instead of resolving the tree and encoding it again. Spread over thousands of screens with a
/// new user on every request (`scripts/bench-scale`'s spread), most answers are misses, so a miss
/// must cost little more than a hit.
///
/// A plan depends on the screen's content only, not on its revision, which ``encode(_:revision:parameters:)``
/// writes: revisions with the same content share one.
///
/// ``encode(_:revision:parameters:)`` gives exactly the bytes of the reference encoder,
/// ``ScreenAnswerEncoder/reference(_:outcomes:clientSchemaVersion:revision:parameters:resolver:style:)``
/// (`JSONWriter.encode(resolver.resolve(screen, …).jsonValue(revision:))`): the fixed parts are
/// encoded by that same resolver and writer, and the plan only says where each decision's branch
/// goes; components whose properties or values take the request's parameters are filled in and
/// encoded per answer by the same substitution ``ResolvedScreen/substituting(_:registry:)`` runs.
/// Screens the plan does not cover (``make(_:decisions:clientSchemaVersion:resolver:)`` returns
/// nil) are answered by the reference; ``ScreenAnswerEncoder`` chooses. The plan takes what it
/// needs of the resolver (``ResolveWalk``, ``ParameterTemplate``, substitution of one component's
/// members) through TrellisScreens' `package` declarations.
public struct ScreenEncodingPlan: Sendable {
    /// The vocabulary the screen was resolved with, which says where parameters may stand.
    let registry: ComponentRegistry
    /// The answer up to and with `"revision":`, the same in every answer of the screen.
    let head: [UInt8]
    /// The answer after the revision's number up to and with `"assignments":`: schema version,
    /// title and metadata.
    let afterRevision: [UInt8]
    /// The screen's nodes, flat (``Program``); nil when the root resolves to nothing whatever the
    /// outcomes (a dropped component).
    let program: Program?
    /// The replacements of a root that resolves to nothing.
    let rootReplaced: [ResolvedScreen.Replacement]

    /// One node of the screen, as the client of this plan's schema version receives it: what the
    /// ``Builder`` makes, and ``Program`` lays flat.
    indirect enum Part: Sendable {
        /// A component subtree without decision points: its compact bytes (nil when it resolves to
        /// nothing), and the replacements made in it, in tree order.
        case fixed([UInt8]?, replaced: [ResolvedScreen.Replacement])
        /// A component with decision points among its subviews: `head`, then
        /// `,"subviews":[…]` with the subviews shown (left out when none is), then `tail`.
        case component(head: [UInt8], tail: [UInt8], replaced: [ResolvedScreen.Replacement], subviews: [Part])
        /// A Rule: `then` for outcome 1, `otherwise` for 0; the rollouts its expression names
        /// are assigned whichever is shown.
        case rule(point: Int, rollouts: [(key: String, outcome: Int)], then: Part, otherwise: Part?)
        /// An Experiment: the variant at the outcome's index, or nothing.
        case experiment(point: Int, key: String, variants: [(name: String, part: Part?)])
        /// A component whose properties or values take parameters: filled in and encoded per
        /// answer; its subviews, when it keeps any, stand in its `subviews` as one stand-in.
        case parametrized(ResolvedComponent, replaced: [ResolvedScreen.Replacement], subviews: [Part])
    }

    /// The plan of `screen` for clients of `clientSchemaVersion`, or nil when the screen needs
    /// what a plan does not do: a component fallback with decisions or parameters in it shown to a
    /// client too old for the component.
    public static func make(
        _ screen: Screen, decisions: ScreenDecisions, clientSchemaVersion: Int, resolver: ScreenResolver
    ) -> ScreenEncodingPlan? {
        var builder = Builder(
            registry: resolver.registry, schemaVersion: clientSchemaVersion, needsSubstitution: screen.needsSubstitution,
            rolloutOffsets: Dictionary(uniqueKeysWithValues: decisions.rollouts.enumerated().map { ($1, decisions.points.count + $0) }))
        guard let root = builder.part(screen.root, at: JSONPath.root.appending("root")) else { return nil }
        let envelope = ResolvedScreen.envelope(
            id: screen.id, schemaVersion: min(clientSchemaVersion, screen.schemaVersion), title: screen.title, metadata: screen.metadata)
        // `assignments`, `replaced` and `root` close every answer (``ResolvedScreen/jsonValue(revision:)``).
        let empty = JSONWriter.encode(envelope.jsonValue(revision: 0))
        // `{"id":…,"revision":0,…`: the id comes first, and a screen id has no quote to be confused by.
        var head = Array(#"{"id":"#.utf8)
        JSONWriter.append(string: screen.id, to: &head)
        head += Array(#","revision":"#.utf8)
        guard empty.count > head.count + 1 + emptyTail.count, empty.starts(with: head + [UInt8(ascii: "0")]),
            empty.suffix(emptyTail.count).elementsEqual(emptyTail)
        else { return nil }
        let afterRevision = Array(empty[(head.count + 1)...].dropLast(emptyTail.count - assignmentsKey.count))
        var program: Program?
        var rootReplaced: [ResolvedScreen.Replacement] = []
        if case .fixed(nil, let replaced) = root { rootReplaced = replaced } else { program = Program(root, registry: resolver.registry) }
        return ScreenEncodingPlan(registry: resolver.registry, head: head.exactlySized(), afterRevision: afterRevision, program: program, rootReplaced: rootReplaced)
    }

    /// The answer of revision `revision` for `outcomes` (one byte per decision of the screen,
    /// ``ScreenDecisions/count``) and the screen's `parameters`, if it takes any:
    /// `ResolvedScreen/jsonValue(revision:)`'s members written directly, which the tests hold to
    /// the resolver's bytes.
    ///
    /// Two passes over the nodes the outcomes reach: the first (``Choices``) notes what the answer
    /// assigns and replaces, which come before the root in it, fills in the components that take
    /// parameters and counts the root's bytes; the second (``Writer``) writes the root into the
    /// answer, made at its exact size. Writing the root into a buffer of its own and copying it
    /// after the assignments cost a miss a second buffer of the answer's size — fresh memory,
    /// every line of it a write the cache did not hold.
    /// - Throws: what ``ResolvedScreen/substituting(_:registry:)`` throws for these parameters.
    public func encode(
        _ outcomes: Outcomes, revision: Int, parameters: [String: JSONValue] = [:], strings: LocalizedStrings? = nil
    ) throws(ParameterError) -> [UInt8] {
        try encode(outcomes, revision: revision, parameters: parameters, strings: strings) { count, write in
            [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                write(buffer)
                initialized = count
            }
        }
    }

    /// The same answer, written where `make` keeps it: `make` is given the byte count and a
    /// function that writes exactly that many bytes into the buffer it is passed (a cached answer's
    /// own storage, so that the answer is written once, where it stays).
    public func encode<Kept>(
        _ outcomes: Outcomes, revision: Int, parameters: [String: JSONValue] = [:], strings: LocalizedStrings? = nil,
        into make: (_ count: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> Kept
    ) throws(ParameterError) -> Kept {
        program?.prefetchNodes()
        var choices = Choices(outcomes: outcomes.bytes, parameters: parameters, strings: strings, registry: registry, program: program)
        choices.replaced = rootReplaced
        let rootCount = try program.flatMap { program throws(ParameterError) in try choices.read(program) }
        // The envelope is counted here and written straight into the answer: its assignments'
        // names and variants were encoded when the plan was made (``Program/quoted``).
        let replaced = choices.replaced.isEmpty ? [] : Self.encoded(choices.replaced)
        let envelopeCount = head.count + Writer.count(revision: revision) + afterRevision.count + choices.assignmentsCount(of: program)
            + Self.replacedOpening.count + replaced.count + Self.rootKey.count
        let count = envelopeCount + (rootCount ?? Self.null.count) + 1
        return make(count) { buffer in
            precondition(buffer.count == count, "an encoding plan writes into a buffer of the size it counted")
            var writer = Writer(into: buffer, outcomes: outcomes.bytes, filled: choices.filled)
            writer.append(head[...])
            writer.append(revision: revision)
            writer.append(afterRevision[...])
            writer.append(assignmentsOf: choices, in: program)
            writer.append(Self.replacedOpening[...])
            writer.append(replaced[...])
            writer.append(Self.rootKey[...])
            precondition(writer.count == envelopeCount, "an encoding plan wrote other than the envelope it counted")
            if let program, rootCount != nil { writer.write(program) } else { writer.append(Self.null[...]) }
            writer.append(Self.closingBrace[...])
            precondition(writer.count == count, "an encoding plan wrote other than the bytes it counted")
        }
    }

    /// The replacements' objects, comma-separated: only answers for clients too old for a
    /// component have any.
    static func encoded(_ replaced: [ResolvedScreen.Replacement]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, replacement) in replaced.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.append(replacement.jsonValue, to: &bytes)
        }
        return bytes
    }

    static let assignmentsKey = Array(#""assignments":"#.utf8)
    static let emptyTail = Array(#""assignments":{"experiments":{},"rollouts":{}},"replaced":[],"root":null}"#.utf8)
    static let experimentsOpening = Array(#"{"experiments":{"#.utf8)
    static let rolloutsOpening = Array(#"},"rollouts":{"#.utf8)
    static let colonTrue = Array(":true".utf8)
    static let colonFalse = Array(":false".utf8)
    static let replacedOpening = Array(#"}},"replaced":["#.utf8)
    static let rootKey = Array(#"],"root":"#.utf8)
    static let null = Array("null".utf8)
    static let closingBrace = [UInt8(ascii: "}")]
}

extension ScreenEncodingPlan {
    /// Makes the parts, numbering decision points in ``ScreenResolver/decisions(of:)``'s order.
    struct Builder {
        let registry: ComponentRegistry
        let schemaVersion: Int
        /// Whether the screen takes parameters or strings anywhere (most do not: no component is looked into).
        let needsSubstitution: Bool
        let rolloutOffsets: [String: Int]
        /// The index of the next decision point.
        var point = 0

        /// Nil when the plan cannot cover `node`.
        mutating func part(_ node: Node, at path: JSONPath) -> Part? {
            switch node {
            case .component(let component):
                return self.component(component, at: path)
            case .rule(_, let rule, let then, let otherwise):
                let index = point
                point += 1
                var rollouts: [(key: String, outcome: Int)] = []
                for case (.rollout(let key), _) in rule.references(at: path) where !rollouts.contains(where: { $0.key == key }) {
                    guard let offset = rolloutOffsets[key] else { return nil }
                    rollouts.append((key, offset))
                }
                guard let shown = part(then, at: path.appending("child")) else { return nil }
                var alternative: Part?
                if let otherwise {
                    guard let part = part(otherwise, at: path.appending("else")) else { return nil }
                    alternative = part
                }
                return .rule(point: index, rollouts: rollouts, then: shown, otherwise: alternative)
            case .experiment(_, let key, let variants):
                let index = point
                point += 1
                var parts: [(name: String, part: Part?)] = []
                for variant in variants {
                    guard let node = variant.node else {
                        parts.append((variant.name, nil))
                        continue
                    }
                    guard let part = part(node, at: path.appending("variants").appending(variant.name)) else { return nil }
                    parts.append((variant.name, part))
                }
                return .experiment(point: index, key: key, variants: parts)
            }
        }

        /// A component is resolved by the resolver itself, with a stand-in for its subviews when
        /// decisions or parameters lie among them: where the stand-in lands is where the shown
        /// subviews go (nowhere, when the client's type keeps no subviews).
        private mutating func component(_ component: Component, at path: JSONPath) -> Part? {
            // Counted only where subviews are passed over: a count at every component on the way
            // down to a decision would walk each subtree once per ancestor.
            var subviewPoints: Int { component.subviews.reduce(0) { $0 + ResolveWalk.pointCount($1) } }
            let fallbackPoints = component.fallback.map(ResolveWalk.pointCount) ?? 0
            // A fallback is shown only to a client too old for the type; then what it decides
            // would decide what the replacement is, which a plan does not follow. One that only
            // takes parameters or strings is shown whole: a single component is filled in per
            // answer as any other; a tree of them is left to the resolver.
            if let fallback = component.fallback, let type = registry[component.kind], type.introduced > schemaVersion {
                if fallbackPoints > 0 { return nil }
                if takesParameters(fallback) {
                    let (resolved, replaced) = resolveAlone(component, at: path)
                    point += subviewPoints
                    guard let resolved else { return .fixed(nil, replaced: replaced) }
                    return resolved.subviews.isEmpty ? .parametrized(resolved, replaced: replaced, subviews: []) : nil
                }
            }
            defer { point += fallbackPoints }
            let ownParameters = needsSubstitution && Self.takesParameters(component.properties + component.values)
            guard ownParameters || component.subviews.contains(where: Self.decides) || component.subviews.contains(where: takesParameters) else {
                let (resolved, replaced) = resolveAlone(component, at: path)
                return .fixed(resolved.map { $0.encodedJSON() }, replaced: replaced)
            }
            var outline = component
            if !outline.subviews.isEmpty { outline.subviews = [.component(Component(kind: .spacer, id: Self.standIn))] }
            let (resolved, replaced) = resolveAlone(outline, at: path)
            guard let resolved else {
                point += subviewPoints
                return .fixed(nil, replaced: replaced)
            }
            var subviews: [Part] = []
            if resolved.subviews.count == 1, resolved.subviews[0].id == Self.standIn {
                for (index, child) in component.subviews.enumerated() {
                    guard let part = part(child, at: path.appending("subviews").appending(index)) else { return nil }
                    subviews.append(part)
                }
            } else {
                point += subviewPoints
            }
            if ownParameters { return .parametrized(resolved, replaced: replaced, subviews: subviews) }
            let bytes = resolved.encodedJSON()
            guard !subviews.isEmpty, let hole = bytes.onlyRange(of: Self.standInSubviews) else {
                return .fixed(bytes, replaced: replaced)
            }
            return .component(head: Array(bytes[..<hole.lowerBound]), tail: Array(bytes[hole.upperBound...]), replaced: replaced, subviews: subviews)
        }

        /// Whether `node` is a decision point or has one under it (stops at the first).
        static func decides(_ node: Node) -> Bool {
            switch node {
            case .component(let component): component.subviews.contains(where: decides) || component.fallback.map(decides) ?? false
            case .rule, .experiment: true
            }
        }

        /// Whether `node` or anything under it takes parameters.
        private func takesParameters(_ node: Node) -> Bool {
            guard needsSubstitution else { return false }
            switch node {
            case .component(let component):
                return Self.takesParameters(component.properties + component.values) || component.subviews.contains(where: takesParameters)
                    || component.fallback.map(takesParameters) ?? false
            case .rule(_, _, let then, let otherwise):
                return takesParameters(then) || otherwise.map(takesParameters) ?? false
            case .experiment(_, _, let variants):
                return variants.contains { $0.node.map(takesParameters) ?? false }
            }
        }

        /// Whether a `$param` or `$format` object is among `members`, at any depth (an action's).
        static func takesParameters(_ members: [JSONMember]) -> Bool {
            members.contains { takesParameters($0.value) }
        }

        static func takesParameters(_ value: JSONValue) -> Bool {
            switch value.kind {
            case .object(let members): value.isWrittenAsParameter || takesParameters(members)
            case .array(let values): values.contains(where: takesParameters)
            default: false
            }
        }

        /// `component` resolved when it has no decision points, and the replacements made in it.
        private func resolveAlone(_ component: Component, at path: JSONPath) -> (ResolvedComponent?, [ResolvedScreen.Replacement]) {
            var walk = ResolveWalk(registry: registry, schemaVersion: schemaVersion)
            let resolved = walk.resolve(.component(component), at: path)
            return (resolved, walk.replaced)
        }

        /// The id of the stand-in: a Spacer, which every schema version renders, so the resolver
        /// keeps it as written; the private-use character keeps the id from being any authored one
        /// (ids are `[A-Za-z0-9_.-]`).
        static let standIn = "\u{F8FF}subviews"
        static let standInSubviews = Array(",\"subviews\":[{\"type\":\"\(ComponentKind.spacer.name)\",\"id\":\"\(standIn)\"}]".utf8)

    }

    /// The first pass over one answer: what the nodes its outcomes reach assign and replace, in the
    /// order the resolver meets them, the components among them that take parameters filled in
    /// and encoded, and how many bytes the root takes.
    struct Choices {
        let outcomes: [UInt8]
        let parameters: [String: JSONValue]
        let strings: LocalizedStrings?
        let registry: ComponentRegistry
        /// The index in the answer of each subview being read, root first: the answer's path to
        /// the component being filled in, for a parameter's error.
        var indices: [Int] = []
        /// Each experiment assigned, as the index of its name and of its variant's in the
        /// program's names (``Program/quoted``: interned, so equal names have equal indices), in
        /// the order met.
        var experiments: [(key: UInt32, variant: UInt32)] = []
        /// Each rollout assigned, as the index of its name, and whether the user is in it.
        var rollouts: [(key: UInt32, assigned: Bool)] = []
        var replaced: [ResolvedScreen.Replacement] = []
        /// Each component that takes parameters, filled in and encoded, in the order the answer
        /// shows them, with where its subviews go (nil: it shows none of them).
        var filled: [Filled] = []

        struct Filled {
            let bytes: [UInt8]
            let hole: Range<Int>?
        }

        init(outcomes: [UInt8], parameters: [String: JSONValue], strings: LocalizedStrings?, registry: ComponentRegistry, program: Program?) {
            self.outcomes = outcomes
            self.parameters = parameters
            self.strings = strings
            self.registry = registry
            // Room for every assignment the program can make: no array grows while it is read.
            if let program {
                experiments.reserveCapacity(program.experimentCount)
                rollouts.reserveCapacity(program.rollouts.count)
            }
        }

        /// The bytes of `{"experiments":{…},"rollouts":{…}` with what was assigned.
        func assignmentsCount(of program: Program?) -> Int {
            var count = ScreenEncodingPlan.experimentsOpening.count + ScreenEncodingPlan.rolloutsOpening.count
            guard let program else { return count }
            for experiment in experiments {
                count += program.quoted[Int(experiment.key)].count + 1 + program.quoted[Int(experiment.variant)].count
            }
            for rollout in rollouts {
                count += program.quoted[Int(rollout.key)].count + (rollout.assigned ? ScreenEncodingPlan.colonTrue : ScreenEncodingPlan.colonFalse).count
            }
            // A comma between each two of either.
            return count + max(experiments.count - 1, 0) + max(rollouts.count - 1, 0)
        }

        /// The root's byte count; nil when it shows nothing.
        mutating func read(_ program: Program) throws(ParameterError) -> Int? {
            try read(node: 0, of: program)
        }

        /// Node `index`'s byte count; nil when it shows nothing.
        private mutating func read(node index: Int, of program: Program) throws(ParameterError) -> Int? {
            switch program.nodes[index] {
            case .text(let span, let made):
                note(made, of: program)
                program.prefetch(span)
                return span.count
            case .nothing(let made):
                note(made, of: program)
                return nil
            case .component(let head, let tail, let made, let subviews):
                note(made, of: program)
                program.prefetch(head)
                program.prefetch(tail)
                return head.count + (try read(subviews: subviews, of: program)) + tail.count
            case .parametrized(let component, let made, let subviews):
                note(made, of: program)
                let bytes: [UInt8]
                switch program.parametrized[Int(component)] {
                case .template(let template): bytes = try template.filled(with: parameters, strings: strings) { answerPath }
                case .component(let component): bytes = try filledIn(component).encodedJSON()
                }
                let hole = subviews.isEmpty ? nil : bytes.onlyRange(of: Builder.standInSubviews)
                filled.append(Filled(bytes: bytes, hole: hole))
                guard let hole else { return bytes.count }
                return bytes.count - hole.count + (try read(subviews: subviews, of: program))
            case .rule(let point, let named, let then, let otherwise):
                for reference in program.rollouts[named.range] where !rollouts.contains(where: { $0.key == reference.key }) {
                    rollouts.append((reference.key, outcomes[Int(reference.outcome)] != 0))
                }
                let shown = program.branch(ofRule: point, then: then, otherwise: otherwise, outcomes: outcomes)
                guard shown != Program.none else { return nil }
                return try read(node: Int(shown), of: program)
            case .experiment(let point, let key, let variants):
                guard let variant = program.variant(shownBy: point, among: variants, outcomes: outcomes) else { return nil }
                if !experiments.contains(where: { $0.key == key }) { experiments.append((key, variant.name)) }
                guard variant.node != Program.none else { return nil }
                return try read(node: Int(variant.node), of: program)
            }
        }

        private mutating func note(_ made: Program.Span, of program: Program) {
            if !made.isEmpty { replaced += program.replacements[made.range] }
        }

        /// The byte count of `,"subviews":[…]` with the subviews shown, 0 when none is; every
        /// subview is read, for what the ones that show nothing assign.
        private mutating func read(subviews: Program.Span, of program: Program) throws(ParameterError) -> Int {
            var shown = 0
            var count = 0
            // The path is kept only where a parameter's error may need it.
            let pathNeeded = !program.parametrized.isEmpty
            for child in program.children[subviews.range] {
                if pathNeeded { indices.append(shown) }
                defer { if pathNeeded { indices.removeLast() } }
                guard let childCount = try read(node: Int(child), of: program) else { continue }
                count += childCount
                shown += 1
            }
            // The opening, the children, a comma between each two, the closing bracket.
            return shown == 0 ? 0 : Writer.subviewsOpening.count + count + shown
        }

        /// `component` with the parameters put in. Its path in the answer is made only for an
        /// error: a substitution that fails runs again with it.
        private func filledIn(_ component: ResolvedComponent) throws(ParameterError) -> ResolvedComponent {
            do {
                return try component.substitutingMembers(parameters, strings: strings, registry: registry, at: .root)
            } catch {
                return try component.substitutingMembers(parameters, strings: strings, registry: registry, at: answerPath)
            }
        }

        /// The path in the answer of the component being read.
        private var answerPath: JSONPath {
            var path = JSONPath.root.appending("root")
            for index in indices { path = path.appending("subviews").appending(index) }
            return path
        }
    }

    /// The second pass: the bytes of the nodes the outcomes reach, into a buffer of the size the
    /// first pass counted (``Choices``), which it does not outgrow.
    struct Writer {
        private let buffer: UnsafeMutableBufferPointer<UInt8>
        private let outcomes: [UInt8]
        private let filled: [Choices.Filled]
        private var nextFilled = 0
        /// The bytes written.
        private(set) var count = 0

        init(into buffer: UnsafeMutableBufferPointer<UInt8>, outcomes: [UInt8], filled: [Choices.Filled]) {
            self.buffer = buffer
            self.outcomes = outcomes
            self.filled = filled
        }

        mutating func append(_ bytes: ArraySlice<UInt8>) {
            bytes.withUnsafeBufferPointer { append($0) }
        }

        private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            precondition(bytes.count <= buffer.count - count, "an encoding plan wrote more than it counted")
            guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
            (target + count).initialize(from: source, count: bytes.count)
            count += bytes.count
        }

        /// Writes `{"experiments":{…},"rollouts":{…}` with what `choices` assigned (nothing, for an
        /// answer without a program).
        mutating func append(assignmentsOf choices: Choices, in program: Program?) {
            guard let program else {
                append(ScreenEncodingPlan.experimentsOpening[...])
                return append(ScreenEncodingPlan.rolloutsOpening[...])
            }
            program.text.withUnsafeBufferPointer { text in
                append(ScreenEncodingPlan.experimentsOpening[...])
                for (index, experiment) in choices.experiments.enumerated() {
                    if index > 0 { append(Self.comma[...]) }
                    append(UnsafeBufferPointer(rebasing: text[program.quoted[Int(experiment.key)].range]))
                    append(Self.colon[...])
                    append(UnsafeBufferPointer(rebasing: text[program.quoted[Int(experiment.variant)].range]))
                }
                append(ScreenEncodingPlan.rolloutsOpening[...])
                for (index, rollout) in choices.rollouts.enumerated() {
                    if index > 0 { append(Self.comma[...]) }
                    append(UnsafeBufferPointer(rebasing: text[program.quoted[Int(rollout.key)].range]))
                    append((rollout.assigned ? ScreenEncodingPlan.colonTrue : ScreenEncodingPlan.colonFalse)[...])
                }
            }
        }

        /// The bytes of `revision` as `JSONWriter` writes the number.
        static func count(revision: Int) -> Int {
            withDigits(of: revision) { $0.count }
        }

        mutating func append(revision: Int) {
            Self.withDigits(of: revision) { append($0) }
        }

        private static func withDigits<Result>(of revision: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
            // Every revision is an integer a Double holds exactly, which JSONWriter writes in
            // decimal; one that is not takes JSONWriter's own way.
            guard abs(revision) <= JSONWriter.largestExactInteger else {
                var bytes: [UInt8] = []
                JSONWriter.append(number: Double(revision), to: &bytes)
                return bytes.withUnsafeBufferPointer(body)
            }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONWriter.maxIntegerLength) { digits in
                body(UnsafeBufferPointer(rebasing: digits[..<JSONWriter.write(integer: Int64(revision), into: digits, at: 0)]))
            }
        }

        /// Writes the program's root, which shows (``Choices/read(_:)`` counted it).
        mutating func write(_ program: Program) {
            program.text.withUnsafeBufferPointer { text in write(node: 0, of: program, text: text) }
        }

        private mutating func write(node index: Int, of program: Program, text: UnsafeBufferPointer<UInt8>) {
            switch program.nodes[index] {
            case .text(let span, _):
                append(UnsafeBufferPointer(rebasing: text[span.range]))
            case .nothing:
                break
            case .component(let head, let tail, _, let subviews):
                append(UnsafeBufferPointer(rebasing: text[head.range]))
                write(subviews: subviews, of: program, text: text)
                append(UnsafeBufferPointer(rebasing: text[tail.range]))
            case .parametrized(_, _, let subviews):
                let component = filled[nextFilled]
                nextFilled += 1
                guard let hole = component.hole else { return append(component.bytes[...]) }
                append(component.bytes[..<hole.lowerBound])
                write(subviews: subviews, of: program, text: text)
                append(component.bytes[hole.upperBound...])
            case .rule(let point, _, let then, let otherwise):
                let shown = program.branch(ofRule: point, then: then, otherwise: otherwise, outcomes: outcomes)
                if shown != Program.none { write(node: Int(shown), of: program, text: text) }
            case .experiment(let point, _, let variants):
                guard let shown = program.variant(shownBy: point, among: variants, outcomes: outcomes)?.node, shown != Program.none else { return }
                write(node: Int(shown), of: program, text: text)
            }
        }

        /// `,"subviews":[…]` with the subviews shown, or nothing when none is.
        private mutating func write(subviews: Program.Span, of program: Program, text: UnsafeBufferPointer<UInt8>) {
            var shown = 0
            for child in program.children[subviews.range] where Self.shows(Int(child), of: program, outcomes: outcomes) {
                append(shown == 0 ? Self.subviewsOpening[...] : Self.comma[...])
                write(node: Int(child), of: program, text: text)
                shown += 1
            }
            if shown > 0 { append(Self.closingBracket[...]) }
        }

        /// Whether node `index` shows anything for `outcomes`: past its Rules and Experiments,
        /// whether they lead to a component.
        static func shows(_ index: Int, of program: Program, outcomes: [UInt8]) -> Bool {
            var index = index
            while true {
                switch program.nodes[index] {
                case .text, .component, .parametrized:
                    return true
                case .nothing:
                    return false
                case .rule(let point, _, let then, let otherwise):
                    let shown = program.branch(ofRule: point, then: then, otherwise: otherwise, outcomes: outcomes)
                    guard shown != Program.none else { return false }
                    index = Int(shown)
                case .experiment(let point, _, let variants):
                    guard let shown = program.variant(shownBy: point, among: variants, outcomes: outcomes)?.node, shown != Program.none else { return false }
                    index = Int(shown)
                }
            }
        }

        static let comma = [UInt8(ascii: ",")]
        static let colon = [UInt8(ascii: ":")]
        static let closingBracket = [UInt8(ascii: "]")]
        static let subviewsOpening = Array(",\"subviews\":[".utf8)
    }
}

extension ScreenEncodingPlan {
    /// The parts of a screen laid flat: one array of nodes without references, every byte in one
    /// buffer, every string, child list and replacement in arrays of their own, indexed by 32-bit
    /// offsets. A miss of a screen nobody asked for lately reads a few contiguous arrays rather
    /// than chasing a box per part through memory the caches lost long ago (over a catalogue of
    /// thousands, a miss would spend most of its time waiting for such loads), and a plan is a
    /// handful of allocations.
    struct Program: Sendable {
        /// A range of one of the arrays, as two 32-bit offsets.
        struct Span: Sendable {
            let start: UInt32
            let end: UInt32
            init(_ range: Range<Int>) {
                start = UInt32(range.lowerBound)
                end = UInt32(range.upperBound)
            }
            var range: Range<Int> { Int(start)..<Int(end) }
            var isEmpty: Bool { start == end }
            var count: Int { Int(end - start) }
        }

        enum Node: Sendable {
            /// ``Part/fixed(_:replaced:)`` with bytes.
            case text(Span, replaced: Span)
            /// ``Part/fixed(_:replaced:)`` that resolves to nothing.
            case nothing(replaced: Span)
            /// ``Part/component(head:tail:replaced:subviews:)``; `subviews` spans ``children``.
            case component(head: Span, tail: Span, replaced: Span, subviews: Span)
            /// ``Part/rule(point:rollouts:then:otherwise:)``; `otherwise` is ``Program/none`` when absent.
            case rule(point: UInt32, rollouts: Span, then: UInt32, otherwise: UInt32)
            /// ``Part/experiment(point:key:variants:)``: `key` indexes ``quoted``, `variants` spans ``variants``.
            case experiment(point: UInt32, key: UInt32, variants: Span)
            /// ``Part/parametrized(_:replaced:subviews:)``: `component` indexes ``parametrized``.
            case parametrized(component: UInt32, replaced: Span, subviews: Span)
        }

        /// No node (a Rule without `else`, a variant that shows nothing).
        static let none = UInt32.max

        /// Asks for every node, child list, assignment and name of the program without waiting for
        /// them: the passes walk them in their arrays' order, and a screen nobody asked lately
        /// has them cold.
        func prefetchNodes() {
            nodes.withUnsafeBytes { Prefetch.bytes($0.baseAddress, count: $0.count) }
            children.withUnsafeBytes { Prefetch.bytes($0.baseAddress, count: $0.count) }
            rollouts.withUnsafeBytes { Prefetch.bytes($0.baseAddress, count: $0.count) }
            variants.withUnsafeBytes { Prefetch.bytes($0.baseAddress, count: $0.count) }
            quoted.withUnsafeBytes { Prefetch.bytes($0.baseAddress, count: $0.count) }
        }

        /// Asks for the bytes of `span` of ``text`` without waiting for them: the first pass over
        /// an answer's nodes (``Choices``) asks for the text the second (``Writer``) copies. The
        /// text of a screen nobody asked for lately is cold, and copied span by span, small copies
        /// with branches between them, it would come from memory a line at a time.
        func prefetch(_ span: Span) {
            text.withUnsafeBufferPointer { text in
                guard let base = text.baseAddress, !span.isEmpty else { return }
                Prefetch.bytes(base + Int(span.start), count: span.count)
            }
        }

        /// The node a Rule at decision `point` shows for `outcomes`: `then` or `otherwise`
        /// (``none`` when it has no `else`).
        func branch(ofRule point: UInt32, then: UInt32, otherwise: UInt32, outcomes: [UInt8]) -> UInt32 {
            outcomes[Int(point)] != 0 ? then : otherwise
        }

        /// The variant an Experiment at decision `point` assigns for `outcomes`, nil when it
        /// assigns none (an unknown experiment, or an outcome past its variants).
        func variant(shownBy point: UInt32, among variants: Span, outcomes: [UInt8]) -> (name: UInt32, node: UInt32)? {
            let outcome = outcomes[Int(point)]
            guard outcome != Outcomes.none, Int(outcome) < variants.count else { return nil }
            return self.variants[Int(variants.start) + Int(outcome)]
        }

        /// The root first, then every node in the order the builder's tree lists them.
        private(set) var nodes: [Node] = []
        private(set) var text: [UInt8] = []
        private(set) var children: [UInt32] = []
        private(set) var rollouts: [(key: UInt32, outcome: UInt32)] = []
        private(set) var variants: [(name: UInt32, node: UInt32)] = []
        /// The names of experiments, rollouts and variants, each once (equal names have one
        /// index), as JSON strings in ``text``, quotes and escapes written: what an answer's
        /// assignments are made of.
        private(set) var quoted: [Span] = []
        /// How many Experiments the program has: the most experiments an answer assigns.
        private(set) var experimentCount = 0
        private(set) var replacements: [ResolvedScreen.Replacement] = []
        private(set) var parametrized: [Parametrized] = []

        /// A component that takes parameters: its template, or, when it has none, the component
        /// itself, which a miss substitutes into and encodes.
        enum Parametrized: Sendable {
            case template(ParameterTemplate)
            case component(ResolvedComponent)
        }

        /// - Parameter registry: the vocabulary the components were resolved with, which says where
        ///   parameters stand.
        init(_ root: Part, registry: ComponentRegistry) {
            var laying = Laying(registry: registry)
            _ = add(root, &laying)
            // The builder's growth room (up to half of each array) is not kept for the plan's life.
            nodes = nodes.exactlySized()
            text = text.exactlySized()
            children = children.exactlySized()
            rollouts = rollouts.exactlySized()
            variants = variants.exactlySized()
            quoted = quoted.exactlySized()
            replacements = replacements.exactlySized()
            parametrized = parametrized.exactlySized()
        }

        /// What laying a program flat needs and the program does not keep.
        private struct Laying {
            let registry: ComponentRegistry
            /// The index of each name in ``quoted``.
            var names: [String: UInt32] = [:]
        }

        /// Lays `part` flat and returns its node's index.
        private mutating func add(_ part: Part, _ laying: inout Laying) -> UInt32 {
            let index = nodes.count
            nodes.append(.nothing(replaced: Span(0..<0)))  // its place, filled in once its children have theirs
            nodes[index] = node(part, &laying)
            return UInt32(index)
        }

        private mutating func node(_ part: Part, _ laying: inout Laying) -> Node {
            switch part {
            case .fixed(let bytes, let made):
                let replaced = keep(made)
                guard let bytes else { return .nothing(replaced: replaced) }
                return .text(keep(bytes), replaced: replaced)
            case .component(let head, let tail, let made, let subviews):
                return .component(head: keep(head), tail: keep(tail), replaced: keep(made), subviews: list(subviews, &laying))
            case .parametrized(let component, let made, let subviews):
                let template = ParameterTemplate.make(component, registry: laying.registry)
                parametrized.append(template.map(Parametrized.template) ?? .component(component))
                return .parametrized(component: UInt32(parametrized.count - 1), replaced: keep(made), subviews: list(subviews, &laying))
            case .rule(let point, let named, let then, let otherwise):
                let start = rollouts.count
                for (key, outcome) in named { rollouts.append((name(key, &laying), UInt32(outcome))) }
                let span = Span(start..<rollouts.count)
                let shown = add(then, &laying)
                return .rule(point: UInt32(point), rollouts: span, then: shown, otherwise: otherwise.map { add($0, &laying) } ?? Self.none)
            case .experiment(let point, let key, let shown):
                experimentCount += 1
                let key = name(key, &laying)
                var laid: [(name: UInt32, node: UInt32)] = []
                for variant in shown { laid.append((name(variant.name, &laying), variant.part.map { add($0, &laying) } ?? Self.none)) }
                let start = variants.count
                variants += laid
                return .experiment(point: UInt32(point), key: key, variants: Span(start..<variants.count))
            }
        }

        /// The children of one node, contiguous in ``children`` (laid out after their own subtrees).
        private mutating func list(_ subviews: [Part], _ laying: inout Laying) -> Span {
            var laid: [UInt32] = []
            for subview in subviews { laid.append(add(subview, &laying)) }
            let start = children.count
            children += laid
            return Span(start..<children.count)
        }

        private mutating func keep(_ bytes: [UInt8]) -> Span {
            let start = text.count
            text += bytes
            return Span(start..<text.count)
        }

        private mutating func keep(_ made: [ResolvedScreen.Replacement]) -> Span {
            let start = replacements.count
            replacements += made
            return Span(start..<replacements.count)
        }

        /// The index of `value` in ``quoted``, written there the first time.
        private mutating func name(_ value: String, _ laying: inout Laying) -> UInt32 {
            if let index = laying.names[value] { return index }
            var encoded: [UInt8] = []
            JSONWriter.append(string: value, to: &encoded)
            quoted.append(keep(encoded))
            laying.names[value] = UInt32(quoted.count - 1)
            return UInt32(quoted.count - 1)
        }
    }
}
