"""The ops console in headless Chromium over TLS, on HTTP/2: run by scripts/console-h2-check.

Loads /console from TLS_URL (a self-signed certificate, so Chromium is told to accept it), checks
the page came over `h2` (Navigation Timing's nextHopProtocol), opens 20 change streams
(EventSource on /v1/changes) from the page beside the console's own, waits until every one is open,
and counts the established TCP connections to the TLS port (ss): one for the page and all its
streams. Prints one line per check; exits with the number of failures.
"""
import os
import shutil
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

TLS_URL = os.environ["TLS_URL"]
TLS_PORT = TLS_URL.rsplit(":", 1)[1]
failures = []


def check(ok, line):
    print(("ok    " if ok else "FAIL  ") + line, flush=True)
    if not ok:
        failures.append(line)


def established():
    out = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{TLS_PORT} )"],
                         capture_output=True, text=True, check=True).stdout
    return len([line for line in out.splitlines() if line.strip()])


options = webdriver.ChromeOptions()
options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--ignore-certificate-errors"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
try:
    driver.get(f"{TLS_URL}/console")
    protocol = driver.execute_script("return performance.getEntriesByType('navigation')[0].nextHopProtocol")
    check(protocol == "h2", f"/console over TLS: nextHopProtocol {protocol!r} (expected 'h2')")
    driver.execute_script("""
        window.streams = [];
        for (let i = 0; i < 20; i++) {
            const s = new EventSource('/v1/changes');
            s.opened = false;
            s.onopen = () => { s.opened = true; };
            window.streams.push(s);
        }""")
    deadline, opened = time.monotonic() + 15, 0
    while time.monotonic() < deadline:
        opened = driver.execute_script("return window.streams.filter(s => s.opened && s.readyState === 1).length")
        if opened == 20:
            break
        time.sleep(0.2)
    check(opened == 20, f"20 change streams opened from the page: {opened} open (HTTP/1.1 would allow 6 per origin)")
    time.sleep(1)
    still = driver.execute_script("return window.streams.filter(s => s.readyState === 1).length")
    connections = established()
    check(still == 20 and connections == 1,
          f"a second later: {still} streams still open, {connections} established connection(s) to the TLS port (expected 20 on 1)")
    resources = driver.execute_script(
        "return performance.getEntriesByType('resource').map(r => r.nextHopProtocol).filter(p => p)")
    check(resources and all(p == "h2" for p in resources), f"the page's other loads over h2: {sorted(set(resources))}")
finally:
    driver.quit()
print(f"console-h2-check: {4 - len(failures)} passed, {len(failures)} failed")
sys.exit(len(failures))
