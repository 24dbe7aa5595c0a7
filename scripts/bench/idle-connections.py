#!/usr/bin/env python3
"""Opens COUNT keep-alive connections to HOST:PORT, sends one GET PATH on each, reads every
answer whole (Content-Length), and reports how many were answered 200. Then holds them open, idle,
until a line arrives on stdin (or stdin closes), and closes them.

    idle-connections.py HOST PORT PATH COUNT

Prints `answered A/COUNT, failed F` on stdout once every connection has its answer (or failed),
then `closed` after the line. Needs the soft descriptor limit above COUNT (the caller raises it).
"""
import selectors, socket, sys, time

host, port, path, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
sel = selectors.DefaultSelector()
state = {}  # sock -> [buffer, sent]
answered = failed = 0
opened = 0
batch = 500  # connections in flight at once while opening
deadline = time.time() + 120


def finish(sock, ok):
    global answered, failed
    if ok:
        answered += 1
    else:
        failed += 1
        sock.close()
    sel.unregister(sock)
    state[sock][1] = "done"


def complete(buf):
    head, sep, body = buf.partition(b"\r\n\r\n")
    if not sep:
        return None
    m = re_len.search(head)
    length = int(m.group(1)) if m else 0
    if len(body) < length:
        return None
    return head.startswith(b"HTTP/1.1 200")


import re
re_len = re.compile(rb"(?i)\r\ncontent-length:\s*(\d+)")
pending = 0
while (opened < count or pending) and time.time() < deadline:
    while opened < count and pending < batch:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex((host, port))
        state[s] = [b"", "connecting"]
        sel.register(s, selectors.EVENT_WRITE)
        opened += 1
        pending += 1
    for key, events in sel.select(timeout=1):
        s = key.fileobj
        st = state[s]
        if st[1] == "connecting":
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                finish(s, False); pending -= 1; continue
            s.send(request)
            st[1] = "reading"
            sel.modify(s, selectors.EVENT_READ)
            continue
        try:
            data = s.recv(65536)
        except OSError:
            data = b""
        if not data:
            finish(s, False); pending -= 1; continue
        st[0] += data
        ok = complete(st[0])
        if ok is not None:
            finish(s, ok); pending -= 1
            st[0] = b""
failed += count - answered - failed
print(f"answered {answered}/{count}, failed {failed}", flush=True)
sys.stdin.readline()
for s, st in state.items():
    try:
        s.close()
    except OSError:
        pass
print("closed", flush=True)
