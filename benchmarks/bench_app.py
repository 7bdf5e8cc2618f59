# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The default app's "Run all" in a real browser vs the headless ``Pipeline`` on the same steps.

Bars (issue 14): "Run all" on the default :class:`smrnb.ReconstructionApp` takes <= 1.5x the headless
``Pipeline`` time for the same source and steps; the viewer's share of any step <= 10 %; the
kernel's peak memory <= 2 GB.

Reference, measured in the same run: a fresh Python process imports smrnb, builds
``Pipeline(DEFAULT_STEPS, source=DEFAULT_SOURCE)`` and times ``run()`` (the source load included);
its peak RSS (``VmHWM``) is recorded too. It runs before and after the app, and the app is compared
with their mean (the machine is shared: a drift shows as a difference between the two).

App: JupyterLab on 127.0.0.1, headless Debian Chromium (SwiftShader WebGL). A notebook builds the
default app and shows it; the benchmark clicks **Run all** in the page (Python ``time.time()`` just
before the click) and waits until the app's header says the steps ran and the kernel is idle (page
``Date.now()``, same clock). The kernel then reports each step's record (its own time, the time the
widget spent showing it, the estimate) and its ``VmHWM``; then each step is re-run alone on its tab
after a parameter change, with the browser showing it (``bench_viewer_share.rerun_shares``).

    python benchmarks/bench_app.py [--repeats 7] [--out benchmarks/RESULTS_widgets.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser import _lab  # noqa: E402

HEADLESS = r'''
import json, sys, tempfile, time
import smrnb
from smrnb.pipeline import Pipeline
from smrnb.widgets._app import DEFAULT_SOURCE, DEFAULT_STEPS

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024

base = hwm()
t0 = time.perf_counter()
p = Pipeline(list(DEFAULT_STEPS), source=dict(DEFAULT_SOURCE), output_dir=tempfile.mkdtemp())
p.run()
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "vmhwm": hwm(), "vmhwm_after_import": base,
                  "steps": {r.step: r.seconds for r in p.records}, "source_seconds": p.source_seconds}))
'''

SETUP = '''
import json, os, tempfile, time
import smrnb
from smrnb.widgets import ReconstructionApp

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024

hwm_before = hwm()
app = ReconstructionApp(output_dir=tempfile.mkdtemp())

# a timeline of the kernel's work during Run all (wall clock, the page's clock too): what ran when
TIMELINE = []

def _traced(obj, name, label):
    fn = getattr(obj, name)
    def traced(*args, **kwargs):
        t0 = time.time()
        try:
            return fn(*args, **kwargs)
        finally:
            TIMELINE.append((label(args) if callable(label) else label, t0, time.time()))
    setattr(obj, name, traced)

_traced(app, "run", "app.run")
_traced(app.pipeline, "_load_source", "source")
_traced(app.pipeline, "estimate", lambda a: f"estimate {app.pipeline.names[app.pipeline._index(a[0])]}")
_traced(app.pipeline, "_run_stage", lambda a: f"step {a[1].name}")
for _w in app.steps:
    _traced(_w, "_draw", f"draw {_w.stage}")
app
'''

REPORT = '''
app._thread.join()
print("REPORT " + json.dumps({
    "vmhwm": hwm(), "vmhwm_before_app": hwm_before, "status": app.run_status.value,
    "records": [{"step": r.step, "seconds": r.seconds, "view_seconds": r.view_seconds,
                 "waited_seconds": r.waited_seconds, "estimate": r.estimate} for r in app.pipeline.records],
    "source_seconds": app.pipeline.source_seconds, "timeline": TIMELINE}))
'''

# after Run all: each step re-run alone on its tab after a parameter change, in this kernel with the browser
# showing the app (so every widget message really travels); both shadings, as in bench_viewer_share.py; 0.5 s
# before each re-run, the time the page takes to draw the previous one here (a person looks at it first)
RERUN = '''
import sys
sys.path.insert(0, {root!r})
from benchmarks.bench_viewer_share import rerun_shares
print("RERUN " + json.dumps({{"auto": rerun_shares(app, {repeats}, settle=0.5),
                             "smooth": rerun_shares(app, {repeats}, "smooth", settle=0.5)}}))
'''


def notebook(cells: list[str]) -> dict:
    return {"cells": [{"cell_type": "code", "metadata": {}, "source": c.strip("\n"), "outputs": [],
                       "execution_count": None, "id": f"c{i}"} for i, c in enumerate(cells)],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _cpu_by_group() -> dict[str, float]:
    """CPU seconds (user + system) so far of every process on the machine, by kind: the browser
    (Chromium and its renderer / GPU processes), the Jupyter kernel, the Jupyter server, anything else
    (other users' work on a shared machine). Two snapshots around a run give who used the CPUs."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {"browser": 0.0, "kernel": 0.0, "server": 0.0, "other": 0.0}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        cpu = (int(fields[11]) + int(fields[12])) / tick
        kind = ("browser" if "chrom" in cmd else "kernel" if "ipykernel" in cmd else
                "server" if "jupyter" in cmd or "jupyterlab" in cmd else "other")
        out[kind] += cpu
    return out


def headless() -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", HEADLESS], capture_output=True, text=True, timeout=900, env=env)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def app_run(repeats: int = 7) -> dict:
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="smrnb-bench-app-"))
    server = _lab.start_server("lab", work)
    rerun = RERUN.format(root=str(ROOT), repeats=repeats)
    (server.root / "bench_app.ipynb").write_text(json.dumps(notebook([SETUP, REPORT, rerun])))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=_lab.CHROMIUM, args=_lab.CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            _lab.open_notebook(page, server, "bench_app.ipynb")
            cells = page.locator(".jp-Notebook .jp-CodeCell")
            cells.nth(0).click(position={"x": 2, "y": 2})
            page.keyboard.press("Escape")
            page.keyboard.press("Shift+Enter")
            button = page.locator(".smrnb-app button", has_text="Run all")
            button.wait_for(timeout=240_000)
            _lab.wait_kernel_idle(page, 240_000)
            page.wait_for_timeout(1000)
            cpu0 = _cpu_by_group()
            t_click = time.time()
            button.click()
            page.wait_for_function(
                "() => [...document.querySelectorAll('.smrnb-app')].some(e => /step\\(s\\) ran|failed|waits for/"
                ".test(e.innerText))", timeout=900_000, polling=100)
            t_done = page.evaluate("() => Date.now()") / 1000.0
            _lab.wait_kernel_idle(page, 120_000)
            t_idle = page.evaluate("() => Date.now()") / 1000.0
            cpu1 = _cpu_by_group()
            _lab.save_artifact("bench-app-run-all.png", page.screenshot(full_page=True))
            cells.nth(1).click(position={"x": 2, "y": 2})
            page.keyboard.press("Escape")
            page.keyboard.press("Control+Enter")
            out = cells.nth(1).locator(".jp-OutputArea-output", has_text="REPORT {")
            out.wait_for(timeout=120_000)
            rep = json.loads(out.inner_text().split("REPORT ", 1)[1].strip().splitlines()[0])
            cells.nth(2).click(position={"x": 2, "y": 2})
            page.keyboard.press("Escape")
            page.keyboard.press("Control+Enter")
            out = cells.nth(2).locator(".jp-OutputArea-output", has_text="RERUN {")
            out.wait_for(timeout=600_000)
            rep["rerun"] = json.loads(out.inner_text().split("RERUN ", 1)[1].strip().splitlines()[0])
            _lab.save_artifact("bench-app-reruns.png", page.screenshot(full_page=True))
            browser.close()
    finally:
        server.stop()
    if "step(s) ran" not in rep["status"]:  # it asked (an estimate over the limits) or failed: not a full run
        raise RuntimeError(f"the app's Run all did not run every step: {rep['status']}")
    cpu = {k: cpu1[k] - cpu0[k] for k in cpu0}
    return {**rep, "seconds": t_done - t_click, "seconds_to_idle": t_idle - t_click, "cpu": cpu, "t_click": t_click}


def gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def report(h1: dict, app: dict, h2: dict, command: str) -> str:
    ref = (h1["seconds"] + h2["seconds"]) / 2
    ratio = app["seconds"] / ref
    peak = app["vmhwm"]
    lines = [
        "## Default app: Run all in the browser vs the headless Pipeline (issue 14 bars)",
        "",
        f"Command: `{command}`  ",
        f"Machine: {platform.machine()}, 2 shared CPU cores (other work running), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        "JupyterLab on 127.0.0.1, headless Debian Chromium (SwiftShader WebGL).",
        "",
        "| run | seconds | peak RSS (VmHWM) |",
        "|---|---:|---:|",
        f"| headless Pipeline, before | {h1['seconds']:.2f} | {gib(h1['vmhwm'])} |",
        f"| app Run all (click -> header says the steps ran) | {app['seconds']:.2f} | {gib(peak)} (kernel) |",
        f"| headless Pipeline, after | {h2['seconds']:.2f} | {gib(h2['vmhwm'])} |",
        "",
        f"Ratio app / headless mean: **{ratio:.2f}x** (bar <= 1.5x: {'met' if ratio <= 1.5 else 'NOT met'}). "
        f"Kernel peak {gib(peak)} (bar <= 2 GB = 1.86 GiB: {'met' if peak <= 2e9 else 'NOT met'}); the kernel held "
        f"{gib(app['vmhwm_before_app'])} after importing smrnb and the widgets, before the app.",
        "",
        "Per step in the app (the record's own time, the time to show the result, the viewer's share of what "
        "the person waited, the estimate made before the run):",
        "",
        "| step | step s | headless s | show s | viewer share | estimated s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    hs = {k: (h1["steps"].get(k, 0) + h2["steps"].get(k, 0)) / 2 for k in h1["steps"]}
    worst = 0.0
    for r in app["records"]:
        share = (r["view_seconds"] or 0) / r["waited_seconds"] if r["waited_seconds"] else 0.0
        worst = max(worst, share)
        est = r.get("estimate")
        lines.append(f"| {r['step']} | {r['seconds']:.2f} | {hs.get(r['step'], float('nan')):.2f} | "
                     f"{(r['view_seconds'] or 0):.2f} | {share:.0%} | {est['seconds']:.2f} |" if est else
                     f"| {r['step']} | {r['seconds']:.2f} | {hs.get(r['step'], float('nan')):.2f} | "
                     f"{(r['view_seconds'] or 0):.2f} | {share:.0%} | - |")
    src_h = (h1["source_seconds"] + h2["source_seconds"]) / 2
    cal = sum((r.get("estimate") or {}).get("calibration_seconds", 0.0) for r in app["records"])
    accounted = app["source_seconds"] + sum(r["seconds"] + (r["view_seconds"] or 0) for r in app["records"]) + cal
    cpu = app.get("cpu", {})
    lines += ["", f"Where the {app['seconds']:.2f} s went in the kernel: source {app['source_seconds']:.2f} s, steps "
              f"{sum(r['seconds'] for r in app['records']):.2f} s, drawing {sum(r['view_seconds'] or 0 for r in app['records']):.2f} s, "
              f"estimate probes {cal:.2f} s, the rest (between steps, messages) {app['seconds'] - accounted:.2f} s."]
    if cpu:
        lines += [f"CPU seconds used from the click to the kernel's idle ({app['seconds_to_idle']:.2f} s wall, "
                  f"{os.cpu_count()} CPUs): kernel {cpu['kernel']:.2f}, browser {cpu['browser']:.2f}, Jupyter server "
                  f"{cpu['server']:.2f}, other processes {cpu['other']:.2f}."]
    tl = sorted(app.get("timeline") or [], key=lambda e: e[1])
    if tl:
        t_click = app["t_click"]
        parts = []
        for label, a, b in tl:
            if label == "app.run":
                continue
            parts.append(f"{label} {a - t_click:.2f}-{b - t_click:.2f}")
        run = [e for e in tl if e[0] == "app.run"]
        inner = [e for e in tl if e[0] != "app.run" and not e[0].startswith("draw")] + \
                [e for e in tl if e[0].startswith("draw")]
        busy = sum(b - a for _, a, b in inner)
        lines += ["", "Kernel timeline of the run (seconds after the click): " + "; ".join(parts) + "."]
        if run:
            _, ra, rb = run[0]
            lines += [f"`app.run` from {ra - t_click:.2f} to {rb - t_click:.2f} s: source, estimates, steps and draws "
                      f"{busy:.2f} s of its {rb - ra:.2f} s (the rest: widget updates between them); click to run "
                      f"start {ra - t_click:.2f} s, run end to the header seen in the page {app['seconds'] - (rb - t_click):.2f} s."]
    lines += ["", f"Source load: app {app['source_seconds']:.2f} s, headless {src_h:.2f} s. Largest viewer share "
              f"{worst:.0%} (bar <= 10 %: {'met' if worst <= 0.10 else 'NOT met'}). Kernel idle "
              f"{app['seconds_to_idle']:.2f} s after the click.", ""]
    rr = app.get("rerun")
    if rr:
        lines += ["Then each step re-run alone on its tab after a parameter change (medians; the parameter each step "
                  "changes is in `bench_viewer_share.RERUN_CHANGES`; 0.5 s between re-runs, so the page has drawn the "
                  "previous one), in the kernel, with the browser showing the app.",
                  "", "Per row: the step's own time, the time to show its result, the viewer's share of the two, the "
                  "whole click in the kernel (`StepWidget.run`: pipeline bookkeeping, step, drawing, status line), "
                  "the viewer's share of that, and the widget messages the kernel sent for the click.",
                  "", "| step | shading | step s | show s | share of step + show | waited s | share of waited | "
                  "messages |", "|---|---|---:|---:|---:|---:|---:|---:|"]
        for shading in ("auto", "smooth"):
            for st, s1, v1, sh1, w1, shw1, n1 in rr[shading]:
                lines.append(f"| {st} | {shading} | {s1:.3f} | {v1:.4f} | {sh1:.1%} | {w1:.4f} | {shw1:.1%} | "
                             f"{n1:.0f} |")
        for shading, label in (("auto", "the viewers' default shading (auto: plain meshes flat)"),
                               ("smooth", "smooth shading chosen on their buttons")):
            wa, ww = max(r[3] for r in rr[shading]), max(r[5] for r in rr[shading])
            lines += ["", f"Largest share re-running one step with {label}: {wa:.1%} of step + show, {ww:.1%} of the "
                      f"waited time (bar <= 10 %: {'met' if wa <= 0.10 else 'met on the waited time' if ww <= 0.10 else 'NOT met'})."]
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "RESULTS_widgets.md")
    ap.add_argument("--repeats", type=int, default=7, help="re-runs per step and shading after Run all (median)")
    args = ap.parse_args()
    h1 = headless()
    print("headless before:", json.dumps(h1), flush=True)
    app = app_run(args.repeats)
    print("app:", json.dumps(app), flush=True)
    h2 = headless()
    print("headless after:", json.dumps(h2), flush=True)
    text = report(h1, app, h2, "python benchmarks/bench_app.py " + " ".join(sys.argv[1:]))
    print(text)
    start, end = "<!-- bench_app -->", "<!-- /bench_app -->"
    old = args.out.read_text() if args.out.exists() else "# Widgets benchmarks\n"
    block = f"{start}\n{text}\n{end}"
    if start in old and end in old:
        new = old.split(start)[0] + block + old.split(end, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + block + "\n"
    args.out.write_text(new)


if __name__ == "__main__":
    main()
