"""Firefox driven through WebDriver BiDi, on the standard library alone.

Debian ships firefox-esr but no geckodriver, so selenium cannot drive it; Firefox speaks WebDriver
BiDi itself (`--remote-debugging-port`), over a WebSocket. `Firefox` gives scripts/console-check.py
the operations it uses, with the names selenium's WebDriver and WebElement give them, so the same
steps run on either browser: navigating, finding elements by CSS, XPath, id or tag, their text,
attributes, visibility and state, clicks and keys as real input events (`input.performActions`),
scripts, frames, screenshots, and the errors the page logged.
"""
import base64
import hashlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path


class By:
    """WebDriver's location strategies (selenium's By has the same values)."""
    CSS_SELECTOR = "css selector"
    XPATH = "xpath"
    ID = "id"
    TAG_NAME = "tag name"


class Keys:
    """WebDriver's codes for keys that are not characters (selenium's Keys has the same values)."""
    TAB = "\ue004"
    ENTER = "\ue007"
    SHIFT = "\ue008"
    CONTROL = "\ue009"
    ALT = "\ue00a"
    META = "\ue03d"


MODIFIERS = {Keys.SHIFT, Keys.CONTROL, Keys.ALT, Keys.META}


class BiDiError(Exception):
    pass


class NoSuchElement(Exception):
    pass


