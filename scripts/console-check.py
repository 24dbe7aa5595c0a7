#!/usr/bin/env python3
"""The ops console in a real browser (scripts/console-check runs this; see its header).

Starts the trellis binary given on a temporary copy of Config/ with tokens made by `trellis token
new` and a temporary data directory, and drives /console in headless Chromium (selenium and
chromedriver) or headless Firefox (WebDriver BiDi, scripts/bidi.py): every step checks what the page
shows and, with urllib, what the server then serves (a screen revision's health and a guard's last
look included, guards looking every second here). The steps are the same for both browsers; each
browser object gives them selenium's WebDriver operations and five more (errors, messages, press,
select, unnamed_controls). Screenshots of each page go to the artifacts directory. Any failure, or
anything the browser logs as an error (a Content-Security-Policy violation included), fails the run;
loading a page afresh must log nothing at all, warnings and failed loads included.

    scripts/console-check.py --bin .build/debug/trellis [--browser chromium|firefox] [--artifacts DIR]
"""
import argparse
import http.client
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import bidi
from bidi import By, Keys

ROOT = Path(__file__).resolve().parent.parent
WAIT = 15  # seconds any expectation may take (the console polls every 3 while the change stream is down)
LIVE = 1.5  # seconds a change made elsewhere may take to appear through the change stream
PAGES = ["rollouts", "screens", "experiments", "rules", "targeting", "routes", "strings", "changes", "explain", "audit"]
# Pages reached from another (an experiment's results, from its card), not from the navigation.
LINKED_PAGES = ["results/console-results"]
# The pages only an admin token is offered (the API refuses the others there).
ADMIN_PAGES = ["tokens", "webhooks"]
# The roles of the controls every one of which must have an accessible name.
CONTROL_ROLES = {"button", "textbox", "spinbutton", "slider", "combobox", "link", "checkbox", "searchbox", "listbox"}
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


def fail(message):
    raise AssertionError(message)


def wait_for(what, predicate, timeout=WAIT):
    """predicate's first truthy value within timeout seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as error:  # the page is between states; try again
            last = error
        time.sleep(0.1)
    fail(f"timed out waiting for {what}" + (f" (last error: {last})" if last else ""))


def chromium():
    """Headless Chromium through selenium and Debian's chromedriver (imported here: the Firefox run
    needs neither)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import Select

    class Chromium(webdriver.Chrome):
        def errors(self):
            """What the browser logged as errors (script errors, policy violations), except the
            answers the steps provoke on purpose (403, 412, 422…), which Chromium logs as failed loads."""
            return [entry["message"] for entry in self.get_log("browser")
                    if entry["level"] == "SEVERE" and "the server responded with a status of" not in entry["message"]]

        def messages(self):
            """Everything the browser logged as an error or a warning, whatever its cause (a failed
            load included): a page that loads cleanly logs none."""
            return [f"{entry['level']} {entry['message']}" for entry in self.get_log("browser")
                    if entry["level"] in ("SEVERE", "WARNING")]

        def press(self, *keys):
            webdriver.ActionChains(self).send_keys(*keys).perform()

        def select(self, element, value):
            Select(element).select_by_value(value)

        def unnamed_controls(self, roles):
            """(how many elements of the accessibility tree have one of `roles`, those of them without a name)."""
            self.execute_cdp_cmd("Accessibility.enable", {})
            nodes = self.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
            controls = [node for node in nodes if not node.get("ignored") and node.get("role", {}).get("value") in roles]
            return len(controls), [(node["role"]["value"], node.get("backendDOMNodeId")) for node in controls
                                   if not str(node.get("name", {}).get("value", "")).strip()]

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1100", "--lang=en-US"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = Chromium(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.implicitly_wait(0)
    return driver


def firefox(log):
    return bidi.Firefox(shutil.which("firefox-esr") or "firefox", width=1400, height=1100, log=log)


