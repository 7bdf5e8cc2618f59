# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The doctor on every worker of a Dask cluster, and what differs between them.

:func:`diagnose_cluster` runs :func:`smrnb.doctor.diagnose` *inside each worker process* (through
``client.run``), so each report is that process's view of its node: its driver and GPUs, its
toolkit, its torch build, the ``LD_LIBRARY_PATH`` its loader started with, its kaolin. Workers with
the same view are grouped; :class:`ClusterReport` shows only the facts that differ between groups,
each next to the findings that explain it. Below them, every GPU of every node gets a row (index,
name, UUID, PCI bus id, driver, compute capability and arch, total and free memory) with the workers
whose torch sees it: a worker pinned to one card with ``CUDA_VISIBLE_DEVICES`` sees that card as
``cuda:0`` and no other. ``smr-doctor cluster --scheduler ADDRESS`` prints it; in a notebook it renders
as tables.
"""

from __future__ import annotations

import html
import json
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from smrnb._errors import SmrnbTypeError
from smrnb.doctor import diagnose
from smrnb.doctor._model import DEFAULT_TIMEOUT, ProbeContext
from smrnb.doctor.probes._driver import gpu_rows, match_torch, torch_gpus

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


def node_gpus(timeout: float = DEFAULT_TIMEOUT, *, use_nvml: bool = True) -> dict[str, Any]:
    """This process's view of its node's GPUs: every card's row (:func:`gpu_rows`) with ``torch_sees`` /
    ``torch_index`` (asked of torch in a subprocess with this process's ``CUDA_VISIBLE_DEVICES``), the
    torch answer's ``status`` / ``reason``, and ``CUDA_VISIBLE_DEVICES`` itself. Never raises."""
    try:
        ctx = ProbeContext(timeout=float(timeout))
        listed = gpu_rows(ctx, use_nvml=use_nvml)
        rows = listed.get("gpus") or []
        seen = torch_gpus(ctx) if rows else {"status": "not_asked", "devices": []}
        torch = {k: seen[k] for k in ("status", "available", "version", "cuda", "reason") if k in seen}
        return {"status": listed.get("status"), "source": listed.get("source"), "reason": listed.get("reason"),
                "gpus": match_torch(rows, seen), "torch": torch,
                "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
    except Exception as exc:  # never raise out of a worker's doctor
        return {"status": "unavailable", "reason": f"{type(exc).__name__}: {exc}", "gpus": [], "torch": {}}


def _worker_report(layers: list[str] | None, timeout: float) -> dict[str, Any]:
    """Runs in a worker: the doctor's report of this process, its node's GPUs (when the driver layer is asked
    for), the host's and worker's names."""
    rep = diagnose(layers=layers, timeout=timeout).to_dict()
    rep["host"] = socket.gethostname()
    if not layers or "driver" in layers:  # the per-GPU rows belong to the driver layer (and ask torch: seconds)
        rep["node_gpus"] = node_gpus(timeout)
    try:
        from distributed import get_worker

        rep["worker_name"] = str(get_worker().name)
    except Exception:  # run outside a worker (tests, a plain process)
        pass
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
class NodeGpus:
    """One node's GPUs as its workers saw them: each card's row with ``seen_by`` (the workers whose torch
    sees it, with the ``cuda:N`` index torch gives it there), each worker's ``CUDA_VISIBLE_DEVICES``, and
    what could not be read (``problems``)."""

    host: str
    gpus: list[dict[str, Any]] = field(default_factory=list)
    workers: dict[str, str | None] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def notes(self) -> list[str]:
        """Cards that two workers share (two scans may run on them at once) or that no worker uses."""
        out = []
        if not any(g.get("torch_asked") for g in self.gpus):
            return out
        for g in self.gpus:
            who = [s["worker"] for s in g["seen_by"]]
            if len(who) > 1:
                out.append(f"GPU {g.get('index')} is seen by {len(who)} workers ({', '.join(who)}): they share it")
            elif not who and g.get("torch_asked"):
                out.append(f"GPU {g.get('index')} is seen by no worker's torch")
        return out


def _gib(v: Any) -> str:
    return f"{v / 2**30:.1f} GiB" if isinstance(v, int) else "?"


def _gpu_cells(g: dict[str, Any]) -> list[str]:
    """index, name, UUID, bus id, driver, capability (arch), total, free, torch on."""
    cc = g.get("compute_capability")
    seen = ", ".join(f"{s['worker']} (cuda:{s['torch_index']})" for s in g.get("seen_by") or [])
    return [str(g.get("index")), str(g.get("name") or "?"), str(g.get("uuid") or "?"), str(g.get("pci_bus_id") or "?"),
            str(g.get("driver_version") or "?"), f"{cc} ({g.get('arch')})" if cc else "?",
            _gib(g.get("memory_total_bytes")), _gib(g.get("memory_free_bytes")),
            seen or ("no worker" if g.get("torch_asked") else "not asked")]


GPU_COLUMNS = ("GPU", "name", "UUID", "bus id", "driver", "compute capability (arch)", "memory", "free",
               "torch sees it on")


def node_table(reports: Mapping[str, Mapping[str, Any]]) -> list[NodeGpus]:
    """Per host, the GPUs its workers listed (merged by UUID), with the workers whose torch sees each."""
    nodes: dict[str, NodeGpus] = {}
    for w in sorted(reports):
        rep = reports[w]
        ng = rep.get("node_gpus")
        if not isinstance(ng, Mapping):
            continue
        host = str(rep.get("host", "?"))
        label = f"{rep['worker_name']} ({w})" if rep.get("worker_name") not in (None, "", w) else w
        node = nodes.setdefault(host, NodeGpus(host))
        node.workers[label] = ng.get("cuda_visible_devices")
        if ng.get("status") not in ("ok", "absent"):
            node.problems.append(f"{label}: the GPUs could not be listed ({ng.get('reason') or ng.get('status')})")
        torch = ng.get("torch") or {}
        asked = torch.get("status") == "ok"
        if ng.get("gpus") and not asked:
            node.problems.append(f"{label}: torch was not asked which GPUs it sees "
                                 f"({torch.get('reason') or torch.get('status') or 'no answer'})")
        by_key = {g["_key"]: g for g in node.gpus}
        for r in ng.get("gpus") or []:
            if not isinstance(r, Mapping):
                continue
            key = r.get("uuid") or f"index {r.get('index')}"
            row = by_key.get(key)
            if row is None:
                row = by_key[key] = {**{k: v for k, v in r.items() if k not in ("torch_sees", "torch_index")},
                                     "_key": key, "seen_by": [], "torch_asked": False}
                node.gpus.append(row)
            row["torch_asked"] = row["torch_asked"] or asked
            if r.get("torch_sees"):
                row["seen_by"].append({"worker": label, "torch_index": r.get("torch_index")})
    for node in nodes.values():
        node.gpus.sort(key=lambda g: (g.get("index") if isinstance(g.get("index"), int) else 1 << 30, g["_key"]))
        for g in node.gpus:
            g.pop("_key", None)
    return [nodes[h] for h in sorted(nodes)]


@dataclass
class ClusterReport:
    """Workers grouped by identical views; :meth:`differences` are the facts that are not the same;
    ``nodes`` has every GPU of every node and the workers that see it."""

    groups: list[WorkerGroup]
    failed: dict[str, str]
    nodes: list[NodeGpus] = field(default_factory=list)

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
                "differences": dict(self.differences()), "failed": self.failed,
                "nodes": [{"host": n.host, "gpus": n.gpus, "workers": n.workers, "problems": n.problems,
                           "notes": n.notes()} for n in self.nodes]}

    def gpu_lines(self) -> list[str]:
        """The per-node GPU rows as text."""
        lines = []
        for n in self.nodes:
            lines.append(f"GPUs of {n.host}: {len(n.gpus) or 'none listed'}; workers there: "
                         + ", ".join(f"{w} (CUDA_VISIBLE_DEVICES={v if v is not None else 'unset'})"
                                     for w, v in n.workers.items()))
            for g in n.gpus:
                c = _gpu_cells(g)
                lines.append(f"  GPU {c[0]}: {c[1]}, {c[2]}, bus {c[3]}, driver {c[4]}, compute capability {c[5]}, "
                             f"{c[6]} ({c[7]} free); torch sees it on: {c[8]}")
            lines += [f"  note: {x}" for x in n.notes()]
            lines += [f"  {x}" for x in n.problems]
        return lines

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
        return "\n".join(lines + self.gpu_lines())

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
        return f"<table class='smrnb-cluster'><tr><th></th>{head}</tr>{''.join(rows)}</table>{fail}{self._gpus_html()}"

    def _gpus_html(self) -> str:
        e = html.escape
        out = []
        for n in self.nodes:
            head = "".join(f"<th style='text-align:left'>{e(c)}</th>" for c in GPU_COLUMNS)
            body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in _gpu_cells(g)) + "</tr>" for g in n.gpus)
            extra = "".join(f"<div style='color:#9a6700'>{e(x)}</div>" for x in n.notes() + n.problems)
            out.append(f"<div><b>GPUs of {e(n.host)}</b><table class='smrnb-cluster-gpus'><tr>{head}</tr>{body}"
                       f"</table>{extra}</div>")
        return "".join(out)


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
    return ClusterReport(sorted(groups.values(), key=lambda g: (-len(g.workers), g.workers[0])), dict(failed or {}),
                         node_table(reports))


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


__all__ = ["COMPARED", "ClusterReport", "NodeGpus", "WorkerGroup", "diagnose_cluster", "group_reports", "node_gpus",
           "node_table"]
