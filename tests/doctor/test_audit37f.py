# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 37, auditor D, worker f: the fix commands for binaries that are not torch extensions built with pip
(CuPy, a program of the user's own), package-specific build variables, containers and the driver. The texts are the
auditor's (t07, t12, t63, ...)."""

from __future__ import annotations

import json
import subprocess
import sys


def _explain(text: str) -> dict:
    """smr-doctor explain --offline --json on ``text``."""
    run = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline", "--json"], input=text,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _codes(report: dict) -> list[str]:
    return [f["code"] for f in report["findings"]]


def _commands(report: dict, code: str | None = None) -> list[str]:
    return [c for f in report["findings"] if code in (None, f["code"]) for c in f["fix"]["commands"]]


# F2 --------------------------------------------------------------------------------------------------------------

T07 = """$ pip list | grep -i cupy
cupy-cuda102             9.6.0
$ nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv
name, compute_cap, driver_version
NVIDIA A100-SXM4-40GB, 8.0, 535.104.05
$ python bench.py
Traceback (most recent call last):
  File "bench.py", line 12, in <module>
    y = cp.sum(x ** 2)
  File "cupy/_core/core.pyx", line 1214, in cupy._core.core.ndarray.__pow__
  File "cupy/_core/_kernel.pyx", line 1287, in cupy._core._kernel.ufunc.__call__
  File "cupy/_core/_kernel.pyx", line 1314, in cupy._core._kernel.ufunc._get_ufunc_kernel
  File "cupy/cuda/function.pyx", line 275, in cupy.cuda.function.Module.load
  File "cupy_backends/cuda/api/driver.pyx", line 212, in cupy_backends.cuda.api.driver.moduleLoadData
  File "cupy_backends/cuda/api/driver.pyx", line 60, in cupy_backends.cuda.api.driver.check_status
cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_NO_BINARY_FOR_GPU: no kernel image is available for execution on the device
"""

T12 = """$ python -c "import cupy; cupy.show_config()" | head -8
OS                           : Linux-5.15.0-105-generic-x86_64-with-glibc2.35
Python Version               : 3.10.12
CuPy Version                 : 12.3.0
CuPy Platform                : NVIDIA CUDA
NumPy Version                : 1.26.4
CUDA Root                    : /usr/local/cuda-11.7
nvcc PATH                    : /usr/local/cuda-11.7/bin/nvcc
CUDA Build Version           : 11080
$ python -c "import cupy as cp; k = cp.RawKernel(r'extern \\"C\\" __global__ void f(float* x){x[threadIdx.x]*=2;}', 'f'); k((1,),(32,),(cp.ones(32, dtype=cp.float32),))"
Traceback (most recent call last):
  File "cupy/cuda/compiler.py", line 705, in compile
    nvrtc.compileProgram(self.ptr, options)
  File "cupy_backends/cuda/libs/nvrtc.pyx", line 141, in cupy_backends.cuda.libs.nvrtc.compileProgram
  File "cupy_backends/cuda/libs/nvrtc.pyx", line 153, in cupy_backends.cuda.libs.nvrtc.compileProgram
  File "cupy_backends/cuda/libs/nvrtc.pyx", line 69, in cupy_backends.cuda.libs.nvrtc.check_status
cupy_backends.cuda.libs.nvrtc.NVRTCError: NVRTC_ERROR_INVALID_OPTION (5)

During handling of the above exception, another exception occurred:

cupy.cuda.compiler.CompileException: nvrtc: error: invalid value for --gpu-architecture (-arch)
(GPU: NVIDIA H100 80GB HBM3, compute capability 9.0)
"""

T63 = """$ nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader
NVIDIA GeForce RTX 4090, 8.9
$ ./build/bin/infer --engine model.plan --input frames/
[I] loading libmyops.so (built with: nvcc 11.4, -gencode arch=compute_75,code=sm_75)
CUDA Runtime API error = 0209 "cudaErrorNoKernelImageForDevice" from file </src/ops/voxelize.cu>, line 88.
Aborted (core dumped)
"""


def test_cupy_without_the_gpus_arch_gets_cupys_wheel_not_torch():
    report = _explain(T07)
    assert "torch_wheel_lacks_gpu_arch" not in _codes(report)
    assert _codes(report)[0] == "no_kernel_image_for_gpu"
    cmds = _commands(report)
    assert any(c.startswith("pip uninstall -y cupy-cuda102 && pip install cupy-cuda12x") for c in cmds), cmds
    assert not any("TORCH_CUDA_ARCH_LIST" in c or "torch" in c.split("#")[0] for c in cmds), cmds


def test_cupy_nvrtc_too_old_for_the_gpu_sets_cuda_path_not_cuda_home():
    report = _explain(T12)
    assert "torch_wheel_lacks_gpu_arch" not in _codes(report)
    cmds = _commands(report, "unsupported_gpu_arch")
    assert any(c.startswith("export CUDA_PATH=/usr/local/cuda-11.8") for c in cmds), cmds
    assert not any("CUDA_HOME=" in c or "TORCH_CUDA_ARCH_LIST" in c for c in _commands(report)), cmds
    assert any("pip install cupy-cuda12x" in c for c in cmds), cmds


def test_a_program_of_its_own_is_rebuilt_with_a_toolkit_that_knows_the_gpu():
    report = _explain(T63)
    assert _codes(report)[0] == "no_kernel_image_for_gpu"
    cmds = _commands(report)
    assert not any("pip " in c.split("#")[0] or "TORCH_CUDA_ARCH_LIST" in c for c in cmds), cmds
    assert any("/usr/local/cuda-11.8/bin" in c and "nvcc 11.4 cannot" in c for c in cmds), cmds
    assert any('CMAKE_CUDA_ARCHITECTURES="75;89"' in c and "-gencode arch=compute_89,code=sm_89" in c for c in cmds), cmds
    assert not any("torch's current wheels" in e for f in report["findings"] for e in f["evidence"])
