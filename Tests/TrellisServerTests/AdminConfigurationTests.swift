import Testing
import TrellisCrypto
import TrellisJSON
import TrellisRuntime
import TrellisTargeting
@testable import TrellisServer

/// `admin` and `context` in server.json: what loads, and every mistake with its path and line.
@Suite struct AdminConfigurationTests {
    static let secret = Array(0..<32).map(UInt8.init)
    static let secretText = Base64URL.encode(secret)
    static let opsHash = Hex.encode(SHA256.hash("trl_ops".utf8))
    static let viewerHash = Hex.encode(SHA256.hash("trl_viewer".utf8))

    func load(_ file: String?, env: [String: String] = [:], overrides: [SettingOverride] = []) -> Result<ServerConfiguration, DiagnosticsError> {
        ServerConfiguration.load(fileBytes: file.map { Array($0.utf8) }, source: "server.json", environment: env, overrides: overrides)
    }

    func lines(_ file: String, env: [String: String] = [:], overrides: [SettingOverride] = []) -> [String] {
        guard case .failure(let error) = load(file, env: env, overrides: overrides) else {
            Issue.record("expected the configuration to be refused")
            return []
        }
        return error.description.split(separator: "\n").map(String.init)
    }

    @Test func defaultsAreClosedAndUnsigned() throws {
        let config = try load(nil).get()
        #expect(config.admin == ServerConfiguration.Admin(tokens: [], port: nil, requireIfMatch: false))
        #expect(config.context.signingKeys.isEmpty)
        #expect(config.context.unsigned == .ignore)
    }

