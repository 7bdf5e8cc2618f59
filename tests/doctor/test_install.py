# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The kaolin install plan, and the H200 ground truth (doctor-facts.md section d) end to end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from smrnb.doctor._install import arch_list_for, install_plan, matching_nvcc
from smrnb.doctor._model import ProbeContext, Runner
from smrnb.doctor.probes import _driver as driver
from smrnb.doctor.probes import _jupyter as jupyter
from smrnb.doctor.probes import _kaolin as kaolin
from smrnb.doctor.probes import _toolkit as toolkit
from smrnb.doctor.rules import evaluate

from .test_probe_driver import H200_HEADER, H200_QUERY, QUERY
from .test_probe_driver import make_tool as make_smi
from .test_probe_toolkit import make_cuda, make_gcc

PY = "/opt/venv/bin/python"


def torch_facts(version: str, cuda: str | None) -> dict:
    return {"status": "ok", "installed": True, "version": version, "version_base": version.split("+")[0],
            "cuda": cuda}


def nvcc(version: str, path: str, via: list[str], archs: list[int] | None = None) -> dict:
    return {"path": path, "realpath": path, "paths": [path], "found_via": via, "version": version,
            "toolkit_dir": os.path.dirname(os.path.dirname(path)), "has_headers": True,
            "list_gpu_arch": [f"compute_{a}" for a in archs] if archs else None}


GPU_H200 = {"status": "ok", "gpus": [{"name": "NVIDIA H200", "compute_capability": "9.0"}]}


def test_wheel_for_torch_280_cu128_on_python_311():
    plan = install_plan(torch_facts("2.8.0+cu128", "12.8"), GPU_H200, {"ninja": "1.11.1"}, "3.11.7", PY)
    assert plan.kind == "wheel" and plan.kaolin_version == "0.18.0"
    assert plan.command == (f"{PY} -m pip install kaolin==0.18.0 -f "
                            "https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.8.0_cu128.html")
    assert plan.wheel_available is True


def test_older_release_wheel_for_old_torch():
    plan = install_plan(torch_facts("2.0.1+cu118", "11.8"), GPU_H200, {}, "3.10.12", PY)
    assert plan.kind == "wheel" and plan.kaolin_version == "0.17.0"  # newest release with that page
    assert plan.command.endswith("torch-2.0.1_cu118.html")


def test_python_313_has_no_wheel_even_for_a_listed_torch():
    tk = {"nvccs": [nvcc("12.8", "/usr/local/cuda-12.8/bin/nvcc", ["/usr/local/cuda-12.8"])], "ninja": "1.11.1"}
    plan = install_plan(torch_facts("2.8.0+cu128", "12.8"), GPU_H200, tk, "3.13.1", PY)
    assert plan.kind == "source"
    assert any("not for Python 3.13.1" in n for n in plan.notes)
    assert "export CUDA_HOME=/usr/local/cuda-12.8" in plan.command.splitlines()
    assert "IGNORE_TORCH_VER" not in plan.command  # 2.8.0 is inside 0.18.0's range


def test_source_build_details():
    tk = {"nvccs": [nvcc("12.1", "/usr/local/cuda-12.1/bin/nvcc", ["PATH"], [50, 60, 70, 75, 80, 86, 89, 90]),
                    nvcc("12.4", "/opt/cuda-12.4/bin/nvcc", ["CUDA_HOME"], [50, 60, 70, 75, 80, 86, 89, 90])],
          "gcc": {"version": "14.2.0", "major": 14}, "ninja": None}
    drv = {"status": "ok", "gpus": [{"name": "NVIDIA GeForce RTX 3090", "compute_capability": "8.6"},
                                    {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}]}
    plan = install_plan(torch_facts("2.6.0+cu124", "12.4"), drv, tk, "3.13.1", PY)  # no cp313 wheels
    lines = plan.command.splitlines()
    assert plan.kind == "source" and plan.wheel_available is False
    assert "export CUDA_HOME=/opt/cuda-12.4" in lines
    assert 'export TORCH_CUDA_ARCH_LIST="8.6"' in lines  # 12.0 is beyond nvcc 12.4
    assert any("cannot compile for compute capability 12.0" in n for n in plan.notes)
    assert "export CC=gcc-13 CXX=g++-13 CUDAHOSTCXX=g++-13" in lines  # nvcc 12.4 accepts gcc <= 13
    assert f"{PY} -m pip install ninja" in lines
    assert lines.index("rm -rf build/ *.egg-info") < lines.index(f"{PY} -m pip install --no-build-isolation .")


