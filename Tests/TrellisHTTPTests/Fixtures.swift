import Foundation
import Testing
@testable import TrellisHTTP

/// A parser fixture from `Fixtures/http/`: raw bytes written with visible escapes (`\r`, `\n`,
/// `\t`, `\\`, `\xHH`; real newlines are only for reading), plus `# key: value` lines on top.
struct ParserFixture: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: [UInt8]
    var expectedStatus: Int?
    var expectedEvents: [String]
    var limits: HTTPParserLimits

    var testDescription: String { name }

    /// The limits fixtures run with unless they say otherwise: small, so that cases stay short.
    static let defaultLimits = HTTPParserLimits(
        maxRequestLineBytes: 1024, maxHeaderBytes: 4096, maxHeaderCount: 32, maxBodyBytes: 4096,
        maxChunkLineBytes: 256)

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/http")

    static func load(_ kind: String) -> [ParserFixture] {
        let dir = directory.appendingPathComponent(kind)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".txt") }.sorted().map { name in
            let text = (try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? ""
            return parse(name: String(name.dropLast(4)), text: text)
        }
    }

    static func parse(name: String, text: String) -> ParserFixture {
        var fixture = ParserFixture(name: name, bytes: [], expectedStatus: nil, expectedEvents: [], limits: defaultLimits)
        var data = ""
        var inHeader = true
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if inHeader, line.hasPrefix("# ") {
                let body = line.dropFirst(2)
                guard let colon = body.firstIndex(of: ":") else { continue }
                let key = body[..<colon], value = body[body.index(after: colon)...].dropFirst()
                switch key {
                case "expect": fixture.expectedStatus = Int(value)
                case "event": fixture.expectedEvents.append(String(value))
                case "limits": fixture.limits = applyLimits(String(value), to: defaultLimits)
                default: break
                }
                continue
            }
            inHeader = false
            data += line
        }
        fixture.bytes = unescape(data)
        return fixture
    }

    static func applyLimits(_ spec: String, to base: HTTPParserLimits) -> HTTPParserLimits {
        var limits = base
        for pair in spec.split(separator: " ") {
            let kv = pair.split(separator: "=")
            guard kv.count == 2, let n = Int(kv[1]) else { continue }
            switch kv[0] {
            case "maxRequestLineBytes": limits.maxRequestLineBytes = n
            case "maxHeaderBytes": limits.maxHeaderBytes = n
            case "maxHeaderCount": limits.maxHeaderCount = n
            case "maxBodyBytes": limits.maxBodyBytes = n
            case "maxChunkLineBytes": limits.maxChunkLineBytes = n
            default: break
            }
        }
        return limits
    }

    static func unescape(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        let u = Array(s.utf8)
        var i = 0
        while i < u.count {
            if u[i] == UInt8(ascii: "\\"), i + 1 < u.count {
                switch u[i + 1] {
                case UInt8(ascii: "r"): out.append(13); i += 2
                case UInt8(ascii: "n"): out.append(10); i += 2
                case UInt8(ascii: "t"): out.append(9); i += 2
                case UInt8(ascii: "\\"): out.append(92); i += 2
                case UInt8(ascii: "x"):
                    out.append(UInt8(String(decoding: u[(i + 2)..<(i + 4)], as: UTF8.self), radix: 16)!)
                    i += 4
                default: preconditionFailure("unknown escape in fixture")
                }
            } else {
                out.append(u[i]); i += 1
            }
        }
        return out
    }
}

/// Feeds bytes to a parser in the given pieces, as a connection would, and renders the events.
enum ParserDriver {
    /// - Parameter splits: the sizes of the pieces; the rest of the input comes in one last piece.
    static func events(_ bytes: [UInt8], limits: HTTPParserLimits, pieces: [Int]? = nil, stopAtFirstEnd: Bool = false) -> [String] {
        var parser = HTTPParser(limits: limits)
        var buffer: [UInt8] = []
        var events: [String] = []
        var offset = 0
        var sizes = pieces ?? [bytes.count]
        if sizes.reduce(0, +) < bytes.count { sizes.append(bytes.count - sizes.reduce(0, +)) }
        for size in sizes {
            let end = min(offset + size, bytes.count)
            buffer += bytes[offset..<end]
            offset = end
            loop: while true {
                let (event, consumed) = buffer.withUnsafeBufferPointer { parser.next($0) }
                buffer.removeFirst(consumed)
                switch event {
                case .needMoreData: break loop
                case .head(let h): events += render(h)
                case .body(let b):
                    if let last = events.last, last.hasPrefix("body ") { events[events.count - 1] += escape(b) }
                    else { events.append("body " + escape(b)) }
                case .end:
                    events.append("end")
                    if stopAtFirstEnd { return events }
                case .error(let e):
                    events.append("error \(e.status.code)")
                    return events
                }
            }
        }
        return events
    }

    static func render(_ h: HTTPRequestHead) -> [String] {
        var out = ["head \(h.method) \(h.target) \(h.version) \(h.keepAlive ? "keep-alive" : "close")\(h.expectsContinue ? " continue" : "")"]
        out.append("path \(h.path)")
        out += h.query.map { "query \($0.name)=\($0.value)" }
        out += h.headers.map { "header \($0.name): \($0.value)" }
        return out
    }

    static func escape(_ bytes: [UInt8]) -> String {
        var s = ""
        for b in bytes {
            switch b {
            case 13: s += "\\r"
            case 10: s += "\\n"
            case 9: s += "\\t"
            case 92: s += "\\\\"
            case 0x20..<0x7F: s.unicodeScalars.append(Unicode.Scalar(b))
            default: s += "\\x" + (b < 16 ? "0" : "") + String(b, radix: 16)
            }
        }
        return s
    }
}
