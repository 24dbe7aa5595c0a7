extension ComponentRegistry {
    /// The words every screen document is written in — its keys, component types, property and
    /// value names, action kinds and enumerated choices — spelled as authors write them (`"type": `
    /// then a kind's name, quoted), for zlib's preset dictionary: a document of a few kilobytes,
    /// deflated on its own, spells each word out once before it can refer back to it; given these,
    /// it refers to them from its first line. Nothing of any one catalogue: the same for every catalogue on
    /// the same registry. The most common words come last, the nearest to every document.
    public var documentVocabulary: [UInt8] {
        var words: [String] = []
        func key(_ name: String) { words.append("\"\(name)\": ") }
        func string(_ name: String) { words.append("\"\(name)\"") }
        for type in types.values.sorted(by: { $0.name < $1.name }) {
            for name in (type.properties.keys.sorted() + type.values.keys.sorted()) { key(name) }
            for case .oneOf(let choices) in type.properties.values.map(\.type) + type.values.values.map(\.type) {
                choices.forEach(string)
            }
        }
        for kind in ActionKind.all.values.sorted(by: { $0.name < $1.name }) {
            words.append("\"action\": {\"type\": \"\(kind.name)\", ")
            for name in kind.fields.keys.sorted() { key(name) }
        }
        ActionKind.presentations.forEach(string)
        for type in types.keys.sorted() { words.append("{\"type\": \"\(type)\", \"id\": \"") }
        for name in ["$schema", "schemaVersion", "title", "root", "metadata", "template", "args", "rule", "child", "else", "experiment", "variants"] {
            key(name)
        }
        words += ["\"style\": {", "\"fallback\": {", "\"values\": {", "\"properties\": {", "\"subviews\": ["]
        // Each word once (a key many types share), where it first comes.
        var seen: Set<String> = []
        return Array(words.filter { seen.insert($0).inserted }.joined().utf8)
    }
}
