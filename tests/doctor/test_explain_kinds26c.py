# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 26c (the GPU setup messages of the other frameworks smrnb's users run, enumerated from their
sources): TensorFlow's CUDA runtime stub finding no libcudart, the kernel module and libcuda of two releases
(cuda_diagnostics), the Windows GPU build's DLL check (self_check.py), cuDNN failing to start (most often no GPU
memory left); jax's CUDA plugin of another release than jaxlib; PaddlePaddle's CPU package asked for the GPU, its GPU
package finding no device; CuPy's duplicate packages and its import failure;
Numba's CUDA switched off by NUMBA_DISABLE_CUDA; vLLM detecting no platform; bitsandbytes' CUDA setup finding no
runtime; DGL's sparse library built per torch release. Each text is written for the test (other wordings and values
than the sources' examples); each kind has near-misses that must NOT get its code, among them the frameworks'
informational log lines."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # TensorFlow: the CUDA runtime stub found no libcudart (2.14+ without tensorflow[and-cuda])
    ("2024-06-07 14:17:16.238228: I external/local_tsl/tsl/cuda/cudart_stub.cc:32] Could not find cuda drivers on "
     "your machine, GPU will not be used.\n>>> tf.config.list_physical_devices('GPU')\n[]\n", "cudart_not_found"),
    ("I0000 00:00:1777215668.929972  450463 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will "
     "not be used.\n", "cudart_not_found"),
    # TensorFlow/XLA: the kernel module and the libcuda loaded are two driver releases
    ("2021-09-13 23:57:29.694695: E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:306] kernel version 460.56.0 "
     "does not match DSO version 470.57.2 -- cannot find working devices in this configuration\n", "driver_broken"),
    ("E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to cuInit: INTERNAL: CUDA error: "
     "Failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
     "E external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:262] kernel version 550.120.0 does not match "
     "DSO version 560.35.5 -- cannot find working devices in this configuration\n", "driver_broken"),
    # TensorFlow's Windows GPU build (1.x-2.3): the CUDA/cuDNN DLLs of its release
    ("  File \"C:\\Users\\me\\Anaconda3\\envs\\tf\\lib\\site-packages\\tensorflow\\python\\platform\\self_check.py\", "
     "line 75, in preload_check\nImportError: Could not find 'cudart64_101.dll'. TensorFlow requires that this DLL be "
     "installed in a directory that is named in your %PATH% environment variable. Download and install CUDA 10.1 from "
     "this URL: https://developer.nvidia.com/cuda-toolkit\n", "cudart_not_found"),
    ("ImportError: Could not find 'cudnn64_7.dll'. TensorFlow requires that this DLL be installed in a directory that "
     "is named in your %PATH% environment variable. Note that installing cuDNN is a separate step from installing "
     "CUDA, and this DLL is often found in a different directory from the CUDA DLLs.\n", "cudart_not_found"),
    ("ImportError: Could not find 'nvcuda.dll'. TensorFlow requires that this DLL be installed in a directory that is "
     "named in your %PATH% environment variable. Typically it is installed in 'C:\\Windows\\System32'.\n", "no_gpu"),
    # TensorFlow: cuDNN could not start (memory first)
    ("2020-05-01 E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: "
     "CUDNN_STATUS_INTERNAL_ERROR\n", "cuda_oom"),
    ("tensorflow.python.framework.errors_impl.UnknownError:  Failed to get convolution algorithm. This is probably "
     "because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.\n"
     "\t [[node sequential/conv2d/Conv2D (defined at train.py:41) ]]\n", "cuda_oom"),
    # TensorFlow lists no GPU: all its physical devices, the CPU alone (the reader's TF rule); its issue template's
    # version field; native Windows before 2.11 (its GPU build loads the CUDA DLLs of its release)
    ("- TensorFlow version (use command below): 2.4.1\n>>> tf.config.list_physical_devices()\n"
     "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]\n", "cudart_not_found"),
    ("C:\\Users\\me> python\ntensorflow 2.6.0 on Windows 10\n>>> tf.config.list_physical_devices('GPU')\n[]\n",
     "cudart_not_found"),
    # llama.cpp asked to offload layers without a GPU backend
    ("./llama-cli -m model.gguf -ngl 99\nwarning: no usable GPU found, --gpu-layers option will be ignored\n"
     "warning: one possible reason is that llama.cpp was compiled without GPU support\n"
     "warning: consult docs/build.md for compilation instructions\n", "cpu_only_torch_with_gpu"),
    # xformers without its compiled library
    ("WARNING[XFORMERS]: Need to compile C++ extensions to use all xFormers features.\n    Please install xformers "
     "properly (see https://github.com/facebookresearch/xformers#installing-xformers)\n  Memory-efficient attention, "
     "SwiGLU, sparse and more won't be available.\n", "extension_not_compiled"),
    # TensorRT 8.4/8.5's words for an engine of another release
    ("[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::40] Error Code 1: Serialization (Serialization assertion "
     "stdVersionRead == serializationVersion failed.Version tag does not match. Note: Current Version: 213, Serialized "
     "Engine Version: 232)\n", "prebuilt_binary_wrong_cuda"),
    # a ggml CUDA build without this GPU's architecture
    ("llama_model_load_from_file: using device CUDA0 (Tesla T4) - 14930 MiB free\n/src/ggml/src/ggml-cuda/common.cuh:"
     "112: ggml was not compiled with any CUDA arch <= 750\nAborted (core dumped)\n", "no_kernel_image_for_gpu"),
    # jax: the CUDA plugin of another release than jaxlib
    ("/usr/local/lib/python3.12/dist-packages/jaxlib/plugin_support.py:71: RuntimeWarning: JAX plugin "
     "jax_cuda12_plugin version 0.6.0 is installed, but it is not compatible with the installed jaxlib version 0.7.2, "
     "so it will not be used.\n  warnings.warn(\n>>> jax.devices()\n[CpuDevice(id=0)]\n",
     "companion_built_for_other_torch"),
    # TensorFlow leaves out a GPU below its multiprocessor minimum
    ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1469] Ignoring visible gpu device (device: 0, name: GeForce GT "
     "710, pci bus id: 0000:01:00.0, compute capability: 3.5) with Cuda multiprocessor count: 1. The minimum required "
     "count is 8. You can adjust this requirement with the env var TF_MIN_GPU_MULTIPROCESSOR_COUNT.\n",
     "gpu_below_extension_minimum"),
    # PaddlePaddle: the CPU package asked for the GPU
    ("    paddle.set_device('gpu')\n  File \"/opt/py/lib/python3.9/site-packages/paddle/device/__init__.py\", line 287, "
     "in set_device\nValueError: The device should not be 'gpu', since PaddlePaddle is not compiled with CUDA\n",
     "cpu_only_torch_with_gpu"),
    ("ValueError: The device should not be <re.Match object; span=(0, 5), match='gpu:1'>, since PaddlePaddle is not "
     "compiled with CUDA\n", "cpu_only_torch_with_gpu"),
    ("E0301 place.cc:412] Cannot use GPU because you have installed CPU version PaddlePaddle.\nIf you want to use "
     "GPU, please try to install GPU version PaddlePaddle by: pip install paddlepaddle-gpu\n", "cpu_only_torch_with_gpu"),
    ("Config use_gpu cannot be set as true while you are using paddlepaddle cpu version ! \nPlease try: \n\t1. Install "
     "paddlepaddle-gpu to run model on GPU\n", "cpu_only_torch_with_gpu"),
    # PaddlePaddle: its GPU package finds no device
    ("/home/u/.venv/lib/python3.10/site-packages/paddle/base/framework.py:688: UserWarning: You are using GPU version "
     "Paddle, but your CUDA device is not set properly. CPU device will be used by default.\n  warnings.warn(\n",
     "gpu_not_exposed_to_process"),
    ("RuntimeError: Invalid CUDAPlace(0), must inside [0, 0), because GPU number on your machine is 0\n",
     "gpu_not_exposed_to_process"),
    ("WARNING:root:You are using GPU version Paddle Fluid, But Your CUDA Device is not set properly\n Original Error "
     "is \n", "gpu_not_exposed_to_process"),
    # CuPy: two packages in one environment; its import failure
    ("UserWarning: \n--------------------------------------------------------------------------------\n\n  CuPy may "
     "not function correctly because multiple CuPy packages are installed\n  in your environment:\n\n    cupy-cuda11x, "
     "cupy-cuda12x\n", "prebuilt_binary_wrong_cuda"),
    ("ImportError: \n================================================================\nFailed to import CuPy.\n\n"
     "If you installed CuPy via wheels (cupy-cudaXXX or cupy-rocm-X-X), make sure that the package matches with the "
     "version of CUDA or ROCm installed.\n", "prebuilt_binary_wrong_cuda"),
    # Numba: its CUDA target switched off by the environment
    ("numba.cuda.cudadrv.error.CudaSupportError: CUDA is disabled due to setting NUMBA_DISABLE_CUDA=1 in the "
     "environment, or because CUDA is unsupported on 32-bit systems.\n", "gpu_not_exposed_to_process"),
    # vLLM: no platform detected
    ("  File \"/usr/local/lib/python3.12/dist-packages/vllm/config.py\", line 1660, in __init__\n    raise "
     "RuntimeError(\"Failed to infer device type\")\nRuntimeError: Failed to infer device type\n",
     "gpu_not_exposed_to_process"),
    ("RuntimeError: Failed to infer device type, please set the environment variable `VLLM_LOGGING_LEVEL=DEBUG` to "
     "turn on verbose logging to help debug the issue.\n", "gpu_not_exposed_to_process"),
    # bitsandbytes (0.37-0.42): no CUDA runtime found by its setup
    ("CUDA SETUP: Loading binary /opt/conda/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cuda118.so...\n"
     "CUDA SETUP: Problem: The main issue seems to be that the main CUDA runtime library was not detected.\n"
     "CUDA SETUP: Solution 1: To solve the issue the libcudart.so location needs to be added to the LD_LIBRARY_PATH "
     "variable\n", "cudart_not_found"),
    ("CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed? If you are on a cluster, make "
     "sure you are on a CUDA machine!\nCUDA SETUP: Loading binary /venv/lib/python3.10/site-packages/bitsandbytes/"
     "libbitsandbytes_cpu.so...\n", "library_bug"),  # its loader's unversioned libcuda.so name, the second reading
    # DGL: its sparse library built per torch release
    ("FileNotFoundError: Cannot find DGL C++ sparse library at /opt/py/site-packages/dgl/dgl_sparse/"
     "libdgl_sparse_pytorch_2.4.1.so\n", "companion_built_for_other_torch"),
    ("ImportError: Cannot load DGL C++ sparse library\n", "companion_built_for_other_torch"),
]


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[t[:50] for t, _ in READINGS])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


