# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 29a: blind audit 28's leftovers, torch, driver and nvcc commands only where the text implicates them.

* F7: the user's own ``nvcc ... file.cu`` build on a GPU it was not built for gets its nvcc command again with the
  GPU's architecture (no torch reinstall, no ``rm -rf build/`` in the user's folder).
* F8: a CUDA container image newer than the host driver, with no torch in the text: the host driver (its minimum from
  tables/cuda_driver.csv) or an image of a CUDA the driver runs; no torch line.
* F9: a GPU older than every current torch wheel (a K80, sm_37): the last release whose wheels carry it, pinned with
  its index (tables/torch_wheel_archs_dropped.csv), never the very build the text shows failing, no placeholder.
* H9/H10/c09: no reading whose premise the text's facts contradict: error 802 with nvidia-smi listing the GPUs is
  neither an old driver nor an unloaded module; a torch whose wheels carry the GPU (tables/torch_wheel_archs.csv,
  now from 2.0 on) is not told to be reinstalled when an extension lacks the arch.
* H10 (c): a git-hosted extension's rebuild installs the user's release (``@v0.17.0``) or builds in the source tree
  the text built from, never the git HEAD joined to ``rm -rf build/``."""

from __future__ import annotations

import re

import pytest

from smrnb.doctor import tables
from smrnb.doctor._explain import explain_result


def _found(text: str) -> list:
    return list(explain_result(text, similar=False).findings)


def _codes(text: str) -> list[str]:
    return [f.code for f in _found(text)]


def _all_commands(text: str) -> list[str]:
    return [c for f in _found(text) for c in (f.fix.commands if f.fix else ())]


def _torch_installs(cmds: list[str]) -> list[str]:
    return [c for c in cmds if re.search(r"\bpip3? install\b[^#]*\storch(?:==|\s|$)", c.split("   #")[0])]


# ---- F7: the user's own nvcc build ----

NVCC_OWN = [
    ("my little CUDA test program fails on my home PC (GTX 1080, driver 535.183.01, CUDA 12.2).\n\n"
     "$ nvcc -O2 -arch=sm_80 -o saxpy saxpy.cu\n$ ./saxpy\nGPU: NVIDIA GeForce GTX 1080 (cc 6.1)\n"
     "saxpy.cu:41: CUDA error 209 (cudaErrorNoKernelImageForDevice): no kernel image is available for execution on "
     "the device\n", "61", "80", ("-o saxpy", "saxpy.cu", "-O2")),
    ("Course exercise on the lab's Tesla T4 box:\nuser@lab:~/hw3$ nvcc -arch sm_86 -lineinfo matmul.cu -o matmul\n"
     "user@lab:~/hw3$ ./matmul 1024\nCUDA error at matmul.cu:88 code=209(cudaErrorNoKernelImageForDevice) "
     "\"cudaGetLastError()\"\n", "75", "86", ("matmul.cu", "-o matmul", "-lineinfo")),
    ("RTX 2080 Ti here. Built the reduction sample myself:\n$ /usr/local/cuda-12.4/bin/nvcc "
     "--gpu-architecture=compute_90 reduce.cu -o reduce\n$ ./reduce\nreduce failed: no kernel image is available "
     "for execution on the device (cudaErrorNoKernelImageForDevice)\n", "75", "90", ("reduce.cu", "-o reduce")),
]


@pytest.mark.parametrize(("text", "gpu", "had", "kept"), NVCC_OWN)
def test_the_users_own_nvcc_build_gets_its_nvcc_command_with_the_gpus_arch(text, gpu, had, kept):
    codes = _codes(text)
    assert codes[:1] == ["no_kernel_image_for_gpu"], codes
    assert "torch_wheel_lacks_gpu_arch" not in codes, codes  # no torch in the text: its reading is not printed
    cmds = _all_commands(text)
    nv = [c for c in cmds if re.match(r"^(?:\S*/)?nvcc\s", c)]
    assert nv, cmds
    assert f"arch=compute_{gpu},code=sm_{gpu}" in nv[0] and f"code=sm_{had}" in nv[0], nv
    assert all(k in nv[0] for k in kept), nv
    assert "-arch=" not in nv[0] and "-arch " not in nv[0] and "--gpu-architecture" not in nv[0], nv
    assert not _torch_installs(cmds), cmds
    assert not any("rm -rf build" in c for c in cmds), cmds


def test_an_extensions_compile_step_is_not_the_users_nvcc_command():
    """Near-miss: cpp_extension's own nvcc line (-c, -DTORCH_EXTENSION_NAME) in a pip build log: no nvcc line printed."""
    text = ("Building wheel for myops (setup.py) ... done\n/usr/local/cuda/bin/nvcc -I/tmp/pip-req-build-x/include -c "
            "/tmp/pip-req-build-x/src/k.cu -o build/temp/src/k.o -DTORCH_EXTENSION_NAME=_C -arch=sm_80\n"
            "Successfully installed myops-0.1\nGTX 1080\nRuntimeError: CUDA error: no kernel image is available for "
            "execution on the device\n")
    assert not any(re.match(r"^(?:\\S*/)?nvcc\\s", c) for c in _all_commands(text))


