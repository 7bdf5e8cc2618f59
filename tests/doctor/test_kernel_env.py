# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""End to end: a real ipykernel started by jupyter_client, with and without LD_LIBRARY_PATH at start.

The warning must reach the notebook (the iopub stream) when LD_LIBRARY_PATH was set inside the
running kernel before ``%load_ext smrnb``, and must stay silent when the kernel started with it.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import time

import pytest

pytest.importorskip("ipykernel")
jupyter_client = pytest.importorskip("jupyter_client")
from jupyter_client import KernelManager  # noqa: E402
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402

WARNING_HEAD = "smrnb: the loader environment changed"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture()
def kernel_factory(tmp_path):
    """Start real kernels (this Python's ipykernel) with a given start environment; always shut down."""
    kdir = tmp_path / "data" / "kernels" / "smrnb-test-py"  # in JUPYTER_DATA_DIR, where Jupyter looks
    kdir.mkdir(parents=True)
    (kdir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "smrnb test", "language": "python"}))
    ksm = KernelSpecManager(kernel_dirs=[str(tmp_path / "data" / "kernels")])
    started = []

    def start(env: dict[str, str]):
        km = KernelManager(kernel_name="smrnb-test-py", kernel_spec_manager=ksm)
        km.start_kernel(env=env, cwd=str(tmp_path))
        started.append(km)
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=90)
        started.append(kc)
        return kc

    yield start
    for obj in reversed(started):
        if isinstance(obj, KernelManager):
            obj.shutdown_kernel(now=True)
        else:
            obj.stop_channels()


def run_cell(kc, code: str, timeout: float = 60.0) -> tuple[str, list[dict]]:
    """Execute ``code``; return everything written to stdout/stderr streams and the error messages."""
    msg_id = kc.execute(code)
    text, errors = [], []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no idle status for {code!r} within {timeout} s")
        try:
            msg = kc.get_iopub_msg(timeout=left)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        mt = msg["msg_type"]
        if mt == "stream":
            text.append(msg["content"]["text"])
        elif mt == "error":
            errors.append(msg["content"])
        elif mt == "status" and msg["content"]["execution_state"] == "idle":
            break
    kc.get_shell_msg(timeout=timeout)  # the execute_reply
    return "".join(text), errors


def _base_env(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH")}
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    env["JUPYTER_DATA_DIR"] = str(tmp_path / "data")
    env.pop("SMRNB_NO_EXCEPTION_HOOK", None)
    return env


@pytest.mark.slow
def test_kernel_started_with_ld_library_path_gives_no_warning(kernel_factory, tmp_path):
    env = _base_env(tmp_path)
    env["LD_LIBRARY_PATH"] = "/opt/smrnb-start/lib"
    kc = kernel_factory(env)
    out, errors = run_cell(kc, "import os; print(os.environ.get('LD_LIBRARY_PATH'))")
    assert out.strip() == "/opt/smrnb-start/lib" and not errors
    out, errors = run_cell(kc, "%load_ext smrnb")
    assert not errors, errors
    assert WARNING_HEAD not in out, out


@pytest.mark.slow
def test_ld_library_path_set_inside_the_kernel_warns_on_load_and_after_cells(kernel_factory, tmp_path):
    kc = kernel_factory(_base_env(tmp_path))
    out, errors = run_cell(kc, "import os; os.environ['LD_LIBRARY_PATH'] = '/opt/smrnb-late/lib'")
    assert not errors and WARNING_HEAD not in out  # the extension is not loaded yet
    out, errors = run_cell(kc, "%load_ext smrnb")
    assert not errors, errors
    assert WARNING_HEAD in out and "since this kernel started" in out, out
    assert "LD_LIBRARY_PATH: at start None, now '/opt/smrnb-late/lib'" in out
    assert "will NOT be found" in out and "smr-doctor fix kernelspec" in out
    # the post-cell hook: a later cell changes it again -> warned right after that cell
    out, errors = run_cell(kc, "%env LD_LIBRARY_PATH=/opt/smrnb-later/lib")
    assert "in the cell that just ran" in out and "/opt/smrnb-later/lib" in out, out
    # a cell that changes nothing stays silent
    out, errors = run_cell(kc, "x = 1")
    assert WARNING_HEAD not in out
    # the one command that fixes it, from inside this kernel: a kernelspec carrying the current value
    out, errors = run_cell(kc, "_ = %smr_doctor --fix kernelspec --dry-run --name e2e-fixed")
    assert not errors, errors
    shown, _ = json.JSONDecoder().raw_decode(out.split(":\n", 1)[1])  # notes may follow the JSON
    assert shown["env"]["LD_LIBRARY_PATH"] == "/opt/smrnb-later/lib"
    # the running kernel's own spec (found through its connection file) gives the argv that is copied
    assert shown["argv"][0] == sys.executable and "{connection_file}" in shown["argv"]
