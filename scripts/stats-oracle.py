"""Writes Fixtures/stats/gbstats-0.8.0.jsonl.gz: experiment results as GrowthBook's gbstats computes them.

Run by scripts/stats-oracle, inside a venv holding gbstats 0.8.0 (and the numpy, scipy and pandas
it pins). TrellisStats (Sources/TrellisStats) must reproduce every figure to 1e-9 relative, or
1e-12 absolute where the figure is within 1e-12 of zero: Tests/TrellisStatsTests/GBStatsOracleTests.swift.

The figures come from gbstats' own classes, driven the way gbstats.py drives them, so that they
are exactly gbstats' (the statistic classes, TwoSidedTTest, SequentialTwoSidedTTest,
EffectBayesianABTest with a relative GaussianPrior, check_srm). Every test gets freshly built
statistics: BaseABTest writes CUPED's theta into the statistics it is given.

Line 1 of the fixture is its provenance; each further line is one case:
  {"compare": {"type": "proportion"|"mean"|"ratio", "settings": {...}, "variants": [...]},
   "results": [one per treatment, against variant 0]}
  {"srm": {"users": [...], "weights": [...]}, "p": ...}
Numbers are JSON numbers written with Python's repr (shortest round trip); infinities and NaN,
which JSON lacks, are the strings "inf", "-inf" and "nan".

Usage: scripts/stats-oracle [--cases N] [--srm N] [--seed S] [output path]
"""
import argparse
import gzip
import json
import math
import os
import platform
import random
from importlib.metadata import version

from gbstats.bayesian.tests import EffectBayesianABTest, EffectBayesianConfig, GaussianPrior
from gbstats.frequentist.tests import (
    FrequentistConfig,
    SequentialConfig,
    SequentialTwoSidedTTest,
    TwoSidedTTest,
)
from gbstats.models.statistics import (
    ProportionStatistic,
    RatioStatistic,
    RegressionAdjustedStatistic,
    SampleMeanStatistic,
)
from gbstats.utils import check_srm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "Fixtures", "stats", "gbstats-0.8.0.jsonl.gz")


def number(x):
    """A figure for JSON: finite floats as they are, the rest as strings."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


# ---- statistics, as gbstats.py builds them from a row (count = users) -------------------------

def base_statistic(kind, n, s, ss):
    if kind == "proportion":
        return ProportionStatistic(n=n, sum=s)
    return SampleMeanStatistic(n=n, sum=s, sum_squares=ss)


def statistic(metric, v):
    """One variant's statistic, built anew each time (tests mutate theta)."""
    n = v["users"]
    if metric == "ratio":
        d = v["denominator"]
        return RatioStatistic(
            n=n,
            m_statistic=SampleMeanStatistic(n=n, sum=v["sum"], sum_squares=v["sumSquares"]),
            d_statistic=SampleMeanStatistic(n=n, sum=d["sum"], sum_squares=d["sumSquares"]),
            m_d_sum_of_products=d["sumProducts"],
        )
    post = base_statistic(metric, n, v["sum"], v["sumSquares"])
    c = v.get("covariate")
    if c is None:
        return post
    return RegressionAdjustedStatistic(
        n=n,
        post_statistic=post,
        pre_statistic=base_statistic(metric, n, c["sum"], c["sumSquares"]),
        post_pre_sum_of_products=c["sumProducts"],
        theta=0,
    )


def frequentist(result):
    return {
        "expected": number(result.expected),
        "lower": number(result.ci[0]),
        "upper": number(result.ci[1]),
        "pValue": number(result.p_value),
        "error": result.error_message,
    }


def summary(stat):
    return {"mean": number(stat.mean), "unadjustedMean": number(stat.unadjusted_mean), "stddev": number(stat.stddev)}


