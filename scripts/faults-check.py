#!/usr/bin/env python3
"""Run by scripts/faults-check on the hosts scripts/faults made: a workload of concurrent If-Match
writes through every replica and screen reads through the balancer, a fault in the middle of it,
then the recorded history checked against the audit log.

Each write sets the rollout `gold-banner` to a percentage no other write uses, after reading the
rollout (its value and ETag) from the same replica, so every audit entry names the write that
made it and the state it was made over. The history is checked:
  - every acknowledged write (2xx) is in the audit log once (those acknowledged before the fault
    are counted apart: after a failover they must be on the new primary);
  - no write answered as failed (4xx but 412, 5xx before the server could have committed) is in it;
  - the audit log is a chain (each entry's `before` is the previous entry's `after`), and each
    write's entry was made over the state that write read: a write applied over another it did not
    read is a lost update;
  - once healed, every replica serves the last entry's value within 5 s.
Writes whose outcome the client cannot know (no answer in 20 s, a connection cut after the request
was sent, a 503 whose problem says `"outcome": "unknown"`) may be in the log or not; they are
counted. A 503 that says `"outcome": "not-made"` is a failed write: it must not be in the log.

What it measured: the writes' outcomes (all, and those made during the fault), how long the
acknowledged ones took, the longest time without one; when something first noticed the fault (a
replica's /readyz saying the store is unreachable or not answering, HAProxy marking a replica
down: both watched every 0.2 s); and how long after healing began everything was well again: every
replica reaching the store, in HAProxy's rotation and acknowledging a write.
"""
import argparse, json, random, shlex, socket, subprocess, sys, threading, time, urllib.error, urllib.request

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


WRITE_TIMEOUT = 20


def classify(status, body):
    """A write's outcome as its answer says: a 503 whose problem says `"outcome": "not-made"`
    failed (and must not be applied); one that says `unknown`, any other 503 or 504, and no answer
    at all are unknown."""
    if status and 200 <= status < 300:
        return "ok"
    if status == 412:
        return "conflict"
    if status == 503 and isinstance(body, dict) and body.get("outcome") == "not-made":
        return "failed"
    return "unknown" if status is None or status in (503, 504) else "failed"


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
        # Longer than a replica takes to give up on a silent database (its 10 s tcp_user_timeout,
        # then a 3 s connect), so that its own answer, not the client's patience, is recorded.
        status, answer_headers, body = request(
            "PUT", f"{REPLICAS[replica]}/admin/rollouts/{ROLLOUT}", token, {"percentage": value},
            {"If-Match": headers["ETag"]} if if_match else {}, timeout=WRITE_TIMEOUT)
        outcome = classify(status, body)
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


def haproxy_states(path):
    """HAProxy's state of each replica ("UP", "DOWN", "UP 1/2", …), from its stats socket."""
    try:
        with socket.socket(socket.AF_UNIX) as connection:
            connection.settimeout(1)
            connection.connect(path)
            connection.sendall(b"show stat\n")
            data = b""
            while chunk := connection.recv(65536):
                data += chunk
    except OSError:
        return {"lb": "not answering"}
    lines = data.decode().splitlines()
    fields = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(fields, line.split(","))) for line in lines[1:] if line]
    return {row["svname"]: row["status"] for row in rows if row["pxname"] == "replicas" and row["svname"] in REPLICAS}


def watch(stop, samples, haproxy_socket):
    """Every 0.2 s, what is wrong: a replica not answering /readyz or saying its store is
    unreachable, HAProxy holding a replica down."""
    while not stop.is_set():
        now, wrong = time.monotonic(), set()
        for name, url in REPLICAS.items():
            status, _, body = request("GET", f"{url}/readyz", timeout=1)
            store = body.get("store", {}) if isinstance(body, dict) else {}
            if status is None:
                wrong.add(f"{name} not answering")
            elif store.get("reachable") is False:
                wrong.add(f"{name}'s store unreachable")
        for name, state in haproxy_states(haproxy_socket).items():
            if state.startswith(("DOWN", "MAINT", "not")):
                wrong.add(f"HAProxy: {name} {state}")
        samples.append((now, frozenset(wrong)))
        time.sleep(max(0, 0.2 - (time.monotonic() - now)))


