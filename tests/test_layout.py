# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The repository's top level is fixed: pyproject.toml, smrnb/, notebooks/, tests/, binder/, docs/, README, .ci/run and
benchmarks/, with the licence, the contributors' guide and the docs' site configuration beside them. Maintainers'
scripts live under tests/ (tests/tools: the table and three.js refreshers; tests/doctor/corpus: the corpus' tools)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {".ci", "benchmarks", "binder", "docs", "notebooks", "smrnb", "tests"}
FILES = {".gitignore", "CONTRIBUTING.md", "LICENSE", "README.md", "mkdocs.yml", "pyproject.toml"}


def _tracked() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, timeout=60)
    if out.returncode:
        pytest.skip(f"git ls-files failed: {out.stderr.strip()[:200]}")
    return out.stdout.splitlines()


def test_the_top_level_holds_only_the_fixed_layout():
    tops = {p.split("/", 1)[0] + ("/" if "/" in p else "") for p in _tracked()}
    folders = {t[:-1] for t in tops if t.endswith("/")}
    files = {t for t in tops if not t.endswith("/")}
    assert folders <= FOLDERS, f"top-level folders outside the fixed layout: {sorted(folders - FOLDERS)}"
    assert files <= FILES, f"top-level files outside the fixed layout: {sorted(files - FILES)}"
    assert {"smrnb", "tests", "notebooks", "binder", "docs", "benchmarks", ".ci"} <= folders
    assert {"pyproject.toml", "README.md"} <= files
    assert ".ci/run" in _tracked()
