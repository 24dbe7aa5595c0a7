#if canImport(Glibc)
import Glibc
#endif
import CSSL

/// One certificate and private key with the server's TLS policy, ready to start handshakes
/// (an OpenSSL `SSL_CTX`). Every event loop starts its connections' sessions from the same
/// context, so a session cached or a ticket issued on one loop resumes on any other.
///
/// Policy (nginx's defaults, tightened to Mozilla's "intermediate" profile): TLS 1.2 and 1.3 only;
/// key exchange over X25519, P-256 or P-384;
/// TLS 1.2 limited to ECDHE with AES-GCM or ChaCha20-Poly1305 (forward secrecy, AEAD); TLS 1.3
/// with OpenSSL's suites; no renegotiation, no compression; ALPN `h2` (with `http2`) then `http/1.1`; sessions resumed from
/// a server-side cache (TLS 1.2 session ids) and from tickets (the ticket key is the context's own,
/// random, and changes whenever the context is rebuilt: on every reload and every
/// `ticketKeyLifetime`).
///
/// `@unchecked Sendable`: once built, an `SSL_CTX` is only read (`SSL_new`), which OpenSSL allows
/// from any thread; its session cache has OpenSSL's own lock.
public final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    /// When this context was built: its ticket key is due for rotation after `ticketKeyLifetime`.
    let built: ContinuousClock.Instant

    /// TLS 1.2 suites (TLS 1.3's are OpenSSL's, all AEAD with forward secrecy).
    static let tls12Ciphers =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    /// Reads the PEM files and checks that the key belongs to the certificate.
    /// - Parameters:
    ///   - certificatePath: the leaf certificate followed by any intermediates, PEM.
    ///   - privateKeyPath: its private key (EC or RSA), PEM, unencrypted.
    /// - Throws: `TLSError` naming the file and OpenSSL's reason ("key values mismatch").
    /// - Parameter http2: offer `h2` through ALPN, before `http/1.1` (`Configuration.http2`).
    public init(
        certificatePath: String, privateKeyPath: String, settings: HTTPServer.Configuration.TLS? = nil, http2: Bool = false
    ) throws(TLSError) {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw TLSError.openSSL("SSL_CTX_new") }
        pointer = ctx
        built = .now
        let limits = settings ?? HTTPServer.Configuration.TLS(certificatePath: certificatePath, privateKeyPath: privateKeyPath)
        guard trellis_ssl_ctx_set_min_proto_tls12(ctx) == 1 else { throw TLSError.openSSL("set minimum protocol TLS 1.2") }
        _ = trellis_ssl_ctx_set_modes(ctx)
        _ = trellis_ssl_ctx_set_server_options(ctx)
        guard SSL_CTX_set_cipher_list(ctx, Self.tls12Ciphers) == 1 else { throw TLSError.openSSL("set TLS 1.2 ciphers") }
        guard trellis_ssl_ctx_set_groups(ctx) == 1 else { throw TLSError.openSSL("set key-exchange groups") }
        _ = trellis_ssl_ctx_set_session_cache(ctx, limits.sessionCacheSize, Int(limits.sessionTimeout.components.seconds))
        _ = SSL_CTX_set_num_tickets(ctx, 1)  // OpenSSL sends two by default; browsers use one
        let sessionIDContext: [UInt8] = Array("trellis".utf8)
        _ = SSL_CTX_set_session_id_context(ctx, sessionIDContext, UInt32(sessionIDContext.count))
        trellis_ssl_ctx_set_alpn(ctx, http2 ? 1 : 0)
        guard SSL_CTX_use_certificate_chain_file(ctx, certificatePath) == 1 else {
            throw TLSError.openSSL("certificate \(certificatePath)")
        }
        guard SSL_CTX_use_PrivateKey_file(ctx, privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError.openSSL("private key \(privateKeyPath)")
        }
        guard SSL_CTX_check_private_key(ctx) == 1 else {
            throw TLSError.openSSL("private key \(privateKeyPath) does not match certificate \(certificatePath)")
        }
    }

    deinit { SSL_CTX_free(pointer) }

    /// Handshakes that resumed a cached session or a ticket, since this context was built.
    var resumedHandshakes: Int { trellis_ssl_ctx_session_hits(pointer) }
}

/// What OpenSSL refused, with its reason: "private key key.pem: … key values mismatch".
public struct TLSError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var reason: String
    public var description: String { reason.isEmpty ? operation : "\(operation): \(reason)" }

    /// Takes (and clears) this thread's OpenSSL error queue as the reason.
    static func openSSL(_ operation: String) -> TLSError {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            reasons.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return TLSError(operation: operation, reason: reasons.joined(separator: "; "))
    }
}
