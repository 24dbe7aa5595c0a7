import Testing
import TrellisTesting
@testable import TrellisHTTP

/// Frames (RFC 9113 §4, §6): every type written and read back, whole and byte by byte; every
/// malformation a frame can have on its own refused with the RFC's error code and scope.
@Suite struct HTTP2FrameTests {
    static let everyType: [HTTP2Frame] = [
        HTTP2Frame(stream: 1, .data(bytes: Array("hello".utf8), endStream: true, flowControlled: 5)),
        HTTP2Frame(stream: 1, .data(bytes: [], endStream: false, flowControlled: 0)),
        HTTP2Frame(stream: 3, .headers(fragment: [0x82, 0x86], endStream: false, endHeaders: true, priority: nil)),
        HTTP2Frame(stream: 5, .headers(fragment: [0x82], endStream: true, endHeaders: false,
                                       priority: HTTP2Priority(exclusive: true, dependency: 3, weight: 15))),
        HTTP2Frame(stream: 7, .priority(HTTP2Priority(exclusive: false, dependency: 0, weight: 255))),
        HTTP2Frame(stream: 9, .rstStream(.cancel)),
        HTTP2Frame(stream: 0, .settings(ack: false, [HTTP2Setting(HTTP2Setting.maxConcurrentStreams, 100),
                                                    HTTP2Setting(HTTP2Setting.initialWindowSize, 1 << 20),
                                                    HTTP2Setting(0xABCD, 42)])),
        HTTP2Frame(stream: 0, .settings(ack: true, [])),
        HTTP2Frame(stream: 1, .pushPromise(promised: 2, fragment: [0x82], endHeaders: true)),
        HTTP2Frame(stream: 0, .ping(ack: false, opaque: 0x0102_0304_0506_0708)),
        HTTP2Frame(stream: 0, .ping(ack: true, opaque: .max)),
        HTTP2Frame(stream: 0, .goAway(lastStream: 7, code: .enhanceYourCalm, debug: Array("calm".utf8))),
        HTTP2Frame(stream: 0, .windowUpdate(increment: 0x7FFF_FFFF)),
        HTTP2Frame(stream: 11, .windowUpdate(increment: 1)),
        HTTP2Frame(stream: 1, .continuation(fragment: [0x84], endHeaders: true)),
    ]

    static func parse(_ bytes: [UInt8], maxFrameSize: Int = 16384) -> (HTTP2FrameParser.Event, Int) {
        let parser = HTTP2FrameParser(maxFrameSize: maxFrameSize)
        return bytes.withUnsafeBufferPointer { parser.next($0) }
    }

    /// A frame from its parts, for frames the writer would never produce.
    static func raw(type: UInt8, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), type, flags,
                UInt8(stream >> 24), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    static func error(_ bytes: [UInt8]) -> HTTP2Error? {
        if case (.error(let e), _) = parse(bytes) { return e }
        return nil
    }

    @Test(arguments: everyType) func everyFrameTypeRoundTrips(_ frame: HTTP2Frame) {
        var bytes: [UInt8] = []
        HTTP2FrameWriter.append(frame, to: &bytes)
        let (event, consumed) = Self.parse(bytes + [0, 0])  // trailing bytes are left alone
        #expect(event == .frame(frame))
        #expect(consumed == bytes.count)
    }

    @Test(arguments: everyType) func everyFrameTypeNeedsMoreDataUntilItsLastByte(_ frame: HTTP2Frame) {
        var bytes: [UInt8] = []
        HTTP2FrameWriter.append(frame, to: &bytes)
        for cut in 0..<bytes.count {
            let (event, consumed) = Self.parse(Array(bytes[..<cut]))
            #expect(event == .needMoreData && consumed == 0, "cut at \(cut)")
        }
    }

    @Test func frameOverTheSizeLimitIsAConnectionErrorBeforeItsPayloadArrives() {
        let header = Array(Self.raw(type: 0, stream: 1, Array(repeating: 0, count: 16385)).prefix(9))
        guard case (.error(let e), _) = Self.parse(header) else { Issue.record("no error"); return }
        #expect(e.scope == .connection && e.code == .frameSizeError)
        // The same frame fits once the limit is raised.
        #expect(Self.parse(Self.raw(type: 0, stream: 1, Array(repeating: 0, count: 16385)), maxFrameSize: 16385).1 == 16394)
    }

