# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Many scans at once on ``dask.distributed``: one pipeline run per config file, one task per scan.

:func:`batch` (and ``smrnb batch CONFIG_OR_FOLDER... --output DIR``) submits each config (the files
the app saves and ``smrnb run`` reads) as a task to a Dask client: a ``LocalCluster`` by default, any
scheduler address, or a ``dask_jobqueue.SLURMCluster``'s client. Dask does the scheduling, retries
and the dashboard; this module adds what a reconstruction batch needs on top:

* **atomic outputs**: a task writes into ``DIR/.NAME.partial-<id>/`` and renames it to ``DIR/NAME/``
  only when the pipeline finished, with a ``smrnb-scan.json`` record inside. A worker killed mid-task
  leaves a ``.partial`` folder that is never taken for a result (and is removed by the next run);
* **re-runs skip** scans whose folder is complete and whose config (and smrnb version) did not change;
* **a failed scan is reported** with its error and does not stop the others;
* **GPU workers**: a scan on a CUDA device asks for one ``GPU`` worker resource, so a worker started
  with ``--resources GPU=1`` per card runs one TSDF volume at a time per card; ``gpus="all"`` starts
  one worker per GPU of this machine, each pinned to its card (:mod:`smrnb.pipeline._gpus`), and a scan
  whose card fails is sent to another card; each scan's record names the card that ran it;
* **progress**: a tqdm bar in a terminal (and the dashboard link), and the summary table (per scan:
  status, frames, blocks, vertices, faces, seconds, error) written as ``DIR/summary.csv`` and
  ``DIR/summary.md`` at the end.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import os
import shutil
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._extras import MissingExtraError, message, missing
from smrnb._files import atomic_write
from smrnb._version import __version__
from smrnb.pipeline._config import load_config
from smrnb.pipeline._gpus import GpuRetry, ScanGpuError, gpu_cluster, gpu_fault, gpu_label, held_gpu
from smrnb.pipeline._pipeline import Pipeline

RECORD = "smrnb-scan.json"
SUMMARY_COLUMNS = ("scan", "status", "gpu", "frames", "blocks", "vertices", "faces", "heldout_frames",
                   "heldout_median_mm", "heldout_coverage", "seconds", "outputs", "error")


@dataclass
class ScanResult:
    """One scan of a batch: ``status`` is ``done``, ``skipped`` (complete from an earlier run) or ``failed``."""

    scan: str
    config: str
    status: str
    folder: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float | None = None
    outputs: list[str] = field(default_factory=list)
    error: str | None = None
    #: the final mesh's depth error on the frames the source held out (``holdout: k``), else empty
    heldout: dict[str, Any] = field(default_factory=dict)
    #: the card that ran the scan (``"1: NVIDIA H200"``), else empty; ``(held; ran on cpu)`` when the scan
    #: held a GPU worker's card but its config ran it on the CPU
    gpu: str = ""
    #: the Dask worker that ran it
    worker: str = ""

    def row(self) -> dict[str, Any]:
        h = self.heldout
        med = h.get("median_abs_error")
        cov = h.get("coverage")
        return {"scan": self.scan, "status": self.status, "gpu": self.gpu, "frames": self.counts.get("frames", ""),
                "blocks": self.counts.get("blocks", ""), "vertices": self.counts.get("vertices", ""),
                "faces": self.counts.get("faces", ""), "heldout_frames": h.get("n_frames", ""),
                "heldout_median_mm": "" if med is None or med != med else f"{1000 * med:.2f}",
                "heldout_coverage": "" if cov is None or cov != cov else f"{cov:.3f}",
                "seconds": "" if self.seconds is None else f"{self.seconds:.2f}",
                "outputs": " ".join(self.outputs), "error": (self.error or "")[:300]}


@dataclass
class BatchResult:
    """Every scan's :class:`ScanResult`, in the order given, and where the summary was written."""

    scans: list[ScanResult]
    output: Path
    seconds: float

    @property
    def failed(self) -> list[ScanResult]:
        return [s for s in self.scans if s.status == "failed"]

    def table(self) -> str:
        """The summary as a markdown table."""
        head = "| " + " | ".join(SUMMARY_COLUMNS) + " |"
        rule = "|" + "---|" * len(SUMMARY_COLUMNS)
        rows = ["| " + " | ".join(str(r.row()[c]).replace("|", "/") for c in SUMMARY_COLUMNS) + " |"
                for r in self.scans]
        return "\n".join([head, rule, *rows])

    def _repr_markdown_(self) -> str:
        return self.table()

    def __str__(self) -> str:
        n = {s: sum(r.status == s for r in self.scans) for s in ("done", "skipped", "failed")}
        return (f"{len(self.scans)} scans in {self.seconds:.1f} s: {n['done']} done, {n['skipped']} skipped "
                f"(complete already), {n['failed']} failed; summary in {self.output / 'summary.md'}\n{self.table()}")


