# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Timing helper shared by the GPU benchmarks: median of CUDA-event timings after warm-up."""

from __future__ import annotations

import statistics

import torch


def cuda_median(fn, repeats: int = 20, warmup: int = 3) -> float:
    """Median seconds of ``fn()`` measured with CUDA events, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(repeats):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) / 1000)
    return statistics.median(ts)


def wall_median(fn, repeats: int) -> float:
    """Median wall-clock seconds of ``fn()`` over ``repeats`` calls, after one untimed call."""
    import time

    fn()
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)
