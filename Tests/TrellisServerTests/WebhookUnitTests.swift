import Testing
import TrellisJSON
import TrellisRuntime
import TrellisStore
@testable import TrellisServer

/// The pieces of webhook delivery that need no socket: URLs, event patterns, the signature, the backoff.
@Suite struct WebhookUnitTests {
    @Test func urlsAreSplitOnceAndRefusedWithAReason() throws {
        let plain = try WebhookURL("http://hooks.internal/trellis?team=ops")
        #expect((plain.host, plain.port, plain.target, plain.isTLS) == ("hooks.internal", 80, "/trellis?team=ops", false))
        let secure = try WebhookURL("https://[::1]:8443")
        #expect((secure.host, secure.port, secure.target, secure.isTLS) == ("::1", 8443, "/", true))
        #expect(try WebhookURL("https://example.com?x=1").target == "/?x=1")
        #expect(try WebhookURL("https://example.com").port == 443)
        let refused: [(String, String)] = [
            ("ftp://example.com/", "must start with http:// or https://"), ("http://example.com/#top", "fragment"),
            ("http://user:pw@example.com/", "credentials"), ("http://example.com:0/", "port"), ("http://example.com:99999/", "port"),
            ("http:///path", "no host"), ("http://exa mple.com/", "spaces"), ("http://[::1/", "closing ]"),
        ]
        for (text, reason) in refused {
            #expect(throws: WebhookURL.Invalid.self) { try WebhookURL(text) }
            do { _ = try WebhookURL(text) } catch { #expect(error.description.contains(reason), "\(text): \(error)") }
        }
    }

    @Test func eventPatternsMatchAnActionAPrefixOrEverything() throws {
        let webhook = WebhookSubscription(
            name: "w", url: try WebhookURL("http://h/"), secret: String(repeating: "s", count: 16), events: ["rollout.*", "screen.publish"])
        #expect(webhook.wants("rollout.kill") && webhook.wants("rollout.update") && webhook.wants("screen.publish"))
        #expect(!webhook.wants("screen.stage") && !webhook.wants("rollouts.kill") && !webhook.wants("rollout"))
        #expect(WebhookSubscription(name: "all", url: try WebhookURL("http://h/"), secret: "", events: ["*"]).wants("token.create"))
        for valid in ["*", "rollout.*", "screen.publish", "a.b-c.d_e"] { #expect(WebhookSubscription.isValidPattern(valid), "\(valid)") }
        for invalid in ["", ".*", "rollout.", "Rollout.kill", "rollout.*.kill", "*.kill", "roll out", "rollout..kill"] {
            #expect(!WebhookSubscription.isValidPattern(invalid), "\(invalid)")
        }
    }

    @Test func theSignatureIsHMACSHA256OfTheTimestampADotAndTheBody() {
        // Python: hmac.new(secret, b"1800000000." + body, "sha256").hexdigest()
        #expect(
            WebhookRequest.signature(timestamp: "1800000000", body: Array(#"{"a":1}"#.utf8), secret: "a-shared-secret-of-some-length")
                == "af940c8d73ce4a81f36e3f6d5e122ce27bcd0e2f68928ce2cace9954c8b2e818")
    }

    @Test func theBackoffDoublesWithJitterUpToItsCap() {
        for failures in 1...40 {
            let full = min(WebhookDeliverer.maximumBackoffSeconds, WebhookDeliverer.firstBackoffSeconds * Double(1 << min(failures - 1, 30)))
            for _ in 0..<20 {
                let wait = WebhookDeliverer.backoff(afterFailures: failures)
                #expect(wait >= full / 2 && wait <= full, "after \(failures) failures: \(wait)")
            }
        }
    }

    @Test func aStoredWebhookNeverHoldsLessThanItWasGivenAndAnUnreadableOneIsNone() throws {
        let webhook = WebhookSubscription(
            name: "w", url: try WebhookURL("https://h:1/x"), secret: "0123456789abcdef", events: ["rollout.*"])
        let document = StoredDocumentFixture.document(kind: WebhookSubscription.kind, key: "w", body: webhook.body)
        let read = try #require(WebhookSubscription(stored: document))
        #expect(read.url == webhook.url && read.secret == webhook.secret && read.events == webhook.events)
        #expect(read.createdBy == "root")
        #expect(WebhookSubscription(stored: StoredDocumentFixture.document(kind: "webhook", key: "w", body: Array("null".utf8))) == nil)
        #expect(WebhookSubscription(stored: StoredDocumentFixture.document(kind: "webhook", key: "w", body: Array(#"{"url": 1}"#.utf8))) == nil)
    }
}

/// A document as the store would hand it back.
enum StoredDocumentFixture {
    static func document(kind: String, key: String, body: [UInt8]) -> StoredDocument {
        StoredDocument(kind: kind, key: key, body: body, revision: 1, updatedAt: 1_800_000_000, updatedBy: "root")
    }
}
