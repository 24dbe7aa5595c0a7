#!/usr/bin/env python3
"""Run by scripts/lint-vs-axe (which builds trellis, starts the server on a copy of Config/ with the
lint fixtures added, and makes the venv with axe-selenium-python): every screen's HTML preview at
each lint configuration through axe-core in headless Chromium, compared with `trellis lint --json`.

Rules compared (axe-core's id → the lint's):
  color-contrast → contrast        target-size → tap-target (the lint run with --min-target 24)
  image-alt      → label (Image)   button-name → label (Button)

A finding is (screen, locale, configuration, component), the component named by the preview's data-id,
which is the lint finding's layoutId. Each screen is drawn once for every distinct resolution that
a few users get (USERS: the variants of the shipped targeting), the lint lints every reachable
variant: the components each page draws are compared. A screen with strings is drawn in every
locale of Config/strings and the pseudo-locale, right to left where the locale writes so, as the
lint lints it.

Inherent differences, each named and counted, never silently dropped:
  off-screen      the lint judges every component, also those a user scrolls to or that lie past
                  the screen's edge; axe judges what is visible in the page without scrolling
                  (an element clipped by a scroll view or the screen is not on the page for it).
  axe-undecided   axe could not decide (its `incomplete`): e.g. text over a picture it cannot
                  see behind, or a target partly covered by another; the lint decides from the
                  layout what axe could not from the pixels, and its message is printed.
Anything else is a disagreement, printed, and the exit status is 1.
"""
import argparse, json, os, re, subprocess, sys, urllib.parse, urllib.request
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from axe_selenium_python import Axe

RULES = {"color-contrast": "contrast", "target-size": "tap-target", "image-alt": "label", "button-name": "label"}
# Sources/TrellisLint/LintConfiguration.swift: Device.standard, LintConfiguration.fontScales.
DEVICES = [
    dict(name="ios-small", platform="ios", width=320, height=568, scale=2, safeTop=20, safeBottom=0),
    dict(name="ios-large", platform="ios", width=430, height=932, scale=3, safeTop=59, safeBottom=34),
    dict(name="android-small", platform="android", width=360, height=640, scale=3, safeTop=24, safeBottom=0),
    dict(name="android-large", platform="android", width=412, height=915, scale=2.625, safeTop=24, safeBottom=0),
]
FONT_SCALES = [1, 1.3, 2]

# For a component (its data-id), whether all of its box is on the page as a user sees it without
# scrolling: inside #screen and inside every ancestor that clips (overflow other than visible).
VISIBILITY = """
const out = {};
document.querySelectorAll('[data-id]').forEach(e => {
  let r = e.getBoundingClientRect(), box = {l: r.left, t: r.top, r: r.right, b: r.bottom};
  for (let a = e.parentElement; a; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflow !== 'visible' || a.id === 'screen') {
      const c = a.getBoundingClientRect();
      box = {l: Math.max(box.l, c.left), t: Math.max(box.t, c.top), r: Math.min(box.r, c.right), b: Math.min(box.b, c.bottom)};
    }
    if (a.id === 'screen') break;
  }
  const whole = box.r - box.l >= r.width - 0.5 && box.b - box.t >= r.height - 0.5;
  out[e.getAttribute('data-id')] = whole;
});
return out;
"""
OWNER = "const e = document.querySelector(arguments[0]); const o = e && e.closest('[data-id]'); return o ? o.getAttribute('data-id') : null;"
TYPE = "const e = document.querySelector('[data-id=\"' + CSS.escape(arguments[0]) + '\"]'); return e ? e.getAttribute('data-type') : null;"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    devices = [d for d in DEVICES if not args.quick or d["name"].endswith("-small")]
    scales = [1] if args.quick else FONT_SCALES
    screens = sorted(f[:-5] for f in os.listdir(os.path.join(args.config, "screens")) if f.endswith(".json"))

    lint = json.loads(subprocess.run(
        [args.bin, "lint", "--config", args.config, "--json", "--min-target", "24"], check=True, capture_output=True, text=True).stdout)
    lint_findings = {}
    for f in lint:
        if f["rule"] in ("contrast", "tap-target", "label"):
            key = (f["screen"], f["locale"], f["device"], float(f["fontScale"]), f["layoutId"], f["rule"])
            lint_findings[key] = f

    options = Options()
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,1200",
                 "--force-device-scale-factor=1", "--hide-scrollbars"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    axe = Axe(driver)

    counts = {"configurations": 0, "pages": 0, "elements": 0}
    violations = {rule: 0 for rule in RULES}
    agreements = {rule: 0 for rule in RULES}
    explained, unexplained = [], []
    try:
        for device in devices:
            for scale in scales:
                counts["configurations"] += 1
                for screen, locale, page in pages(args, screens, device, scale):
                    driver.get(page)
                    driver.execute_async_script("const done = arguments[0]; document.fonts.ready.then(() => done(true));")
                    axe.inject()
                    result = axe.run(options={"runOnly": {"type": "rule", "values": list(RULES)},
                                              "resultTypes": ["violations", "incomplete", "passes"]})
                    counts["pages"] += 1
                    visible = driver.execute_script(VISIBILITY)
                    judged, failed, undecided = set(), set(), {}
                    for kind in ("violations", "incomplete", "passes"):
                        for rule in result[kind]:
                            for node in rule["nodes"]:
                                owner = driver.execute_script(OWNER, node["target"][0])
                                if owner is None:
                                    unexplained.append(f"{screen} {locale} {device['name']}@{scale}: axe {rule['id']} on {node['target']} outside every component")
                                    continue
                                key = (owner, rule["id"])
                                judged.add(key)
                                if kind == "violations":
                                    failed.add(key)
                                elif kind == "incomplete":
                                    messages = [c["message"] for c in node.get("any", []) + node.get("all", []) + node.get("none", [])]
                                    undecided[key] = "; ".join(m for m in messages if m) or "no message"
                    counts["elements"] += len(judged)
                    config = f"{locale} {device['name']}@{scale}"
                    # axe's violations, each a lint finding?
                    for owner, axe_rule in sorted(failed):
                        violations[axe_rule] += 1
                        lint_key = (screen, locale, device["name"], float(scale), owner, RULES[axe_rule])
                        if lint_key in lint_findings and kind_matches(driver, owner, axe_rule):
                            agreements[axe_rule] += 1
                        else:
                            unexplained.append(f"{screen} {config} {owner}: axe {axe_rule} fails it, the lint has no {RULES[axe_rule]} finding")
                    # The lint's findings on this page, each an axe violation?
                    for key, finding in lint_findings.items():
                        s, loc, d, fs, owner, rule = key
                        if (s, loc, d, fs) != (screen, locale, device["name"], float(scale)) or owner not in visible:
                            continue
                        axe_rule = axe_rule_of(driver, owner, rule)
                        if axe_rule is None or (owner, axe_rule) in failed:
                            continue
                        line = f"{screen} {config} {owner}: lint {rule} ({finding['value']})"
                        if not visible[owner]:
                            explained.append(("off-screen", line))
                        elif (owner, axe_rule) in undecided:
                            explained.append(("axe-undecided", f"{line}; axe: {undecided[(owner, axe_rule)]}"))
                        else:
                            unexplained.append(f"{line}, axe {axe_rule} {'passes it' if (owner, axe_rule) in judged else 'did not judge it'}")
    finally:
        driver.quit()

    print(f"configurations: {counts['configurations']}, pages: {counts['pages']}, elements judged by axe: {counts['elements']}")
    for rule in RULES:
        print(f"  {rule:15} axe violations {violations[rule]:4}, agreeing with the lint {agreements[rule]:4}")
    reasons = {}
    for reason, _ in explained:
        reasons[reason] = reasons.get(reason, 0) + 1
    print(f"explained differences: {len(explained)}" + "".join(f", {r} {n}" for r, n in sorted(reasons.items())))
    for reason, line in explained:
        print(f"  [{reason}] {line}")
    print(f"unexplained differences: {len(unexplained)}")
    for line in unexplained:
        print(f"  {line}")
    sys.exit(1 if unexplained else 0)


