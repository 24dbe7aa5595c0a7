"""scripts/check-openfeature's client: openfeature-sdk + openfeature-provider-ofrep against TRELLIS_URL."""
import importlib.metadata
import json
import os
import queue
import sys
import threading
import time

import requests
from openfeature import api
from openfeature.contrib.provider.ofrep import OFREPProvider
from openfeature.evaluation_context import EvaluationContext

URL = os.environ["TRELLIS_URL"]
TOKEN = os.environ["TRELLIS_TOKEN"]
failures = []


def check(ok, line):
    print(("ok    " if ok else "FAIL  ") + line)
    if not ok:
        failures.append(line)


def trellis_flags(user, attributes):
    """Trellis's own answer for every flag (the bulk endpoint, read without the SDK)."""
    context = {"targetingKey": user, **attributes} if user else dict(attributes)
    answer = requests.post(f"{URL}/ofrep/v1/evaluate/flags", json={"context": context}, timeout=10)
    answer.raise_for_status()
    return {flag["key"]: flag for flag in answer.json()["flags"]}


def through_sdk(client, key, expected, context):
    """The flag through the typed getter that fits Trellis's value, with a default it never is."""
    if isinstance(expected, bool):
        return client.get_boolean_details(key, not expected, context)
    if isinstance(expected, str):
        return client.get_string_details(key, "(the default)", context)
    if isinstance(expected, int):
        return client.get_integer_details(key, -1, context)
    if isinstance(expected, float):
        return client.get_float_details(key, -1.0, context)
    return client.get_object_details(key, {"default": True}, context)


def text(reason):
    return getattr(reason, "value", reason)


def compare_all(client, users, label):
    count = 0
    for user, attributes in users:
        expected = trellis_flags(user, attributes)
        context = EvaluationContext(user, attributes)
        for key, flag in sorted(expected.items()):
            if "errorCode" in flag:
                # A flag Trellis cannot decide for this context: the SDK reports the same error
                # and falls back to the code's default.
                details = client.get_string_details(key, "(the default)", context)
                same = text(details.error_code) == flag["errorCode"] and details.value == "(the default)"
                if not same:
                    check(False, f"{label} {key} for {user!r}: SDK {details.value!r} {details.error_code}, Trellis {flag['errorCode']}")
                count += 1
                continue
            details = through_sdk(client, key, flag["value"], context)
            same = (details.error_code is None and details.value == flag["value"] and details.variant == flag["variant"]
                    and text(details.reason) == flag["reason"])
            if not same:
                check(False, f"{label} {key} for {user}: SDK {details.value!r} {details.variant} {text(details.reason)} "
                      f"{details.error_code} {details.error_message}, Trellis {flag['value']!r} {flag['variant']} {flag['reason']}")
            count += 1
    return count


def follow(stream, events):
    """Reads server-sent events off `stream` into `events` (a queue of dicts), with arrival times,
    until the process ends (a daemon thread: the server's stop ends the stream)."""
    fields = {}
    for raw in stream.iter_lines(decode_unicode=True):
        if raw == "":
            if fields:
                fields["at"] = time.monotonic()
                events.put(fields)
            fields = {}
        elif raw.startswith(":"):
            fields.setdefault("comment", raw[1:].strip())
        else:
            name, _, value = raw.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value


def main():
    api.set_provider(OFREPProvider(URL))
    client = api.get_client()
    users = [(f"user-{n}", {"platform": "ios" if n % 2 else "android", "appVersion": "5.3.0",
                            "membership": "gold" if n % 3 == 0 else "basic"}) for n in range(12)]
    # No targeting key (the SDK drops an empty one): TARGETING_KEY_MISSING for the flags that bucket users.
    users.append(("", {"platform": "web"}))
    versions = {name: importlib.metadata.version(name) for name in ("openfeature-sdk", "openfeature-provider-ofrep")}
    flags = sorted(trellis_flags("user-0", {}))
    count = compare_all(client, users, "flag")
    check(not failures, f"{count} evaluations of {len(flags)} flags ({', '.join(flags)}) for {len(users)} users agree with Trellis")
    theme = client.get_object_details("checkout-theme", {}, EvaluationContext("user-1", {}))
    check(isinstance(theme.value, dict) and theme.value.get("accent", "").startswith("#"), f"a typed object value: checkout-theme = {json.dumps(theme.value)}")
    threshold = client.get_float_details("free-shipping-threshold", 0.0, EvaluationContext("user-1", {}))
    check(threshold.error_code is None and threshold.value in (25, 49.5), f"a typed number value: free-shipping-threshold = {threshold.value}")

    # The change stream, as an OFREP client follows the bulk answer's eventStreams.
    bulk = requests.post(f"{URL}/ofrep/v1/evaluate/flags", json={"context": {"targetingKey": "user-1"}}, timeout=10).json()
    stream_uri = bulk["eventStreams"][0]["endpoint"]["requestUri"]
    events = queue.Queue()
    stream = requests.get(URL + stream_uri, stream=True, timeout=30, headers={"Accept": "text/event-stream"})
    check(stream.headers.get("Content-Type") == "text/event-stream", f"GET {stream_uri}: {stream.status_code} {stream.headers.get('Content-Type')}")
    threading.Thread(target=follow, args=(stream, events), daemon=True).start()
    prelude = events.get(timeout=5)
    check("comment" in prelude, f"the stream is live ({prelude.get('comment')!r}, retry {prelude.get('retry')})")
    sent = time.monotonic()
    kill = requests.put(f"{URL}/admin/rollouts/checkout-v2", json={"enabled": False},
                        headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    answered = time.monotonic()
    check(kill.status_code == 200, f"PUT /admin/rollouts/checkout-v2 {{\"enabled\": false}}: {kill.status_code}")
    event = events.get(timeout=5)
    data = json.loads(event.get("data", "{}"))
    check(event.get("event") == "message" and data.get("type") == "refetchEvaluation",
          f"refetchEvaluation (id {event.get('id')}, etag {data.get('etag')}) {1000 * (event['at'] - sent):.0f} ms after the write was sent, "
          f"{1000 * (event['at'] - answered):.0f} ms after its answer")
    refetched = requests.post(f"{URL}/ofrep/v1/evaluate/flags", params={"flagConfigEtag": data.get("etag", "")},
                              json={"context": {"targetingKey": "user-1"}}, timeout=10).json()
    check(json.dumps(refetched["metadata"]["targetingRevision"]) == data.get("etag"), "the refetched flags carry the event's etag as their targetingRevision")
    killed = [client.get_boolean_details("checkout-v2", True, EvaluationContext(user, attributes)) for user, attributes in users[:-1]]
    check(all(d.value is False and text(d.reason) == "DISABLED" for d in killed), f"checkout-v2 is now off (DISABLED) for all {len(killed)} users through the SDK")
    count += compare_all(client, users, "after the kill")
    print(f"check-openfeature: openfeature-sdk {versions['openfeature-sdk']} + openfeature-provider-ofrep "
          f"{versions['openfeature-provider-ofrep']}, {count} evaluations; "
          + ("all agree with Trellis" if not failures else f"{len(failures)} failing"))
    sys.exit(1 if failures else 0)


main()
