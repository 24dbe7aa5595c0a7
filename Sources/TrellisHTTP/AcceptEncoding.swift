/// What `Accept-Encoding` allows (RFC 9110 §12.5.3), reduced to the two codings the server
/// can produce: gzip and identity. Quality values are kept in thousandths.
struct AcceptEncoding: Sendable, Equatable {
    /// q of gzip (or x-gzip), else of `*`, else 0.
    var gzip: Int
    /// q of identity, else of `*` when `*` is present, else 1000 (identity is acceptable unless refused).
    var identity: Int
    /// Whether the client weighted identity itself (directly or through `*`).
    var identityWeighted = false

    /// No `Accept-Encoding` at all: identity only (the conservative reading of §12.5.3).
    static let absent = AcceptEncoding(gzip: 0, identity: 1000, identityWeighted: false)

    /// Parses a field value such as `gzip;q=0.8, identity;q=0, *;q=0`. Elements with a malformed
    /// weight are ignored, as are unknown codings (they still count as `*`, which they are not).
    static func parse(_ value: String) -> AcceptEncoding {
        var gzip: Int?, identity: Int?, star: Int?
        var value = value
        value.withUTF8 { bytes in
            FieldSemantics.forEachListElement(bytes) { element in
                guard let (coding, q) = codingAndWeight(element) else { return }
                if HTTPBytes.equalsLowercase(coding, "gzip") || HTTPBytes.equalsLowercase(coding, "x-gzip") {
                    gzip = max(gzip ?? 0, q)
                } else if HTTPBytes.equalsLowercase(coding, "identity") {
                    identity = q
                } else if coding.count == 1 && coding[0] == UInt8(ascii: "*") {
                    star = q
                }
            }
        }
        return AcceptEncoding(gzip: gzip ?? star ?? 0, identity: identity ?? star ?? 1000, identityWeighted: identity != nil || star != nil)
    }

    /// Whether gzip should be chosen when both forms are possible: gzip is acceptable and, if the
    /// client weighted identity at all, not below it (`gzip;q=0.5` alone still means gzip).
    var prefersGzip: Bool { gzip > 0 && (!identityWeighted || gzip >= identity) }

    /// `coding *( OWS ";" OWS "q=" qvalue )`; parameters other than q are ignored.
    private static func codingAndWeight(_ element: UnsafeBufferPointer<UInt8>) -> (UnsafeBufferPointer<UInt8>, Int)? {
        let semicolon = element.firstIndex(of: UInt8(ascii: ";")) ?? element.count
        let coding = HTTPParser.trimmed(UnsafeBufferPointer(rebasing: element[..<semicolon]))
        guard !coding.isEmpty else { return nil }
        var q = 1000
        var start = semicolon + 1
        while start < element.count {
            let end = element[start...].firstIndex(of: UInt8(ascii: ";")) ?? element.count
            let param = HTTPParser.trimmed(UnsafeBufferPointer(rebasing: element[start..<end]))
            if param.count >= 2, param[0] | 0x20 == UInt8(ascii: "q"), param[1] == UInt8(ascii: "=") {
                guard let weight = qvalue(UnsafeBufferPointer(rebasing: param[2...])) else { return nil }
                q = weight
            }
            start = end + 1
        }
        return (coding, q)
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (RFC 9110 §12.4.2), in thousandths.
    static func qvalue(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = b.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        var value = Int(first - 48) * 1000
        guard b.count > 1 else { return value }
        guard b[1] == UInt8(ascii: "."), b.count <= 5 else { return nil }
        var scale = 100
        for digit in b[2...] {
            guard digit >= 48 && digit <= 57 else { return nil }
            value += Int(digit - 48) * scale
            scale /= 10
        }
        return value <= 1000 ? value : nil
    }
}

extension HTTPHeaders {
    /// Whether `Accept-Encoding` admits gzip at all (q > 0, by name or through `*`; RFC 9110
    /// §12.5.3). When false the server never sends a gzip body for this request, so a responder
    /// need not make one.
    public var acceptsGzip: Bool { self["Accept-Encoding"].map { AcceptEncoding.parse($0).gzip > 0 } ?? false }
}
