import Foundation
import Logging
import Testing
import TrellisJSON
import TrellisRuntime
import TrellisStore
import TrellisTargeting

/// Metrics as runtime documents, and apps' event batches read against the snapshot in force: in
/// process, on a real SQLite file, with a clock the test moves.
@Suite(.serialized) struct TrackingTests {
    typealias Harness = RuntimeCommandTests.Harness

    static func metric(_ name: String, _ json: String) throws(Refusal) -> MetricDefinition {
        try CommandBody.metric(Array(json.utf8), name: name)
    }

    @Test func aMetricIsAnAuditedDocumentMadeAgainstItsVersion() throws {
        let harness = try Harness(try RuntimeCommandTests.config())
        let rate = try Self.metric("purchase-rate", #"{"type": "proportion", "event": "purchase", "windowHours": 72}"#)
        let made = try harness.runtime.execute(.metric(.define(rate)), as: .person("ops")).get()
        #expect(made.effect == .created)
        #expect(harness.snapshot.runtime.operations.metrics["purchase-rate"] == rate)
        let version = ResourceView.version(of: .metric("purchase-rate"), in: harness.snapshot)
        #expect(version != nil)
        // A redefinition made against an older version is refused, and changes nothing.
        let cuped = try Self.metric("purchase-rate", #"{"type": "proportion", "event": "purchase", "cuped": true}"#)
        guard case .failure(.versionMismatch) = harness.runtime.execute(.metric(.define(cuped)), as: .person("ops"), ifMatch: .version("\"stale\"")) else {
            Issue.record("a stale If-Match redefined the metric"); return
        }
        #expect(harness.snapshot.runtime.operations.metrics["purchase-rate"] == rate)
        _ = try harness.runtime.execute(.metric(.define(cuped)), as: .person("ops"), ifMatch: .version(version)).get()
        #expect(harness.snapshot.runtime.operations.metrics["purchase-rate"]?.cupedLookbackHours == MetricDefinition.defaultLookbackHours)
        let gone = try harness.runtime.execute(.metric(.delete(name: "purchase-rate")), as: .person("ops")).get()
        #expect(gone.effect == .removed)
        #expect(harness.snapshot.runtime.operations.metrics["purchase-rate"] == nil)
        #expect(try harness.audit("metrics/purchase-rate").map(\.action) == ["metric.create", "metric.update", "metric.delete"])
        // Acknowledged means durable: the metrics come back with the store.
        _ = try harness.runtime.execute(.metric(.define(rate)), as: .person("ops")).get()
        #expect(try Harness(harness.config).snapshot.runtime.operations.metrics["purchase-rate"] == rate)
    }

    @Test func anExperimentNamesOnlyMetricsThatExistAndANamedMetricStays() throws {
        let harness = try Harness(try RuntimeCommandTests.config())
        let patch = try ExperimentPatch(body: Array("{\"goals\": [\"purchase-rate\"],\n \"guardrails\": [\"errors\"]}".utf8))
        guard case .failure(.invalid(_, let problems, _)) = harness.runtime.execute(.experiment(.update(key: "hero", patch)), as: .person("ops")) else {
            Issue.record("an experiment named metrics that do not exist"); return
        }
        #expect(problems.map(\.path.description) == ["$.goals[0]", "$.guardrails[0]"])
        #expect(harness.snapshot.targeting.experiments["hero"]?.goals == [])
        for (name, event) in [("purchase-rate", "purchase"), ("errors", "client_error")] {
            _ = try harness.runtime.execute(.metric(.define(try Self.metric(name, #"{"type": "proportion", "event": "\#(event)"}"#))), as: .person("ops")).get()
        }
        _ = try harness.runtime.execute(.experiment(.update(key: "hero", patch)), as: .person("ops")).get()
        #expect(harness.snapshot.targeting.experiments["hero"]?.metricNames == ["purchase-rate", "errors"])
        guard case .failure(.conflict(let why)) = harness.runtime.execute(.metric(.delete(name: "errors")), as: .person("ops")) else {
            Issue.record("a metric an experiment names was deleted"); return
        }
        #expect(why.contains("hero"))
        #expect(harness.snapshot.runtime.operations.metrics["errors"] != nil)
    }

    @Test func aMetricDefinitionsMistakesAreEachReportedAtTheirPathAndLine() throws {
        let body = """
            {"type": "ratio",
             "numerator": {"event": ""},
             "denominator": {"event": "purchase", "value": "median"},
             "windowHours": -1,
             "cuped": {"lookbackHours": 1e9}}
            """
        guard case .failure(.invalid(_, let problems, _)) = Result(catching: { () throws(Refusal) in try Self.metric("m", body) }) else {
            Issue.record("a bad metric was read"); return
        }
        let found = problems.map { "\($0.path) \($0.location.line)" }
        #expect(found == ["$.numerator.event 2", "$.denominator.value 3", "$.windowHours 4", "$.cuped.lookbackHours 5"])
        // Each type names what it reads: a proportion has no value, a ratio no event.
        guard case .failure(.invalid(_, let more, _)) = Result(catching: { () throws(Refusal) in
            try Self.metric("m", #"{"type": "proportion", "event": "x", "value": "sum", "numerator": {}}"#)
        }) else { Issue.record("a proportion with a value was read"); return }
        #expect(Set(more.map(\.path.description)) == ["$.numerator", "$.value"])
        guard case .failure(.invalid(_, let ratio, _)) = Result(catching: { () throws(Refusal) in
            try Self.metric("m", #"{"type": "ratio", "numerator": {"event": "a"}, "denominator": {"event": "b"}, "cuped": true}"#)
        }) else { Issue.record("a CUPED ratio was read"); return }
        #expect(ratio.map(\.path.description) == ["$.cuped"])
    }

    @Test func aMetricsFormReadsBackToTheSameCommand() throws {
        let revenue = try Self.metric(
            "revenue-per-order", #"{"type": "ratio", "numerator": {"event": "purchase"}, "denominator": {"event": "purchase"}, "higherIsBetter": true}"#)
        #expect(revenue.denominator?.aggregate == .count)
        let form = try #require(Command.metric(.define(revenue)).form)
        guard case .metric(.define(let read)) = try Command(form) else { Issue.record("not a metric command"); return }
        #expect(read == revenue)
    }

    // MARK: - Event batches

    static let now = 1_800_000_000.0

    static func read(
        _ text: String, format: EventBatchReader.Format = .jsonArray, identity: EventBatchReader.Identity = .perEvent, in harness: Harness
    ) -> Result<EventBatch, EventBatchReader.Failure> {
        EventBatchReader().read(Array(text.utf8), format: format, identity: identity, now: now, snapshot: harness.snapshot).map(\.batch)
    }

    @Test func aBatchReadsIntoEventsAndExposuresWithTheirUsersAndTimes() throws {
        let harness = try Harness(try RuntimeCommandTests.config())
        let batch = try Self.read(
            """
            [{"id": "e1", "timestamp": "2027-01-15T08:00:00Z", "context": {"targetingKey": "u1", "platform": "ios", "country": "DE"},
              "exposure": {"experiment": "hero", "variant": "big"}},
             {"id": "e2", "context": {"targetingKey": "u1"}, "name": "purchase", "value": 42.5},
             {"id": "e3", "context": {"targetingKey": "u2", "tier": "gold"}, "name": "client_error"},
             {"id": "e4", "context": {"targetingKey": "u2"}, "exposure": {"flag": "banner", "variant": "on"}},
             {"id": "e5", "context": {"targetingKey": "u2"}, "exposure": {"screen": "home", "revision": 1}}]
            """, in: harness
        ).get()
        #expect(batch.events == [
            TrackedEvent(id: "e2", user: "u1", name: "purchase", value: 42.5, at: Self.now, receivedAt: Self.now),
            TrackedEvent(id: "e3", user: "u2", name: "client_error", value: nil, at: Self.now, receivedAt: Self.now),
        ])
        #expect(batch.exposures.map(\.subject) == [.experiment("hero"), .rollout("banner"), .screen("home")])
        #expect(batch.exposures.map(\.variant) == ["big", "on", "1"])
        #expect(batch.exposures[0].at == RFC3339.seconds(from: "2027-01-15T08:00:00Z"))
        #expect(batch.exposures[0].dimensions == ExposureDimensions(platform: "ios", appVersion: nil, country: "DE"))
        // NDJSON says the same, one event a line.
        let lines = try Self.read(
            "{\"id\": \"e2\", \"context\": {\"targetingKey\": \"u1\"}, \"name\": \"purchase\", \"value\": 42.5}\n\n"
                + "{\"id\": \"e3\", \"context\": {\"targetingKey\": \"u2\"}, \"name\": \"client_error\"}\n",
            format: .ndjson, in: harness
        ).get()
        #expect(lines.events == batch.events)
    }

    @Test func everyMistakeOfABatchIsReportedWithItsIndexPathAndLineAndNothingIsTaken() throws {
        let harness = try Harness(try RuntimeCommandTests.config())
        let text = """
            [{"id": "ok", "context": {"targetingKey": "u1"}, "name": "purchase"},
             {"id": "a", "context": {"targetingKey": "u1"}, "exposure": {"experiment": "hero", "variant": "huge"}},
             {"id": "b", "context": {"targetingKey": "u1"}, "name": "x", "exposure": {"experiment": "hero", "variant": "big"}},
             {"id": "c", "name": "purchase"},
             {"id": "d", "context": {"targetingKey": "u1"}, "name": "purchase", "timestamp": "2027-01-15T08:10:00Z"},
             {"id": "e", "context": {"targetingKey": "u1"}, "name": "purchase", "timestamp": "2026-12-01T00:00:00Z"},
             {"id": "f", "context": {"targetingKey": "u1"}, "exposure": {"screen": "home", "revision": 9}},
             {"context": {"targetingKey": "u1"}, "name": "purchase", "colour": "red"}]
            """
        guard case .failure(.invalid(let problems)) = Self.read(text, in: harness) else { Issue.record("a bad batch was taken"); return }
        let found = problems.map { "\($0.path) \($0.location.line)" }
        #expect(found == [
            "$[1].exposure.variant 2", "$[2] 3", "$[3].context 4", "$[4].timestamp 5", "$[5].timestamp 6", "$[6].exposure.revision 7",
            "$[7].colour 8", "$[7] 8",
        ])
        #expect(problems[0].message.contains("no variant \"huge\""))
    }

    @Test func aBatchBeyondItsLimitsIsRefusedWhole() throws {
        let harness = try Harness(try RuntimeCommandTests.config())
        var limits = EventBatchReader.Limits()
        limits.maxEvents = 2
        limits.maxEventBytes = 256
        let reader = EventBatchReader(limits: limits)
        let one = #"{"id": "x", "context": {"targetingKey": "u"}, "name": "n"}"#
        let three = "[\(one), \(one), \(one)]"
        guard case .failure(.tooMany(3)) = reader.read(Array(three.utf8), format: .jsonArray, identity: .perEvent, now: Self.now, snapshot: harness.snapshot).map(\.batch) else {
            Issue.record("three events passed a limit of two"); return
        }
        let long = #"{"id": "x", "context": {"targetingKey": "u"}, "name": "\#(String(repeating: "n", count: 120))", "value": 1}"#
        let padded = long.replacingOccurrences(of: "\"value\"", with: String(repeating: " ", count: 200) + "\"value\"")
        guard case .failure(.invalid(let problems)) = reader.read(Array(padded.utf8), format: .ndjson, identity: .perEvent, now: Self.now, snapshot: harness.snapshot) else {
            Issue.record("an event over the byte limit passed"); return
        }
        #expect(problems.first?.message.contains("at most 256 bytes") == true)
        guard case .failure(.malformed(let malformed)) = reader.read(Array("[{\"id\": ".utf8), format: .jsonArray, identity: .perEvent, now: Self.now, snapshot: harness.snapshot) else {
            Issue.record("a truncated body was read"); return
        }
        #expect(malformed.location.line == 1)
    }

    @Test func aSignedBatchIsAboutItsSignedUserAlone() throws {
        let harness = try Harness(try RuntimeCommandTests.config())
        let signed = EventBatchReader.Identity.signed(user: "u9", country: "FR")
        let batch = try Self.read(
            #"[{"id": "a", "name": "purchase"}, {"id": "b", "context": {"targetingKey": "u9", "country": "US"}, "exposure": {"experiment": "hero", "variant": "big"}}]"#,
            identity: signed, in: harness
        ).get()
        #expect(batch.events.map(\.user) == ["u9"])
        #expect(batch.exposures.map(\.dimensions.country) == ["FR"])
        guard case .failure(.invalid(let problems)) = Self.read(
            #"[{"id": "a", "context": {"targetingKey": "someone-else"}, "name": "purchase"}]"#, identity: signed, in: harness)
        else { Issue.record("an event about another user was taken"); return }
        #expect(problems.map(\.path.description) == ["$[0].context.targetingKey"])
    }

    // MARK: - Exposures the server records

    @Test func aUserAlreadyRecordedIsNotBufferedAgainAndAFlushWritesTheRest() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-exposures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path)
        let ingest = EventIngest(store: store, logger: Logger(label: "test"))
        let exposures = ServerExposures(ingest: ingest, slots: 1 << 10, maxBuffered: 3)
        for _ in 0..<1_000 { exposures.record(experiment: "hero", variant: "big", user: "u1", dimensions: ExposureDimensions(), now: 10) }
        #expect(exposures.flush() == 1, "a user already recorded was buffered again")
        // Past maxBuffered, exposures are dropped — and not marked seen, so the next request records them.
        for user in ["a", "b", "c", "d"] { exposures.record(experiment: "hero", variant: "big", user: user, dimensions: ExposureDimensions(), now: 11) }
        #expect(exposures.flush() == 3)
        exposures.record(experiment: "hero", variant: "big", user: "d", dimensions: ExposureDimensions(), now: 12)
        #expect(exposures.flush() == 1)
        let stored = try store.exposures(of: .experiment("hero"), after: nil, limit: 10)
        #expect(stored.map(\.user) == ["a", "b", "c", "d", "u1"])
        #expect(stored.allSatisfy { $0.source == .server })
    }
}
