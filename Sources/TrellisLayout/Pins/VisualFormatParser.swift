/// A recursive-descent parser for the grammar in ``VisualFormat``'s documentation: one function per
/// production, each reading from a ``VisualFormatScanner`` and failing at the first wrong character.
struct VisualFormatParser {
    private var scanner: VisualFormatScanner
    private let metrics: [String: Double]
    /// Every view name met so far, in order: chain views and views named in predicates.
    private(set) var viewReferences: [PinViewReference] = []
    private var viewCount = 0

    init(_ text: String, metrics: [String: Double]) throws(VisualFormatError) {
        scanner = try VisualFormatScanner(text)
        self.metrics = metrics
    }

    /// `pinString = [ orientation ":" ] [ startEdge connection ] view { connection view } [ connection endEdge ]`
    mutating func parseChain() throws(VisualFormatError) -> PinChain {
        let axis = try parseOrientation()
        var items: [ChainItem] = []
        var connections: [ChainConnection] = []
        if let edge = parseStartEdge() {
            items.append(edge)
            let connection = try parseConnection()
            connections.append(connection)
            items.append(try parseView(expecting: Self.itemExpectation(after: connection, edgeAllowed: false)))
        } else {
            items.append(try parseView(expecting: Self.oneOf(["\"|\"", "\"|>\"", "\"[\""]) + " at the start"))
        }
        while !scanner.isAtEnd {
            let connection = try parseConnection()
            connections.append(connection)
            if let edge = parseEndEdge() {
                items.append(edge)
                try expectEnd(after: edge)
                break
            }
            items.append(try parseView(expecting: Self.itemExpectation(after: connection, edgeAllowed: true)))
        }
        return PinChain(axis: axis, items: items, connections: connections)
    }

    /// `orientation = "H" | "V"`, followed by `:`; horizontal when the string starts otherwise.
    private mutating func parseOrientation() throws(VisualFormatError) -> PinAxis {
        // A letter can only start an orientation here: views start with "[", edges with "|".
        let column = scanner.column
        guard let word = try scanner.name() else { return .horizontal }
        guard scanner.skip(":") else {
            if word == "H" || word == "V" { throw scanner.expected("\":\" after the orientation") }
            throw scanner.error(
                "expected \"H:\", \"V:\", \"|\" or \"[\" at the start (a view is written [\(word)])", at: column)
        }
        switch word {
        case "H": return .horizontal
        case "V": return .vertical
        default: throw scanner.error("unknown orientation \"\(word)\"; use H or V", at: column)
        }
    }

    /// `startEdge = "|" | "|>"`
    private mutating func parseStartEdge() -> ChainItem? {
        let column = scanner.column
        guard scanner.skip("|") else { return nil }
        return .edge(scanner.skip(">") ? .safeArea : .container, column: column)
    }

    /// `endEdge = "|" | "<|"`
    private mutating func parseEndEdge() -> ChainItem? {
        let column = scanner.column
        if scanner.skip("|") { return .edge(.container, column: column) }
        guard scanner.isNext("<"), scanner.peek(1) == UInt8(ascii: "|") else { return nil }
        scanner.advance(by: 2)
        return .edge(.safeArea, column: column)
    }

    /// Nothing may follow the end edge.
    private func expectEnd(after edge: ChainItem) throws(VisualFormatError) {
        guard !scanner.isAtEnd else { return }
        if case .edge(.container, _) = edge, scanner.isNext(">") {
            throw scanner.expected("the end after \"|\" (the safe area's end edge is written \"<|\")")
        }
        throw scanner.expected("the end of the pin string after the end edge")
    }

    /// `view = "[" name [ "(" sizePredicate { "," sizePredicate } ")" ] "]"`
    private mutating func parseView(expecting expectation: String) throws(VisualFormatError) -> ChainItem {
        let column = scanner.column
        guard scanner.skip("[") else { throw scanner.expected(expectation) }
        viewCount += 1
        if viewCount > VisualFormat.Limits.maximumViews {
            throw scanner.error("a pin string may name at most \(VisualFormat.Limits.maximumViews) views", at: column)
        }
        let nameColumn = scanner.column
        guard let name = try scanner.name() else { throw scanner.expected("a view name") }
        viewReferences.append(PinViewReference(name: name, column: nameColumn))
        var predicates: [WrittenPredicate<SizeObject>] = []
        if scanner.isNext("(") {
            predicates = try parsePredicateList { parser throws(VisualFormatError) in try parser.parseSizeObject() }
            guard scanner.skip("]") else { throw scanner.expected("\"]\" after the predicates") }
        } else if !scanner.skip("]") {
            throw unclosedViewName()
        }
        return .view(name: name, column: column, predicates: predicates)
    }

