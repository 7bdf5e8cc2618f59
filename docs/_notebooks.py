# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Execute notebooks with ``jupyter nbconvert --execute``, a few at a time, each in its own process with a time limit.

One executor for the docs build (``docs/_gen.py`` renders the executed teaching notebooks) and for the tests that need
the committed notebooks executed (``tests/_executed.py``: the Binder venv's run, shared with the docs build and the
notebook checks). No import of mkdocs or of the package: ``python`` and ``env`` say which Python executes and how.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: per cell, in nbconvert; the whole notebook's process gets twice that
CELL_TIMEOUT_S = 600


def execute(notebooks: list[Path], out_dir: Path, *, python: str | Path = sys.executable, env: dict | None = None,
            parallel: int = 2, cell_timeout: float = CELL_TIMEOUT_S, what: str = "the docs") -> dict[str, Path]:
    """Execute ``notebooks`` (no ``allow_errors``: a cell that raises fails its notebook) into ``out_dir``,
    ``parallel`` at a time, each with its own log in ``out_dir``; returns name -> executed copy. The first
    notebook that does not run through stops the others and raises ``RuntimeError`` naming it (``what`` says
    for whom it was executed) with its log's tail. ``env`` is passed as is (``SMRNB_STATIC_PICTURES`` left to the
    caller)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    pending = list(notebooks)
    running: list[tuple[Path, subprocess.Popen, Path]] = []
    while pending or running:
        while pending and len(running) < parallel:
            nb = pending.pop(0)
            log = out_dir / f"{nb.stem}.log"
            with open(log, "w") as fh:
                proc = subprocess.Popen(
                    [str(python), "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                     f"--ExecutePreprocessor.timeout={int(cell_timeout)}", "--ExecutePreprocessor.kernel_name=python3",
                     "--ExecutePreprocessor.allow_errors=False", "--output-dir", str(out_dir), str(nb)],
                    cwd=str(nb.parent), env=env, stdout=fh, stderr=subprocess.STDOUT)
            running.append((nb, proc, log))
        nb, proc, log = running.pop(0)
        try:
            rc = proc.wait(timeout=cell_timeout * 2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
            rc = -1
        if rc != 0:
            for _nb, other, _log in running:
                other.kill()
            raise RuntimeError(f"executing {nb.name} for {what} failed ({rc}):\n"
                               f"{log.read_text(errors='replace')[-3000:]}")
        out[nb.name] = out_dir / nb.name
    return out
