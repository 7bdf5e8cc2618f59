# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The CPU thread policy (smrnb/_threads.py): decisions from given facts, restore, overrides."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from smrnb import SmrnbValueError, _threads
from smrnb._threads import decide_threads


def decide(**kw):
    base = {"cpus": 2, "quota": None, "others": 0.0, "spin_wait": False, "env_value": None, "current": 2,
            "torch_defaults": (2,), "omp_env": None}
    base.update(kw)
    return decide_threads("marching_cubes", **base)


def test_idle_machine_uses_every_allowed_cpu():
    assert decide().threads == 2
    assert decide(cpus=8, current=8, torch_defaults=(8,)).threads == 8
    assert decide(spin_wait=True).threads == 2


def test_busy_machine_uses_fewer_threads():
    assert decide(others=2.0).threads == 1
    assert decide(cpus=8, current=8, torch_defaults=(8,), others=3.0).threads == 5
    assert decide(cpus=8, current=8, torch_defaults=(8,), others=30.0).threads == 1


def test_spinning_runtime_drops_to_one_thread_at_any_real_load():
    assert decide(cpus=8, current=8, torch_defaults=(8,), others=1.0, spin_wait=True).threads == 1
    assert decide(cpus=8, current=8, torch_defaults=(8,), others=1.0, spin_wait=False).threads == 7
    assert decide(cpus=8, current=8, torch_defaults=(8,), others=0.2, spin_wait=True).threads == 8


def test_fine_grained_steps_use_half_the_free_cpus_at_most_four_when_threads_sleep():
    def tsdf(**kw):
        base = {"cpus": 2, "quota": None, "others": 0.0, "spin_wait": False, "env_value": None, "current": 2,
                "torch_defaults": (2,), "omp_env": None}
        base.update(kw)
        return decide_threads("tsdf", **base)

    assert tsdf().threads == 1
    assert tsdf(cpus=16, current=16, torch_defaults=(16,)).threads == 4
    assert tsdf(cpus=6, current=6, torch_defaults=(6,)).threads == 3
    assert tsdf(cpus=16, current=16, torch_defaults=(16,), others=13.0).threads == 1
    assert "small parallel regions" in tsdf(cpus=16, current=16, torch_defaults=(16,)).reason
    # a spinning runtime is judged by the load alone; an explicit count is still obeyed
    assert tsdf(cpus=16, current=16, torch_defaults=(16,), spin_wait=True).threads == 16
    assert tsdf(env_value="8").threads == 8


def test_cgroup_quota_caps_threads():
    assert decide(cpus=16, current=16, torch_defaults=(16,), quota=2.0).threads == 2
    assert decide(cpus=16, current=16, torch_defaults=(16,), quota=0.5).threads == 1
    assert decide(cpus=4, current=4, torch_defaults=(4,), quota=1.5, others=0.0).threads == 1


def test_env_override_and_keep():
    assert decide(env_value="3", others=9.0).threads == 3
    d = decide(env_value="keep")
    assert d.threads is None and "kept" in d.reason
    for bad in ("0", "-2", "many", "1.5"):
        with pytest.raises(SmrnbValueError, match="SMRNB_NUM_THREADS must be a whole number >= 1"):
            decide(env_value=bad)


def test_explicit_user_settings_are_respected():
    d = decide(current=1, torch_defaults=(2,))
    assert d.threads is None and "torch.set_num_threads(1)" in d.reason
    assert decide(omp_env="4").threads is None
    # the env override beats both
    assert decide(current=1, torch_defaults=(2,), env_value="2").threads == 2


def test_a_count_that_is_not_torchs_default_is_the_callers():
    assert decide(current=1, torch_defaults=()).threads is None
    assert decide(cpus=8, current=8, torch_defaults=(8, 4), others=2.0).threads == 6
    assert decide(cpus=8, current=4, torch_defaults=(8, 4), others=0.0).threads == 8


def test_physical_cores_from_sysfs(tmp_path):
    for cpu, core in ((0, 0), (1, 1), (2, 0), (3, 1)):  # 2 cores, 2 hyperthreads each
        topo = tmp_path / f"cpu{cpu}" / "topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text("0\n")
        (topo / "core_id").write_text(f"{core}\n")
    assert _threads.physical_cores({0, 1, 2, 3}, tmp_path) == 2
    assert _threads.physical_cores({0, 2}, tmp_path) == 1
    assert _threads.physical_cores({0, 7}, tmp_path) is None


