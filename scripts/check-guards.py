"""Guards end to end on a fleet: replicas sharing one PostgreSQL, simulated apps, a webhook receiver.

Run by scripts/check-guards (which builds, starts PostgreSQL and the replicas with guards looking
every second); see its header for what is checked. Each check prints one line and is appended to
the file --checks names (scripts/harness.py).

    check-guards.py URL… --token ADMIN_TOKEN --checks FILE [--seed N]
"""
import argparse
import hashlib
import hmac
import http.client
import json
import random
import secrets
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import harness
from harness import Client, check, epoch_seconds, put_document, rfc3339, say

SCREEN = "home"
WAVE = 150            # users a wave, spread over the replicas
MAX_USERS = 30000     # a guard that has not halted by then has failed
HALT_WITHIN = 5.0     # seconds from the decision to every replica serving the previous revision


# ---- what the fleet hears: a webhook receiver and a change stream -----------------------------

class WebhookReceiver:
    """Receives deliveries on 127.0.0.1 and keeps each with whether its signature verified."""

    def __init__(self, secret):
        self.secret = secret.encode()
        self.deliveries = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                stamp = self.headers.get("X-Trellis-Timestamp", "")
                expected = "sha256=" + hmac.new(receiver.secret, stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
                signed = hmac.compare_digest(self.headers.get("X-Trellis-Signature", ""), expected)
                fresh = stamp.isdigit() and abs(time.time() - int(stamp)) < 300
                with receiver.lock:
                    receiver.deliveries.append({"event": self.headers.get("X-Trellis-Event"), "signed": signed and fresh,
                                                "body": json.loads(body), "received": time.time()})
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/trellis"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def of(self, event):
        with self.lock:
            return [d for d in self.deliveries if d["event"] == event]


class ChangeStream:
    """GET /v1/changes on one replica, every event kept with the time it arrived."""

    def __init__(self, url):
        parsed = urllib.parse.urlparse(url)
        self.events = []
        self.connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=300)
        self.connection.request("GET", "/v1/changes", headers={"Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        name = None
        try:
            while True:
                line = self.response.readline()
                if not line:
                    return
                line = line.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:") and name:
                    self.events.append((time.time(), name, json.loads(line[5:])))
        except (OSError, ValueError):
            return


# ---- the simulated apps -------------------------------------------------------------------------

def fleet(urls, work, users):
    """work(client, user) for each user, in the users' order, the users spread over the replicas."""
    lanes = len(urls) * 2
    results = [None] * len(users)

    def run(k):
        client = Client(urls[k % len(urls)])
        for i in range(k, len(users), lanes):
            results[i] = work(client, users[i])
        client.close()

    with ThreadPoolExecutor(lanes) as pool:
        list(pool.map(run, range(lanes)))
    return results


def post_events(url, events):
    client = Client(url)
    for start in range(0, len(events), 500):
        status, _, answer = client.json("POST", "/v1/events", events[start:start + 500])
        if status != 202:
            raise RuntimeError(f"POST /v1/events: {status} {answer}")
    client.close()


def wait_until(what, predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    return None


def last_looks(urls, token, guarded):
    """The last look of the guard of `guarded` on each replica that has one (the guards lease's holder)."""
    return [view["lastEvaluation"] for url in urls for view in Client(url, token).json("GET", "/admin/guards")[2]["guards"]
            if view["guards"] == guarded and view["lastEvaluation"]]


def audit(admin, resource, action):
    status, _, answer = admin.json("GET", f"/admin/audit?resource={urllib.parse.quote(resource)}&limit=50")
    return [e for e in (answer or {}).get("entries", []) if e["action"] == action] if status == 200 else []


# ---- a staged revision that fails to render is abandoned ---------------------------------------

def restyled(document):
    """The screen document with its first text changed: a new revision to stage."""
    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("text", "title") and isinstance(value, str):
                    node[key] = value + " (staged)"
                    return True
                if walk(value):
                    return True
        elif isinstance(node, list):
            return any(walk(item) for item in node)
        return False

    if not walk(document):
        raise RuntimeError("the screen has no text to change")
    return document


def stage_revision(admin):
    status, head, screen = admin.json("GET", f"/admin/screens/{SCREEN}")
    current = screen["revision"]
    _, _, document = admin.json("GET", f"/admin/screens/{SCREEN}/revisions/{current}")
    status, _, answer = admin.json("PUT", f"/admin/screens/{SCREEN}?stage=50", restyled(document), {"If-Match": head["etag"]})
    check(f"a new revision of {SCREEN} is staged to 50 %", status in (200, 201), f"{status} {answer if status >= 300 else ''}")
    _, _, screen = admin.json("GET", f"/admin/screens/{SCREEN}")
    return current, (screen.get("staged") or {}).get("revision")


def served_revision(client, user):
    status, _, answer = client.json("GET", f"/v1/screens/{SCREEN}?user={user}")
    if status != 200:
        raise RuntimeError(f"GET /v1/screens/{SCREEN}?user={user}: {status}")
    return answer["revision"]


class Watcher:
    """Asks one replica for the screen as a user of the staged revision every 50 ms, and keeps when
    it first served the current revision again."""

    def __init__(self, url, user, current):
        self.client, self.user, self.current = Client(url), user, current
        self.reverted = None
        self.stop = False
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while not self.stop and self.reverted is None:
            if served_revision(self.client, self.user) == self.current:
                self.reverted = time.time()
            time.sleep(0.05)


def screen_halt(urls, admin, receiver, stream, rng):
    say(f"staging a revision of {SCREEN}, guarding it, and 2× its render failures from {len(urls)} replicas")
    current, staged = stage_revision(admin)
    status, _, answer = admin.json("PUT", f"/admin/screens/{SCREEN}/guard",
                                   {"checks": [{"metric": "render-failures", "tolerance": 0.1}], "minimumUsers": 300})
    check(f"PUT /admin/screens/{SCREEN}/guard", status == 201, f"{status} {answer if status != 201 else ''}")
    # Every replica serves the staged revision before the fleet starts.
    probe = [f"probe-{i}" for i in range(40)]
    ready = wait_until("every replica serves the staged revision", lambda: all(
        staged in {served_revision(Client(url), user) for user in probe} for url in urls), 10)
    check("every replica serves the staged revision to some users", bool(ready))
    staged_user = next(user for user in probe if served_revision(Client(urls[0]), user) == staged)
    watchers = [Watcher(url, staged_user, current) for url in urls]

    seen = {current: 0, staged: 0}
    failing = {current: 0, staged: 0}
    halted_at_users = None
    for wave in range(MAX_USERS // WAVE):
        users = [f"s{wave}-{i}" for i in range(WAVE)]
        served = fleet(urls, served_revision, users)
        beacons = []
        for user, revision in zip(users, served):
            seen[revision] = seen.get(revision, 0) + 1
            # The staged revision fails for twice as many users as the current one.
            if rng.random() < (0.20 if revision == staged else 0.10):
                failing[revision] = failing.get(revision, 0) + 1
                beacons.append({"id": f"r-{user}", "timestamp": rfc3339(int(time.time() * 1000)), "context": {"targetingKey": user},
                                "render": {"screen": SCREEN, "revision": revision, "component": "root", "reason": "decode_failure"}})
        # Apps served the staged revision moments before a halt still report on it (accepted).
        post_events(urls[wave % len(urls)], beacons)
        if admin.json("GET", f"/admin/screens/{SCREEN}")[2].get("staged") is None:
            halted_at_users = sum(seen.values())
            break
    check("the guard abandons the staged revision", halted_at_users is not None,
          f"after {halted_at_users} users ({seen.get(staged, 0)} of the staged revision, {failing.get(staged, 0)} failing; "
          f"{seen.get(current, 0)} of the current, {failing.get(current, 0)} failing)")
    if halted_at_users is None:
        for url in urls:
            views = Client(url, admin.token).json("GET", "/admin/guards")[2]
            say(f"{url} /admin/guards: {json.dumps(views)[:600]}")
        say(f"health: {json.dumps(admin.json('GET', f'/admin/screens/{SCREEN}/revisions/{staged}/health')[2])[:400]}")
        return

    halts = audit(admin, f"screens/{SCREEN}", "guard.halt")
    abandons = audit(admin, f"screens/{SCREEN}", "screen.abandon")
    check("the audit log has guard.halt by the actor guard", len(halts) == 1 and halts[0]["actor"] == "guard",
          json.dumps(halts)[:300])
    check("the abandonment is the guard's (screen.abandon by guard)", any(e["actor"] == "guard" for e in abandons),
          json.dumps(abandons)[:300])
    if not halts:
        return
    decided = epoch_seconds(halts[0]["at"])
    evidence = halts[0]["after"]
    figures = evidence["checks"][0] if evidence.get("checks") else {}
    check("guard.halt carries the figures that decided (verdict, users per arm, means, lift, bound, threshold)",
          evidence.get("verdict") == "regression" and all(k in figures for k in
                                                        ("treatmentUsers", "controlUsers", "treatmentMean", "controlMean", "lift", "bound", "threshold")),
          json.dumps(evidence)[:400])
    say(f"decided on {figures.get('treatmentUsers')} staged and {figures.get('controlUsers')} current users: "
        f"{figures.get('treatmentMean', 0):.4f} against {figures.get('controlMean', 0):.4f}, bound {figures.get('bound')}")

    wait_until("every replica reverted", lambda: all(w.reverted for w in watchers), HALT_WITHIN + 5)
    for w in watchers:
        w.stop = True
    lags = [round(w.reverted - decided, 2) if w.reverted else None for w in watchers]
    check(f"every replica serves revision {current} again within {HALT_WITHIN:.0f} s of the decision",
          all(lag is not None and lag <= HALT_WITHIN for lag in lags), f"seconds after guard.halt, per replica: {lags}")

    streamed = wait_until("the change stream", lambda: [e for e in stream.events if e[1] == "screens" and e[0] >= decided - 1 and any(
        s["id"] == SCREEN and s.get("staged") is None for s in e[2].get("screens", []))], 5)
    check("the change stream tells of the abandonment", bool(streamed),
          f"{round(streamed[0][0] - decided, 2)} s after the decision" if streamed else f"events: {stream.events[-3:]}")

    delivered = wait_until("the webhook", lambda: receiver.of("guard.halt"), 20)
    entry = delivered[0]["body"]["entry"] if delivered else {}
    check("the webhook gets guard.halt, signed, with the figures", bool(delivered) and delivered[0]["signed"] and
          entry.get("actor") == "guard" and entry.get("after", {}).get("verdict") == "regression",
          json.dumps(delivered[0]["body"])[:300] if delivered else f"deliveries: {[d['event'] for d in receiver.deliveries]}")
    looked = last_looks(urls, admin.token, f"screens/{SCREEN}")
    check("GET /admin/guards shows the last look (on the replica that holds the guards lease)", len(looked) >= 1,
          f"{len(looked)} of {len(urls)} replicas show one")


# ---- guarded ramps: a healthy one advances, one short of users holds ---------------------------

def make_rollout(admin, key, minimum_users, steps):
    status, _, answer = admin.json("POST", "/admin/rollouts", {"key": key, "percentage": 20, "description": "check-guards"})
    check(f"POST /admin/rollouts {key}", status == 201, f"{status} {answer if status != 201 else ''}")
    status, _, answer = admin.json("PUT", f"/admin/rollouts/{key}/guard",
                                   {"checks": [{"metric": "client-errors", "tolerance": 0.5}], "minimumUsers": minimum_users})
    check(f"PUT /admin/rollouts/{key}/guard (minimumUsers {minimum_users})", status == 201, f"{status} {answer if status != 201 else ''}")
    status, _, answer = put_document(admin, f"/admin/rollouts/{key}", {"schedule": steps})
    check(f"PUT /admin/rollouts/{key} a schedule of {len(steps)} steps", status == 200, f"{status} {answer if status != 200 else ''}")


def evaluate(keys):
    """Each user's OFREP answers for keys: whether each rollout admitted them."""
    def work(client, user):
        admitted = {}
        for key in keys:
            status, _, answer = client.json("POST", f"/ofrep/v1/evaluate/flags/{key}", {"context": {"targetingKey": user}})
            if status != 200:
                raise RuntimeError(f"OFREP {key} for {user}: {status} {answer}")
            admitted[key] = answer.get("value") is True
        return admitted
    return work


def guarded_ramps(urls, admin, rng):
    status, _, answer = put_document(admin, "/admin/metrics/client-errors",
                                     {"type": "proportion", "event": "client_error", "higherIsBetter": False})
    check("PUT /admin/metrics/client-errors", status in (200, 201), f"{status} {answer if status >= 300 else ''}")
    start = time.time()
    steps = [{"at": rfc3339(int((start + seconds) * 1000)), "percentage": percentage} for seconds, percentage in ((6, 50), (10, 100))]
    make_rollout(admin, "ramp-healthy", 200, steps)
    make_rollout(admin, "ramp-short", 100000, steps)
    make_rollout(admin, "ramp-failing", 200, steps)
    say("the fleet evaluates the three through OFREP on every replica; 5 % of users send client_error, "
        "15 % of those ramp-failing admits")

    def rollout(key):
        return admin.json("GET", f"/admin/rollouts/{key}")[2]

    wave = 0
    keys = ["ramp-healthy", "ramp-short", "ramp-failing"]
    while time.time() < start + 45 and (rollout("ramp-healthy")["percentage"] < 100 or rollout("ramp-failing")["enabled"]):
        users = [f"f{wave}-{i}" for i in range(WAVE)]
        admitted = fleet(urls, evaluate(keys), users)
        errors = [{"id": f"e-{user}", "context": {"targetingKey": user}, "name": "client_error"}
                  for user, its in zip(users, admitted) if rng.random() < (0.15 if its["ramp-failing"] else 0.05)]
        post_events(urls[wave % len(urls)], errors)
        wave += 1
    failing = rollout("ramp-failing")
    kills = audit(admin, "rollouts/ramp-failing", "rollout.kill")
    halts = audit(admin, "rollouts/ramp-failing", "guard.halt")
    check("a guarded ramp whose admitted users fail three times as often is killed by guard, its schedule with it",
          not failing["enabled"] and not failing.get("schedule") and [e["actor"] for e in kills] == ["guard"] and len(halts) == 1,
          f"enabled {failing['enabled']}, {len(failing.get('schedule') or [])} steps to come, kills by {[e['actor'] for e in kills]}")
    check("… before any of its steps", failing["percentage"] == 20 and not audit(admin, "rollouts/ramp-failing", "rollout.schedule"),
          f"at {failing['percentage']} %")
    steps_taken = audit(admin, "rollouts/ramp-healthy", "rollout.schedule")
    healthy = admin.json("GET", "/admin/rollouts/ramp-healthy")[2]
    check("a guarded ramp whose users fare alike takes every step", healthy["percentage"] == 100 and not healthy.get("schedule"),
          f"at {healthy['percentage']} % after {wave * WAVE} users, {round(time.time() - start, 1)} s; "
          f"steps audited: {[(e['actor'], e['at']) for e in steps_taken]}")
    check("each step is the scheduler's, none before its time", len(steps_taken) == 2 and all(
        e["actor"] == "scheduler" and epoch_seconds(e["at"]) >= epoch_seconds(step["at"])
        for e, step in zip(sorted(steps_taken, key=lambda e: e["id"]), steps)), json.dumps(steps_taken)[:300])
    # The short one's steps are past due by now; a few more looks change nothing.
    time.sleep(max(0.0, start + 13 - time.time()))
    short = admin.json("GET", "/admin/rollouts/ramp-short")[2]
    verdicts = [look["verdict"] for look in last_looks(urls, admin.token, "rollouts/ramp-short")]
    check("a guarded ramp without its minimum users holds at its percentage, its steps waiting",
          short["percentage"] == 20 and len(short.get("schedule") or []) == 2 and verdicts == ["insufficient"],
          f"at {short['percentage']} %, {len(short.get('schedule') or [])} steps to come, verdicts {verdicts}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("urls", nargs="+")
    parser.add_argument("--token", required=True)
    parser.add_argument("--checks")
    parser.add_argument("--seed", type=int, default=20261203)
    args = parser.parse_args()
    harness.record_checks(args.checks)
    rng = random.Random(args.seed)
    admin = Client(args.urls[0], args.token)
    try:
        secret = secrets.token_hex(32)
        receiver = WebhookReceiver(secret)
        status, _, answer = admin.json("POST", "/admin/webhooks", {"name": "guards", "url": receiver.url, "secret": secret,
                                                                   "events": ["guard.*", "screen.abandon", "rollout.kill"]})
        check("POST /admin/webhooks to a receiver on 127.0.0.1", status == 201, f"{status} {answer if status != 201 else ''}")
        stream = ChangeStream(args.urls[-1])
        screen_halt(args.urls, admin, receiver, stream, rng)
        guarded_ramps(args.urls, admin, rng)
    except Exception as error:  # a crash of the check (or an answer it could not read) is a failure too
        import traceback
        traceback.print_exc()
        check("ran to the end", False, f"{type(error).__name__}: {error}")
    sys.exit(1 if harness.failed() else 0)


if __name__ == "__main__":
    main()
