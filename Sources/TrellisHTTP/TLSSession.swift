#if canImport(Glibc)
import Glibc
#endif
import CSSL

/// The TLS side of one connection: an OpenSSL `SSL` reading and writing the non-blocking socket
/// itself (`SSL_set_fd`), driven by the connection's event loop.
///
/// Why on the descriptor and not through memory BIOs: OpenSSL then reads exactly one record per
/// `read(2)` and encrypts straight into the socket, with no copy of ciphertext through our
/// buffers; WANT_READ and WANT_WRITE map one to one onto the loop's EPOLLIN and EPOLLOUT (this is
/// how nginx drives OpenSSL). Memory BIOs would only pay off for a transport OpenSSL cannot call.
///
/// A value owned by its `Connection` (only the loop's thread touches it); `free()` ends it.
struct TLSSession {
    let ssl: OpaquePointer
    /// The handshake finished: application data flows.
    private(set) var isEstablished = false
    /// The first byte was looked at (a TLS handshake record, or plain HTTP by mistake).
    private var firstByteChecked = false
    /// A fatal TLS error occurred: no close_notify is sent.
    private var failed = false

    enum ReadOutcome: Equatable {
        /// This many plaintext bytes are in the buffer.
        case bytes(Int)
        /// Nothing to do until the socket is readable (or, `wantWrite`, writable) again.
        case wantRead
        case wantWrite
        /// The peer closed (close_notify or EOF), or the stream is broken (bad record, alert).
        case closed
        /// The first byte is not a TLS handshake record: a plain HTTP request on the TLS port.
        case plainText
    }

    enum WriteOutcome: Equatable {
        case wrote(Int)
        case wantWrite
        case failed
    }

    /// A server-side session on `fd`; nil when OpenSSL cannot allocate one.
    init?(context: TLSContext, fd: Int32) {
        guard let ssl = SSL_new(context.pointer) else {
            ERR_clear_error()
            return nil
        }
        guard SSL_set_fd(ssl, fd) == 1 else {
            SSL_free(ssl)
            ERR_clear_error()
            return nil
        }
        SSL_set_accept_state(ssl)
        self.ssl = ssl
    }

    /// Advances the handshake if needed, then reads one record's plaintext into `buffer`.
    mutating func read(fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        if !isEstablished {
            if !firstByteChecked {
                // A TLS connection begins with a handshake record (content type 22); anything else
                // is most likely an HTTP request line sent to the wrong port (nginx's "plain HTTP
                // request was sent to HTTPS port"). Peeked, so that OpenSSL still reads it whole.
                var first: UInt8 = 0
                let n = recv(fd, &first, 1, Int32(MSG_PEEK))
                if n < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wantRead : .closed }
                if n == 0 { return .closed }
                firstByteChecked = true
                if first != 0x16 { return .plainText }
            }
            let result = SSL_do_handshake(ssl)
            guard result == 1 else { return outcome(of: result) }
            isEstablished = true
        }
        let result = SSL_read(ssl, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
        return result > 0 ? .bytes(Int(result)) : outcome(of: result)
    }

    private mutating func outcome(of result: Int32) -> ReadOutcome {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        default:
            // A bad record, a failed handshake, an alert, a reset. The thread's error queue is
            // cleared so that it cannot mislead the next connection's SSL_get_error on this loop.
            failed = true
            ERR_clear_error()
            return .closed
        }
    }

    /// Encrypts and sends a prefix of `bytes` (whole records; partial writes are on). After
    /// `.wantWrite`, the next call must begin with the same bytes.
    mutating func write(_ bytes: UnsafeRawBufferPointer) -> WriteOutcome {
        let result = SSL_write(ssl, bytes.baseAddress, Int32(min(bytes.count, Int(Int32.max))))
        if result > 0 { return .wrote(Int(result)) }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ: return .wantWrite
        default:
            failed = true
            ERR_clear_error()
            return .failed
        }
    }

    /// Sends close_notify when the session is healthy (best effort: the socket is non-blocking).
    mutating func sendCloseNotify() {
        guard isEstablished, !failed else { return }
        if SSL_shutdown(ssl) < 0 { ERR_clear_error() }
    }

    /// Releases the session (not the descriptor, which the connection closes).
    func free() {
        SSL_free(ssl)
    }

    /// The protocol negotiated ("TLSv1.3"), for tests and logs.
    var protocolVersion: String { String(cString: SSL_get_version(ssl)) }
}
