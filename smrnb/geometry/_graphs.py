# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""CUDA graphs for the launch-bound steps (marching cubes, voxelization).

At the sizes a notebook works with (a 256^3 grid, a million points) these steps cost a few dozen
small kernels each, and on a GPU the time goes into launching them from Python, not into the
kernels: a 128^3 grid takes as long as a 256^3 one, and the same call is twice as slow on a lent
machine with a slower host CPU. A CUDA graph records the kernels of one call once and replays them
with one launch.

How this module uses them
-------------------------
* A step is cut into *segments* at its host syncs (marching cubes needs the number of active
  cubes before it can size the next tensors). Each segment is a function of tensors whose shapes
  are fixed by a *path*: the grid shape, then capacities for the data-dependent sizes, rounded up
  on a grid of eight steps per octave (:func:`capacity`) so that calls on similar data share a
  graph. The segment functions pad up to the capacity with entries that contribute nothing; the
  same functions run eagerly, unpadded, on the CPU and for one-off calls.
* A path is captured the *second* time it is seen (a one-off call pays no capture), then replayed.
  A child segment reads its parent's outputs in place, so a child is only ever replayed right
  after its parent, and evicting a segment evicts its children.
* What is held is bounded: at most :data:`MAX_SEGMENTS` segments, least recently used first out,
  holding at most :data:`MAX_BYTES_FRACTION` of the device's memory (and at most :data:`MAX_BYTES`;
  counted as the memory torch reserved while capturing), and a capture is skipped when the device
  has less than :data:`MIN_FREE_FRACTION` of its memory free. A segment that alone holds over a
  quarter of that budget is dropped after its capture and runs eagerly from then on (the steps also
  keep large data-dependent sizes out of graphs before capturing). A capture that fails (an
  operation this torch build cannot capture) turns graphs off for the process, and the step runs
  eagerly; :func:`status` tells why.
* ``SMRNB_CUDA_GRAPHS=0`` in the environment turns them off; :func:`release` frees what is held.

Results never alias a graph's buffers: the steps copy what they return out of them, or compute it
outside the graphs, inside one :func:`session` (threads take turns; a call from another CUDA stream
waits for the previous one).
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import torch

__all__ = ["capacity", "enabled", "mark_seen", "release", "run", "seen", "session", "status"]

MAX_SEGMENTS = 48
MAX_BYTES_FRACTION = 0.05  # of the device's memory, at most MAX_BYTES
MAX_BYTES = 4 << 30
MIN_FREE_FRACTION = 0.25

_LOCK = threading.RLock()
_SEGMENTS: OrderedDict[tuple[Any, ...], _Segment] = OrderedDict()
_SEEN: set[tuple[Any, ...]] = set()
_TOO_BIG: set[tuple[Any, ...]] = set()  # captured once, over the memory budget on their own: eager
_STATE: dict[str, Any] = {"off_reason": None, "captures": 0, "replays": 0, "evictions": 0, "stream": None}


class _Segment:
    __slots__ = ("graph", "inputs", "outputs", "nbytes")

    def __init__(self, graph: Any, inputs: dict[str, torch.Tensor], outputs: Any, nbytes: int) -> None:
        self.graph, self.inputs, self.outputs, self.nbytes = graph, inputs, outputs, nbytes


