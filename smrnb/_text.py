# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Bounded text for error messages: a user's value is echoed, never in full when it is huge."""

from __future__ import annotations

import codecs
import reprlib
import sys
import unicodedata
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


#: what a terminal that cannot show a character gets instead (the report's marks as words)
CONSOLE_WORDS = {"✅": "[ok]", "❌": "[error]", "⚠": "[warning]", "ℹ": "[info]", "➖": "[-]", "❔": "[?]",
                 "\ufe0f": "", "→": "->", "←": "<-", "—": "--", "–": "-", "…": "...", "≥": ">=", "≤": "<=", "×": "x",
                 "²": "^2", "³": "^3", "°": " deg", "±": "+-", "‘": "'", "’": "'", "“": '"', "”": '"', "•": "*"}
_CONSOLE_ERRORS = "smrnb-console"


def _console_fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start:exc.end]:
        word = CONSOLE_WORDS.get(ch)
        if word is None:  # a letter with an accent keeps its letter, anything else is a ?
            word = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii") or "?"
        out.append(word)
    return "".join(out), exc.end


codecs.register_error(_CONSOLE_ERRORS, _console_fallback)


def console_safe() -> None:
    """Let ``sys.stdout`` / ``sys.stderr`` print any text on a terminal whose encoding cannot show it
    (``PYTHONIOENCODING=ascii``, ``LANG=C``): the report's marks become words (``[ok]``, ``[error]``), accents
    drop, anything else is ``?``, instead of a ``UnicodeEncodeError`` and no output at all."""
    for stream in (sys.stdout, sys.stderr):
        enc = getattr(stream, "encoding", None) or "ascii"
        try:
            "✅⚠️→".encode(enc)
            continue
        except (UnicodeEncodeError, LookupError):
            pass
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors=_CONSOLE_ERRORS)
            except (ValueError, OSError):  # a stream that cannot change mid-write: left as it is
                pass


__all__ = ["short", "cap", "console_safe", "CONSOLE_WORDS"]
