# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Dataset readers returning :class:`smrnb.Frames`, and the bundled sample.

- :func:`load_redwood`: Redwood / Open3D layout (``.log`` camera-to-world trajectories).
- :func:`load_tum`: TUM RGB-D (timestamp associations, quaternion ground truth, depth x5000).
- :func:`load_7scenes`: Microsoft 7-Scenes (``frame-XXXXXX.*``, 65535 = no depth).
- :func:`load_sample`: 71 frames of Augmented ICL-NUIM "living room 1" bundled in the package
  (``smrnb/datasets/sample``, CC BY 3.0, see its ``LICENSE.md``).

Every reader returns depth in metres (float32, 0 = no measurement), color uint8, K (3, 3) and
camera-to-world poses with OpenCV camera axes (x right, y down, z forward).
"""

from __future__ import annotations

from smrnb._extras import require as _require

_require(__name__)  # one clear message when an extra is missing

from smrnb.datasets._redwood import (  # noqa: E402
    iter_redwood,
    load_redwood,
    read_intrinsic_json,
    read_log,
    write_log,
)
from smrnb.datasets._sample import load_sample, sample_path  # noqa: E402
from smrnb.datasets._sevenscenes import load_7scenes  # noqa: E402
from smrnb.datasets._tum import load_tum  # noqa: E402

__all__ = ["iter_redwood", "load_7scenes", "load_redwood", "load_sample", "load_tum", "read_intrinsic_json", "read_log",
           "sample_path", "write_log"]

# ------------------------------------------------------------------ offered to the other smrnb packages
# Not part of smrnb's public API: the pipeline opens its source through these ('sample' or a dataset
# folder, its layout detected, as Frames; a mesh or point-cloud file as Mesh / PointCloud).
from smrnb.datasets._open import load_frames, load_geometry  # noqa: E402, F401

INTERNAL_API = ("load_frames", "load_geometry")
