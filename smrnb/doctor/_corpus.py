# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Accuracy of explain on a corpus of real error texts (JSON lines: text, cause, also).

Right = the cause (or one of ``also``) among the first two findings. Used by the benchmark and the
corpus test; prints nothing itself.
"""

from __future__ import annotations

import json
from pathlib import Path

from smrnb.doctor._explain import explain_text


def load(path: str | Path) -> list[dict]:
    """The entries of one corpus file (one JSON object per non-empty line)."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(ln) for ln in fh if ln.strip()]


def accuracy(rows: list[dict], top: int = 2) -> tuple[int, int]:
    """(right, total) for ``rows``: the right cause among the first ``top`` findings of explain."""
    ok = 0
    for r in rows:
        codes = [f.code for f in explain_text(r["text"])][:top]
        if {r["cause"], *(r.get("also") or [])} & set(codes):
            ok += 1
    return ok, len(rows)
