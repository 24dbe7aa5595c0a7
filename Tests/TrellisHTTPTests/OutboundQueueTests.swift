#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TrellisHTTP

/// The gathered write through a real socket pair whose send buffer is small, so `sendmsg` stops
/// part way through buffers and bodies alike and the queue must resume exactly where it stopped.
@Suite struct OutboundQueueTests {
    /// Pipelined answers: heads in the buffer, bodies large and small, more than one send's worth of bodies.
    func pipelined(answers: Int, seed: UInt8) -> (OutboundQueue, expected: [UInt8]) {
        var queue = OutboundQueue()
        var expected: [UInt8] = []
        for i in 0..<answers {
            let head = Array("HTTP/1.1 200 OK\r\nX-Answer: \(i)\r\n\r\n".utf8)
            let size = [10, 2047, 2048, 9869, 40_000][i % 5]
            let body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i &+ Int(seed)) }
            queue.append(head)
            // Every other answer's body is kept by an object, as a cached answer's is.
            if i % 2 == 1 { queue.append(body: .shared(.init(object: HeldBytes(body)))) } else { queue.append(body: body) }
            expected += head + body
        }
        return (queue, expected)
    }

    @Test(arguments: [1, 2, 5, 17, 40])
    func everyByteArrivesInOrder(answers: Int) throws {
        var (queue, expected) = pipelined(answers: answers, seed: UInt8(answers))
        #expect(queue.contents == expected, "contents differ")
        #expect(queue.pending == expected.count)

        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var small: Int32 = 4096
        setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)

        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 3000)
        var partialSends = 0
        while true {
            let result = queue.send(to: fds[0])
            if result == .done { break }
            #expect(result != .failed)
            partialSends += 1
            let n = chunk.withUnsafeMutableBytes { read(fds[1], $0.baseAddress, $0.count) }
            if n > 0 { received += chunk[..<n] }
        }
        #expect(queue.pending == 0)
        while received.count < expected.count {
            let n = chunk.withUnsafeMutableBytes { read(fds[1], $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            received += chunk[..<n]
        }
        #expect(received.count == expected.count)
        #expect(received == expected, "bytes differ")
        if expected.count > 100_000 { #expect(partialSends > 0) }
    }

    @Test func smallBodiesAreCopiedLargeOnesShared() {
        var queue = OutboundQueue()
        queue.append(body: [UInt8](repeating: 1, count: OutboundQueue.referenceThreshold - 1))
        #expect(queue.buffer.count == OutboundQueue.referenceThreshold - 1)
        queue.append(body: [UInt8](repeating: 2, count: OutboundQueue.referenceThreshold))
        #expect(queue.buffer.count == OutboundQueue.referenceThreshold - 1)
        #expect(queue.pending == 2 * OutboundQueue.referenceThreshold - 1)
        // And so for bytes an object keeps.
        queue.append(body: .shared(.init(object: HeldBytes([UInt8](repeating: 3, count: OutboundQueue.referenceThreshold - 1)))))
        #expect(queue.buffer.count == 2 * (OutboundQueue.referenceThreshold - 1))
        queue.append(body: .shared(.init(object: HeldBytes([UInt8](repeating: 4, count: OutboundQueue.referenceThreshold)))))
        #expect(queue.buffer.count == 2 * (OutboundQueue.referenceThreshold - 1))
        #expect(queue.pending == 4 * OutboundQueue.referenceThreshold - 2)
        // A referenced body goes out where it was appended, between the bytes copied before and after it.
        let expected: [UInt8] = [UInt8](repeating: 1, count: 2047) + [UInt8](repeating: 2, count: 2048)
            + [UInt8](repeating: 3, count: 2047) + [UInt8](repeating: 4, count: 2048)
        #expect(queue.contents == expected)
    }
}
