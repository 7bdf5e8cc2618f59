# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Driver probe and rules against fake ``nvidia-smi`` executables printing real outputs."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

from smrnb.doctor._model import ProbeContext, Runner
from smrnb.doctor.probes import _driver as driver
from smrnb.doctor.rules import evaluate

QUERY = "--query-gpu=name,driver_version,compute_cap,memory.total,uuid --format=csv,noheader"
QUERY_OLD = "--query-gpu=name,driver_version,memory.total,uuid --format=csv,noheader"

H200_HEADER = """Wed Dec  2 10:12:03 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|=========================================+========================+======================|
|   0  NVIDIA H200                    On  |   00000000:19:00.0 Off |                    0 |
| N/A   31C    P0             76W /  700W |       0MiB / 143771MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
"""
H200_QUERY = "NVIDIA H200, 580.159.04, 9.0, 143771 MiB, GPU-6f2b7c0e-2d1a-4c1e-9a51-0c7e3e2b9d11\n"

T4_470_HEADER = """Mon Mar 28 14:18:01 2022
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Tesla T4            Off  | 00000000:00:1E.0 Off |                    0 |
| N/A   30C    P8     9W /  70W |      0MiB / 15109MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""
T4_470_QUERY_ERR = 'Field "compute_cap" is not a valid field to query.\n\n'
T4_470_QUERY_OLD = "Tesla T4, 470.57.02, 15109 MiB, GPU-1f0c7c6a-0f7e-8a55-6c1a-43b6f3e7a0a2\n"

RTX3090_HEADER = """Sat Dec 30 08:28:59 2023
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
|   0  NVIDIA GeForce RTX 3090        Off | 00000000:01:00.0  On |                  N/A |
+-----------------------------------------+----------------------+----------------------+
"""
RTX3090_QUERY = "NVIDIA GeForce RTX 3090, 535.129.03, 8.6, 24576 MiB, GPU-0c9a1a35-6e0f-77b1-3c3d-6a2b4a7e5f10\n"

NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
             "latest NVIDIA driver is installed and running.\n\n")


def make_tool(bin_dir: Path, name: str, answers: dict[str, tuple[str | bytes, int]],
              default: tuple[str | bytes, int] = ("", 0), sleep: float = 0.0) -> Path:
    """A shell script ``name`` printing ``answers["$*"]`` (stdout, exit status)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    lines = ["#!/bin/sh"]
    if sleep:
        lines.append(f"exec sleep {sleep}")  # exec: the timeout kills the sleeper itself
    lines.append('case "$*" in')
    for i, (args, (out, rc)) in enumerate(list(answers.items()) + [("*", default)]):
        f = bin_dir / f".{name}.{i}.out"
        f.write_bytes(out if isinstance(out, bytes) else out.encode())
        pat = "*" if args == "*" else "'" + args + "'"
        lines.append(f"  {pat}) /bin/cat '{f}'; exit {rc};;")
    lines.append("esac")
    p = bin_dir / name
    p.write_text("\n".join(lines) + "\n")
    p.chmod(0o755)
    return p


def smi_ctx(tmp_path: Path, answers, default=("", 0), sleep=0.0, timeout=5.0) -> ProbeContext:
    make_tool(tmp_path / "bin", "nvidia-smi", answers, default, sleep)
    env = {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}
    return ProbeContext(run=Runner(env=env), environ=env, timeout=timeout)


def h200_answers():
    return {QUERY: (H200_QUERY, 0), "": (H200_HEADER, 0)}


def test_h200_from_nvidia_smi(tmp_path):
    facts = driver.probe(smi_ctx(tmp_path, h200_answers()), use_nvml=False)
    assert facts["status"] == "ok"
    assert facts["source"] == "nvidia-smi"
    assert facts["driver_version"] == "580.159.04"
    assert facts["cuda_driver_version"] == "13.0"
    assert facts["gpus"] == [{"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0",
                              "memory_bytes": 150754820096, "uuid": "GPU-6f2b7c0e-2d1a-4c1e-9a51-0c7e3e2b9d11"}]
    json.dumps(facts)


