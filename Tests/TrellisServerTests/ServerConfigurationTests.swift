import Testing
@testable import TrellisHTTP
import TrellisJSON
@testable import TrellisServer

@Suite struct ServerConfigurationTests {
    func load(_ file: String?, env: [String: String] = [:], overrides: [SettingOverride] = []) -> Result<ServerConfiguration, DiagnosticsError> {
        ServerConfiguration.load(fileBytes: file.map { Array($0.utf8) }, source: "server.json", environment: env, overrides: overrides)
    }

    @Test func defaultsWithoutAFile() throws {
        #expect(try load(nil).get() == ServerConfiguration())
    }

    @Test func fileValuesIncludingNestedLimits() throws {
        let config = try load(#"{"port": 9000, "host": "127.0.0.1", "limits": {"maxBodyBytes": 2048, "headerTimeoutSeconds": 2.5}}"#).get()
        #expect(config.port == 9000)
        #expect(config.host == "127.0.0.1")
        #expect(config.limits.maxBodyBytes == 2048)
        #expect(config.limits.headerTimeoutSeconds == 2.5)
        #expect(config.limits.maxHeaderCount == ServerConfiguration.Limits().maxHeaderCount)
    }

    @Test func everyMistakeInTheFileIsReportedWithPathAndLine() throws {
        let file = """
            {
              "port": 70000,
              "logLevel": "loud",
              "limits": {"maxBodyByte": 1, "maxHeaderCount": "many"},
              "colour": "blue"
            }
            """
        guard case .failure(let error) = load(file) else { Issue.record("expected failure"); return }
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.contains("server.json: $.port (line 2): expected an integer from 0 to 65535, found 70000"))
        #expect(lines.contains { $0.hasPrefix("server.json: $.logLevel (line 3): \"loud\" is not one of: trace") })
        #expect(lines.contains("server.json: $.limits.maxBodyByte (line 4): unknown key \"maxBodyByte\"; did you mean \"maxBodyBytes\"?"))
        #expect(lines.contains("server.json: $.limits.maxHeaderCount (line 4): expected an integer from 8 to 10000, found \"many\""))
        #expect(lines.contains { $0.hasPrefix("server.json: $.colour (line 5): unknown key \"colour\"") })
        #expect(lines.count == 5)
    }

    @Test func environmentOverridesTheFileAndFlagsOverrideTheEnvironment() throws {
        let env = ["TRELLIS_PORT": "9100", "TRELLIS_LIMITS_MAX_BODY_BYTES": "4096", "TRELLIS_ACCESS_LOG": "off", "PATH": "/bin"]
        let flags = [SettingOverride(name: "port", value: "9200", origin: "--port")]
        let config = try load(#"{"port": 9000}"#, env: env, overrides: flags).get()
        #expect(config.port == 9200)
        #expect(config.limits.maxBodyBytes == 4096)
        #expect(config.accessLog == false)
    }

    @Test func badOverridesNameTheirOrigin() throws {
        let flags = [
            SettingOverride(name: "limits.maxBodyBytes", value: "lots", origin: "--set"),
            SettingOverride(name: "prot", value: "1", origin: "--set"),
        ]
        guard case .failure(let error) = load(nil, env: ["TRELLIS_LOG_LEVEL": "verbose"], overrides: flags) else {
            Issue.record("expected failure")
            return
        }
        #expect(error.diagnostics.count == 3)
        #expect(error.description.contains("settings: $.logLevel: TRELLIS_LOG_LEVEL: \"verbose\" is not one of"))
        #expect(error.description.contains("settings: $.limits.maxBodyBytes: --set: expected an integer"))
        #expect(error.description.contains("settings: $.prot: --set: unknown setting; known: host, port"))
    }

    @Test func environmentNamesFollowTheSettingNames() {
        #expect(Setting.byName["limits.maxBodyBytes"]?.environmentName == "TRELLIS_LIMITS_MAX_BODY_BYTES")
        #expect(Setting.byName["dataDirectory"]?.environmentName == "TRELLIS_DATA_DIRECTORY")
    }

    @Test func theAccessLogIsTrueFalseOrAnObjectWithFormatAndPath() throws {
        #expect(try load(#"{"accessLog": false}"#).get().accessLog == false)
        let object = try load(#"{"accessLog": {"format": "combined", "path": "/var/log/trellis/access.log"}}"#).get()
        #expect(object.accessLog == true)
        #expect(object.accessLogFormat == "combined")
        #expect(object.accessLogPath == "/var/log/trellis/access.log")
        let stdout = try load(#"{"accessLog": {"format": "json"}}"#).get()
        #expect(stdout.accessLogFormat == "json" && stdout.accessLogPath == nil)
        let env = try load(nil, env: ["TRELLIS_ACCESS_LOG_FORMAT": "json", "TRELLIS_ACCESS_LOG_PATH": "/tmp/a.log"]).get()
        #expect(env.accessLogFormat == "json" && env.accessLogPath == "/tmp/a.log")
        let flags = try load(nil, overrides: [SettingOverride(name: "accessLog.format", value: "combined", origin: "--set")]).get()
        #expect(flags.accessLogFormat == "combined")
        let http = Application.httpConfiguration(object)
        #expect(http.accessLogFormat == .combined && http.accessLogPath == "/var/log/trellis/access.log")
    }

    @Test func accessLogMistakesAreReportedWithPathAndLine() throws {
        let file = """
            {
              "accessLog": {"format": "xml", "pth": "/tmp/a.log"},
              "limits": {"maxConnections": 0}
            }
            """
        guard case .failure(let error) = load(file) else { Issue.record("expected failure"); return }
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.contains("server.json: $.accessLog.format (line 2): \"xml\" is not one of: text, combined, json"))
        #expect(lines.contains("server.json: $.accessLog.pth (line 2): unknown key \"pth\"; did you mean \"path\"?"))
        #expect(lines.contains("server.json: $.limits.maxConnections (line 3): expected an integer from 1 to 1000000, found 0"))
        #expect(lines.count == 3)
        guard case .failure(let wrongType) = load(#"{"accessLog": "yes"}"#) else { Issue.record("expected failure"); return }
        #expect(wrongType.description == #"server.json: $.accessLog (line 1): expected true, false or an object with "format" and "path", found a string"#)
        guard case .failure(let emptyPath) = load(nil, env: ["TRELLIS_ACCESS_LOG_PATH": ""]) else { Issue.record("expected failure"); return }
        #expect(emptyPath.description.contains("settings: $.accessLog.path: TRELLIS_ACCESS_LOG_PATH: must not be empty"))
    }

    @Test func maxConnectionsIsSizedFromTheDescriptorLimitUnlessSet() throws {
        let unset = try load(nil).get()
        #expect(unset.limits.maxConnections == nil)
        #expect(Application.httpConfiguration(unset).connectionLimit(descriptorLimit: 20_000) == 20_000 - 128)
        let set = try load(#"{"limits": {"maxConnections": 5000}}"#).get()
        #expect(Application.httpConfiguration(set).connectionLimit(descriptorLimit: 20_000) == 5000)
    }
}
