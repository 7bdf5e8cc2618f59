# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Where the benchmarks write what they measured (standard library only)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def append_results(lines: list[str], name: str = "RESULTS_tsdf.md") -> Path:
    """Print ``lines`` and append them as one block to ``benchmarks/<name>``; returns that path."""
    text = "\n".join(lines)
    print(text)
    out = REPO / "benchmarks" / name
    old = out.read_text().rstrip("\n") + "\n\n" if out.exists() else ""
    out.write_text(old + text + "\n")
    print(f"appended to {out}")
    return out
