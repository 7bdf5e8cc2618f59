# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Helpers of the real-browser tests: a Jupyter server on 127.0.0.1 and Playwright on Debian Chromium.

Every wait is bounded; the server is started with a random token in a temporary root and killed
by the caller (fixtures in ``conftest.py``). Chromium is never downloaded: Playwright launches
``/usr/bin/chromium`` with SwiftShader WebGL.
"""

from __future__ import annotations

import io
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run"]
NOTEBOOKS = Path(__file__).parent / "notebooks"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A running ``jupyter lab`` / ``jupyter notebook`` server."""

    proc: subprocess.Popen
    port: int
    token: str
    root: Path
    log: Path

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}{sep}token={self.token}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)


def start_server(app: str, workdir: Path, timeout: float = 90.0) -> Server:
    """Start ``jupyter lab`` or ``jupyter notebook`` (``app``) serving ``workdir/root``.

    Settings and workspaces live in ``workdir`` (no news or update checks, no restored layout).
    Raises RuntimeError with the server log's tail when it does not answer within ``timeout``.
    """
    root = workdir / "root"
    root.mkdir(parents=True, exist_ok=True)
    settings = workdir / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(workdir / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(workdir / "workspaces"), PYTHONUNBUFFERED="1",
               OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    log = workdir / f"{app}-server.log"
    argv = [sys.executable, "-m", "jupyter", app, "--no-browser", "--ServerApp.open_browser=False",
            f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        argv.append("--allow-root")
    with open(log, "w") as fh:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(argv, cwd=root, env=env, stdout=fh, stderr=subprocess.STDOUT)
    server = Server(proc, port, token, root, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter {app} exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(server.url("api/status"), timeout=3) as r:
                if r.status == 200:
                    return server
        except OSError:
            time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"jupyter {app} did not answer within {timeout:.0f} s:\n{log.read_text()[-3000:]}")


def copy_notebooks(root: Path, names: list[str]) -> None:
    for n in names:
        shutil.copy(NOTEBOOKS / n, root / n)


@dataclass
class Console:
    """Browser console errors and uncaught page errors."""

    messages: list[tuple[str, str]] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        page.on("console", lambda m: self.messages.append((m.type, m.text)))
        page.on("pageerror", lambda e: self.messages.append(("pageerror", str(e))))

    def errors(self) -> list[str]:
        return [f"{k}: {t}" for k, t in self.messages if k in ("error", "pageerror")]


# errors JupyterLab itself logs while starting on this machine, unrelated to widgets
_UNRELATED = (
    re.compile(r"Failed to load resource.*(favicon|lsp|translations)", re.I),
    re.compile(r"jupytext", re.I),
)
# what counts as coming from smrnb's widgets: pythreejs, ipywidgets, three.js, our classes
WIDGET_ERROR = re.compile(r"three|widget|smrnb|renderer|webgl|model|comm|state", re.I)


def widget_errors(console: Console) -> list[str]:
    return [e for e in console.errors() if WIDGET_ERROR.search(e) and not any(p.search(e) for p in _UNRELATED)]


# ipykernel's answer to a message for a comm it no longer has, sent to the page as the kernel's stderr; a widget
# the kernel made has a 32-hex id (the front end's own comms, such as ipywidgets' control comm, are UUIDs)
_CLOSED_WIDGET = re.compile(rb"No such comm: [0-9a-f]{32}(?![0-9a-f-])")


def watch_closed_widget_messages(page: Any) -> list[str]:
    """Start collecting every "No such comm: ID" the kernel sends ``page`` about a widget it made (a message the
    front end sent to a widget the kernel had closed); call before the page opens Lab. The list fills as
    websocket frames arrive."""
    found: list[str] = []

    def on_socket(ws: Any) -> None:
        def on_frame(payload: Any) -> None:
            data = payload if isinstance(payload, (bytes, bytearray)) else str(payload).encode()
            found.extend(m.group(0).decode() for m in _CLOSED_WIDGET.finditer(data))

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    return found


def dismiss_dialogs(page: Any) -> list[str]:
    """Close JupyterLab's start-up dialogs ("Build Recommended" for unrelated extensions); returns their text."""
    seen = []
    dialogs = page.locator(".jp-Dialog")
    for _ in range(3):
        if not dialogs.count():
            break
        seen.append(dialogs.first.inner_text(timeout=5000))
        buttons = dialogs.first.locator("button", has_text=re.compile("Cancel|Dismiss|No Kernel|Keep|Select", re.I))
        if buttons.count():
            buttons.first.click(timeout=5000)
        else:
            page.keyboard.press("Escape")
        page.wait_for_timeout(500)
    return seen


def wait_kernel_idle(page: Any, timeout_ms: int) -> None:
    page.wait_for_function(
        """() => {
            const el = document.querySelector('.jp-Notebook-ExecutionIndicator');
            if (el && el.getAttribute('data-status')) return el.getAttribute('data-status') === 'idle';
            const s = document.querySelector('.jp-KernelStatus, .jp-Toolbar-kernelStatus');
            return s ? /idle/i.test(s.getAttribute('title') || s.textContent || '') : false;
        }""", timeout=timeout_ms)


def run_cell(page: Any, index: int, marker: str, timeout_ms: int = 60_000) -> str:
    """Run code cell ``index`` of the open notebook again; the text of its output line starting with ``marker``."""
    cell = page.locator(".jp-Notebook:visible .jp-CodeCell").nth(index)
    cell.locator(".jp-InputArea-prompt").click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(300)
    wait_kernel_idle(page, timeout_ms)
    out = cell.locator(".jp-OutputArea-output", has_text=marker)
    out.wait_for(timeout=timeout_ms)
    return out.inner_text()


def open_notebook(page: Any, server: Server, name: str, app: str = "lab", timeout_ms: int = 120_000) -> list[str]:
    """Open notebook ``name``; wait for its kernel; returns the text of dialogs that were dismissed."""
    # ?reset: a fresh workspace, so notebooks of earlier tests do not reopen hidden behind this one
    path = f"lab/tree/{name}?reset" if app == "lab" else f"notebooks/{name}"
    page.goto(server.url(path), timeout=timeout_ms, wait_until="domcontentloaded")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=timeout_ms)
    deadline = time.monotonic() + timeout_ms / 1000
    dialogs: list[str] = []
    while time.monotonic() < deadline:
        dialogs += dismiss_dialogs(page)
        try:
            wait_kernel_idle(page, 2000)
            break
        except Exception:
            continue
    page.wait_for_timeout(1000)
    dialogs += dismiss_dialogs(page)
    return dialogs


def run_all_cells(page: Any, n_code_cells: int, timeout_ms: int = 240_000) -> None:
    """Run -> Run All Cells from the menu bar, then wait until every code cell has run and the kernel is idle."""
    deadline = time.monotonic() + 60
    while True:  # the menu items stay disabled until the notebook panel is active
        dismiss_dialogs(page)
        # a notebook panel that is still loading shows a spinner over its cells, swallowing clicks
        page.wait_for_function("() => ![...document.querySelectorAll('.jp-Spinner')].some(e => e.offsetParent !== null)",
                               timeout=120_000)
        page.locator(".jp-Notebook:visible .jp-Cell").first.click(position={"x": 2, "y": 2}, timeout=30_000)
        page.keyboard.press("Escape")
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click(timeout=30_000)
        item = page.locator(".lm-Menu-item", has=page.locator(".lm-Menu-itemLabel",
                                                              has_text=re.compile(r"^Run All( Cells)?$")))
        item.wait_for(timeout=10_000)
        if "lm-mod-disabled" not in (item.get_attribute("class") or ""):
            item.click(timeout=30_000)
            break
        page.keyboard.press("Escape")
        if time.monotonic() > deadline:
            save_artifact("run-menu-disabled.png", page.screenshot())
            raise AssertionError("Run -> Run All Cells stayed disabled for 60 s")
        page.wait_for_timeout(1000)
    try:
        page.wait_for_function(
            """(n) => {
                const nb = [...document.querySelectorAll('.jp-Notebook')].find(e => e.offsetParent !== null);
            const prompts = [...(nb ? nb.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt') : [])]
                    .map(p => p.textContent.trim());
                return prompts.length >= n && prompts.every(t => /^\\[\\d+\\]:$/.test(t));
            }""", arg=n_code_cells, timeout=timeout_ms)
        wait_kernel_idle(page, timeout_ms)
    except Exception as exc:
        prompts = page.locator(".jp-Notebook:visible .jp-CodeCell .jp-InputArea-prompt").all_inner_texts()
        save_artifact("run-all-timeout.png", page.screenshot())
        raise AssertionError(f"Run All did not finish within {timeout_ms / 1000:.0f} s; prompts {prompts}") from exc


def save_notebook(page: Any, path: Path, timeout_s: float = 30.0) -> dict[str, Any]:
    """Save (Ctrl+S) and read the notebook back from disk (outputs as the front end holds them)."""
    before = path.stat().st_mtime_ns
    page.locator(".jp-Notebook:visible").first.click(position={"x": 5, "y": 5})
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.stat().st_mtime_ns != before:
            time.sleep(0.3)
            return json.loads(path.read_text())
        dismiss_dialogs(page)
        time.sleep(0.3)
    raise TimeoutError(f"{path.name} was not saved within {timeout_s:.0f} s")


def error_outputs(nb: dict[str, Any]) -> list[str]:
    out = []
    for i, c in enumerate(nb["cells"]):
        for o in c.get("outputs", []):
            if o.get("output_type") == "error":
                out.append(f"cell {i}: {o.get('ename')}: {o.get('evalue')}")
    return out


def canvas_image(locator: Any) -> Any:
    """The canvas element's pixels (RGB numpy array) via an element screenshot."""
    import numpy as np
    from PIL import Image

    png = locator.screenshot(timeout=30_000, animations="disabled")
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def painted_fraction(img: Any, background: tuple[int, int, int] = (255, 255, 255)) -> float:
    """Fraction of pixels that differ from the background colour by more than 8 levels."""
    import numpy as np

    diff = np.abs(img.astype(int) - np.asarray(background)).max(axis=2)
    return float((diff > 8).mean())


def wait_canvas(locator: Any, ok: Any, timeout_s: float = 90.0, every_s: float = 0.5) -> Any:
    """Poll the canvas until ``ok(image)`` holds or ``timeout_s`` has passed; the last image (callers assert)."""
    deadline = time.monotonic() + timeout_s
    while True:
        img = canvas_image(locator)
        if ok(img) or time.monotonic() > deadline:
            return img
        time.sleep(every_s)


def wait_repaint(locator: Any, before: Any, timeout_s: float = 90.0, min_changed: float = 0.005) -> Any:
    """Poll the canvas until at least ``min_changed`` of its pixels differ from ``before``."""
    import numpy as np

    def changed(img: Any) -> bool:
        return img.shape == before.shape and (np.abs(img.astype(int) - before).max(axis=2) > 8).mean() >= min_changed

    img = wait_canvas(locator, changed, timeout_s)
    if not changed(img):
        raise AssertionError(f"the canvas did not repaint within {timeout_s:.0f} s")
    return img


def save_artifact(name: str, png_or_img: Any) -> Path:
    from PIL import Image

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    p = ARTIFACTS / name
    if isinstance(png_or_img, bytes):
        p.write_bytes(png_or_img)
    else:
        Image.fromarray(png_or_img).save(p)
    return p
