# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Collect: run every layer's probe and gather the facts.

Each layer ``L`` of :data:`smrnb.doctor._model.LAYERS` has a module
``smrnb.doctor.probes.<PROBE_MODULES[L]>`` exposing ``probe(ctx) -> dict``. :func:`collect` runs
them concurrently in waves ordered by :data:`DEPENDS` (a probe reads ``ctx.facts`` of the layers
it depends on, complete before it starts; a hanging tool in one layer delays no other) and wraps
every one: an exception, a missing module, a result that is not a dict, or a probe still running when
the overall deadline passes all become ``{"status": "unavailable", "reason": ...}``. Nothing here
raises. Every layer's facts get ``elapsed_s`` (float, seconds of wall time the probe took).

Secrets are removed here (and again by every renderer): :mod:`smrnb.doctor._redact` decides,
by name (``*TOKEN*``, ``*SECRET*``, ``*KEY*``, ``*PASSWORD*``...) and by value (URL userinfo,
token shapes, the values of secret-named variables), see :func:`sanitize`.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Iterable
from typing import Any

from smrnb._errors import SmrnbValueError
from smrnb.doctor._model import LAYERS, MAX_TIMEOUT, ProbeContext, unavailable
from smrnb.doctor._redact import _sanitize, secret_values

#: layer -> probe module name under ``smrnb.doctor.probes``
PROBE_MODULES: dict[str, str] = {
    "driver": "_driver",
    "torch": "_torch_build",
    "toolkit": "_toolkit",
    "loader": "_loader",
    "abi": "_abi",
    "kaolin": "_kaolin",
    "jupyter": "_jupyter",
    "context": "_context",
}

#: layers whose facts a layer's probe reads (collected first even when not asked for). Probes
#: run concurrently in waves: a probe sees ``ctx.facts`` of exactly these layers (and earlier waves).
DEPENDS: dict[str, tuple[str, ...]] = {
    "driver": (),
    "torch": (),
    "toolkit": (),
    "loader": ("torch",),
    "abi": ("driver", "torch", "loader"),
    "kaolin": ("driver", "torch", "toolkit"),
    "jupyter": (),
    "context": (),
}

#: layers whose facts a layer's *rules* read (collected too, concurrently, not shown): e.g. the driver is
#: compared with every nvcc a build would use, whatever torch is installed
RULE_NEEDS: dict[str, tuple[str, ...]] = {
    "driver": ("torch", "toolkit", "context"),  # context: CUDA_VISIBLE_DEVICES, a Slurm job, a container
    "torch": ("driver",),
    "toolkit": ("driver", "torch", "kaolin"),  # kaolin: (blind audit 36, C-L4) whether kaolin is to be built from source
    # (blind audit 36) an extension's plain C names that nothing defines are the loader's finding: the abi probe reads
    # its symbols (`--layer loader` alone reported nothing of an `undefined symbol` import failure)
    # (round 38d, issue 25) a missing CUDA library's reading (not found, or a binary of another CUDA) compares its major
    # with this environment's CUDA majors (rules/_events.py's cuda_majors: torch's build and every nvcc): without the
    # toolkit's facts `--layer loader` (or abi, whose run shows the loader's findings) read a libcudart.so.11.0 missing
    # beside a CUDA 13 toolkit as not found, where `explain` of the same error text read it as a binary of another CUDA
    "loader": ("abi", "toolkit"),
    "abi": ("toolkit",),
}

#: seconds the import check (``import torch`` / ``import torch, kaolin`` in subprocesses) may take, on
#: top of the static layers' deadline: the import alone took 9-10 s on an H200 with kaolin
IMPORT_CHECK_BUDGET = 60.0


def import_check_budget(timeout: float) -> float:
    """Seconds of the import-check phase for a per-command ``timeout``: at least 60 s."""
    t = float(timeout)
    return max(IMPORT_CHECK_BUDGET, t) if t == t and t < 1e6 else IMPORT_CHECK_BUDGET


def default_deadline(timeout: float) -> float:
    """Overall seconds allowed for one :func:`collect` given the per-command ``timeout``."""
    t = float(timeout)
    if not 0 < t <= MAX_TIMEOUT:  # nan / inf / negative from a hand-built context: a bounded deadline
        t = MAX_TIMEOUT if t > MAX_TIMEOUT else 5.0
    return max(2.0, 2.0 * t + 1.0)


