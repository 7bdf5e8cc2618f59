# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 11b (run-time layer): pip's warning that a package has no GPU extra of the name asked for (the
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
