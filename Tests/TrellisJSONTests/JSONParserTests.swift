import Testing
import TrellisJSON

@Suite struct JSONParserTests {
    @Test func parsesEveryKindAndRemembersLines() throws {
        let text = """
            {
              "a": [1, -2.5, 3e2],
              "b": {"c": "x\\u00e9\\ud83d\\ude00\\n"},
              "d": true, "e": false, "f": null
            }
            """
        let value = try JSONParser.parse(text)
        #expect(value["a"]?.arrayValue?.compactMap(\.numberValue) == [1, -2.5, 300])
        #expect(value["b"]?["c"]?.stringValue == "xé😀\n")
        #expect(value["d"]?.boolValue == true)
        #expect(value["f"]?.isNull == true)
        #expect(value["a"]?.location == SourceLocation(line: 2, column: 8))
        #expect(value["b"]?["c"]?.location.line == 3)
        #expect(value["e"]?.location == SourceLocation(line: 4, column: 19))
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, "trailing comma"),
        ("[1, 2,]", 1, "trailing comma"),
        ("{\"a\": 1, \"a\": 2}", 1, "duplicate key \"a\""),
        ("{\n  \"a\": 01\n}", 2, "leading zero"),
        ("[1.]", 1, "digit after '.'"),
        ("\"tab\there\"", 1, "control character"),
        ("\"\\x\"", 1, "invalid escape"),
        ("\"\\ud800\"", 1, "unpaired high surrogate"),
        ("{\"a\" 1}", 1, "expected ':'"),
        ("[1] 2", 1, "after the end"),
        ("", 1, "found end of input"),
        ("// comment\n{}", 1, "expected a value"),
        ("[1e999]", 1, "out of range"),
        ("{'a': 1}", 1, "quoted key"),
        ("[tru]", 1, "expected 'true'"),
    ])
    func refusesInvalidJSON(text: String, line: Int, reason: String) {
        #expect {
            _ = try JSONParser.parse(text)
        } throws: { error in
            guard let error = error as? JSONSyntaxError else { return false }
            return error.location.line == line && error.reason.contains(reason)
        }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func limitsNestingInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect {
            _ = try JSONParser.parse(deep)
        } throws: { ($0 as? JSONSyntaxError)?.reason.contains("nesting deeper") == true }
        #expect((try? JSONParser.parse(String(repeating: "[", count: 50) + String(repeating: "]", count: 50))) != nil)
    }

    @Test func columnsCountFromTheStartOfTheLine() {
        #expect {
            _ = try JSONParser.parse("{\n  \"a\": [1,\n    x]\n}")
        } throws: { ($0 as? JSONSyntaxError)?.location == SourceLocation(line: 3, column: 5) }
    }
}

@Suite struct JSONWriterTests {
    @Test func compactOutputKeepsMemberOrderAndRoundTrips() throws {
        let text = #"{"z":1,"a":[true,null,-0.25,1e-7,"q\"\\\n\u0001"],"m":{}}"#
        let value = try JSONParser.parse(text)
        let encoded = JSONWriter.string(value)
        #expect(encoded == #"{"z":1,"a":[true,null,-0.25,1e-07,"q\"\\\n\u0001"],"m":{}}"#)
        #expect(try JSONParser.parse(encoded) == value)
    }

    @Test func prettyOutputIndentsByTwoSpaces() throws {
        let value = try JSONParser.parse(#"{"a":[1,2],"b":{}}"#)
        #expect(JSONWriter.string(value, style: .pretty) == "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}\n")
    }

    @Test func integersHaveNoFraction() {
        #expect(JSONWriter.string(.array([.number(12), .number(-3), .number(2.5)])) == "[12,-3,2.5]")
    }
}

@Suite struct DiagnosticsTests {
    @Test func pathsReadLikeCode() {
        let path = JSONPath.root.appending("root").appending("subviews").appending(2).appending("dark mode")
        #expect(path.description == #"$.root.subviews[2]["dark mode"]"#)
    }

