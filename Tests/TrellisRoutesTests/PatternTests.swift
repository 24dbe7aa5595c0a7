import Testing
import TrellisJSON
import TrellisRoutes

@Suite struct PatternTests {
    @Test func segmentKinds() throws {
        let route = try table(#"{"pattern": "App://p/:a/:b(int)/:c(x|y)/*rest", "screen": "s"}"#).routes[0]
        #expect(route.parsedPattern.scheme == "app")
        #expect(route.parsedPattern.segments == [
            .literal("p"), .parameter(name: "a", type: .string), .parameter(name: "b", type: .int),
            .parameter(name: "c", type: .choice(["x", "y"])), .wildcard(name: "rest"),
        ])
        #expect(route.parameters.map(\.name) == ["a", "b", "c", "rest"])
        #expect(route.parameters.allSatisfy { $0.inPath && $0.required })
        #expect(route.parameters.last?.type == .wildcard)
        #expect(route.pattern == "App://p/:a/:b(int)/:c(x|y)/*rest")
    }

    @Test(arguments: [
        ("app://", #"a pattern needs at least one segment after "://""#),
        ("app:/x", #"expected "://" after the scheme at offset 3"#),
        ("9app://x", #"a scheme starts with a letter at offset 0"#),
        ("app://x//y", #"empty path segment at offset 8"#),
        ("app://x/", #"empty path segment at offset 8"#),
        ("app://x?y=1", #"a pattern has no query (declare query parameters in "query") at offset 7"#),
        ("app://x#y", #"a pattern has no fragment at offset 7"#),
        ("app://x%20y", #"percent escapes are not allowed in a pattern at offset 7"#),
        ("app://x y", #"space or control character at offset 7"#),
        ("app://a b/c", #"space or control character at offset 7"#),
        ("app://x@y", #"static segment "x@y" may use only A-Z a-z 0-9 - . _ ~"#),
        ("app://:", #"segment ":": invalid name "": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"#),
        ("app://:a b", #"space or control character at offset 8"#),
        ("app://:a$", #"segment ":a$": invalid name "a$": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"#),
        ("app://:id(int", #"segment ":id(int" must end with ")""#),
        ("app://:id(itn)", #"segment ":id(itn)": unknown type "itn"; expected int, number, uuid, bool, string or choices such as a|b"#),
        ("app://:id()", #"segment ":id()": unknown type ""; expected int, number, uuid, bool, string or choices such as a|b"#),
        ("app://:id(string)", #"segment ":id(string)": a path parameter without a type is a string; write ":id""#),
        ("app://:t(a||b)", #"segment ":t(a||b)": empty choice in "a||b""#),
        ("app://:t(a|a)", #"segment ":t(a|a)": choice "a" given twice"#),
        ("app://:t(a|b+c)", #"segment ":t(a|b+c)": choice "b+c" may use only A-Z a-z 0-9 - . _ ~"#),
        ("app://*rest/x", #"wildcard "*rest" must be the last segment"#),
        ("app://*", #"segment "*": invalid name "": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"#),
    ])
    func grammarErrors(pattern: String, reason: String) {
        #expect(errors(#"{"pattern": "\#(pattern)", "screen": "s"}"#) == [
            "$.routes[0].pattern (line 2): invalid pattern \"\(pattern)\": \(reason)"
        ])
    }

    @Test func tooManyChoices() {
        let choices = (0...RouteLimits.maximumChoices).map { "c\($0)" }.joined(separator: "|")
        #expect(errors(#"{"pattern": "app://:t(\#(choices))", "screen": "s"}"#).first?.hasSuffix("more than 64 choices") == true)
    }

    @Test func parameterNames() {
        #expect(errors(#"{"pattern": "app://p/:url", "screen": "s"}"#) == [
            "$.routes[0].pattern (line 2): \"url\" is reserved for the URL being resolved ({url}); choose another name"
        ])
        #expect(errors(#"{"pattern": "app://p/:id/:id(int)", "screen": "s"}"#) == [
            "$.routes[0].pattern (line 2): parameter \"id\" is declared twice (in the pattern)"
        ])
        #expect(errors(#"{"pattern": "app://p/:id", "screen": "s", "query": {"id": "int", "url": "string"}}"#) == [
            "$.routes[0].query.id (line 2): parameter \"id\" is declared twice (in the pattern and in query)",
            "$.routes[0].query.url (line 2): \"url\" is reserved for the URL being resolved ({url}); choose another name",
        ])
    }

    @Test(arguments: [
        (ParameterType.int, "42", JSONValue.number(42)),
        (.int, "-7", .number(-7)),
        (.int, "007", .number(7)),
        (.int, "9007199254740991", .number(9_007_199_254_740_991)),
        (.number, "2.5", .number(2.5)),
        (.number, "-3", .number(-3)),
        (.uuid, "123E4567-e89b-12d3-a456-426614174000", .string("123E4567-e89b-12d3-a456-426614174000")),
        (.bool, "true", .bool(true)),
        (.bool, "false", .bool(false)),
        (.choice(["a", "b"]), "b", .string("b")),
        (.string, "any thing", .string("any thing")),
    ])
    func typedValues(type: ParameterType, text: String, value: JSONValue) {
        #expect(type.value(of: text) == value)
    }

    @Test(arguments: [
        (ParameterType.int, "4.0", "\"4.0\" is not an int"),
        (.int, "", "\"\" is not an int"),
        (.int, "-", "\"-\" is not an int"),
        (.int, "+4", "\"+4\" is not an int"),
        (.int, "9007199254740992", "\"9007199254740992\" is not an int: its magnitude is over 9007199254740991"),
        (.number, "1e3", "\"1e3\" is not a number"),
        (.number, ".5", "\".5\" is not a number"),
        (.number, "5.", "\"5.\" is not a number"),
        (.number, "nan", "\"nan\" is not a number"),
        (.uuid, "123e4567e89b12d3a456426614174000", "\"123e4567e89b12d3a456426614174000\" is not a uuid"),
        (.uuid, "g23e4567-e89b-12d3-a456-426614174000", "\"g23e4567-e89b-12d3-a456-426614174000\" is not a uuid"),
        (.bool, "True", "\"True\" is not a bool"),
        (.choice(["a", "b"]), "c", "\"c\" is not one of: a, b"),
    ])
    func typeRefusals(type: ParameterType, text: String, problem: String) {
        #expect(type.value(of: text) == nil)
        #expect(type.problem(with: text) == problem)
    }

    @Test func samples() {
        #expect(ParameterType.sample(for: .int) == "1")
        #expect(ParameterType.sample(for: .number) == "1")
        #expect(ParameterType.uuid.accepts(ParameterType.sample(for: .uuid)))
        #expect(ParameterType.sample(for: .bool) == "true")
        #expect(ParameterType.sample(for: .choice(["a", "b"])) == "a")
        #expect(ParameterType.choice(["a", "b"]).samples == ["a", "b"])
        #expect(ParameterType.sample(for: .string) == "x")
        #expect(ParameterType.sample(for: .wildcard) == "x")
    }
}
