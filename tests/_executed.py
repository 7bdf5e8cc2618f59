# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The teaching notebooks as committed, executed once per test session and read by every test that needs them.

Three tests need the committed notebooks executed top to bottom with no error: the Binder test (in the venv built
from ``binder/``, as a student on Binder gets them), the docs build (which renders the executed copies) and
``test_notebooks``' unsolved run (which checks their outputs and exports them). Executing each notebook once for all
three saves two executions of every notebook per CI run. The first of them to run in a session executes and
records; the others read. Pytest runs ``test_binder.py`` before ``test_docs.py`` and ``test_notebooks.py``, so in
a full run the Binder venv's executions are the ones read; a test run alone executes the notebooks itself.

An executed copy is recorded only when the whole notebook ran without an error (``nbconvert --execute`` without
``allow_errors``), so a reader can rely on that.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: a cell's time limit in ``nbconvert`` (the whole notebook's process gets twice that)
CELL_TIMEOUT_S = 300

#: notebook file name -> (its executed copy, who ran it)
_COMMITTED: dict[str, tuple[Path, str]] = {}


def record(executed: dict[str, Path], by: str) -> None:
    """Record ``executed`` (notebook file name -> its executed copy) as run by ``by`` (said in failure messages)."""
    for name, path in executed.items():
        if not Path(path).is_file():
            raise AssertionError(f"{by}: no executed copy of {name} at {path}")
        _COMMITTED[name] = (Path(path), by)


def recorded(name: str) -> tuple[Path, str] | None:
    """The executed copy of notebook ``name`` recorded this session and who ran it, or ``None``."""
    return _COMMITTED.get(name)


def execute(notebooks: list[Path], out_dir: Path, *, python: str | Path = sys.executable, env: dict | None = None,
            parallel: int = 2) -> dict[str, Path]:
    """Execute ``notebooks`` as committed with ``python -m jupyter nbconvert --execute`` (no ``allow_errors``) into
    ``out_dir``, ``parallel`` at a time (the docs build's executor, ``docs/_notebooks.py``); returns name -> executed
    copy. Fails naming the first notebook that did not run through, with its log's tail."""
    env = dict(os.environ if env is None else env)
    env.pop("SMRNB_STATIC_PICTURES", None)  # auto: no live front end, so static pictures, as on nbviewer/Binder exports
    spec = importlib.util.spec_from_file_location("smrnb_docs_notebooks", REPO / "docs" / "_notebooks.py")
    executor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(executor)
    return executor.execute(notebooks, out_dir, python=python, env=env, parallel=parallel, cell_timeout=CELL_TIMEOUT_S,
                            what="the tests")


def committed(name: str, tmp_dir: Path) -> tuple[Path, str]:
    """The executed copy of committed notebook ``name``: the one recorded this session, or executed now (with this
    process's Python, into ``tmp_dir``) and recorded; and who ran it."""
    got = recorded(name)
    if got is None:
        path = REPO / "notebooks" / name
        record(execute([path], tmp_dir, parallel=1), "this test session's Python")
        got = recorded(name)
    return got


def errors_in(path: Path) -> list[str]:
    """The errors an executed notebook's outputs hold (``ename: evalue`` each)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [f"{o['ename']}: {o['evalue']}" for c in nb["cells"] for o in c.get("outputs", [])
            if o.get("output_type") == "error"]


def copy_all(out_dir: Path) -> Path | None:
    """Every teaching notebook's recorded executed copy, copied into ``out_dir`` (for the docs build); ``None`` when
    any is not recorded (the caller then lets the build execute them)."""
    if not all(recorded(p.name) for p in NOTEBOOKS):
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    for p in NOTEBOOKS:
        shutil.copyfile(recorded(p.name)[0], out_dir / p.name)
    return out_dir
