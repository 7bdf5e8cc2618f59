# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The one memory budget: what a single step may allocate, asked before every large allocation.

``memory_budget(device)`` is ``SMRNB_MEMORY_BUDGET`` (bytes) when set, else ``FRACTION`` of what
is free now: on a GPU the driver's free memory; on the host the least of ``MemAvailable``, the
cgroup's limit minus its usage (v2 ``memory.max``/``memory.current``, v1
``memory.limit_in_bytes``/``memory.usage_in_bytes``) and the address-space limit
(``RLIMIT_AS``) minus the process' current virtual size. A process under ``ulimit -v`` or in a
container is refused before it allocates instead of being killed or crashing.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

from smrnb._errors import MemoryEstimateError, SmrnbValueError, format_bytes

#: share of the free memory one step may take
FRACTION = 0.8
ENV = "SMRNB_MEMORY_BUDGET"


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text or text == "max":
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _cgroup_free(root: Path = Path("/sys/fs/cgroup")) -> int | None:
    """Limit minus usage of this process' memory cgroup (v2 or v1), or None when unlimited."""
    rel = ""
    try:
        for line in Path("/proc/self/cgroup").read_text(encoding="ascii").splitlines():
            parts = line.split(":", 2)
            if len(parts) == 3 and (parts[0] == "0" or "memory" in parts[1].split(",")):
                rel = parts[2].lstrip("/")
                if parts[0] == "0":
                    break
    except OSError:
        pass
    for base in ([root / rel, root] if rel else [root]):
        lim, use = _read_int(base / "memory.max"), _read_int(base / "memory.current")  # v2
        if lim is None:
            lim, use = (_read_int(base / "memory" / "memory.limit_in_bytes"),
                        _read_int(base / "memory" / "memory.usage_in_bytes"))  # v1
        if lim is not None and lim < (1 << 60):  # v1 "unlimited" is a huge number
            return max(0, lim - (use or 0))
    return None


def _rlimit_free() -> int | None:
    """RLIMIT_AS minus the current virtual size, or None when unlimited."""
    try:
        import resource  # Unix only: elsewhere there is no address-space limit to read

        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    vm = 0
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmSize:"):
                vm = int(line.split()[1]) * 1024
                break
    except (OSError, ValueError):
        pass
    return max(0, soft - vm)


def _host_available() -> int:
    avail = None
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if avail is None:
        try:
            avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            avail = 8 << 30
    return avail


def memory_budget(device: torch.device | str = "cpu") -> int:
    """Bytes one step may allocate on ``device`` now (see the module docstring)."""
    env = os.environ.get(ENV, "").strip()
    if env:
        try:
            value = int(float(env))
        except ValueError:
            raise SmrnbValueError(f"{ENV} must be a number of bytes, got {env!r}") from None
        if value <= 0:
            raise SmrnbValueError(f"{ENV} must be a positive number of bytes, got {env!r}")
        return value
    device = torch.device(device)
    if device.type == "cuda":
        try:
            free, _total = torch.cuda.mem_get_info(device)
        except RuntimeError:  # pragma: no cover - a broken CUDA context
            return 4 << 30
        return int(FRACTION * free)
    free = [_host_available()]
    for extra in (_cgroup_free(), _rlimit_free()):
        if extra is not None:
            free.append(extra)
    return int(FRACTION * min(free))


def require(estimate: int, device: torch.device | str, what: str, knob: str, hint: str,
            budget: int | None = None, *, detail: str = "", limit: str = "the memory budget") -> None:
    """Raise :class:`MemoryEstimateError` when ``estimate`` bytes exceed ``budget`` (default
    :func:`memory_budget` of ``device``): the one place a step refuses for memory.

    The message reads ``{what} would need about {estimate} ({detail}) on {device}, over {limit} of
    {budget}; {hint}``; ``knob`` names the parameter to turn (``"a/b"`` for either of two).
    """
    budget = memory_budget(device) if budget is None else int(budget)
    if estimate > budget:
        raise MemoryEstimateError(
            f"{what} would need about {format_bytes(estimate)}{f' ({detail})' if detail else ''} on "
            f"{torch.device(device)}, over {limit} of {format_bytes(budget)}; {hint}",
            estimate_bytes=int(estimate), budget_bytes=budget, knob=knob)


__all__ = ["memory_budget", "require", "FRACTION", "ENV"]
