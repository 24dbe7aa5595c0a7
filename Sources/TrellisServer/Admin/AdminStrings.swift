import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStore

/// `/admin/strings`: every locale's string table, what each lacks, and each table's history (its
/// writes are commands: ``AdminWrites``). A table is checked whole before it is stored, and with
/// every screen that shows its strings.
extension AdminEndpoints {
    func registerStrings(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/strings") { request, _, context, actor throws(Problem) in
            Self.resource(ResourceView.stringCoverage(in: state.published.snapshot))
        }
        routes.add(.get, "/admin/strings/{locale}") { request, parameters, context, actor throws(Problem) in
            let locale = parameters["locale"] ?? ""
            let snapshot = state.published.snapshot
            let (head, stored) = try Self.existingStrings(locale, in: snapshot)
            let document = (try? JSONParser.parse(stored.current.document)) ?? .null
            return Self.resource(.object(head + [("table", document)]), etag: Revisioned.strings(locale).version(stored.head))
        }
        routes.add(.get, "/admin/strings/{locale}/revisions", replying: { request, parameters, context, actor throws(Problem) in
            let locale = parameters["locale"] ?? ""
            let (head, _) = try Self.existingStrings(locale, in: state.published.snapshot)
            return revisions(request, context, .strings(locale), head: head)
        })
        routes.add(.get, "/admin/strings/{locale}/revisions/{revision}", replying: { request, parameters, context, actor throws(Problem) in
            let locale = parameters["locale"] ?? ""
            _ = try Self.existingStrings(locale, in: state.published.snapshot)
            return try revisionDocument(request, context, .strings(locale), revision: parameters["revision"] ?? "")
        })
    }

    /// The head members and stored state of `locale`'s table; 404 naming the locales there are.
    static func existingStrings(_ locale: String, in snapshot: Snapshot) throws(Problem) -> ([(String, JSONValue)], RevisionedDocument) {
        guard let stored = snapshot.runtime.strings[locale], let head = ResourceView.stringsHeadMembers(locale, in: snapshot) else {
            throw Problem(Runtime.notFound("string table", locale, known: snapshot.runtime.strings.keys))
        }
        return (head, stored)
    }
}
