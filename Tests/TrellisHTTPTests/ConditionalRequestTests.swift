import Testing
import TrellisHTTP

@Suite struct ConditionalRequestTests {
    static let etag = "\"0123456789abcdef\""

    @Test(arguments: [
        "\"0123456789abcdef\"", "W/\"0123456789abcdef\"", "\"other\", \"0123456789abcdef\"",
        " \"0123456789abcdef\"\t, \"x\"", "*",
    ])
    func matchingTagsMeanNotModified(header: String) {
        let headers: HTTPHeaders = ["If-None-Match": header]
        #expect(headers.ifNoneMatchMatches(Self.etag))
    }

    @Test(arguments: ["\"0123456789abcdee\"", "0123456789abcdef", "\"\"", "W/\"other\""])
    func otherTagsDoNot(header: String) {
        let headers: HTTPHeaders = ["If-None-Match": header]
        #expect(!headers.ifNoneMatchMatches(Self.etag))
    }

    @Test func everyIfNoneMatchFieldCounts() {
        let headers = HTTPHeaders([("If-None-Match", "\"a\""), ("if-none-match", Self.etag)])
        #expect(headers.ifNoneMatchMatches(Self.etag))
        #expect(!HTTPHeaders().ifNoneMatchMatches(Self.etag))
    }
}
