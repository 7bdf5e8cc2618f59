# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A notebook table of a batch's scans, updated as they finish: status, the GPU that ran it, time, counts, a
thumbnail.

``BatchTable`` is a progress listener for :func:`smrnb.batch` (``progress=table``): the batch calls
``start`` with every scan (``queued``, or ``skipped`` when complete from an earlier run) and
``update`` as each one finishes. A finished scan's mesh file (GLB / OBJ / PLY from its export step)
is drawn as a thumbnail with the same software renderer that gives viewers their static pictures.
In a live front end the table is an ipywidget that changes in place; elsewhere (nbconvert, docs)
it is an HTML table with the thumbnails inline.
"""

from __future__ import annotations

import base64
import html
import os
from pathlib import Path
from typing import Any

from smrnb._errors import SmrnbValueError
from smrnb.widgets._display import StaticOutput, live_frontend, widget_bundle
from smrnb.widgets._framing import fit_camera_pose
from smrnb.widgets._layers import layers_for
from smrnb.widgets._static import render_png

COLUMNS = ("", "scan", "status", "GPU", "seconds", "frames", "vertices", "faces", "held-out error", "note")
MESH_SUFFIXES = (".glb", ".gltf", ".ply", ".obj", ".off", ".stl")
STATUS_COLOURS = {"queued": "#777777", "done": "#1a7f37", "skipped": "#0969da", "failed": "#cf222e"}


def thumbnail_png(path: str | os.PathLike, width: int = 128, height: int = 96) -> bytes:
    """A small PNG of the mesh in ``path`` (software renderer, fitted camera)."""
    from smrnb.geometry import load_mesh

    mesh = load_mesh(path)
    layers = layers_for(mesh)
    cam = fit_camera_pose([layer.positions for layer in layers], fov=45.0, aspect=width / height)
    cam["fov"] = 45.0
    return render_png(layers, cam, width, height)


def _mesh_output(scan: Any) -> Path | None:
    if not scan.folder:
        return None
    for o in scan.outputs:
        if o.lower().endswith(MESH_SUFFIXES):
            return Path(scan.folder) / o
    return None


def _cells(scan: Any) -> list[str]:
    """The text of every column but the thumbnail, for one scan."""
    row = scan.row()
    held = ""
    if row["heldout_median_mm"] != "":
        held = f"{row['heldout_median_mm']} mm median ({row['heldout_frames']} frames, " \
               f"{100 * float(row['heldout_coverage']):.0f} % covered)" if row["heldout_coverage"] != "" \
            else f"{row['heldout_median_mm']} mm median"
    note = (scan.error or "")[:160] if scan.status == "failed" else \
        ("complete from an earlier run" if scan.status == "skipped" else "")
    return [scan.scan, scan.status, getattr(scan, "gpu", "") or "", row["seconds"], str(row["frames"]), str(row["vertices"]), str(row["faces"]),
            held, note]


class BatchTable(StaticOutput):
    """Live table of a batch; pass it as ``progress=`` to :func:`smrnb.batch`, or call :meth:`run`.

    Parameters
    ----------
    thumbnails : bool
        Draw each finished scan's mesh (about 0.1-0.5 s per scan, in this process).
    thumb_size : (int, int)
        Thumbnail width and height in pixels.

    Examples
    --------
    >>> table = BatchTable()                                     # doctest: +SKIP
    >>> result = table.run(["scans/"], output="out", local=2)     # doctest: +SKIP
    """

    def __init__(self, *, thumbnails: bool = True, thumb_size: tuple[int, int] = (128, 96)) -> None:
        if (not isinstance(thumb_size, (tuple, list)) or len(thumb_size) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and 16 <= v <= 1024 for v in thumb_size)):
            raise SmrnbValueError(f"thumb_size must be (width, height), ints in [16, 1024], got {thumb_size!r}")
        self.thumbnails = bool(thumbnails)
        self.thumb_size = (int(thumb_size[0]), int(thumb_size[1]))
        self.scans: dict[str, Any] = {}
        self.pngs: dict[str, bytes] = {}
        self.thumb_errors: dict[str, str] = {}
        self._rows: dict[str, tuple[Any, list[Any]]] = {}
        self._box: Any = None
        self._header: Any = None

    # ------------------------------------------------------------------------ listener protocol
    def start(self, scans: list[Any]) -> None:
        """Every scan of the batch, before any task runs (``queued`` or ``skipped``)."""
        self.scans = {s.scan: s for s in scans}
        self._rows.clear()
        for s in scans:
            if s.status in ("done", "skipped"):
                self._thumb(s)
        if self._box is not None:
            self._build()
        self._update_static()

    def update(self, scan: Any) -> None:
        """One scan finished (``done`` or ``failed``)."""
        self.scans[scan.scan] = scan
        if scan.status in ("done", "skipped"):
            self._thumb(scan)
        if self._box is not None:
            if scan.scan in self._rows:
                self._fill(scan)
            else:
                self._build()
        self._update_static()

    def _thumb(self, scan: Any) -> None:
        if not self.thumbnails:
            return
        path = _mesh_output(scan)
        if path is None or not path.is_file():
            return
        try:
            self.pngs[scan.scan] = thumbnail_png(path, *self.thumb_size)
        except Exception as exc:  # a thumbnail never stops the table (the scan itself is done)
            self.thumb_errors[scan.scan] = f"{type(exc).__name__}: {exc}"[:200]

    # ------------------------------------------------------------------------------------ views
    def summary(self) -> str:
        n: dict[str, int] = {}
        for s in self.scans.values():
            n[s.status] = n.get(s.status, 0) + 1
        return ", ".join(f"{v} {k}" for k, v in sorted(n.items())) or "no scans yet"

    def to_html(self) -> str:
        """The table as self-contained HTML (thumbnails inline)."""
        w, h = self.thumb_size
        head = "".join(f"<th style='text-align:left;padding:2px 8px'>{html.escape(c)}</th>" for c in COLUMNS)
        rows = []
        for s in self.scans.values():
            png = self.pngs.get(s.scan)
            img = (f"<img width='{w}' height='{h}' src='data:image/png;base64,"
                   f"{base64.b64encode(png).decode('ascii')}'/>") if png else ""
            cells = _cells(s)
            colour = STATUS_COLOURS.get(s.status, "#000")
            tds = [f"<td>{img}</td>"] + [
                f"<td style='padding:2px 8px{';color:' + colour if i == 1 else ''}'>{html.escape(c)}</td>"
                for i, c in enumerate(cells)]
            rows.append("<tr>" + "".join(tds) + "</tr>")
        return (f"<div><b>smrnb batch</b>: {html.escape(self.summary())}<table><tr>{head}</tr>"
                + "".join(rows) + "</table></div>")

    @property
    def widget(self) -> Any:
        """The live ipywidgets table (built on first use, then updated in place)."""
        if self._box is None:
            import ipywidgets as ipw

            self._header = ipw.HTML()
            self._box = ipw.VBox()
            self._build()
        return self._box

    def _build(self) -> None:
        import ipywidgets as ipw

        w, h = self.thumb_size
        widths = [f"{w + 8}px", "14em", "6em", "12em", "6em", "6em", "7em", "7em", "18em", "20em"]
        head = [ipw.HTML(f"<b>{html.escape(c)}</b>", layout=ipw.Layout(width=widths[i]))
                for i, c in enumerate(COLUMNS)]
        lines = [ipw.HBox(head)]
        self._rows = {}
        for s in self.scans.values():
            image = ipw.Image(format="png", width=w, height=h, layout=ipw.Layout(width=widths[0]))
            cells = [ipw.HTML(layout=ipw.Layout(width=widths[i + 1])) for i in range(len(COLUMNS) - 1)]
            self._rows[s.scan] = (image, cells)
            lines.append(ipw.HBox([image, *cells]))
            self._fill(s)
        self._box.children = [self._header, *lines]
        self._header.value = f"<b>smrnb batch</b>: {html.escape(self.summary())}"

    def _fill(self, scan: Any) -> None:
        image, cells = self._rows[scan.scan]
        png = self.pngs.get(scan.scan)
        if png:
            image.value = png
        colour = STATUS_COLOURS.get(scan.status, "#000")
        for i, (cell, text) in enumerate(zip(cells, _cells(scan))):
            style = f" style='color:{colour}'" if i == 1 else ""
            cell.value = f"<span{style} title='{html.escape(text)}'>{html.escape(text)}</span>"
        if self._header is not None:
            self._header.value = f"<b>smrnb batch</b>: {html.escape(self.summary())}"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, Any]:
        data: dict[str, Any] = {"text/plain": f"BatchTable({self.summary()})"}
        if live_frontend():
            data.update(widget_bundle(self.widget, include=include, exclude=exclude, **kwargs))
        else:
            data["text/html"] = self.to_html()
        return data

    def run(self, configs: Any, output: str | os.PathLike, **batch_options: Any) -> Any:
        """Show the table, run :func:`smrnb.batch` with it as ``progress``; returns the ``BatchResult``."""
        from smrnb.pipeline import batch

        if "progress" in batch_options:
            raise SmrnbValueError("BatchTable.run: 'progress' is the table itself; leave it out")
        try:
            from IPython.display import display

            handle = display(self, display_id=True)
        except Exception:
            handle = None
        result = batch(configs, output, progress=self, **batch_options)
        if handle is not None and self._box is None:
            handle.update(self)  # a static front end (no live widget) gets the finished table
        return result


__all__ = ["BatchTable", "thumbnail_png"]
