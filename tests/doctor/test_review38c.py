# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 38c, code quality: one reading of "the first CUDA release whose nvcc compiles for this GPU"
(tables.cuda_releases_for_arch, read by _install.first_nvcc_for, _printed's variant comment and rules._abi's CuPy
commands, which each had their own loop or default); one reader of a fact (_model.value), no copy in rules._rebuild."""

from __future__ import annotations

import ast
from pathlib import Path

from smrnb.doctor import _model, _printed, tables
from smrnb.doctor._install import first_nvcc_for
from smrnb.doctor.rules import _events

ROOT = Path(__file__).resolve().parents[2]


def test_one_reading_of_the_first_cuda_for_an_arch():
    for cc in sorted({int(a) for r in tables.rows("nvcc_archs") for a in r["archs"].split()} | {20, 35, 999}):
        found = tables.cuda_releases_for_arch(cc)
        assert list(found) == sorted(found, key=tables.version_key)
        assert first_nvcc_for(cc) == (found[0] if found else None)
        assert all(str(cc) in next(r for r in tables.rows("nvcc_archs") if r["cuda"] == c)["archs"].split()
                   for c in found)


def test_variant_comment_names_the_first_and_last_cuda_of_the_arch():
    """_printed's comment where no torch release is pinned reads the same function: sm_35 (CUDA 10.0 to 12.x:
    CUDA 12.0 dropped Kepler)."""
    c = "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/<a CUDA variant built for the GPU>"
    got = _printed._variant_filled(c, "The installed torch has no kernels for this GPU (sm_35)")
    found = tables.cuda_releases_for_arch(35)
    assert f"pick a variant of CUDA {found[0]} to {found[-1]}.x " in got, got


def test_rebuild_reads_facts_with_the_rules_one_reader():
    """Fails before: rules._rebuild had its own copy `_value` of rules._events.value (kept to avoid an import cycle);
    both now read _model.value, which imports no rule module."""
    tree = ast.parse((ROOT / "smrnb/doctor/rules/_rebuild.py").read_text(encoding="utf-8"))
    assert not [f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "_value"]
    assert _events.value is _model.value
    facts = {"torch": {"version": "2.6.0"}, "driver": {"status": "unavailable", "version": "x"}}
    assert _model.value(facts, "torch", "version") == "2.6.0"
    assert _model.value(facts, "driver", "version") is None and _model.value(facts, "nope", "x") is None
