import TrellisJSON
import TrellisLint
import TrellisRuntime

/// A setting given outside the file, and where it came from (for error messages).
public struct SettingOverride: Sendable {
    public var name: String
    public var value: String
    public var origin: String

    public init(name: String, value: String, origin: String) {
        self.name = name
        self.value = value
        self.origin = origin
    }
}

extension ServerConfiguration {
    /// Reads `server.json` (its bytes), then applies the environment and then flag overrides.
    ///
    /// Unknown keys, wrong types and out-of-range values are errors, all reported at once.
    /// - Parameters:
    ///   - fileBytes: the file's contents, or nil when the file does not exist (all defaults).
    ///   - source: the file's name for messages.
    ///   - environment: the process environment; `TRELLIS_*` names are read, and the variables
    ///     `context.signingKeys[].secretEnv` names.
    ///   - overrides: `name=value` settings from flags, applied last.
    public static func load(
        fileBytes: [UInt8]?, source: String, environment: [String: String], overrides: [SettingOverride]
    ) -> Result<ServerConfiguration, DiagnosticsError> {
        var config = ServerConfiguration()
        if let fileBytes {
            switch decodeFile(fileBytes, source: source, environment: environment) {
            case .success(let fromFile): config = fromFile
            case .failure(let error): return .failure(error)
            }
        }
        var problems: [Diagnostic] = []
        for setting in Setting.all {
            guard let text = environment[setting.environmentName] else { continue }
            if let problem = setting.apply(text: text, to: &config) {
                problems.append(Diagnostic(path: Self.path(of: setting.name), location: .unknown, message: "\(setting.environmentName): \(problem)"))
            }
        }
        for override in overrides {
            let path = Self.path(of: override.name)
            guard let setting = Setting.byName[override.name] else {
                if FileOnlySetting(rawValue: override.name) != nil {
                    problems.append(Diagnostic(path: path, location: .unknown, message: "\(override.origin): can only be set in server.json"))
                    continue
                }
                let known = Setting.all.map(\.name).joined(separator: ", ")
                problems.append(Diagnostic(path: path, location: .unknown, message: "\(override.origin): unknown setting; known: \(known)"))
                continue
            }
            if let problem = setting.apply(text: override.value, to: &config) {
                problems.append(Diagnostic(path: path, location: .unknown, message: "\(override.origin): \(problem)"))
            }
        }
        problems += config.combinationProblems()
        if !problems.isEmpty { return .failure(DiagnosticsError(source: "settings", diagnostics: problems)) }
        return .success(config)
    }

    /// `limits.maxBodyBytes` → `$.limits.maxBodyBytes`.
    static func path(of dottedName: String) -> JSONPath {
        JSONPath(dottedName.split(separator: ".").map { .key(String($0)) })
    }

    static func decodeFile(_ bytes: [UInt8], source: String, environment: [String: String]) -> Result<ServerConfiguration, DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in
            var config = ServerConfiguration()
            apply(document, prefix: "", path: .root, to: &config, environment: environment, collector)
            return config
        }
    }

    /// Walks one object level; nested objects (`limits`) map to dotted setting names.
    private static func apply(
        _ value: JSONValue, prefix: String, path: JSONPath, to config: inout ServerConfiguration,
        environment: [String: String], _ collector: DiagnosticsCollector
    ) {
        let allNames = Setting.all.map(\.name) + FileOnlySetting.allCases.map(\.rawValue)
        let names = allNames.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        let keys = Set(names.map { String($0.prefix { $0 != "." }) })
        guard let object = collector.object(value, at: path, allowedKeys: keys) else { return }
        for member in object.members where keys.contains(member.key) {
            let memberPath = path.appending(member.key)
            if prefix + member.key == "accessLog", member.value.boolValue == nil {
                // `"accessLog": {"format": "combined", "path": "…"}`: on, with these settings.
                guard member.value.objectValue != nil else {
                    collector.report(
                        "expected true, false or an object with \"format\" and \"path\", found \(member.value.typeName)",
                        at: memberPath, member.value)
                    continue
                }
                config.accessLog = true
                apply(member.value, prefix: "accessLog.", path: memberPath, to: &config, environment: environment, collector)
            } else if let setting = Setting.byName[prefix + member.key] {
                setting.apply(member.value, to: &config, at: memberPath, collector)
            } else if let setting = FileOnlySetting(rawValue: prefix + member.key) {
                setting.apply(member.value, to: &config, at: memberPath, environment: environment, collector)
            } else {
                apply(member.value, prefix: prefix + member.key + ".", path: memberPath, to: &config, environment: environment, collector)
            }
        }
    }

    /// Mistakes no single setting shows, found once file, environment and flags are applied.
    func combinationProblems() -> [Diagnostic] {
        var problems: [Diagnostic] = []
        if let adminPort = admin.port, adminPort != 0, adminPort == port {
            problems.append(Diagnostic(
                path: Self.path(of: "admin.port"), location: .unknown,
                message: "\(adminPort) is also the main port; leave admin.port out to serve the admin API there, or choose another"))
        }
        problems += tlsProblems()
        if context.unsigned == .refuse, context.signingKeys.isEmpty {
            problems.append(Diagnostic(
                path: Self.path(of: "context.unsigned"), location: .unknown,
                message: "\"refuse\" needs context.signingKeys; without signing keys the unsigned values are all there is, and they are used"))
        }
        return problems
    }
}

