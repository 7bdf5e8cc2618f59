# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Toolkit probe and rules on fake CUDA trees (symlinks, several versions) and the real nvcc 13.0 here."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from smrnb.doctor._model import ProbeContext, Runner
from smrnb.doctor.probes import _toolkit as toolkit
from smrnb.doctor.rules import evaluate
from smrnb.doctor.rules._toolkit import parse_arch_list

NVCC_VERSION = {
    "11.8": """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2022 NVIDIA Corporation
Built on Wed_Sep_21_10:33:58_PDT_2022
Cuda compilation tools, release 11.8, V11.8.89
Build cuda_11.8.r11.8/compiler.31833905_0
""",
    "12.1": """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2023 NVIDIA Corporation
Built on Mon_Apr__3_17:16:06_PDT_2023
Cuda compilation tools, release 12.1, V12.1.105
Build cuda_12.1.r12.1/compiler.32688072_0
""",
    "12.8": """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Fri_Feb_21_20:23:50_PST_2025
Cuda compilation tools, release 12.8, V12.8.93
Build cuda_12.8.r12.8/compiler.35583870_0
""",
    "13.0": """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Wed_Aug_20_01:58:59_PM_PDT_2025
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0
""",
}
LIST_GPU_ARCH = {
    "11.8": "35 37 50 52 53 60 61 62 70 72 75 80 86 87 89 90",
    "12.1": "50 52 53 60 61 62 70 72 75 80 86 87 89 90",
    "12.8": "50 52 53 60 61 62 70 72 75 80 86 87 89 90 100 101 120",
    "13.0": "75 80 86 87 88 89 90 100 110 103 120 121",
}


def make_tool(bin_dir: Path, name: str, answers: dict[str, tuple[str | bytes, int]],
              default: tuple[str | bytes, int] = ("", 1)) -> Path:
    bin_dir.mkdir(parents=True, exist_ok=True)
    lines = ["#!/bin/sh", 'case "$*" in']
    for i, (args, (out, rc)) in enumerate(list(answers.items()) + [("*", default)]):
        f = bin_dir / f".{name}.{i}.out"
        f.write_bytes(out if isinstance(out, bytes) else out.encode())
        lines.append(f"  {'*' if args == '*' else repr(args)}) /bin/cat '{f}'; exit {rc};;")
    lines.append("esac")
    p = bin_dir / name
    p.write_text("\n".join(lines) + "\n")
    p.chmod(0o755)
    return p


def make_cuda(root: Path, version: str, headers: bool = True, dirname: str | None = None) -> Path:
    """A fake toolkit tree ``root/cuda-<version>`` with bin/nvcc printing that version's real texts."""
    d = root / (dirname or f"cuda-{version}")
    archs = "\n".join(f"compute_{a}" for a in LIST_GPU_ARCH[version].split()) + "\n"
    make_tool(d / "bin", "nvcc", {"--version": (NVCC_VERSION[version], 0), "--list-gpu-arch": (archs, 0)})
    if headers:
        (d / "include").mkdir(exist_ok=True)
        (d / "include" / "cuda_runtime.h").write_text("/* fake */\n")
    return d


def make_gcc(bin_dir: Path, version: str) -> None:
    for name in ("gcc", "g++"):
        make_tool(bin_dir, name, {"-dumpfullversion": (version + "\n", 0), "-dumpversion": (version.split(".")[0] + "\n", 0)})


def ctx_for(env: dict[str, str]) -> ProbeContext:
    return ProbeContext(run=Runner(env=env), environ=env, timeout=5.0)


@pytest.fixture
def two_toolkits(tmp_path):
    """/usr/local-style root: cuda-12.1, cuda-13.0, cuda -> cuda-12.1; gcc 13 on PATH."""
    root = tmp_path / "usr_local"
    root.mkdir()
    make_cuda(root, "12.1")
    make_cuda(root, "13.0")
    os.symlink("cuda-12.1", root / "cuda")
    bin_dir = tmp_path / "bin"
    make_gcc(bin_dir, "13.3.0")
    return root, bin_dir