def test_no_matching_nvcc_suggests_conda_nvcc():
    tk = {"nvccs": [nvcc("11.8", "/usr/local/cuda-11.8/bin/nvcc", ["PATH"])], "ninja": "1.11.1"}
    plan = install_plan(torch_facts("2.9.0+cu128", "12.8"), GPU_H200, tk, "3.11.7", PY)
    assert "conda install -c nvidia cuda-nvcc=12.8 cuda-cudart-dev=12.8" in plan.command
    assert "export IGNORE_TORCH_VER=1" in plan.command.splitlines()


def test_cpu_torch_and_no_torch():
    plan = install_plan(torch_facts("2.13.0+cpu", None), {"status": "absent", "gpus": []}, {"ninja": "1"}, "3.11.7", PY)
    assert plan.kind == "source" and plan.wheel_page is None
    assert "CUDA_HOME" not in plan.command and "CPU-only" in plan.notes[0]
    none = install_plan({"installed": False}, None, None, "3.11.7", PY)
    assert none.kind == "none" and "install torch first" in none.command


def test_helpers():
    n13 = nvcc("13.0", "/usr/local/cuda/bin/nvcc", ["CUDA_HOME"], [75, 80, 86, 87, 88, 89, 90, 100, 110, 103, 120, 121])
    assert arch_list_for(["9.0"], n13) == (["9.0"], [])
    assert arch_list_for(["7.0", "9.0"], n13) == (["9.0"], ["7.0"])
    assert matching_nvcc({"nvccs": [n13]}, "13.0") is n13
    assert matching_nvcc({"nvccs": [n13]}, "12.8") is None


@pytest.fixture
def h200(tmp_path):
    """The H200 machine of doctor-facts.md (d): nvidia-smi 580.159.04 / CUDA 13.0, /usr/local/cuda ->
    /etc/alternatives/cuda -> cuda-13.0 (nvcc 13.0.88), CUDA_HOME=/usr/local/cuda, gcc 13.3.0,
    ninja 1.13.2, cmake 4.4.3, Python 3.12.3, torch 2.11.0+cu130 with sm_75..sm_120, no kaolin."""
    root = tmp_path / "usr_local"
    alt = tmp_path / "etc_alternatives"
    root.mkdir()
    alt.mkdir()
    make_cuda(root, "13.0")
    os.symlink(root / "cuda-13.0", alt / "cuda")
    os.symlink(alt / "cuda", root / "cuda")
    os.symlink(alt / "cuda", root / "cuda-13")
    bin_dir = tmp_path / "bin"
    make_smi(bin_dir, "nvidia-smi", {QUERY: (H200_QUERY, 0), "": (H200_HEADER, 0)})
    make_gcc(bin_dir, "13.3.0")
    make_smi(bin_dir, "ninja", {"--version": ("1.13.2\n", 0)})
    make_smi(bin_dir, "cmake", {"--version": ("cmake version 4.4.3\n\nCMake suite maintained and supported by "
                                              "Kitware (kitware.com/cmake).\n", 0)})
    py = bin_dir / "python3.12"
    py.write_text("#!/bin/sh\necho 3.12.3\n")
    py.chmod(0o755)
    env = {"PATH": f"{root / 'cuda' / 'bin'}:{bin_dir}:/usr/bin:/bin", "CUDA_HOME": str(root / "cuda"),
           "LD_LIBRARY_PATH": "/usr/local/nvidia/lib64:/usr/local/nvidia/lib", "HOME": str(tmp_path)}
    ctx = ProbeContext(run=Runner(env=env), environ=env, python=str(py), timeout=5.0)
    ctx.facts["driver"] = driver.probe(ctx, use_nvml=False)
    ctx.facts["torch"] = {"status": "ok", "installed": True, "version": "2.11.0+cu130", "version_base": "2.11.0",
                          "cuda": "13.0", "cxx11_abi": True, "imported": False,
                          "arch_list": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"],
                          "cuda_available": True, "cuda_runtime_libs": []}
    ctx.facts["toolkit"] = toolkit.probe(ctx, root=str(root))
    ctx.facts["kaolin"] = kaolin.probe(ctx, site_dirs=[str(tmp_path / "empty_site")])
    ctx.facts["jupyter"] = jupyter.probe(ctx, prefix=str(tmp_path / "prefix"), runtime_dir=str(tmp_path / "rt"),
                                        site_dirs=[str(tmp_path / "empty_site")])
    return ctx, root


