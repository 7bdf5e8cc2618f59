# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``DoctorView``: the doctor's report in a widget, with copy buttons on every fix command.

The report's own HTML (:func:`smrnb.doctor.render_html`) puts each fix command in a
``<pre>`` with a "copy" button (Clipboard API, ``execCommand('copy')`` fallback). Notebook output
HTML is sanitised in untrusted notebooks (inline handlers removed); an ``ipywidgets.HTML`` widget
sets its HTML directly, so the buttons work there. A Refresh button re-runs the diagnosis.
"""

from __future__ import annotations

from typing import Any

from smrnb._errors import SmrnbTypeError
from smrnb.widgets._display import StaticOutput, quiet_widgets, static_pictures, widget_bundle


class DoctorView(StaticOutput):
    """The report of :func:`smrnb.diagnose` as a widget.

    Parameters
    ----------
    report : Report, optional
        A report to show; default: ``smrnb.diagnose(**diagnose_kwargs)`` now.
    diagnose_kwargs
        Passed to :func:`smrnb.diagnose` (e.g. ``layers=["torch", "jupyter"]``) on creation and on Refresh.
    """

    @quiet_widgets
    def __init__(self, report: Any = None, **diagnose_kwargs: Any) -> None:
        import ipywidgets as ipw

        from smrnb.doctor import Report

        if report is not None and not isinstance(report, Report):
            raise SmrnbTypeError(f"report must be a smrnb Report, got {type(report).__name__}")
        self._kwargs = diagnose_kwargs
        self.html = ipw.HTML(value="")
        self.html.add_class("smrnb-doctor-view")
        self.refresh_button = ipw.Button(description="Refresh", icon="refresh",
                                         tooltip="run the diagnosis again")
        self.refresh_button.on_click(lambda _b: self.refresh())
        self.widget = ipw.VBox([self.refresh_button, self.html])
        self.report = report
        if report is None:
            self.refresh()
        else:
            self._render()

    def refresh(self) -> None:
        """Diagnose again and redraw."""
        from smrnb.doctor import diagnose

        self.report = diagnose(**self._kwargs)
        self._render()
        self._update_static()

    def _render(self) -> None:
        from smrnb.doctor import render_html

        self.html.value = render_html(self.report)

    @property
    def commands(self) -> list[str]:
        """Every fix command of the report, in the order shown (what the copy buttons copy)."""
        return [c for f in self.report.findings if f.fix is not None for c in f.fix.commands]

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget in a live front end; elsewhere (nbconvert, the docs) the report's own HTML (its copy
        buttons work where the page runs scripts)."""
        mode = static_pictures()
        if mode == "live":
            return self.widget._repr_mimebundle_(**kwargs)
        data = {"text/plain": repr(self), "text/html": self.html.value}
        if mode == "both":
            data.update(widget_bundle(self.widget, **kwargs))
        return data

    def __repr__(self) -> str:
        return f"DoctorView({self.report.summary()})"


__all__ = ["DoctorView"]
