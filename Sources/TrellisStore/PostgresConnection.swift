import CLibPQ
import Foundation

/// One value passed to a query, in PostgreSQL's binary format; nil is SQL NULL.
enum PostgresValue {
    case int(Int64?)
    case double(Double?)
    case text(String?)
    case bytes([UInt8]?)
    /// A one-dimensional array of values of one of the cases above, whose type is `element`: one
    /// parameter for a column of many rows, which a statement turns into rows with `unnest`.
    indirect case array([PostgresValue], element: Oid)

    static func int(_ value: Int?) -> PostgresValue { .int(value.map(Int64.init)) }
    static func array(_ values: [Int?]) -> PostgresValue { .array(values.map { .int($0) }, element: int8OID) }
    static func array(_ values: [Double]) -> PostgresValue { .array(values.map { .double($0) }, element: float8OID) }
    static func array(_ values: [String?]) -> PostgresValue { .array(values.map { .text($0) }, element: textOID) }
    static func array(_ values: [[UInt8]]) -> PostgresValue { .array(values.map { .bytes($0) }, element: byteaOID) }

    // Type OIDs (pg_type).
    static let int8OID: Oid = 20
    static let float8OID: Oid = 701
    static let textOID: Oid = 25
    static let byteaOID: Oid = 17
    /// The array type of each element type above.
    static let arrayTypes: [Oid: Oid] = [int8OID: 1016, float8OID: 1022, textOID: 1009, byteaOID: 1001]

    /// The type's OID and the value's bytes.
    var binary: (type: Oid, bytes: [UInt8]?) {
        switch self {
        case .int(let value): (Self.int8OID, value.map { withUnsafeBytes(of: $0.bigEndian, Array.init) })
        case .double(let value): (Self.float8OID, value.map { withUnsafeBytes(of: $0.bitPattern.bigEndian, Array.init) })
        case .text(let value): (Self.textOID, value.map { Array($0.utf8) })
        case .bytes(let value): (Self.byteaOID, value)
        case .array(let values, let element): (Self.arrayTypes[element] ?? 0, Self.binaryArray(values.map(\.binary.bytes), of: element))
        }
    }

    /// PostgreSQL's binary array (array_send): dimensions, whether any element is NULL, the
    /// element type, the one dimension's length and lower bound, then each element's length (-1
    /// for NULL) and bytes.
    private static func binaryArray(_ elements: [[UInt8]?], of type: Oid) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        func append(_ value: Int32) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
        append(1)
        append(elements.contains(nil) ? 1 : 0)
        append(Int32(bitPattern: type))
        append(Int32(elements.count))
        append(1)
        for element in elements {
            if let element {
                append(Int32(element.count))
                bytes += element
            } else {
                append(-1)
            }
        }
        return bytes
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

    /// `body` in one transaction opened with `begin`: committed when it returns, rolled back when it
    /// throws. A connection lost during COMMIT is ``StoreError/unknownOutcome(_:)``.
    func transaction<T>(_ begin: String = "BEGIN", _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute(begin)
        let value: T
        do {
            value = try body()
        } catch {
            if PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) != PQTRANS_IDLE { _ = try? execute("ROLLBACK") }
            throw error
        }
        do {
            try execute("COMMIT")
        } catch .unavailable(let detail) {
            // COMMIT was sent: the server may have committed before the connection went.
            throw .unknownOutcome(detail)
        }
        return value
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
