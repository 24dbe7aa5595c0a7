"""Senders of POST /v1/events batches for scripts/bench-events, over keep-alive connections (asyncio,
a minimal HTTP/1.1 client: the standard library's would cost more than the server's work).

  events-load.py paced URL EVENTS_PER_SECOND SECONDS [--connections 16] [--ready FILE]
      batches of 100 (unique ids) at a steady rate, every one built before the first is sent
      (then FILE is made); prints "sent EVENTS_PER_S refused N cpu_us_per_event C" (its own CPU while
      it sent).
  events-load.py experiment URL USERS EVENTS [--connections 32] [--experiment home-hero]
      USERS users, each exposed once to control or big (their first exposure 1 to 100 hours ago),
      and EVENTS `purchase` events among them with a value (some up to 40 hours before the user's
      exposure, for CUPED's covariate), as fast as the server takes them; a 503 is sent again.
      Prints "loaded N events in S s".
Every answer but 202 (and 503, which is retried) ends the run.
"""
import argparse
import asyncio
import sys
import time
import urllib.parse
from datetime import datetime, timezone

HOUR_MS = 3_600_000


SECONDS = {}


def stamp(ms):
    """RFC 3339 with milliseconds; the seconds' text is kept (formatting it is most of a batch's cost)."""
    second = ms // 1000
    text = SECONDS.get(second)
    if text is None:
        text = SECONDS[second] = datetime.fromtimestamp(second, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.")
    return "%s%03dZ" % (text, ms % 1000)


class Connection:
    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def post(self, path, body):
        """The status and Retry-After of one POST; reconnects once when the server closed the connection."""
        for attempt in (1, 2):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                self.writer.write(
                    b"POST %s HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                    % (path.encode(), len(body)) + body)
                head = await self.reader.readuntil(b"\r\n\r\n")
                lines = head.split(b"\r\n")
                status = int(lines[0].split()[1])
                length, retry, close = 0, 1.0, False
                for line in lines[1:]:
                    name, _, value = line.partition(b":")
                    name = name.strip().lower()
                    if name == b"content-length":
                        length = int(value)
                    elif name == b"retry-after":
                        retry = float(value)
                    elif name == b"connection" and value.strip().lower() == b"close":
                        close = True
                body_in = await self.reader.readexactly(length) if length else b""
                if close:
                    self.writer.close()
                    self.writer = None
                return status, retry, body_in
            except (ConnectionError, asyncio.IncompleteReadError):
                self.writer = None
                if attempt == 2:
                    raise


def tracked(id_, user, ms, value):
    return '{"id":"%s","timestamp":"%s","context":{"targetingKey":"%s"},"name":"purchase","value":%s}' % (id_, stamp(ms), user, value)


def exposure(id_, user, ms, experiment, variant):
    return ('{"id":"%s","timestamp":"%s","context":{"targetingKey":"%s"},"exposure":{"experiment":"%s","variant":"%s"}}'
            % (id_, stamp(ms), user, experiment, variant))


async def paced(url, rate, seconds, connections, ready):
    parsed = urllib.parse.urlparse(url)
    per_second = rate / 100.0
    total = int(per_second * seconds)
    nonce = int(time.time())
    sent = refused = 0
    now_ms = int(time.time() * 1000)
    next_index = 0
    # Every batch is built before the first is sent, so the sender's CPU while it sends is the
    # sockets' alone (it shares the machine with the server and wrk).
    bodies = [("[" + ",".join(tracked(f"p{nonce}-{k}-{j}", f"p{k % 5000}-{j}", now_ms, j + 0.5) for j in range(100)) + "]").encode()
              for k in range(total)]
    if ready:
        open(ready, "w").close()
    start = time.monotonic()
    cpu_start = time.process_time()

    async def worker():
        nonlocal sent, refused, next_index
        conn = Connection(parsed.hostname, parsed.port)
        while True:
            k = next_index
            next_index += 1
            if k >= total:
                return
            due = start + k / per_second
            delay = due - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            status, _, _ = await conn.post(parsed.path, bodies[k])
            if status == 202:
                sent += 100
            else:
                refused += 1

    await asyncio.gather(*(worker() for _ in range(connections)))
    elapsed = time.monotonic() - start
    cpu = time.process_time() - cpu_start
    print(f"sent {sent / elapsed:.0f} refused {refused} cpu_us_per_event {cpu / max(sent, 1) * 1e6:.2f}")


async def experiment(url, users, events, connections, key):
    parsed = urllib.parse.urlparse(url)
    now_ms = int(time.time() * 1000)
    exposure_batches = (users + 99) // 100
    event_batches = (events + 99) // 100
    total = exposure_batches + event_batches
    nonce = int(time.time())
    next_index = 0
    loaded = 0
    start = time.monotonic()

    def age(i):  # the user's exposure, 1 to 100 hours ago
        return HOUR_MS + (i * 7919) % (99 * HOUR_MS)

    def batch(k):
        if k < exposure_batches:
            return [exposure(f"x{nonce}-{i}", f"m{i}", now_ms - age(i), key, "big" if (i * 2654435761) % 4294967296 < 2147483648 else "control")
                    for i in range(k * 100, min(users, k * 100 + 100))]
        out = []
        for e in range((k - exposure_batches) * 100, min(events, (k - exposure_batches) * 100 + 100)):
            i = (e * 48271) % users
            t0 = now_ms - age(i)
            f = ((e * 69069) % 1000) / 1000.0       # from 40 h before the exposure up to now
            ms = int(t0 - 40 * HOUR_MS + f * (40 * HOUR_MS + age(i) - 60_000))
            out.append(tracked(f"e{nonce}-{e}", f"m{i}", ms, (e % 97) + 0.25))
        return out

    async def worker():
        nonlocal next_index, loaded
        conn = Connection(parsed.hostname, parsed.port)
        while True:
            k = next_index
            next_index += 1
            if k >= total:
                return
            items = batch(k)
            body = ("[" + ",".join(items) + "]").encode()
            while True:
                status, retry, answer = await conn.post(parsed.path, body)
                if status == 202:
                    break
                if status != 503:
                    sys.exit(f"batch {k}: {status} {answer[:300]!r}")
                await asyncio.sleep(retry)
            loaded += len(items)
            if k % 5000 == 0:
                print(f"  {loaded} events loaded, {loaded / (time.monotonic() - start):.0f}/s", file=sys.stderr, flush=True)

    await asyncio.gather(*(worker() for _ in range(connections)))
    print(f"loaded {loaded} events in {time.monotonic() - start:.1f} s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["paced", "experiment"])
    parser.add_argument("url")
    parser.add_argument("a", type=float)
    parser.add_argument("b", type=float)
    parser.add_argument("--connections", type=int, default=0)
    parser.add_argument("--experiment", default="home-hero")
    parser.add_argument("--ready", help="paced: a file made once every batch is built, before the first is sent")
    args = parser.parse_args()
    if args.mode == "paced":
        asyncio.run(paced(args.url, args.a, args.b, args.connections or 16, args.ready))
    else:
        asyncio.run(experiment(args.url, int(args.a), int(args.b), args.connections or 32, args.experiment))


if __name__ == "__main__":
    main()