    @Test func unknownKeysAndWrongTypesAreAllReported() throws {
        let value = try JSONParser.parse("{\n \"port\": \"80\",\n \"hots\": \"x\"\n}")
        let result = DiagnosticsCollector.decode(source: "server.json") { collector -> Int? in
            let object = collector.object(value, at: .root, allowedKeys: ["port", "host", "logLevel"])
            _ = object?.string("host")
            return object?.integer("port", in: 1...65535)
        }
        guard case .failure(let error) = result else { Issue.record("expected failure"); return }
        #expect(error.diagnostics.count == 2)
        #expect(error.description.contains("server.json: $.hots (line 3): unknown key \"hots\"; did you mean \"host\"?"))
        #expect(error.description.contains("server.json: $.port (line 2): expected a number, found a string"))
    }

    @Test func integersAreRangeChecked() throws {
        let value = try JSONParser.parse(#"{"port": 70000.5}"#)
        let result = DiagnosticsCollector.decode(source: "s") { c in
            c.object(value, at: .root, allowedKeys: ["port"])?.integer("port", in: 0...65535)
        }
        guard case .failure(let error) = result else { Issue.record("expected failure"); return }
        #expect(error.diagnostics.first?.message == "expected an integer from 0 to 65535, found 70000.5")
    }
}

@Suite struct JSONPathLookupTests {
    @Test func pathsLeadToValuesAndTheirLines() throws {
        let document = try JSONParser.parse("{\n \"a\": [\n  {\"b\": 1},\n  {\"b\": 2}\n ]\n}")
        let path = JSONPath.root.appending("a").appending(1).appending("b")
        #expect(document.value(at: path)?.numberValue == 2)
        #expect(document.value(at: path)?.location.line == 4)
        #expect(document.value(at: JSONPath.root.appending("a").appending(5)) == nil)
        #expect(document.value(at: JSONPath.root.appending("zz")) == nil)
    }

    @Test func packedPathsAreThePathsTheyPack() throws {
        let path = JSONPath.root.appending("root").appending("subviews").appending(300).appending("dark mode").appending("")
            .appending(String(repeating: "é", count: 200)).appending(0)
        let packed = path.packed()
        #expect(packed.components == path.components)
        #expect(packed == path && path == packed)
        #expect(packed.hashValue == path.hashValue)
        #expect(packed.description == path.description)
        #expect(packed.count == 7)
        let longer = packed.appending("action").appending(2)
        #expect(longer == path.appending("action").appending(2))
        #expect(longer.hashValue == path.appending("action").appending(2).hashValue)
        #expect(longer.description == path.appending("action").appending(2).description)
        #expect(longer.description.hasPrefix(#"$.root.subviews[300]["dark mode"][""]["éé"#))
        #expect(longer != packed.appending("action").appending(3))
        #expect(packed != JSONPath.root.appending("root").packed())
        #expect(JSONPath.root.packed() == .root)
        #expect(JSONPath(packing: path.components) == path && JSONPath(packing: path.components).hashValue == path.hashValue)
        #expect(JSONPath(packing: path.components).appending("x").description == path.appending("x").description)
        #expect(JSONPath(packing: []) == .root)
        let document = try JSONParser.parse(#"{"a": [{"b": 1}, {"b": 2}]}"#)
        #expect(document.value(at: JSONPath.root.appending("a").appending(1).packed().appending("b"))?.numberValue == 2)
    }

    @Test func diagnosticsWithoutLinesAreLocatedInTheDocument() throws {
        let document = try JSONParser.parse("{\n \"x\": {\n  \"y\": true\n }\n}")
        let error = DiagnosticsError(source: "f", diagnostics: [
            Diagnostic(path: JSONPath.root.appending("x").appending("y"), location: .unknown, message: "m"),
            Diagnostic(path: JSONPath.root.appending("nowhere"), location: .unknown, message: "n"),
        ])
        let located = error.locating(in: document)
        #expect(located.diagnostics[0].location.line == 3)
        #expect(located.diagnostics[1].location == .unknown)
    }
}