def test_h200_ground_truth_is_reported_truthfully(h200):
    ctx, root = h200
    facts = ctx.facts
    assert facts["driver"]["driver_version"] == "580.159.04" and facts["driver"]["cuda_driver_version"] == "13.0"
    tk = facts["toolkit"]
    assert tk["build_cuda_home"] == str(root / "cuda") and tk["build_nvcc_version"] == "13.0"
    assert [n["version"] for n in tk["nvccs"]] == ["13.0"]  # three paths, one toolkit
    assert tk["gcc"]["version"] == "13.3.0" and tk["max_gcc_for_build_nvcc"] == 15
    assert (tk["ninja"], tk["cmake"]) == ("1.13.2", "4.4.3")
    findings = evaluate(facts, layers=["driver", "torch", "toolkit", "kaolin", "jupyter"])
    codes = {f.code for f in findings}
    bad = [(f.code, f.title) for f in findings if f.severity in ("error", "warning")
           and f.code != "kaolin_no_wheel_for_combo"]
    assert bad == []  # no false alarm: driver 580 runs cu130, CC 9.0 is in the arch list, nvcc 13.0 = torch 13.0
    assert {"driver_ok", "torch_gpu_arch_ok", "toolkit_ok", "kaolin_not_installed",
            "kaolin_no_wheel_for_combo", "torch_not_found_at_build"} <= codes
    k = facts["kaolin"]
    assert k["wheel_available"] is False
    assert k["wheel_page"] == "https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.11.0_cu130.html"
    lines = k["install_command"].splitlines()
    assert f"export CUDA_HOME={root / 'cuda'}" in lines
    assert 'export TORCH_CUDA_ARCH_LIST="9.0"' in lines
    assert "export IGNORE_TORCH_VER=1" in lines  # 2.11.0 > 0.18.0's 2.8.0
    assert f"{ctx.python} -m pip install --no-build-isolation ." in lines
    assert "rm -rf build/ *.egg-info" in lines
    assert not any("ninja" in ln and "install" in ln for ln in lines)  # ninja is there
    assert not any(ln.startswith("export CC=") for ln in lines)  # gcc 13.3 <= 15


def test_h200_with_kaolin_built_from_source(h200, tmp_path):
    """The H200 as read off (section d): kaolin 0.18.0 built from source against torch 2.11.0+cu130
    (IGNORE_TORCH_VER), importing in 10.8 s. No error or warning may appear in these layers."""
    ctx, _root = h200
    site = tmp_path / "site"
    pkg = site / "kaolin"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
    (pkg / "_C.cpython-312-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    di = site / "kaolin-0.18.0.dist-info"
    di.mkdir()
    (di / "METADATA").write_text("Metadata-Version: 2.1\nName: kaolin\nVersion: 0.18.0\n")
    (di / "direct_url.json").write_text('{"url": "file:///root/kaolin", "dir_info": {}}')
    py = Path(ctx.python)
    py.write_text('#!/bin/sh\ncase "$2" in *kaolin*) echo \'{"version": "0.18.0", "seconds": 10.8}\';; '
                  '*) echo 3.12.3;; esac\n')
    ctx.import_check = True
    ctx.facts["kaolin"] = kaolin.probe(ctx, site_dirs=[str(site)])
    k = ctx.facts["kaolin"]
    assert k["installed"] and k["version"] == "0.18.0" and k["install_kind"] == "direct-url"
    assert k["import_check"] == {"ok": True, "seconds": 10.8, "error": None}
    findings = evaluate(ctx.facts, layers=["driver", "torch", "toolkit", "kaolin"])
    assert [(f.code, f.title) for f in findings if f.severity in ("error", "warning")] == []
    assert "kaolin_ok" in {f.code for f in findings}
