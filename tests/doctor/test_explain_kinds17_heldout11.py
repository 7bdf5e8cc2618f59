# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 17 (the kinds behind heldout11's misses, released): torch's other device-mismatch messages (an RNN's
input and weights, nn.DataParallel's module not on device_ids[0], torch 1.x's "Expected object of backend"), pinning a
tensor that is already on the GPU, mmcv's op without an implementation for the device (its CUDA ops not built),
a compiled module's class without a member, nvcc's "Unknown option" without its prefix, cuInit's initialization error
in a forked child (pycuda's "<call> failed:" form), macOS's dyld missing a CUDA library, torchvision half-imported, numba finding no compute capability for its toolkit,
newer setuptools without pkg_resources.packaging, glibc's "FATAL: kernel too old", torch's extension builder parsing
its own sm_90a, VS Code's "Kernel ... is not usable", nvidia-smi failing in a Google Colab runtime (a runtime without a
GPU accelerator), docker run --gpus on a Mac (no NVIDIA GPU to give), and a bare "cannot import name 'x'" read before
the traceback's from-import line that names its module (a title over a cut-off traceback). Each text is written for
the test (other wordings, versions, tools than the threads); each kind has near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # torch's device mismatches in other forms than 'Expected all tensors to be on the same device': the code (the
    # program's, else the library's it runs) moves only some tensors
    ("  File \"model/encoder.py\", line 41, in forward\n    out, _ = self.gru(x)\nRuntimeError: Input and parameter "
     "tensors are not at the same device, found input tensor at cpu and parameter tensor at cuda:1\n",
     ["user_code_error", "library_bug"]),
    ("RuntimeError: module must have its parameters and buffers on device cuda:1 (device_ids[0]) but found one of "
     "them on device: cuda:0\n", ["user_code_error", "library_bug"]),
    ("RuntimeError: Expected object of backend CPU but got backend CUDA for argument #1 'self'\n",
     ["user_code_error", "library_bug"]),
    # pinning a batch that is already on the GPU (pin_memory=True over a dataset that returns CUDA tensors)
    ("  File \"/usr/lib/python3/dist-packages/torch/utils/data/_utils/pin_memory.py\", line 58, in pin_memory\n"
     "    return data.pin_memory(device)\nRuntimeError: cannot pin 'torch.cuda.HalfTensor' only dense CPU tensors can "
     "be pinned\n", ["user_code_error", "library_bug"]),
    ("RuntimeError: cannot pin 'CUDABFloat16Type' only dense CPU tensors can be pinned\n",
     ["user_code_error", "library_bug"]),
    # mmcv's device registry without the op's CUDA implementation: its CUDA ops not built for this torch
    ("  File \"mmcv/ops/roi_align.py\", line 83, in forward\nRuntimeError: roi_align_forward_impl: implementation for "
     "device cuda:1 not found.\n", ["extension_not_compiled", "companion_built_for_other_torch"]),
    ("RuntimeError: deform_conv_forward_impl: implementation for device npu:0 not found.\n",
     ["extension_not_compiled", "companion_built_for_other_torch"]),
    # setuptools 70+ without pkg_resources.packaging, imported by a package's build code
    ("Collecting apex\n  File \"/tmp/pip-build-env-x/setup.py\", line 7, in <module>\n"
     "ImportError: cannot import name 'packaging' from 'pkg_resources' "
     "(/tmp/pip-build-env-x/overlay/lib/python3.11/site-packages/pkg_resources/__init__.py)\n",
     ["library_bug", "build_dependency_missing"]),
    # (round 34b) the bare line, no build shown: the environment's setuptools newer than the code first (heldout18's
    # nerfstudio-3215 and st-nerf-18, labelled package_api_version_mismatch: 'roll back to 69.5.1'); inside pip's build
    # (the text above) the row's readings stay first
    ("AttributeError: module 'pkg_resources' has no attribute 'packaging'\n",
     ["package_api_version_mismatch", "library_bug"]),
    # glibc of a binary or image newer than the running kernel allows
    ("$ apptainer exec rocky9.sif python3 -V\nFATAL: kernel too old\n", ["symbol_version_missing"]),
    # torch's extension builder parsing its own architecture list with a suffixed entry (sm_100a)
    ("  File \"torch/utils/cpp_extension.py\", line 2010, in _get_cuda_arch_flags\n"
     "ValueError: invalid literal for int() with base 10: '100a'\n", ["library_bug", "arch_list_value_rejected"]),
    # VS Code's Jupyter extension cannot start the selected interpreter's kernel
    ("Failed to start the Kernel. Kernel Python 3.12.2 (.venv) is not usable. Check the Jupyter output tab.\n",
     ["kernel_wrong_python"]),
    # nvidia-smi failing in a Google Colab runtime: a runtime without a GPU accelerator
    ("In a colab notebook:\n!nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
     "Make sure that the latest NVIDIA driver is installed and running.\n",
     ["no_gpu", "driver_broken"]),
    ("/content/sd-webui# nvidia-smi\nNVIDIA-SMI couldn't find libnvidia-ml.so library in your system.\n",
     ["no_gpu"]),
    # docker run --gpus on a Mac: Docker Desktop's Linux VM has no NVIDIA GPU to give
    ("On my MacBook Air (Apple M2):\n$ docker run --rm --gpus=all nvidia/cuda:12.4.1-base nvidia-smi\n"
     "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n",
     ["no_gpu", "gpu_not_exposed_to_process"]),
    # a bare "cannot import name" in a title, the traceback's from-import line (cut off after it) naming the module
    ("ImportError: cannot import name 'ConvAlgo'\n\nTraceback (most recent call last):\n"
     "  File \"/usr/lib/python3.8/site-packages/spconv/pytorch/conv.py\", line 30, in <module>\n"
     "    from cumm.conv.bases import ConvAlgo, ConvOpType\n...\n", ["package_api_version_mismatch"]),
    # a compiled module's class (shown by its qualified name) without a member: another release's name, else a typo
    ("AttributeError: type object 'open3d.cpu.pybind.geometry.TriangleMesh' has no attribute 'create_from_point_cloud_"
     "poisson_v2'\n", ["package_api_version_mismatch", "user_code_error"]),
    # nvcc's "Unknown option" without its "nvcc fatal :" prefix, for an option only nvcc has
    ("build fails: Unknown option '--expt-relaxed-constexpr' with the CUDA 7.0 toolkit\n", ["nvcc_option_unsupported"]),
    # cuInit's 'initialization error' in a forked child (pycuda's "<call> failed: <message>" form)
    ("the parent calls cuda.init(), then a multiprocessing worker (fork) calls it again:\n"
     "pycuda._driver.LogicError: cuInit failed: initialization error\n", ["user_code_error", "driver_broken"]),
    ("pycuda._driver.MemoryError: cuMemAlloc failed: out of memory\n", ["cuda_oom"]),
    # macOS's loader missing a CUDA library by its install name
    ("dyld[812]: Library not loaded: @rpath/libcublas.10.dylib\n  Referenced from: /Users/me/bin/solver\n"
     "  Reason: tried: '/usr/local/cuda/lib/libcublas.10.dylib' (no such file)\n",
     ["cudart_not_found", "prebuilt_binary_wrong_cuda"]),
    # torchvision failing half-way through its own import: a release for another torch
    ("  File \"/opt/conda/lib/python3.10/site-packages/torchvision/_meta_registrations.py\", line 18, in wrapper\n"
     "AttributeError: partially initialized module 'torchvision' has no attribute 'extension' (most likely due to a "
     "circular import)\n", ["companion_built_for_other_torch", "package_api_version_mismatch"]),
    # numba's CUDA target with a toolkit whose capabilities it cannot list (older than it supports, else newer)
    ("$ conda list | grep cudatoolkit\ncudatoolkit 9.2 0\n  File \"numba/cuda/cudadrv/nvvm.py\", line 388, in "
     "find_closest_arch\nNvvmSupportError: No supported GPU compute capabilities found. Please check your cudatoolkit "
     "version matches your CUDA version.\n", ["toolkit_below_extension_minimum", "package_api_version_mismatch"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # tensors on one device; another device message of a library's own
    ("Input and parameter tensors are on cuda:0\n", "library_bug"),
    ("module parameters moved to device cuda:0 before DataParallel\n", "library_bug"),
    # pinning that worked; a word about pinned memory
    ("DataLoader(pin_memory=True): pinned 128 CPU tensors\n", "library_bug"),
    # another registry message of mmcv; an implementation found
    ("RuntimeError: nms_impl: at param 1, inconsistent device: cpu vs cuda:0\n", "companion_built_for_other_torch"),
    ("roi_align_forward_impl: implementation for device cuda:0 registered\n", "extension_not_compiled"),
    # another name from pkg_resources; packaging imported from itself
    ("ImportError: cannot import name 'parse_version' from 'pkg_resources'\n", "build_dependency_missing"),
    ("ImportError: cannot import name 'Version' from 'packaging.version'\n", "build_dependency_missing"),
    # a kernel named in another sense; glibc's version named
    ("the kernel too old to support io_uring, falling back to epoll\n", "symbol_version_missing"),
    # an integer parse of another value; an architecture without suffix
    ("ValueError: invalid literal for int() with base 10: '90%'\n", "arch_list_value_rejected"),
    ("ValueError: invalid literal for int() with base 10: 'abc'\n", "library_bug"),
    # a kernel that is usable; a Python that is not
    ("Kernel Python 3.12.2 is usable and connected\n", "kernel_wrong_python"),
    # nvidia-smi failing outside Colab (a broken driver's reading first), in a container on a Colab-like path
    ("$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", "no_gpu"),
    # docker's GPU request refused on Linux (the toolkit not installed: not no GPU)
    ("ubuntu 22.04, RTX 3090\n$ docker run --gpus all img\ndocker: Error response from daemon: could not select device "
     "driver \"\" with capabilities: [[gpu]].\n", "no_gpu"),
    # a bare "cannot import name" whose from-import line imports other names
    ("ImportError: cannot import name 'ConvAlgo'\n  File \"/usr/lib/python3.8/site-packages/app/run.py\", line 3\n"
     "    from cumm.conv.bases import ConvOpType\n", "package_api_version_mismatch"),
    # a class of the program's own (a bare name) without the attribute
    ("AttributeError: type object 'Config' has no attribute 'lr'\n", "package_api_version_mismatch"),
    # another tool's unknown option; nvcc's --threads told without nvcc's prefix (other tools have the word too)
    ("samtools sort: unknown option --threads=8\n", "nvcc_option_unsupported"),
    ("unknown option '--split-mode' for rsync\n", "nvcc_option_unsupported"),
    # cuInit's initialization error with no fork told; a fork told with another CUDA error
    ("pycuda._driver.LogicError: cuInit failed: initialization error\n", "user_code_error"),
    ("multiprocessing worker: pycuda._driver.LogicError: cuInit failed: no CUDA-capable device is detected\n",
     "user_code_error"),
    # a macOS library that loaded; another library than CUDA's missing
    ("loaded /usr/local/cuda/lib/libcudart.10.2.dylib\n", "cudart_not_found"),
    ("dyld: Library not loaded: @rpath/libomp.dylib\n  Reason: image not found\n", "cudart_not_found"),
    # a circular import of the project's own torchvision.py; torchvision's attribute missing without the circular import
    ("  File \"/home/me/exp/torchvision.py\", line 2, in <module>\n    import torchvision\nAttributeError: partially "
     "initialized module 'torchvision' has no attribute 'models' (most likely due to a circular import)\n",
     "companion_built_for_other_torch"),
    ("AttributeError: module 'torchvision' has no attribute 'extension'\n", "companion_built_for_other_torch"),
    # numba refusing one GPU older than its toolkit supports (the GPU, not the toolkit)
    ("NvvmSupportError: GPU compute capability 3.0 is not supported(requires >=3.5)\n",
     "toolkit_below_extension_minimum"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)
