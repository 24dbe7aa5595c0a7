import Foundation
import GRDB

/// The embedded store: one SQLite file in the data directory, through GRDB.
///
/// - WAL journal with `synchronous=FULL`: a commit is on disk (the WAL fsynced) before
///   ``commit(_:)`` returns, and readers never wait for the writer.
/// - Sized for thousands of screens of a few kilobytes each (``pageSize``, ``largeChangeBytes``):
///   one commit may import them all at start, and one ``load()`` reads them back.
/// - The schema is versioned by GRDB's migrator (`grdb_migrations`); ``open(path:)`` migrates an
///   older file forward and refuses a newer one.
/// - Every change, with its audit entries, is one transaction.
public final class SQLiteStore: RuntimeStore {
    /// The file name of the database in the data directory.
    public static let fileName = "trellis.sqlite"

    /// The page size of a new file (SQLite's default is 4 KB): a screen of a few kilobytes then
    /// fits in its table page instead of a chain of overflow pages, and importing 10,000 screens
    /// is a quarter of the page writes. A file keeps the page size it was created with.
    static let pageSize = 16_384

    /// SQLite checkpoints — copies the WAL into the database file and syncs it — inside the commit
    /// that takes the WAL past 1000 pages: for a change of megabytes of documents, the whole change
    /// written and synced a second time before the commit returns. A change with more document
    /// bytes than this is checkpointed right after its commit returns instead, on the writer's
    /// queue (a write arriving meanwhile waits for it).
    static let largeChangeBytes = 4 << 20

    private let pool: DatabasePool
    public let path: String

    /// Opens (creating if needed) and migrates the database at `path`.
    /// - Parameter busyTimeoutSeconds: how long a write waits for another connection holding the
    ///   write lock (a backup, an operator's `sqlite3` shell) before failing.
    public convenience init(path: String, busyTimeoutSeconds: Double = 5) throws(StoreError) {
        try self.init(path: path, busyTimeoutSeconds: busyTimeoutSeconds, synchronous: .full)
    }

    /// The store holds token hashes and webhook secrets: its files are its owner's alone. SQLite
    /// gives the `-wal` and `-shm` files it creates the database file's mode, so the file is made
    /// (or narrowed, when an earlier version made it) before SQLite opens it.
    static func restrictToOwner(_ path: String) {
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
        for file in [path, path + "-wal", path + "-shm"] { _ = chmod(file, 0o600) }
    }

    /// SQLite's `synchronous` levels this store can be opened with.
    enum Synchronous: String, Sendable {
        /// The WAL is synced at every commit: what Trellis runs with.
        case full = "FULL"
        /// FULL, and the directory synced after a journal is deleted (no difference in WAL mode).
        case extra = "EXTRA"
        /// In WAL mode, no sync at commit: a commit can be lost to a power cut. Tests only — it is
        /// how DurabilityProbeTests shows that its fsync check catches a missing sync.
        case normal = "NORMAL"
    }

