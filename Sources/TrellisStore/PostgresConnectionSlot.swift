import Synchronization

/// One connection, made when first needed and used by one caller at a time.
///
/// A connection found broken is dropped, and the call throws ``StoreError/unavailable(_:)``; the
/// next call connects again. No call sleeps or retries beyond one case: a connection that was
/// kept idle and fails the very first statement of a call (the server restarted, or closed it
/// while idle) did nothing for that call, so the call is run once more on a new connection.
final class PostgresConnectionSlot: Sendable {
    private let settings: PostgresSettings
    private let connection = Mutex<PostgresConnection?>(nil)

    init(_ settings: PostgresSettings) {
        self.settings = settings
    }

    /// Runs `body` with the connection, connecting first if there is none.
    func run<T: Sendable>(_ body: (PostgresConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try connection.withLock { (slot) throws(StoreError) -> T in
            if let kept = slot {
                guard kept.isUsable else {
                    slot = nil
                    return try Self.runOnNewConnection(&slot, settings, body)
                }
                let before = kept.completedStatements
                do throws(StoreError) {
                    return try body(kept)
                } catch {
                    guard !kept.isUsable else { throw error }
                    slot = nil
                    guard case .unavailable = error, kept.completedStatements == before else { throw error }
                }
            }
            return try Self.runOnNewConnection(&slot, settings, body)
        }
    }

    private static func runOnNewConnection<T>(
        _ slot: inout PostgresConnection?, _ settings: PostgresSettings, _ body: (PostgresConnection) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        let fresh = try settings.connect()
        slot = fresh
        do {
            return try body(fresh)
        } catch {
            if !fresh.isUsable { slot = nil }
            throw error
        }
    }
}
