import TrellisJSON
import TrellisLayout
import TrellisLayoutJSON

/// Checks a component's raw `style` object with the layout engine's own Yoga style-name parser,
/// so a screen whose style the layout could not apply is refused at load time, not at request time.
enum LayoutStyleCheck {
    /// The members of `value` when it is an object whose every member is a valid Yoga style
    /// property; otherwise reports each problem at its path (and line) and returns nil.
    static func members(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> [JSONMember]? {
        guard let members = value.objectValue else {
            collector.report("expected an object of Yoga style names, e.g. {\"flexDirection\": \"row\"}, found \(value.typeName)", at: path, value)
            return nil
        }
        var style = Style()
        let valid = LayoutTree.apply(members, to: &style, at: path, collector)
        return valid ? members : nil
    }
}