    /// The store with another `synchronous` level; only tests open one (``init(path:busyTimeoutSeconds:)``
    /// is the store Trellis runs).
    init(path: String, busyTimeoutSeconds: Double = 5, synchronous: Synchronous) throws(StoreError) {
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeoutSeconds)
        let level = synchronous.rawValue
        configuration.prepareDatabase { db in
            // FULL: the WAL is synced at every commit, so an acknowledged change survives power loss.
            try db.execute(sql: "PRAGMA synchronous = \(level)")
            // Only takes effect on a file not created yet; before GRDB turns WAL on, which creates it.
            try db.execute(sql: "PRAGMA page_size = \(Self.pageSize)")
        }
        Self.restrictToOwner(path)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // DatabasePool turns WAL on in the writer *after* prepareDatabase, and sets
            // `synchronous = NORMAL` there (GRDB's Database.setUpWALMode): without this the writer
            // commits with no fsync of the WAL, and a power cut can take acknowledged changes.
            // The setting is the connection's, and the writer keeps its connection for the pool's life.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(level)")
                // A large change's pages stay in memory until its commit writes each once to the
                // WAL: spilled mid-transaction, a page rewritten later is written again, and every
                // frame after it is read back to be checksummed again at commit.
                try db.execute(sql: "PRAGMA cache_spill = OFF")
            }
            // A file written by a newer Trellis has migrations this one does not know: refuse it
            // rather than write rows the newer schema does not expect.
            if try pool.read(Self.migrator.hasBeenSuperseded) {
                throw StoreError.failure("\(path) was written by a newer version of trellis (unknown schema migrations)")
            }
            try Self.migrator.migrate(pool)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.failure("cannot open \(path): \(Self.describe(error))")
        }
    }

    /// What SQLite reports on the connection that commits (GRDB's writer) and on a reader of this
    /// store: `journal_mode` (`wal`) and `synchronous` (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA). The
    /// pragma is per connection and not stored in the file, so only the live connections can say.
    public func durabilitySettings() throws(StoreError) -> (writer: DurabilitySettings, reader: DurabilitySettings) {
        try run("read the store's pragmas") {
            let read = { (db: Database) throws -> DurabilitySettings in
                DurabilitySettings(
                    journalMode: try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
                    synchronous: try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1)
            }
            return (try pool.writeWithoutTransaction(read), try pool.read(read))
        }
    }

    public func load() throws(StoreError) -> StoredState {
        // One read transaction: the rows and the sequence come from the same snapshot.
        let changes = try read("read the store") { db in try Self.rows(after: nil, db) }
        return StoredState(documents: changes.documents, revisioned: changes.revisioned, sequence: changes.sequence)
    }

    public func changes(after sequence: Int64) throws(StoreError) -> StoredChanges {
        try read("read the changes after \(sequence)") { db in try Self.rows(after: sequence, db) }
    }

    public func latestSequence() throws(StoreError) -> Int64 {
        try read("read the latest sequence") { db in try Self.latestSequence(db) }
    }

    @discardableResult
    public func commit(_ change: StoreChange) throws(StoreError) -> Int64 {
        guard !change.isEmpty else { return try latestSequence() }
        let bytes = change.revisions.reduce(0) { $0 + $1.document.count } + change.documents.reduce(0) { $0 + $1.body.count }
        do {
            return try pool.writeWithoutTransaction { db in
                guard bytes > Self.largeChangeBytes else { return try Self.commit(change, db) }
                let automatic = try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") ?? 0
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
                defer { try? db.execute(sql: "PRAGMA wal_autocheckpoint = \(automatic)") }
                let sequence = try Self.commit(change, db)
                // After the commit: the change is durable in the WAL already, and a checkpoint that
                // fails leaves the pages there for the next one.
                pool.asyncWriteWithoutTransaction { db in _ = try? db.checkpoint(.passive) }
                return sequence
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.failure("cannot write the store: \(Self.describe(error))")
        }
    }

    /// Writes `change` in one transaction on the writer's connection.
    private static func commit(_ change: StoreChange, _ db: Database) throws -> Int64 {
        var sequence: Int64 = 0
        try db.inTransaction {
            // The counter first: SQLite has one writer at a time, so sequence order is commit order.
            sequence = try nextSequence(db)
            for document in change.documents { try write(document, sequence: sequence, db) }
            for revision in change.revisions { try insert(revision, sequence: sequence, db) }
            for head in change.heads { try write(head, sequence: sequence, db) }
            for entry in change.audit { try insert(entry, db) }
            return .commit
        }
        return sequence
    }

    public func revision(of key: RevisionedKey, number: Int) throws(StoreError) -> DocumentRevision? {
        try run("read a revision") {
            try pool.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT * FROM screen_revision WHERE screen = ? AND number = ?", arguments: [key.name, number]
                ).map(Self.revision)
            }
        }
    }

    public func revisions(of key: RevisionedKey) throws(StoreError) -> [DocumentRevisionSummary] {
        try run("read revisions") {
            try pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT screen, number, fingerprint, origin, copied_from, created_at, created_by, length(document) AS bytes
                        FROM screen_revision WHERE screen = ? ORDER BY number
                        """, arguments: [key.name]
                ).map(Self.summary)
            }
        }
    }

    public func audit(_ query: AuditQuery) throws(StoreError) -> [AuditEntry] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let after = query.after {
            conditions.append("id > ?")
            _ = arguments.append(contentsOf: [after])
        }
        if let resource = query.resource {
            conditions.append("(resource = ? OR substr(resource, 1, ?) = ?)")
            _ = arguments.append(contentsOf: [resource, resource.utf8.count + 1, resource + "/"])
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        // Without a cursor, the newest entries; either way they are returned oldest first.
        let order = query.after == nil ? "DESC" : "ASC"
        _ = arguments.append(contentsOf: [query.limit])
        let sql = "SELECT * FROM audit \(filter) ORDER BY id \(order) LIMIT ?"
        let frozen = arguments
        let entries = try run("read the audit log") {
            try pool.read { db in try Row.fetchAll(db, sql: sql, arguments: frozen).map(Self.auditEntry) }
        }
        return query.after == nil ? entries.reversed() : entries
    }

    public func backup(to path: String) throws(StoreError) {
        try run("back up to \(path)") {
            let destination = try DatabaseQueue(path: path)
            try pool.backup(to: destination)
            try destination.close()
        }
    }

    /// `body` in one read transaction (a snapshot), its errors as ``run(_:_:)`` gives them.
    func read<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        try run(what) { try pool.read(body) }
    }

    /// `body` in one write transaction, committed durably, its errors as ``run(_:_:)`` gives them.
    func write<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        try run(what) { try pool.write(body) }
    }

    /// Runs `body`: a ``StoreError`` it throws (a refused compare-and-set) as it is, any other
    /// error as ``StoreError/failure(_:)`` naming `what`.
    func run<T>(_ what: String, _ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.failure("cannot \(what): \(Self.describe(error))")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? error.description }
        return "\(error)"
    }
}

/// A connection's durability pragmas, as SQLite reports them.
public struct DurabilitySettings: Equatable, Sendable {
    /// `PRAGMA journal_mode`: `wal` for this store.
    public var journalMode: String
    /// `PRAGMA synchronous`: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
    public var synchronous: Int
}