def test_old_470_driver_without_compute_cap_field(tmp_path):
    answers = {QUERY: (T4_470_QUERY_ERR, 2), QUERY_OLD: (T4_470_QUERY_OLD, 0), "": (T4_470_HEADER, 0)}
    facts = driver.probe(smi_ctx(tmp_path, answers), use_nvml=False)
    assert facts["status"] == "ok"
    assert facts["driver_version"] == "470.57.02"
    assert facts["cuda_driver_version"] == "11.4"
    assert facts["gpus"][0]["name"] == "Tesla T4"
    assert facts["gpus"][0]["compute_capability"] == "7.5"  # from the GPU-name table
    assert facts["gpus"][0]["memory_bytes"] == 15109 * 2**20


def test_rtx3090_535(tmp_path):
    facts = driver.probe(smi_ctx(tmp_path, {QUERY: (RTX3090_QUERY, 0), "": (RTX3090_HEADER, 0)}), use_nvml=False)
    assert (facts["driver_version"], facts["cuda_driver_version"]) == ("535.129.03", "12.2")
    assert facts["gpus"][0]["compute_capability"] == "8.6"


def test_header_missing_falls_back_to_release_table(tmp_path):
    facts = driver.probe(smi_ctx(tmp_path, {QUERY: (RTX3090_QUERY, 0), "": ("garbage\n", 0)}), use_nvml=False)
    assert facts["cuda_driver_version"] == "12.2"  # 535.129.03 >= 535.54.03 (12.2 GA), < 545 (12.3)
    assert facts["cuda_driver_version_from"] == "table"


def test_no_nvidia_smi_is_absent_not_error(tmp_path):
    env = {"PATH": str(tmp_path)}
    facts = driver.probe(ProbeContext(run=Runner(env=env), environ=env), use_nvml=False)
    assert facts["status"] == "absent"
    assert facts["gpus"] == []
    findings = evaluate({"driver": facts}, layers=["driver"])
    assert [(f.code, f.severity) for f in findings] == [("no_gpu", "info")]


def test_nvml_on_this_cpu_machine_falls_back(tmp_path):
    """The real nvidia-ml-py on a machine without libnvidia-ml.so: nvmlInit fails, no exception escapes."""
    env = {"PATH": str(tmp_path)}
    facts = driver.probe(ProbeContext(run=Runner(env=env), environ=env))
    if facts["source"] == "nvml":  # a GPU machine
        assert facts["gpus"] and facts["driver_version"]
    else:
        assert facts["status"] == "absent"
        assert "nvml" in facts.get("nvml_error", "").lower() or "pynvml" in facts.get("nvml_error", "")


MISMATCH = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.183\n"
PROC_VERSION = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.08  Tue Mar  5 22:42:15 UTC 2024\n"
                "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n")


def _proc(tmp_path, version_text=None):
    proc = tmp_path / "proc"
    (proc / "driver" / "nvidia").mkdir(parents=True, exist_ok=True)
    if version_text is not None:
        (proc / "driver" / "nvidia" / "version").write_text(version_text)
    return str(proc)


def test_driver_not_loaded_is_broken_not_absent(tmp_path):
    facts = driver.probe(smi_ctx(tmp_path, {}, default=(NO_DRIVER, 9)), use_nvml=False, proc=_proc(tmp_path))
    assert facts["status"] == "broken" and facts["broken_kind"] == "not_loaded"
    assert "couldn't communicate" in facts["message"] and facts["kernel_module_version"] is None
    [f] = evaluate({"driver": facts}, layers=["driver"])
    assert (f.code, f.severity) == ("driver_broken", "error")
    assert "CPU only" not in f.title and "not a CPU-only machine" in f.fix.why
    assert any("modprobe nvidia" in c for c in f.fix.commands) and any("reboot" in c for c in f.fix.commands)


