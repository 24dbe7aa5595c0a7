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
