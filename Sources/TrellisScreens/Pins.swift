import TrellisJSON
import TrellisLayout

/// A Pins container's placement of its subviews, as authored and as parsed: the visual format
/// strings (`pins`, each a string or `{"pin": …, "alignAll": …}`), the `align` entries and the
/// `metrics` they name.
public struct PinSpec: Sendable {
    public var pins: [JSONValue]
    public var align: [JSONMember]
    public var metrics: [JSONMember]
    /// Every constraint of the strings, then of the `align` entries, naming views by subview id.
    public var constraints: [PinConstraint]

    /// The keys a Pins component has besides a component's own.
    static let keys: Set<String> = ["pins", "align", "metrics"]

    /// The members written into the component's JSON, after `style`.
    public var members: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("pins", .array(pins))]
        if !align.isEmpty { members.append(("align", JSONValue(.object(align)))) }
        if !metrics.isEmpty { members.append(("metrics", JSONValue(.object(metrics)))) }
        return members
    }

    /// The layout of a container whose subviews are named `views`, in order.
    public func layout(views: [String]) -> PinLayout {
        PinLayout(constraints: constraints, views: views)
    }
}

/// Reads and checks a Pins component's `pins`, `align` and `metrics`: each string parsed, each
/// view it names one of the subviews, and the whole solved once to find contradictions and views
/// left ambiguous. Each problem is reported at the string (or entry) with the column of the
/// character at fault: `$.root.pins[0]: col 14: unknown view "titel"; did you mean "title"?`.
struct PinsCheck {
    let collector: DiagnosticsCollector

    /// The most pin strings and align entries one container may have: enough for any card, and a
    /// bound on the solver's work at load.
    static let maximumFormats = 64
    static let maximumViews = 64

    /// Where a constraint came from, to report a problem found by solving.
    private struct Source {
        var path: JSONPath
        var location: SourceLocation
        var column: Int
    }

    func spec(_ object: JSONObjectReader, subviews: [Node], at path: JSONPath) -> PinSpec? {
        guard let names = viewNames(subviews, at: path, object.location) else { return nil }
        let metrics = self.metrics(object, at: path.appending("metrics"))
        var constraints: [PinConstraint] = []
        var sources: [Source] = []
        var valid = metrics != nil
        let list = object.array("pins", required: true)
        if let list {
            if list.isEmpty || list.count > Self.maximumFormats {
                object.report("a Pins container needs 1 to \(Self.maximumFormats) pin strings, found \(list.count)", atMember: "pins")
                valid = false
            }
            for (index, element) in list.enumerated() {
                guard let (text, alignAll, elementPath, textValue) = pinEntry(element, at: path.appending("pins").appending(index)) else {
                    valid = false
                    continue
                }
                let element = textValue
                do throws(VisualFormatError) {
                    let format = try VisualFormat.parse(text, metrics: metrics?.values ?? [:], alignAll: alignAll)
                    valid = checkNames(format.viewReferences.map { ($0.name, $0.column) }, names, at: elementPath, element) && valid
                    constraints += format.constraints
                    sources += format.constraints.map { Source(path: elementPath, location: element.location, column: $0.column) }
                } catch {
                    collector.report("col \(error.column): \(error.message)", at: elementPath, element)
                    valid = false
                }
            }
        } else {
            valid = false
        }
        let align = object.value("align").flatMap { alignments($0, names, at: path.appending("align"), &constraints, &sources, &valid) }
        guard valid else { return nil }
        let layout = PinLayout(constraints: constraints, views: names.map(\.name))
        reportProblems(layout.problems(sizing: subviews.map(Self.sizing)), layout, sources, at: path, object)
        return PinSpec(pins: list ?? [], align: align ?? [], metrics: metrics?.members ?? [],
                       constraints: constraints)
    }

