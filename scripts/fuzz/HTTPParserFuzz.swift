// libFuzzer entry for the request parser, built by scripts/fuzz-http together with the parser's
// source files (not part of the package). Besides "no crash", it checks invariants:
//   - parsing the input whole, split at a point chosen from the input, and (for short inputs)
//     byte by byte yields the same events;
//   - the parser never consumes more than it was given, and is dead after an error;
//   - events follow the grammar (head, body*, end)* [error], and a body never exceeds the limit;
//   - Accept-Encoding parsing of the same bytes yields weights within 0…1000.

let fuzzLimits = HTTPParserLimits(
    maxRequestLineBytes: 256, maxHeaderBytes: 1024, maxHeaderCount: 16, maxBodyBytes: 2048, maxChunkLineBytes: 64)

func fuzzEvents(_ bytes: [UInt8], pieces: [Int]) -> [String] {
    var parser = HTTPParser(limits: fuzzLimits)
    var buffer: [UInt8] = []
    var events: [String] = []
    var offset = 0
    var inMessage = false
    var bodyBytes = 0
    var sizes = pieces
    let given = sizes.reduce(0, +)
    if given < bytes.count { sizes.append(bytes.count - given) }
    for size in sizes {
        let end = min(offset + size, bytes.count)
        buffer += bytes[offset..<end]
        offset = end
        while true {
            let (event, consumed) = buffer.withUnsafeBufferPointer { parser.next($0) }
            precondition(consumed >= 0 && consumed <= buffer.count, "consumed more than given")
            buffer.removeFirst(consumed)
            switch event {
            case .needMoreData:
                break
            case .head(let h):
                precondition(!inMessage, "head inside a message")
                inMessage = true
                bodyBytes = 0
                var line = "head \(h.method) \(h.target) \(h.version) \(h.keepAlive) \(h.expectsContinue) \(h.framing) \(h.path)"
                for q in h.query { line += " q:\(q.name)=\(q.value)" }
                for f in h.headers { line += " h:\(f.name)=\(f.value)" }
                events.append(line)
                continue
            case .body(let b):
                precondition(inMessage && !b.isEmpty, "body outside a message or empty")
                bodyBytes += b.count
                precondition(bodyBytes <= fuzzLimits.maxBodyBytes, "body over the limit")
                // Bytes, not text: a UTF-8 sequence may be split between pieces.
                if let last = events.last, last.hasPrefix("body ") { events[events.count - 1] += b.map { String($0) }.joined(separator: ",") + "," }
                else { events.append("body " + b.map { String($0) }.joined(separator: ",") + ",") }
                continue
            case .end:
                precondition(inMessage, "end outside a message")
                inMessage = false
                events.append("end")
                continue
            case .error(let e):
                events.append("error \(e.status.code)")
                let (again, used) = buffer.withUnsafeBufferPointer { parser.next($0) }
                guard case .error = again, used == 0 else { preconditionFailure("parser alive after an error") }
                return events
            }
            break
        }
    }
    return events
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = fuzzEvents(bytes, pieces: [bytes.count])
    if size > 1 {
        let split = 1 + Int(bytes[size / 2]) % (size - 1)
        let halves = fuzzEvents(bytes, pieces: [split])
        precondition(halves == whole, "split at \(split) differs: \(halves) vs \(whole)")
    }
    if size <= 600 {
        let single = fuzzEvents(bytes, pieces: Array(repeating: 1, count: size))
        precondition(single == whole, "byte-by-byte differs: \(single) vs \(whole)")
    }
    let accept = AcceptEncoding.parse(String(decoding: bytes, as: UTF8.self))
    precondition((0...1000).contains(accept.gzip) && (0...1000).contains(accept.identity), "weight out of range")
    return 0
}
