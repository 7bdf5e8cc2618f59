# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The one error family of smrnb.

Every error raised because of bad input is a :class:`SmrnbError` and also a ``ValueError`` or
``TypeError``, so callers can catch either. Messages name the argument, what was expected and
what came: ``points must have shape (N, 3) or (B, N, 3), got (4, 2)``.
"""

from __future__ import annotations


class SmrnbError(Exception):
    """Base class of every error smrnb raises on purpose."""


class SmrnbValueError(SmrnbError, ValueError):
    """An argument has the right type but a wrong value (shape, range, content)."""


class SmrnbTypeError(SmrnbError, TypeError):
    """An argument has the wrong type (or dtype)."""


class MemoryEstimateError(SmrnbValueError):
    """A memory-hungry step refused to run: the estimate is over the budget.

    Attributes
    ----------
    estimate_bytes : int
        What the step would have allocated.
    budget_bytes : int
        What it was allowed to allocate.
    knob : str
        The parameter to turn to bring the estimate down.
    """

    def __init__(self, message: str, *, estimate_bytes: int, budget_bytes: int, knob: str):
        super().__init__(message)
        self.estimate_bytes = int(estimate_bytes)
        self.budget_bytes = int(budget_bytes)
        self.knob = knob


def is_friendly(exc: BaseException) -> bool:
    """True for an error smrnb raised on purpose about the person's input or machine: its one line says
    what came and what to change, so it is shown without a traceback. An error a pipeline stage wraps
    (it has a ``step``) counts only when what it wraps is one too: a raw ``ValueError`` deep in a step
    is a bug to report, with its traceback."""
    if not isinstance(exc, SmrnbError):
        return False
    cause = exc.__cause__
    return getattr(exc, "step", None) is None or cause is None or isinstance(cause, SmrnbError)


def format_bytes(n: float) -> str:
    """``1536 -> '1.5 KiB'``: a human-readable size."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")
