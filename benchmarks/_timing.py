# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Timing helper shared by the GPU benchmarks: median of CUDA-event timings after warm-up."""

from __future__ import annotations

import statistics

import torch


def cuda_median(fn, repeats: int = 20, warmup: int = 3) -> float:
    """Median seconds of ``fn()`` measured with CUDA events, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    # the events exist before the timed region: a CUDA event is created at its first record, and
    # creating the end event inside the region added tens of microseconds on some hosts
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(repeats)]
    for a, b in events:
        a.record()
        b.record()
    torch.cuda.synchronize()
    ts = []
    for a, b in events:
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


def cuda_graph_modes(fn, repeats: int = 20) -> dict[str, float]:
    """Seconds of ``fn()`` in each CUDA-graph state of smrnb's launch-bound steps (CUDA events):
    ``first`` (a shape seen for the first time: eager), ``capture`` (the second call: capture and
    replay), ``graphs`` (median of later calls: replays), ``eager`` (median with
    ``SMRNB_CUDA_GRAPHS=0``, the per-call cost without graphs)."""
    import os

    from smrnb.geometry import _graphs

    def once() -> float:
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        b.record()
        torch.cuda.synchronize()
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        return a.elapsed_time(b) / 1000

    old = os.environ.pop("SMRNB_CUDA_GRAPHS", None)
    try:
        os.environ["SMRNB_CUDA_GRAPHS"] = "0"
        eager = cuda_median(fn, repeats)
        del os.environ["SMRNB_CUDA_GRAPHS"]
        _graphs.release()
        first = once()
        capture = once()
        graphs = cuda_median(fn, repeats, warmup=1)
    finally:
        if old is not None:
            os.environ["SMRNB_CUDA_GRAPHS"] = old
    off = _graphs.status()["off_reason"]
    if off:
        raise RuntimeError(f"CUDA graphs turned themselves off: {off}")
    return {"first": first, "capture": capture, "graphs": graphs, "eager": eager}
