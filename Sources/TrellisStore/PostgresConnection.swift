import CLibPQ
import Foundation

/// How to reach a PostgreSQL server: a `postgres://` URL (or any libpq connection string) and the
/// defaults Trellis adds to it, which the URL overrides.
struct PostgresSettings: Sendable {
    /// libpq keywords and values applied before the URL's own.
    let defaults: [(keyword: String, value: String)]
    let url: String
    /// The server and database without user or password, for messages and logs.
    let location: String

    /// How long a connection attempt may take, in seconds, when the URL does not say.
    static let defaultConnectTimeoutSeconds = 3

    /// Checks `url` (without connecting).
    /// - Parameter extra: more defaults (e.g. TCP keepalives for a connection that only waits).
    init(url: String, applicationName: String, extra: [(keyword: String, value: String)] = []) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            let reason = message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "out of memory"
            PQfreemem(message)
            throw StoreError.failure("invalid PostgreSQL URL: \(reason)")
        }
        defer { PQconninfoFree(options) }
        var given: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { given[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        let host = given["hostaddr"] ?? given["host"] ?? "localhost"
        location = "PostgreSQL database \(given["dbname"] ?? given["user"] ?? "?") on \(host):\(given["port"] ?? "5432")"
        self.url = url
        defaults =
            [
                ("connect_timeout", String(Self.defaultConnectTimeoutSeconds)),
                ("application_name", applicationName),
                // Text columns come back as UTF-8 whatever the server's encoding.
                ("client_encoding", "UTF8"),
            ] + extra
    }

    /// A new connection, or ``StoreError/unavailable(_:)`` saying why there is none.
    func connect() throws(StoreError) -> PostgresConnection {
        // libpq applies keywords in order and the last one wins: the URL comes last, expanded
        // (`expand_dbname`), so what it says overrides the defaults.
        let keywords = defaults.map(\.keyword) + ["dbname"]
        let values = defaults.map(\.value) + [url]
        let handle = withCStringArray(keywords) { keywords in
            withCStringArray(values) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let handle else { throw StoreError.unavailable("cannot connect to \(location): out of memory") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let reason = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(handle)
            throw StoreError.unavailable("cannot connect to \(location): \(reason)")
        }
        // Notices ("relation already exists, skipping") would go to stderr; nothing in them needs acting on.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        return PostgresConnection(handle, location: location)
    }
}

/// `strings` as a NULL-terminated array of C strings, valid during `body`.
private func withCStringArray<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
    let copies = strings.map { strdup($0) } + [nil]
    defer { for copy in copies { free(copy) } }
    return copies.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// One value passed to a query, in PostgreSQL's binary format; nil is SQL NULL.
enum PostgresValue {
    case int(Int64?)
    case double(Double?)
    case text(String?)
    case bytes([UInt8]?)

    static func int(_ value: Int?) -> PostgresValue { .int(value.map(Int64.init)) }

    /// The type's OID (pg_type) and the value's bytes.
    var binary: (type: Oid, bytes: [UInt8]?) {
        switch self {
        case .int(let value): (20, value.map { withUnsafeBytes(of: $0.bigEndian, Array.init) })  // int8
        case .double(let value): (701, value.map { withUnsafeBytes(of: $0.bitPattern.bigEndian, Array.init) })  // float8
        case .text(let value): (25, value.map { Array($0.utf8) })  // text
        case .bytes(let value): (17, value)  // bytea
        }
    }
}

/// One libpq connection. libpq allows one thread at a time on a connection: a store's connections
/// are only used under their ``PostgresConnectionSlot``'s lock, and the listener's only by its
/// thread. `@unchecked Sendable` so that the slot's lock may lend it to the caller's closure
/// (region checking cannot see that the closure never keeps it).
final class PostgresConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    let location: String
    /// Statements that succeeded on this connection, to tell whether a call did anything before failing.
    private(set) var completedStatements = 0

    init(_ handle: OpaquePointer, location: String) {
        self.handle = handle
        self.location = location
    }

    deinit { PQfinish(handle) }

    /// Connected, and not inside a transaction a failure left open.
    var isUsable: Bool { PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// The socket, for waiting on notifications.
    var socket: Int32 { PQsocket(handle) }

    /// Runs one statement with `parameters` ($1, $2, …) and binary results.
    @discardableResult
    func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(StoreError) -> PostgresResult {
        var types: [Oid] = []
        var lengths: [Int32] = []
        var offsets: [Int?] = []
        var storage: [UInt8] = []
        for parameter in parameters {
            let (type, bytes) = parameter.binary
            types.append(type)
            if let bytes {
                offsets.append(storage.count)
                lengths.append(Int32(bytes.count))
                storage += bytes
            } else {
                offsets.append(nil)
                lengths.append(0)
            }
        }
        // One byte more, so that every value, empty ones too, points into real memory (a NULL
        // pointer would mean SQL NULL).
        storage.append(0)
        let formats = [Int32](repeating: 1, count: parameters.count)
        let result = storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let values = offsets.map { offset in offset.map { (base + $0).assumingMemoryBound(to: CChar.self) } }
            return PQexecParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, 1)
        }
        return try checked(result)
    }

    /// Runs `sql`, which may hold several statements and no parameters (a migration).
    func executeScript(_ sql: String) throws(StoreError) {
        _ = try checked(PQexec(handle, sql))
    }

    /// `body` in one transaction opened with `begin`: committed when it returns, rolled back when it throws.
    func transaction<T>(_ begin: String = "BEGIN", _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute(begin)
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) != PQTRANS_IDLE { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `sql` through a cursor, `batchSize` rows at a time, giving each row to `body`: a large
    /// table is never whole in memory. Only inside a transaction.
    func forEachRow(_ sql: String, batchSize: Int = 256, _ body: (PostgresRow) throws(StoreError) -> Void) throws(StoreError) {
        try execute("DECLARE trellis_rows NO SCROLL CURSOR FOR \(sql)")
        while true {
            // FETCH through the extended protocol returns binary rows, as asked, whatever the cursor says.
            let batch = try execute("FETCH \(batchSize) FROM trellis_rows")
            if batch.count == 0 { break }
            for row in batch.rows { try body(row) }
        }
        try execute("CLOSE trellis_rows")
    }

    /// Waits for nothing: reads what the server sent (notifications) without blocking.
    /// - Returns: false when the connection is gone.
    func consumeInput() -> Bool { PQconsumeInput(handle) == 1 && PQstatus(handle) == CONNECTION_OK }

    /// The notifications read so far, in order: each one's channel and payload.
    func notifications() -> [(channel: String, payload: String)] {
        var notifications: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            notifications.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return notifications
    }

    var errorMessage: String { String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines) }

    /// The result when it succeeded; otherwise the error it carries, classified.
    private func checked(_ result: OpaquePointer?) throws(StoreError) -> PostgresResult {
        guard let result else { throw StoreError.unavailable("\(location): \(errorMessage)") }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY {
            completedStatements += 1
            return PostgresResult(result)
        }
        defer { PQclear(result) }
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        let state = field("C")  // PG_DIAG_SQLSTATE
        let message = field("M") ?? PQresultErrorMessage(result).map { String(cString: $0) } ?? errorMessage  // PG_DIAG_MESSAGE_PRIMARY
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        switch Self.classify(sqlState: state, connected: PQstatus(handle) == CONNECTION_OK) {
        case .unavailable: throw StoreError.unavailable("\(location): \(trimmed)")
        case .conflict: throw StoreError.conflict(field("D").map { "\(trimmed): \($0)" } ?? trimmed)  // PG_DIAG_MESSAGE_DETAIL
        case .failure: throw StoreError.failure(trimmed)
        }
    }

    enum ErrorKind: Equatable { case unavailable, conflict, failure }

    /// What a failed statement means for the caller, from its SQLSTATE (PostgreSQL, Appendix A).
    static func classify(sqlState: String?, connected: Bool) -> ErrorKind {
        guard connected, let sqlState else { return .unavailable }  // no SQLSTATE: libpq's own (connection) error
        // 08: connection exception; 57P01–57P03: the server shutting down or starting;
        // 57014: a statement or lock timeout the URL's options set; 53300: too many connections.
        if sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "57014", "53300"].contains(sqlState) { return .unavailable }
        if sqlState == "23505" { return .conflict }  // unique_violation
        return .failure
    }
}