def expand_layers(layers: Iterable[str] | None) -> tuple[list[str], list[str]]:
    """``(wanted, to_run)``: the layers asked for and those to run (with dependencies), in order.

    Raises ``SmrnbValueError`` for an unknown layer name.
    """
    if layers is None:
        return list(LAYERS), list(LAYERS)
    if isinstance(layers, str):
        layers = [layers]
    wanted_set = set()
    for layer in layers:
        if layer not in LAYERS:
            raise SmrnbValueError(f"layers must be a subset of {list(LAYERS)}, got {layer!r}")
        wanted_set.add(layer)
    run_set = set(wanted_set)
    for layer in wanted_set:
        run_set.update(RULE_NEEDS.get(layer, ()))
    stack = list(run_set)
    while stack:
        for dep in DEPENDS[stack.pop()]:
            if dep not in run_set:
                run_set.add(dep)
                stack.append(dep)
    return [ly for ly in LAYERS if ly in wanted_set], [ly for ly in LAYERS if ly in run_set]


def _start(module_name: str, ctx: ProbeContext) -> tuple[threading.Thread, dict[str, Any]]:
    """Start one probe in a daemon thread; ``box`` gets ``result`` and ``t_done`` when it ends."""
    box: dict[str, Any] = {"t0": time.perf_counter()}

    def target() -> None:
        try:
            box["result"] = _call_probe(module_name, ctx)
        finally:
            box["t_done"] = time.perf_counter()

    th = threading.Thread(target=target, name=f"smrnb-probe-{module_name}", daemon=True)
    th.start()
    return th, box


def _call_probe(module_name: str, ctx: ProbeContext) -> Any:
    try:
        mod = importlib.import_module(f"smrnb.doctor.probes.{module_name}")
    except ModuleNotFoundError as exc:
        return unavailable(f"probe module smrnb.doctor.probes.{module_name} is missing ({exc.name})")
    except Exception as exc:  # a broken probe module must not take the report down
        return unavailable(f"probe module failed to import: {type(exc).__name__}: {exc}")
    fn = getattr(mod, "probe", None)
    if not callable(fn):
        return unavailable(f"smrnb.doctor.probes.{module_name} has no probe(ctx) function")
    try:
        return fn(ctx)
    except BaseException as exc:  # probes must never take the doctor down
        return unavailable(f"probe raised {type(exc).__name__}: {exc}")


def _finish(th: threading.Thread, box: dict[str, Any], t_end: float, total: float) -> dict[str, Any]:
    """Wait for a started probe until ``t_end`` (monotonic); validate what it returned."""
    th.join(max(0.0, t_end - time.monotonic()))
    if th.is_alive():
        return unavailable(f"probe did not finish within the doctor's overall deadline ({total:.1f} s); cut off")
    res = box.get("result")
    if not isinstance(res, dict):
        return unavailable(f"probe returned {type(res).__name__}, not a dict")
    res = dict(res)
    res.setdefault("status", "ok")
    if res["status"] not in ("ok", "absent", "broken", "unavailable"):
        res = unavailable(f"probe returned an unknown status {res['status']!r}", probe_result=res)
    return res


def _waves(to_run: list[str], have: set[str]) -> list[list[str]]:
    """Group layers so each wave only needs (from :data:`DEPENDS`) layers of earlier waves."""
    waves: list[list[str]] = []
    done = set(have)
    pending = [ly for ly in to_run if ly not in have]
    while pending:
        ready = [ly for ly in pending if all(d in done or d not in to_run for d in DEPENDS[ly])]
        if not ready:  # a dependency cycle cannot happen with DEPENDS; run the rest in order
            ready = pending[:1]
        waves.append(ready)
        done.update(ready)
        pending = [ly for ly in pending if ly not in ready]
    return waves


