import Foundation
import Logging
import Prometheus
import Testing
import TrellisCrypto
import TrellisJSON
import TrellisRuntime
import TrellisTesting
@testable import TrellisServer

/// Behind a balancer every client shares its address: with the balancer trusted
/// (`trustedProxies`), the failure limit counts the client `X-Forwarded-For` names, so one
/// client's guesses never limit another's; without it, the header is anyone's and is ignored.
@Suite(.serialized) struct TrustedProxyTests {
    static func application(_ config: TemporaryConfig, trusted: [String]) throws -> Application {
        try ControlPlaneLiveTests.application(config) { $0.trustedProxies = trusted.compactMap(AddressRange.init) }
    }

    static func status(_ client: TestClient, token: String, forwardedFor: String) throws -> Int {
        try client.exchange("GET", "/admin/rollouts", token: token, headers: ["X-Forwarded-For": forwardedFor]).status
    }

    @Test func behindATrustedProxyEachClientIsLimitedAlone() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try Self.application(config, trusted: ["127.0.0.1/32"])
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        for _ in 0..<10 { #expect(try Self.status(client, token: "trl_guess", forwardedFor: "203.0.113.5") == 401) }
        #expect(try Self.status(client, token: "trl_guess", forwardedFor: "203.0.113.5") == 429)
        // Another client behind the same proxy is not limited by the first one's guesses.
        #expect(try Self.status(client, token: "trl_guess", forwardedFor: "203.0.113.6") == 401)
        // A client that writes its own header gets only the hop the trusted proxy appended.
        #expect(try Self.status(client, token: "trl_guess", forwardedFor: "203.0.113.6, 203.0.113.5") == 429)
        #expect(try Self.status(client, token: ControlPlaneLiveTests.token, forwardedFor: "203.0.113.5") == 200)
    }

    @Test func withoutATrustedProxyTheHeaderIsIgnored() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try Self.application(config, trusted: [])
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        for i in 0..<10 { #expect(try Self.status(client, token: "trl_guess", forwardedFor: "198.51.100.\(i)") == 401) }
        #expect(try Self.status(client, token: "trl_guess", forwardedFor: "198.51.100.99") == 429)
    }

    @Test func aRangeIsReadAsCIDRAndAnythingElseIsRefusedWithItsPath() throws {
        #expect(AddressRange("10.0.0.0/8")?.contains("10.200.1.2") == true)
        #expect(AddressRange("10.0.0.0/8")?.contains("11.0.0.1") == false)
        #expect(AddressRange("fd00::/8")?.contains("fd12::1") == true)
        #expect(AddressRange("192.0.2.7")?.contains("192.0.2.7") == true && AddressRange("192.0.2.7")?.contains("192.0.2.8") == false)
        #expect(AddressRange("10.0.0.0/33") == nil && AddressRange("proxy.local") == nil && AddressRange("") == nil && AddressRange("/8") == nil)
        let loaded = ServerConfiguration.load(
            fileBytes: Array(#"{"trustedProxies": ["10.0.0.0/8", "proxy.local"]}"#.utf8), source: "server.json", environment: [:], overrides: [])
        guard case .failure(let error) = loaded else { Issue.record("a range that is no range was read"); return }
        #expect(error.description.contains("$.trustedProxies[1]"), "\(error.description)")
    }
}