/// A query's rows, freed with the value.
final class PostgresResult {
    fileprivate let handle: OpaquePointer

    fileprivate init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    var count: Int { Int(PQntuples(handle)) }
    /// Rows an INSERT, UPDATE or DELETE touched.
    var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }
    var rows: [PostgresRow] { (0..<count).map { PostgresRow(result: self, index: Int32($0)) } }
}

/// One row of a ``PostgresResult``, its columns read by name from PostgreSQL's binary format.
struct PostgresRow {
    let result: PostgresResult
    let index: Int32

    private func column(_ name: String) throws(StoreError) -> Int32 {
        let column = PQfnumber(result.handle, name)
        guard column >= 0 else { throw StoreError.failure("a query returned no column \(name)") }
        return column
    }

    /// The value's bytes, nil for NULL.
    private func raw(_ name: String) throws(StoreError) -> (type: Oid, bytes: UnsafeRawBufferPointer)? {
        let column = try column(name)
        guard PQgetisnull(result.handle, index, column) == 0 else { return nil }
        let start = UnsafeRawPointer(PQgetvalue(result.handle, index, column)!)
        return (PQftype(result.handle, column), UnsafeRawBufferPointer(start: start, count: Int(PQgetlength(result.handle, index, column))))
    }

    func optionalInt64(_ name: String) throws(StoreError) -> Int64? {
        guard let (type, bytes) = try raw(name) else { return nil }
        switch (type, bytes.count) {
        case (20, 8): return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))  // int8
        case (23, 4): return Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self)))  // int4
        case (21, 2): return Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self)))  // int2
        default: throw StoreError.failure("column \(name) is not an integer (type \(type))")
        }
    }

    func optionalInt(_ name: String) throws(StoreError) -> Int? { try optionalInt64(name).map { Int($0) } }

    func int64(_ name: String) throws(StoreError) -> Int64 {
        guard let value = try optionalInt64(name) else { throw StoreError.failure("column \(name) is NULL") }
        return value
    }

    func int(_ name: String) throws(StoreError) -> Int { Int(try int64(name)) }

    func double(_ name: String) throws(StoreError) -> Double {
        guard let (type, bytes) = try raw(name) else { throw StoreError.failure("column \(name) is NULL") }
        guard type == 701, bytes.count == 8 else { throw StoreError.failure("column \(name) is not a float8 (type \(type))") }
        return Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
    }

    func optionalText(_ name: String) throws(StoreError) -> String? {
        guard let (type, bytes) = try raw(name) else { return nil }
        guard [25, 1043, 19].contains(type) else { throw StoreError.failure("column \(name) is not text (type \(type))") }  // text, varchar, name
        return String(decoding: bytes, as: UTF8.self)
    }

    func text(_ name: String) throws(StoreError) -> String {
        guard let value = try optionalText(name) else { throw StoreError.failure("column \(name) is NULL") }
        return value
    }

    func bytes(_ name: String) throws(StoreError) -> [UInt8] {
        guard let (type, bytes) = try raw(name) else { throw StoreError.failure("column \(name) is NULL") }
        guard type == 17 else { throw StoreError.failure("column \(name) is not bytea (type \(type))") }
        return Array(bytes)
    }
}