    /// One entry of `pins`: a string, or `{"pin": string, "alignAll": attribute}` to align the
    /// string's views by one attribute (Apple's and Tack's alignAll option). Returns the string,
    /// the attribute, and the path and value of the string, for errors in it.
    private func pinEntry(_ element: JSONValue, at path: JSONPath) -> (String, PinAttribute?, JSONPath, JSONValue)? {
        if let text = element.stringValue { return (text, nil, path, element) }
        guard element.objectValue != nil else {
            collector.report("expected a pin string such as \"H:|-16-[title]-16-|\", or {\"pin\": …, \"alignAll\": …}, found \(element.typeName)",
                             at: path, element)
            return nil
        }
        guard let entry = collector.object(element, at: path, allowedKeys: ["pin", "alignAll"]),
              let pin = entry.value("pin", required: true), let alignAllName = entry.string("alignAll", required: true) else { return nil }
        guard let text = pin.stringValue else {
            collector.report("expected a pin string, found \(pin.typeName)", at: path.appending("pin"), pin)
            return nil
        }
        guard let alignAll = PinAttribute(name: alignAllName) else {
            let names = PinAttribute.allCases.filter { $0 != .width && $0 != .height }.map(\.name).joined(separator: ", ")
            entry.report("unknown attribute \"\(alignAllName)\"; alignAll takes \(names)", atMember: "alignAll")
            return nil
        }
        return (text, alignAll, path.appending("pin"), pin)
    }

    /// Each subview's id, which the pins name it by: every subview must be a component with an
    /// id a pin string can spell.
    private func viewNames(_ subviews: [Node], at path: JSONPath, _ location: SourceLocation) -> [(name: String, path: JSONPath)]? {
        var names: [(name: String, path: JSONPath)] = []
        if subviews.count > Self.maximumViews {
            collector.report("a Pins container holds at most \(Self.maximumViews) subviews, found \(subviews.count)",
                             at: path.appending("subviews"), location)
            return nil
        }
        for (index, node) in subviews.enumerated() {
            let subviewPath = path.appending("subviews").appending(index)
            guard case .component(let component) = node, let id = component.id else {
                collector.report(
                    "a Pins subview must be a component with an id, which its pins name; put a Rule or Experiment inside one",
                    at: subviewPath, location)
                return nil
            }
            guard Self.isPinName(id) else {
                collector.report(
                    "id \"\(id)\" cannot be named in a pin string: a Pins subview's id is letters, digits and '_', not starting with a digit",
                    at: subviewPath.appending("id"), location)
                return nil
            }
            names.append((id, subviewPath))
        }
        return names
    }

    static func isPinName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    private func metrics(_ object: JSONObjectReader, at path: JSONPath) -> (members: [JSONMember], values: [String: Double])? {
        guard let value = object.value("metrics") else { return ([], [:]) }
        guard let members = value.objectValue else {
            collector.report("expected an object of metric name → points, such as {\"margin\": 16}, found \(value.typeName)", at: path, value)
            return nil
        }
        var values: [String: Double] = [:]
        var valid = true
        for member in members {
            guard Self.isPinName(member.key) else {
                collector.report("metric name \"\(member.key)\" must be letters, digits and '_'", at: path.appending(member.key), member.keyLocation)
                valid = false
                continue
            }
            guard let number = member.value.numberValue, number.isFinite, abs(number) <= 100_000 else {
                collector.report("expected a number of points (at most 100000), found \(member.value.typeName)", at: path.appending(member.key), member.value)
                valid = false
                continue
            }
            values[member.key] = number
        }
        return valid ? (members, values) : nil
    }