#: the frameworks' informational log lines: none is a cause, none is recognised
INFORMATIONAL = [
    "2023-01-01 10:00:00.000000: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened "
    "dynamic library libcudart.so.11.0\n",
    "2022-03-01 I tensorflow/core/common_runtime/gpu/gpu_device.cc:1510] Created device /job:localhost/replica:0/task:0"
    "/device:GPU:0 with 10794 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 2080 Ti, pci bus id: 0000:01:00.0, "
    "compute capability: 7.5\n",
    "I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU "
    "instructions in performance-critical operations.\nTo enable the following instructions: AVX2 FMA, in other "
    "operations, rebuild TensorFlow with the appropriate compiler flags.\n",
    "I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:939] successful NUMA node read from SysFS had negative value "
    "(-1), but there must be at least one NUMA node, so returning NUMA node zero\n",
    "I tensorflow/compiler/xla/stream_executor/cuda/cuda_diagnostics.cc:199] kernel version seems to match DSO: "
    "535.104.5\n",
    "W0101 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 12.2, "
    "Runtime API Version: 11.8\nW0101 gpu_resources.cc:164] device: 0, cuDNN Version: 8.9.\nPaddlePaddle works well on "
    "1 GPU.\nPaddlePaddle is installed successfully! Let's start deep learning with PaddlePaddle now.\n",
    "INFO 05-28 14:02:21 [__init__.py:239] Automatically detected platform cuda.\n",
    "INFO 03-11 14:47:27 __init__.py:187] No platform detected, vLLM is running on UnspecifiedPlatform\n"
    "INFO 03-11 14:47:27 __init__.py:174] Platform plugin ascend is activated\n",
    "[03/01/2024-10:00:00] [TRT] [W] CUDA lazy loading is not enabled. Enabling it can significantly reduce device "
    "memory usage and speed up TensorRT initialization. See \"Lazy Loading\" section of CUDA documentation\n",
    "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1934] Could not identify NUMA node of platform GPU id 0, "
    "defaulting to 0.  Your kernel may not have been built with NUMA support.\n",
    "[WARNING]  async_io requires the dev libaio .so object and headers but these were not found.\n[WARNING]  async_io: "
    "please install the libaio-dev package with apt\n",
    "CUDA SETUP: CUDA runtime path found: /usr/local/cuda/lib64/libcudart.so\nCUDA SETUP: Highest compute capability "
    "among GPUs detected: 8.6\nCUDA SETUP: Loading binary /venv/lib/python3.10/site-packages/bitsandbytes/"
    "libbitsandbytes_cuda118.so...\n",
]