def test_parse_cpu_max_and_cgroup_files(tmp_path):
    assert _threads.parse_cpu_max("200000 100000\n") == 2.0
    assert _threads.parse_cpu_max("50000 100000") == 0.5
    assert _threads.parse_cpu_max("max 100000") is None
    assert _threads.parse_cpu_max("garbage") is None
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert _threads.cgroup_cpus(tmp_path) == 1.5
    v1 = tmp_path / "v1"
    (v1 / "cpu").mkdir(parents=True)
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("300000\n")
    (v1 / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert _threads.cgroup_cpus(v1) == 3.0
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    assert _threads.cgroup_cpus(v1) is None
    assert _threads.cgroup_cpus(tmp_path / "absent") is None


def test_others_busy_from_proc_stat(tmp_path):
    stat = tmp_path / "stat"
    stat.write_text("cpu  1 2 3 4\nprocs_running 5\nprocs_blocked 0\n")
    assert _threads.others_busy(stat, samples=2) == 4.0
    stat.write_text("cpu  1 2 3 4\nprocs_running 1\n")
    assert _threads.others_busy(stat, samples=1) == 0.0


def test_runtime_spins_reads_the_wait_variables():
    assert _threads.runtime_spins({}) is True
    assert _threads.runtime_spins({"OMP_WAIT_POLICY": "passive"}) is False
    assert _threads.runtime_spins({"OMP_WAIT_POLICY": "ACTIVE"}) is True
    assert _threads.runtime_spins({"GOMP_SPINCOUNT": "0"}) is False
    assert _threads.runtime_spins({"GOMP_SPINCOUNT": "lots"}) is True


def test_cpu_threads_sets_and_restores(monkeypatch):
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    _threads.note_torch_default()
    monkeypatch.setattr(_threads, "_torch_default", [before])
    monkeypatch.setenv("SMRNB_NUM_THREADS", "3")
    with _threads.cpu_threads("tsdf") as d:
        assert d.threads == 3 and torch.get_num_threads() == 3
        with _threads.cpu_threads("inner") as inner:  # nested: the outer choice stays
            assert inner is None and torch.get_num_threads() == 3
        assert torch.get_num_threads() == 3
    assert torch.get_num_threads() == before
    assert _threads.last_decision().step == "tsdf"


def test_cpu_threads_restores_after_an_error(monkeypatch):
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    monkeypatch.setattr(_threads, "_torch_default", [before])
    monkeypatch.setenv("SMRNB_NUM_THREADS", "1" if before != 1 else "2")
    with pytest.raises(RuntimeError, match="boom"):
        with _threads.cpu_threads("texture"):
            assert torch.get_num_threads() != before
            raise RuntimeError("boom")
    assert torch.get_num_threads() == before
    # and a fresh block works after it (the nesting depth was reset)
    with _threads.cpu_threads("texture") as d:
        assert d is not None


def test_caller_setting_is_kept(monkeypatch):
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    monkeypatch.delenv("SMRNB_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(_threads, "_torch_default", [before + 5])  # the caller changed it since the first step
    with _threads.cpu_threads("mc") as d:
        assert d.threads is None and torch.get_num_threads() == before
    assert torch.get_num_threads() == before


def test_public_steps_run_under_the_policy(monkeypatch):
    torch = pytest.importorskip("torch")
    from smrnb.geometry._marching_cubes import marching_cubes

    seen = []
    real = torch.set_num_threads
    monkeypatch.setattr(_threads, "_torch_default", [torch.get_num_threads()])
    monkeypatch.setenv("SMRNB_NUM_THREADS", str(torch.get_num_threads() + 1))
    monkeypatch.setattr(torch, "set_num_threads", lambda n: (seen.append(n), real(n)))
    g = torch.linspace(-1, 1, 12)
    vol = (g[:, None, None] ** 2 + g[None, :, None] ** 2 + g[None, None, :] ** 2).sqrt() - 0.5
    v, f = marching_cubes(vol, 0.0)[:2]
    assert len(f) > 0
    assert _threads.last_decision().step == "marching_cubes"
    assert seen[0] == torch.get_num_threads() + 1 and len(seen) == 2  # set, then restored


def _import_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _threads.WAIT_VARS + (_threads.ENV_WAIT,)}
    env.update(extra)
    return env


@pytest.mark.parametrize("extra, first, expect", [
    ({}, "smrnb", "PASSIVE"),
    ({"OMP_WAIT_POLICY": "ACTIVE"}, "smrnb", "ACTIVE"),
    ({"GOMP_SPINCOUNT": "1000"}, "smrnb", None),
    ({"SMRNB_OMP_WAIT_POLICY": "keep"}, "smrnb", None),
    ({}, "torch", None),
])
def test_wait_policy_set_at_import_only_when_it_can_work(extra, first, expect):
    code = ("import sys, os\n"
            + ("import torch\n" if first == "torch" else "")
            + "import smrnb\nprint(os.environ.get('OMP_WAIT_POLICY'))\nprint('torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], env=_import_env(extra), capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    policy, torch_loaded = out.stdout.split()
    assert policy == str(expect)
    assert torch_loaded == ("True" if first == "torch" else "False")  # import smrnb never loads torch


def test_busy_seconds_reads_the_allowed_cpus(tmp_path):
    stat = tmp_path / "stat"
    tick = os.sysconf("SC_CLK_TCK")
    # user nice system idle iowait irq softirq steal
    stat.write_text(f"cpu  999 0 0 0 0 0 0 0\ncpu0 {tick} 0 {tick} 5000 70 0 0 0\n"
                    f"cpu1 {3 * tick} {tick} 0 0 0 {tick} 0 {tick}\ncpu2 {7 * tick} 0 0 0 0 0 0 0\nprocs_running 2\n")
    assert _threads.busy_seconds({0}, stat) == 2.0  # idle and iowait are not busy
    assert _threads.busy_seconds({0, 1}, stat) == 8.0
    assert _threads.busy_seconds({0, 1, 2}, stat) == 15.0
    assert _threads.busy_seconds({5}, stat) is None  # a CPU the file does not list
    assert _threads.busy_seconds({0}, tmp_path / "absent") is None


def test_others_busy_between_two_readings():
    # 4 s of wall time: the allowed CPUs were busy 7 s, 3 s of it this process's own -> 1 CPU of others
    assert _threads.others_busy_between((10.0, 100.0, 5.0), (14.0, 107.0, 8.0)) == 1.0
    # this process alone: nothing left for others (never negative through jiffy rounding)
    assert _threads.others_busy_between((10.0, 100.0, 5.0), (12.0, 103.99, 9.0)) == 0.0
    assert _threads.others_busy_between((10.0, 100.0, 5.0), (10.05, 100.1, 5.0)) is None  # too short
    assert _threads.others_busy_between((10.0, 100.0, 5.0), (10.0 + 10_000, 200.0, 6.0)) is None  # too old


def test_later_steps_read_the_load_without_sampling(monkeypatch):
    """Only the first reading of a process waits to sample runnable tasks; later steps take the busy
    time since the previous reading (a re-run after a pause does not sleep)."""
    calls = []
    monkeypatch.setattr(_threads, "others_busy", lambda *a, **k: calls.append(1) or 0.0)
    busy = iter([100.0, 103.0, 110.0])
    monkeypatch.setattr(_threads, "busy_seconds", lambda *a, **k: next(busy))
    clock = iter([1000.0, 1002.0, 1004.0, 1006.0, 1008.0, 1010.0])
    monkeypatch.setattr(_threads.time, "monotonic", lambda: next(clock))
    own = iter([1.0, 2.0, 3.0])
    monkeypatch.setattr(_threads.time, "process_time", lambda: next(own))
    monkeypatch.setattr(_threads, "_cache", {"t": -1e9, "others": 0.0, "reading": None})
    assert _threads._others_cached() == 0.0 and calls == [1]  # first: sampled
    assert _threads._others_cached() == 0.5 and calls == [1]  # (3 - 1) / 4 s
    assert _threads._others_cached() == 1.5 and calls == [1]  # (7 - 1) / 4 s
