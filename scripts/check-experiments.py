"""The experiments feature end to end over HTTP, against GrowthBook's gbstats 0.8.0 on the same raw data.

Run by scripts/check-experiments (which builds and starts the servers), inside the venv holding
gbstats 0.8.0 and the pandas it pins (.build-oracle/gbstats-venv). Each check prints one line,
`ok   NAME: detail` or `FAIL NAME: detail`, and is appended to the file --checks names, which the
bash script counts.

Modes:
  main URL TOKEN --users N        metrics and goals through the admin API; N simulated users, each
                                  given the variant the server assigns (OFREP); exposures and events
                                  in batches of 100 (JSON and NDJSON, some ids sent twice); results
                                  against gbstats on the same data; SRM planted in a second
                                  experiment; POST /admin/analysis; the export.
  crash BIN CONFIG DATA           kill -9 while a sender posts batches; every acknowledged event
                                  must be in the export after a restart on the same data directory.
  replicas TOKEN URL… --users N   the same data spread over replicas sharing one PostgreSQL: every
                                  replica's results identical, and equal to gbstats'.
"""
import argparse
import json
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import numpy as np
import pandas as pd
from gbstats.bayesian.tests import EffectBayesianABTest, EffectBayesianConfig, GaussianPrior
from gbstats.frequentist.tests import FrequentistConfig, SequentialConfig, SequentialTwoSidedTTest, TwoSidedTTest
from gbstats.models.statistics import (
    ProportionStatistic,
    RatioStatistic,
    RegressionAdjustedStatistic,
    SampleMeanStatistic,
)
from gbstats.utils import check_srm

import harness
from harness import Client, check, put_document, rfc3339, say

HOUR = 3600.0
REL_TOL = 1e-9
ABS_TOL = 1e-12

# ---- the metrics and the experiment's goals --------------------------------------------------

METRICS = {
    "purchase-rate": {"type": "proportion", "event": "purchase", "windowHours": 72, "cuped": True},
    "revenue-per-user": {"type": "mean", "event": "purchase", "value": "sum", "cuped": {"lookbackHours": 96}},
    "revenue-per-order": {"type": "ratio", "numerator": {"event": "purchase", "value": "sum"}, "denominator": {"event": "purchase", "value": "count"}},
    "client-errors": {"type": "mean", "event": "client_error", "value": "count", "higherIsBetter": False},
}
GOALS = ["purchase-rate", "revenue-per-user"]
GUARDRAILS = ["revenue-per-order", "client-errors"]


def define_metrics(client, experiment):
    for name, body in METRICS.items():
        status, _, answer = put_document(client, f"/admin/metrics/{name}", body)
        check(f"PUT /admin/metrics/{name}", status in (200, 201), f"{status}" + ("" if status in (200, 201) else f" {answer}"))
    status, _, answer = put_document(client, f"/admin/experiments/{experiment}", {"goals": GOALS, "guardrails": GUARDRAILS})
    ok = status == 200 and isinstance(answer, dict) and answer.get("goals") == GOALS and answer.get("guardrails") == GUARDRAILS
    check(f"PUT /admin/experiments/{experiment} goals and guardrails", ok, f"{status}" + ("" if ok else f" {answer}"))
    status, _, answer = client.json("PUT", "/admin/experiments/" + experiment, {"goals": ["no-such-metric"]},
                                    {"If-Match": client.request("GET", f"/admin/experiments/{experiment}")[1].get("etag", "*")})
    check("an experiment naming a metric that does not exist is refused (422)", status == 422, f"{status}")
    status, _, answer = client.json("DELETE", "/admin/metrics/purchase-rate",
                                    headers={"If-Match": client.request("GET", "/admin/metrics/purchase-rate")[1].get("etag", "*")})
    if not check("a metric an experiment names cannot be deleted (409)", status == 409, f"{status} {answer}"):
        put_document(client, "/admin/metrics/purchase-rate", METRICS["purchase-rate"])


# ---- assignment: ask the server -------------------------------------------------------------

def assign(urls, experiment, users, threads=6):
    """The variant OFREP answers for each user (single-flag evaluation), over keep-alive connections."""
    variants = [None] * len(users)
    chunks = [range(i, min(i + 500, len(users))) for i in range(0, len(users), 500)]

    def work(k):
        client = Client(urls[k % len(urls)])
        for i in chunks[k]:
            status, _, answer = client.json("POST", f"/ofrep/v1/evaluate/flags/{experiment}", {"context": {"targetingKey": users[i]}})
            if status != 200:
                raise RuntimeError(f"OFREP for {users[i]}: {status} {answer}")
            variants[i] = answer["variant"]
        client.close()

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(work, range(len(chunks))))
    return variants


# ---- the simulated users ----------------------------------------------------------------------

def quarter(x):
    """Values in quarters: every sum and sum of squares is exact in binary floating point, so the
    server's SQL sums and pandas' must be equal whatever order they add in."""
    return np.round(x * 4) / 4


