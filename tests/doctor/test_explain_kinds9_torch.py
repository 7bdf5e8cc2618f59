# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 9, the torch layer's codes: libraries' own messages about the GPU's architecture (a GPU older than
the library supports, a binary without code for the GPU), torch's messages about a build for another device, and the
readings of a missing torch in a notebook. Each text is written from the tool's own message (see the table rows'
``source``); each risky pattern has a text of another kind that must not get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor._textfacts import events_of, read_text

from ._rules import rule_codes

IPYTHON_TORCH = ("ModuleNotFoundError                       Traceback (most recent call last)\n"
                 "<ipython-input-3-0a1b2c3d4e5f> in <module>\n"
                 "----> 1 import torch\n\n"
                 "ModuleNotFoundError: No module named 'torch'\n")

READINGS = [
    # CUTLASS' tensor-core examples check the GPU before running
    ("Ampere Tensor Core operations must be run on a machine with compute capability at least 80.\n",
     ["gpu_below_extension_minimum"]),
    ("Turing Tensor Ops must be run on a machine with compute capability at least 75.\n",
     ["gpu_below_extension_minimum"]),
    # Kokkos' probe kernel at initialisation
    ("Kokkos::Cuda::initialize ERROR: likely mismatch of architecture\n", ["no_kernel_image_for_gpu"]),
    ("Kokkos::Cuda::initialize ERROR: running kernels compiled for compute capability 8.6 on device with compute "
     "capability 7.0 is not supported by CUDA!\n", ["no_kernel_image_for_gpu"]),
    # RAPIDS' minimum GPU
    ("cudf.utils.gpu_utils.UnsupportedCUDAError: A GPU with NVIDIA Volta\u2122 (Compute Capability 7.0) or newer "
     "architecture is required.\nDetected GPU 0: Tesla P100-PCIE-16GB\nDetected Compute Capability: 6.0\n",
     ["gpu_below_extension_minimum"]),
    ("UserWarning: You will need a GPU with NVIDIA Pascal\u2122 or newer architecture\nDetected GPU 0: Tesla K40c \n"
     "Detected Compute Capability: 3.5\n", ["gpu_below_extension_minimum"]),
    ("  File \"/opt/conda/lib/python3.10/site-packages/cudf/utils/_numba.py\", line 58, in _get_ptx_file\n"
     "RuntimeError: This cuDF installation is missing the necessary PTX files that are <=37.\n",
     ["gpu_below_extension_minimum", "no_kernel_image_for_gpu"]),
    # minimum compute capabilities checked by other libraries
    ("RuntimeError: Device 1 does not have CUDA compute capability 3.0 or greater\n", ["gpu_below_extension_minimum"]),
    ("No CUDA devices found with minimum required compute capability: 3.5. Falling back to OpenCL mode.\n",
     ["gpu_below_extension_minimum"]),
    ('  File "/env/lib/python3.10/site-packages/accelerate/accelerator.py", line 484, in __init__\n'
     "ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device.\n",
     ["gpu_below_extension_minimum"]),
    ("ERROR: Detected NVIDIA Tesla M60 GPU, which is not supported by this container\n"
     "ERROR: No supported GPU(s) detected to run this container\n", ["gpu_below_extension_minimum"]),
    # TensorFlow without cubins for the GPU (a PTX JIT at start that looks like a hang)
    ("W tensorflow/core/common_runtime/gpu/gpu_device.cc:2020] TensorFlow was not built with CUDA kernel binaries "
     "compatible with compute capability 12.0. CUDA kernels will be jit-compiled from PTX, which could take 30 "
     "minutes or longer.\n", ["no_kernel_image_for_gpu"]),
    # triton's shared-memory limit
    ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: "
     "101376. Reducing block sizes or `num_stages` may help.\n", ["gpu_below_extension_minimum", "library_bug"]),
    ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 262144, Hardware limit: "
     "232448. Reducing block sizes or `num_stages` may help.\n", ["library_bug", "gpu_below_extension_minimum"]),
    # binaries without code for this GPU
    ("[E] [TRT] Engine plan file is generated on an incompatible device\n[E] [TRT] Deserialize the cuda engine "
     "failed.\n", ["no_kernel_image_for_gpu"]),
    ("thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: NoBinaryForGpu', src/main.rs:12:5\n",
     ["no_kernel_image_for_gpu"]),
    ("CUDA error at src/solver.cu:88 code=13(cudaErrorInvalidSymbol) \"cudaMemcpyToSymbol(d_coeffs, h_coeffs, "
     "sizeof(h_coeffs))\"\n", ["no_kernel_image_for_gpu", "user_code_error"]),
    # cuDNN's arch mismatch as bindings name it
    ("    raise cudnnExceptions[status]\nlibcudnn.cudnnStatusArchMismatch\n", ["gpu_below_extension_minimum"]),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_ARCH_MISMATCH\n", ["torch_wheel_lacks_gpu_arch",
                                                                "gpu_below_extension_minimum"]),
    ("ERROR: Arch mismatch\n in create at /home/u/.julia/v0.4/Mocha/src/cuda/cudnn.jl:43\n",
     ["gpu_below_extension_minimum"]),
    # torch's own messages
    ("NVIDIA GeForce RTX 4090 with CUDA capability\nsm_89 is not compatible with the current PyTorch installation.\n",
     ["torch_wheel_lacks_gpu_arch"]),
    ("RuntimeError: PyTorch is not linked with support for xpu devices\n", ["cpu_only_torch_with_gpu"]),
    ('RuntimeError: "slow_conv2d_cpu" not implemented for \'Half\'\n', ["user_code_error", "cpu_only_torch_with_gpu"]),
    ("torch 2.1.0+cpu\nRuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'\n",
     ["cpu_only_torch_with_gpu"]),
    # a program's assertion that CUDA is available failed: what the text shows decides why
    ('  File "train.py", line 12, in <module>\n    assert torch.cuda.is_available(), "GPU needed"\n'
     "AssertionError: GPU needed\n", ["torch_cuda_unavailable", "no_gpu"]),
    ("torch 2.2.1+cpu\n  File \"train.py\", line 12, in <module>\n    assert torch.cuda.is_available()\n"
     "AssertionError\n", ["cpu_only_torch_with_gpu"]),
    # jax's older wording of its jaxlib check (without '>=')
    ("ValueError: jaxlib is version 0.1.60, but this version of jax requires version 0.1.65.\n",
     ["package_api_version_mismatch"]),
    # a build for AMD GPUs on an NVIDIA machine
    ("GPU 0: NVIDIA GeForce RTX 3070 (UUID: GPU-0000)\nRuntimeError: HIP error: no ROCm-capable device is detected\n",
     ["cpu_only_torch_with_gpu", "no_gpu"]),
    # torch.cuda.get_arch_list() printed beside the GPU: no cubin of its major, no PTX at or below it
    (">>> torch.cuda.get_arch_list()\n['sm_37', 'sm_50', 'sm_60', 'sm_70']\n>>> torch.cuda.get_device_name(0)\n"
     "'NVIDIA GeForce RTX 3090'\n", ["torch_wheel_lacks_gpu_arch"]),
    ("torch.cuda.get_arch_list(): ['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90']\nGPU: Tesla K80\n",
     ["torch_wheel_lacks_gpu_arch"]),
    # torch said to lack the GPU's architecture
    ("The torch 2.7.0+cu128 wheel has no sm_50 kernels, so nothing runs on the Quadro M2000.\n",
     ["torch_wheel_lacks_gpu_arch"]),
    # a GPU outside every architecture of the CUDA release the text names (Ampere under CUDA 10.2, Kepler under 12.x)
    ("GPU: GeForce RTX 3080. The framework is the CUDA 10.2 build; its self-check never finishes.\n",
     ["no_kernel_image_for_gpu", "torch_wheel_lacks_gpu_arch"]),
    ("Tesla K80 on the node, CUDA 12.1 toolkit; every kernel launch of the program fails.\n",
     ["no_kernel_image_for_gpu", "torch_wheel_lacks_gpu_arch"]),
    # a compiled module built for another CPython than the one named as running it
    ("The build wrote build/fastops.cpython-311-x86_64-linux-gnu.so, and I run python 3.9:\n"
     "ModuleNotFoundError: No module named 'fastops'\n", ["kernel_wrong_python"]),
    # torch missing in a notebook: another Python's, or not installed at all
    (IPYTHON_TORCH, ["kernel_wrong_python", "torch_not_installed"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # Kokkos' warning of a build for an older GPU of the same family still runs
    ("Kokkos::Cuda::initialize WARNING: running kernels compiled for compute capability 7.0 on device with compute "
     "capability 7.5 , this will likely reduce potential performance.\n", "no_kernel_image_for_gpu"),
    # detectron2's torch check is a torch version gate, not a GPU
    ("AssertionError: Requires PyTorch >= 1.8\n", "gpu_below_extension_minimum"),
    # a CUDA kernel without a Half implementation is no CPU fallback
    ('RuntimeError: "nll_loss2d_forward_out_cuda_template" not implemented for \'Half\'\n', "cpu_only_torch_with_gpu"),
    # "arch mismatch" of a linker, not cuDNN
    ("ld: error: arch mismatch between object files main.o and util.o\n", "gpu_below_extension_minimum"),
    # ROCm without a device where the text names an AMD GPU, or no GPU at all
    ("AMD Radeon RX 6800\nGPU 0: NVIDIA GeForce RTX 3070\nRuntimeError: HIP error: no ROCm-capable device is "
     "detected\n", "cpu_only_torch_with_gpu"),
    ("RuntimeError: HIP error: no ROCm-capable device is detected\n", "cpu_only_torch_with_gpu"),
    # a GPU the named CUDA release compiles for, or two CUDA releases named (which one builds is not said)
    ("GPU: GeForce RTX 3080, CUDA 11.8; the program's kernels fail.\n", "no_kernel_image_for_gpu"),
    ("GPU: GeForce RTX 3080; CUDA 10.2 and CUDA 11.8 are both installed; the program's kernels fail.\n",
     "no_kernel_image_for_gpu"),
    # the module's file is for the Python that runs
    ("The build wrote build/fastops.cpython-311-x86_64-linux-gnu.so, and I run python 3.11:\n"
     "ModuleNotFoundError: No module named 'fastops'\n", "kernel_wrong_python"),
    # the arch list covers the GPU (a cubin of its major below its minor, or PTX the driver compiles)
    (">>> torch.cuda.get_arch_list()\n['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'compute_86']\n"
     ">>> torch.cuda.get_device_name(0)\n'NVIDIA GeForce RTX 4090'\n", "torch_wheel_lacks_gpu_arch"),
    # the assertion shown in code that ran without failing
    ("    assert torch.cuda.is_available()\n    model = Net().cuda()\n", "torch_cuda_unavailable"),
    # an extension, not torch, lacking the architecture
    ("torch has sm_86 but my extension has no sm_86 kernels\n", "torch_wheel_lacks_gpu_arch"),
    # torch said installed: another Python, not a missing install
    ("I already installed torch with pip.\n" + IPYTHON_TORCH, "torch_not_installed"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text)


def test_xpu_backend_fix_names_the_xpu_wheels():
    found = explain_result("RuntimeError: PyTorch is not linked with support for xpu devices\n", similar=False).findings
    assert found[0].code == "cpu_only_torch_with_gpu"
    assert "xpu" in found[0].title
    assert any("whl/xpu" in c for c in found[0].fix.commands)


def test_rocm_on_nvidia_fix_is_the_build_for_nvidia():
    text = "GPU 0: NVIDIA GeForce RTX 3070\nRuntimeError: HIP error: no ROCm-capable device is detected\n"
    found = explain_result(text, similar=False).findings
    assert found[0].code == "cpu_only_torch_with_gpu"
    assert "AMD" in found[0].title and "NVIDIA" in found[0].title


def test_hip_missing_code_object_is_not_read_as_the_rust_bindings_name():
    text = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
    keys = {e.get("key") for e in events_of(read_text(text))}
    assert "hip_no_binary" in keys and "rust_cuda_no_binary" not in keys