    @Test func paddedDataLosesItsPaddingButCountsItForFlowControl() {
        let bytes = Self.raw(type: 0, flags: HTTP2Flags.padded | HTTP2Flags.endStream, stream: 1, [3, 0x61, 0x62, 0, 0, 0])
        #expect(Self.parse(bytes).0 == .frame(HTTP2Frame(stream: 1, .data(bytes: [0x61, 0x62], endStream: true, flowControlled: 6))))
    }

    @Test func paddedHeadersWithPriorityKeepsOnlyTheFragment() {
        let payload: [UInt8] = [2, 0x80, 0, 0, 3, 9, 0x82, 0x84, 0, 0]
        let bytes = Self.raw(type: 1, flags: HTTP2Flags.padded | HTTP2Flags.priority | HTTP2Flags.endHeaders, stream: 5, payload)
        #expect(Self.parse(bytes).0 == .frame(HTTP2Frame(stream: 5, .headers(
            fragment: [0x82, 0x84], endStream: false, endHeaders: true,
            priority: HTTP2Priority(exclusive: true, dependency: 3, weight: 9)))))
    }

    @Test func paddingAsLongAsThePayloadIsAProtocolError() {
        #expect(Self.error(Self.raw(type: 0, flags: HTTP2Flags.padded, stream: 1, [4, 0, 0, 0])) == .connection(.protocolError, "DATA padding of 4 octets exceeds its payload"))
        #expect(Self.error(Self.raw(type: 0, flags: HTTP2Flags.padded, stream: 1, [3, 0, 0, 0])) == nil)  // all padding: allowed
        #expect(Self.error(Self.raw(type: 1, flags: HTTP2Flags.padded | HTTP2Flags.priority, stream: 1, [1, 0, 0, 0, 0, 0]))?.code == .protocolError)
        #expect(Self.error(Self.raw(type: 0, flags: HTTP2Flags.padded, stream: 1, []))?.code == .frameSizeError)
    }

    static let streamFrames: [(UInt8, String)] = [(0, "DATA"), (1, "HEADERS"), (2, "PRIORITY"), (3, "RST_STREAM"), (5, "PUSH_PROMISE"), (9, "CONTINUATION")]

    @Test(arguments: streamFrames)
    func streamFramesOnStreamZeroAreProtocolErrors(_ type: UInt8, _ name: String) {
        let payload: [UInt8] = type == 2 ? [0, 0, 0, 1, 0] : [0, 0, 0, 1]
        #expect(Self.error(Self.raw(type: type, stream: 0, payload)) == .connection(.protocolError, "\(name) on stream 0"))
    }

    static let connectionFrames: [(UInt8, [UInt8])] = [(4, []), (6, [UInt8](repeating: 0, count: 8)), (7, [UInt8](repeating: 0, count: 8))]

    @Test(arguments: connectionFrames)
    func connectionFramesOnAStreamAreProtocolErrors(_ type: UInt8, _ payload: [UInt8]) {
        let e = Self.error(Self.raw(type: type, stream: 1, payload))
        #expect(e?.scope == .connection && e?.code == .protocolError)
    }

    @Test func settingsOfTheWrongShapeAreFrameSizeErrors() {
        #expect(Self.error(Self.raw(type: 4, flags: HTTP2Flags.ack, stream: 0, [0, 1, 0, 0, 0, 0]))?.code == .frameSizeError)
        #expect(Self.error(Self.raw(type: 4, stream: 0, [0, 1, 0, 0, 0]))?.code == .frameSizeError)
    }

    @Test func settingsValuesOutOfRangeAreRefusedWithTheirCodes() {
        func setting(_ id: UInt16, _ value: UInt32) -> [UInt8] {
            Self.raw(type: 4, stream: 0, [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(value >> 24), UInt8(value >> 16 & 0xFF),
                                          UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
        }
        #expect(Self.error(setting(HTTP2Setting.enablePush, 2))?.code == .protocolError)
        #expect(Self.error(setting(HTTP2Setting.initialWindowSize, 1 << 31))?.code == .flowControlError)
        #expect(Self.error(setting(HTTP2Setting.maxFrameSize, (1 << 14) - 1))?.code == .protocolError)
        #expect(Self.error(setting(HTTP2Setting.maxFrameSize, 1 << 24))?.code == .protocolError)
        #expect(Self.error(setting(HTTP2Setting.initialWindowSize, (1 << 31) - 1)) == nil)
        #expect(Self.error(setting(0xFFFF, .max)) == nil)  // unknown: kept, ignored
    }

    @Test func fixedSizeFramesOfAnotherSizeAreFrameSizeErrors() {
        #expect(Self.error(Self.raw(type: 6, stream: 0, [0, 0, 0, 0, 0, 0, 0]))?.code == .frameSizeError)
        #expect(Self.error(Self.raw(type: 7, stream: 0, [0, 0, 0, 0, 0, 0, 0]))?.code == .frameSizeError)
        #expect(Self.error(Self.raw(type: 3, stream: 1, [0, 0, 0]))?.code == .frameSizeError)
        #expect(Self.error(Self.raw(type: 8, stream: 1, [0, 0, 1]))?.code == .frameSizeError)
        #expect(Self.error(Self.raw(type: 5, stream: 1, [0, 0, 1]))?.code == .frameSizeError)
    }

    @Test func priorityOfTheWrongSizeIsAStreamErrorAndTheNextFrameFollows() {
        let bytes = Self.raw(type: 2, stream: 3, [0, 0, 0, 1]) + Self.raw(type: 6, stream: 0, Array(repeating: 0, count: 8))
        let (event, consumed) = Self.parse(bytes)
        #expect(event == .error(.stream(3, .frameSizeError, "PRIORITY of 4 octets, not 5")))
        #expect(consumed == 13)
        #expect(Self.parse(Array(bytes[consumed...])).0 == .frame(HTTP2Frame(stream: 0, .ping(ack: false, opaque: 0))))
    }

    @Test func windowUpdateOfZeroIsAStreamOrConnectionErrorByItsStream() {
        #expect(Self.error(Self.raw(type: 8, stream: 5, [0, 0, 0, 0]))?.scope == .stream(5))
        #expect(Self.error(Self.raw(type: 8, stream: 0, [0x80, 0, 0, 0]))?.scope == .connection)  // the reserved bit is no increment
    }

    @Test func reservedBitOfTheStreamIdentifierIsIgnored() {
        #expect(Self.parse(Self.raw(type: 3, stream: 0x8000_0003, [0, 0, 0, 8])).0 == .frame(HTTP2Frame(stream: 3, .rstStream(.cancel))))
    }

    @Test func unknownFrameTypesAreReturnedToBeIgnored() {
        let (event, consumed) = Self.parse(Self.raw(type: 0xFA, flags: 0xFF, stream: 0, [1, 2, 3]))
        #expect(event == .frame(HTTP2Frame(stream: 0, .unknown(type: 0xFA))))
        #expect(consumed == 12)
    }

    @Test func fieldBlockLongerThanTheFrameSizeGoesOnInContinuations() {
        var out: [UInt8] = []
        HTTP2FrameWriter.appendFieldBlock(Array(1...10), stream: 3, endStream: true, maxFrameSize: 4, to: &out)
        var frames: [HTTP2Frame] = []
        var rest = out[...]
        while !rest.isEmpty, case (.frame(let f), let n) = Self.parse(Array(rest)) {
            frames.append(f)
            rest = rest.dropFirst(n)
        }
        #expect(frames == [
            HTTP2Frame(stream: 3, .headers(fragment: [1, 2, 3, 4], endStream: true, endHeaders: false, priority: nil)),
            HTTP2Frame(stream: 3, .continuation(fragment: [5, 6, 7, 8], endHeaders: false)),
            HTTP2Frame(stream: 3, .continuation(fragment: [9, 10], endHeaders: true)),
        ])
    }

    /// Random bytes, and every written frame with one byte changed: each parses, needs more, or
    /// fails with an `HTTP2Error`, never traps and never consumes more than it was given.
    @Test func randomAndMutatedFramesNeverTrap() {
        var rng = SplitMix64(seed: 9113)
        for _ in 0..<20_000 {
            let bytes = (0..<Int(rng.next() % 48)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            #expect(Self.parse(bytes, maxFrameSize: 32).1 <= bytes.count)
        }
        for frame in Self.everyType {
            var bytes: [UInt8] = []
            HTTP2FrameWriter.append(frame, to: &bytes)
            for i in 0..<bytes.count {
                for value in [0x00, 0x01, 0x7F, 0x80, 0xFF] as [UInt8] {
                    var mutated = bytes
                    mutated[i] = value
                    #expect(Self.parse(mutated).1 <= mutated.count)
                }
            }
        }
    }
}
