import TrellisJSON
import TrellisScreens

extension DrivenUIFormat {
    /// The longest `X-Trellis-Replaced` list written whole; a longer one is sent as its count, so
    /// the header stays well inside the 8 KB a header line commonly may take through proxies.
    static let replacedListLimit = 1024

    /// The envelope a DrivenUI body has no room for, as response headers:
    ///
    /// | header | value |
    /// |---|---|
    /// | `X-Trellis-Screen` | the screen id |
    /// | `X-Trellis-Revision` | the revision served, decimal |
    /// | `X-Trellis-Schema-Version` | the schema version the body is written in, decimal |
    /// | `X-Trellis-Assignments` | compact JSON `{"experiments": {key: variant}, "rollouts": {key: bool}}` |
    /// | `X-Trellis-Replaced` | compact JSON: the `replaced` array of the resolved format, or its count (a JSON number) when that array is longer than ``replacedListLimit`` bytes |
    ///
    /// Every value is ASCII without control characters (RFC 9110 §5.5 field values): JSON text
    /// escapes anything else as `\uXXXX`, so a value is always parsable as JSON (the screen id and
    /// revision are plain tokens).
    public static func headers(_ resolved: ResolvedScreen, revision: Int) -> [(name: String, value: String)] {
        let envelope = resolved.jsonValue(revision: revision)
        let replaced = asciiJSON(.array(resolved.replaced.map(\.jsonValue)))
        return [
            ("X-Trellis-Screen", asciiText(resolved.id)),
            ("X-Trellis-Revision", String(revision)),
            ("X-Trellis-Schema-Version", String(resolved.schemaVersion)),
            ("X-Trellis-Assignments", asciiJSON(envelope["assignments"] ?? .object([]))),
            ("X-Trellis-Replaced", replaced.utf8.count <= replacedListLimit ? replaced : String(resolved.replaced.count)),
        ]
    }

    /// Compact JSON with every scalar outside printable ASCII written as `\uXXXX` (UTF-16, RFC 8259 §7).
    static func asciiJSON(_ value: JSONValue) -> String {
        var out = ""
        for scalar in JSONWriter.string(value).unicodeScalars {
            if (0x20..<0x7F).contains(scalar.value) {
                out.unicodeScalars.append(scalar)
            } else {
                for unit in String(scalar).utf16 { out += "\\u" + hex4(unit) }
            }
        }
        return out
    }

    /// Text kept as it is when it is printable ASCII (ids always are), else as a JSON string.
    static func asciiText(_ text: String) -> String {
        text.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) } ? text : asciiJSON(.string(text))
    }

    private static func hex4(_ unit: UInt16) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<4).reversed().map { digits[Int(unit >> (UInt16($0) * 4) & 0xF)] })
    }
}