def simulate(run, variants_of_users, users, now_ms, seed, effect=0.10, base=0.30):
    """Every event of the simulation as a DataFrame: id, ms, user, kind, experiment, variant, value.

    Known effect: variant `big` converts (10 %) more. Revenue follows a per-user propensity that
    also drives pre-exposure purchases, so CUPED's covariate correlates with the outcome.
    """
    rng = np.random.default_rng(seed)
    n = len(users)
    rows = []
    counter = [0]

    def add(ms, user, kind, experiment=None, variant=None, value=None):
        counter[0] += 1
        rows.append((f"{run}-{counter[0]}", int(ms), user, kind, experiment, variant, value))

    age = rng.uniform(0.1 * HOUR, 100 * HOUR, n)              # exposure this long ago
    t0 = now_ms - np.round(age * 1000)
    propensity = rng.gamma(4.0, 0.25, n)                         # mean 1
    platform = rng.choice(["ios", "android"], n)
    n_pre = rng.poisson(0.5 * propensity)
    converted_p = {v: base * (1 + (effect if v == "big" else 0)) for v in ("control", "big")}
    u = rng.random(n)
    n_err = rng.poisson(0.3, n)
    n_err_pre = rng.poisson(0.1, n)
    for i in range(n):
        user, variant, t = users[i], variants_of_users[i], t0[i]
        add(t, user, "exposure", "home-hero", variant)
        if u[i] < 0.2:      # exposed again later (same variant): the first exposure counts
            add(t + rng.uniform(1000, now_ms - t - 1000), user, "exposure", "home-hero", variant)
        if u[i] > 0.999:    # exposed to the other variant too: left out, counted in multipleExposures
            other = "big" if variant == "control" else "control"
            add(t + rng.uniform(1000, now_ms - t - 1000), user, "exposure", "home-hero", other)
        # Before exposure, within 150 h (the metrics' lookbacks are 336 h and 96 h; events may be a week old).
        earliest = max(now_ms - 150 * HOUR * 1000, t - 150 * HOUR * 1000)
        for _ in range(n_pre[i]):
            ms = rng.uniform(earliest, t - 2000)
            if abs(ms - (t - 96 * HOUR * 1000)) < 2000:
                ms -= 5000
            if ms < now_ms - 155 * HOUR * 1000:
                continue
            value = None if rng.random() < 0.03 else float(quarter(rng.lognormal(math.log(20 * propensity[i] + 5), 0.5)))
            add(ms, user, "purchase", value=value)
        if rng.random() < min(1.0, converted_p[variant] * propensity[i]):
            for _ in range(1 + rng.poisson(0.6 * propensity[i])):
                ms = rng.uniform(t + 2000, now_ms - 2000)
                if abs(ms - (t + 72 * HOUR * 1000)) < 2000:   # never on the window's edge
                    ms += 5000
                if ms > now_ms - 1000:
                    ms = now_ms - 1000
                value = None if rng.random() < 0.03 else float(quarter(rng.lognormal(math.log(20 * propensity[i] + 5), 0.5)))
                add(ms, user, "purchase", value=value)
        for _ in range(n_err[i]):
            add(rng.uniform(t + 2000, now_ms - 1000), user, "client_error")
        for _ in range(n_err_pre[i]):
            add(rng.uniform(max(earliest, t - 48 * HOUR * 1000), t - 2000), user, "client_error")
    # Users never exposed who buy: they count nowhere.
    for j in range(n // 100):
        add(now_ms - rng.uniform(1000, 50 * HOUR * 1000), f"{run}-stranger-{j}", "purchase", value=10.0)
    frame = pd.DataFrame(rows, columns=["id", "ms", "user", "kind", "experiment", "variant", "value"])
    frame["platform"] = frame["user"].map(dict(zip(users, platform))).fillna("web")
    return frame


def event_json(row):
    event = {"id": row.id, "timestamp": rfc3339(row.ms), "context": {"targetingKey": row.user}}
    if row.kind == "exposure":
        event["context"].update({"platform": row.platform, "appVersion": "5.3.0", "country": "DE"})
        event["exposure"] = {"experiment": row.experiment, "variant": row.variant}
    else:
        event["name"] = row.kind
        if row.value is not None and not (isinstance(row.value, float) and math.isnan(row.value)):
            event["value"] = row.value
    return event


def batches_of(frame, seed, size=100):
    """The events shuffled into batches of `size`, each as (content type, body, ids)."""
    order = np.random.default_rng(seed).permutation(len(frame))
    shuffled = frame.iloc[order]
    events = [event_json(row) for row in shuffled.itertuples(index=False)]
    out = []
    for k, i in enumerate(range(0, len(events), size)):
        part = events[i:i + size]
        out.append(encode(part, ndjson=(k % 3 == 2)))
    return out


def encode(events, ndjson=False):
    if ndjson:
        return ("application/x-ndjson", "".join(json.dumps(e) + "\n" for e in events).encode(), [e["id"] for e in events])
    return ("application/json", json.dumps(events).encode(), [e["id"] for e in events])


RETRIED_503 = []   # the 503 answers send() got (and sent the batch again after Retry-After)


def send(urls, batches, threads=8, token=None):
    """Posts every batch (503: again after Retry-After); returns the statuses."""
    statuses = [None] * len(batches)
    lock = threading.Lock()
    cursor = [0]
    global RETRIED_503

    def work(k):
        client = Client(urls[k % len(urls)], token)
        while True:
            with lock:
                i = cursor[0]
                cursor[0] += 1
            if i >= len(batches):
                break
            content_type, body, _ = batches[i]
            for _ in range(50):
                status, head, answer = client.request("POST", "/v1/events", body, {"Content-Type": content_type})
                if status != 503:
                    break
                with lock:
                    RETRIED_503.append(answer[:200])
                time.sleep(float(head.get("retry-after", "1")))
            statuses[i] = (status, answer)
        client.close()

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(work, range(threads)))
    return statuses


