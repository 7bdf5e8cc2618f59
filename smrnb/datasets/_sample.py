# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The bundled sample: every 3rd frame of Augmented ICL-NUIM "living room 1" (clean depth), 71 frames."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from smrnb._errors import SmrnbValueError
from smrnb.datasets._redwood import load_redwood
from smrnb.geometry import Frames


def sample_path() -> Path:
    """The folder of the bundled sample (Redwood layout, see its README.md and LICENSE.md)."""
    p = Path(__file__).resolve().parent / "sample"
    if not (p / "depth").is_dir():
        raise SmrnbValueError(f"the bundled sample is missing from {str(p)!r} (a broken install?); reinstall smrnb")
    return p


def load_sample(*, stride: int = 1, max_frames: int | None = None, frames: Sequence[int] | None = None,
                color: bool = True) -> Frames:
    """The bundled sample as :class:`Frames` (71 frames, 640x480, K 525/525/319.5/239.5).

    Frames 0, 3, 6, ..., 210 of ``livingroom1_clean_micro`` (Open3D test data; synthetic clean depth
    in millimetres) with the Open3D-estimated camera-to-world poses of those frames; ``names`` are the
    original frame numbers. Selection as in :func:`load_redwood` (positions 0..70 in the sample).
    License CC BY 3.0: see ``sample_path() / "LICENSE.md"`` for attribution and citations.
    """
    f = load_redwood(sample_path(), stride=stride, max_frames=max_frames, frames=frames, color=color)
    f.meta["dataset"] = "sample (redwood livingroom1 clean micro, every 3rd frame)"
    return f
