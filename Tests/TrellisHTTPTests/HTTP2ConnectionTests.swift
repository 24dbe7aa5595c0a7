import Testing
import TrellisTesting
@testable import TrellisHTTP

/// The HTTP/2 connection driven with bytes: the preface and settings, requests as the HTTP/1.1
/// side produces them, responses within the client's windows, and each protocol error with the
/// scope and code RFC 9113 gives it.
@Suite struct HTTP2ConnectionTests {
    static func goAwayCode(_ frames: [ReceivedFrame]) -> HTTP2ErrorCode? { frames.compactMap(\.goAway).last?.code }

    @Test func serverPrefaceIsSettingsThenTheConnectionWindowThenTheAcknowledgement() {
        var client = HTTP2TestClient(limits: .with { $0.maxConcurrentStreams = 7; $0.connectionWindow = 1 << 20 })
        let frames = client.start()
        #expect(frames.count == 3)
        guard case .settings(false, let settings) = frames[0].frame.payload else { Issue.record("no SETTINGS first"); return }
        #expect(settings.contains(HTTP2Setting(HTTP2Setting.maxConcurrentStreams, 7)))
        #expect(settings.contains(HTTP2Setting(HTTP2Setting.initialWindowSize, 65535)))
        #expect(frames[1].frame == HTTP2Frame(stream: 0, .windowUpdate(increment: UInt32((1 << 20) - 65535))))
        #expect(frames[2].frame == HTTP2Frame(stream: 0, .settings(ack: true, [])))
        #expect(client.connection.phase == .open)
    }