def find_configs(items: Iterable[str | os.PathLike]) -> list[Path]:
    """Config files from paths: a file as is, a folder's ``*.yaml`` / ``*.yml`` in name order."""
    out: list[Path] = []
    for item in items:
        p = Path(item).expanduser()
        if p.is_dir():
            found = sorted([*p.glob("*.yaml"), *p.glob("*.yml")])
            if not found:
                raise SmrnbValueError(f"configs: folder {os.fspath(p)!r} has no *.yaml or *.yml config files")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise SmrnbValueError(f"configs: {os.fspath(p)!r} is neither a config file nor a folder of them")
    if not out:
        raise SmrnbValueError("configs: give at least one config file or folder, got none")
    return out


def scan_names(configs: Sequence[Path]) -> list[str]:
    """One folder name per config: its stem, made unique with the parent folder's name when needed."""
    stems = [c.stem for c in configs]
    names = []
    for c, s in zip(configs, stems):
        name = s if stems.count(s) == 1 else f"{c.parent.name}-{s}"
        base, k = name, 2
        while name in names:
            name, k = f"{base}-{k}", k + 1
        names.append(name)
    return names


def config_key(config: Path) -> str:
    """What makes a finished scan reusable: the config's bytes, its resolved source and smrnb's version."""
    h = hashlib.sha256(config.read_bytes())
    h.update(os.fspath(config.resolve().parent).encode())
    h.update(__version__.encode())
    return h.hexdigest()[:20]


def completed(folder: Path, key: str) -> dict[str, Any] | None:
    """The record of a complete earlier run of this config in ``folder``, or None."""
    try:
        rec = json.loads((folder / RECORD).read_text())
    except (OSError, ValueError):
        return None
    if rec.get("key") != key or rec.get("status") != "done":
        return None
    return rec if all((folder / o).exists() for o in rec.get("outputs", [])) else None


def run_scan(config: str, name: str, output: str, key: str, device: str | None = None,
             gpus: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The task: run one config into ``output/name`` atomically; returns the scan's record.

    Runs on a Dask worker (or in this process). Raises on failure (Dask reports it); the partial
    folder is removed then, and a killed worker leaves only a ``.partial`` folder behind. A failure
    of the GPU itself (:func:`gpu_fault`) is raised as :class:`ScanGpuError` naming the worker and card.
    ``gpus``: the cluster's cards (:func:`gpu_cluster`'s ``smrnb_gpus``), else this node's are listed.
    """
    out_root = Path(output)
    final = out_root / name
    partial = out_root / f".{name}.partial-{uuid.uuid4().hex[:8]}"
    partial.mkdir(parents=True)
    t0, started = time.perf_counter(), time.time()
    dev = None
    try:
        cfg = load_config(config)
        dev = device or cfg.get("device") or _worker_device()
        pipe = Pipeline(cfg["steps"], source=cfg.get("source"), device=dev, output_dir=partial)
        pipe.run()
        card = _scan_gpu(dev, gpus)
        counts: dict[str, int] = {}
        for rec in pipe.records:
            for k, v in rec.counts_after.items():
                counts[k] = v  # the last stage that reports a count wins (vertices of the final mesh)
            if rec.kind_out == "frames" or "frames" in rec.counts_before:
                counts.setdefault("frames", rec.counts_before.get("frames", rec.counts_after.get("frames", 0)))
        held = pipe.heldout_error()
        heldout = {} if held is None else {k: v for k, v in held.items() if k != "per_frame"}
        outputs = sorted(os.path.relpath(p, partial) for p in partial.rglob("*") if p.is_file())
        record = {"scan": name, "config": config, "key": key, "status": "done", "counts": counts,
                  "heldout": heldout,
                  "seconds": time.perf_counter() - t0, "outputs": outputs, "device": str(dev or "cpu"),
                  "gpu": card["label"], "gpu_card": card["row"], "worker": _worker_name(),
                  "started": started, "finished": time.time(),
                  "steps": [r.to_dict() for r in pipe.records]}
        (partial / RECORD).write_text(json.dumps(record, indent=1, default=str))
        old = out_root / f".{name}.old-{uuid.uuid4().hex[:8]}"
        if final.exists():
            os.replace(final, old)
        os.replace(partial, final)
        shutil.rmtree(old, ignore_errors=True)
        return record
    except BaseException as exc:
        shutil.rmtree(partial, ignore_errors=True)
        why = gpu_fault(exc) if isinstance(exc, Exception) else None
        if why is None:
            raise
        card = _scan_gpu(dev, gpus)
        raise ScanGpuError(f"{type(exc).__name__}: {exc}", _worker_address(), card["label"], why) from exc


def _scan_gpu(dev: Any, table: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The card a scan used: torch's ``cuda:0`` when it ran on CUDA, else the card its worker is pinned to
    (``label`` says it held it but ran on the CPU). Never raises: an unknown card is an empty label."""
    on_cuda = str(dev or "").startswith("cuda")
    try:
        uuid = None
        if on_cuda:
            import torch

            if torch.cuda.is_initialized():
                uuid = str(getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "uuid", "") or "")
        row = held_gpu(table, torch_uuid=uuid or None)
    except Exception:  # an odd driver or binding: the scan's result matters more than its label
        row = None
    label = gpu_label(row)
    if label and not on_cuda:
        label += f" (held; ran on {dev or 'cpu'})"
    return {"label": label, "row": row}


