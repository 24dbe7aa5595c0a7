/// Screen documents' `root` values drawn at random, as JSON text, for tests that hold two ways of
/// doing one thing to each other over many shapes (TrellisScreensTests' `EncodedJSONTests`,
/// TrellisAnswersTests' `EncodingPlanTests`).
/// Random screen trees: stacks, newer types with and without fallbacks, Rules on rollouts,
/// attributes and named rules, Experiments with null variants, actions newer than old clients.
public struct TreeGenerator {
    public var generator: SplitMix64

    public init(generator: SplitMix64) { self.generator = generator }

    public mutating func node(depth: Int) -> String {
        let roll = generator.below(depth > 3 ? 3 : 10)
        switch roll {
        case 0:
            switch generator.below(4) {
            case 0: return #"{"type": "Text", "properties": {"lineLimit": {"$param": "lines", "default": 2}}, "values": {"text": {"$format": "Hi {name}"}}}"#
            case 1: return #"{"type": "Image", "values": {"imageUrl": {"$format": "https://cdn.example.com/{name}.jpg"}}}"#
            default: return #"{"type": "Text", "values": {"text": "t\#(generator.below(100))"}}"#
            }
        case 1: return #"{"type": "Spacer"}"#
        case 2: return #"{"type": "Button", "properties": {"action": {"type": "share", "url": "https://e.com/\#(generator.below(9))", "fallback": {"type": "openURL", "url": "https://e.com"}}}, "values": {"title": "b"}}"#
        case 3, 4: return stack(["VStack", "HStack", "ScrollView"][generator.below(3)], depth: depth)
        case 5:
            let fallback = generator.below(2) == 0 ? "" : #", "fallback": \#(olderThanCarousel(depth: depth + 1))"#
            return #"{"type": "Carousel", "subviews": [\#(children(depth: depth))]\#(fallback)}"#
        case 6, 7:
            let rules = [#"{"rollout": "r\#(generator.below(4))"}"#, #"{"rule": "r"}"#, #"{"attribute": "country", "op": "equals", "value": "DE"}"#,
                         #"{"any": [{"rollout": "r1"}, {"rollout": "r\#(generator.below(4))"}]}"#]
            let otherwise = generator.below(2) == 0 ? "" : #", "else": \#(node(depth: depth + 1))"#
            return #"{"type": "Rule", "rule": \#(rules[generator.below(rules.count)]), "child": \#(node(depth: depth + 1))\#(otherwise)}"#
        case 8:
            let variants = (0..<(2 + generator.below(2))).map { i in
                #""v\#(i)": \#(generator.below(4) == 0 ? "null" : node(depth: depth + 1))"#
            }
            return #"{"type": "Experiment", "experiment": "x\#(generator.below(3))", "variants": {\#(variants.joined(separator: ", "))}}"#
        default: return stack("VStack", depth: depth)
        }
    }

    /// A fallback must be of a type older than the component's (schema version 1 for a Carousel).
    mutating func olderThanCarousel(depth: Int) -> String {
        switch generator.below(3) {
        case 0: #"{"type": "Divider"}"#
        case 1: #"{"type": "Rule", "rule": {"rollout": "r\#(generator.below(4))"}, "child": {"type": "Text", "values": {"text": "f"}}}"#
        default: #"{"type": "HStack", "subviews": [{"type": "Rectangle"}, \#(node(depth: 4))]}"#
        }
    }

    mutating func stack(_ type: String, depth: Int) -> String {
        let id = generator.below(3) == 0 ? #", "id": "s\#(generator.below(1000))""# : ""
        let metadata = generator.below(4) == 0 ? #", "metadata": {"m": [1, "x"]}"# : ""
        return #"{"type": "\#(type)"\#(id), "subviews": [\#(children(depth: depth))]\#(metadata)}"#
    }

    mutating func children(depth: Int) -> String {
        (0..<generator.below(4)).map { _ in node(depth: depth + 1) }.joined(separator: ", ")
    }
}