    /// Reports each view a string names that is not a subview, with the closest subview id.
    private func checkNames(_ references: [(String, Int)], _ names: [(name: String, path: JSONPath)], at path: JSONPath,
                            _ value: JSONValue) -> Bool {
        var valid = true
        for (name, column) in references where !names.contains(where: { $0.name == name }) {
            let hint = DiagnosticsCollector.closest(to: name, among: names.map(\.name)).map { "; did you mean \"\($0)\"?" }
                ?? "; the subviews are \(names.map { "\"\($0.name)\"" }.joined(separator: ", "))"
            collector.report("\(column > 0 ? "col \(column): " : "")unknown view \"\(name)\"\(hint)", at: path, value)
            valid = false
        }
        return valid
    }

    private func alignments(_ value: JSONValue, _ names: [(name: String, path: JSONPath)], at path: JSONPath,
                            _ constraints: inout [PinConstraint], _ sources: inout [Source], _ valid: inout Bool) -> [JSONMember]? {
        guard let members = value.objectValue else {
            collector.report("expected an object of view → alignment such as {\"badge\": \"centerY:title\"}, found \(value.typeName)", at: path, value)
            valid = false
            return nil
        }
        for member in members {
            let memberPath = path.appending(member.key)
            if !checkNames([(member.key, 0)], names, at: memberPath, member.value) { valid = false }
            guard let text = member.value.stringValue else {
                collector.report("expected an alignment such as \"centerY:title\", found \(member.value.typeName)", at: memberPath, member.value)
                valid = false
                continue
            }
            do throws(VisualFormatError) {
                let parsed = try PinAlignment.parse(text, view: member.key)
                valid = checkNames(parsed.views.map { ($0.name, $0.column) }, names, at: memberPath, member.value) && valid
                constraints += parsed.constraints
                sources += parsed.constraints.map { Source(path: memberPath, location: member.value.location, column: $0.column) }
            } catch {
                collector.report("col \(error.column): \(error.message)", at: memberPath, member.value)
                valid = false
            }
        }
        return members
    }

    private func reportProblems(_ problems: [PinProblem], _ layout: PinLayout, _ sources: [Source], at path: JSONPath,
                                _ object: JSONObjectReader) {
        for problem in problems {
            switch problem {
            case .unsatisfiable(let index):
                let source = sources[index]
                collector.report(
                    "col \(source.column): unsatisfiable: this required constraint contradicts the ones before it; give one of them a priority below 1000 (@750)",
                    at: source.path, source.location)
            case .mixedDirections(let index):
                let source = sources[index]
                collector.report("col \(source.column): relates a leading or trailing edge to a left or right one, which differ in right-to-left layouts",
                                 at: source.path, source.location)
            case .mixedAxes(let index):
                let source = sources[index]
                collector.report("col \(source.column): relates attributes of different kinds: positions relate to positions on the same axis, sizes to sizes",
                                 at: source.path, source.location)
            case .ambiguous(let view, let axis):
                let side = axis == .horizontal ? "horizontal position or width" : "vertical position or height"
                let pinned = axis == .horizontal ? "an \"H:\"" : "a \"V:\""
                collector.report(
                    "ambiguous layout: the pins leave \"\(view)\"'s \(side) open; pin it with \(pinned) string on both sides, or give it a size",
                    at: path.appending("pins"), object.value("pins")?.location ?? object.location)
            }
        }
    }

    /// What a subview brings to the check: whether it has content to size it on each axis, and
    /// the sizes its properties fix. The sizes are placeholders: only whether there is one matters.
    static func sizing(_ node: Node) -> PinViewSizing {
        guard case .component(let component) = node else { return PinViewSizing() }
        var sizing = PinViewSizing()
        let hasContent: Bool = switch component.kind {
        case .text, .button, .image: true
        case .rectangle, .circle, .spacer, .divider: false
        case .hStack, .vStack, .zStack, .list, .scrollView, .tabBar, .tab, .navigation, .carousel, .pins: !component.subviews.isEmpty
        }
        if hasContent {
            sizing.intrinsicWidth = 100
            sizing.intrinsicHeight = 20
        }
        func length(_ key: String) -> PinLength? {
            guard let value = component.properties.first(where: { $0.key == key })?.value else { return nil }
            if let points = value.numberValue { return .points(points) }
            guard let text = value.stringValue else { return nil }
            if text == "fill" { return .fraction(1) }
            if text.hasSuffix("%"), let percent = Double(text.dropLast()) { return .fraction(percent / 100) }
            return nil
        }
        sizing.width = PinSizeLimits(exact: length("width"), minimum: length("minWidth"), maximum: length("maxWidth"))
        sizing.height = PinSizeLimits(exact: length("height"), minimum: length("minHeight"), maximum: length("maxHeight"))
        return sizing
    }
}