def test_a_torch_extension_build_with_the_same_gpu_keeps_its_pip_rebuild():
    """Near-miss: a torch extension (torch shown, pip's build) on a GTX 1080: no nvcc line, the extension's rebuild."""
    text = ("torch 2.4.1+cu121, GTX 1080\n$ TORCH_CUDA_ARCH_LIST=\"8.0\" pip install --no-build-isolation .\n"
            "Successfully installed myops-0.1\n$ python run.py\n  File \"/home/u/proj/run.py\", line 3, in <module>\n"
            "    y = myops.forward(x)\nRuntimeError: CUDA error: no kernel image is available for execution on the "
            "device\n")
    cmds = _all_commands(text)
    assert not any(re.match(r"^nvcc\s", c) for c in cmds), cmds
    assert any("TORCH_CUDA_ARCH_LIST" in c and "6.1" in c and "pip install" in c for c in cmds), cmds
    assert not _torch_installs(cmds), cmds  # torch 2.4's cu121 wheels carry sm_60, which runs on 6.1


# ---- F8: a CUDA image newer than the host driver, no torch ----

IMAGES = [
    ("$ docker run --rm --gpus all nvidia/cuda:12.2.2-devel-ubuntu22.04 bash -c \"/usr/local/cuda/extras/demo_suite/"
     "deviceQuery\"\ncudaGetDeviceCount returned 35\n-> CUDA driver version is insufficient for CUDA runtime version\n"
     "Result = FAIL\nhost: nvidia-smi -> NVIDIA-SMI 470.239.06   Driver Version: 470.239.06   CUDA Version: 11.4\n",
     "12.2", "11.4"),
    ("host nvidia-smi: Driver Version: 510.108.03   CUDA Version: 11.6\n$ docker run --gpus all --rm "
     "nvidia/cuda:12.4.1-runtime-ubuntu22.04 ./bench\nCUDA error: CUDA driver version is insufficient for CUDA runtime "
     "version\n", "12.4", "11.6"),
    ("podman run --rm --device nvidia.com/gpu=all nvcr.io/nvidia/cuda:12.8.0-base-ubuntu24.04 ./vecadd\n"
     "vecadd: cudaMalloc failed: CUDA driver version is insufficient for CUDA runtime version\n"
     "(host) NVIDIA-SMI 535.183.01   Driver Version: 535.183.01   CUDA Version: 12.2\n", "12.8", "12.2"),
]


@pytest.mark.parametrize(("text", "image_cuda", "driver_cuda"), IMAGES)
def test_a_cuda_image_newer_than_the_driver_gets_the_driver_or_an_image_not_torch(text, image_cuda, driver_cuda):
    fs = [f for f in _found(text) if f.code == "driver_too_old"]
    assert fs, _codes(text)
    cmds = list(fs[0].fix.commands)
    assert not _torch_installs(cmds), cmds
    ga = tables.min_driver_for_cuda(image_cuda)
    assert ga is not None and any(ga.min_driver in c and "driver" in c for c in cmds), cmds  # from the table
    assert any(f"CUDA <= {driver_cuda}" in c and "image" in c for c in cmds), cmds


