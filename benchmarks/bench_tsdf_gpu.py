# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""TSDF fusion speed on a CUDA GPU: the whole ``fuse_tsdf`` call on the Redwood sample, in one process.

Data: the 211 RGB-D frames (640x480) of ``../shared/data/redwood-livingroom1-clean-micro`` (or
``--data``), read once by this repository's reader and handed to every measured tree as the same
tensors, pre-loaded on the GPU (``--frames-on cpu``: in host memory, as a reader returns them). For each
voxel size (default 1 cm, 5 mm, 4 mm; truncation 4 voxels,
depth_max 3 m, color): the first call of the process is reported apart (kernel loading, allocator
growth), then one warm-up call and ``--reps`` timed calls (``torch.cuda.synchronize`` around each);
FPS = 211 / median seconds. Every voxel size runs in the same process, as a user's session would.

``--frames-on pinned``: in page-locked host memory (``Frames.pin_memory()``; the pinning is counted in
``upload_s``, not in the FPS). ``--upload async,sync`` (frames in host memory) measures each way the frames'
images reach the GPU (``smrnb.geometry._tsdf._UPLOAD``: copies on a side stream while the previous group
is integrated, or plain copies on the compute stream), each in its own child process.

``--tree PATH`` (repeatable) measures other smrnb source trees (e.g. ``git worktree add /tmp/old
COMMIT``), each in its own child process started one after the other, so old and new code are compared
on the same machine in the same run. ``--profile VOXEL`` also writes a torch profiler table of one
warm call at that voxel size (``--profile-out``).

