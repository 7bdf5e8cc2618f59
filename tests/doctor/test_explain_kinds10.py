# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 10: build systems' own messages about a missing CUDA toolkit (Legion's runtime.mk) and torch's
assertion on a GPU index CUDA does not enumerate (MIG). Each text is written from the tool's own message (see the
table rows' ``source``); each risky pattern has a text of another kind that must not get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # Legion's runtime.mk: USE_CUDA=1 without CUDA and without nvcc on PATH (make's $(error ...) line)
    ("../legion/runtime/runtime.mk:531: *** CUDA variable is not defined, aborting build.  Stop.\n",
     ["cuda_home_missing"]),
    ("runtime.mk:501: *** CUDA_PATH variable is not defined, aborting build.  Stop.\n", ["cuda_home_missing"]),
    # torch indexes a GPU that CUDA does not enumerate in this process (MIG: one instance per CUDA process)
    ("RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "
     "\"../aten/src/ATen/cuda/CUDAContext.cpp\":50, please report a bug to PyTorch. device=1, num_gpus=1\n",
     ["gpu_not_exposed_to_process"]),
]

WARP_36 = ("Warp CUDA error 36: API call is not supported in the installed CUDA driver (in function cuda_init, "
           "/builds/omniverse/warp/warp/native/warp.cu:277)\n")


def _warp_banner(toolkit: str, driver: str) -> str:
    return f"Warp 1.7.1 initialized:\n   CUDA Toolkit {toolkit}, Driver {driver}\n   Devices:\n"


def test_newer_driver_error_with_a_newer_driver_shown_is_no_old_driver():
    # Warp's banner shows the driver (cuDriverGetVersion) supports CUDA 13.0, newer than Warp's toolkit (12.8)
    text = ("Warp CUDA error: Failed to get driver entry point 'cuDeviceGetUuid' (CUDA error 1)\n" + WARP_36
            + _warp_banner("12.8", "13.0"))
    codes = rule_codes(text)
    assert "library_bug" in codes
    assert not {"driver_below_cuda_minor", "driver_too_old"} & set(codes)


def test_newer_driver_error_with_an_older_driver_shown_stays_the_drivers_age():
    assert rule_codes(WARP_36 + _warp_banner("12.8", "12.2"), n=1) == ["driver_below_cuda_minor"]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # Legion's other libraries: GASNet and hwloc are no CUDA toolkit
    ("runtime.mk:718: *** GASNET variable is not defined, aborting build.  Stop.\n", "cuda_home_missing"),
    ("runtime.mk:324: *** HWLOC variable is not defined, aborting build.  Stop.\n", "cuda_home_missing"),
    # another internal assertion of torch about a device is no hidden GPU
    ("RuntimeError: index >= 0 && index < num_streams INTERNAL ASSERT FAILED, please report a bug to PyTorch.\n",
     "gpu_not_exposed_to_process"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text)