def test_a_torch_text_with_the_same_driver_keeps_its_torch_line():
    """Near-miss: torch built for CUDA 12.1 on the same 470 driver: the torch build the driver runs stays."""
    text = ("NVIDIA-SMI 470.239.06   Driver Version: 470.239.06   CUDA Version: 11.4\n>>> import torch\n"
            ">>> torch.__version__\n'2.3.1+cu121'\n>>> torch.cuda.is_available()\n"
            "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040).\n"
            "False\n")
    cmds = [c for f in _found(text) if f.code == "driver_too_old" for c in f.fix.commands]
    assert any("torch==2.3.1" in c and "whl/cu118" in c for c in cmds), cmds


# ---- F9: a GPU older than every current wheel ----

K80 = [
    ("Colab-like old server with a Tesla K80, driver 470.223.02.\n>>> import torch\n>>> torch.__version__\n"
     "'2.1.2+cu118'\n>>> torch.zeros(2).cuda()\nUserWarning:\n    Found GPU0 Tesla K80 which is of cuda capability 3.7.\n"
     "    PyTorch no longer supports this GPU because it is too old.\n"
     "    The minimum cuda capability supported by this library is 5.0.\n"
     "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"),
    ("pip install torch (2.11.0+cu126) on our Tesla K80 node\n    Found GPU0 Tesla K80 which is of cuda capability "
     "3.7.\n    PyTorch no longer supports this GPU because it is too old.\n    The minimum cuda capability supported "
     "by this library is 5.0.\n"),
    ("RuntimeError: CUDA error: no kernel image is available for execution on the device\nGPU: Tesla K80 (sm_37), "
     "driver 470.256.02\n>>> torch.cuda.get_arch_list()\n['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', "
     "'sm_90']\n"),
]


@pytest.mark.parametrize("text", K80)
def test_a_k80_gets_the_last_release_whose_wheels_carry_sm37(text):
    cmds = [c for f in _found(text) if f.code == "torch_wheel_lacks_gpu_arch" for c in f.fix.commands]
    last = tables.torch_last_for_arch(37)
    assert last == ("2.7.1", "cu118")
    pins = [c for c in cmds if "torch==" in c]
    assert pins and f"torch=={last[0]}" in pins[0] and f"whl/{last[1]}" in pins[0], cmds
    assert not any("<" in c.split("   #")[0] for c in cmds), cmds  # no placeholder


def test_the_failing_build_itself_is_never_the_pin():
    """Near-miss: a GPU current wheels carry (an RTX 3090 on torch 2.1.2+cu118) keeps its own variant pin."""
    text = ("torch 2.1.2+cu118 on an RTX 5090\nUserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is "
            "not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA "
            "capabilities sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n")
    cmds = [c for f in _found(text) if f.code == "torch_wheel_lacks_gpu_arch" for c in f.fix.commands]
    assert not any("torch==2.1.2" in c and "whl/cu118" in c for c in cmds), cmds
    # an sm_120 GPU is no old GPU: not the K80's last release (2.7.1+cu118); (round 37g) 2.7.1's cu128 build is the
    # first release whose wheels carry sm_120
    assert not any("2.7.1" in c and "cu118" in c for c in cmds), cmds


def test_the_dropped_table_prints_no_pin_without_a_source():
    assert tables.torch_last_for_arch(35) is None  # its row says no
    assert tables.torch_last_for_arch(61) is None  # current wheels carry Pascal: no row


def test_the_wheel_archs_of_older_releases_are_read():
    assert tables.torch_wheel_runs("2.1.2", "cu118", 37) is True
    assert tables.torch_wheel_runs("2.4.0", "cu121", 90) is True
    assert tables.torch_wheel_runs("2.4.0", "cu121", 37) is False
    assert tables.torch_wheel_runs("2.5.1", "cu124", 120) is False  # its 9.0+PTX is not counted for Blackwell


# ---- c09: error 802 with the GPUs listed ----

