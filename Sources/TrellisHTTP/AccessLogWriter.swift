#if canImport(Glibc)
import Glibc
#endif
import Logging

/// One event loop's access log: lines are formatted into the loop's own buffer and written with
/// one `write(2)` when the buffer passes `accessLogBufferBytes`, when its oldest line is
/// `accessLogFlushInterval` old (checked each time the loop wakes, at least every 50 ms), and when
/// the loop stops — as nginx's `access_log … buffer= flush=` does. Loops share no buffer and no
/// lock; each has its own descriptor on the file (`O_APPEND`, so their writes never overwrite each
/// other), or writes to standard output.
///
/// Used only on its loop's thread.
final class AccessLogWriter {
    let format: AccessLogFormat
    /// nil: standard output, never closed or reopened.
    let path: String?
    private let flushBytes: Int
    private let flushInterval: Duration
    private let logger: Logger
    private var fd: Int32
    /// Regular files take a whole buffer in one `write`; a pipe or terminal shared by several loops
    /// only keeps writes of up to `PIPE_BUF` bytes whole, so those are cut at line ends.
    private var atomicWriteBytes: Int
    // Used on its loop's thread only, so Swift's dynamic exclusivity checks on what each line
    // writes (two calls into the runtime a line) guard nothing.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    @exclusivity(unchecked) private var time = AccessLogTime()
    /// When the oldest buffered line must be written at the latest.
    @exclusivity(unchecked) private var flushDue: LoopClock.Instant?

    /// Opens the destination (`O_WRONLY|O_APPEND|O_CREAT|O_CLOEXEC`, mode 0644).
    /// - Throws: `HTTPServerError` naming the file, e.g. "open access log /var/log/x.log: Permission denied".
    init(configuration: HTTPServer.Configuration, logger: Logger) throws(HTTPServerError) {
        format = configuration.accessLogFormat
        path = configuration.accessLogPath
        flushBytes = configuration.accessLogBufferBytes
        flushInterval = configuration.accessLogFlushInterval
        self.logger = logger
        fd = STDOUT_FILENO
        atomicWriteBytes = Int(PIPE_BUF)
        if let path { fd = try Self.open(path) }
        atomicWriteBytes = Self.isRegularFile(fd) ? .max : Int(PIPE_BUF)
        buffer.reserveCapacity(flushBytes + 4096)
    }

    /// Formats one line; writes the buffer when it is full.
    func append(_ record: RequestRecord, epochSeconds: Int, now: LoopClock.Instant) {
        time.update(epochSeconds: epochSeconds)
        AccessLog.append(record, format: format, time: time, to: &buffer)
        if buffer.count >= flushBytes {
            flush()
        } else if flushDue == nil {
            flushDue = now.advanced(by: flushInterval)
        }
    }

    /// Writes the buffer if its oldest line has waited `accessLogFlushInterval`.
    func flushIfDue(now: LoopClock.Instant) {
        if let flushDue, now >= flushDue { flush() }
    }

    /// Writes every buffered line. A destination that fails (disk full, closed pipe) loses these
    /// lines, and says so on the server's logger; requests are never held up by it.
    func flush() {
        flushDue = nil
        guard !buffer.isEmpty else { return }
        let failure: Int32? = buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                var end = bytes.count
                if end - offset > atomicWriteBytes {
                    // Cut after the last line end that fits; a longer line goes alone.
                    let window = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + atomicWriteBytes)])
                    end = window.lastIndex(of: HTTPBytes.lf).map { offset + $0 + 1 }
                        ?? bytes[offset...].firstIndex(of: HTTPBytes.lf).map { $0 + 1 } ?? bytes.count
                }
                if let error = Self.writeAll(fd, UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) { return error }
                offset = end
            }
            return nil
        }
        if let failure {
            logger.error("access log lines lost: \(String(cString: strerror(failure))) (errno \(failure))",
                         metadata: ["path": .string(path ?? "standard output"), "bytes": .stringConvertible(buffer.count)])
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered to the file open now, then opens `path` anew (logrotate renamed
    /// it: `kill -USR1`). If the new open fails, the old descriptor stays in use and the failure
    /// is logged. Standard output is not reopened.
    func reopen() {
        guard let path else { return }
        flush()
        do {
            let fresh = try Self.open(path)
            Glibc.close(fd)
            fd = fresh
            atomicWriteBytes = Self.isRegularFile(fd) ? .max : Int(PIPE_BUF)
        } catch {
            logger.error("access log not reopened; still writing to the file open before", metadata: ["error": "\(error)"])
        }
    }

    /// Writes what is left and closes the file (at the end of the loop).
    func close() {
        flush()
        if path != nil { Glibc.close(fd) }
    }

    private static func open(_ path: String) throws(HTTPServerError) -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw HTTPServerError(operation: "open access log", address: path, errno: errno) }
        return fd
    }

    private static func isRegularFile(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// `write` until done; EINTR retried, EAGAIN (a non-blocking standard output) waited for up
    /// to a second at a time. Returns the errno that stopped it.
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&poller, 1, 1000) > 0 { continue }
                return EAGAIN
            }
            return n < 0 ? errno : EIO
        }
        return nil
    }
}