# Users whose outcomes differ on the shipped targeting (rollouts, experiments, the gold rule), so
# that the pages show the variants of each screen the lint lints.
USERS = [{"user": u} for u in ("u1", "u2", "u3", "u7", "u42")] + [{"user": u, "attr.membership": "gold"} for u in ("u1", "u2", "u3")]


# Sources/TrellisStrings: LocaleTag.isRightToLeft, for the locales the shipped tables have.
RIGHT_TO_LEFT = {"ar", "fa", "he", "ur"}


def locales(config, screen):
    """The locales the lint lints `screen` in: every table's and the pseudo-locale for a screen with
    strings, the default locale for the others."""
    directory = os.path.join(config, "strings")
    uses_strings = "\"$string\"" in open(os.path.join(config, "screens", screen + ".json")).read()
    if not uses_strings or not os.path.isdir(directory):
        return ["en"]
    return sorted(f[:-5] for f in os.listdir(directory) if f.endswith(".json")) + ["en-XA"]


def pages(args, screens, device, scale):
    """(screen, locale, preview URL) for each distinct resolution of each screen among USERS' (by
    the set of components the page draws): a variant is drawn once per configuration and locale."""
    for screen in screens:
        for locale in locales(args.config, screen):
            seen = set()
            for user in USERS:
                query = {k: device[k] for k in ("platform", "width", "height", "scale", "safeTop", "safeBottom")}
                query.update(user, fontScale=scale, locale=locale)
                if locale.split("-")[0] in RIGHT_TO_LEFT:
                    query["direction"] = "rtl"
                # The lint lays a screen that takes parameters out with samples (Screen.sampleParameters):
                # a text's or a value's is its own name.
                query.update({f"param.{name}": name for name in parameters(args.config, screen)})
                url = f"{args.url}/preview/{urllib.parse.quote(screen)}?{urllib.parse.urlencode(query)}"
                html = urllib.request.urlopen(url).read().decode()
                drawn = frozenset(re.findall(r'data-id="([^"]*)"', html))
                if drawn not in seen:
                    seen.add(drawn)
                    yield screen, locale, url


def parameters(config, screen):
    """The names of the `$param`s a screen document uses."""
    names = set()
    def walk(value):
        if isinstance(value, dict):
            if isinstance(value.get("$param"), str):
                names.add(value["$param"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
    walk(json.load(open(os.path.join(config, "screens", screen + ".json"))))
    return sorted(names)


def axe_rule_of(driver, owner, rule):
    """The axe rule that judges a lint finding of `rule` on component `owner`."""
    if rule == "contrast":
        return "color-contrast"
    if rule == "tap-target":
        return "target-size"
    kind = driver.execute_script(TYPE, owner)
    return {"Image": "image-alt", "Button": "button-name"}.get(kind)


def kind_matches(driver, owner, axe_rule):
    return axe_rule not in ("image-alt", "button-name") or axe_rule_of(driver, owner, "label") == axe_rule


if __name__ == "__main__":
    main()