# ---- the oracle: per-user totals as docs/experiments.md defines them, then gbstats --------------

def per_user(frame, experiment, as_of_ms):
    """The users who count (exposed to exactly one variant: variant, first exposure), and how
    many were exposed to several."""
    exposures = frame[(frame.kind == "exposure") & (frame.experiment == experiment) & (frame.ms <= as_of_ms)]
    grouped = exposures.groupby("user").agg(variants=("variant", "nunique"), variant=("variant", "first"), t0=("ms", "min"))
    multiple = int((grouped.variants > 1).sum())
    return grouped[grouped.variants == 1][["variant", "t0"]], multiple


def measure(frame, users, event, how, start_hours, end_hours, as_of_ms):
    """Per user (aligned with `users`): `how` (any | sum | count) of `event` with
    t0 + start ≤ time < t0 + end (None: unbounded) and time ≤ asOf."""
    events = frame[(frame.kind == event) & (frame.ms <= as_of_ms)][["user", "ms", "value"]]
    joined = events.merge(users[["t0"]], left_on="user", right_index=True)
    keep = np.ones(len(joined), dtype=bool)
    if start_hours is not None:
        keep &= joined.ms.values >= joined.t0.values + start_hours * HOUR * 1000
    if end_hours is not None:
        keep &= joined.ms.values < joined.t0.values + end_hours * HOUR * 1000
    joined = joined[keep]
    if how == "any" or how == "count":
        totals = joined.groupby("user").size().astype(float)
        if how == "any":
            totals = (totals > 0).astype(float)
    else:
        totals = joined.assign(v=joined.value.fillna(1.0)).groupby("user").v.sum()
    return users.index.to_series().map(totals).fillna(0.0).astype(float).values


def sufficient_statistics(frame, experiment, metric, as_of_ms, variants):
    """{variant: statistics} exactly as the results answer carries them, and the users/multiple."""
    users, multiple = per_user(frame, experiment, as_of_ms)
    kind = metric["type"]
    window = metric.get("windowHours")
    if kind == "ratio":
        num, den = metric["numerator"], metric.get("denominator", {"event": metric["numerator"]["event"], "value": "count"})
        x = measure(frame, users, num["event"], "sum" if num.get("value", "sum") == "sum" else "count", 0, window, as_of_ms)
        d = measure(frame, users, den["event"], "sum" if den.get("value", "count") == "sum" else "count", 0, window, as_of_ms)
    else:
        how = "any" if kind == "proportion" else ("count" if metric.get("value") == "count" else "sum")
        x = measure(frame, users, metric["event"], how, 0, window, as_of_ms)
        cuped = metric.get("cuped")
        if cuped:
            lookback = 336 if cuped is True else cuped["lookbackHours"]
            c = measure(frame, users, metric["event"], how, -lookback, 0, as_of_ms)
    out = {}
    for v in variants:
        mask = (users.variant == v).values
        xs = x[mask]
        stats = {"users": int(mask.sum()), "sum": float(xs.sum()), "sumSquares": float((xs * xs).sum())}
        if kind == "ratio":
            ds = d[mask]
            stats["denominator"] = {"sum": float(ds.sum()), "sumSquares": float((ds * ds).sum()), "sumProducts": float((xs * ds).sum())}
        elif metric.get("cuped"):
            cs = c[mask]
            stats["covariate"] = {"sum": float(cs.sum()), "sumSquares": float((cs * cs).sum()), "sumProducts": float((xs * cs).sum())}
        out[v] = stats
    return out, users, multiple


def statistic(kind, v):
    """gbstats' statistic for one variant's sufficient statistics, built anew each time (tests
    write CUPED's theta into what they are given)."""
    n = v["users"]

    def base(s, ss):
        return ProportionStatistic(n=n, sum=s) if kind == "proportion" else SampleMeanStatistic(n=n, sum=s, sum_squares=ss)

    if kind == "ratio":
        d = v["denominator"]
        return RatioStatistic(
            n=n,
            m_statistic=SampleMeanStatistic(n=n, sum=v["sum"], sum_squares=v["sumSquares"]),
            d_statistic=SampleMeanStatistic(n=n, sum=d["sum"], sum_squares=d["sumSquares"]),
            m_d_sum_of_products=d["sumProducts"],
        )
    post = base(v["sum"], v["sumSquares"])
    c = v.get("covariate")
    if c is None:
        return post
    return RegressionAdjustedStatistic(
        n=n, post_statistic=post, pre_statistic=base(c["sum"], c["sumSquares"]),
        post_pre_sum_of_products=c["sumProducts"], theta=0)


