# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The bad-input audit: every public function of smrnb tried as a hostile user would.

Each case is a function that runs in its own forked process (see ``_runner.py``) under a memory
limit and a timeout. It either raises (the harness then requires a :class:`smrnb.SmrnbError` whose
message matches ``expect``, a pattern that names the argument or file at fault) or returns
normally after asserting the correct result itself (``expect=OK``).

``NEEDS_TUTORIAL`` lists the cases about validation where data enters (poses, intrinsics, colour
ranges) and the memory budget: they pass once that work is merged.

A case may also end by raising one of the :class:`AuditFailure` classes below (``AuditLost``,
``AuditSecret``, ...): the runner then reports that class as the case's status, so a case that checks
files on disk, printed output or a child process stays a plain function. The blind audit
(``blind_*.py``, ``BLIND_CASES``) is written that way.
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
    kind: str = ""  # the blind audit's kind of attack (lost, secret, explain, silent, raw)


CASES: dict[str, Case] = {}
BLIND_CASES: dict[str, Case] = {}


class AuditFailure(AssertionError):
    """A case's verdict other than a plain failed check; ``status`` is what the runner reports."""

    status = "wrong"


class AuditLost(AuditFailure):
    """User data destroyed, half-replaced, or stray files left beside it."""

    status = "lost"


class AuditSecret(AuditFailure):
    """A planted secret or a raw terminal control sequence appeared in output."""

    status = "secret"


class AuditSilent(AuditFailure):
    """Bad input accepted without an error, with a wrong or meaningless result."""

    status = "silent"


class AuditMisleading(AuditFailure):
    """An error (or a diagnosis) that names the wrong cause or argument."""

    status = "misleading"


class AuditRaw(AuditFailure):
    """A library exception or a traceback reached the user (seen in a child process's output)."""

    status = "raw"


class AuditCrash(AuditFailure):
    """A child process the case started died from a signal."""

    status = "crash"


class AuditHang(AuditFailure):
    """A child process the case started did not finish within its time."""

    status = "hang"


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


def blind_case(name: str, targets: str | tuple[str, ...], expect: str = OK, *, kind: str, timeout: float = 60.0,
               mem_gib: float = 6.0):
    """Register a case of the blind audit (``BLIND_CASES``); ``kind`` is the kind of attack."""
    def deco(fn):
        if name in BLIND_CASES:
            raise AssertionError(f"duplicate blind audit case {name}")
        t = (targets,) if isinstance(targets, str) else tuple(targets)
        BLIND_CASES[name] = Case(name, t, fn, expect, timeout, mem_gib, kind)
        return fn
    return deco


def _import_cases() -> None:
    from tests.audit import cases_cli, cases_files, cases_geometry, cases_io  # noqa: F401


def _import_blind_cases() -> None:
    from tests.audit import blind_explain, blind_lost, blind_raw, blind_secrets, blind_silent  # noqa: F401


def all_cases(suite: str = "audit") -> dict[str, Case]:
    """The cases of ``suite``: ``"audit"`` (cases_*.py) or ``"blind"`` (blind_*.py)."""
    if suite == "blind":
        _import_blind_cases()
        return BLIND_CASES
    if suite != "audit":
        raise ValueError(f"unknown audit suite {suite!r}")
    _import_cases()
    return CASES


def check_message(expect: str, message: str) -> bool:
    return re.search(expect, message, re.IGNORECASE | re.DOTALL) is not None
