/// What a key of a string table may be: what a table file's member and a screen's `$string` are
/// both checked against, so that every key a screen can name can be written in a table.
public enum StringKey {
    /// The longest key, dots included.
    public static let maximumLength = 128

    /// Why `key` is not one, or nil: letters, digits, `_`, `-` and single dots between them.
    public static func problem(_ key: String) -> String? {
        if key.isEmpty { return "an empty key" }
        if key.utf8.count > maximumLength { return "a key is at most \(maximumLength) bytes, dots included" }
        let allowed = key.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == ".")
        }
        if !allowed || key.hasPrefix(".") || key.hasSuffix(".") || key.contains("..") {
            return "a key is letters, digits, `_`, `-` and single dots between them (\"cart.items\")"
        }
        return nil
    }
}
