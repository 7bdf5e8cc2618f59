# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``jupyter nbconvert --to html --execute``: every viewer and step widget leaves a picture."""

from __future__ import annotations

import base64
import io
import re
import subprocess
import sys

import nbformat
import numpy as np
import pytest
from PIL import Image

pytestmark = pytest.mark.slow

CELLS = [
    "import torch\nfrom smrnb.geometry import PointCloud\nfrom smrnb.widgets import StepWidget, Viewer\n"
    "g = torch.Generator().manual_seed(0)\np = torch.randn(3000, 3, generator=g)\n"
    "cloud = PointCloud(p / p.norm(dim=1, keepdim=True), frame='opengl')",
    "Viewer(cloud, width=240, height=160)",
    "step = StepWidget('voxelize', cloud, params={'voxel_size': 0.1}, viewer_size=(240, 160))\n"
    "assert step.run(), step.error\nstep",
]


def test_exported_html_has_a_picture_for_every_viewer_and_step(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    src = tmp_path / "views.ipynb"
    nbformat.write(nb, src)
    r = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--execute",
                        "--ExecutePreprocessor.timeout=300", str(src)], capture_output=True, text=True, timeout=400)
    assert r.returncode == 0, r.stderr[-3000:]
    page = (tmp_path / "views.html").read_text()
    pngs = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    assert len(pngs) >= 2, "the viewer and the step widget each leave a picture"
    for b64 in pngs[:2]:
        img = np.asarray(Image.open(io.BytesIO(base64.b64decode(b64))).convert("RGB"))
        assert (img.reshape(-1, 3) != img[0, 0]).any(axis=1).mean() > 0.01  # something is drawn
    assert '<script type="application/vnd.jupyter.widget-view+json">' not in page  # no empty widget views
    assert "voxel_size" in page and "up to date" in page
