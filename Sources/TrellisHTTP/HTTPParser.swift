/// A resumable HTTP/1.1 request parser (RFC 9112). No syscalls, no Dispatch, no timers: it walks
/// the bytes it is given and says what they are, in the manner of nginx's
/// `ngx_http_parse_request_line` and h11's `Connection.next_event`.
///
/// Contract: call `next(_:)` with the bytes not yet consumed; it returns one event and how many of
/// those bytes it consumed. After `.needMoreData`, call again with the same unconsumed bytes plus
/// whatever arrived since (the parser remembers how far it has already checked them). After
/// `.end` the parser is ready for the next request on the same connection; after `.error` it is
/// dead and returns the same error forever.
///
/// Strictness (see docs/http.md): CRLF only (a bare LF or a bare CR is 400), no obs-fold, no
/// whitespace before a colon, no control characters, exactly one `Host` in HTTP/1.1, no
/// `Content-Length` together with `Transfer-Encoding`, no duplicate `Content-Length`.
/// Limits are checked on raw bytes before any `String` is built.
struct HTTPParser: Sendable {
    enum State: Sendable, Equatable {
        case head
        case lengthBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed(HTTPParserError)
    }

    let limits: HTTPParserLimits
    private(set) var state: State = .head
    /// How far the unconsumed input has already been checked by the line scanner.
    private var scanned = 0
    /// Start of the line being scanned, relative to the unconsumed input.
    private var lineStart = 0
    /// Start of the request line (after ignored leading empty lines).
    private var headStart = 0
    /// Lines completed so far in this head or trailer section.
    private var lineCount = 0
    /// Bytes of body delivered so far (chunked bodies are checked against the limit as they come).
    private var bodyBytes = 0
    /// Bytes of trailer section seen so far.
    private var trailerBytes = 0

    init(limits: HTTPParserLimits = HTTPParserLimits()) { self.limits = limits }

    /// Parses the next event from `input`, the bytes not yet consumed.
    /// - Returns: the event and the number of bytes of `input` it consumed.
    mutating func next(_ input: UnsafeBufferPointer<UInt8>) -> (event: HTTPParserEvent, consumed: Int) {
        switch state {
        case .failed(let error):
            return (.error(error), 0)
        case .head:
            return nextHead(input)
        case .lengthBody(let remaining):
            if remaining == 0 { return finishMessage(consumed: 0) }
            let n = min(remaining, input.count)
            guard n > 0 else { return (.needMoreData, 0) }
            state = .lengthBody(remaining: remaining - n)
            return (.body(Array(input[0..<n])), n)
        case .chunkSize:
            return nextChunkSize(input)
        case .chunkData(let remaining):
            let n = min(remaining, input.count)
            guard n > 0 else { return (.needMoreData, 0) }
            state = remaining == n ? .chunkDataEnd : .chunkData(remaining: remaining - n)
            return (.body(Array(input[0..<n])), n)
        case .chunkDataEnd:
            // RFC 9112 §7.1: chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
            guard input.count >= 2 else {
                if input.count == 1 && input[0] != HTTPBytes.cr { return fail(.bad("missing CRLF after chunk data")) }
                return (.needMoreData, 0)
            }
            guard input[0] == HTTPBytes.cr && input[1] == HTTPBytes.lf else {
                return fail(.bad("missing CRLF after chunk data"))
            }
            state = .chunkSize
            return continueAfter(2, input)
        case .trailers:
            return nextTrailers(input)
        }
    }

    // MARK: - Head

    private mutating func nextHead(_ input: UnsafeBufferPointer<UInt8>) -> (event: HTTPParserEvent, consumed: Int) {
        switch scanHead(input) {
        case .incomplete:
            return (.needMoreData, 0)
        case .failed(let error):
            return fail(error)
        case .complete(let end):
            let bytes = UnsafeBufferPointer(rebasing: input[headStart..<end])
            resetScanner()
            switch Self.parseHead(bytes, limits: limits) {
            case .failure(let error):
                return fail(error)
            case .success(let head):
                switch head.framing {
                case .none: state = .lengthBody(remaining: 0)
                case .length(let n): state = .lengthBody(remaining: n)
                case .chunked: state = .chunkSize
                }
                bodyBytes = 0
                return (.head(head), end)
            }
        }
    }

    private enum Scan { case incomplete, complete(end: Int), failed(HTTPParserError) }

