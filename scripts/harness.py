"""What the end-to-end check scripts share: checks that print and count, and a keep-alive HTTP client.

Each check prints one line, `ok   NAME: detail` or `FAIL NAME: detail`, and is appended to the file
given to record_checks (`PASS NAME` or `FAIL NAME`), which the bash script around it counts.
"""
import http.client
import json
import urllib.parse
from datetime import datetime, timezone

_checks_file = None
_failed = 0


def record_checks(path):
    """Append every check from now on to path (None: print only)."""
    global _checks_file
    _checks_file = path


def failed():
    """How many checks failed so far."""
    return _failed


def check(name, passed, detail=""):
    global _failed
    line = f"{'ok  ' if passed else 'FAIL'} {name}{': ' + detail if detail else ''}"
    print(line, flush=True)
    if _checks_file:
        with open(_checks_file, "a") as f:
            f.write(("PASS " if passed else "FAIL ") + name + "\n")
    if not passed:
        _failed += 1
    return passed


def say(message):
    print(f"     {message}", flush=True)


class Client:
    """One keep-alive connection; reconnects when the server closed it."""

    def __init__(self, url, token=None):
        parsed = urllib.parse.urlparse(url)
        self.host, self.port = parsed.hostname, parsed.port
        self.token = token
        self.conn = None

    def request(self, method, path, body=None, headers=None, timeout=120):
        all_headers = {"Host": "check"}
        if self.token:
            all_headers["Authorization"] = f"Bearer {self.token}"
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        elif isinstance(body, str):
            body = body.encode()
        all_headers.update(headers or {})
        for attempt in range(3):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
                self.conn.request(method, path, body=body, headers=all_headers)
                response = self.conn.getresponse()
                data = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.close()
                return response.status, {k.lower(): v for k, v in response.getheaders()}, data
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, http.client.CannotSendRequest):
                # A kept-alive connection the server closed between requests: once more on a new one.
                self.close()
                if attempt == 2:
                    raise

    def json(self, method, path, body=None, headers=None):
        status, head, data = self.request(method, path, body, headers)
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data.decode(errors="replace")
        return status, head, parsed

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def put_document(client, path, body):
    """PUT with If-Match when the document exists (GET its ETag first), as the admin API asks."""
    status, head, _ = client.json("GET", path)
    headers = {"If-Match": head["etag"]} if status == 200 and "etag" in head else {}
    return client.json("PUT", path, body, headers)


def rfc3339(ms):
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def epoch_seconds(text):
    """An RFC 3339 time the server wrote, in seconds since the epoch."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
