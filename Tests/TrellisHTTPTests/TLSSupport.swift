#if canImport(Glibc)
import Glibc
#endif
import CSSL
import Foundation
import TrellisTesting
@testable import TrellisHTTP

/// A certificate and key written to a temporary directory, for one test.
struct TLSFiles {
    let directory: URL
    var certificate: String { directory.appendingPathComponent("cert.pem").path }
    var privateKey: String { directory.appendingPathComponent("key.pem").path }

    init(hosts: [String] = ["localhost", "127.0.0.1"], keyType: SelfSignedCertificate.KeyType = .ecdsa) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try write(SelfSignedCertificate(hosts: hosts, keyType: keyType))
    }

    /// Replaces the files (as certbot does before it signals the server).
    func write(_ pair: SelfSignedCertificate) throws {
        try Data(pair.certificatePEM.utf8).write(to: URL(fileURLWithPath: certificate))
        try Data(pair.privateKeyPEM.utf8).write(to: URL(fileURLWithPath: privateKey))
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Starts a test server with a plain listener and a TLS one (`server.tlsPort`).
func startTLSServer(
    _ files: TLSFiles, tlsOnly: Bool = false, _ adjust: (inout HTTPServer.Configuration) -> Void = { _ in }
) throws -> HTTPServer {
    try startServer { config in
        config.tls = .init(certificatePath: files.certificate, privateKeyPath: files.privateKey, port: tlsOnly ? nil : 0)
        adjust(&config)
    }
}

/// A blocking TLS client over OpenSSL, for tests: handshake, requests, the certificate seen,
/// and session resumption.
final class TLSTestClient {
    let tcp: TestClient
    let context: OpaquePointer
    let ssl: OpaquePointer
    private var buffer: [UInt8] = []
    /// `SSL_get_error` of the last read that returned nothing.
    private var lastError: Int32 = 0

    /// Connects and completes the handshake. `maxVersion` pins TLS 1.2 (`TLS1_2_VERSION`) when asked.
    init(port: Int, maxVersion: Int32 = 0, resuming session: OpaquePointer? = nil, alpn: [String] = ["http/1.1"]) throws {
        tcp = try TestClient(port: port)
        context = SSL_CTX_new(TLS_client_method())
        if maxVersion != 0 { _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(maxVersion), nil) }
        ssl = SSL_new(context)
        SSL_set_fd(ssl, tcp.fd)
        var protocols: [UInt8] = []
        for name in alpn { protocols += [UInt8(name.utf8.count)] + Array(name.utf8) }
        if !protocols.isEmpty { _ = SSL_set_alpn_protos(ssl, protocols, UInt32(protocols.count)) }
        if let session { SSL_set_session(ssl, session) }
        // Thrown with every property set, so `deinit` runs and frees both.
        guard SSL_connect(ssl) == 1 else {
            ERR_clear_error()
            throw TLSError(operation: "handshake", reason: "refused")
        }
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = SSL_write(ssl, bytes, Int32(bytes.count))
    }

    /// Bytes as they are on the socket, under the TLS session's nose (a broken record).
    func sendRaw(_ bytes: [UInt8]) { tcp.send(bytes) }

    /// The next bytes the session delivers; nil at its end or on an error (kept in `lastError`).
    private func receive() -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = SSL_read(ssl, &chunk, Int32(chunk.count))
        guard n > 0 else {
            lastError = SSL_get_error(ssl, n)
            ERR_clear_error()
            return nil
        }
        return Array(chunk[0..<Int(n)])
    }

    /// Reads one response with a `Content-Length` body.
    func readResponse() -> WireResponse? { WireResponse.read(from: &buffer, receive: receive) }

    /// True when the server ended the session or the connection within the receive timeout.
    func isClosedByServer() -> Bool {
        while let more = receive() { buffer += more }
        return lastError == SSL_ERROR_ZERO_RETURN || lastError == SSL_ERROR_SYSCALL || lastError == SSL_ERROR_SSL
    }

    /// The subject common name of the certificate the server presented.
    var peerCommonName: String? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        var name = [CChar](repeating: 0, count: 256)
        X509_NAME_get_text_by_NID(X509_get_subject_name(certificate), NID_commonName, &name, Int32(name.count))
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    var protocolVersion: String { String(cString: SSL_get_version(ssl)) }
    var reusedSession: Bool { SSL_session_reused(ssl) == 1 }
    /// The session to resume with (retained; the caller frees it with `SSL_SESSION_free`).
    var session: OpaquePointer? { SSL_get1_session(ssl) }
    var alpn: String {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }
}

/// Runs a program to its end (killed after `timeout` seconds); its standard output, standard
/// error and exit status. Output goes through files, so a large one never blocks the program.
@discardableResult
func run(_ arguments: [String], input: String? = nil, timeout: Double = 20) throws -> (output: String, error: String, status: Int32) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outURL = directory.appendingPathComponent("out"), errURL = directory.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    let stdin = Pipe()
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try? stdin.fileHandleForWriting.close()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    let out = (try? Data(contentsOf: outURL)) ?? Data(), err = (try? Data(contentsOf: errURL)) ?? Data()
    return (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self), process.terminationStatus)
}
