# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The bookkeeping of smrnb's CUDA graphs that does not need a GPU (the graphs themselves are
tested on one: tests/geometry/test_mc_cuda.py)."""

from __future__ import annotations

import pytest
import torch

from smrnb.geometry import _graphs


def test_capacity_rounds_up_by_at_most_an_eighth():
    assert _graphs.capacity(0) == 0
    assert _graphs.capacity(1) == _graphs.capacity(16) == 16
    prev = 0
    for n in list(range(1, 5000)) + [999_999, 1_000_000, 1_048_576, 1_048_577, 10**9]:
        c = _graphs.capacity(n)
        assert n <= c <= max(16, n * 1.125), n
        assert c >= prev
        prev = c
    # few distinct capacities: calls on similar data share graphs
    assert len({_graphs.capacity(n) for n in range(100_000, 200_000)}) <= 9
    assert _graphs.capacity(1_000_000, minimum=1024) == 1_048_576


def test_eviction_takes_the_children_along(monkeypatch):
    monkeypatch.setattr(_graphs, "_SEGMENTS", type(_graphs._SEGMENTS)())
    for p in [("mc", 0, (8, 8, 8)), ("mc", 0, (8, 8, 8), 16), ("mc", 0, (8, 8, 8), 16, 0),
              ("mc", 0, (8, 8, 9)), ("vox", 0)]:
        _graphs._SEGMENTS[p] = object()
    _graphs._evict(("mc", 0, (8, 8, 8)))
    assert list(_graphs._SEGMENTS) == [("mc", 0, (8, 8, 9)), ("vox", 0)]


def test_off_on_the_cpu_and_by_environment(monkeypatch):
    assert not _graphs.enabled(torch.device("cpu"))
    monkeypatch.setenv("SMRNB_CUDA_GRAPHS", "0")
    assert not _graphs.enabled(torch.device("cuda", 0))
    st = _graphs.status()
    assert set(st) >= {"segments", "captures", "replays", "off_reason"} and "stream" not in st


@pytest.mark.parametrize("n", [5, 1000])
def test_seen_paths_are_bounded(n, monkeypatch):
    monkeypatch.setattr(_graphs, "_SEEN", set())
    _graphs.mark_seen(*[("p", i) for i in range(n)])
    assert _graphs.seen(("p", n - 1))
    _graphs.mark_seen(("q",))
    assert len(_graphs._SEEN) <= max(n, 4 * _graphs.MAX_SEGMENTS) + 1
