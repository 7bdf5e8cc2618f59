# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A pipeline's source: in-memory data (its kind from its type), ``'sample'``, a dataset folder or a
geometry file (opened by :mod:`smrnb.datasets`), or a mapping ``{"path", "stride", "max_frames", "holdout"}``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from smrnb._errors import SmrnbTypeError, SmrnbValueError


def source_kind(data: Any) -> str:
    """The kind of an in-memory source object (a path's kind is ``file``)."""
    if isinstance(data, (str, os.PathLike)):
        return "file"
    from smrnb.geometry import (  # torch: only for data in memory
        Frames,
        Mesh,
        PointCloud,
        TSDFVolume,
        VoxelGrid,
    )

    if isinstance(data, Mesh):
        return "textured_mesh" if data.texture is not None else "mesh"
    for cls, kind in ((Frames, "frames"), (PointCloud, "points"), (VoxelGrid, "voxels"), (TSDFVolume, "tsdf")):
        if isinstance(data, cls):
            return kind
    raise SmrnbTypeError(f"source must be Frames, PointCloud, Mesh, a dataset folder, a .ply/.obj/.glb file "
                         f"or 'sample', got {type(data).__name__}")


#: options a mapping source may carry besides ``path`` (``stride`` and ``max_frames`` go to the dataset
#: reader; ``holdout`` is applied after reading, by the pipeline)
SOURCE_OPTIONS: tuple[str, ...] = ("stride", "max_frames", "holdout")


def check_source_mapping(source: Mapping[str, Any], where: str = "source") -> dict[str, Any]:
    """Validate ``{"path": ..., "stride": int >= 1, "max_frames": int >= 1 or None, "holdout": int >= 2}``."""
    bad = [k for k in source if k not in ("path", *SOURCE_OPTIONS)]
    if bad:
        raise SmrnbValueError(f"{where} has unknown key(s) {', '.join(map(repr, bad))}; "
                              f"allowed: path, {', '.join(SOURCE_OPTIONS)}")
    if not isinstance(source.get("path"), (str, os.PathLike)):
        raise SmrnbValueError(f"{where} needs 'path' ('sample' or a dataset folder), got {source.get('path')!r}")
    out: dict[str, Any] = {"path": os.fspath(source["path"])}
    for k in SOURCE_OPTIONS:
        v = source.get(k)
        if v is None:
            continue
        low = 2 if k == "holdout" else 1
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            what = " (every k-th frame is held out for evaluation)" if k == "holdout" else ""
            raise SmrnbValueError(f"{where} {k!r} must be an int >= {low}{what}, got {v!r}")
        out[k] = v
    return out


def split_holdout(frames: Any, every: int) -> tuple[Any, Any]:
    """``(kept, held)``: frame ``i`` is held out when ``i % every == 0`` (the benchmarks' protocol).

    The held-out frames never reach the steps; :meth:`Pipeline.heldout_error` re-renders the final
    mesh into them and compares with their measured depth.
    """
    import torch

    n = len(frames)
    held = torch.arange(n) % every == 0
    if int((~held).sum()) == 0:
        raise SmrnbValueError(f"source 'holdout' {every} leaves no frame to reconstruct from ({n} frame(s) loaded)")
    return frames.select(~held), frames.select(held)


def load_source(source: Any) -> tuple[str, Any]:
    """``(kind, data)`` for a source object, ``'sample'``, a dataset folder, a geometry file, or a
    mapping ``{"path": 'sample' or folder, "stride": k, "max_frames": n}``."""
    from smrnb.datasets import load_frames, load_geometry  # torch: only when a source is read

    if isinstance(source, Mapping):
        src = check_source_mapping(source)
        if "holdout" in src:
            raise SmrnbValueError("source 'holdout' is applied by a Pipeline (which keeps the held-out frames "
                                  "for heldout_error()); load_source reads frames only")
        return "frames", load_frames(src.pop("path"), **src)
    if isinstance(source, (str, os.PathLike)):
        s = os.fspath(source)
        if s == "sample" or Path(s).is_dir():
            return "frames", load_frames(s)
        data = load_geometry(s)
        return source_kind(data), data
    return source_kind(source), source
