/// The request line and header fields, parsed once the whole head has arrived and passed the
/// byte and size checks of `HTTPParser.scanHead`.
extension HTTPParser {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// Parses a complete head (request line, field lines, the empty line).
    /// RFC 9112 §3 (request line), §5 (field syntax), §6.3 (message body length).
    static func parseHead(_ bytes: Bytes, limits: HTTPParserLimits) -> Result<HTTPRequestHead, HTTPParserError> {
        var lines = LineIterator(bytes: bytes)
        guard let requestLine = lines.next() else { return .failure(.bad("empty request")) }
        let line: RequestLine
        switch parseRequestLine(requestLine) {
        case .failure(let e): return .failure(e)
        case .success(let l): line = l
        }
        var fields = FieldSemantics()
        var headers: [HTTPHeaders.Field] = []
        headers.reserveCapacity(8)
        while let fieldLine = lines.next(), !fieldLine.isEmpty {
            switch checkFieldLine(fieldLine) {
            case .failure(let e): return .failure(e)
            case .success(let colon):
                let name = Bytes(rebasing: fieldLine[..<colon])
                let value = trimmed(Bytes(rebasing: fieldLine[(colon + 1)...]))
                if let error = fields.observe(name: name, value: value, limits: limits) { return .failure(error) }
                headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            }
        }
        return fields.head(line: line, headers: HTTPHeaders(headers))
    }

    /// A field line must be `field-name ":" OWS field-value OWS`: a non-empty token right before
    /// the colon (no whitespace, RFC 9112 §5.1), no leading whitespace (obs-fold, §5.2), no CTLs.
    /// - Returns: the index of the colon.
    static func checkFieldLine(_ line: Bytes) -> Result<Int, HTTPParserError> {
        guard let first = line.first else { return .failure(.bad("empty field line")) }
        if HTTPBytes.isWhitespace(first) { return .failure(.bad("obsolete line folding")) }
        var i = 0
        while i < line.count, HTTPBytes.isToken(line[i]) { i += 1 }
        guard i < line.count, line[i] == HTTPBytes.colon else {
            return .failure(.bad(i < line.count && HTTPBytes.isWhitespace(line[i])
                ? "whitespace before colon" : "invalid field name"))
        }
        guard i > 0 else { return .failure(.bad("empty field name")) }
        for j in (i + 1)..<line.count where !HTTPBytes.isFieldByte(line[j]) {
            return .failure(.bad("control character in field value"))
        }
        return .success(i)
    }

    static func trimmed(_ b: Bytes) -> Bytes {
        var lo = 0, hi = b.count
        while lo < hi, HTTPBytes.isWhitespace(b[lo]) { lo += 1 }
        while hi > lo, HTTPBytes.isWhitespace(b[hi - 1]) { hi -= 1 }
        return Bytes(rebasing: b[lo..<hi])
    }

    // MARK: - Request line (RFC 9112 §3)

    struct RequestLine {
        var method: HTTPMethod
        var target: HTTPTarget
        var version: HTTPVersion
    }

    /// `method SP request-target SP HTTP-version`, single spaces only.
    static func parseRequestLine(_ line: Bytes) -> Result<RequestLine, HTTPParserError> {
        guard let sp1 = line.firstIndex(of: HTTPBytes.sp), sp1 > 0 else { return .failure(.bad("invalid method")) }
        let methodBytes = Bytes(rebasing: line[..<sp1])
        guard methodBytes.allSatisfy(HTTPBytes.isToken) else { return .failure(.bad("invalid method")) }
        let rest = Bytes(rebasing: line[(sp1 + 1)...])
        guard let sp2 = rest.firstIndex(of: HTTPBytes.sp) else {
            return .failure(.bad("request line without HTTP version"))
        }
        let targetBytes = Bytes(rebasing: rest[..<sp2])
        let versionBytes = Bytes(rebasing: rest[(sp2 + 1)...])
        let version: HTTPVersion
        switch parseVersion(versionBytes) {
        case .failure(let e): return .failure(e)
        case .success(let v): version = v
        }
        let method = knownMethod(methodBytes) ?? HTTPMethod(rawValue: String(decoding: methodBytes, as: UTF8.self))
        switch HTTPTarget.parse(targetBytes, method: method) {
        case .failure(let e): return .failure(e)
        case .success(let target): return .success(RequestLine(method: method, target: target, version: version))
        }
    }

