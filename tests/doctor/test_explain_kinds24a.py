# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 24a (the GPU, driver, CUDA and compiled-extension side of the released parts' misses, read as
kinds): graphics stacks without an OpenGL/EGL/Vulkan driver (GLFW's WGL/GLX words, X's GLX protocol errors, Magnum's
EGL device search, SAPIEN's renderer); an old driver in MATLAB's words; CPU-only builds of other GPU libraries (OpenCV's
CUDA device count of 0, pycolmap's CPU wheels, onnxruntime's CPU package beside a failing CUDA provider, torch without
XPU); the NVIDIA kernel module failing (NVRM's RmInitAdapter, modprobe, the installer, missing /dev/nvidia* nodes);
the container toolkit missing and Windows Remote Desktop sessions (a GPU the process is not given); out of memory in
miners' and NNabla's words; a project's compiler check and GCC 5.5's intrinsics under nvcc; build tools and
dependencies missing (exit status 127, Node.js for JupyterLab, cpm_kernels); extensions never built (Qwen's flash-attn
kernels, VITS/instant-ngp/FoundationPose modules, PyMeshLab's pmeshlab, a package's _C without a function); OpenMM's
CUDA platform, TensorRT's and MindSpore's library loads; two toolkits (libdevice, CUDA 9.2's launch symbols); compute
capability refusals; rocBLAS without the GPU's kernels; cuDNN's NOT_INITIALIZED as a cuDNN of another CUDA.
Each text is written for the test (other wordings, tools and paths than the threads); each kind has near-misses that
must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # GLFW finding no OpenGL (Windows' WGL, X's GLX)
    ("Traceback (most recent call last):\n  File \"viewer.py\", line 14, in <module>\n    win = glfw.create_window(640, "
     "480, 'scene', None, None)\nglfw.GLFWError: (65542) b'WGL: The driver does not appear to support OpenGL'\n",
     "opengl_egl_unavailable"),
    ("mujoco viewer: GLFWError: (65543) b'GLX: No GLXFBConfigs returned'\nERROR: could not create window\n",
     "opengl_egl_unavailable"),
    # X's GLX protocol error
    ("$ ./meshview bunny.ply\nX Error of failed request:  GLXBadContext\n  Major opcode of failed request:  152 (GLX)\n"
     "  Minor opcode of failed request:  5 (X_GLXMakeCurrent)\n", "opengl_egl_unavailable"),
    # Magnum's windowless EGL context (habitat-sim)
    ("Platform::WindowlessEglContext: unable to find CUDA device 1 among 3 EGL devices in total\nWindowlessContext: "
     "Unable to create windowless context\n", "opengl_egl_unavailable"),
    # SAPIEN's renderer
    ("  File \"/srv/sim/env.py\", line 40, in build\n    renderer = sapien.SapienRenderer()\nRuntimeError: failed to "
     "find a rendering device\n", "opengl_egl_unavailable"),
    # MATLAB's driver check
    (">> g = gpuDevice(1)\nError using gpuDevice\nThe CUDA driver was found, but it is too old. The CUDA driver on your "
     "system supports CUDA version 10.1. The required CUDA version is 11.2 or greater.\n", "driver_too_old"),
    # OpenCV built without CUDA
    ("import cv2\nprint(cv2.cuda.getCudaEnabledDeviceCount())   # returns 0 although nvidia-smi lists my RTX 3080\n",
     "cpu_only_torch_with_gpu"),
    ("cv::cuda::getCudaEnabledDeviceCount() = 0 with the opencv 4.9 package from vcpkg\n", "cpu_only_torch_with_gpu"),
    # pycolmap's CPU wheel
    ("  File \"mvs.py\", line 31, in dense\n    pycolmap.patch_match_stereo(ws)\nAttributeError: module 'pycolmap' "
     "has no attribute 'patch_match_stereo'\n", "cpu_only_torch_with_gpu"),
    # Open3D without a CUDA device while torch has one: also a build for another CUDA major
    ("Ubuntu 22.04, CUDA 12.1: o3d.core.cuda.device_count() returns 0 while torch.cuda.device_count() is 1\n",
     "prebuilt_binary_wrong_cuda"),
    # torch without XPU
    ("  File \"/opt/venv/lib/python3.11/site-packages/torch/xpu/__init__.py\", line 120, in _lazy_init\n    raise "
     "AssertionError(\"Torch not compiled with XPU enabled\")\nAssertionError: Torch not compiled with XPU enabled\n",
     "cpu_only_torch_with_gpu"),
    # onnxruntime's CPU package where the CUDA provider fails
    ("$ pip install onnxruntime==1.17.0\n...\n2024-03-02 10:11:12 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 "
     "CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Please reference the requirements\n",
     "cpu_only_torch_with_gpu"),
    # a program reporting that it picked the CPU
    ("PC: Windows 10, GeForce RTX 2070 8 GB\n[INFO] loading pipeline\n[INFO] Using device: cpu\nsampling is very slow\n",
     "cpu_only_torch_with_gpu"),
    # FFmpeg's NVENC driver minimum in other words
    ("[h264_nvenc @ 0x55d0c8] Minimum required Nvidia driver is 570 or newer\n", "driver_too_old"),
    # the NVIDIA kernel module
    ("[   12.004] NVRM: GPU 0000:65:00.0: RmInitAdapter failed! (0x22:0x56:762)\n[   12.005] NVRM: GPU 0000:65:00.0: "
     "rm_init_adapter failed, device minor number 0\n", "driver_broken"),
    ("$ sudo modprobe nvidia_uvm\nmodprobe: FATAL: Module nvidia_uvm not found in directory /lib/modules/6.8.0-45-generic\n",
     "driver_broken"),
    ("ERROR: The Nouveau kernel driver is currently in use by your system.  This driver is incompatible with the NVIDIA "
     "driver\n", "driver_broken"),
    ("ERROR: Unable to load the 'nvidia-drm' kernel module.\nERROR: Installation has failed.\n", "driver_broken"),
    ("Error: failed to start container: lstat /dev/nvidia-uvm: no such file or directory\n", "driver_broken"),
    # nvidia-smi refused a setting (root, or a container's SYS_ADMIN capability)
    ("$ nvidia-smi -i 1 -lgc 1200,1800\nFailed to set locked GPU clocks for GPU 00000000:3B:00.0: Insufficient "
     "Permissions\n", "gpu_device_permission_denied"),
    ("$ sudo nvidia-docker-plugin\nnvidia-docker-plugin | 2017/01/09 10:12:01 Error: Could not load NVML library\n",
     "library_not_found"),
    # the container toolkit missing, Remote Desktop
    ("$ ./run_gpu_container.sh\nbash: nvidia-docker: command not found\n", "gpu_not_exposed_to_process"),
    ("Error: crun: error executing hook `/usr/bin/nvidia-ctk` (exit code: 1): OCI runtime error\n",
     "gpu_not_exposed_to_process"),
    ("Blender renders only on the CPU when I start it from an RDP session; at the console the RTX 4000 is used.\n",
     "gpu_not_exposed_to_process"),
    # out of memory in other words
    ("GPU0 CUDA error in func 'search_nonce' at line 88 : out of memory\n", "cuda_oom"),
    ("  File \"train_nnabla.py\", line 77, in <module>\n    solver.update()\nRuntimeError: memory error in alloc\n",
     "cuda_oom"),
    ("[0 NVIDIA GeForce GTX 1050]  queueC=2[8]\nvkWaitForFences failed -4\nupscale failed\n", "cuda_oom"),
    # the host driver's procfs entry missing when the container toolkit mounts it
    ("docker: Error response from daemon: OCI runtime create failed: nvidia-container-cli: mount error: mount operation "
     "failed: /data/docker/overlay2/9c1e/merged/proc/driver/nvidia/gpus/0000:01:00.0: no such file or directory: "
     "unknown.\n", "driver_broken"),
    # the compiler refused by the project, GCC 5.5's headers under nvcc
    ("CMake Error at CMakeLists.txt:12 (message):\n  Must use gcc >= 10 to build this project, you are using GNU-8.4.0\n",
     "host_compiler_unsupported"),
    ("/usr/lib/gcc/x86_64-linux-gnu/5/include/avx512fintrin.h(9218): error: argument of type \"void *\" is incompatible "
     "with parameter of type \"long long *\"\n", "host_compiler_unsupported"),
    # build tools and dependencies missing
    ("subprocess.CalledProcessError: Command 'nvcc -O3 -c warp.cu -o warp.o' returned non-zero exit status 127.\n",
     "build_dependency_missing"),
    ("$ jupyter labextension install @jupyter-widgets/jupyterlab-manager\n> '' install @jupyter-widgets/jupyterlab-manager\n"
     "expected str, bytes or os.PathLike object, not NoneType\n", "build_dependency_missing"),
    ("WARNING Failed to load cpm_kernels: No module named 'cpm_kernels'\nAttributeError: 'NoneType' object has no "
     "attribute 'int8WeightExtractionHalf'\n", "build_dependency_missing"),
    # extensions never built
    ("Warning: import flash_attn rms_norm fail, please install FlashAttention layer_norm to get higher efficiency\n",
     "extension_not_compiled"),
    ("  File \"train.py\", line 9, in <module>\n    import monotonic_align\n  File \"/work/tts/monotonic_align/__init__.py\""
     ", line 3, in <module>\n    from .monotonic_align.core import maximum_path_c\nModuleNotFoundError: No module named "
     "'monotonic_align.monotonic_align'\n", "extension_not_compiled"),
    ("  File \"scripts/run.py\", line 20, in <module>\n    import pyngp as ngp\nModuleNotFoundError: No module named "
     "'pyngp'\n", "extension_not_compiled"),
    ("ModuleNotFoundError: No module named 'pymeshlab.pmeshlab' (pymeshlab 2023.12 installed with pip install . from a "
     "clone)\n", "extension_not_compiled"),
    # a known torch extension's compiled module refused by Windows' loader (a procedure of torch missing)
    ("Hy3DPaint: ImportError: DLL load failed while importing custom_rasterizer_kernel: The specified procedure could not "
     "be found.\n", "abi_torch_version_mismatch"),
    # OpenMM, TensorRT, MindSpore
    ("openmm.OpenMMException: There is no registered Platform called \"CUDA\"\n", "prebuilt_binary_wrong_cuda"),
    ("[03/01/2025-10:00:00] [TRT] [E] Unable to open library: nvinfer_builder_resource_10.dll\n", "cudart_not_found"),
    ("CMake Error at cmake/gpu.cmake:40 (message):\n  Failed to find cudnn header file, please set environment variable\n"
     "  CUDNN_HOME to cudnn installation position.\n", "cudart_not_found"),
    # two toolkits
    ("[ 40%] Building NVCC (Device) object src/decoder.cu.o\nerror: path to libdevice not specified\n",
     "multiple_cuda_toolkits"),
    ("ImportError: /opt/ext/build/_ops.so: undefined symbol: __cudaPushCallConfiguration\n", "multiple_cuda_toolkits"),
    ("Multiple CUDA versions are installed on this box (11.8 and 12.4); cmake is picking up the old nvcc\n",
     "multiple_cuda_toolkits"),
    # a JIT-built extension finding no CUDA toolkit
    ("nerfacc's cuda_toolkit_available() returns False even though /usr/local/cuda/bin/nvcc exists\n",
     "cuda_home_missing"),
    # compute capability refused, rocBLAS without the GPU's kernels
    ("GPU #0: GeForce GT 730 - Compute Capability 3.5 is not supported by this build\n", "gpu_below_extension_minimum"),
    ("rocBLAS error: Cannot read /opt/rocm-6.0.2/lib/rocblas/library/TensileLibrary.dat: No such file or directory\n",
     "no_kernel_image_for_gpu"),
    # cuDNN NOT_INITIALIZED: a cuDNN of another CUDA as well as memory
    ("Could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED\n", "prebuilt_binary_wrong_cuda"),
    # a program finding no GPU on native Windows, where torch's default wheel is the CPU build
    ("Windows 11 with an RTX 3060\n(tts) C:\\Users\\mia\\tts> python app.py\nWARNING:voice.gpu:No GPU found, use CPU "
     "instead\n", "cpu_only_torch_with_gpu"),
    # torch.cuda.is_available() False on native Windows (a launcher's own check of it): PyPI's CPU wheel first
    ("  File \"D:\\sd\\webui\\modules\\launch_utils.py\", line 386, in prepare_environment\n    raise RuntimeError(\n"
     "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this "
     "check\n", "cpu_only_torch_with_gpu"),
    # 'not compiled with CUDA' beside a CUDA torch listed: the CPU build kept as a reading
    ("raise AssertionError(\"Torch not compiled with CUDA enabled\")\nAssertionError: Torch not compiled with CUDA "
     "enabled\nWindows 11\ntorch                     2.3.1+cu121\n", "cpu_only_torch_with_gpu"),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_kind_reads_as_its_cause(text, want):
    assert want in rule_codes(text), rule_codes(text, n=4)


NEAR_MISSES = [
    ("The driver supports OpenGL 4.6 and Vulkan 1.3; the viewer opens fine.\n", "opengl_egl_unavailable"),
    ("X Error of failed request:  BadWindow (invalid Window parameter)\n", "opengl_egl_unavailable"),
    ("habitat-sim found 3 EGL devices and uses CUDA device 1 for rendering\n", "opengl_egl_unavailable"),
    ("renderer: found a rendering device: NVIDIA RTX A4000\n", "opengl_egl_unavailable"),
    ("The CUDA driver was found and works; gpuDevice reports CUDA 12.2.\n", "driver_too_old"),
    ("cv2.cuda.getCudaEnabledDeviceCount() returns 2 on the workstation\n", "cpu_only_torch_with_gpu"),
    ("AttributeError: module 'pycolmap' has no attribute 'Reconstructionn'\n", "cpu_only_torch_with_gpu"),
    ("$ pip install onnxruntime-gpu==1.17.0\n[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 "
     "CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider.\n", "cpu_only_torch_with_gpu"),
    ("Using device: cuda:0 (GeForce RTX 2070)\n", "cpu_only_torch_with_gpu"),
    ("o3d.core.cuda.device_count() returns 1 and the ML ops run on the GPU\n", "prebuilt_binary_wrong_cuda"),
    ("Minimum required Python is 3.9 or newer\n", "driver_too_old"),
    ("[    3.1] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14\n", "driver_broken"),
    ("modprobe: FATAL: Module snd_hda_intel not found in directory /lib/modules/6.8.0\n", "driver_broken"),
    ("WARNING: The nvidia-drm module will not be installed.\n", "driver_broken"),
    ("lstat /mnt/data/images: no such file or directory\n", "driver_broken"),
    ("nvidia-docker version 2.13.0 is installed and works\n", "gpu_not_exposed_to_process"),
    ("Power limit for GPU 00000000:3B:00.0 was set to 250.00 W from 300.00 W.\n", "gpu_device_permission_denied"),
    ("Remote Desktop Connection Manager 2.7 is installed on the laptop\n", "gpu_not_exposed_to_process"),
    ("GPU0 CUDA error in func 'search_nonce' at line 88 : invalid argument\n", "cuda_oom"),
    ("RuntimeError: memory error in allocator configuration file\n", "cuda_oom"),
    ("vkQueueSubmit returned 0 (VK_SUCCESS) for every tile\n", "cuda_oom"),
    ("nvidia-container-cli: mount error: mount operation failed: /data/merged/usr/bin/nvidia-smi: permission denied\n",
     "driver_broken"),
    ("You must use gcc to compile the C sources of this package.\n", "host_compiler_unsupported"),
    ("kernel.cu(41): error: argument of type \"float *\" is incompatible with parameter of type \"double *\"\n",
     "host_compiler_unsupported"),
    ("subprocess.CalledProcessError: Command 'nvcc -O3 -c warp.cu -o warp.o' returned non-zero exit status 1.\n",
     "build_dependency_missing"),
    ("> npm pack @jupyterlab/geojson-extension\n", "build_dependency_missing"),
    ("Loaded cpm_kernels 1.0.11 for the int4 model\n", "build_dependency_missing"),
    ("import flash_attn succeeded; using flash attention 2 kernels\n", "extension_not_compiled"),
    ("ModuleNotFoundError: No module named 'monotonic'\n", "extension_not_compiled"),
    ("openmm.OpenMMException: There is no registered Platform called \"OpenCL\"\n", "prebuilt_binary_wrong_cuda"),
    ("Unable to open file: model.onnx\n", "cudart_not_found"),
    ("ImportError: DLL load failed while importing win32api: The specified procedure could not be found.\n",
     "abi_torch_version_mismatch"),
    ("-- Found cudnn library file at /usr/lib/x86_64-linux-gnu/libcudnn.so.8\n", "cudart_not_found"),
    ("libdevice.10.bc found in /usr/local/cuda/nvvm/libdevice\n", "multiple_cuda_toolkits"),
    ("ImportError: /opt/ext/build/_ops.so: undefined symbol: _ZN2at6TensorC1Ev\n", "multiple_cuda_toolkits"),
    ("Compute capability 8.6 supported, using sm_86 kernels\n", "gpu_below_extension_minimum"),
    ("Two versions of numpy are installed in this environment\n", "multiple_cuda_toolkits"),
    ("cuda_toolkit_available() returns True and the kernels compile\n", "cuda_home_missing"),
    ("cudnnCreate returned CUDNN_STATUS_SUCCESS\n", "prebuilt_binary_wrong_cuda"),
    ("root@3f2a9c:/app# python train.py\nRuntimeError: No CUDA GPUs are available\n", "cpu_only_torch_with_gpu"),
    ("root@3f2a9c:/app# ./webui.sh\nRuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to "
     "COMMANDLINE_ARGS variable to disable this check\n", "cpu_only_torch_with_gpu"),
]


@pytest.mark.parametrize(("text", "code"), NEAR_MISSES)
def test_near_miss_does_not_get_the_code(text, code):
    assert code not in rule_codes(text), rule_codes(text, n=4)


def test_a_missing_function_of_a_packages_compiled_core_reads_as_a_partial_build_first():
    codes = rule_codes("In kaolin/render/mesh/rasterization.py: AttributeError: module 'kaolin._C' has no attribute "
                       "'rasterize_forward'\n")
    assert codes[:1] == ["extension_not_compiled"], codes
    # a pure-Python submodule of the same package lacking the name: another release of it, not a partial build
    assert "extension_not_compiled" not in rule_codes("In kaolin/render/mesh/rasterization.py: AttributeError: module "
                                                      "'kaolin.ops' has no attribute 'rasterize_forward'\n")


ROWS = ["glfw_no_opengl_driver", "x_glx_protocol_error", "magnum_egl_no_cuda_device", "cuda_driver_found_too_old",
        "opencv_cuda_device_count_zero", "nvidia_rm_init_adapter_failed", "nvidia_module_absent", "nvidia_installer_failed",
        "dev_nvidia_node_absent_host", "nvidia_container_toolkit_missing", "windows_remote_desktop_session",
        "cuda_func_line_out_of_memory", "nnabla_memory_error_in_alloc", "gcc_version_check_failed",
        "nvcc_gcc55_intrinsics_void_ptr", "jupyterlab_npm_path_none", "compiler_command_exit_127",
        "chatglm_cpm_kernels_missing", "qwen_flash_attn_optional_kernel", "openmm_no_cuda_platform",
        "tensorrt_unable_to_open_library", "mindspore_cudnn_not_found", "compute_capability_not_supported",
        "pycolmap_wheel_without_cuda", "onnxruntime_cpu_package_installed", "nvcc_libdevice_not_found",
        "cuda_launch_configuration_symbols", "sapien_no_rendering_device", "rocblas_tensile_arch", "vulkan_device_lost",
        "container_cli_proc_driver_missing", "program_chose_cpu_device", "nvenc_driver_api_too_old",
        "jit_extension_no_cuda_toolkit", "two_cuda_installs_said",
        "nvidia_smi_setting_no_permission", "nvidia_docker_nvml_not_loaded"]


@pytest.mark.parametrize("key", ROWS)
def test_row_matches_its_example_and_stays_linear(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


def test_xpu_row_matches_its_example_and_stays_linear():
    assert_row_matches_its_example_and_stays_linear("torch_messages", "not_compiled_with_xpu")
