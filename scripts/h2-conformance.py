"""HTTP/2 conformance and attacks against a live server, with Python's h2 library (hyperframe, hpack).

Run by scripts/h2-conformance (which makes the venv and starts the server): TRELLIS_URL names a
plain listener (h2c with prior knowledge), TRELLIS_PID its process. Each case writes frames by hand
(hyperframe; field blocks from hpack, or raw octets where the block itself is the case), reads what
comes back and checks the frames and RFC 9113 §7 codes expected. The well-behaved client beside
each attack is h2's own H2Connection. Each check prints one line, `ok` or `FAIL`; the exit status
is the number of failures (capped at 100).

The attacks run while a bystander keeps asking on other connections (HTTP/2 and HTTP/1.1): every
one of its requests must be answered, none slower than BYSTANDER_MAX_SECONDS; the server's CPU time
(/proc/PID/stat) and resident memory (/proc/PID/status) during the attack must stay under bounds;
and the limit's counter in /metrics must have grown.
"""
import os
import re
import socket
import struct
import sys
import threading
import time
import urllib.request

import h2.config
import h2.connection
import h2.events
import hpack
from hyperframe.frame import (ContinuationFrame, DataFrame, Frame, GoAwayFrame, HeadersFrame, PingFrame,
                              RstStreamFrame, SettingsFrame, WindowUpdateFrame)

URL = os.environ["TRELLIS_URL"]
PID = int(os.environ["TRELLIS_PID"])
HOST, PORT = re.match(r"http://([^:/]+):(\d+)", URL).groups()
PORT = int(PORT)
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
CODES = {0: "NO_ERROR", 1: "PROTOCOL_ERROR", 2: "INTERNAL_ERROR", 3: "FLOW_CONTROL_ERROR", 4: "SETTINGS_TIMEOUT",
         5: "STREAM_CLOSED", 6: "FRAME_SIZE_ERROR", 7: "REFUSED_STREAM", 8: "CANCEL", 9: "COMPRESSION_ERROR",
         10: "CONNECT_ERROR", 11: "ENHANCE_YOUR_CALM", 12: "INADEQUATE_SECURITY", 13: "HTTP_1_1_REQUIRED"}
CODE = {name: number for number, name in CODES.items()}
CPU_TICK = os.sysconf("SC_CLK_TCK")
BYSTANDER_MAX_SECONDS = float(os.environ.get("BYSTANDER_MAX_SECONDS", "3"))
failures = []
passes = 0


def check(ok, line):
    global passes
    print(("ok    " if ok else "FAIL  ") + line, flush=True)
    if ok:
        passes += 1
    else:
        failures.append(line)
    return ok


# ---- raw frames -----------------------------------------------------------------------------------

def raw_frame(kind, flags, stream, payload):
    """A frame's octets as §4.1 lays them out, whatever they hold (for frames hyperframe refuses to make)."""
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def request_fields(method="GET", path="/v1/screens/home", extra=()):
    return [(":method", method), (":scheme", "http"), (":path", path), (":authority", f"{HOST}:{PORT}"), *extra]


