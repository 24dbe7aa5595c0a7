import ArgumentParser
import Foundation
import Logging
import Prometheus
import TrellisAnswers
import TrellisHTTP
import TrellisRuntime
import TrellisServer

/// `trellis bench spread`: `GET /v1/screens/{id}` answered in-process on one thread, asked as
/// `scripts/bench-scale` asks over HTTP: one screen for one user, then a random screen of the
/// catalogue for a new user each, first while the answer cache fills and then again; last, a
/// random screen for one user whose answers are all made, to part a hit's cost from a miss's.
///
/// No socket, no kernel, no client sharing the cores: what is left is the server's own work on a
/// request (the route, the context, the outcomes, the answer cache, the response) and a copy of
/// the body, which reads it as the kernel's copy into the socket does. What a screen among
/// thousands costs over one — lines from memory — then shows to a few nanoseconds, where a run
/// over HTTP moves by percents from one run to the next.
struct BenchSpreadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spread",
        abstract: "Answer GET /v1/screens/{id} in-process: one screen, then a random screen for a new user each; µs a request.")

    @Option(help: "A directory shaped like Config/ (a catalogue of scripts/bench-scale-catalogue.py, say).") var config = "Config"
    @Option(help: "Requests timed in each phase.") var requests = 200_000
    @Option(help: "Seeds the choice of screens.") var seed: UInt64 = 30

    /// The query every request carries, as bench-scale's: the parameter screens need `param.item`.
    static let query = "platform=ios&appVersion=5.3&param.item=42&param.order=1001"
    /// The same, as items, split once: the timed loop makes only what differs between requests.
    static let queryItems: [HTTPQuery.Item] = query.split(separator: "&").map { pair in
        let nameValue = pair.split(separator: "=", maxSplits: 1)
        return (String(nameValue[0]), String(nameValue[1]))
    }

    func run() throws {
        let snapshot: Snapshot
        switch ConfigLoader(directory: URL(fileURLWithPath: config, isDirectory: true)).load(previous: nil) {
        case .failure(let error): throw CommandFailure(error.description)
        case .success(let loaded): snapshot = loaded
        }
        let state = ServerState(
            published: PublishedSnapshot(snapshot), configuration: ServerConfiguration(), metrics: PrometheusCollectorRegistry())
        state.waitUntilPrepared()
        let ids = snapshot.screens.keys.sorted()
        guard ids.contains("home") else { throw CommandFailure("no screen \"home\" in \(config): the one-screen phase asks for it") }
        var bench = Phases(responder: TrellisResponder(state: state), answers: snapshot.answers, requests: requests)

        _ = try bench.time { _ in "home?user=u1" }  // the one screen's answer made, the code paths warm
        let one = try bench.time { _ in "home?user=u1" }
        let oneNewUsers = try bench.time { n in "home?user=h1-\(n)" }
        var picks = Picks(state: seed)
        let cold = try bench.time { n in "\(ids[picks.next(below: ids.count)])?user=s1-\(n)" }
        let steady = try bench.time { n in "\(ids[picks.next(below: ids.count)])?user=s2-\(n)" }
        let oneAgain = try bench.time { _ in "home?user=u1" }
        // One user's answer to every screen made, then asked for at random: every request a hit,
        // on a screen and an answer as cold as the spread's.
        _ = try bench.time(count: ids.count) { n in "\(ids[n])?user=u1" }
        let hits = try bench.time { _ in "\(ids[picks.next(below: ids.count)])?user=u1" }

        let reference = min(one.seconds, oneAgain.seconds)
        print("GET /v1/screens/{id} in-process, one thread: \(ids.count) screens in \(config), \(requests) requests a phase")
        print("  phase                               µs a request   answers made")
        for (name, phase) in [("one screen, one user", one), ("one screen, a new user each", oneNewUsers),
                              ("a random screen, a new user each", cold), ("  again", steady), ("one screen again", oneAgain),
                              ("a random screen, one user (hits)", hits)] {
            let made = String(format: "%d (%.1f %%)", phase.made, 100 * Double(phase.made) / Double(requests))
            print("  " + name.padding(toLength: 34, withPad: " ", startingAt: 0)
                  + String(format: "%9.3f", phase.seconds / Double(requests) * 1e6) + "      " + made)
        }
        print(String(
            format: "  the spread over one screen (the better run of it): %.3f× while the cache fills, %.3f× after; %+.3f / %+.3f µs a request",
            reference / cold.seconds, reference / steady.seconds, (cold.seconds - reference) / Double(requests) * 1e6,
            (steady.seconds - reference) / Double(requests) * 1e6))
        // The spread differs from this phase only in the number of screens: each request is a new
        // user's, whose rules are evaluated, on one screen or on any.
        print(String(
            format: "  over one screen, a new user each: %.3f× while the cache fills, %.3f× after",
            oneNewUsers.seconds / cold.seconds, oneNewUsers.seconds / steady.seconds))
        // What the spread's µs over one screen are made of: a hit on cold memory, and its misses,
        // each costing the same over such a hit in both phases.
        let coldHit = (hits.seconds - reference) / Double(requests) * 1e6
        let missRates = (Double(cold.made) / Double(requests), Double(steady.made) / Double(requests))
        // Told apart only when the two phases' misses differ enough to outweigh the noise of a phase.
        let miss = missRates.0 - missRates.1 >= 0.01
            ? String(format: "%+.3f µs over such a hit", (cold.seconds - steady.seconds) / Double(requests) * 1e6 / (missRates.0 - missRates.1))
            : "not told (the two spread phases' misses differ by under 1 % of their requests)"
        print(String(format: "  a hit among %d screens: %+.3f µs over one screen; a miss: ", ids.count, coldHit) + miss)
    }

    /// Times `requests` requests of one phase, one after another on this thread.
    struct Phases {
        let responder: TrellisResponder
        let answers: AnswerCache
        let requests: Int
        let context = HTTPRequestContext(requestID: "bench", remoteAddress: "127.0.0.1:1", logger: Logger(label: "bench"))
        /// Keeps the bodies' copies observable, so that they are made.
        var checksum = 0

        /// - Parameter target: request `n`'s screen and user, `ID?user=NAME`.
        /// - Returns: the seconds taken, and the answers the cache gained (each a miss: nothing is
        ///   evicted while it has room, and the default budget holds a catalogue's spread).
        mutating func time(count: Int? = nil, _ target: (Int) -> String) throws -> (seconds: Double, made: Int) {
            let before = answers.count
            let clock = ContinuousClock()
            let start = clock.now
            for n in 0..<(count ?? requests) {
                let request = Self.request(target(n))
                guard case .response(let response) = responder.respond(to: request, context: context), response.status.code == 200 else {
                    throw CommandFailure("GET \(request.target) was not answered 200")
                }
                // What sending it reads: every byte, as the kernel's copy into the socket does.
                let body = response.body
                checksum &+= Int(body[body.count / 2])
            }
            return (BenchCommand.seconds(clock.now - start), answers.count - before)
        }

        static func request(_ target: String) -> HTTPRequest {
            let parts = target.split(separator: "?", maxSplits: 1)
            let path = "/v1/screens/" + parts[0]
            let items = [("user", String(parts[1].dropFirst("user=".count)))] + BenchSpreadCommand.queryItems
            return HTTPRequest(method: .get, target: path + "?" + parts[1] + "&" + BenchSpreadCommand.query, path: path, query: HTTPQuery(items))
        }
    }

    /// A seeded choice of screens (a 64-bit LCG's high bits), the same for every build compared.
    struct Picks {
        var state: UInt64
        mutating func next(below count: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(count))
        }
    }
}
