import TrellisJSON
import TrellisStore
import TrellisTargeting

/// A command held for approval, or for a time: the command as its author made it (its
/// ``CommandForm``), bound to the version of its target it was made against. Approving it makes
/// the command, as its author, only if the target is still at that version; otherwise the request
/// is stale. Editing it takes every approval back. Stored as a document of kind ``kind`` whose key
/// is its number, so it is durable, audited and seen by every replica.
package struct ChangeRequest: Sendable, Equatable {
    package static let kind = "change-request"

    package enum Status: String, Sendable, CaseIterable {
        /// Waiting for approval.
        case pending
        /// Approved; applies at ``ChangeRequest/applyAt``.
        case approved
        /// The command was made.
        case applied
        case rejected
        /// Approved, but the command was refused when it was made (it no longer validates, say);
        /// `outcome` says why.
        case failed
        /// Its target moved since the request was made: approving it would overwrite a change
        /// nobody reviewed with it. Make a new request.
        case stale
        /// Withdrawn by its author.
        case cancelled

        /// Whether nothing more can happen to it.
        package var isFinal: Bool { self != .pending && self != .approved }
    }

    /// One approval or rejection.
    package struct Review: Sendable, Equatable {
        package var by: String
        package var at: Double
        package var approved: Bool
        package var comment: String?
    }

    package var id: Int
    package var command: CommandForm
    /// The version of the command's target when the request was made (or last edited); nil when
    /// the target did not exist (a creation) or has no version of its own.
    package var boundVersion: String?
    package var author: String
    package var createdAt: Double
    package var updatedAt: Double
    /// When an approved request applies (seconds since 1970); nil: as soon as it is approved.
    package var applyAt: Double?
    package var comment: String?
    package var status: Status
    package var reviews: [Review] = []
    /// Why it did not apply (stale, refused).
    package var outcome: String?

    /// The document's key: the number, zero-padded so that keys sort as numbers do.
    package var key: String { Self.key(id) }
    package static func key(_ id: Int) -> String {
        let digits = String(id)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }

    /// The members every form of a request shares, in the order they are written.
    package var commonMembers: (head: [(String, JSONValue)], tail: [(String, JSONValue)]) {
        let head: [(String, JSONValue)] = [("id", .number(id)), ("status", .string(status.rawValue))]
        var tail: [(String, JSONValue)] = [
            ("author", .string(author)), ("createdAt", .string(RFC3339.string(fromSeconds: createdAt))),
            ("updatedAt", .string(RFC3339.string(fromSeconds: updatedAt))),
            ("applyAt", applyAt.map { .string(RFC3339.string(fromSeconds: $0)) } ?? .null), ("comment", comment.map(JSONValue.string) ?? .null),
        ]
        tail.append(("reviews", .array(reviews.map { review in
            .object([
                ("by", .string(review.by)), ("at", .string(RFC3339.string(fromSeconds: review.at))),
                ("verdict", .string(review.approved ? "approved" : "rejected")), ("comment", review.comment.map(JSONValue.string) ?? .null),
            ])
        })))
        tail.append(("outcome", outcome.map(JSONValue.string) ?? .null))
        return (head, tail)
    }

    /// The stored document.
    package var storedValue: JSONValue {
        let (head, tail) = commonMembers
        return .object(head + [("command", command.jsonValue), ("boundVersion", boundVersion.map(JSONValue.string) ?? .null)] + tail)
    }

    /// Reads a stored request: of this version (a `command`), or of version 0 (the admin write
    /// that made it: `method`, `path`, `query`, `body`, `boundETag`).
    package static func decode(_ bytes: [UInt8], source: String) -> Result<ChangeRequest, DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in
            let keys: Set<String> = [
                "id", "status", "command", "boundVersion", "method", "path", "query", "body", "boundETag", "author", "createdAt", "updatedAt",
                "applyAt", "comment", "reviews", "outcome",
            ]
            guard let object = collector.object(document, at: .root, allowedKeys: keys),
                let id = object.integer("id", in: 1...Int(Int32.max), required: true),
                let statusText = object.string("status", required: true),
                let author = object.string("author", required: true),
                let createdAt = object.string("createdAt", required: true).flatMap(RFC3339.seconds(from:)),
                let updatedAt = object.string("updatedAt", required: true).flatMap(RFC3339.seconds(from:)),
                let command = decodeCommand(object, collector)
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
                id: id, command: command, boundVersion: optional("boundVersion") ?? optional("boundETag"), author: author, createdAt: createdAt,
                updatedAt: updatedAt, applyAt: optional("applyAt").flatMap(RFC3339.seconds(from:)), comment: optional("comment"), status: status,
                reviews: reviews, outcome: optional("outcome"))
        }
    }

    private static func decodeCommand(_ object: JSONObjectReader, _ collector: DiagnosticsCollector) -> CommandForm? {
        if let value = object.value("command") {
            guard let command = collector.object(value, at: .root.appending("command"), allowedKeys: ["version", "name", "arguments", "body"]),
                let name = command.string("name", required: true), let body = command.string("body", required: true)
            else { return nil }
            let arguments = (command.value("arguments")?.objectValue ?? []).map { ($0.key, $0.value.stringValue ?? "") }
            return CommandForm(name: name, arguments: Dictionary(arguments, uniquingKeysWith: { $1 }), body: Array(body.utf8))
        }
        guard let method = object.string("method", required: true), let path = object.string("path", required: true),
            let body = object.string("body", required: true)
        else { return nil }
        let query = (object.value("query")?.objectValue ?? []).map { ($0.key, $0.value.stringValue ?? "") }
        // A version 0 write this version does not know stays readable, and fails if approved.
        return CommandForm(version0Method: method, path: path, query: query, body: Array(body.utf8))
            ?? CommandForm(name: "\(method) \(path)", body: Array(body.utf8))
    }
}
