# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 32: whether a text is HIP's is read from the literals its forms begin with (the whole-text search of round
32k's expression cost 70-90 ms of explain's 10 MB budget); the answer is the expression's, on any text."""

from __future__ import annotations

import pytest

from smrnb.doctor import _textfacts as T

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis (a test dependency) is not installed")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PIECES = ["HIP ", "error", "Function Failed", " ", "gfx", "90a", "1100", "ROCm", "x", "+rocm", "6", "hipError",
          "NoDevice", "Z", "/opt/rocm", "\n", "_", "AMD_SERIALIZE_KERNEL", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
          "TORCH_USE_HIP_DSA", "CUDA error: ", "HIPPO", "my"]


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16))
def test_hip_text_is_the_expressions_answer(parts):
    text = "".join(parts)
    assert T._is_hip_text(text) == bool(T._HIP_TEXT_RE.search(text))


def test_hip_text_on_a_text_of_one_literal_repeated_stays_bounded():
    # 2.5 million places of a literal that never completes a form: a bounded number of them is tried
    assert T._is_hip_text("gfx " * 2_500_000) is False
    assert T._is_hip_text("gfx " * 2_500_000 + "HIP error: invalid device function") is True