def test_symlinked_trees_are_deduplicated(two_toolkits):
    root, bin_dir = two_toolkits
    env = {"PATH": f"{root / 'cuda' / 'bin'}:{bin_dir}"}
    facts = toolkit.probe(ctx_for(env), root=str(root))
    by_real = {n["realpath"]: n for n in facts["nvccs"]}
    assert sorted(by_real) == [str(root / "cuda-12.1/bin/nvcc"), str(root / "cuda-13.0/bin/nvcc")]
    n121 = by_real[str(root / "cuda-12.1/bin/nvcc")]
    assert n121["version"] == "12.1" and n121["version_full"] == "12.1.105"
    assert set(n121["found_via"]) == {"PATH", str(root / "cuda"), str(root / "cuda-12.1")}
    assert n121["list_gpu_arch"][0] == "compute_50" and "compute_90" in n121["list_gpu_arch"]
    # cpp_extension: no CUDA_HOME -> which nvcc -> <root>/cuda
    assert facts["build_cuda_home"] == str(root / "cuda")
    assert facts["build_nvcc_version"] == "12.1"
    assert facts["gcc"] == {"path": str(bin_dir / "gcc"), "version": "13.3.0", "major": 13}
    assert facts["max_gcc_for_build_nvcc"] == 12
    json.dumps(facts)


def test_rules_two_toolkits_with_torch_cu130(two_toolkits):
    root, bin_dir = two_toolkits
    env = {"PATH": f"{root / 'cuda' / 'bin'}:{bin_dir}"}
    facts = {"toolkit": toolkit.probe(ctx_for(env), root=str(root)),
             "torch": {"status": "ok", "installed": True, "version": "2.11.0+cu130", "version_base": "2.11.0",
                       "cuda": "13.0"},
             "driver": {"status": "ok", "gpus": [{"name": "NVIDIA H200", "compute_capability": "9.0"}]}}
    found = {f.code: f for f in evaluate(facts, layers=["toolkit"])}
    assert found["multiple_cuda_toolkits"].severity == "warning"
    mm = found["nvcc_torch_cuda_mismatch"]
    assert mm.severity == "error"  # 12.1 vs 13.0: major
    assert any(f"export CUDA_HOME={root / 'cuda-13.0'}" in c for c in mm.fix.commands)
    assert found["host_compiler_unsupported"].severity == "error"  # gcc 13 > 12 for nvcc 12.1
    assert "unsupported_gpu_arch" not in found  # 12.1 compiles compute_90


def test_cuda_home_wins_and_minor_mismatch_is_a_warning(two_toolkits):
    root, bin_dir = two_toolkits
    env = {"PATH": f"{bin_dir}", "CUDA_HOME": str(root / "cuda-12.1")}
    facts = {"toolkit": toolkit.probe(ctx_for(env), root=str(root)),
             "torch": {"status": "ok", "installed": True, "version": "2.5.1+cu124", "version_base": "2.5.1",
                       "cuda": "12.4"}}
    assert facts["toolkit"]["build_cuda_home"] == str(root / "cuda-12.1")
    assert "CUDA_HOME" in facts["toolkit"]["nvccs"][0]["found_via"]
    found = {f.code: f for f in evaluate(facts, layers=["toolkit"])}
    assert found["nvcc_torch_cuda_mismatch"].severity == "warning"


