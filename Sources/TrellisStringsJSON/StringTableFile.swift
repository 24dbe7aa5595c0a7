import TrellisJSON
import TrellisStrings

/// A locale's string table as a file (`Config/strings/de-AT.json`) or an admin document: an object
/// of keys to ICU messages, nested objects read as dotted keys, so both of these are `cart.items`:
///
///     {"cart.items": "{count, plural, one {# item} other {# items}}"}
///     {"cart": {"items": "{count, plural, one {# item} other {# items}}"}}
///
/// This lives beside the engine, not in it, because TrellisStrings imports nothing and JSON is read
/// by TrellisJSON, whose errors carry paths and lines.
public enum StringTableFile {

    /// The table in `bytes`; every mistake with its JSON path and line, and for a message that does
    /// not parse, the line and column inside the message.
    public static func decode(_ bytes: [UInt8], source: String) -> Result<[String: Message], DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in
            guard let members = document.objectValue else {
                collector.report("a string table is an object of keys to messages", at: .root, document)
                return nil
            }
            var table: [String: Message] = [:]
            read(members, prefix: "", at: .root, into: &table, collector)
            return table
        }
    }

    /// Whether `tag` names a locale a table may be for: a language of 2–3 letters, then optionally
    /// a script of 4 letters and a region of 2 letters or 3 digits (`de`, `de-AT`, `zh-Hant-TW`,
    /// `es-419`), as BCP 47 writes them.
    public static func isLocaleTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLowercase }) else { return false }
        var rest = parts.dropFirst()
        if let script = rest.first, script.count == 4, script.first!.isUppercase, script.allSatisfy({ $0.isASCII && $0.isLetter }) { rest = rest.dropFirst() }
        if let region = rest.first,
            (region.count == 2 && region.allSatisfy({ $0.isASCII && $0.isUppercase })) || (region.count == 3 && region.allSatisfy({ $0.isASCII && $0.isNumber }))
        {
            rest = rest.dropFirst()
        }
        return rest.isEmpty
    }

    private static func read(_ members: [JSONMember], prefix: String, at path: JSONPath, into table: inout [String: Message], _ collector: DiagnosticsCollector) {
        for member in members {
            let memberPath = path.appending(member.key)
            let key = prefix + member.key
            if let problem = keyProblem(member.key, whole: key) {
                collector.report(problem, at: memberPath, member.keyLocation)
                continue
            }
            if let nested = member.value.objectValue {
                read(nested, prefix: key + ".", at: memberPath, into: &table, collector)
                continue
            }
            guard let text = member.value.stringValue else {
                collector.report("a message is a string (an ICU message), or an object of more keys", at: memberPath, member.value)
                continue
            }
            if table[key] != nil {
                collector.report("\"\(key)\" is in the table twice (once nested, once dotted)", at: memberPath, member.value)
                continue
            }
            do {
                table[key] = try Message(text)
            } catch {
                collector.report("the message does not parse at line \(error.line), column \(error.column) of the message: \(error.reason)", at: memberPath, member.value)
            }
        }
    }

    private static func keyProblem(_ part: String, whole: String) -> String? {
        if whole.utf8.count > StringKey.maximumLength { return "a key is at most \(StringKey.maximumLength) bytes, dots included" }
        return StringKey.problem(part)
    }
}
