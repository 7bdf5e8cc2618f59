# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 11 (builds, the loader and binaries): kinds written for any stack that prints them, each text written
for the test from the tool's own wording (the table rows' ``source``), with near-misses that must not fire."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # a GPU below a library's stated minimum compute capability, in the forms tools print it
    ("ValueError: The quantization method gptq_marlin is not supported for the current GPU. Minimum capability: 80. "
     "Current capability: 75.\n", ["gpu_below_extension_minimum"]),
    ("LOG:  GPU0 GeForce GTX 680 (8 SMs, 1006MHz), L2 512KB, RAM 2047MB, capability 3.0, NOT SUPPORTED\n"
     "FATAL:  No supported CUDA devices\n", ["gpu_below_extension_minimum"]),
    ("error: minimum compute capability required: 6.0, but the current device's compute capability: 5.2\n",
     ["gpu_below_extension_minimum"]),
    # the same said in other words: the GPU's capability and a minimum, or a minimum the GPU is refused against
    ("Your GPU (compute capability 6.1) is too old. This release requires compute capability 7.0 or higher.\n",
     ["gpu_below_extension_minimum"]),
    ("RuntimeError: device 0 has compute capability 5.0, lower than the minimum required 6.0\n",
     ["gpu_below_extension_minimum"]),
    ("WARNING: GPU 0 skipped: compute capability 3.0 < 3.5\n", ["gpu_below_extension_minimum"]),
    ("ERROR: this build only supports GPUs with compute capability >= 7.5\n", ["gpu_below_extension_minimum"]),
    # a GPU the software calls too old, or no longer supported
    ('level=INFO msg="CUDA GPU is too old. Falling back to CPU mode. Compute Capability detected: 3.5"\n',
     ["gpu_below_extension_minimum"]),
    ("Warning: your graphics card is no longer supported by this version; rendering on the CPU\n",
     ["gpu_below_extension_minimum"]),
    ("Unsupported GPU: Kepler and older are not supported by this release\n", ["gpu_below_extension_minimum"]),
    # bfloat16 asked of a GPU without it
    ("    with torch.autocast('cuda', dtype=torch.bfloat16):\n"
     "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.\n",
     ["gpu_below_extension_minimum"]),
    ("Error: your GPU does not support bf16, use --fp16 instead\n", ["gpu_below_extension_minimum"]),
    # a GPU older than any current CUDA library (Fermi, the Tesla architecture), named or with its capability
    ("My card is an NVIDIA GeForce GTX 580 and the CUDA backend fails to start; the CPU backend works.\n",
     ["gpu_below_extension_minimum"]),
    ("The program reports no usable device. I have an old Nvidia NVS 4200M in my laptop.\n",
     ["gpu_below_extension_minimum"]),
    ("My board has compute capability 2.1 and the solver cannot find a CUDA device.\n",
     ["gpu_below_extension_minimum"]),
    # a binary built against one cuDNN / CUDA release and another loaded (Paddle's and older Paddle's forms)
    ("UserWarning: The installed Paddle is compiled with CUDNN 8.6, but CUDNN version in your machine is 8.4, which "
     "may cause serious incompatible bug.\n", ["library_shadowed_older_copy", "prebuilt_binary_wrong_cuda"]),
    ("The installed Paddle is compiled with CUDNN 7.6, but CUDNN version in your machine is 8.2\n",
     ["prebuilt_binary_wrong_cuda", "library_shadowed_older_copy"]),
    ("Check failed: [cudnn init] libcudnn v6 with header v7 unmatched!\n",
     ["library_shadowed_older_copy", "prebuilt_binary_wrong_cuda"]),
    # any tool's "built for one CUDA, another found"
    ("RuntimeError: this wheel was compiled with CUDA 12.4, but your system has CUDA 11.8\n",
     ["library_shadowed_older_copy", "prebuilt_binary_wrong_cuda"]),
    ("Error: plugin built for CUDA 11 but CUDA 12.2 runtime found\n",
     ["prebuilt_binary_wrong_cuda", "library_shadowed_older_copy"]),
    # TensorRT's CUDA initialisation failure by number (35: the driver older than the runtime)
    ("[05/01/2024-10:00:00] [TRT] [E] CUDA initialization failure with error: 35. Please check your CUDA "
     "installation\n", ["driver_too_old"]),
    ("W cuda_dnn.cc] Loaded cuDNN version 8500 but source was compiled with 8902\n",
     ["library_shadowed_older_copy", "prebuilt_binary_wrong_cuda"]),
    ("Warning: the cuDNN library found is 9.1 but this build requires 8.9\n",
     ["prebuilt_binary_wrong_cuda", "library_shadowed_older_copy"]),
    # musl's loader given a glibc build (Alpine)
    ("Error loading shared library ld-linux-x86-64.so.2: No such file or directory (needed by /usr/local/lib/python3.12/"
     "site-packages/numpy/core/_multiarray_umath.so)\n", ["wrong_architecture_binary", "symbol_version_missing"]),
    ("Error relocating /usr/local/lib/libfoo.so: __strdup_chk: symbol not found\n",
     ["wrong_architecture_binary", "symbol_version_missing"]),
    # nvcc: a partial toolkit, a host compiler too old for the standard, one too new for nvcc's front end
    ("nvcc fatal   : Path to libdevice library not specified\n", ["cuda_home_incomplete", "multiple_cuda_toolkits"]),
    ("nvcc warning : The -std=c++17 flag is not supported with the configured host compiler. Flag will be ignored.\n",
     ["host_compiler_unsupported"]),
    ('/usr/lib/gcc/x86_64-linux-gnu/14/include/avx512fp16intrin.h(38): error: identifier "__builtin_ia32_vcvtph2ps" '
     "is undefined\n", ["host_compiler_unsupported"]),
    # no C/C++ compiler at all
    ("building 'mypkg._speedups' extension\nunable to execute 'gcc': No such file or directory\n",
     ["build_dependency_missing"]),
    ("/bin/sh: 1: g++: not found\nmake: *** [Makefile:12: main.o] Error 127\n", ["build_dependency_missing"]),
    ("CMake Error at CMakeLists.txt:2 (project):\n  The CMAKE_CXX_COMPILER:\n\n    c++\n\n  is not a full path and was "
     "not found in the PATH.\n", ["build_dependency_missing"]),
    # Windows' ERROR_MOD_NOT_FOUND importing a CUDA package's module (no torch in sight), with a CUDA release named
    ("I have CUDA 11.7 installed.\nImportError: DLL load failed while importing fast_kernels: The specified module "
     "could not be found.\n", ["library_not_found", "prebuilt_binary_wrong_cuda"]),
    # Windows' ERROR_PROC_NOT_FOUND importing a torch extension's compiled module (by its conventional name)
    ("ImportError: DLL load failed while importing _ext: The specified procedure could not be found.\n",
     ["abi_torch_version_mismatch"]),
    ("ImportError: DLL load failed while importing fused_ops_ext: 找不到指定的程序。\n", ["abi_torch_version_mismatch"]),
    # the compiler driver without its C++ compiler proper
    ("gcc: fatal error: cannot execute 'cc1plus': execvp: No such file or directory\n"
     "compilation terminated.\n", ["build_dependency_missing"]),
    ("c++: error trying to exec 'cc1plus': execvp: No such file or directory\n", ["build_dependency_missing"]),
    # an executable of another CPU architecture on macOS
    ("$ ./mytool --help\nzsh: bad CPU type in executable: ./mytool\n", ["wrong_architecture_binary"]),
    # CMake's CUDA language running an nvcc that yields no default architecture
    ("-- The CUDA compiler identification is unknown\nCMake Error at /usr/share/cmake-3.25/Modules/"
     "CMakeDetermineCUDACompiler.cmake:603 (message):\n  Failed to detect a default CUDA architecture.\n",
     ["cuda_home_missing", "multiple_cuda_toolkits"]),
    # torch's cuDNN v8 API finding no engine
    ("    output = F.conv2d(x, w)\nRuntimeError: FIND was unable to find an engine to execute this computation\n",
     ["library_shadowed_older_copy", "cuda_oom"]),
    # MSVC's toolchain: torch's cpp_extension looking for cl, and cl's own command-line warnings
    ("subprocess.CalledProcessError: Command '['where', 'cl']' returned non-zero exit status 1.\n",
     ["windows_msvc_toolchain"]),
    ("cl : Command line warning D9002 : ignoring unknown option '-std=c++17'\n", ["windows_msvc_toolchain"]),
    # Windows' DLL initialisation failure (a C++ runtime older than the DLL's is one reading), in Chinese too
    ("OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "
     "\"C:\\env\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.\n",
     ["library_bug", "symbol_version_missing"]),
    ("ImportError: DLL load failed while importing _core: 动态链接库(DLL)初始化例程失败。\n",
     ["library_bug", "symbol_version_missing"]),
    # a header told missing in words, in its #include form
    ("Building the package fails with \"No such file <lapacke.h>\" on Debian.\n", ["build_dependency_missing"]),
    # a CUDA library a framework's stubs could not load
    ("RuntimeError: jaxlib/cuda/versions_helpers.cc:60: operation cublasGetProperty(MAJOR_VERSION, &major) failed: "
     "The cuBLAS library was not found.\n", ["cudart_not_found", "library_shadowed_older_copy"]),
    # the OpenMP runtime's functions undefined (macOS' dyld form, Linux's)
    ("ImportError: dlopen(/Users/me/src/solver/_kernels.cpython-311-darwin.so, 0x0002): Symbol not found: "
     "_omp_get_max_threads\n  Referenced from: /Users/me/src/solver/_kernels.cpython-311-darwin.so\n",
     ["library_not_found", "extension_undefined_symbol"]),
    ("ImportError: /opt/app/lib/_fast.so: undefined symbol: GOMP_loop_dynamic_start\n",
     ["library_not_found", "extension_undefined_symbol"]),
    # CMake's find modules finding no toolkit, no library
    ("CMake Error at /usr/share/cmake-3.27/Modules/FindPackageHandleStandardArgs.cmake:230 (message):\n"
     "  Could NOT find CUDAToolkit (missing: CUDAToolkit_INCLUDE_DIR CUDA_CUDART)\n", ["cuda_home_missing"]),
    ("  Could NOT find LAPACK (missing: LAPACK_LIBRARIES)\n", ["build_dependency_missing"]),
    ("CMake Error at CMakeLists.txt:12 (find_package):\n  Could not find a package configuration file provided by "
     "\"Eigen3\" with any of\n  the following names:\n", ["build_dependency_missing"]),
    # clang's CUDA driver: the arch outside the toolkit's range
    ("clang++: error: GPU arch sm_30 is supported by CUDA versions between 7.0 and 10.2 (inclusive), but installation "
     "at /usr/local/cuda is 11.4\n", ["unsupported_gpu_arch"]),
    # protobuf newer than a package's generated code
    ("TypeError: Descriptors cannot be created directly.\nIf this call came from a _pb2.py file, your generated code "
     "is out of date and must be regenerated with protoc >= 3.19.0.\n", ["package_api_version_mismatch"]),
    # a shell running an executable of another architecture as a script
    ("$ ./bin/solver\n./bin/solver: 1: ELF: not found\n./bin/solver: 2: Syntax error: word unexpected\n",
     ["wrong_architecture_binary"]),
    # a driver component beside libcuda missing on a host, told in the user's words
    ("cuModuleLoadDataEx failed. Turns out the machine lacked libnvidia-ptxjitcompiler.so.1 from the driver.\n",
     ["library_not_found", "driver_broken"]),
    # clang's form of a missing header, Apple ld's form of a missing library (the OpenMP runtime on macOS)
    ("src/parallel.cpp:4:10: fatal error: 'omp.h' file not found\n#include <omp.h>\n", ["build_dependency_missing"]),
    ("ld: library not found for -lomp\nclang: error: linker command failed with exit code 1\n",
     ["build_dependency_missing"]),
    # numpy's C API older than a compiled package's
    ("RuntimeError: module compiled against ABI version 0x1000009 but this version of numpy is 0x2000000\n",
     ["package_api_version_mismatch"]),
    # a torch extension's compiled module missing, the package gone on without it
    ("UserWarning: Failed to load custom C++ ops. Running on CPU mode Only!\n", ["extension_not_compiled"]),
    # cuDNN's own loader, Linux form
    ("Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file\n"
     "Please make sure libcudnn_ops_infer.so.8 is in your library path!\n", ["cudart_not_found"]),
    # XLA finding no ptxas / libdevice of a toolkit
    ("W external/xla/xla/service/gpu/nvptx_compiler.cc:700] Couldn't get ptxas version string: INTERNAL: Couldn't "
     "invoke ptxas --version\n", ["cuda_home_missing", "cuda_home_incomplete"]),
    # in Colab, '!pip' installs into the kernel's own Python: the missing library is the reading
    ("In Google Colab:\n!pip install some-cuda-package\nimport some_cuda_package\n"
     "ImportError: libcublas.so.12: cannot open shared object file: No such file or directory\n",
     ["cudart_not_found", "prebuilt_binary_wrong_cuda"]),
    # spconv's C++ library with no kernel for the GPU's architecture
    ("terminate called after throwing an instance of 'std::runtime_error'\n  what():  src/spconv/csrc/sparse/convops/"
     "gemmops.cc(42)\nnot implemented in c++, must be overrided in python!!!\n",
     ["no_kernel_image_for_gpu", "unsupported_gpu_arch"]),
    # pip under a 32-bit Python finds no GPU framework
    ("C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python38-32\\Scripts>pip install tensorflow-gpu\n"
     "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu (from versions: none)\n"
     "ERROR: No matching distribution found for tensorflow-gpu\n", ["wrong_architecture_binary"]),
]