def gbstats_figures(kind, higher_is_better, settings, control, treatment):
    """The figures of one treatment against control, named as the results answer names them."""
    alpha = settings["alpha"]
    prior = settings["prior"]
    rel_test = TwoSidedTTest(statistic(kind, control), statistic(kind, treatment), FrequentistConfig(alpha=alpha))
    rel = rel_test.compute_result()
    ab = TwoSidedTTest(statistic(kind, control), statistic(kind, treatment),
                       FrequentistConfig(alpha=alpha, difference_type="absolute")).compute_result()
    seq = SequentialTwoSidedTTest(statistic(kind, control), statistic(kind, treatment),
                                  SequentialConfig(alpha=alpha, sequential_tuning_parameter=settings["sequentialTuning"])).compute_result()
    bay = EffectBayesianABTest(statistic(kind, control), statistic(kind, treatment), EffectBayesianConfig(
        alpha=alpha, inverse=not higher_is_better,
        prior_effect=GaussianPrior(mean=prior["mean"], variance=prior["stddev"] ** 2, proper=prior["proper"]),
        prior_type="relative")).compute_result()
    a = rel_test.stat_a

    def freq(r):
        return {"lift": r.expected, "ci": [r.ci[0], r.ci[1]], "pValue": r.p_value, "error": r.error_message}

    return {
        "relative": freq(rel), "absolute": freq(ab), "sequential": freq(seq),
        "bayesian": {"chanceToWin": bay.chance_to_win, "lift": bay.expected, "ci": [bay.ci[0], bay.ci[1]],
                     "risk": {"control": bay.risk[0], "treatment": bay.risk[1]}, "error": bay.error_message},
        "cupedTheta": a.theta if isinstance(a, RegressionAdjustedStatistic) else None,
    }


def variant_summary(kind, control, treatment, which):
    """mean and stddev of one variant as gbstats.py reports them (analyze_metric_df): the
    unadjusted mean, and the stddev of the statistic after the test against control set CUPED's
    theta on it (so with CUPED the adjusted stddev)."""
    test = TwoSidedTTest(statistic(kind, control), statistic(kind, treatment), FrequentistConfig())
    s = test.stat_a if which == "control" else test.stat_b
    return {"mean": s.unadjusted_mean, "stddev": s.stddev}


def close(a, b):
    """Equal within 1e-9 relative, or 1e-12 absolute near zero; NaN/inf as JSON null or strings."""
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        def norm(x):
            if x is None:
                return None
            if isinstance(x, str):
                return x
            return None if not math.isfinite(x) else x
        return norm(a) == norm(b)
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return True
    return abs(a - b) <= ABS_TOL or abs(a - b) <= REL_TOL * max(abs(a), abs(b))


