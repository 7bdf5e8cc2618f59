# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""What a stage did: :class:`StepResult` records, the counts they carry and the CLI's summary table."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrnb._errors import format_bytes


def count(kind: str, data: Any) -> dict[str, int]:
    """Sizes of ``data`` of ``kind`` for result records: points, voxels, vertices/faces, frames."""
    if data is None:
        return {}
    if kind == "frames":
        return {"frames": len(data)}
    if kind == "points":
        pts = getattr(data, "points", data)
        return {"points": int(pts.shape[0]) if hasattr(pts, "shape") else len(pts)}
    if kind in ("mesh", "textured_mesh"):
        out = {"vertices": int(data.vertices.shape[0]), "faces": int(data.faces.shape[0])}
        tex = getattr(data, "texture", None)
        if tex is not None:
            out["texels"] = int(tex.shape[0] * tex.shape[1])
        return out
    if kind in ("voxels", "tsdf"):
        return _count_volume(data)
    if kind == "file":
        p = Path(data)
        return {"bytes": p.stat().st_size} if p.is_file() else {}
    return {}


def _count_volume(data: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for attr, key in (("num_occupied", "voxels"), ("num_voxels", "voxels"), ("num_blocks", "blocks")):
        v = getattr(data, attr, None)
        if callable(v):
            v = v()
        if v is not None and key not in out:
            out[key] = int(v)
    if "voxels" not in out:
        grid = None
        for attr in ("occupancy", "grid", "data"):
            g = getattr(data, attr, None)
            if g is not None and hasattr(g, "count_nonzero"):
                grid = g
                break
        if grid is None and hasattr(data, "count_nonzero"):
            grid = data
        if grid is not None:
            out["voxels"] = int(grid.count_nonzero())
    return out


def device_of(data: Any) -> str:
    """The device ``data`` (a tensor, or Frames / PointCloud / Mesh) lives on, ``"cpu"`` when it has none."""
    for obj in (data, getattr(data, "depth", None), getattr(data, "points", None),
                getattr(data, "vertices", None)):
        dev = getattr(obj, "device", None)
        if dev is not None and not callable(dev):
            return str(dev)
    return "cpu"


def backend_for(device: str) -> str:
    return "torch CUDA" if device.startswith("cuda") else "torch CPU"


def counts_text(c: Mapping[str, int]) -> str:
    return ", ".join(f"{v:,} {k}" for k, v in c.items()) or "-"


@dataclass
class StepResult:
    """What one stage did: counts before/after, time, backend and device, notes and warnings.

    ``counts_before`` / ``counts_after`` map a unit (``points``, ``voxels``, ``vertices``,
    ``faces``, ``frames``, ``bytes``) to a count. ``backend`` is ``kaolin``, ``torch CPU`` or
    ``torch CUDA`` (or what the step reported); ``seconds`` is wall time of the function call and
    ``cpu_seconds`` the process CPU time it used (all threads; on a busy shared machine the wall
    time grows but this does not). ``view_seconds`` is the time a widget then spent showing the
    result (converting it for the viewer and sending it), so ``waited_seconds`` is what the person
    at the widget waited for this stage. ``error`` is set (and ``ok`` false) when the stage failed.
    """

    step: str
    kind_in: str
    kind_out: str
    counts_before: dict[str, int]
    counts_after: dict[str, int]
    seconds: float
    backend: str
    device: str
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    cpu_seconds: float | None = None
    view_seconds: float | None = None
    #: what the stage was estimated to cost before it ran (``Estimate.to_dict()``), when it was estimated
    estimate: dict[str, Any] | None = None
    #: the long lists behind the notes (shown folded under "show all" in HTML, left out of the text form)
    details: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def waited_seconds(self) -> float:
        """The step's own time plus the time spent showing its result (when it was shown)."""
        return self.seconds + (self.view_seconds or 0.0)

    def _time_text(self, digits: int) -> str:
        t = f"{self.seconds:.{digits}f} s"
        if self.view_seconds is not None:
            t += f" + {self.view_seconds:.{digits}f} s to show = {self.waited_seconds:.{digits}f} s waited"
        return t

    def __str__(self) -> str:
        head = (f"{self.step:<14} {counts_text(self.counts_before)} -> "
                + (counts_text(self.counts_after) if self.ok else "FAILED")
                + f"  {self._time_text(2)}" + (f" (cpu {self.cpu_seconds:.2f} s)" if self.cpu_seconds is not None else "")
                + f"  [{self.backend}, {self.device}]")
        lines = [head]
        lines += [f"    note: {n}" for n in self.notes]
        lines += [f"    warning: {w}" for w in self.warnings]
        if self.error:
            lines.append(f"    error: {self.error}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        e = html.escape
        status = ("<span style='color:#b00020'>failed</span>" if not self.ok
                  else "<span style='color:#0a7d32'>ok</span>")
        rows = [("step", e(self.step) + f" ({e(self.kind_in)} &rarr; {e(self.kind_out)}) " + status),
                ("before", e(counts_text(self.counts_before))),
                ("after", e(counts_text(self.counts_after)) if self.ok else "-"),
                ("time", self._time_text(3)),
                ("backend", e(f"{self.backend} on {self.device}"))]
        rows += [("note", e(n)) for n in self.notes]
        if self.details:
            rows.append(("details", "<details><summary>show all</summary>"
                         + "".join(f"<div style='white-space:normal'>{e(d)}</div>" for d in self.details)
                         + "</details>"))
        rows += [("warning", f"<span style='color:#a15c00'>{e(w)}</span>") for w in self.warnings]
        if self.estimate:
            est = self.estimate
            rows.append(("estimate", e(f"about {est['seconds']:.3g} s and {format_bytes(est['bytes'])} before the run; "
                                       f"it took {self.seconds:.3g} s")
                         + f"<details><summary>how</summary>{e(str(est['basis']))}</details>"))
        if self.error:
            rows.append(("error", f"<pre style='color:#b00020;white-space:pre-wrap;margin:0'>{e(self.error)}</pre>"))
        body = "".join(f"<tr><th style='text-align:left;padding-right:1em'>{k}</th><td>{v}</td></tr>"
                       for k, v in rows)
        return f"<table class='smrnb-step-result'>{body}</table>"

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("step", "kind_in", "kind_out", "counts_before", "counts_after",
                                              "seconds", "cpu_seconds", "view_seconds", "backend", "device",
                                              "notes", "details", "warnings", "error", "estimate")}


def format_results(results: Iterable[StepResult], source: str | None = None) -> str:
    """The summary table printed by the CLI: the source line, one line per stage plus notes, the steps' total time."""
    results = list(results)
    lines = ([source] if source else []) + [str(r) for r in results]
    cpu = [r.cpu_seconds for r in results if r.cpu_seconds is not None]
    lines.append(f"{'steps total':<14} {sum(r.seconds for r in results):.2f} s"
                 + (f" (cpu {sum(cpu):.2f} s)" if cpu else ""))
    return "\n".join(lines)
