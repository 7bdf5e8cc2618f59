# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The demo pipeline's steps, timed in one process: the first run (warm-up included) and warm runs.

What ``python3 -m smrnb demo`` runs (``smrnb/pipeline/default.yaml``: the bundled sample's 15 frames ->
TSDF -> mesh -> holes -> simplify -> UV -> texture -> GLB), built fresh for every run (nothing cached
between runs but what the process itself keeps: CUDA context, loaded kernels, the warm UV helper). For
each run the table gives every step's wall time (the pipeline synchronizes the device after each step),
its CPU time and its backend line; the summary gives the first run, the median of the warm runs, and the
sum of the steps. ``--profile DIR`` writes a cProfile listing and (on CUDA) a torch profiler table of
the last run.

Usage::

    python benchmarks/bench_demo.py [--device cuda|cpu] [--runs 3] [--profile DIR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

T_START = time.perf_counter()
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def machine(device: str) -> str:
    import platform

    import torch

    parts = [f"torch {torch.__version__}", f"python {platform.python_version()}", platform.machine()]
    if device.startswith("cuda"):
        parts.insert(0, f"GPU {torch.cuda.get_device_name(0)}")
        try:
            smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=30).stdout.strip()
            parts.insert(1, f"driver {smi.split(',')[-1].strip()}")
        except (OSError, subprocess.SubprocessError):
            pass
    return ", ".join(parts)


def one_run(device: str, out: str, profile: Path | None = None) -> tuple[dict, float, float]:
    from smrnb.pipeline import Pipeline

    pipe = Pipeline.default(device=device, output_dir=out)
    t0 = time.perf_counter()
    if profile is None:
        pipe.run()
    else:
        import cProfile
        import io
        import pstats

        import torch

        prof = cProfile.Profile()
        acts = [torch.profiler.ProfilerActivity.CPU]
        if device.startswith("cuda"):
            acts.append(torch.profiler.ProfilerActivity.CUDA)
        with torch.profiler.profile(activities=acts) as tp:
            prof.enable()
            pipe.run()
            prof.disable()
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(80)
        (profile / "cprofile.txt").write_text(s.getvalue())
        key = "cuda_time_total" if device.startswith("cuda") else "cpu_time_total"
        (profile / "torch_profile.txt").write_text(tp.key_averages().table(sort_by=key, row_limit=40) + "\n\n"
                                                   + tp.key_averages().table(sort_by="cpu_time_total", row_limit=40))
    wall = time.perf_counter() - t0
    steps = {r.step: r for r in pipe.records}
    return steps, wall, pipe.source_seconds or 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--runs", type=int, default=3, help="runs in this process (the first is the cold one)")
    ap.add_argument("--profile", default=None, metavar="DIR")
    ap.add_argument("--profile-run", type=int, default=None, metavar="K",
                    help="which run --profile profiles (1 = the first, cold one; default the last)")
    args = ap.parse_args()
    t_imp = time.perf_counter()
    import torch  # noqa: F401

    import smrnb.pipeline  # noqa: F401

    imports = time.perf_counter() - t_imp
    print(f"# {machine(args.device)}; imports {imports:.2f} s", flush=True)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.runs):
            prof = None
            if args.profile and k == (args.profile_run or args.runs) - 1:
                prof = Path(args.profile)
                prof.mkdir(parents=True, exist_ok=True)
            steps, wall, src = one_run(args.device, f"{tmp}/run{k}", prof)
            runs.append((steps, wall, src))
            total = sum(r.seconds for r in steps.values())
            print(f"run {k + 1}{' (first)' if k == 0 else ''}{' (profiled)' if prof else ''}: steps {total:.3f} s, "
                  f"source {src:.3f} s, run {wall:.3f} s", flush=True)
            for r in steps.values():
                print(f"    {r.step:<13} {r.seconds:7.3f} s  cpu {r.cpu_seconds or 0:6.3f} s  [{r.backend}, {r.device}]",
                      flush=True)
    names = list(runs[0][0])
    profiled = (args.profile_run or args.runs) - 1 if args.profile else None
    warm = [r for k, r in enumerate(runs) if k > 0 and k != profiled] or runs  # the profiled run is slower
    print()
    print("| step | first run (s) | warm median (s) | backend |")
    print("| --- | --- | --- | --- |")
    for n in names:
        med = statistics.median(r[0][n].seconds for r in warm)
        print(f"| {n} | {runs[0][0][n].seconds:.3f} | {med:.3f} | {runs[-1][0][n].backend} |")
    first_total = sum(r.seconds for r in runs[0][0].values())
    warm_total = statistics.median(sum(r.seconds for r in w[0].values()) for w in warm)
    print(f"| **steps total** | {first_total:.3f} | **{warm_total:.3f}** | |")
    print(f"# process so far {time.perf_counter() - T_START:.1f} s")


if __name__ == "__main__":
    main()