@pytest.mark.parametrize("value,why", [
    (":/usr/local/cuda:/usr/local/cuda-10.1/bin/nvcc", "contains ':'"),
    ("/usr/local/cuda-12.1/bin/nvcc", "points to the nvcc executable"),
])
def test_malformed_cuda_home(two_toolkits, value, why):
    root, bin_dir = two_toolkits
    value = value.replace("/usr/local", str(root))
    env = {"PATH": str(bin_dir), "CUDA_HOME": value}
    facts = {"toolkit": toolkit.probe(ctx_for(env), root=str(root)),
             "torch": {"status": "ok", "installed": True, "version": "2.3.1+cu121", "version_base": "2.3.1",
                       "cuda": "12.1"}}
    tk = facts["toolkit"]
    assert tk["cuda_home_malformed"] and why in tk["cuda_home_malformed_why"]
    assert tk["build_cuda_home"] == value and tk["build_nvcc"] is None  # torch takes it verbatim
    found = {f.code: f for f in evaluate(facts, layers=["toolkit"])}
    assert found["cuda_home_malformed"].severity == "error"
    homes = [line.split("=", 1)[1] for c in found["cuda_home_malformed"].fix.commands for line in c.splitlines()
             if line.startswith("export CUDA_HOME=")]
    assert homes and all(os.path.realpath(h) == str(root / "cuda-12.1") for h in homes)


def test_no_toolkit_at_all_and_conda_fix(tmp_path):
    bin_dir = tmp_path / "bin"
    make_gcc(bin_dir, "12.2.0")
    env = {"PATH": str(bin_dir), "CONDA_PREFIX": str(tmp_path / "conda_env"), "CONDA_DEFAULT_ENV": "lab"}
    facts = {"toolkit": toolkit.probe(ctx_for(env), root=str(tmp_path / "nothing")),
             "torch": {"status": "ok", "installed": True, "version": "2.8.0+cu128", "version_base": "2.8.0",
                       "cuda": "12.8"},
             "context": {"status": "ok", "conda_env": str(tmp_path / "conda_env"), "conda_env_name": "lab"}}
    assert facts["toolkit"]["nvccs"] == [] and facts["toolkit"]["build_cuda_home"] is None
    found = {f.code: f for f in evaluate(facts, layers=["toolkit"])}
    missing = found["cuda_home_missing"]
    assert missing.fix.commands[0] == "conda install -c nvidia cuda-nvcc=12.8 cuda-cudart-dev=12.8"
    assert found["ninja_missing"].severity == "warning"


def test_conda_nvcc_is_found(tmp_path):
    conda = make_cuda(tmp_path, "12.8", dirname="conda_env")
    env = {"PATH": "/nonexistent", "CONDA_PREFIX": str(conda)}
    facts = toolkit.probe(ctx_for(env), root=str(tmp_path / "none"))
    assert [n["found_via"] for n in facts["nvccs"]] == [["conda"]]
    assert facts["nvccs"][0]["version"] == "12.8"


