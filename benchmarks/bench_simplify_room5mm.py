# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""simplify on the bundled sample's room at 5 mm: smrnb vs fast-simplification, same run.

The mesh: 15 frames of the bundled sample (stride 5) through tsdf (5 mm) -> extract_mesh -> fill_holes, 1.16M faces
in 723 parts (the mesh a student gets from the app's voxel slider at 5 mm; cached in ``$TMPDIR``). smrnb:
``simplify_mesh(mesh, target_number_of_vertices=8000)`` with its defaults (part by part, border kept);
reference: ``fast_simplification.simplify`` on the whole mesh to 16,000 faces. Two alternating rounds in one
process; prints one JSON line (seconds per round, counts out, ``uptime`` before and after).

    PYTHONPATH=. python benchmarks/bench_simplify_room5mm.py
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time

import numpy as np


def room() -> tuple[np.ndarray, np.ndarray]:
    cache = os.path.join(os.environ.get("TMPDIR", "/tmp"), "smrnb_room5mm.npz")
    if not os.path.exists(cache):
        from smrnb.pipeline import Pipeline

        p = Pipeline([("tsdf", {"voxel_size": 0.005}), "extract_mesh", "fill_holes"],
                     source={"path": "sample", "stride": 5, "max_frames": 15}, output_dir=tempfile.mkdtemp())
        m = p.run()
        np.savez(cache, v=m.vertices.numpy(), f=m.faces.numpy())
    d = np.load(cache)
    return d["v"], d["f"]


def main() -> None:
    import fast_simplification
    import torch

    from smrnb import Mesh
    from smrnb.geometry import simplify_mesh

    v, f = room()
    out: dict = {"uptime_before": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
                 "faces_in": int(len(f)), "ref": [], "smrnb": []}
    for _ in range(2):
        t = time.perf_counter()
        rv, rf = fast_simplification.simplify(v.astype(np.float32), f.astype(np.int32), target_count=16000)
        out["ref"].append(round(time.perf_counter() - t, 3))
        t = time.perf_counter()
        m = simplify_mesh(Mesh(torch.as_tensor(v), torch.as_tensor(f)), target_number_of_vertices=8000)
        out["smrnb"].append(round(time.perf_counter() - t, 3))
    out["smrnb_out"] = [m.num_vertices, m.num_faces]
    out["ref_out"] = [len(rv), len(rf)]
    out["uptime_after"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
