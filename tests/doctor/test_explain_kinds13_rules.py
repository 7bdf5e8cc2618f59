# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 13 (rules): kinds behind heldout8's misses, each written as a user of that failure in another tool,
release or wording would paste it. CPU-only builds of GPU libraries other than torch (LightGBM, DGL, jaxlib, Open3D,
R torch, Lightning's device check); serialized TensorRT engines of another release; torch companions pinned to
another torch in pip's words; the calling code's own faults (spawn without a main guard, pickling lambdas, labels
beyond the class count, two devices); bugs of a library's build or kernels (host flags given to nvcc, warp
intrinsics without _sync, file-descriptor sharing); a host toolchain nvcc does not know; a driver state broken by a
suspend. Each risky pattern has a text of another kind that must not get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # LightGBM's CUDA learner (the OpenCL one is heldout8's): the package installed has neither
    ("lightgbm.basic.LightGBMError: CUDA Tree Learner was not enabled in this build.\n"
     "Please recompile with CMake option -DUSE_CUDA=1\n", ["cpu_only_torch_with_gpu"]),
    # DGL's device API by its other name
    ("dgl._ffi.base.DGLError: [09:01:12] /opt/dgl/src/runtime/c_runtime_api.cc:88: Check failed: allow_missing: "
     "Device API gpu is not enabled. Please install the cuda version of dgl.\n", ["cpu_only_torch_with_gpu"]),
    # jax's current wording of a GPU backend that does not exist (jaxlib without the CUDA plugin)
    (">>> jax.devices('gpu')\nRuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of "
     "gpu are present. Platforms present are: cpu\n", ["cpu_only_torch_with_gpu"]),
    # Open3D's CUDA module absent: a count of 0 on Windows, and a CUDA device refused by a build without it
    ("Windows 10, RTX 3080\n>>> import open3d as o3d\n>>> o3d.core.cuda.device_count()\n0\n",
     ["cpu_only_torch_with_gpu"]),
    ("[Open3D Error] (void open3d::core::Check()) /root/Open3D/cpp/open3d/core/Device.cpp:41: Unimplemented device "
     "CUDA:0\n", ["cpu_only_torch_with_gpu"]),
    # R torch's installer falling back to the CPU libtorch
    ("> torch::install_torch()\nCuda 12.4 detected but torch only supports: cpu, 11.8, 12.1\n",
     ["cpu_only_torch_with_gpu"]),
    # Lightning's device check on a machine with an NVIDIA GPU
    ("RTX 3090, driver 535.104\nlightning_fabric.utilities.exceptions.MisconfigurationException: GPUs requested but "
     "none are available.\n", ["cpu_only_torch_with_gpu"]),
    # faiss in Python 2's wording
    ("AttributeError: 'module' object has no attribute 'GpuIndexFlatIP'\n", ["cpu_only_torch_with_gpu"]),
    # an installer that chose the CPU build, told in prose
    ("Running `uv sync` on Windows always installs the CPU version of torch although I have an RTX 4070.\n",
     ["cpu_only_torch_with_gpu"]),
    # TensorFlow 2.11+ on native Windows, its release said in a sentence
    ("OS: Windows 11, GPU: RTX 3060. TensorFlow version is 2.13.0\n>>> tf.config.list_physical_devices('GPU')\n[]\n",
     ["cpu_only_torch_with_gpu"]),
    # a TensorRT engine serialized by another release (TensorRT 7's and 8.6's wordings)
    ("[TRT] coreReadArchive.cpp (31) - Serialization Error in verifyHeader: 0 (Version tag does not match)\n"
     "[TRT] INVALID_STATE: std::exception\n", ["prebuilt_binary_wrong_cuda"]),
    ("[E] 1: [stdArchiveReader.cpp::StdArchiveReader::42] Error Code 1: Serialization (Serialization assertion "
     "stdVersionRead == kSERIALIZATION_VERSION failed.Version tag does not match. Note: Current Version: 238, "
     "Serialized Engine Version: 232)\n", ["prebuilt_binary_wrong_cuda"]),
    # torch companions pinned to another torch, in pip's three wordings
    ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.\n"
     "torchtext 0.16.0 requires torch==2.1.0, but you'll have torch 2.2.1 which is incompatible.\n",
     ["companion_built_for_other_torch"]),
    ("ERROR: Cannot install -r requirements.txt (line 3) and torch==2.0.1 because these package versions have "
     "conflicting dependencies.\nThe conflict is caused by:\n    The user requested torch==2.0.1\n"
     "    torchaudio 2.1.2 depends on torch==2.1.2\n", ["companion_built_for_other_torch"]),
    ("RuntimeError: Detected that PyTorch and torchaudio were compiled with different CUDA major versions. "
     "PyTorch has CUDA Version=12.1 and torchaudio has CUDA Version=11.8.\n", ["companion_built_for_other_torch"]),
    # the calling code's faults
    ("  File \"C:\\proj\\train.py\", line 40, in <module>\n    with Pool(4) as p:\nRuntimeError:\n"
     "        An attempt has been made to start a new process before the\n"
     "        current process has finished its bootstrapping phase.\n", ["user_code_error"]),
    ("AttributeError: Can't pickle local object 'build_dataset.<locals>.collate'\n", ["user_code_error"]),
    ("AssertionError: Label class 7 exceeds nc=7 in data/traffic.yaml. Possible class labels are 0-6\n",
     ["user_code_error"]),
    ("RuntimeError: All input tensors must be on the same device. Received cuda:1 and cpu\n", ["user_code_error"]),
    ("RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'\n", ["user_code_error"]),
    # a library's build or kernel at fault
    ("nvcc fatal   : Unknown option '-fPIC'\nninja: build stopped: subcommand failed.\n", ["library_bug"]),
    ("src/reduce.cu(88): error: identifier \"__shfl_xor\" is undefined\n", ["library_bug"]),
    ("Traceback (most recent call last):\n  File \"eval.py\", line 12, in <module>\n    for batch in loader:\n"
     "RuntimeError: received 0 items of ancdata\n", ["library_bug"]),
    # host headers nvcc does not know
    ("/usr/include/x86_64-linux-gnu/bits/floatn.h(74): error: identifier \"_Float128\" is undefined\n",
     ["host_compiler_unsupported"]),
    # cuDNN finding no algorithm: memory
    ("  File \"train.py\", line 88, in forward\nRuntimeError: Unable to find a valid cuDNN algorithm to run "
     "convolution\n", ["cuda_oom"]),
    # a release without the model's architecture (transformers' wording)
    ("ValueError: The checkpoint you are trying to load has model type `gemma3` but Transformers does not recognize "
     "this architecture.\n", ["package_api_version_mismatch"]),
    # torch's driver message without the version it found
    ("RuntimeError: The NVIDIA driver on your system is too old. Please update your GPU driver.\n",
     ["driver_too_old"]),
    # FFmpeg's NVENC without the driver's video library: the minimum driver it prints after is not the cause
    ("[hevc_nvenc @ 000001f2] Cannot load nvEncodeAPI64.dll\n[hevc_nvenc @ 000001f2] The minimum required Nvidia "
     "driver for nvenc is 471.41 or newer\n", ["library_not_found"]),
    # the Fabric Manager of another release than the driver
    ("nv-fabricmanager[2211]: fabric manager NVIDIA GPU driver interface version 535.161.08 don't match with driver "
     "version 535.183.01. Please update with matching NVIDIA driver package.\n", ["fabric_manager_not_running"]),
    # a PBS site's submit filter refusing a GPU request
    ("#PBS -l nodes=1:ppn=8:gpus=2:exclusive_process\nqsub: submit filter returned an error code, aborting job "
     "submission.\n", ["slurm_gpu_request_rejected"]),
    # an old macOS loader's wording of another CPU architecture
    ("OSError: dlopen(/usr/local/lib/libssl.dylib, 6): no suitable image found.  Did find:\n"
     "\t/usr/local/lib/libssl.dylib: mach-o, but wrong architecture\n", ["wrong_architecture_binary"]),
    # a headless server without a display for VTK
    ("UserWarning:\nThis system does not appear to be running an xserver.\nPyVista will likely segfault when "
     "rendering.\n", ["opengl_egl_unavailable"]),
    # onnxruntime's shared provider library not loaded
    ("2024-05-01 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:1983 onnxruntime::python::"
     "CreateInferencePybindStateModule] Init provider bridge failed.\n", ["library_not_found"]),
    # a package whose compiled module was never built, said in the NameError alone
    ("    output = _C.ms_deform_attn_forward(\nname '_C' is not defined\n", ["extension_not_compiled"]),
    # a CUDA DLL missing, said in Chinese, and NVRTC's builtins DLL
    ("运行时提示找不到 cudart64_12.dll\n", ["cudart_not_found"]),
    ("RuntimeError: Error loading nvrtc-builtins64_128.dll\n", ["cudart_not_found"]),
    # NVML's results as Go's binding names them (no NVML_ prefix), in a Kubernetes plugin's log
    ("E0601 10:00:00.000 main.go:123] failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND\n",
     ["gpu_not_exposed_to_process"]),
    # a library asked for its own function and lacking it: an older copy of that library is loaded
    ("Could not load library libcudnn_ops.so.9. Error: /opt/cuda-11.0/lib64/libnvrtc.so.11.0: undefined symbol: "
     "nvrtcGetOptiXIRSize\n", ["library_shadowed_older_copy"]),
    # CUDA's own API missing from the headers the build includes
    ("src/alloc.cu(41): error: identifier \"cudaMemPoolCreate\" is undefined\n",
     ["toolkit_below_extension_minimum", "multiple_cuda_toolkits"]),
    # torch sees no GPU where the user has CUDA installed: the CPU build first
    ("My CUDA version is 12.4 and nvcc works.\n>>> torch.cuda.is_available()\nFalse\n",
     ["cpu_only_torch_with_gpu", "torch_cuda_unavailable"]),
    # the GPU's device nodes absent in a container
    ("apptainer exec --nv --contain img.sif python train.py\nFileNotFoundError: [Errno 2] No such file or directory: "
     "'/dev/nvidiactl'\n", ["gpu_not_exposed_to_process"]),
    # containerd without an nvidia runtime for a RuntimeClass
    ("Warning  FailedCreatePodSandBox  kubelet  Failed to create pod sandbox: rpc error: code = Unknown desc = "
     "failed to get sandbox runtime: no runtime for \"nvidia\" is configured\n", ["gpu_not_exposed_to_process"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


def test_a_plan_without_any_version_is_not_an_engine_of_another_release():
    text = ("ERROR: The engine plan file is not compatible with this version of TensorRT, expecting library version "
            "8.2.1 got 0.0.0, please rebuild.\n")
    assert rule_codes(text, n=1) == ["user_code_error"]
    other = text.replace("got 0.0.0", "got 8.0.1")
    assert rule_codes(other, n=1) == ["prebuilt_binary_wrong_cuda"]


def test_fp16_gradients_name_both_the_calling_code_and_the_library():
    assert rule_codes("ValueError: Attempting to unscale FP16 gradients.\n") == ["user_code_error", "library_bug"]


def test_xpu_without_its_extension_is_the_calling_code_and_with_it_the_build():
    bare = "RuntimeError: PyTorch is not linked with support for xpu devices\n"
    assert rule_codes(bare) == ["cpu_only_torch_with_gpu", "user_code_error"]  # the message alone: both named
    text = "import torch\nx = torch.ones(3).to('xpu')\n" + bare
    assert rule_codes(text) == ["user_code_error", "cpu_only_torch_with_gpu"]
    with_ext = "import intel_extension_for_pytorch as ipex\n" + text
    assert rule_codes(with_ext, n=1) == ["cpu_only_torch_with_gpu"]


def test_a_cuda_failure_after_a_suspend_is_the_drivers_state():
    text = ("After waking my laptop from hibernation every script fails with\n"
            "RuntimeError: CUDA error: unspecified launch failure\n")
    assert rule_codes(text, n=1) == ["driver_broken"]
    assert rule_codes("RuntimeError: CUDA error: unspecified launch failure\n", n=1) == ["library_bug"]


def test_ptxas_unresolved_extern_is_the_calling_code_then_the_library():
    assert rule_codes("ptxas fatal   : Unresolved extern function '_Z3powfi'\n") == ["user_code_error", "library_bug"]


NOT = [
    # other LightGBM / DGL / jax / Open3D messages are no CPU build
    ("[LightGBM] [Fatal] Cannot change max_bin after constructed Dataset handle.\n", "cpu_only_torch_with_gpu"),
    ("dgl._ffi.base.DGLError: Expect number of features to match number of nodes (len(u)). Got 3 and 5 instead.\n",
     "cpu_only_torch_with_gpu"),
    ("RuntimeError: Unknown backend: 'tpu' requested, but no platforms that are instances of tpu are present.\n",
     "cpu_only_torch_with_gpu"),
    (">>> o3d.core.cuda.is_available()\nTrue\n>>> o3d.core.cuda.device_count()\n1\n", "cpu_only_torch_with_gpu"),
    # an engine from another GPU is the GPU's kind, not another release's
    ("[TRT] [E] 6: The engine plan file is generated on an incompatible device, expecting compute 8.6 got compute "
     "7.5, please rebuild.\n", "prebuilt_binary_wrong_cuda"),
    # pip's conflict between two packages that are not torch companions
    ("transformers 4.30.0 requires tokenizers!=0.11.3,<0.14,>=0.11.1, but you'll have tokenizers 0.15.0 which is "
     "incompatible.\n", "companion_built_for_other_torch"),
    # nvcc's own options it lacks are a toolkit too old, not a library's build
    ("nvcc fatal   : Unknown option '--threads'\n", "library_bug"),
    ("nvcc fatal   : Unknown option '-ftemplate-depth=2048'\n", "library_bug"),
    # the _sync intrinsics missing are an nvcc older than CUDA 9
    ('kernel.cu(12): error: identifier "__shfl_down_sync" is undefined\n', "library_bug"),
    # a type of CUDA's API undefined is a missing include of the source, not old headers
    ('kernel.cu(5): error: identifier "cudaStream_t" is undefined\n', "toolkit_below_extension_minimum"),
    # an identifier of CUDA's own API missing is no host toolchain
    ('ggml-cuda.cu(900): error: identifier "cudaHostRegisterReadOnly" is undefined\n', "host_compiler_unsupported"),
    # device nodes that are there are no container without the GPU
    ("ls -l /dev/nvidia0 shows the node is present; nvidia-smi: Failed to initialize NVML: Driver/library version "
     "mismatch\n", "gpu_not_exposed_to_process"),
    # a Slurm job suspended by the scheduler is no machine suspend
    ("JobState=SUSPENDED Reason=None\nRuntimeError: CUDA error: an illegal memory access was encountered\n",
     "driver_broken"),
    # pickling errors of the unpickling side (a damaged checkpoint) are not the calling code's lambda
    ("_pickle.UnpicklingError: invalid load key, 'v'.\n", "user_code_error"),
    # a hub that cannot be reached is no release without the architecture
    ("OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached "
     "files.\n", "package_api_version_mismatch"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=2)


def test_ptx_newer_than_the_drivers_cuda_is_the_driver_below_the_toolkit():
    text = ("| NVIDIA-SMI 525.147.05   Driver Version: 525.147.05   CUDA Version: 12.0 |\n"
            "Image built FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 (CUDA 12.4)\n"
            "RuntimeError: CUDA error: device kernel image is invalid\n")
    assert rule_codes(text, n=1) == ["driver_below_cuda_minor"]
    older_major = text.replace("CUDA Version: 12.0", "CUDA Version: 11.4")
    assert rule_codes(older_major, n=1) == ["driver_too_old"]
    # the driver's CUDA not older than the code's: not the driver
    same = text.replace("CUDA Version: 12.0", "CUDA Version: 12.6")
    assert rule_codes(same, n=1)[0] not in ("driver_below_cuda_minor", "driver_too_old")


def test_a_second_input_file_outside_windows_is_the_builds_own_command_line():
    text = ("Ubuntu 22.04\n[ 12%] Building CUDA object CMakeFiles/ops.dir/ops.cu.o\nnvcc fatal   : A single input file "
            "is required for a non-link phase when an outputfile is specified\n")
    assert rule_codes(text) == ["nvcc_option_unsupported", "library_bug"]
    windows = text.replace("Ubuntu 22.04", "Windows 11, Visual Studio 2022")
    assert "windows_msvc_toolchain" in rule_codes(windows)
