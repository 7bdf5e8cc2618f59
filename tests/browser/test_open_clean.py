# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Real browser: a student opens every teaching notebook in JupyterLab and does nothing; nothing changes.

JupyterLab opens on notebook 01 by its URL (as Binder's default URL does) and the others are opened by
double-clicking them in the file browser. Each kernel starts; autosave runs every few seconds. No tab
is marked modified once its notebook has loaded (a mutation observer records every ``jp-mod-dirty`` mark
added to a tab, even one autosave clears again; a tab is created marked and cleared when the file's
content arrives, which is no change) and every file keeps its bytes: nothing is saved.
"""

from __future__ import annotations

import difflib
import json
import platform
import time
from pathlib import Path

import pytest

from . import _lab

nbformat = pytest.importorskip("nbformat")

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(420)]

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
AUTOSAVE_S = 3

# every tab that gains the modified mark after it was created, in the order it happened
_WATCH_DIRTY = """
window.__smrnbDirty = [];
new MutationObserver(records => {
    for (const r of records) {
        const el = r.target;
        const tab = el.classList && el.classList.contains('lm-TabBar-tab');
        if (tab && el.classList.contains('jp-mod-dirty') && !(r.oldValue || '').includes('jp-mod-dirty')) {
            window.__smrnbDirty.push((el.textContent || '').trim());
        }
    }
}).observe(document, {attributes: true, attributeFilter: ['class'], attributeOldValue: true, subtree: true});
"""


def _wait_panel_ready(page, name: str, timeout_ms: int = 120_000) -> None:
    """The tab of ``name`` is current, its cells are drawn and its kernel is idle."""
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text=name).first.wait_for(timeout=timeout_ms)
    page.wait_for_selector(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell", timeout=timeout_ms)
    page.wait_for_function(
        """() => {
            const panel = [...document.querySelectorAll('.jp-NotebookPanel')].find(e => e.offsetParent !== null);
            if (!panel) return false;
            const ind = panel.querySelector('.jp-Notebook-ExecutionIndicator');
            if (ind && ind.getAttribute('data-status')) return ind.getAttribute('data-status') === 'idle';
            const s = document.querySelector('.jp-KernelStatus, .jp-Toolbar-kernelStatus');
            return s ? /idle/i.test(s.getAttribute('title') || s.textContent || '') : false;
        }""", timeout=timeout_ms)


def test_opening_every_notebook_changes_nothing(chromium, tmp_path):
    work = tmp_path / "lab"
    settings = work / "settings" / "@jupyterlab" / "docmanager-extension"
    settings.mkdir(parents=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": True,
                                                                     "autosaveInterval": AUTOSAVE_S}))
    server = _lab.start_server("lab", work)
    try:
        names = [p.name for p in NOTEBOOKS]
        for p in NOTEBOOKS:
            nb = nbformat.read(p, as_version=nbformat.NO_CONVERT)
            # JupyterLab writes the kernel's Python release into language_info.version: a kernel on another
            # release than the committed one changes that line alone (tests/test_notebooks.py pins the rest)
            nb.metadata.language_info.version = platform.python_version()
            with open(server.root / p.name, "w", encoding="utf-8") as fh:
                nbformat.write(nb, fh, version=nbformat.NO_CONVERT)  # as the Jupyter server writes it
        before = {n: (server.root / n).read_bytes() for n in names}

        context = chromium.new_context(viewport={"width": 1300, "height": 1000}, device_scale_factor=1)
        try:
            context.add_init_script(_WATCH_DIRTY)
            page = context.new_page()
            page.set_default_timeout(60_000)
            _lab.open_notebook(page, server, names[0])
            _wait_panel_ready(page, names[0])
            listing = page.locator(".jp-DirListing-content")
            for name in names[1:]:
                _lab.dismiss_dialogs(page)
                listing.locator(".jp-DirListing-item", has_text=name).first.dblclick(timeout=30_000)
                _wait_panel_ready(page, name)
            page.wait_for_timeout((AUTOSAVE_S * 3 + 2) * 1000)  # several autosave rounds after the last kernel
            _lab.save_artifact("open-clean.png", page.screenshot())
            tabs = page.locator(".lm-DockPanel .lm-TabBar-tab").all_inner_texts()
            dirty_now = page.locator(".lm-TabBar-tab.jp-mod-dirty").all_inner_texts()
            dirty_ever = page.evaluate("() => window.__smrnbDirty")
        finally:
            context.close()
        time.sleep(1.0)
        changed = {n: _first_change(before[n], (server.root / n).read_bytes()) for n in names
                   if (server.root / n).read_bytes() != before[n]}
        saves = [ln for ln in server.log.read_text().splitlines() if "Saving file at" in ln]
    finally:
        server.stop()
    assert all(any(n in t for t in tabs) for n in names), tabs
    assert dirty_now == [] and dirty_ever == [], f"marked modified on opening: {sorted(set(dirty_ever))}"
    assert changed == {}, f"rewritten on opening: {changed}"
    assert saves == [], saves


def _first_change(a: bytes, b: bytes) -> str:
    """The first differing lines of two files (a unified diff's first hunk, shortened)."""
    diff = difflib.unified_diff(a.decode().splitlines(), b.decode().splitlines(), lineterm="", n=0)
    return " | ".join(list(diff)[2:10])
