# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The pipeline backbone: one step registry, the :class:`Pipeline`, config files and the ``smrnb`` CLI.

* :func:`get_step` / :func:`list_steps`: the registered steps (:class:`Step`: a pure function,
  its :class:`ParamSpec` knobs, input and output kinds). Widget controls, CLI flags, the config
  schema and ``docs/steps.md`` are generated from them.
* :class:`Pipeline`: ordered stages over a source, cached results, ``set_params`` invalidates
  downstream only, ``run(until=...)``, a :class:`StepResult` per stage.
* ``smrnb step|run|demo|steps`` on the command line (:mod:`smrnb.pipeline.cli`).
"""

from __future__ import annotations

from smrnb._extras import require as _require

_require(__name__)  # one clear message when an extra is missing

from smrnb.pipeline._batch import ScanResult, batch  # noqa: E402, F401
from smrnb.pipeline._config import (  # noqa: E402, F401
    config_schema,
    default_config,
    default_config_path,
    dump_config,
    load_config,
    validate_config,
)
from smrnb.pipeline._estimate import Estimate, NeedsConfirmation, estimate_step, needs_asking  # noqa: E402, F401
from smrnb.pipeline._gpus import gpu_cluster  # noqa: E402
from smrnb.pipeline._pipeline import Pipeline, Stage  # noqa: E402
from smrnb.pipeline._records import StepResult, format_results  # noqa: E402
from smrnb.pipeline._registry import KINDS, PARAM_KINDS, ParamSpec, Step, StepOutput, StepRegistry  # noqa: E402
from smrnb.pipeline._step_errors import StepError, StepMemoryError, StepTypeError, StepValueError  # noqa: E402
from smrnb.pipeline._steps import REGISTRY, get_step, list_steps  # noqa: E402

# Offered to the other smrnb packages, not part of smrnb's public API: the cost estimate a widget asks
# before a long step, the batch runner's per-scan record (the batch table shows them) and the bundled
# demo config (the app starts from its chain).
INTERNAL_API = ("Estimate", "NeedsConfirmation", "ScanResult", "default_config", "default_config_path",
                "estimate_step", "needs_asking")

__all__ = [
    "KINDS",
    "PARAM_KINDS",
    "REGISTRY",
    "ParamSpec",
    "Pipeline",
    "Stage",
    "Step",
    "StepError",
    "StepMemoryError",
    "StepOutput",
    "StepRegistry",
    "StepResult",
    "StepTypeError",
    "StepValueError",
    "batch",
    "config_schema",
    "dump_config",
    "format_results",
    "get_step",
    "gpu_cluster",
    "list_steps",
    "load_config",
    "validate_config",
]
