"""Writes Fixtures/stats/guardrail-bound.jsonl.gz: the guardrail test's one-sided bound and verdict,
computed from the published formula with numpy, for TrellisStats' GuardrailTest to reproduce.

Run by scripts/guard-oracle, inside a venv holding numpy and scipy. GuardrailTest
(Sources/TrellisStats/Guardrail.swift) must give every bound within 1e-9 relative (1e-12 absolute
where the bound is within 1e-12 of zero) and every verdict: Tests/TrellisStatsTests/GuardrailOracleTests.swift.

The formula, written here from the paper and GrowthBook's description of it, not from our Swift:
Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas, "Time-uniform central limit theory and asymptotic
confidence sequences", arXiv:2103.06476v7 — the one-sided Gaussian-mixture boundary (eq. 134) with
rho chosen by eq. 161 at 2*alpha, as GrowthBook's SequentialOneSidedTreatment{Lesser,Greater}TTest
uses it. On the relative lift d = (mb - ma)/ma and its delta-method variance
V = vb/(ma^2 nb) + va mb^2/(ma^4 na), with N = na + nb:

    rho2 = (-2 log(2a) + log(1 - 2 log(2a))) / tau
    w    = sqrt(N V * 2 (N rho2 + 1)/(N^2 rho2) * log(1 + sqrt(N rho2 + 1)/(2a)))
    rise is bad: bound = d - w, regression when bound > +tolerance
    fall is bad: bound = d + w, regression when bound < -tolerance

A case is "insufficient" when an arm has fewer than minimumUsers users, the control mean is 0, or
either arm's per-user variance is <= 0 (proportion: p(1 - p); mean: the sample variance).

As a sanity check of the formula, every bound is asserted to be wider than the fixed-horizon
one-sided normal bound (scipy's norm.ppf(1 - a) * sqrt(V)): looking always costs something.

Line 1 of the fixture is its provenance; each further line one case:
  {"type": "proportion"|"mean", "badDirection": "rise"|"fall", "tolerance", "alpha", "tuning",
   "minimumUsers", "control": {"users", "sum", "sumSquares"}, "treatment": {...},
   "verdict": "insufficient"|"noRegression"|"regression", "reason": null|"users"|"baseline"|"variance",
   "controlMean", "treatmentMean", "lift": number|null, "bound": number|null}

Usage: scripts/guard-oracle [--cases N] [--seed S] [output path]
"""
import argparse
import gzip
import json
import os
import platform
from importlib.metadata import version

import numpy as np
from scipy.stats import norm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "Fixtures", "stats", "guardrail-bound.jsonl.gz")


def arm_figures(kind, users, s, ss):
    """The arm's mean and per-user variance."""
    mean = s / users if users > 0 else 0.0
    if kind == "proportion":
        return mean, mean * (1 - mean)
    if users <= 1:
        return mean, 0.0
    return mean, (ss - s**2 / users) / (users - 1)


def decide(case):
    kind = case["type"]
    a, b = case["control"], case["treatment"]
    ma, va = arm_figures(kind, a["users"], a["sum"], a["sumSquares"])
    mb, vb = arm_figures(kind, b["users"], b["sum"], b["sumSquares"])
    out = {"controlMean": ma, "treatmentMean": mb, "lift": None, "bound": None, "reason": None}
    if a["users"] < case["minimumUsers"] or b["users"] < case["minimumUsers"]:
        return {**out, "verdict": "insufficient", "reason": "users"}
    if ma == 0:
        return {**out, "verdict": "insufficient", "reason": "baseline"}
    if va <= 0 or vb <= 0:
        return {**out, "verdict": "insufficient", "reason": "variance"}
    na, nb = np.float64(a["users"]), np.float64(b["users"])
    ma, mb, va, vb = np.float64(ma), np.float64(mb), np.float64(va), np.float64(vb)
    alpha, tau = np.float64(case["alpha"]), np.float64(case["tuning"])
    lift = (mb - ma) / ma
    v = vb / (ma**2 * nb) + va * mb**2 / (ma**4 * na)
    n = na + nb
    rho2 = (-2 * np.log(2 * alpha) + np.log(1 - 2 * np.log(2 * alpha))) / tau
    w = np.sqrt(n * v * 2 * (n * rho2 + 1) / (n**2 * rho2) * np.log(1 + np.sqrt(n * rho2 + 1) / (2 * alpha)))
    fixed = norm.ppf(1 - alpha) * np.sqrt(v)
    assert w > fixed, (case, w, fixed)
    tol = case["tolerance"]
    if case["badDirection"] == "rise":
        bound = lift - w
        verdict = "regression" if bound > tol else "noRegression"
    else:
        bound = lift + w
        verdict = "regression" if bound < -tol else "noRegression"
    return {**out, "verdict": verdict, "lift": float(lift), "bound": float(bound)}