class Raw:
    """One connection written frame by frame: the preface and an empty SETTINGS, then what the case sends."""

    def __init__(self, settings=None, preface=True):
        self.sock = socket.create_connection((HOST, PORT), timeout=5)
        self.encoder = hpack.Encoder()
        self.decoder = hpack.Decoder()
        self.decoder.max_header_list_size = 1 << 20
        self.buffer = b""
        self.closed = False
        if preface:
            frame = SettingsFrame(0, settings=settings or {})
            self.send(PREFACE + frame.serialize())

    def send(self, data):
        self.sock.sendall(data)

    def block(self, fields):
        return self.encoder.encode(fields)

    def headers(self, stream, fields, end_stream=True, end_headers=True):
        flags = ({"END_STREAM"} if end_stream else set()) | ({"END_HEADERS"} if end_headers else set())
        frame = HeadersFrame(stream, data=self.block(fields) if isinstance(fields, list) else fields, flags=flags)
        self.send(frame.serialize())

    def data(self, stream, payload, end_stream=True):
        self.send(DataFrame(stream, data=payload, flags={"END_STREAM"} if end_stream else set()).serialize())

    def frame(self, timeout=5):
        """The next frame (field blocks decoded into `.fields`), or None once the server has closed."""
        deadline = time.monotonic() + timeout
        while True:
            if len(self.buffer) >= 9:
                length = int.from_bytes(self.buffer[:3], "big")
                if len(self.buffer) >= 9 + length:
                    frame, _ = Frame.parse_frame_header(memoryview(self.buffer[:9]))
                    frame.parse_body(memoryview(self.buffer[9:9 + length]))
                    self.buffer = self.buffer[9 + length:]
                    if isinstance(frame, (HeadersFrame, ContinuationFrame)):
                        frame.fields = self.decoder.decode(frame.data, raw=False)
                    return frame
            if self.closed:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no frame in time")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                self.closed = True
            self.buffer += chunk

    def until(self, predicate, timeout=5):
        """Frames until one satisfies predicate (returned) or the connection ends (None); the rest in .seen."""
        self.seen = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                frame = self.frame(max(0.01, deadline - time.monotonic()))
            except TimeoutError:
                return None
            if frame is None:
                return None
            self.seen.append(frame)
            if predicate(frame):
                return frame

    def goaway(self, timeout=5):
        return self.until(lambda f: isinstance(f, GoAwayFrame), timeout)

    def response(self, stream, timeout=5):
        """(status, body, end) of a stream's answer, or (RST_STREAM's code name, None) when it was reset."""
        status, body = None, b""
        deadline = time.monotonic() + timeout
        while True:
            frame = self.until(lambda f: f.stream_id in (stream, 0), max(0.01, deadline - time.monotonic()))
            if frame is None:
                return ("closed" if self.closed else "timeout"), body
            if isinstance(frame, GoAwayFrame):
                return "GOAWAY " + CODES.get(frame.error_code, str(frame.error_code)), None
            if isinstance(frame, RstStreamFrame):
                return CODES.get(frame.error_code, str(frame.error_code)), None
            if isinstance(frame, HeadersFrame):
                status = dict(frame.fields).get(":status", status)
            if isinstance(frame, DataFrame):
                body += frame.data
                if frame.flow_controlled_length:
                    self.send(WindowUpdateFrame(0, window_increment=frame.flow_controlled_length).serialize()
                              + WindowUpdateFrame(stream, window_increment=frame.flow_controlled_length).serialize())
            if "END_STREAM" in frame.flags and frame.stream_id == stream:
                return status, body

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def expect_goaway(name, sent, code, raw=None):
    """Sends `sent` (octets, or a function of the connection) and expects GOAWAY with `code`, then the close."""
    raw = raw or Raw()
    try:
        sent(raw) if callable(sent) else raw.send(sent)
        frame = raw.goaway()
        got = CODES.get(frame.error_code, frame.error_code) if frame else ("closed" if raw.closed else "nothing")
        closed = raw.until(lambda f: False, timeout=3) is None and raw.closed
        check(got == code and closed, f"{name}: GOAWAY {got}{', closed' if closed else ', still open'} (expected GOAWAY {code}, closed)")
    except OSError as e:
        check(False, f"{name}: {e!r}")
    finally:
        raw.close()


def expect_stream(name, sent, expected, stream=1, then_ping=True):
    """Sends `sent` and expects the stream's answer (a status or a RST_STREAM code); the connection must go on."""
    raw = Raw()
    try:
        sent(raw)
        got, _ = raw.response(stream)
        alive = True
        if then_ping:
            raw.send(PingFrame(0, opaque_data=b"alive?!!").serialize())
            alive = raw.until(lambda f: isinstance(f, (PingFrame, GoAwayFrame)) and "ACK" in f.flags or isinstance(f, GoAwayFrame)) is not None \
                and isinstance(raw.seen[-1], PingFrame)
        check(str(got) == expected and alive, f"{name}: {got}{'' if alive else ', connection ended'} (expected {expected}{', connection goes on' if then_ping else ''})")
    except OSError as e:
        check(False, f"{name}: {e!r}")
    finally:
        raw.close()


# ---- RFC 9113 §3–§8 -------------------------------------------------------------------------------