extension ServerConfiguration {
    /// A TLS listener needs both files; the files need a listener; its port is its own.
    fileprivate func tlsProblems() -> [Diagnostic] {
        var problems: [Diagnostic] = []
        func report(_ name: String, _ message: String) {
            problems.append(Diagnostic(path: Self.path(of: name), location: .unknown, message: message))
        }
        let usesTLS = tls.port != nil || tls.admin
        if tls.certificate == nil, tls.privateKey != nil || usesTLS {
            report("tls.certificate", "missing; TLS needs a certificate (PEM) and its private key")
        }
        if tls.privateKey == nil, tls.certificate != nil || usesTLS {
            report("tls.privateKey", "missing; TLS needs a certificate (PEM) and its private key")
        }
        if tls.pair != nil, !usesTLS {
            report("tls.port", "missing; give the port TLS is served on (or tls.admin: true for the admin port alone)")
        }
        if let tlsPort = tls.port, tlsPort != 0 {
            if tlsPort == port { report("tls.port", "\(tlsPort) is also the plain HTTP port; choose another") }
            if tlsPort == admin.port { report("tls.port", "\(tlsPort) is also admin.port; set tls.admin to serve the admin API over TLS") }
        }
        if tls.admin, admin.port == nil {
            report("tls.admin", "needs admin.port: the admin API is TLS-only on a listener of its own")
        }
        return problems
    }
}

/// Settings with structure (arrays of objects), read from `server.json` only: environment
/// variables and `--set` take one scalar each.
enum FileOnlySetting: String, CaseIterable {
    case adminTokens = "admin.tokens"
    case adminApprovalRequiredFor = "admin.approvalRequiredFor"
    case contextSigningKeys = "context.signingKeys"
    case adminWebhooks = "admin.webhooks"
    case ofrepKeys = "ofrep.keys"
    case trustedProxies = "trustedProxies"
    case lintErrors = "lint.errors"

    func apply(
        _ value: JSONValue, to config: inout ServerConfiguration, at path: JSONPath, environment: [String: String],
        _ collector: DiagnosticsCollector
    ) {
        switch self {
        case .adminTokens: config.admin.tokens = AdminTokensDecoder.decode(value, at: path, collector)
        case .adminApprovalRequiredFor:
            config.admin.approvalRequiredFor = ServerConfiguration.ApprovalResourcesDecoder.decode(value, at: path, collector)
        case .adminWebhooks: config.admin.webhooks = AdminWebhooksDecoder.decode(value, at: path, environment: environment, collector)
        case .ofrepKeys: config.ofrep.keys = APIKeysDecoder.decode(value, at: path, collector)
        case .lintErrors:
            guard let names = value.arrayValue?.map(\.stringValue), !names.contains(nil) else {
                return collector.report("expected an array of the lint's rules such as [\"contrast\", \"label\"], found \(value.typeName)", at: path, value)
            }
            do { config.lint.errors = try LintRule.rules(named: names.compactMap { $0 }.joined(separator: ",")) } catch {
                collector.report("\(error)", at: path, value)
            }
        case .trustedProxies:
            guard let elements = value.arrayValue else {
                return collector.report("expected an array of addresses or ranges such as \"10.0.0.0/8\", found \(value.typeName)", at: path, value)
            }
            config.trustedProxies = elements.enumerated().compactMap { index, element in
                guard let text = element.stringValue, let range = AddressRange(text) else {
                    collector.report("expected an IPv4 or IPv6 address or CIDR range such as \"10.0.0.0/8\" or \"fd00::/8\"", at: path.appending(index), element)
                    return nil
                }
                return range
            }
        case .contextSigningKeys:
            config.context.signingKeys = SigningKeysDecoder.decode(value, at: path, environment: environment, collector)
        }
    }
}