@pytest.mark.parametrize("text", INFORMATIONAL, ids=[t[:50] for t in INFORMATIONAL])
def test_informational_lines_are_not_a_cause(text):
    assert not explain_result(text, similar=False).recognised, rule_codes(text, n=4)


NOT = [
    # Paddle's other devices are not its CUDA build
    ("ValueError: The device should not be 'xpu', since PaddlePaddle is not compiled with XPU\n",
     "cpu_only_torch_with_gpu"),
    # Paddle's CUDA newer than its build is not an older copy shadowing it
    ("The installed Paddle is compiled with CUDA 11.2; the machine has CUDA 12.0\n", "library_shadowed_older_copy"),
    # the jax plugin of the same release (no warning) / jaxlib's own older-than-jax check
    ("jax_cuda12_plugin 0.4.35 and jaxlib 0.4.35 installed; jax.devices() -> [CudaDevice(id=0)]\n",
     "companion_built_for_other_torch"),
    # DGL's graphbolt/sparse files present, an unrelated FileNotFoundError
    ("FileNotFoundError: [Errno 2] No such file or directory: '/data/graphs/cora/sparse_adj.npz'\n",
     "companion_built_for_other_torch"),
    # another tool's "failed to infer" is not vLLM's platform detection
    ("RuntimeError: Failed to infer device type in CameraCalibration.create\n", "gpu_not_exposed_to_process"),
    # Paddle's CUDAPlace beyond the GPUs the machine has (two of them) is the calling code's index
    ("Invalid CUDAPlace(2), must inside [0, 2), because GPU number on your machine is 2\n", "gpu_not_exposed_to_process"),
    # a CuPy installed once, its own CUDA error: not two packages
    ("cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is "
     "insufficient for CUDA runtime version\n", "library_shadowed_older_copy"),
    # llama.cpp's "compiled without GPU support" is not bitsandbytes' CPU library
    ("warning: no usable GPU found, --gpu-layers option will be ignored\nwarning: one possible reason is that "
     "llama.cpp was compiled without GPU support\n", "library_bug"),
    # TensorFlow listing its GPU beside the CPU
    ("tensorflow 2.15\n>>> tf.config.list_physical_devices()\n[PhysicalDevice(name='/physical_device:CPU:0', "
     "device_type='CPU'), PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]\n", "cudart_not_found"),
    # native Windows from 2.11 is the CPU-only wheels' reading, not a CUDA library missing
    ("C:\\Users\\me> python\ntensorflow 2.15.0 on Windows 10\n>>> tf.config.list_physical_devices()\n"
     "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]\n", "cudart_not_found"),
    # TensorFlow's own out-of-memory allocating a tensor on the CPU is not the GPU's
    ("ResourceExhaustedError: OOM when allocating tensor with shape[512,512] and type float on "
     "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu\n", "cuda_oom"),
]