def _worker_address() -> str | None:
    try:
        from distributed import get_worker

        return get_worker().address
    except Exception:  # run in this process, not on a worker
        return None


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().name)
    except Exception:  # run in this process, not on a worker
        return ""


def _worker_device() -> str | None:
    """A worker given a ``GPU`` resource uses CUDA (its ``CUDA_VISIBLE_DEVICES`` picks the card)."""
    try:
        from distributed import get_worker

        res = get_worker().state.total_resources
    except Exception:
        return None
    return "cuda" if res.get("GPU") else None


def _clean_partials(output: Path, names: Iterable[str]) -> None:
    for name in names:
        for p in list(output.glob(f".{name}.partial-*")) + list(output.glob(f".{name}.old-*")):
            shutil.rmtree(p, ignore_errors=True)


def batch(configs: Iterable[str | os.PathLike], output: str | os.PathLike, *, client: Any = None,
          local: int = 2, device: str | None = None, gpu: bool = False, retries: int = 1,
          force: bool = False, progress: Any = True, gpus: Any = None) -> BatchResult:
    """Run every config as one task on a Dask cluster; see the module docstring.

    Parameters
    ----------
    configs : paths
        Config files, or folders of them (``*.yaml`` / ``*.yml``).
    output : path
        One folder per scan is made under it, plus ``summary.csv`` and ``summary.md``.
    client : distributed.Client, optional
        Where to run; default: a ``LocalCluster`` of ``local`` single-threaded workers, closed at the end.
    device : str, optional
        ``"cpu"`` or ``"cuda"`` for every scan (default: the config's, else the worker's).
    gpu : bool
        Each scan asks for one ``GPU`` worker resource (workers started with ``--resources GPU=1``).
    gpus : "all", int or list, optional
        Run on one worker per GPU of this machine instead of ``local`` CPU workers: ``"all"``, the first N,
        or indices / UUIDs (:func:`smrnb.pipeline.gpu_cluster`); scans run on CUDA (unless ``device`` says
        otherwise), one per card at a time, and a scan whose card fails is run on another card.
    retries : int
        Times Dask re-runs a scan whose worker died (a killed worker, out of memory).
    force : bool
        Run every scan even when its folder is complete from an earlier run of the same config.
    progress : bool or listener
        True: a tqdm bar (in a terminal or a notebook) and the dashboard link; False: quiet. Or an
        object with ``start(scans)`` and ``update(scan)`` methods, called with :class:`ScanResult`
        records (``status`` ``queued`` before a scan finishes) as scans finish: the notebook table
        :class:`smrnb.widgets.BatchTable` is one.
    """
    t0 = time.perf_counter()
    paths = find_configs([configs] if isinstance(configs, (str, os.PathLike)) else configs)
    if not isinstance(local, int) or isinstance(local, bool) or local < 1:
        raise SmrnbValueError(f"local must be an int >= 1 (workers), got {local!r}")
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise SmrnbValueError(f"retries must be an int >= 0, got {retries!r}")
    if device not in (None, "cpu", "cuda"):
        raise SmrnbValueError(f"device must be 'cpu' or 'cuda', got {device!r}")
    if gpus is not None and client is not None:
        raise SmrnbValueError("gpus starts its own cluster of one worker per GPU; with client=, give the client of "
                              "smrnb.pipeline.gpu_cluster(...) (or of workers started with --resources GPU=1) instead")
    out = Path(output).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    if not os.access(out, os.W_OK):
        raise SmrnbValueError(f"output {os.fspath(out)!r} is not writable")
    for p in paths:  # a bad config is refused before anything is submitted
        load_config(p)
    names = scan_names(paths)
    _clean_partials(out, names)
    results: dict[str, ScanResult] = {}
    todo = []
    for p, name in zip(paths, names):
        key = config_key(p)
        rec = None if force else completed(out / name, key)
        if rec is not None:
            results[name] = ScanResult(name, os.fspath(p), "skipped", os.fspath(out / name), rec.get("counts", {}),
                                       rec.get("seconds"), rec.get("outputs", []), heldout=rec.get("heldout", {}),
                                       gpu=rec.get("gpu") or "", worker=rec.get("worker") or "")
        else:
            todo.append((p, name, key))
    listener = None if isinstance(progress, bool) or progress is None else progress
    if listener is not None and not (callable(getattr(listener, "start", None))
                                     and callable(getattr(listener, "update", None))):
        raise SmrnbTypeError(f"progress must be True, False or an object with start(scans) and update(scan) "
                             f"methods, got {type(progress).__name__}")
    if listener is not None:
        listener.start([results.get(name) or ScanResult(name, os.fspath(p), "queued")
                        for p, name in zip(paths, names)])
    show = progress is True
    own = None
    if todo:
        if missing("cluster"):
            raise MissingExtraError(message("smrnb.batch", "cluster", missing("cluster")))
        from distributed import Client, LocalCluster, as_completed

        if client is None and gpus is not None:
            own = client = Client(gpu_cluster(gpus))
            device = device or "cuda"
        elif client is None:
            cluster = LocalCluster(n_workers=local, threads_per_worker=1, processes=True, dashboard_address=None)
            own = client = Client(cluster)
        elif not isinstance(client, Client):
            raise SmrnbTypeError(f"client must be a distributed.Client, got {type(client).__name__}")
        try:
            link = getattr(client, "dashboard_link", None)
            if show and link:
                print(f"smrnb batch: Dask dashboard {link}", flush=True)
            extra = {"resources": {"GPU": 1}} if gpu or gpus is not None or device == "cuda" else {}
            table = getattr(getattr(client, "cluster", None), "smrnb_gpus", None)

            def submit(p: Path, name: str, key: str, **where: Any) -> Any:
                return client.submit(run_scan, os.fspath(p.resolve()), name, os.fspath(out.resolve()), key, device,
                                     table, key=f"smrnb-scan-{name}-{uuid.uuid4().hex[:6]}", retries=retries,
                                     pure=False, **extra, **where)

            futures = {submit(p, name, key): (p, name, key) for p, name, key in todo}
            gpu_retry = GpuRetry(client)
            bar = _bar(len(futures), show)
            finished = as_completed(futures)
            for fut in finished:
                p, name, key = futures[fut]
                try:
                    rec = fut.result()
                    results[name] = ScanResult(name, os.fspath(p), "done", os.fspath(out / name), rec["counts"],
                                               rec["seconds"], rec["outputs"], heldout=rec.get("heldout", {}),
                                               gpu=rec.get("gpu") or "", worker=rec.get("worker") or "")
                except Exception as exc:
                    again = gpu_retry.retry(name, exc, functools.partial(submit, p, name, key)) \
                        if isinstance(exc, ScanGpuError) else None
                    if again is not None:  # the card failed, not the scan: run it on another card
                        futures[again] = (p, name, key)
                        finished.add(again)
                        continue
                    results[name] = ScanResult(name, os.fspath(p), "failed", None, error=gpu_retry.message(name, exc),
                                               gpu=getattr(exc, "gpu", None) or "")
                bar.update(1)
                bar.set_postfix_str(f"{name}: {results[name].status}")
                if listener is not None:
                    listener.update(results[name])
            bar.close()
        finally:
            if own is not None:
                cluster = own.cluster
                own.close()
                cluster.close()
        _clean_partials(out, names)
    res = BatchResult([results[n] for n in names], out, time.perf_counter() - t0)
    write_summary(res)
    return res


def _bar(total: int, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="smrnb batch", unit="scan", disable=not enabled)


def write_summary(res: BatchResult) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(SUMMARY_COLUMNS))
    w.writeheader()
    for r in res.scans:
        w.writerow(r.row())
    for name, text in (("summary.csv", buf.getvalue()), ("summary.md", res.table() + "\n")):
        atomic_write(res.output / name, text)


__all__ = ["BatchResult", "ScanResult", "batch", "find_configs", "gpu_cluster", "run_scan"]
