import ArgumentParser
import Foundation
import TrellisHTTP
import TrellisRuntime

/// `trellis tls`: certificates for the TLS listener.
struct TLSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls",
        abstract: "Certificates for TLS.",
        subcommands: [SelfSigned.self])

    /// `trellis tls self-signed [--host H …] [--key ecdsa|rsa] [--days N] [--out DIR]`
    struct SelfSigned: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "self-signed",
            abstract: "Write a self-signed certificate and its key, for trying TLS out.",
            discussion: """
                Writes DIR/cert.pem and DIR/key.pem (mode 0600) and prints the "tls" entry for server.json. \
                Clients do not trust a self-signed certificate: give it to them (curl --cacert DIR/cert.pem) \
                or use a CA-issued one in production.
                """)

        @Option(name: .customLong("host"), help: ArgumentHelp("A DNS name or IP address the certificate is for (repeatable).", valueName: "host"))
        var hosts: [String] = []

        @Option(help: ArgumentHelp("ecdsa (P-256) or rsa (2048 bits).", valueName: "type"))
        var key = SelfSignedCertificate.KeyType.ecdsa.rawValue

        @Option(help: "Days the certificate is valid.")
        var days = 365

        @Option(help: ArgumentHelp("Directory to write cert.pem and key.pem into.", valueName: "dir"))
        var out = "."

        func validate() throws {
            guard SelfSignedCertificate.KeyType(rawValue: key) != nil else {
                throw ValidationError("--key \"\(key)\": expected ecdsa or rsa")
            }
            guard (1...3650).contains(days) else { throw ValidationError("--days \(days): expected 1…3650") }
        }

        func run() throws {
            let hosts = self.hosts.isEmpty ? ["localhost"] : self.hosts
            let pair: SelfSignedCertificate
            do {
                pair = try SelfSignedCertificate(hosts: hosts, keyType: SelfSignedCertificate.KeyType(rawValue: key)!, days: days)
            } catch {
                throw CommandFailure("no certificate: \(error)")
            }
            let directory = URL(fileURLWithPath: out, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let certificate = directory.appendingPathComponent("cert.pem"), privateKey = directory.appendingPathComponent("key.pem")
            do {
                try Data(pair.certificatePEM.utf8).write(to: certificate)
                // The key is created private; never readable by others, not even for a moment.
                guard FileManager.default.createFile(atPath: privateKey.path, contents: Data(pair.privateKeyPEM.utf8),
                                                     attributes: [.posixPermissions: 0o600]) else {
                    throw CommandFailure("cannot write \(privateKey.path)")
                }
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: privateKey.path)
            } catch let error as CommandFailure {
                throw error
            } catch {
                throw CommandFailure("cannot write the certificate: \(error.localizedDescription)")
            }
            print("wrote \(certificate.path) and \(privateKey.path) for \(hosts.joined(separator: ", "))")
            print(#""tls": {"certificate": "\#(certificate.path)", "privateKey": "\#(privateKey.path)", "port": 8443}"#)
        }
    }
}
