# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The own messages of GPU and graphics stacks beside torch that explain names a cause for: Paddle's dynamic
loader and GPU check, TensorRT's SM check, OpenCV's and MXNet's builds without CUDA, OpenMMLab's mmcv range, OptiX's
ABI check, GLFW's, pyrender's and MuJoCo's missing display or EGL device, and macOS's loader refusing another
architecture. Each text is written here from the format string in the tool's source (tables name it)."""

from __future__ import annotations

import pytest

from tests.doctor._rules import rule_codes as _codes


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
    assert _codes(text, n=1) == ["cpu_only_torch_with_gpu"]


def test_openmmlabs_mmcv_range():
    text = "AssertionError: MMCV==1.7.2 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.1.0."
    assert _codes(text, n=1) == ["package_api_version_mismatch"]


@pytest.mark.parametrize("text", [
    "OptiX error: optixInit() failed: OPTIX_ERROR_UNSUPPORTED_ABI_VERSION",
    "Optix call (optixInit()) failed with code 7801 (line 88)",
])
def test_optix_abi_is_a_driver_too_old(text):
    assert _codes(text, n=1) == ["driver_too_old"]


@pytest.mark.parametrize("text", [
    "glfw.GLFWError: (65544) b'X11: The DISPLAY environment variable is missing'",
    "GLFW error 65544: X11: Failed to open display :1",
    "ValueError: Failed to initialize Pyglet window with an OpenGL >= 3+ context. If you're logged in via SSH, "
    "ensure that you're running your script with vglrun (i.e. VirtualGL). The internal error message was \"\"",
    "ImportError: Cannot initialize a EGL device display. This likely means that your EGL driver does not support "
    "the PLATFORM_DEVICE extension, which is required for creating a headless rendering context.",
])
def test_no_display_or_egl_device_for_a_renderer(text):
    assert _codes(text, n=1) == ["opengl_egl_unavailable"]


@pytest.mark.parametrize("text", [
    "ImportError: dlopen(/Users/u/venv/lib/python3.12/site-packages/pkg/_core.cpython-312-darwin.so, 0x0002): "
    "tried: '/Users/u/venv/lib/python3.12/site-packages/pkg/_core.cpython-312-darwin.so' (mach-o file, but is an "
    "incompatible architecture (have 'arm64', need 'x86_64'))",
    # a terminal's wrap splits dyld's sentence over two lines
    "OSError: dlopen(/opt/homebrew/lib/libomp.dylib, 0x0006): tried: '/opt/homebrew/lib/libomp.dylib' (mach-o file, "
    "but is an incompatible\narchitecture (have 'x86_64', need 'arm64e'))",
])
def test_macos_loader_refusing_another_architecture(text):
    assert _codes(text, n=1) == ["wrong_architecture_binary"]


@pytest.mark.parametrize("text", [
    "The architecture (have a look at the docs) of this model is new.",
    "Cannot load the config file: no such shared library settings",
    "MMCV is installed and working.",
])
def test_near_misses_are_not_read(text):
    assert _codes(text) == []


# ------------------------------------------------------------------ serving stacks: memory and dtype checks
@pytest.mark.parametrize("text", [
    "ValueError: The model's max seq len (65536) is larger than the maximum number of tokens that can be stored in "
    "KV cache (12288). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the "
    "engine.",
    "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
    "initializing the engine.",
    "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the "
    "quantized model. If you want to dispatch the model on the CPU or the disk while keeping these modules in 32-bit, "
    "you need to set `llm_int8_enable_fp32_cpu_offload=True`",
])
def test_a_model_too_large_for_the_gpu(text):
    assert _codes(text, n=1) == ["cuda_oom"]


@pytest.mark.parametrize("text", [
    "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Quadro RTX 6000 GPU "
    "has compute capability 7.5.",
    "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0",
    "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
    "RuntimeError: Expected is_sm80 to be true, but got false.  (Could this error message be improved?)",
])
def test_a_gpu_older_than_the_kernel_or_dtype(text):
    assert _codes(text, n=1) == ["gpu_below_extension_minimum"]


