import TrellisJSON
import TrellisStore
import TrellisTargeting

/// An admin write held for approval, or for a time: the request as its author made it (method,
/// path, query, body), bound to the version of its target it was made against. Approving it
/// replays the write, as its author, only if the target is still at that version; otherwise the
/// request is stale. Editing it takes every approval back. Stored as a document of kind
/// ``kind`` whose key is its number, so it is durable, audited and seen by every replica.
struct ChangeRequest: Sendable, Equatable {
    static let kind = "change-request"

    enum Status: String, Sendable, CaseIterable {
        /// Waiting for approval.
        case pending
        /// Approved; applies at ``ChangeRequest/applyAt``.
        case approved
        /// The write was made.
        case applied
        case rejected
        /// Approved, but the write was refused when it was made (it no longer validates, say);
        /// `outcome` says why.
        case failed
        /// Its target moved since the request was made: approving it would overwrite a change
        /// nobody reviewed with it. Make a new request.
        case stale
        /// Withdrawn by its author.
        case cancelled

        /// Whether nothing more can happen to it.
        var isFinal: Bool { self != .pending && self != .approved }
    }

    struct QueryItem: Sendable, Equatable {
        var name: String
        var value: String
    }

    /// One approval or rejection.
    struct Review: Sendable, Equatable {
        var by: String
        var at: Double
        var approved: Bool
        var comment: String?
    }

    var id: Int
    var method: String
    /// The admin path written to, such as `/admin/rollouts/gold-banner`.
    var path: String
    /// The query parameters (`stage` → `10`), decoded, in order.
    var query: [QueryItem]
    var body: [UInt8]
    /// The entity tag of the target when the request was made (or last edited); nil when the
    /// target did not exist (a creation) or has no version of its own.
    var boundETag: String?
    var author: String
    var createdAt: Double
    var updatedAt: Double
    /// When an approved request applies (seconds since 1970); nil: as soon as it is approved.
    var applyAt: Double?
    var comment: String?
    var status: Status
    var reviews: [Review] = []
    /// Why it did not apply (stale), or the status the write was answered with.
    var outcome: String?

    /// The document's key: the number, zero-padded so that keys sort as numbers do.
    var key: String { Self.key(id) }
    static func key(_ id: Int) -> String {
        let digits = String(id)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }

    /// The path of the resource whose version the request is bound to: the written path without
    /// an action (`…/kill`, `…/promote`, `…/rollback`).
    var targetPath: String { Self.targetPath(of: path) }

    static let actions: Set<String> = ["kill", "reset", "promote", "abandon", "rollback", "stage"]

    static func targetPath(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), actions.contains(String(path[path.index(after: slash)...])) else { return path }
        return String(path[..<slash])
    }

    var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .number(id)), ("status", .string(status.rawValue)), ("method", .string(method)), ("path", .string(path)),
            ("query", .object(query.map { ($0.name, .string($0.value)) })), ("body", .string(String(decoding: body, as: UTF8.self))),
            ("boundETag", boundETag.map(JSONValue.string) ?? .null), ("author", .string(author)),
            ("createdAt", .string(RFC3339.string(fromSeconds: createdAt))), ("updatedAt", .string(RFC3339.string(fromSeconds: updatedAt))),
            ("applyAt", applyAt.map { .string(RFC3339.string(fromSeconds: $0)) } ?? .null), ("comment", comment.map(JSONValue.string) ?? .null),
        ]
        members.append(("reviews", .array(reviews.map { review in
            .object([
                ("by", .string(review.by)), ("at", .string(RFC3339.string(fromSeconds: review.at))),
                ("verdict", .string(review.approved ? "approved" : "rejected")), ("comment", review.comment.map(JSONValue.string) ?? .null),
            ])
        })))
        members.append(("outcome", outcome.map(JSONValue.string) ?? .null))
        return .object(members)
    }

    static func decode(_ bytes: [UInt8], source: String) -> Result<ChangeRequest, DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in
            let keys: Set<String> = [
                "id", "status", "method", "path", "query", "body", "boundETag", "author", "createdAt", "updatedAt", "applyAt", "comment",
                "reviews", "outcome",
            ]
            guard let object = collector.object(document, at: .root, allowedKeys: keys),
                let id = object.integer("id", in: 1...Int(Int32.max), required: true),
                let statusText = object.string("status", required: true),
                let method = object.string("method", required: true), let path = object.string("path", required: true),
                let body = object.string("body", required: true), let author = object.string("author", required: true),
                let createdAt = object.string("createdAt", required: true).flatMap(RFC3339.seconds(from:)),
                let updatedAt = object.string("updatedAt", required: true).flatMap(RFC3339.seconds(from:))
            else { return nil }
            guard let status = Status(rawValue: statusText) else {
                object.report("unknown status \"\(statusText)\"", atMember: "status")
                return nil
            }
            var reviews: [Review] = []
            for (i, item) in (object.value("reviews")?.arrayValue ?? []).enumerated() {
                guard let review = collector.object(item, at: .root.appending("reviews").appending(i), allowedKeys: ["by", "at", "verdict", "comment"]),
                    let by = review.string("by", required: true), let at = review.string("at", required: true).flatMap(RFC3339.seconds(from:)),
                    let verdict = review.string("verdict", required: true)
                else { return nil }
                let comment = review.value("comment")?.isNull == false ? review.string("comment") : nil
                reviews.append(Review(by: by, at: at, approved: verdict == "approved", comment: comment))
            }
            /// An optional string member, null when absent.
            func optional(_ key: String) -> String? { object.value(key)?.isNull == false ? object.string(key) : nil }
            return ChangeRequest(
                id: id, method: method, path: path, query: (object.value("query")?.objectValue ?? []).map { QueryItem(name: $0.key, value: $0.value.stringValue ?? "") }, body: Array(body.utf8),
                boundETag: optional("boundETag"), author: author, createdAt: createdAt, updatedAt: updatedAt,
                applyAt: optional("applyAt").flatMap(RFC3339.seconds(from:)), comment: optional("comment"), status: status,
                reviews: reviews, outcome: optional("outcome"))
        }
    }
}
