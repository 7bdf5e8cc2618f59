# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Open a path by what it holds: the bundled sample or a dataset folder (its layout detected) as
:class:`~smrnb.Frames`, a mesh or point-cloud file as :class:`~smrnb.Mesh` / :class:`~smrnb.PointCloud`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbValueError
from smrnb.datasets._redwood import load_redwood
from smrnb.datasets._sample import load_sample
from smrnb.datasets._sevenscenes import load_7scenes
from smrnb.datasets._tum import load_tum
from smrnb.geometry import Frames, Mesh, PointCloud, load_mesh

#: dataset layout -> its reader
READERS = {"redwood": load_redwood, "tum": load_tum, "7scenes": load_7scenes}


def dataset_layout(path: str | os.PathLike) -> str:
    """``"redwood"`` (``depth/`` and a ``*.log`` trajectory), ``"tum"`` (``rgb.txt`` / ``depth.txt`` /
    ``associations.txt``) or ``"7scenes"`` (``frame-XXXXXX.depth.png`` or ``seq-*`` folders) for a
    dataset folder; an error naming the three layouts for anything else."""
    p = Path(path)
    if not p.is_dir():
        raise SmrnbValueError(f"source must be 'sample' or an existing dataset folder, got {os.fspath(path)!r}")
    entries = list(p.iterdir())
    names = {c.name for c in entries}
    if any(n.endswith(".log") for n in names) and "depth" in names:
        return "redwood"
    if "depth.txt" in names or "rgb.txt" in names or "associations.txt" in names:
        return "tum"
    if any(n.startswith("frame-") and n.endswith(".depth.png") for n in names) or \
            any(c.is_dir() and c.name.startswith("seq-") for c in entries):
        return "7scenes"
    raise SmrnbValueError(f"source folder {os.fspath(p)!r} is not a Redwood (depth/ + *.log), TUM "
                          f"(rgb.txt, depth.txt) or 7-Scenes (frame-XXXXXX.depth.png) dataset")


def load_frames(path: str | os.PathLike, **options: Any) -> Frames:
    """Frames from ``'sample'`` (the bundled sample) or a dataset folder (Redwood, TUM or 7-Scenes layout).

    ``options`` (``stride``, ``max_frames``) go to the reader: every ``stride``-th frame, at most
    ``max_frames`` of them, read from disk (cheaper than reading all and selecting later).
    """
    if os.fspath(path) == "sample":
        return load_sample(**options)
    return READERS[dataset_layout(path)](Path(path), **options)


def load_geometry(path: str | os.PathLike) -> Mesh | PointCloud:
    """A Mesh (file with faces) or a PointCloud (PLY/XYZ without faces) read through trimesh."""
    import trimesh  # heavy: only when a file is read

    p = Path(path)
    if not p.is_file():
        raise SmrnbValueError(f"input file {os.fspath(p)!r} does not exist")
    try:
        obj = trimesh.load(p, process=False, force=None)
    except Exception as exc:
        raise SmrnbValueError(f"input file {os.fspath(p)!r} could not be read by trimesh: {exc}") from None
    if isinstance(obj, (trimesh.Scene, trimesh.Trimesh)):
        # smrnb's reader keeps uvs and the base-color texture (GLB/OBJ) and never merges vertices
        return load_mesh(p)
    if isinstance(obj, trimesh.PointCloud):
        cols = None
        c = getattr(obj, "colors", None)
        if c is not None and len(c) == len(obj.vertices):
            cols = torch.as_tensor(np.asarray(c)[:, :3].astype(np.float32) / 255.0)
        return PointCloud(torch.as_tensor(np.asarray(obj.vertices, dtype=np.float32)), colors=cols)
    raise SmrnbValueError(f"input file {os.fspath(p)!r} holds a {type(obj).__name__}, not a mesh or point cloud")
