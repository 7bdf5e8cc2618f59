# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Colours: a colour argument read as RGB, the ``#rrggbb`` of a colour, the viridis ramp of a scalar."""

from __future__ import annotations

from typing import Any

import numpy as np

from smrnb._errors import SmrnbValueError


def parse_rgb(c: Any, default: tuple[float, float, float]) -> tuple[float, float, float]:
    """A colour argument (``'#rrggbb'`` or an (r, g, b) triple in [0, 1]) as an (r, g, b) tuple; ``default`` for
    None."""
    if c is None:
        return default
    if isinstance(c, str):
        s = c.lstrip("#")
        if len(s) != 6:
            raise SmrnbValueError(f"color must be '#rrggbb' or an (r, g, b) triple in [0, 1], got {c!r}")
        return tuple(int(s[i:i + 2], 16) / 255.0 for i in (0, 2, 4))  # type: ignore[return-value]
    t = tuple(float(x) for x in c)
    if len(t) != 3:
        raise SmrnbValueError(f"color must be '#rrggbb' or an (r, g, b) triple in [0, 1], got {c!r}")
    return t  # type: ignore[return-value]


def hex_color(c: tuple[float, float, float]) -> str:
    """``'#rrggbb'`` of an (r, g, b) triple in [0, 1] (clamped to it)."""
    return "#" + "".join(f"{int(round(min(max(x, 0.0), 1.0) * 255)):02x}" for x in c)


_VIRIDIS_STOPS = np.array([[0.267, 0.005, 0.329], [0.230, 0.322, 0.546], [0.128, 0.567, 0.551],
                           [0.369, 0.789, 0.383], [0.993, 0.906, 0.144]], np.float32)


def _ramp(x: np.ndarray) -> np.ndarray:
    """The ramp at ``x`` in [0, 1] (5 stops of viridis, linear between them)."""
    stops = _VIRIDIS_STOPS
    x = np.clip(x, 0.0, 1.0) * (len(stops) - 1)
    i = np.minimum(x.astype(np.int64), len(stops) - 2)
    f = (x - i)[:, None].astype(np.float32)
    return stops[i] * (1 - f) + stops[i + 1] * f


#: the ramp at 1024 steps: a table lookup instead of interpolating every value (colours travel as 8 bits)
_VIRIDIS_LUT = _ramp(np.linspace(0.0, 1.0, 1024))


def viridis(t: np.ndarray) -> np.ndarray:
    """A perceptually ordered colour ramp (5 stops of viridis, linear between them) for t in [0, 1]
    (NaN -> the low end), (N, 3) float32; within 1/1023 of the exact ramp in t."""
    x = np.asarray(t, np.float32) * np.float32(1023.0) + np.float32(0.5)
    return _VIRIDIS_LUT[np.fmin(np.fmax(x, 0.0), 1023.0).astype(np.intp)]  # fmax/fmin: NaN -> the bound


__all__ = ["hex_color", "parse_rgb", "viridis"]
