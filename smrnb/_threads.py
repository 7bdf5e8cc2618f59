# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""How many CPU threads smrnb's heavy steps use: one load-aware policy, in one place.

Why: torch's CPU ops run in OpenMP parallel regions (libgomp on Linux), thousands of small ones per
TSDF frame. By default libgomp's waiting threads *spin* (``GOMP_SPINCOUNT`` 300,000 when
``OMP_WAIT_POLICY`` is unset). On a machine whose cores are taken by other jobs, a spinning thread
burns the time slice the thread it waits for needs, and every region's barrier waits for a thread
the scheduler has put aside: measured on 2 cores at load 10-15, ``fuse_tsdf`` on 60 frames with 2
threads took 190 s of wall time and 48 s of CPU for 3.5 s of work (1 thread: 16 s wall, 3.5 s CPU;
2 passive threads: 13-16 s wall, 3.8-4.2 s CPU). See ``benchmarks/RESULTS_contention.md``.

So:

1. ``import smrnb`` sets ``OMP_WAIT_POLICY=PASSIVE`` *if torch is not loaded yet* and the user set
   none of ``OMP_WAIT_POLICY``, ``GOMP_SPINCOUNT``, ``KMP_BLOCKTIME`` (libgomp reads them once, when
   torch loads it; later changes do nothing). ``SMRNB_OMP_WAIT_POLICY=keep`` turns this off.
2. Each heavy step runs inside :func:`cpu_threads`, which picks a thread count from the CPUs this
   process may use (affinity, cgroup ``cpu.max``) minus the CPUs other jobs keep busy, and restores the
   caller's setting afterwards. Other jobs' load is read without waiting: the busy time of the allowed
   CPUs (``/proc/stat``) since the previous reading minus this process's own CPU time, over the time
   between the two; only the first step of a process (or one after a long pause) samples runnable tasks
   for :data:`SAMPLE_SECONDS` instead (else the 1-minute load average), so a short step re-run in a
   widget does not wait 30 ms to learn the load. When the runtime still spins (torch was imported
   first) any load from others gives 1 thread, because spinning threads are what turns a busy machine
   into 10x slower steps.
   Steps made of many small parallel regions (the TSDF: ~750 per 640x480 frame) are capped
   further when the runtime sleeps: every region then wakes its threads through the kernel, which
   costs more than the work it shares out beyond a few threads. ``fuse_tsdf`` on 60 frames, passive
   waits, on an idle 16-core host: 1 thread 3.50 s, 2: 2.49 s, 4: 2.25 s, 8: 3.68 s, 16: 4.91 s; on a
   2-core VM: 1 thread 2.7 s, 2 threads 4.8 s. So such steps use half the CPUs left to them, at most
   :data:`FINE_GRAINED_MAX` (1 on 2 CPUs, 4 on 16).
3. The user decides when they say so: ``SMRNB_NUM_THREADS=N`` uses N threads in every step,
   ``SMRNB_NUM_THREADS=keep`` leaves torch's setting alone; so does ``OMP_NUM_THREADS`` or a
   ``torch.set_num_threads`` call: a count that is not torch's own default (the CPUs or the physical
   cores this process may use) or that changed since smrnb's first heavy step counts as the caller's.

:func:`decide_threads` is the pure decision (tested on given loads, affinities and quotas);
:func:`last_decision` tells what the latest step chose and why.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from smrnb._errors import SmrnbValueError

ENV = "SMRNB_NUM_THREADS"
ENV_WAIT = "SMRNB_OMP_WAIT_POLICY"
WAIT_VARS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")
KEEP_WORDS = ("keep", "torch", "off")
SAMPLE_SECONDS = 0.03  # how long /proc/stat is watched for runnable tasks (first reading only)
CACHE_SECONDS = 1.0  # a load measurement is reused for this long (steps called in a loop)
MAX_WINDOW_SECONDS = 300.0  # older busy-time readings are not taken for the load now: sample again

#: steps of many small parallel regions, and the most threads they use while the runtime sleeps
FINE_GRAINED: frozenset[str] = frozenset({"tsdf"})
FINE_GRAINED_MAX = 4

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ThreadDecision:
    """What :func:`cpu_threads` chose for one step: ``threads`` (None = leave torch's setting) and why."""

    step: str
    threads: int | None
    reason: str
    cpus: int = 0
    others_busy: float = 0.0
    spin_wait: bool = True


# ------------------------------------------------------------------------------------------ facts


def wait_policy_at_import() -> None:
    """Called by ``smrnb/__init__``: make libgomp's waiting threads sleep instead of spinning, while
    that can still take effect (torch not loaded) and nobody chose otherwise."""
    if "torch" in sys.modules or any(v in os.environ for v in WAIT_VARS):
        return
    if os.environ.get(ENV_WAIT, "").strip().lower() in KEEP_WORDS:
        return
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"


