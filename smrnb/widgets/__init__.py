# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Widgets: the 3D :class:`Viewer`, :class:`StepWidget`, :class:`ReconstructionApp`, :class:`DoctorView`,
:class:`BatchTable` (a batch's scans as they finish).

Importing this package imports ipywidgets (and, when a viewer is made, pythreejs); ``import smrnb``
does not import it (the names resolve lazily). pythreejs is used only in :mod:`smrnb.widgets._viewer`.
"""

from __future__ import annotations

from smrnb._extras import require as _require

_require(__name__)  # one clear message when an extra is missing

from smrnb.widgets._app import OCCUPANCY_STEPS, ReconstructionApp  # noqa: E402
from smrnb.widgets._batch_table import BatchTable  # noqa: E402
from smrnb.widgets._doctor import DoctorView  # noqa: E402
from smrnb.widgets._row import side_by_side  # noqa: E402
from smrnb.widgets._step import StepWidget  # noqa: E402
from smrnb.widgets._viewer import Viewer  # noqa: E402

__all__ = ["OCCUPANCY_STEPS", "BatchTable", "DoctorView", "ReconstructionApp", "StepWidget", "Viewer",
           "side_by_side"]
