import Foundation

/// The body of the first fenced code block (```` ```json ```` or ```` ``` ````) after `marker` in a
/// Markdown document, with a final newline; nil when there is none. Docs tests use it to check
/// that the examples in docs/ are what the code does.
public func fencedBlock(after marker: String, in markdown: String) -> String? {
    guard let start = markdown.range(of: marker) else { return nil }
    let rest = markdown[start.upperBound...]
    guard let open = rest.range(of: "```") else { return nil }
    let afterFence = rest[open.upperBound...]
    guard let bodyStart = afterFence.firstIndex(of: "\n") else { return nil }
    let body = afterFence[afterFence.index(after: bodyStart)...]
    guard let close = body.range(of: "\n```") else { return nil }
    return String(body[..<close.lowerBound]) + "\n"
}
