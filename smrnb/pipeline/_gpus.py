# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Every GPU of a node at work: one Dask worker per card, pinned with ``CUDA_VISIBLE_DEVICES``.

:func:`gpu_cluster` starts one single-threaded worker process per selected GPU of this machine. Each
worker's ``CUDA_VISIBLE_DEVICES`` names its card (by UUID: the same card whatever order CUDA numbers
them in), so torch calls that card ``cuda:0`` in that worker and sees no other, and each worker offers
one ``GPU`` resource: every scan asks for it, so a card never holds two TSDF volumes at once. The
engine is dask-cuda's ``LocalCUDACluster`` when it is installed (it also binds each worker to the CPU
cores near its card), else a ``distributed`` cluster of ``Nanny`` workers given the same environment
and resources; both are ``distributed`` clusters that ``Client`` takes.

The cards come from :func:`smrnb.doctor.list_gpus` (NVML, else ``nvidia-smi``), limited to those this
process's own ``CUDA_VISIBLE_DEVICES`` lets it use (CUDA's rule: the entries up to the first that names
no card), so a Slurm job given two of a node's eight GPUs starts two workers.

A scan whose card fails (a CUDA error that names the device or its driver: an uncorrectable ECC error,
a lost GPU, out of memory, a busy exclusive-mode card; see :func:`gpu_fault`) raises
:class:`ScanGpuError` with the worker and card it ran on; :class:`GpuRetry` sends it to a worker it has
not failed on yet, and no later scan is sent to a worker whose card failed.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.doctor import list_gpus, tables

#: finding codes of CUDA / NVML errors that a scan may not meet on another card (or another node):
#: the card, its driver or its memory failed, not the scan's data
GPU_FAULT_CODES = frozenset({"gpu_hardware_fault", "gpu_busy_exclusive", "cuda_oom", "gpu_not_exposed_to_process",
                             "no_gpu", "driver_broken", "gpu_watchdog_timeout", "cuda_mps_failure",
                             "fabric_manager_not_running"})
_OOM = re.compile(r"\bOutOfMemoryError\b|CUDA out of memory|CUDA error: out of memory|CUDA_ERROR_OUT_OF_MEMORY")
ENGINES = ("auto", "dask-cuda", "local")

Lister = Callable[[], dict[str, Any]]


class ScanGpuError(RuntimeError):
    """A scan failed because of its GPU: ``reason`` (the CUDA error), ``worker`` (the Dask worker's address)
    and ``gpu`` (the card's label, ``"1: NVIDIA H200"``)."""

    def __init__(self, message: str, worker: str | None = None, gpu: str | None = None, reason: str = "") -> None:
        super().__init__(message, worker, gpu, reason)
        self.message, self.worker, self.gpu, self.reason = message, worker, gpu, reason

    def __str__(self) -> str:
        return self.message


def gpu_label(row: dict[str, Any] | None) -> str:
    """``"1: NVIDIA H200"`` (the card's index on its node and its name), or ``""``."""
    if not row:
        return ""
    return f"{row.get('index', '?')}: {row.get('name') or 'GPU'}"


def _rows(lister: Lister | None) -> list[dict[str, Any]]:
    listed = (lister or list_gpus)()
    if not isinstance(listed, dict) or not isinstance(listed.get("gpus"), list):
        raise SmrnbTypeError(f"lister must return a dict with a 'gpus' list (smrnb.doctor.list_gpus' shape), "
                             f"got {type(listed).__name__}")
    return [g for g in listed["gpus"] if isinstance(g, dict)]


def _matches(entry: str, row: dict[str, Any]) -> bool:
    """Does one ``CUDA_VISIBLE_DEVICES`` entry name this card? An index, or a UUID or its unique prefix."""
    entry = entry.strip()
    if entry.isdigit():
        return row.get("index") == int(entry)
    uuid = str(row.get("uuid") or "")
    return bool(entry) and bool(uuid) and uuid.lower().startswith(entry.lower()) and len(entry) >= 8


def visible(rows: list[dict[str, Any]], value: str | None) -> list[dict[str, Any]]:
    """The cards of ``rows`` a process with ``CUDA_VISIBLE_DEVICES=value`` may use, in that order.

    Unset: all. CUDA's rule otherwise: the entries in order up to the first that names no card (so ``""``,
    ``"-1"`` or ``"NoDevFiles"`` leave none), each card once.
    """
    if value is None:
        return list(rows)
    out: list[dict[str, Any]] = []
    for entry in value.split(","):
        hit = [r for r in rows if _matches(entry, r)]
        if len(hit) != 1 or hit[0] in out:
            break
        out.append(hit[0])
    return out