def conformance():
    print("-- §3.4 preface, §6.5 SETTINGS")
    raw = Raw()
    first = raw.frame()
    check(isinstance(first, SettingsFrame) and "ACK" not in first.flags,
          f"server's preface is a SETTINGS frame: {type(first).__name__} {getattr(first, 'settings', '')}")
    ack = raw.until(lambda f: isinstance(f, SettingsFrame) and "ACK" in f.flags)
    check(ack is not None and ack.settings == {}, "our SETTINGS acknowledged with an empty ACK")
    raw.send(SettingsFrame(0, settings={0xFA: 7}).serialize())
    check(raw.until(lambda f: isinstance(f, SettingsFrame) and "ACK" in f.flags) is not None, "an unknown setting ignored and acknowledged (§6.5.2)")
    raw.close()
    expect_goaway("a bad preface", b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + SettingsFrame(0).serialize(), "PROTOCOL_ERROR", Raw(preface=False))
    expect_goaway("SETTINGS on stream 1 (§6.5)", raw_frame(4, 0, 1, b""), "PROTOCOL_ERROR")
    expect_goaway("SETTINGS of 5 octets (§6.5)", raw_frame(4, 0, 0, b"\0\x03\0\0\0"), "FRAME_SIZE_ERROR")
    expect_goaway("SETTINGS ACK with a payload (§6.5)", raw_frame(4, 1, 0, b"\0\x03\0\0\0\x01"), "FRAME_SIZE_ERROR")
    expect_goaway("SETTINGS_ENABLE_PUSH = 2 (§6.5.2)", raw_frame(4, 0, 0, struct.pack(">HI", 2, 2)), "PROTOCOL_ERROR")
    expect_goaway("SETTINGS_INITIAL_WINDOW_SIZE = 2^31 (§6.5.2)", raw_frame(4, 0, 0, struct.pack(">HI", 4, 1 << 31)), "FLOW_CONTROL_ERROR")
    expect_goaway("SETTINGS_MAX_FRAME_SIZE = 16383 (§6.5.2)", raw_frame(4, 0, 0, struct.pack(">HI", 5, 16383)), "PROTOCOL_ERROR")

    print("-- §4 frames")
    expect_goaway("a DATA frame over SETTINGS_MAX_FRAME_SIZE (§4.2)",
                  lambda r: (r.headers(1, request_fields("POST", "/v1/events"), end_stream=False), r.send(raw_frame(0, 1, 1, b"x" * 16385))),
                  "FRAME_SIZE_ERROR")
    expect_goaway("a HEADERS frame over SETTINGS_MAX_FRAME_SIZE (§4.2)", raw_frame(1, 5, 1, b"\x82" * 16385), "FRAME_SIZE_ERROR")
    expect_stream("an unknown frame type is ignored (§4.1, §5.5)",
                  lambda r: (r.send(raw_frame(0xBB, 0xFF, 1, b"anything")), r.headers(1, request_fields())), "200")
    expect_goaway("padding as long as the payload (§6.1)",
                  lambda r: (r.headers(1, request_fields("POST", "/v1/events"), end_stream=False), r.send(raw_frame(0, 0x9, 1, b"\x05abcd"))),
                  "PROTOCOL_ERROR")

    print("-- §5.1 stream states and identifiers")
    expect_goaway("DATA on an idle stream", raw_frame(0, 1, 1, b"hello"), "PROTOCOL_ERROR")
    expect_goaway("HEADERS on an even stream (§5.1.1)", lambda r: r.headers(2, request_fields()), "PROTOCOL_ERROR")
    # §5.1.1 asks PROTOCOL_ERROR for an identifier never used, §5.1 STREAM_CLOSED for a stream closed
    # after END_STREAM; the server keeps no record of which lower identifiers were used, so it
    # answers every HEADERS below the highest (and not just reset) as closed: STREAM_CLOSED.
    expect_goaway("a stream id lower than one already used (§5.1.1; closed, §5.1)",
                  lambda r: (r.headers(5, request_fields()), r.headers(3, request_fields())), "STREAM_CLOSED")
    expect_goaway("RST_STREAM on an idle stream (§6.4)", RstStreamFrame(7, error_code=8).serialize(), "PROTOCOL_ERROR")
    expect_goaway("WINDOW_UPDATE on an idle stream (§6.9)", WindowUpdateFrame(9, window_increment=1).serialize(), "PROTOCOL_ERROR")
    expect_goaway("DATA on stream 0 (§6.1)", raw_frame(0, 1, 0, b"x"), "PROTOCOL_ERROR")
    expect_goaway("HEADERS on stream 0 (§6.2)", raw_frame(1, 5, 0, b"\x82"), "PROTOCOL_ERROR")

    def data_after_end_stream(r):
        r.headers(1, request_fields("POST", "/v1/events", [("content-length", "0")]), end_stream=True)
        r.data(1, b"late")
    raw = Raw()
    try:
        data_after_end_stream(raw)
        frame = raw.until(lambda f: isinstance(f, (RstStreamFrame, GoAwayFrame)))
        code = CODES.get(frame.error_code) if frame else None
        check(code == "STREAM_CLOSED", f"DATA after END_STREAM (half-closed remote, §5.1): {type(frame).__name__ if frame else None} {code} (expected STREAM_CLOSED)")
    finally:
        raw.close()

    def many_streams(r):
        for stream in (1, 3, 5):
            r.headers(stream, request_fields())
    raw = Raw()
    try:
        many_streams(raw)
        answers = [raw.response(s) for s in (1, 3, 5)]
        check(all(a[0] == "200" and len(a[1]) > 1000 for a in answers), f"three streams at once each answered: {[(a[0], len(a[1] or b'')) for a in answers]}")
    finally:
        raw.close()

    print("-- §6.7 PING, §6.8 GOAWAY, §6.4 RST_STREAM")
    raw = Raw()
    raw.send(PingFrame(0, opaque_data=b"12345678").serialize())
    pong = raw.until(lambda f: isinstance(f, PingFrame))
    check(pong is not None and "ACK" in pong.flags and pong.opaque_data == b"12345678", "PING answered with ACK and the same 8 octets")
    raw.send(PingFrame(0, opaque_data=b"87654321", flags={"ACK"}).serialize() + PingFrame(0, opaque_data=b"second!!").serialize())
    pong = raw.until(lambda f: isinstance(f, PingFrame))
    check(pong is not None and pong.opaque_data == b"second!!", "a PING ACK from the client is not answered")
    raw.close()
    expect_goaway("PING of 7 octets (§6.7)", raw_frame(6, 0, 0, b"1234567"), "FRAME_SIZE_ERROR")
    expect_goaway("PING on stream 1 (§6.7)", raw_frame(6, 0, 1, b"12345678"), "PROTOCOL_ERROR")
    expect_goaway("RST_STREAM of 3 octets (§6.4)",
                  lambda r: (r.headers(1, request_fields("POST", "/v1/events"), end_stream=False), r.send(raw_frame(3, 0, 1, b"\0\0\x08"))),
                  "FRAME_SIZE_ERROR")
    expect_goaway("RST_STREAM on stream 0 (§6.4)", raw_frame(3, 0, 0, b"\0\0\0\x08"), "PROTOCOL_ERROR")
    expect_goaway("GOAWAY on stream 1 (§6.8)", raw_frame(7, 0, 1, b"\0\0\0\0\0\0\0\0"), "PROTOCOL_ERROR")
    raw = Raw()
    raw.headers(1, request_fields())
    raw.send(GoAwayFrame(0, last_stream_id=0, error_code=0).serialize())
    status, body = raw.response(1)
    check(status == "200" and body, f"the client's GOAWAY: the stream it had opened still answered ({status})")
    raw.close()
    expect_stream("a stream reset by the client, then another answered",
                  lambda r: (r.headers(1, request_fields("POST", "/v1/events"), end_stream=False),
                             r.send(RstStreamFrame(1, error_code=8).serialize()), r.headers(3, request_fields())), "200", stream=3)

    print("-- §6.9 flow control")
    raw = Raw(settings={SettingsFrame.INITIAL_WINDOW_SIZE: 100})
    raw.headers(1, request_fields())
    first = raw.until(lambda f: isinstance(f, DataFrame), timeout=2)
    more = raw.until(lambda f: isinstance(f, DataFrame), timeout=0.5)
    check(first is not None and len(first.data) == 100 and more is None, f"a stream window of 100: {len(first.data) if first else None} octets, then nothing")
    raw.send(WindowUpdateFrame(1, window_increment=1000).serialize())
    more = raw.until(lambda f: isinstance(f, DataFrame), timeout=2)
    check(more is not None and len(more.data) == 1000, f"WINDOW_UPDATE of 1000 on the stream: {len(more.data) if more else None} octets more")
    raw.send(SettingsFrame(0, settings={SettingsFrame.INITIAL_WINDOW_SIZE: 2100}).serialize())
    more = raw.until(lambda f: isinstance(f, DataFrame), timeout=2)
    check(more is not None and len(more.data) == 2000, f"SETTINGS_INITIAL_WINDOW_SIZE raised by 2000 adjusts the open stream (§6.9.2): {len(more.data) if more else None} octets more")
    raw.close()
    raw = Raw(settings={SettingsFrame.INITIAL_WINDOW_SIZE: 0})
    raw.headers(1, request_fields())
    head = raw.until(lambda f: isinstance(f, (HeadersFrame, DataFrame)), timeout=2)
    nothing = raw.until(lambda f: isinstance(f, DataFrame), timeout=0.5)
    check(isinstance(head, HeadersFrame) and nothing is None, "a window of 0: the HEADERS, no DATA")
    raw.close()
    expect_goaway("WINDOW_UPDATE of 0 on the connection (§6.9)", raw_frame(8, 0, 0, b"\0\0\0\0"), "PROTOCOL_ERROR")
    expect_stream("WINDOW_UPDATE of 0 on a stream (§6.9)",
                  lambda r: (r.headers(1, request_fields("POST", "/v1/events"), end_stream=False), r.send(raw_frame(8, 0, 1, b"\0\0\0\0"))), "PROTOCOL_ERROR")
    expect_goaway("the connection's window past 2^31-1 (§6.9.1)", WindowUpdateFrame(0, window_increment=(1 << 31) - 1).serialize(), "FLOW_CONTROL_ERROR")
    expect_stream("a stream's window past 2^31-1 (§6.9.1)",
                  lambda r: (r.headers(1, request_fields("POST", "/v1/events"), end_stream=False),
                             r.send(WindowUpdateFrame(1, window_increment=(1 << 31) - 1).serialize())), "FLOW_CONTROL_ERROR")

    print("-- §6.10 CONTINUATION")

    def split_block(r):
        block = r.block(request_fields(extra=[("x-a", "a" * 50), ("x-b", "b" * 50)]))
        r.headers(1, block[:10], end_stream=True, end_headers=False)
        r.send(ContinuationFrame(1, data=block[10:40]).serialize())
        r.send(ContinuationFrame(1, data=block[40:], flags={"END_HEADERS"}).serialize())
    expect_stream("a field block over HEADERS and two CONTINUATIONs", split_block, "200")
    expect_goaway("CONTINUATION with no HEADERS before it", ContinuationFrame(1, data=b"\x82", flags={"END_HEADERS"}).serialize(), "PROTOCOL_ERROR")
    expect_goaway("a PING between HEADERS and its CONTINUATION",
                  lambda r: (r.headers(1, r.block(request_fields())[:3], end_headers=False), r.send(PingFrame(0).serialize())), "PROTOCOL_ERROR")
    expect_goaway("CONTINUATION on another stream",
                  lambda r: (r.headers(1, r.block(request_fields())[:3], end_headers=False),
                             r.send(ContinuationFrame(3, data=b"\x82", flags={"END_HEADERS"}).serialize())), "PROTOCOL_ERROR")
    expect_goaway("an HPACK index past both tables (RFC 7541 §2.3.3)", lambda r: r.headers(1, b"\xff\x80\x01"), "COMPRESSION_ERROR")

    print("-- §8.2, §8.3 fields")
    cases = [
        ("no :method", [(":scheme", "http"), (":path", "/"), (":authority", "x")], "PROTOCOL_ERROR"),
        ("no :path", [(":method", "GET"), (":scheme", "http"), (":authority", "x")], "PROTOCOL_ERROR"),
        (":path twice", request_fields() + [(":path", "/x")], "PROTOCOL_ERROR"),
        ("a pseudo-header after a regular field", [(":method", "GET"), ("accept", "*/*"), (":scheme", "http"), (":path", "/"), (":authority", "x")], "PROTOCOL_ERROR"),
        ("an unknown pseudo-header :protocol-x", request_fields() + [(":protocol-x", "y")], "PROTOCOL_ERROR"),
        ("a response pseudo-header :status in a request", request_fields() + [(":status", "200")], "PROTOCOL_ERROR"),
        ("an uppercase field name", request_fields(extra=[("Accept", "*/*")]), "PROTOCOL_ERROR"),
        ("connection: keep-alive", request_fields(extra=[("connection", "keep-alive")]), "PROTOCOL_ERROR"),
        ("transfer-encoding: chunked", request_fields(extra=[("transfer-encoding", "chunked")]), "PROTOCOL_ERROR"),
        ("upgrade: websocket", request_fields(extra=[("upgrade", "websocket")]), "PROTOCOL_ERROR"),
        ("keep-alive: 5", request_fields(extra=[("keep-alive", "5")]), "PROTOCOL_ERROR"),
        ("proxy-connection: close", request_fields(extra=[("proxy-connection", "close")]), "PROTOCOL_ERROR"),
        ("te: gzip", request_fields(extra=[("te", "gzip")]), "PROTOCOL_ERROR"),
        ("a value with a newline", request_fields(extra=[("x-a", "a\nb")]), "PROTOCOL_ERROR"),
        ("a value with leading whitespace", request_fields(extra=[("x-a", " a")]), "PROTOCOL_ERROR"),
    ]
    for name, fields, expected in cases:
        expect_stream(f"{name} (malformed, §8.1.1)", lambda r, f=fields: r.headers(1, f), expected)
    expect_stream("te: trailers is allowed (§8.2.2)", lambda r: r.headers(1, request_fields(extra=[("te", "trailers")])), "200")
    expect_stream("cookie crumbs (§8.2.3)", lambda r: r.headers(1, request_fields(extra=[("cookie", "a=1"), ("cookie", "b=2")])), "200")
    expect_stream("content-length: 10 with 5 octets of DATA (§8.1.1)",
                  lambda r: (r.headers(1, request_fields("POST", "/v1/events", [("content-length", "10")]), end_stream=False), r.data(1, b"12345")),
                  "PROTOCOL_ERROR")
    expect_stream("content-length: 2 with 5 octets of DATA (§8.1.1)",
                  lambda r: (r.headers(1, request_fields("POST", "/v1/events", [("content-length", "2")]), end_stream=False), r.data(1, b"12345", end_stream=False)),
                  "PROTOCOL_ERROR")
    expect_stream("HEAD: HEADERS with END_STREAM, no DATA", lambda r: r.headers(1, request_fields("HEAD")), "200")


