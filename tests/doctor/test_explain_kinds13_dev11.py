# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 13 (the kinds behind dev11's misses): CUDA extensions that only a project's source tree builds,
names a package's installed release lacks (imported from it, or methods of its compiled classes), the driver too old
in a program's own words (miners' 'Insufficient CUDA driver', a CUDA init's error code, libnvidia-container's
condition, torch's MPS minimum of macOS), torch's older dtype checks and stacking samples of unequal sizes; CMake
without nvcc or an MSVC environment, build tools not on PATH, FindCUDA's architecture names; dlib, thinc, CUDArt.jl,
xgboost and pyrender in their own words. Each text
is written for the test (other tools, versions, wordings than the threads); each kind has near-misses that must NOT
get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # a CUDA extension built by a setup.py in the project's tree (or a git submodule), never built there
    ("  File \"/home/u/PoinTr/extensions/chamfer_dist/__init__.py\", line 7, in <module>\n    import chamfer\n"
     "ModuleNotFoundError: No module named 'chamfer'\n", ["extension_not_compiled"]),
    ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    from gridencoder import "
     "GridEncoder\nModuleNotFoundError: No module named 'gridencoder'\n", ["extension_not_compiled"]),
    ("ImportError: No module named MultiScaleDeformableAttention\n", ["extension_not_compiled"]),
    # a fork's renamed copy of the Gaussian-splatting rasterizer
    ("    from diff_gaussian_rasterization_depth import GaussianRasterizer\n"
     "ModuleNotFoundError: No module named 'diff_gaussian_rasterization_depth'\n", ["extension_not_compiled"]),
    # a name the installed release of a package lacks
    ("ImportError: cannot import name 'is_flash_attn_available' from 'transformers.utils'\n",
     ["package_api_version_mismatch"]),
    ("ImportError: cannot import name 'soft_unicode' from 'markupsafe' "
     "(/opt/conda/lib/python3.9/site-packages/markupsafe/__init__.py)\n", ["package_api_version_mismatch"]),
    ("AttributeError: 'tensorrt.tensorrt.IBuilderConfig' object has no attribute 'max_workspace_size'\n",
     ["package_api_version_mismatch", "user_code_error"]),
    ("AttributeError: 'open3d.cuda.pybind.geometry.PointCloud' object has no attribute 'compute_point_cloud_distance2'"
     "\n", ["package_api_version_mismatch", "user_code_error"]),
    # the driver older than the program's CUDA runtime, in the program's own words
    ("  m  10:12:03|cudaminer0  CUDA error in func 'init' at line 92 : Insufficient CUDA driver: 10010\n",
     ["driver_too_old"]),
    ("[2024-02-01 08:00:01] GPU #1: failed to initialize CUDA, error code 35\n", ["driver_too_old"]),
    ("Error: cuda init failed (error 35)\n", ["driver_too_old"]),
    ("nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 11.8, please update your driver\n",
     ["driver_too_old"]),
    ("requirement error: unsatisfied condition: cuda>=12.2\n", ["driver_too_old"]),
    ("RuntimeError: The MPS backend is supported on MacOS 13.0+.Current OS version can be queried using `sw_vers`\n",
     ["driver_too_old"]),
    ("UserWarning: MPS backend is not available because the current MacOS version is not 12.3+ and/or you do not "
     "have an MPS-enabled device on this machine.\n", ["driver_too_old", "no_gpu"]),
    # torch's dtype checks of older releases, and torch.stack of samples of different sizes
    ("RuntimeError: Expected tensor for argument #1 'input' to have scalar type Long; but got torch.cuda.FloatTensor "
     "instead (while checking arguments for embedding)\n", ["user_code_error"]),
    ("RuntimeError: Expected object of type torch.cuda.FloatTensor but found type torch.cuda.DoubleTensor for "
     "argument #2 'weight'\n", ["user_code_error"]),
    ("RuntimeError: stack expects each tensor to be equal size, but got [1, 224, 224] at entry 0 and [3, 224, 224] "
     "at entry 5\n", ["user_code_error"]),
    # CMake found no nvcc (its NOTFOUND value run as a program; vcpkg's words); Windows without a VS environment
    ("-- Executing CUDA_NVCC_EXECUTABLE-NOTFOUND --version resulted in error: 1\n", ["cuda_home_missing"]),
    ("CMake Error at scripts/cuda.cmake:69 (message):\n  Could not find CUDA.  Before continuing, please download and "
     "install CUDA  (v11.0 or higher) from:\n", ["cuda_home_missing"]),
    ("-- Building for: NMake Makefiles\nCMake Error at CMakeLists.txt:4 (project):\n  Running\n\n   'nmake' '-?'\n\n"
     "  failed with:\n\n   no such file or directory\n", ["windows_msvc_toolchain"]),
    ("C:/venv/lib/site-packages/torch/include/pybind11/cast.h(1429): error: too few arguments for template template "
     "parameter \"Tuple\"\n", ["windows_msvc_toolchain"]),
    # a build tool not on PATH, in cmd.exe's words (German Windows prints its own) or a POSIX shell's
    ("'meson' is not recognized as an internal or external command,\noperable program or batch file.\n",
     ["build_dependency_missing"]),
    ("./build.sh: line 12: cmake: command not found\n", ["build_dependency_missing"]),
    # FindCUDA's list of architecture names
    ("CMake Error at cmake/select_compute_arch.cmake:225 (message):\n  Unknown CUDA Architecture Name 10.0a in "
     "CUDA_SELECT_NVCC_ARCH_FLAGS\n", ["arch_list_value_rejected", "library_bug"]),
    # libraries' own words: a CPU build of dlib, thinc without a usable CuPy, Julia's CUDArt, xgboost's library,
    # pyrender's EGL device
    ("Disabling CUDA support for dlib.  DLIB WILL NOT USE CUDA\n", ["cpu_only_torch_with_gpu"]),
    (">>> dlib.DLIB_USE_CUDA\nFalse   # dlib.DLIB_USE_CUDA is False on the RTX 3090\n", ["cpu_only_torch_with_gpu"]),
    ("    spacy.require_gpu(0)\nValueError: GPU is not accessible. Was the library installed correctly?\n",
     ["cudart_not_found", "cpu_only_torch_with_gpu"]),
    ("ERROR: LoadError: CUDA runtime API library cannot be found.\n", ["cudart_not_found", "no_gpu"]),
    ("xgboost.core.XGBoostError: XGBoost Library (libxgboost.so) could not be loaded.\n", ["library_not_found"]),
    ("  File \"/opt/env/lib/python3.11/site-packages/pyrender/platforms/egl.py\", line 83, in get_device_by_index\n"
     "ValueError: Invalid device ID (1)\n", ["opengl_egl_unavailable", "driver_broken"]),
    # device code older than the toolkit: texture references (removed in CUDA 12); an old CMake's FindCUDA and CUDA 10
    ("/src/resize.cu(40): error: texture is not a template\n", ["library_bug"]),
    # a removed texture-reference function is the project's old code, not a toolkit below its minimum
    ('src/warp.cu(88): error: identifier "cudaBindTexture2D" is undefined\n', ["library_bug"]),
    ('kernels/bilateral.cu(88): error: identifier "cudaUnbindTexture" is undefined\n', ["library_bug"]),
    ("Please set them or make sure they are set and tested correctly in the CMake files:\n"
     "CUDA_cublas_device_LIBRARY (ADVANCED)\n    linked by target \"app\"\n", ["library_bug"]),
    # a library's function taking std::__cxx11 types undefined: the C++ string ABI of the library and the extension
    ("tensorflow.python.framework.errors_impl.NotFoundError: /ops/resample2d.so: undefined symbol: "
     "_ZN10tensorflow15shape_inference16InferenceContext7GetAttrENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
     "PNS_6StatusE\n", ["cxx11_abi_mismatch", "extension_undefined_symbol"]),
    # darknet's CUDA Error: with the runtime's message
    ("CUDA Error: unknown error\nCUDA Error: unknown error: No error\n", ["driver_broken"]),
    # Windows' ERROR_BAD_EXE_FORMAT: another architecture or no PE image at all (a zero-byte .pyd)
    ("ImportError: DLL load failed while importing _rasterizer: %1 is not a valid Win32 application.\n",
     ["wrong_architecture_binary", "binary_corrupt"]),
    # macOS library validation of a signed host
    ("dlopen(/Applications/Tool.app/plugins/ext.dylib, 0x0006): '/Applications/Tool.app/plugins/ext.dylib' not valid "
     "for use in process: mapping process and mapped file (non-platform) have different Team IDs\n",
     ["loader_security_policy"]),
    # a CUDA call's result printed as 'Error Code N'
    ("cudaMalloc Error Code 2 while allocating the volume\n", ["cuda_oom"]),
    # 'no module named torch' in lower case, while pip builds
    ("pip install -e . fails: ModuleNotFoundError: no module named 'torch'\n", ["torch_not_found_at_build"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


def test_a_source_built_module_said_installed_reads_the_packaging_too():
    text = ("I compiled and installed simple_knn with pip install -e . and pip show simple_knn finds it, yet\n"
            "ModuleNotFoundError: No module named 'simple_knn'\n")
    assert rule_codes(text) == ["extension_not_compiled", "library_bug"]


NOT = [
    # a PyPI package of its own, not a source-built extension; a helper of the project's own
    ("ModuleNotFoundError: No module named 'chamferdist'\n", "extension_not_compiled"),
    ("ModuleNotFoundError: No module named 'pointops_utils'\n", "extension_not_compiled"),
    # a name from a module of the project's own (its file outside site-packages), a circular import, a private name
    ("ImportError: cannot import name 'build_model' from 'models' (/home/u/proj/models/__init__.py)\n",
     "package_api_version_mismatch"),
    ("ImportError: cannot import name 'Trainer' from partially initialized module 'trainer' (most likely due to a "
     "circular import) (/home/u/trainer.py)\n", "package_api_version_mismatch"),
    ("ImportError: cannot import name '_private' from 'pkg'\n", "package_api_version_mismatch"),
    # a class defined in Python prints its bare name; an array's missing method is the calling code's
    ("AttributeError: 'Trainer' object has no attribute 'fit_model'\n", "package_api_version_mismatch"),
    ("AttributeError: 'numpy.ndarray' object has no attribute 'cuda'\n", "package_api_version_mismatch"),
    # other CUDA init failures and exit codes
    ("CUDA init failed (error code 100)\n", "driver_too_old"),
    ("init cuda ok, exit code 0\n", "driver_too_old"),
    ("hipErrorInsufficientDriver is not an NVIDIA message\n", "cpu_only_torch_with_gpu"),
    # a dtype not implemented on the CPU, shapes of a matrix product
    ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x512 and 256x10)\n", "driver_too_old"),
    ("RuntimeError: The MPS backend ran out of memory\n", "driver_too_old"),
    # other NOTFOUND values, a make that failed, a tool that is there
    ("-- CUDA_nvToolsExt_LIBRARY-NOTFOUND\n", "cuda_home_missing"),
    ("make: *** [Makefile:12: all] Error 2\n", "build_dependency_missing"),
    ("cmake version 3.27.1 found at /usr/bin/cmake\n", "build_dependency_missing"),
    # dlib with CUDA; a device ordinal of CUDA
    ("print(dlib.DLIB_USE_CUDA)  # True\n", "cpu_only_torch_with_gpu"),
    ("RuntimeError: CUDA error: invalid device ordinal\n", "opengl_egl_unavailable"),
    # libstdc++'s own string symbol missing is no ABI difference of a library
    ("ImportError: /x/ext.so: undefined symbol: _ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm\n",
     "cxx11_abi_mismatch"),
    # texture objects are CUDA 12's API; a cuBLAS library found
    ('kernel.cu(3): error: identifier "cudaCreateTextureObject" is undefined\n', "library_bug"),
    ("-- Found CUDA_cublas_LIBRARY: /usr/local/cuda/lib64/libcublas.so\n", "library_bug"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)
