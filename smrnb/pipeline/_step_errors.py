# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Errors of a pipeline stage: each names the stage; a memory refusal also names the knob to turn."""

from __future__ import annotations

from smrnb._errors import (
    MemoryEstimateError,
    SmrnbError,
    SmrnbTypeError,
    SmrnbValueError,
    format_bytes,
)


class StepError(SmrnbError):
    """A pipeline stage failed. ``step`` names the stage, ``__cause__`` is the original error."""

    def __init__(self, message: str, *, step: str) -> None:
        super().__init__(message)
        self.step = step


class StepValueError(StepError, SmrnbValueError):
    """A stage rejected its input or parameters (the original was a ``ValueError``)."""


class StepTypeError(StepError, SmrnbTypeError):
    """A stage got data of the wrong type (the original was a ``TypeError``)."""


class StepMemoryError(StepError, MemoryEstimateError):
    """A memory-hungry stage refused to run; ``knob`` is the parameter to turn."""

    def __init__(self, message: str, *, step: str, estimate_bytes: int, budget_bytes: int, knob: str) -> None:
        MemoryEstimateError.__init__(self, message, estimate_bytes=estimate_bytes, budget_bytes=budget_bytes,
                                     knob=knob)
        self.step = step


def wrap_error(stage: str, exc: BaseException) -> StepError:
    """``exc`` raised by stage ``stage`` as the :class:`StepError` subclass of its kind, naming the stage."""
    msg = f"step {stage!r} failed: {exc}"
    if isinstance(exc, MemoryEstimateError):
        knob = exc.knob
        knobs = [k.strip() for k in knob.split("/") if k.strip()]
        msg = (f"step {stage!r} refused to run: {exc} (estimate {format_bytes(exc.estimate_bytes)}, "
               f"budget {format_bytes(exc.budget_bytes)}; turn {' or '.join(map(repr, knobs))}, e.g. "
               f"pipeline.set_params({stage!r}, {knobs[0] if knobs else knob}=...) or "
               f"{' / '.join('--' + k.replace('_', '-') for k in knobs)})")
        return StepMemoryError(msg, step=stage, estimate_bytes=exc.estimate_bytes,
                               budget_bytes=exc.budget_bytes, knob=knob)
    if isinstance(exc, ValueError):
        return StepValueError(msg, step=stage)
    if isinstance(exc, TypeError):
        return StepTypeError(msg, step=stage)
    return StepError(f"step {stage!r} failed: {type(exc).__name__}: {exc}", step=stage)
