# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Real browser: a step estimated as long shows its estimate and Run anyway / Cancel; Run anyway runs it."""

from __future__ import annotations

import json

import pytest

from . import _lab

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(420)]

CELLS = [
    """import os
os.environ["SMRNB_ASK_SECONDS"] = "0"   # every estimated step counts as long here
import torch
from smrnb.geometry import PointCloud
from smrnb.widgets import StepWidget
p = torch.randn(20000, 3)
w = StepWidget("voxelize", PointCloud(p / p.norm(dim=1, keepdim=True), frame="opengl"), params={"voxel_size": 0.1})
w.run()
w""",
]


def test_run_anyway_in_jupyterlab(lab, page):
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None,
                     "id": f"c{i}"} for i, c in enumerate(CELLS)],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (lab.root / "ask.ipynb").write_text(json.dumps(nb))
    _lab.open_notebook(page, lab, "ask.ipynb")
    _lab.run_all_cells(page, len(CELLS))
    box = page.locator(".smrnb-step-confirm")
    box.wait_for(state="visible", timeout=60_000)
    assert "is estimated at" in box.inner_text() and "Run it anyway?" in box.inner_text()
    assert "waiting for your answer" in page.locator(".smrnb-step").first.inner_text()
    _lab.save_artifact("lab-ask.png", page.screenshot(full_page=True))
    box.locator("button", has_text="Run anyway").click()
    page.wait_for_function("() => document.querySelector('.smrnb-step').innerText.includes('up to date')",
                           timeout=120_000)
    assert not box.is_visible()
    assert "estimate" in page.locator(".smrnb-step-result").first.inner_text()
    page.locator(".smrnb-step .smrnb-viewer canvas").first.wait_for(state="visible", timeout=60_000)
    assert _lab.widget_errors(page.console) == []