def test_ollamas_cudart_probe_on_an_old_driver():
    text = ('level=DEBUG source=gpu.go:600 msg="Unable to load cudart library /opt/ollama/lib/cudart64_12.dll: your '
            'nvidia driver is too old or missing.  If you have a CUDA GPU please upgrade to run ollama"')
    assert _codes(text, n=1) == ["driver_too_old"]


def test_tensorflows_cudnn_dso():
    text = "I tensorflow/stream_executor/cuda/cuda_dnn.cc:1100] Unable to load cuDNN DSO."
    assert set(_codes(text)) == {"cudart_not_found", "prebuilt_binary_wrong_cuda"}


# ------------------------------------------------------------------ OptiX and Vulkan
def test_optix_without_the_drivers_library():
    assert _codes("optixInit() failed with code 7804") == ["library_not_found", "gpu_not_exposed_to_process"]


@pytest.mark.parametrize("text, first", [
    ("ERROR: [Loader Message] Code 0 : vkCreateInstance: Found no drivers!\nCannot create Vulkan instance.\n"
     "vulkaninfo.h:500: failed with ERROR_INCOMPATIBLE_DRIVER", "library_not_found"),
    ("[0 NVIDIA GeForce RTX 4060]  vkCreateInstance failed -3", "driver_broken"),
    ("Fatal: Couldn't create Vulkan instance", "library_not_found"),
])
def test_vulkan_instance_failures(text, first):
    assert _codes(text, n=1) == [first]


# ------------------------------------------------------------------ builds: CMake, clang, distributed
@pytest.mark.parametrize("text, code", [
    ("CMake Error at CMakeLists.txt:5 (project):\n  No CMAKE_CUDA_COMPILER could be found.\n\n  Tell CMake where to "
     "find the compiler by setting either the environment variable \"CUDACXX\"", "cuda_home_missing"),
    ("CMake Error at /usr/share/cmake-3.28/Modules/CMakeDetermineCUDACompiler.cmake:180 (message):\n  Failed to find "
     "nvcc.\n\n  Compiler requires the CUDA toolkit.  Please set the CUDAToolkit_ROOT variable.", "cuda_home_missing"),
    ("CMake Error at C:/Program Files/CMake/share/cmake-3.30/Modules/CMakeDetermineCompilerId.cmake:614 (message):\n"
     "  No CUDA toolset found.", "windows_msvc_toolchain"),
    ("clang++: error: unsupported option '-fopenmp'\nerror: command '/usr/bin/clang++' failed with exit code 1",
     "build_dependency_missing"),
    ("RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.",
     "user_code_error"),
    ("ImportError: `trimesh.viewer.windowed` requires `pip install \"pyglet<2\"`", "package_api_version_mismatch"),
])
def test_build_and_setup_messages(text, code):
    assert _codes(text, n=1) == [code]


# ------------------------------------------------------------------ builds without the GPU part, JIT, WSL, OpenMM
def test_opencvs_dnn_without_its_cuda_backend():
    text = ("[ WARN:0@1.2] global net_impl.cpp:178 setUpNet DNN module was not built with CUDA backend; switching to "
            "CPU")
    assert _codes(text, n=1) == ["cpu_only_torch_with_gpu"]


def test_tensorflow_ignoring_a_gpu_below_its_builds_minimum():
    text = ("I gpu_device.cc:1700] Ignoring visible gpu device (device: 0, name: Quadro K4000, pci bus id: "
            "0000:03:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The minimum required Cuda "
            "capability is 3.5.")
    # one row for this message (tf_gpu_below_minimum_cc): the prebuilt package's minimum, then its missing arch
    assert _codes(text) == ["gpu_below_extension_minimum", "torch_wheel_lacks_gpu_arch"]


def test_openmm_finding_no_usable_cuda_device():
    text = "openmm.OpenMMException: No compatible CUDA device is available"
    assert _codes(text) == ["gpu_not_exposed_to_process", "driver_too_old"]


def test_the_drivers_jit_given_newer_ptx():
    text = ("numba.cuda.cudadrv.driver.LinkerError: [222] Call to cuLinkAddData results in "
            "CUDA_ERROR_UNSUPPORTED_PTX_VERSION\nptxas application ptx input, line 9; fatal   : Unsupported .version "
            "8.4; current version is '8.2'")
    assert "driver_below_cuda_minor" in _codes(text)


