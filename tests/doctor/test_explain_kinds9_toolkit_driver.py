# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 9, the toolkit, driver and context layers: the messages of nvcc, MSVC, torch's builders, the NVIDIA
container stack, the kernel module, NVML and the GL stacks by kind, each written from the tool's own message (see the
table rows' ``source``), never copied from a corpus text; and texts of another kind that must not get those codes."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # nvcc's refusals, quoted without the "nvcc fatal" prefix a log line carries
    ("error: \"Unsupported gpu architecture 'compute_120'\" while building the extension\n", ["unsupported_gpu_arch"]),
    ("Value 'sm_100' is not defined for option 'gpu-architecture'\n", ["unsupported_gpu_arch"]),
    ("nvcc -c -ccbin clang++ kernel.cu\nnvcc fatal   : Host compiler targets unsupported OS.\n",
     ["host_compiler_unsupported"]),
    ("/bin/sh: 1: cicc: not found\n", ["cuda_home_incomplete"]),
    ("/env/lib/python3.8/site-packages/torch/include/c10/util/C++17.h:16:2: error: #error \"You're trying to build "
     "PyTorch with a too old version of GCC. We need GCC 5 or later.\"\n", ["host_compiler_unsupported"]),
    # MSVC: its STL against the CUDA release, the compiler missing for torch.compile, the Windows SDK's headers
    ("C:\\Program Files\\Microsoft Visual Studio\\2022\\Community\\VC\\Tools\\MSVC\\14.40.33807\\include\\"
     "yvals_core.h(902): error STL1002: Unexpected compiler version, expected CUDA 12.4 or newer.\n",
     ["windows_msvc_toolchain"]),
    ('  File "C:\\env\\Lib\\site-packages\\torch\\_inductor\\cpp_builder.py", line 144, in get_cpp_compiler\n'
     "RuntimeError: Compiler: cl is not found.\n", ["windows_msvc_toolchain"]),
    ("C:\\src\\ext\\module.cpp(3): fatal error C1083: Cannot open include file: 'corecrt.h': No such file or directory\n",
     ["windows_msvc_toolchain", "build_dependency_missing"]),
    ("C:\\src\\ext\\module.cpp(3): fatal error C1083: 无法打开包括文件: “stdio.h”: No such file or directory\n",
     ["windows_msvc_toolchain", "build_dependency_missing"]),
    # gcc in the user's locale (glibc's strerror catalogues)
    ("src/render.cu:5:10: fatal error: glm/glm.hpp: 没有那个文件或目录\n    5 | #include <glm/glm.hpp>\n",
     ["build_dependency_missing"]),
    ("src/ops.cpp:2:10: fatal error: Eigen/Dense: Datei oder Verzeichnis nicht gefunden\n", ["build_dependency_missing"]),
    # torch's compiler check of 1.x
    ("subprocess.CalledProcessError: Command '['which', 'c++']' returned non-zero exit status 1.\n",
     ["build_dependency_missing"]),
    # the container stack
    ("docker: Error response from daemon: failed to create task for container: ... stderr: nvidia-container-cli: "
     "device error: 3: unknown device: unknown.\n", ["gpu_not_exposed_to_process"]),
    ("2018/01/01 00:00:00 Loading NVML\n2018/01/01 00:00:00 Failed to start nvml with error: could not load NVML "
     "library.\n", ["gpu_not_exposed_to_process"]),
    ("nvidia-docker | 2017/01/01 00:00:00 Error: Could not load UVM kernel module. Is nvidia-modprobe installed?\n",
     ["driver_broken"]),
    # the kernel module, NVML, the driver API through cuda-python, Paddle's error form
    ("NVRM: The NVIDIA GeForce 8600M GT GPU installed in this system is\nNVRM:  supported through the NVIDIA 340.xx "
     "Legacy drivers. Please\nNVRM: The 550.54 NVIDIA driver will ignore this GPU.  Continuing probe...\n",
     ["driver_broken"]),
    ("$ nvidia-smi\nUnable to determine the device handle for GPU 0000:81:00.0: Unknown Error\n",
     ["driver_broken", "gpu_hardware_fault"]),
    ('  File "cuda/cuda.pyx", line 1, in cuda.cuda.cuMemPoolCreate\nRuntimeError: Function "cuMemPoolCreate" not found\n',
     ["driver_below_cuda_minor"]),
    ("ExternalError: Cuda error(35), CUDA driver version is insufficient for CUDA runtime version.\n",
     ["driver_too_old"]),
    ("RuntimeError: NVIDIA driver on your system is too old (found version 10020).\n", ["driver_too_old"]),
    ("[2018-01-01 00:00:00] : WARNING: NVIDIA Insufficient driver!\n", ["driver_too_old"]),
    # GL stacks without a display or a usable GL
    ('  File "/env/lib/python3.10/site-packages/OpenGL/raw/GL/_errors.py", line 4, in <module>\n'
     "    _error_checker = _ErrorChecker( _p, _p.GL.glGetError )\n"
     "AttributeError: 'NoneType' object has no attribute 'glGetError'\n", ["opengl_egl_unavailable"]),
    ("glfw.GLFWError: (65543) b'GLX: Failed to create context: GLXBadFBConfig'\n", ["opengl_egl_unavailable"]),
    ("qt.qpa.xcb: could not connect to display \nqt.qpa.plugin: Could not load the Qt platform plugin \"xcb\"\n",
     ["opengl_egl_unavailable"]),
    # a server killed by SIGBUS, Open3D's torch gate
    ("Error: Shard 0 was signaled to shutdown with signal 7\n", ["container_shm_too_small"]),
    ("Exception: Version mismatch: Open3D needs PyTorch version 2.0.*, but version 2.1.0 is installed!\n",
     ["extension_torch_version_gate"]),
]


