# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 15 (the kinds behind dev13's misses: GPUs, drivers and loaders beyond CUDA): Vulkan's out-of-device-
memory in its several spellings (ncnn, ggml-vulkan, TVM/MLC-LLM), vulkan.hpp's enumeratePhysicalDevices
ErrorInitializationFailed (the driver's graphics/Vulkan user-space part), the loader's 'no drivers' with the
graphics reading second, OpenCL without a platform or device, rocBLAS's 'Illegal seek' on TensileLibrary.dat,
conda's/mamba's __cuda constraint of a newer CUDA than the driver's, triton's fp8e4nv below capability 8.9, OpenMM's
CPU platform unregistered, DGL's GraphBolt library for another torch, Jittor's no device, HIP SDK 6's DLLs missing,
JupyterHub's single-user command not found, Windows' unnamed 'DLL load failed' in a kernel of a conda environment
(not activated for the kernel, second). Each text is written for the test (other tools, versions, wordings than the
threads); each kind has near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # Vulkan's VK_ERROR_OUT_OF_DEVICE_MEMORY (-2): ncnn's number, vulkan.hpp's exception, the enum, TVM's check
    ("[0 AMD Radeon RX 6600]  vkAllocateMemory failed -2\n", ["cuda_oom"]),
    ("ggml_vulkan: Device memory allocation of size 4294967296 failed.\n"
     "terminate called after throwing an instance of 'vk::OutOfDeviceMemoryError'\n"
     "  what():  vk::Device::allocateMemory: ErrorOutOfDeviceMemory\n", ["cuda_oom"]),
    ("vkCreateBuffer returned VK_ERROR_OUT_OF_DEVICE_MEMORY while uploading the weights\n", ["cuda_oom"]),
    ("tvm/src/runtime/vulkan/vulkan_device.cc:310: InternalError: Check failed: (__e == VK_SUCCESS) is false: "
     "Vulkan Error, code=-2: VK_ERROR_OUT_OF_DEVICE_MEMORY\n", ["cuda_oom"]),
    # vulkan.hpp's enumeratePhysicalDevices: an ICD found, no device initialised (the driver's graphics part)
    ("  File \"/env/lib/python3.10/site-packages/sapien/wrapper/renderer.py\", line 12, in __init__\n"
     "RuntimeError: vk::Instance::enumeratePhysicalDevices: ErrorInitializationFailed\n",
     ["opengl_egl_unavailable", "driver_broken"]),
    # the loader found no ICD: the Vulkan driver or the NVIDIA driver's graphics part missing
    ("[ncnn] vkCreateInstance failed -9\n", ["library_not_found", "opengl_egl_unavailable"]),
    # OpenCL without a platform (the ICD not registered) or a device
    ("pyopencl._cl.LogicError: clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR\nclGetPlatformIDs returned -1001\n",
     ["library_not_found", "gpu_not_exposed_to_process"]),
    ("[LightGBM] [Fatal] No OpenCL device found\n", ["library_not_found", "gpu_not_exposed_to_process"]),
    ("terminate called after throwing an instance of 'boost::wrapexcept<boost::compute::no_device_found>'\n"
     "  what():  No OpenCL device found\n", ["library_not_found", "gpu_not_exposed_to_process"]),
    # rocBLAS's failed read of its Tensile library in the 'Illegal seek' wording: a gfx target it has no kernels for
    ("rocBLAS error: Cannot read /opt/rocm-6.0.2/lib/rocblas/library/TensileLibrary.dat: Illegal seek\n"
     "Aborted (core dumped)\n", ["torch_wheel_lacks_gpu_arch", "no_kernel_image_for_gpu"]),
    # the __cuda virtual package (the driver's CUDA) older than a package's constraint: mamba's and conda's wording
    ("Encountered problems while solving:\n  - package pytorch-2.0.1-py3.10_cuda11.8_cudnn8.7.0_0 has constraint "
     "__cuda >=11.8 conflicting with __cuda-11.4-0\n", ["driver_too_old"]),
    ("UnsatisfiableError: The following specifications were found to be incompatible with your system:\n\n"
     "  - feature:/linux-64::__cuda==11.2=0\n  - cudatoolkit=11.8 -> __cuda[version='>=11.8']\n\n"
     "Your installed CUDA driver is: 11.2\n", ["driver_too_old"]),
    # triton's fp8e4nv (float8_e4m3fn) on a GPU below capability 8.9
    ("triton.compiler.errors.CompilationError: at 1:0:\ndef _fp8_gemm_kernel(\n^\n"
     "ValueError(\"type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', "
     "'fp8e5')\")\n", ["gpu_below_extension_minimum"]),
    # OpenMM's CPU platform registers only on a processor with its instructions
    ("openmm.OpenMMException: There is no registered Platform called \"CPU\"\n",
     ["cpu_instruction_unsupported", "library_not_found"]),
    # DGL's GraphBolt library of the installed torch's release absent: DGL built for other torch releases
    ("  File \"/env/lib/python3.11/site-packages/dgl/graphbolt/__init__.py\", line 26, in load_graphbolt\n"
     "FileNotFoundError: Cannot find DGL C++ graphbolt library at /env/lib/python3.11/site-packages/dgl/graphbolt/"
     "libgraphbolt_pytorch_2.4.0.so\n", ["companion_built_for_other_torch"]),
    # Jittor's use_cuda: the runtime counts no device
    ("[f 0312 10:01:02.123456 12 cuda_flags.cc:25] Check failed: count>0  No device found.\n",
     ["no_gpu", "driver_broken"]),
    # HIP SDK 6's runtime DLLs missing (ZLUDA, a ROCm torch on Windows): not installed, or a GPU it does not support
    ("The code execution cannot proceed because amdhip64_6.dll was not found. Reinstalling the program may fix "
     "this problem.\n", ["library_not_found", "gpu_below_extension_minimum"]),
    # Windows' unnamed DLL failure in a kernel of a conda environment: the environment's DLLs reach PATH by activation
    ("In [1]: import scipy.linalg\n---------------------------------------------------------------------------\n"
     "ImportError                               Traceback (most recent call last)\n"
     "C:\\Users\\me\\anaconda3\\envs\\geo\\lib\\site-packages\\scipy\\linalg\\__init__.py in <module>\n"
     "ImportError: DLL load failed: The specified module could not be found.\n(run in a Jupyter notebook)\n",
     ["library_not_found", "env_not_propagated_to_kernel"]),
    # JupyterHub's single-user command absent from the spawned environment
    ('Error response from daemon: OCI runtime create failed: exec: "jupyterhub-singleuser": executable file not '
     'found in $PATH: unknown\n', ["env_not_propagated_to_kernel", "kernel_wrong_python"]),
    ("/opt/start.sh: line 4: jupyterhub-singleuser: command not found\n",
     ["env_not_propagated_to_kernel", "kernel_wrong_python"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # Vulkan's host-memory error and other allocation results are not the GPU's memory
    ("vkAllocateMemory failed -1\n", "cuda_oom"),
    ("vk::Device::allocateMemory: ErrorOutOfHostMemory\n", "cuda_oom"),
    ("Vulkan Error, code=-3: VK_ERROR_INITIALIZATION_FAILED\n", "cuda_oom"),
    # other vulkan.hpp failures are not the graphics part missing
    ("RuntimeError: vk::Device::createSwapchainKHR: ErrorSurfaceLostKHR\n", "opengl_egl_unavailable"),
    # other OpenCL errors: a device was found
    ("pyopencl._cl.MemoryError: clEnqueueNDRangeKernel failed: MEM_OBJECT_ALLOCATION_FAILURE\n", "library_not_found"),
    ("No OpenCL kernels were compiled for this device\n", "gpu_not_exposed_to_process"),
    # rocBLAS's other messages
    ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Permission denied\n",
     "no_kernel_image_for_gpu"),
    # a __cuda constraint against another virtual package; __glibc's
    ("package foo-1.0-0 has constraint __glibc >=2.28 conflicting with __glibc-2.17-0\n", "driver_too_old"),
    # triton's other fp8 refusal: fp8e4b15 on Hopper is not a GPU too old
    ("ValueError(\"type fp8e4b15 not supported in this architecture. The supported fp8 dtypes are ('fp8e4nv', "
     "'fp8e5')\")\n", "gpu_below_extension_minimum"),
    # OpenMM's other platforms: a plugin not loaded, not the CPU's instructions
    ("Exception: There is no registered Platform called \"CUDA\"\n", "cpu_instruction_unsupported"),
    # DGL's other library missing is not a torch mismatch
    ("dgl._ffi.base.DGLError: Cannot find the files.\nList of candidates:\n/usr/lib/libdgl.so\n",
     "companion_built_for_other_torch"),
    # Jittor's other checks
    ("[f 0312 10:01:02.1 12 op.cc:80] Check failed: count>0  Something else\n", "no_gpu"),
    # HIP SDK 5's DLLs present; another DLL missing
    ("The code execution cannot proceed because amdhip64.dll was not found.\n", "gpu_below_extension_minimum"),
    # the same DLL failure from a script in a terminal, or torch's own _C in a kernel: not the kernel's environment
    ("C:\\Users\\me\\miniconda3\\envs\\geo\\lib\\site-packages\\scipy\\__init__.py\n"
     "ImportError: DLL load failed: The specified module could not be found.\n", "env_not_propagated_to_kernel"),
    # other commands not found
    ("bash: jupyter-lab: command not found\n", "env_not_propagated_to_kernel"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)