class WebSocket:
    """The client side of RFC 6455, as much as a BiDi connection needs: text messages, no extension."""

    def __init__(self, url, timeout):
        parts = urllib.parse.urlsplit(url)
        self.socket = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        self.reader = self.socket.makefile("rb")
        key = base64.b64encode(os.urandom(16)).decode()
        self.socket.sendall((f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        status = self.reader.readline().decode("latin-1")
        headers = {}
        while (line := self.reader.readline().decode("latin-1").strip()):
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        expected = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
        if status.split(" ")[1:2] != ["101"] or headers.get("sec-websocket-accept") != expected:
            raise ConnectionError(f"{url} refused the WebSocket: {status.strip()}")

    def send(self, text):
        self._frame(0x1, text.encode())

    def receive(self):
        message = b""
        while True:
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length >= 126:
                length = int.from_bytes(self._read(2 if length == 126 else 8), "big")
            payload = self._read(length)  # a server's frames are not masked
            if opcode == 0x8:
                raise ConnectionError("the browser closed the WebSocket")
            if opcode == 0x9:
                self._frame(0xA, payload)
            elif opcode in (0x0, 0x1):  # a message may come in fragments
                message += payload
                if first & 0x80:
                    return message.decode()

    def close(self):
        self.socket.close()

    def _read(self, count):
        data = self.reader.read(count)
        if len(data) < count:
            raise ConnectionError("the browser closed the WebSocket")
        return data

    def _frame(self, opcode, payload):
        # A client masks what it sends (RFC 6455, 5.3), whatever the server.
        length = len(payload)
        if length < 126:
            header = bytes([0x80 | opcode, 0x80 | length])
        elif length < 1 << 16:
            header = bytes([0x80 | opcode, 0x80 | 126]) + length.to_bytes(2, "big")
        else:
            header = bytes([0x80 | opcode, 0x80 | 127]) + length.to_bytes(8, "big")
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.socket.sendall(header + mask + masked)


class Firefox:
    """A headless Firefox with a fresh profile, and a BiDi session on its one tab."""

    def __init__(self, binary="firefox-esr", width=1400, height=1100, log=None, timeout=60):
        self.profile = Path(tempfile.mkdtemp(prefix="firefox-bidi."))
        self.log_path = Path(log) if log else self.profile / "firefox.log"
        # With the remote agent on, Firefox sets the prefs automation needs itself (no first-run
        # pages, updates or telemetry: remote.prefs.recommended).
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [binary, "--headless", "--no-remote", "--remote-debugging-port=0", "--profile", str(self.profile), "about:blank"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "MOZ_CRASHREPORTER_DISABLE": "1"})
        self.socket = None
        self.logged = []
        # Answers of 400 and more: Firefox logs no console entry for a failed fetch (Chromium does).
        self.failed_loads = []
        self.next_id = 0
        try:
            self.socket = WebSocket(self._address(binary, timeout), timeout)
            self.command("session.new", capabilities={})
            self.command("session.subscribe", events=["log.entryAdded", "network.responseCompleted"])
            self.top = self.command("browsingContext.getTree", maxDepth=0)["contexts"][0]["context"]
            self.command("browsingContext.setViewport", context=self.top, viewport={"width": width, "height": height})
        except BaseException:
            self.quit()
            raise
        self.context = self.top  # the frame searches and scripts run in (switch_to.frame)

    def _address(self, binary, timeout):
        # Port 0 above: Firefox takes a free port and writes it to WebDriverBiDiServer.json in the profile.
        deadline = time.monotonic() + timeout
        while True:
            try:
                address = json.loads((self.profile / "WebDriverBiDiServer.json").read_text())
                return f"ws://{address['ws_host']}:{address['ws_port']}/session"
            except (OSError, ValueError):  # not there yet, or half written
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise BiDiError(f"{binary} did not open WebDriver BiDi: {self.log_path.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)

    def command(self, method, **params):
        """The result of one BiDi command; events that come before it are kept (log entries)."""
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.receive())
            if message.get("id") == self.next_id:
                if message["type"] == "error":
                    raise BiDiError(f"{method}: {message['error']}: {message.get('message')}")
                return message["result"]
            if message.get("method") == "log.entryAdded":
                self.logged.append(message["params"])
            elif message.get("method") == "network.responseCompleted":
                response = message["params"]["response"]
                if response.get("status", 0) >= 400:
                    self.failed_loads.append(f"{response['status']} {response.get('statusText', '')} {response['url']}")

    def quit(self):
        closed = False
        if self.socket:
            try:
                self.command("browser.close")  # Firefox exits by itself then
                closed = True
            except (BiDiError, OSError):
                pass
            self.socket.close()
        if not closed:
            self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    # ---- the page -------------------------------------------------------------------------------

    def get(self, url):
        self.context = self.top
        self.command("browsingContext.navigate", context=self.top, url=url, wait="complete")

    def refresh(self):
        self.context = self.top
        # Firefox fails a reload with NS_BINDING_ABORTED when a navigation of the page's own (a
        # hash change still settling) overtakes it (seen once in some twenty runs); the page is
        # loading by then, so the reload is asked again, twice at most.
        for attempt in range(3):
            try:
                self.command("browsingContext.reload", context=self.top, wait="complete")
                return
            except BiDiError as error:
                if "NS_BINDING_ABORTED" not in str(error) or attempt == 2:
                    raise
                time.sleep(0.2)

    @property
    def current_url(self):
        return self.call(self.top, "() => location.href")

    @property
    def switch_to(self):
        return _SwitchTo(self)

    def save_screenshot(self, path):
        """The top page's viewport as a PNG."""
        data = self.command("browsingContext.captureScreenshot", context=self.top)["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def errors(self):
        """What the page logged as an error since the last call: script errors, console.error,
        Content-Security-Policy violations (Firefox reports those as script errors)."""
        self.command("session.status")  # a round trip, so entries already sent are read
        entries, self.logged, self.failed_loads = self.logged, [], []
        return [f"{entry['type']}: {entry.get('text')}" for entry in entries if entry.get("level") == "error"]

    def messages(self):
        """Everything the page logged as an error or a warning since the last call, and every answer
        of 400 or more it got (network.responseCompleted, as Chromium's log has them): a page that
        loads cleanly has none."""
        self.command("session.status")
        entries, self.logged, failed, self.failed_loads = self.logged, [], self.failed_loads, []
        return [f"{entry['level']} {entry['type']}: {entry.get('text')}" for entry in entries if entry.get("level") in ("error", "warn")] + \
            [f"failed load: {load}" for load in failed]

    def execute_script(self, body, *args):
        """Runs `body` as a function's body in the page (`arguments` holds args, elements
        included), as selenium's execute_script does; returns its value, elements as Elements."""
        return self.call(self.context, f"function() {{ {body} }}", *args)

    def call(self, context, function, *args):
        result = self.command("script.callFunction", functionDeclaration=function, awaitPromise=False,
                              target={"context": context}, arguments=[self._argument(a) for a in args],
                              serializationOptions={"maxDomDepth": 0}, resultOwnership="none")
        if result["type"] == "exception":
            details = result["exceptionDetails"]
            raise BiDiError(f"script error: {details.get('text')}")
        return self._value(result["result"], context)

    # ---- finding elements -----------------------------------------------------------------------

    def find_element(self, by, value):
        return self._first(self.context, by, value, None)

    def find_elements(self, by, value):
        return self._locate(self.context, by, value, None)

    def _first(self, context, by, value, start):
        found = self._locate(context, by, value, start, limit=1)
        if not found:
            raise NoSuchElement(f"no element {by} {value!r}")
        return found[0]

    def _locate(self, context, by, value, start, limit=None):
        if by == By.XPATH:
            locator = {"type": "xpath", "value": value}
        else:
            css = {By.CSS_SELECTOR: value, By.ID: f'[id="{value}"]', By.TAG_NAME: value}[by]
            locator = {"type": "css", "value": css}
        return self._nodes(context, locator, start, limit)

    def _nodes(self, context, locator, start=None, limit=None):
        params = {"context": context, "locator": locator, "serializationOptions": {"maxDomDepth": 0}}
        if start is not None:
            params["startNodes"] = [{"sharedId": start.id}]
        if limit is not None:
            params["maxNodeCount"] = limit
        return [Element(self, node["sharedId"], context) for node in self.command("browsingContext.locateNodes", **params)["nodes"]]

    def unnamed_controls(self, roles):
        """(how many elements have one of `roles` in Firefox's accessibility tree, those of them
        whose accessible name is empty, as (role, outerHTML)). Both come from Firefox's own
        accessibility service: the accessibility locator matches a node's computed role and name,
        and a name of "" matches the nodes a screen reader would announce without one. One search
        for those, then one per role (each search walks the whole document, ~0.4 s on the screens
        page), rather than role and name together for every role."""
        unnamed = set(self._nodes(self.context, {"type": "accessibility", "value": {"name": ""}}))
        controls = [(role, element) for role in roles
                    for element in self._nodes(self.context, {"type": "accessibility", "value": {"role": role}})]
        return len(controls), [(role, element.get_attribute("outerHTML")[:100]) for role, element in controls if element in unnamed]

    # ---- input ----------------------------------------------------------------------------------

    def press(self, *keys):
        """Keys pressed and released in turn, on whatever has the focus; a modifier (Keys.CONTROL)
        stays down until the end, as in selenium's send_keys."""
        actions = []
        held = []
        for key in "".join(keys):
            actions.append({"type": "keyDown", "value": key})
            if key in MODIFIERS:
                held.append(key)
            else:
                actions.append({"type": "keyUp", "value": key})
        actions += [{"type": "keyUp", "value": key} for key in reversed(held)]
        self.command("input.performActions", context=self.top, actions=[{"type": "key", "id": "keyboard", "actions": actions}])

    def select(self, element, value):
        # What WebDriver's Element Click does to an <option>, which is how selenium's Select picks
        # one on Chromium: selected, then input and change. A person uses the popup, which is drawn
        # outside the page where no input action reaches.
        element.call("(e, v) => { e.value = v; if (e.value !== v) throw new Error(`no option ${v}`);"
                     " e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); }",
                     value)

    def _argument(self, value):
        if isinstance(value, Element):
            return {"sharedId": value.id}
        if value is None:
            return {"type": "null"}
        if isinstance(value, bool):
            return {"type": "boolean", "value": value}
        if isinstance(value, (int, float)):
            return {"type": "number", "value": value}
        if isinstance(value, str):
            return {"type": "string", "value": value}
        raise TypeError(f"cannot pass {value!r} to a script")

    def _value(self, remote, context):
        kind = remote["type"]
        if kind in ("undefined", "null"):
            return None
        if kind in ("string", "number", "boolean"):
            return remote["value"]
        if kind == "node":
            return Element(self, remote["sharedId"], context)
        if kind == "array":
            return [self._value(item, context) for item in remote["value"]]
        if kind == "object":
            return {key: self._value(item, context) for key, item in remote["value"]}
        if kind == "window":
            return remote["value"]["context"]
        return remote


class _SwitchTo:
    def __init__(self, firefox):
        self.firefox = firefox

    def frame(self, element):
        """Searches and scripts go to the document of an <iframe> Element from now on."""
        self.firefox.context = element.call("e => e.contentWindow")

    def default_content(self):
        self.firefox.context = self.firefox.top


class Element:
    """A node in one of the page's frames, as BiDi shares it (the same node keeps its id)."""

    def __init__(self, firefox, shared_id, context):
        self.firefox, self.id, self.context = firefox, shared_id, context

    def __eq__(self, other):
        return isinstance(other, Element) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def call(self, function, *args):
        """The value of `function(element, *args)`, run in the element's frame."""
        return self.firefox.call(self.context, function, self, *args)

    def find_element(self, by, value):
        return self.firefox._first(self.context, by, value, self)

    def find_elements(self, by, value):
        return self.firefox._locate(self.context, by, value, self)

    @property
    def text(self):
        # selenium's text is what is rendered: nothing for a hidden element.
        return self.call("e => e.checkVisibility({visibilityProperty: true}) ? e.innerText : ''")

    def get_attribute(self, name):
        """Like selenium's: a property when the element has one (value: the current text; open:
        "true" or None), otherwise the attribute."""
        return self.call("(e, name) => { if (!(name in e)) return e.getAttribute(name); const v = e[name];"
                         " return typeof v === 'boolean' ? (v ? 'true' : null) : v == null ? null : String(v); }", name)

    def is_displayed(self):
        return self.call("e => e.checkVisibility({visibilityProperty: true})")

    def is_enabled(self):
        return self.call("e => !e.matches(':disabled')")

    def click(self):
        """A mouse click at the element's centre, as a person clicks: scrolled into view first, and
        refused when something else (a dialog, an overlay) is on top there.

        The page may scroll between the two steps (Firefox restores a reloaded page's scroll
        position after its load event), which moves the element out of the viewport; then it is
        scrolled into view again, as a person would, a few times at most."""
        for attempt in range(3):
            on_top = self.call("""e => {
                e.scrollIntoView({block: 'center', inline: 'center'});
                const box = e.getBoundingClientRect();
                const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
                return !hit || e.contains(hit) ? null : hit.outerHTML.slice(0, 120); }""")
            if on_top:
                raise BiDiError(f"the click would land on {on_top}")
            try:
                self.firefox.command("input.performActions", context=self.context, actions=[{
                    "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
                        {"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element", "element": {"sharedId": self.id}}},
                        {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}])
                return
            except BiDiError as error:
                if "move target out of bounds" not in str(error) or attempt == 2:
                    raise
                time.sleep(0.1)

    def send_keys(self, *keys):
        """Types into the element after focusing it (the caret at the end of its text), as
        WebDriver's Element Send Keys does; for a file input, the file is chosen instead."""
        if self.call("e => e.localName === 'input' && e.type === 'file'"):
            self.firefox.command("input.setFiles", context=self.context, element={"sharedId": self.id}, files=list(keys))
            return
        self.call("""e => { if (document.activeElement === e) return;
            e.focus();
            try { e.setSelectionRange(e.value.length, e.value.length); } catch { /* number inputs have no caret */ } }""")
        self.firefox.press(*keys)
