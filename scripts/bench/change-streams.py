#!/usr/bin/env python3
"""Opens COUNT change streams (GET /v1/changes) to HOST:PORT, each read until its prelude, then
holds them idle until a line arrives on stdin. Then, ROUNDS times, changes a rollout through the
admin API (TOKEN) and reads every stream until each has the `targeting` event: the time from the
write being sent until the first and the last stream has it. Then waits for another line and closes.

    change-streams.py HOST PORT COUNT TOKEN ROUNDS

Prints `connected C/COUNT, failed F` once every stream is open (or failed), then one line per round:
`round R: answer A ms, first F ms, last L ms after the write was sent, M ms after its answer (N streams)`.
The event is published once the write is durable, so L includes the commit; M is the fan-out alone
(events reach streams before the writer's answer does, so M can be small or negative).
Needs the soft descriptor limit above COUNT (the caller raises it).
"""
import http.client, json, selectors, socket, sys, time

host, port, count, token, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
request = f"GET /v1/changes HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode()
sel = selectors.DefaultSelector()
state = {}  # sock -> [received bytes, phase]
connected = failed = pending = opened = 0
batch = 500
deadline = time.time() + 120

while (opened < count or pending) and time.time() < deadline:
    while opened < count and pending < batch:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex((host, port))
        state[s] = [b"", "connecting"]
        sel.register(s, selectors.EVENT_WRITE)
        opened += 1
        pending += 1
    for key, _ in sel.select(timeout=1):
        s = key.fileobj
        st = state[s]
        if st[1] == "connecting":
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                failed += 1; pending -= 1; sel.unregister(s); s.close(); st[1] = "failed"; continue
            s.send(request)
            st[1] = "reading"
            sel.modify(s, selectors.EVENT_READ)
            continue
        data = s.recv(65536)
        if not data:
            failed += 1; pending -= 1; sel.unregister(s); s.close(); st[1] = "failed"; continue
        st[0] += data
        head, _, body = st[0].partition(b"\r\n\r\n")
        if b"\n\n" in body:  # the head, then the prelude
            ok = st[0].startswith(b"HTTP/1.1 200")
            connected += ok; failed += not ok; pending -= 1
            st[0] = b""
            st[1] = "idle" if ok else "failed"
            if not ok:
                sel.unregister(s); s.close()
print(f"connected {connected}/{count}, failed {failed}", flush=True)
sys.stdin.readline()

streams = [s for s, st in state.items() if st[1] == "idle"]
for r in range(1, rounds + 1):
    for s in streams:
        state[s][0] = b""
    waiting = set(streams)
    body = json.dumps({"percentage": 10 + r}).encode()
    sent = time.monotonic()
    admin = http.client.HTTPConnection(host, port, timeout=30)
    admin.request("PUT", "/admin/rollouts/checkout-v2", body=body,
                  headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    answer = admin.getresponse()
    answer.read()
    answered = time.monotonic()
    first = last = None
    limit = time.monotonic() + 30
    while waiting and time.monotonic() < limit:
        for key, _ in sel.select(timeout=1):
            s = key.fileobj
            if s not in waiting:
                s.recv(65536)
                continue
            data = s.recv(65536)
            state[s][0] += data
            if b"event: targeting" in state[s][0]:
                now = time.monotonic()
                first = first or now
                last = now
                waiting.discard(s)
    print(f"round {r}: answer {answer.status} in {1000 * (answered - sent):.0f} ms, first {1000 * ((first or sent) - sent):.0f} ms, "
          f"last {1000 * ((last or sent) - sent):.0f} ms after the write was sent, {1000 * ((last or sent) - answered):.0f} ms after its answer "
          f"({len(streams) - len(waiting)}/{len(streams)} streams)",
          flush=True)
    time.sleep(0.5)
sys.stdin.readline()
for s in state:
    s.close()
print("closed", flush=True)
