# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 11 (builds, the loader and binaries): kinds the fresh collection's development half showed the
rules lacked, each written from the tool's own message (see the table rows' ``source``) in other words and other
tools than one thread's: a compute type or precision a GPU cannot run (CTranslate2, torch's autocast,
bitsandbytes, vLLM's quantization, NVENC, PG-Strom), libraries a wrapper or a runtime cannot load (phonemizer,
torchaudio, pyglet, TensorRT, Numba), builds without a toolkit (an empty CUDA_HOME, XLA's ptxas, CMake's CUDA
language, 'no nvcc'), a toolkit older than the source (CUDA 9's warp intrinsics), libraries built for another
GPU, CUDA or cuDNN (NCCL, libspconv, Paddle, rocBLAS, TensorRT engines) and binaries of another CPU (macOS).
Each risky pattern has a text of another kind that must not get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # CTranslate2 (faster-whisper, WhisperX): a compute type the device cannot run efficiently
    ("Traceback (most recent call last):\n  File \"run.py\", line 4, in <module>\n"
     "    model = WhisperModel(\"large-v2\", device=\"cuda\", compute_type=\"int8_float16\")\n"
     "ValueError: Requested int8_float16 compute type, but the target device or backend do not support efficient "
     "int8_float16 computation.\n", ["user_code_error", "gpu_below_extension_minimum"]),
    # torch's autocast asked for bfloat16 on a Turing GPU
    ("    with torch.autocast(\"cuda\", dtype=torch.bfloat16):\nRuntimeError: Current CUDA Device does not support "
     "bfloat16. Please switch dtype to float16.\n", ["gpu_below_extension_minimum"]),
    # bitsandbytes' int8 matmul below Turing
    ("/usr/lib/python3/site-packages/bitsandbytes/autograd/_functions.py:298: UserWarning: WARNING: Compute "
     "capability < 7.5 detected! Only slow 8-bit matmul is supported for your GPU!\n",
     ["gpu_below_extension_minimum"]),
    # vLLM: a quantized model whose kernels need a newer GPU
    ("ValueError: The quantization method gptq_marlin is not supported for the current GPU. Minimum capability: 80. "
     "Current capability: 75.\n", ["gpu_below_extension_minimum"]),
    # NVENC on a GPU without the encoder (OBS / ffmpeg wording)
    ("[hevc_nvenc @ 0x55d1c0] OpenEncodeSessionEx failed: unsupported device (2): (no details)\n"
     "[hevc_nvenc @ 0x55d1c0] No capable devices found\n", ["gpu_below_extension_minimum"]),
    ("NVENC error: NV_ENC_ERR_UNSUPPORTED_DEVICE while opening the encode session\n", ["gpu_below_extension_minimum"]),
    # PG-Strom's start-up check
    ("LOG:  GPU0 GeForce GTX 680 (8 SMs, 1058MHz), L2 512KB, RAM 2047MB, capability 3.0, NOT SUPPORTED\n"
     "FATAL:  No supported CUDA devices, PG-Strom was disabled\n", ["gpu_below_extension_minimum"]),
    # phonemizer without espeak-ng's library
    ("  File \"phonemizer/backend/base.py\", line 77, in __init__\nRuntimeError: espeak-ng not installed on your "
     "system\n", ["library_not_found"]),
    # torchaudio with no audio backend
    ("torchaudio.save('out.flac', wav, 24000)\nRuntimeError: Couldn't find appropriate backend to handle uri out.flac "
     "and format None.\n", ["library_not_found"]),
    ("RuntimeError: No audio I/O backend is available.\n", ["library_not_found"]),
    # pyglet's ctypes loader
    ("  File \"pyglet/lib.py\", line 168, in load_library\nImportError: Library \"GL\" not found.\n",
     ["library_not_found"]),
    # TensorRT loading one of its own libraries on demand
    ("[TRT] [E] 6: [libLoader.cpp::Impl::293] Error Code 6: API Usage Error (Unable to load library: "
     "nvinfer_builder_resource_10.dll)\n", ["cudart_not_found", "library_bug"]),
    # Numba pointed at a library that is not the driver
    ("numba.cuda.cudadrv.error.CudaDriverError: driver missing function: cuDeviceGet.\n",
     ["cuda_stub_driver_loaded", "library_not_found"]),
    # a build joined an unset CUDA_HOME with the toolkit's layout
    ("make: *** No rule to make target '/lib64/libcublas.so', needed by 'libkernels.so'.  Stop.\n"
     "/usr/bin/ld: cannot find /lib64/libcublas.so: No such file or directory\n", ["cuda_home_missing"]),
    ("sh: 1: /bin/nvcc: not found\n", ["cuda_home_missing"]),
    # XLA without ptxas
    ("2024-02-01 10:00:00.000: W external/xla/xla/stream_executor/gpu/asm_compiler.cc:111] Couldn't find ptxas "
     "binary. Will back to the GPU driver for PTX -> sass compilation.\n", ["cuda_home_missing"]),
    # CMake's CUDA language ran no working nvcc
    ("-- The CUDA compiler identification is unknown\nCMake Error at /opt/cmake/share/cmake-3.30/Modules/"
     "CMakeDetermineCUDACompiler.cmake:266 (message):\n  Failed to detect a default CUDA architecture.\n",
     ["cuda_home_missing", "multiple_cuda_toolkits"]),
    # gcc without its C++ front end
    ("x86_64-linux-gnu-gcc: error trying to exec 'cc1plus': execvp: No such file or directory\n"
     "error: command '/usr/bin/x86_64-linux-gnu-gcc' failed with exit code 1\n", ["build_dependency_missing"]),
    # CUDA 8 compiling CUDA 9's warp intrinsics
    ("src/reduce.cuh(41): error: identifier \"__ballot_sync\" is undefined\n\n1 error detected in the compilation "
     "of \"/tmp/tmpxft_0000_00000000-7_reduce.cpp1.ii\".\n", ["toolkit_below_extension_minimum"]),
    # NCCL built without the GPU's architecture: the CUDA error it quotes is read like the runtime's own
    # (test_explain_cuda_failure_and_indexes.py); cudaErrorSymbolNotFound reads a kernel absent from the module loaded
    # for this GPU first since round 14 (tables/cuda_errors.csv 500), the calling code's wrong name next
    ("node3:1234:1300 [1] NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC\nnode3:1234:1300 [1] enqueue.cc:212 NCCL "
     "WARN Cuda failure 'named symbol not found'\n", ["no_kernel_image_for_gpu", "user_code_error"]),
    # libspconv built for other architectures
    ("terminate called after throwing an instance of 'std::runtime_error'\n  what():  ConvTunerSimple.cc(18)\n"
     "not implemented in c++, must be overrided in python!!!\n", ["no_kernel_image_for_gpu",
                                                                 "unsupported_gpu_arch"]),
    # Paddle built for another CUDA / cuDNN than the machine's
    ("W0101 10:00:00.000 gpu_resources.cc:119] The installed Paddle is compiled with CUDA 11.8, but CUDA runtime "
     "version in your machine is 11.2, which may cause serious incompatible bug.\n",
     ["library_shadowed_older_copy", "prebuilt_binary_wrong_cuda"]),
    # rocBLAS without kernels for the GPU's gfx target
    ("rocBLAS error: Cannot read /opt/rocm-6.0.2/lib/rocblas/library/TensileLibrary.dat: No such file or directory "
     "for GPU arch : gfx1036\n", ["torch_wheel_lacks_gpu_arch", "no_kernel_image_for_gpu"]),
    # a TensorRT engine from another TensorRT copy
    ("[E] 1: [runtime.cpp::parsePlan::314] Error Code 1: Serialization (Serialization assertion "
     "plan->header.magicTag == rt::kPLAN_MAGIC_TAG failed.)\n", ["prebuilt_binary_wrong_cuda",
                                                                  "library_shadowed_older_copy"]),
    # onnxruntime's CUDA provider DLL whose CUDA/cuDNN dependencies are missing
    ("2024-05-01 [E:onnxruntime:Default, provider_bridge_ort.cc:1548 onnxruntime::TryGetProviderInfo_CUDA] "
     "[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 \"\" when trying to load "
     "\"D:\\env\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll\"\n",
     ["cudart_not_found", "prebuilt_binary_wrong_cuda"]),
    # a program's own minimum compute capability
    ("[2021-03-01 10:00:00] GPU #1: FATAL: the 'kawpow' kernel requires 6.0 capability!\n",
     ["gpu_below_extension_minimum"]),
    ("Error: this build requires compute capability 7.0 or higher; found GeForce GTX 1080 (6.1)\n",
     ["gpu_below_extension_minimum"]),
    ("NotImplementedError: No operator found for `memory_efficient_attention_forward`:\n     `cutlassF` is not "
     "supported because:\n        requires device with capability > (8, 0) but your GPU has capability (7, 5) "
     "(too old)\n", ["gpu_below_extension_minimum"]),
    ("RuntimeError: this kernel only supports GPUs with compute capability 8.0 and above\n",
     ["gpu_below_extension_minimum"]),
    # CMake's find_package without the package
    ("CMake Error at /usr/share/cmake-3.28/Modules/FindPackageHandleStandardArgs.cmake:230 (message):\n  Could NOT "
     "find NCCL (missing: NCCL_INCLUDE_DIR NCCL_LIBRARY)\n", ["build_dependency_missing"]),
    ("CMake Error at CMakeLists.txt:9 (find_package):\n  By not providing \"FindTensorRT.cmake\" in "
     "CMAKE_MODULE_PATH this project has asked CMake to find a package configuration file provided by "
     "\"TensorRT\", but CMake did not find one.\n", ["build_dependency_missing"]),
    # CUDA 10 compiling bf16 code
    ("csrc/ops.cu(77): error: identifier \"__nv_bfloat162\" is undefined\n", ["toolkit_below_extension_minimum",
                                                                          "library_bug"]),
    # macOS: the OpenMP runtime not found for a module built with it
    ("ImportError: dlopen(/opt/proj/_ext.cpython-311-darwin.so, 0x0002): Symbol not found: ___kmpc_fork_call\n"
     "  Referenced from: /opt/proj/_ext.cpython-311-darwin.so\n", ["library_not_found", "extension_undefined_symbol"]),
    # torch's cpp_extension on Windows without MSVC's cl
    ("subprocess.CalledProcessError: Command '['where', 'cl']' returned non-zero exit status 1.\n",
     ["windows_msvc_toolchain"]),
    # a DLL pip installed (so present) whose dependencies Windows does not find
    ("FileNotFoundError: Could not find module 'D:\\py\\Lib\\site-packages\\gpu_pkg\\kernels.dll' (or one of "
     "its dependencies). Try using the full path with constructor syntax.\n", ["library_not_found",
                                                                                "cudart_not_found"]),
    # a binary of another CPU on a Mac
    ("$ ./bin/tool --help\nzsh: bad CPU type in executable: ./bin/tool\n", ["wrong_architecture_binary"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


def test_no_nvcc_in_a_container_is_a_missing_toolkit():
    text = ("The JIT build of the extension hangs in our image. I opened a shell in the container and there is no "
            "nvcc at all.\n")
    assert rule_codes(text, n=1) == ["cuda_home_missing"]


NOT = [
    # the NVENC session limit of consumer GPUs is no missing encoder
    ("[h264_nvenc @ 0x5] OpenEncodeSessionEx failed: out of memory (10): (no details)\n"
     "[h264_nvenc @ 0x5] No capable devices found\n", "gpu_below_extension_minimum"),
    # a compute type the device runs: nothing failed
    ("model = WhisperModel('small', device='cuda', compute_type='float16')\nDetected language 'en' with probability "
     "0.98\n", "gpu_below_extension_minimum"),
    # a library path under a real prefix is no empty CUDA_HOME
    ("/usr/bin/ld: cannot find /usr/local/cuda/lib64/libcudart.so: No such file or directory\n", "cuda_home_missing"),
    ("ls /lib64/libcudart.so.12 -> libcudart.so.12.4.127\n", "cuda_home_missing"),
    # another identifier undefined is the source's own bug, not CUDA 8
    ("kernel.cu(12): error: identifier \"my_shfl_helper\" is undefined\n", "toolkit_below_extension_minimum"),
    # a CUDA error of user code that names no NCCL failure
    ("cudaErrorInvalidValue: invalid argument\n", "no_kernel_image_for_gpu"),
    # Paddle's check passing prints no warning
    ("Running verify PaddlePaddle program ...\nPaddlePaddle works well on 1 GPU.\n", "prebuilt_binary_wrong_cuda"),
    # bf16 on a GPU that has it: no error
    ("torch.cuda.is_bf16_supported() -> True on the A100\n", "gpu_below_extension_minimum"),
    # a capability the program states it has, not requires
    ("Device 0: NVIDIA A10G, compute capability 8.6, 22 GB\n", "gpu_below_extension_minimum"),
    # another 'undefined symbol' of an extension is no OpenMP runtime
    ("ImportError: /venv/lib/python3.10/site-packages/ext/_C.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
     "library_not_found"),
    # CMake finding the CUDA toolkit itself is read as the toolkit, not as a build dependency
    ("CMake Error: Could NOT find CUDAToolkit (missing: CUDAToolkit_INCLUDE_DIR)\n", "build_dependency_missing"),
    # a GPU newer than the minimum: nothing refused
    ("compute capability 8.6 >= 7.0: using the tensor-core kernels\n", "gpu_below_extension_minimum"),
    # a Mac binary that runs
    ("$ file ./bin/tool\n./bin/tool: Mach-O 64-bit executable arm64\n", "wrong_architecture_binary"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text)
