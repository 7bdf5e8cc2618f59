# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""How a widget is displayed: is a live widget front end attached (and is pythreejs' one installed), the
display data of a widget, and the HTML fragments of static outputs (pictures, colour bars, lengths).

Where no live front end runs (nbconvert, the docs, GitHub), the widgets display a static picture instead
of an empty widget view; ``SMRNB_STATIC_PICTURES`` (``auto``, ``always``, ``never``) overrides the guess.
"""

from __future__ import annotations

import base64
import functools
import html
import importlib.metadata
import os
import sys
from typing import Any

import numpy as np

from smrnb.widgets._colors import hex_color, viridis
from smrnb.widgets._compat import control_comm_open, no_front_end
from smrnb.widgets._layers import Layer


def frontend_status() -> dict[str, Any]:
    """Is the ``jupyter-threejs`` lab extension where the server looks? (the doctor's jupyter probe facts)."""
    from smrnb.doctor import jupyter_paths, threejs_labextension

    try:
        version = importlib.metadata.version("pythreejs")
    except Exception:
        version = None
    try:
        facts = threejs_labextension(jupyter_paths("labextensions", dict(os.environ), sys.prefix), version)
    except Exception as exc:  # a failed probe means "unknown", never an exception
        return {"installed": None, "reason": f"{type(exc).__name__}: {exc}"}
    return facts


#: a live widget front end has been seen in this process (sticky: a widget made later, in a button's callback or a
#: background thread, where the request carries no cell metadata, still belongs to that front end)
_FRONT_END_SEEN = [False]


def live_frontend() -> bool:
    """Is a live widget front end attached to this kernel now?

    Two signs, either enough: ipywidgets' ``jupyter.widget.control`` comm is open (front ends built
    on ``@jupyter-widgets/base-manager`` open it on connecting to a kernel that has ipywidgets
    imported), or the request being executed carries cell metadata (JupyterLab and Notebook 7
    send ``cellId``, ``deletedCells``, ``recordTiming``). ``nbconvert --execute``, nbclient and
    papermill send none and open no control comm; a terminal IPython has no kernel at all.
    ``SMRNB_STATIC_PICTURES`` overrides the guess: ``always`` (static pictures beside the live
    widget), ``never`` (the widget alone), ``auto`` (the default).
    """
    mode = os.environ.get("SMRNB_STATIC_PICTURES", "auto").strip().lower()
    if mode == "never":
        return True
    if mode == "always":
        return False
    if _FRONT_END_SEEN[0]:
        return True
    try:
        if control_comm_open():
            _FRONT_END_SEEN[0] = True
            return True
    except ImportError:  # pragma: no cover - ipywidgets is a dependency of the widgets
        return False
    try:
        from IPython import get_ipython

        ip = get_ipython()
        parent = getattr(ip, "parent_header", None) if getattr(ip, "kernel", None) is not None else None
        live = bool((parent or {}).get("metadata"))
    except Exception:  # a shell without a parent header: no live front end known
        return False
    if live:
        _FRONT_END_SEEN[0] = True
    return live


def static_pictures() -> str:
    """``"live"``: the widget alone; ``"static"``: a picture instead of the widget; ``"both"``."""
    if os.environ.get("SMRNB_STATIC_PICTURES", "auto").strip().lower() == "always":
        return "both"
    return "live" if live_frontend() else "static"


def quiet_widgets(method: Any) -> Any:
    """Decorator of a widget-making method of an smrnb object: in a kernel no front end will show (decided
    once per object, on its first such call, as :func:`headless`), the widgets it makes open no comm."""
    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        quiet = self.__dict__.get("_headless")
        if quiet is None:
            quiet = self.__dict__["_headless"] = headless()
        with no_front_end(quiet):
            return method(self, *args, **kwargs)

    return wrapper


def headless() -> bool:
    """No widget front end will show what this kernel makes (``nbconvert --execute``, nbclient, papermill):
    smrnb's widgets then open no comm (:func:`smrnb.widgets._compat.no_front_end`) and display as pictures.
    Once a live front end has been seen (:func:`live_frontend` is sticky), the kernel is never headless again."""
    return static_pictures() == "static"


class StaticOutput:
    """Outputs that follow their object where no front end runs.

    Displayed in a kernel without a live widget front end, the object's static output gets a display id;
    :meth:`_update_static` (called after each change: a run, a redraw, a refresh) replaces every output of
    it, so an executed and exported notebook shows the state the kernel ended with, not the one at display
    time. A live front end gets the widget, as ``_repr_mimebundle_`` says.
    """

    _static_handles: list[Any]

    def _ipython_display_(self) -> None:
        from IPython.display import display

        bundle = self._repr_mimebundle_()
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        if static_pictures() == "live":
            display(bundle, raw=True)
            return
        handle = display(bundle, raw=True, display_id=True)
        if handle is not None:
            self.__dict__.setdefault("_static_handles", []).append(handle)

    def _update_static(self) -> None:
        handles = self.__dict__.get("_static_handles")
        if not handles:
            return
        bundle = self._repr_mimebundle_()
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        for h in handles:
            h.update(bundle, raw=True)


def widget_bundle(widget: Any, **kwargs: Any) -> dict[str, Any]:
    """An ipywidget's display data without its ``text/plain``."""
    bundle = widget._repr_mimebundle_(**kwargs)
    if isinstance(bundle, tuple):
        bundle = bundle[0]
    return {k: v for k, v in (bundle or {}).items() if k != "text/plain"}


def png_html(png: bytes, caption: str = "") -> str:
    """An ``<img>`` with the PNG inline (and a grey caption), for static outputs."""
    b64 = base64.b64encode(png).decode("ascii")
    cap = f"<div style='color:#666;font-size:90%'>{html.escape(caption)}</div>" if caption else ""
    return f"<div><img src='data:image/png;base64,{b64}'/>{cap}</div>"


def colorbar_html(layers: list[Layer]) -> str:
    """One colour bar (viridis, low -> high with the label) per layer that shows a scalar."""
    if all(layer.scalar_range is None for layer in layers):
        return ""
    stops = ", ".join(hex_color(tuple(c)) for c in viridis(np.linspace(0, 1, 9, dtype=np.float32)))
    out = []
    for layer in layers:
        if layer.scalar_range is None:
            continue
        lo, hi = layer.scalar_range
        out.append("<div class='smrnb-colorbar' style='display:flex;align-items:center;gap:6px;font-size:12px;"
                   f"color:#333;margin:2px 0'><span class='smrnb-colorbar-low'>{lo:.4g}</span>"
                   f"<span style='display:inline-block;width:180px;height:12px;border:1px solid #999;"
                   f"background:linear-gradient(to right, {stops})'></span>"
                   f"<span class='smrnb-colorbar-high'>{hi:.4g}</span><span>{html.escape(layer.scalar_label)}"
                   "</span></div>")
    return "".join(out)


def set_changed(obj: Any, name: str, value: Any) -> None:
    """``obj.name = value`` unless it already is (a widget trait set that changes nothing still validates)."""
    if getattr(obj, name) != value:
        setattr(obj, name, value)


__all__ = ["colorbar_html", "frontend_status", "live_frontend", "png_html", "set_changed",
           "static_pictures", "widget_bundle", "headless", "quiet_widgets", "StaticOutput"]
