# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Bounded text for error messages: a user's value is echoed, never in full when it is huge."""

from __future__ import annotations

import reprlib
from typing import Any

_REPR = reprlib.Repr()
_REPR.maxstring = 80
_REPR.maxother = 80
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6
_REPR.maxlevel = 3


def short(value: Any) -> str:
    """``repr(value)`` cut to about 80 characters, without building the full repr of a deep or huge value."""
    return _REPR.repr(value)


def cap(message: str, limit: int = 2000) -> str:
    """``message`` cut to ``limit`` characters, saying how much was left out."""
    if len(message) <= limit:
        return message
    return message[:limit] + f" ... ({len(message) - limit:,} more characters)"


__all__ = ["short", "cap"]
