#!/usr/bin/env python3
"""Run by scripts/faults-check --skew on the hosts scripts/faults made. The requirement: "A clock
skewed by ±10 minutes on one of three replicas: a schedule step is applied once, at its time by
the database's clock (±2 s), whichever replica holds the lease."

r2 runs 10 minutes ahead and r3 10 minutes behind (scripts/faults-clock.c: the replica's wall clock alone; this
checker and the database read the machine's clock). Two runs, one for each skewed replica:
  1. it is made the one that applies the step: the two others are stopped (SIGTERM: they drain
     and give their leases up) until the store's lease table names it holder of a lease whose name
     says schedule, then started again with their clocks. Where the server has no such lease —
     every replica runs the scheduler and the store's compare-and-set lets one make each step —
     the others stay stopped until the step has been seen, so the skewed replica alone can make
     it; the lease table is printed;
  2. a step of the rollout gold-banner from 0 % to 100 % is scheduled 20 s ahead by the database's
     clock, through r1 (or through the skewed replica while the others are stopped: it must judge
     "in the future" by the database's clock too);
  3. the public state is read through the balancer every 100 ms (OFREP: the flag gold-banner for
     one user, false before the step and true after it), by the machine's clock;
  4. checked: the audit log has exactly one `rollout.schedule` entry, and the balancer first
     answered true within ±2 s of the step's time, and went on doing so.
Exits 1 when a run fails.
"""
import argparse, datetime, json, math, re, subprocess, sys, time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from importlib import import_module

check = import_module("faults-check")  # request(), REPLICAS, BALANCER, ROLLOUT
SKEWS = {"r1": 0, "r2": 600, "r3": -600}
LEASE = re.compile("sched", re.IGNORECASE)  # the scheduler's lease, by whatever name it will have


def faults(args, *command):
    subprocess.run([args.faults, *command], check=True)


def sql(args, query):
    primary = open(f"{args.state}/primary").read().strip()
    address = {"db": "10.77.0.10", "db2": "10.77.0.14"}[primary]
    result = subprocess.run(["psql", "-X", "-At", "-F", "|", "-h", address, "-U", "trellis", "-d", "trellis", "-c", query],
                            check=True, capture_output=True, text=True)
    return [line.split("|") for line in result.stdout.splitlines() if line]


def leases(args):
    """{lease name: replica holding it (or the holder as stored)}, of leases not yet run out by
    the database's clock or by the holder's own (stored by the holder: today its own clock)."""
    rows = sql(args, "SELECT name, holder, expires_at, extract(epoch FROM clock_timestamp()) FROM lease ORDER BY name")
    held = {}
    for name, holder, expires, now in rows:
        replica = re.search(r"/(r[123])$", holder)
        held[name] = (replica.group(1) if replica else holder, float(expires) - float(now))
    return held


def describe(held):
    return ", ".join(f"{name} → {holder} (runs out in {left:+.0f} s by the database's clock)"
                     for name, (holder, left) in held.items()) or "none"


def scheduling_holder(held):
    return next((holder for name, (holder, _) in held.items() if LEASE.search(name)), None)


def take_lease(args, holder):
    """Stops the other replicas until `holder` holds the scheduling lease (or 3 s show there is no
    such lease, or 40 s pass), then starts them again — unless there is no such lease: then they
    stay stopped (start_others starts them). Returns the leases."""
    for other in others_of(holder):
        faults(args, "stop", other)
    started, held = time.monotonic(), {}
    while time.monotonic() - started < 40:
        held = leases(args)
        if scheduling_holder(held) == holder or (scheduling_holder(held) is None and time.monotonic() - started > 3):
            break
        time.sleep(0.5)
    if scheduling_holder(held) is not None:
        start_others(args, holder)
    return held


def others_of(holder):
    return [r for r in SKEWS if r != holder]


def start_others(args, holder):
    for other in others_of(holder):
        faults(args, "start", other, *(["--skew", str(SKEWS[other])] if SKEWS[other] else []))


