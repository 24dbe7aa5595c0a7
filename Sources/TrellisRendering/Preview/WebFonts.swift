import TrellisJSON
import TrellisText

/// The font files the metrics packs were built from, served at `GET /fonts/{file}` so that a
/// preview draws text in the face the layout measured (docs/layout.md, "The preview").
///
/// Built with the snapshot from `fonts/`: a pack that names its source file (``FontFace/sourceFile``,
/// pack format 2) and finds it beside it, with the CRC-32 the pack recorded, gets that file served.
/// A pack without one (format 1, or a file not shipped, such as the emoji and CJK fallbacks) has no
/// web font, and the browser draws those characters in a font of its own.
public struct WebFonts: Sendable {
    /// One served font file.
    public struct File: Sendable {
        /// The file name in `fonts/`, e.g. `Roboto-Regular.ttf`: the last segment of its URL.
        public let name: String
        /// `font/ttf` or `font/otf` (RFC 8081).
        public let contentType: String
        public let bytes: [UInt8]
        /// The file's CRC-32 in hex, as its pack recorded it and the loader checked it: the `v` of
        /// its URL (and its ETag), so a URL names one version of the file and may be cached for good.
        public let fingerprint: String
        /// `/fonts/{name}?v={fingerprint}`.
        public var url: String { "/fonts/" + PercentEncoding.encode(name) + "?v=" + fingerprint }
    }

    /// A face a page declares with `@font-face`.
    struct Face: Hashable {
        var family: String
        var weight: Int
        var italic: Bool
    }

    /// Served files by name.
    public let files: [String: File]
    /// Which file draws each face the packs describe.
    let faces: [Face: String]

    /// The content type of a font file a browser can load, by its name's extension; nil for
    /// others (a `.ttc` collection is measured from but not served).
    public static func contentType(of name: String) -> String? {
        let lowered = name.lowercased()
        if lowered.hasSuffix(".ttf") { return "font/ttf" }
        if lowered.hasSuffix(".otf") { return "font/otf" }
        return nil
    }

    public init() {
        files = [:]
        faces = [:]
    }

    /// - Parameter files: the bytes of each pack's source file found in `fonts/`, by name; the
    ///   caller has checked each against its pack's CRC-32.
    public init(faces packFaces: [FontFace], files bytes: [String: [UInt8]]) {
        var files: [String: File] = [:]
        var faces: [Face: String] = [:]
        for face in packFaces {
            guard let data = bytes[face.sourceFile], let type = Self.contentType(of: face.sourceFile) else { continue }
            if files[face.sourceFile] == nil {
                files[face.sourceFile] = File(
                    name: face.sourceFile, contentType: type, bytes: data, fingerprint: Self.hex(face.sourceChecksum))
            }
            faces[Face(family: face.family, weight: face.weight, italic: face.isItalic)] = face.sourceFile
        }
        self.files = files
        self.faces = faces
    }

    /// The same files and faces with each file's bytes let go, for a server that keeps them in
    /// response bodies of its own (a font file is some 250 KB).
    public var withoutBytes: WebFonts {
        WebFonts(
            files: files.mapValues { File(name: $0.name, contentType: $0.contentType, bytes: [], fingerprint: $0.fingerprint) },
            faces: faces)
    }

    private init(files: [String: File], faces: [Face: String]) {
        self.files = files
        self.faces = faces
    }

    /// The `@font-face` rules for the faces `frames` draws text in, each resolved as the layout
    /// resolves it (``FontCollection/face(family:weight:italic:)``), so the browser's own weight
    /// matching lands on the same face. Faces without a served file get no rule.
    public func fontFaceRules(_ frames: ScreenFrames, fonts: FontCollection) -> String {
        var wanted: [(family: String, weight: Int)] = []
        func visit(_ node: LaidOutComponent) {
            guard !node.isHidden else { return }
            if let text = node.text { wanted.append((text.family, text.weight)) }
            if let bar = node.bar {
                let paint = BarPaint(bar, node, frames.viewport)
                let family = frames.viewport.platform.systemFamily
                switch paint.title {
                case .large: wanted.append((family, BarPaint.largeTitleWeight))
                case .inline: wanted.append((family, BarPaint.inlineTitleWeight))
                case nil: break
                }
                if !paint.tabs.isEmpty { wanted.append((family, BarPaint.tabWeight)) }
            }
            node.subviews.forEach(visit)
        }
        if let root = frames.root { visit(root) }
        var seen: Set<Face> = []
        var rules = ""
        for (family, weight) in wanted {
            guard let face = fonts.face(family: family, weight: weight) else { continue }
            let key = Face(family: face.family, weight: face.weight, italic: face.isItalic)
            guard !seen.contains(key), let name = faces[key], let file = files[name] else { continue }
            seen.insert(key)
            let format = file.contentType == "font/otf" ? "opentype" : "truetype"
            rules += "@font-face{font-family:\(Markup.cssString(face.family));src:url(\(Markup.cssString(file.url))) format('\(format)');"
                + "font-weight:\(face.weight);font-style:\(face.isItalic ? "italic" : "normal");font-display:block}\n"
        }
        return rules
    }

    /// Eight lowercase hex digits.
    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
