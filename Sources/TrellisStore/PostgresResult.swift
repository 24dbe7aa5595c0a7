import CLibPQ
import Foundation

/// A query's rows, freed with the value.
final class PostgresResult {
    fileprivate let handle: OpaquePointer

    /// Takes over `handle`, a successful result (``PostgresConnection`` checks it first).
    init(_ handle: OpaquePointer) { self.handle = handle }

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
        guard let value = try optionalDouble(name) else { throw StoreError.failure("column \(name) is NULL") }
        return value
    }

    func optionalDouble(_ name: String) throws(StoreError) -> Double? {
        guard let (type, bytes) = try raw(name) else { return nil }
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
