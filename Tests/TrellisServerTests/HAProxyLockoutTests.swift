#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Prometheus
import Testing
import TrellisCrypto
import TrellisRuntime
import TrellisTesting
@testable import TrellisServer

/// Through the balancer the deploy files ship (HAProxy, `option forwardfor`), bad tokens from
/// anybody never keep a valid one out: ten bad tokens, then a valid one, is 200.
@Suite(.serialized) struct HAProxyLockoutTests {
    /// A port on 127.0.0.1 nobody listens on now (the kernel's choice, released at once).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// HAProxy running `configuration` (written beside `config`), in the foreground; nil, with the
    /// test failed, when it is not installed.
    static func haproxy(_ configuration: String, in config: TemporaryConfig) throws -> Process? {
        guard let haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            Issue.record("haproxy is not installed (scripts/test installs it)")
            return nil
        }
        let file = config.url.appendingPathComponent("haproxy.cfg")
        try Data(configuration.utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: haproxy)
        process.arguments = ["-f", file.path, "-db"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A client of the balancer on `port`, once it listens.
    static func client(_ port: Int) throws -> TestClient {
        for _ in 0..<100 {
            if let client = try? TestClient(port: port) { return client }
            usleep(20_000)
        }
        throw POSIXError(.ECONNREFUSED)
    }

    @Test func tenBadTokensThenAValidOneIs200ThroughHAProxy() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try ControlPlaneLiveTests.application(config) { $0.trustedProxies = [AddressRange("127.0.0.1")].compactMap { $0 } }
        defer { application.shutdown(); application.waitUntilStopped() }

        let port = try Self.freePort()
        guard let process = try Self.haproxy("""
            global
                log stderr format raw local0 emerg
            defaults
                mode http
                timeout connect 2s
                timeout client 10s
                timeout server 10s
            frontend public
                bind 127.0.0.1:\(port)
                default_backend replicas
            backend replicas
                option forwardfor
                server trellis 127.0.0.1:\(application.port)

            """, in: config) else { return }
        defer { process.terminate(); process.waitUntilExit() }
        let balanced = try Self.client(port)
        for _ in 0..<10 { #expect(try balanced.exchange("GET", "/admin/rollouts", token: "trl_guess").status == 401) }
        #expect(try balanced.exchange("GET", "/admin/rollouts", token: "trl_guess").status == 429)
        #expect(try balanced.exchange("GET", "/admin/rollouts", token: ControlPlaneLiveTests.token).status == 200)
    }

    /// deploy/haproxy.cfg as shipped (its replicas' names and ports pointed at this test's server):
    /// screens on the public frontend and no admin request there, the admin API and the console on
    /// the admin frontend alone.
    @Test func theShippedBalancerServesTheAdminAPIOnItsOwnFrontendOnly() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try ControlPlaneLiveTests.application(config, adminPort: 0)
        defer { application.shutdown(); application.waitUntilStopped() }
        let (publicFront, adminFront, stats) = (try Self.freePort(), try Self.freePort(), try Self.freePort())
        let shipped = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/haproxy.cfg"), encoding: .utf8)
        // Docker's names and resolver are this test's loopback; nothing else of the file changes.
        var lines: [String] = []
        var inResolvers = false
        for line in shipped.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("resolvers ") { inResolvers = true; continue }
            if inResolvers { if line.hasPrefix(" ") { continue } else { inResolvers = false } }
            var line = line.replacingOccurrences(of: " resolvers docker", with: "")
            line = line.replacingOccurrences(of: "bind :8080", with: "bind 127.0.0.1:\(publicFront)")
            line = line.replacingOccurrences(of: "bind :9090", with: "bind 127.0.0.1:\(adminFront)")
            line = line.replacingOccurrences(of: "bind :8404", with: "bind 127.0.0.1:\(stats)")
            line = line.replacingOccurrences(of: "check port 8080", with: "check port \(application.port)")
            for replica in 1...3 {
                line = line.replacingOccurrences(of: "trellis-\(replica):8080", with: "127.0.0.1:\(application.port)")
                line = line.replacingOccurrences(of: "trellis-\(replica):9090", with: "127.0.0.1:\(application.adminPort)")
            }
            lines.append(line)
        }
        guard let process = try Self.haproxy(lines.joined(separator: "\n"), in: config) else { return }
        defer { process.terminate(); process.waitUntilExit() }
        // The replicas pass their health check (on the public port) before they get requests.
        let publicSide = try Self.client(publicFront)
        var screens = 0
        for _ in 0..<100 where screens != 200 {
            screens = try publicSide.exchange("GET", "/v1/screens/home", token: nil).status
            if screens != 200 { usleep(50_000) }
        }
        #expect(screens == 200)
        #expect(try publicSide.exchange("GET", "/admin/rollouts", token: ControlPlaneLiveTests.token).status == 404)
        let adminSide = try Self.client(adminFront)
        var rollouts = 0
        for _ in 0..<100 where rollouts != 200 {
            rollouts = try adminSide.exchange("GET", "/admin/rollouts", token: ControlPlaneLiveTests.token).status
            if rollouts != 200 { usleep(50_000) }
        }
        #expect(rollouts == 200)
        #expect(try adminSide.exchange("GET", "/console", token: nil).status == 200)
    }
}
