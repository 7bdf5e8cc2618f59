# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 16 (the kinds behind heldout10's misses, released): known messages in the forms copies give them (a
CUDA error number after "error code", cudaGetErrorString quoted by a program's own check, nvidia-smi's "No device
were found", OpenMP's Error #15 without its "OMP: " prefix, typed-over AMP and torchmetrics messages, FFmpeg's codec
message in lower case, MKL's versioned DLL names, onnxruntime's error 126 without Windows' message, CPython's
"positional arguments (and N keyword-only argument)" form, torch's ROCm "No HIP GPUs are available"), a libtorch
application's link-time undefined torch symbol with a std::string in it (the string ABI), nvidia-smi crashing, and
own messages of libraries: jax's outdated CUDA component, Theano's nvcc not on PATH, Kaldi's configure not knowing
the toolkit, NCCL's invalid usage and internal error, CUDA IPC refused between ranks, onnxruntime's GPU provider not
in the build, Lightning's removed hooks, Paddle's removed fluid, JupyterLab's incompatible extension, VS Code's
interpreter without ipykernel, CroCo's RoPE kernel not compiled, AutoAWQ's kernels missing, libtorch's harmless
shorthash warning, SageAttention on a GPU older than Ampere, tensorflow_cc's host compiler search, torch's MPS
convolution limit, Accelerate on RTX 40-series without P2P, NVENC refusing a setting, an MPSGraph type an older macOS
SDK lacks, torch's own library missing after pip installed a companion alone, the LibTorch archive's string ABI,
CUDA's insufficient driver on macOS, and nvidia-docker 1.0's driver volume across partitions. Each text is written
for the test (other wordings, versions, tools than the threads); each kind has near-misses that must NOT get its
code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # a CUDA error number after "error code" (CUDA_ERROR_STUB_LIBRARY = cudaErrorStubLibrary = 34)
    ("[2025-01-02 08:00:01] GPU #0: CUDA error: error code 34\n[2025-01-02 08:00:01] miner terminated\n",
     ["cuda_stub_driver_loaded"]),
    # cudaGetErrorString quoted by a program's own check (nheqminer's and its forks' checkCudaErrors)
    ("CUDA error 'unknown error' in func 'cuda_solver::start' line 88\n",
     ["driver_broken", "gpu_not_exposed_to_process"]),
    ("CUDA error 'out of memory' in func 'eq_cuda_context' line 140\n", ["cuda_oom"]),
    # nvidia-smi's own message, typed over in a title
    ("root@guest:~# nvidia-smi\nNo device were found\n", ["driver_broken", "gpu_not_exposed_to_process"]),
    # nvidia-smi crashing (a driver release's bug, or a broken install)
    ("$ nvidia-smi\nSegmentation fault (core dumped)\n", ["driver_broken", "library_bug"]),
    ("Running nvidia-smi inside Ubuntu 24.04 on WSL gives \"Segmentation fault\" since the 561.09 driver\n",
     ["driver_broken", "library_bug"]),
    # OpenMP's duplicate runtime with its prefix cut off
    ("Error #15: Initializing libiomp5.so, but found libomp.so already initialized.\n", ["native_library_conflict"]),
    # AMP's message typed over, torchmetrics' with a capital
    ("ValueError: Attempting to unscale fp16 gradients\n", ["user_code_error"]),
    ("training fails with 'Attemping to unscale FP16 Gradients'\n", ["user_code_error"]),
    ("TypeError: Missing 1 required positional argument: 'task' when creating F1Score()\n",
     ["package_api_version_mismatch"]),
    # FFmpeg without NVIDIA's codecs, its message retyped in lower case
    ("ffmpeg -i in.mkv -c:v av1_nvenc out.mkv\nunknown encoder 'av1_nvenc'\n", ["cpu_only_torch_with_gpu"]),
    # MKL's CPU library with oneMKL's versioned Windows DLL names
    ("INTEL MKL ERROR: The specified module could not be found. mkl_avx2.2.dll.\n"
     "Intel MKL FATAL ERROR: Cannot load mkl_avx2.2.dll or mkl_def.2.dll.\n",
     ["library_not_found", "library_shadowed_older_copy"]),
    # onnxruntime's provider DLL, error 126 without Windows' message and in another case
    ("Loadlibrary failed with error 126 when trying to load onnxruntime_providers_tensorrt.dll\n",
     ["cudart_not_found", "prebuilt_binary_wrong_cuda"]),
    # CPython's count with keyword-only arguments; the callee called as package.module.name(
    ("  File \"app/audio.py\", line 12, in load\n    y = librosa.core.resample(y, 44100, 16000)\n"
     "TypeError: resample() takes 1 positional argument but 3 positional arguments (and 1 keyword-only argument) "
     "were given\nlibrosa 0.10.1\n", ["package_api_version_mismatch", "user_code_error"]),
    # torch's ROCm builds: "No CUDA GPUs are available" hipified (the devices not given, else a ROCm wheel on a machine
    # without an AMD GPU); an NVIDIA GPU named: the ROCm wheel first
    ("  File \"/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 302, in _lazy_init\n"
     "    torch._C._cuda_init()\nRuntimeError: No HIP GPUs are available\n",
     ["gpu_not_exposed_to_process", "cpu_only_torch_with_gpu"]),
    ("RUN pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\n$ nvidia-smi -L\n"
     "GPU 0: NVIDIA A10G (UUID: GPU-5d1e)\nRuntimeError: No HIP GPUs are available\n",
     ["cpu_only_torch_with_gpu", "no_gpu"]),
    # a libtorch application's link-time undefined torch symbol with a std::string: the string ABI first
    ("/usr/bin/ld: main.o: in function `main':\nmain.cpp:(.text+0x8c): undefined reference to "
     "`torch::jit::load(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&, "
     "c10::optional<c10::Device>)'\ncollect2: error: ld returned 1 exit status\n",
     ["cxx11_abi_mismatch", "abi_torch_version_mismatch"]),
    ("demo.cpp:(.text+0x40): undefined reference to `c10::detail::torchCheckFail(char const*, char const*, "
     "unsigned int, std::string const&)'\n", ["cxx11_abi_mismatch", "abi_torch_version_mismatch"]),
    # an undefined torch symbol with the new std::string where the text names the pre-cxx11 LibTorch archive
    ("unzip libtorch-shared-with-deps-2.0.1.zip\n./demo: symbol lookup error: /opt/gems/torch-rb/lib/torch/ext.so: "
     "undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE\n",
     ["cxx11_abi_mismatch"]),
    # jax's CUDA component older than its minimum
    ("jax.devices() -> [CpuDevice(id=0)]\n"
     "CUDA backend failed to initialize: Unable to use CUDA because of the following issues with CUDA components:\n"
     "Outdated cuDNN installation found.\nVersion JAX was built against: 9500\nMinimum supported: 9100\n"
     "Installed version: 8600\n", ["prebuilt_binary_wrong_cuda", "library_shadowed_older_copy"]),
    # Theano: nvcc not on the process's PATH (no toolkit, or a process started with another PATH: sudo)
    ("WARNING (theano.sandbox.cuda): nvcc compiler not found on $PATH. Check your nvcc installation and try again.\n",
     ["cuda_home_missing", "env_not_propagated_to_kernel"]),
    # Kaldi's configure script older than the toolkit
    ("./configure --shared\nConfiguring KALDI to use MKL.\nUnsupported CUDA_VERSION (CUDA_VERSION=12_6), please "
     "report it to Kaldi mailing list\n", ["library_bug"]),
    # NCCL's own results: invalid usage (two ranks on one GPU, ...) and internal error
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
     "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5\n", ["user_code_error"]),
    ("RuntimeError: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n", ["user_code_error"]),
    ("init.cc:1790 NCCL WARN ncclCommInitRankConfig failed\nRuntimeError: NCCL error: internal error - please report "
     "this issue to the NCCL developers\n", ["library_bug"]),
    # CUDA IPC between ranks refused (the peer's GPU hidden from this process, or no peer access)
    ("rank 3: cuIpcOpenMemHandle failed: CUDA_ERROR_INVALID_CONTEXT\n",
     ["gpu_not_exposed_to_process", "gpu_p2p_unsupported"]),
    # onnxruntime built without the GPU provider asked for
    ("Error: ORT error: TensorRT execution provider is not enabled in this build.\n", ["cpu_only_torch_with_gpu"]),
    # Lightning's removed hooks (2.0)
    ("NotImplementedError: Support for `training_epoch_end` has been removed in v2.0.0. `Model` implements this "
     "method.\n", ["package_api_version_mismatch"]),
    # Paddle's APIs not in the installed release
    ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    import paddle.fluid as fluid\n"
     "ModuleNotFoundError: No module named 'paddle.fluid'\n", ["package_api_version_mismatch"]),
    ("AttributeError: module 'paddle.nn' has no attribute 'RNNCellBase'\n", ["package_api_version_mismatch"]),
    # JupyterLab's extension made for another JupyterLab
    ("ValueError: \"@jupyterlab/git@0.41.0\" is not compatible with the current JupyterLab\n"
     "Conflicting Dependencies:\n", ["package_api_version_mismatch"]),
    # VS Code's selected interpreter without ipykernel
    ("Running cells with 'Python 3.12.1 64-bit' requires the ipykernel package.\nRun the following command to install "
     "'ipykernel' into the Python environment.\n", ["kernel_wrong_python"]),
    # CroCo's (DUSt3R's) RoPE kernel not compiled; AutoAWQ's kernels missing
    ("Warning, cannot find cuda-compiled version of RoPE2D, using a slow pytorch version instead\n",
     ["extension_not_compiled"]),
    ("ValueError: auto-awq kernels is needed to be installed to use `.backward()`.\n",
     ["extension_not_compiled"]),
    # libtorch 1.8's harmless CMake warning
    ("CMake Warning at /opt/libtorch/share/cmake/Caffe2/public/cuda.cmake:198 (message):\n  Failed to compute shorthash "
     "for libnvrtc.so\n", ["library_bug"]),
    # SageAttention on a GPU before Ampere
    ("  File \"sageattention/core.py\", line 140, in sageattn\nValueError: Unsupported CUDA architecture: sm70\n",
     ["gpu_below_extension_minimum"]),
    # tensorflow_cc's search for a host compiler nvcc supports
    ("-- Configuring TensorFlow\nNo supported CUDA compiler available.\n", ["host_compiler_unsupported"]),
    # torch's MPS convolution limit
    ("NotImplementedError: Output channels > 65536 not supported at the MPS device.\n", ["library_bug"]),
    # Accelerate refusing multi-GPU work on RTX 40-series cards without NCCL's P2P and IB turned off
    ("  File \"accelerate/state.py\", line 280, in __init__\nNotImplementedError: Using RTX 4000 series doesn't "
     "support faster communication broadband via P2P or IB. Please set `NCCL_P2P_DISABLE=\"1\"`\n",
     ["gpu_p2p_unsupported"]),
    # NVENC refusing a setting (one this GPU's encoder lacks first)
    ("[hevc_nvenc @ 0x5610] InitializeEncoder failed: invalid param (8): NV_ENC_ERR_INVALID_PARAM\n",
     ["gpu_below_extension_minimum", "user_code_error"]),
    # an MPSGraph type the macOS SDK does not declare
    ("/src/backends/mps/runtime/MPSDevice.mm:77:3: error: unknown type name 'MPSGraphCompilationDescriptor'\n",
     ["toolkit_below_extension_minimum", "driver_too_old"]),
    # fairseq's compiled modules not built
    ("  File \"fairseq/models/nat/levenshtein_utils.py\", line 14, in load_libnat\n    from fairseq import libnat_cuda\n"
     "ImportError: cannot import name 'libnat_cuda' from 'fairseq' (/work/fairseq/fairseq/__init__.py)\n",
     ["extension_not_compiled"]),
    ("ImportError: Please build Cython components with: `pip install --editable .` or `python setup.py build_ext "
     "--inplace`\n", ["extension_not_compiled"]),
    # TorchSharp not finding its native libtorch (not referenced, or not where the host loads from)
    ("Unhandled exception. System.NotSupportedException: This application or script uses TorchSharp but doesn't "
     "contain a reference to libtorch-cuda-12.1-win-x64, Version=2.2.1.1.\n", ["library_not_found", "library_bug"]),
    # the same where the report lists the IDE among its versions (an environment field, no build step)
    ("Environment:\nVisual Studio 2022 17.9.2\n.NET Framework 4.8\nSystem.NotSupportedException: This application or "
     "script uses TorchSharp but doesn't contain a reference to libtorch-cpu-win-x64, Version=2.1.0.1.\n",
     ["library_not_found", "library_bug"]),
    # a function missing from a package's compiled module, no release of the package shown
    ("  File \"raymarch/render.py\", line 40, in march\n"
     "AttributeError: module 'raymarch.cuda.csrc' has no attribute 'march_rays_train'\n",
     ["extension_not_compiled", "package_api_version_mismatch"]),
    # CUDA's "insufficient driver" on macOS without an NVIDIA GPU named: the driver, else no GPU CUDA can use
    ("MacBook Pro (macOS 10.13), CUDA 10.1 installed\ncudaGetDeviceCount returned 35\n-> CUDA driver version is "
     "insufficient for CUDA runtime version\n", ["driver_too_old", "no_gpu"]),
    # nvidia-docker 1.0's driver volume of hard links across partitions
    ("nvidia-docker-plugin | 2017/05/02 11:20:33 Error: link /usr/lib/nvidia-384/libcuda.so.384.59 /srv/docker/volumes/"
     "nvidia_driver_384.59/_data/lib64/libcuda.so.384.59: invalid cross-device link\n", ["gpu_not_exposed_to_process"]),
    # torch's own library missing after pip installed a companion alone (built for another torch)
    ("Successfully installed torchaudio-0.8.0\nOSError: libtorch_cpu.so: cannot open shared object file: No such file "
     "or directory\n", ["companion_built_for_other_torch", "torch_libs_not_loaded"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # a number after "error code" that is no CUDA error's context
    ("HTTP error: error code 34 from the pool\n", "cuda_stub_driver_loaded"),
    # nvidia-smi answering, a crash of another program beside it
    ("nvidia-smi works fine but python segfaults in libtorch\n", "library_bug"),
    ("Segmentation fault (core dumped) python train.py\n", "driver_broken"),
    # another OpenMP message, another AMP message, another required argument
    ("OMP: Info #276: omp_set_nested routine deprecated, please use omp_set_max_active_levels instead.\n",
     "native_library_conflict"),
    ("ValueError: Attempting to unscale a gradient twice\n", "user_code_error"),
    ("TypeError: forward() missing 1 required positional argument: 'mask'\n", "package_api_version_mismatch"),
    # FFmpeg's CPU encoder unknown, a DLL of another library, a provider DLL that loaded
    ("unknown encoder 'libsvtav1'\n", "cpu_only_torch_with_gpu"),
    ("Cannot load mkl_sequential.2.dll.txt.bak\n", "library_not_found"),
    ("Loaded onnxruntime_providers_cuda.dll successfully\n", "cudart_not_found"),
    # a signature error of the code's own function
    ("TypeError: resample() takes 1 positional argument but 3 were given\n", "package_api_version_mismatch"),
    # HIP named without the message; torch's ROCm build seeing a GPU
    ("HIP version: 6.2.41133\ntorch.cuda.device_count() = 2\n", "gpu_not_exposed_to_process"),
    # a link error of a function without a string, and of a CUDA library
    ("undefined reference to `at::Tensor::print() const'\n", "cxx11_abi_mismatch"),
    ("undefined reference to `cublasLtMatmul'\n", "cxx11_abi_mismatch"),
    # the same symbol where the text names the cxx11-ABI LibTorch archive: another torch release
    ("unzip libtorch-cxx11-abi-shared-with-deps-2.0.1.zip\n./demo: symbol lookup error: /opt/app/ext.so: undefined "
     "symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE\n",
     "cxx11_abi_mismatch"),
    # jax's component newer than needed; another 'Outdated' message
    ("Version JAX was built against: 9100\nInstalled version: 9500\n", "prebuilt_binary_wrong_cuda"),
    ("Outdated browser installation found\n", "prebuilt_binary_wrong_cuda"),
    # nvcc found (Theano's compile log); Kaldi's configure with a toolkit it knows
    ("INFO (theano.sandbox.cuda): nvcc found at /usr/local/cuda/bin/nvcc\n", "cuda_home_missing"),
    ("Using CUDA toolkit /usr/local/cuda (nvcc compiler and runtime libraries)\nCUDA_VERSION=11_8\n", "library_bug"),
    # NCCL named with no failure; a CUDA invalid argument of one's own kernel
    ("NCCL version 2.21.5+cuda12.4\nNCCL INFO Using network Socket\n", "user_code_error"),
    ("RuntimeError: CUDA error: invalid argument\n", "gpu_p2p_unsupported"),
    # onnxruntime's CPU provider only listed as a warning of a CPU session; a GPU provider registered
    ("EP Error: CPU execution provider is not enabled in this build.\n", "cpu_only_torch_with_gpu"),
    ("Applied providers: ['CUDAExecutionProvider', 'CPUExecutionProvider']\n", "cpu_only_torch_with_gpu"),
    # a hook to be removed (a deprecation, not a removal); a module of the project's own without fluid
    ("LightningDeprecationWarning: `training_epoch_end` is deprecated in v1.9 and will be removed in v2.0.\n",
     "package_api_version_mismatch"),
    ("ModuleNotFoundError: No module named 'paddlehub_fluid_utils'\n", "package_api_version_mismatch"),
    # JupyterLab installing an extension that fits; VS Code starting a kernel
    ("Installing @jupyter-widgets/jupyterlab-manager@5.0.9 ... done\n", "package_api_version_mismatch"),
    ("Running cells with 'Python 3.12.1' ... connected to kernel\n", "kernel_wrong_python"),
    # CroCo's kernel found; AutoAWQ's kernels loaded
    ("Using cuda-compiled version of RoPE2D\n", "extension_not_compiled"),
    ("AutoAWQ kernels loaded: awq_ext 0.0.9\n", "extension_not_compiled"),
    # another CMake warning of libtorch; an architecture SageAttention supports or one newer than a release knows
    ("CMake Warning at cuda.cmake:120 (message):\n  Failed to find cuDNN\n", "library_bug"),
    ("ValueError: Unsupported CUDA architecture: sm120\n", "gpu_below_extension_minimum"),
    ("ValueError: Unsupported CUDA architecture: sm89\n", "gpu_below_extension_minimum"),
    # a CUDA compiler that works; MPS channels below the limit or another device's message
    ("-- The CUDA compiler identification is NVIDIA 12.4.131\n", "host_compiler_unsupported"),
    ("RuntimeError: Output channels > 65536 not supported by cuDNN frontend plan\n", "library_bug"),
    # a name fairseq has as Python; TorchSharp's native library loaded
    ("ImportError: cannot import name 'libnat_utils' from 'fairseq'\n", "extension_not_compiled"),
    ("TorchSharp: loaded libtorch-cpu-win-x64 2.2.1.1 from runtimes/win-x64/native\n", "library_not_found"),
    # a function missing from a plain module of the project's own
    ("AttributeError: module 'models.utils' has no attribute 'fused_forward'\n", "extension_not_compiled"),
    # the insufficient driver on Linux (no macOS named); another hard link across file systems
    ("cudaGetDeviceCount returned 35\n-> CUDA driver version is insufficient for CUDA runtime version\n", "no_gpu"),
    ("ln: failed to create hard link '/mnt/data/x' => '/home/u/x': Invalid cross-device link\n",
     "gpu_not_exposed_to_process"),
    # NCCL's P2P turned off by hand; another NVENC error; an MPS type of the project's own; torch's library with torch
    # shown
    ("NCCL_P2P_DISABLE=1 set: using SHM transport between RTX 4090s\n", "gpu_p2p_unsupported"),
    ("OpenEncodeSessionEx failed: out of memory (10): NV_ENC_ERR_OUT_OF_MEMORY\n", "gpu_below_extension_minimum"),
    ("model.mm:12:1: error: unknown type name 'MPSKernelCache'; did you mean 'MPSKernel'?\n",
     "toolkit_below_extension_minimum"),
    ("Successfully installed torch-2.1.0 torchaudio-2.1.0\nOSError: libtorch_cuda.so: cannot open shared object file: "
     "No such file or directory\n", "companion_built_for_other_torch"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)
