import Foundation
import Synchronization
import Testing
import TrellisStore
import TrellisTesting

/// An SQLite store in a fresh temporary directory, removed with the value.
final class TemporaryStore {
    let directory: URL
    let store: SQLiteStore
    var path: String { directory.appendingPathComponent(SQLiteStore.fileName).path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteStore(path: directory.appendingPathComponent(SQLiteStore.fileName).path)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The stores the contract suite runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A fresh, empty store of one kind — an SQLite file in a temporary directory, or a new database
/// in the suite's PostgreSQL cluster — and a directory for copies, removed with the value.
final class StoreUnderTest {
    let kind: StoreKind
    let directory: URL
    let store: any RuntimeStore
    /// Where the store is: the SQLite file's path or the database's URL.
    let location: String

    init(_ kind: StoreKind) throws {
        self.kind = kind
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch kind {
        case .sqlite:
            location = directory.appendingPathComponent(SQLiteStore.fileName).path
            store = try SQLiteStore(path: location)
        case .postgres:
            location = try SharedPostgres.makeDatabase()
            store = try PostgresStore(url: location)
        }
    }

    /// Another store on the same data, as a restarted server (or another replica) opens it.
    func reopened() throws -> any RuntimeStore {
        switch kind {
        case .sqlite: try SQLiteStore(path: location)
        case .postgres: try PostgresStore(url: location)
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The PostgreSQL cluster a suite shares: started by the ``PostgresClusterTrait`` around the whole
/// suite, one database per test.
enum SharedPostgres {
    @TaskLocal static var cluster: Result<TemporaryPostgres, any Error>?

    static func current() throws -> TemporaryPostgres {
        guard let cluster else { throw TemporaryPostgres.Failure(description: "the suite has no .postgresCluster trait") }
        return try cluster.get()
    }

    static func makeDatabase() throws -> String { try current().makeDatabase() }
}

/// Starts one PostgreSQL cluster for a suite and removes it when the suite is done. When it cannot
/// start (no PostgreSQL installed), the tests that use it fail saying so; the others run.
struct PostgresClusterTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let cluster = Result<TemporaryPostgres, any Error> { try TemporaryPostgres() }
        defer { (try? cluster.get())?.shutdown() }
        try await SharedPostgres.$cluster.withValue(cluster) { try await function() }
    }
}

extension Trait where Self == PostgresClusterTrait {
    /// One PostgreSQL cluster shared by the suite's tests (``SharedPostgres``).
    static var postgresCluster: Self { Self() }
}

func revision(_ screen: String, _ number: Int, _ text: String, origin: RevisionOrigin = .publish) -> DocumentRevision {
    DocumentRevision(
        key: .screen(screen), number: number, document: Array(text.utf8), fingerprint: "fp-\(text)", origin: origin,
        createdAt: 1_800_000_000 + Double(number), createdBy: "ops")
}

func audit(_ resource: String, _ action: String = "rollout.update") -> AuditDraft {
    AuditDraft(at: 1_800_000_000, actor: "ops", action: action, resource: resource, before: Array("{}".utf8), after: nil)
}

func document(_ key: String, _ body: String, revision: Int = 1) -> StoredDocument {
    StoredDocument(kind: "rollout", key: key, body: Array(body.utf8), revision: revision, updatedAt: 1_800_000_000, updatedBy: "ops")
}

/// Runs `body` and records an issue unless it throws ``StoreError/unavailable(_:)``.
func expectUnavailable<T>(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) {
    do {
        _ = try body()
        Issue.record("\(what): expected the store to be unavailable", sourceLocation: sourceLocation)
    } catch {
        guard case .unavailable? = error as? StoreError else {
            Issue.record("\(what): expected unavailable, got \(error)", sourceLocation: sourceLocation)
            return
        }
    }
}

/// Events reported to a listener's handler, and a way to wait for the ones a test expects.
final class EventLog: Sendable {
    private let events = Mutex<[ListenerEvent]>([])

    func append(_ event: ListenerEvent) { events.withLock { $0.append(event) } }

    var all: [ListenerEvent] { events.withLock { $0 } }

    /// Waits until `condition` holds for the events so far, for at most `seconds`.
    @discardableResult
    func wait(
        _ what: String, seconds: Double = 15, sourceLocation: SourceLocation = #_sourceLocation,
        until condition: ([ListenerEvent]) -> Bool
    ) -> [ListenerEvent] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let seen = all
            if condition(seen) { return seen }
            usleep(10_000)
        }
        Issue.record("waited \(seconds) s for \(what); events: \(all)", sourceLocation: sourceLocation)
        return all
    }
}