def collect(ctx: ProbeContext | None = None, layers: Iterable[str] | None = None,
            deadline: float | None = None) -> dict[str, dict[str, Any]]:
    """Run the probes of ``layers`` (default all, in ``LAYERS`` order) and return their facts.

    Parameters
    ----------
    ctx : ProbeContext, optional
        The machine to look at (default: this process). ``ctx.facts`` is filled as probes run.
    layers : iterable of str, optional
        Layers wanted; layers they depend on (:data:`DEPENDS`) run too but are not returned.
    deadline : float, optional
        Overall wall-clock seconds for all probes (default :func:`default_deadline` of
        ``ctx.timeout``). A probe still running when it passes is reported unavailable.

    Returns
    -------
    dict
        ``{layer: facts}`` for the wanted layers, each facts dict JSON-able, with ``status`` and
        ``elapsed_s``; secrets removed.
    """
    ctx = ctx if ctx is not None else ProbeContext()
    wanted, to_run = expand_layers(layers)
    total = default_deadline(ctx.timeout) if deadline is None else float(deadline)
    if not 0 <= total < 1e6:  # nan / inf: a bounded deadline
        total = default_deadline(ctx.timeout)
    imports = bool(ctx.import_check)
    if imports:
        ctx.imports_deferred = True  # static layers first; the imports get a phase of their own below
    secrets = secret_values(ctx.environ, ctx.start_environ)
    t_end = time.monotonic() + total
    have = {ly for ly in to_run if ly in ctx.facts and ly not in wanted}
    for wave in _waves(to_run, have):
        started = {}
        for layer in wave:
            if time.monotonic() >= t_end:
                continue
            started[layer] = _start(PROBE_MODULES[layer], ctx)
        results = {}
        for layer in wave:
            if layer not in started:
                res, elapsed = unavailable(f"skipped: the doctor's overall deadline ({total:.1f} s) had passed"), 0.0
            else:
                th, box = started[layer]
                res = _finish(th, box, t_end, total)
                elapsed = box.get("t_done", time.perf_counter()) - box["t0"]
            try:
                res = _sanitize(res, secrets)
            except Exception as exc:  # facts that cannot be walked are not shown
                res = unavailable(f"facts could not be sanitized: {type(exc).__name__}: {exc}")
            res["elapsed_s"] = round(elapsed, 4)
            results[layer] = res
        ctx.facts.update(results)  # a wave's facts become visible to the next wave only
    if imports:
        _import_phase(ctx, to_run, secrets)
    return {layer: ctx.facts[layer] for layer in wanted}


def _import_phase(ctx: ProbeContext, to_run: list[str], secrets: list[str]) -> None:
    """Import torch (its arch list, ABI flag, ``cuda.is_available()``) and kaolin in subprocesses,
    concurrently, within :func:`import_check_budget`; after the static layers, so a slow import never
    cuts them off. Never raises; results go into ``ctx.facts["torch"]`` / ``ctx.facts["kaolin"]``."""
    budget = import_check_budget(ctx.timeout)
    jobs: dict[str, Any] = {}
    tf, kf = ctx.facts.get("torch") or {}, ctx.facts.get("kaolin") or {}
    if "torch" in to_run and tf.get("installed") and not tf.get("imported"):
        from smrnb.doctor.probes._torch_build import _subprocess_torch_facts

        jobs["torch"] = lambda: _subprocess_torch_facts(ctx, timeout=budget)
    if "kaolin" in to_run and kf.get("installed"):
        from smrnb.doctor.probes._kaolin import import_check

        jobs["kaolin"] = lambda: import_check(ctx, timeout=budget)
    boxes: dict[str, dict[str, Any]] = {}
    threads = []
    for name, fn in jobs.items():
        box: dict[str, Any] = {"t0": time.perf_counter()}

        def target(fn: Any = fn, box: dict[str, Any] = box) -> None:
            try:
                box["result"] = fn()
            except BaseException as exc:  # never take the doctor down
                box["result"] = {"import_error": f"import check raised {type(exc).__name__}: {exc}"}
            box["t1"] = time.perf_counter()

        th = threading.Thread(target=target, name=f"smrnb-import-{name}", daemon=True)
        th.start()
        boxes[name] = box
        threads.append(th)
    t_end = time.monotonic() + budget + 2.0
    for th in threads:
        th.join(max(0.0, t_end - time.monotonic()))
    for name, box in boxes.items():
        seconds = round(box.get("t1", time.perf_counter()) - box["t0"], 3)
        res = box.get("result")
        try:
            if name == "torch":
                from smrnb.doctor.probes._torch_build import merge_live_facts

                live = res if isinstance(res, dict) else {"import_error": f"did not finish within {budget:g} s"}
                facts = dict(ctx.facts["torch"])
                merge_live_facts(facts, live)
                facts["import_check"] = True
                facts["import_check_s"] = seconds
                ctx.facts["torch"] = _sanitize(facts, secrets)
            else:
                facts = dict(ctx.facts["kaolin"])
                facts["import_check"] = res if isinstance(res, dict) else {
                    "ok": False, "seconds": seconds, "error": f"import did not finish within {budget:g} s"}
                ctx.facts["kaolin"] = _sanitize(facts, secrets)
        except Exception as exc:  # facts that cannot be merged are reported, not raised
            ctx.facts[name] = dict(ctx.facts.get(name) or {},
                                   import_check_error=f"{type(exc).__name__}: {exc}")