def test_nvml_blocked_under_wsl():
    text = "$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system"
    assert _codes(text) == ["gpu_not_exposed_to_process", "driver_broken"]


def test_flash_attn_0x_cuda_minimum():
    text = "RuntimeError: FlashAttention is only supported on CUDA 11 and above"
    assert _codes(text, n=1) == ["toolkit_below_extension_minimum"]


@pytest.mark.parametrize("num, code", [("804", "forward_compat_unsupported"), ("100", "no_gpu")])
def test_cu_safe_calls_driver_error_number_is_a_curesult(num, code):
    """The CUDA SDK's cutil and LAMMPS' geryon print a CUresult as 'Cuda driver error N in call at file ...'."""
    text = f"Cuda driver error {num} in call at file '/opt/lammps/lib/gpu/geryon/nvd_device.h' in line 333."
    assert code in _codes(text)


# ------------------------------------------------------------------ Windows' ERROR_PROC_NOT_FOUND of a torch extension
def test_a_torch_extension_missing_a_procedure_of_the_installed_torch():
    text = ("Traceback (most recent call last):\n  File \"C:\\app\\run.py\", line 3, in <module>\n    import my_ops_cuda\n"
            "ImportError: DLL load failed while importing my_ops_cuda: The specified procedure could not be found.\n"
            "torch 2.4.1+cu124 installed with pip")
    assert _codes(text) == ["abi_torch_version_mismatch", "library_shadowed_older_copy"]


@pytest.mark.parametrize("text", [
    # no torch in the text: nothing says the module is built against torch
    "ImportError: DLL load failed while importing _imaging: The specified procedure could not be found.",
    # torch's own _C: its DLLs, not an extension built against it
    "ImportError: DLL load failed while importing _C: The specified procedure could not be found.\ntorch 2.3.0+cu121",
])
def test_the_procedure_reading_needs_an_extension_and_a_torch(text):
    assert "abi_torch_version_mismatch" not in _codes(text)


# ------------------------------------------------------------------ names from Python files, cuBLAS, sampling, accelerate
def test_a_name_missing_from_a_python_file_is_another_release_not_a_compiled_module():
    text = ("ImportError: cannot import name '_private_helper' from 'somepkg.utils.loss' "
            "(/opt/venv/lib/python3.11/site-packages/somepkg/utils/loss.py)")
    assert _codes(text, n=1) == ["package_api_version_mismatch"]


def test_a_compiled_submodule_of_a_package_is_still_read_as_not_compiled():
    text = "ImportError: cannot import name '_C' from 'somepkg' (/opt/venv/lib/python3.11/site-packages/somepkg/__init__.py)"
    assert _codes(text, n=1) == ["extension_not_compiled"]


def test_cublas_not_supported():
    text = ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( handle, opa, opb, m, n, "
            "k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, CUDA_R_32F, "
            "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`")
    assert _codes(text) == ["library_shadowed_older_copy", "gpu_below_extension_minimum"]


def test_multinomial_given_nan_probabilities_is_the_calling_code():
    assert _codes("RuntimeError: probability tensor contains either `inf`, `nan` or element < 0", n=1) == [
        "user_code_error"]


@pytest.mark.parametrize("text", [
    "ValueError: You can't train a model that has been loaded in 8-bit precision on multiple devices.",
    "ValueError: You can't train a model that has been loaded in 8-bit precision on a different device than the one "
    "you're training on. Make sure you loaded the model on the correct device using for example `device_map={'':0}`",
])
def test_accelerates_8bit_placement_check(text):
    assert _codes(text) == ["library_bug", "user_code_error"]


