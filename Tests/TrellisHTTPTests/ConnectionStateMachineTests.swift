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
}
