# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""CPU steps on an idle and on a busy machine: smrnb vs its peer, in the same conditions.

Steps (each system in its own fresh process, at its own defaults, so one's OpenMP settings never
reach the other):

- ``tsdf``: ``fuse_tsdf`` vs Open3D ``VoxelBlockGrid`` (block_resolution 16), Redwood living room
  (``redwood-livingroom1-clean-micro``): the 190 frames of the held-out protocol (every 10th frame
  left out), or every ``--stride``-th of them; 1 cm voxels, truncation 8 voxels, depth_max 3 m, color.
- ``mc``: ``smrnb.geometry._marching_cubes.marching_cubes`` vs ``skimage.measure.marching_cubes``
  on a 160^3 float32 field (a union of two ellipsoids' signed distances), level 0, median of 3 runs.
- ``texture``: ``bake_texture`` vs Open3D ``project_images_to_albedo``, same mesh and UVs (TSDF of
  every 3rd frame at 2 cm, simplified to 10k vertices, ``auto_uv`` at 1024), 11 frames, 1024^2.
- ``demo``: the whole ``smrnb demo`` pipeline (every step; no peer: its bar is wall vs CPU and its
  busy/idle wall time).

Conditions: ``idle`` (nothing added: other users' load is recorded, not removed) and ``busy`` (two
``python -c 'while True: pass'`` processes this script starts and stops). For each step it reports
wall and CPU seconds (user + system of the whole process, every thread), wall/CPU, and the speed
ratio peer_wall / smrnb_wall. Bars: busy ratio >= 0.8 x idle ratio; smrnb wall <= 3 x CPU.

Usage::

    nice -n 5 python benchmarks/bench_contention.py [--stride 3] [--repeats 1] [--steps tsdf,mc,texture,demo]
        [--out benchmarks/RESULTS_contention.md]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "redwood-livingroom1-clean-micro"


def _usage() -> tuple[float, float]:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), r.ru_utime + r.ru_stime


def _timed(fn):
    w0, c0 = _usage()
    out = fn()
    w1, c1 = _usage()
    return out, w1 - w0, c1 - c0


def _mc_field():
    import numpy as np

    n = 160
    g = np.linspace(-1.0, 1.0, n, dtype=np.float32)
    x, y, z = np.meshgrid(g, g, g, indexing="ij")
    a = np.sqrt((x / 0.8) ** 2 + (y / 0.5) ** 2 + (z / 0.6) ** 2) - 1.0
    b = np.sqrt(((x - 0.3) / 0.4) ** 2 + ((y + 0.4) / 0.5) ** 2 + (z / 0.7) ** 2) - 1.0
    return np.minimum(a, b).astype(np.float32)


def _fuse_ids(stride: int) -> list[int]:
    return [i for i in range(211) if i % 10 != 0][::stride]


# ----------------------------------------------------------------------------------------- worker


