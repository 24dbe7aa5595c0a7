import Foundation
import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request and its answer as they crossed the wire, recorded by `Recorder`.
struct Exchange: Sendable {
    var target = ""
    /// If-None-Match exactly as the generated client sent it.
    var ifNoneMatch: String?
    var status = 0
    var contentType = ""
    var body = Data()
}

actor ExchangeLog {
    private(set) var last = Exchange()
    func record(_ exchange: Exchange) { last = exchange }
}

/// Keeps the bytes of every answer, so a decoded value can be compared with what the server sent.
struct Recorder: ClientMiddleware {
    let log: ExchangeLog

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        var bytes = Data()
        if let responseBody { bytes = try await Data(collecting: responseBody, upTo: 64 << 20) }
        await log.record(Exchange(
            target: request.path ?? "", ifNoneMatch: request.headerFields[.ifNoneMatch], status: response.status.code,
            contentType: response.headerFields[.contentType] ?? "", body: bytes))
        return (response, responseBody == nil ? nil : HTTPBody(bytes))
    }
}

/// The admin token as a bearer token: the generator leaves security schemes to middleware.
struct BearerToken: ClientMiddleware {
    let token: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if request.path?.hasPrefix("/admin/") == true { request.headerFields[.authorization] = "Bearer \(token)" }
        return try await next(request, body, baseURL)
    }
}

/// RFC 3339 as Trellis writes it: milliseconds only when there are some (`…T12:00:00Z`,
/// `…T12:00:00.250Z`). The runtime's `.iso8601` reads only the first and
/// `.iso8601WithFractionalSeconds` only the second, so a client needs both. The milliseconds are
/// written here, not by ISO8601FormatStyle, which truncates: .560 s held as a Double is .5599….
struct TrellisDates: DateTranscoder {
    func encode(_ date: Date) throws -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = (millis - ((millis % 1000) + 1000) % 1000, ((millis % 1000) + 1000) % 1000)
        let whole = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: Double(seconds) / 1000))
        guard fraction != 0 else { return whole }
        return whole.dropLast() + "." + String(String(1000 + fraction).dropFirst()) + "Z"
    }

    func decode(_ text: String) throws -> Date {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try Date.ISO8601FormatStyle().parse(text)
    }
}

/// A JSON value, to compare what the server sent with a typed value re-encoded: numbers compare
/// numerically (`1` = `1.0`), object members in any order.
indirect enum JSON: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSON]), object([String: JSON])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSON].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSON].self))
        }
    }

    /// Where `typed` differs from `self`. A member that is null on one side and absent on the other
    /// is no difference: a Swift optional cannot tell them apart, and the spec means the same by both.
    func differences(from typed: JSON, at path: String = "$", into out: inout [String]) {
        switch (self, typed) {
        case (.object(let a), .object(let b)):
            for key in Set(a.keys).union(b.keys).sorted() {
                (a[key] ?? .null).differences(from: b[key] ?? .null, at: path + "." + key, into: &out)
            }
        case (.array(let a), .array(let b)) where a.count == b.count:
            for (i, (x, y)) in zip(a, b).enumerated() { x.differences(from: y, at: "\(path)[\(i)]", into: &out) }
        default:
            if self != typed { out.append("\(path): sent \(brief), re-encoded \(typed.brief)") }
        }
    }

    var brief: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .number(let n): "\(n)"
        case .string(let s): "\"\(s.prefix(40))\""
        case .array(let a): "an array of \(a.count)"
        case .object(let o): "an object with \(o.keys.sorted().prefix(6).joined(separator: ", "))"
        }
    }
}

/// Runs the calls, prints one line each, and counts.
final class Checker {
    let log: ExchangeLog
    let encoder: JSONEncoder
    private(set) var called: Set<String> = []
    private(set) var calls = 0
    private(set) var failures: [String] = []

    init(log: ExchangeLog, dates: TrellisDates) {
        self.log = log
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(try dates.encode(date))
        }
    }

    /// A JSON answer: `call` returns the decoded body and its ETag; `again`, for operations that
    /// take If-None-Match, sends the same GET with that tag and says whether the answer was 304.
    func json<Value: Encodable>(
        _ operation: String, _ call: () async throws -> (Value, etag: String?),
        again: ((String) async throws -> Bool)? = nil
    ) async {
        let value: Value, etag: String?
        do {
            (value, etag) = try await call()
        } catch {
            return await report(operation, problems: ["does not decode: \(Self.describe(error))"])
        }
        let sent = await log.last
        var problems: [String] = []
        if !sent.contentType.hasPrefix("application/json") { problems.append("content type \(sent.contentType)") }
        do {
            let original = try JSONDecoder().decode(JSON.self, from: sent.body)
            let typed = try JSONDecoder().decode(JSON.self, from: encoder.encode(value))
            var differences: [String] = []
            original.differences(from: typed, into: &differences)
            if !differences.isEmpty {
                problems.append("re-encoded differs in \(differences.count) place(s): " + differences.prefix(3).joined(separator: "; "))
            }
        } catch {
            problems.append("cannot compare: \(error)")
        }
        await report(operation, problems: problems, detail: "JSON, re-encoded equal", etag: etag, again: again)
    }

    /// A body the generated client hands over as bytes (text, HTML, SVG): status and content type.
    func raw(
        _ operation: String, contentType: String, note: String = "", _ call: () async throws -> String?,
        again: ((String) async throws -> Bool)? = nil
    ) async {
        let etag: String?
        do {
            etag = try await call()
        } catch {
            return await report(operation, problems: ["does not decode: \(Self.describe(error))"])
        }
        let sent = await log.last
        var problems: [String] = []
        if !sent.contentType.hasPrefix(contentType) { problems.append("content type \(sent.contentType), not \(contentType)") }
        if sent.body.isEmpty { problems.append("empty body") }
        await report(
            operation, problems: problems, detail: "\(contentType) (\(sent.body.count) bytes; raw body, no schema to compare)\(note)",
            etag: etag, again: again)
    }

    private func report(
        _ operation: String, problems: [String], detail: String = "", etag: String? = nil,
        again: ((String) async throws -> Bool)? = nil
    ) async {
        var problems = problems
        let first = await log.last
        var conditional = ""
        if problems.isEmpty, let again {
            if let etag {
                do {
                    let notModified = try await again(etag)
                    let second = await log.last
                    let header = second.ifNoneMatch ?? "(none)"
                    if notModified {
                        conditional = ", 304 for If-None-Match: \(header)"
                    } else {
                        problems.append("If-None-Match: \(header) got \(second.status), not 304")
                    }
                } catch {
                    problems.append("the conditional GET failed: \(Self.describe(error))")
                }
            } else {
                problems.append("no ETag to send back")
            }
        }
        calls += 1
        called.insert(operation)
        let line = "\(operation.padding(toLength: 20, withPad: " ", startingAt: 0)) \(first.status) \(first.target)"
        if problems.isEmpty {
            print("ok    \(line): \(detail)\(conditional)")
        } else {
            failures.append(operation)
            print("FAIL  \(line): \(problems.joined(separator: "; "))")
        }
    }

    /// The decoding error inside a ClientError, which otherwise repeats the whole request.
    static func describe(_ error: any Error) -> String {
        let underlying = (error as? ClientError)?.underlyingError ?? error
        return String(describing: underlying).replacingOccurrences(of: "\n", with: " ").prefix(600).description
    }
}
