# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Estimate vs actual: the widgets' "ask before a long run" model judged on sizes it was not calibrated on.

The estimates of :mod:`smrnb.pipeline._estimate` are calibrated by quick probes at fixed coarse sizes
(voxelize: grids of 64 and 256 voxels along the longest side; tsdf: 2 frames at 50 and 12.5 mm;
texture: the middle frame at 256^2 texels, 3 frames at 512^2 near the limits, the bake timing its own
phases). Here each step then runs on the bundled
sample at held-out sizes, none of them a probe size (the texture also on a second frame set,
``../shared/data/redwood-livingroom1-rgbd5``), and the estimate is set against the measured wall time
and the peak RSS above the level before the call (sampled every 5 ms; freed heap returned to the
system first with ``malloc_trim``).

    python benchmarks/bench_estimate.py [--quick] [--out benchmarks/RESULTS_widgets.md]
"""

from __future__ import annotations

import argparse
import ctypes
import platform
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096


class Peak:
    """Peak RSS above the starting level while the block runs."""

    def __enter__(self) -> Peak:
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except OSError:
            pass
        self.base = rss()
        self.peak = self.base
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._poll, daemon=True)
        self._t.start()
        return self

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss())
            time.sleep(0.005)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, rss())
        self.delta = self.peak - self.base


def shared_data() -> Path | None:
    import os

    d = Path(os.environ.get("SMRNB_SHARED_DATA", ROOT.parent / "shared" / "data"))
    return d if d.is_dir() else None


def measure(step, data, params, extras=None):
    from smrnb.pipeline._estimate import estimate_step

    est = estimate_step(step, data, params, extras)
    fn = step.resolve()
    with Peak() as pk:
        t0 = time.perf_counter()
        out = fn(data, **(extras or {}), **params)
        seconds = time.perf_counter() - t0
    del out
    return est, seconds, pk.delta


def main() -> None:
    import warnings

    import smrnb
    from smrnb.pipeline import Pipeline, _estimate, get_step
    from smrnb.widgets._app import DEFAULT_SOURCE, DEFAULT_STEPS

    warnings.simplefilter("ignore")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip the largest sizes")
    ap.add_argument("--calibrations", type=int, default=5, help="fresh texture calibrations per size (spread)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "RESULTS_widgets.md")
    args = ap.parse_args()

    frames = smrnb.load_sample(stride=5)
    rows = []
    spread: list[tuple[str, int, float, list[float], list[float]]] = []

    def row(name, setting, est, seconds, delta):
        rows.append((name, setting, est.seconds, seconds, est.bytes, delta, est.calibration_seconds))
        print(f"{name:9} {setting:>16}  est {est.seconds:8.2f} s  actual {seconds:8.2f} s  "
              f"est {est.bytes / 2**20:9.1f} MiB  actual +{delta / 2**20:9.1f} MiB  (calibration "
              f"{est.calibration_seconds:.2f} s)", flush=True)

    # tsdf on the default app's frames (15 of the sample's 71), held-out voxel sizes
    tsdf = get_step("tsdf")
    for vs in ([0.03, 0.02, 0.008] if args.quick else [0.03, 0.02, 0.008, 0.005, 0.003]):
        params = {**tsdf.defaults(), "voxel_size": vs, "depth_max": 4.0}
        row("tsdf", f"voxel {vs * 1000:g} mm", *measure(tsdf, frames, params))

    # voxelize: the occupancy lesson's points (stride 8, cleaned), held-out voxel sizes
    cloud = smrnb.clean_points(smrnb.frames_to_points(frames, stride=8, depth_max=3.0)).cloud
    vox = get_step("voxelize")
    for vs in ([0.05, 0.02, 0.01] if args.quick else [0.05, 0.02, 0.01, 0.005, 0.003]):
        params = {"voxel_size": vs, "max_grid_size": 1024}
        row("voxelize", f"voxel {vs * 1000:g} mm", *measure(vox, cloud, params))

    # texture on the default chain's UV mesh, held-out resolutions; then the same chain on a second frame set
    # (the 5 frames of redwood-livingroom1-rgbd5: another sensor simulation, never looked at while the model was
    # written). Each size is estimated after --calibrations fresh calibrations (cache cleared): their spread
    tex = get_step("texture")
    quick_share = _estimate.QUICK_SHARE
    sets = [("sample", dict(DEFAULT_SOURCE))]
    data = shared_data()
    if data is not None and (data / "redwood-livingroom1-rgbd5").is_dir():
        sets.append(("rgbd5", {"path": str(data / "redwood-livingroom1-rgbd5")}))
    else:
        print("second frame set skipped: ../shared/data/redwood-livingroom1-rgbd5 not found")
    for set_name, source in sets:
        p = Pipeline(list(DEFAULT_STEPS), source=source)
        mesh = p.run(until="uv")
        frames_t = p.source_data()
        for R in ([768, 1024] if args.quick else [768, 1024, 2048]):
            params = {**tex.defaults(), "resolution": R}
            kinds = {}
            for kind, share in (("quick", float("inf")), ("full", 0.0)):  # each calibration forced, in turn
                _estimate.QUICK_SHARE, ests = share, []
                for _ in range(args.calibrations):
                    _estimate._CACHE.clear()
                    ests.append(_estimate.estimate_step(tex, mesh, params, {"frames": frames_t}))
                kinds[kind] = ests
            _estimate.QUICK_SHARE = quick_share
            _estimate._CACHE.clear()
            est, seconds, delta = measure(tex, mesh, params, {"frames": frames_t})
            row("texture", f"{set_name} {R}^2 texels", est, seconds, delta)
            for kind, ests in kinds.items():
                spread.append((set_name, R, kind, seconds, [e.seconds for e in ests], [e.calibration_seconds for e in ests]))

    cmd = "python benchmarks/bench_estimate.py " + " ".join(sys.argv[1:])
    lines = ["## Estimate before a run vs the run (held-out sizes)", "",
             f"Command: `{cmd}`  ",
             f"Machine: {platform.machine()}, 2 shared CPU cores (other work running), "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Calibration probes at fixed coarse sizes "
             "(voxelize: 64 and 256 voxels along the longest side; tsdf: 2 frames at 50 and 12.5 mm; texture: "
             "the middle frame at 256^2, or 3 frames at 512^2 where that lands within "
             f"{quick_share:.0%} of a limit, the bake timing its own phases); no row below is a probe size; memory of tsdf and "
             "texture calibrated on the probes' peak RSS. Memory: the estimate is the step's working "
             "set; the measurement is the peak RSS above the level before the call (5 ms sampling).", "",
             "| step | setting | estimated s | actual s | est / actual | estimated MiB | actual peak +MiB | "
             "est / actual | calibration s |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, setting, es, s, eb, b, cal in rows:
        lines.append(f"| {name} | {setting} | {es:.2f} | {s:.2f} | {es / s:.2f} | {eb / 2**20:.1f} | "
                     f"{b / 2**20:.1f} | {eb / b if b > 0 else float('nan'):.2f} | {cal:.2f} |")
    if spread:
        lines += ["", f"Texture time estimate over {args.calibrations} fresh calibrations per size and kind (cache "
                  "cleared each time; quick: the middle frame at 256^2, what the widget uses while the figure stays "
                  f"under {quick_share:.0%} of both limits; full: 3 frames at 512^2 after a warm-up, used above "
                  "that), against the one measured bake:", "",
                  "| frames | texture | calibration | actual s | estimates s (min - max) | est / actual (min - max) | "
                  "calibration s |",
                  "|---|---|---|---:|---:|---:|---:|"]
        for set_name, R, kind, secs, es, cs in spread:
            lines.append(f"| {set_name} | {R}^2 | {kind} | {secs:.2f} | {min(es):.2f} - {max(es):.2f} | "
                         f"{min(es) / secs:.2f} - {max(es) / secs:.2f} | {min(cs):.2f} - {max(cs):.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    start, end = "<!-- bench_estimate -->", "<!-- /bench_estimate -->"
    old = args.out.read_text() if args.out.exists() else "# Widgets benchmarks\n"
    block = f"{start}\n{text}{end}"
    new = (old.split(start)[0] + block + old.split(end, 1)[1]) if start in old and end in old \
        else old.rstrip("\n") + "\n\n" + block + "\n"
    args.out.write_text(new)


if __name__ == "__main__":
    main()
