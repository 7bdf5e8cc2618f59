# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Bounded text for error messages: a user's value is echoed, never in full when it is huge."""

from __future__ import annotations

import reprlib
from typing import Any


def short(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters (a long string keeps its head and tail around
    ``...``; containers show 6 items, 3 levels deep), without building the full repr of a deep or huge value."""
    r = reprlib.Repr()
    r.maxstring = r.maxother = limit
    r.maxlist = r.maxtuple = r.maxdict = r.maxset = 6
    r.maxlevel = 3
    return r.repr(value)


def cap(message: str, limit: int = 2000) -> str:
    """``message`` cut to ``limit`` characters, saying how much was left out."""
    if len(message) <= limit:
        return message
    return message[:limit] + f" ... ({len(message) - limit:,} more characters)"


__all__ = ["short", "cap"]
