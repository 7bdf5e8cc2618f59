# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Which CUDA variant of torch a GPU's printed fix names: the variant whose wheels carry kernels for the GPU
(PyTorch's support matrix, table torch_wheel_archs), not any variant whose nvcc could compile for it. nvcc 12.8
still compiles for Volta and Pascal, but torch 2.11's cu128 wheels carry neither (and 2.8's cu128 no Pascal)."""

from __future__ import annotations

import pytest

from smrnb.doctor import _printed, tables

CMD = "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/<a CUDA variant built for the GPU>"


def _filled(arch: str) -> str:
    return _printed._variant_filled(CMD, f"The installed torch has no kernels for this GPU ({arch})")


@pytest.mark.parametrize("arch", ["sm_70", "sm_61", "sm_60", "sm_52"])
def test_a_gpu_older_than_turing_is_sent_to_cu126_alone(arch):
    got = _filled(arch)
    assert "/whl/cu126" in got, got
    assert "cu128" not in got and "cu130" not in got, got  # no other variant named as an alternative


@pytest.mark.parametrize("arch, first", [("sm_75", "cu126"), ("sm_89", "cu126"), ("sm_90", "cu126"),
                                         ("sm_100", "cu128"), ("sm_120", "cu128"), ("sm_121", "cu128")])
def test_the_oldest_variant_with_kernels_for_the_gpu_comes_first(arch, first):
    got = _filled(arch)
    assert got.split("/whl/", 1)[1].split()[0] == first, got


@pytest.mark.parametrize("torch, variant, cc, runs", [
    ("2.11.0", "cu128", 70, False),  # Volta dropped from cu128 in 2.11
    ("2.10.1", "cu128", 70, True),   # ...but carried in 2.9 / 2.10
    ("2.8.0", "cu128", 61, False),   # Pascal only in cu126
    ("2.8.0", "cu126", 61, True),    # 6.0's machine code runs on 6.1
    ("2.11.0", "cu130", 89, True),   # 8.6's machine code runs on 8.9
    ("2.11.0", "cu126", 120, False),  # no Blackwell in cu126
    ("2.11.0", "cu130", 125, True),  # a newer 12.x: 12.0's machine code (and its PTX)
    ("2.9.0", "cu130", 130, True),   # a newer major: JIT from 12.0's PTX
    ("2.8.0", "cu128", 130, False),  # no PTX in 2.8's cu128
    ("2.6.0", "cu126", 70, True),    # (round 37g) 2.6's rows, read from the conda packages' arch lists
    ("1.10.2", "cu113", 86, None),   # no row: not known
])
def test_torch_wheel_runs_reads_the_matrix(torch, variant, cc, runs):
    assert tables.torch_wheel_runs(torch, variant, cc) is runs


def test_every_variant_of_the_rows_is_one_the_torch_release_publishes():
    for r in tables.rows("torch_wheel_archs"):
        tv = tables.torch_cuda_variants(r["torch"], find_links=True)  # (round 38c) 1.7-1.10: -f pages
        assert tv is not None and r["variant"] in tv.variants, r
        assert all(a.isdigit() for a in r["archs"].split()), r
