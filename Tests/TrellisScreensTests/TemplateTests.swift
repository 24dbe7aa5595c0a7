import Testing
import TrellisJSON
import TrellisScreens

/// Templates: reusable subtrees with typed parameters, expanded when a screen is decoded and
/// checked as part of it, every mistake named with the instance's path and the template's line.
@Suite struct TemplateTests {
    static let card = """
        {
          "id": "card",
          "parameters": {
            "product": {"type": "integer"},
            "title": {"type": "string"},
            "tint": {"type": "color", "default": "#111827"},
            "label": {"type": "string", "default": "View"}
          },
          "root": {
            "type": "VStack", "id": {"$format": "card-{product}"},
            "subviews": [
              {"type": "Text", "id": {"$format": "card-{product}-title"}, "properties": {"foregroundColor": {"$param": "tint"}},
               "values": {"text": {"$param": "title"}}},
              {"type": "Button", "id": {"$format": "card-{product}-button"}, "values": {"title": {"$param": "label"}},
               "properties": {"action": {"type": "navigate", "url": {"$format": "app://product/{product}"}}}}
            ]
          }
        }
        """

    func library(_ files: [String: String] = ["card": card]) throws -> TemplateLibrary {
        TemplateLibrary(try files.map { id, text in try TemplateLibrary.decode(Array(text.utf8), source: "templates/\(id).json", expectedID: id).get() })
    }

