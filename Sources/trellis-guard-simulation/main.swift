// trellis-guard-simulation: how often GuardrailTest halts a rollout that is fine, and how soon it
// halts one that is not (docs/statistics.md, "Guarded rollouts"). Seeded: the same arguments
// print the same figures.
//
//   trellis-guard-simulation [--seed S] [--runs N] [--users-per-day D] [--rollout R] [--minimum-users M]
//
// A simulated rollout lasts a day. Eligible users arrive as a Poisson process whose rate follows
// the day, 0.4× the mean at midnight to 1.6× at noon (λ(t) = D/86400 · (1 − 0.6 cos 2πt/day)),
// starting at midnight; each goes to the treatment with probability R (the rollout's share), else
// stays in control, and fails (a render failure, say) with the arm's probability. Every 10 simulated
// seconds the guard decides on the running sums — O(1) a check — and a `regression` halts the run.
//
//   false halts  A/A: both arms fail at p ∈ {0.1 %, 0.2 %, 0.5 %, 1 %, 2 %, 5 %}, N runs each.
//   power        0.5 % → 1 % (2×) and 0.5 % → 1.5 % (3×), N runs each: treatment users at the halt.
//
// Each run's generator is seeded from (seed, scenario, run), so a run's users do not depend on the
// runs before it; every run is tested at the tolerances 0 and 0.10 on the same users.
import Glibc
import TrellisStats

// MARK: - Arguments

struct Options: Sendable {
    var seed: UInt64 = 20260
    var runs = 1000
    var usersPerDay = 100_000.0
    var rollout = 0.5
    var minimumUsers = 100

    init(_ arguments: [String]) {
        var arguments = arguments[...]
        while let flag = arguments.popFirst() {
            guard let value = arguments.popFirst() else { fatalError("\(flag) needs a value") }
            switch flag {
            case "--seed": seed = UInt64(value)!
            case "--runs": runs = Int(value)!
            case "--users-per-day": usersPerDay = Double(value)!
            case "--rollout": rollout = Double(value)!
            case "--minimum-users": minimumUsers = Int(value)!
            default: fatalError("unknown flag \(flag)")
            }
        }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))

// MARK: - Randomness: xoshiro256** seeded by SplitMix64 (Blackman and Vigna, 2018)

struct Generator {
    var s: (UInt64, UInt64, UInt64, UInt64)

    init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    mutating func next() -> UInt64 {
        let result = ((s.1 &* 5) << 7 | (s.1 &* 5) >> 57) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = s.3 << 45 | s.3 >> 19
        return result
    }

    /// Uniform in [0, 1), 53 bits.
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Poisson(mean) by Knuth's product of uniforms, in pieces of mean ≤ 16 (a sum of Poissons is Poisson).
    mutating func poisson(_ mean: Double) -> Int {
        var remaining = mean
        var count = 0
        while remaining > 0 {
            let piece = min(remaining, 16)
            remaining -= piece
            let limit = exp(-piece)
            var product = uniform()
            while product > limit {
                count += 1
                product *= uniform()
            }
        }
        return count
    }
}

// MARK: - One simulated day

let day = 86_400.0
let checkEvery = 10.0

/// Where a run halted: the treatment's and control's users then, and the time, in seconds.
struct Halt {
    var treatment: Int
    var control: Int
    var seconds: Double
}

/// One rollout: users arrive, fail, and the guards decide every 10 s until each has halted or the day ends.
func simulate(
    controlRate: Double, treatmentRate: Double, guards: [GuardrailTest], generator: inout Generator
) -> [Halt?] {
    var nA = 0, nB = 0
    var failA = 0.0, failB = 0.0
    var halts = [Halt?](repeating: nil, count: guards.count)
    var open = guards.count
    let meanPerSecond = options.usersPerDay / day
    var t = 0.0
    while t < day, open > 0 {
        let middle = t + checkEvery / 2
        let arrivals = generator.poisson(meanPerSecond * (1 - 0.6 * cos(2 * Double.pi * middle / day)) * checkEvery)
        for _ in 0..<arrivals {
            if generator.uniform() < options.rollout {
                nB += 1
                if generator.uniform() < treatmentRate { failB += 1 }
            } else {
                nA += 1
                if generator.uniform() < controlRate { failA += 1 }
            }
        }
        t += checkEvery
        let control = SufficientStatistics(users: nA, sum: failA, sumSquares: failA)
        let treatment = SufficientStatistics(users: nB, sum: failB, sumSquares: failB)
        for (i, test) in guards.enumerated() where halts[i] == nil {
            if test.decide(control: control, treatment: treatment).verdict == .regression {
                halts[i] = Halt(treatment: nB, control: nA, seconds: t)
                open -= 1
            }
        }
    }
    return halts
}

func seed(_ scenario: UInt64, _ run: Int) -> UInt64 {
    options.seed &* 0x1_0000_0001 ^ scenario << 32 ^ UInt64(run)
}