    /// Trellis ids may contain "-" and ".", which the grammar gives other meanings: say so.
    private func unclosedViewName() -> VisualFormatError {
        if scanner.isNext("-") || scanner.isNext(".") {
            return scanner.expected(
                "\"]\" after the view name (a view named in a pin string may use only A-Z, a-z, 0-9 and \"_\")")
        }
        return scanner.expected("\"]\" after the view name")
    }

    /// `connection = "" | "-" | "-" gap "-"`;  `gap = positiveNumber | metricName | "(" gapPredicate { "," gapPredicate } ")"`
    private mutating func parseConnection() throws(VisualFormatError) -> ChainConnection {
        let column = scanner.column
        guard scanner.skip("-") else { return .flush(column: column) }
        let gap: [WrittenPredicate<Double>]
        if scanner.isNext("(") {
            gap = try parsePredicateList { parser throws(VisualFormatError) in try parser.parseConstant() }
            guard scanner.skip("-") else { throw scanner.expected("\"-\" after \")\"") }
        } else if scanner.isAtDigit || scanner.isAtNameStart {
            gap = [try parseSimpleGap()]
        } else {
            return .standard(column: column)
        }
        return .gap(gap)
    }

    /// `positiveNumber | metricName` between two dashes, as in `-8-`: Apple allows no relation or
    /// priority without parentheses.
    private mutating func parseSimpleGap() throws(VisualFormatError) -> WrittenPredicate<Double> {
        let column = scanner.column
        let value = try parseUnsignedConstant()
        guard scanner.skip("-") else {
            if scanner.isNext("@") || scanner.isNext("^") {
                throw scanner.expected("\"-\" after the gap (a priority needs parentheses, as in -(8@750)-)")
            }
            throw scanner.expected("\"-\" after the gap")
        }
        return WrittenPredicate(relation: .single(.equal), object: value, priority: nil, column: column)
    }

    /// What may follow a connection, for the error when something else does.
    private static func itemExpectation(after connection: ChainConnection, edgeAllowed: Bool) -> String {
        let edges = edgeAllowed ? ["\"|\"", "\"<|\""] : []
        switch connection {
        case .flush: return oneOf(["\"-\"", "\"[\""] + edges)
        case .standard: return oneOf(["a number", "a metric name", "\"(\"", "\"[\""] + edges) + " after \"-\""
        case .gap: return oneOf(["\"[\""] + edges) + " after the gap"
        }
    }

    /// `a`, `a or b`, `a, b or c`.
    private static func oneOf(_ choices: [String]) -> String {
        guard let last = choices.last, choices.count > 1 else { return choices.first ?? "" }
        return choices.dropLast().joined(separator: ", ") + " or " + last
    }
}

// MARK: - Predicates

extension VisualFormatParser {
    /// `"(" predicate { "," predicate } ")"`, the scanner being at the `(`.
    fileprivate mutating func parsePredicateList<Object: Sendable>(
        _ parseObject: (inout VisualFormatParser) throws(VisualFormatError) -> Object
    ) throws(VisualFormatError) -> [WrittenPredicate<Object>] {
        scanner.advance()
        var predicates: [WrittenPredicate<Object>] = []
        repeat {
            if predicates.count == VisualFormat.Limits.maximumPredicates {
                throw scanner.error(
                    "a list may have at most \(VisualFormat.Limits.maximumPredicates) predicates", at: scanner.column)
            }
            predicates.append(try parsePredicate(parseObject))
        } while scanner.skip(",")
        guard scanner.skip(")") else { throw scanner.expected("\",\" or \")\"") }
        return predicates
    }

    /// `predicate = [ relation ] object [ priority ]`
    private mutating func parsePredicate<Object: Sendable>(
        _ parseObject: (inout VisualFormatParser) throws(VisualFormatError) -> Object
    ) throws(VisualFormatError) -> WrittenPredicate<Object> {
        let column = scanner.column
        let relation = try parseRelation()
        let object = try parseObject(&self)
        let priority = try parsePriority()
        return WrittenPredicate(relation: relation, object: object, priority: priority, column: column)
    }