E802 = [
    ("On our DGX A100 after updating to driver 535.216.01, torch sees no GPU although nvidia-smi lists all eight "
     "A100-SXM4-80GB:\n>>> import torch; torch.cuda.is_available()\nUserWarning: CUDA initialization: Unexpected error "
     "from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have "
     "already set an error? Error 802: system not yet initialized\nFalse\n$ systemctl status nvidia-fabricmanager\n"
     "     Active: failed (Result: exit-code)\n"),
    ("HGX H100 node, NVIDIA-SMI 550.90.07  Driver Version: 550.90.07  CUDA Version: 12.4, 8x NVIDIA H100 80GB HBM3\n"
     "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
     "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized\n"),
]


@pytest.mark.parametrize("text", E802)
def test_error_802_with_the_gpus_listed_is_the_fabric_not_the_driver(text):
    codes = _codes(text)
    assert codes[:1] == ["fabric_manager_not_running"], codes
    assert "driver_too_old" not in codes and "driver_broken" not in codes, codes
    assert not _torch_installs(_all_commands(text))


# ---- H10: a CUDA torch that runs on the GPU; kaolin's rebuild of the user's release ----

KAOLIN_H100 = ("kaolin built from source on our old A6000 box, copied the env to the H100 node.\n$ python check.py\n"
               "torch 2.4.0+cu121 cuda True NVIDIA H100 80GB HBM3 (9, 0)\nTraceback (most recent call last):\n"
               "  File \"/scratch/jl/check.py\", line 12, in <module>\n"
               "    pts = kaolin.ops.conversions.voxelgrids_to_cubic_meshes(vg)\n"
               "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")


@pytest.mark.parametrize(("tail", "want"), [
    ("The build was done with TORCH_CUDA_ARCH_LIST=\"8.6\" python setup.py develop\n", "-e ."),
    ("cd ~/src/kaolin && TORCH_CUDA_ARCH_LIST=\"8.6\" pip install --no-build-isolation -e .\n", "cd ~/src/kaolin && "),
    ("kaolin 0.17.0, built with TORCH_CUDA_ARCH_LIST=\"8.6\"\n", "kaolin@v0.17.0"),
    (">>> kaolin.__version__\n'0.16.0'\nbuilt with TORCH_CUDA_ARCH_LIST=\"8.6\"\n", "kaolin@v0.16.0"),
])
def test_kaolins_rebuild_is_the_users_release_and_torch_stays(tail, want):
    text = KAOLIN_H100 + tail
    codes = _codes(text)
    assert codes[:1] == ["no_kernel_image_for_gpu"] and "torch_wheel_lacks_gpu_arch" not in codes, codes
    cmds = _all_commands(text)
    assert not _torch_installs(cmds), cmds  # torch 2.4's cu121 wheels carry sm_90
    rebuild = [c for c in cmds if "TORCH_CUDA_ARCH_LIST" in c]
    assert rebuild and want in rebuild[0] and "8.6;9.0" in rebuild[0], rebuild
    assert not any("rm -rf build" in c and "git+https" in c for c in cmds), cmds
    assert not any(re.search(r"kaolin(?:\.git)?(?:\s|$)", c.split("   #")[0]) and "git+https" in c for c in cmds), cmds


def test_another_projects_source_build_is_not_kaolins_tree():
    """Near-miss: the text builds the user's own project from '.', kaolin is only imported: kaolin's git install."""
    text = KAOLIN_H100.replace("kaolin built from source on our old A6000 box", "our renderer on the old A6000 box") + \
        "$ cd ~/work/renderer && TORCH_CUDA_ARCH_LIST=\"8.6\" pip install -e .\n"
    cmds = [c for c in _all_commands(text) if "TORCH_CUDA_ARCH_LIST" in c]
    assert cmds and "git+https://github.com/NVIDIAGameWorks/kaolin" in cmds[0] and "-e ." not in cmds[0], cmds


def test_kaolin_without_a_release_or_a_source_build_keeps_the_git_install():
    """Near-miss: nothing says which kaolin or where it was built: the rule's command as it was."""
    text = KAOLIN_H100 + "it was built with TORCH_CUDA_ARCH_LIST=\"8.6\"\n"
    cmds = [c for c in _all_commands(text) if "TORCH_CUDA_ARCH_LIST" in c]
    assert cmds and "git+https://github.com/NVIDIAGameWorks/kaolin" in cmds[0] and "@v" not in cmds[0], cmds