def rfc3339(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def stamp(entry):
    return datetime.datetime.fromisoformat(entry["at"].replace("Z", "+00:00")).timestamp()


def flag(user):
    status, _, body = check.request("POST", f"{check.BALANCER}/ofrep/v1/evaluate/flags/{check.ROLLOUT}",
                                    body={"context": {"targetingKey": user}}, timeout=1)
    return body.get("value") if status == 200 and isinstance(body, dict) else None


def one_run(args, holder):
    print(f"run: {holder} (clock {SKEWS[holder]:+d} s) to hold the scheduling lease")
    held = take_lease(args, holder)
    others = " and ".join(others_of(holder))
    alone = scheduling_holder(held) is None
    if alone:
        print(f"  {others} stopped (SIGTERM) until the step has been seen; leases: {describe(held)}; none is the "
              f"scheduler's: every replica runs it and the store lets one make each step, so {holder} alone makes this one")
    else:
        print(f"  {others} stopped (SIGTERM) and started again; leases: {describe(held)}")
    writer = check.REPLICAS[holder] if alone else check.REPLICAS["r1"]

    since = check.audit_request(args.token, "limit=1")["next"]
    database = float(sql(args, "SELECT extract(epoch FROM clock_timestamp())")[0][0])
    offset = time.time() - database
    at = math.ceil(database + args.ahead)
    status, _, body = check.request("PUT", f"{writer}/admin/rollouts/{check.ROLLOUT}", args.token,
                                    {"percentage": 0, "schedule": [{"at": rfc3339(at), "percentage": 100}]})
    if status != 200:
        print(f"  the schedule was refused: {status} {body}")
        if alone:
            start_others(args, holder)
        return False
    print(f"  step to 100 % at {rfc3339(at)}: {at - time.time():.1f} s ahead by the database's clock "
          f"(this machine's clock is {offset:+.3f} s from it); read through the balancer every 100 ms")

    seen, holder_at_step = [], None
    while True:
        now = time.time()
        seen.append((now, flag("skew-check")))
        if holder_at_step is None and now >= at:
            holder_at_step = describe(leases(args))
        first = next((t for t, value in seen if value is True), None)
        if now > at + args.window or (first is not None and now > max(at + 3, first + 1)):
            break
        time.sleep(max(0, 0.1 - (time.time() - now)))
    check.request("PUT", f"{writer}/admin/rollouts/{check.ROLLOUT}", args.token, {"schedule": []})
    if alone:
        start_others(args, holder)

    applied = [e for e in check.audit(args.token, since) if e["action"] == "rollout.schedule"]
    first = next((t for t, value in seen if value is True), None)
    after = [value for t, value in seen if first is not None and t >= first]
    problems = []
    if len(applied) != 1:
        problems.append(f"applied {len(applied)} times, not once")
    if first is None:
        problems.append(f"not seen applied within {args.window:.0f} s after its time")
    elif abs(first - at) > 2:
        problems.append(f"seen applied {abs(first - at):.1f} s {'before' if first < at else 'after'} its time, not within ±2 s")
    if first is not None and not all(after):
        problems.append("seen applied, then not")
    print(f"  leases at the step's time: {holder_at_step or 'not read'}")
    print(f"  audit: {len(applied)} rollout.schedule entr{'y' if len(applied) == 1 else 'ies'}"
          + "".join(f"; stamped {e['at']}, {stamp(e) - at:+.1f} s from the step's time" for e in applied))
    print(f"  first seen through the balancer: "
          + (f"{first - at:+.1f} s from its time ({len(seen)} reads)" if first is not None else f"never ({len(seen)} reads)"))
    print(f"  {'FAIL: ' + '; '.join(problems) if problems else 'ok'}")
    return not problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--token", required=True)
    parser.add_argument("--faults", required=True, help="scripts/faults")
    parser.add_argument("--state", required=True, help="scripts/faults's state directory")
    parser.add_argument("--ahead", type=float, default=20, help="seconds between scheduling the step and its time")
    parser.add_argument("--window", type=float, default=8, help="seconds to watch for it after its time")
    args = parser.parse_args()

    print("skew: r2 10 minutes ahead, r3 10 minutes behind (their wall clocks), r1 right")
    for replica in ("r2", "r3"):
        faults(args, "start", replica, "--skew", str(SKEWS[replica]))
    try:
        results = [one_run(args, holder) for holder in ("r2", "r3")]
    finally:
        for replica in ("r2", "r3"):
            faults(args, "start", replica)
    failed = results.count(False)
    print(f"skew: {'FAIL' if failed else 'ok'}: {len(results) - failed} of {len(results)} runs ok")
    if failed:
        print("  A step must be applied once, at its time by the database's clock (±2 s), whichever replica makes it.")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
