#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Testing
import TrellisTesting
@testable import TrellisHTTP

/// The access log: each format's exact line (at a fixed time), escaping, and the per-loop buffers
/// over a real socket and real files — written when full, when due, when the server stops, and to
/// a new file after a reopen.
@Suite struct AccessLogTests {
    static let record = RequestRecord(
        method: "GET", target: "/hello?x=1", path: "/hello", version: .http1_1, status: 200, bodyBytes: 5,
        durationNanos: 412_345, requestID: "req-42", remote: "127.0.0.1:53122", route: "/hello",
        referer: nil, userAgent: "curl/8.5.0")

    static func line(_ record: RequestRecord, _ format: AccessLogFormat, utcOffset: Int = 3600) -> String {
        var time = AccessLogTime()
        time.update(epochSeconds: 1_800_000_000, utcOffsetSeconds: utcOffset)  // 2027-01-15 08:00:00 UTC
        var out: [UInt8] = []
        AccessLog.append(record, format: format, time: time, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A token sent in the URL is not written to the log; every other parameter is, as sent.
    @Test func credentialsInTheQueryAreRedacted() {
        var record = Self.record
        record.target = "/admin/rollouts?token=trl_secret&x=1&Access_Token=abc&grant=123.sig&keyword=k"
        let redacted = "/admin/rollouts?token=REDACTED&x=1&Access_Token=REDACTED&grant=REDACTED&keyword=k"
        #expect(Self.line(record, .combined).contains("\"GET \(redacted) HTTP/1.1\""))
        #expect(Self.line(record, .json).contains(#""target":"\#(redacted)""#))
        #expect(!Self.line(record, .json).contains("trl_secret"))
        #expect(AccessLog.loggable("/v1/screens/home?user=u1") == "/v1/screens/home?user=u1")
    }

    @Test func eachFormatsExactLine() {
        #expect(Self.line(Self.record, .text) == """
            2027-01-15T09:00:00+01:00 GET /hello 200 bytes=5 duration_ms=0.412 request-id=req-42 remote=127.0.0.1:53122 route=/hello\n
            """)
        #expect(Self.line(Self.record, .combined) == """
            127.0.0.1 - - [15/Jan/2027:09:00:00 +0100] "GET /hello?x=1 HTTP/1.1" 200 5 "-" "curl/8.5.0"\n
            """)
        #expect(Self.line(Self.record, .json) == """
            {"time":"2027-01-15T09:00:00+01:00","remote":"127.0.0.1:53122","method":"GET","target":"/hello?x=1",\
            "path":"/hello","protocol":"HTTP/1.1","status":200,"bytes":5,"duration_ms":0.412,"request_id":"req-42",\
            "route":"/hello","referer":null,"user_agent":"curl/8.5.0"}\n
            """)
    }

    @Test func timeZonesWestOfUTCAndIPv6Addresses() {
        var r = Self.record
        r.remote = "[::1]:8080"
        #expect(Self.line(r, .combined, utcOffset: -19_800).hasPrefix("::1 - - [15/Jan/2027:02:30:00 -0530] "))
        #expect(Self.line(r, .text, utcOffset: -19_800).hasPrefix("2027-01-15T02:30:00-05:30 GET "))
        #expect(Self.line(r, .text, utcOffset: 0).contains(" remote=[::1]:8080 "))
    }

    @Test func whateverAClientSendsALineStaysOneLineWithItsFieldsApart() throws {
        var r = Self.record
        r.path = "/a b\"c\n\u{7F}ü\\"
        r.target = "/a%20b?q=\"x\""
        r.referer = "https://ref.example/\r\nforged"
        r.userAgent = "Mozilla \"x\" \\ \u{1}"
        r.route = nil
        #expect(Self.line(r, .text).contains(#" GET /a\x20b\x22c\x0A\x7F\xC3\xBC\x5C 200 "#))
        #expect(Self.line(r, .text).hasSuffix(" route=unmatched\n"))
        #expect(Self.line(r, .combined).hasSuffix(#""GET /a%20b?q=\x22x\x22 HTTP/1.1" 200 5 "https://ref.example/\x0D\x0Aforged" "Mozilla \x22x\x22 \x5C \x01"\#n"#))
        let json = Self.line(r, .json)
        #expect(json.contains(#""path":"/a b\"c\n\u007Fü\\""#))
        #expect(json.contains(#""user_agent":"Mozilla \"x\" \\ \u0001""#))
        #expect(json.contains(#""route":null"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["path"] as? String == r.path)
        #expect(object["referer"] as? String == r.referer)
        for format in AccessLogFormat.allCases { #expect(Self.line(r, format).filter { $0 == "\n" }.count == 1) }
    }

    @Test func aRequestRefusedBeforeItsHeadIsLoggedWithDashes() {
        let r = RequestRecord(
            method: nil, target: nil, path: nil, version: nil, status: 400, bodyBytes: 11, durationNanos: 5_000_000,
            requestID: "id-1", remote: "10.0.0.7:4000", route: nil)
        #expect(Self.line(r, .text) == "2027-01-15T09:00:00+01:00 - - 400 bytes=11 duration_ms=5.000 request-id=id-1 remote=10.0.0.7:4000 route=unmatched\n")
        #expect(Self.line(r, .combined) == "10.0.0.7 - - [15/Jan/2027:09:00:00 +0100] \"-\" 400 11 \"-\" \"-\"\n")
        #expect(Self.line(r, .json).contains(#""method":null,"target":null,"path":null,"protocol":null,"status":400"#))
    }

    // MARK: - Over a real socket

    /// A server logging to `log` in `format`; lines wait in the loops' buffers until stop unless `adjust` says otherwise.
    static func server(_ log: TemporaryLog, _ format: AccessLogFormat = .text,
                       _ adjust: (inout HTTPServer.Configuration) -> Void = { _ in }) throws -> HTTPServer {
        try startServer {
            $0.accessLog = true
            $0.accessLogFormat = format
            $0.accessLogPath = log.path
            $0.accessLogFlushInterval = .seconds(600)
            adjust(&$0)
        }
    }

    static func requests(_ server: HTTPServer, connections: Int, each: Int, prefix: String) throws {
        for c in 0..<connections {
            let client = try TestClient(port: server.port)
            for n in 0..<each {
                client.send("GET /hello HTTP/1.1\r\nHost: a\r\nX-Request-Id: \(prefix)-\(c)-\(n)\r\n\r\n")
                #expect(client.readResponse()?.status == 200)
            }
        }
    }

    @Test func linesWaitInTheLoopsBuffersAndNoneIsLostWhenTheServerStops() throws {
        let log = try TemporaryLog()
        let server = try Self.server(log)
        try Self.requests(server, connections: 8, each: 5, prefix: "r")
        #expect(log.lines().isEmpty, "40 short lines neither fill a buffer nor wait 10 minutes")
        stop(server)
        let lines = log.lines()
        #expect(lines.count == 40)
        let pattern = #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d GET /hello 200 bytes=5 duration_ms=\d+\.\d{3} request-id=(r-\d-\d) remote=127\.0\.0\.1:\d+ route=/hello$/#
        let ids = lines.compactMap { try? pattern.wholeMatch(in: $0)?.output.1 }.map(String.init)
        #expect(Set(ids) == Set((0..<8).flatMap { c in (0..<5).map { "r-\(c)-\($0)" } }))
    }

    @Test func aFullBufferIsWrittenAtOnce() throws {
        let log = try TemporaryLog()
        let server = try Self.server(log) { $0.accessLogBufferBytes = 0 }
        defer { stop(server) }
        try Self.requests(server, connections: 1, each: 3, prefix: "now")
        // Written before the response was sent, so there by the time the client has it.
        #expect(log.lines().count == 3)
    }

    @Test func aLineWaitsAtMostTheFlushInterval() throws {
        let log = try TemporaryLog()
        let server = try Self.server(log) { $0.accessLogFlushInterval = .milliseconds(200) }
        defer { stop(server) }
        try Self.requests(server, connections: 1, each: 1, prefix: "due")
        #expect(eventually { log.lines().count == 1 })
    }

    @Test func theCombinedLineOfARealRequest() throws {
        let log = try TemporaryLog()
        let server = try Self.server(log, .combined)
        let client = try TestClient(port: server.port)
        client.send("GET /hello?x=1 HTTP/1.1\r\nHost: a\r\nReferer: https://ref.example/\r\nUser-Agent: curl/8.5.0\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        client.send("BROKEN\r\n\r\n")
        #expect(client.readResponse()?.status == 400)
        stop(server)
        let lines = log.lines()
        #expect(lines.count == 2)
        let time = #/\[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\]/#
        let masked = lines.map { $0.replacing(time, with: "[TIME]") }
        #expect(masked == [
            #"127.0.0.1 - - [TIME] "GET /hello?x=1 HTTP/1.1" 200 5 "https://ref.example/" "curl/8.5.0""#,
            #"127.0.0.1 - - [TIME] "-" 400 16 "-" "-""#,
        ])
    }

    @Test func reopenWritesWhatWasBufferedToTheOldFileAndTheRestToTheNewOne() throws {
        let log = try TemporaryLog()
        let server = try Self.server(log)
        try Self.requests(server, connections: 4, each: 2, prefix: "before")
        let rotated = log.directory.appendingPathComponent("access.log.1").path
        try FileManager.default.moveItem(atPath: log.path, toPath: rotated)  // what logrotate does
        #expect(server.reopenAccessLog())
        #expect(FileManager.default.fileExists(atPath: log.path))
        try Self.requests(server, connections: 3, each: 3, prefix: "after")
        stop(server)
        #expect(log.lines(rotated).count == 8)
        #expect(log.lines(rotated).allSatisfy { $0.contains("request-id=before-") })
        #expect(log.lines().count == 9)
        #expect(log.lines().allSatisfy { $0.contains("request-id=after-") })
    }

    @Test func aLogThatCannotBeOpenedStopsTheStartWithItsPath() throws {
        let log = try TemporaryLog()
        var config = HTTPServer.Configuration()
        config.host = "127.0.0.1"
        config.port = 0
        config.accessLogPath = log.directory.appendingPathComponent("missing/access.log").path
        let server = HTTPServer(configuration: config, responder: TestResponder(), logger: .init(label: "t"))
        #expect(throws: HTTPServerError.self) { try server.start() }
        do { try server.start() } catch let error as HTTPServerError {
            #expect(error.description.hasPrefix("open access log \(config.accessLogPath!): No such file or directory"))
        }
    }
}