    @Test func wrongPrefaceIsAConnectionError() {
        var client = HTTP2TestClient()
        client.send(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(client.connection.phase == .failed)
        #expect(Self.goAwayCode(client.read()) == .protocolError)
    }

    @Test func firstFrameOtherThanSettingsIsAConnectionError() {
        var client = HTTP2TestClient()
        client.send(HTTP2Bounds.clientPreface)
        client.send(HTTP2Frame(stream: 0, .ping(ack: false, opaque: 1)))
        #expect(Self.goAwayCode(client.read()) == .protocolError)
    }

    @Test func getBecomesTheSameRequestTheHTTP11SideMakes() {
        var client = HTTP2TestClient()
        client.start()
        client.request(1, "/v1/screens/home?user=u%201&pretty", [HPACKField("accept", "application/json"),
                                                                  HPACKField("cookie", "a=1"), HPACKField("cookie", "b=2")])
        let (stream, request) = client.requests[0]
        #expect(stream == 1)
        #expect(request.method == .get)
        #expect(request.target == "/v1/screens/home?user=u%201&pretty")
        #expect(request.path == "/v1/screens/home")
        #expect(request.query["user"] == "u 1")
        #expect(request.version == .http2)
        #expect(request.headers["Host"] == "example.com")
        #expect(request.headers["Accept"] == "application/json")
        #expect(request.headers["cookie"] == "a=1; b=2")
        #expect(request.body.isEmpty)
    }

    @Test func responseIsHeadersThenDataEndingTheStream() {
        var client = HTTP2TestClient()
        client.start()
        client.request(1, "/")
        client.connection.respond(to: 1, with: responseHead(HTTPResponse(headers: ["Content-Type": "text/plain", "Connection": "close"],
                                                                       body: Array("hello".utf8))))
        let frames = client.read()
        #expect(frames.count == 2)
        #expect(frames[0].status == "200")
        let names = frames[0].fields?.map(\.name) ?? []
        #expect(names == [":status", "content-type", "content-length", "date", "x-request-id", "vary"])  // text: gzip was possible
        #expect(frames[1].data == Array("hello".utf8) && frames[1].endsStream)
        #expect(client.connection.openStreams == 0)
    }

    @Test func headAndNotModifiedSendHeadersAlone() {
        var client = HTTP2TestClient()
        client.start()
        client.request(1, "/", method: "HEAD")
        client.connection.respond(to: 1, with: responseHead(HTTPResponse(body: Array("hello".utf8)), head: true))
        client.request(3, "/")
        client.connection.respond(to: 3, with: responseHead(HTTPResponse(status: .notModified)))
        let frames = client.read()
        #expect(frames.map(\.endsStream) == [true, true])
        #expect(frames[0].fields?.first { $0.name == "content-length" }?.value == "5")
        #expect(frames[1].fields?.contains { $0.name == "content-length" } == false)
    }

    @Test func bodyInSeveralDataFramesIsGatheredAndTheWindowsReopened() {
        var client = HTTP2TestClient(limits: .with { $0.connectionWindow = 100_000 })
        client.start()
        client.request(1, "/upload", method: "POST", endStream: false)
        let piece = [UInt8](repeating: 0x61, count: 16384)
        for n in 0..<4 { client.send(HTTP2Frame(stream: 1, .data(bytes: piece, endStream: n == 3, flowControlled: piece.count))) }
        #expect(client.requests.first?.request.body.count == 4 * 16384)  // one octet more than the first window
        let updates = client.read().filter { if case .windowUpdate = $0.frame.payload { true } else { false } }
        #expect(updates.contains { $0.stream == 0 })  // the connection's window, half used, reopened
        #expect(updates.contains { $0.stream == 1 })
    }

    @Test func responseWaitsForTheClientsWindowAndRespectsItsFrameSize() {
        var client = HTTP2TestClient()
        client.start([HTTP2Setting(HTTP2Setting.initialWindowSize, 20000)])
        client.request(1, "/big")
        _ = client.read()
        client.connection.respond(to: 1, with: responseHead(HTTPResponse(body: [UInt8](repeating: 7, count: 100_000), compressible: false)))
        var sizes = client.read().compactMap { $0.data?.count }
        #expect(sizes == [16384, 3616])  // the stream's 20000, in frames of at most 16384
        #expect(client.connection.isBlockedOnFlowControl)
        client.send(HTTP2Frame(stream: 1, .windowUpdate(increment: 100_000)))
        sizes = client.read().compactMap { $0.data?.count }
        #expect(sizes.reduce(0, +) == 65535 - 20000)  // now the connection's window holds it back
        client.send(HTTP2Frame(stream: 0, .windowUpdate(increment: 100_000)))
        let last = client.read()
        #expect(last.compactMap { $0.data?.count }.reduce(0, +) == 100_000 - 65535)
        #expect(last.last?.endsStream == true)
        #expect(!client.connection.isBlockedOnFlowControl)
    }

    @Test func loweredInitialWindowCanMakeAStreamsWindowNegative() {
        var client = HTTP2TestClient()
        client.start()
        client.request(1, "/")
        client.connection.respond(to: 1, with: responseHead(HTTPResponse(body: [UInt8](repeating: 1, count: 70000), compressible: false)))
        _ = client.read()  // 65535 sent: the connection's window is used up
        client.send(HTTP2Frame(stream: 0, .settings(ack: false, [HTTP2Setting(HTTP2Setting.initialWindowSize, 1000)])))
        client.send(HTTP2Frame(stream: 0, .windowUpdate(increment: 100_000)))
        client.send(HTTP2Frame(stream: 1, .windowUpdate(increment: 64535)))  // -64535 + 64535 = 0: still nothing
        #expect(client.read().compactMap(\.data).isEmpty)
        client.send(HTTP2Frame(stream: 1, .windowUpdate(increment: 4465)))
        #expect(client.read().compactMap { $0.data?.count } == [4465])
    }

    @Test func streamsPastTheConcurrencyLimitAreRefusedAndHPACKStaysInStep() {
        var client = HTTP2TestClient(limits: .with { $0.maxConcurrentStreams = 2 })
        client.start()
        client.request(1, "/a")
        client.request(3, "/b")
        client.request(5, "/c", [HPACKField("x-new", "indexed")])  // adds to both tables though refused
        let frames = client.read()
        #expect(frames.last?.stream == 5 && frames.last?.resetCode == .refusedStream)
        client.connection.respond(to: 1, with: responseHead(HTTPResponse()))
        client.request(7, "/d", [HPACKField("x-new", "indexed")])  // now one octet: the shared entry
        #expect(client.requests.last?.request.headers["x-new"] == "indexed")
        #expect(client.requests.map(\.stream) == [1, 3, 7])
    }

    @Test func fieldBlockGoesOnInContinuations() {
        var client = HTTP2TestClient()
        client.start()
        let block = client.block("/split", [HPACKField("x-long", String(repeating: "v", count: 100))])
        client.send(HTTP2Frame(stream: 1, .headers(fragment: Array(block[..<10]), endStream: true, endHeaders: false, priority: nil)))
        client.send(HTTP2Frame(stream: 1, .continuation(fragment: Array(block[10..<50]), endHeaders: false)))
        #expect(client.requests.isEmpty)
        client.send(HTTP2Frame(stream: 1, .continuation(fragment: Array(block[50...]), endHeaders: true)))
        #expect(client.requests.first?.request.path == "/split")
    }

    @Test func interruptedFieldBlockIsAConnectionError() {
        var client = HTTP2TestClient()
        client.start()
        let block = client.block("/")
        client.send(HTTP2Frame(stream: 1, .headers(fragment: Array(block[..<2]), endStream: true, endHeaders: false, priority: nil)))
        client.send(HTTP2Frame(stream: 0, .ping(ack: false, opaque: 0)))
        #expect(Self.goAwayCode(client.read()) == .protocolError)
    }

    @Test func continuationFloodEndsTheConnection() {
        var client = HTTP2TestClient(limits: .with { $0.maxContinuationFrames = 4 })
        client.start()
        client.send(HTTP2Frame(stream: 1, .headers(fragment: [0x82], endStream: true, endHeaders: false, priority: nil)))
        for _ in 0..<5 { client.send(HTTP2Frame(stream: 1, .continuation(fragment: [], endHeaders: false))) }
        #expect(Self.goAwayCode(client.read()) == .enhanceYourCalm)
    }

    @Test func fieldBlockLargerThanTheHeaderListLimitEndsTheConnection() {
        var client = HTTP2TestClient(limits: .with { $0.maxHeaderListSize = 100 })
        client.start()
        client.send(HTTP2Frame(stream: 1, .headers(fragment: [UInt8](repeating: 0x82, count: 101), endStream: true, endHeaders: false, priority: nil)))
        #expect(Self.goAwayCode(client.read()) == .enhanceYourCalm)
    }

    @Test func headerListOverTheLimitIsRefusedWith431() {
        var client = HTTP2TestClient(limits: .with { $0.maxHeaderListSize = 300 })
        client.start()
        client.request(1, "/", [HPACKField("x-big", String(repeating: "v", count: 300), indexing: .withoutIndexing)])
        guard case .refused(1, let status, _) = client.events.last else { Issue.record("\(client.events)"); return }
        #expect(status == .requestHeaderFieldsTooLarge)
        client.request(3, "/next")
        #expect(client.requests.last?.stream == 3)
    }

    @Test func pingIsAcknowledgedWithItsOpaqueData() {
        var client = HTTP2TestClient()
        client.start()
        client.send(HTTP2Frame(stream: 0, .ping(ack: false, opaque: 0xDEAD_BEEF)))
        #expect(client.read().map(\.frame) == [HTTP2Frame(stream: 0, .ping(ack: true, opaque: 0xDEAD_BEEF))])
    }

    @Test func pingFloodThatIsNeverReadEndsTheConnection() {
        var client = HTTP2TestClient(limits: .with { $0.maxUnsentAcknowledgements = 10 })
        client.start()
        client.connection.outputDrained()
        for n in 0..<11 { client.send(HTTP2Frame(stream: 0, .ping(ack: false, opaque: UInt64(n)))) }
        #expect(Self.goAwayCode(client.read()) == .enhanceYourCalm)
        var reading = HTTP2TestClient(limits: .with { $0.maxUnsentAcknowledgements = 10 })
        reading.start()
        for n in 0..<50 {
            reading.send(HTTP2Frame(stream: 0, .ping(ack: false, opaque: UInt64(n))))
            reading.connection.outputDrained()
        }
        #expect(reading.connection.phase == .open)
    }

    @Test(arguments: [
        ("uppercase name", [HPACKField("X-Upper", "1")]),
        ("connection field", [HPACKField("connection", "keep-alive")]),
        ("te other than trailers", [HPACKField("te", "gzip")]),
        ("value with a newline", [HPACKField("x-a", "1\r\nx-b: 2")]),
        ("value with surrounding space", [HPACKField("x-a", " 1")]),
        ("unknown pseudo-header", [HPACKField(":status", "200")]),
    ])
    func malformedRequestResetsItsStreamAlone(_ name: String, _ extra: [HPACKField]) {
        var client = HTTP2TestClient()
        client.start()
        client.request(1, "/", extra)
        let frames = client.read()
        #expect(frames.last?.resetCode == .protocolError, "\(name)")
        client.request(3, "/fine")
        #expect(client.requests.map(\.stream) == [3])
    }

    @Test func pseudoHeaderAfterARegularFieldIsMalformed() {
        var client = HTTP2TestClient()
        client.start()
        var block: [UInt8] = []
        client.encoder.encode([HPACKField(":method", "GET"), HPACKField("accept", "*/*"), HPACKField(":path", "/"),
                               HPACKField(":scheme", "https")], into: &block)
        client.send(HTTP2Frame(stream: 1, .headers(fragment: block, endStream: true, endHeaders: true, priority: nil)))
        #expect(client.read().last?.resetCode == .protocolError)
    }

    @Test func missingPathIsMalformed() {
        var client = HTTP2TestClient()
        client.start()
        var block: [UInt8] = []
        client.encoder.encode([HPACKField(":method", "GET"), HPACKField(":scheme", "https")], into: &block)
        client.send(HTTP2Frame(stream: 1, .headers(fragment: block, endStream: true, endHeaders: true, priority: nil)))
        #expect(client.read().last?.resetCode == .protocolError)
    }

    @Test func bodyPastTheLimitIsRefusedWith413AndTheClientToldToStop() {
        var client = HTTP2TestClient(limits: .with { $0.maxBodyBytes = 10 })
        client.start()
        client.request(1, "/", method: "POST", endStream: false)
        client.send(HTTP2Frame(stream: 1, .data(bytes: [UInt8](repeating: 1, count: 11), endStream: false, flowControlled: 11)))
        guard case .refused(1, let status, _) = client.events.last else { Issue.record("\(client.events)"); return }
        #expect(status == .contentTooLarge)
        _ = client.read()
        client.connection.respond(to: 1, with: responseHead(HTTPResponse(status: .contentTooLarge)))
        let frames = client.read()
        #expect(frames.first?.status == "413")
        #expect(frames.last?.resetCode == HTTP2ErrorCode.noError)  // §8.1: an answer before the request ended
        client.send(HTTP2Frame(stream: 1, .data(bytes: [1], endStream: true, flowControlled: 1)))  // in flight: ignored
        #expect(client.connection.phase == .open && client.read().allSatisfy { $0.resetCode == nil })
    }

    @Test func contentLengthThatTheDataDoesNotMatchIsMalformed() {
        var client = HTTP2TestClient()
        client.start()
        client.request(1, "/", method: "POST", [HPACKField("content-length", "5")], endStream: false)
        client.send(HTTP2Frame(stream: 1, .data(bytes: [1, 2, 3], endStream: true, flowControlled: 3)))
        #expect(client.read().last?.resetCode == .protocolError)
        #expect(client.requests.isEmpty)
    }

    @Test func dataPastTheStreamWindowResetsTheStreamAndPastTheConnectionWindowEndsIt() {
        let oneTooMany = HTTP2FrameTests.raw(type: 0, stream: 1, [UInt8](repeating: 0, count: 65536))
        var stream = HTTP2TestClient(limits: .with { $0.maxFrameSize = 70000; $0.connectionWindow = 1 << 20 })
        stream.start()
        stream.request(1, "/", method: "POST", endStream: false)
        stream.send(oneTooMany)
        #expect(stream.read().last?.resetCode == .flowControlError)
        #expect(stream.connection.phase == .open)
        var connection = HTTP2TestClient(limits: .with { $0.maxFrameSize = 70000; $0.connectionWindow = 65535 })
        connection.start()
        connection.request(1, "/", method: "POST", endStream: false)
        connection.send(oneTooMany)
        #expect(Self.goAwayCode(connection.read()) == .flowControlError)
    }

    @Test func paddingCountsAgainstTheWindowsAndIsGivenBack() {
        var client = HTTP2TestClient(limits: .with { $0.connectionWindow = 65535 })
        client.start()
        client.request(1, "/", method: "POST", endStream: false)
        let padded = HTTP2FrameTests.raw(type: 0, flags: HTTP2Flags.padded, stream: 1, [255] + [UInt8](repeating: 0, count: 255))
        for _ in 0..<1000 { client.send(padded) }  // 256,000 octets of padding, four times both windows
        #expect(client.connection.phase == .open)
    }

    @Test func dataOnAnIdleStreamIsAConnectionErrorAndOnAClosedOneAStreamError() {
        var client = HTTP2TestClient()
        client.start()
        client.request(1, "/")
        client.connection.respond(to: 1, with: responseHead(HTTPResponse()))
        client.send(HTTP2Frame(stream: 1, .data(bytes: [1], endStream: false, flowControlled: 1)))
        #expect(client.read().last?.resetCode == .streamClosed)
        client.send(HTTP2Frame(stream: 9, .data(bytes: [1], endStream: false, flowControlled: 1)))
        #expect(Self.goAwayCode(client.read()) == .protocolError)
    }

    @Test func streamIdentifiersThatAreEvenOrGoBackAreConnectionErrors() {
        var even = HTTP2TestClient()
        even.start()
        even.request(2, "/")
        #expect(Self.goAwayCode(even.read()) == .protocolError)
        var backwards = HTTP2TestClient()
        backwards.start()
        backwards.request(5, "/")
        backwards.connection.respond(to: 5, with: responseHead(HTTPResponse()))
        backwards.request(3, "/")
        #expect(Self.goAwayCode(backwards.read()) == .streamClosed)
    }

    @Test func windowUpdatePastTheMaximumIsAFlowControlError() {
        var client = HTTP2TestClient()
        client.start()
        client.request(1, "/", endStream: false)
        client.send(HTTP2Frame(stream: 1, .windowUpdate(increment: UInt32(Int32.max))))
        #expect(client.read().last?.resetCode == .flowControlError)
        client.send(HTTP2Frame(stream: 0, .windowUpdate(increment: UInt32(Int32.max))))
        #expect(Self.goAwayCode(client.read()) == .flowControlError)
    }

    @Test func brokenHPACKIsACompressionError() {
        var client = HTTP2TestClient()
        client.start()
        client.send(HTTP2Frame(stream: 1, .headers(fragment: [0x80], endStream: true, endHeaders: true, priority: nil)))
        #expect(Self.goAwayCode(client.read()) == .compressionError)
    }

    @Test func pushPromiseFromTheClientIsAProtocolError() {
        var client = HTTP2TestClient()
        client.start()
        client.send(HTTP2Frame(stream: 1, .pushPromise(promised: 2, fragment: [], endHeaders: true)))
        #expect(Self.goAwayCode(client.read()) == .protocolError)
    }

    @Test func resetWhileTheReplyIsWorkedOnKeepsTheStreamCountedUntilItArrives() {
        var client = HTTP2TestClient(limits: .with { $0.maxConcurrentStreams = 1 })
        client.start()
        client.request(1, "/slow")
        client.send(HTTP2Frame(stream: 1, .rstStream(.cancel)))
        guard case .streamReset(1, .cancel) = client.events.last else { Issue.record("\(client.events)"); return }
        client.request(3, "/next")
        #expect(client.read().last?.resetCode == .refusedStream)  // stream 1's work still holds the slot
        let answered = client.connection.respond(to: 1, with: responseHead(HTTPResponse()))
        #expect(!answered)
        #expect(client.read().isEmpty)
        client.request(5, "/after")
        #expect(client.requests.last?.stream == 5)
    }

    @Test func rapidResetEndsTheConnection() {
        var client = HTTP2TestClient(limits: .with { $0.maxNetResets = 20 })
        client.start()
        var stream: UInt32 = 1
        for _ in 0..<21 {
            client.request(stream, "/", endStream: false)
            client.send(HTTP2Frame(stream: stream, .rstStream(.cancel)))
            stream += 2
        }
        #expect(Self.goAwayCode(client.read()) == .enhanceYourCalm)
    }

    @Test func answeredStreamsEarnBackTheResetAllowance() {
        var client = HTTP2TestClient(limits: .with { $0.maxNetResets = 2 })
        client.start()
        var stream: UInt32 = 1
        for _ in 0..<50 {
            client.request(stream, "/")
            client.connection.respond(to: stream, with: responseHead(HTTPResponse()))
            client.request(stream + 2, "/", endStream: false)
            client.send(HTTP2Frame(stream: stream + 2, .rstStream(.cancel)))
            stream += 4
        }
        #expect(client.connection.phase == .open)
    }

    @Test func goAwayAnswersTheStreamsItNamesAndNoOther() {
        var client = HTTP2TestClient()
        client.start()
        client.request(1, "/")
        client.connection.goAway()
        #expect(client.read().last?.goAway.map { $0.lastStream == 1 && $0.code == .noError } == true)
        client.request(3, "/late")
        #expect(client.requests.map(\.stream) == [1])
        #expect(!client.connection.isFinished)
        client.connection.respond(to: 1, with: responseHead(HTTPResponse()))
        #expect(client.connection.isFinished)
    }

    @Test func streamOfEventsSendsDataWithoutEndingUntilToldTo() {
        var client = HTTP2TestClient()
        client.start()
        client.request(1, "/v1/changes")
        let head = HTTP2ResponseHead(streamHead: HTTPResponse(headers: ["Content-Type": "text/event-stream"], body: Array(": hi\n\n".utf8)),
                                     requestID: "r", date: "d")
        client.connection.respond(to: 1, with: head, endStream: false)
        client.connection.send(Array("data: 1\n\n".utf8), on: 1, endStream: false)
        var frames = client.read()
        #expect(frames.map(\.endsStream) == [false, false, false])
        #expect(frames[0].fields?.contains { $0.name == "content-length" } == false)
        client.connection.send([], on: 1, endStream: true)
        frames = client.read()
        #expect(frames.count == 1 && frames[0].endsStream && frames[0].data == [])
        #expect(client.connection.openStreams == 0)
    }

    @Test func settingsHeaderTableSizeIsAnnouncedInTheNextResponse() {
        var client = HTTP2TestClient()
        client.start([HTTP2Setting(HTTP2Setting.headerTableSize, 0)])
        client.decoder.setAllowedTableSize(0)
        client.request(1, "/")
        client.connection.respond(to: 1, with: responseHead(HTTPResponse()))
        #expect(client.read().first?.status == "200")  // decoded: the update came first
    }

    /// The same exchange fed whole and one octet at a time gives the same requests.
    @Test func exchangeFedOctetByOctetGivesTheSameRequests() {
        var whole = HTTP2TestClient()
        var bytes = HTTP2Bounds.clientPreface
        HTTP2FrameWriter.appendSettings([], ack: false, to: &bytes)
        for (n, path) in ["/a", "/b?x=1", "/c"].enumerated() {
            let block = whole.block(path, method: "POST")
            HTTP2FrameWriter.append(HTTP2Frame(stream: UInt32(2 * n + 1), .headers(fragment: block, endStream: false, endHeaders: true, priority: nil)), to: &bytes)
            HTTP2FrameWriter.appendData(Array(path.utf8), stream: UInt32(2 * n + 1), endStream: true, to: &bytes)
        }
        whole.send(bytes)
        var byOctet = HTTP2TestClient()
        for b in bytes { byOctet.send([b]) }
        #expect(whole.requests.map(\.request.target) == ["/a", "/b?x=1", "/c"])
        #expect(byOctet.requests.map(\.request.target) == whole.requests.map(\.request.target))
        #expect(byOctet.requests.map(\.request.body) == whole.requests.map(\.request.body))
    }

    /// Random frames after a proper start: the connection ends in an event or goes on, never traps.
    @Test func randomFramesNeverTrap() {
        var rng = SplitMix64(seed: 44487)
        for _ in 0..<300 {
            var client = HTTP2TestClient()
            client.start()
            for _ in 0..<20 {
                let type = UInt8(rng.next() % 11)
                let payload = (0..<Int(rng.next() % 24)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                client.send(HTTP2FrameTests.raw(type: type, flags: UInt8(truncatingIfNeeded: rng.next()), stream: UInt32(rng.next() % 8), payload))
            }
            for (stream, _) in client.requests { client.connection.respond(to: stream, with: responseHead(HTTPResponse(body: [1]))) }
            _ = client.read()
        }
    }
}
