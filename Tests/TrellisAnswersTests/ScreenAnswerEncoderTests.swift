import Testing
import TrellisAnswers
import TrellisJSON
import TrellisScreens

/// ``ScreenAnswerEncoder/answer(pretty:plan:outcomes:revision:parameters:compression:resolved:parameterFailure:)``
/// is the one place that picks an encoder: the plan for a compact answer of a screen that has one,
/// the reference for a pretty answer or a screen without a plan; both give the reference's bytes.
@Suite struct ScreenAnswerEncoderTests {
    let resolver = ScreenResolver()
    let compression = EncodedBody.Compression(level: 9, minimumBytes: 256)

    struct Failed: Error, Equatable { let name: String }

    /// What the answer asked its arguments for.
    final class Asked: @unchecked Sendable {
        var plan = 0
        var resolved = 0
    }

    func answer(
        _ screen: Screen, _ outcomes: Outcomes, pretty: Bool, made: EncodingPlans.Made, parameters: [String: JSONValue] = [:], asked: Asked
    ) throws(Failed) -> EncodedBody {
        try ScreenAnswerEncoder.answer(
            pretty: pretty, plan: { asked.plan += 1; return made }, outcomes: outcomes, revision: 7, parameters: parameters,
            compression: compression,
            resolved: { () throws(Failed) in
                asked.resolved += 1
                do { return try resolver.resolve(screen, outcomes: outcomes, clientSchemaVersion: 2).substituting(parameters) } catch let error as ParameterError {
                    throw Failed(name: error.name)
                } catch {
                    throw Failed(name: "\(error)")
                }
            },
            parameterFailure: { Failed(name: $0.name) })
    }

    @Test func compactAnswersComeFromThePlanPrettyOnesFromTheReference() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "subviews": [{"type": "Rule", "rule": {"rollout": "r"}, "child": {"type": "Text", "values": {"text": "shown"}}}]}
            """)
        let decisions = resolver.decisions(of: screen)
        let plan = try #require(ScreenEncodingPlan.make(screen, decisions: decisions, clientSchemaVersion: 2, resolver: resolver))
        for bytes in [[0, 0], [1, 1]] as [[UInt8]] {
            let outcomes = Outcomes(bytes)
            let reference = try ScreenAnswerEncoder.reference(
                screen, outcomes: outcomes, clientSchemaVersion: 2, revision: 7, parameters: [:], resolver: resolver)

            let asked = Asked()
            #expect(try answer(screen, outcomes, pretty: false, made: EncodingPlans.Made(plan), asked: asked).bytes == reference)
            #expect((asked.plan, asked.resolved) == (1, 0), "a compact answer with a plan resolves nothing")

            let withoutPlan = Asked()
            #expect(try answer(screen, outcomes, pretty: false, made: EncodingPlans.Made(nil), asked: withoutPlan).bytes == reference)
            #expect((withoutPlan.plan, withoutPlan.resolved) == (1, 1), "no plan: the reference")

            let pretty = Asked()
            let resolved = resolver.resolve(screen, outcomes: outcomes, clientSchemaVersion: 2)
            #expect(
                try answer(screen, outcomes, pretty: true, made: EncodingPlans.Made(plan), asked: pretty).bytes
                    == JSONWriter.encode(resolved.jsonValue(revision: 7), style: .pretty))
            #expect((pretty.plan, pretty.resolved) == (0, 1), "a pretty answer never asks for the plan")
        }
    }

    /// A parameter the plan cannot fill in fails as the reference fails, through `parameterFailure`.
    @Test func aMissingParameterFailsAsTheReferenceFails() throws {
        let screen = try inlineScreen(#"{"type": "Text", "values": {"text": {"$param": "title"}}}"#)
        let plan = try #require(ScreenEncodingPlan.make(screen, decisions: resolver.decisions(of: screen), clientSchemaVersion: 2, resolver: resolver))
        #expect(throws: Failed(name: "title")) { try answer(screen, Outcomes([]), pretty: false, made: EncodingPlans.Made(plan), asked: Asked()) }
        #expect(throws: Failed(name: "title")) { try answer(screen, Outcomes([]), pretty: false, made: EncodingPlans.Made(nil), asked: Asked()) }
    }
}