# ---- attacks --------------------------------------------------------------------------------------

def cpu_seconds():
    fields = open(f"/proc/{PID}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CPU_TICK


def rss_kb():
    return int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{PID}/status").read()).group(1))


def metric(name, label):
    text = urllib.request.urlopen(f"{URL}/metrics", timeout=10).read().decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") and label in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


class Bystander(threading.Thread):
    """Keeps asking, over HTTP/2 (h2's own client) and HTTP/1.1 in turn, each on a new connection every 20 requests."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.answered = 0
        self.errors = []
        self.slowest = 0.0

    def h2_requests(self, count):
        sock = socket.create_connection((HOST, PORT), timeout=BYSTANDER_MAX_SECONDS * 2)
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        try:
            for _ in range(count):
                if self.stop.is_set():
                    return
                started = time.monotonic()
                stream = conn.get_next_available_stream_id()
                conn.send_headers(stream, request_fields(), end_stream=True)
                sock.sendall(conn.data_to_send())
                status, done = None, False
                while not done:
                    data = sock.recv(65536)
                    if not data:
                        raise ConnectionError("closed")
                    for event in conn.receive_data(data):
                        if isinstance(event, h2.events.ResponseReceived):
                            status = dict(event.headers).get(b":status")
                        elif isinstance(event, h2.events.DataReceived):
                            conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                        elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                            done = True
                        elif isinstance(event, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                            raise ConnectionError(repr(event))
                    sock.sendall(conn.data_to_send())
                self.record(started, status == b"200", f"h2 status {status}")
        finally:
            sock.close()

    def h1_request(self):
        started = time.monotonic()
        with urllib.request.urlopen(f"{URL}/v1/screens/home", timeout=BYSTANDER_MAX_SECONDS * 2) as answer:
            answer.read()
            self.record(started, answer.status == 200, f"HTTP/1.1 status {answer.status}")

    def record(self, started, ok, what):
        took = time.monotonic() - started
        self.slowest = max(self.slowest, took)
        if ok:
            self.answered += 1
        else:
            self.errors.append(what)

    def run(self):
        while not self.stop.is_set():
            try:
                self.h2_requests(20)
                self.h1_request()
            except Exception as e:  # noqa: BLE001 — every failure is reported, none ends the thread
                self.errors.append(repr(e))
            time.sleep(0.01)


def attack(name, run, limit, cpu_bound, rss_bound_kb=65536, label=None):
    """Runs `run` (which returns its own (ok, description)) beside a bystander, then checks the bounds."""
    label = label or f'limit="{limit}"'
    counter_before = metric("http2_limit_refusals_total", label)
    bystander = Bystander()
    bystander.start()
    time.sleep(0.3)
    answered_before = bystander.answered
    cpu_before, rss_before, started = cpu_seconds(), rss_kb(), time.monotonic()
    try:
        ok, description = run()
    except Exception as e:  # noqa: BLE001
        ok, description = False, repr(e)
    took = time.monotonic() - started
    cpu, rss = cpu_seconds() - cpu_before, rss_kb() - rss_before
    time.sleep(0.3)
    bystander.stop.set()
    bystander.join(BYSTANDER_MAX_SECONDS * 3)
    counted = metric("http2_limit_refusals_total", label) - counter_before
    check(ok, f"{name}: {description}")
    check(cpu <= cpu_bound and rss <= rss_bound_kb,
          f"{name}: server CPU {cpu:.2f} s over {took:.1f} s (bound {cpu_bound} s), VmRSS {rss:+d} KB (bound {rss_bound_kb // 1024} MB)")
    check(bystander.answered > answered_before and not bystander.errors and bystander.slowest <= BYSTANDER_MAX_SECONDS,
          f"{name}: bystander answered {bystander.answered} (HTTP/2 and HTTP/1.1), slowest {bystander.slowest:.2f} s, errors {bystander.errors[:3]}")
    check(counted >= 1, f"{name}: http2_limit_refusals_total{{{label}}} +{counted:.0f}")


def continuation_flood():
    raw = Raw()
    raw.headers(1, raw.block(request_fields())[:2], end_stream=True, end_headers=False)
    frames = ContinuationFrame(1, data=b"\x40\x01a\x01b").serialize() * 10_000
    try:
        raw.send(frames)
    except OSError:
        pass
    frame = raw.goaway()
    code = CODES.get(frame.error_code) if frame else None
    raw.close()
    return code == "ENHANCE_YOUR_CALM", f"10,000 CONTINUATION frames: GOAWAY {code} (expected ENHANCE_YOUR_CALM)"


def rapid_reset():
    raw = Raw()
    burst = b""
    for i in range(2000):  # each a request the server holds (its body is to come), reset at once
        stream = 1 + 2 * i
        burst += HeadersFrame(stream, data=raw.block(request_fields("POST", "/v1/events")), flags={"END_HEADERS"}).serialize()
        burst += RstStreamFrame(stream, error_code=8).serialize()
    try:
        raw.send(burst)
    except OSError:
        pass
    frame = raw.goaway(timeout=10)
    code = CODES.get(frame.error_code) if frame else None
    raw.close()
    return code == "ENHANCE_YOUR_CALM", f"2,000 streams opened and reset at once: GOAWAY {code} (expected ENHANCE_YOUR_CALM)"


def ack_flood(kind):
    def run():
        raw = Raw()
        frame = (SettingsFrame(0).serialize() if kind == "SETTINGS" else PingFrame(0, opaque_data=b"flooding").serialize()) * 20_000
        sent, started, ended = 0, time.monotonic(), None
        raw.sock.settimeout(1)
        while time.monotonic() - started < 20:
            try:
                raw.send(frame)
                sent += 20_000
            except (socket.timeout, OSError) as e:
                ended = e
                break
        # The server stops reading while its acknowledgements wait; then ends the connection.
        raw.sock.setblocking(True)
        frame = raw.goaway(timeout=15)
        code = CODES.get(frame.error_code) if frame else ("closed" if raw.closed else None)
        raw.close()
        return code == "ENHANCE_YOUR_CALM", f"{kind} frames sent without reading their ACKs ({sent:,} sent before {type(ended).__name__}): {code}"
    return run


def hpack_bomb():
    raw = Raw()
    # One 4,000-octet entry in the dynamic table, then a block naming it by index 20,000 times:
    # 20,002 octets on the wire that decode to 80 MB of fields.
    index = bytes([0x80 | 62])  # the newest entry of the dynamic table
    raw.headers(1, raw.block(request_fields() + [("x-bomb", "b" * 4000)]) + index * 3, end_stream=True)  # fits: answered
    first, _ = raw.response(1)
    block = raw.block(request_fields()) + index * 20_000
    frames = HeadersFrame(3, data=block[:16000], flags={"END_STREAM"}).serialize()
    frames += ContinuationFrame(3, data=block[16000:], flags={"END_HEADERS"}).serialize()
    raw.send(frames)
    second, _ = raw.response(3, timeout=10)
    raw.headers(5, request_fields())
    third, _ = raw.response(5)
    raw.close()
    return (first, second, third) == ("200", "431", "200"), \
        f"a 4,000-octet field indexed 3 times: {first}; 20,000 times (80 MB decoded): {second}; next stream: {third} (expected 200, 431, 200)"


def too_many_streams():
    raw = Raw()
    for i in range(150):  # requests whose bodies never come: each stream stays open
        raw.headers(1 + 2 * i, request_fields("POST", "/v1/events", [("content-length", "10")]), end_stream=False)
    refused = set()
    while True:
        frame = raw.until(lambda f: isinstance(f, (RstStreamFrame, GoAwayFrame)), timeout=2)
        if frame is None or isinstance(frame, GoAwayFrame):
            break
        if frame.error_code == CODE["REFUSED_STREAM"]:
            refused.add(frame.stream_id)
    raw.close()
    expected = {1 + 2 * i for i in range(100, 150)}
    return refused == expected, f"150 streams held open: {len(refused)} refused (REFUSED_STREAM), expected the 50 past 100"


def zero_window():
    # Twenty connections whose window is shut, each with 10 answers waiting: closed at sendTimeout.
    raws = []
    for _ in range(20):
        raw = Raw(settings={SettingsFrame.INITIAL_WINDOW_SIZE: 0})
        for i in range(10):
            raw.headers(1 + 2 * i, request_fields())
        raws.append(raw)
    started = time.monotonic()
    closed = 0
    for raw in raws:
        raw.until(lambda f: False, timeout=max(0.1, 10 - (time.monotonic() - started)))
        closed += raw.closed
        raw.close()
    took = time.monotonic() - started
    return closed == 20, f"20 connections that never open their window, 10 answers waiting on each: {closed} closed in {took:.1f} s (sendTimeout 2 s)"


def main():
    conformance()
    print("-- attacks (each beside a bystander on other connections)")
    attack("CONTINUATION flood (CVE-2024-27316)", continuation_flood, "continuation_frames", cpu_bound=2)
    attack("rapid reset (CVE-2023-44487)", rapid_reset, "rapid_reset", cpu_bound=4)
    attack("SETTINGS flood", ack_flood("SETTINGS"), "unsent_acknowledgements", cpu_bound=6)
    attack("PING flood", ack_flood("PING"), "unsent_acknowledgements", cpu_bound=6)
    attack("HPACK bomb", hpack_bomb, "header_list", cpu_bound=3)
    attack("too many concurrent streams", too_many_streams, "concurrent_streams", cpu_bound=3)
    attack("zero-window stall", zero_window, "window_stall", cpu_bound=3)
    print(f"h2-conformance: {passes} passed, {len(failures)} failed")
    sys.exit(min(len(failures), 100))


if __name__ == "__main__":
    main()
