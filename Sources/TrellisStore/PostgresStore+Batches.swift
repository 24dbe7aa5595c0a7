/// Writing a change's revisions, heads and audit entries many rows to a statement: importing
/// 10,000 screens is a few dozen round trips instead of 40,000. Each column goes as one array
/// parameter that `unnest` turns back into rows; `RETURNING` tells which rows were written, and
/// the checks, their order and their messages are those of writing one row at a time.
extension PostgresStore {
    /// At most this many rows per statement…
    static let batchRows = 1_000
    /// …and at most this many bytes of documents (PostgreSQL takes at most 1 GB in one parameter).
    static let batchBytes = 16 << 20

    /// `items` in consecutive slices of at most ``batchRows`` items and ``batchBytes`` bytes (one
    /// item larger than that alone).
    static func batches<Item>(_ items: [Item], bytes: (Item) -> Int = { _ in 0 }) -> [ArraySlice<Item>] {
        var batches: [ArraySlice<Item>] = []
        var start = items.startIndex
        var size = 0
        for index in items.indices {
            let itemBytes = bytes(items[index])
            if index > start && (index - start == batchRows || size + itemBytes > batchBytes) {
                batches.append(items[start..<index])
                start = index
                size = 0
            }
            size += itemBytes
        }
        if start < items.endIndex { batches.append(items[start...]) }
        return batches
    }

    /// A screen's revision, as a set member.
    struct RevisionKey: Hashable {
        var screen: String
        var number: Int
    }

    static func insert(_ revisions: [DocumentRevision], sequence: Int64, _ connection: PostgresConnection) throws(StoreError) {
        for batch in batches(revisions, bytes: \.document.count) {
            let inserted = try connection.execute(
                """
                INSERT INTO screen_revision (\(revisionColumns), sequence)
                SELECT *, $9
                FROM unnest($1::text[], $2::int8[], $3::bytea[], $4::text[], $5::text[], $6::int8[], $7::float8[], $8::text[])
                ON CONFLICT (screen, number) DO NOTHING
                RETURNING screen, number
                """,
                [
                    .array(batch.map(\.key.name)), .array(batch.map(\.number)), .array(batch.map(\.document)),
                    .array(batch.map(\.fingerprint)), .array(batch.map(\.origin.rawValue)), .array(batch.map(\.copiedFrom)),
                    .array(batch.map(\.createdAt)), .array(batch.map(\.createdBy)), .int(sequence),
                ])
            var written: Set<RevisionKey> = []
            for row in inserted.rows { written.insert(RevisionKey(screen: try row.text("screen"), number: try row.int("number"))) }
            // Of two with the same number, the first was written and the second conflicts.
            for revision in batch where written.remove(RevisionKey(screen: revision.key.name, number: revision.number)) == nil {
                throw alreadyThere(revision)
            }
        }
    }

    static func write(_ heads: [DocumentHead], sequence: Int64, _ connection: PostgresConnection) throws(StoreError) {
        // A second head of the same screen replaces the first: only one at a time says so.
        guard Set(heads.map(\.key.name)).count == heads.count else {
            for head in heads { try write(head, sequence: sequence, connection) }
            return
        }
        for batch in batches(heads) {
            // New heads (version 1) are inserted, the others replace their previous version.
            var written: Set<String> = []
            for row in try connection.execute(
                """
                WITH u AS (
                    SELECT * FROM unnest($1::text[], $2::int8[], $3::int8[], $4::int8[], $5::int8[], $6::float8[], $7::text[])
                        AS u(screen, current, staged, staged_basis_points, version, updated_at, updated_by)
                ), inserted AS (
                    INSERT INTO screen_head (\(headColumns), sequence) SELECT *, $8 FROM u WHERE version = 1
                    ON CONFLICT (screen) DO NOTHING
                    RETURNING screen
                ), updated AS (
                    UPDATE screen_head h
                    SET current = u.current, staged = u.staged, staged_basis_points = u.staged_basis_points, version = u.version,
                        updated_at = u.updated_at, updated_by = u.updated_by, sequence = $8
                    FROM u WHERE u.version > 1 AND h.screen = u.screen AND h.version = u.version - 1
                    RETURNING h.screen
                )
                SELECT screen FROM inserted UNION ALL SELECT screen FROM updated
                """,
                [
                    .array(batch.map(\.key.name)), .array(batch.map(\.current)), .array(batch.map(\.staged)),
                    .array(batch.map(\.stagedBasisPoints)), .array(batch.map(\.version)), .array(batch.map(\.updatedAt)),
                    .array(batch.map(\.updatedBy)), .int(sequence),
                ]
            ).rows {
                written.insert(try row.text("screen"))
            }
            let served = batch.flatMap { head in
                [head.current, head.staged].compactMap { $0 }.map { RevisionKey(screen: head.key.name, number: $0) }
            }
            var missing: Set<RevisionKey> = []
            for row in try connection.execute(
                """
                SELECT u.screen, u.number FROM unnest($1::text[], $2::int8[]) AS u(screen, number)
                WHERE NOT EXISTS (SELECT 1 FROM screen_revision r WHERE r.screen = u.screen AND r.number = u.number)
                """, [.array(served.map(\.screen)), .array(served.map(\.number))]
            ).rows {
                missing.insert(RevisionKey(screen: try row.text("screen"), number: try row.int("number")))
            }
            for head in batch {
                guard written.contains(head.key.name) else { throw notReplaced(head) }
                for number in [head.current, head.staged].compactMap({ $0 }) {
                    guard !missing.contains(RevisionKey(screen: head.key.name, number: number)) else {
                        throw missingRevision(head.key.name, number)
                    }
                }
            }
        }
    }

    static func insert(_ entries: [AuditDraft], _ connection: PostgresConnection) throws(StoreError) {
        for batch in batches(entries, bytes: { ($0.before?.count ?? 0) + ($0.after?.count ?? 0) }) {
            // Text, as SQLiteStore keeps it (the server's JSON is UTF-8); ids in the change's order.
            try connection.execute(
                """
                INSERT INTO audit (at, actor, action, resource, before, after)
                SELECT at, actor, action, resource, before, after
                FROM unnest($1::float8[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY
                    AS u(at, actor, action, resource, before, after, position)
                ORDER BY position
                """,
                [
                    .array(batch.map(\.at)), .array(batch.map(\.actor)), .array(batch.map(\.action)), .array(batch.map(\.resource)),
                    .array(batch.map { $0.before.map { String(decoding: $0, as: UTF8.self) } }),
                    .array(batch.map { $0.after.map { String(decoding: $0, as: UTF8.self) } }),
                ])
        }
    }
}
