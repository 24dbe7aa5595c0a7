// Package: what the resolver's parameter templates and TrellisAnswers' encoding plans share.

extension Array {
    /// A copy with no room to grow: `Array(self)` would share this buffer, spare capacity and all.
    package func exactlySized() -> [Element] {
        guard capacity > count else { return self }
        return withUnsafeBufferPointer { Array($0) }
    }
}

extension [UInt8] {
    /// Where `needle` is in these bytes, when it is there exactly once: a template's marker, a
    /// plan's stand-in for a component's subviews.
    package func onlyRange(of needle: [UInt8]) -> Range<Int>? {
        var found: Range<Int>?
        var start = 0
        while start + needle.count <= count {
            if self[start] == needle[0], self[start..<start + needle.count].elementsEqual(needle) {
                guard found == nil else { return nil }
                found = start..<start + needle.count
                start += needle.count
            } else {
                start += 1
            }
        }
        return found
    }
}
