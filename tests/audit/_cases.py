# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The bad-input audit: every public function of smrnb tried as a hostile user would.

Each case is a function that runs in its own forked process (see ``_runner.py``) under a memory
limit and a timeout. It either raises (the harness then requires a :class:`smrnb.SmrnbError` whose
message matches ``expect``, a pattern that names the argument or file at fault) or returns
normally after asserting the correct result itself (``expect=OK``).

``NEEDS_TUTORIAL`` lists the cases about validation where data enters (poses, intrinsics, colour
ranges) and the memory budget: they pass once that work is merged.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

OK = "ok"


@dataclass(frozen=True)
class Case:
    name: str
    targets: tuple[str, ...]  # public names (smrnb.__all__) or "cli" it exercises
    fn: Callable[[], object]
    expect: str  # OK, or a regex the SmrnbError message must match (case-insensitive)
    timeout: float = 60.0
    mem_gib: float = 6.0  # RLIMIT_AS of the case: what the runner maps plus this


CASES: dict[str, Case] = {}


def case(name: str, targets: str | tuple[str, ...], expect: str, *, timeout: float = 60.0, mem_gib: float = 6.0):
    def deco(fn):
        if name in CASES:
            raise AssertionError(f"duplicate audit case {name}")
        t = (targets,) if isinstance(targets, str) else tuple(targets)
        CASES[name] = Case(name, t, fn, expect, timeout, mem_gib)
        return fn
    return deco


# --------------------------------------------------------------------------------------- fixtures
# built lazily in the child; tmp() is a folder the harness removes afterwards

def tmp() -> Path:
    p = Path(os.environ.get("SMRNB_AUDIT_TMP") or "/tmp") / f"case-{os.getpid()}"
    p.mkdir(parents=True, exist_ok=True)
    return p


_memo: dict[str, object] = {}


def sphere(subdiv: int = 2):
    import torch
    import trimesh

    import smrnb

    tm = trimesh.creation.icosphere(subdiv)
    return smrnb.Mesh(torch.tensor(tm.vertices, dtype=torch.float32), torch.tensor(tm.faces, dtype=torch.int64))


def frames(n: int = 2):
    key = f"frames{n}"
    if key not in _memo:
        import smrnb

        _memo[key] = smrnb.load_sample(max_frames=n, stride=20)
    return _memo[key]


def cloud(n: int = 500, scale: float = 1.0):
    import torch

    import smrnb

    g = torch.Generator().manual_seed(0)
    return smrnb.PointCloud(torch.rand(n, 3, generator=g, dtype=torch.float64) * scale)


def uv_sphere():
    """A sphere with uvs and a texture (for bake / export cases)."""
    import torch

    import smrnb

    m = sphere(2)
    uvs, fuv = smrnb.auto_uv(m.vertices, m.faces, chart_num=8, resolution=128)
    return m.replace(uvs=uvs, face_uvs_idx=fuv, texture=torch.rand(16, 16, 3))


def copy_sample(n: int = 3) -> Path:
    """The first ``n`` frames of the bundled sample as a Redwood folder in tmp()."""
    import shutil

    from smrnb.datasets._sample import sample_path

    src = sample_path()
    dst = tmp() / "redwood"
    if dst.exists():
        shutil.rmtree(dst)
    (dst / "depth").mkdir(parents=True)
    (dst / "image").mkdir()
    depths = sorted((src / "depth").iterdir())[:n]
    images = sorted((src / "image").iterdir())[:n]
    for d, c in zip(depths, images):
        shutil.copy(d, dst / "depth" / d.name)
        shutil.copy(c, dst / "image" / c.name)
    shutil.copy(src / "camera_primesense.json", dst)
    lines = (src / "trajectory.log").read_text().splitlines()[: 5 * n]
    (dst / "trajectory.log").write_text("\n".join(lines) + "\n")
    return dst


def tum_folder(gt_line: str = "1.0 0 0 1 0 0 0 1") -> Path:
    import shutil

    import numpy as np
    from PIL import Image

    root = tmp() / "tum"
    if root.exists():
        shutil.rmtree(root)
    (root / "rgb").mkdir(parents=True)
    (root / "depth").mkdir()
    Image.fromarray(np.full((48, 64), 5000, np.uint16)).save(root / "depth" / "1.0.png")
    Image.fromarray(np.zeros((48, 64, 3), np.uint8)).save(root / "rgb" / "1.0.png")
    (root / "depth.txt").write_text("# depth\n1.0 depth/1.0.png\n")
    (root / "rgb.txt").write_text("# rgb\n1.0 rgb/1.0.png\n")
    (root / "groundtruth.txt").write_text(f"# gt\n{gt_line}\n")
    return root


def limit_file_size(nbytes: int) -> None:
    """RLIMIT_FSIZE in this (child) process: writes past ``nbytes`` fail with EFBIG like a full disk."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))


def _import_cases() -> None:
    from tests.audit import cases_cli, cases_files, cases_geometry, cases_io  # noqa: F401


def all_cases() -> dict[str, Case]:
    _import_cases()
    return CASES


def check_message(expect: str, message: str) -> bool:
    return re.search(expect, message, re.IGNORECASE | re.DOTALL) is not None