def diff_tree(path, got, want, out):
    """Every leaf of `want` that `got` lacks or differs on (within tolerance)."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            out.append(f"{path}: got {json.dumps(got)[:200]}, want an object")
            return
        for k, w in want.items():
            diff_tree(f"{path}.{k}", got.get(k, "<missing>") if k in got else "<missing>", w, out)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            out.append(f"{path}: got {json.dumps(got)[:200]}, want a list of {len(want)}")
            return
        for i, (g, w) in enumerate(zip(got, want)):
            diff_tree(f"{path}[{i}]", g, w, out)
    else:
        if got == "<missing>" or (isinstance(want, (int, float)) and not isinstance(got, (int, float)) and got is not None) \
                or not close(got, want):
            out.append(f"{path}: got {json.dumps(got)[:200]}, want {json.dumps(want)[:200] if not isinstance(want, float) else repr(want)}")


def parse_time(text):
    return int(round(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000))


def compare_results(label, results, frame, experiment, variants, weights):
    """The results answer against the oracle: users, SRM, every metric's statistics and figures."""
    as_of = parse_time(results["asOf"])
    users, multiple = per_user(frame, experiment, as_of)
    counts = [int((users.variant == v).sum()) for v in variants]
    got_counts = [next((x.get("users") for x in results.get("variants", []) if x.get("name") == v), None) for v in variants]
    check(f"{label}: users per variant", got_counts == counts, f"server {got_counts}, oracle {counts}")
    check(f"{label}: multipleExposures", results.get("multipleExposures") == multiple,
          f"server {results.get('multipleExposures')}, oracle {multiple}")
    srm = check_srm(counts, weights)
    got_srm = (results.get("srm") or {}).get("pValue")
    check(f"{label}: srm.pValue equals gbstats' check_srm", close(got_srm, srm), f"server {got_srm!r}, gbstats {srm!r}")
    settings = results.get("settings") or {}
    by_metric = {m.get("metric"): m for m in results.get("metrics", [])}
    for name, metric in METRICS.items():
        m = by_metric.get(name)
        if m is None:
            check(f"{label}: {name} in results", False, f"metrics: {list(by_metric)}")
            continue
        role = "goal" if name in GOALS else "guardrail"
        meta_ok = m.get("role") == role and m.get("type") == metric["type"] and \
            m.get("higherIsBetter") == metric.get("higherIsBetter", True) and m.get("cuped") == bool(metric.get("cuped"))
        check(f"{label}: {name} role, type, higherIsBetter, cuped", meta_ok,
              f"{ {k: m.get(k) for k in ('role', 'type', 'higherIsBetter', 'cuped')} }")
        want_stats, _, _ = sufficient_statistics(frame, experiment, metric, as_of, variants)
        got = {v.get("variant"): v for v in m.get("variants", [])}
        problems = []
        exact = True
        for v in variants:
            diff_tree(f"{v}.statistics", (got.get(v) or {}).get("statistics"), want_stats[v], problems)
            g = json.dumps((got.get(v) or {}).get("statistics"), sort_keys=True)
            if json.loads(g) != want_stats[v]:
                exact = False
        check(f"{label}: {name} sufficient statistics equal pandas' sums" + (" (exactly)" if exact and not problems else ""),
              not problems, "; ".join(problems[:6]) or json.dumps(want_stats[variants[-1]]))
        kind = metric["type"]
        for i, v in enumerate(variants):
            problems = []
            want = variant_summary(kind, want_stats[variants[0]], want_stats[variants[i or 1]], "control" if i == 0 else "treatment")
            want["users"] = want_stats[v]["users"]
            if i > 0:
                want.update(gbstats_figures(kind, metric.get("higherIsBetter", True), settings, want_stats[variants[0]], want_stats[v]))
            diff_tree(v, got.get(v), want, problems)
            what = "control's mean and stddev" if i == 0 else f"{v}'s figures"
            check(f"{label}: {name} {what} equal gbstats 0.8.0's (1e-9 relative)", not problems, "; ".join(problems[:6]))
    return by_metric


# ---- modes ----------------------------------------------------------------------------------

def run_experiment(urls, token, users_n, seed, experiment="home-hero", variants=("control", "big"), label="home-hero"):
    """Assign, simulate, send; returns the frame and the batches' statuses."""
    run = f"r{seed}-{os.urandom(3).hex()}"   # ids never sent before, even to a server that saw this seed
    users = [f"{run}-u{i}" for i in range(users_n)]
    t = time.time()
    assigned = assign(urls, experiment, users)
    split = {v: assigned.count(v) for v in variants}
    check(f"{label}: every user assigned a variant by OFREP", sum(split.values()) == users_n, f"{split} in {time.time() - t:.1f} s")
    now_ms = int(time.time() * 1000)
    frame = simulate(run, assigned, users, now_ms, seed)
    batches = batches_of(frame, seed)
    # Some batches again whole (a retry after a timeout), and some events again inside other batches.
    rng = random.Random(seed)
    again = [batches[i] for i in rng.sample(range(len(batches)), min(20, len(batches)))]
    tracked = frame[frame.kind != "exposure"]
    singles = tracked.iloc[rng.sample(range(len(tracked)), min(200, len(tracked)))]
    single_events = [event_json(r) for r in singles.itertuples(index=False)]
    again += [encode(single_events[i:i + 50], ndjson=(i % 100 == 0)) for i in range(0, len(single_events), 50)]
    t = time.time()
    del RETRIED_503[:]
    statuses = send(urls, batches, token=None)
    statuses_again = send(urls, again, token=None)
    elapsed = time.time() - t
    if RETRIED_503:
        say(f"{len(RETRIED_503)} batches were answered 503 and sent again; the first: {RETRIED_503[0]!r}")
    bad = [(i, s) for i, s in enumerate(statuses + statuses_again) if s[0] != 202]
    check(f"{label}: {len(frame)} events in {len(batches)} batches of 100 (a third NDJSON), then {len(again)} batches again: all 202",
          not bad, f"{len(frame) / elapsed:.0f} events/s" if not bad else f"{len(bad)} not 202, first {bad[0][1][0]} {bad[0][1][1][:300]!r}")
    accepted = sum(json.loads(s[1]).get("accepted", 0) for s in statuses if s[0] == 202)
    check(f"{label}: the 202 answers' accepted counts add up to the events sent", accepted == len(frame), f"{accepted} of {len(frame)}")
    return frame