@pytest.mark.parametrize("text,codes", READINGS, ids=[c[0][:60] for c in READINGS])
def test_reading(text, codes):
    got = rule_codes(text, n=len(codes))
    assert got == codes, (text, got)


@pytest.mark.parametrize("text,code", [
    # an option value nvcc lacks is no GPU architecture
    ("Value 'c++20' is not defined for option 'std'\n", "unsupported_gpu_arch"),
    # a C runtime header missing on Linux is the libc headers, not MSVC
    ("main.c:1:10: fatal error: stdio.h: 没有那个文件或目录\n", "windows_msvc_toolchain"),
    # a source file gcc cannot open is not a missing header
    ("cc1plus: fatal error: src/main.cpp: Datei oder Verzeichnis nicht gefunden\n", "build_dependency_missing"),
    # a GPU that fell off the bus stays a hardware fault
    ("Unable to determine the device handle for GPU0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU\n",
     "driver_broken"),
    # another signal of a TGI shard, and a Python KeyError with 'Function ... not found'
    ("Error: Shard 1 was signaled to shutdown with signal 9\n", "container_shm_too_small"),
    ("KeyError: Function 'cuda_forward' not found in module\n", "driver_below_cuda_minor"),
    # Qt missing its platform plugin's libraries is not a missing display
    ("qt.qpa.plugin: Could not load the Qt platform plugin \"xcb\" in \"\" even though it was found.\nThis application "
     "failed to start because no Qt platform plugin could be initialized.\n", "opengl_egl_unavailable"),
    # `which` finding no c++ on Linux is no MSVC install
    ("which: no c++ in (/usr/bin:/bin)\n", "windows_msvc_toolchain"),
])
def test_not_this_kind(text, code):
    assert code not in rule_codes(text), text


def test_a_header_missing_on_linux_is_a_build_dependency():
    assert rule_codes("main.c:1:10: fatal error: stdio.h: 没有那个文件或目录\n")[:1] == ["build_dependency_missing"]