def select_gpus(gpus: Any, *, lister: Lister | None = None, environ: dict[str, str] | None = None
                ) -> list[dict[str, Any]]:
    """The cards ``gpus`` names among those this process may use.

    ``gpus``: ``"all"``; an int ``N`` (the first N); or a list (or comma-separated string) of indices as
    ``nvidia-smi`` numbers them and UUIDs (``GPU-...``). Each card once: two workers on one card would put
    two TSDF volumes on it.
    """
    env = os.environ if environ is None else environ
    rows = visible(_rows(lister), env.get("CUDA_VISIBLE_DEVICES"))
    hidden = "" if env.get("CUDA_VISIBLE_DEVICES") is None else \
        f" (CUDA_VISIBLE_DEVICES={env.get('CUDA_VISIBLE_DEVICES')!r} limits this process to them)"
    if not rows:
        raise SmrnbValueError(f"gpus: this machine has no GPU this process may use{hidden}; the GPUs are read "
                              f"with NVML, else nvidia-smi (smr-doctor check --layer driver says why)")
    names = ", ".join(gpu_label(r) for r in rows)
    if isinstance(gpus, str) and gpus.strip().lower() == "all":
        return rows
    if isinstance(gpus, bool) or gpus is None:
        raise SmrnbTypeError(f"gpus must be 'all', a number of GPUs or a list of GPU indices/UUIDs, got {gpus!r}")
    if isinstance(gpus, int):
        if not 1 <= gpus <= len(rows):
            raise SmrnbValueError(f"gpus must be between 1 and {len(rows)} (the GPUs here: {names}){hidden}, "
                                  f"got {gpus}")
        return rows[:gpus]
    items = [s.strip() for s in gpus.split(",")] if isinstance(gpus, str) else list(gpus) \
        if isinstance(gpus, Sequence) else None
    if not items:
        raise SmrnbValueError(f"gpus must be 'all', a number of GPUs or a list of GPU indices/UUIDs, got {gpus!r}")
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise SmrnbTypeError(f"gpus: each GPU is an index or a UUID, got {item!r}")
        hit = [r for r in rows if _matches(str(item), r)]
        if len(hit) != 1:
            raise SmrnbValueError(f"gpus: {item!r} names no GPU this process may use (the GPUs here: {names})"
                                  f"{hidden}")
        if hit[0] in out:
            raise SmrnbValueError(f"gpus: {item!r} names GPU {gpu_label(hit[0])} twice; one worker per card "
                                  f"(a card holds one TSDF volume at a time)")
        out.append(hit[0])
    return out


def pin_env(row: dict[str, Any]) -> dict[str, str]:
    """The environment that pins a worker to ``row``'s card: its UUID (else its index, counted in PCI
    bus order as nvidia-smi counts) in ``CUDA_VISIBLE_DEVICES``."""
    return {"CUDA_VISIBLE_DEVICES": str(row.get("uuid") or row.get("index")), "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}


def _engine(engine: str) -> str:
    if engine not in ENGINES:
        raise SmrnbValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "local":
        return engine
    try:
        import dask_cuda  # noqa: F401
    except Exception as exc:  # not installed, or built for another dask: the plain cluster does the same job
        if engine == "dask-cuda":
            raise SmrnbValueError(f"engine 'dask-cuda': dask_cuda does not import here ({type(exc).__name__}: "
                                  f"{exc}); pip install dask-cuda, or use engine='local'") from None
        return "local"
    return "dask-cuda"


def gpu_cluster(gpus: Any = "all", *, engine: str = "auto", lister: Lister | None = None,
                memory_limit: Any = "auto") -> Any:
    """A Dask cluster of one worker process per GPU, each pinned to its card; see the module docstring.

    Parameters
    ----------
    gpus : "all", int or list
        Which cards (:func:`select_gpus`).
    engine : {"auto", "dask-cuda", "local"}
        ``dask_cuda.LocalCUDACluster`` (``auto`` when it imports), or ``distributed`` workers with the same
        pinning and resources.
    lister : callable, optional
        Returns the node's GPUs in :func:`smrnb.doctor.list_gpus`' shape (tests give a fabricated machine).
    memory_limit : str or int
        Host memory per worker (default: the machine's memory shared evenly).

    Returns
    -------
    distributed.SpecCluster
        With ``smrnb_gpus``: the cards' rows in worker order, and ``smrnb_engine``. Close it (or use it as
        a context manager) when done; ``distributed.Client(cluster)`` connects.
    """
    rows = select_gpus(gpus, lister=lister)
    kind = _engine(engine)
    from distributed import Nanny, Scheduler, SpecCluster
    from distributed.system import MEMORY_LIMIT

    mem = MEMORY_LIMIT // len(rows) if memory_limit == "auto" else memory_limit
    if kind == "dask-cuda":
        from dask_cuda import LocalCUDACluster

        cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES=[str(r.get("uuid") or r.get("index")) for r in rows],
                                   n_workers=len(rows), threads_per_worker=1, memory_limit=mem,
                                   dashboard_address=None, resources={"GPU": 1})
    else:
        workers = {f"gpu{r.get('index')}": {"cls": Nanny, "options": {
            "nthreads": 1, "memory_limit": mem, "resources": {"GPU": 1}, "env": pin_env(r), "host": "127.0.0.1"}}
            for r in rows}
        scheduler = {"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard": False}}
        cluster = SpecCluster(workers=workers, scheduler=scheduler, name="smrnb-gpus", silence_logs=logging.WARNING)
    cluster.smrnb_gpus = rows
    cluster.smrnb_engine = kind
    return cluster