def worker(step: str, system: str, args: argparse.Namespace) -> dict:
    """Runs in a fresh process: one step of one system; returns wall/CPU seconds and the threads used."""
    if system == "peer":
        import open3d  # noqa: F401  (its OpenMP runtime loads with the environment as given)
    else:
        import smrnb  # first, as `smrnb demo` does: sets the OpenMP wait policy before torch loads
    import numpy as np

    res: dict = {"step": step, "system": system}
    if step == "mc":
        vol = _mc_field()
        if system == "smrnb":
            import torch

            from smrnb.geometry._marching_cubes import marching_cubes

            t = torch.from_numpy(vol)
            marching_cubes(t[::4, ::4, ::4].contiguous(), 0.0)  # warm-up (tables)

            def fn():
                return marching_cubes(t, 0.0)
        else:
            from skimage.measure import marching_cubes as skmc

            skmc(vol[::4, ::4, ::4], 0.0)

            def fn():
                return skmc(vol, 0.0)
        runs = [_timed(fn)[1:] for _ in range(3)]
        runs.sort()
        res["wall"], res["cpu"] = runs[1]
    elif step == "tsdf":
        import smrnb

        frames = smrnb.load_redwood(str(DATA)).select(_fuse_ids(args.stride))
        res["frames"] = len(frames)
        if system == "smrnb":
            smrnb.fuse_tsdf(frames.select(slice(0, 3)), 0.01, 0.08, progress=False)  # warm-up
            _, res["wall"], res["cpu"] = _timed(lambda: smrnb.fuse_tsdf(frames, 0.01, 0.08, progress=False))
        else:
            sys.path.insert(0, str(REPO / "benchmarks"))
            from bench_tsdf import o3d_fuse

            w0, c0 = _usage()
            dt, _ = o3d_fuse(frames, 0.01, 8.0)  # times its integrate loop only (loading excluded)
            w1, c1 = _usage()
            # CPU of the integrate loop: the loop's share of the call's CPU, scaled by its share of wall
            res["wall"], res["cpu"] = dt, (c1 - c0) * dt / max(w1 - w0, 1e-9)
    elif step == "texture":
        import torch

        import smrnb

        d = np.load(args.mesh)
        frames = smrnb.load_redwood(str(DATA)).select(d["train"].tolist())
        if system == "smrnb":
            from smrnb.geometry import bake_texture

            mesh = smrnb.Mesh(torch.from_numpy(d["v"]), torch.from_numpy(d["f"]), uvs=torch.from_numpy(d["uv"]),
                              face_uvs_idx=torch.from_numpy(d["fuv"]), frame="opencv")
            _, res["wall"], res["cpu"] = _timed(lambda: bake_texture(mesh, frames, resolution=1024))
        else:
            import open3d as o3d

            tm = o3d.t.geometry.TriangleMesh()
            tm.vertex.positions = o3d.core.Tensor(d["v"].astype(np.float32))
            tm.triangle.indices = o3d.core.Tensor(d["f"].astype(np.int64))
            tm.triangle.texture_uvs = o3d.core.Tensor(d["uv"][d["fuv"]].astype(np.float32))
            imgs = [o3d.t.geometry.Image(o3d.core.Tensor(np.ascontiguousarray(frames.color[i].numpy())))
                    for i in range(len(frames))]
            Ks = [o3d.core.Tensor(frames.intrinsics(i).double().numpy()) for i in range(len(frames))]
            Es = [o3d.core.Tensor(np.linalg.inv(frames.poses[i].double().numpy())) for i in range(len(frames))]
            _, res["wall"], res["cpu"] = _timed(
                lambda: tm.project_images_to_albedo(imgs, Ks, Es, tex_size=1024, update_material=False))
    elif step == "demo":
        from smrnb.pipeline import Pipeline

        with tempfile.TemporaryDirectory() as tmp:
            pipe = Pipeline.default(device="cpu", output_dir=tmp)
            recs = []
            _, res["wall"], res["cpu"] = _timed(lambda: pipe.run(on_done=recs.append))
        res["steps"] = {r.step: [round(r.seconds, 2), round(r.cpu_seconds, 2)] for r in recs}
    if system == "smrnb":
        from smrnb._threads import last_decision

        d = last_decision()
        res["threads"] = None if d is None else d.threads
        res["why"] = None if d is None else d.reason
    return res


def prepare_texture_mesh(path: Path) -> None:
    import numpy as np

    import smrnb

    frames = smrnb.load_redwood(str(DATA))
    vol = smrnb.fuse_tsdf(frames.select(list(range(0, len(frames), 3))), voxel_size=0.02, progress=False)
    mesh = smrnb.simplify_mesh(vol.extract_mesh(), target_number_of_vertices=10000, measure_hausdorff=False)
    uv = smrnb.auto_uv(mesh.vertices, mesh.faces, resolution=1024)
    uvs, fuv = uv[0], uv[1]
    train = np.linspace(0, len(frames) - 1, 11).round().astype(int)
    np.savez(path, v=mesh.vertices.numpy(), f=mesh.faces.numpy(), uv=uvs.numpy(), fuv=fuv.numpy(), train=train)


# ------------------------------------------------------------------------------------------- main


def _loadline() -> str:
    la = os.getloadavg()
    return f"load {la[0]:.1f} / {la[1]:.1f} / {la[2]:.1f}"


