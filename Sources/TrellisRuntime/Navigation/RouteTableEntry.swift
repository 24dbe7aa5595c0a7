import TrellisAnswers
import TrellisJSON
import TrellisRoutes

/// The route table a snapshot serves: the table, its revision, and its listing pre-encoded.
public struct RouteTableEntry: Sendable {
    public let table: RouteTable
    public let revision: Int
    /// Identifies the table's content regardless of formatting (a changed file, a republished table).
    public let fingerprint: String
    /// The table as authored, for locating diagnostics by line.
    package let document: [UInt8]
    /// `GET /v1/routes`: compact and pretty.
    package let list: (compact: EncodedBody, pretty: EncodedBody)

    package init(table: RouteTable, revision: Int, document: [UInt8]) {
        self.table = table
        self.revision = revision
        self.document = document
        fingerprint = Self.fingerprint(of: document)
        let value = JSONValue.object([("revision", .number(revision))] + (table.jsonValue.objectValue ?? []).map { ($0.key, $0.value) })
        list = (
            EncodedBody(bytes: JSONWriter.encode(value), compression: .cachedAnswer),
            EncodedBody(bytes: JSONWriter.encode(value, style: .pretty), compression: .cachedAnswer))
    }

    /// The fingerprint of the table's JSON with formatting removed; a document that is not JSON
    /// (never stored: tables are decoded first) fingerprints its bytes.
    public static func fingerprint(of document: [UInt8]) -> String {
        EncodedBody.fingerprint((try? JSONParser.parse(document)).map { JSONWriter.encode($0) } ?? document)
    }
}