def test_deepspeeds_cpu_adam_without_its_op_is_an_unbuilt_op_most_often_refused_for_cuda():
    text = ("Exception ignored in: <function DeepSpeedCPUAdam.__del__ at 0x7f00>\nTraceback (most recent call last):\n"
            '  File "/env/lib/python3.10/site-packages/deepspeed/ops/adam/cpu_adam.py", line 102, in __del__\n'
            "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n")
    assert rule_codes(text) == ["extension_not_compiled", "nvcc_torch_cuda_mismatch"]


def test_deepspeeds_symptom_ranks_after_the_message_that_says_why():
    text = ("DeepSpeed Op Builder: Installed CUDA version 11.2 does not match the version torch was compiled with "
            "11.7, unable to compile cuda/cpp extensions without a matching cuda version.\n"
            "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n")
    assert rule_codes(text, n=1) == ["nvcc_torch_cuda_mismatch"]
    loader = ("ImportError: /root/.cache/torch_extensions/py310_cu121/cpu_adam/cpu_adam.so: cannot open shared object "
              "file: No such file or directory\nAttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n")
    assert "nvcc_torch_cuda_mismatch" not in rule_codes(loader)


@pytest.mark.parametrize("op", ["addmm_impl_cpu_", "slow_conv2d_cpu", "LayerNormKernelImpl"])
def test_a_half_tensor_in_a_cpu_kernel_is_a_model_left_on_the_cpu(op):
    text = f"RuntimeError: \"{op}\" not implemented for 'Half'\n"
    # the model or its inputs left on the CPU in float16; then a torch that cannot use a GPU here (the merged round 9
    # reads the second as torch's build, as its torch-layer row does; a '+cpu' torch makes it the first)
    assert rule_codes(text) == ["user_code_error", "cpu_only_torch_with_gpu"]


def test_a_cuda_kernel_without_a_dtype_is_not_the_cpu():
    assert "no_gpu" not in rule_codes("RuntimeError: \"cumsum_cuda\" not implemented for 'ComplexHalf'\n")
    assert "no_gpu" not in rule_codes("RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Long'\n")


@pytest.mark.parametrize("text,codes", [
    # nvcc given an empty option value: the command line is malformed, whatever the release
    ("nvcc -std= -c k.cu\nnvcc fatal   : Value '' is not defined for option 'std'\n", ["user_code_error"]),
    # accelerate's bf16 check: the GPU first (torch 1.10 is long out), then torch
    ("ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device.\n",
     ["gpu_below_extension_minimum", "extension_torch_version_gate"]),
    # the kubelet's device manager disagreeing with the node's capacity
    ("Warning  UnexpectedAdmissionError  Pod Allocate failed due to requested number of devices unavailable for "
     "nvidia.com/gpu. Requested: 2, Available: 1, which is unexpected\n", ["gpu_not_exposed_to_process", "library_bug"]),
    # cuda-gdb without the driver's debugger back-end: on the machine, and in a container given the driver's libraries
    ("(cuda-gdb) run\nCould not find CUDA Debugger back-end. Please try upgrading/re-installing the GPU driver\n",
     ["driver_broken", "gpu_not_exposed_to_process"]),
    ("$ apptainer exec --nv image.sif cuda-gdb ./app\n(cuda-gdb) run\nCould not find CUDA Debugger back-end. Please try "
     "upgrading/re-installing the GPU driver\n", ["gpu_not_exposed_to_process", "driver_broken"]),
])
def test_reading_of_a_build_or_a_node(text, codes):
    assert rule_codes(text, n=len(codes)) == codes, text


def test_detectron2s_torch_check_is_not_accelerates_bf16_check():
    assert rule_codes("AssertionError: Requires PyTorch >= 1.8\n", n=1) == ["extension_torch_version_gate"]
    assert "extension_torch_version_gate" not in rule_codes(
        "ValueError: fp16 mixed precision requires a GPU (not 'mps').\n")


