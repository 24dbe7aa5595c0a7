import Testing
import TrellisRoutes

@Suite struct AppURLTests {
    func problem(_ text: String) -> String? {
        do {
            _ = try AppURL(parsing: text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func parts() throws {
        let url = try AppURL(parsing: "APP://product/42?ref=home&q=a%20b+c&empty=&flag#reviews?x")
        #expect(url.scheme == "app")
        #expect(url.segments == ["product", "42"])
        #expect(url.query.map(\.name) == ["ref", "q", "empty", "flag"])
        #expect(url.query.map(\.value) == ["home", "a b+c", "", ""])
        #expect(url.fragment == "reviews?x")
        #expect(url.text == "APP://product/42?ref=home&q=a%20b+c&empty=&flag#reviews?x")
    }

    @Test func segmentsAreDecodedAndOneTrailingSlashIgnored() throws {
        #expect(try AppURL(parsing: "app://caf%C3%A9/a%2Fb/").segments == ["café", "a/b"])
        #expect(try AppURL(parsing: "app://").segments == [])
        #expect(try AppURL(parsing: "app://café").segments == ["café"])
        #expect(try AppURL(parsing: "app://x?").query == [])
        #expect(try AppURL(parsing: "my.app+v2-x://x").scheme == "my.app+v2-x")
    }

    @Test(arguments: [
        ("app://product//42", "app://product//42: empty path segment at offset 14"),
        ("app://product/42//", "app://product/42//: empty path segment at offset 17"),
        ("app:///", "app:///: empty path segment at offset 6"),
        ("app://a b", "app://a b: space at offset 7"),
        ("app://a\tb", "app://a\tb: control character at offset 7"),
        ("app://a%2", "app://a%2: bad percent escape \"%2\" at offset 7"),
        ("app://a%zz", "app://a%zz: bad percent escape \"%zz\" at offset 7"),
        ("app://a%0Ab", "app://a%0Ab: \"%0A\" encodes a control character at offset 7"),
        ("app://a%FF", "app://a%FF: percent escapes that are not UTF-8 at offset 6"),
        ("", ": empty URL"),
        ("1app://x", "1app://x: a scheme starts with a letter at offset 0"),
        ("app:/x", "app:/x: expected \"://\" after the scheme at offset 3"),
        ("ap_p://x", "ap_p://x: expected \"://\" after the scheme at offset 2"),
        ("app://x?a=1&&b=2", "app://x?a=1&&b=2: empty query parameter at offset 12"),
        ("app://x?a=1&", "app://x?a=1&: empty query parameter at offset 12"),
        ("app://x?=1", "app://x?=1: empty query parameter name at offset 8"),
        ("app://x?a=1&a=2", "app://x?a=1&a=2: query parameter \"a\" given twice at offset 12"),
        ("app://x?a=%4", "app://x?a=%4: bad percent escape \"%4\" at offset 10"),
    ])
    func refusals(text: String, expected: String) {
        #expect(problem(text) == expected)
    }

    @Test func limits() {
        let long = "app://" + String(repeating: "a", count: RouteLimits.maximumURLBytes - 6)
        #expect(problem(long) == nil)
        #expect(problem(long + "a")?.hasSuffix(": longer than 2048 bytes (2049)") == true)
        #expect(problem(long + "a")?.hasPrefix("app://aaaa") == true)
        let segments = (0..<RouteLimits.maximumSegments).map { _ in "s" }.joined(separator: "/")
        #expect(problem("app://" + segments) == nil)
        #expect(problem("app://" + segments + "/s") == "app://\(segments)/s: more than 32 path segments at offset 70")
        let query = (0...RouteLimits.maximumQueryParameters).map { "p\($0)=1" }.joined(separator: "&")
        #expect(problem("app://x?" + query)?.contains("more than 32 query parameters") == true)
    }
}
