/// Serialises HTTP/2 frames (RFC 9113 §4.1, §6) into an output buffer. This server never pads,
/// and writes PRIORITY fields only when a frame carries them.
enum HTTP2FrameWriter {
    /// Appends `frame` whole. A field block longer than the peer's frame size must be split
    /// first (``appendFieldBlock(_:stream:endStream:maxFrameSize:to:)``).
    static func append(_ frame: HTTP2Frame, to out: inout [UInt8]) {
        let stream = frame.stream
        switch frame.payload {
        case .data(let bytes, let endStream, _):
            appendData(bytes, stream: stream, endStream: endStream, to: &out)
        case .headers(let fragment, let endStream, let endHeaders, let priority):
            var flags = (endStream ? HTTP2Flags.endStream : 0) | (endHeaders ? HTTP2Flags.endHeaders : 0)
            if priority != nil { flags |= HTTP2Flags.priority }
            appendHeader(length: fragment.count + (priority == nil ? 0 : 5), type: .headers, flags: flags, stream: stream, to: &out)
            if let priority { appendPriority(priority, to: &out) }
            out.append(contentsOf: fragment)
        case .priority(let priority):
            appendHeader(length: 5, type: .priority, flags: 0, stream: stream, to: &out)
            appendPriority(priority, to: &out)
        case .rstStream(let code):
            appendHeader(length: 4, type: .rstStream, flags: 0, stream: stream, to: &out)
            appendUInt32(code.rawValue, to: &out)
        case .settings(let ack, let settings):
            appendSettings(settings, ack: ack, to: &out)
        case .pushPromise(let promised, let fragment, let endHeaders):
            appendHeader(length: 4 + fragment.count, type: .pushPromise, flags: endHeaders ? HTTP2Flags.endHeaders : 0, stream: stream, to: &out)
            appendUInt32(promised, to: &out)
            out.append(contentsOf: fragment)
        case .ping(let ack, let opaque):
            appendHeader(length: 8, type: .ping, flags: ack ? HTTP2Flags.ack : 0, stream: 0, to: &out)
            appendUInt32(UInt32(truncatingIfNeeded: opaque >> 32), to: &out)
            appendUInt32(UInt32(truncatingIfNeeded: opaque), to: &out)
        case .goAway(let lastStream, let code, let debug):
            appendGoAway(lastStream: lastStream, code: code, debug: debug, to: &out)
        case .windowUpdate(let increment):
            appendWindowUpdate(increment, stream: stream, to: &out)
        case .continuation(let fragment, let endHeaders):
            appendHeader(length: fragment.count, type: .continuation, flags: endHeaders ? HTTP2Flags.endHeaders : 0, stream: stream, to: &out)
            out.append(contentsOf: fragment)
        case .unknown:
            return  // never sent
        }
    }

    /// The 9-octet frame header (§4.1).
    static func appendHeader(length: Int, type: HTTP2FrameType, flags: UInt8, stream: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: length >> 16))
        out.append(UInt8(truncatingIfNeeded: length >> 8))
        out.append(UInt8(truncatingIfNeeded: length))
        out.append(type.rawValue)
        out.append(flags)
        appendUInt32(stream & 0x7FFF_FFFF, to: &out)
    }

    static func appendData(_ bytes: some Collection<UInt8>, stream: UInt32, endStream: Bool, to out: inout [UInt8]) {
        appendHeader(length: bytes.count, type: .data, flags: endStream ? HTTP2Flags.endStream : 0, stream: stream, to: &out)
        out.append(contentsOf: bytes)
    }

    /// A field block as HEADERS then as many CONTINUATION frames as `maxFrameSize` (the peer's
    /// SETTINGS_MAX_FRAME_SIZE) requires (§4.3, §6.10).
    static func appendFieldBlock(_ block: [UInt8], stream: UInt32, endStream: Bool, maxFrameSize: Int, to out: inout [UInt8]) {
        var start = 0
        repeat {
            let end = min(block.count, start + maxFrameSize)
            let last = end == block.count
            if start == 0 {
                let flags = (endStream ? HTTP2Flags.endStream : 0) | (last ? HTTP2Flags.endHeaders : 0)
                appendHeader(length: end - start, type: .headers, flags: flags, stream: stream, to: &out)
            } else {
                appendHeader(length: end - start, type: .continuation, flags: last ? HTTP2Flags.endHeaders : 0, stream: stream, to: &out)
            }
            out.append(contentsOf: block[start..<end])
            start = end
        } while start < block.count
    }

    static func appendSettings(_ settings: [HTTP2Setting], ack: Bool, to out: inout [UInt8]) {
        appendHeader(length: 6 * settings.count, type: .settings, flags: ack ? HTTP2Flags.ack : 0, stream: 0, to: &out)
        for setting in settings {
            out.append(UInt8(setting.identifier >> 8))
            out.append(UInt8(truncatingIfNeeded: setting.identifier))
            appendUInt32(setting.value, to: &out)
        }
    }

    static func appendRstStream(_ code: HTTP2ErrorCode, stream: UInt32, to out: inout [UInt8]) {
        append(HTTP2Frame(stream: stream, .rstStream(code)), to: &out)
    }

    static func appendGoAway(lastStream: UInt32, code: HTTP2ErrorCode, debug: [UInt8], to out: inout [UInt8]) {
        appendHeader(length: 8 + debug.count, type: .goAway, flags: 0, stream: 0, to: &out)
        appendUInt32(lastStream & 0x7FFF_FFFF, to: &out)
        appendUInt32(code.rawValue, to: &out)
        out.append(contentsOf: debug)
    }

    static func appendWindowUpdate(_ increment: UInt32, stream: UInt32, to out: inout [UInt8]) {
        appendHeader(length: 4, type: .windowUpdate, flags: 0, stream: stream, to: &out)
        appendUInt32(increment & 0x7FFF_FFFF, to: &out)
    }

    private static func appendPriority(_ priority: HTTP2Priority, to out: inout [UInt8]) {
        appendUInt32((priority.exclusive ? 0x8000_0000 : 0) | priority.dependency & 0x7FFF_FFFF, to: &out)
        out.append(priority.weight)
    }

    static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }
}
