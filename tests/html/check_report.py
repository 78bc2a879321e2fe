#!/usr/bin/env python3
"""The HTML report in a real browser (docs/DESIGN.md §7, "Report formats").

Runs `allocsim sweep` over two mutant scenarios (two violations) with --report-html, then has Debian's
headless Chromium render the page twice: to a PNG screenshot (which must exist, have the window's size and
not be blank) and to the DOM it built (--dump-dom), whose structure is checked: one section.violation per
violating scenario, one lane per actor with that actor's steps in it, every step of the trace once, race
and slice steps wherever a trace carries an explanation, and nothing that would load a resource.

Chromium missing: the test fails, naming the package, unless ALLOCSIM_ALLOW_NO_BROWSER=1 is set outside CI
(CI unset), when it exits 77 (ctest: skipped).

usage: check_report.py --allocsim BIN --root REPO [--inputs FILE|DIR ...] [--keep DIR]
(--inputs scenarios/ checks the page of the whole corpus; the expected sections and rows come from the
sweep's own JSON report.)
"""
import argparse
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SCENARIOS = ["scenarios/mutants/stale-last-out.json", "scenarios/mutants/client-side-claim.json"]
WINDOW = (1400, 1800)
BROWSER_TIMEOUT = 120  # seconds per Chromium run: its start-up on a loaded 2-core box takes several


def fail(msg):
    print(f"check_report: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def find_chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("ALLOCSIM_ALLOW_NO_BROWSER") == "1" and not os.environ.get("CI"):
        print("check_report: chromium is not installed; skipped (ALLOCSIM_ALLOW_NO_BROWSER=1)", file=sys.stderr)
        sys.exit(77)
    fail("chromium is not installed: the HTML report test needs Debian's `chromium` package "
         "(tools/dev.sh installs it; locally, ALLOCSIM_ALLOW_NO_BROWSER=1 skips this test)")


def chromium(browser, profile, *args):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--disable-background-networking", "--disable-extensions", "--hide-scrollbars",
           f"--user-data-dir={profile}", f"--window-size={WINDOW[0]},{WINDOW[1]}", *args]
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=BROWSER_TIMEOUT)
    except subprocess.TimeoutExpired:
        fail(f"chromium did not finish within {BROWSER_TIMEOUT}s: {' '.join(cmd)}")
    if r.returncode != 0:
        fail(f"chromium exited {r.returncode}: {' '.join(cmd)}\n{r.stderr.decode(errors='replace')[-2000:]}")
    return r.stdout.decode("utf-8")


def check_png(path):
    """The screenshot is a PNG of the window's size whose pixels are not all alike."""
    if not os.path.exists(path):
        fail(f"chromium wrote no screenshot at {path}")
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    if (width, height) != WINDOW:
        fail(f"screenshot is {width}x{height}, expected {WINDOW[0]}x{WINDOW[1]}")
    idat, pos = b"", 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    distinct = len(set(zlib.decompress(idat)))
    if distinct < 32:  # a blank or one-colour page compresses to a handful of byte values
        fail(f"screenshot looks blank ({distinct} distinct byte values in its pixel data)")
    return width, height, len(data), distinct


