import Testing
@testable import TrellisAnswers
@testable import TrellisHTTP
import TrellisJSON
import TrellisRuntime
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

    @Test func theCacheBudgetIsReadFromTheFileTheEnvironmentAndFlags() throws {
        let file = try load(#"{"cache": {"maxBytes": 268435456}}"#).get()
        #expect(file.cache.maxBytes == 268_435_456)
        #expect(CacheBudget(file.cache) == CacheBudget(maxBytes: 268_435_456))
        #expect(try load(nil, env: ["TRELLIS_CACHE_MAX_BYTES": "1048576"]).get().cache.maxBytes == 1 << 20)
        let flag = [SettingOverride(name: "cache.maxBytes", value: "2147483648", origin: "--set")]
        #expect(try load(#"{"cache": {"maxBytes": 268435456}}"#, overrides: flag).get().cache.maxBytes == 2 << 30)
        #expect(Setting.byName["cache.maxBytes"]?.environmentName == "TRELLIS_CACHE_MAX_BYTES")
    }

    /// Unset, the budget is an eighth of the memory the process may use, within 64 MiB…4 GiB.
    @Test func theCacheBudgetDefaultsToAShareOfMemory() throws {
        #expect(try load(nil).get().cache.maxBytes == nil)
        #expect(CacheBudget.default(forMemory: 16 << 30).maxBytes == 2 << 30)
        #expect(CacheBudget.default(forMemory: 1 << 30).maxBytes == 128 << 20)
        #expect(CacheBudget.default(forMemory: 256 << 20).maxBytes == 64 << 20, "at least 64 MiB")
        #expect(CacheBudget.default(forMemory: 256 << 30).maxBytes == 4 << 30, "at most 4 GiB")
        #expect(CacheBudget.default(forMemory: nil).maxBytes == 64 << 20, "unknown memory: the least")
        let usable = MachineMemory.usableBytes()
        #expect(usable != nil && usable! <= MachineMemory.physicalBytes()!)
        #expect(CacheBudget(ServerConfiguration.Cache()) == CacheBudget.default(forMemory: usable))
        #expect(CacheBudget.forThisMachine == CacheBudget.default(forMemory: usable))
    }

    /// A container's limit (cgroup v2 `memory.max`, v1 `memory.limit_in_bytes`) counts when it is
    /// a number: `max` is no limit.
    @Test func cgroupLimitsAreReadAsNumbersOrNoLimit() {
        #expect(MachineMemory.cgroupLimit("536870912\n") == 536_870_912)
        #expect(MachineMemory.cgroupLimit("max\n") == nil)
        #expect(MachineMemory.cgroupLimit("") == nil)
        #expect(MachineMemory.cgroupLimit(nil) == nil)
        #expect(MachineMemory.cgroupLimit("0") == nil)
        #expect(MachineMemory.cgroupLimit("9223372036854771712\n") == 9_223_372_036_854_771_712, "v1 unlimited: physical memory undercuts it")
        let root = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
        #expect(MachineMemory.cgroupLimitFiles(ownGroups: nil) == root)
        #expect(MachineMemory.cgroupLimitFiles(ownGroups: "0::/\n") == root, "a namespace of its own: the root is the group")
        #expect(MachineMemory.cgroupLimitFiles(ownGroups: "0::/system.slice/trellis.service\n")
            == root + ["/sys/fs/cgroup/system.slice/trellis.service/memory.max"])
        #expect(MachineMemory.cgroupLimitFiles(ownGroups: "5:cpu,cpuacct:/a\n4:memory:/docker/abc\n0::/\n")
            == root + ["/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"])
    }

    @Test func badCacheBudgetsAreRefusedWithPathAndLine() throws {
        let file = """
            {
              "cache": {"maxBytes": 0}
            }
            """
        guard case .failure(let zero) = load(file) else { Issue.record("expected failure"); return }
        #expect(zero.description == "server.json: $.cache.maxBytes (line 2): expected an integer from 1048576 to 1099511627776, found 0")
        let cases: [(String, String)] = [
            (#"{"cache": {"maxBytes": -5}}"#, "server.json: $.cache.maxBytes (line 1): expected an integer from 1048576 to 1099511627776, found -5"),
            (#"{"cache": {"maxBytes": "512MB"}}"#, #"server.json: $.cache.maxBytes (line 1): expected an integer from 1048576 to 1099511627776, found "512MB""#),
            (#"{"cache": {"maxBytes": 1000}}"#, "server.json: $.cache.maxBytes (line 1): expected an integer from 1048576 to 1099511627776, found 1000"),
            (#"{"cache": {"maxBytes": 1048576.5}}"#, "server.json: $.cache.maxBytes (line 1): expected an integer from 1048576 to 1099511627776, found 1048576.5"),
            (#"{"cache": {"maxBytes": null}}"#, "server.json: $.cache.maxBytes (line 1): expected an integer from 1048576 to 1099511627776, found null"),
            (#"{"cache": 536870912}"#, "server.json: $.cache (line 1): expected an object, found a number"),
        ]
        for (text, expected) in cases {
            guard case .failure(let error) = load(text) else { Issue.record("expected failure: \(text)"); continue }
            #expect(error.description == expected)
        }
        guard case .failure(let typo) = load(#"{"cache": {"maxByte": 1048576}}"#) else { Issue.record("expected failure"); return }
        #expect(typo.description == #"server.json: $.cache.maxByte (line 1): unknown key "maxByte"; did you mean "maxBytes"?"#)
        guard case .failure(let env) = load(nil, env: ["TRELLIS_CACHE_MAX_BYTES": "lots"]) else { Issue.record("expected failure"); return }
        #expect(env.description == #"settings: $.cache.maxBytes: TRELLIS_CACHE_MAX_BYTES: expected an integer from 1048576 to 1099511627776, found "lots""#)
        let flag = [SettingOverride(name: "cache.maxBytes", value: "0", origin: "--set")]
        guard case .failure(let set) = load(nil, overrides: flag) else { Issue.record("expected failure"); return }
        #expect(set.description == #"settings: $.cache.maxBytes: --set: expected an integer from 1048576 to 1099511627776, found "0""#)
    }
}

/// `ofrep.keys` and `changes.*`: read from the file (and the environment), every mistake with its
/// path and line.
@Suite struct OpenFeatureConfigurationTests {
    func load(_ file: String, env: [String: String] = [:]) -> Result<ServerConfiguration, DiagnosticsError> {
        ServerConfiguration.load(fileBytes: Array(file.utf8), source: "server.json", environment: env, overrides: [])
    }

    @Test func keysAndStreamLimitsAreRead() throws {
        let digest = String(repeating: "ab", count: 32)
        let config = try load(
            #"{"ofrep": {"keys": [{"name": "ios-app", "sha256": "\#(digest)"}]}, "changes": {"maxStreams": 5, "heartbeatSeconds": 0.5}}"#,
            env: ["TRELLIS_CHANGES_HISTORY": "7"]).get()
        #expect(config.ofrep.keys.map(\.name) == ["ios-app"])
        #expect(config.ofrep.keys.first?.sha256 == Array(repeating: 0xAB, count: 32))
        #expect(config.changes.maxStreams == 5)
        #expect(config.changes.history == 7)
        #expect(config.changes.channelLimits.heartbeat == .milliseconds(500))
        #expect(try load("{}").get().changes.maxStreams == 10_000)
    }

    @Test func everyMistakeHasItsPathAndLine() {
        let file = """
            {"ofrep": {"keys": [
              {"name": "a b", "sha256": "00"},
              {"name": "ok", "sha256": "zz"},
              {"nam": "x"}
            ]},
             "changes": {"streamBufferBytes": 10}}
            """
        guard case .failure(let error) = load(file) else { Issue.record("expected failure"); return }
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.contains("server.json: $.ofrep.keys[0].name (line 2): invalid key name \"a b\": use 1 to 64 of A-Z, a-z, 0-9, '.', '_', '-', not only dots"))
        #expect(lines.contains("server.json: $.ofrep.keys[1].sha256 (line 3): expected the key's SHA-256 as 64 hex digits (what `trellis token new` prints)"))
        #expect(lines.contains { $0.hasPrefix("server.json: $.ofrep.keys[2].nam (line 4): unknown key \"nam\"") })
        #expect(lines.contains("server.json: $.ofrep.keys[2] (line 4): missing required key \"name\""))
        #expect(lines.contains("server.json: $.changes.streamBufferBytes (line 6): expected an integer from 1024 to 67108864, found 10"))
    }
}