    /// `relation = "==" | ">=" | "<=" | ">=="`, `==` when none is written.
    private mutating func parseRelation() throws(VisualFormatError) -> WrittenRelation {
        let relation: WrittenRelation
        let symbol: String
        switch scanner.current {
        case UInt8(ascii: "="): (relation, symbol) = (.single(.equal), "=")
        case UInt8(ascii: "<"): (relation, symbol) = (.single(.lessThanOrEqual), "<")
        case UInt8(ascii: ">"): (relation, symbol) = (.single(.greaterThanOrEqual), ">")
        default: return .single(.equal)
        }
        scanner.advance()
        guard scanner.skip("=") else {
            throw scanner.expected("\"=\" after \"\(symbol)\" (relations are ==, <=, >= and >==)")
        }
        if relation == .single(.greaterThanOrEqual), scanner.skip("=") { return .doublePin }
        return relation
    }

    /// `priority = ( "@" | "^" ) ( number | metricName )`, within Auto Layout's 1…1000.
    private mutating func parsePriority() throws(VisualFormatError) -> Double? {
        guard scanner.skip("@") || scanner.skip("^") else { return nil }
        let column = scanner.column
        let priority = try parseConstant()
        guard VisualFormat.Limits.priorities.contains(priority) else {
            let written = scanner.text(from: column, to: scanner.column)
            throw scanner.error("priority \(written) is out of range 1…1000", at: column)
        }
        return priority
    }

    /// `constant = number | metricName`
    fileprivate mutating func parseConstant() throws(VisualFormatError) -> Double {
        if let number = try scanner.signedNumber() { return number }
        guard scanner.isAtNameStart else { throw scanner.expected("a number or metric name") }
        return try parseMetric()
    }

    /// `positiveNumber | metricName`; the scanner is at a digit or a name's first letter.
    private mutating func parseUnsignedConstant() throws(VisualFormatError) -> Double {
        if let number = try scanner.unsignedNumber() { return number }
        return try parseMetric()
    }

    /// A metric name, looked up; the scanner is at a name's first letter.
    private mutating func parseMetric() throws(VisualFormatError) -> Double {
        let column = scanner.column
        return try metric(named: scanner.name() ?? "", at: column)
    }

    private func metric(named name: String, at column: Int) throws(VisualFormatError) -> Double {
        guard let value = metrics[name] else { throw scanner.error("unknown metric \"\(name)\"", at: column) }
        guard value.isFinite else { throw scanner.error("metric \"\(name)\" is not a finite number", at: column) }
        return value
    }

    /// `constant | viewSize`: a bare name in `metrics` is a constant (Apple's rule), any other
    /// name a view; `.attribute` or `*multiplier` after a name always make it a view.
    fileprivate mutating func parseSizeObject() throws(VisualFormatError) -> SizeObject {
        if let number = try scanner.signedNumber() { return .constant(number) }
        guard scanner.isAtNameStart else { throw scanner.expected("a number, metric name or view name") }
        let column = scanner.column
        let name = try scanner.name() ?? ""
        let isQualified = scanner.isNext(".") || scanner.isNext("*")
        if !isQualified, metrics[name] != nil { return .constant(try metric(named: name, at: column)) }
        viewReferences.append(PinViewReference(name: name, column: column))
        let attribute = try parseSizeAttribute()
        let multiplier = try parseMultiplier()
        return .view(name: name, attribute: attribute, multiplier: multiplier)
    }

    /// `"." ( "width" | "height" )`: the Trellis extension naming the other view's attribute.
    private mutating func parseSizeAttribute() throws(VisualFormatError) -> PinAttribute? {
        guard scanner.skip(".") else { return nil }
        let column = scanner.column
        switch try scanner.name() {
        case "width": return .width
        case "height": return .height
        default: throw scanner.error("expected \"width\" or \"height\" after \".\"", at: column)
        }
    }

    /// `"*" ( positiveNumber | metricName )`, greater than 0.
    private mutating func parseMultiplier() throws(VisualFormatError) -> Double {
        guard scanner.skip("*") else { return 1 }
        let column = scanner.column
        guard scanner.isAtDigit || scanner.isAtNameStart else { throw scanner.expected("a number or metric name after \"*\"") }
        let multiplier = try parseUnsignedConstant()
        guard multiplier > 0 else { throw scanner.error("a multiplier must be greater than 0", at: column) }
        return multiplier
    }
}
