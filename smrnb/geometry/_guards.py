# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Guards shared by every public function: the device argument, tensors on one device, index ranges.

One home for each check, so ``device='cuda'`` on a CPU-only torch, ``device='banana'`` and a face
index past the end of the vertex array read the same way wherever they come in.
"""

from __future__ import annotations

from typing import Any

import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._text import short

#: device types smrnb runs on
DEVICE_TYPES = ("cpu", "cuda")


def parse_device(device: Any, name: str = "device") -> torch.device:
    """``device`` as a ``torch.device`` of a type smrnb runs on (``cpu``, ``cuda``, ``cuda:N``), not yet
    checked against this machine (a pipeline may be built here and run on a GPU node)."""
    if isinstance(device, torch.device):
        dev = device
    elif isinstance(device, str):
        try:
            dev = torch.device(device.strip())
        except (RuntimeError, ValueError):
            raise SmrnbValueError(f"{name} must be 'cpu' or 'cuda' (or 'cuda:N'), got {short(device, 60)}") from None
    else:
        raise SmrnbTypeError(f"{name} must be a str ('cpu', 'cuda', 'cuda:N') or torch.device, "
                             f"got {type(device).__name__}")
    if dev.type not in DEVICE_TYPES:
        raise SmrnbValueError(f"{name} must be 'cpu' or 'cuda' (or 'cuda:N'), got {short(device, 60)}")
    return dev


def resolve_device(device: Any, name: str = "device") -> torch.device:
    """``device`` as a ``torch.device`` this process can use, or a :class:`SmrnbError` naming ``name``.

    Accepts ``'cpu'``, ``'cuda'``, ``'cuda:N'`` and ``torch.device``; refuses other types, unknown
    names and CUDA when torch sees no GPU (a CPU-only build or no driver) or not that many GPUs.
    """
    dev = parse_device(device, name)
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
            raise SmrnbValueError(f"{name}={short(str(device), 60)}: torch {torch.__version__} ({build}) sees no CUDA GPU "
                                  "here; use device='cpu', or run `smr-doctor` to see why")
        n = torch.cuda.device_count()
        if dev.index is not None and dev.index >= n:
            raise SmrnbValueError(f"{name}={short(str(device), 60)}: this machine has {n} CUDA GPU(s) (cuda:0.."
                                  f"cuda:{n - 1})")
    return dev


def same_device(**tensors: Any) -> torch.device | None:
    """The one device of the given tensors (``None`` values skipped); raises naming them when they differ."""
    seen: dict[str, torch.device] = {}
    for k, t in tensors.items():
        if isinstance(t, torch.Tensor):
            seen[k] = t.device
    devs = {d for d in seen.values()}
    if len(devs) > 1:
        where = ", ".join(f"{k} on {d}" for k, d in seen.items())
        raise SmrnbValueError(f"tensors must be on one device, got {where}; move them with .to(device)")
    return next(iter(devs)) if devs else None


def check_index_range(idx: torch.Tensor, n: int, name: str, into: str) -> None:
    """Every value of the integer tensor ``idx`` lies in ``[0, n - 1]`` (``into`` names the indexed array)."""
    if idx.numel() == 0:
        return
    if idx.dtype.is_floating_point or idx.dtype.is_complex or idx.dtype == torch.bool:
        raise SmrnbTypeError(f"{name} must be an integer tensor, got dtype {idx.dtype}")
    lo, hi = int(idx.min()), int(idx.max())
    if lo < 0 or hi >= n:
        bad = int(((idx < 0) | (idx >= n)).sum())
        raise SmrnbValueError(f"{name} must index {into} in [0, {n - 1}] ({n} entries), got {bad} value(s) "
                              f"outside, in [{lo}, {hi}]")


__all__ = ["parse_device", "resolve_device", "same_device", "check_index_range", "DEVICE_TYPES"]
