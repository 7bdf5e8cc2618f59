# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The doctor on every worker of a Dask cluster, and what differs between them.

:func:`diagnose_cluster` runs :func:`smrnb.doctor.diagnose` *inside each worker process* (through
``client.run``), so each report is that process's view of its node: its driver and GPUs, its
toolkit, its torch build, the ``LD_LIBRARY_PATH`` its loader started with, its kaolin. Workers with
the same view are grouped; :class:`ClusterReport` shows only the facts that differ between groups,
each next to the findings that explain it. ``smr-doctor cluster --scheduler ADDRESS`` prints it; in a
notebook it renders as one table.
"""

from __future__ import annotations

import html
import json
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from smrnb._errors import SmrnbTypeError
from smrnb.doctor import diagnose
from smrnb.doctor._model import DEFAULT_TIMEOUT

#: (label, layer, how to read it from that layer's facts): what a scheduler can make differ per node
COMPARED: tuple[tuple[str, str, Any], ...] = (
    ("driver", "driver", lambda f: f.get("driver_version") or f.get("status")),
    ("GPUs", "driver", lambda f: ", ".join(g.get("name", "?") for g in f.get("gpus") or []) or "none"),
    ("nvcc", "toolkit", lambda f: f"{f.get('build_nvcc_version')} ({f.get('build_nvcc')})" if f.get("build_nvcc")
     else "none"),
    ("CUDA_HOME", "toolkit", lambda f: f.get("cuda_home_env") or "unset"),
    ("torch", "torch", lambda f: (f"{f.get('version')} (CUDA {f['cuda']})" if f.get("cuda") else
                                  f"{f.get('version')} (CPU)") if f.get("installed") else "not installed"),
    ("LD_LIBRARY_PATH at start", "loader", lambda f: f.get("start_ld_library_path") or "unset"),
    ("kaolin", "kaolin", lambda f: (f"{f.get('version')}" if f.get("installed") else "not installed")
     + ("" if f.get("status") in (None, "ok", "absent") else f" ({f.get('status')})")),
    ("Python", "meta", lambda m: m.get("python")),
)


def _worker_report(layers: list[str] | None, timeout: float) -> dict[str, Any]:
    """Runs in a worker: the doctor's report of this process, plus the host's name."""
    rep = diagnose(layers=layers, timeout=timeout).to_dict()
    rep["host"] = socket.gethostname()
    return rep


def _view(rep: Mapping[str, Any]) -> dict[str, str]:
    facts = rep.get("facts") or {}
    out = {}
    for label, layer, read in COMPARED:
        src = (rep.get("meta") or {}) if layer == "meta" else facts.get(layer)
        if not src or src.get("status") == "unavailable":
            out[label] = "not read"  # a layer that was not asked for, or could not look
            continue
        try:
            out[label] = str(read(src))
        except Exception:  # facts of an unexpected shape: say so, never raise
            out[label] = "not read"
    return out


@dataclass
class WorkerGroup:
    workers: list[str]
    hosts: list[str]
    view: dict[str, str]
    findings: list[dict[str, Any]]

    def codes(self) -> set[str]:
        return {f["code"] for f in self.findings if f.get("severity") in ("error", "warning")}


@dataclass
class ClusterReport:
    """Workers grouped by identical views; :meth:`differences` are the facts that are not the same."""

    groups: list[WorkerGroup]
    failed: dict[str, str]

    def differences(self) -> list[tuple[str, list[str]]]:
        labels = [c[0] for c in COMPARED]
        return [(lab, [g.view.get(lab, "") for g in self.groups]) for lab in labels
                if len({g.view.get(lab) for g in self.groups}) > 1]

    def explaining(self) -> list[list[str]]:
        """Per group, the warnings/errors that this group has and some other group has not."""
        out = []
        for g in self.groups:
            others = set().union(*(h.codes() for h in self.groups if h is not g)) if len(self.groups) > 1 else set()
            own = [f for f in g.findings if f.get("severity") in ("error", "warning") and f["code"] not in others]
            out.append([f"{f['code']}: {f.get('title', '')}" for f in own])
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"groups": [{"workers": g.workers, "hosts": g.hosts, "view": g.view,
                            "findings": g.findings} for g in self.groups],
                "differences": dict(self.differences()), "failed": self.failed}

    def __str__(self) -> str:
        n = sum(len(g.workers) for g in self.groups)
        lines = [f"smr-doctor cluster: {n} worker(s) answered in {len(self.groups)} group(s) of identical views"]
        for i, g in enumerate(self.groups, 1):
            lines.append(f"  group {i}: {len(g.workers)} worker(s) on {', '.join(sorted(set(g.hosts)))}: "
                         + ", ".join(g.workers))
        diffs = self.differences()
        if not diffs:
            lines.append("every worker sees the same driver, GPUs, toolkit, torch, loader path and kaolin")
            same = self.groups[0].view if self.groups else {}
            lines += [f"  {k}: {v}" for k, v in same.items()]
        else:
            lines.append("what differs:")
            for lab, vals in diffs:
                lines.append(f"  {lab}: " + " | ".join(f"group {i}: {v}" for i, v in enumerate(vals, 1)))
            for i, why in enumerate(self.explaining(), 1):
                for w in why:
                    lines.append(f"  group {i} only: {w}")
        for w, err in self.failed.items():
            lines.append(f"  {w}: the doctor did not answer ({err})")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        e = html.escape
        head = "".join(f"<th>group {i} ({len(g.workers)} worker(s): {e(', '.join(sorted(set(g.hosts))))})</th>"
                       for i, g in enumerate(self.groups, 1))
        diffs = dict(self.differences())
        rows = []
        for lab, _layer, _ in COMPARED:
            vals = [g.view.get(lab, "") for g in self.groups]
            style = " style='background:#fff3cd'" if lab in diffs else ""
            rows.append(f"<tr{style}><th style='text-align:left'>{e(lab)}</th>"
                        + "".join(f"<td>{e(v)}</td>" for v in vals) + "</tr>")
        why = self.explaining()
        rows.append("<tr><th style='text-align:left'>findings only here</th>"
                    + "".join(f"<td>{'<br>'.join(e(w) for w in ws) or '-'}</td>" for ws in why) + "</tr>")
        fail = "".join(f"<div style='color:#b00020'>{e(w)}: {e(err)}</div>" for w, err in self.failed.items())
        return f"<table class='smrnb-cluster'><tr><th></th>{head}</tr>{''.join(rows)}</table>{fail}"


def group_reports(reports: Mapping[str, Mapping[str, Any]], failed: Mapping[str, str] | None = None) -> ClusterReport:
    """Group per-worker reports (``{worker address: report dict}``) by their views."""
    groups: dict[str, WorkerGroup] = {}
    for worker in sorted(reports):
        rep = reports[worker]
        view = _view(rep)
        key = json.dumps(view, sort_keys=True)
        g = groups.get(key)
        if g is None:
            g = groups[key] = WorkerGroup([], [], view, list(rep.get("findings") or []))
        g.workers.append(worker)
        g.hosts.append(str(rep.get("host", "?")))
    return ClusterReport(sorted(groups.values(), key=lambda g: (-len(g.workers), g.workers[0])), dict(failed or {}))


def diagnose_cluster(client: Any, *, layers: list[str] | None = None, timeout: float = DEFAULT_TIMEOUT) -> ClusterReport:
    """Run the doctor in every worker process of ``client`` (a ``distributed.Client``) and group them.

    Each worker's doctor cuts itself off after ``2 * timeout + 1`` seconds (:func:`diagnose`'s own
    deadline); a worker whose doctor fails is listed in ``failed`` with the reason, the others are
    still reported.
    """
    if not hasattr(client, "run") or not hasattr(client, "scheduler_info"):
        raise SmrnbTypeError(f"client must be a distributed.Client, got {type(client).__name__}")
    workers = list(client.scheduler_info().get("workers", {}))
    reports: dict[str, Any] = {}
    failed: dict[str, str] = {}
    if workers:
        try:
            # each worker's doctor cuts itself off after 2 * timeout + 1 s (diagnose's own deadline)
            out = client.run(_worker_report, layers, timeout, workers=workers, on_error="return", wait=True)
        except Exception as exc:  # the scheduler itself did not answer
            return ClusterReport([], {w: f"{type(exc).__name__}: {exc}" for w in workers})
        for w, rep in out.items():
            if isinstance(rep, BaseException):
                failed[w] = f"{type(rep).__name__}: {rep}"
            else:
                reports[w] = rep
    return group_reports(reports, failed)


__all__ = ["COMPARED", "ClusterReport", "WorkerGroup", "diagnose_cluster", "group_reports"]