def test_driver_library_version_mismatch_is_broken(tmp_path):
    facts = driver.probe(smi_ctx(tmp_path, {}, default=(MISMATCH, 18)), use_nvml=False,
                         proc=_proc(tmp_path, PROC_VERSION))
    assert facts["status"] == "broken" and facts["broken_kind"] == "version_mismatch"
    assert facts["library_version"] == "535.183" and facts["kernel_module_version"] == "535.161.08"
    [f] = evaluate({"driver": facts}, layers=["driver"])
    assert f.code == "driver_broken" and f.severity == "error" and "different versions" in f.title
    ev = " ".join(f.evidence)
    assert "535.183" in ev and "535.161.08" in ev
    assert any("rmmod nvidia_uvm" in c and "modprobe nvidia" in c for c in f.fix.commands)
    assert any("reboot" in c for c in f.fix.commands)


def test_no_devices_found_stays_absent(tmp_path):
    facts = driver.probe(smi_ctx(tmp_path, {}, default=("No devices were found\n", 6)), use_nvml=False)
    assert facts["status"] == "absent" and "No devices were found" in facts["reason"]


def test_flooding_nvidia_smi_is_stopped_and_did_not_answer(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    tool = bindir / "nvidia-smi"
    tool.write_text("#!/bin/sh\nexec yes 'NVIDIA H200, 580.159.04, 9.0, 143771 MiB, GPU-x'\n")
    tool.chmod(0o755)
    env = {"PATH": f"{bindir}:/usr/bin:/bin"}
    ctx = ProbeContext(run=Runner(env=env, max_output=1 << 20), environ=env, timeout=20.0)
    t0 = time.perf_counter()
    facts = driver.probe(ctx, use_nvml=False)
    assert time.perf_counter() - t0 < 5  # stopped at the byte cap, not at the 20 s timeout
    assert facts["status"] == "unavailable" and facts["did_not_answer"] is True
    assert "did not answer" in facts["reason"] and "output over 1048576 bytes" in facts["reason"]
    [f] = evaluate({"driver": facts}, layers=["driver"])
    assert f.code == "driver_unavailable" and "No NVIDIA GPU" not in f.title


def test_nvml_driver_not_loaded_and_mismatch_are_broken(tmp_path, monkeypatch):
    import sys

    class Err(Exception):
        def __init__(self, value, text):
            super().__init__(text)
            self.value = value

    for value, text, kind in ((9, "Driver Not Loaded", "not_loaded"),
                              (18, "RM has detected an NVML/RM version mismatch.", "version_mismatch")):
        fake = _FakeNVML()
        fake.nvmlInit = lambda v=value, t=text: (_ for _ in ()).throw(Err(v, t))
        monkeypatch.setitem(sys.modules, "pynvml", fake)
        env = {"PATH": str(tmp_path)}  # no nvidia-smi: NVML's own words are used
        facts = driver.probe(ProbeContext(run=Runner(env=env), environ=env), proc=_proc(tmp_path))
        assert facts["status"] == "broken" and facts["broken_kind"] == kind and facts["source"] == "nvml"
        assert [f.code for f in evaluate({"driver": facts}, layers=["driver"])] == ["driver_broken"]


def test_hanging_nvidia_smi_is_cut_by_timeout(tmp_path):
    ctx = smi_ctx(tmp_path, h200_answers(), sleep=600, timeout=1.0)
    t0 = time.perf_counter()
    facts = driver.probe(ctx, use_nvml=False)
    assert time.perf_counter() - t0 < 5
    assert facts["status"] == "unavailable"
    assert "did not answer within 1 s" in facts["reason"]
    findings = evaluate({"driver": facts}, layers=["driver"])
    assert [f.code for f in findings] == ["driver_unavailable"]


@pytest.mark.parametrize("seed", range(6))
def test_fuzzed_outputs_never_raise(tmp_path, seed):
    rnd = random.Random(seed)
    blobs = [b"", b"\xff\xfe\x00garbage\x80", bytes(rnd.randrange(256) for _ in range(300)),
             b"NVIDIA H200, not-a-version, 9.0\n", b",,,,\n,,,,,\n", b"NVIDIA H200, 580.1, x.y, lots, GPU-1\n"]
    out = blobs[seed]
    facts = driver.probe(smi_ctx(tmp_path, {QUERY: (out, rnd.choice([0, 1, 2])), "": (out, 0)}), use_nvml=False)
    assert facts["status"] in ("ok", "absent", "broken", "unavailable")
    json.dumps(facts)
    evaluate({"driver": facts}, layers=["driver"])


def _torch(cuda: str, version: str) -> dict:
    return {"status": "ok", "installed": True, "version": version, "version_base": version.split("+")[0], "cuda": cuda}


def test_rules_h200_driver_580_runs_torch_cu130(tmp_path):
    facts = {"driver": driver.probe(smi_ctx(tmp_path, h200_answers()), use_nvml=False),
             "torch": _torch("13.0", "2.11.0+cu130")}
    findings = evaluate(facts, layers=["driver"])
    codes = {f.code: f for f in findings}
    assert not [f for f in findings if f.severity in ("error", "warning")]
    assert codes["driver_ok"].severity == "ok"
    assert "driver_cuda_version_not_toolkit" in codes


def test_rules_470_driver_too_old_for_cu121(tmp_path):
    answers = {QUERY: (T4_470_QUERY_ERR, 2), QUERY_OLD: (T4_470_QUERY_OLD, 0), "": (T4_470_HEADER, 0)}
    facts = {"driver": driver.probe(smi_ctx(tmp_path, answers), use_nvml=False),
             "torch": _torch("12.1", "2.3.1+cu121")}
    findings = evaluate(facts, layers=["driver"])
    too_old = [f for f in findings if f.code == "driver_too_old"]
    assert len(too_old) == 1 and too_old[0].severity == "error"
    assert "525.60.13" in " ".join(too_old[0].evidence)
    # torch 2.3 has a cu118 variant, which the 470 driver runs (CUDA 11 family >= 450.80.02)
    assert "cu118" in too_old[0].fix.why
    assert any("whl/cu118" in c for c in too_old[0].fix.commands)


def test_rules_535_runs_cu128_via_minor_version_compat(tmp_path):
    facts = {"driver": driver.probe(smi_ctx(tmp_path, {QUERY: (RTX3090_QUERY, 0), "": (RTX3090_HEADER, 0)}),
                                    use_nvml=False),
             "torch": _torch("12.8", "2.8.0+cu128")}
    findings = evaluate(facts, layers=["driver"])
    assert not [f for f in findings if f.severity == "error"]
    assert "driver_below_cuda_minor" in {f.code for f in findings}


def test_probe_is_fast_with_fake_smi(tmp_path):
    t0 = time.perf_counter()
    driver.probe(smi_ctx(tmp_path, h200_answers()), use_nvml=False)
    assert time.perf_counter() - t0 < 2.0
    assert os.path.exists(tmp_path / "bin" / "nvidia-smi")


class _FakeNVML:
    """Stands in for the ``pynvml`` module with the H200's real NVML answers (doctor-facts.md d)."""

    class NVMLError(Exception):
        pass

    def __init__(self, fail_init: bool = False):
        self.fail_init = fail_init
        self.shutdown_called = False

    def nvmlInit(self):
        if self.fail_init:
            raise self.NVMLError("Driver Not Loaded")

    def nvmlShutdown(self):
        self.shutdown_called = True

    def nvmlSystemGetDriverVersion(self):
        return "580.159.04"

    def nvmlSystemGetCudaDriverVersion(self):
        return 13000

    def nvmlDeviceGetCount(self):
        return 1

    def nvmlDeviceGetHandleByIndex(self, i):
        return ("h", i)

    def nvmlDeviceGetName(self, h):
        return b"NVIDIA H200"  # older bindings return bytes

    def nvmlDeviceGetCudaComputeCapability(self, h):
        return (9, 0)

    def nvmlDeviceGetMemoryInfo(self, h):
        return type("Mem", (), {"total": 150754820096})()

    def nvmlDeviceGetUUID(self, h):
        raise self.NVMLError("Not Supported")


def test_nvml_path_with_h200_answers(tmp_path, monkeypatch):
    import sys

    fake = _FakeNVML()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    env = {"PATH": str(tmp_path)}
    facts = driver.probe(ProbeContext(run=Runner(env=env), environ=env))
    assert facts == {"status": "ok", "source": "nvml", "driver_version": "580.159.04", "cuda_driver_version": "13.0",
                     "gpus": [{"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0",
                               "memory_bytes": 150754820096, "uuid": None}]}
    assert fake.shutdown_called
    # NVML present but the driver is not loaded: an installed, broken driver (never "no GPU")
    monkeypatch.setitem(sys.modules, "pynvml", _FakeNVML(fail_init=True))
    facts = driver.probe(ProbeContext(run=Runner(env=env), environ=env))
    assert facts["status"] == "broken" and "Driver Not Loaded" in facts["nvml_error"]


def _nvcc_entry(path, version, via="PATH"):
    return {"path": path, "realpath": path, "paths": [path], "found_via": [via], "version": version}


def test_driver_470_flagged_against_nvcc_121_with_cpu_only_torch(tmp_path):
    answers = {QUERY: (T4_470_QUERY_ERR, 2), QUERY_OLD: (T4_470_QUERY_OLD, 0), "": (T4_470_HEADER, 0)}
    nvcc = "/usr/local/cuda-12.1/bin/nvcc"
    facts = {"driver": driver.probe(smi_ctx(tmp_path, answers), use_nvml=False),
             "torch": {"status": "ok", "installed": True, "version": "2.3.1+cpu", "version_base": "2.3.1",
                       "cuda": None},
             "toolkit": {"status": "ok", "nvccs": [_nvcc_entry(nvcc, "12.1"),
                                                   _nvcc_entry("/usr/local/cuda-11.4/bin/nvcc", "11.4", "/usr/local")],
                         "build_nvcc": nvcc, "build_nvcc_version": "12.1"}}
    found = [f for f in evaluate(facts, layers=["driver"]) if f.code == "driver_too_old_for_toolkit"]
    assert len(found) == 1  # 11.4 runs on 470 (CUDA 11 family >= 450.80.02); 12.1 does not
    f = found[0]
    # (blind audit 36, C-M3) beside a CPU-only torch nothing installed fails by it yet: a warning (CODES.md's preamble)
    assert f.severity == "warning" and "nvcc 12.1" in f.title and "470.57.02" in f.title
    assert any("CPU build" in e for e in f.evidence) and any("525" in e for e in f.evidence)
    facts["torch"] = {**facts["torch"], "version": "2.3.1+cu121", "cuda": "12.1"}
    [f] = [f for f in evaluate(facts, layers=["driver"]) if f.code == "driver_too_old_for_toolkit"]
    assert f.severity == "error"  # a CUDA torch's builds use that nvcc: what they build fails here
    # a reachable nvcc that the build would not use: a warning
    facts["toolkit"]["build_nvcc"] = "/usr/local/cuda-11.4/bin/nvcc"
    [f] = [f for f in evaluate(facts, layers=["driver"]) if f.code == "driver_too_old_for_toolkit"]
    assert f.severity == "warning"


def test_layer_driver_alone_collects_the_toolkit_for_its_rules():
    from smrnb.doctor.probes import expand_layers

    wanted, to_run = expand_layers(["driver"])
    assert wanted == ["driver"] and {"toolkit", "torch"} <= set(to_run)