class Dom(html.parser.HTMLParser):
    """Collects, per violation section, its lanes, steps (with the lane they sit in) and explanation."""

    def __init__(self):
        super().__init__()
        self.sections, self.rows, self.stack, self.bad = [], [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag in ("script", "link", "iframe", "img", "object", "embed"):
            if tag != "script" or a.get("src") is not None:
                self.bad.append(f"<{tag} {attrs}>")
        for key in ("src", "href"):
            if a.get(key) is not None and not a[key].startswith("#"):
                self.bad.append(f"<{tag} {key}={a[key]}>")
        if tag == "tr" and "scenario" in classes:
            self.rows.append(a)
        if tag == "section" and "violation" in classes:
            self.sections.append({"file": a.get("data-file"), "lanes": [], "steps": [], "explanation": False,
                                  "pairs": 0, "swimlanes": None})
        s = self.sections[-1] if self.sections else None
        if s is not None:
            if "explanation" in classes:
                s["explanation"] = True
            if "pair" in classes:
                s["pairs"] += 1
            if "swimlanes" in classes:
                s["swimlanes"] = a
            if "lane" in classes:
                s["lanes"].append(a.get("data-actor"))
            if "step" in classes and tag == "div":
                s["steps"].append({"step": int(a.get("data-step", "-1")), "label": a.get("data-label"),
                                   "lane": s["lanes"][-1] if s["lanes"] else None, "classes": set(classes)})


def actor_names(scenario):
    """The scenario's actors: those it lists, then a background actor per write-behind op (ACTOR.behindI,
    backend/scenario/conditional_ops.h), which a report draws as lanes of their own."""
    names = [a["name"] for a in scenario["actors"]]
    for a in scenario["actors"]:
        names += [f"{a['name']}.behind{i}" for i, op in enumerate(a["script"]) if op.get("behind")]
    return names


def check_dom(dom_text, scenario_actors, rows, violating):
    for needle in ("@import", "url(", "http://", "https://"):
        if needle in dom_text.split("<body")[0]:
            fail(f"the page's head holds {needle!r}: the page must load nothing")
    dom = Dom()
    dom.feed(dom_text)
    if dom.bad:
        fail(f"the page links resources: {dom.bad[:5]}")
    if len(dom.rows) != rows:
        fail(f"{len(dom.rows)} table rows, expected {rows}")
    if [s["file"] for s in dom.sections] != violating:
        fail(f"sections for {[s['file'] for s in dom.sections]}, expected one per violating scenario: {violating}")
    summary = []
    for s in dom.sections:
        name = s["file"]
        if name not in scenario_actors:
            fail(f"section for {name!r}, which the sweep was not given")
        lanes = s["lanes"]
        if len(set(lanes)) != len(lanes) or not set(lanes) <= set(scenario_actors[name]):
            fail(f"{name}: lanes {lanes} are not distinct actors of the scenario {scenario_actors[name]}")
        n = int(s["swimlanes"]["data-steps"])
        if sorted(st["step"] for st in s["steps"]) != list(range(n)) or n == 0:
            fail(f"{name}: steps {[st['step'] for st in s['steps']]} are not 0..{n - 1} once each")
        for st in s["steps"]:
            if not st["label"].startswith(st["lane"] + ":"):
                fail(f"{name}: step {st['step']} ({st['label']}) sits in lane {st['lane']}")
        # Every actor that stepped has its lane (step-in-lane above); an actor of the (shrunk) scenario that took
        # no step keeps an empty lane, as the printed table keeps its column.
        race = [st["step"] for st in s["steps"] if "race" in st["classes"]]
        if s["explanation"] and s["pairs"] and len(race) < 2:
            fail(f"{name}: the explanation names {s['pairs']} racing pair(s) but {len(race)} step(s) are highlighted")
        if not s["explanation"] and (race or any("dim" in st["classes"] for st in s["steps"])):
            fail(f"{name}: steps highlighted or dimmed without an explanation")
        summary.append(f"{name}: {len(lanes)} lanes, {n} steps, explanation {'yes' if s['explanation'] else 'no'}, "
                       f"{len(race)} race steps")
    return summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--allocsim", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--inputs", nargs="+", default=SCENARIOS, help="what to sweep (default: two mutant scenarios)")
    ap.add_argument("--keep", help="copy the page and the screenshot here")
    args = ap.parse_args()
    browser = find_chromium()
    with tempfile.TemporaryDirectory(prefix="allocsim-html-") as tmp:
        page, report = os.path.join(tmp, "report.html"), os.path.join(tmp, "report.json")
        r = subprocess.run([args.allocsim, "sweep", *args.inputs, "--report-html", page, "--report-json", report],
                           cwd=args.root, capture_output=True, text=True, timeout=1800)
        if r.returncode != 0:
            fail(f"allocsim sweep exited {r.returncode}\n{r.stdout}\n{r.stderr}")
        rep = json.load(open(report))
        violating = [s["path"] for s in rep["scenarios"] if s["first_violation"] is not None]
        if args.inputs == SCENARIOS and len(violating) != 2:
            fail(f"the two mutant scenarios should both violate; violating: {violating}")
        actors = {s["path"]: actor_names(json.load(open(os.path.join(args.root, s["path"]))))
                  for s in rep["scenarios"]}
        rows = len(rep["scenarios"]) + len(rep["errors"])
        png = os.path.join(tmp, "report.png")
        chromium(browser, os.path.join(tmp, "profile-shot"), f"--screenshot={png}", "file://" + page)
        shot = check_png(png)
        dom_text = chromium(browser, os.path.join(tmp, "profile-dom"), "--dump-dom", "file://" + page)
        summary = check_dom(dom_text, actors, rows, violating)
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            shutil.copy(page, args.keep)
            shutil.copy(png, args.keep)
    print(f"check_report: screenshot {shot[0]}x{shot[1]}, {shot[2]} bytes, {shot[3]} distinct pixel-data bytes")
    for line in summary:
        print("check_report: " + line)
    print("check_report: ok")


if __name__ == "__main__":
    main()