def compare(metric, settings, control, treatment):
    alpha = settings["alpha"]
    prior = settings["prior"]

    relative_test = TwoSidedTTest(statistic(metric, control), statistic(metric, treatment), FrequentistConfig(alpha=alpha))
    relative = relative_test.compute_result()
    absolute = TwoSidedTTest(
        statistic(metric, control), statistic(metric, treatment),
        FrequentistConfig(alpha=alpha, difference_type="absolute"),
    ).compute_result()
    sequential = SequentialTwoSidedTTest(
        statistic(metric, control), statistic(metric, treatment),
        SequentialConfig(alpha=alpha, sequential_tuning_parameter=settings["sequentialTuning"]),
    ).compute_result()
    bayesian = EffectBayesianABTest(
        statistic(metric, control), statistic(metric, treatment),
        EffectBayesianConfig(
            alpha=alpha,
            inverse=not settings["higherIsBetter"],
            prior_effect=GaussianPrior(mean=prior["mean"], variance=pow(prior["stddev"], 2), proper=prior["proper"]),
            prior_type="relative",
        ),
    ).compute_result()

    a = relative_test.stat_a
    theta = a.theta if isinstance(a, RegressionAdjustedStatistic) else None
    return {
        "control": summary(relative_test.stat_a),
        "treatment": summary(relative_test.stat_b),
        "cupedTheta": None if theta is None else number(theta),
        "relative": frequentist(relative),
        "absolute": frequentist(absolute),
        "sequential": frequentist(sequential),
        "bayesian": {
            "chanceToWin": number(bayesian.chance_to_win),
            "expected": number(bayesian.expected),
            "lower": number(bayesian.ci[0]),
            "upper": number(bayesian.ci[1]),
            "riskControl": number(bayesian.risk[0]),
            "riskTreatment": number(bayesian.risk[1]),
            "error": bayesian.error_message,
        },
    }


# ---- random cases ---------------------------------------------------------------------------

def users_count(rng):
    r = rng.random()
    if r < 0.08:
        return rng.choice([0, 1, 2, 3])
    if r < 0.22:
        return int(10 ** rng.uniform(6, 8))
    return int(10 ** rng.uniform(0.6, 6))


def variant_sizes(rng, k):
    n = users_count(rng)
    sizes = []
    for _ in range(k):
        if rng.random() < 0.12:
            sizes.append(users_count(rng))
        else:
            sizes.append(max(0, round(n * rng.uniform(0.8, 1.25))))
    return sizes


def moments_of(xs, ys=None):
    s = float(sum(xs))
    ss = float(sum(x * x for x in xs))
    if ys is None:
        return s, ss
    return s, ss, float(sum(x * y for x, y in zip(xs, ys)))


def draw_values(rng, n, mean, sd, shape):
    """n per-user values: lognormal-ish revenue, zero-inflated counts, or normal scores."""
    if shape == "lognormal":
        sigma = 0.8
        mu = math.log(max(abs(mean), 1e-9)) - sigma * sigma / 2
        return [round(math.exp(rng.gauss(mu, sigma)), 2) for _ in range(n)]
    if shape == "counts":
        return [float(int(rng.expovariate(1 / max(abs(mean), 0.01)))) if rng.random() < 0.6 else 0.0 for _ in range(n)]
    return [rng.gauss(mean, sd) for _ in range(n)]


def proportion_variant(rng, n, p, cuped):
    if n <= 300:
        post = [1.0 if rng.random() < p else 0.0 for _ in range(n)]
        v = {"users": n, "sum": float(sum(post)), "sumSquares": float(sum(post))}
        if cuped:
            pre = [x if rng.random() < 0.7 else (1.0 if rng.random() < p else 0.0) for x in post]
            s, ss, sp = moments_of(pre, post)
            v["covariate"] = {"sum": s, "sumSquares": ss, "sumProducts": sp}
        return v
    k = min(n, max(0, round(n * p + rng.gauss(0, 1) * math.sqrt(n * p * (1 - p)))))
    v = {"users": n, "sum": float(k), "sumSquares": float(k)}
    if cuped:
        p_pre = min(1.0, max(0.0, p * rng.uniform(0.5, 1.5)))
        pre = min(n, round(n * p_pre))
        both = round(min(pre, k) * rng.uniform(0.3, 1.0))
        v["covariate"] = {"sum": float(pre), "sumSquares": float(pre), "sumProducts": float(both)}
    return v