def held_gpu(table: list[dict[str, Any]] | None = None, *, torch_uuid: str | None = None,
             environ: dict[str, str] | None = None) -> dict[str, Any] | None:
    """The card this process works on: the one torch's ``cuda:0`` reports (``torch_uuid``) when known, else
    the first entry of ``CUDA_VISIBLE_DEVICES``; matched in ``table`` (default: this node's list)."""
    env = os.environ if environ is None else environ
    first = (env.get("CUDA_VISIBLE_DEVICES") or "").split(",")[0].strip()
    if not first and not torch_uuid:
        return None
    rows = table if table is not None else _rows(None)
    if torch_uuid:
        key = torch_uuid.strip().lower().removeprefix("gpu-")
        for r in rows:
            if str(r.get("uuid") or "").lower().removeprefix("gpu-") == key:
                return r
    hit = [r for r in rows if first and _matches(first, r)]
    return hit[0] if len(hit) == 1 else None


def gpu_fault(exc: BaseException) -> str | None:
    """Why ``exc`` (or an exception it was raised from) is a fault of the GPU rather than of the scan: the
    CUDA / NVML error it names (``cudaErrorECCUncorrectable: uncorrectable ECC error encountered``), or
    None. The classes come from the doctor's tables of every ``cudaError_t``, ``CUresult`` and
    ``nvmlReturn_t``."""
    texts, seen = [], set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen and len(seen) < 20:
        seen.add(id(e))
        texts.append(f"{type(e).__name__}: {e}")
        e = e.__cause__ or e.__context__
    text = "\n".join(texts)
    if _OOM.search(text):
        return "CUDA out of memory"
    for row in tables.enum_rows_in_text(text):
        if GPU_FAULT_CODES.intersection(row.codes):
            return f"{row.name}: {row.message}"
    return None


class GpuRetry:
    """Sends a scan that failed with :class:`ScanGpuError` to a GPU worker it has not failed on. A worker
    whose card had a hardware or driver fault gets no resubmitted scan; out of memory only keeps that one
    scan off that card (a smaller scan may still fit)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.bad: dict[str, str] = {}  # worker address -> the card's label and fault
        self.failed_on: dict[str, set[str]] = {}  # scan -> workers it failed on
        self.tried: dict[str, list[str]] = {}  # scan -> "label (fault)" per failed attempt

    def gpu_workers(self) -> list[str]:
        info = self.client.scheduler_info().get("workers", {})
        return [w for w, d in info.items() if (d.get("resources") or {}).get("GPU")]

    def retry(self, scan: str, exc: ScanGpuError, submit: Callable[..., Any]) -> Any | None:
        """Record the fault; return ``submit(workers=[...], allow_other_workers=False)`` on the GPU workers
        left for this scan, or None when there is none."""
        if exc.worker:
            self.failed_on.setdefault(scan, set()).add(exc.worker)
            if exc.reason != "CUDA out of memory":
                self.bad[exc.worker] = f"{exc.gpu or exc.worker}: {exc.reason}"
        self.tried.setdefault(scan, []).append(f"{exc.gpu or exc.worker} ({exc.reason})")
        left = [w for w in self.gpu_workers() if w not in self.bad and w not in self.failed_on.get(scan, ())]
        if not left:
            return None
        return submit(workers=left, allow_other_workers=False)

    def message(self, scan: str, exc: BaseException) -> str:
        """The failed scan's error: with every card it failed on when it met GPU faults."""
        tried = "; ".join(self.tried.get(scan) or [])
        if isinstance(exc, ScanGpuError):
            return f"ScanGpuError: {exc} (GPUs tried: {tried}; no other GPU worker left)"
        return f"{type(exc).__name__}: {exc}" + (f" (after GPU faults on {tried})" if tried else "")


__all__ = ["ENGINES", "GPU_FAULT_CODES", "GpuRetry", "ScanGpuError", "gpu_cluster", "gpu_fault", "gpu_label",
           "held_gpu", "pin_env", "select_gpus", "visible"]
