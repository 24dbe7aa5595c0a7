#if canImport(Glibc)
import Glibc
#endif
import CSSL

/// What an HTTPS client trusts: the system's certificate authorities and, optionally, those of a
/// PEM file (an internal CA). Peers are verified — chain and host name or IP address — and
/// TLS 1.2 is the oldest version spoken. Built once, shared by every connection it makes.
public final class TLSClientContext: @unchecked Sendable {
    // SSL_CTX is reference-counted and safe to share across threads once configured.
    let pointer: OpaquePointer

    /// - Parameter extraAuthorities: a PEM file of certificate authorities trusted besides the system's.
    /// - Throws: ``TLSError`` naming the file and OpenSSL's reason.
    public init(extraAuthorities: String? = nil) throws(TLSError) {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw TLSError.openSSL("SSL_CTX_new") }
        pointer = ctx
        guard trellis_ssl_ctx_set_min_proto_tls12(ctx) == 1 else { throw TLSError.openSSL("TLS 1.2 minimum") }
        // The system's authorities: a missing bundle is not an error here; verification says so.
        _ = SSL_CTX_set_default_verify_paths(ctx)
        ERR_clear_error()
        if let extraAuthorities, SSL_CTX_load_verify_locations(ctx, extraAuthorities, nil) != 1 {
            throw TLSError.openSSL("certificate authorities \(extraAuthorities)")
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
    }

    deinit { SSL_CTX_free(pointer) }
}

/// One client TLS connection over a connected, blocking socket (its send and receive timeouts
/// bound every call): the handshake with `host` verified, then whole writes and reads.
public final class TLSClientSession {
    private let ssl: OpaquePointer

    /// Handshakes on `fd` with the server `host` (a DNS name, sent as SNI, or an IP address),
    /// verifying its certificate for that name.
    /// - Throws: ``TLSError`` saying why: the verification result, or OpenSSL's reason.
    public init(context: TLSClientContext, fd: Int32, host: String) throws(TLSError) {
        guard let ssl = SSL_new(context.pointer) else { throw TLSError.openSSL("SSL_new") }
        self.ssl = ssl
        guard SSL_set_fd(ssl, fd) == 1 else { throw TLSError.openSSL("SSL_set_fd") }
        var address = in6_addr()
        let isAddress = inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
        if isAddress {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else { throw TLSError.openSSL("expected address \(host)") }
        } else {
            guard trellis_ssl_set_server_name(ssl, host) == 1, SSL_set1_host(ssl, host) == 1 else {
                throw TLSError.openSSL("expected host \(host)")
            }
        }
        guard SSL_connect(ssl) == 1 else {
            let verified = SSL_get_verify_result(ssl)
            if verified != X509_V_OK {
                ERR_clear_error()
                throw TLSError(operation: "TLS handshake with \(host)", reason: String(cString: X509_verify_cert_error_string(verified)))
            }
            throw Self.failure("TLS handshake with \(host)")
        }
    }

    deinit { SSL_free(ssl) }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(TLSError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            guard written > 0 else { throw Self.failure("TLS write") }
            offset += Int(written)
        }
    }

    /// Up to `count` plaintext bytes; empty at the end of the stream.
    public func read(upTo count: Int) throws(TLSError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        if read > 0 { return Array(buffer.prefix(Int(read))) }
        if SSL_get_error(ssl, read) == SSL_ERROR_ZERO_RETURN { return [] }
        throw Self.failure("TLS read")
    }

    /// OpenSSL's error queue, or the socket's error (a timeout shows as EAGAIN).
    private static func failure(_ operation: String) -> TLSError {
        let code = errno
        let error = TLSError.openSSL(operation)
        guard error.reason.isEmpty else { return error }
        let reason = code == EAGAIN || code == EWOULDBLOCK ? "timed out" : code == 0 ? "the peer closed the connection" : String(cString: strerror(code))
        return TLSError(operation: operation, reason: reason)
    }
}