@pytest.mark.parametrize(("text", "code"), NOT, ids=[t[:50] for t, _ in NOT])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3), (text, rule_codes(text, n=4))


def test_tf_stub_line_reads_below_the_error_it_is_printed_beside():
    # the CUDA runtime stub's INFO line is printed at every import: a later failure's own reading comes first
    codes = rule_codes("I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will "
                       "not be used.\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
                       "    import pandas as pd\nModuleNotFoundError: No module named 'pandas'\n", n=3)
    assert codes[0] != "cudart_not_found", codes


NEW_ROWS = [
    "tf_cudart_stub_no_cuda_runtime", "tf_kernel_dso_version_mismatch", "tf_windows_cuda_dll_not_found",
    "tf_windows_nvcuda_not_found", "tf_cudnn_handle_failed", "jax_plugin_incompatible_jaxlib",
    "paddle_not_compiled_with_cuda", "paddle_gpu_package_no_device",
    "cupy_multiple_packages", "cupy_failed_to_import", "numba_cuda_disabled_env", "vllm_failed_to_infer_device",
    "bnb_cuda_setup_cudart_not_detected", "dgl_sparse_library_missing", "llama_cpp_no_usable_gpu",
    "bnb_cpu_library", "tf_gpu_below_core_count", "bnb_libcuda_not_found",
    "ggml_no_cuda_arch_for_gpu",
]


