#!/usr/bin/env python3
"""Run by scripts/faults-check on the hosts scripts/faults made: a workload of concurrent If-Match
writes through every replica and screen reads through the balancer, a fault in the middle of it,
then the recorded history checked against the audit log.

Each write sets the rollout `gold-banner` to a percentage no other write uses, after reading the
rollout (its value and ETag) from the same replica, so every audit entry names the write that
made it and the state it was made over. The history is checked:
  - every acknowledged write (2xx) is in the audit log once;
  - no write answered as failed (4xx but 412, 5xx before the server could have committed) is in it;
  - the audit log is a chain (each entry's `before` is the previous entry's `after`), and each
    write's entry was made over the state that write read: a write applied over another it did not
    read is a lost update;
  - a 412 names a version another write produced;
  - once healed, every replica serves the last entry's value within 5 s.
Writes whose outcome the client cannot know (a timeout, a connection cut after the request was
sent, a 503 naming an unknown outcome) may be in the log or not; they are counted.
"""
import argparse, json, random, sys, threading, time, urllib.error, urllib.request

REPLICAS = {"r1": "http://10.77.0.11:8080", "r2": "http://10.77.0.12:8080", "r3": "http://10.77.0.13:8080"}
BALANCER = "http://10.77.0.20:8080"
ROLLOUT = "gold-banner"


def request(method, url, token=None, body=None, headers=None, timeout=5):
    """(status, headers, parsed body), or (None, None, reason) when no answer came."""
    req = urllib.request.Request(url, method=method, headers=dict(headers or {}))
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        req.data = json.dumps(body).encode()
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            data = response.read()
            return response.status, dict(response.headers), json.loads(data) if data else None
    except urllib.error.HTTPError as error:
        data = error.read()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data.decode(errors="replace")
        return error.code, dict(error.headers), parsed
    except Exception as error:  # a timeout, a reset, a refused connection
        return None, None, f"{type(error).__name__}: {error}"


class History:
    def __init__(self):
        self.lock = threading.Lock()
        self.writes, self.reads = [], []
        self.next_value = 1

    def value(self):
        with self.lock:
            value = self.next_value
            self.next_value += 1
        return round(value / 100, 2)  # 0.01, 0.02, …: unique, a valid percentage


def writer(history, token, stop, name, if_match=True):
    rng = random.Random(name)
    while not stop.is_set():
        replica = rng.choice(list(REPLICAS))
        status, headers, current = request("GET", f"{REPLICAS[replica]}/admin/rollouts/{ROLLOUT}", token)
        if status != 200:
            time.sleep(0.05)
            continue
        value = history.value()
        started = time.monotonic()
        status, answer_headers, body = request(
            "PUT", f"{REPLICAS[replica]}/admin/rollouts/{ROLLOUT}", token, {"percentage": value},
            {"If-Match": headers["ETag"]} if if_match else {})
        outcome = ("ok" if status and 200 <= status < 300 else "conflict" if status == 412
                   else "unknown" if status is None or status in (503, 504) else "failed")
        with history.lock:
            history.writes.append(dict(replica=replica, value=value, read=current["percentage"], etag=headers["ETag"],
                                       status=status, outcome=outcome, started=started, ended=time.monotonic(),
                                       detail=body if outcome != "ok" else None))


def reader(history, stop):
    while not stop.is_set():
        started = time.monotonic()
        status, _, _ = request("GET", f"{BALANCER}/v1/screens/home?user=u{random.randrange(1000)}", timeout=3)
        with history.lock:
            history.reads.append((started, status))
        time.sleep(0.02)


def watch(since, seconds, condition, every=False):
    """Seconds after `since` until `condition` holds of a replica's /readyz store (of every
    replica with `every`), or None within `seconds`."""
    while time.monotonic() - since < seconds:
        stores = [(request("GET", f"{url}/readyz", timeout=1)[2] or {}) for url in REPLICAS.values()]
        stores = [s.get("store", {}) if isinstance(s, dict) else {} for s in stores]
        if (all if every else any)(condition(store) for store in stores):
            return time.monotonic() - since
        time.sleep(0.2)
    return None


def audit_end(token, replica="r2"):
    """The id of the newest audit entry of the rollout: where this run's history starts."""
    status, _, body = request("GET", f"{REPLICAS[replica]}/admin/audit?resource=rollouts/{ROLLOUT}&limit=1", token, timeout=10)
    if status != 200:
        raise SystemExit(f"the audit log did not answer: {status} {body}")
    return body["next"]


