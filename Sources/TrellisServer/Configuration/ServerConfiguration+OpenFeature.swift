import TrellisCrypto
import TrellisHTTP
import TrellisJSON
import TrellisRuntime

extension ServerConfiguration {
    /// The OpenFeature endpoints (`/ofrep/v1/…`): open by default, like screens; with `keys`, a
    /// request must carry one (`X-API-Key: …` or `Authorization: Bearer …`).
    ///
    /// ```json
    /// "ofrep": {"keys": [{"name": "ios-app", "sha256": "<64 hex digits>"}]}
    /// ```
    public struct OpenFeature: Sendable, Equatable {
        public var keys: [APIKey] = []
        public init(keys: [APIKey] = []) { self.keys = keys }
    }

    /// An API key as configured: its name and the SHA-256 of its bytes, never the key itself
    /// (`trellis token new` makes one, as for admin tokens).
    public struct APIKey: Sendable, Equatable {
        public var name: String
        public var sha256: [UInt8]
        public init(name: String, sha256: [UInt8]) {
            self.name = name
            self.sha256 = sha256
        }
    }

    /// The change stream `GET /v1/changes` (docs/configuration.md, "Change stream").
    public struct Changes: Sendable, Equatable {
        /// Most streams open at once; one more is answered 503.
        public var maxStreams = 10_000
        /// Most streams one client address may hold open; one more is answered 429, so that one
        /// client never takes every stream (behind a proxy, every client shares its address).
        public var maxStreamsPerClient = 8
        /// Most bytes waiting unsent for one stream before it is dropped with a `reset`.
        public var streamBufferBytes = 64 * 1024
        /// Changes kept for clients that resume with `Last-Event-ID`.
        public var history = 1024
        /// How often every stream gets a heartbeat comment.
        public var heartbeatSeconds = 15.0
        public init() {}

        /// The HTTP layer's limits for the channel.
        var channelLimits: HTTPEventChannel.Limits {
            HTTPEventChannel.Limits(
                maxStreams: maxStreams, maxPendingBytes: streamBufferBytes, history: history,
                heartbeat: .milliseconds(Int64((heartbeatSeconds * 1000).rounded())), maxStreamsPerClient: maxStreamsPerClient)
        }
    }
}

/// Decoding of `ofrep.keys`: every mistake reported with its path and line.
enum APIKeysDecoder {
    static func decode(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> [ServerConfiguration.APIKey] {
        guard let elements = value.arrayValue else {
            collector.report("expected an array of keys, found \(value.typeName)", at: path, value)
            return []
        }
        var keys: [ServerConfiguration.APIKey] = []
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index)
            guard let object = collector.object(element, at: elementPath, allowedKeys: ["name", "sha256"]) else { continue }
            let name = object.string("name", required: true)
            if let name, !ServerConfiguration.isValidName(name) {
                object.report("invalid key name \"\(name)\": \(ServerConfiguration.nameRule)", atMember: "name")
                continue
            }
            guard let name, let digest = object.string("sha256", required: true) else { continue }
            guard digest.utf8.count == 64, let bytes = try? Hex.decode(digest) else {
                object.report("expected the key's SHA-256 as 64 hex digits (what `trellis token new` prints)", atMember: "sha256")
                continue
            }
            if keys.contains(where: { $0.name == name }) {
                object.report("duplicate key name \"\(name)\"", atMember: "name")
                continue
            }
            keys.append(ServerConfiguration.APIKey(name: name, sha256: bytes))
        }
        return keys
    }
}