def log_uniform(rng, lo, hi):
    return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))


def draw_case(rng):
    kind = "proportion" if rng.random() < 0.6 else "mean"
    scale = log_uniform(rng, 2, 1e9)  # tiny to huge arms
    na = max(1, int(scale))
    nb = max(1, int(scale * log_uniform(rng, 0.05, 20))) if rng.random() < 0.6 else na
    tolerance = float(rng.choice([0.0, 0.01, 0.05, 0.10, 0.10, 0.20, 0.50]))
    direction = "rise" if rng.random() < 0.5 else "fall"
    # The true lift: mostly near the threshold, where the verdict is in doubt; sometimes far away.
    edge = tolerance if direction == "rise" else -tolerance
    lift = edge + (rng.normal(0, 0.05) if rng.random() < 0.7 else rng.uniform(-0.9, 2.0))
    lift = max(lift, -0.95)
    case = {
        "type": kind,
        "badDirection": direction,
        "tolerance": tolerance,
        "alpha": float(rng.choice([0.001, 0.01, 0.025, 0.05, 0.05, 0.1, 0.2, 0.4])),
        "tuning": float(rng.choice([100.0, 1000.0, 5000.0, 5000.0, 20000.0, 1e6])),
        "minimumUsers": int(rng.choice([2, 100, 100, 1000])),
    }
    if kind == "proportion":
        pa = 0.0 if rng.random() < 0.02 else log_uniform(rng, 1e-4, 0.6)
        pb = min(pa * (1 + lift), 1.0)
        sa, sb = float(rng.binomial(na, pa)), float(rng.binomial(nb, pb))
        case["control"] = {"users": na, "sum": sa, "sumSquares": sa}
        case["treatment"] = {"users": nb, "sum": sb, "sumSquares": sb}
    else:
        mu = log_uniform(rng, 1e-3, 1e3)
        sd = 0.0 if rng.random() < 0.02 else mu * log_uniform(rng, 0.01, 10)

        def arm(n, m):
            # Sums whose sample mean and variance are near m and sd^2, without drawing n values.
            mean = m + rng.normal(0, sd / np.sqrt(n)) if n > 0 else 0.0
            var = sd**2 * (rng.chisquare(n - 1) / (n - 1) if n > 1 else 0.0)
            s = mean * n
            return {"users": n, "sum": float(s), "sumSquares": float(var * (n - 1) + s * s / n)}

        case["control"] = arm(na, mu)
        case["treatment"] = arm(nb, mu * (1 + lift))
    return case


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=2103)
    parser.add_argument("out", nargs="?", default=DEFAULT_OUT)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    provenance = {
        "oracle": "scripts/guard-oracle.py",
        "formula": "arXiv:2103.06476v7 eq. 134, rho by eq. 161 at 2 alpha; delta-method relative lift",
        "cases": args.cases,
        "seed": args.seed,
        "numpy": version("numpy"),
        "scipy": version("scipy"),
        "python": platform.python_version(),
    }
    counts = {}
    with gzip.GzipFile(args.out, "wb", mtime=0) as raw:
        raw.write((json.dumps(provenance, sort_keys=True) + "\n").encode())
        for _ in range(args.cases):
            case = draw_case(rng)
            case.update(decide(case))
            key = case["verdict"] + ("/" + case["reason"] if case["reason"] else "")
            counts[key] = counts.get(key, 0) + 1
            raw.write((json.dumps(case, sort_keys=True) + "\n").encode())
    print(f"{args.cases} cases to {os.path.relpath(args.out, ROOT)}:",
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