@pytest.mark.parametrize("text,codes", READINGS, ids=[c[0][:60] for c in READINGS])
def test_reading(text, codes):
    got = rule_codes(text, n=len(codes))
    assert got == codes, (text, got)


NOT_THESE = [
    # a new GPU a capability check calls unsupported is not one below a minimum
    ("RuntimeError: compute capability 12.0 is not supported by this build\n", "gpu_below_extension_minimum"),
    # a modern GPU named beside a failure says nothing about a minimum
    ("I have an RTX 3090 and the CUDA backend fails to start.\n", "gpu_below_extension_minimum"),
    # a GPU model number that only looks like an old one
    ("NVIDIA GeForce RTX 4080 SUPER: training stops with NaN losses.\n", "gpu_below_extension_minimum"),
    # bf16 on a CPU is no GPU's limit
    ("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'BFloat16'\n", "gpu_below_extension_minimum"),
    # torch's own compiled core failing with ERROR_PROC_NOT_FOUND is no extension built for another torch
    ('  File "C:\\env\\lib\\site-packages\\torch\\__init__.py", line 133, in <module>\n'
     "    from torch._C import *\nImportError: DLL load failed while importing _C: The specified procedure could not "
     "be found.\n", "abi_torch_version_mismatch"),
    # another package's DLL with the same error, no torch in sight
    ("ImportError: DLL load failed while importing cv2: The specified procedure could not be found.\n",
     "abi_torch_version_mismatch"),
    # the compiler killed for memory is not a missing part
    ("c++: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.\n",
     "build_dependency_missing"),
    # a 64-bit Python that finds no wheel is not a 32-bit one
    ("C:\\Python311\\Scripts>pip install torch==1.4.0\n"
     "ERROR: Could not find a version that satisfies the requirement torch==1.4.0 (from versions: 2.0.0, 2.0.1)\n",
     "wrong_architecture_binary"),
    # a GPU above the minimum a line states is not below it
    ("GPU 0: NVIDIA A100 (compute capability 8.0), minimum required 7.0: ok\n", "gpu_below_extension_minimum"),
    ("This build supports compute capability 7.0 or higher. Detected compute capability 8.9.\n",
     "gpu_below_extension_minimum"),
    # a driver too old, a question about the GPU, are no GPU below a minimum
    ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040).\n", "gpu_below_extension_minimum"),
    ("Is my GPU too old? The error is: CUDA out of memory. Tried to allocate 2.00 GiB\n", "gpu_below_extension_minimum"),
    ("Note: Pascal GPUs are supported by this release; Maxwell is supported too.\n", "gpu_below_extension_minimum"),
    # a CUDA release's minimum is no GPU's
    ("ERROR: torch 2.4 requires CUDA 11.8 or higher\n", "gpu_below_extension_minimum"),
    # an #include line quoted in a question is no missing header
    ("My code has #include <cblas.h> and it compiles; the results are wrong.\n", "build_dependency_missing"),
    # a C function of another library undefined on macOS is not the OpenMP runtime
    ("ImportError: dlopen(/Users/me/x.so, 2): Symbol not found: _png_create_read_struct\n", "library_not_found"),
    # torch built without CUDA is no binary built for another CUDA; a driver's CUDA is the driver layer's
    ("AssertionError: Torch not compiled with CUDA enabled, but I have CUDA 11.8 installed\n",
     "prebuilt_binary_wrong_cuda"),
    ("llama.cpp was built with CUDA 12.4 but the driver supports only CUDA 12.2\n", "library_shadowed_older_copy"),
    # a module of a package that is not torch's is no torch DLL missing
    ("ImportError: DLL load failed while importing _pywrap_tensorflow_internal: The specified module could not be "
     "found.\n", "torch_libs_not_loaded"),
    # CMake's optional package not found ("-- " status line) is no failed build
    ("-- Could NOT find OpenMP_CXX (missing: OpenMP_CXX_FLAGS OpenMP_CXX_LIB_NAMES)\n-- Configuring done\n",
     "build_dependency_missing"),
    # torch's CUDA against the system's: a build's pair (nvcc_torch_cuda_mismatch), no binary built for another CUDA
    ("PyTorch was compiled with CUDA 11.8 but my system CUDA is 12.1\n", "library_shadowed_older_copy"),
    # a compiler that ran is no missing compiler
    ("gcc: error: unrecognized command-line option '-mfoo'\n", "build_dependency_missing"),
    # a word "unmatched" elsewhere is no cuDNN check
    ("SyntaxError: unmatched ')'\n", "prebuilt_binary_wrong_cuda"),
]


@pytest.mark.parametrize("text,code", NOT_THESE, ids=[c[0][:60] for c in NOT_THESE])
def test_not_read_as(text, code):
    assert code not in rule_codes(text, n=3), text