def test_gpu_newer_than_nvcc_and_arch_list_env(two_toolkits):
    root, bin_dir = two_toolkits
    env = {"PATH": str(bin_dir), "CUDA_HOME": str(root / "cuda-12.1"), "TORCH_CUDA_ARCH_LIST": "8.6;12.0+PTX"}
    facts = {"toolkit": toolkit.probe(ctx_for(env), root=str(root)),
             "torch": {"status": "ok", "installed": True, "version": "2.3.1+cu121", "version_base": "2.3.1",
                       "cuda": "12.1"},
             "driver": {"status": "ok", "gpus": [{"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}]}}
    found = [f for f in evaluate(facts, layers=["toolkit"]) if f.code == "unsupported_gpu_arch"]
    titles = " | ".join(f.title for f in found)
    assert "cannot compile for NVIDIA GeForce RTX 5090 (compute 12.0)" in titles
    assert "TORCH_CUDA_ARCH_LIST names 12.0" in titles
    assert "names 8.6" not in titles


def test_volta_on_cuda13_is_unsupported(tmp_path):
    root = tmp_path / "r"
    make_cuda(root, "13.0")
    env = {"PATH": "/nonexistent", "CUDA_HOME": str(root / "cuda-13.0")}
    facts = {"toolkit": toolkit.probe(ctx_for(env), root=str(root)),
             "torch": {"status": "ok", "installed": True, "version": "2.9.0+cu130", "version_base": "2.9.0",
                       "cuda": "13.0"},
             "driver": {"status": "ok", "gpus": [{"name": "Tesla V100-SXM2-16GB", "compute_capability": "7.0"}]}}
    f = [f for f in evaluate(facts, layers=["toolkit"]) if f.code == "unsupported_gpu_arch"]
    assert len(f) == 1 and "older than the toolkit" in f[0].fix.why


def test_parse_arch_list_names_and_suffixes():
    assert parse_arch_list("Ampere;9.0a 10.0+PTX") == ["8.0", "8.6", "9.0", "10.0"]
    assert parse_arch_list("Hopper") == ["9.0"]
    assert parse_arch_list("sm_bogus") == ["sm_bogus"]


def test_fuzzed_nvcc_and_gcc_outputs_never_raise(tmp_path):
    root = tmp_path / "r"
    for i, blob in enumerate([b"", b"\xff\xfe\x80\x00", b"release ,V\n" * 50, b"compute_ compute_x\n"]):
        d = root / f"cuda-9.{i}"
        make_tool(d / "bin", "nvcc", {}, default=(blob, 0))
    bin_dir = tmp_path / "bin"
    make_tool(bin_dir, "gcc", {}, default=(b"\xff\xfe", 0))
    make_tool(bin_dir, "ninja", {}, default=(b"", 0))
    make_tool(bin_dir, "cmake", {}, default=(b"cmake version", 0))
    env = {"PATH": str(bin_dir), "CUDA_HOME": ""}
    facts = toolkit.probe(ctx_for(env), root=str(root))
    assert len(facts["nvccs"]) == 4 and all(n["version"] is None for n in facts["nvccs"])
    assert facts["gcc"]["version"] is None and facts["ninja"] is None and facts["cmake"] is None
    json.dumps(facts)
    evaluate({"toolkit": facts}, layers=["toolkit"])


@pytest.mark.skipif(not shutil.which("nvcc"), reason="no nvcc on this machine")
def test_the_real_nvcc_of_this_machine():
    """This machine: /usr/local/bin/nvcc is a wrapper script for /usr/local/cuda-13.0/bin/nvcc, and
    /usr/local/cuda -> /usr/local/cuda-13.0. Without CUDA_HOME torch derives CUDA_HOME=/usr/local from
    the wrapper, where include/cuda_runtime.h is missing: the doctor says so and names the real tree."""
    env = {"PATH": os.environ["PATH"]}
    facts = toolkit.probe(ctx_for(env))
    versions = {n["path"]: n["version"] for n in facts["nvccs"]}
    assert set(versions.values()) == {"13.0"}
    real = [n for n in facts["nvccs"] if n["realpath"].endswith("cuda-13.0/bin/nvcc")]
    assert real and real[0]["list_gpu_arch"][:3] == ["compute_75", "compute_80", "compute_86"]
    if shutil.which("nvcc") == "/usr/local/bin/nvcc" and not os.path.exists("/usr/local/include/cuda_runtime.h"):
        assert facts["build_cuda_home"] == "/usr/local"
        assert facts["build_cuda_home_has_headers"] is False
        torch = {"status": "ok", "installed": True, "version": "2.11.0+cu130", "version_base": "2.11.0", "cuda": "13.0"}
        found = {f.code: f for f in evaluate({"toolkit": facts, "torch": torch}, layers=["toolkit"])}
        assert found["cuda_home_incomplete"].severity == "warning"
        assert any("export CUDA_HOME=/usr/local/cuda" in c for c in found["cuda_home_incomplete"].fix.commands)
        assert found["toolkit_ok"].severity == "ok"  # the wrapper's nvcc is 13.0 all the same


@pytest.mark.slow
def test_build_cuda_home_mirrors_torch_find_cuda_home(two_toolkits, monkeypatch):
    """Parity with the real torch.utils.cpp_extension._find_cuda_home for each way it decides."""
    cpp_extension = pytest.importorskip("torch.utils.cpp_extension")
    root, bin_dir = two_toolkits
    cases = [
        {"PATH": str(bin_dir), "CUDA_HOME": str(root / "cuda-13.0")},
        {"PATH": str(bin_dir), "CUDA_PATH": str(root / "cuda-12.1")},
        {"PATH": f"{root / 'cuda-13.0' / 'bin'}:{bin_dir}"},
        {"PATH": str(bin_dir), "CUDA_HOME": ":/x:/y/bin/nvcc"},
    ]
    for env in cases:
        for k in ("CUDA_HOME", "CUDA_PATH"):
            monkeypatch.delenv(k, raising=False)
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        assert toolkit.find_cuda_home(ctx_for(env), root=str(root)) == cpp_extension._find_cuda_home(), env


def test_hanging_nvcc_is_cut_by_timeout(tmp_path):
    import time

    d = tmp_path / "cuda-12.1" / "bin"
    d.mkdir(parents=True)
    (d / "nvcc").write_text("#!/bin/sh\nexec /bin/sleep 600\n")
    (d / "nvcc").chmod(0o755)
    env = {"PATH": "/nonexistent", "CUDA_HOME": str(tmp_path / "cuda-12.1")}
    c = ProbeContext(run=Runner(env=env), environ=env, timeout=1.0)
    t0 = time.perf_counter()
    facts = toolkit.probe(c, root=str(tmp_path))
    assert time.perf_counter() - t0 < 5
    assert facts["nvccs"][0]["version"] is None and "timeout" in facts["nvccs"][0]["error"]


CPU_TORCH = {"status": "ok", "installed": True, "version": "2.13.0+cpu", "version_base": "2.13.0", "cuda": None}


@pytest.mark.parametrize("kind", ["missing", "file", "relative"])
def test_cuda_home_that_cannot_be_a_toolkit_is_reported_with_a_cpu_torch(tmp_path, kind, monkeypatch):
    monkeypatch.chdir(tmp_path)
    value = {"missing": str(tmp_path / "no-such-cuda"), "file": str(tmp_path / "cuda.txt"),
             "relative": "cuda-13.0"}[kind]
    (tmp_path / "cuda.txt").write_text("not a directory\n")
    make_cuda(tmp_path, "13.0")  # a real-looking tree at ./cuda-13.0: the relative value resolves here only
    env = {"PATH": "/usr/bin:/bin", "CUDA_HOME": value}
    facts = toolkit.probe(ProbeContext(run=Runner(env=env), environ=env), root=str(tmp_path / "none"))
    assert facts["cuda_home_malformed"] and facts["cuda_home_malformed_var"] == "CUDA_HOME"
    words = {"missing": "does not exist", "file": "is a file", "relative": "is a relative path"}[kind]
    assert words in facts["cuda_home_malformed_why"]
    found = [f for f in evaluate({"toolkit": facts, "torch": CPU_TORCH}, layers=["toolkit"])
             if f.code == "cuda_home_malformed"]
    assert len(found) == 1 and found[0].severity == "warning" and words.split(" (")[0] in found[0].title
    assert any("CPU build" in e for e in found[0].evidence)
    cuda_torch = dict(CPU_TORCH, cuda="13.0", version="2.13.0+cu130")
    [f] = [f for f in evaluate({"toolkit": facts, "torch": cuda_torch}, layers=["toolkit"])
           if f.code in ("cuda_home_malformed", "cuda_home_missing")]
    assert (f.code, f.severity) == ("cuda_home_malformed", "error")  # one finding, not two


def test_a_hung_tool_did_not_answer_and_is_not_missing(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name in ("ninja", "gcc"):
        (bindir / name).write_text("#!/bin/sh\nexec sleep 600\n")
        (bindir / name).chmod(0o755)
    env = {"PATH": f"{bindir}:/bin"}
    facts = toolkit.probe(ProbeContext(run=Runner(env=env), environ=env, timeout=0.5), root=str(tmp_path / "none"))
    assert set(facts["did_not_answer"]) == {"ninja", "gcc"}
    assert "did not answer within 0.5 s" in facts["did_not_answer"]["ninja"]
    codes = {f.code: f for f in evaluate({"toolkit": facts, "torch": CPU_TORCH}, layers=["toolkit"])}
    assert "ninja_missing" not in codes
    assert codes["tool_did_not_answer"].severity == "warning" and "ninja" in codes["tool_did_not_answer"].title