def capacity(n: int, minimum: int = 16) -> int:
    """The capacity a size ``n`` is padded to: ``n`` rounded up on a grid of eight steps per octave
    (at most 12.5 % over), at least ``minimum``; 0 stays 0."""
    n = int(n)
    if n <= 0:
        return 0
    if n <= minimum:
        return minimum
    step = 1 << max(n.bit_length() - 4, 0)
    return -(-n // step) * step


def enabled(device: torch.device) -> bool:
    """Whether steps on ``device`` use CUDA graphs now."""
    if device.type != "cuda" or _STATE["off_reason"] is not None:
        return False
    if os.environ.get("SMRNB_CUDA_GRAPHS", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    # inside someone else's capture our own capture (and eager syncs) cannot run
    return not torch.cuda.is_current_stream_capturing()


def status() -> dict[str, Any]:
    """Segments held, captures and replays so far, and why graphs are off (None when on)."""
    with _LOCK:
        return {"segments": len(_SEGMENTS), "bytes": sum(s.nbytes for s in _SEGMENTS.values()),
                **{k: v for k, v in _STATE.items() if k != "stream"}}


def release() -> None:
    """Drop every captured graph (their memory returns to torch's caching allocator)."""
    with _LOCK:
        _SEGMENTS.clear()
        _SEEN.clear()
        _TOO_BIG.clear()


@contextlib.contextmanager
def session(device: torch.device) -> Iterator[None]:
    """Hold the graphs for one step's whole run (its segments and the copies out of their buffers).

    Threads take turns; a caller on another CUDA stream than the previous one first waits for that
    stream, so a replay never overwrites buffers whose copies are still queued elsewhere.
    """
    with _LOCK:
        stream = torch.cuda.current_stream(device)
        last = _STATE.get("stream")
        if last is not None and last != stream:
            stream.wait_stream(last)
        _STATE["stream"] = stream
        yield


def _evict(path: tuple[Any, ...]) -> None:
    for p in [p for p in _SEGMENTS if p[:len(path)] == path]:
        del _SEGMENTS[p]
        _STATE["evictions"] += 1


def run(path: tuple[Any, ...], fn: Callable[..., Any], inputs: dict[str, Any], *, device: torch.device,
        parent_graphed: bool = True, copy_inputs: bool = False,
        load: Callable[[dict[str, torch.Tensor] | None], dict[str, torch.Tensor]] | None = None
        ) -> tuple[Any, bool]:
    """Run segment ``fn(**inputs)``: replay its graph, capture it, or run it eagerly.

    ``path`` names the segment and every shape it depends on (a child's path extends its parent's).
    ``inputs`` are tensors or Python numbers. How a graph gets them: a child passes its parent's
    outputs, read in place; a root segment with ``copy_inputs`` copies them into buffers of its own
    (numbers into 0-d buffers); a root segment with ``load`` gets its buffers from ``load(None)``
    (which makes and fills them) and refills them with ``load(buffers)`` before each replay.
    ``parent_graphed`` False (the parent ran eagerly) means this call runs eagerly too. Returns
    ``(outputs, graphed)``; graphed outputs live in the graph's buffers until its next replay.
    """
    if load is None and copy_inputs:
        load = functools.partial(_copy_into, inputs, device)
    with _LOCK:
        seg = _SEGMENTS.get(path) if parent_graphed else None
        if seg is None and parent_graphed and path in _SEEN and path not in _TOO_BIG \
                and _STATE["off_reason"] is None and _room(device):
            seg = _capture(path, fn, (lambda: inputs) if load is None else (lambda: load(None)), device)
        elif seg is not None:
            _SEGMENTS.move_to_end(path)
            if load is not None:
                load(seg.inputs)
        if seg is not None:
            seg.graph.replay()
            _STATE["replays"] += 1
            return seg.outputs, True
        if len(_SEEN) > 4 * MAX_SEGMENTS:
            _SEEN.clear()
        _SEEN.add(path)
    return fn(**inputs), False


def seen(path: tuple[Any, ...]) -> bool:
    """Whether ``path`` ran before (it is captured on its next run)."""
    return path in _SEEN or path in _SEGMENTS


def mark_seen(*paths: tuple[Any, ...]) -> None:
    """Record paths a step ran without :func:`run` (an exact eager run that knows its sizes), so
    that their next run is captured."""
    with _LOCK:
        if len(_SEEN) > 4 * MAX_SEGMENTS:
            _SEEN.clear()
        _SEEN.update(paths)


def _copy_into(inputs: dict[str, Any], device: torch.device,
               static: dict[str, torch.Tensor] | None) -> dict[str, torch.Tensor]:
    if static is None:
        return {k: (v.clone() if isinstance(v, torch.Tensor)
                    else torch.tensor(v, dtype=torch.float64 if isinstance(v, float) else torch.int64,
                                      device=device))
                for k, v in inputs.items()}
    for k, v in inputs.items():
        if isinstance(v, torch.Tensor):
            static[k].copy_(v)
        else:
            static[k].fill_(v)
    return static


def _room(device: torch.device) -> bool:
    try:
        free, total = torch.cuda.mem_get_info(device)
    except RuntimeError:
        return False
    return free >= MIN_FREE_FRACTION * total


def _capture(path: tuple[Any, ...], fn: Callable[..., Any], make_inputs: Callable[[], dict[str, Any]],
             device: torch.device) -> _Segment | None:
    while len(_SEGMENTS) >= MAX_SEGMENTS:
        _evict(next(iter(_SEGMENTS)))
    _evict(path)  # a stale copy and its children
    reserved = torch.cuda.memory_reserved(device)  # the graph's own input buffers count too
    static = make_inputs()
    graph = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    try:
        with torch.cuda.stream(side):
            graph.capture_begin(capture_error_mode="thread_local")
            try:
                outputs = fn(**static)
            finally:
                graph.capture_end()
    except Exception as exc:  # an op this torch build cannot capture: run eagerly from now on
        _STATE["off_reason"] = f"capture of {path[0]} failed: {type(exc).__name__}: {exc}"[:300]
        torch.cuda.current_stream(device).wait_stream(side)
        _SEGMENTS.clear()  # never replayed again: give their memory back
        return None
    torch.cuda.current_stream(device).wait_stream(side)
    _STATE["captures"] += 1
    seg = _SEGMENTS[path] = _Segment(graph, static, outputs,
                                     max(0, torch.cuda.memory_reserved(device) - reserved))
    budget = min(MAX_BYTES, MAX_BYTES_FRACTION * torch.cuda.get_device_properties(device).total_memory)
    if seg.nbytes > budget / 4:  # one segment may not hold a quarter of the budget: drop it, stay eager
        _evict(path)
        _TOO_BIG.add(path)
        return None
    while sum(s.nbytes for s in _SEGMENTS.values()) > budget:
        oldest = next(iter(_SEGMENTS))
        if path[:len(oldest)] == oldest:  # the new segment and its parents stay
            break
        _evict(oldest)
    return seg
