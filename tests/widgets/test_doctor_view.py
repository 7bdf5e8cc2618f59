# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""DoctorView: the report's HTML with a copy button per fix command."""

from __future__ import annotations

import pytest

from smrnb._errors import SmrnbTypeError
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor._report import Report
from smrnb.widgets import DoctorView


def report() -> Report:
    f = Finding("K001", "kaolin", "error", "kaolin cannot load libcudart",
                evidence=("undefined symbol: cudaGetDeviceCount",),
                fix=Fix("install the kaolin wheel built for your torch", commands=(
                    "pip install kaolin==0.18.0 -f https://example.invalid/torch-2.8.0_cu128.html",
                    "export LD_LIBRARY_PATH=/usr/local/cuda/lib64")))
    return Report({"kaolin": {"status": "ok"}}, [f], secrets=[])


def test_html_has_each_command_with_a_copy_button(monkeypatch):
    v = DoctorView(report())
    html = v.html.value
    assert v.commands == ["pip install kaolin==0.18.0 -f https://example.invalid/torch-2.8.0_cu128.html",
                          "export LD_LIBRARY_PATH=/usr/local/cuda/lib64"]
    for c in v.commands:
        assert f"<pre>{c}</pre>" in html
    assert html.count('class="smrnb-copy"') == 2 and "navigator.clipboard" in html
    assert "kaolin cannot load libcudart" in html
    assert v.widget.children == (v.refresh_button, v.html)
    # no widget front end (nbconvert, the docs): the report's own HTML, never an empty widget view
    static = v._repr_mimebundle_()
    assert static["text/html"] == html and "application/vnd.jupyter.widget-view+json" not in static
    monkeypatch.setenv("SMRNB_STATIC_PICTURES", "never")  # a live front end: the widget
    assert "application/vnd.jupyter.widget-view+json" in v._repr_mimebundle_()


def test_refresh_diagnoses_again(monkeypatch):
    import smrnb.doctor as doctor

    calls = []
    monkeypatch.setattr(doctor, "diagnose", lambda **kw: calls.append(kw) or report())
    v = DoctorView(layers=["kaolin"])
    v.refresh_button.click()
    assert calls == [{"layers": ["kaolin"]}, {"layers": ["kaolin"]}] and len(v.commands) == 2


def test_rejects_a_non_report():
    with pytest.raises(SmrnbTypeError, match="report must be a smrnb Report, got str"):
        DoctorView("all fine")