def audit_request(token, query):
    """An audit page from whichever replica answers first."""
    for url in REPLICAS.values():
        status, _, body = request("GET", f"{url}/admin/audit?resource=rollouts/{ROLLOUT}&{query}", token, timeout=10)
        if status == 200:
            return body
    raise SystemExit(f"the audit log did not answer on any replica: {status} {body}")


def audit(token, since):
    # Without `after` the newest page comes; with it, the entries after an id, oldest first.
    entries, cursor = [], since
    while True:
        body = audit_request(token, f"limit=500&after={cursor}")
        entries += body["entries"]
        # `next` is always there: the last id, the `after` of a poll for newer ones.
        if len(body["entries"]) < 500:
            return sorted(entries, key=lambda e: e["id"])
        cursor = body["next"]


def run(command, faults):
    if command:
        subprocess.run([faults] + shlex.split(command), check=True)


def seconds(value, suffix=" s"):
    return "—" if value is None else f"{value:.1f}{suffix}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--token", required=True)
    parser.add_argument("--faults", required=True, help="scripts/faults")
    parser.add_argument("--state", required=True, help="scripts/faults's state directory (HAProxy's stats socket)")
    parser.add_argument("--fault", required=True, help="what to break, as scripts/faults's arguments ('' for nothing)")
    parser.add_argument("--heal", required=True, help="how to heal it, as scripts/faults's arguments")
    parser.add_argument("--writers", type=int, default=6)
    parser.add_argument("--before", type=float, default=5)
    parser.add_argument("--during", type=float, default=15)
    parser.add_argument("--after", type=float, default=8)
    parser.add_argument("--plant-lost-update", action="store_true",
                        help="writers send no If-Match: writes land over others they did not read, which the check must find")
    args = parser.parse_args()

    history, stop, samples = History(), threading.Event(), []
    since = audit_request(args.token, "limit=1")["next"]
    threads = [threading.Thread(target=writer, args=(history, args.token, stop, f"w{i}", not args.plant_lost_update))
               for i in range(args.writers)]
    threads += [threading.Thread(target=reader, args=(history, stop)) for _ in range(2)]
    threads += [threading.Thread(target=watch, args=(stop, samples, f"{args.state}/lb.sock"))]
    for thread in threads:
        thread.start()
    time.sleep(args.before)
    broken = time.monotonic()
    run(args.fault, args.faults)
    time.sleep(max(0, args.during - (time.monotonic() - broken)))
    healing = time.monotonic()
    run(args.heal, args.faults)
    healed = time.monotonic()
    time.sleep(args.after)
    stop.set()
    for thread in threads:
        thread.join()
    ended = time.monotonic()

    # Every replica serves the audit log's last value within 5 s of the workload's end (a write
    # that waited for a lock may commit after its client gave up: the log is read again until the
    # replicas and the log agree, or 5 s have passed).
    problems, converged = [], None
    while True:
        entries = [e for e in audit(args.token, since) if e["action"] == "rollout.update" and e["actor"] == "faults"]
        final = entries[-1]["after"]["percentage"] if entries else None
        values = {name: (request("GET", f"{url}/admin/rollouts/{ROLLOUT}", args.token)[2] or {}).get("percentage") for name, url in REPLICAS.items()}
        if all(v == final for v in values.values()):
            converged = time.monotonic() - ended
            break
        if time.monotonic() - ended > 5:
            problems.append(f"5 s after the workload, the replicas serve {values}, not the audit log's last value {final}")
            break
        time.sleep(0.1)

    by_value = {}
    for entry in entries:
        by_value.setdefault(entry["after"]["percentage"], []).append(entry)
    writes = {w["value"]: w for w in history.writes}
    for value, write in sorted(writes.items()):
        applied = by_value.get(value, [])
        if len(applied) > 1:
            problems.append(f"write {value} applied {len(applied)} times")
        if write["outcome"] == "ok" and not applied:
            problems.append(f"write {value} acknowledged by {write['replica']} ({write['status']}) "
                            f"{write['ended'] - broken:+.1f} s from the fault is not in the audit log: lost")
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

    # What it measured.
    def counts(ws):
        return {o: sum(1 for w in ws if w["outcome"] == o) for o in ("ok", "conflict", "failed", "unknown")}
    everything, during = counts(history.writes), counts([w for w in history.writes if broken <= w["started"] < healing])
    acked = sorted((w for w in history.writes if w["outcome"] == "ok"), key=lambda w: w["ended"])
    before = [w for w in acked if w["ended"] < broken]
    lost_before = sum(1 for w in before if not by_value.get(w["value"]))
    took = sorted(w["ended"] - w["started"] for w in acked if broken <= w["started"] < healing)
    marks = [broken] + [w["ended"] for w in acked if w["ended"] >= broken] + [ended]
    gap, gap_from = max((b - a, a) for a, b in zip(marks, marks[1:]))
    noticed = next(((t - broken, wrong) for t, wrong in samples if t >= broken and wrong), None)
    # Well again: the first sample after healing began from which on nothing was wrong, and each
    # replica's first acknowledged write after it.
    well = None
    for t, wrong in samples:
        if t >= healing and not wrong and well is None:
            well = t
        elif wrong:
            well = None
    firsts = {name: next((w["ended"] - healing for w in acked if w["replica"] == name and w["started"] >= healing), None) for name in REPLICAS}
    if well is None or None in firsts.values():
        settled = None
    else:
        settled = max([well - healing] + list(firsts.values()))
    failed_reads = [(t - broken, s) for t, s in history.reads if s != 200]
    stuck = [name for name, t in firsts.items() if t is None]
    if args.heal and stuck:
        problems.append(f"{', '.join(stuck)} acknowledged no write in the {ended - healing:.0f} s after healing began")

    print(f"fault: {args.fault or 'none'}; healed by: {args.heal or 'nothing'} (took {healed - healing:.1f} s)")
    print(f"writes: {len(history.writes)}: acknowledged {everything['ok']}, conflicts (412) {everything['conflict']}, failed {everything['failed']}, "
          f"unknown {everything['unknown']} ({unknown_applied} of them applied); audit entries {len(entries)}")
    print(f"  during the fault: acknowledged {during['ok']}, conflicts {during['conflict']}, failed {during['failed']}, unknown {during['unknown']}; "
          f"acknowledged ones took median {seconds(took[len(took) // 2] if took else None)}, longest {seconds(took[-1] if took else None)}")
    print(f"  acknowledged before the fault: {len(before)}, missing from the audit log after it: {lost_before}")
    print(f"  longest time without an acknowledged write: {gap:.1f} s (from {gap_from - broken:.1f} s after the fault)")
    print(f"reads through the balancer: {len(history.reads)}, failed {len(failed_reads)}"
          + (f" (from {min(t for t, _ in failed_reads):.1f} s to {max(t for t, _ in failed_reads):.1f} s after the fault)" if failed_reads else ""))
    print(f"detected: {'%.1f s after the fault (%s)' % (noticed[0], ', '.join(sorted(noticed[1]))) if noticed else 'nothing noticed it'}")
    print(f"converged: {seconds(settled, ' s after healing began') if settled is not None else 'no'} "
          f"(nothing wrong from {seconds(well - healing if well else None)}; first write acknowledged by "
          + ", ".join(f"{n} at {seconds(t)}" for n, t in firsts.items()) + ")")
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