    /// Finds the end of the head (the empty line), checking every byte on the way: line endings,
    /// control characters and the size limits (RFC 9112 §2.1, §2.2).
    private mutating func scanHead(_ input: UnsafeBufferPointer<UInt8>) -> Scan {
        var i = scanned
        defer { scanned = i }
        while i < input.count {
            // Bytes that need no decision are passed over eight at a time, up to the first that
            // does, or to where a size limit would be reached: that byte is decided below.
            let lineLimit = lineCount == 0 ? lineStart + limits.maxRequestLineBytes : Int.max
            i = HTTPBytes.skipPlain(input, from: i, to: min(input.count, limits.maxHeaderBytes, lineLimit), inRequestLine: lineCount == 0)
            guard i < input.count else { break }
            let b = input[i]
            if b == HTTPBytes.lf {
                guard i > lineStart, input[i - 1] == HTTPBytes.cr else { return .failed(.bad("bare LF")) }
                let lineEnd = i - 1
                i += 1
                if lineEnd == lineStart {
                    if lineCount > 0 { return .complete(end: i) }
                    // RFC 9112 §2.2: ignore empty lines before the request line.
                    headStart = i
                    lineStart = i
                    continue
                }
                lineCount += 1
                if lineCount - 1 > limits.maxHeaderCount {
                    return .failed(HTTPParserError(status: .requestHeaderFieldsTooLarge, reason: "too many header fields"))
                }
                lineStart = i
                continue
            }
            if b == HTTPBytes.cr {
                // Decide on a CR only once the byte after it is here.
                guard i + 1 < input.count else { return .incomplete }
                if input[i + 1] != HTTPBytes.lf { return .failed(.bad("bare CR")) }
            } else if lineCount == 0 {
                if !(HTTPBytes.isVisible(b) || b == HTTPBytes.sp) {
                    return .failed(.bad("invalid byte in request line"))
                }
                if i - lineStart >= limits.maxRequestLineBytes {
                    return .failed(HTTPParserError(status: .uriTooLong, reason: "request line too long"))
                }
            } else if !HTTPBytes.isFieldByte(b) {
                return .failed(.bad("control character in header field"))
            }
            if i >= limits.maxHeaderBytes {
                return .failed(HTTPParserError(status: .requestHeaderFieldsTooLarge, reason: "header section too large"))
            }
            i += 1
        }
        return .incomplete
    }

    private mutating func resetScanner() {
        scanned = 0
        lineStart = 0
        headStart = 0
        lineCount = 0
    }

    // MARK: - Chunked body (RFC 9112 §7.1)

    private mutating func nextChunkSize(_ input: UnsafeBufferPointer<UInt8>) -> (event: HTTPParserEvent, consumed: Int) {
        guard let lf = findLineEnd(input, from: scanned) else {
            scanned = input.count
            if input.count > limits.maxChunkLineBytes + 1 { return fail(.bad("chunk size line too long")) }
            return (.needMoreData, 0)
        }
        scanned = 0
        guard lf > 0, input[lf - 1] == HTTPBytes.cr else { return fail(.bad("bare LF in chunk size line")) }
        guard lf - 1 <= limits.maxChunkLineBytes else { return fail(.bad("chunk size line too long")) }
        switch Self.parseChunkSizeLine(UnsafeBufferPointer(rebasing: input[0..<(lf - 1)])) {
        case .failure(let error):
            return fail(error)
        case .success(let size):
            if size > limits.maxBodyBytes - bodyBytes {
                return fail(HTTPParserError(status: .contentTooLarge, reason: "chunked body too large"))
            }
            bodyBytes += size
            if size == 0 {
                state = .trailers
                trailerBytes = 0
                lineCount = 0
            } else {
                state = .chunkData(remaining: size)
            }
            return continueAfter(lf + 1, input)
        }
    }

    /// Skips the trailer section: field lines checked like header lines, counted against the
    /// header limits, then discarded (RFC 9112 §7.1.2 lets a recipient discard them).
    private mutating func nextTrailers(_ input: UnsafeBufferPointer<UInt8>) -> (event: HTTPParserEvent, consumed: Int) {
        var start = 0
        while let lf = findLineEnd(input, from: max(start, scanned)) {
            scanned = 0
            guard lf > start, input[lf - 1] == HTTPBytes.cr else { return fail(.bad("bare LF in trailers")) }
            let line = UnsafeBufferPointer(rebasing: input[start..<(lf - 1)])
            trailerBytes += line.count + 2
            if trailerBytes > limits.maxHeaderBytes || lineCount > limits.maxHeaderCount {
                return fail(HTTPParserError(status: .requestHeaderFieldsTooLarge, reason: "trailer section too large"))
            }
            start = lf + 1
            if line.isEmpty { return finishMessage(consumed: start) }
            if case .failure(let error) = Self.checkFieldLine(line) { return fail(error) }
            lineCount += 1
        }
        if trailerBytes + (input.count - start) > limits.maxHeaderBytes {
            return fail(HTTPParserError(status: .requestHeaderFieldsTooLarge, reason: "trailer section too large"))
        }
        // Consume the complete trailer lines so far; keep the partial one.
        scanned = input.count - start
        return (.needMoreData, start)
    }

    // MARK: - Helpers

    /// The index of the first LF at or after `from`; a CR not followed by LF is rejected by the
    /// line's own check (it stays inside the line, where CTLs are refused).
    private func findLineEnd(_ input: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var i = from
        while i < input.count {
            if input[i] == HTTPBytes.lf { return i }
            i += 1
        }
        return nil
    }

    private mutating func finishMessage(consumed: Int) -> (event: HTTPParserEvent, consumed: Int) {
        state = .head
        resetScanner()
        return (.end, consumed)
    }

    private mutating func fail(_ error: HTTPParserError) -> (event: HTTPParserEvent, consumed: Int) {
        state = .failed(error)
        return (.error(error), 0)
    }
}

extension HTTPParser {
    /// After a framing step that produced no event, keeps parsing the rest of the input so that
    /// every call returns a real event (or `.needMoreData` with everything usable consumed).
    mutating func continueAfter(_ consumed: Int, _ input: UnsafeBufferPointer<UInt8>) -> (event: HTTPParserEvent, consumed: Int) {
        let rest = UnsafeBufferPointer(rebasing: input[consumed...])
        let (event, more) = next(rest)
        return (event, consumed + more)
    }
}