def main_mode(args):
    url = args.url
    admin = Client(url, args.token)
    define_metrics(admin, "home-hero")
    frame = run_experiment([url], args.token, args.users, args.seed)

    t = time.time()
    status, _, results = admin.json("GET", "/admin/experiments/home-hero/results")
    took = time.time() - t
    if not check("GET /admin/experiments/home-hero/results", status == 200, f"{status} in {took:.2f} s" + ("" if status == 200 else f" {results}")):
        return
    say(f"results: {json.dumps(results)[:400]}…")
    settings = results.get("settings", {})
    check("settings are the documented defaults", settings == {"alpha": 0.05, "sequentialTuning": 5000, "prior": {"mean": 0, "stddev": 0.1, "proper": False}},
          json.dumps(settings))
    check("control is the experiment's defaultVariant", results.get("control") == "control", f"{results.get('control')}")
    by_metric = compare_results("home-hero", results, frame, "home-hero", ["control", "big"], [0.5, 0.5])

    # The known effect is found, and nothing unbalanced is flagged.
    pr = next((v for v in by_metric.get("purchase-rate", {}).get("variants", []) if v.get("variant") == "big"), {})
    rel = pr.get("relative") or {}
    lift, p = rel.get("lift"), rel.get("pValue")
    if args.users >= 20000:
        check("the planted +10 % conversion is found (purchase-rate relative lift 0.05–0.15, p < 0.001)",
              lift is not None and 0.05 <= lift <= 0.15 and p is not None and p < 0.001, f"lift {lift}, p {p}, ci {rel.get('ci')}")
    else:
        check("the planted +10 % conversion is within purchase-rate's 95 % interval (--quick: too few users for p < 0.001)",
              rel.get("ci") is not None and rel["ci"][0] <= 0.10 <= rel["ci"][1], f"lift {lift}, p {p}, ci {rel.get('ci')}")
    srm = results.get("srm") or {}
    check("a 50/50 split is not flagged (srm.warning null, p ≥ 0.001)", srm.get("warning") is None and (srm.get("pValue") or 0) >= 0.001, json.dumps(srm))
    rpu = next((v for v in by_metric.get("revenue-per-user", {}).get("variants", []) if v.get("variant") == "big"), {})
    check("CUPED has something to do on revenue-per-user (cupedTheta > 0)", isinstance(rpu.get("cupedTheta"), (int, float)) and rpu["cupedTheta"] > 0,
          f"cupedTheta {rpu.get('cupedTheta')}")

    # The same data as of a time before everything: nobody counts.
    status, _, early = admin.json("GET", "/admin/experiments/home-hero/results?asOf=" + urllib.parse.quote(rfc3339(int(frame.ms.min()) - 1000)))
    check("?asOf before every exposure counts nobody", status == 200 and all(v.get("users") == 0 for v in (early or {}).get("variants", [])),
          f"{status} {json.dumps((early or {}).get('variants'))}")
    # A breakdown by platform answers.
    status, _, dim = admin.json("GET", "/admin/experiments/home-hero/results?dimension=platform")
    check("?dimension=platform answers 200", status == 200, f"{status}")

    # POST /admin/analysis with the statistics from the results answer: the same figures.
    for name, metric in METRICS.items():
        m = by_metric.get(name)
        if not m:
            continue
        body = {"type": metric["type"], "higherIsBetter": metric.get("higherIsBetter", True), "alpha": settings.get("alpha"),
                "sequentialTuning": settings.get("sequentialTuning"), "prior": settings.get("prior"), "variants": []}
        for v in m["variants"]:
            s = v["statistics"]
            entry = {"name": v["variant"], "weight": 50, "users": s["users"], "sum": s["sum"], "sumSquares": s["sumSquares"]}
            for extra in ("denominator", "covariate"):
                if extra in s:
                    entry[extra] = s[extra]
            body["variants"].append(entry)
        status, _, answer = admin.json("POST", "/admin/analysis", body)
        problems = []
        if status == 200:
            diff_tree("variants", answer.get("variants"), m["variants"], problems)
            diff_tree("srm", answer.get("srm"), results.get("srm"), problems)
        check(f"POST /admin/analysis on {name}'s statistics gives the results' figures", status == 200 and not problems,
              f"{status}" + (f" {str(answer)[:300]}" if status != 200 else " ") + "; ".join(problems[:4]))

    refused_ids = refusals(url)

    # SRM planted: a new experiment, 52/48 exposures under 50/50 weights.
    srm_experiment(admin, url, args.seed)

    # Export: every tracked event, once.
    export_check(admin, frame, refused_ids)


def srm_experiment(admin, url, seed):
    status, _, answer = admin.json("POST", "/admin/experiments", {
        "key": "srm-check", "variants": {"control": 50, "treatment": 50}, "description": "planted 52/48 (scripts/check-experiments)",
        "goals": ["purchase-rate"]})
    if not check("POST /admin/experiments srm-check with goals", status == 201, f"{status}" + ("" if status == 201 else f" {answer}")):
        return
    rng = random.Random(seed + 1)
    nonce = os.urandom(3).hex()
    now_ms = int(time.time() * 1000)
    events = []
    n = 20000
    for i in range(n):
        variant = "control" if i < n * 0.52 else "treatment"
        user = f"srm{seed}-{nonce}-u{i}"
        t = now_ms - rng.randint(60_000, 3_600_000)
        events.append({"id": f"srm{seed}-{nonce}-e{i}", "timestamp": rfc3339(t), "context": {"targetingKey": user},
                       "exposure": {"experiment": "srm-check", "variant": variant}})
    rng.shuffle(events)
    statuses = send([url], [encode(events[i:i + 100], ndjson=bool(i % 200)) for i in range(0, n, 100)])
    check("srm-check: 20,000 exposures, 52/48, all 202", all(s[0] == 202 for s in statuses))
    status, _, results = admin.json("GET", "/admin/experiments/srm-check/results")
    srm = (results or {}).get("srm") or {}
    want = check_srm([int(n * 0.52), n - int(n * 0.52)], [0.5, 0.5])
    check("srm-check: srm.warning raised for a planted 52/48 split", status == 200 and bool(srm.get("warning")) and close(srm.get("pValue"), want),
          f"{status} srm {json.dumps(srm)}, gbstats p {want!r}")


