import Testing
import TrellisJSON
import TrellisTargeting

/// Rollout and variant decisions: their reasons, and that the request path's answers are theirs.
@Suite struct DecisionTests {
    typealias Experiment = TargetingConfiguration.Experiment

    func percentage(_ basisPoints: Int) -> RolloutPercentage { RolloutPercentage(basisPoints: basisPoints)! }

    @Test func rolloutReasons() throws {
        let evaluator = Evaluator(try TargetingConfiguration(rollouts: [
            "on": .init(percentage: percentage(1_250), groupID: "g"), "off": .init(percentage: 100, groupID: "g", enabled: false),
        ]))
        let context = UserContext(userID: "user-1")
        let placement = Bucketing.rolloutPlacement(groupID: "g", userID: "user-1")
        let on = evaluator.rolloutDecision("on", for: context)
        #expect(on.reason == .bucket && on.enabled && on.percentage == percentage(1_250) && on.groupID == "g")
        #expect(on.placement == placement && on.bucket == placement.bucket && on.position == placement.position)
        #expect(on.admitted == (placement.position < 1_250))
        // A disabled rollout admits nobody, and still says where the user would stand.
        let off = evaluator.rolloutDecision("off", for: context)
        #expect(off.reason == .disabled && !off.admitted && !off.enabled && off.placement == placement)
        let anonymous = evaluator.rolloutDecision("on", for: UserContext())
        #expect(anonymous.reason == .noUserID && !anonymous.admitted && anonymous.bucket == nil && anonymous.position == nil)
        #expect(
            evaluator.rolloutDecision("nope", for: context)
                == RolloutDecision(admitted: false, enabled: false, percentage: nil, groupID: nil, placement: nil, reason: .unknown))
    }

    /// `isInRollout` is the decision's `admitted`, at fractional percentages too, and admits
    /// exactly the users whose position is below the percentage.
    @Test(arguments: [0, 1, 25, 1_250, 3_333, 9_999, 10_000])
    func isInRolloutIsTheDecision(basisPoints: Int) throws {
        for enabled in [true, false] {
            let evaluator = Evaluator(try TargetingConfiguration(rollouts: ["r": .init(percentage: percentage(basisPoints), groupID: "r", enabled: enabled)]))
            for i in 0..<2_000 {
                let context = UserContext(userID: "user-\(i)")
                let admitted = evaluator.isInRollout("r", for: context)
                #expect(admitted == evaluator.rolloutDecision("r", for: context).admitted)
                #expect(admitted == (enabled && Bucketing.rolloutPlacement(groupID: "r", userID: "user-\(i)").position < basisPoints))
            }
        }
    }

    /// gold-banner:user-1 is at position 11.28, bucket 12 (Fixtures/targeting/buckets.json).
    @Test func rolloutDecisionForPeople() throws {
        func decision(_ basisPoints: Int) throws -> RolloutDecision {
            try Evaluator(TargetingConfiguration(rollouts: ["gold-banner": .init(percentage: percentage(basisPoints), groupID: "gold-banner")]))
                .rolloutDecision("gold-banner", for: UserContext(userID: "user-1"))
        }
        #expect(
            JSONWriter.string(try decision(2_500).jsonValue)
                == #"{"admitted":true,"reason":"bucket","why":"position 11.28 is below 25: admitted (bucket 12)","enabled":true,"percentage":25,"groupId":"gold-banner","bucket":12,"position":11.28,"admittedFrom":11.29}"#)
        #expect(try decision(1_128).summary == "position 11.28 is not below 11.28: the user is admitted from 11.29 (bucket 12)")
        #expect(try decision(1_129).admitted)
        let anonymous = try Evaluator(TargetingConfiguration(rollouts: ["r": .init(percentage: 100, groupID: "r")])).rolloutDecision("r", for: UserContext())
        #expect(
            JSONWriter.string(anonymous.jsonValue)
                == #"{"admitted":false,"reason":"noUserID","why":"the request has no user id: rollouts admit only users with one","enabled":true,"percentage":100,"groupId":"r","bucket":null,"position":null,"admittedFrom":null}"#)
    }

    func experiments(_ status: Experiment.Status) throws -> Evaluator {
        let variants: [Experiment.Variant] = [.init(name: "a", weight: 1), .init(name: "b", weight: 1), .init(name: "c", weight: 2)]
        return Evaluator(try TargetingConfiguration(experiments: [
            "e": .init(variants: variants, status: status, defaultVariant: "a", overrides: ["qa-kim": "c", "Zo\u{E9}": "b"])
        ]))
    }

    @Test func variantReasonsInOrder() throws {
        let running = try experiments(.running), paused = try experiments(.paused), concluded = try experiments(.concluded(winner: "b"))
        let kim = UserContext(userID: "qa-kim"), someone = UserContext(userID: "user-7"), anonymous = UserContext()
        // An override wins over everything.
        for evaluator in [running, paused, concluded] {
            #expect(evaluator.variantDecision(of: "e", for: kim) == VariantDecision(variant: "c", reason: .override))
        }
        #expect(paused.variantDecision(of: "e", for: someone) == VariantDecision(variant: "a", reason: .paused))
        #expect(paused.variantDecision(of: "e", for: anonymous) == VariantDecision(variant: "a", reason: .paused))
        #expect(concluded.variantDecision(of: "e", for: someone) == VariantDecision(variant: "b", reason: .concluded))
        #expect(concluded.variantDecision(of: "e", for: anonymous) == VariantDecision(variant: "b", reason: .concluded))
        #expect(running.variantDecision(of: "e", for: anonymous) == VariantDecision(variant: "a", reason: .noUserID))
        let target = Bucketing.variantTarget(key: "e", userID: "user-7", totalWeight: 4)
        let bucketed = try #require(running.variantDecision(of: "e", for: someone))
        #expect(bucketed.reason == .bucket(target: target, totalWeight: 4))
        #expect(bucketed.targetRange?.contains(target) == true)
        #expect(bucketed.variant == ["a", "b", "c"][Bucketing.variantIndex(key: "e", userID: "user-7", weights: [1, 1, 2])!])
        #expect(running.variantDecision(of: "nope", for: someone) == nil)
    }

    /// Override ids compare byte for byte, like bucketing: "Zoé" precomposed is overridden, the
    /// same name with a combining accent (equal to Swift's ==) is bucketed.
    @Test func overridesCompareBytes() throws {
        let running = try experiments(.running)
        #expect(running.variantDecision(of: "e", for: UserContext(userID: "Zo\u{E9}"))?.reason == .override)
        #expect(running.variantDecision(of: "e", for: UserContext(userID: "Zoe\u{301}"))?.reason != .override)
    }

    /// `variant(of:for:)` is the decision's variant, whatever the status, and running bucketing
    /// is Unleash's.
    @Test func variantIsTheDecision() throws {
        for status in [Experiment.Status.running, .paused, .concluded(winner: "c")] {
            let evaluator = try experiments(status)
            for i in 0..<2_000 {
                let context = UserContext(userID: i % 100 == 0 ? "qa-kim" : "user-\(i)")
                #expect(evaluator.variant(of: "e", for: context) == evaluator.variantDecision(of: "e", for: context)?.variant)
                if status == .running, i % 100 != 0 {
                    let index = Bucketing.variantIndex(key: "e", userID: "user-\(i)", weights: [1, 1, 2])!
                    #expect(evaluator.variant(of: "e", for: context) == ["a", "b", "c"][index])
                }
            }
        }
    }

    /// Pausing and resuming (or concluding and resuming) gives every user the variant they had.
    @Test func resumingRestoresEveryonesVariant() throws {
        let running = try experiments(.running), paused = try experiments(.paused), resumed = try experiments(.running)
        for i in 0..<500 {
            let context = UserContext(userID: "user-\(i)")
            #expect(paused.variant(of: "e", for: context) == "a")
            #expect(resumed.variant(of: "e", for: context) == running.variant(of: "e", for: context))
        }
    }

    @Test func variantDecisionForPeople() throws {
        let running = try experiments(.running)
        let kim = try #require(running.variantDecision(of: "e", for: UserContext(userID: "qa-kim")))
        #expect(JSONWriter.string(kim.jsonValue) == #"{"variant":"c","reason":"override","why":"the user's id is overridden into \"c\""}"#)
        let user = try #require((0...).lazy.map { "user-\($0)" }.first { Bucketing.variantTarget(key: "e", userID: $0, totalWeight: 4) == 3 })
        let bucketed = try #require(running.variantDecision(of: "e", for: UserContext(userID: user)))
        #expect(
            JSONWriter.string(bucketed.jsonValue)
                == #"{"variant":"c","reason":"bucket","why":"target 3 of 4 falls in \"c\" (3–4)","target":3,"totalWeight":4,"range":[3,4]}"#)
        #expect(try experiments(.paused).variantDecision(of: "e", for: UserContext())?.summary == #"the experiment is paused: everyone gets the default variant "a""#)
    }
}
