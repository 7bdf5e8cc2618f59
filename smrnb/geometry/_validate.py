# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Argument checks shared by the geometry ops. Messages name the argument, the expected and the got."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError


def as_tensor(x: Any, name: str, *, dtype: torch.dtype | None = None, device: Any = None) -> torch.Tensor:
    """Tensor view of ``x`` (tensor, numpy array or nested sequence); raises naming ``name``."""
    if isinstance(x, torch.Tensor):
        t = x
    elif isinstance(x, np.ndarray) or isinstance(x, (list, tuple)):
        try:
            t = torch.as_tensor(np.asarray(x))
        except (TypeError, ValueError) as exc:
            raise SmrnbTypeError(f"{name} must be a tensor or array of numbers, got {type(x).__name__}: {exc}") from None
    else:
        raise SmrnbTypeError(f"{name} must be a torch.Tensor or numpy array, got {type(x).__name__}")
    check_has_data(t, name)
    if dtype is not None or device is not None:
        t = t.to(dtype=dtype or t.dtype, device=device if device is not None else t.device)
    return t


def check_has_data(t: torch.Tensor, name: str) -> None:
    """Refuse a tensor without data: on the ``meta`` device (shapes only, as ``torch.device("meta")``
    and empty-weight model loading make them), where every read of a value fails inside torch."""
    if t.device.type == "meta":
        raise SmrnbValueError(f"{name} is on the 'meta' device: a tensor with a shape but no data; give it data "
                              "first (e.g. torch.empty_like(t, device='cpu') filled, or load the real values)")


def check_shape(t: torch.Tensor, name: str, *shapes: Sequence[int | None | str]) -> None:
    """Check ``t.shape`` against alternatives; ``None`` matches any size, e.g. ``(None, 3)``."""
    for shape in shapes:
        if t.dim() == len(shape) and all(s is None or isinstance(s, str) or s == d for s, d in zip(shape, t.shape)):
            return
    def fmt(s):
        return "(" + ", ".join("N" if d is None else str(d) for d in s) + ("," if len(s) == 1 else "") + ")"
    alts = " or ".join(fmt(s) for s in shapes)
    raise SmrnbValueError(f"{name} must have shape {alts}, got {tuple(t.shape)}")


def check_float(t: torch.Tensor, name: str) -> None:
    if not t.dtype.is_floating_point:
        raise SmrnbTypeError(f"{name} must be a floating-point tensor, got dtype {t.dtype}")


def check_integer(t: torch.Tensor, name: str) -> None:
    if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool:
        raise SmrnbTypeError(f"{name} must be an integer tensor, got dtype {t.dtype}")


def check_finite(t: torch.Tensor, name: str) -> None:
    if t.dtype.is_floating_point and t.numel() and not bool(torch.isfinite(t).all()):
        bad = int((~torch.isfinite(t)).sum())
        raise SmrnbValueError(f"{name} must be finite, got {bad} NaN/inf value(s)")


def check_positive(value: Any, name: str, *, allow_zero: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise SmrnbTypeError(f"{name} must be a number, got {type(value).__name__}") from None
    if math.isnan(v) or math.isinf(v) or (v < 0 if allow_zero else v <= 0):
        raise SmrnbValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'} and finite, got {value!r}")
    return v


def check_int_range(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise SmrnbTypeError(f"{name} must be an int, got {type(value).__name__}")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = f"in [{lo}, {hi}]" if lo is not None and hi is not None else (f">= {lo}" if lo is not None else f"<= {hi}")
        raise SmrnbValueError(f"{name} must be {rng}, got {v}")
    return v


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise SmrnbValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value