def mean_variant(rng, n, mean, sd, cuped, shape):
    if n <= 300:
        post = draw_values(rng, n, mean, sd, shape)
        s, ss = moments_of(post)
        v = {"users": n, "sum": s, "sumSquares": ss}
        if cuped:
            rho = rng.uniform(-0.3, 0.95)
            pre = [rho * x + (1 - abs(rho)) * y for x, y in zip(post, draw_values(rng, n, mean, sd, shape))]
            ps, pss, sp = moments_of(pre, post)
            v["covariate"] = {"sum": ps, "sumSquares": pss, "sumProducts": sp}
        return v
    m = mean + rng.gauss(0, 1) * sd / math.sqrt(n)
    s2 = sd * sd * rng.uniform(0.9, 1.1)
    s = n * m
    v = {"users": n, "sum": s, "sumSquares": (n - 1) * s2 + s * s / n}
    if cuped:
        rho = rng.uniform(-0.3, 0.95)
        pm = mean * rng.uniform(0.7, 1.3)
        psd = sd * rng.uniform(0.5, 1.5)
        ps = n * pm
        v["covariate"] = {
            "sum": ps,
            "sumSquares": (n - 1) * psd * psd + ps * ps / n,
            "sumProducts": (n - 1) * rho * math.sqrt(s2) * psd + s * ps / n,
        }
    return v


def ratio_variant(rng, n, mean, d_mean):
    if n <= 300:
        d = [float(1 + int(rng.expovariate(1 / d_mean))) for _ in range(n)]
        m = [round(x * mean * rng.uniform(0, 2), 2) for x in d]
        s, ss, sp = moments_of(m, d)
        ds, dss = moments_of(d)
        return {"users": n, "sum": s, "sumSquares": ss, "denominator": {"sum": ds, "sumSquares": dss, "sumProducts": sp}}
    dm = d_mean * rng.uniform(0.95, 1.05)
    dsd = d_mean * rng.uniform(0.3, 1.5)
    mm = dm * mean * rng.uniform(0.9, 1.1)
    msd = mm * rng.uniform(0.3, 2)
    rho = rng.uniform(0.0, 0.9)
    ms, ds = n * mm, n * dm
    return {
        "users": n, "sum": ms, "sumSquares": (n - 1) * msd * msd + ms * ms / n,
        "denominator": {
            "sum": ds,
            "sumSquares": (n - 1) * dsd * dsd + ds * ds / n,
            "sumProducts": (n - 1) * rho * msd * dsd + ms * ds / n,
        },
    }


def settings_of(rng):
    r = rng.random()
    alpha = 0.05 if r < 0.6 else (rng.choice([0.01, 0.1, 0.2]) if r < 0.8 else rng.uniform(0.001, 0.3))
    tuning = 5000 if rng.random() < 0.7 else rng.choice([10, 100, 1000, 20000, 1e6, rng.uniform(50, 50000)])
    if rng.random() < 0.5:
        prior = {"mean": 0, "stddev": 0.1, "proper": False}
    elif rng.random() < 0.3:
        prior = {"mean": 0, "stddev": 0.1, "proper": True}
    else:
        prior = {"mean": rng.uniform(-0.2, 0.2), "stddev": rng.uniform(0.01, 1), "proper": rng.random() < 0.8}
    return {"alpha": alpha, "sequentialTuning": tuning, "prior": prior, "higherIsBetter": rng.random() < 0.7}