@pytest.mark.parametrize("key", NEW_ROWS)
def test_new_rows_match_their_example_and_stay_linear(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


def _first(text: str):
    return explain_result(text, similar=False).findings[0]


def test_llama_cpp_fix_builds_its_cuda_backend():
    f = _first("warning: no usable GPU found, --gpu-layers option will be ignored\n")
    assert f.code == "cpu_only_torch_with_gpu" and "llama.cpp" in f.title
    assert any("GGML_CUDA" in c for c in f.fix.commands)


def test_tensorflow_core_count_fix_names_its_env_var():
    f = _first("Ignoring visible gpu device (device: 1, name: GeForce GT 1030, pci bus id: 0000:04:00.0, compute "
               "capability: 6.1) with core count: 3. The minimum required count is 8. You can adjust this requirement "
               "with the env var TF_MIN_GPU_MULTIPROCESSOR_COUNT.\n")
    assert f.code == "gpu_below_extension_minimum"
    assert any("TF_MIN_GPU_MULTIPROCESSOR_COUNT=3" in c for c in f.fix.commands)


def test_paddle_fix_installs_the_gpu_package():
    f = _first("ValueError: The device should not be 'gpu', since PaddlePaddle is not compiled with CUDA\n")
    assert f.code == "cpu_only_torch_with_gpu" and "torch" not in f.title.split(":")[0]
    assert any("paddlepaddle-gpu" in c for c in f.fix.commands)


def test_tensorflow_cudnn_fix_lets_memory_grow():
    f = _first("E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: "
               "CUDNN_STATUS_INTERNAL_ERROR\n")
    assert f.code == "cuda_oom"
    assert any("TF_FORCE_GPU_ALLOW_GROWTH=true" in c for c in f.fix.commands)
    assert not any("PYTORCH_CUDA_ALLOC_CONF" in c for c in f.fix.commands)


def test_jax_plugin_fix_installs_one_release():
    f = _first("RuntimeWarning: JAX plugin jax_cuda12_plugin version 0.4.30 is installed, but it is not compatible "
               "with the installed jaxlib version 0.4.35, so it will not be used.\n")
    assert f.code == "companion_built_for_other_torch" and "torchvision" not in f.title
    assert any("jax[cuda12]" in c for c in f.fix.commands)


def test_dgl_sparse_fix_names_dgl_wheels():
    f = _first("FileNotFoundError: Cannot find DGL C++ sparse library at /x/dgl/dgl_sparse/"
               "libdgl_sparse_pytorch_2.1.0.so\n")
    assert f.code == "companion_built_for_other_torch" and "torchvision" not in f.title
    assert any("data.dgl.ai" in c for c in f.fix.commands)
