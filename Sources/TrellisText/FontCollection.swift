/// The faces a server (or client) measures with, by family, weight and style, plus the families
/// to fall back to for code points a face lacks.
///
/// Build it once at start-up from packs (``addPack(_:)``) and share it: it is an immutable value
/// once built, holds no caches, and measuring never mutates it.
public struct FontCollection: Sendable {
    /// Faces by lowercased family name.
    private var faces: [String: [FontFace]] = [:]
    /// Families tried, in order, for code points the requested face lacks (e.g. a CJK or emoji
    /// pack). Code points no face has take the `.notdef` advance of the requested face.
    public var fallbackFamilies: [String]

    /// The fallbacks of the packs shipped in `Config/fonts/`: emoji first, then CJK (docs/text.md).
    /// The server, `trellis fonts measure` and the HarfBuzz oracle tests all use this order.
    public static let shippedFallbackFamilies = ["Noto Color Emoji", "Droid Sans Fallback"]

    public init(faces: [FontFace] = [], fallbackFamilies: [String] = []) {
        self.fallbackFamilies = fallbackFamilies
        for face in faces { add(face) }
    }

    /// Adds a face; a face with the same family, weight and style replaces the earlier one.
    public mutating func add(_ face: FontFace) {
        let key = face.family.lowercased()
        var list = faces[key, default: []]
        list.removeAll { $0.weight == face.weight && $0.isItalic == face.isItalic }
        list.append(face)
        list.sort { ($0.weight, $0.isItalic ? 1 : 0) < ($1.weight, $1.isItalic ? 1 : 0) }
        faces[key] = list
    }

    /// Decodes a metrics pack and adds its face.
    /// - Throws: ``FontError`` when the pack is malformed.
    @discardableResult
    public mutating func addPack(_ bytes: [UInt8]) throws(FontError) -> FontFace {
        let face = try MetricsPack.decode(bytes)
        add(face)
        return face
    }

    /// True when no face was added: nothing can be measured. Every request for a layout asks, so
    /// it looks at the table rather than list the families.
    public var isEmpty: Bool { faces.isEmpty }

    /// Family names present, sorted.
    public var families: [String] {
        faces.values.compactMap { $0.first?.family }.sorted()
    }

    /// Every face of a family, lightest first.
    public func faces(family: String) -> [FontFace] { faces[family.lowercased()] ?? [] }

    /// The face of `family` closest to `weight` and `italic`, by the CSS Fonts 4 §5.2 weight rules
    /// (https://www.w3.org/TR/css-fonts-4/#font-matching-algorithm): for 400–500 try up to 500
    /// first, then lighter, then heavier; below 400 lighter first; above 500 heavier first. A face
    /// of the asked style is preferred to one of the other style. Nil when the family is unknown.
    public func face(family: String, weight: Int = 400, italic: Bool = false) -> FontFace? {
        guard let list = faces[family.lowercased()], !list.isEmpty else { return nil }
        let styled = list.filter { $0.isItalic == italic }
        let candidates = styled.isEmpty ? list : styled
        func rank(_ w: Int) -> (Int, Int) {
            if w == weight { return (0, 0) }
            if (400...500).contains(weight) {
                if w > weight && w <= 500 { return (1, w - weight) }
                if w < weight { return (2, weight - w) }
                return (3, w - weight)
            }
            if weight < 400 { return w < weight ? (1, weight - w) : (2, w - weight) }
            return w > weight ? (1, w - weight) : (2, weight - w)
        }
        return candidates.min { rank($0.weight) < rank($1.weight) }
    }

    /// The requested face followed by the fallback families' faces (same weight and style rules):
    /// what ``measure(_:_:availableWidth:)`` measures with. Resolve it once per text style and call
    /// ``FontChain/measure(_:size:lineHeight:lineLimit:availableWidth:)`` to skip the look-ups.
    public func chain(family: String, weight: Int = 400, italic: Bool = false) -> FontChain {
        var list: [FontFace] = []
        if let primary = face(family: family, weight: weight, italic: italic) { list.append(primary) }
        for fallback in fallbackFamilies where fallback.lowercased() != family.lowercased() {
            if let f = face(family: fallback, weight: weight, italic: italic) { list.append(f) }
        }
        return FontChain(faces: list)
    }

    /// Measures `text` with `attributes` in a box `availableWidth` points wide (`.infinity` or NaN:
    /// unbounded, one line per hard line break).
    public func measure(_ text: String, _ attributes: TextAttributes, availableWidth: Double = .infinity) -> TextMeasurement {
        chain(family: attributes.family, weight: attributes.weight, italic: attributes.italic)
            .measure(text, size: attributes.size, lineHeight: attributes.lineHeight,
                     lineLimit: attributes.lineLimit, availableWidth: availableWidth)
    }
}