def audit(token, since, replica="r2"):
    # Without `after` the newest page comes; with it, the entries after an id, oldest first.
    entries, cursor = [], since
    while True:
        url = f"{REPLICAS[replica]}/admin/audit?resource=rollouts/{ROLLOUT}&limit=500&after={cursor}"
        status, _, body = request("GET", url, token, timeout=10)
        if status != 200:
            raise SystemExit(f"the audit log did not answer: {status} {body}")
        entries += body["entries"]
        # `next` is always there: the last id, the `after` of a poll for newer ones.
        if len(body["entries"]) < 500:
            return sorted(entries, key=lambda e: e["id"])
        cursor = body["next"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--token", required=True)
    parser.add_argument("--faults", required=True, help="scripts/faults")
    parser.add_argument("--fault", required=True, help="what to break, as scripts/faults's arguments")
    parser.add_argument("--heal", required=True, help="how to heal it, as scripts/faults's arguments")
    parser.add_argument("--writers", type=int, default=6)
    parser.add_argument("--before", type=float, default=5)
    parser.add_argument("--during", type=float, default=15)
    parser.add_argument("--after", type=float, default=8)
    parser.add_argument("--plant-lost-update", action="store_true",
                        help="writers send no If-Match: writes land over others they did not read, which the check must find")
    args = parser.parse_args()
    import shlex, subprocess

    history, stop = History(), threading.Event()
    since = audit_end(args.token)
    threads = [threading.Thread(target=writer, args=(history, args.token, stop, f"w{i}", not args.plant_lost_update))
               for i in range(args.writers)]
    threads += [threading.Thread(target=reader, args=(history, stop)) for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(args.before)
    broken = time.monotonic()
    subprocess.run([args.faults] + shlex.split(args.fault), check=True)
    detected = watch(broken, args.during, lambda store: not store.get("reachable", True))
    time.sleep(max(0, args.during - (time.monotonic() - broken)))
    subprocess.run([args.faults] + shlex.split(args.heal), check=True)
    healed = time.monotonic()
    reconnected = watch(healed, args.after, lambda store: store.get("reachable") is True, every=True)
    time.sleep(max(0, args.after - (time.monotonic() - healed)))
    stop.set()
    for thread in threads:
        thread.join()

    problems = []
    entries = [e for e in audit(args.token, since) if e["action"] == "rollout.update" and e["actor"] == "faults"]
    by_value = {}
    for entry in entries:
        by_value.setdefault(entry["after"]["percentage"], []).append(entry)
    writes = {w["value"]: w for w in history.writes}
    counts = {outcome: sum(1 for w in history.writes if w["outcome"] == outcome) for outcome in ("ok", "conflict", "failed", "unknown")}
    for value, write in sorted(writes.items()):
        applied = by_value.get(value, [])
        if len(applied) > 1:
            problems.append(f"write {value} applied {len(applied)} times")
        if write["outcome"] == "ok" and not applied:
            problems.append(f"write {value} acknowledged by {write['replica']} ({write['status']}) is not in the audit log: lost")
        if write["outcome"] in ("failed", "conflict") and applied:
            problems.append(f"write {value} answered {write['status']} by {write['replica']} was applied: {write['detail']}")
        for entry in applied:
            if entry["before"]["percentage"] != write["read"]:
                problems.append(f"write {value} was made over {write['read']} but applied over {entry['before']['percentage']}: a lost update")
    unknown_applied = sum(1 for w in history.writes if w["outcome"] == "unknown" and by_value.get(w["value"]))
    for previous, entry in zip(entries, entries[1:]):
        if entry["before"]["percentage"] != previous["after"]["percentage"]:
            problems.append(f"audit {entry['id']} was made over {entry['before']['percentage']}, not over {previous['after']['percentage']} (audit {previous['id']})")
    foreign = [v for v in by_value if v not in writes]
    if foreign:
        problems.append(f"the audit log has values no write sent: {foreign[:5]}")

    # Every replica serves the last value, within 5 s of the workload's end.
    final = entries[-1]["after"]["percentage"] if entries else None
    ended, converged = time.monotonic(), None
    while time.monotonic() - ended < 5:
        values = {name: (request("GET", f"{url}/admin/rollouts/{ROLLOUT}", args.token)[2] or {}).get("percentage") for name, url in REPLICAS.items()}
        if all(v == final for v in values.values()):
            converged = time.monotonic() - ended
            break
        time.sleep(0.1)
    if converged is None:
        problems.append(f"5 s after the workload, the replicas serve {values}, not the last value {final}")

    failed_reads = [(t - broken, s) for t, s in history.reads if s != 200]
    print(f"fault: {args.fault}; healed by: {args.heal}")
    print(f"writes: {len(history.writes)}: acknowledged {counts['ok']}, conflicts (412) {counts['conflict']}, failed {counts['failed']}, "
          f"unknown {counts['unknown']} ({unknown_applied} of them applied); audit entries {len(entries)}")
    print(f"reads through the balancer: {len(history.reads)}, failed {len(failed_reads)}"
          + (f" (from {min(t for t, _ in failed_reads):.1f} s to {max(t for t, _ in failed_reads):.1f} s after the fault)" if failed_reads else ""))
    print(f"a replica reported the store unreachable: {'%.1f s after the fault' % detected if detected is not None else 'never, during the fault'}")
    print(f"every replica reached the store again: {'%.1f s after healing' % reconnected if reconnected is not None else 'not within %.0f s' % args.after}")
    print(f"every replica served the last value: {'%.2f s after the workload' % converged if converged is not None else 'no'}")
    for outcome in ("failed", "unknown"):
        for write in [w for w in history.writes if w["outcome"] == outcome][:3]:
            print(f"  e.g. {outcome}: {write['replica']} {write['status']} after {write['ended'] - write['started']:.2f} s: {str(write['detail'])[:160]}")
    print(f"problems: {len(problems)}")
    for problem in problems[:20]:
        print(f"  {problem}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