class Server:
    """The trellis binary on a free port, over `config` and `data`."""

    def __init__(self, binary, config, data, log):
        self.binary, self.config, self.data, self.log = binary, config, data, log
        self.process = None
        self.url = None

    def start(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [self.binary, "serve", "--config", str(self.config), "--data-dir", str(self.data), "--host", "127.0.0.1",
             "--port", str(port), "--set", "accessLog=false",
             # Guards look every second (10 by default), so a guard's last look is there within the steps' waits.
             "--set", "events.guardIntervalSeconds=1"],
            stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        wait_for("the server to be ready", lambda: self.ready(), timeout=60)

    def ready(self):
        if self.process.poll() is not None:
            fail(f"trellis exited with {self.process.returncode}: {Path(self.log).read_text()[-3000:]}")
        try:
            return urllib.request.urlopen(self.url + "/readyz", timeout=2).status == 200
        except (urllib.error.URLError, ConnectionError):
            return False

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


class Check:
    def __init__(self, args):
        self.binary = str(Path(args.bin).resolve())
        self.browser = args.browser
        self.artifacts = Path(args.artifacts or ROOT / ".build/console-artifacts" / ("firefox" if args.browser == "firefox" else ""))
        self.artifacts.mkdir(parents=True, exist_ok=True)
        for old in self.artifacts.glob("*.png"):
            old.unlink()
        self.work = Path(tempfile.mkdtemp(prefix="console-check."))
        self.config = self.work / "config"
        shutil.copytree(ROOT / "Config", self.config)
        self.tokens = {}
        entries = []
        for name, role in [("ops", "write"), ("viewer", "read"), ("lead", "approve"), ("root", "admin")]:
            out = subprocess.run([self.binary, "token", "new", "--name", name, "--role", role],
                                 check=True, capture_output=True, text=True).stdout.splitlines()
            self.tokens[name] = out[0].strip()
            entries.append(json.loads(out[1]))
        settings = json.loads((self.config / "server.json").read_text())
        # The webhook the check makes points at 127.0.0.1, which webhooks reach only when allowed.
        settings["admin"] = {"tokens": entries, "webhookAllowPrivate": True}
        (self.config / "server.json").write_text(json.dumps(settings, indent=2))
        self.server = Server(self.binary, self.config, self.work / "data", self.work / "trellis.log")
        self.driver = None
        self.steps = []

    # ---- HTTP, as curl would ------------------------------------------------------------------

    def http(self, method, path, token=None, body=None, headers=None):
        """(status, headers, parsed body or bytes) of a request to the server."""
        request = urllib.request.Request(self.server.url + path, method=method, headers=dict(headers or {}))
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if body is not None:
            request.data = json.dumps(body).encode()
            request.add_header("Content-Type", "application/json")
        try:
            response = urllib.request.urlopen(request, timeout=10)
        except urllib.error.HTTPError as error:
            response = error
        data = response.read()
        if response.headers.get("Content-Type", "").startswith(("application/json", "application/problem+json")) and \
                response.headers.get("Content-Encoding") != "gzip":
            data = json.loads(data)
        return response.status, response.headers, data

    def has_gold_banner(self, user):
        status, _, body = self.http("GET", f"/v1/screens/home?user={user}&attr.membership=gold")
        if status != 200:
            fail(f"GET /v1/screens/home for {user}: {status}")
        return '"id": "gold-banner"' in json.dumps(body)  # the banner's component, not the decision map

    def bucket_user(self, low, high):
        """A user whose position in the gold-banner group is in [low, high)."""
        for n in range(1, 500):
            user = f"u{n}"
            report = json.loads(subprocess.run(
                [self.binary, "bucket", "--group", "gold-banner", "--user", user], check=True, capture_output=True, text=True).stdout)
            if low <= float(report["position"]) < high:
                return user
        fail(f"no user among u1…u499 at a position in [{low}, {high})")

    # ---- the browser ----------------------------------------------------------------------------

    def open_browser(self):
        self.driver = firefox(self.work / "firefox.log") if self.browser == "firefox" else chromium()

    def find(self, css):
        return wait_for(f"an element {css}", lambda: self.driver.find_element(By.CSS_SELECTOR, css))

    def text_of(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css).text

    def notice(self, *fragments):
        """Waits until the notice line says every fragment; returns it."""
        return wait_for(f"a notice saying {fragments}",
                        lambda: (t := self.text_of("#notice")) and all(f in t for f in fragments) and t)

    def shot(self, name):
        path = self.artifacts / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def set_value(self, element, text):
        """Replaces a field's text as typing would, firing its input event."""
        self.driver.execute_script(
            "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}));", element, text)

    def sign_in(self, name):
        # Forget the last token on a page of the origin that runs no script, so no sign-in is in flight.
        self.driver.get(self.server.url + "/console/console.css")
        self.driver.execute_script("sessionStorage.clear()")
        self.driver.get(self.server.url + "/console")
        field = self.find("#token")
        field.send_keys(self.tokens[name])
        field.send_keys(Keys.ENTER)
        wait_for("the signed-in header", lambda: self.driver.find_element(By.ID, "who").is_displayed())

    def stream_open(self):
        """Waits until the page follows the change stream (GET /v1/changes), so it polls no more."""
        wait_for("the change stream to be open", lambda: self.driver.execute_script(
            "return document.documentElement.dataset.live") == "stream")

    def banner(self):
        """The text of the banner that says someone else changed what the page shows, or None."""
        banner = self.driver.find_element(By.ID, "live-banner")
        return banner.text if banner.is_displayed() else None

    def someone_else(self, what):
        """Waits (LIVE seconds at most) for the banner; checks that it is a status."""
        text = wait_for(f"the changed-by-someone-else banner ({what})", lambda: (t := self.banner()) and "someone else" in t and t,
                        timeout=LIVE)
        if self.driver.find_element(By.ID, "live-banner").get_attribute("role") != "status":
            fail("the banner is not role=status")
        return text

    def go(self, page):
        if page in LINKED_PAGES:
            self.driver.execute_script("location.hash = arguments[0]", f"#{page}")
        else:
            self.driver.find_element(By.CSS_SELECTOR, f'nav a[href="#{page}"]').click()
        self.page_ready(page)

    def page_ready(self, page):
        """Waits until the page has rendered (the shell takes #page's aria-busy away then)."""
        wait_for(f"the {page} page", lambda: self.driver.find_element(By.CSS_SELECTOR, "#page h2") and
                 self.driver.execute_script("return !document.getElementById('page').hasAttribute('aria-busy')"))

    def nav_pages(self):
        return [link.get_attribute("href").split("#")[1] for link in self.driver.find_elements(By.CSS_SELECTOR, "nav a")]

    def row(self, key):
        return self.find(f'tr[data-key="{key}"]')

    def confirm(self):
        dialog = self.find("#confirm")
        wait_for("the confirmation dialog", lambda: dialog.get_attribute("open") is not None)
        self.driver.find_element(By.ID, "confirm-ok").click()

    # ---- steps ----------------------------------------------------------------------------------

    def step(self, name, function):
        start = time.monotonic()
        function()
        errors = self.driver.errors()
        if errors:
            fail(f"{name}: the browser logged errors: {errors}")
        self.steps.append((name, time.monotonic() - start))
        print(f"  ok  {name} ({time.monotonic() - start:.1f} s)", flush=True)

    def served_with_headers(self):
        for path in ["/console", "/console/app.js", "/console/console.css", "/console/missing.js"]:
            status, headers, _ = self.http("GET", path, headers={"Accept-Encoding": "gzip"})
            if status != (404 if "missing" in path else 200):
                fail(f"GET {path}: {status}")
            expected = {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
                        "X-Content-Type-Options": "nosniff"}
            for name, value in expected.items():
                if headers.get(name) != value:
                    fail(f"GET {path}: {name} is {headers.get(name)!r}, not {value!r}")
            if status == 200:
                if headers.get("Content-Encoding") != "gzip":
                    fail(f"GET {path} with Accept-Encoding: gzip was not compressed")
                again, again_headers, _ = self.http("GET", path, headers={"If-None-Match": headers["ETag"]})
                if again != 304 or again_headers.get("Content-Security-Policy") != CSP:
                    fail(f"GET {path} with its ETag: {again}, not 304 with the headers")
        # The icon browsers ask for by themselves: the console's, with its headers, revalidated.
        status, headers, icon = self.http("GET", "/favicon.ico")
        if status != 200 or headers.get("Content-Type") != "image/svg+xml" or not (isinstance(icon, bytes) and icon.startswith(b"<svg")) or \
                headers.get("Content-Security-Policy") != CSP or headers.get("Cache-Control") != "no-cache":
            fail(f"GET /favicon.ico: {status} {headers.get('Content-Type')} {headers.get('Cache-Control')}, {str(icon)[:80]}")
        again, _, _ = self.http("GET", "/favicon.ico", headers={"If-None-Match": headers["ETag"]})
        if again != 304:
            fail(f"GET /favicon.ico with its ETag: {again}, not 304")
        connection = http.client.HTTPConnection(self.server.url.removeprefix("http://"), timeout=10)
        connection.request("GET", "/console/")
        response = connection.getresponse()
        if response.status != 308 or response.getheader("Location") != "/console":
            fail(f"GET /console/: {response.status} to {response.getheader('Location')}, not 308 to /console")
        connection.close()

    def sign_in_write(self):
        self.sign_in("ops")
        if "write" not in self.text_of("#who"):
            fail(f"the ops token shows as {self.text_of('#who')!r}")
        self.row("gold-banner")
        if self.driver.find_element(By.ID, "role-note").is_displayed():
            fail("a write token sees the read-only note")

    def ramp_gold_banner(self):
        user = self.bucket_user(25, 40)
        if self.has_gold_banner(user):
            fail(f"{user} (position 25…40) has the gold banner at 25 %")
        row = self.row("gold-banner")
        number = row.find_element(By.CSS_SELECTOR, "input[type=number]")
        number.send_keys(Keys.CONTROL, "a")
        number.send_keys("40")
        slider = row.find_element(By.CSS_SELECTOR, "input[type=range]")
        if slider.get_attribute("value") != "40":
            fail(f"the slider did not follow the number field: {slider.get_attribute('value')}")
        row.find_element(By.XPATH, ".//button[text()='Apply']").click()
        self.notice("Setting gold-banner to 40%: done")
        wait_for("the public screen to show the banner", lambda: self.has_gold_banner(user))
        status, _, value = self.http("GET", "/admin/rollouts/gold-banner", self.tokens["ops"])
        if value["percentage"] != 40 or value["updatedBy"] != "ops":
            fail(f"gold-banner after the ramp: {value}")
        wait_for("the row to say who changed it", lambda: "ops" in self.row("gold-banner").text)
        self.ramped_user = user

    def kill_gold_banner(self):
        row = self.row("gold-banner")
        row.find_element(By.XPATH, ".//button[text()='Kill']").click()
        self.shot("rollouts-kill-confirmation")
        self.confirm()
        self.notice("Killing gold-banner: done")
        wait_for("the row to say Killed", lambda: "Killed" in self.row("gold-banner").text)
        if self.has_gold_banner(self.ramped_user):
            fail("the killed rollout is still served")

    def create_rollout(self):
        self.set_value(self.find("#new-rollout-key"), "console-made")
        self.set_value(self.find("#new-rollout-percentage"), "12.5")
        self.set_value(self.find("#new-rollout-description"), "Made in the console check")
        self.driver.find_element(By.XPATH, "//button[text()='Create rollout']").click()
        self.notice("Creating rollout console-made: done")
        # The page's own write comes back through the change stream too: no banner for it.
        time.sleep(1)
        if self.banner():
            fail(f"the page's own write shows the banner: {self.banner()!r}")
        row = self.row("console-made")
        if row.find_element(By.CSS_SELECTOR, "input[type=number]").get_attribute("value") != "12.5":
            fail("the new rollout's row does not show 12.5")
        status, _, value = self.http("GET", "/admin/rollouts/console-made", self.tokens["ops"])
        if status != 200 or value["percentage"] != 12.5:
            fail(f"GET /admin/rollouts/console-made: {status} {value}")

    def live_update(self):
        # Through the change stream, not the 3 s poll (which does not run while the stream is open).
        self.stream_open()
        status, _, _ = self.http("PUT", "/admin/rollouts/console-made", self.tokens["ops"], {"percentage": 33})
        if status != 200:
            fail(f"PUT console-made: {status}")
        wait_for("the open page to show 33 without a reload", lambda: self.row("console-made").find_element(
            By.CSS_SELECTOR, "input[type=number]").get_attribute("value") == "33", timeout=LIVE)
        self.someone_else("a rollout changed with urllib")
        self.notice("console-made was changed by ops")
        self.shot("rollouts")

    def precondition_failed(self):
        row = self.row("checkout-v2")
        number = row.find_element(By.CSS_SELECTOR, "input[type=number]")
        self.set_value(number, "30")
        status, headers, _ = self.http("GET", "/admin/rollouts/checkout-v2", self.tokens["ops"])
        status, _, _ = self.http("PUT", "/admin/rollouts/checkout-v2", self.tokens["ops"], {"percentage": 15},
                                 {"If-Match": headers["ETag"]})
        if status != 200:
            fail(f"the concurrent PUT: {status}")
        wait_for("the row to say someone changed it while editing",
                 lambda: "while you were editing" in self.row("checkout-v2").text)
        self.row("checkout-v2").find_element(By.XPATH, ".//button[text()='Apply']").click()
        self.notice("412", "someone else changed it", "Reload shows their value")
        self.shot("rollouts-412")
        self.row("checkout-v2").find_element(By.XPATH, ".//button[text()='Reload checkout-v2']").click()
        wait_for("their value after the reload", lambda: self.row("checkout-v2").find_element(
            By.CSS_SELECTOR, "input[type=number]").get_attribute("value") == "15")

    def screens(self):
        self.go("screens")
        editor = self.find("#screen-editor")
        original = wait_for("the served revision in the editor", lambda: editor.get_attribute("value"))
        head = self.text_of("#screen-head")
        # Invalid: a property the vocabulary does not have, on a line of its own.
        lines = original.split("\n")
        index = next(i for i, line in enumerate(lines) if '"root"' in line)
        bad = "\n".join(lines[:index] + ['  "colour": "red",'] + lines[index:])
        upload = self.work / "bad-home.json"
        upload.write_text(bad)
        self.find("#screen-file").send_keys(str(upload))
        wait_for("the file in the editor", lambda: editor.get_attribute("value") == bad)
        self.driver.find_element(By.XPATH, "//button[text()='Publish']").click()
        errors = wait_for("the problems list", lambda: self.driver.find_elements(By.CSS_SELECTOR, "#screen-errors li"))
        if not any(f"Line {index + 1}," in e.text for e in errors):
            fail(f"no problem at line {index + 1}: {[e.text for e in errors]}")
        marked = [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, ".gutter .marked")]
        if str(index + 1) not in marked:
            fail(f"the gutter marks {marked}, not line {index + 1}")
        self.notice("422")
        self.shot("screens-422")
        # The problem's button selects its line in the editor.
        errors[0].find_element(By.TAG_NAME, "button").click()
        selected = self.driver.execute_script("const e = arguments[0]; return e.value.slice(e.selectionStart, e.selectionEnd)", editor)
        if '"colour"' not in selected:
            fail(f"the problem's line is not selected: {selected!r}")
        # Valid, staged to 50 %.
        status, _, before = self.http("GET", "/admin/screens/home", self.tokens["ops"])
        self.set_value(editor, original.replace('"title": "Home"', '"title": "New Home"', 1))
        self.set_value(self.find("#publish-stage"), "50")
        self.driver.find_element(By.XPATH, "//button[text()='Publish']").click()
        self.notice("Publishing staged to 50%: done")
        staged = before["latestRevision"] + 1
        wait_for("the staged revision", lambda: f"Revision {staged} is staged to 50%" in self.text_of("#screen-head"))
        self.set_value(self.find("#stage-percentage"), "75")
        self.driver.find_element(By.XPATH, "//button[text()='Set stage percentage']").click()
        wait_for("the new stage", lambda: f"Revision {staged} is staged to 75%" in self.text_of("#screen-head"))
        # The served and the staged revision side by side, at the chosen platform and viewport.
        self.driver.select(self.find("#preview-platform"), "android")
        self.driver.select(self.find("#preview-size"), "412x915")
        self.driver.select(self.find("#preview-direction"), "rtl")
        self.driver.find_element(By.XPATH, "//button[text()='Show preview']").click()
        for label, revision in [("served", before["revision"]), ("staged", staged)]:
            frame = self.find(f'figure[data-preview="{label}"] iframe.preview')
            wait_for(f"the {label} preview's address", lambda: frame.get_attribute("src"))
            source = frame.get_attribute("src")
            if f"revision={revision}" not in source or "platform=android" not in source or "width=412" not in source \
                    or "direction=rtl" not in source:
                fail(f"the {label} preview shows {source}, not revision {revision} on android at 412 wide, right to left")
            if "home-navigation" not in self.preview_boxes(frame):
                fail(f"the {label} preview (revision {revision}) does not draw the home screen")
        self.shot("screens-staged-previews")
        self.driver.find_element(By.XPATH, f"//button[text()='Promote revision {staged} to everybody']").click()
        wait_for("the promoted revision", lambda: f"Serving revision {staged} " in self.text_of("#screen-head"))
        status, _, served = self.http("GET", "/admin/screens/home", self.tokens["ops"])
        if served["revision"] != staged or served["staged"] is not None:
            fail(f"after promote: {served}")
        self.shot("screens")
        self.driver.find_element(By.XPATH, f"//button[text()='Roll back to revision {before['revision']}']").click()
        self.confirm()
        self.notice(f"Rolling back to revision {before['revision']}: done")
        wait_for("the rollback revision served", lambda: f"Serving revision {staged + 1} (rollback)" in self.text_of("#screen-head"))
        boxes = self.preview_boxes(self.find("iframe.preview"))
        if "home-navigation" not in boxes:
            fail(f"the preview draws {sorted(boxes)[:10]}, not the home screen")
        if head == self.text_of("#screen-head"):
            fail("the head did not change")
        self.driver.select(self.find("#compare-from"), str(before["revision"]))
        self.driver.select(self.find("#compare-to"), str(staged))
        self.driver.find_element(By.XPATH, "//button[text()='Compare']").click()
        removed = wait_for("the diff", lambda: [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "#compare-result td.removed")])
        added = [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "#compare-result td.added")]
        if removed != ['  "title": "Home",'] or added != ['  "title": "New Home",']:
            fail(f"the diff of revisions {before['revision']} and {staged}: removed {removed}, added {added}")
        self.shot("screens-diff")

    # ---- health and guards ----------------------------------------------------------------------

    def screen_health_and_guard(self):
        """The screens page's health and guard. A revision of home staged to 50 % in the page (and
        left staged, so that the later page loads, read-only and keyboard checks see both revisions'
        health); a guard set in the form (a 422 first, at its path), shown, and as GET …/guard has it;
        users served each revision (GET /v1/screens/home?user=…, which records them while a revision
        is staged) and render beacons from some (POST /v1/events): the health table equal to GET
        …/revisions/{n}/health and the guard's last look equal to GET …/guard's; the guard removed."""
        ops = self.tokens["ops"]
        if self.find("#screen-picker").get_attribute("value") != "home":
            fail("the screens page does not show home after the screens step")
        editor = self.find("#screen-editor")
        text = wait_for("the served revision in the editor", lambda: editor.get_attribute("value"))
        if '"title": "Home"' not in text:
            fail("home's served revision is not titled Home")
        _, _, before = self.http("GET", "/admin/screens/home", ops)
        current, staged = before["revision"], before["latestRevision"] + 1
        self.set_value(editor, text.replace('"title": "Home"', '"title": "Guarded Home"', 1))
        self.set_value(self.find("#publish-stage"), "50")
        self.driver.find_element(By.XPATH, "//button[text()='Publish']").click()
        self.notice("Publishing staged to 50%: done")
        wait_for(f"revision {staged} staged", lambda: f"Revision {staged} is staged to 50%" in self.text_of("#screen-head"))
        self.find(f'#health-table tr[data-revision="{staged}"][data-served="staged"]')
        # The guard: a tolerance the server refuses, then one it takes.
        guard = '[data-guard="screens/home"]'
        wait_for("no guard yet", lambda: "No guard" in self.text_of(guard))
        self.driver.select(self.find("#screen-guard-check-0-metric"), "render-failures")
        tolerance = self.find("#screen-guard-check-0-tolerance")
        self.set_value(tolerance, "20")
        self.set_value(self.find("#screen-guard-minimum-users"), "1000")
        self.driver.select(self.find("#screen-guard-action"), "hold")  # nothing is abandoned, whatever it sees
        self.set_value(self.find("#screen-guard-alpha"), "0.05")
        self.find("#screen-guard-save").click()
        self.notice("Setting the guard of home failed (422 from PUT /admin/screens/home/guard)")
        problems = self.problems_listed("#screen-guard-errors")
        if not any("$.checks[0].tolerance" in p for p in problems):
            fail(f"the 422's problems beside the form: {problems}")
        if tolerance.get_attribute("aria-invalid") != "true":
            fail("the tolerance the 422 names is not marked invalid")
        self.set_value(tolerance, "0.1")
        self.find("#screen-guard-save").click()
        self.notice("Setting the guard of home: done")
        self.same_guard("/admin/screens/home/guard",
                        {"checks": [{"metric": "render-failures", "tolerance": 0.1}], "minimumUsers": 1000, "action": "hold", "alpha": 0.05})
        wait_for("the guard shown", lambda: "render-failures" in (t := self.text_of(f"{guard} table.guard-checks")) and "10% worse" in t
                 and "hold" in self.text_of(f"{guard} .guard-settings"))
        # Users of each revision, and render beacons from three of the staged one's and one of the current's.
        served = {}
        for i in range(40):
            status, _, screen = self.http("GET", f"/v1/screens/home?user=guard-user-{i}")
            if status != 200:
                fail(f"GET /v1/screens/home for guard-user-{i}: {status}")
            served[f"guard-user-{i}"] = screen["revision"]
        arms = {revision: [user for user, got in served.items() if got == revision] for revision in (staged, current)}
        if len(arms[staged]) < 3 or len(arms[current]) < 1 or len(served) != len(arms[staged]) + len(arms[current]):
            fail(f"the revisions 40 users were served at 50 %: {served}")
        failing = {staged: arms[staged][:3], current: arms[current][:1]}
        self.post_events([{"id": f"{user}-render", "context": {"targetingKey": user},
                           "render": {"screen": "home", "revision": revision, "component": "root", "reason": "image_failed"}}
                          for revision, users in failing.items() for user in users])

        def counted():
            answer = self.health("home", staged)
            return answer["users"] >= len(arms[staged]) and answer["usersWithRenderFailures"] == len(failing[staged]) and \
                answer["against"]["users"] >= len(arms[current]) and answer["against"]["usersWithRenderFailures"] == len(failing[current]) and answer
        answer = wait_for("the exposures and beacons counted", counted)
        wait_for("the health table to equal GET …/health", lambda: self.health_shown_as_answered("home", staged))
        self.shot("screens-health")
        # What the guard saw (it looks every second here): the arms' users are the health's.
        wait_for("the guard's look at both revisions", lambda: (seen := self.http("GET", "/admin/screens/home/guard", ops)[2]["lastEvaluation"])
                 and seen["checks"][0].get("treatmentUsers") == answer["users"] and seen["checks"][0].get("controlUsers") == answer["against"]["users"])
        wait_for("the guard's last look to equal GET …/guard's", lambda: self.evaluation_shown_as_answered(guard, "/admin/screens/home/guard"))
        self.shot("screens-guard")
        self.find("#screen-guard-remove").click()
        self.confirm()
        self.notice("Removing the guard of home: done")
        wait_for("no guard shown", lambda: "No guard" in self.text_of(guard))
        self.no_guard("screens/home")

    def rollout_guard(self):
        """A rollout's guard, under its row: a metric defined over HTTP, checks added and removed,
        the guard set as GET …/guard then has it; changed over HTTP meanwhile, so Save is refused
        (412) and Reload shows theirs; replaced; its last look equal to GET …/guard's; removed."""
        ops = self.tokens["ops"]
        status, _, answer = self.http("PUT", "/admin/metrics/console-guard-errors", ops,
                                      {"type": "proportion", "event": "client_error", "higherIsBetter": False})
        if status not in (200, 201):
            fail(f"PUT /admin/metrics/console-guard-errors: {status} {answer}")
        self.go("rollouts")
        toggle = self.row("console-made").find_element(By.CSS_SELECTOR, 'button[aria-label="Guard of console-made"]')
        if self.text_of('tr[data-key="console-made"] .guard-summary') != "none":
            fail(f"console-made's guard before one was set: {self.text_of('tr[data-key=console-made] .guard-summary')!r}")
        toggle.click()
        if toggle.get_attribute("aria-expanded") != "true":
            fail("the guard's button does not say it is expanded")
        guard = '[data-guard="rollouts/console-made"]'
        prefix = "#guard-console-made"
        wait_for("no guard yet", lambda: "No guard" in self.text_of(guard))
        self.find(f"{prefix}-add-check").click()
        self.find(f'{guard} [data-check="1"]').find_element(By.XPATH, ".//button[text()='Remove check 2']").click()
        wait_for("the second check gone", lambda: not self.driver.find_elements(By.CSS_SELECTOR, f"{prefix}-check-1-metric"))
        self.driver.select(self.find(f"{prefix}-check-0-metric"), "console-guard-errors")
        self.set_value(self.find(f"{prefix}-check-0-tolerance"), "0.05")
        self.driver.select(self.find(f"{prefix}-check-0-bad"), "rise")
        self.set_value(self.find(f"{prefix}-minimum-users"), "500")
        self.driver.select(self.find(f"{prefix}-action"), "hold")
        self.set_value(self.find(f"{prefix}-alpha"), "0.02")
        self.find(f"{prefix}-save").click()
        self.notice("Setting the guard of console-made: done")
        sent = {"checks": [{"metric": "console-guard-errors", "tolerance": 0.05, "bad": "rise"}], "minimumUsers": 500, "action": "hold", "alpha": 0.02}
        self.same_guard("/admin/rollouts/console-made/guard", sent)
        wait_for("the guard in its row", lambda: self.text_of('tr[data-key="console-made"] .guard-summary') == "hold: console-guard-errors")
        wait_for("the guard shown", lambda: "console-guard-errors" in (t := self.text_of(f"{guard} table.guard-checks")) and "5% worse" in t and "a rise" in t)
        # Someone else changes it first: Save is refused, Reload shows theirs.
        status, headers, _ = self.http("GET", "/admin/rollouts/console-made/guard", ops)
        theirs = {**sent, "alpha": 0.03}
        status, _, answer = self.http("PUT", "/admin/rollouts/console-made/guard", ops, theirs, {"If-Match": headers["ETag"]})
        if status != 200:
            fail(f"the concurrent PUT of the guard: {status} {answer}")
        self.set_value(self.find(f"{prefix}-check-0-tolerance"), "0.2")
        self.find(f"{prefix}-save").click()
        self.notice("Replacing the guard of console-made failed", "412", "someone else changed it")
        self.find(guard).find_element(By.XPATH, ".//button[text()='Reload the guard of console-made']").click()
        wait_for("their α after the reload", lambda: self.find(f"{prefix}-alpha").get_attribute("value") == "0.03")
        self.set_value(self.find(f"{prefix}-check-0-tolerance"), "0.2")
        self.find(f"{prefix}-save").click()
        self.notice("Replacing the guard of console-made: done")
        self.same_guard("/admin/rollouts/console-made/guard", {**theirs, "checks": [{**sent["checks"][0], "tolerance": 0.2}]})
        # console-made is on at 33 %: the guard looks at its admitted users and the rest.
        wait_for("the guard's look", lambda: self.http("GET", "/admin/rollouts/console-made/guard", ops)[2]["lastEvaluation"])
        wait_for("the guard's last look to equal GET …/guard's", lambda: self.evaluation_shown_as_answered(guard, "/admin/rollouts/console-made/guard"))
        self.shot("rollouts-guard")
        self.find(f"{prefix}-remove").click()
        self.confirm()
        self.notice("Removing the guard of console-made: done")
        wait_for("no guard shown", lambda: "No guard" in self.text_of(guard))
        wait_for("no guard in its row", lambda: self.text_of('tr[data-key="console-made"] .guard-summary') == "none")
        self.no_guard("rollouts/console-made")

    def health(self, screen, revision):
        status, _, answer = self.http("GET", f"/admin/screens/{screen}/revisions/{revision}/health", self.tokens["ops"])
        if status != 200:
            fail(f"GET /admin/screens/{screen}/revisions/{revision}/health: {status} {answer}")
        return answer

    def health_shown_as_answered(self, screen, revision):
        """Refreshes the health section; True when it shows what GET …/health answers next."""
        self.find("#health-refresh").click()
        wait_for("the health loaded", lambda: not self.driver.execute_script("return document.getElementById('health-body').hasAttribute('aria-busy')"))
        shown = self.driver.execute_script("""
            const cell = (row, name) => row.querySelector('td.' + name).textContent;
            return {rows: [...document.querySelectorAll('#health-table tbody tr')].map(r => ({revision: Number(r.dataset.revision),
                      served: r.dataset.served, users: cell(r, 'users'), failing: cell(r, 'failing'), rate: cell(r, 'rate')})),
                    multiple: document.getElementById('health-multiple').textContent,
                    asOf: document.getElementById('health-as-of').dataset.asOf};""")
        answer = self.health(screen, revision)
        expected = [answer] + ([answer["against"]] if answer.get("against") else [])
        if len(shown["rows"]) != len(expected):
            fail(f"the health table has {shown['rows']}, the answer {expected}")
        for row, figures in zip(shown["rows"], expected):
            what = f"the health of revision {figures['revision']}"
            if (row["revision"], row["served"], row["users"], row["failing"]) != \
                    (figures["revision"], figures["served"], f"{figures['users']:,}", f"{figures['usersWithRenderFailures']:,}"):
                fail(f"{what}: the page shows {row}, the answer has {figures}")
            self.same_figure(f"{what}, its rate", row["rate"], figures["renderFailureRate"], 0.00005)
        if shown["multiple"].split(" ")[0].replace(",", "") != str(answer["multipleExposures"]):
            fail(f"the page says {shown['multiple']!r}; the answer has {answer['multipleExposures']} multiple exposures")
        if not shown["asOf"] or shown["asOf"] > answer["asOf"]:
            fail(f"the health shown is as of {shown['asOf']!r}, the answer after it as of {answer['asOf']!r}")
        return True

    def evaluation_shown_as_answered(self, guard, path):
        """Refreshes the guard's view; True when its last look shows what GET `path` answers next
        (the figures, not the time: the guard looks again every second)."""
        self.find(guard).find_element(By.CSS_SELECTOR, "button[id$='-refresh']").click()
        time.sleep(0.3)
        # `:scope > …`: under a rollout's row the page's own table is an ancestor, so a bare
        # `tbody tr` would match the look's header row too.
        shown = self.driver.execute_script("""
            const panel = document.querySelector(arguments[0]);
            const look = panel.querySelector('.guard-evaluation');
            if (!look) return null;
            const cell = (row, name) => row.querySelector('td.' + name).textContent;
            return {verdict: look.dataset.verdict, rows: [...look.querySelectorAll(':scope > table > tbody > tr')].map(r => ({metric: r.dataset.metric,
                users: cell(r, 'users'), means: cell(r, 'means'), lift: cell(r, 'lift'), bound: cell(r, 'bound'), threshold: cell(r, 'threshold')}))};""", guard)
        seen = self.http("GET", path, self.tokens["ops"])[2]["lastEvaluation"]
        if not shown or not seen:
            fail(f"the page shows the last look {shown}, GET {path} has {seen}")
        if shown["verdict"] != seen["verdict"] or [r["metric"] for r in shown["rows"]] != [c["metric"] for c in seen["checks"]]:
            fail(f"the last look shown: {shown}; GET {path}: {seen}")
        for row, check in zip(shown["rows"], seen["checks"]):
            what = f"{path}, {check['metric']}"
            if row["users"] != f"{check['treatmentUsers']:,} · {check['controlUsers']:,}":
                fail(f"{what}: users {row['users']!r}, the answer has {check['treatmentUsers']} and {check['controlUsers']}")
            for shown_mean, mean in zip(row["means"].split(" · "), (check["treatmentMean"], check["controlMean"])):
                self.same_figure(f"{what}, a mean", shown_mean, mean, 0.0005)
            for name in ("lift", "bound", "threshold"):
                self.same_figure(f"{what}, the {name}", row[name], check[name], 0.00005)
        return True

    def same_guard(self, path, sent):
        """GET `path` has the guard the form sent."""
        status, _, view = self.http("GET", path, self.tokens["ops"])
        if status != 200 or {member: view.get(member) for member in sent} != sent:
            fail(f"GET {path}: {status} {view}, not what the form sent: {sent}")

    def no_guard(self, resource):
        """The server has no guard of `resource` any more."""
        status, _, _ = self.http("GET", f"/admin/{resource}/guard", self.tokens["ops"])
        _, _, listed = self.http("GET", "/admin/guards", self.tokens["ops"])
        if status != 404 or any(view["guards"] == resource for view in listed["guards"]):
            fail(f"the removed guard of {resource}: GET …/guard {status}, GET /admin/guards {listed}")

    def experiments(self):
        self.go("experiments")
        card = self.find('[data-experiment="home-hero"]')
        control = card.find_element(By.CSS_SELECTOR, 'input[aria-label="home-hero weight of control"]')
        big = card.find_element(By.CSS_SELECTOR, 'input[aria-label="home-hero weight of big"]')
        self.set_value(control, "20")
        self.set_value(big, "80")
        if "20.00% of users" not in card.text or "80.00% of users" not in card.text:
            fail(f"the shares do not follow the weights: {card.text}")
        card.find_element(By.XPATH, ".//button[text()='Apply home-hero']").click()
        self.notice("Changing home-hero: done")
        _, _, value = self.http("GET", "/admin/experiments/home-hero", self.tokens["ops"])
        if {v["name"]: v["weight"] for v in value["variants"]} != {"control": 20, "big": 80}:
            fail(f"home-hero after the change: {value}")
        card = self.find('[data-experiment="home-hero"]')
        self.set_value(card.find_element(By.CSS_SELECTOR, "form input"), "qa-anna")
        self.driver.select(card.find_element(By.CSS_SELECTOR, "form select"), "big")
        card.find_element(By.XPATH, ".//button[text()='Add override']").click()
        self.notice("Forcing qa-anna into big: done")
        _, _, value = self.http("GET", "/admin/experiments/home-hero", self.tokens["ops"])
        if value["overrides"] != {"qa-anna": "big"}:
            fail(f"home-hero's overrides: {value['overrides']}")
        wait_for("the override listed", lambda: "qa-anna → big" in self.find('[data-experiment="home-hero"]').text)
        self.shot("experiments")

    # ---- metrics and results ------------------------------------------------------------------

    METRICS = {
        "purchase-rate": {"type": "proportion", "event": "purchase", "windowHours": 72, "cuped": True},
        "revenue-per-user": {"type": "mean", "event": "purchase", "value": "sum"},
        "client-errors": {"type": "mean", "event": "client_error", "value": "count", "higherIsBetter": False},
    }

    def metrics(self):
        """The metrics section of the experiments page: metrics defined over HTTP listed; one defined,
        redefined (If-Match) and deleted in the page; a mistake refused at its line; a metric an
        experiment names refused deletion (409, the server's reason shown)."""
        for name, body in self.METRICS.items():
            status, _, answer = self.http("PUT", f"/admin/metrics/{name}", self.tokens["ops"], body)
            if status not in (200, 201):
                fail(f"PUT /admin/metrics/{name}: {status} {answer}")
        status, _, answer = self.http("POST", "/admin/experiments", self.tokens["ops"], {
            "key": "console-results", "variants": {"control": 50, "treatment": 50}, "defaultVariant": "control", "status": "running",
            "description": "Results in the console check", "goals": ["purchase-rate", "revenue-per-user"], "guardrails": ["client-errors"]})
        if status != 201:
            fail(f"POST /admin/experiments console-results: {status} {answer}")
        self.go("rollouts")
        self.go("experiments")
        table = self.find("#metrics-table")
        _, _, listed = self.http("GET", "/admin/metrics", self.tokens["ops"])
        for metric in listed["metrics"]:
            row = wait_for(f"the row of {metric['name']}", lambda: table.find_element(By.CSS_SELECTOR, f'tr[data-metric="{metric["name"]}"]'))
            cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
            if cells[0] != metric["type"] or cells[5] != (", ".join(metric["experiments"]) or "—"):
                fail(f"the row of {metric['name']}: {cells}, not {metric}")
        if "console-results" not in self.find('tr[data-metric="purchase-rate"]').text:
            fail("purchase-rate's row does not name console-results, which reads it")
        # Defined in the page.
        self.set_value(self.find("#metric-name"), "orders-per-user")
        self.set_value(self.find("#metric-editor"), '{"type": "mean", "event": "purchase", "value": "count"}')
        self.driver.find_element(By.ID, "metric-save").click()
        self.notice("Defining metric orders-per-user: done")
        status, _, value = self.http("GET", "/admin/metrics/orders-per-user", self.tokens["ops"])
        if status != 200 or value.get("value") != "count" or value.get("updatedBy") != "ops":
            fail(f"GET /admin/metrics/orders-per-user: {status} {value}")
        # Redefined: loaded with its version, sent with If-Match.
        self.find('tr[data-metric="orders-per-user"]').find_element(By.XPATH, ".//button[text()='Redefine orders-per-user']").click()
        editor = self.find("#metric-editor")
        text = wait_for("the definition in the editor", lambda: (t := editor.get_attribute("value")) and '"count"' in t and t)
        if "If-Match" not in self.text_of("#metric-editing"):
            fail(f"the editor does not say it redefines with If-Match: {self.text_of('#metric-editing')!r}")
        if '"type": "mean"' not in text:
            fail(f"orders-per-user's definition in the editor: {text}")
        self.set_value(editor, text.replace('"type": "mean"', '"type": "median"'))
        self.driver.find_element(By.ID, "metric-save").click()
        self.notice("Redefining metric orders-per-user failed (422 from PUT /admin/metrics/orders-per-user)")
        problems = self.problems_listed("#metric-errors")
        if not problems:
            fail("no problem listed under the metric editor")
        definition = json.loads(text)
        definition["windowHours"] = 48
        self.set_value(editor, json.dumps(definition, indent=2))
        self.driver.find_element(By.ID, "metric-save").click()
        self.notice("Redefining metric orders-per-user: done")
        status, _, after = self.http("GET", "/admin/metrics/orders-per-user", self.tokens["ops"])
        if after.get("windowHours") != 48 or after.get("revision", 0) <= value.get("revision", 0):
            fail(f"orders-per-user after the redefinition: {after} (before {value})")
        wait_for("the new window in its row", lambda: "48 h" in self.find('tr[data-metric="orders-per-user"]').text)
        # A metric an experiment names: 409, with the server's reason.
        self.find('tr[data-metric="purchase-rate"]').find_element(By.XPATH, ".//button[text()='Delete purchase-rate']").click()
        self.confirm()
        refused = self.notice("Deleting metric purchase-rate failed (409 from DELETE /admin/metrics/purchase-rate)")
        if "console-results" not in refused:
            fail(f"the 409's reason does not name the experiment: {refused!r}")
        self.shot("metrics")
        self.find('tr[data-metric="orders-per-user"]').find_element(By.XPATH, ".//button[text()='Delete orders-per-user']").click()
        self.confirm()
        self.notice("Deleting metric orders-per-user: done")
        wait_for("orders-per-user gone from the page", lambda: not self.driver.find_elements(By.CSS_SELECTOR, 'tr[data-metric="orders-per-user"]'))
        status, _, _ = self.http("GET", "/admin/metrics/orders-per-user", self.tokens["ops"])
        if status != 404:
            fail(f"GET /admin/metrics/orders-per-user after deleting it: {status}")

    def post_events(self, events):
        for start in range(0, len(events), 500):
            status, _, answer = self.http("POST", "/v1/events", body=events[start:start + 500])
            if status != 202 or answer.get("accepted") != len(events[start:start + 500]):
                fail(f"POST /v1/events: {status} {answer}")

    @staticmethod
    def stamp(seconds):
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds * 1000) % 1000:03d}Z"

    def simulate(self, experiment, counts, seed, effect=0.2):
        """Exposures over the last four days and purchases (treatment converts more), pre-exposure
        purchases (for CUPED) and client errors: as apps would send them."""
        rng = random.Random(seed)
        now = time.time()
        events = []
        for variant, n in counts.items():
            for i in range(n):
                user = f"{experiment}-{variant}-{i}"
                exposed = now - rng.uniform(0.1, 4.0) * 86400
                context = {"targetingKey": user, "platform": rng.choice(["ios", "android"]),
                           "appVersion": rng.choice(["5.2.0", "5.3.0"]), "country": rng.choice(["DE", "FR", "US"])}
                events.append({"id": f"{user}-x", "timestamp": self.stamp(exposed), "context": context,
                               "exposure": {"experiment": experiment, "variant": variant}})
                keen = rng.random()
                if rng.random() < 0.4 * keen:
                    events.append({"id": f"{user}-p0", "timestamp": self.stamp(exposed - rng.uniform(0.2, 2.0) * 86400),
                                   "context": {"targetingKey": user}, "name": "purchase", "value": round(rng.uniform(5, 60), 2)})
                rate = 0.15 + 0.3 * keen + (effect if variant != "control" else 0)
                for k in range(2):
                    if rng.random() < rate / (k + 1):
                        events.append({"id": f"{user}-p{k + 1}", "timestamp": self.stamp(exposed + rng.uniform(60, min(86400, now - exposed - 120))),
                                       "context": {"targetingKey": user}, "name": "purchase", "value": round(rng.uniform(5, 80), 2)})
                if rng.random() < (0.08 if variant == "control" else 0.08 + effect * 0.6):
                    events.append({"id": f"{user}-e", "timestamp": self.stamp(exposed + rng.uniform(30, min(3600, now - exposed - 60))),
                                   "context": {"targetingKey": user}, "name": "client_error"})
        rng.shuffle(events)
        return events

    def results_rows(self, block="all"):
        """What the results table shows, read from the page: each row's cells and its interval's geometry."""
        return self.driver.execute_script("""
            const table = document.querySelector(`table.results[data-block="${arguments[0]}"]`);
            if (!table) return null;
            return [...table.querySelectorAll('tbody tr[data-variant]')].map(row => {
              const cell = (name) => row.querySelector('td.' + name)?.innerText.trim();
              const bar = row.querySelector('svg.interval');
              const rect = bar?.querySelector('rect');
              const zero = bar && [...bar.querySelectorAll('line')].find(l => l.getAttribute('stroke-width') === '1.5');
              return {metric: row.dataset.metric, variant: row.dataset.variant, users: cell('users'),
                meanControl: cell('mean-control'), meanVariant: cell('mean-variant'),
                lift: row.querySelector('td.lift .figure')?.textContent, liftCell: cell('lift'), cuped: row.querySelector('td.lift .cuped')?.textContent || null,
                pValue: cell('p-value'), sequential: cell('sequential'), chance: cell('chance'),
                verdict: bar?.dataset.verdict, label: bar?.getAttribute('aria-label'), role: bar?.getAttribute('role'),
                low: rect && Number(rect.getAttribute('x')), high: rect && Number(rect.getAttribute('x')) + Number(rect.getAttribute('width')),
                zero: zero && Number(zero.getAttribute('x1'))};
            });""", block)

    @staticmethod
    def shown_number(text):
        """A figure as the page writes it, as a number (percentages as fractions); (value, bound):
        `< 0.0001` is (0.0001, "<")."""
        text = text.replace("\u2212", "-").replace(",", "").strip()
        bound = None
        for sign in ("<", ">"):
            if text.startswith(sign):
                bound, text = sign, text[1:].strip()
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
        return value, bound

    def same_figure(self, what, shown, expected, tolerance):
        if expected is None:
            if shown not in ("—", None):
                fail(f"{what}: the page shows {shown!r} where the answer has none")
            return
        value, bound = self.shown_number(shown)
        if bound == "<" and expected < value or bound == ">" and expected > value:
            return
        if bound or abs(value - expected) > tolerance * max(1, abs(expected)) + 1e-12:
            fail(f"{what}: the page shows {shown!r}, the answer has {expected!r}")

    def compare_results(self, answer, rows, where):
        control = answer["control"]
        expected = [(m, v) for m in answer["metrics"] if not m.get("error") for v in m["variants"] if v["variant"] != control]
        if len(rows) != len(expected):
            fail(f"{where}: {len(rows)} rows on the page, {len(expected)} metric × variant in the answer: {rows}")
        for row, (metric, variant) in zip(rows, expected):
            what = f"{where}, {metric['metric']} / {variant['variant']}"
            if (row["metric"], row["variant"]) != (metric["metric"], variant["variant"]):
                fail(f"{what}: the page's row is {row['metric']} / {row['variant']}")
            base = next(v for v in metric["variants"] if v["variant"] == control)
            if row["users"].replace(",", "").split(" · ") != [str(base["users"]), str(variant["users"])]:
                fail(f"{what}: users {row['users']!r}, the answer has {base['users']} and {variant['users']}")
            mean_tolerance = 0.00005 if metric["type"] == "proportion" else 0.0005
            self.same_figure(f"{what}, control's mean", row["meanControl"], base["mean"], mean_tolerance)
            self.same_figure(f"{what}, the variant's mean", row["meanVariant"], variant["mean"], mean_tolerance)
            relative = variant["relative"]
            if relative.get("error"):
                if relative["error"] not in (row["liftCell"] or ""):
                    fail(f"{what}: the lift's error {relative['error']!r} is not shown ({row['liftCell']!r})")
                continue
            self.same_figure(f"{what}, the lift", row["lift"], relative["lift"], 0.00005)
            self.same_figure(f"{what}, the p-value", row["pValue"], relative["pValue"], 0.00005)
            self.same_figure(f"{what}, the sequential p-value", row["sequential"], variant["sequential"]["pValue"], 0.00005)
            self.same_figure(f"{what}, the chance to win", row["chance"], variant["bayesian"]["chanceToWin"], 0.00005)
            low, high = relative["ci"]
            crosses = low <= 0 <= high
            want = "unclear" if crosses else ("better" if (low > 0) == metric["higherIsBetter"] else "worse")
            if row["verdict"] != want or row["role"] != "img" or not row["label"]:
                fail(f"{what}: the interval is drawn as {row['verdict']!r} (role {row['role']!r}, label {row['label']!r}), not {want!r}")
            if not (row["low"] < row["high"]) or (row["low"] <= row["zero"] <= row["high"]) != crosses:
                fail(f"{what}: the interval's bar spans x {row['low']}…{row['high']} against 0 at {row['zero']}, for {low}…{high}")
            if metric["cuped"] and variant.get("cupedTheta") is not None and not (row["cuped"] or "").startswith("CUPED ("):
                fail(f"{what}: CUPED applied (theta {variant['cupedTheta']}) but the page marks {row['cuped']!r}")
        errors = [m for m in answer["metrics"] if m.get("error")]
        for metric in errors:
            shown = self.driver.execute_script("return document.querySelector(`tr.metric-error[data-metric='${arguments[0]}']`)?.innerText", metric["metric"])
            if not shown or metric["error"] not in shown:
                fail(f"{where}: {metric['metric']}'s error {metric['error']!r} is not shown ({shown!r})")

    def results(self):
        self.post_events(self.simulate("console-results", {"control": 300, "treatment": 300}, seed=7))
        self.go("experiments")
        self.find('[data-experiment="console-results"]').find_element(By.XPATH, ".//a[text()='Results of console-results']").click()
        self.page_ready("results")
        if not self.driver.current_url.endswith("#results/console-results"):
            fail(f"the results link leads to {self.driver.current_url}")
        current = self.driver.find_element(By.CSS_SELECTOR, 'nav a[aria-current="page"]').get_attribute("href")
        if not current.endswith("#experiments"):
            fail(f"the navigation marks {current} on the results page")
        rows = wait_for("the results table", lambda: self.results_rows())
        status, _, answer = self.http("GET", "/admin/experiments/console-results/results", self.tokens["ops"])
        if status != 200:
            fail(f"GET /admin/experiments/console-results/results: {status} {answer}")
        users = {v["name"]: v["users"] for v in answer["variants"]}
        if users != {"control": 300, "treatment": 300}:
            fail(f"the answer's users per variant: {users}")
        shown = {row.get_attribute("data-variant"): row.find_element(By.CSS_SELECTOR, "td.users").text
                 for row in self.driver.find_elements(By.CSS_SELECTOR, "#results-users tbody tr")}
        if shown != {name: f"{n:,}" for name, n in users.items()}:
            fail(f"users per variant on the page: {shown}, the answer has {users}")
        if answer["srm"].get("warning") or self.driver.find_elements(By.CSS_SELECTOR, ".srm-warning"):
            fail(f"an even split flagged: {answer['srm']}")
        self.same_figure("the SRM p-value", self.text_of("#results-srm").split("p-value ")[1].split(" ")[0], answer["srm"]["pValue"], 0.00005)
        if {m["metric"] for m in answer["metrics"]} != set(self.METRICS):
            fail(f"the answer's metrics: {[m['metric'] for m in answer['metrics']]}")
        self.compare_results(answer, rows, "all users")
        # The planted effects: more purchases (better) and more client errors, where lower is better (worse).
        verdicts = {row["metric"]: row["verdict"] for row in rows}
        if verdicts != {"purchase-rate": "better", "revenue-per-user": "better", "client-errors": "worse"}:
            fail(f"the intervals drawn: {verdicts}, not the planted effects (more purchases, more errors)")
        # Users over time: a line per variant, a day per row in the table beside it.
        lines = self.driver.execute_script("return [...document.querySelectorAll('#results-chart g[data-variant]')].map(g => [g.dataset.variant, g.querySelectorAll('circle').length])")
        days = len(answer["usersOverTime"])
        if sorted(lines) != sorted([[name, days] for name in users]) or days < 2:
            fail(f"the chart draws {lines}; the answer has {days} days of {list(users)}")
        table = self.driver.execute_script("return [...document.querySelectorAll('#results-over-time-table tbody tr')].map(r => [...r.children].map(c => c.textContent))")
        want = [[d["day"]] + [f"{d['users'].get(name, 0):,}" for name in users] for d in answer["usersOverTime"]]
        if table != want:
            fail(f"the table of users by day: {table}, not {want}")
        if not self.find("#results-chart").get_attribute("aria-label"):
            fail("the chart has no text alternative")
        page = self.text_of("#page")
        if "null" in page.split() or "undefined" in page or "NaN" in page:
            fail(f"the results page writes null, undefined or NaN: {page[:2000]}")
        self.shot("results")
        self.driver.execute_script("document.getElementById('results-metrics').scrollIntoView()")
        self.shot("results-metrics")

    def results_breakdown(self):
        self.driver.select(self.find("#results-dimension"), "platform")
        wait_for("the breakdown", lambda: self.driver.find_elements(By.CSS_SELECTOR, "#results-breakdown .dimension-block"))
        status, _, answer = self.http("GET", "/admin/experiments/console-results/results?dimension=platform", self.tokens["ops"])
        if status != 200:
            fail(f"GET …/results?dimension=platform: {status} {answer}")
        values = self.driver.execute_script("return [...document.querySelectorAll('#results-breakdown .dimension-block')].map(b => b.dataset.dimensionValue)")
        if sorted(values) != ["android", "ios"]:
            fail(f"the blocks of the breakdown: {values}")
        self.breakdown_answer = answer
        for block in self.breakdown_blocks(answer):
            shown = self.driver.execute_script(
                "return Object.fromEntries([...document.querySelectorAll(`.dimension-block[data-dimension-value='${arguments[0]}'] table.compact tbody tr`)]"
                ".map(r => [r.dataset.variant, r.querySelector('td.users').textContent]))", block["value"])
            if shown != {v["name"]: f"{v['users']:,}" for v in block["variants"]}:
                fail(f"platform {block['value']}: users {shown}, the answer has {block['variants']}")
            self.compare_results({**block, "control": answer["control"]}, self.results_rows(block["value"]), f"platform {block['value']}")
        self.driver.execute_script("document.getElementById('results-breakdown').scrollIntoView()")
        self.shot("results-platform")
        self.driver.select(self.find("#results-dimension"), "")
        wait_for("the breakdown gone", lambda: not self.driver.find_elements(By.CSS_SELECTOR, "#results-breakdown"))

    @staticmethod
    def breakdown_blocks(answer):
        """The breakdown's blocks: the answer's dimension.values, [{value, variants, srm, metrics}]."""
        return answer["dimension"]["values"]

    def results_srm(self):
        self.http("POST", "/admin/experiments", self.tokens["ops"], {
            "key": "console-srm", "variants": {"control": 50, "treatment": 50}, "defaultVariant": "control", "status": "running",
            "goals": ["purchase-rate"]})
        self.post_events(self.simulate("console-srm", {"control": 300, "treatment": 170}, seed=11, effect=0))
        self.driver.execute_script("location.hash = '#results/console-srm'")
        self.page_ready("results")
        status, _, answer = self.http("GET", "/admin/experiments/console-srm/results", self.tokens["ops"])
        warning = answer["srm"].get("warning")
        if status != 200 or not warning or answer["srm"]["pValue"] >= 0.001:
            fail(f"a 300/170 split under 50/50 weights: {status} srm {answer.get('srm')}")
        alert = self.find(".srm-warning")
        if alert.get_attribute("role") != "alert" or warning not in alert.text or "cannot be trusted" not in alert.text:
            fail(f"the SRM warning on the page: {alert.text!r} (role {alert.get_attribute('role')!r}), the answer says {warning!r}")
        self.shot("results-srm")

    def explain(self):
        self.go("explain")
        user = self.bucket_user(25, 40)
        self.set_value(self.find("#explain-user"), user)
        self.set_value(self.find("#explain-attributes"), "membership=gold")
        self.driver.find_element(By.XPATH, "//button[text()='Explain']").click()
        wait_for("the explanation", lambda: f"User {user} gets revision" in self.text_of("#explain-summary"))
        page = self.text_of("#explanation")
        if "gold-banner" not in page or "Rule at gold-banner-rule: false" not in page:
            fail(f"the explanation does not say why the killed gold-banner is not shown: {page[:400]}")
        boxes = self.preview_boxes(self.find("#explanation iframe"))
        if "home-navigation" not in boxes or "gold-banner" in boxes:
            fail(f"the preview as {user} draws {sorted(boxes)[:10]}: not home, or the killed banner")
        self.shot("explain")

    def audit(self):
        self.go("audit")
        wait_for("the ramp in the log", lambda: "rollout.update" in self.text_of("#page table"))
        self.set_value(self.find("#audit-resource"), "rollouts/gold-banner")
        self.set_value(self.find("#audit-actor"), "ops")
        self.driver.find_element(By.XPATH, "//button[text()='Filter']").click()
        wait_for("only gold-banner's entries", lambda: self.rows_say("rollouts/gold-banner", "ops"))
        actions = [r.find_elements(By.TAG_NAME, "td")[2].text for r in self.driver.find_elements(By.CSS_SELECTOR, "tr[data-entry]")]
        if actions[:2] != ["rollout.kill", "rollout.update"]:
            fail(f"gold-banner's entries, newest first: {actions}")
        self.stream_open()
        status, _, _ = self.http("PUT", "/admin/rollouts/gold-banner", self.tokens["ops"], {"enabled": True})
        if status != 200:
            fail(f"reviving gold-banner: {status}")
        wait_for("the new entry without a reload", lambda: self.driver.find_elements(
            By.CSS_SELECTOR, "tr[data-entry]")[0].find_elements(By.TAG_NAME, "td")[2].text == "rollout.update", timeout=LIVE)
        self.someone_else("an audit entry written elsewhere")
        self.shot("audit")

    def preview_boxes(self, frame):
        """The layout ids the preview in `frame` draws (each box's data-id)."""
        self.driver.switch_to.frame(frame)
        try:
            return wait_for("the preview's boxes", lambda: {e.get_attribute("data-id") for e in
                                                           self.driver.find_elements(By.CSS_SELECTOR, "[data-id]")})
        finally:
            self.driver.switch_to.default_content()

    def rows_say(self, resource, actor):
        rows = self.driver.find_elements(By.CSS_SELECTOR, "tr[data-entry]")
        return rows and all(r.find_elements(By.TAG_NAME, "td")[3].text == resource and
                            r.find_elements(By.TAG_NAME, "td")[1].text == actor for r in rows)

    def roles_shown(self):
        """Each token's own role in the header (GET /admin/whoami), and the tokens and webhooks
        pages offered to an admin token only: another token asking for one gets the rollouts."""
        for name, role in [("root", "admin"), ("lead", "approve"), ("ops", "write"), ("viewer", "read")]:
            self.sign_in(name)
            who = self.text_of("#who")
            if f"as {name}," not in who or not who.endswith(f" {role} token"):
                fail(f"the {role} token {name} shows as {who!r}")
            offered = set(self.nav_pages()) & set(ADMIN_PAGES)
            if offered != (set(ADMIN_PAGES) if role == "admin" else set()):
                fail(f"the {role} token is offered {sorted(offered)} of {ADMIN_PAGES}")
            if role != "admin":
                self.driver.get("about:blank")
                self.driver.get(self.server.url + "/console#tokens")
                self.page_ready("tokens")
                if self.text_of("#page h2") != "Rollouts":
                    fail(f"the {role} token asking for #tokens is shown {self.text_of('#page h2')!r}, not the rollouts")

    def clean_page_loads(self):
        """Every page, loaded afresh as an admin token and as a read token sees it, logs no error and
        no warning at all, failed loads included (a favicon, a probe answered 403, a policy violation)."""
        self.driver.messages()  # what earlier steps provoked on purpose was checked by them
        for name, pages in [("root", PAGES + LINKED_PAGES + ADMIN_PAGES), ("viewer", PAGES + LINKED_PAGES)]:
            self.sign_in(name)
            for page in pages:
                self.driver.get("about:blank")
                self.driver.get(f"{self.server.url}/console#{page}")
                self.page_ready(page)
                self.stream_open()
                time.sleep(0.3)  # the page's icon and the stream's first answer
                logged = self.driver.messages()
                if logged:
                    fail(f"loading #{page} as {name} logged: {logged}")
        # Headless browsers ask for no icon, so a missing one would not show above: the icon the
        # page names must be there.
        icon = self.driver.execute_script("return document.querySelector('link[rel~=\"icon\"]')?.getAttribute('href')")
        status, headers, _ = self.http("GET", icon or "/favicon.ico")
        if not icon or status != 200 or headers.get("Content-Type") != "image/svg+xml":
            fail(f"the page's icon {icon!r}: {status} {headers.get('Content-Type')}")

    def problems_listed(self, css):
        """The problems an editor lists under it (a 422's), once there are some."""
        return wait_for(f"the problems in {css}", lambda: [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, f"{css} li")])

    def rules(self):
        self.sign_in("ops")
        self.go("rules")
        card = self.find('[data-rule="is_staff"]')
        editor = card.find_element(By.TAG_NAME, "textarea")
        text = wait_for("is_staff's expression", lambda: editor.get_attribute("value"))
        # An operator the rules do not have: 422, its problem at its line.
        self.set_value(editor, text.replace('"endsWith"', '"sortOf"'))
        card.find_element(By.XPATH, ".//button[text()='Apply is_staff']").click()
        self.notice("Changing rule is_staff failed (422 from PUT /admin/rules/is_staff)")
        problems = self.problems_listed('[data-rule="is_staff"] ol.errors')
        if not any(p.startswith("Line ") and "sortOf" in p for p in problems):
            fail(f"the 422's problems: {problems}")
        self.shot("rules-422")
        self.set_value(editor, text.replace("@example.com", "@example.org"))
        card.find_element(By.XPATH, ".//button[text()='Apply is_staff']").click()
        self.notice("Changing rule is_staff: done")
        _, _, value = self.http("GET", "/admin/rules/is_staff", self.tokens["ops"])
        if value["rule"].get("value") != "@example.org" or value["source"] != "runtime" or value["updatedBy"] != "ops":
            fail(f"is_staff after the change: {value}")
        # A rule the route table still uses cannot be retired: 409, saying so.
        self.find('[data-rule="signed_in"]').find_element(By.XPATH, ".//button[text()='Retire signed_in']").click()
        self.confirm()
        self.notice("Retiring rule signed_in failed (409 from DELETE /admin/rules/signed_in)")
        # Handed back to targeting.json.
        self.find('[data-rule="is_staff"]').find_element(By.XPATH, ".//button[text()='Reset is_staff to targeting.json']").click()
        self.confirm()
        self.notice("Resetting rule is_staff to targeting.json: done")
        _, _, value = self.http("GET", "/admin/rules/is_staff", self.tokens["ops"])
        if value["rule"].get("value") != "@example.com" or value["source"] != "config":
            fail(f"is_staff after the reset: {value}")
        # A new rule, then retired.
        self.set_value(self.find("#new-rule-name"), "console_rule")
        self.set_value(self.find("#new-rule-editor"), '{ "attribute": "country", "op": "in", "value": ["DE"] }')
        self.driver.find_element(By.XPATH, "//button[text()='Define rule']").click()
        self.notice("Defining rule console_rule: done")
        status, _, value = self.http("GET", "/admin/rules/console_rule", self.tokens["ops"])
        if status != 200 or value["rule"] != {"attribute": "country", "op": "in", "value": ["DE"]}:
            fail(f"GET /admin/rules/console_rule: {status} {value}")
        self.shot("rules")
        self.find('[data-rule="console_rule"]').find_element(By.XPATH, ".//button[text()='Retire console_rule']").click()
        self.confirm()
        self.notice("Retiring rule console_rule: done")
        wait_for("console_rule gone from the page", lambda: not self.driver.find_elements(By.CSS_SELECTOR, '[data-rule="console_rule"]'))
        status, _, _ = self.http("GET", "/admin/rules/console_rule", self.tokens["ops"])
        if status != 404:
            fail(f"GET /admin/rules/console_rule after retiring it: {status}")

    def targeting(self):
        self.go("targeting")
        editor = self.find("#targeting-editor")
        document = json.loads(wait_for("the document in the editor", lambda: editor.get_attribute("value")))
        _, _, history = self.http("GET", "/admin/targeting/revisions", self.tokens["ops"])
        before = history["revision"]
        document["experiments"]["product-related"]["variants"] = {"control": 80, "hidden": 20}
        self.set_value(editor, json.dumps(document, indent=2))
        self.driver.find_element(By.XPATH, "//button[text()='Replace the targeting document']").click()
        self.confirm()
        self.notice("Replacing the targeting document: done")

        def weights():
            _, _, value = self.http("GET", "/admin/experiments/product-related", self.tokens["ops"])
            return {v["name"]: v["weight"] for v in value["variants"]}
        if weights() != {"control": 80, "hidden": 20}:
            fail(f"product-related after the replacement: {weights()}")
        wait_for("the new revision in force", lambda: f"In force: revision {before + 1} (publish)" in self.text_of("#targeting-head"))
        self.driver.find_element(By.XPATH, f"//button[text()='Roll back to revision {before}']").click()
        self.confirm()
        self.notice(f"Rolling the targeting document back to revision {before}: done")
        if weights() != {"control": 90, "hidden": 10}:
            fail(f"product-related after the rollback: {weights()}")
        _, _, history = self.http("GET", "/admin/targeting/revisions", self.tokens["ops"])
        last = history["revisions"][-1]
        if history["revision"] != before + 2 or last["origin"] != "rollback" or last.get("copiedFrom") != before:
            fail(f"the targeting history after the rollback: {history['revision']}, {last}")
        wait_for("the rollback in force", lambda: f"In force: revision {before + 2} (rollback)" in self.text_of("#targeting-head"))
        self.shot("targeting")

    def routes(self):
        self.go("routes")
        editor = self.find("#routes-editor")
        text = wait_for("the route table in the editor", lambda: editor.get_attribute("value"))
        _, _, table = self.http("GET", "/admin/routes", self.tokens["ops"])
        first = table["revision"]
        # A member routes do not have: 422, its problem at its line.
        bad = text.replace('"title": "The home feed"', '"title": "The home feed", "colour": "red"', 1)
        if bad == text:
            fail("the route table has no home route titled 'The home feed'")
        self.set_value(editor, bad)
        self.driver.find_element(By.XPATH, "//button[text()='Publish the route table']").click()
        self.notice("Publishing the route table failed (422 from PUT /admin/routes)")
        problems = self.problems_listed("#routes-errors")
        if not any(p.startswith("Line ") and "colour" in p for p in problems):
            fail(f"the 422's problems: {problems}")
        self.set_value(editor, text.replace('"The home feed"', '"The home feed, edited"', 1))
        self.driver.find_element(By.XPATH, "//button[text()='Publish the route table']").click()
        self.notice("Publishing the route table: done")
        _, _, table = self.http("GET", "/admin/routes", self.tokens["ops"])
        if table["revision"] != first + 1 or table["table"]["routes"][0].get("title") != "The home feed, edited":
            fail(f"the route table after publishing: revision {table['revision']}, {table['table']['routes'][0]}")
        wait_for("the new revision served", lambda: f"Serving revision {first + 1} (publish)" in self.text_of("#routes-head"))
        self.driver.find_element(By.XPATH, f"//button[text()='Roll back to revision {first}']").click()
        self.confirm()
        self.notice(f"Rolling the route table back to revision {first}: done")
        _, _, table = self.http("GET", "/admin/routes", self.tokens["ops"])
        if table["revision"] != first + 2 or table["origin"] != "rollback" or table["table"]["routes"][0].get("title") != "The home feed":
            fail(f"the route table after the rollback: revision {table['revision']} ({table['origin']}), {table['table']['routes'][0]}")
        wait_for("the rollback served", lambda: f"Serving revision {first + 2} (rollback)" in self.text_of("#routes-head"))
        self.shot("routes")

    def strings(self):
        """The shipped translations' coverage; de's table: a message that does not parse is a 422 at
        its line, a new greeting is published and served in German, then rolled back."""
        self.go("strings")
        rows = wait_for("the coverage of every locale", lambda: [r.get_attribute("data-locale")
                                                                 for r in self.driver.find_elements(By.CSS_SELECTOR, "#strings-table tbody tr")] or None)
        if rows != ["ar", "de", "en", "ja"]:
            fail(f"the locales listed: {rows}")
        german = self.text_of('#strings-table tr[data-locale="de"]')
        if "100 %" not in german:
            fail(f"de's coverage: {german}")
        self.driver.find_element(By.CSS_SELECTOR, 'button[aria-label="Show the de table"]').click()
        wait_for("de's table", lambda: self.text_of("#strings-head").startswith("de: serving revision"))
        editor = self.find("#strings-editor")
        text = wait_for("de's table in the editor", lambda: editor.get_attribute("value"))
        _, _, table = self.http("GET", "/admin/strings/de", self.tokens["ops"])
        first = table["revision"]
        bad = text.replace('"Guten Morgen"', '"Guten {Morgen"', 1)
        if bad == text:
            fail("de's table has no greeting 'Guten Morgen'")
        self.set_value(editor, bad)
        self.driver.find_element(By.XPATH, "//button[text()='Publish the table']").click()
        self.notice("Publishing the de table failed (422 from PUT /admin/strings/de)")
        problems = self.problems_listed("#strings-errors")
        if not any(p.startswith("Line ") and "column" in p for p in problems):
            fail(f"the 422's problems: {problems}")
        self.set_value(editor, text.replace('"Guten Morgen"', '"Guten Tag"', 1))
        self.driver.find_element(By.XPATH, "//button[text()='Publish the table']").click()
        self.notice("Publishing the de table: done")
        _, _, screen = self.http("GET", "/v1/screens/home?user=u1&locale=de", None)
        if "Guten Tag" not in json.dumps(screen, ensure_ascii=False):
            fail("the published greeting is not served in German")
        wait_for("the new revision served", lambda: f"serving revision {first + 1} (publish)" in self.text_of("#strings-head"))
        self.driver.find_element(By.XPATH, f"//button[text()='Roll back to revision {first}']").click()
        self.confirm()
        self.notice(f"Rolling the de table back to revision {first}: done")
        _, _, screen = self.http("GET", "/v1/screens/home?user=u1&locale=de", None)
        if "Guten Morgen" not in json.dumps(screen, ensure_ascii=False):
            fail("the rollback is not served in German")
        self.shot("strings")

    def admin_tokens(self):
        self.sign_in("root")
        self.go("tokens")
        self.set_value(self.find("#new-token-name"), "console-token")
        self.driver.select(self.find("#new-token-role"), "write")
        self.driver.find_element(By.XPATH, "//button[text()='Make token']").click()
        self.notice("Making token console-token: done")
        secret = wait_for("the new token, shown once", lambda: self.find("#token-secret").get_attribute("value"))
        status, _, me = self.http("GET", "/admin/whoami", secret)
        if status != 200 or me != {"name": "console-token", "role": "write"}:
            fail(f"GET /admin/whoami with the token made: {status} {me}")
        self.row_of("token", "console-token")
        self.shot("tokens")
        self.row_of("token", "console-token").find_element(By.XPATH, ".//button[text()='Delete console-token']").click()
        self.confirm()
        self.notice("Deleting token console-token: done")
        wait_for("console-token gone from the page", lambda: not self.driver.find_elements(By.CSS_SELECTOR, 'tr[data-token="console-token"]'))
        status, _, _ = self.http("GET", "/admin/whoami", secret)
        if status != 401:
            fail(f"the deleted token still answers {status}")

    def admin_webhooks(self):
        self.go("webhooks")
        self.set_value(self.find("#new-webhook-name"), "console-hook")
        self.set_value(self.find("#new-webhook-url"), "http://127.0.0.1:9/trellis")
        self.set_value(self.find("#new-webhook-secret"), "console-check-secret-0123456789")
        self.set_value(self.find("#new-webhook-events"), "rollout.*, screen.publish")
        self.driver.find_element(By.XPATH, "//button[text()='Make webhook']").click()
        self.notice("Making webhook console-hook: done")
        _, _, listed = self.http("GET", "/admin/webhooks", self.tokens["root"])
        made = next((w for w in listed["webhooks"] if w["name"] == "console-hook"), None)
        if not made or made["url"] != "http://127.0.0.1:9/trellis" or made["events"] != ["rollout.*", "screen.publish"] \
                or made["createdBy"] != "root" or "secret" in made:
            fail(f"the webhook made: {made}")
        self.row_of("webhook", "console-hook")
        self.shot("webhooks")
        self.row_of("webhook", "console-hook").find_element(By.XPATH, ".//button[text()='Delete console-hook']").click()
        self.confirm()
        self.notice("Deleting webhook console-hook: done")
        wait_for("console-hook gone from the page", lambda: not self.driver.find_elements(By.CSS_SELECTOR, 'tr[data-webhook="console-hook"]'))
        _, _, listed = self.http("GET", "/admin/webhooks", self.tokens["root"])
        if any(w["name"] == "console-hook" for w in listed["webhooks"]):
            fail(f"the deleted webhook is still listed: {listed}")

    def row_of(self, kind, name):
        return self.find(f'tr[data-{kind}="{name}"]')

    def read_only(self):
        self.sign_in("viewer")
        note = self.find("#role-note")
        if not note.is_displayed() or "read role" not in note.text:
            fail(f"the read-only note: {note.text!r}")
        for page in PAGES + LINKED_PAGES:
            self.go(page)
            time.sleep(0.5)
            controls = self.driver.find_elements(By.CSS_SELECTOR, "#page button, #page input, #page textarea")
            writable = [c for c in controls if c.is_enabled() and not self.is_harmless(c)]
            if writable:
                fail(f"{page}: a read token has enabled controls: {[c.get_attribute('outerHTML')[:120] for c in writable]}")
            self.shot(f"{page.replace('/', '-')}-read-only")
        if set(self.nav_pages()) & set(ADMIN_PAGES):
            fail(f"a read token is offered {ADMIN_PAGES}")

    def is_harmless(self, control):
        """Controls that only look: the preview's, the comparison's, explain's and the audit log's, which locale's table is shown, the
        status filter, the refreshes (results, health, a guard) and disclosures (a rollout's guard)."""
        identifier = control.get_attribute("id") or ""
        return identifier.startswith(("preview-", "explain-", "audit-", "compare-", "stale-", "results-", "health-", "locale-")) or \
            identifier.endswith("-refresh") or control.get_attribute("aria-expanded") is not None or \
            control.text in ("Show preview", "Explain", "Filter", "Compare", "Find stale entries") or \
            control.get_attribute("data-status") is not None

    def approval(self):
        self.driver.get("about:blank")
        self.server.stop()
        settings = json.loads((self.config / "server.json").read_text())
        settings["admin"]["requireApproval"] = True
        (self.config / "server.json").write_text(json.dumps(settings, indent=2))
        self.server.start()
        self.sign_in("ops")
        row = self.row("console-made")
        self.set_value(row.find_element(By.CSS_SELECTOR, "input[type=number]"), "45")
        row.find_element(By.XPATH, ".//button[text()='Apply']").click()
        text = self.notice("held for approval as change request #")
        change = int(text.split("#")[1].split(".")[0])
        _, _, value = self.http("GET", "/admin/rollouts/console-made", self.tokens["ops"])
        if value["percentage"] != 33:
            fail(f"a held change took effect: {value}")
        self.sign_in("lead")
        if not self.driver.current_url.endswith("#changes"):
            fail(f"an approve token lands on {self.driver.current_url}, not the change requests")
        card = self.find(f'[data-change="{change}"]')
        self.shot("changes")
        self.set_value(card.find_element(By.TAG_NAME, "input"), "ramp approved by the console check")
        card.find_element(By.XPATH, f".//button[text()='Approve #{change}']").click()
        self.notice(f"Approving change request #{change}: done")
        _, _, value = self.http("GET", "/admin/rollouts/console-made", self.tokens["ops"])
        if value["percentage"] != 45 or value["updatedBy"] != "ops":
            fail(f"after approval: {value}")
        _, _, listed = self.http("GET", "/admin/changes?status=applied", self.tokens["ops"])
        reviews = next(c for c in listed["changes"] if c["id"] == change)["reviews"]
        if reviews[0]["comment"] != "ramp approved by the console check":
            fail(f"the review: {reviews}")

    def keyboard(self):
        """Every control is reachable by Tab and has a name in the accessibility tree (as an admin
        token, which is offered every page; a rollout's guard opened)."""
        self.sign_in("root")
        for page in PAGES + LINKED_PAGES + ADMIN_PAGES:
            self.go(page)
            # Loaded afresh, so that Tab starts from the top of the document.
            self.driver.refresh()
            wait_for(f"the {page} page", lambda: self.driver.find_element(By.CSS_SELECTOR, "#page h2"))
            time.sleep(0.5)
            if page == "rollouts":
                # A rollout's guard, view and form, opened under its row; by a script's click, which
                # leaves the focus at the top.
                self.driver.execute_script("arguments[0].click()", self.row("console-made").find_element(
                    By.CSS_SELECTOR, 'button[aria-label="Guard of console-made"]'))
                self.find("#guard-console-made-save")
            self.check_names(page)
            self.check_tab_order(page)
        self.unnamed_button_found()

    def check_names(self, page):
        count, unnamed = self.driver.unnamed_controls(CONTROL_ROLES)
        if unnamed:
            fail(f"{page}: controls without an accessible name: {unnamed}")
        if count < 5:
            fail(f"{page}: only {count} controls in the accessibility tree")

    def unnamed_button_found(self):
        """The name check is not empty by accident (a role spelled otherwise, a name never empty):
        a button without a name, added for the purpose, is the one it finds."""
        self.driver.execute_script("document.getElementById('page').append(Object.assign(document.createElement('button'), {id: 'unnamed'}))")
        wait_for("the name check to find a button without a name",
                 lambda: [role for role, _ in self.driver.unnamed_controls(CONTROL_ROLES)[1]] == ["button"])
        self.driver.execute_script("document.getElementById('unnamed').remove()")

    def check_tab_order(self, page):
        controls = self.driver.execute_script("""
            return [...document.querySelectorAll('a[href], button, input, select, textarea, iframe')]
              .filter(e => !e.disabled && e.offsetParent !== null && !e.closest('dialog'));""")
        reached = set()
        for _ in range(len(controls) * 3 + 20):
            self.driver.press(Keys.TAB)
            reached.add(self.driver.execute_script("return document.activeElement"))
            if all(c in reached for c in controls):
                break
        missed = [c.get_attribute("outerHTML")[:100] for c in controls if c not in reached]
        if missed:
            fail(f"{page}: not reachable with Tab: {missed}")

    def run(self):
        started = time.monotonic()
        self.server.start()
        self.open_browser()
        try:
            self.step("served with its security headers, ETag/304 and gzip", self.served_with_headers)
            self.step("sign in with a write token", self.sign_in_write)
            self.step("gold-banner 25 → 40: a user at 25…40 gets the banner", self.ramp_gold_banner)
            self.step("kill gold-banner, with confirmation", self.kill_gold_banner)
            self.step("create a rollout", self.create_rollout)
            self.step("a change made with urllib appears through the change stream, with the banner", self.live_update)
            self.step("a concurrent change: 412 explained, reload shows theirs", self.precondition_failed)
            self.step("screens: 422 at its lines, publish staged, stage, promote, roll back", self.screens)
            self.step("screens: health equal to GET …/health after render beacons; a guard set (a 422 first), its last look, removed",
                      self.screen_health_and_guard)
            self.step("rollouts: a guard set under its row as GET …/guard has it, a 412, replaced, its last look, removed", self.rollout_guard)
            self.step("experiments: weights with their shares, an override for a QA user", self.experiments)
            self.step("metrics: define, redefine, a 422 at its line, a 409 for one in use, delete", self.metrics)
            self.step("results: events posted, the page's figures equal GET …/results, the interval drawn", self.results)
            self.step("results: the breakdown by platform", self.results_breakdown)
            self.step("results: a skewed split raises the SRM warning", self.results_srm)
            self.step("explain: a user's decisions and preview", self.explain)
            self.step("audit log: filtered by resource and token, live", self.audit)
            self.step("rules: a 422 at its line, redefine, a 409 for one in use, reset, define and retire", self.rules)
            self.step("targeting: replace the whole document, roll it back", self.targeting)
            self.step("routes: a 422 at its line, publish, roll back", self.routes)
            self.step("strings: every locale's coverage, a 422 at its line, publish in German, roll back", self.strings)
            self.step("tokens (admin): make one, which works, and delete it", self.admin_tokens)
            self.step("webhooks (admin): make one and delete it", self.admin_webhooks)
            self.step("each token's role shown; tokens and webhooks for an admin token only", self.roles_shown)
            self.step("every page loads with no error or warning in the browser's log", self.clean_page_loads)
            self.step("a read token cannot change anything", self.read_only)
            self.step("keyboard: every control reachable with Tab and named", self.keyboard)
            self.step("requireApproval: a change waits for a second token's approval", self.approval)
        except Exception:
            self.shot("failure")
            browser_log = f"; Firefox's log {self.work / 'firefox.log'}" if self.browser == "firefox" else ""
            print(f"console-check: failed; screenshots in {self.artifacts}; server log {self.server.log}{browser_log}", file=sys.stderr)
            raise
        finally:
            self.driver.quit()
            self.server.stop()
        print(f"console-check ({self.browser}): {len(self.steps)} steps passed in {time.monotonic() - started:.1f} s; screenshots in {self.artifacts}")
        shutil.rmtree(self.work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the trellis binary")
    parser.add_argument("--browser", choices=["chromium", "firefox"], default="chromium")
    parser.add_argument("--artifacts", help="where screenshots go (default .build/console-artifacts, its firefox/ for Firefox)")
    Check(parser.parse_args()).run()


if __name__ == "__main__":
    main()
