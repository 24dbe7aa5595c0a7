import Testing
import TrellisTargeting

/// The two properties the two-decimal rollout rule promises (docs/targeting.md, *Bucketing*):
/// whole percentages admit exactly the users Unleash admits, and raising a percentage — by whole
/// or fractional steps — only ever adds users.
@Suite struct RolloutPlacementTests {
    static let users = (0..<20_000).map { "user-\($0)" }

    /// Unleash's rule, written out independently of Bucketing: murmur3("{group}:{user}", 0) % 100 + 1 <= P.
    func unleashAdmits(_ whole: Int, _ group: String, _ user: String) -> Bool {
        whole > 0 && Int(Murmur3.hash32(group + ":" + user, seed: 0) % 100) + 1 <= whole
    }

    /// Every whole percentage, 0…100, admits exactly Unleash's users, through the public entry
    /// points (Bucketing and the Evaluator the request path uses).
    @Test(arguments: ["gold-banner", "Ünïcode-group"])
    func wholePercentagesAreUnleashExact(group: String) throws {
        for user in Self.users.prefix(2_000) {
            let placement = Bucketing.rolloutPlacement(groupID: group, userID: user)
            for whole in 0...100 {
                let percentage = RolloutPercentage(basisPoints: whole * 100)!
                let expected = unleashAdmits(whole, group, user)
                #expect(placement.isAdmitted(by: percentage) == expected)
                if whole % 10 == 3 {
                    #expect(Bucketing.isInRollout(percentage: percentage, groupID: group, userID: user) == expected)
                }
            }
        }
        for whole in [0, 1, 25, 99, 100] {
            let evaluator = Evaluator(try TargetingConfiguration(rollouts: ["r": .init(percentage: RolloutPercentage(basisPoints: whole * 100)!, groupID: group)]))
            for user in Self.users.prefix(2_000) {
                #expect(evaluator.isInRollout("r", for: UserContext(userID: user)) == unleashAdmits(whole, group, user))
            }
        }
    }

    /// Each user has one threshold: every percentage below `position + 0.01` leaves them out,
    /// every one from it admits them — checked at all 10,001 percentages for 2,000 users, so the
    /// admitted sets nest: raising the percentage by any step only adds users.
    @Test func raisingAnyPercentageOnlyAddsUsers() throws {
        let placements = Self.users.prefix(2_000).map { Bucketing.rolloutPlacement(groupID: "new-checkout", userID: $0) }
        var admittedCount = 0
        for basisPoints in 0...10_000 {
            let percentage = RolloutPercentage(basisPoints: basisPoints)!
            var count = 0
            for placement in placements {
                let admitted = placement.isAdmitted(by: percentage)
                // Out below the threshold, in from it: the admitted sets nest.
                if admitted != (basisPoints >= placement.smallestAdmittingPercentage.basisPoints) {
                    Issue.record("\(placement) at \(percentage)")
                }
                if admitted { count += 1 }
            }
            #expect(count >= admittedCount)
            admittedCount = count
        }
        #expect(admittedCount == placements.count)
        // The public entry point agrees at each user's threshold and just below it.
        for (user, placement) in zip(Self.users, placements) {
            let threshold = placement.smallestAdmittingPercentage
            #expect(Bucketing.isInRollout(percentage: threshold, groupID: "new-checkout", userID: user))
            let below = RolloutPercentage(basisPoints: threshold.basisPoints - 1)!
            #expect(!Bucketing.isInRollout(percentage: below, groupID: "new-checkout", userID: user))
        }
    }

    /// The position subdivides the bucket: it lies in the bucket's hundred slots, and the
    /// threshold of a user in bucket b is above b - 1 and at most b.
    @Test func positionNestsInsideTheBucket() {
        for user in Self.users {
            let placement = Bucketing.rolloutPlacement(groupID: "gold-banner", userID: user)
            #expect(placement.position / 100 == placement.bucket - 1)
            #expect((0...9_999).contains(placement.position))
            let hash = Murmur3.hash32("gold-banner:" + user)
            #expect(placement.position == Int(hash % 100) * 100 + Int(hash / 100 % 100))
        }
    }

    /// Fractional percentages admit their share: 12.5% and 0.25% of 200,000 users, and every
    /// one of the 10,000 positions is someone's.
    @Test func fractionalPercentagesAdmitTheirShare() {
        var counts = Array(repeating: 0, count: 10_000)
        for i in 0..<200_000 { counts[Bucketing.rolloutPlacement(groupID: "home-hero", userID: "user-\(i)").position] += 1 }
        #expect(counts.allSatisfy { $0 > 0 })
        let at12_5 = counts[..<1_250].reduce(0, +), at0_25 = counts[..<25].reduce(0, +)
        #expect(abs(at12_5 - 25_000) <= 750, "\(at12_5)")
        #expect(abs(at0_25 - 500) <= 90, "\(at0_25)")
    }

    @Test func placementTexts() {
        let placement = RolloutPlacement(hash: 458_362_811)  // the fixture's gold-banner:user-1
        #expect(placement.bucket == 12 && placement.position == 1_128 && placement.positionText == "11.28")
        #expect(placement.smallestAdmittingPercentage.description == "11.29")
        #expect(RolloutPlacement(hash: 3_330_900_077).positionText == "77")
        #expect(RolloutPlacement(hash: 9_999).smallestAdmittingPercentage == 100)  // position 99.99: only 100% admits
        #expect(RolloutPlacement(hash: 99).positionText == "99" && RolloutPlacement(hash: 99).bucket == 100)
        #expect(RolloutPlacement(hash: 0).positionText == "0" && RolloutPlacement(hash: 0).smallestAdmittingPercentage.description == "0.01")
    }
}
