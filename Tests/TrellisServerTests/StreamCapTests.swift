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

/// One client cannot take every change stream: an address holds `changes.maxStreamsPerClient` at
/// most (429 beyond), while another address still opens one and health checks answer.
@Suite(.serialized) struct StreamCapTests {
    /// A connection from `source` (a loopback address) that asks for `target` and returns the
    /// status of the answer, the socket left open (a stream stays open while it is).
    static func open(_ target: String, port: Int, from source: String) throws -> (status: Int, socket: Int32) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request = Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        let line = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self).split(separator: "\r\n").first ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0, fd)
    }

    @Test func oneClientAtItsCapLeavesStreamsForOthersAndHealthAnswers() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try ControlPlaneLiveTests.application(config) { $0.changes.maxStreamsPerClient = 3 }
        defer { application.shutdown(); application.waitUntilStopped() }
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<3 {
            let opened = try Self.open("/v1/changes", port: application.port, from: "127.0.0.1")
            sockets.append(opened.socket)
            #expect(opened.status == 200)
        }
        let refused = try Self.open("/v1/changes", port: application.port, from: "127.0.0.1")
        sockets.append(refused.socket)
        #expect(refused.status == 429, "the fourth stream of one address")
        let other = try Self.open("/v1/changes", port: application.port, from: "127.0.0.2")
        sockets.append(other.socket)
        #expect(other.status == 200, "another address still gets one")
        #expect(try TestClient(port: application.port).exchange("GET", "/healthz", token: nil).status == 200)
        // A stream closed frees its place.
        close(sockets.removeFirst())
        var reopened = 0
        for _ in 0..<50 where reopened != 200 {
            usleep(20_000)
            let again = try Self.open("/v1/changes", port: application.port, from: "127.0.0.1")
            sockets.append(again.socket)
            reopened = again.status
        }
        #expect(reopened == 200)
    }

    /// Streams filling every connection the server may hold do not keep a health check out: a
    /// newcomer takes the place of a stream of the client that holds the most (which resumes).
    @Test func streamsAtTheConnectionLimitGiveWayToAHealthCheck() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try ControlPlaneLiveTests.application(config) { $0.limits.maxConnections = 4 }
        defer { application.shutdown(); application.waitUntilStopped() }
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for source in ["127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.3"] {
            let opened = try Self.open("/v1/changes", port: application.port, from: source)
            sockets.append(opened.socket)
            #expect(opened.status == 200, "\(source)")
        }
        let health = try Self.open("/healthz", port: application.port, from: "127.0.0.4")
        sockets.append(health.socket)
        #expect(health.status == 200, "a health check gets a connection while streams hold every one")
    }
}
