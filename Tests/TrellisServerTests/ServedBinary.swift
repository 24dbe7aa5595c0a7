import Foundation
import TrellisCrypto
import TrellisRuntime
import TrellisTesting

/// The real `trellis` binary serving a temporary configuration with a data directory of its own:
/// started, stopped, killed with SIGKILL and started again on the same files.
final class ServedBinary {
    static let writeToken = "trl_test-write-token-0123456789abcdef"
    static let readToken = "trl_test-read-token-0123456789abcdef"
    /// The `lead` token's, with the approve role, given when a test asks for it (``init(config:extra:admin:approver:)``).
    static let approveToken = "trl_test-approve-token-0123456789abcdef"
    static let adminToken = "trl_test-admin-token-0123456789abcdef"

    let config: TemporaryConfig
    let dataDirectory: URL
    private(set) var process: Process?
    private(set) var log: LogReader?
    private(set) var port = 0
    /// How the access log is set up on the command line; off unless a test says otherwise.
    var accessLogArguments = ["--set", "accessLog=false"]

    /// Writes `server.json` with an `ops-bot` write token, an `auditor` read token and a `root`
    /// admin token (and a `lead` approve token when `approver`), plus `extra` top-level members and
    /// `adminExtra` members of `admin` (JSON text without braces).
    init(config: TemporaryConfig, extra: String = "", adminExtra: String = "", approver: Bool = false) throws {
        self.config = config
        dataDirectory = config.url.appendingPathComponent("data")
        let lead = approver ? #",{"name": "lead", "sha256": "\#(Hex.encode(SHA256.hash(Array(Self.approveToken.utf8))))", "role": "approve"}"# : ""
        let tokens = """
            "admin": {"tokens": [
              {"name": "ops-bot", "sha256": "\(Hex.encode(SHA256.hash(Array(Self.writeToken.utf8))))", "role": "write"},
              {"name": "auditor", "sha256": "\(Hex.encode(SHA256.hash(Array(Self.readToken.utf8))))", "role": "read"},
              {"name": "root", "sha256": "\(Hex.encode(SHA256.hash(Array(Self.adminToken.utf8))))", "role": "admin"}\(lead)
            ]\(adminExtra.isEmpty ? "" : ",\n" + adminExtra)}
            """
        let body = "{\n" + tokens + (extra.isEmpty ? "" : ",\n" + extra) + "\n}\n"
        try Data(body.utf8).write(to: config.url.appendingPathComponent("server.json"))
    }

    deinit { process.map { if $0.isRunning { kill($0.processIdentifier, SIGKILL) } } }

    /// Starts the binary and waits for its "serving" line.
    func start() throws {
        let process = Process()
        process.executableURL = CommandLineTests.executable
        process.arguments = [
            "serve", "--config", config.url.path, "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory.path,
        ] + accessLogArguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let log = LogReader(pipe.fileHandleForReading)
        try process.run()
        self.process = process
        self.log = log
        guard let serving = log.waitForLine(containing: "serving"), let port = CommandLineTests.port(in: serving) else {
            kill(process.processIdentifier, SIGKILL)
            throw StartFailure(output: log.text)
        }
        self.port = port
    }

    struct StartFailure: Error, CustomStringConvertible {
        var output: String
        var description: String { "trellis serve did not start:\n\(output)" }
    }

    /// SIGKILL: no drain, no flush, nothing the process could still do.
    func killNine() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// SIGHUP, and wait for the reload's log line (`reloaded` or `reload refused`).
    func reload() throws -> String {
        guard let process, let log else { throw StartFailure(output: "not running") }
        let before = log.text.components(separatedBy: "reload").count
        kill(process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(10)
        while log.text.components(separatedBy: "reload").count == before, Date() < deadline { usleep(10_000) }
        return String(log.text.split(separator: "\n").last { $0.contains("reload") } ?? "")
    }

    /// SIGUSR1, and wait for the "access log reopened" line.
    func reopenAccessLog() throws {
        guard let process, let log else { throw StartFailure(output: "not running") }
        kill(process.processIdentifier, SIGUSR1)
        guard log.waitForLine(containing: "access log reopened") != nil else { throw StartFailure(output: log.text) }
    }

    /// SIGTERM and wait for a clean exit.
    func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        self.process = nil
    }

    /// One request on a new connection.
    func request(
        _ method: String, _ target: String, token: String? = ServedBinary.writeToken, headers: [String: String] = [:],
        body: String? = nil
    ) throws -> WireResponse {
        let client = try TestClient(port: port, timeout: 10)
        return try client.exchange(method, target, token: token, headers: headers, body: body)
    }
}

extension TestClient {
    /// Sends one request on this connection and reads its response.
    func exchange(
        _ method: String, _ target: String, token: String? = ServedBinary.writeToken, headers: [String: String] = [:],
        body: String? = nil
    ) throws -> WireResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: t\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let bytes = Array((body ?? "").utf8)
        if body != nil { head += "Content-Type: application/json\r\nContent-Length: \(bytes.count)\r\n" }
        send(Array((head + "\r\n").utf8) + bytes)
        guard let response = readResponse(headRequest: method == "HEAD") else { throw NoResponse(request: "\(method) \(target)") }
        return response
    }
}

struct NoResponse: Error, CustomStringConvertible {
    var request: String
    var description: String { "no response to \(request)" }
}

extension WireResponse {
    /// The body as JSON (members looked up with `json["a"]?["b"]`).
    var json: JSONTree { JSONTree((try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])) ?? NSNull()) }
}

/// Read-only navigation through a decoded JSON document, for assertions.
struct JSONTree {
    let value: Any
    init(_ value: Any) { self.value = value }
    subscript(key: String) -> JSONTree? { (value as? [String: Any])?[key].map(JSONTree.init) }
    subscript(index: Int) -> JSONTree? {
        guard let array = value as? [Any], array.indices.contains(index) else { return nil }
        return JSONTree(array[index])
    }
    var string: String? { value as? String }
    var number: Double? { (value as? NSNumber)?.doubleValue ?? (value as? Double) }
    var bool: Bool? { value as? Bool }
    var array: [JSONTree] { (value as? [Any])?.map(JSONTree.init) ?? [] }
    var isNull: Bool { value is NSNull }
}