def compare_case(rng):
    r = rng.random()
    metric = "proportion" if r < 0.3 else ("mean" if r < 0.6 else "ratio" if r < 0.8 else rng.choice(["proportion", "mean"]))
    cuped = r >= 0.8
    k = rng.choices([2, 3, 4], weights=[55, 25, 20])[0]
    sizes = variant_sizes(rng, k)
    special = rng.random()
    variants = []
    if metric == "proportion":
        p = min(0.999, 10 ** rng.uniform(-3, 0))
        for i, n in enumerate(sizes):
            pi = min(1.0, max(0.0, p * (1 + rng.gauss(0, 0.1))))
            if special < 0.04:
                pi = 0.0 if i == 0 else pi          # a control nobody converts in
            elif special < 0.07:
                pi = 1.0                            # everyone converts: no variance
            variants.append(proportion_variant(rng, n, pi, cuped))
    elif metric == "mean":
        mean = 10 ** rng.uniform(-2, 3) * (-1 if rng.random() < 0.05 else 1)
        sd = abs(mean) * 10 ** rng.uniform(-1.5, 1)
        shape = rng.choice(["lognormal", "counts", "normal"])
        for i, n in enumerate(sizes):
            mi = mean * (1 + rng.gauss(0, 0.05))
            v = mean_variant(rng, n, mi, sd, cuped, shape)
            if special < 0.04 and n > 0:
                v["sumSquares"] = v["sum"] * v["sum"] / n  # no variance
            elif special < 0.07 and i == 0:
                v["sum"] = 0.0                      # a control whose mean is zero
            variants.append(v)
    else:
        mean = 10 ** rng.uniform(-2, 2)
        d_mean = 10 ** rng.uniform(0, 1)
        for i, n in enumerate(sizes):
            v = ratio_variant(rng, n, mean * (1 + rng.gauss(0, 0.05)), d_mean)
            if special < 0.04 and i == 0:
                v["denominator"]["sum"] = 0.0       # an empty denominator: the ratio is 0
            variants.append(v)
    settings = settings_of(rng)
    case = {"type": metric, "settings": settings, "variants": variants}
    results = [compare(metric, settings, variants[0], t) for t in variants[1:]]
    return {"compare": case, "results": results}


def srm_case(rng):
    k = rng.choice([2, 3, 4])
    r = rng.random()
    if r < 0.4:
        weights = [1 / k] * k
    elif r < 0.8:
        raw = [rng.uniform(0.05, 1) for _ in range(k)]
        weights = [w / sum(raw) for w in raw]
    else:
        weights = [rng.choice([0.0, 0.1, 0.25, 0.5, 1.0, 1 / 3]) for _ in range(k)]
    scale = rng.choice([0, 1, 10, 1000, 10 ** 5, 10 ** 8, 10 ** 9])
    users = []
    for w in weights:
        expected = scale * (w if sum(weights) > 0 else 1 / k)
        drift = 1 + (rng.gauss(0, 0.01) if rng.random() < 0.7 else rng.gauss(0, 0.2))
        users.append(max(0, int(round(expected * drift + rng.gauss(0, 1) * math.sqrt(max(expected, 0))))))
    if rng.random() < 0.1:
        users[rng.randrange(k)] = 0
    return {"srm": {"users": users, "weights": weights}, "p": number(check_srm(users, weights))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out", nargs="?", default=DEFAULT_OUT)
    parser.add_argument("--cases", type=int, default=10000)
    parser.add_argument("--srm", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=80)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    provenance = {
        "provenance": "scripts/stats-oracle --cases %d --srm %d --seed %d" % (args.cases, args.srm, args.seed),
        "gbstats": version("gbstats"), "numpy": version("numpy"), "scipy": version("scipy"),
        "pandas": version("pandas"), "pydantic": version("pydantic"), "python": platform.python_version(),
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    # mtime 0: the same cases give the same bytes.
    with open(args.out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as out:
        def write(obj):
            out.write((json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode())
        write(provenance)
        for _ in range(args.cases):
            write(compare_case(rng))
        for _ in range(args.srm):
            write(srm_case(rng))
    print("wrote %s: %d comparison cases, %d SRM cases" % (os.path.relpath(args.out), args.cases, args.srm))


if __name__ == "__main__":
    main()
