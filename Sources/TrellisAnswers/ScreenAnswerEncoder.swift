import TrellisJSON
import TrellisScreens
import TrellisStrings
import TrellisTargeting

/// How a screen's own answer (`GET /v1/screens/{id}`, JSON) is written: two encoders of the same
/// bytes, and ``answer(pretty:plan:outcomes:revision:parameters:strings:compression:resolved:parameterFailure:)``,
/// the one place that picks between them.
///
/// - The reference (``reference(_:revision:style:)``) is the resolver's own encoding: the screen
///   resolved for the outcomes, its parameters substituted, its `jsonValue(revision:)` written by
///   `JSONWriter`. It is written to be read, and it is what an answer's bytes are.
/// - The fast one is the screen's ``ScreenEncodingPlan``: the same bytes, copied from a plan
///   encoded ahead, each decision's branch picked by its outcome byte. It writes the compact
///   answers of the screens that have a plan for the client's schema version: most misses.
///
/// `EncodingPlanTests` holds the plan to the reference byte for byte (every shipped and fixture
/// screen and 300 generated ones, every schema version, random outcomes and parameters, errors
/// included), and docs/answer-path.md says what the plan saves.
public enum ScreenAnswerEncoder {
    /// The reference encoding of a screen resolved for one answer, its parameters substituted.
    public static func reference(_ resolved: ResolvedScreen, revision: Int, style: JSONWriter.Style = .compact) -> [UInt8] {
        JSONWriter.encode(resolved.jsonValue(revision: revision), style: style)
    }

    /// The reference encoding the whole way: `screen` resolved by `resolver` for `outcomes` and a
    /// client of `clientSchemaVersion`, `parameters` and `strings` substituted, encoded.
    /// - Throws: what ``ResolvedScreen/substituting(_:registry:)`` throws for these parameters
    ///   (the plan throws the same).
    public static func reference(
        _ screen: Screen, outcomes: Outcomes, clientSchemaVersion: Int, revision: Int, parameters: [String: JSONValue],
        strings: LocalizedStrings? = nil, resolver: ScreenResolver, style: JSONWriter.Style = .compact
    ) throws(ParameterError) -> [UInt8] {
        let resolved = resolver.resolve(screen, outcomes: outcomes, clientSchemaVersion: clientSchemaVersion)
        return reference(try resolved.substituting(parameters, strings: strings), revision: revision, style: style)
    }

    /// A screen's answer for `outcomes`, by the encoder chosen here and nowhere else: a compact
    /// answer from the screen's plan for the client's schema version when it has one (`plan`,
    /// asked only then); a pretty one, or one whose screen has no plan, from the reference, of
    /// the screen `resolved` gives (resolved and substituted as the plan's bytes are).
    /// - Parameters:
    ///   - compression: when the body gets a gzip form, and at which level.
    ///   - parameterFailure: what a parameter the plan cannot fill in throws, as `resolved` throws it.
    public static func answer<Failure: Error>(
        pretty: Bool, plan: () -> EncodingPlans.Made, outcomes: Outcomes, revision: Int, parameters: [String: JSONValue],
        strings: LocalizedStrings? = nil, compression: EncodedBody.Compression, resolved: () throws(Failure) -> ResolvedScreen,
        parameterFailure: (ParameterError) -> Failure
    ) throws(Failure) -> EncodedBody {
        if !pretty {
            let planned: EncodedBody?
            do {
                planned = try plan().encode(outcomes, revision: revision, parameters: parameters, strings: strings, compression: compression)
            } catch {
                throw parameterFailure(error)
            }
            if let planned { return planned }
        }
        return EncodedBody(bytes: reference(try resolved(), revision: revision, style: pretty ? .pretty : .compact), compression: compression)
    }
}
