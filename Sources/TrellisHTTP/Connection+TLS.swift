/// TLS on a connection: the handshake and decryption in front of the parser, on the same loop
/// and with the same timers as plain HTTP.
///
/// A handshake counts against the head timeout: until the first decrypted byte arrives the
/// connection is a fresh one in the state machine, whose deadline (`headTimeout` from the accept)
/// closes it silently, like a client that never sends a header; and with every slot taken it is
/// reclaimed like any silent connection.
extension Connection {
    /// Drives the handshake and reads one record's plaintext into the loop's scratch buffer.
    /// - Returns: the plaintext bytes read; 0 or less when there are none now (still
    ///   handshaking, waiting for the socket, refused as plain HTTP, or closed).
    func readDecrypted(_ loop: EventLoop) -> Int {
        switch tls!.read(fd: fd, into: loop.scratch) {
        case .bytes(let n):
            return n
        case .wantRead:
            return 0
        case .wantWrite:
            tlsWaitsForWritable = true
            updateInterest(loop)
            return 0
        case .closed:
            close(loop)
            return 0
        case .plainText:
            refusePlainHTTP(loop)
            return 0
        }
    }

    /// A plain HTTP request on a TLS port is answered 400 in plain text, then the connection
    /// closes (nginx: "The plain HTTP request was sent to HTTPS port").
    private func refusePlainHTTP(_ loop: EventLoop) {
        tls?.free()
        tls = nil  // what follows is plain: the 400 goes out unencrypted, the rest is discarded
        answerError(.badRequest, reason: "plain HTTP request sent to the TLS port", loop)
        flush(loop)
    }

    /// Ends the session when the connection closes: close_notify if it was healthy, then free.
    func closeTLS() {
        tls?.sendCloseNotify()
        tls?.free()
        tls = nil
    }
}
