import Testing
@testable import TrellisHTTP

/// A clock that moves only when told.
struct ManualClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }
    var now = Instant(offset: .zero)
    var minimumResolution: Duration { .nanoseconds(1) }
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}

@Suite struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine<ManualClock>
    static let timeouts = Machine.Timeouts(
        head: .seconds(10), body: .seconds(20), keepAlive: .seconds(30), send: .seconds(5),
        linger: .seconds(2), drain: .seconds(15))

    func at(_ s: Int) -> ManualClock.Instant { ManualClock.Instant(offset: .seconds(s)) }

    @Test func freshConnectionThatSendsNothingIsClosedSilently() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        #expect(m.tick(now: at(9)) == .none)
        #expect(m.tick(now: at(10)) == .close)
        #expect(m.phase == .closed)
    }

    @Test func incompleteHeadTimesOutWith408() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.bytesReceived(now: at(3))
        m.bytesReceived(now: at(8))  // more bytes do not extend the head deadline
        #expect(m.tick(now: at(12)) == .none)
        #expect(m.tick(now: at(13)) == .timeout)
        #expect(m.phase == .lingering)
        #expect(m.tick(now: at(14)) == .none)
        #expect(m.tick(now: at(15)) == .close)
    }

    @Test func slowBodyTimesOutWith408() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.bytesReceived(now: at(0))
        m.headReceived(now: at(1), expectsBody: true)
        #expect(m.tick(now: at(20)) == .none)
        #expect(m.tick(now: at(21)) == .timeout)
    }

    @Test func respondingHasNoTimer() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.bytesReceived(now: at(0))
        m.headReceived(now: at(1), expectsBody: false)
        #expect(m.tick(now: at(1000)) == .none)
    }

    @Test func keepAliveIdleTimeoutClosesSilently() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.bytesReceived(now: at(0))
        m.headReceived(now: at(0), expectsBody: false)
        #expect(m.responseQueued(now: at(1), keepAlive: true) == .none)
        #expect(m.phase == .idle(fresh: false))
        #expect(m.tick(now: at(30)) == .none)
        #expect(m.tick(now: at(31)) == .close)
    }

    @Test func nextRequestOnKeptAliveConnectionGetsAFreshHeadTimer() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.bytesReceived(now: at(0))
        m.headReceived(now: at(0), expectsBody: false)
        _ = m.responseQueued(now: at(1), keepAlive: true)
        m.bytesReceived(now: at(25))
        #expect(m.tick(now: at(34)) == .none)
        #expect(m.tick(now: at(35)) == .timeout)
    }

    @Test func connectionCloseLingers() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.bytesReceived(now: at(0))
        m.headReceived(now: at(0), expectsBody: false)
        #expect(m.responseQueued(now: at(1), keepAlive: false) == .lingerClose)
        #expect(m.tick(now: at(3)) == .close)
    }

    @Test func blockedWriteTimesOutUnlessItProgresses() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.bytesReceived(now: at(0))
        m.headReceived(now: at(0), expectsBody: false)
        _ = m.responseQueued(now: at(0), keepAlive: true)
        m.writePending(now: at(1), progressed: false)
        m.writePending(now: at(4), progressed: true)
        #expect(m.tick(now: at(8)) == .none)
        #expect(m.tick(now: at(9)) == .close)
    }

    @Test func drainClosesIdleConnectionsAtOnce() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        #expect(m.beginDrain(now: at(1)) == .close)
    }

    @Test func drainLetsTheRequestInHandFinishThenCloses() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.bytesReceived(now: at(0))
        m.headReceived(now: at(0), expectsBody: false)
        #expect(m.beginDrain(now: at(1)) == .none)
        #expect(m.isDraining)
        // Even a keep-alive response closes while draining.
        #expect(m.responseQueued(now: at(2), keepAlive: true) == .lingerClose)
    }

    @Test func drainDeadlineForceClosesAnything() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.bytesReceived(now: at(0))
        m.headReceived(now: at(0), expectsBody: false)  // responder still running
        _ = m.beginDrain(now: at(1))
        #expect(m.tick(now: at(15)) == .none)
        #expect(m.tick(now: at(16)) == .close)
    }

    // MARK: Deferred replies

    /// A connection whose responder deferred its answer, at `at(1)`.
    func awaitingReply() -> Machine {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.bytesReceived(now: at(0))
        m.headReceived(now: at(1), expectsBody: false)
        m.replyDeferred()
        return m
    }

    @Test func deferredReplyHasNoTimerAndTakesNoFurtherRequest() {
        var m = awaitingReply()
        #expect(m.phase == .awaitingReply)
        #expect(!m.acceptsRequests)
        m.bytesReceived(now: at(2))  // a pipelined request's bytes do not start a head timer
        #expect(m.phase == .awaitingReply)
        #expect(m.tick(now: at(1000)) == .none)  // past every head, body and keep-alive deadline
        #expect(m.phase == .awaitingReply)
    }

    @Test func deferredReplyThenKeepAliveStartsTheIdleTimerWhenItIsQueued() {
        var m = awaitingReply()
        #expect(m.responseQueued(now: at(100), keepAlive: true) == .none)
        #expect(m.phase == .idle(fresh: false))
        #expect(m.acceptsRequests)
        #expect(m.tick(now: at(129)) == .none)
        #expect(m.tick(now: at(130)) == .close)
    }

    @Test func deferredReplyWithConnectionCloseLingers() {
        var m = awaitingReply()
        #expect(m.responseQueued(now: at(50), keepAlive: false) == .lingerClose)
        #expect(!m.acceptsRequests)
        #expect(m.tick(now: at(52)) == .close)
    }

    @Test func drainWaitsForADeferredReplyThenCloses() {
        var m = awaitingReply()
        #expect(m.beginDrain(now: at(2)) == .none)
        #expect(m.tick(now: at(16)) == .none)
        #expect(m.responseQueued(now: at(16), keepAlive: true) == .lingerClose)
    }

    @Test func drainDeadlineForceClosesAConnectionAwaitingItsReply() {
        var m = awaitingReply()
        _ = m.beginDrain(now: at(2))
        #expect(m.tick(now: at(16)) == .none)
        #expect(m.tick(now: at(17)) == .close)
        #expect(m.phase == .closed)
    }

    @Test func blockedEarlierOutputStillTimesOutWhileAReplyIsPending() {
        // A pipelined response before the deferred one could not be written: the client does not
        // read, and that is what `sendTimeout` is for, reply or not.
        var m = awaitingReply()
        m.writePending(now: at(2), progressed: false)
        #expect(m.tick(now: at(6)) == .none)
        #expect(m.tick(now: at(7)) == .close)
    }

    @Test func onlyARespondingConnectionCanDeferItsReply() {
        var m = Machine(now: at(0), timeouts: Self.timeouts)
        m.replyDeferred()  // idle: nothing to defer
        #expect(m.phase == .idle(fresh: true))
        #expect(m.acceptsRequests)
    }
}