def runtime_spins(environ: dict[str, str] | None = None) -> bool:
    """Whether the OpenMP runtime's idle threads spin (no passive policy, no small spin count)."""
    env = os.environ if environ is None else environ
    if env.get("OMP_WAIT_POLICY", "").strip().upper() == "PASSIVE":
        return False
    try:
        if int(env.get("GOMP_SPINCOUNT", "-1")) == 0 or int(env.get("KMP_BLOCKTIME", "-1")) == 0:
            return False
    except ValueError:
        pass
    return True


def allowed_cpus() -> set[int] | None:
    """The CPU numbers this process may run on (``sched_getaffinity``), or None where that is unknown."""
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def affinity_cpus() -> int:
    """CPUs this process may run on (``sched_getaffinity``), else ``os.cpu_count()``."""
    cpus = allowed_cpus()
    return max(1, len(cpus) if cpus is not None else os.cpu_count() or 1)


def physical_cores(cpus: set[int] | None = None, root: Path = Path("/sys/devices/system/cpu")) -> int | None:
    """Physical cores among the allowed CPUs (sysfs topology), or None where unknown."""
    cpus = allowed_cpus() if cpus is None else cpus
    if cpus is None:
        return None
    cores = set()
    for c in cpus:
        try:
            topo = root / f"cpu{c}" / "topology"
            cores.add(((topo / "physical_package_id").read_text().strip(), (topo / "core_id").read_text().strip()))
        except OSError:
            return None
    return len(cores) or None


def parse_cpu_max(text: str) -> float | None:
    """CPUs allowed by a cgroup v2 ``cpu.max`` line (``"200000 100000"`` -> 2.0, ``"max 100000"`` -> None)."""
    parts = text.split()
    if len(parts) < 1 or parts[0] == "max":
        return None
    try:
        quota = float(parts[0])
        period = float(parts[1]) if len(parts) > 1 else 100000.0
    except ValueError:
        return None
    if quota <= 0 or period <= 0:
        return None
    return quota / period


