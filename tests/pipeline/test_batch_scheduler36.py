# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""(blind audit 36) ``smrnb batch --scheduler`` where no Dask scheduler listens: a usage error within its time, never
a hang on a silent server nor an allocation from a web server's bytes."""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("distributed", reason="dask.distributed (the cluster extra) is not installed")


def _batch(address: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "smrnb", "batch", str(tmp_path / "run.toml"), "--output",
                           str(tmp_path / "out"), "--scheduler", address], capture_output=True, text=True, timeout=90,
                          env=dict(os.environ, PYTHONPATH=os.getcwd()))


def test_a_web_server_at_the_scheduler_address_is_named(tmp_path):
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        t0 = time.monotonic()
        out = _batch(f"tcp://127.0.0.1:{server.server_address[1]}", tmp_path)
    finally:
        server.shutdown()
    assert out.returncode == 2 and "does not speak Dask's protocol" in out.stderr, out.stderr
    assert time.monotonic() - t0 < 60 and "MemoryError" not in out.stderr and not (tmp_path / "out").exists()


def test_a_bad_scheduler_value_is_a_usage_error(tmp_path):
    out = _batch("nonsense", tmp_path)
    assert out.returncode == 2 and "--scheduler" in out.stderr and "Traceback" not in out.stderr


def test_a_closed_port_is_said(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = _batch(f"tcp://127.0.0.1:{port}", tmp_path)
    assert out.returncode == 2 and "no Dask scheduler answers" in out.stderr
