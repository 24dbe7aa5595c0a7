import TrellisJSON
import TrellisLayout

/// Checks a component's raw `style` object with the layout engine's own Yoga style-name parser,
/// so a screen whose style the layout could not apply is refused at load time, not at request time.
enum LayoutStyleCheck {
    /// The members of `value` when it is an object whose every member is a valid Yoga style
    /// property; otherwise reports each problem at its path (and line) and returns nil.
    static func members(_ value: TrellisJSON.JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> [JSONMember]? {
        guard let members = value.objectValue else {
            collector.report("expected an object of Yoga style names, e.g. {\"flexDirection\": \"row\"}, found \(value.typeName)", at: path, value)
            return nil
        }
        var valid = true
        var style = Style()
        for member in members {
            let memberPath = path.appending(member.key)
            let styleValue: StyleValue
            if let number = member.value.numberValue {
                styleValue = .number(Float(number))
            } else if let string = member.value.stringValue {
                styleValue = .string(string)
            } else {
                collector.report("\(member.key): expected a number or a string, found \(member.value.typeName)", at: memberPath, member.value)
                valid = false
                continue
            }
            do throws(StyleParseError) {
                try style.set(member.key, styleValue)
            } catch {
                collector.report(error.description, at: memberPath, member.value)
                valid = false
            }
        }
        return valid ? members : nil
    }
}