def refusals(url):
    """Batches the contract refuses whole: 422 with every mistake by index and path, 400, 413, 415.
    Returns the ids of the valid events in them, which must never be stored."""
    client = Client(url)
    now = int(time.time() * 1000)
    good = {"id": "refused-good-1", "timestamp": rfc3339(now - 1000), "context": {"targetingKey": "refused-u"}, "name": "purchase", "value": 1}
    batch = [
        good,
        {"id": "refused-2", "context": {"targetingKey": "refused-u"}, "exposure": {"experiment": "home-hero", "variant": "no-such-variant"}},
        {"id": "refused-3", "timestamp": rfc3339(now - 8 * 86400 * 1000), "context": {"targetingKey": "refused-u"}, "name": "purchase"},
        {"id": "refused-4", "timestamp": rfc3339(now + 3600 * 1000), "context": {"targetingKey": "refused-u"}, "name": "purchase"},
    ]
    status, _, answer = client.json("POST", "/v1/events", batch)
    errors = (answer or {}).get("errors", []) if isinstance(answer, dict) else []
    indexes = sorted({e.get("index") for e in errors})
    paths = [e.get("path") for e in errors]
    check("a batch with mistakes is refused whole: 422 naming each bad event's index and path",
          status == 422 and indexes == [1, 2, 3] and "$[1].exposure.variant" in paths, f"{status} indexes {indexes} paths {paths}")
    good2 = dict(good, id="refused-good-2")
    status, _, _ = client.request("POST", "/v1/events", b'[{"id": "x",', {"Content-Type": "application/json"})
    check("a body that is not JSON: 400", status == 400, f"{status}")
    status, _, _ = client.request("POST", "/v1/events", json.dumps([dict(good2, id=f"refused-many-{i}") for i in range(1001)]),
                                  {"Content-Type": "application/json"})
    check("1,001 events in a batch: 413", status == 413, f"{status}")
    status, _, _ = client.request("POST", "/v1/events", json.dumps([good2]), {"Content-Type": "text/plain"})
    check("text/plain: 415", status == 415, f"{status}")
    return {"refused-good-1", "refused-good-2"} | {f"refused-many-{i}" for i in range(1001)}


def export_all(client, limit=10000):
    """Every exported event (Next-After paging), and the pages' count."""
    lines, after, pages = [], None, 0
    while True:
        path = f"/admin/events/export?limit={limit}" + (f"&after={urllib.parse.quote(after)}" if after else "")
        status, head, data = client.request("GET", path)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {data[:300]!r}")
        pages += 1
        page = [json.loads(l) for l in data.decode().splitlines() if l.strip()]
        lines += page
        after = head.get("next-after")
        if not after:
            return lines, pages
        if pages > 100000:
            raise RuntimeError("export does not end")


def export_check(admin, frame, refused_ids=frozenset()):
    tracked = set(frame[frame.kind != "exposure"].id)
    t = time.time()
    try:
        exported, pages = export_all(admin, limit=10000)
    except RuntimeError as e:
        check("GET /admin/events/export pages through every tracked event", False, str(e))
        return
    ids = [e.get("id") for e in exported]
    mine = [i for i in ids if i in tracked]
    extra = set(ids) - tracked
    check("GET /admin/events/export pages through every tracked event once (Next-After)",
          len(mine) == len(set(mine)) == len(tracked),
          f"{len(ids)} exported in {pages} pages ({time.time() - t:.1f} s); distinct tracked ids sent {len(tracked)}, "
          f"exported {len(set(mine))}, exported twice {len(mine) - len(set(mine))}, not sent {len(extra - set())}")
    stored = refused_ids & set(ids)
    check("no event of a refused batch was stored", not stored, f"stored: {sorted(stored)[:5]}")
    sample = next((e for e in exported if e.get("id") in tracked), None)
    if sample:
        row = frame[frame.id == sample["id"]].iloc[0]
        ok = sample.get("name") == row.kind and parse_time(sample.get("timestamp", "1970-01-01T00:00:00Z")) == row.ms
        check("an exported event carries its name and timestamp", ok, json.dumps(sample)[:300])


