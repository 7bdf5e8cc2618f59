# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Tensor helpers: small device tensors made once (on a GPU, a ``torch.tensor([...], device=...)`` per
call is a host-to-device copy that waits for the device, and the marching cubes and voxelization calls
are bound by such fixed costs at the sizes of interest), and the one read of torch's edit counter."""

from __future__ import annotations

from typing import Any

import torch

_CONSTS: dict[tuple[Any, ...], torch.Tensor] = {}


def device_const(device: torch.device, values: tuple[Any, ...], dtype: torch.dtype = torch.int64) -> torch.Tensor:
    """A tensor of ``values`` (a tuple, or a tuple of tuples) on ``device``, cached by value (at most
    a few hundred entries are kept; treat the result as read-only)."""
    key = (device, dtype, values)
    t = _CONSTS.get(key)
    if t is None:
        if len(_CONSTS) > 256:
            _CONSTS.clear()
        t = _CONSTS[key] = torch.tensor(values, dtype=dtype, device=device)
    return t


def edit_version(t: torch.Tensor) -> int:
    """How many times ``t``'s storage has been edited in place (through ``t`` or any view of it).

    torch's version counter (``Tensor._version``, what autograd checks saved tensors with) is not public
    API: this is the one place smrnb reads it (``tests/geometry/test_tensors.py`` fails if torch changes it).
    """
    return t._version