    func decode(_ root: String, templates: TemplateLibrary) -> Result<Screen, DiagnosticsError> {
        ScreenDecoder().decode(Array(#"{"id": "s", "schemaVersion": 2, "root": \#(root)}"#.utf8), source: "screens/s.json", templates: templates)
    }

    func messages(_ root: String, templates: TemplateLibrary) -> [String] {
        switch decode(root, templates: templates) {
        case .success: return []
        case .failure(let error): return error.diagnostics.map(\.description)
        }
    }

    @Test func anInstanceExpandsWithItsArgumentsAndDefaults() throws {
        let screen = try decode(
            #"{"type": "VStack", "id": "row", "subviews": [{"type": "Template", "template": "card", "args": {"product": 42, "title": "Mug"}}]}"#,
            templates: try library()
        ).get()
        let value = screen.jsonValue(revision: 1)
        let card = try #require(value["root"]?["subviews"]?.arrayValue?.first)
        #expect(card["id"]?.stringValue == "card-42")
        #expect(card["subviews"]?.arrayValue?[0]["values"]?["text"]?.stringValue == "Mug")
        #expect(card["subviews"]?.arrayValue?[0]["properties"]?["foregroundColor"]?.stringValue == "#111827")
        #expect(card["subviews"]?.arrayValue?[1]["values"]?["title"]?.stringValue == "View")
        #expect(card["subviews"]?.arrayValue?[1]["properties"]?["action"]?["url"]?.stringValue == "app://product/42")
        #expect(screen.templates == ["card"])
        #expect(screen.links.map(\.target) == [.url("app://product/42")])
        #expect(!screen.usesParameters)
    }

    @Test func aScreenParameterPassesThroughAnArgument() throws {
        func decode(_ args: String) throws -> Result<Screen, DiagnosticsError> {
            ScreenDecoder().decode(
                Array(#"{"id": "s", "schemaVersion": 3, "root": {"type": "Template", "template": "card", "args": \#(args)}}"#.utf8),
                source: "screens/s.json", templates: try library())
        }
        let screen = try decode(#"{"product": 7, "title": {"$format": "Product {id}"}, "label": {"$param": "cta"}}"#).get()
        #expect(screen.parameterNames == ["id", "cta"])
        let card = screen.jsonValue(revision: 1)["root"]
        #expect(card?["subviews"]?.arrayValue?[0]["values"]?["text"]?["$format"]?.stringValue == "Product {id}")
        #expect(card?["subviews"]?.arrayValue?[1]["values"]?["title"]?["$param"]?.stringValue == "cta")

        // Where the template writes it into an id, a screen parameter cannot go: ids are fixed.
        guard case .failure(let refused) = try decode(#"{"product": {"$param": "id"}, "title": "Mug"}"#) else {
            Issue.record("a screen parameter in an id was accepted")
            return
        }
        #expect(refused.diagnostics.map(\.description).first == "$.root.id (line 1): in template \"card\" (templates/card.json, line 10): expected a string, found an object")
    }

    @Test func argumentsAreCheckedAgainstTheDeclaration() throws {
        let templates = try library()
        #expect(messages(#"{"type": "Template", "template": "card", "args": {"title": "Mug"}}"#, templates: templates) == [
            "$.root.args (line 1): template \"card\" needs the argument \"product\" (integer, declared at templates/card.json, line 4)"
        ])
        #expect(messages(#"{"type": "Template", "template": "card", "args": {"product": 4.5, "title": "Mug"}}"#, templates: templates) == [
            "$.root.args.product (line 1): argument \"product\" of template \"card\" must be an integer, found a number (declared at templates/card.json, line 4)"
        ])
        #expect(messages(##"{"type": "Template", "template": "card", "args": {"product": 1, "title": "Mug", "colour": "#fff"}}"##, templates: templates) == [
            "$.root.args.colour (line 1): template \"card\" has no parameter \"colour\"; its parameters: product, title, tint, label"
        ])
        #expect(messages(#"{"type": "Template", "template": "crad"}"#, templates: templates) == [
            "$.root.template (line 1): unknown template \"crad\"; templates: card"
        ])
    }

    @Test func aMistakeInTheExpansionNamesTheInstanceAndTheTemplateLine() throws {
        let messages = messages(
            ##"{"type": "Template", "template": "card", "args": {"product": 1, "title": "Mug", "tint": "#12345"}}"##, templates: try library())
        #expect(messages == [
            "$.root.args.tint (line 1): argument \"tint\" of template \"card\" must be a colour such as \"#1A2B3C\", found a string (declared at templates/card.json, line 6)"
        ])

        let broken = try library(["broken": """
            {"id": "broken", "parameters": {"t": {"type": "string"}},
             "root": {"type": "Text",
                      "properties": {"font": "huge"},
                      "values": {"text": {"$param": "t"}}}}
            """])
        #expect(self.messages(#"{"type": "VStack", "subviews": [{"type": "Template", "template": "broken", "args": {"t": "x"}}]}"#, templates: broken) == [
            "$.root.subviews[0].properties.font (line 1): in template \"broken\" (templates/broken.json, line 3): \"huge\" is not one of: largeTitle, title, title2, title3, headline, body, callout, subheadline, footnote, caption, caption2"
        ])
    }

    @Test func templatesMayUseTemplatesButNotInACycle() throws {
        let nested = try library([
            "card": Self.card,
            "pair": """
            {"id": "pair", "parameters": {"a": {"type": "integer"}, "b": {"type": "integer"}},
             "root": {"type": "HStack", "id": {"$format": "pair-{a}-{b}"}, "subviews": [
               {"type": "Template", "template": "card", "args": {"product": {"$param": "a"}, "title": "A"}},
               {"type": "Template", "template": "card", "args": {"product": {"$param": "b"}, "title": "B"}}]}}
            """,
        ])
        let screen = try decode(#"{"type": "Template", "template": "pair", "args": {"a": 1, "b": 2}}"#, templates: nested).get()
        #expect(screen.jsonValue(revision: 1)["root"]?["subviews"]?.arrayValue?.map { $0["id"]?.stringValue } == ["card-1", "card-2"])
        #expect(screen.templates == ["pair", "card"])

        let cyclic = try library([
            "a": #"{"id": "a", "root": {"type": "VStack", "subviews": [{"type": "Template", "template": "b"}]}}"#,
            "b": #"{"id": "b", "root": {"type": "VStack", "subviews": [{"type": "Template", "template": "a"}]}}"#,
        ])
        let cycles = cyclic.cycles()
        #expect(cycles.count == 1)
        #expect(cycles.first?.diagnostics.first?.message == "templates use each other in a cycle: a → b → a")
        #expect(messages(#"{"type": "Template", "template": "a"}"#, templates: cyclic).contains {
            $0.contains("templates use each other in a cycle: a → b → a")
        })
    }

    @Test func aTemplateFileIsCheckedOnItsOwn() throws {
        func problems(_ text: String) -> [String] {
            switch TemplateLibrary.decode(Array(text.utf8), source: "templates/t.json", expectedID: "t") {
            case .success: return []
            case .failure(let error): return error.diagnostics.map(\.description)
            }
        }
        #expect(problems(#"{"id": "t", "root": {"type": "Text", "values": {"text": {"$param": "name"}}}}"#) == [
            "$.root.values.text (line 1): \"name\" is not a parameter of this template; declare it in \"parameters\" (declared: none). A screen's own parameters reach a template through its arguments"
        ])
        #expect(problems(#"{"id": "t", "parameters": {"n": {"type": "text"}}, "root": {"type": "Text"}}"#) == [
            "$.parameters.n.type (line 1): the type of a parameter is one of string, number, integer, bool, url, color, id, action, node"
        ])
        #expect(problems(#"{"id": "t", "parameters": {"n": {"type": "integer", "default": "one"}}, "root": {"type": "Text"}}"#) == [
            "$.parameters.n.default (line 1): the default must be an integer, found a string"
        ])
        #expect(problems(#"{"id": "u", "root": {"type": "Text"}}"#) == ["$.id (line 1): template id \"u\" does not match \"t\""])
    }
}
