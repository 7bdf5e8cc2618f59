# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The doctor's data tables: every row sourced, loaders answer the known cases, a release is one line."""

from __future__ import annotations

import json
import shutil

import pytest

from smrnb.doctor import tables


@pytest.mark.parametrize("name", ["cuda_driver", "cuda_family", "nvcc_archs", "nvcc_gcc", "gpu_cc", "torch_cuda",
                                  "pythreejs_labext", "extension_minimums", "torch_wheel_archs",
                                  "loader_translations", "compiled_modules"])
def test_every_csv_row_has_verified_and_source(name):
    rows = tables.rows(name)
    assert rows
    for r in rows:
        assert r["verified"] in ("yes", "no", "partial"), r
        assert r["source"].strip(), r


def test_kaolin_json_rows_are_sourced_and_consistent():
    for r in tables.kaolin_releases():
        assert r.verified in ("yes", "no", "partial") and r.source
        for w in r.wheels:
            torch, cu = w.split("_cu")
            assert tables.parse_version(torch) and cu.isdigit(), w
            assert r.torch_in_range(torch), (r.version, w)  # a wheel exists only inside the setup gate
    assert [r.version for r in tables.kaolin_releases()][:2] == ["0.18.0", "0.17.0"]


def test_parse_version():
    assert tables.parse_version("580.159.04") == (580, 159, 4)
    assert tables.parse_version("2.11.0+cu130") == (2, 11, 0)
    assert tables.parse_version("v13.0") == (13, 0)
    assert tables.parse_version("garbage") is None and tables.parse_version(None) is None


def test_driver_tables():
    assert tables.min_driver_for_cuda("13.0").min_driver == "580.65.06"
    assert tables.min_driver_for_cuda("12.8.93").min_driver == "570.26"
    assert tables.min_driver_for_cuda("12.7") is None  # there was no CUDA 12.7
    assert tables.family_min_driver("13.0") == "580"
    assert tables.family_min_driver("12.1") == "525.60.13"
    assert tables.family_min_driver(11) == "450.80.02"
    assert tables.family_min_driver("10.2") is None
    assert tables.newest_cuda_for_driver("580.159.04") == "13.0"  # the H200
    assert tables.newest_cuda_for_driver("535.129.03") == "12.2"
    assert tables.newest_cuda_for_driver("470.57.02") == "11.4"
    assert tables.newest_cuda_for_driver("570.26") == "12.8"
    # (round 32h) the release notes' Table 3 rows of CUDA 7.0-9.2 are in the table: 390.1 runs CUDA 9.0 (>= 384.81,
    # < 9.1's 390.46); a driver below CUDA 7.0's 346.46 is not known
    assert tables.newest_cuda_for_driver("390.1") == "9.0"
    assert tables.newest_cuda_for_driver("340.108") is None
    releases = tables.cuda_releases()
    assert releases[0].cuda == "13.2"
    assert all(tables.version_key(a.cuda) >= tables.version_key(b.cuda) for a, b in zip(releases, releases[1:]))


def test_nvcc_tables():
    assert tables.nvcc_archs("13.0") == (75, 80, 86, 87, 88, 89, 90, 100, 110, 103, 120, 121)
    assert 70 not in tables.nvcc_archs("13.1")  # Volta gone in 13.x
    assert tables.nvcc_archs("12.1") == tables.nvcc_archs("12.0")
    assert 120 in tables.nvcc_archs("12.8") and 120 not in tables.nvcc_archs("12.6")
    assert 86 in tables.nvcc_archs("11.1") and 86 not in tables.nvcc_archs("11.0")
    assert tables.nvcc_archs("9.2") is None
    assert [tables.max_gcc_for_nvcc(v) for v in ("11.8", "12.1", "12.4", "12.6", "12.8", "12.9", "13.0", "13.2")] == \
        [11, 12, 13, 13, 14, 14, 15, 15]
    assert tables.max_gcc_for_nvcc("14.0") is None  # a future major: unknown, not guessed


