# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 14 (the kinds behind dev12's misses: the machine, the loader and builds): musl's loader missing a
library, bash's ENOENT for an existing program, Go's lower-case 'exec format error', MKL's CPU-specific libraries,
a versioned symbol of a named version node, TorchSharp's native libraries; the early nvidia-docker CUDA check, the
nvidia module's probe finding no device, a CUDA result in a sentence, FFmpeg without nvcuda.dll, conda's/pixi's __cuda
virtual package, Julia's dlsym of a driver function, triton's loader-cache lookup of libcuda, CUDA-GL interop refused,
cudaErrorSymbolNotFound; cuda.h not found, FFmpeg's nvcc check, CMake's cuDNN summary. Each text is written for the
test (other tools, versions, wordings than the threads); each kind has near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # musl's loader (Alpine) missing a library: the relocations that follow are its symbols, not a glibc binary
    ("Error loading shared library libgcc_s.so.1: No such file or directory (needed by /usr/local/bin/tool)\n"
     "Error relocating /usr/local/bin/tool: _Unwind_Resume: symbol not found\n", ["library_not_found"]),
    ("Error loading shared library libgomp.so.1: No such file or directory (needed by /opt/app/libsolver.so)\n",
     ["library_not_found"]),
    # bash: execve ENOENT for a file that exists (a glibc binary's loader absent on musl, another architecture's)
    ("$ ./server-linux\nbash: ./server-linux: cannot execute: required file not found\n",
     ["wrong_architecture_binary", "library_not_found"]),
    # Go's strerror (docker, runc) in lower case: an image of another architecture
    ("exec /usr/local/bin/docker-entrypoint.sh: exec format error\n", ["wrong_architecture_binary"]),
    ('standard_init_linux.go:228: exec user process caused: exec format error\n', ["wrong_architecture_binary"]),
    # MKL's dispatcher could not load its CPU-specific library
    ("Intel MKL FATAL ERROR: Cannot load libmkl_avx512.so or libmkl_def.so.\n",
     ["library_not_found", "library_shadowed_older_copy"]),
    ("INTEL MKL ERROR: The specified module could not be found. mkl_intel_thread.dll.\n"
     "Intel MKL FATAL ERROR: Cannot load mkl_intel_thread.dll.\n", ["library_not_found", "library_shadowed_older_copy"]),
    # a versioned symbol of a named version node (not a soname): an older copy of that library shadows
    ("ImportError: /lib/x86_64-linux-gnu/libgobject-2.0.so.0: undefined symbol: ffi_prep_closure_loc, version "
     "LIBFFI_CLOSURE_7.0\n", ["library_shadowed_older_copy"]),
    # TorchSharp's native library: a procedure missing is a libtorch of another release; a DLL missing, none at all
    ("Unhandled exception. System.DllNotFoundException: Unable to load DLL 'LibTorchSharp' or one of its dependencies: "
     "The specified procedure could not be found. (0x8007007F)\n", ["abi_torch_version_mismatch", "library_not_found"]),
    ("System.DllNotFoundException: Unable to load shared library 'LibTorchSharp' or one of its dependencies.\n",
     ["library_not_found", "abi_torch_version_mismatch"]),
    # nvidia-docker 1.0's early check without its words
    ("nvidia-docker | 2016/05/02 10:11:12 Error: unsupported CUDA version: 8.0 < 7.5\n", ["driver_too_old"]),
    # the nvidia module's probe found no device: whatever CUDA says next
    ("modprobe: ERROR: could not insert 'nvidia': No such device\n", ["no_gpu", "driver_broken"]),
    ("modprobe: ERROR: could not insert 'nvidia': No such device\n"
     "CUDA error: no CUDA-capable device is detected\n", ["no_gpu"]),
    # a CUresult in a sentence ending with its period
    ("On the new node cuInit(0) returns 999.\n", ["driver_broken"]),
    # FFmpeg on Windows without an NVIDIA driver
    ("[hevc_nvenc @ 0000020a4c5b7f00] Cannot load nvcuda.dll\n", ["no_gpu", "library_not_found"]),
    # conda's / pixi's __cuda virtual package on a machine without an NVIDIA driver
    ("  ╰─▶ Virtual package '__cuda >=12' does not match any of the available virtual packages on your machine: "
     "[__glibc=2.35=0, __unix=0=0, __linux=6.5.0=0]\n", ["no_gpu", "gpu_not_exposed_to_process"]),
    ("  - nothing provides __cuda needed by pytorch-2.1.0-py3.11_cuda12.1_cudnn8.9.2_0\n",
     ["no_gpu", "gpu_not_exposed_to_process"]),
    # Julia's dlsym of a driver function in no loaded library
    ('ERROR: could not load symbol "cuInit":\n/usr/local/julia/bin/julia: undefined symbol: cuInit\n',
     ["no_gpu", "library_bug"]),
    # triton's lookup of libcuda in the loader cache
    ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nAssertionError: libcuda.so cannot found!\n",
     ["library_not_found", "library_bug"]),
    # CUDA-OpenGL interop refused by the platform (WSL 2)
    ("RuntimeError: cudaGraphicsGLRegisterBuffer failed: OS call failed or operation not supported on this OS\n",
     ["opengl_egl_unavailable", "driver_broken"]),
    # waifu2x-caffe's CUDA check, in its two continuations
    ("Input can not be converted by GPU\nThe CUDA driver version may be old\nPlease update the CUDA driver\n",
     ["driver_too_old", "no_gpu"]),
    ("Input can not be converted by GPU\nThe CUDA driver may not have been installed.\n", ["no_gpu", "driver_too_old"]),
    # nvidia-docker 1.0's plugin: its driver volume hard-linked across file systems
    ("nvidia-docker-plugin | 2016/09/12 08:01:02 Error: link /usr/bin/nvidia-smi "
     "/srv/nvidia-docker/volumes/nvidia_driver/367.48/bin/nvidia-smi: invalid cross-device link\n",
     ["gpu_not_exposed_to_process"]),
    # the image holds a driver file the container toolkit mounts from the host
    ("nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/9f/merged/usr/lib/"
     "x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown.\n", ["library_bug", "gpu_not_exposed_to_process"]),
    # an image compiled at run time for this GPU that the driver calls invalid: a toolchain newer than the driver
    ("  File \"/env/lib/python3.9/site-packages/pycuda/compiler.py\", line 363, in __init__\n"
     "pycuda._driver.LogicError: cuModuleLoadDataEx failed: device kernel image is invalid - \n",
     ["driver_below_cuda_minor", "multiple_cuda_toolkits"]),
    ("RuntimeError: Triton Error [CUDA]: device kernel image is invalid\n",
     ["driver_below_cuda_minor", "no_kernel_image_for_gpu"]),
    # cudaErrorSymbolNotFound: a kernel or symbol absent from the module loaded for this GPU
    ("CUDA error cudaErrorSymbolNotFound at kernels.cu:88: named symbol not found\n",
     ["no_kernel_image_for_gpu", "user_code_error"]),
    # cuda.h not found: no toolkit's include directory, even where a Makefile's default one is on the command line
    ("nvcc_wrap.c:3:10: fatal error: cuda.h: No such file or directory\n", ["cuda_home_missing", "cuda_home_incomplete"]),
    ("gcc -O2 -I/usr/local/cuda/include -c probe.c\nprobe.c:1:10: fatal error: cuda.h: No such file or directory\n",
     ["cuda_home_missing", "cuda_home_incomplete"]),
    # FFmpeg's configure: its nvcc check failed
    ("./configure --enable-cuda-nvcc --enable-nonfree\nERROR: failed checking for nvcc.\n",
     ["cuda_home_missing", "host_compiler_unsupported"]),
    # CMake's configure summary of a Caffe-style project
    ("-- NVIDIA CUDA:\n--   Target GPU(s)     :   Auto\n--   cuDNN             :   Not found\n",
     ["build_dependency_missing", "cuda_home_incomplete"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # musl's own loader missing (a glibc binary on Alpine) stays that kind
    ("Error loading shared library ld-linux-x86-64.so.2: No such file or directory (needed by ./app)\n",
     "library_not_found"),
    # a library found but refused by the shell: other messages
    ("bash: ./run.sh: /bin/bash^M: bad interpreter: No such file or directory\n", "wrong_architecture_binary"),
    ("bash: ./tool: Permission denied\n", "wrong_architecture_binary"),
    ("-bash: ./install.sh: cannot execute: required file not found\n", "wrong_architecture_binary"),
    # MKL's other messages; a versioned symbol of a soname is the older-copy kind
    ("Intel MKL ERROR: Parameter 6 was incorrect on entry to DGELSD.\n", "library_not_found"),
    ("ImportError: libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12\n",
     "symbol_version_missing"),
    # the other TorchSharp failures are not a native-library mismatch
    ("System.ArgumentException: Expected all tensors to be on the same device\n", "abi_torch_version_mismatch"),
    # modprobe's other refusals are the broken driver, not a machine without a GPU
    ("modprobe: ERROR: could not insert 'nvidia': Operation not permitted\n", "no_gpu"),
    ("modprobe: ERROR: could not insert 'nvidia': Exec format error\n", "no_gpu"),
    # a version number after a call is no result code
    ("cuInit returns 12.4 as the driver version\n", "driver_broken"),
    # FFmpeg's Linux form stays the loader's reading (a container not given the driver as likely)
    ("[h264_nvenc @ 0x55f] Cannot load libnvidia-encode.so.1\n", "no_gpu"),
    # other virtual packages: the system's glibc, not the GPU
    ("Virtual package '__glibc >=2.28' does not match any of the available virtual packages on your machine: "
     "[__glibc=2.17=0]\n", "no_gpu"),
    # Julia's dlsym of a function of another library
    ('ERROR: could not load symbol "png_create_read_struct":\n', "no_gpu"),
    # CUDA's OS error outside graphics interop; interop's other errors
    ("CUDA error: OS call failed or operation not supported on this OS\n", "opengl_egl_unavailable"),
    ("cudaGraphicsMapResources failed: invalid resource handle\n", "opengl_egl_unavailable"),
    # waifu2x-caffe's other messages; other hard-link failures
    ("You can not use cuDNN\n「cudnn64_7.dll」not found\n", "driver_too_old"),
    ("ln: failed to create hard link '/mnt/b/x' => '/home/x': Invalid cross-device link\n",
     "gpu_not_exposed_to_process"),
    # an invalid image of a binary built beforehand is not read as a run-time compiler's
    ("tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:0 failed. "
     "Status: device kernel image is invalid\n", "multiple_cuda_toolkits"),
    # other headers: not CUDA's own
    ("src/x.cpp:2:10: fatal error: png.h: No such file or directory\n", "cuda_home_missing"),
    # FFmpeg's other configure failures; CMake's summary of a cuDNN found
    ("ERROR: cuda_llvm requested but not found\n", "host_compiler_unsupported"),
    ("--   cuDNN             :   Yes (ver. 7.6.5)\n", "build_dependency_missing"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)


def test_a_driver_too_old_reading_claims_it_only_where_the_drivers_cuda_is_known():
    from smrnb.doctor._explain import explain_text

    # waifu2x-caffe's "may not have been installed" with a driver and a CUDA named, nothing saying what the driver
    # runs: a reading to check, not a comparison (385.54 is CUDA 9.0's Windows minimum)
    guess = explain_text("The CUDA Driver May Not Have Been Installed\nMy NVIDIA driver version is 385.54. CUDA Toolkit "
                         "installed from cuda_9.0.176_win10.exe", similar=False)
    old = [f for f in guess if f.code == "driver_too_old"]
    assert old and old[0].title == "Driver 385.54 may be too old for CUDA 9.0"
    # torch's own check says which CUDA the driver runs (found version 10020): that is a comparison
    told = explain_text("RuntimeError: The NVIDIA driver on your system is too old (found version 10020). "
                        "torch 2.1.0+cu121", similar=False)
    assert told[0].code == "driver_too_old" and " is too old for torch built with CUDA 12.1" in told[0].title
