# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""collect(): every probe wrapped (exceptions, missing modules, deadlines), order, dependencies, timings."""

from __future__ import annotations

import sys
import time
import types

import pytest

from smrnb import SmrnbValueError
from smrnb.doctor import diagnose
from smrnb.doctor._model import LAYERS, ProbeContext
from smrnb.doctor.probes import PROBE_MODULES, collect, default_deadline, expand_layers


def _install_probe(monkeypatch, layer: str, fn) -> None:
    """Stand a fabricated probe module in for ``layer`` (a real module object with probe(ctx))."""
    name = f"_test_probe_{layer}"
    mod = types.ModuleType(f"smrnb.doctor.probes.{name}")
    mod.probe = fn
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    monkeypatch.setitem(PROBE_MODULES, layer, name)


def _ctx(**kw) -> ProbeContext:
    return ProbeContext(start_environ={}, **kw)


def test_layer_module_map_and_order():
    assert tuple(PROBE_MODULES) == LAYERS
    assert PROBE_MODULES["torch"] == "_torch_build"
    wanted, run = expand_layers(["abi"])
    assert wanted == ["abi"] and run == ["driver", "torch", "toolkit", "loader", "abi"]
    with pytest.raises(SmrnbValueError, match="layers must be a subset of"):
        expand_layers(["gpu"])


def test_a_raising_probe_is_unavailable_and_others_still_run(monkeypatch):
    def boom(ctx):
        raise RuntimeError("torch probe exploded")

    _install_probe(monkeypatch, "torch", boom)
    _install_probe(monkeypatch, "loader", lambda ctx: {"status": "ok", "saw_torch": ctx.facts["torch"]["status"]})
    facts = collect(_ctx(), ["torch", "loader"])
    assert facts["torch"]["status"] == "unavailable"
    assert facts["torch"]["reason"] == "probe raised RuntimeError: torch probe exploded"
    assert facts["loader"] == {"status": "ok", "saw_torch": "unavailable", "elapsed_s": facts["loader"]["elapsed_s"]}


def test_missing_module_and_bad_results(monkeypatch):
    monkeypatch.setitem(PROBE_MODULES, "jupyter", "_no_such_probe_module")
    _install_probe(monkeypatch, "context", lambda ctx: ["not", "a", "dict"])
    _install_probe(monkeypatch, "driver", lambda ctx: {"status": "weird"})
    facts = collect(_ctx(), ["driver", "jupyter", "context"])
    assert facts["jupyter"]["status"] == "unavailable" and "_no_such_probe_module is missing" in facts["jupyter"]["reason"]
    assert facts["context"]["reason"] == "probe returned list, not a dict"
    assert "unknown status 'weird'" in facts["driver"]["reason"]


def test_a_hanging_probe_is_cut_off_by_the_deadline_and_delays_no_other(monkeypatch):
    _install_probe(monkeypatch, "driver", lambda ctx: time.sleep(60))
    _install_probe(monkeypatch, "torch", lambda ctx: {"status": "ok", "installed": False})
    t0 = time.perf_counter()
    facts = collect(_ctx(), ["driver", "torch"], deadline=0.5)
    wall = time.perf_counter() - t0
    assert wall < 2.0
    assert facts["driver"]["status"] == "unavailable" and "deadline" in facts["driver"]["reason"]
    assert 0.4 < facts["driver"]["elapsed_s"] < 2.0
    # torch runs in the same wave, concurrently: the hanging driver probe does not hold it up
    assert facts["torch"]["status"] == "ok" and facts["torch"]["elapsed_s"] < 0.4


def test_layers_after_the_deadline_are_skipped_not_run_late(monkeypatch):
    ran = []
    _install_probe(monkeypatch, "torch", lambda ctx: time.sleep(60))
    _install_probe(monkeypatch, "loader", lambda ctx: ran.append("loader") or {"status": "ok"})
    facts = collect(_ctx(), ["loader"], deadline=0.3)
    assert list(facts) == ["loader"]  # torch ran as a dependency but is not returned
    assert facts["loader"]["status"] == "unavailable" and "skipped" in facts["loader"]["reason"]
    assert ran == []


def test_a_probe_sees_the_facts_of_its_dependencies(monkeypatch):
    _install_probe(monkeypatch, "torch", lambda ctx: (time.sleep(0.2), {"status": "ok", "version": "9.9"})[1])
    _install_probe(monkeypatch, "loader", lambda ctx: {"status": "ok", "torch_seen": ctx.facts["torch"]["version"]})
    facts = collect(_ctx(), ["loader"])
    assert facts["loader"]["torch_seen"] == "9.9"


def test_default_deadline_scales_with_timeout():
    assert default_deadline(5.0) == 11.0
    assert default_deadline(0.1) == 2.0


def test_probe_timings_are_recorded(monkeypatch):
    _install_probe(monkeypatch, "context", lambda ctx: (time.sleep(0.2), {"status": "ok"})[1])
    facts = collect(_ctx(), ["context"])
    assert 0.15 < facts["context"]["elapsed_s"] < 2.0


