# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 32k: a HIP (ROCm) text is read by HIP's own error table (tables/hip_errors.csv: hipError_t of ROCm/HIP's
hip_runtime_api.h, hipGetErrorString strings of ROCm/clr hipamd/src/hip_error.cpp), not CUDA's. HIP's "shared object
initialization failed" is a code object that did not build or load for the device (clr hip_fatbin.cpp), not CUDA's
303 (driver_broken); hipErrorInvalidDevice counts only the GPUs the runtime can open; the fixes are ROCm's (rocminfo,
rocm-smi, HIP_VISIBLE_DEVICES, /dev/kfd's groups, HSA_OVERRIDE_GFX_VERSION). The same words beside CUDA stay CUDA's."""

from __future__ import annotations

import pytest

from smrnb.doctor import tables
from smrnb.doctor._explain import explain_result


def _first_two(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings[:2]]


READINGS = [
    # torch's ROCm build (c10/hip's hipified "HIP error: <hipGetErrorString>"): a wording not from the corpus
    ("RuntimeError: HIP error: shared object initialization failed\nHIP kernel errors might be asynchronously reported "
     "at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing "
     "AMD_SERIALIZE_KERNEL=3\nCompile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n",
     "torch_wheel_lacks_gpu_arch"),
    # a HIP program's check macro printing hipGetErrorName / its number
    ("hipModuleLaunchKernel failed: hipErrorSharedObjectInitFailed (303) at kernel.cpp:88\n",
     "torch_wheel_lacks_gpu_arch"),
    # ck_tile's HIP_CHECK_ERROR in a flash-attention build for ROCm (the string alone, HIP named on the line)
    ("RuntimeError: HIP Function Failed (/src/flash-attention/csrc/composable_kernel/include/ck_tile/host/"
     "kernel_launch_hip.hpp,51) shared object initialization failed\n", "torch_wheel_lacks_gpu_arch"),
    # HIP's old numbering (1010) and the current name: the user may not open /dev/kfd
    ("error: 'hipErrorInvalidDevice'(1010) at square.cpp:60\n", "gpu_device_permission_denied"),
    ("HIP error hipErrorInvalidDevice: invalid device ordinal\n  at hipSetDevice(1)\n", "gpu_device_permission_denied"),
    # the quoted string alone in a text that is ROCm's (torch +rocm)
    ("torch 2.4.1+rocm6.0\nterminate called after throwing: device kernel image is invalid\n",
     "torch_wheel_lacks_gpu_arch"),
]


@pytest.mark.parametrize("text,code", READINGS)
def test_hip_error_is_read_by_hips_table(text: str, code: str) -> None:
    assert code in _first_two(text)


NEAR_MISSES = [
    # CUDA's own 303: the driver's libraries (cuda_errors.csv), no HIP in the text
    ("RuntimeError: CUDA error: shared object initialization failed\nCUDA kernel errors might be asynchronously "
     "reported at some other API call\n", "torch_wheel_lacks_gpu_arch"),
    # a CUDA text that names ROCm in passing keeps CUDA's reading of a CUDA line
    ("pip install torch --index-url https://download.pytorch.org/whl/cu121  # not the ROCm one\nRuntimeError: CUDA "
     "error: shared object initialization failed\n", "torch_wheel_lacks_gpu_arch"),
    # a HIP word without an error of HIP's runtime
    ("HIP_VISIBLE_DEVICES=0 python train.py\nValueError: invalid device ordinal string 'gpu'\n",
     "gpu_device_permission_denied"),
]


@pytest.mark.parametrize("text,code", NEAR_MISSES)
def test_near_misses_stay_other(text: str, code: str) -> None:
    assert code not in _first_two(text)


def test_cuda_303_stays_driver_broken() -> None:
    assert _first_two(NEAR_MISSES[0][0])[:1] == ["driver_broken"]


def test_hip_fix_commands_are_rocms() -> None:
    f = explain_result(READINGS[0][0], similar=False).findings[0]
    cmds = " ".join(f.fix.commands)
    assert "rocminfo" in cmds and "HSA_OVERRIDE_GFX_VERSION" in cmds and "nvidia-smi" not in cmds
    g = [x for x in explain_result(READINGS[3][0], similar=False).findings if x.code == "gpu_not_exposed_to_process"]
    assert g and "HIP_VISIBLE_DEVICES" in " ".join(g[0].fix.commands) and "nvidia" not in " ".join(g[0].fix.commands)


def test_hip_table_is_hips_header() -> None:
    rows = tables.hip_error_rows()
    assert len({r.name for r in rows}) == len(rows) >= 70
    assert tables.hip_error(303).name == "hipErrorSharedObjectInitFailed"
    assert tables.hip_error("hipErrorInvalidDevice").number == 101
    assert tables.hip_error("no ROCm-capable device is detected").name == "hipErrorNoDevice"
    assert all(r.source and r.verified in ("yes", "partial", "no") and r.codes for r in rows)


def test_hip_message_rows_take_rocms_fix() -> None:
    # library_messages.csv's HIP rows keep their codes; their fix is ROCm's (no CUDA wheel index, no nvidia-smi)
    text = "torch 2.3.0+rocm5.7\nRuntimeError: HIP error: invalid device function\n"
    found = explain_result(text, similar=False).findings[:2]
    assert [f.code for f in found] == ["torch_wheel_lacks_gpu_arch", "no_kernel_image_for_gpu"]
    cmds = " ".join(c for f in found for c in f.fix.commands)
    assert "rocminfo" in cmds and "PYTORCH_ROCM_ARCH" in cmds
    assert "nvidia-smi" not in cmds and "whl/cu" not in cmds
