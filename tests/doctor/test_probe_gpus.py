# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Per-GPU rows of a node (``gpu_rows``, ``torch_gpus``, ``match_torch``) against fake ``nvidia-smi`` and a
fake torch answer."""

from __future__ import annotations

import json
import os

from smrnb.doctor._model import CmdResult, ProbeContext, Runner
from smrnb.doctor.probes import _driver as driver
from tests.doctor.test_probe_driver import make_tool

FIELDS = "index,name,uuid,pci.bus_id,driver_version,compute_cap,memory.total,memory.free"
QUERY = f"--query-gpu={FIELDS} --format=csv,noheader"
QUERY_OLD = f"--query-gpu={FIELDS.replace(',compute_cap', '')} --format=csv,noheader"
UUID0 = "GPU-6f2b7c0e-2d1a-4c1e-9a51-0c7e3e2b9d11"
UUID1 = "GPU-0c9a1a35-6e0f-77b1-3c3d-6a2b4a7e5f10"
TWO_H200 = (f"0, NVIDIA H200, {UUID0}, 00000000:19:00.0, 580.159.04, 9.0, 143771 MiB, 143208 MiB\n"
            f"1, NVIDIA H200, {UUID1}, 00000000:3B:00.0, 580.159.04, 9.0, 143771 MiB, 1024 MiB\n")


def ctx_for(tmp_path, answers, **kw):
    bin_dir = tmp_path / "bin"
    make_tool(bin_dir, "nvidia-smi", answers, **kw)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    return ProbeContext(run=Runner(env=env), environ=env, timeout=5.0)


def test_two_gpus_one_row_each_with_bus_id_arch_and_free_memory(tmp_path):
    rows = driver.gpu_rows(ctx_for(tmp_path, {QUERY: (TWO_H200, 0)}), use_nvml=False)
    assert rows["status"] == "ok" and rows["source"] == "nvidia-smi"
    a, b = rows["gpus"]
    assert (a["index"], a["name"], a["uuid"], a["pci_bus_id"]) == (0, "NVIDIA H200", UUID0, "00000000:19:00.0")
    assert a["driver_version"] == "580.159.04" and a["compute_capability"] == "9.0" and a["arch"] == "sm_90"
    assert a["memory_total_bytes"] == 143771 * 2**20 and a["memory_free_bytes"] == 143208 * 2**20
    assert b["index"] == 1 and b["memory_free_bytes"] == 2**30 and b["pci_bus_id"] == "00000000:3B:00.0"


def test_an_old_driver_without_compute_cap_and_not_available_fields(tmp_path):
    old = "0, Tesla T4, GPU-1f0c7c6a-0f7e-8a55-6c1a-43b6f3e7a0a2, 00000000:00:1E.0, 470.57.02, 15109 MiB, [N/A]\n"
    ctx = ctx_for(tmp_path, {QUERY: ('Field "compute_cap" is not a valid field to query.\n', 2), QUERY_OLD: (old, 0)})
    (row,) = driver.gpu_rows(ctx, use_nvml=False)["gpus"]
    assert row["compute_capability"] == "7.5" and row["arch"] == "sm_75"  # from the GPU-name table
    assert row["memory_free_bytes"] is None and row["memory_total_bytes"] == 15109 * 2**20


def test_no_driver_a_broken_driver_a_hang_and_garbage_are_told_apart(tmp_path):
    env = {"PATH": str(tmp_path / "empty")}
    absent = driver.gpu_rows(ProbeContext(run=Runner(env=env), environ=env), use_nvml=False)
    assert absent["status"] == "absent" and absent["gpus"] == []
    broken = driver.gpu_rows(ctx_for(tmp_path / "b", {}, default=(
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", 9)), use_nvml=False)
    assert broken["status"] == "broken" and broken["broken_kind"] == "not_loaded"
    hung = driver.gpu_rows(ctx_for(tmp_path / "h", {}, sleep=30), use_nvml=False)
    assert hung["status"] == "unavailable" and "did not answer" in hung["reason"]
    junk = driver.gpu_rows(ctx_for(tmp_path / "j", {QUERY: ("hello, world\n", 0)}), use_nvml=False)
    assert junk["status"] == "unavailable" and junk["gpus"] == []


def fake_torch(devices, available=True, rc=0, stderr=""):
    out = json.dumps({"version": "2.11.0+cu130", "cuda": "13.0", "available": available, "devices": devices})

    def run(argv, timeout=None, **kw):
        assert argv[1] == "-c" and "get_device_properties" in argv[2]
        return CmdResult(tuple(argv), rc, out + "\n" if rc == 0 else "", stderr)
    return run


def test_torch_sees_the_card_its_cuda_visible_devices_names(tmp_path):
    rows = driver.gpu_rows(ctx_for(tmp_path, {QUERY: (TWO_H200, 0)}), use_nvml=False)["gpus"]
    # a worker pinned to card 1: torch calls it cuda:0 (torch prints the UUID without "GPU-")
    seen = driver.torch_gpus(ProbeContext(run=fake_torch([{"torch_index": 0, "name": "NVIDIA H200",
                                                           "uuid": UUID1[4:].upper(), "pci": [0, 0x3B, 0]}]),
                                          environ={}))
    assert seen["status"] == "ok" and seen["available"]
    marked = driver.match_torch(rows, seen)
    assert [(r["index"], r["torch_sees"], r["torch_index"]) for r in marked] == [(0, False, None), (1, True, 0)]
    # no UUID from an old torch: the PCI address decides
    by_pci = driver.match_torch(rows, {"status": "ok", "devices": [{"torch_index": 0, "uuid": "", "pci": [0, 0x19, 0]}]})
    assert [r["torch_sees"] for r in by_pci] == [True, False]
    # torch not asked (not installed / failed): unknown, never "no"
    assert [r["torch_sees"] for r in driver.match_torch(rows, {"status": "unavailable"})] == [None, None]


def test_the_torch_check_never_raises():
    missing = driver.torch_gpus(ProbeContext(run=fake_torch([], rc=1, stderr="ModuleNotFoundError: No module named 'torch'"),
                                             environ={}))
    assert missing["status"] == "not_installed"
    odd = driver.torch_gpus(ProbeContext(run=lambda argv, timeout=None, **kw: CmdResult(tuple(argv), 0, "not json"),
                                         environ={}))
    assert odd["status"] == "unavailable"


def test_the_real_torch_of_this_machine_answers():
    seen = driver.torch_gpus(ProbeContext(environ=dict(os.environ)), timeout=120)
    assert seen["status"] == "ok" and isinstance(seen["devices"], list)
    assert seen["available"] == bool(seen["devices"])


def test_list_gpus_reads_path_from_the_environment_given(tmp_path):
    bin_dir = tmp_path / "bin"
    make_tool(bin_dir, "nvidia-smi", {QUERY: (TWO_H200, 0)})
    out = driver.list_gpus(use_nvml=False, environ={"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert [g["uuid"] for g in out["gpus"]] == [UUID0, UUID1]
    assert driver.pci_key("00000000:3B:00.0") == (0, 0x3B, 0) and driver.pci_key("nonsense") is None
    assert driver.uuid_key(UUID0) == UUID0[4:].lower() and driver.arch_of("12.0") == "sm_120"


def test_nvml_rows_carry_bus_id_and_free_memory(monkeypatch):
    import sys

    from tests.doctor.test_probe_driver import _FakeNVML

    class TwoCards(_FakeNVML):
        def nvmlDeviceGetCount(self):
            return 2

        def nvmlDeviceGetMemoryInfo(self, h):
            return type("Mem", (), {"total": 150754820096, "free": 150000000000 - h[1]})()

        def nvmlDeviceGetUUID(self, h):
            return (UUID0, UUID1)[h[1]].encode()

        def nvmlDeviceGetPciInfo(self, h):
            return type("Pci", (), {"busId": ("00000000:19:00.0", "00000000:3B:00.0")[h[1]]})()

    monkeypatch.setitem(sys.modules, "pynvml", TwoCards())
    rows = driver.list_gpus(environ={"PATH": ""})
    assert rows["source"] == "nvml" and [g["uuid"] for g in rows["gpus"]] == [UUID0, UUID1]
    assert rows["gpus"][1]["pci_bus_id"] == "00000000:3B:00.0" and rows["gpus"][1]["memory_free_bytes"] == 149999999999
    assert rows["gpus"][0]["driver_version"] == "580.159.04" and rows["gpus"][0]["arch"] == "sm_90"
