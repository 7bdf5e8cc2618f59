# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 33: 'no kernel image' decided by torch's own wheel.

Found on an H100 lent as the GPU server (torch 2.11.0+cu130, driver 580): ``smr-doctor explain`` of a bare "CUDA
error: no kernel image is available for execution on the device" gave, beside the extension reading, "The installed
torch has no kernels for this GPU (sm_90)" as an error, with a torch reinstall, though that torch's wheels carry sm_90
(PyTorch's release notes: cu130 builds Turing 7.5 to Blackwell 12.0). Where torch's version shows a pip wheel's CUDA
variant (from the text or from this machine) and the GPU's compute capability is known, tables/torch_wheel_archs.csv
decides whose kernels are missing; a conda or source build (no ``+cu``) and a release the table lacks decide nothing.
"""
from __future__ import annotations

import os
import platform
import sys
import sysconfig
from pathlib import Path

import pytest

from smrnb.doctor import cli
from smrnb.doctor._explain import explain_result

NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def _codes(text):
    return [f.code for f in explain_result(text, similar=False).findings]


@pytest.mark.parametrize("text", [
    # a pip wheel that carries sm_86, on an RTX 3090: the binary without sm_86 is an extension
    "torch 2.4.1+cu121, GPU: NVIDIA GeForce RTX 3090\nTraceback (most recent call last):\n"
    "  File \"/opt/venv/lib/python3.10/site-packages/simple_knn/__init__.py\", line 4, in distCUDA2\n" + NO_KERNEL,
    # the same in the words of `python -m torch.utils.collect_env`
    "PyTorch version: 2.5.1+cu124\nIs debug build: False\nCUDA used to build PyTorch: 12.4\n"
    "GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB\n\n" + NO_KERNEL,
])
def test_a_wheel_that_carries_the_gpu_leaves_the_extension_reading_alone(text):
    codes = _codes(text)
    assert codes[0] == "no_kernel_image_for_gpu", codes
    assert "torch_wheel_lacks_gpu_arch" not in codes


@pytest.mark.parametrize("text", [
    # torch 2.11's cu128 wheels dropped Volta (pytorch/pytorch#172352): a V100 gets no torch kernels from them
    "pip list | grep torch\ntorch 2.11.0+cu128\nnvidia-smi: Tesla V100-SXM2-32GB\n" + NO_KERNEL,
    # cu117 wheels of torch 2.0 stop at sm_86: an H100 runs none of them
    "torch.__version__ = 2.0.1+cu117\nDevice: NVIDIA H100 PCIe\n" + NO_KERNEL,
])
def test_a_wheel_without_the_gpu_is_torchs_own_first(text):
    # an extension that failed may lack the GPU as well: it is rebuilt against the torch that replaces this one
    assert _codes(text)[:2] == ["torch_wheel_lacks_gpu_arch", "no_kernel_image_for_gpu"]


@pytest.mark.parametrize("text", [
    # no pip variant: a conda or source build's archs are not the wheel table's
    "torch 2.4.1, GPU: NVIDIA GeForce RTX 3090\n" + NO_KERNEL,
    # a release the table has no row for
    "torch 1.2.0+cu92, GPU: NVIDIA GeForce RTX 3090\n" + NO_KERNEL,
    # no GPU named: nothing to compare
    "torch 2.4.1+cu121\n" + NO_KERNEL,
])
def test_without_a_wheel_variant_a_known_release_or_a_gpu_both_readings_stay(text):
    codes = _codes(text)
    assert {"no_kernel_image_for_gpu", "torch_wheel_lacks_gpu_arch"} <= set(codes[:2]), codes


H100_CU130 = {
    "driver": {"status": "ok", "driver_version": "580.159.04", "cuda_driver_version": "13.0",
               "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}]},
    # as the static probe reads it: no import of torch, so no arch list
    "torch": {"status": "ok", "installed": True, "version": "2.11.0+cu130", "version_base": "2.11.0", "cuda": "13.0",
              "hip": None},
    "context": {"status": "ok", "container": None, "slurm": None, "python_version": "3.12.3"},
}




def test_on_the_machine_its_torch_wheel_decides_and_the_report_says_why(machine, capsys):
    machine(H100_CU130)
    rc = cli.main(["explain", NO_KERNEL])
    out = capsys.readouterr().out
    assert rc == 1
    assert "[no_kernel_image_for_gpu]" in out
    assert "[torch_wheel_lacks_gpu_arch]" not in out and "pip install --force-reinstall torch" not in out
    assert "torch 2.11.0+cu130's wheels carry kernels for compute capability 9.0" in out
    rc = cli.main(["explain", "--offline", NO_KERNEL])  # the text alone cannot decide: both readings
    out = capsys.readouterr().out
    assert "[torch_wheel_lacks_gpu_arch]" in out and "[no_kernel_image_for_gpu]" in out


# ------------------------------------------------------------------ the live report: torch's wheel against the GPUs
def _torch_findings(version, gpus):
    from smrnb.doctor.rules import evaluate

    facts = {"driver": {"status": "ok", "driver_version": "580.159.04", "cuda_driver_version": "13.0",
                        "gpus": [{"index": i, "name": n, "compute_capability": cc} for i, (n, cc) in enumerate(gpus)]},
             "torch": {"status": "ok", "installed": True, "version": version, "version_base": version.split("+")[0],
                       "cuda": "13.0", "hip": None}}
    return [f for f in evaluate(facts) if f.layer == "torch"]


def test_the_live_report_reads_the_gpu_against_its_torch_wheel_where_torch_was_not_imported():
    # the H100 lent as the GPU server: the report said only "torch's compiled GPU architectures were not read"
    (f,) = _torch_findings("2.11.0+cu130", [("NVIDIA H100 80GB HBM3", "9.0")])
    assert (f.code, f.severity) == ("torch_gpu_arch_ok", "ok")
    assert any("sm_90" in e and "release notes" in e for e in f.evidence)
    assert any("--import-check" in e for e in f.evidence)  # what reads torch's own list


def test_a_gpu_its_torch_wheel_dropped_is_an_error_with_a_variant_that_carries_it():
    found = _torch_findings("2.11.0+cu128", [("Tesla V100-SXM2-32GB", "7.0"), ("NVIDIA A100-SXM4-80GB", "8.0")])
    lacks = [f for f in found if f.code == "torch_wheel_lacks_gpu_arch"]
    assert [f.title for f in lacks] == ["torch 2.11.0+cu128 has no kernels for Tesla V100-SXM2-32GB (CC 7.0)"]
    assert "whl/cu126" in lacks[0].fix.commands[0]  # 2.11's cu126 wheels keep Volta
    assert [f.code for f in found if "A100" in f.title] == ["torch_gpu_arch_ok"]


@pytest.mark.parametrize("version", ["2.11.0", "1.2.0+cu92"])
def test_without_a_wheel_variant_or_a_release_the_table_has_the_list_is_not_read(version):
    assert [f.code for f in _torch_findings(version, [("NVIDIA H100 80GB HBM3", "9.0")])] == ["torch_arch_list_unknown"]


# ------------------------------------------------------------------ real texts of the lent H100 (tests/doctor/device)
DEVICE = Path(__file__).parent / "device"


def test_a_build_whose_ninja_ran_and_failed_is_no_missing_ninja():
    # "Command '['ninja', '-v']' returned non-zero exit status 2": ninja ran; nvcc's error line is the cause
    codes = _codes((DEVICE / "build_fail_h100.log").read_text())
    assert codes[0] == "extension_build_failed", codes
    assert "ninja_missing" not in codes
    # ninja itself absent, in the words torch.utils.cpp_extension and subprocess use for it
    for absent in ("RuntimeError: Ninja is required to load C++ extensions",
                   "FileNotFoundError: [Errno 2] No such file or directory: 'ninja'"):
        assert "ninja_missing" in _codes(absent)[:2], absent


def test_a_note_of_the_machine_alone_is_no_reading_of_the_text(machine, capsys):
    # the lent H100 suggested a kaolin source build: its note "Build kaolin with --no-build-isolation" came out as
    # "or:" under the failed build of another extension
    machine({**H100_CU130, "kaolin": {"status": "ok", "installed": False, "install_kind_suggested": "source"}})
    rc = cli.main(["explain", (DEVICE / "build_fail_h100.log").read_text()])
    out = capsys.readouterr().out
    assert rc == 1 and "most likely: [extension_build_failed]" in out
    assert "torch_not_found_at_build" not in out


def test_the_sm80_extension_on_the_h100_is_the_extensions_on_the_machine_and_both_offline(machine, capsys):
    text = (DEVICE / "run_sm80_on_h100.txt").read_text()
    assert {"no_kernel_image_for_gpu", "torch_wheel_lacks_gpu_arch"} <= set(_codes(text)[:2])
    machine(H100_CU130)
    cli.main(["explain", text])
    out = capsys.readouterr().out
    assert "most likely: [no_kernel_image_for_gpu]" in out and "[torch_wheel_lacks_gpu_arch]" not in out


def test_a_cuda_home_that_does_not_exist_is_never_said_to_have_nvcc(machine, capsys):
    # the lent H100, CUDA_HOME=/usr/local/cuda-99 (no such folder) for a JIT build: the build's text names
    # /usr/local/cuda-99/bin/nvcc ("not found"); merged with this machine's probe, explain said both "does not exist"
    # and "CUDA_HOME=/usr/local/cuda-99 has nvcc but no CUDA headers"
    facts = {"toolkit": {
        "status": "ok", "cuda_home_env": "/usr/local/cuda-99", "cuda_home_malformed": True,
        "cuda_home_malformed_why": "does not exist", "cuda_home_malformed_var": "CUDA_HOME",
        "build_cuda_home": "/usr/local/cuda-99", "build_cuda_home_exists": False, "build_cuda_home_has_headers": False,
        "build_nvcc": None, "build_nvcc_version": None,
        "nvccs": [{"path": "/usr/local/cuda/bin/nvcc", "version": "13.0", "paths": ["/usr/local/cuda/bin/nvcc"],
                   "toolkit_dir": "/usr/local/cuda", "has_headers": True}]}}
    # the H100's paths as this machine's (else the text is read alone: another machine's site-packages)
    here = f"python{sys.version_info.major}.{sys.version_info.minor}"
    text = (DEVICE / "build_cuda_home_missing_dir_h100.log").read_text().replace(
        "/opt/torch/.venv/lib/python3.12/site-packages", sysconfig.get_paths()["purelib"]).replace("python3.12", here)
    machine({**H100_CU130, "context": {**H100_CU130["context"], "python_version": platform.python_version()},
             "toolkit": facts["toolkit"]})
    rc = cli.main(["explain", text])
    out = capsys.readouterr().out
    assert "read as text alone" not in out
    assert rc == 1 and "most likely: [cuda_home_malformed]" in out and "does not exist" in out
    assert "cuda_home_incomplete" not in out and "has nvcc but no CUDA headers" not in out


# ------------------------------------------------------------------ a libcuda.so.1 first on LD_LIBRARY_PATH
def _elf(path, size=64):
    path.write_bytes(b"\x7fELF" + b"\0" * (size - 4))


def test_the_first_libcuda_on_the_path_is_told_from_the_drivers(tmp_path):
    from smrnb.doctor.probes._loader import libcuda_on_path

    empty, text, stub, drv, wsl, gone = (tmp_path / n for n in ("empty", "text", "stub", "drv", "wsl", "gone"))
    for d in (empty, text, stub / "stubs", drv, wsl, gone):
        d.mkdir(parents=True)
    (empty / "libcuda.so.1").write_bytes(b"")
    (text / "libcuda.so.1").write_text("not a library\n")
    _elf(stub / "stubs" / "libcuda.so")
    (stub / "libcuda.so.1").symlink_to(stub / "stubs" / "libcuda.so")
    _elf(drv / "libcuda.so.580.159.04")
    (drv / "libcuda.so.1").symlink_to("libcuda.so.580.159.04")
    _elf(wsl / "libcuda.so.1.1")  # WSL's small forwarding library is the driver's there
    (wsl / "libcuda.so.1").symlink_to("libcuda.so.1.1")
    (gone / "libcuda.so.1").symlink_to(gone / "libcuda.so.999")
    assert libcuda_on_path(f"{empty}:{drv}")["not_driver"] == "empty"
    assert libcuda_on_path(f"/nonexistent::{text}")["not_driver"] == "not an ELF library"
    assert libcuda_on_path(str(stub))["not_driver"] == "the CUDA toolkit's link-time stub"
    assert libcuda_on_path(f"{drv}:{empty}")["not_driver"] is None  # the driver's comes first
    assert libcuda_on_path(str(wsl))["not_driver"] is None
    assert "missing" in libcuda_on_path(str(gone))["not_driver"]
    assert libcuda_on_path("") is None and libcuda_on_path(None) is None and libcuda_on_path("/nonexistent") is None


def test_the_live_report_names_an_empty_libcuda_first_on_the_path(tmp_path):
    # the doctor's own process, started with LD_LIBRARY_PATH holding an empty libcuda.so.1 (as on the lent H100)
    import subprocess

    (tmp_path / "libcuda.so.1").write_bytes(b"")
    env = {**os.environ, "LD_LIBRARY_PATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "--layer", "loader"], env=env,
                         capture_output=True, text=True, timeout=120).stdout
    assert "[cuda_stub_driver_loaded]" in out and f"{tmp_path}/libcuda.so.1: empty" in out


def test_torchs_no_driver_with_an_empty_libcuda_first_on_the_machine(machine, capsys):
    # torch: "Found no NVIDIA driver on your system" on the lent H100, whose driver works, an empty libcuda.so.1
    # first on LD_LIBRARY_PATH; offline: no_gpu, then gpu_not_exposed_to_process
    here = f"python{sys.version_info.major}.{sys.version_info.minor}"
    text = (DEVICE / "empty_libcuda_first_h100.txt").read_text().replace(
        "/opt/torch/.venv/lib/python3.12/site-packages", sysconfig.get_paths()["purelib"]).replace("python3.12", here)
    machine({**H100_CU130, "context": {**H100_CU130["context"], "python_version": platform.python_version()},
             "loader": {"status": "ok", "libcuda_on_path": {"path": "/tmp/sc2/fakelib/libcuda.so.1",
                                                             "realpath": "/tmp/sc2/fakelib/libcuda.so.1", "size": 0,
                                                             "not_driver": "empty"}}})
    rc = cli.main(["explain", text])
    out = capsys.readouterr().out
    assert rc == 1 and "most likely: [cuda_stub_driver_loaded]" in out, out[:600]