Usage::

    python benchmarks/bench_tsdf_gpu.py [--voxels 0.01,0.005,0.004] [--reps 5] [--tree PATH ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _child(tree: str, device: str, cache: str, voxels: list[float], reps: int, profile: float | None,
           profile_out: str | None, frames_on: str, upload: str | None) -> None:
    sys.path.insert(0, tree)
    import torch

    import smrnb

    if upload:
        import smrnb.geometry._tsdf as tsdf_module

        assert hasattr(tsdf_module, "_UPLOAD"), "this tree has no upload modes"
        tsdf_module._UPLOAD = upload

    fuse_tsdf = smrnb.fuse_tsdf
    assert Path(smrnb.__file__).resolve().is_relative_to(Path(tree).resolve()), smrnb.__file__
    d = torch.load(cache)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    t0 = time.perf_counter()
    where = device if frames_on == "device" else "cpu"
    frames = smrnb.Frames(depth=d["depth"].to(where), K=d["K"].to(where), color=d["color"].to(where),
                          poses=d["poses"].to(where))
    if frames_on == "pinned":
        frames = frames.pin_memory()
    sync()
    upload = time.perf_counter() - t0
    n = len(frames)
    out: dict = {"tree": tree, "frames": n, "upload_s": upload, "rows": []}

    def once(v: float):
        sync()
        t = time.perf_counter()
        vol = fuse_tsdf(frames, voxel_size=v, progress=False, device=device)
        sync()
        return time.perf_counter() - t, vol

    first = None
    for v in voxels:
        t_first, vol = once(v)
        if first is None:
            first = t_first
        times = [once(v)[0] for _ in range(reps)]
        med = statistics.median(times)
        out["rows"].append({"voxel": v, "first_s": t_first, "times": times, "median_s": med, "fps": n / med,
                            "blocks": int(vol.num_blocks)})
        del vol
        if profile is not None and abs(v - profile) < 1e-9:
            from torch.profiler import ProfilerActivity
            from torch.profiler import profile as prof

            with prof(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
                once(v)
            table = p.key_averages().table(sort_by="cuda_time_total", row_limit=30)
            table_cpu = p.key_averages().table(sort_by="cpu_time_total", row_limit=30)
            Path(profile_out or "tsdf_profile.txt").write_text(f"{tree} voxel {v}\n{table}\n\n{table_cpu}\n")
    out["first_call_s"] = first
    print("RESULT " + json.dumps(out), flush=True)


def _load(data: str, cache: str) -> None:
    sys.path.insert(0, str(REPO))
    import torch

    import smrnb

    fr = smrnb.load_redwood(data)
    torch.save({"depth": fr.depth, "K": fr.K, "color": fr.color, "poses": fr.poses}, cache)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "redwood-livingroom1-clean-micro"))
    ap.add_argument("--voxels", default="0.01,0.005,0.004")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--device", default="cuda", help="cuda (default) or cpu (to try the script)")
    ap.add_argument("--frames-on", choices=("device", "cpu", "pinned"), default="device",
                    help="where the frames are when fuse_tsdf is called: pre-loaded on the device (default), in "
                         "host memory as a reader returns them (fuse_tsdf(frames, device='cuda')), or in page-locked "
                         "host memory (Frames.pin_memory())")
    ap.add_argument("--upload", default=None, help="comma-separated upload modes to measure (async, sync)")
    ap.add_argument("--tree", action="append", default=None, help="smrnb source tree to measure (repeatable)")
    ap.add_argument("--label", action="append", default=None, help="a name per --tree, in order")
    ap.add_argument("--profile", type=float, default=None, metavar="VOXEL")
    ap.add_argument("--profile-out", default=None, metavar="DIR", help="folder for the profiler tables")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--cache", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    voxels = [float(x) for x in args.voxels.split(",")]
    if args.child:
        _child(args.child, args.device, args.cache, voxels, args.reps, args.profile, args.profile_out, args.frames_on,
               args.upload)
        return
    if not Path(args.data).is_dir():
        sys.exit(f"no Redwood data at {args.data} (--data)")
    trees = args.tree or [str(REPO)]
    labels = args.label or [Path(t).name for t in trees]
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no CUDA GPU"
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        smi = f"not available ({type(exc).__name__})"
    print(f"GPU {gpu}; nvidia-smi: {smi}; torch {torch.__version__} (CUDA {torch.version.cuda}); python "
          f"{sys.version.split()[0]}; frames on {args.frames_on}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "frames.pt")
        t0 = time.perf_counter()
        _load(args.data, cache)
        print(f"frames read in {time.perf_counter() - t0:.1f} s", flush=True)
        results = []
        uploads = args.upload.split(",") if args.upload else [None]
        runs = [(tree, label if up is None else f"{label} ({up})", up) for tree, label in zip(trees, labels)
                for up in uploads]
        for tree, label, up in runs:
            cmd = [sys.executable, __file__, "--child", tree, "--cache", cache, "--voxels", args.voxels,
                   "--reps", str(args.reps), "--device", args.device, "--frames-on", args.frames_on]
            if up:
                cmd += ["--upload", up]
            if args.profile is not None:
                cmd += ["--profile", str(args.profile), "--profile-out",
                        os.path.join(args.profile_out or ".", f"tsdf_profile_{label}.txt")]
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=tree)
            line = next((ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")), None)
            if line is None:
                print(f"[{label}] failed (exit {r.returncode}):\n{r.stderr[-3000:]}", flush=True)
                continue
            res = json.loads(line[7:])
            res["label"] = label
            results.append(res)
            print(f"[{label}] frames placed in {res['upload_s']:.3f} s; first call {res['first_call_s']:.3f} s; " + "; ".join(
                f"{row['voxel'] * 1000:g} mm: {row['fps']:.0f} FPS (median {row['median_s'] * 1000:.1f} ms of "
                f"{', '.join(f'{t * 1000:.1f}' for t in row['times'])}; first {row['first_s'] * 1000:.0f} ms; "
                f"{row['blocks']} blocks)" for row in res["rows"]), flush=True)
    print()
    print("| code | " + " | ".join(f"{v * 1000:g} mm FPS (median ms)" for v in voxels) + " | first call of the process |")
    print("| --- | " + " | ".join("---" for _ in voxels) + " | --- |")
    for res in results:
        print(f"| {res['label']} | " + " | ".join(f"{row['fps']:.0f} ({row['median_s'] * 1000:.1f})"
                                                 for row in res["rows"]) + f" | {res['first_call_s']:.3f} s |")


if __name__ == "__main__":
    main()
