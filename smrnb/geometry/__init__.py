# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The reconstruction core: pure functions on tensors (CPU and CUDA); kaolin only via ``_backend``.

Import the public names from :mod:`smrnb` (``smrnb.voxelgrid_to_mesh``); the submodules are
implementation homes, one per op family.
"""

from smrnb._extras import require as _require

_require(__name__)  # one clear message when an extra is missing