def test_real_collect_on_this_machine_never_raises_and_is_fast():
    ctx = ProbeContext(timeout=2.0)
    t0 = time.perf_counter()
    facts = collect(ctx)
    assert time.perf_counter() - t0 < default_deadline(2.0) + 1
    assert list(facts) == list(LAYERS)
    for layer, f in facts.items():
        assert f["status"] in ("ok", "absent", "broken", "unavailable"), layer
        assert isinstance(f["elapsed_s"], float)


def test_diagnose_validates_arguments():
    from smrnb import SmrnbTypeError

    for bad in (0, -1.0, float("inf"), 1e308, float("nan")):
        with pytest.raises(SmrnbValueError, match=r"timeout must be > 0 and <= 3600 seconds, got"):
            diagnose(timeout=bad)
    with pytest.raises(SmrnbTypeError, match="timeout must be a number of seconds, got str"):
        diagnose(timeout="5")
    with pytest.raises(SmrnbValueError, match="layers must be a subset"):
        diagnose(layers=["kaolinx"])


def test_diagnose_one_layer_shows_only_it():
    rep = diagnose(layers="torch", timeout=2.0)
    assert rep.layers() == ["torch"] and set(rep.facts) == {"torch"}
    assert all(f.layer == "torch" for f in rep.findings)


def _fuzz_runner(seed: int):
    import random

    from smrnb.doctor._model import CmdResult

    rng = random.Random(seed)
    samples = ["", "\x00\xff garbage", "NVIDIA-SMI 580.159.04  Driver Version: 580.159.04  CUDA Version: 13.0",
               "Cuda compilation tools, release 99.x, V", "gcc (GCC) banana", "compute_", "9999999999999999999",
               "name, driver_version, compute_cap\nNVIDIA H200, 580.159.04, 9.0\n,,,\n", "{not json", "-1"]

    def run(argv, timeout=None, env=None, input=None):
        r = rng.random()
        if r < 0.15:
            return CmdResult(tuple(argv), None, timed_out=True, error=f"timeout after {timeout} s")
        if r < 0.25:
            return CmdResult(tuple(argv), None, error="not found")
        out = "".join(rng.choice(samples) for _ in range(rng.randint(0, 4)))
        return CmdResult(tuple(argv), rng.choice([0, 0, 1, 127]), out, rng.choice(samples))

    return run


@pytest.mark.parametrize("seed", range(5))
def test_no_probe_raises_on_fuzzed_tools_and_missing_proc(tmp_path, seed):
    """Every command answers garbage, times out or is missing; /proc/self is an empty directory."""
    ctx = ProbeContext(run=_fuzz_runner(seed), environ={"PATH": str(tmp_path), "CUDA_HOME": "/nonexistent:/x"},
                       start_environ=None, proc_self=str(tmp_path), timeout=1.0)
    facts = collect(ctx)
    raised = {k: v["reason"] for k, v in facts.items() if "probe raised" in str(v.get("reason", ""))}
    assert not raised, raised
    from smrnb.doctor.rules import evaluate

    failed = [f for f in evaluate(ctx.facts) if f.code == "rule_failed"]
    assert not failed, failed


def test_import_check_runs_after_the_static_layers_with_its_own_budget(tmp_path, monkeypatch):
    """A 3 s import (like kaolin's 9-10 s on an H200) with a 0.5 s per-command timeout: the static
    layers' 2 s deadline cuts nothing off, and both import checks still report."""
    site = tmp_path / "site"
    for name, version in (("torch", "2.11.0"), ("kaolin", "0.18.0")):
        (site / name).mkdir(parents=True)
        (site / name / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
        (site / f"{name}-{version}.dist-info").mkdir()
        (site / f"{name}-{version}.dist-info" / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    py = tmp_path / "python"
    py.write_text("#!/bin/sh\ncase \"$2\" in\n"
                  "  *kaolin*) sleep 3; echo '{\"version\": \"0.18.0\", \"seconds\": 3.0}';;\n"
                  "  *torch*) sleep 3; echo '{\"cxx11_abi\": true, \"cuda_available\": false, \"arch_list\": null}';;\n"
                  "  *) echo 3.12.3;;\nesac\n")
    py.chmod(0o755)
    from smrnb.doctor.probes import _kaolin as kaolin_probe
    from smrnb.doctor.probes import _torch_build as torch_build

    monkeypatch.setattr(torch_build, "site_dirs_default", lambda: [str(site)])
    monkeypatch.setattr(kaolin_probe, "site_dirs_default", lambda: [str(site)])
    monkeypatch.delitem(sys.modules, "torch", raising=False)  # this process's torch must not answer instead
    ctx = _ctx(timeout=0.5, import_check=True, python=str(py))
    t0 = time.perf_counter()
    facts = collect(ctx)
    wall = time.perf_counter() - t0
    assert wall < 10, wall  # the two imports run concurrently, each about 3 s
    for layer, f in facts.items():
        assert "deadline" not in str(f.get("reason", "")), (layer, f)
    assert facts["kaolin"]["import_check"]["ok"] is True
    assert facts["torch"]["cxx11_abi"] is True and facts["torch"]["cxx11_abi_from"] == "torch._C"
    assert facts["torch"]["import_check"] is True and facts["torch"]["import_check_s"] >= 2.5
