# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The viewer's share of each step's waited time in the default app (kernel side).

Builds the default :class:`smrnb.widgets.ReconstructionApp` (the demo chain on the bundled sample) and
measures three things from the steps' records (``seconds``: the step; ``view_seconds``: the widget
turning the result into viewer layers and three.js buffers and sending them):

1. **Run all** (``app.run()``): a step the chain runs past is drawn when its tab is opened, so only
   the step the run ends on is drawn during the run; share = view / (step + view) per step.
2. **Opening each tab** afterwards: the time to draw that step's result (its first view: the viewer
   is built then), the latency a person sees on a tab click (kernel side).
3. **Re-running each step on its own tab after a parameter change** (its viewer on screen): the
   parameter in :data:`RERUN_CHANGES` is set to one of two values, alternately, and the step runs
   alone (earlier ones cached), so every run draws a result that differs from the one on screen;
   share = view / (step + view) and view / waited (the whole ``StepWidget.run`` of the click), the
   median of ``--repeats`` runs; once with the viewers' default
   shading (``auto``: plain meshes flat, no normals) and once with ``smooth`` chosen on their buttons
   (area-weighted vertex normals computed in the kernel).

The browser paints asynchronously after the kernel has sent the buffers (see bench_viewer_update.py
for that latency), so these are the times the kernel is blocked by the viewer. Also times
``Viewer.save_html`` and the voxel cubes of a 200k-voxel grid.

    python benchmarks/bench_viewer_share.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: per step of the default chain: the parameter a person would change before re-running it alone, and
#: the two values the benchmark alternates between (the second is the demo's own value or near it)
RERUN_CHANGES = {
    "tsdf": ("depth_max", 3.5, 4.0),
    "extract_mesh": ("weight_threshold", 3.0, 1.0),
    "fill_holes": ("max_hole_edges", 6, 30),
    "simplify": ("target_number_of_vertices", 7000, 8000),
    "uv": ("chart_num", 50, 60),
    "texture": ("angle_power", 3.0, 2.0),
}


def rerun_shares(app, repeats: int, shading: str = "auto", settle: float = 0.0) -> list[tuple]:
    """Re-run each step alone on its tab after changing one parameter (``RERUN_CHANGES``), ``repeats``
    times, its viewer's shading buttons on ``shading``. Per step the medians of: step s, view s, share of
    step + view, waited s (the whole ``StepWidget.run``: the click's work in the kernel, from the pipeline's
    bookkeeping to the status line), share of waited, and the widget messages the kernel sent during the run.
    ``settle``: seconds to wait before each re-run, as a person looks at the picture before changing a value
    (with a browser showing the app, back-to-back runs would time each run against the page still drawing the
    one before)."""
    import comm.base_comm as base_comm

    sent = [0]
    send = base_comm.BaseComm.send

    def counted(self, *args, **kwargs):
        sent[0] += 1
        return send(self, *args, **kwargs)

    rows = []
    base_comm.BaseComm.send = counted
    try:
        for i, w in enumerate(app.steps):
            app.tabs.selected_index = i
            if w.viewer is not None:
                w.viewer.shading.value = shading
            name, *values = RERUN_CHANGES[w.stage]
            cols: list[list[float]] = [[], [], [], [], [], []]
            for k in range(repeats):
                w.set_params(**{name: values[k % 2]})
                time.sleep(settle)
                sent[0] = 0
                t0 = time.perf_counter()
                assert w.run(), w.error
                waited = time.perf_counter() - t0
                r = app.pipeline.record(w.stage)
                view = r.view_seconds or 0.0
                for col, x in zip(cols, (r.seconds, view, view / (r.seconds + view) if r.seconds + view > 0 else 0.0,
                                         waited, view / waited, sent[0])):
                    col.append(x)
            w.set_params(**{name: values[1]})
            rows.append((w.stage, *(statistics.median(c) for c in cols)))
            if w.viewer is not None:
                w.viewer.shading.value = "auto"
    finally:
        base_comm.BaseComm.send = send
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=7, help="re-runs per step in part 3 (median reported)")
    repeats = ap.parse_args().repeats
    import torch

    from smrnb.geometry import VoxelGrid
    from smrnb.widgets import ReconstructionApp, Viewer

    with tempfile.TemporaryDirectory() as tmp:
        app = ReconstructionApp(output_dir=tmp)
        t0 = time.perf_counter()
        ok = app.run()
        total = time.perf_counter() - t0
        print(f"1. Run all: app.run() ok={ok} in {total:.2f} s")
        print("| step | step s | view s | viewer share |")
        print("|---|---:|---:|---:|")
        worst = 0.0
        for r in app.pipeline.records:
            view = r.view_seconds or 0.0
            share = view / (r.seconds + view) if r.seconds + view > 0 else 0.0
            worst = max(worst, share)
            shown = f"{view:.3f}" if r.view_seconds is not None else "drawn when its tab opens"
            print(f"| {r.step} | {r.seconds:.3f} | {shown} | {share:.1%} |")
        print(f"worst share during Run all {worst:.1%} (bar <= 10 %)")
        print("\n2. Opening each tab afterwards (first view of the step: viewer built, result drawn)")
        print("| step | draw on opening s |")
        print("|---|---:|")
        for i, w in enumerate(app.steps):
            t0 = time.perf_counter()
            app.tabs.selected_index = i
            dt = time.perf_counter() - t0
            print(f"| {w.stage} | {dt:.3f} |")
        print(f"\n3. Re-running each step on its own tab after a parameter change (medians of {repeats} runs; "
              "shading: the viewer's default 'auto', then 'smooth' chosen with its buttons)")
        print("| step | parameter changed | shading | step s | view s | share of step + view | waited s | "
              "share of waited | messages |")
        print("|---|---|---|---:|---:|---:|---:|---:|---:|")
        auto, smooth = rerun_shares(app, repeats), rerun_shares(app, repeats, "smooth")
        for row in auto + smooth:
            stage, s1, v1, sh1, w1, shw1, n1 = row
            name, a, b = RERUN_CHANGES[stage]
            print(f"| {stage} | {name} {a} <-> {b} | {'auto' if row in auto else 'smooth'} | {s1:.3f} | {v1:.4f} | "
                  f"{sh1:.1%} | {w1:.4f} | {shw1:.1%} | {n1:.0f} |")
        for label, rows in (("the default shading", auto), ("smooth shading", smooth)):
            print(f"worst share re-running one step with {label}: {max(r[3] for r in rows):.1%} of step + view, "
                  f"{max(r[5] for r in rows):.1%} of the waited time (bar <= 10 %)")
        mesh = app.latest_mesh()
        v = Viewer(mesh)
        t0 = time.perf_counter()
        out = v.save_html(Path(tmp) / "scene.html")
        print(f"save_html of the final mesh ({mesh.num_vertices:,} vertices): {time.perf_counter() - t0:.3f} s, "
              f"{out.stat().st_size / 1e6:.1f} MB")
    occ = torch.zeros(128, 128, 128, dtype=torch.bool)
    g = torch.Generator().manual_seed(0)
    occ[torch.rand(128, 128, 128, generator=g) < 200_000 / 128 ** 3] = True
    grid = VoxelGrid(occ, torch.zeros(3), 0.01)
    for mode in ("points", "cubes"):
        t0 = time.perf_counter()
        Viewer(grid, voxel_mode=mode)
        print(f"Viewer(grid of {int(occ.sum()):,} scattered voxels, voxel_mode={mode!r}): {time.perf_counter() - t0:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
