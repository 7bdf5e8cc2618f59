# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The own messages of GPU and graphics stacks beside torch that explain names a cause for: Paddle's dynamic
loader and GPU check, TensorRT's SM check, OpenCV's and MXNet's builds without CUDA, OpenMMLab's mmcv range, OptiX's
ABI check, GLFW's, pyrender's and MuJoCo's missing display or EGL device, and macOS's loader refusing another
architecture. Each text is written here from the format string in the tool's source (tables name it)."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_text


def _codes(text: str, n: int = 2) -> list[str]:
    return [f.code for f in explain_text(text, similar=False)][:n]


@pytest.mark.parametrize("lib", ["cudnn", "cublas", "cusolver", "nccl"])
def test_paddles_loader_finding_no_cuda_library(lib):
    method = {"cudnn": "cudnnGetVersion", "cublas": "cublasCreate_v2", "cusolver": "cusolverDnCreate",
              "nccl": "ncclGetVersion"}[lib]
    text = (f"RuntimeError: (PreconditionNotMet) Cannot load {lib} shared library. Cannot invoke method {method}.\n"
            f"  [Hint: {lib}_dso_handle should not be null.] (at /paddle/paddle/phi/backends/dynload/{lib}.cc:64)")
    assert _codes(text) == ["cudart_not_found", "prebuilt_binary_wrong_cuda"]


@pytest.mark.parametrize("dso, err", [
    ("cudnn64_8.dll", "126"),
    ("libcublas.so", "libcublas.so: cannot open shared object file: No such file or directory"),
])
def test_paddles_third_party_library_message(dso, err):
    text = (f"(PreconditionNotMet) The third-party dynamic library ({dso}) that Paddle depends on is not configured "
            f"correctly. (error code is {err})\n  Suggestions:\n  1. Check if the third-party dynamic library (e.g. "
            "CUDA, CUDNN) is installed correctly and its version is matched with paddlepaddle you installed.")
    codes = _codes(text)
    assert "cudart_not_found" in codes or "prebuilt_binary_wrong_cuda" in codes


@pytest.mark.parametrize("text", [
    "W0101 10:00:00.000 1 gpu_resources.cc:119] The GPU architecture in your current machine is Kepler, which is not "
    "compatible with Paddle installation with arch: 60 61 70 75 80 86 , it is recommended to install the "
    "corresponding wheel package according to the installation information on the official Paddle website.",
    "The GPU compute capability in your current machine is 90, which is not supported by Paddle, it is recommended "
    "to install the corresponding wheel package according to the installation information on the official Paddle "
    "website.",
])
def test_paddles_gpu_architecture_check(text):
    assert _codes(text) == ["no_kernel_image_for_gpu", "torch_wheel_lacks_gpu_arch"]


@pytest.mark.parametrize("text", [
    "[TRT] [E] 1: [caskUtils.cpp::trtSmToCask::193] Error Code 1: Internal Error (Unsupported SM: 0x601)",
    "[F] [TRT] Assertion failed: Unsupported SM.\n../rtSafe/cuda/caskUtils.cpp:80\nAborting...",
])
def test_tensorrts_sm_check(text):
    assert _codes(text) == ["no_kernel_image_for_gpu", "unsupported_gpu_arch"]


@pytest.mark.parametrize("text", [
    "cv2.error: OpenCV(4.9.0) /io/opencv/modules/core/include/opencv2/core/private.cuda.hpp:106: error: "
    "(-216:No CUDA support) The library is compiled without CUDA support in function 'throw_no_cuda'",
    "mxnet.base.MXNetError: [12:00:00] src/storage/storage.cc:119: Compile with USE_CUDA=1 to enable GPU usage",
])
def test_a_library_built_without_cuda(text):
    assert _codes(text, 1) == ["cpu_only_torch_with_gpu"]


def test_openmmlabs_mmcv_range():
    text = "AssertionError: MMCV==1.7.2 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.1.0."
    assert _codes(text, 1) == ["package_api_version_mismatch"]


@pytest.mark.parametrize("text", [
    "OptiX error: optixInit() failed: OPTIX_ERROR_UNSUPPORTED_ABI_VERSION",
    "Optix call (optixInit()) failed with code 7801 (line 88)",
])
def test_optix_abi_is_a_driver_too_old(text):
    assert _codes(text, 1) == ["driver_too_old"]


@pytest.mark.parametrize("text", [
    "glfw.GLFWError: (65544) b'X11: The DISPLAY environment variable is missing'",
    "GLFW error 65544: X11: Failed to open display :1",
    "ValueError: Failed to initialize Pyglet window with an OpenGL >= 3+ context. If you're logged in via SSH, "
    "ensure that you're running your script with vglrun (i.e. VirtualGL). The internal error message was \"\"",
    "ImportError: Cannot initialize a EGL device display. This likely means that your EGL driver does not support "
    "the PLATFORM_DEVICE extension, which is required for creating a headless rendering context.",
])
def test_no_display_or_egl_device_for_a_renderer(text):
    assert _codes(text, 1) == ["opengl_egl_unavailable"]


@pytest.mark.parametrize("text", [
    "ImportError: dlopen(/Users/u/venv/lib/python3.12/site-packages/pkg/_core.cpython-312-darwin.so, 0x0002): "
    "tried: '/Users/u/venv/lib/python3.12/site-packages/pkg/_core.cpython-312-darwin.so' (mach-o file, but is an "
    "incompatible architecture (have 'arm64', need 'x86_64'))",
    # a terminal's wrap splits dyld's sentence over two lines
    "OSError: dlopen(/opt/homebrew/lib/libomp.dylib, 0x0006): tried: '/opt/homebrew/lib/libomp.dylib' (mach-o file, "
    "but is an incompatible\narchitecture (have 'x86_64', need 'arm64e'))",
])
def test_macos_loader_refusing_another_architecture(text):
    assert _codes(text, 1) == ["wrong_architecture_binary"]


@pytest.mark.parametrize("text", [
    "The architecture (have a look at the docs) of this model is new.",
    "Cannot load the config file: no such shared library settings",
    "MMCV is installed and working.",
])
def test_near_misses_are_not_read(text):
    assert _codes(text) == []
