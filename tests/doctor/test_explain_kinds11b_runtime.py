# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 11b (run-time layer): a text stating the minimum driver of the CUDA release in use (NVIDIA's
release-notes table, as users and tools quote it) reads as a driver too old; pip's warning that a package has no GPU extra of the name asked for (the
extra is ignored, so the CPU-only build is what gets installed), written from pip's own source, never copied from a
corpus text; near-misses (an unknown extra that is not a GPU one) must not fire."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

GPU_EXTRA = [
    "WARNING: jax 0.4.1 does not provide the extra 'cuda12_pip'\nSuccessfully installed jax-0.4.1\n",
    "  WARNING: somepkg 2.3.0 does not provide the extra 'gpu'\n",
    "WARNING: tensorflow 2.12.0 does not provide the extra 'and-cuda'\n",
    "WARNING: mylib 1.0 does not provide the extra 'cu118'\n",
]

NEAR_MISSES = [
    "WARNING: somepkg 2.3.0 does not provide the extra 'dev'\n",
    "WARNING: jax 0.4.1 does not provide the extra 'tpu'\n",
    "Requirement already satisfied: jax[cuda12] in ./env/lib/python3.11/site-packages (0.4.30)\n",
]


@pytest.mark.parametrize("text", GPU_EXTRA)
def test_pip_gpu_extra_missing(text: str) -> None:
    assert rule_codes(text, n=2)[:1] == ["cpu_only_torch_with_gpu"]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_pip_gpu_extra_near_misses(text: str) -> None:
    assert "cpu_only_torch_with_gpu" not in rule_codes(text, n=3)


DRIVER_MINIMUM = [
    "torch.cuda.is_available() returns False. nvidia-smi shows driver 384; CUDA 10.0 requires driver 410.48\n",
    "CUDA 12.1 needs an NVIDIA driver >= 530.30.02, this machine has 525.85\n",
    "Note: cuda 11.8 requires the display driver of at least 520.61.05\n",
]

DRIVER_NEAR_MISSES = [
    "I installed the NVIDIA driver 535.104 and CUDA 12.2; everything works\n",
    "This package requires CUDA 11.8 or newer\n",
]


@pytest.mark.parametrize("text", DRIVER_MINIMUM)
def test_cuda_requires_driver(text: str) -> None:
    assert "driver_too_old" in rule_codes(text, n=2)


@pytest.mark.parametrize("text", DRIVER_NEAR_MISSES)
def test_cuda_requires_driver_near_misses(text: str) -> None:
    assert "driver_too_old" not in rule_codes(text, n=3)