def test_a_cuda_error_as_the_display_goes_black_is_windows_watchdog():
    text = ("GPUassert: unspecified launch failure kernel.cu 88\nCUDA error = 999 at render.cu:120 "
            "'cudaDeviceSynchronize()'\nThe screen went black for a second, then Windows said: Display driver nvlddmkm "
            "stopped responding and has successfully recovered.\n")
    assert rule_codes(text, n=1) == ["gpu_watchdog_timeout"]
    # the same error without the display reset stays the driver's
    assert "gpu_watchdog_timeout" not in rule_codes("CUDA error = 999 at render.cu:120 'cudaDeviceSynchronize()'\n")


_DEVICE_COUNT = ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
                 "NumCudaDevices() that might have already set an error? ")


def test_the_number_after_torchs_device_count_error_decides():
    # 500: the libcuda loaded lacks an entry point of the runtime; in a container, a driver library not the host's
    assert rule_codes(_DEVICE_COUNT + "Error 500: named symbol not found\n") == ["driver_too_old", "driver_broken"]
    assert rule_codes("docker run --gpus all image\n" + _DEVICE_COUNT + "Error 500: named symbol not found\n") == [
        "gpu_not_exposed_to_process", "driver_too_old"]
    # another number than 804 is no forward-compatibility refusal; 804 still is one
    assert "forward_compat_unsupported" not in rule_codes(
        _DEVICE_COUNT + "Error 803: system has unsupported display driver / cuda driver combination\n", n=3)
    assert "forward_compat_unsupported" in rule_codes(
        _DEVICE_COUNT + "Error 804: forward compatibility was attempted on non supported HW\n")


def test_nvml_dlopened_by_its_unversioned_name_is_the_missing_development_link():
    text = ('Error: "Failed to initialize NVML: a libloading error occurred: libnvidia-ml.so: cannot open shared object '
            'file: No such file or directory"\n')
    assert rule_codes(text, n=1) == ["library_not_found"]
    # the driver's own soname missing is the driver not given to the process
    assert rule_codes("libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n", n=1) == [
        "gpu_not_exposed_to_process"]


def test_torchs_cxx17_check_under_a_gcc_that_compiles_cxx17_is_the_builds_own_flag():
    err = "libtorch/include/ATen/ATen.h:4:2: error: #error C++17 or later compatible compiler is required to use ATen.\n"
    # torch's collect_env form of the compiler, and an environment list's
    assert rule_codes("GCC version: (Ubuntu 9.4.0-1ubuntu1~20.04.1) 9.4.0\n" + err) == [
        "library_bug", "host_compiler_unsupported"]
    assert rule_codes("- gcc: 11.4.0\n" + err) == ["library_bug", "host_compiler_unsupported"]
    # an old gcc (its default standard and its C++17 support) stays the compiler's
    assert rule_codes("gcc (GCC) 6.3.1\n" + err, n=1) == ["host_compiler_unsupported"]
    # torch's own minimum in its warning is no gcc of the machine
    assert rule_codes("Please use a compiler that is ABI-compatible with GCC 5.0 and above.\n" + err, n=1) == [
        "host_compiler_unsupported"]


@pytest.mark.parametrize("text,codes", [
    # Mesa's libGL without its DRI driver where it searches
    ("libGL error: MESA-LOADER: failed to open iris: /usr/lib/dri/iris_dri.so: cannot open shared object file: No such "
     "file or directory (search paths /opt/conda/lib/dri, suffix _dri)\nlibGL error: failed to load driver: iris\n",
     ["library_not_found", "opengl_egl_unavailable"]),
    # Lightning given a GPU index the process does not see
    ("lightning_fabric.utilities.exceptions.MisconfigurationException: You requested gpu: [2, 3]\n But your machine "
     "only has: [0, 1]\n", ["user_code_error", "gpu_not_exposed_to_process"]),
])
def test_reading_of_a_gl_or_a_trainer(text, codes):
    assert rule_codes(text, n=len(codes)) == codes, text


def test_a_gpu_asked_of_a_scheduler_is_not_lightnings_index():
    assert "user_code_error" not in rule_codes(
        "sbatch: error: Batch job submission failed: Requested node configuration is not available\n")
