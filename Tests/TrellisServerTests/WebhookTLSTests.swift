import Foundation
import Testing
import TrellisCrypto
import TrellisHTTP
import TrellisRuntime
import TrellisTesting

/// `https://` receivers: the delivery is made over TLS to a receiver whose certificate an
/// authority in `admin.webhookCAFile` signed, for the URL's host — and not to one whose
/// certificate does not name that host.
@Suite(.serialized) struct WebhookTLSTests {
    /// Python's HTTPS server as the receiver: every POST as a JSON line in `log`.
    static let receiver = #"""
        import base64, http.server, json, ssl, sys
        certificate, key, log = sys.argv[1:]
        class Receiver(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with open(log, "a") as out:
                    out.write(json.dumps({"target": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                          "body": base64.b64encode(body).decode()}) + "\n")
                self.send_response(204)
                self.end_headers()
            def log_message(self, *args): pass
        server = http.server.HTTPServer(("0.0.0.0", 0), Receiver)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    @Test func anHTTPSReceiverGetsSignedDeliveriesOnlyWhenItsCertificateNamesTheHost() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let pair = try SelfSignedCertificate(hosts: ["localhost", "127.0.0.1"])
        let certificate = config.url.appendingPathComponent("receiver.pem")
        let key = config.url.appendingPathComponent("receiver-key.pem")
        let log = config.url.appendingPathComponent("received.jsonl")
        try Data(pair.certificatePEM.utf8).write(to: certificate)
        try Data(pair.privateKeyPEM.utf8).write(to: key)

        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", Self.receiver, certificate.path, key.path, log.path]
        let output = Pipe()
        python.standardOutput = output
        python.standardError = FileHandle.nullDevice
        try python.run()
        defer {
            // SIGKILL: the test process's threads block SIGTERM, and a child started from one inherits that.
            kill(python.processIdentifier, SIGKILL)
            python.waitUntilExit()
        }
        let printed = LogReader(output.fileHandleForReading)
        _ = WebhookTests.eventually(within: 10) { printed.text.contains("\n") }
        let port = try #require(Int(printed.text.trimmingCharacters(in: .whitespacesAndNewlines)), "the receiver's port: \(printed.text)")

        // The receiver's certificate is its own authority: trusted through admin.webhookCAFile.
        let server = try ServedBinary(config: config, adminExtra: #""webhookCAFile": "\#(certificate.path)", "webhookAllowPrivate": true"#)
        try server.start()
        defer { server.stop() }
        for (name, host) in [("by-name", "localhost"), ("by-address", "127.0.0.1"), ("wrong-address", "127.0.0.2")] {
            #expect(try server.request(
                "POST", "/admin/webhooks", token: ServedBinary.adminToken,
                body: #"{"name": "\#(name)", "url": "https://\#(host):\#(port)/\#(name)", "secret": "\#(WebhookTests.secret)", "events": ["rollout.*"]}"#
            ).status == 201)
        }
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 31}"#).status == 200)

        func received() -> [JSONTree] {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map {
                JSONTree((try? JSONSerialization.jsonObject(with: Data($0.utf8))) ?? NSNull())
            }
        }
        #expect(try WebhookTests.eventually { Set(received().compactMap { $0["target"]?.string }) == ["/by-name", "/by-address"] })
        for delivery in received() {
            let body = try #require(delivery["body"]?.string.flatMap { Data(base64Encoded: $0) }).map { $0 }
            let signed = WebhookReceiver.Delivery(
                target: delivery["target"]?.string ?? "",
                headers: (delivery["headers"]?.value as? [String: String]) ?? [:], body: body)
            #expect(signed.isSigned(with: WebhookTests.secret))
            #expect(signed.event == "rollout.update")
        }
        // 127.0.0.2 reaches the same receiver, but its certificate does not name that address.
        #expect(try WebhookTests.eventually {
            try server.request("GET", "/admin/webhooks/deliveries?webhook=wrong-address&failed=true", token: ServedBinary.adminToken)
                .json["deliveries"]?[0]?["error"]?.string?.contains("mismatch") == true
        })
        #expect(!received().contains { $0["target"]?.string == "/wrong-address" })
    }

    @Test func aCertificateAuthorityFileThatDoesNotLoadStopsTheStartSayingWhy() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let server = try ServedBinary(config: config, adminExtra: #""webhookCAFile": "/nonexistent/ca.pem""#)
        do {
            try server.start()
            server.stop()
            Issue.record("started with a certificate authority file that does not exist")
        } catch let failure as ServedBinary.StartFailure {
            #expect(failure.output.contains("admin.webhookCAFile"), "\(failure.output)")
            #expect(failure.output.contains("/nonexistent/ca.pem"))
        }
    }
}
