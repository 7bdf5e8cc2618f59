# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 37, auditor D, worker f: the fix commands for binaries that are not torch extensions built with pip
(CuPy, a program of the user's own), package-specific build variables, containers and the driver. The texts are the
auditor's (t07, t12, t63, ...)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.doctor._audit37_texts import T12, T27, T34


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
    assert "user_code_error" not in _codes(report)  # NVRTC's own words: the arch is what it refused
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


# F11 -------------------------------------------------------------------------------------------------------------


T32 = """# on the cluster's login node (no GPU), torch 2.1.2+cu118, CUDA 11.8 module loaded
$ module load cuda/11.8
$ python -c "import torch; print(torch.__version__, torch.cuda.is_available())"
2.1.2+cu118 False
$ pip install --no-build-isolation git+https://github.com/NVlabs/tiny-cuda-nn/#subdirectory=bindings/torch
  ...
  Running setup.py install for tinycudann ... error
    error: subprocess-exited-with-error
    Traceback (most recent call last):
      File "/tmp/pip-req-build-abc/bindings/torch/setup.py", line 52, in <module>
        raise EnvironmentError("Unknown compute capability. Specify the target compute capabilities in the TCNN_CUDA_ARCHITECTURES environment variable or install PyTorch with the CUDA backend to detect it automatically.")
    OSError: Unknown compute capability. Specify the target compute capabilities in the TCNN_CUDA_ARCHITECTURES environment variable or install PyTorch with the CUDA backend to detect it automatically.
# the jobs run on A100 nodes
"""


def test_pytorch3d_built_without_a_gpu_gets_force_cuda_and_the_arch_list_in_the_command():
    cmds = [c.split("   #")[0] for c in _commands(_explain(T27), "extension_not_compiled") if "pip install" in c]
    assert cmds, _commands(_explain(T27))
    assert all(c.startswith("FORCE_CUDA=1 TORCH_CUDA_ARCH_LIST=") and "pytorch3d" in c for c in cmds), cmds
    archs = cmds[0].split('TORCH_CUDA_ARCH_LIST="')[1].split('"')[0].split(";")
    assert "8.0" in archs and "9.0" in archs and "10.0" not in archs, archs  # what torch's CUDA 11.8 builds


def test_tiny_cuda_nn_gets_tcnn_cuda_architectures_of_the_gpu_the_text_names():
    cmds = [c.split("   #")[0] for c in _commands(_explain(T32)) if c.split("   #")[0].count("pip install")]
    builds = [c for c in cmds if "tiny-cuda-nn" in c]
    assert builds, cmds
    assert all('TCNN_CUDA_ARCHITECTURES="80"' in c and "TORCH_CUDA_ARCH_LIST" not in c for c in builds), builds
    assert not any("<X.Y>" in c for c in cmds), cmds


def test_a_prebuilt_pytorch3d_wheel_is_left_alone():
    from smrnb.doctor._buildvars import with_build_variables

    c = "pip install pytorch3d -f https://dl.fbaipublicfiles.com/pytorch3d/packaging/wheels/py310_cu118_pyt210/download.html"
    assert with_build_variables(c, T27, None) == c


# F12 -------------------------------------------------------------------------------------------------------------

T30 = """$ pip install -U torch    # now 2.2.0+cu121; xformers was installed before for 2.1.0
$ python -m xformers.info
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.2.0+cu121)
    Python  3.10.13 (you have 3.10.13)
  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)
  Memory-efficient attention, SwiGLU, sparse and more won't be available.
  Set XFORMERS_MORE_DETAILS=1 for more details
$ python sample.py
Traceback (most recent call last):
  ...
  File "/home/cy/.venv/lib/python3.10/site-packages/xformers/ops/fmha/dispatch.py", line 63, in _run_priority_list
    raise NotImplementedError(msg)
NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:
     query       : shape=(2, 4096, 8, 40) (torch.float16)
     key         : shape=(2, 4096, 8, 40) (torch.float16)
     value       : shape=(2, 4096, 8, 40) (torch.float16)
     attn_bias   : <class 'NoneType'>
     p           : 0.0
`cutlassF` is not supported because:
    xFormers wasn't build with CUDA support
`flshattF@v2.3.6` is not supported because:
    xFormers wasn't build with CUDA support
"""


def test_xformers_built_for_another_torch_keeps_only_the_pinned_release():
    report = _explain(T30)
    assert _codes(report) == ["companion_built_for_other_torch"], _codes(report)
    pins = [c for c in _commands(report) if c.startswith("pip install xformers")]
    assert pins and all("xformers==0.0.24" in c for c in pins), _commands(report)
    assert not any(re.search(r"pip install [^#]*\bxformers(?!==)\b", c.split("#")[0]) for c in _commands(report))


# F14 -------------------------------------------------------------------------------------------------------------

T06 = """$ nvcc --version
nvcc: NVIDIA (R) Cuda compiler driver
Cuda compilation tools, release 12.4, V12.4.131
$ nvidia-smi --query-gpu=name,driver_version --format=csv
name, driver_version
Tesla V100-SXM2-32GB, 510.47.03
$ nvcc -o vadd vadd.cu && ./vadd
CUDA error at vadd.cu:41 code=35(cudaErrorInsufficientDriver) "cudaMalloc(&d_a, bytes)"
CUDA driver version is insufficient for CUDA runtime version
"""

T15 = """$ nvcc --version | grep release
Cuda compilation tools, release 11.8, V11.8.89
$ cmake -B build -DCMAKE_CUDA_ARCHITECTURES=86 && cmake --build build -j8
-- The CUDA compiler identification is NVIDIA 11.8.89
...
[ 12%] Building CUDA object CMakeFiles/splat.dir/src/rasterize.cu.o
nvcc fatal   : Value 'c++20' is not defined for option 'std'
make[2]: *** [CMakeFiles/splat.dir/build.make:90: CMakeFiles/splat.dir/src/rasterize.cu.o] Error 1
make[1]: *** [CMakeFiles/Makefile2:83: CMakeFiles/splat.dir/all] Error 2
make: *** [Makefile:136: all] Error 2
"""


def test_a_plain_nvcc_program_on_driver_510_is_certainly_too_old_and_gets_an_older_toolkit():
    report = _explain(T06)
    f = report["findings"][0]
    assert f["code"] == "driver_too_old" and "may be" not in f["title"] and "11.6" in f["title"], f["title"]
    cmds = f["fix"]["commands"]
    assert any(c.startswith("export PATH=/usr/local/cuda-11.6/bin:$PATH && nvcc -o vadd vadd.cu") for c in cmds), cmds
    assert not any("torch" in c for c in cmds), cmds


def test_std_cxx20_with_nvcc_11_8_says_it_needs_cuda_12():
    report = _explain(T15)
    f = report["findings"][0]
    assert f["code"] == "nvcc_option_unsupported" and "CUDA 12.0" in f["title"] and "11.8" in f["title"], f["title"]
    assert any("/usr/local/cuda-12.0/bin" in c for c in f["fix"]["commands"]), f["fix"]["commands"]


# F15 -------------------------------------------------------------------------------------------------------------



def test_the_jit_cache_removal_is_the_failed_extensions_folder_only():
    rms = [c.split("   #")[0] for c in _commands(_explain(T34)) if c.startswith("rm -rf")]
    assert rms, _commands(_explain(T34))
    assert all(c.rstrip("/").endswith("torch_extensions/py310_cu121/nvdiffrast_plugin_gl") for c in rms), rms


# F16 -------------------------------------------------------------------------------------------------------------

T39 = """$ nvidia-smi -L
GPU 0: NVIDIA GeForce RTX 4080 (UUID: GPU-77aa...)
$ docker run --rm --gpus all nvidia/cuda:12.2.0-base-ubuntu22.04 nvidia-smi
docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].
ERRO[0000] error waiting for container: context canceled
$ dpkg -l | grep nvidia-container
$
"""

T40 = """$ docker run --rm --gpus all nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi
docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'
nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown.
$ nvidia-smi
Command 'nvidia-smi' not found, but can be installed with:
sudo apt install nvidia-utils-535
$ lspci | grep -i nvidia
01:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1)
"""


def test_docker_without_the_container_toolkit_gets_its_install_not_gpus_all_again():
    cmds = _commands(_explain(T39))
    assert any(c.startswith("sudo apt-get update && sudo apt-get install -y nvidia-container-toolkit") for c in cmds), cmds
    assert any(c.startswith("sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker")
               for c in cmds), cmds
    assert not any(c.startswith("docker run --gpus all") for c in cmds), cmds


def test_a_host_without_a_driver_gets_a_driver_install_first():
    report = _explain(T40)
    assert _codes(report)[0] == "no_gpu" and "driver_broken" not in _codes(report), _codes(report)
    assert report["findings"][0]["severity"] == "error"
    cmds = _commands(report)
    assert any(c.startswith("sudo ubuntu-drivers install") for c in cmds), cmds
    assert not any(c.startswith(("docker run --gpus all", "sudo modprobe nvidia")) for c in cmds), cmds


# F9 --------------------------------------------------------------------------------------------------------------

T03 = """Laptop, Ubuntu 22.04, worked yesterday; today after resuming from suspend:
$ python -c "import torch; print(torch.__version__); print(torch.cuda.is_available())"
2.2.1+cu121
/home/leo/.venv/lib/python3.11/site-packages/torch/cuda/__init__.py:141: UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)
  return torch._C._cuda_getDeviceCount() > 0
False
$ nvidia-smi
Mon Mar 11 09:12:40 2024
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 545.29.06              Driver Version: 545.29.06    CUDA Version: 12.3     |
|-----------------------------------------+----------------------+----------------------+
|   0  NVIDIA GeForce RTX 3060 ...    Off | 00000000:01:00.0 Off |                  N/A |
+-----------------------------------------+----------------------+----------------------+
$ ./deviceQuery
./deviceQuery Starting...
 CUDA Device Query (Runtime API) version (CUDART static linking)
cudaGetDeviceCount returned 999
-> unknown error
Result = FAIL
"""


def test_after_resume_the_title_is_not_an_unloaded_module_and_nvidia_uvm_is_reloaded():
    report = _explain(T03)
    f = report["findings"][0]
    assert f["code"] == "driver_broken" and "not loaded" not in f["title"] and "suspend" in f["title"], f["title"]
    assert f["fix"]["commands"][0].startswith("sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"), f["fix"]["commands"]