# ------------------------------------------------------------------ compiled parts missing, LAMMPS styles, ptxas
@pytest.mark.parametrize("text", [
    "WARNING:auto_gptq.nn_modules.qlinear.qlinear_cuda:CUDA extension not installed.",
    "WARNING - Exllama kernel is not installed, reset disable_exllama to True. This may because you installed auto_gptq "
    "using a pre-build wheel on Windows, in which exllama_kernels are not compiled.",
    # Python's form while the package is still initialising
    "ImportError: cannot import name 'nms_cuda' from partially initialized module 'pkg.ops.nms' (most likely due to a "
    "circular import) (/src/pkg/ops/nms/__init__.py)",
    "ERROR: Unrecognized pair style 'lj/cut/kk' is part of the KOKKOS package which is not enabled in this LAMMPS "
    "binary. (src/force.cpp:275)",
])
def test_a_compiled_part_that_was_not_built(text):
    assert _codes(text, n=1) == ["extension_not_compiled"]


@pytest.mark.parametrize("text", [
    "ERROR: Unrecognized compute style 'tempp' (src/modify.cpp:1450)",
    "ptxas fatal   : Unresolved extern function '_Z12warpReduceSumf'\nmake: *** [kernel.o] Error 255",
])
def test_the_input_or_the_build_command_is_the_cause(text):
    assert _codes(text, n=1) == ["user_code_error"]


# ------------------------------------------------------------------ CMake's architecture detection, CUDA torch on a Mac
def test_cmake_finding_no_working_cuda_architecture_is_the_host_compiler():
    text = ("-- The CUDA compiler identification is NVIDIA 12.1.105\nCMake Error at "
            "/usr/share/cmake-3.27/Modules/CMakeDetermineCUDACompiler.cmake:277 (message):\n"
            "  Failed to find a working CUDA architecture.")
    assert set(_codes(text)) == {"host_compiler_unsupported", "windows_msvc_toolchain"}


def test_a_cuda_build_of_torch_asked_for_on_a_mac():
    text = ("ERROR: Could not find a version that satisfies the requirement torch==2.3.1+cu121 (from versions: 2.2.0, "
            "2.2.1, 2.3.0, 2.3.1)\nERROR: No matching distribution found for torch==2.3.1+cu121\nmacOS 14.4 on an Apple "
            "M3")
    assert _codes(text, n=1) == ["no_gpu"]


def test_the_same_pip_failure_on_linux_is_not_read_as_no_gpu():
    text = ("ERROR: Could not find a version that satisfies the requirement torch==2.3.1+cu121 (from versions: 2.2.0, "
            "2.3.1)\nERROR: No matching distribution found for torch==2.3.1+cu121\nUbuntu 22.04")
    assert "no_gpu" not in _codes(text)


# ------------------------------------------------------------------ Windows' ctypes on a CUDA build's own DLL
def test_a_cuda_builds_own_dll_not_loading_is_its_cuda_runtime():
    text = ("FileNotFoundError: Could not find module 'C:\\Users\\me\\venv\\Lib\\site-packages\\whisper_cuda\\bin\\"
            "whisper.dll' (or one of its dependencies). Try using the full path with constructor syntax.")
    assert _codes(text, n=1) == ["cudart_not_found"]


def test_a_dll_of_no_cuda_build_stays_a_library_not_found():
    text = ("FileNotFoundError: Could not find module 'C:\\Users\\me\\venv\\Lib\\site-packages\\pkg\\lib\\pkg.dll' "
            "(or one of its dependencies). Try using the full path with constructor syntax.")
    assert _codes(text, n=1) == ["library_not_found"]


def test_warps_entry_point_lookup_failing_with_invalid_value_names_the_warp_bug():
    text = "Warp CUDA error: Failed to get driver entry point 'cuMemGetInfo' (CUDA error 1)"
    assert "library_bug" in _codes(text)


# ------------------------------------------------------------------ Windows' ERROR_MOD_NOT_FOUND after a CUDA build's install
@pytest.mark.parametrize("install", ["pip install mxnet-cu112", "```pip install cupy-cuda11x```"])
def test_winerror_126_after_installing_a_build_for_one_cuda_release(install):
    text = f"{install}\n>>> import pkg\nOSError: [WinError 126] The specified module could not be found"
    assert _codes(text) == ["cudart_not_found", "prebuilt_binary_wrong_cuda"]


def test_winerror_126_after_a_plain_install_names_no_cuda_cause():
    text = "pip install mxnet\n>>> import mxnet\nOSError: [WinError 126] The specified module could not be found"
    assert "cudart_not_found" not in _codes(text)
