#if canImport(Glibc)
import Glibc
#endif

/// A connection's output waiting for the socket: status lines, header fields and small bodies
/// written into `buffer`, and large bodies kept by reference at their place between them. One
/// `sendmsg` gathers the pieces (nginx's chain of buffers), so a cached answer's body reaches the
/// socket without being copied into the connection first — that copy was the largest single cost
/// of serving one.
struct OutboundQueue {
    /// Bodies at least this large are referenced; below it, copying costs less than an iovec more.
    static let referenceThreshold = 2048
    /// At most this many referenced bodies go into one `sendmsg` (pipelined answers).
    static let bodiesPerSend = 16

    /// Bytes written in order; a referenced body goes out after `buffer[..<offset]`.
    var buffer: [UInt8] = []
    private var bodies: [(offset: Int, body: HTTPResponse.Content)] = []
    private var bodyBytes = 0
    /// How much of the whole — buffer and bodies in order — the socket has taken.
    private var sent = 0

    var pending: Int { buffer.count + bodyBytes - sent }
    var isEmpty: Bool { pending == 0 }

    mutating func append(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
    }

    /// Appends a body: copied when small, else referenced (the array or object is shared, not
    /// duplicated).
    mutating func append(body: [UInt8]) { append(body: .bytes(body)) }

    mutating func append(body: HTTPResponse.Content) {
        let count = body.count
        guard count >= Self.referenceThreshold else {
            return body.withBytes { buffer.append(contentsOf: $0) }
        }
        bodies.append((buffer.count, body))
        bodyBytes += count
    }

    /// Everything pending, in order, as one array (for tests and diagnostics).
    var contents: [UInt8] {
        withPendingVectors(bodyLimit: bodies.count) { vectors in
            vectors.flatMap { UnsafeRawBufferPointer(start: $0.iov_base, count: $0.iov_len) }
        }
    }

    enum SendResult: Equatable {
        /// Everything was sent; the buffer is emptied, its capacity left for the caller to recycle.
        case done
        /// The socket is full; `progressed` says whether it took anything first.
        case wouldBlock(progressed: Bool)
        case failed
    }

    /// Sends as much as the socket takes (partial writes and EINTR survive).
    mutating func send(to fd: Int32) -> SendResult {
        var progressed = false
        while pending > 0 {
            let n = bodies.isEmpty ? sendBuffer(fd) : gatherAndSend(fd)
            if n > 0 { sent += n; progressed = true; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .wouldBlock(progressed: progressed) }
            return .failed
        }
        reset()
        return .done
    }

    /// Empties the queue once all is sent, leaving the buffer's capacity for the caller to recycle.
    private mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        bodies.removeAll()
        bodyBytes = 0
        sent = 0
    }

    private func sendBuffer(_ fd: Int32) -> Int {
        buffer.withUnsafeBytes { bytes in
            Glibc.send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
        }
    }

    /// One `sendmsg` of the pending pieces: buffer ranges and up to `bodiesPerSend` bodies.
    private func gatherAndSend(_ fd: Int32) -> Int {
        withPendingVectors(bodyLimit: Self.bodiesPerSend) { vectors in
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = vectors.count
            return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
        }
    }

    /// Calls `body` with the unsent pieces in order — ranges of the buffer and of at most
    /// `bodyLimit` bodies — as iovecs, valid for the call. No allocation: the vectors are on the
    /// stack and each body's bytes are held by one closure level.
    private func withPendingVectors<R>(bodyLimit: Int, _ body: (UnsafeMutableBufferPointer<iovec>) -> R) -> R {
        buffer.withUnsafeBytes { head in
            withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2 * min(bodyLimit, bodies.count) + 1) { vectors in
                var gathering = Gathering(vectors: vectors, sent: sent)
                return gather(from: 0, head: head, bodyLimit: bodyLimit, &gathering, body)
            }
        }
    }

    private struct Gathering {
        let vectors: UnsafeMutableBufferPointer<iovec>
        let sent: Int
        var count = 0
        /// Where the next piece starts in the whole.
        var position = 0
        var bodies = 0

        init(vectors: UnsafeMutableBufferPointer<iovec>, sent: Int) {
            self.vectors = vectors
            self.sent = sent
        }

        /// Adds the unsent part of `range` of `base`; returns whether anything was.
        mutating func add(_ base: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
            defer { position += range.count }
            guard !range.isEmpty, position + range.count > sent else { return false }
            let from = range.lowerBound + max(0, sent - position)
            vectors[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base.baseAddress! + from), iov_len: range.upperBound - from)
            count += 1
            return true
        }
    }

    /// Adds the buffer range before body `k` and body `k`, then the rest; then calls `body`.
    private func gather<R>(
        from k: Int, head: UnsafeRawBufferPointer, bodyLimit: Int, _ gathering: inout Gathering,
        _ body: (UnsafeMutableBufferPointer<iovec>) -> R
    ) -> R {
        let bufferStart = k == 0 ? 0 : bodies[k - 1].offset
        guard k < bodies.count else {
            _ = gathering.add(head, bufferStart..<buffer.count)
            return body(UnsafeMutableBufferPointer(rebasing: gathering.vectors[..<gathering.count]))
        }
        guard gathering.bodies < bodyLimit else {
            return body(UnsafeMutableBufferPointer(rebasing: gathering.vectors[..<gathering.count]))
        }
        _ = gathering.add(head, bufferStart..<bodies[k].offset)
        return bodies[k].body.withBytes { bytes in
            if gathering.add(bytes, 0..<bytes.count) { gathering.bodies += 1 }
            return gather(from: k + 1, head: head, bodyLimit: bodyLimit, &gathering, body)
        }
    }
}

extension OutboundQueue {
    /// Sends as much as the TLS session takes. The pending pieces are gathered into `staging`
    /// (one `SSL_write` per few records, as OpenSSL has no gathering write); output that is one
    /// piece already is written from where it lies. A retry after `.wouldBlock` starts with the
    /// same bytes, as OpenSSL requires.
    mutating func send(through session: inout TLSSession, staging: UnsafeMutableRawBufferPointer) -> SendResult {
        var progressed = false
        while pending > 0 {
            let outcome: TLSSession.WriteOutcome
            if bodies.isEmpty {
                outcome = buffer.withUnsafeBytes { session.write(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            } else {
                let staged = stage(into: staging)
                outcome = session.write(UnsafeRawBufferPointer(rebasing: staging[..<staged]))
            }
            switch outcome {
            case .wrote(let n):
                sent += n
                progressed = true
            case .wantWrite: return .wouldBlock(progressed: progressed)
            case .failed: return .failed
            }
        }
        reset()
        return .done
    }

    /// Copies the unsent pieces, in order, into `staging` until it is full.
    /// - Returns: how many bytes were copied.
    private func stage(into staging: UnsafeMutableRawBufferPointer) -> Int {
        withPendingVectors(bodyLimit: bodies.count) { vectors in
            var filled = 0
            for vector in vectors where filled < staging.count {
                let n = min(vector.iov_len, staging.count - filled)
                (staging.baseAddress! + filled).copyMemory(from: vector.iov_base!, byteCount: n)
                filled += n
            }
            return filled
        }
    }
}
