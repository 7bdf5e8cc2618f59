# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Widgets: the 3D :class:`Viewer`, :class:`StepWidget`, :class:`ReconstructionApp`, :class:`DoctorView`,
:class:`BatchTable` (a batch's scans as they finish).

Making a widget imports ipywidgets (and making a viewer pythreejs); ``import smrnb`` does not import
this package (the names resolve lazily). pythreejs is used only in :mod:`smrnb.widgets._viewer`
and :mod:`smrnb.widgets._three` (layers as three.js objects); the scene data itself is plain numpy
(:mod:`smrnb.widgets._layers`).
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

# Offered to the other smrnb packages: nothing. Widgets is the top floor (widgets -> pipeline -> datasets ->
# geometry, and doctor); no other package imports it, the users' facade ``smrnb`` resolves its public names.
INTERNAL_API = ()

__all__ = ["OCCUPANCY_STEPS", "BatchTable", "DoctorView", "ReconstructionApp", "StepWidget", "Viewer",
           "side_by_side"]
