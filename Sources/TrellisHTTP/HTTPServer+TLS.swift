import Dispatch
import Logging
import Synchronization

extension HTTPServer {
    /// Reads the certificate and key again (the files `tls` names) and, if they make a valid
    /// pair, has every event loop start new handshakes with them; connections already open keep
    /// their session. A bad pair is refused and the one in use keeps serving. The application
    /// calls this on SIGHUP (after certbot or an operator replaced the files). Rotates the
    /// session-ticket key too.
    /// - Throws: `TLSError` naming the file and OpenSSL's reason, when the pair is refused;
    ///   nothing happens without TLS or before `start()`.
    public func reloadTLS() throws(TLSError) {
        guard let tls = configuration.tls else { return }
        let context = try TLSContext(
            certificatePath: tls.certificatePath, privateKeyPath: tls.privateKeyPath, settings: tls, http2: configuration.http2)
        guard let core = state.withLock({ s -> ServerCore? in
            guard s.core != nil else { return nil }
            s.tlsContext = context
            return s.core
        }) else { return }
        // Each loop holds its own reference, replaced through its inbox: accepting a connection
        // takes no lock.
        for loop in core.loops { loop.post(.replaceTLSContext(context)) }
        logger.info("TLS certificate loaded", metadata: ["certificate": .string(tls.certificatePath)])
    }

    /// Rebuilds the context (same files) every `lifetime`, so that a session-ticket key never
    /// encrypts tickets for longer; a refused rebuild (the files were broken in between) keeps
    /// the current context and is logged.
    func startTicketKeyRotation(every lifetime: Duration) {
        let interval = DispatchTimeInterval.seconds(Int(lifetime.components.seconds))
        state.withLock { s in
            guard !s.shutdownRequested else { return }
            s.ticketKeyTimer?.cancel()
            // Made under the lock, so that it belongs to the state it is stored in.
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "trellis.tls.ticket-key"))
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [weak self] in
                guard let self else { return }
                do { try self.reloadTLS() } catch {
                    self.logger.error("TLS ticket-key rotation refused; the current key stays", metadata: ["problem": "\(error)"])
                }
            }
            timer.resume()
            s.ticketKeyTimer = timer
        }
    }
}