def cgroup_cpus(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """CPUs the cgroup quota allows (v2 ``cpu.max`` or v1 ``cpu.cfs_quota_us``), or None (no quota)."""
    try:
        return parse_cpu_max((root / "cpu.max").read_text())
    except OSError:
        pass
    try:
        quota = float((root / "cpu" / "cpu.cfs_quota_us").read_text())
        period = float((root / "cpu" / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return quota / period if quota > 0 and period > 0 else None


def _procs_running(stat: Path) -> int | None:
    try:
        for line in stat.read_text().splitlines():
            if line.startswith("procs_running"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def others_busy(stat: Path = Path("/proc/stat"), samples: int = 4) -> float:
    """CPUs kept busy by other tasks now: runnable tasks (``procs_running`` of ``/proc/stat``, counting
    this thread, which is running while it reads) averaged over a few samples, minus this one; where
    that file is missing, the 1-minute load average minus one (it counts this process too)."""
    got: list[int] = []
    for k in range(samples):
        n = _procs_running(stat)
        if n is None:
            break
        got.append(n)
        if k + 1 < samples:
            time.sleep(SAMPLE_SECONDS / max(1, samples - 1))
    if got:
        return max(0.0, sum(got) / len(got) - 1.0)
    try:
        return max(0.0, os.getloadavg()[0] - 1.0)
    except (AttributeError, OSError):
        return 0.0


def busy_seconds(cpus: set[int] | None = None, stat: Path = Path("/proc/stat")) -> float | None:
    """CPU seconds the given CPUs (default: this process's affinity) have spent busy since boot:
    user, nice, system, irq, softirq and steal of their ``cpuN`` lines in ``/proc/stat`` (idle and
    iowait left out; guest time is already in user). None where the file or a line is missing."""
    if cpus is None:
        cpus = allowed_cpus()
    try:
        tick = float(os.sysconf("SC_CLK_TCK"))
    except (AttributeError, ValueError, OSError):
        tick = 100.0
    total = 0
    seen = 0
    try:
        for line in stat.read_text().splitlines():
            if not line.startswith("cpu") or line.startswith("cpu "):
                continue
            name, *vals = line.split()
            try:
                idx = int(name[3:])
            except ValueError:
                continue
            if cpus is not None and idx not in cpus:
                continue
            v = [int(x) for x in vals[:8]] + [0] * max(0, 8 - len(vals))
            total += v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
            seen += 1
    except (OSError, ValueError):
        return None
    if not seen or (cpus is not None and seen < len(cpus)):
        return None
    return total / tick


def others_busy_between(prev: tuple[float, float, float], now: tuple[float, float, float]) -> float | None:
    """CPUs other tasks kept busy between two readings ``(wall, busy_seconds, own_cpu_seconds)``: the
    allowed CPUs' busy time minus this process's own, over the wall time. None for a window shorter
    than a few clock ticks or older than :data:`MAX_WINDOW_SECONDS`."""
    dt = now[0] - prev[0]
    if not (0.2 <= dt <= MAX_WINDOW_SECONDS):
        return None
    return max(0.0, ((now[1] - prev[1]) - (now[2] - prev[2])) / dt)


# --------------------------------------------------------------------------------------- decision


def decide_threads(step: str, *, cpus: int, quota: float | None, others: float, spin_wait: bool,
                   env_value: str | None, current: int, torch_defaults: tuple[int, ...],
                   omp_env: str | None = None) -> ThreadDecision:
    """The thread count for one step, from the given facts (no I/O; see the module docstring).

    ``cpus``: CPUs in the affinity mask; ``quota``: CPUs the cgroup allows (None: no quota);
    ``others``: CPUs other tasks keep busy; ``spin_wait``: the OpenMP runtime spins;
    ``env_value``: ``SMRNB_NUM_THREADS``; ``current``: torch's thread count now; ``torch_defaults``:
    the counts that are torch's own default here (any other was set by the caller);
    ``omp_env``: ``OMP_NUM_THREADS``.
    """
    common = {"cpus": cpus, "others_busy": others, "spin_wait": spin_wait}
    if env_value is not None and env_value.strip():
        v = env_value.strip().lower()
        if v in KEEP_WORDS:
            return ThreadDecision(step, None, f"{ENV}={env_value}: torch's setting kept", **common)
        try:
            n = int(v)
        except ValueError:
            n = 0
        if n < 1:
            raise SmrnbValueError(f"{ENV} must be a whole number >= 1 or one of {', '.join(KEEP_WORDS)}, "
                                  f"got {env_value!r}")
        return ThreadDecision(step, n, f"{ENV}={n}", **common)
    if omp_env is not None and omp_env.strip():
        return ThreadDecision(step, None, f"OMP_NUM_THREADS={omp_env} set: torch's setting kept", **common)
    if current not in torch_defaults:
        return ThreadDecision(step, None, f"torch.set_num_threads({current}) by the caller: kept", **common)
    cap = cpus
    if quota is not None:
        cap = min(cap, max(1, math.floor(quota + 1e-9)))
    cap = max(1, cap)
    if spin_wait:
        n = cap if others < 0.5 else 1
        why = "spinning OpenMP runtime" + (", machine busy" if n == 1 and cap > 1 else ", machine idle")
    else:
        n = min(cap, max(1, int(cap - others + 0.5)))
        why = "sleeping OpenMP runtime"
        if step in FINE_GRAINED:
            n = max(1, min(FINE_GRAINED_MAX, n // 2))
            why += f", many small parallel regions (half the free CPUs, at most {FINE_GRAINED_MAX})"
    return ThreadDecision(step, n, f"{why}: {others:.1f} CPUs busy with other tasks of {cap} usable", **common)


# ---------------------------------------------------------------------------------------- runtime

_state = threading.local()
_lock = threading.Lock()
_cache: dict[str, Any] = {"t": -1e9, "others": 0.0, "reading": None}
_last: list[ThreadDecision] = []
_torch_default: list[int] = []


def note_torch_default() -> None:
    """Remember torch's thread count when smrnb's first heavy step runs."""
    import torch

    if not _torch_default:
        _torch_default.append(torch.get_num_threads())


def _others_cached() -> float:
    """Other tasks' load for the next step: the cached value for :data:`CACHE_SECONDS`, else from the
    busy time since the previous reading (no waiting), else sampled (:func:`others_busy`)."""
    now = time.monotonic()
    with _lock:
        if now - _cache["t"] < CACHE_SECONDS:
            return float(_cache["others"])
        prev = _cache["reading"]
    busy = busy_seconds()
    reading = None if busy is None else (now, busy, time.process_time())
    val = None if prev is None or reading is None else others_busy_between(prev, reading)
    if val is None:
        val = others_busy()
    with _lock:
        _cache.update(t=time.monotonic(), others=val, reading=reading)
    return val


def last_decision() -> ThreadDecision | None:
    """The decision of the latest outermost :func:`cpu_threads` block (None before the first)."""
    return _last[-1] if _last else None


@contextmanager
def cpu_threads(step: str) -> Iterator[ThreadDecision | None]:
    """Run the block with the policy's thread count for ``step``; restores torch's count on exit.

    Nested blocks (a pipeline step calling ``fuse_tsdf``) keep the outer block's choice.
    """
    if getattr(_state, "depth", 0):
        _state.depth += 1
        try:
            yield None
        finally:
            _state.depth -= 1
        return
    import torch

    note_torch_default()
    before = torch.get_num_threads()
    cpus = affinity_cpus()
    natural = {cpus, physical_cores() or cpus}
    d = decide_threads(step, cpus=cpus, quota=cgroup_cpus(), others=_others_cached(),
                       spin_wait=runtime_spins(), env_value=os.environ.get(ENV), current=before,
                       torch_defaults=tuple(natural & {_torch_default[0]}), omp_env=os.environ.get("OMP_NUM_THREADS"))
    _last[:] = [d]
    _state.depth = 1
    try:
        if d.threads is not None and d.threads != before:
            torch.set_num_threads(d.threads)
        yield d
    finally:
        _state.depth = 0
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


def cpu_step(step: str) -> Callable[[F], F]:
    """Decorator form of :func:`cpu_threads` for a public CPU-heavy function."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            with cpu_threads(step):
                return fn(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return wrap
