# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The native helper process (smrnb/_native.py): started without fork, warm between calls, and a crash, a
hang or Ctrl-C in it never takes the caller down."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import pytest

from smrnb import _native
from smrnb._errors import SmrnbValueError

T = "tests._native_targets"


@pytest.fixture(autouse=True)
def _fresh_helper(monkeypatch):
    monkeypatch.delenv(_native.ENV, raising=False)
    _native.shutdown()
    yield
    _native.shutdown()


def test_a_call_runs_in_a_warm_helper_that_is_not_a_fork_and_counts_native_output():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fork of this (threaded) process would warn
        out = _native.call(f"{T}:echo", {"x": 3}, timeout=60, what="echo")
    assert out["x"] == 3 and out["pid"] != os.getpid() and out["native_warnings"] == 0
    pid = _native.helper_pid()
    assert pid == out["pid"]
    # a fresh interpreter, not a copy of this one: it has not imported what this process has
    assert out["has_pytest"] is False
    t0 = time.perf_counter()
    again = _native.call(f"{T}:echo", {"x": 4}, timeout=60, what="echo")
    assert again["pid"] == pid and time.perf_counter() - t0 < 1.0  # warm: the same process
    noisy = _native.call(f"{T}:print_lines", 3, timeout=60, what="noisy")
    assert noisy["native_warnings"] == 3  # C-level output counted, not shown
    assert _native.call(f"{T}:print_lines", 0, timeout=60, what="quiet")["native_warnings"] == 0


def test_a_crash_in_native_code_is_an_error_and_the_next_call_gets_a_new_helper():
    first = _native.call(f"{T}:echo", {}, timeout=60, what="echo")["pid"]
    with pytest.raises(SmrnbValueError, match=r"crash test crashed in native code \(SIGSEGV\)"):
        _native.call(f"{T}:segfault", timeout=60, what="crash test")
    assert _native.helper_pid() is None
    assert _native.call(f"{T}:echo", {}, timeout=60, what="echo")["pid"] != first


def test_a_hang_is_stopped_at_the_time_limit():
    t0 = time.monotonic()
    with pytest.raises(SmrnbValueError, match="hang test ran past its time limit of 1 s and was stopped"):
        _native.call(f"{T}:hang", timeout=1.0, what="hang test")
    assert time.monotonic() - t0 < 10
    assert _native.call(f"{T}:echo", {"ok": 1}, timeout=60, what="echo")["ok"] == 1


def test_an_error_in_the_function_is_reported_and_the_helper_stays():
    pid = _native.call(f"{T}:echo", {}, timeout=60, what="echo")["pid"]
    with pytest.raises(SmrnbValueError, match="bad input failed: ValueError: no good"):
        _native.call(f"{T}:fail", timeout=60, what="bad input")
    assert _native.helper_pid() == pid


def test_ctrl_c_while_waiting_stops_the_helper_not_the_caller():
    # Python's own Ctrl-C handler, as in a terminal or a kernel: a suite started in the background of a non-interactive
    # shell (nohup ... &) inherits an ignored SIGINT, and Python then installs no handler (see tests/pipeline/test_cli.py)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _ctrl_c_while_waiting()
    finally:
        signal.signal(signal.SIGINT, old)


def _ctrl_c_while_waiting():
    _native.call(f"{T}:echo", {}, timeout=60, what="echo")
    pid = _native.helper_pid()
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        _native.call(f"{T}:hang", timeout=None, what="hang")
    assert time.monotonic() - t0 < 10
    timer.join()
    with pytest.raises(ProcessLookupError):  # the helper is gone, killed by the caller
        for _ in range(50):
            os.kill(pid, 0)
            time.sleep(0.1)
    assert _native.call(f"{T}:echo", {"after": True}, timeout=60, what="echo")["after"] is True


def test_a_terminal_ctrl_c_reaches_the_caller_only():
    """SIGINT to the caller's process group (a terminal's Ctrl-C) does not reach the helper: its own session."""
    code = (f"import os, signal, time, sys\nsys.path.insert(0, {os.getcwd()!r})\nfrom smrnb import _native\n"
            f"print(_native.call('{T}:echo', {{}}, timeout=60, what='echo')['pid'], flush=True)\n"
            "signal.signal(signal.SIGINT, lambda *a: print('caller got SIGINT', flush=True))\n"
            "os.killpg(os.getpgrp(), signal.SIGINT)\ntime.sleep(0.5)\n"
            f"print(_native.call('{T}:echo', {{'alive': 1}}, timeout=60, what='echo')['pid'], flush=True)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       start_new_session=True)
    lines = r.stdout.split()
    assert r.returncode == 0, r.stderr
    assert "SIGINT" in r.stdout and lines[0] == lines[-1]  # the same helper answered after the Ctrl-C


def test_in_process_when_asked(monkeypatch):
    monkeypatch.setenv(_native.ENV, "0")
    assert _native.call(f"{T}:echo", {}, timeout=1, what="echo")["pid"] == os.getpid()


def test_a_pipeline_with_a_uv_step_starts_the_helper_before_the_step_runs():
    from smrnb.pipeline import get_step

    assert _native.helper_pid() is None
    get_step("uv").prepare()  # what Pipeline.run does for the stages it is about to run
    pid = _native.helper_pid()
    assert pid is not None
    res = _native.call("smrnb._xatlas:unwrap", *_square(), {"max_chart_area": 1.0, "normal_deviation_weight": 2.0,
                                                           "max_cost": 1.0, "padding": 0.01, "resolution": 64},
                       timeout=60, what="xatlas")
    assert _native.helper_pid() == pid and res["atlas_count"] == 1 and len(res["uvs"]) == 4


def _square():
    import numpy as np

    v = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=np.float32)
    f = np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32)
    return v, f


def test_a_helper_that_died_between_calls_is_replaced():
    pid = _native.call(f"{T}:echo", {}, timeout=60, what="echo")["pid"]
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.3)
    with pytest.raises(EOFError):  # writing to or reading from the dead helper: what call() reports as a crash
        _native._helper.request(f"{T}:echo", ({},), 10, "echo")
    assert _native.call(f"{T}:echo", {"n": 2}, timeout=60, what="echo")["pid"] != pid  # a new helper
