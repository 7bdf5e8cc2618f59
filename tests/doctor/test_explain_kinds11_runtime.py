# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 11 (run-time layer): the own messages of NVENC, faiss, XGBoost, CTranslate2, CUPTI, ollama, the
NVIDIA Fabric Manager and libnvidia-container; a CPU-only torch on a Jetson board; an old release shown after pip
replaced it; a kernel fault read as a library's bug before the hardware. Each text is written from the tool's own
message (see the table rows' ``source``); each risky pattern has a text of another kind that must not get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # FFmpeg's nvenc (libavcodec/nvenc.c): the NVENC API of the build is newer than the driver's
    ("[hevc_nvenc @ 0x5581] Driver does not support the required nvenc API version. Required: 12.2 Found: 12.1\n"
     "[hevc_nvenc @ 0x5581] The minimum required Nvidia driver for nvenc is 551.76 or newer\n", ["driver_too_old"]),
    ("obs-nvenc: nvEncOpenEncodeSessionEx failed: NV_ENC_ERR_INVALID_VERSION (15)\n", ["driver_too_old"]),
    # faiss' GPU classes are absent from the CPU-only build
    ("    index = faiss.GpuIndexFlatL2(res, 128)\nAttributeError: module 'faiss' has no attribute 'GpuIndexFlatL2'\n",
     ["cpu_only_torch_with_gpu"]),
    ("res = faiss.StandardGpuResources()\nAttributeError: module 'faiss' has no attribute 'StandardGpuResources'\n",
     ["cpu_only_torch_with_gpu"]),
    # XGBoost's AssertGPUSupport
    ("xgboost.core.XGBoostError: [09:12:44] /workspace/src/common/common.h:157: XGBoost version not compiled with "
     "GPU support.\n", ["cpu_only_torch_with_gpu"]),
    # CUPTI / Nsight Compute refused the performance counters
    ("==PROF== ERROR: ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
     "Counters on the target device 0.\n", ["gpu_device_permission_denied"]),
    ("PAPI error: cuptiProfilerInitialize() failed with error 35 (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)\n",
     ["gpu_device_permission_denied"]),
    # ollama's AVX check
    ('time=2025-01-03T10:00:00Z level=WARN source=gpu.go:230 msg="CPU does not have minimum vector extensions, GPU '
     'inference disabled" required=avx detected="no vector extensions"\n', ["cpu_instruction_unsupported"]),
    # CUDA on an NVSwitch system without the Fabric Manager
    ("cuInit failed with error 802 on every GPU of the HGX H100 node\n", ["fabric_manager_not_running"]),
    ("nvidia-fabricmanager.service: Main process exited, code=exited, status=1/FAILURE\n",
     ["fabric_manager_not_running"]),
    # libnvidia-container could not run the host's ldconfig
    ("docker: Error response from daemon: OCI runtime create failed: container_linux.go:345: starting container "
     "process caused \"process_linux.go:430: container init caused \\\"process_linux.go:413: running prestart hook 1 "
     "caused \\\\\\\"error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: ldcache error: process "
     "/sbin/ldconfig.real failed with error code: 1\\\\\\\"\\\"\": unknown.\n", ["gpu_not_exposed_to_process"]),
    # an NGC container's entrypoint found no driver in the container
    ("=============\n== PyTorch ==\n=============\nWARNING: The NVIDIA Driver was not detected.  GPU functionality "
     "will not be available.\n   Use the NVIDIA Container Toolkit to start this container with GPU support\n",
     ["gpu_not_exposed_to_process"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


_CT2_HALF = ("ValueError: Requested float16 compute type, but the target device or backend do not support efficient "
             "float16 computation.\n")


def test_ctranslate2_float16_on_the_cpu_is_the_code_without_a_gpu():
    text = 'model = WhisperModel("small", device="cpu", compute_type="float16")\n' + _CT2_HALF
    assert rule_codes(text) == ["user_code_error", "no_gpu"]


def test_ctranslate2_float16_on_a_gpu_is_a_gpu_without_fast_half():
    text = 'model = WhisperModel("large-v3", device="cuda", compute_type="float16")\n' + _CT2_HALF
    assert rule_codes(text) == ["user_code_error", "gpu_below_extension_minimum"]


def test_ctranslate2_without_cuda_on_a_mac_is_no_gpu():
    text = ("I run it on my MacBook Pro M2.\n    self.model = ctranslate2.models.Whisper(\n"
            "ValueError: This CTranslate2 package was not compiled with CUDA support\n")
    assert rule_codes(text, n=1) == ["no_gpu"]
    linux = ("  File \"/usr/lib/python3.10/site-packages/faster_whisper/transcribe.py\", line 128, in __init__\n"
             "ValueError: This CTranslate2 package was not compiled with CUDA support\n")
    assert rule_codes(linux, n=1) == ["cpu_only_torch_with_gpu"]


def test_torch_without_cuda_on_a_jetson_is_the_cpu_wheel():
    text = ("Jetson Orin Nano, JetPack 6.0 (L4T 36.3). pip install torch worked but\n>>> torch.cuda.is_available()\n"
            "False\n")
    assert rule_codes(text, n=1) == ["cpu_only_torch_with_gpu"]


def test_an_old_release_printed_after_pip_replaced_it_needs_a_restart():
    text = ("!pip install -U numpy\n  Attempting uninstall: numpy\n    Found existing installation: numpy 1.26.4\n"
            "    Uninstalling numpy-1.26.4:\n      Successfully uninstalled numpy-1.26.4\n"
            "Successfully installed numpy-2.0.1\n\nimport numpy; print(numpy.__version__)\n1.26.4\n")
    assert rule_codes(text, n=1) == ["kernel_restart_needed"]


def test_a_kernel_fault_reads_as_a_librarys_bug_then_the_hardware():
    text = "RuntimeError: CUDA error: unspecified launch failure\n"
    assert rule_codes(text) == ["library_bug", "gpu_hardware_fault"]


NOT = [
    # faiss' CPU attributes missing are another release, not the CPU build
    ("AttributeError: module 'faiss' has no attribute 'IndexHNSWFlat'\n", "cpu_only_torch_with_gpu"),
    # another NVENC failure (no encoder session left) is no driver age
    ("[h264_nvenc @ 0x55] OpenEncodeSessionEx failed: incompatible client key (21): (no details)\n",
     "driver_too_old"),
    # CUDA error 802 of an unrelated tool is no fabric; other CUPTI errors are no permission
    ("HTTP error 802 while fetching the model card\n", "fabric_manager_not_running"),
    ("cuptiActivityEnable failed with error 17 (CUPTI_ERROR_NOT_INITIALIZED)\n", "gpu_device_permission_denied"),
    # pip replaced a release and the new one is printed: nothing to restart
    ("    Successfully uninstalled numpy-1.26.4\nSuccessfully installed numpy-2.0.1\n>>> numpy.__version__\n'2.0.1'\n",
     "kernel_restart_needed"),
    # a Jetson with CUDA working is no CPU build
    ("Jetson AGX Xavier, JetPack 5.1: nvcc fatal : Unsupported gpu architecture 'compute_89'\n",
     "cpu_only_torch_with_gpu"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)


_TF_QUERY = ">>> tf.config.list_physical_devices('GPU')\n[]\n"


def test_tensorflow_211_or_later_on_native_windows_has_no_gpu_build():
    text = "Windows 11, RTX 4070, CUDA 12.3, tensorflow==2.15.0\n" + _TF_QUERY
    assert rule_codes(text, n=1) == ["cpu_only_torch_with_gpu"]
    # TensorFlow 2.10 (the last native-Windows GPU release) and Linux/WSL2 installs are other causes
    assert "cpu_only_torch_with_gpu" not in rule_codes("Windows 10, tensorflow-gpu==2.10.0\n" + _TF_QUERY, n=3)
    assert "cpu_only_torch_with_gpu" not in rule_codes("Ubuntu 22.04 under WSL2, tensorflow==2.15.0\n" + _TF_QUERY,
                                                       n=3)


def test_gpu_memory_running_out_said_in_chinese_is_oom():
    text = "部署后，前两张卡跑满，后两张卡几乎无占用，推理就会报显存溢出。\n"  # "inference then reports GPU memory overflow"
    assert rule_codes(text, n=1) == ["cuda_oom"]
    # host memory (内存) is not the GPU's
    assert "cuda_oom" not in rule_codes("训练时内存不足，进程被杀掉了。\n", n=3)


def test_transformers_quantizer_without_a_gpu_is_torch_without_cuda():
    codes = rule_codes("RuntimeError: No GPU found. A GPU is needed for quantization.\n")
    assert "cpu_only_torch_with_gpu" in codes


def test_a_bare_cpu_release_in_a_version_table_is_a_cpu_torch():
    text = ("Poetry replaced 2.0.1+cu118 with the default wheel.\n| gymnasium | torch | numpy |\n"
            "| 0.28.1 | 2.1.1+cpu | 1.24.4 |\n  File \"C:\\env\\Lib\\site-packages\\torch\\cuda\\__init__.py\", line 289, "
            "in _lazy_init\nAssertionError: Torch not compiled with CUDA enabled\n")
    assert rule_codes(text, n=1) == ["cpu_only_torch_with_gpu"]