    @Test func aCompleteAdminAndContextBlockLoads() throws {
        let file = """
            {
              "admin": {
                "tokens": [
                  {"name": "ops-bot", "sha256": "\(Self.opsHash)", "role": "write"},
                  {"name": "dash.board", "sha256": "\(Self.viewerHash.uppercased())", "role": "read"}
                ],
                "port": 9090,
                "requireIfMatch": true
              },
              "context": {
                "signingKeys": [{"id": "k2", "secretEnv": "TRELLIS_CONTEXT_KEY_K2"}, {"id": "k1", "secret": "\(Self.secretText)"}],
                "unsigned": "refuse"
              }
            }
            """
        let k2 = (0..<48).map { UInt8($0 * 3 & 0xFF) }
        let config = try load(file, env: ["TRELLIS_CONTEXT_KEY_K2": Base64URL.encode(k2)]).get()
        #expect(config.admin.tokens == [
            ServerConfiguration.AdminToken(name: "ops-bot", token: "trl_ops", role: .write),
            ServerConfiguration.AdminToken(name: "dash.board", token: "trl_viewer", role: .read),
        ])
        #expect(config.admin.port == 9090)
        #expect(config.admin.requireIfMatch)
        #expect(config.context.signingKeys == [
            ServerConfiguration.SigningKey(id: "k2", secret: k2), ServerConfiguration.SigningKey(id: "k1", secret: Self.secret),
        ])
        #expect(config.context.unsigned == .refuse)
    }

    /// Names and ids end up in URL paths: `.` and `..` (and any name of dots only) are none.
    @Test func aNameOfDotsOnlyIsNoName() {
        for dots in [".", "..", "..."] {
            #expect(!ServerConfiguration.isValidName(dots))
            #expect(!RuleExpression.isIdentifier(dots))
        }
        #expect(ServerConfiguration.isValidName("v1.2") && RuleExpression.isIdentifier("checkout.v2"))
    }

    @Test func everyTokenMistakeIsReportedWithPathAndLine() {
        let file = """
            {
              "admin": {
                "tokens": [
                  {"name": "ops-bot", "sha256": "\(Self.opsHash)", "role": "write"},
                  {"name": "ops-bot", "sha256": "\(Self.viewerHash)", "role": "read"},
                  {"name": "other", "sha256": "\(Self.opsHash)", "role": "read"},
                  {"name": "short", "sha256": "abc123", "role": "read"},
                  {"name": "nothex", "sha256": "\(String(repeating: "z", count: 64))", "role": "read"},
                  {"name": "pasted", "sha256": "trl_secretvalue", "role": "read"},
                  {"name": "admin", "sha256": "\(Self.viewerHash)", "role": "owner"},
                  {"name": "no name!", "sha256": "\(Self.viewerHash)", "role": "read", "expires": 1},
                  {"sha256": "\(Self.viewerHash)"},
                  {"name": "scheduler", "sha256": "\(String(repeating: "ab", count: 32))", "role": "write"}
                ],
                "prot": 9090
              }
            }
            """
        let lines = lines(file)
        #expect(lines.contains("server.json: $.admin.tokens[1].name (line 5): duplicate token name \"ops-bot\" (also at index 0)"))
        #expect(lines.contains("server.json: $.admin.tokens[2].sha256 (line 6): the same sha256 as the token at index 0; each token must be distinct"))
        #expect(lines.contains("server.json: $.admin.tokens[3].sha256 (line 7): expected the token's SHA-256 as 64 hex digits, found 6 characters"))
        #expect(lines.contains("server.json: $.admin.tokens[4].sha256 (line 8): expected the token's SHA-256 as 64 hex digits, found 64 characters that are not all hex digits"))
        #expect(lines.contains {
            $0.hasPrefix("server.json: $.admin.tokens[5].sha256 (line 9): this looks like a token, not its SHA-256") && !$0.contains("secretvalue")
        })
        #expect(lines.contains("server.json: $.admin.tokens[6].role (line 10): unknown role \"owner\"; expected one of: read, write, approve, admin"))
        #expect(lines.contains("server.json: $.admin.tokens[7].name (line 11): invalid token name \"no name!\": use 1 to 64 of A-Z, a-z, 0-9, '.', '_', '-', not only dots"))
        #expect(lines.contains("server.json: $.admin.tokens[9].name (line 13): token name \"scheduler\" is reserved: the audit log names the runtime's own writers so"))
        #expect(lines.contains { $0.hasPrefix("server.json: $.admin.tokens[7].expires (line 11): unknown key \"expires\"") })
        #expect(lines.contains("server.json: $.admin.tokens[8] (line 12): missing required key \"name\""))
        #expect(lines.contains("server.json: $.admin.tokens[8] (line 12): missing required key \"role\""))
        #expect(lines.contains("server.json: $.admin.prot (line 15): unknown key \"prot\"; did you mean \"port\"?"))
        #expect(lines.count == 12)
    }

    @Test func everySigningKeyMistakeIsReportedWithoutTheSecret() {
        let shortSecret = Base64URL.encode([UInt8](repeating: 7, count: 16))
        let file = """
            {
              "context": {
                "signingKeys": [
                  {"id": "k1", "secret": "\(Self.secretText)"},
                  {"id": "k1", "secret": "\(Self.secretText)"},
                  {"id": "short", "secret": "\(shortSecret)"},
                  {"id": "padded", "secret": "\(Self.secretText)="},
                  {"id": "env", "secretEnv": "TRELLIS_CONTEXT_KEY_MISSING"},
                  {"id": "badenv", "secretEnv": "TRELLIS_CONTEXT_KEY_BAD"},
                  {"id": "both", "secret": "\(Self.secretText)", "secretEnv": "X"},
                  {"id": "neither"},
                  {"id": "bad id", "secret": "\(Self.secretText)"}
                ],
                "unsigned": "drop"
              }
            }
            """
        let lines = lines(file, env: ["TRELLIS_CONTEXT_KEY_BAD": "c2hvcnQ"])
        #expect(lines.contains("server.json: $.context.signingKeys[1].id (line 5): duplicate key id \"k1\" (also at index 0)"))
        #expect(lines.contains {
            $0.hasPrefix("server.json: $.context.signingKeys[2].secret (line 6): decodes to 16 bytes; a secret needs at least 32 random bytes")
        })
        #expect(lines.contains(
            "server.json: $.context.signingKeys[3].secret (line 7): not base64url (RFC 4648 §5, no padding): invalid character at offset 43"))
        #expect(lines.contains("server.json: $.context.signingKeys[4].secretEnv (line 8): environment variable TRELLIS_CONTEXT_KEY_MISSING is not set"))
        #expect(lines.contains {
            $0.hasPrefix("server.json: $.context.signingKeys[5].secretEnv (line 9): environment variable TRELLIS_CONTEXT_KEY_BAD: decodes to 5 bytes")
        })
        #expect(lines.contains("server.json: $.context.signingKeys[6] (line 10): give either \"secret\" or \"secretEnv\", not both"))
        #expect(lines.contains {
            $0.hasPrefix("server.json: $.context.signingKeys[7] (line 11): missing \"secret\" (base64url) or \"secretEnv\"")
        })
        #expect(lines.contains("server.json: $.context.signingKeys[8].id (line 12): invalid key id \"bad id\": use 1 to 64 of A-Z, a-z, 0-9, '.', '_', '-', not only dots"))
        #expect(lines.contains { $0.hasPrefix("server.json: $.context.unsigned (line 14): \"drop\" is not one of: ignore, refuse") })
        #expect(lines.count == 9)
        #expect(!lines.joined().contains(Self.secretText))
        #expect(!lines.joined().contains(shortSecret))
        #expect(!lines.joined().contains("c2hvcnQ"))
    }

    @Test func wrongShapesAreReported() {
        let lines = lines(#"{"admin": {"tokens": {"name": "x"}, "port": "9090", "requireIfMatch": 1}, "context": {"signingKeys": "k1"}}"#)
        #expect(lines.contains("server.json: $.admin.tokens (line 1): expected an array of tokens, found an object"))
        #expect(lines.contains("server.json: $.admin.port (line 1): expected an integer from 0 to 65535, found \"9090\""))
        #expect(lines.contains("server.json: $.admin.requireIfMatch (line 1): expected true or false, found a number"))
        #expect(lines.contains("server.json: $.context.signingKeys (line 1): expected an array of keys, found a string"))
        #expect(lines.count == 4)
    }

    @Test func scalarAdminAndContextSettingsTakeTheEnvironmentAndFlags() throws {
        let file = #"{"admin": {"port": 9090}, "context": {"signingKeys": [{"id": "k1", "secret": "\#(Self.secretText)"}]}}"#
        let env = ["TRELLIS_ADMIN_PORT": "9191", "TRELLIS_ADMIN_REQUIRE_IF_MATCH": "yes"]
        let flags = [SettingOverride(name: "context.unsigned", value: "refuse", origin: "--set")]
        let config = try load(file, env: env, overrides: flags).get()
        #expect(config.admin.port == 9191)
        #expect(config.admin.requireIfMatch)
        #expect(config.context.unsigned == .refuse)
        #expect(Setting.byName["admin.requireIfMatch"]?.environmentName == "TRELLIS_ADMIN_REQUIRE_IF_MATCH")
        #expect(Setting.byName["context.unsigned"]?.environmentName == "TRELLIS_CONTEXT_UNSIGNED")
    }

    @Test func structuredSettingsCannotComeFromFlagsOrTheEnvironment() {
        let flags = [SettingOverride(name: "admin.tokens", value: "[]", origin: "--set")]
        let lines = lines("{}", env: ["TRELLIS_ADMIN_TOKENS": "ignored"], overrides: flags)
        #expect(lines == ["settings: $.admin.tokens: --set: can only be set in server.json"])
    }

    @Test func combinationsThatCannotWork() {
        let lines = lines(#"{"port": 9090, "admin": {"port": 9090}, "context": {"unsigned": "refuse"}}"#)
        #expect(lines.contains("settings: $.admin.port: 9090 is also the main port; leave admin.port out to serve the admin API there, or choose another"))
        #expect(lines.contains { $0.hasPrefix("settings: $.context.unsigned: \"refuse\" needs context.signingKeys") })
        #expect(lines.count == 2)
        // Both on "any free port" are two different ports.
        #expect(throws: Never.self) { try load(#"{"port": 0, "admin": {"port": 0}}"#).get() }
    }

    @Test func printingAConfigurationDoesNotShowSecrets() throws {
        let config = try load(#"{"context": {"signingKeys": [{"id": "k1", "secret": "\#(Self.secretText)"}]}}"#).get()
        let key = config.context.signingKeys[0]
        for text in [String(describing: config), String(reflecting: config), "\(key)", String(reflecting: key)] {
            #expect(text.contains("k1"))
            #expect(!text.contains("0, 1, 2, 3"))
            #expect(!text.contains(Self.secretText))
        }
        var dumped = ""
        dump(config, to: &dumped)
        #expect(!dumped.contains("0, 1, 2, 3") && !dumped.contains("- 31"))
    }

    @Test func theJSONLineATokenCommandPrints() {
        let token = ServerConfiguration.AdminToken(name: "ops-bot", token: "trl_ops", role: .write)
        #expect(token.configurationJSON == #"{"name":"ops-bot","sha256":"\#(Self.opsHash)","role":"write"}"#)
        #expect(Self.opsHash.count == 64)
    }
}