let tolerances = [0.0, 0.10]
let guards = tolerances.map { GuardrailTest(.proportion, badDirection: .rise, tolerance: $0, minimumUsers: options.minimumUsers) }

extension String {
    /// The string, with spaces after it to `width` characters.
    func padded(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}

func percent(_ x: Double) -> String {
    let scaled = (x * 1000).rounded() / 10
    return "\(scaled) %"
}

func quantile(_ sorted: [Int], _ q: Double) -> Int {
    sorted[min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))]
}

print("trellis-guard-simulation: seed \(options.seed), \(options.runs) runs a scenario, \(Int(options.usersPerDay)) eligible users a day")
print("(Poisson arrivals, 0.4× at midnight to 1.6× at noon), rollout share \(options.rollout), a check every 10 s for a day,")
print("α 0.05, τ \(Int(guards[0].sequentialTuning)), at least \(guards[0].minimumUsers) users an arm")

// MARK: - False halts

print("\nFalse halts (A/A: both arms fail at the same rate): share of runs halted within the day")
print("failure rate   runs   tolerance 0        tolerance 0.10")
let rates = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05]
var totalHalted = [Int](repeating: 0, count: tolerances.count)
var earliest = [Halt?](repeating: nil, count: tolerances.count)
for (scenario, p) in rates.enumerated() {
    var halted = [Int](repeating: 0, count: tolerances.count)
    for run in 0..<options.runs {
        var generator = Generator(seed: seed(UInt64(scenario), run))
        for (i, halt) in simulate(controlRate: p, treatmentRate: p, guards: guards, generator: &generator).enumerated() {
            guard let halt else { continue }
            halted[i] += 1
            if earliest[i].map({ halt.seconds < $0.seconds }) ?? true { earliest[i] = halt }
        }
    }
    for i in tolerances.indices { totalHalted[i] += halted[i] }
    let cells = halted.map { "\($0) (\(percent(Double($0) / Double(options.runs))))".padded(19) }
    print("\(percent(p).padded(15))\(String(options.runs).padded(7))\(cells.joined())")
}
let allRuns = options.runs * rates.count
print("overall        \(String(allRuns).padded(7))" + totalHalted.map {
    "\($0) (\(percent(Double($0) / Double(allRuns))))".padded(19)
}.joined())
for (i, halt) in earliest.enumerated() {
    if let halt { print("  earliest false halt at tolerance \(tolerances[i]): \(Int(halt.seconds)) s, \(halt.treatment) treatment and \(halt.control) control users") }
}

// MARK: - Power

/// The users an arm at which the bound, computed at the true rates, first passes the threshold:
/// where a run halts when its estimates happen to equal the truth.
func crossing(_ test: GuardrailTest, controlRate: Double, treatmentRate: Double) -> (treatment: Int, control: Int)? {
    for step in 1...2_000_000 {
        let total = Double(step) * 10
        let nB = total * options.rollout, nA = total - nB
        let control = SufficientStatistics(users: Int(nA), sum: nA * controlRate, sumSquares: nA * controlRate)
        let treatment = SufficientStatistics(users: Int(nB), sum: nB * treatmentRate, sumSquares: nB * treatmentRate)
        if test.decide(control: control, treatment: treatment).verdict == .regression { return (Int(nB), Int(nA)) }
    }
    return nil
}

print("\nPower: treatment users exposed when the guard halts (quantiles over the runs that halted)")
print("regression          tolerance  halted   never   5 %     25 %    median  75 %    95 %     hours (median)  at the true rates")
for (scenario, treatmentRate) in [(UInt64(100), 0.01), (UInt64(101), 0.015)] {
    var users = [[Int]](repeating: [], count: tolerances.count)
    var hours = [[Double]](repeating: [], count: tolerances.count)
    for run in 0..<options.runs {
        var generator = Generator(seed: seed(scenario, run))
        for (i, halt) in simulate(controlRate: 0.005, treatmentRate: treatmentRate, guards: guards, generator: &generator).enumerated() {
            guard let halt else { continue }
            users[i].append(halt.treatment)
            hours[i].append(halt.seconds / 3600)
        }
    }
    for i in tolerances.indices {
        let sorted = users[i].sorted()
        let name = "0.5 % → \(percent(treatmentRate)) (\(Int(treatmentRate / 0.005))×)"
        let never = percent(Double(options.runs - sorted.count) / Double(options.runs))
        var line = name.padded(20) + "\(tolerances[i])".padded(11)
        line += "\(sorted.count)".padded(9) + never.padded(8)
        if !sorted.isEmpty {
            for q in [0.05, 0.25, 0.5, 0.75, 0.95] { line += "\(quantile(sorted, q))".padded(8) }
            let h = hours[i].sorted()
            line += " " + "\((h[h.count / 2] * 10).rounded() / 10)".padded(16)
        }
        if let at = crossing(guards[i], controlRate: 0.005, treatmentRate: treatmentRate) {
            line += "\(at.treatment) treatment, \(at.control) control"
        }
        print(line)
    }
}
