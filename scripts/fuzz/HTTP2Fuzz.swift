// libFuzzer entry for HTTP/2's parts without I/O, built by scripts/fuzz-http2 together with
// TrellisHTTP's source files (not part of the package). The first input octet picks the target,
// the rest is its input (even: frames, odd: HPACK). Besides "no crash", each checks invariants:
//   - frames (HTTP2FrameParser): never consumes more than given, and a consumed frame is whole;
//     parsing frame by frame from the whole input equals parsing it cut at a point the input
//     chooses (the parser keeps no state between frames), and a frame over SETTINGS_MAX_FRAME_SIZE
//     is an error before its payload arrives;
//   - HPACK (HPACKDecoder): the input as blocks (each a length octet, then that many octets) against
//     one decoder with a small header list limit; a decoded block is within the limit, and
//     re-encoded by HPACKEncoder and decoded by a fresh decoder it gives the same fields back;
// The connection state machine is not in this harness: it needs the response head and so the
// files that import zlib, which swiftc alone cannot compile (TrellisHTTPTests' random frames cover it).

func parseFrames(_ bytes: [UInt8], cutAt cut: Int?) -> [String] {
    let parser = HTTP2FrameParser()
    var events: [String] = []
    var buffer: [UInt8] = []
    var offset = 0
    var pieces = [bytes.count]
    if let cut, cut < bytes.count { pieces = [cut, bytes.count - cut] }
    for size in pieces {
        buffer += bytes[offset..<offset + size]
        offset += size
        while true {
            let (event, consumed) = buffer.withUnsafeBufferPointer { parser.next($0) }
            precondition(consumed >= 0 && consumed <= buffer.count, "frame parser consumed more than given")
            if case .needMoreData = event {
                precondition(consumed == 0, "consumed without a frame")
                if buffer.count >= 9 {
                    let length = Int(buffer[0]) << 16 | Int(buffer[1]) << 8 | Int(buffer[2])
                    precondition(length <= parser.maxFrameSize && buffer.count < 9 + length, "a whole frame not read")
                }
                break
            }
            buffer.removeFirst(consumed)
            events.append("\(event)")
            if case .error(let error) = event, consumed == 0 {
                precondition(error.code == .frameSizeError, "an error that consumes nothing must be the frame size")
                return events
            }
            if case .error(let error) = event, error.scope == .connection { return events }
        }
    }
    return events
}

func fuzzFrames(_ bytes: [UInt8]) {
    let whole = parseFrames(bytes, cutAt: nil)
    if let first = bytes.first {
        let cut = Int(first) % (bytes.count + 1)
        precondition(parseFrames(bytes, cutAt: cut) == whole, "frames differ when the input is cut at \(cut)")
    }
}

func fuzzHPACK(_ bytes: [UInt8]) {
    var decoder = HPACKDecoder(allowedTableSize: 256, maxHeaderListSize: 1024)
    var offset = 0
    while offset < bytes.count {
        let length = Int(bytes[offset])
        offset += 1
        let block = Array(bytes[offset..<min(offset + length, bytes.count)])
        offset += block.count
        let fields: [HPACKField]
        do throws(HPACKError) {
            fields = try decoder.decode(block)
        } catch {
            if case .headerListTooLarge = error { continue }
            return  // every other error ends the connection
        }
        // The limit counts the octets received; an invalid UTF-8 octet reads as U+FFFD (3 octets).
        precondition(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 32 } <= 3 * 1024, "decoded past the header list limit")
        var encoder = HPACKEncoder(maxTableSize: 4096)
        var encoded: [UInt8] = []
        encoder.encode(fields, into: &encoded)
        var fresh = HPACKDecoder(allowedTableSize: 4096, maxHeaderListSize: .max)
        do throws(HPACKError) {
            let again = try fresh.decode(encoded)
            precondition(again.map { [$0.name, $0.value] } == fields.map { [$0.name, $0.value] }, "re-encoded fields differ")
        } catch {
            preconditionFailure("our own encoding does not decode: \(error)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] % 2 == 0 { fuzzFrames(bytes) } else { fuzzHPACK(bytes) }
    return 0
}

// ResponseWriter.swift's helper, which HPACK's string literals use: that file imports zlib, so the
// harness is built from the HTTP/2 files alone and brings this one function itself.
extension Array where Element == UInt8 {
    @inline(__always) mutating func append(utf8 string: String) {
        var string = string
        string.withUTF8 { append(contentsOf: $0) }
    }
}
