# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Real browser: JupyterLab and Notebook 7 run the test notebooks; every viewer paints; a slider repaints.

Screenshots go to ``test-artifacts/browser/``. Bounded waits everywhere; the servers are killed by
the fixtures' finalizers.
"""

from __future__ import annotations

import json
import time

import pytest

from . import _lab

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(420)]


def n_code_cells(server: _lab.Server, name: str) -> int:
    nb = json.loads((server.root / name).read_text())
    return sum(c["cell_type"] == "code" for c in nb["cells"])


def check_canvases(page, prefix: str, min_painted: float = 0.01) -> int:
    canvases = page.locator(".smrnb-viewer canvas")
    n = canvases.count()
    for i in range(n):
        c = canvases.nth(i)
        if not c.is_visible():
            continue
        c.scroll_into_view_if_needed()
        img = _lab.canvas_image(c)
        _lab.save_artifact(f"{prefix}-canvas{i}.png", img)
        frac = _lab.painted_fraction(img)
        assert frac >= min_painted, f"viewer canvas {i} of {prefix} is blank ({frac:.4f} painted)"
    return n


def run_notebook(page, server: _lab.Server, name: str, app: str = "lab") -> dict:
    _lab.open_notebook(page, server, name, app=app)
    _lab.run_all_cells(page, n_code_cells(server, name))
    page.wait_for_timeout(2000)  # let the last geometry reach the canvases
    nb = _lab.save_notebook(page, server.root / name)
    _lab.save_artifact(f"{app}-{name}.png", page.screenshot(full_page=True))
    assert _lab.error_outputs(nb) == []
    return nb


def test_viewer_notebook_in_jupyterlab(lab, page):
    run_notebook(page, lab, "viewer.ipynb")
    # every viewer canvas (mesh + overlays, textured, points, voxels, step widget) is painted
    assert check_canvases(page, "lab-viewer") == 5
    assert page.locator(".smrnb-viewer-note", has_text="boundary (hole) edges").count() == 1
    # a slider change re-runs the step (auto-run) and repaints its viewer in place
    step_canvas = page.locator(".smrnb-step .smrnb-viewer canvas").first
    step_canvas.scroll_into_view_if_needed()
    before = _lab.canvas_image(step_canvas)
    handle = page.locator(".smrnb-step .widget-slider .noUi-handle").first
    handle.focus()
    handle.press("End")  # voxel_size to its maximum: far fewer, far bigger voxels
    after = _lab.wait_repaint(step_canvas, before)
    _lab.save_artifact("lab-viewer-slider-before.png", before)
    _lab.save_artifact("lab-viewer-slider-after.png", after)
    assert page.locator(".smrnb-step .smrnb-viewer canvas").count() == 1  # same canvas, updated in place
    errors = _lab.widget_errors(page.console)
    assert errors == [], errors


def test_app_notebook_in_jupyterlab(lab, page):
    run_notebook(page, lab, "app.ipynb")
    tabs = page.locator(".smrnb-app .lm-TabBar-tab")
    assert tabs.count() == 6  # the demo chain: tsdf, extract_mesh, fill_holes, simplify, uv, texture
    # app.run() drew only the last step; each other tab is drawn when it is opened
    for i in range(tabs.count()):
        tabs.nth(i).click()
        visible = page.locator(".smrnb-app .smrnb-viewer canvas:visible")
        visible.first.wait_for(timeout=60_000)
        assert visible.count() == 1, f"tab {i} shows {visible.count()} viewers"
        deadline = time.monotonic() + 60
        while True:
            img = _lab.canvas_image(visible.first)
            if _lab.painted_fraction(img) >= 0.01 or time.monotonic() > deadline:
                break
            page.wait_for_timeout(250)
        _lab.save_artifact(f"lab-app-tab{i}.png", img)
        assert _lab.painted_fraction(img) >= 0.01, f"viewer of tab {i} is blank"
    # the doctor view: one copy button per fix command, and a click copies
    assert page.locator(".smrnb-doctor").count() == 1
    errors = _lab.widget_errors(page.console)
    assert errors == [], errors


def test_notebook7_runs_the_viewers(notebook7, page):
    run_notebook(page, notebook7, "notebook7.ipynb", app="notebook")
    assert check_canvases(page, "nb7") == 2
    step_canvas = page.locator(".smrnb-step .smrnb-viewer canvas").first
    before = _lab.canvas_image(step_canvas)
    handle = page.locator(".smrnb-step .widget-slider .noUi-handle").first
    handle.focus()
    handle.press("End")
    _lab.wait_repaint(step_canvas, before)
    # Notebook 7 loads smrnb's sync model too: the slider's re-run redrew in place with one message
    text = _lab.run_cell(page, 4, "SYNC")
    assert text.startswith("SYNC True [True") and "False" not in text, text
    errors = _lab.widget_errors(page.console)
    assert errors == [], errors


def test_teaching_app_notebook_in_jupyterlab(lab, page):
    """The teaching series' app notebook (notebooks/06) runs in a real JupyterLab with painted viewers."""
    import shutil
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "notebooks" / "06_reconstruction_app.ipynb"
    shutil.copy(src, lab.root / src.name)
    closed = _lab.watch_closed_widget_messages(page)
    run_notebook(page, lab, src.name)
    assert check_canvases(page, "lab-nb06") >= 1
    # Run all wrote no "No such comm: ID" into the page: the viewers' replaced geometry, closed by the kernel
    # while the front end's messages to it waited behind the queued cells, drops those messages quietly
    assert closed == [], closed[:6]


def test_batch_table_in_jupyterlab(lab, page):
    """A batch run from a notebook: the table shows both scans done, with thumbnails and held-out errors."""
    run_notebook(page, lab, "batch.ipynb")
    header = page.locator(".widget-html", has_text="smrnb batch:")
    assert header.count() == 1 and "2 done" in header.inner_text()
    images = page.locator("img.widget-image")
    assert images.count() == 2
    for i in range(2):
        assert images.nth(i).evaluate("img => img.complete && img.naturalWidth > 0"), f"thumbnail {i} is empty"
    assert page.locator(".widget-html", has_text="mm median").count() == 2
    _lab.save_artifact("lab-batch-table.png", page.screenshot(full_page=True))
    errors = _lab.widget_errors(page.console)
    assert errors == [], errors


def test_stop_ends_a_long_run_from_the_page(lab, page):
    """Run all on a run of tens of seconds, then Stop, as a person clicks them: the run ends within a few
    seconds, the step stays stale with no error, the buttons come back and the kernel answers."""
    closed = _lab.watch_closed_widget_messages(page)
    run_notebook(page, lab, "stop.ipynb")
    run_all = page.locator(".smrnb-app button", has_text="Run all")
    stop = page.locator(".smrnb-app button", has_text="Stop")
    assert stop.is_disabled()
    run_all.click()
    page.locator(".smrnb-app", has_text="running step 1 of 2").wait_for(timeout=60_000)
    page.wait_for_timeout(3000)  # well into the fusion
    assert stop.is_enabled(), "Stop is not reachable during a long run"
    t0 = time.monotonic()
    stop.click()
    page.locator(".smrnb-app", has_text="stopped on request").first.wait_for(timeout=30_000)
    took = time.monotonic() - t0
    text = _lab.run_cell(page, 1, "STATE")
    assert "STATE True True" in text and "stopped on request" in text, text
    assert text.rstrip().endswith("False True"), text  # Run all enabled again, Stop disabled
    assert took < 15, f"Stop took {took:.1f} s"
    assert closed == [], closed[:6]
    assert _lab.widget_errors(page.console) == []