    /// `HTTP-version = "HTTP/" DIGIT "." DIGIT` (RFC 9112 §2.3). Major versions other than 1 → 505.
    static func parseVersion(_ b: Bytes) -> Result<HTTPVersion, HTTPParserError> {
        let prefix: StaticString = "HTTP/"
        guard b.count == 8, zip(b.prefix(5), UnsafeBufferPointer(start: prefix.utf8Start, count: 5)).allSatisfy(==),
            b[6] == UInt8(ascii: "."), (48...57).contains(b[5]), (48...57).contains(b[7])
        else { return .failure(.bad("invalid HTTP version")) }
        let major = Int(b[5] - 48), minor = Int(b[7] - 48)
        guard major == 1 else {
            return .failure(HTTPParserError(status: .httpVersionNotSupported, reason: "unsupported HTTP version"))
        }
        return .success(HTTPVersion(major: 1, minor: minor))
    }

    /// Shares the common method strings instead of allocating one per request.
    static func knownMethod(_ b: Bytes) -> HTTPMethod? {
        switch b.count {
        case 3: if b[0] == 71, b[1] == 69, b[2] == 84 { return .get }
            if b[0] == 80, b[1] == 85, b[2] == 84 { return .put }
        case 4: if b[0] == 80, b[1] == 79, b[2] == 83, b[3] == 84 { return .post }
            if b[0] == 72, b[1] == 69, b[2] == 65, b[3] == 68 { return .head }
        default: break
        }
        return nil
    }

    // MARK: - Chunk size line (RFC 9112 §7.1.1)

    /// `chunk-size [ chunk-ext ]` where `chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] )`.
    /// Extensions are checked and ignored.
    static func parseChunkSizeLine(_ line: Bytes) -> Result<Int, HTTPParserError> {
        var i = 0, size = 0
        while i < line.count, let digit = HTTPBytes.hexValue(line[i]) {
            guard i < 15 else { return .failure(HTTPParserError(status: .contentTooLarge, reason: "chunk size too large")) }
            size = size << 4 | digit
            i += 1
        }
        guard i > 0 else { return .failure(.bad("invalid chunk size")) }
        var ext = ChunkExtensionScanner(line: line, index: i)
        guard ext.scan() else { return .failure(.bad("invalid chunk extension")) }
        return .success(size)
    }
}

/// Splits a head into lines at CRLF (the scanner has already rejected bare CR and LF).
struct LineIterator {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func next() -> UnsafeBufferPointer<UInt8>? {
        var i = index
        while i + 1 < bytes.count {
            if bytes[i] == HTTPBytes.cr && bytes[i + 1] == HTTPBytes.lf {
                let line = UnsafeBufferPointer(rebasing: bytes[index..<i])
                index = i + 2
                return line
            }
            i += 1
        }
        return nil
    }
}

/// Checks chunk extensions: `;name`, `;name=token` or `;name="quoted"`, with optional BWS.
struct ChunkExtensionScanner {
    let line: UnsafeBufferPointer<UInt8>
    var index: Int

    mutating func scan() -> Bool {
        while true {
            skipWhitespace()
            guard index < line.count else { return true }
            guard line[index] == UInt8(ascii: ";") else { return false }
            index += 1
            skipWhitespace()
            guard token() else { return false }
            skipWhitespace()
            if index < line.count, line[index] == UInt8(ascii: "=") {
                index += 1
                skipWhitespace()
                guard token() || quotedString() else { return false }
            }
        }
    }

    private mutating func skipWhitespace() {
        while index < line.count, HTTPBytes.isWhitespace(line[index]) { index += 1 }
    }

    private mutating func token() -> Bool {
        let start = index
        while index < line.count, HTTPBytes.isToken(line[index]) { index += 1 }
        return index > start
    }

    /// `quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE` (RFC 9110 §5.6.4).
    private mutating func quotedString() -> Bool {
        guard index < line.count, line[index] == UInt8(ascii: "\"") else { return false }
        index += 1
        while index < line.count {
            let b = line[index]
            if b == UInt8(ascii: "\"") { index += 1; return true }
            if b == UInt8(ascii: "\\") {
                index += 1
                guard index < line.count, HTTPBytes.isFieldByte(line[index]) else { return false }
            } else if !HTTPBytes.isFieldByte(b) {
                return false
            }
            index += 1
        }
        return false
    }
}