def run_worker(step: str, system: str, args: argparse.Namespace) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if system == "peer":
        env["SMRNB_OMP_WAIT_POLICY"] = "keep"  # the peer runs at its own OpenMP defaults
    cmd = [sys.executable, __file__, "--worker", step, system, "--stride", str(args.stride), "--mesh", str(args.mesh)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{step}/{system} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", nargs=2, metavar=("STEP", "SYSTEM"))
    ap.add_argument("--stride", type=int, default=3, help="every n-th of the 190 fusion frames (1 = all)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--steps", default="tsdf,mc,texture,demo")
    ap.add_argument("--mesh", type=Path, default=Path(tempfile.gettempdir()) / "smrnb_contention_mesh.npz")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "RESULTS_contention.md")
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], args.worker[1], args)))
        return
    steps = args.steps.split(",")
    if "texture" in steps and not args.mesh.exists():
        print("preparing the texture mesh ...", flush=True)
        env = dict(os.environ, PYTHONPATH=str(REPO))
        subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(REPO / 'benchmarks')!r}); "
                        f"import bench_contention as b; from pathlib import Path; "
                        f"b.prepare_texture_mesh(Path({str(args.mesh)!r}))"], env=env, check=True,
                       timeout=args.timeout)
    cmdline = "python benchmarks/bench_contention.py " + " ".join(sys.argv[1:])
    lines = [f"## Contention run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} ({os.cpu_count()} CPUs)", "",
             f"Command: `nice -n 5 {cmdline}`; TSDF on {len(_fuse_ids(args.stride))} of the 190 fusion frames "
             f"(stride {args.stride}).", ""]
    rows: list[tuple[str, int, dict, dict | None, str]] = []
    for rep in range(args.repeats):
        for cond in ("idle", "busy"):
            hogs = []
            if cond == "busy":
                hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
                time.sleep(2)
            try:
                for step in steps:
                    before = _loadline()
                    ours = run_worker(step, "smrnb", args)
                    peer = run_worker(step, "peer", args) if step != "demo" else None
                    rows.append((cond, rep, ours, peer, before))
                    ratio = "" if peer is None else f" ratio {peer['wall'] / ours['wall']:.2f}"
                    print(f"[{cond} #{rep}] {step}: smrnb {ours['wall']:.2f}s wall {ours['cpu']:.2f}s cpu "
                          f"(threads {ours.get('threads')})"
                          + ("" if peer is None else f"; peer {peer['wall']:.2f}s wall {peer['cpu']:.2f}s cpu")
                          + f"{ratio}; {before}" + (f"; steps {json.dumps(ours['steps'])}" if "steps" in ours else ""),
                          flush=True)
            finally:
                for h in hogs:
                    h.terminate()
                for h in hogs:
                    h.wait(timeout=10)
    lines += ["| cond | rep | step | smrnb wall s | smrnb CPU s | wall/CPU | threads | peer wall s | peer CPU s | "
              "peer wall/CPU | ratio peer/smrnb wall | load before (1/5/15 min) |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for cond, rep, o, p, ld in rows:
        pw = "-" if p is None else f"{p['wall']:.2f} | {p['cpu']:.2f} | {p['wall'] / max(p['cpu'], 1e-9):.1f} | " \
                                   f"{p['wall'] / o['wall']:.2f}"
        if p is None:
            pw = "- | - | - | -"
        lines.append(f"| {cond} | {rep} | {o['step']} | {o['wall']:.2f} | {o['cpu']:.2f} | "
                     f"{o['wall'] / max(o['cpu'], 1e-9):.1f} | {o.get('threads')} | {pw} | {ld.removeprefix('load ')} |")
    lines.append("")
    lines.append("Bars per step (medians over repeats): busy ratio / idle ratio >= 0.8; smrnb busy wall / CPU <= 3.")
    lines.append("")
    lines.append("| step | idle ratio | busy ratio | busy/idle | bar 1 | smrnb busy wall/CPU | bar 2 |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    import statistics

    for step in steps:
        def med(cond, f, step=step):
            vals = [f(o, p) for c, _, o, p, _ in rows if c == cond and o["step"] == step]
            return statistics.median(vals) if vals else float("nan")
        if step == "demo":
            ri = med("idle", lambda o, p: o["wall"])
            rb = med("busy", lambda o, p: o["wall"])
            rel = ri / rb  # idle wall / busy wall (the demo has no peer)
            label = f"(idle {ri:.1f}s) | (busy {rb:.1f}s) | {rel:.2f} (idle/busy wall)"
            bar1 = "n/a (no peer)"
        else:
            ri = med("idle", lambda o, p: p["wall"] / o["wall"])
            rb = med("busy", lambda o, p: p["wall"] / o["wall"])
            rel = rb / ri
            label = f"{ri:.2f} | {rb:.2f} | {rel:.2f}"
            bar1 = "pass" if rel >= 0.8 else "FAIL"
        wc = med("busy", lambda o, p: o["wall"] / max(o["cpu"], 1e-9))
        lines.append(f"| {step} | {label} | {bar1} | {wc:.1f} | {'pass' if wc <= 3 else 'FAIL'} |")
    for cond, rep, o, _, _ in rows:
        if o["step"] == "demo":
            lines.append("")
            lines.append(f"demo steps ({cond} #{rep}), [wall s, CPU s]: {json.dumps(o['steps'])}")
    text = "\n".join(lines) + "\n"
    print(text)
    prev = args.out.read_text() if args.out.exists() else "# CPU steps on a busy machine\n"
    args.out.write_text(prev.rstrip("\n") + "\n\n" + text)
    print(f"appended to {args.out}")


if __name__ == "__main__":
    main()
