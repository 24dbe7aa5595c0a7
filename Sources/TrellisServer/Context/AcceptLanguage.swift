import TrellisRuntime

/// Reads the locale from `Accept-Language` (RFC 9110 §12.5.4): the language range with the
/// highest weight, the first of equals.
///
/// Lenient on purpose, unlike the query: user agents add this header on their own (iOS's
/// URLSession, every browser), so an element that cannot be read — or `*`, or a range Trellis's
/// locale rule does not take (a first subtag of 2–3 letters, at most 35 bytes) — is skipped rather
/// than failing the request. A header with nothing usable gives no locale.
enum AcceptLanguage {
    static func preferredTag(_ value: String) -> String? {
        var best: (tag: Substring, weight: Int)?
        for element in value.split(separator: ",") {
            guard let (tag, weight) = parse(element), weight > 0 else { continue }
            if best == nil || weight > best!.weight { best = (tag, weight) }
        }
        return best.map { String($0.tag) }
    }

    /// One `language-range [ weight ]`; weight in thousandths, 1000 when absent.
    private static func parse(_ element: Substring) -> (Substring, Int)? {
        let parts = element.split(separator: ";", omittingEmptySubsequences: false)
        let tag = trimmed(parts[0])
        guard isUsableTag(tag) else { return nil }
        guard parts.count <= 2 else { return nil }
        guard parts.count == 2 else { return (tag, 1000) }
        let parameter = trimmed(parts[1])
        guard parameter.count > 2, parameter.first == "q" || parameter.first == "Q", parameter.dropFirst().first == "=" else { return nil }
        guard let weight = qvalue(parameter.dropFirst(2)) else { return nil }
        return (tag, weight)
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (RFC 9110 §12.4.2), in thousandths.
    static func qvalue(_ text: Substring) -> Int? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == 0x30 || first == 0x31 else { return nil }
        var thousandths = first == 0x31 ? 1000 : 0
        guard bytes.count > 1 else { return thousandths }
        guard bytes[1] == 0x2E, bytes.count <= 5 else { return nil }
        var scale = 100
        for digit in bytes.dropFirst(2) {
            guard (0x30...0x39).contains(digit) else { return nil }
            thousandths += Int(digit - 0x30) * scale
            scale /= 10
        }
        return thousandths <= 1000 ? thousandths : nil
    }

    /// A range the `locale` parameter accepts: subtags of 1–8 letters or digits joined by `-`,
    /// the first of 2–3 letters, 35 bytes at most. `*` is not one.
    private static func isUsableTag(_ tag: Substring) -> Bool {
        guard (2...35).contains(tag.utf8.count) else { return false }
        let subtags = tag.utf8.split(separator: 0x2D, omittingEmptySubsequences: false)
        guard let first = subtags.first, (2...3).contains(first.count), first.allSatisfy(isLetter) else { return false }
        return subtags.allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) } }
    }

    private static func isLetter(_ c: UInt8) -> Bool { (0x41...0x5A).contains(c & ~0x20) }

    /// Without the optional whitespace (OWS: spaces and tabs) around list elements and parameters.
    private static func trimmed(_ text: Substring) -> Substring {
        let isContent: (Character) -> Bool = { $0 != " " && $0 != "\t" }
        guard let start = text.firstIndex(where: isContent), let end = text.lastIndex(where: isContent) else { return "" }
        return text[start...end]
    }
}
