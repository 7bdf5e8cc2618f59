# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Fixtures of the real-browser tests: a JupyterLab server and a headless Debian Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import _lab


@pytest.fixture(scope="session")
def chromium():
    """Playwright's Chromium driver on /usr/bin/chromium (never downloaded), SwiftShader WebGL."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="Python playwright is not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_lab.CHROMIUM, args=_lab.CHROMIUM_ARGS, timeout=60_000)
        try:
            yield browser
        finally:
            browser.close()


def _server(app: str, tmp: Path, request: pytest.FixtureRequest) -> _lab.Server:
    server = _lab.start_server(app, tmp)
    request.addfinalizer(server.stop)
    _lab.copy_notebooks(server.root, ["viewer.ipynb", "app.ipynb", "notebook7.ipynb", "batch.ipynb", "teach.ipynb", "lod.ipynb", "shading.ipynb", "inplace.ipynb", "wheel.ipynb", "stop.ipynb"])
    return server


@pytest.fixture(scope="module")
def lab(tmp_path_factory, request) -> _lab.Server:
    """``jupyter lab`` on 127.0.0.1, a free port and a random token, serving a temp copy of the test notebooks."""
    return _server("lab", tmp_path_factory.mktemp("lab"), request)


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory, request) -> _lab.Server:
    """``jupyter notebook`` (Notebook 7), same set-up."""
    return _server("notebook", tmp_path_factory.mktemp("nb7"), request)


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1300, "height": 1000}, device_scale_factor=1)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    console = _lab.Console()
    console.attach(pg)
    pg.console = console  # type: ignore[attr-defined]
    try:
        yield pg
    finally:
        context.close()