def test_gpu_and_torch_and_pythreejs_tables():
    for name, cc in [("NVIDIA H200", "9.0"), ("NVIDIA H100 80GB HBM3", "9.0"), ("NVIDIA GeForce RTX 3090", "8.6"),
                     ("NVIDIA A100-SXM4-80GB", "8.0"), ("Tesla T4", "7.5"), ("Tesla V100-SXM2-16GB", "7.0"),
                     ("NVIDIA GeForce RTX 5090", "12.0"), ("NVIDIA L40S", "8.9"), ("NVIDIA A10G", "8.6"),
                     ("NVIDIA GeForce GTX 1080 Ti", "6.1"), ("NVIDIA GeForce GTX 970", "5.2")]:
        assert tables.compute_capability_for_gpu(name) == cc, name
    assert tables.compute_capability_for_gpu("Matrox G200") is None
    tv = tables.torch_cuda_variants("2.8.0+cu128")
    assert tv.variants == ("cu126", "cu128", "cu129") and tv.pypi_default == "cu128"
    assert tables.torch_cuda_variants("1.4.0") is None
    assert tables.threejs_labext_for_pythreejs("2.4.2") == "2.4.1"


def test_kaolin_lookup():
    r = tables.kaolin_release("0.18.0")
    assert r.supports_python("3.12.3") and not r.supports_python("3.13.0")
    assert r.has_wheel("2.8.0", "12.8") and not r.has_wheel("2.11.0", "13.0") and not r.has_wheel("2.8.0", None)
    assert not r.torch_in_range("2.11.0") and r.torch_in_range("2.8.0")
    assert tables.kaolin_wheel_page("2.11.0", "13.0") == \
        "https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.11.0_cu130.html"


def test_a_new_cuda_release_is_one_line(tmp_path, monkeypatch):
    copy = tmp_path / "tables"
    shutil.copytree(tables._read.HERE, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    with open(copy / "cuda_driver.csv", "a") as fh:
        fh.write("13.3,CUDA 13.3 GA,600.10.01,no,test row\n")
    monkeypatch.setattr(tables._read, "HERE", copy)
    tables.clear_caches()
    try:
        assert tables.min_driver_for_cuda("13.3").min_driver == "600.10.01"
        assert tables.newest_cuda_for_driver("600.20") == "13.3"
        assert tables.newest_cuda_for_driver("595.71.05") == "13.2"
        assert tables.family_min_driver("13.3") == "580"  # the family rule covers it unchanged
        assert tables.nvcc_archs("13.3") == tables.nvcc_archs("13.0")
    finally:
        monkeypatch.undo()
        tables.clear_caches()
    assert tables.min_driver_for_cuda("13.3") is None


def test_loaded_tables_are_json_able():
    json.dumps([r.__dict__ for r in tables.cuda_releases()])
    json.dumps([{**r.__dict__, "wheels": list(r.wheels)} for r in tables.kaolin_releases()])


# ids are prefixed: a test keyword that is exactly "kaolin" is skipped by conftest's kaolin marker logic
@pytest.mark.parametrize("layer", ["driver", "torch", "toolkit", "kaolin", "jupyter", "context"],
                         ids=lambda layer: f"rules_{layer}")
def test_every_emitted_code_is_documented(layer):
    """Each ``Finding("<code>", ...)`` in a rules module is in that module's CODES (the explain
    feature and the docs use the same vocabulary)."""
    import importlib
    import inspect
    import re

    mod = importlib.import_module(f"smrnb.doctor.rules._{layer}")
    emitted = set(re.findall(r'Finding\(\s*"([a-z0-9_]+)"', inspect.getsource(mod)))
    assert emitted and emitted <= set(mod.CODES), emitted - set(mod.CODES)
    required = {"driver": {"no_gpu", "driver_too_old"},
                "torch": {"torch_wheel_lacks_gpu_arch", "cpu_only_torch_with_gpu"},
                "toolkit": {"multiple_cuda_toolkits", "nvcc_torch_cuda_mismatch", "cuda_home_missing",
                            "cuda_home_malformed", "host_compiler_unsupported", "unsupported_gpu_arch",
                            "ninja_missing", "torch_not_found_at_build"},
                "kaolin": {"kaolin_not_installed", "kaolin_no_wheel_for_combo", "kaolin_version_gate",
                           "kaolin_import_failed"},
                "jupyter": {"threejs_extension_missing", "kernel_server_python_differs", "kernelspec_env"},
                "context": {"context_slurm", "context_jupyterhub", "context_systemd"}}[layer]
    assert required <= emitted
