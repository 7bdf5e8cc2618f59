# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The viewer's share of each step's waited time in the default app (kernel side).

Builds the default :class:`smrnb.widgets.ReconstructionApp` (the demo chain on the bundled sample) and
measures three things from the steps' records (``seconds``: the step; ``view_seconds``: the widget
turning the result into viewer layers and three.js buffers and sending them):

1. **Run all** (``app.run()``): a step the chain runs past is drawn when its tab is opened, so only
   the step the run ends on is drawn during the run; share = view / (step + view) per step.
2. **Opening each tab** afterwards: the time to draw that step's result (its first view: the viewer
   is built then), the latency a person sees on a tab click (kernel side).
3. **Re-running each step on its own tab** (its viewer on screen, as after a parameter change): the
   step runs alone (earlier ones cached) and is drawn at once; share = view / (step + view).

The browser paints asynchronously after the kernel has sent the buffers (see bench_viewer_update.py
for that latency), so these are the times the kernel is blocked by the viewer. Also times
``Viewer.save_html`` and the voxel cubes of a 200k-voxel grid.

    python benchmarks/bench_viewer_share.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    import torch

    from smrnb.geometry.voxels import VoxelGrid
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
        print("\n3. Re-running each step on its own tab (earlier steps cached; drawn at once)")
        print("| step | step s | view s | viewer share |")
        print("|---|---:|---:|---:|")
        worst_single = 0.0
        for i, w in enumerate(app.steps):
            app.tabs.selected_index = i
            app.pipeline.invalidate(w.stage)
            assert w.run(), w.error
            r = app.pipeline.record(w.stage)
            view = r.view_seconds or 0.0
            share = view / (r.seconds + view) if r.seconds + view > 0 else 0.0
            worst_single = max(worst_single, share)
            print(f"| {r.step} | {r.seconds:.3f} | {view:.3f} | {share:.1%} |")
        print(f"worst share re-running one step {worst_single:.1%} (bar <= 10 %)")
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