def crash_mode(args):
    """kill -9 while batches arrive; after a restart, every acknowledged event is in the export."""
    port = args.port
    url = f"http://127.0.0.1:{port}"

    def start():
        p = subprocess.Popen([args.bin, "serve", "--config", args.config, "--host", "127.0.0.1", "--port", str(port),
                              "--data-dir", args.data, "--set", "accessLog=false"],
                             stdout=open(args.data + ".log", "ab"), stderr=open(args.data + ".err", "ab"))
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if Client(url).request("GET", "/readyz", timeout=2)[0] == 200:
                    return p
            except OSError:
                pass
            if p.poll() is not None:
                raise RuntimeError(f"the server exited ({p.returncode}); see {args.data}.err")
            time.sleep(0.1)
        raise RuntimeError("the server did not get ready")

    server = start()
    acked, lock, stop = [], threading.Lock(), threading.Event()
    attempted = [0]
    now_ms = int(time.time() * 1000)

    def sender(k):
        client = Client(url)
        i = 0
        while not stop.is_set():
            i += 1
            ids = [f"crash-{k}-{i}-{j}" for j in range(100)]
            events = [{"id": e, "timestamp": rfc3339(now_ms - 1000), "context": {"targetingKey": f"crash-u{k}-{j}"},
                       "name": "purchase", "value": 1.5} for j, e in enumerate(ids)]
            with lock:
                attempted[0] += 1
            try:
                status, _, _ = client.request("POST", "/v1/events", json.dumps(events), {"Content-Type": "application/json"}, timeout=10)
            except Exception:  # refused, reset, cut short: not acknowledged
                client.close()
                time.sleep(0.05)
                continue
            if status == 202:
                with lock:
                    acked.extend(ids)

    threads = [threading.Thread(target=sender, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    time.sleep(args.seconds)
    with lock:
        before_kill = len(acked)
    server.send_signal(signal.SIGKILL)
    server.wait()
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join()
    say(f"kill -9 after {args.seconds} s: {len(acked)} events acknowledged in {len(acked) // 100} batches (of {attempted[0]} attempted)")
    check("kill -9 during ingest: batches were acknowledged before the kill", before_kill > 0, f"{before_kill} events")
    server = start()
    try:
        exported, pages = export_all(Client(url, args.token), limit=100000)
        have = set(e.get("id") for e in exported)
        lost = [i for i in acked if i not in have]
        check("after kill -9 and a restart on the same data directory, every acknowledged event is in the export",
              not lost, f"{len(acked)} acknowledged, {len(have)} exported, {len(lost)} lost" + (f" e.g. {lost[:3]}" if lost else ""))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()


def replicas_mode(args):
    urls = args.urls
    admin = Client(urls[0], args.token)
    define_metrics(admin, "home-hero")
    # Every replica sees the metrics and the goals (the runtime store is shared through PostgreSQL).
    deadline = time.time() + 30
    for u in urls[1:]:
        c = Client(u, args.token)
        while True:
            status, _, answer = c.json("GET", "/admin/experiments/home-hero")
            if status == 200 and answer.get("goals") == GOALS or time.time() > deadline:
                break
            time.sleep(0.2)
        check(f"replica {u} sees home-hero's goals", status == 200 and answer.get("goals") == GOALS, f"{status} {answer.get('goals') if isinstance(answer, dict) else answer}")
    frame = run_experiment(urls, args.token, args.users, args.seed, label="replicas")
    as_of = rfc3339(int(time.time() * 1000))
    answers = []
    for u in urls:
        status, _, results = Client(u, args.token).json("GET", "/admin/experiments/home-hero/results?asOf=" + urllib.parse.quote(as_of))
        check(f"GET …/results?asOf from replica {u}", status == 200, f"{status}" + ("" if status == 200 else f" {results}"))
        answers.append(results)
    if all(isinstance(a, dict) for a in answers):
        same = all(json.dumps(a, sort_keys=True) == json.dumps(answers[0], sort_keys=True) for a in answers[1:])
        detail = ""
        if not same:
            problems = []
            for a in answers[1:]:
                diff_tree("results", a, answers[0], problems)
            detail = "; ".join(problems[:5])
        check(f"the {len(urls)} replicas' results are identical (statistics and figures, byte for byte as JSON)", same, detail)
        compare_results("replicas (PostgreSQL)", answers[0], frame, "home-hero", ["control", "big"], [0.5, 0.5])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["main", "crash", "replicas"])
    parser.add_argument("rest", nargs="*")
    parser.add_argument("--users", type=int, default=50000)
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--checks")
    parser.add_argument("--token")
    parser.add_argument("--port", type=int)
    parser.add_argument("--seconds", type=float, default=4)
    args = parser.parse_args()
    harness.record_checks(args.checks)
    try:
        if args.mode == "main":
            args.url, args.token = args.rest
            main_mode(args)
        elif args.mode == "crash":
            args.bin, args.config, args.data = args.rest
            crash_mode(args)
        else:
            args.urls = args.rest
            replicas_mode(args)
    except Exception as error:  # a crash of the check (or an answer it could not read) is a failure too
        import traceback
        traceback.print_exc()
        check(f"{args.mode}: ran to the end", False, f"{type(error).__name__}: {error}")
    sys.exit(1 if harness.failed() else 0)


if __name__ == "__main__":
    main()
