# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``side_by_side(a, b, ...)``: viewers (or any widgets) in one row, that also leave pictures.

``ipywidgets.HBox([a.widget, b.widget])`` shows nothing where no widget front end runs (nbconvert
HTML, the docs, GitHub). :func:`side_by_side` displays as that HBox in a live front end and, where
there is none, as the viewers' static pictures in a row (each item's own static output).
"""

from __future__ import annotations

import html
from typing import Any

from smrnb.widgets._display import StaticOutput, quiet_widgets, static_pictures, widget_bundle


class SideBySide(StaticOutput):
    """A row of viewers / step widgets; ``widget`` is the live ``ipywidgets.HBox``."""

    @quiet_widgets
    def __init__(self, *items: Any) -> None:
        import ipywidgets as ipw

        self.items = items
        self.widget = ipw.HBox([getattr(it, "widget", it) for it in items])

    def _static_html(self, item: Any) -> str:
        bundle = item._repr_mimebundle_() if hasattr(item, "_repr_mimebundle_") else {}
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        if "text/html" in bundle:
            return bundle["text/html"]
        if "image/png" in bundle:
            return f"<img src='data:image/png;base64,{bundle['image/png']}'/>"
        return f"<pre>{html.escape(repr(item))}</pre>"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        mode = static_pictures()
        if mode == "live":
            return self.widget._repr_mimebundle_(**kwargs)
        cells = "".join(f"<div style='flex:0 0 auto'>{self._static_html(it)}</div>" for it in self.items)
        data = {"text/plain": repr(self),
                "text/html": f"<div class='smrnb-row' style='display:flex;gap:8px;flex-wrap:wrap'>{cells}</div>"}
        if mode == "both":
            data.update(widget_bundle(self.widget, **kwargs))
        return data

    def __repr__(self) -> str:
        return f"SideBySide({', '.join(repr(it) for it in self.items)})"


def side_by_side(*items: Any) -> SideBySide:
    """Viewers (or widgets) in one row: live, an HBox; without a front end, their pictures in a row."""
    return SideBySide(*items)


__all__ = ["SideBySide", "side_by_side"]
