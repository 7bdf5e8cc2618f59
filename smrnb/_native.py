# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Native calls that may crash or hang, run in a warm helper process that was never forked from the caller.

Some native libraries (xatlas) can segfault or loop forever on unlucky input. :func:`call` runs such a
call in a helper process, so a crash, a hang past the time limit or Ctrl-C ends the helper and raises a
clear error in the caller, whose state (a Jupyter kernel's, with CUDA contexts and thread pools) stays
intact. The helper is started with ``subprocess`` (a fresh interpreter: ``python -m smrnb._native``; no
``fork()`` of a process that holds CUDA and OpenMP threads, so no deadlock risk and no warning), in its
own session (a terminal's or Jupyter's interrupt reaches the caller only, which then stops the helper), and
is kept warm for the next call while the caller lives (it exits when the caller's end of its pipe closes).
Its C-level output (xatlas' ``ASSERT`` lines) goes to a file; the lines a call printed are counted and
returned as ``native_warnings`` instead of reaching the user.

Protocol: each request is ``pickle((target, args))`` with an 8-byte length, written to the helper's stdin;
``target`` is ``"module:function"``, imported in the helper (which sees the caller's ``sys.path``). Each
answer comes back the same way on a pipe of its own: ``("ok", value, lines)`` or ``("error", text, lines)``.

``SMRNB_NATIVE_HELPER=0`` runs the calls in the caller's process instead (no isolation).
"""

from __future__ import annotations

import atexit
import importlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from smrnb._errors import SmrnbValueError

ENV = "SMRNB_NATIVE_HELPER"
_LEN = struct.Struct("<Q")
#: modules the helper imports as it starts (so that the first call does not wait for them)
PRELOAD = ("numpy",)


class _Helper:
    """One helper process: its pipes, its log file and the lock that keeps calls one at a time."""

    def __init__(self, preload: tuple[str, ...]) -> None:
        self.lock = threading.Lock()
        rfd, wfd = os.pipe()  # answers: the helper writes wfd, the caller reads rfd
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([p or os.getcwd() for p in sys.path])
        env["PYTHONUNBUFFERED"] = "1"
        self.log = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "smrnb._native", str(wfd), *preload], stdin=subprocess.PIPE,
                stdout=self.log, stderr=self.log, pass_fds=(wfd,), env=env, start_new_session=True, close_fds=True)
        finally:
            os.close(wfd)
        self.rfd = rfd
        self.pid = self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        """End the helper (SIGKILL: it may be stuck in native code) and release its pipes."""
        try:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for f in (self.proc.stdin,):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        try:
            os.close(self.rfd)
        except OSError:
            pass
        self.log.close()

    def _read(self, n: int, deadline: float | None, what: str, timeout: float | None) -> bytes:
        buf = b""
        while len(buf) < n:
            wait = 0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic()))
            ready, _, _ = select.select([self.rfd], [], [], wait)
            if ready:
                chunk = os.read(self.rfd, n - len(buf))
                if not chunk:
                    raise EOFError
                buf += chunk
            elif deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"{what} ran past its time limit of {timeout:g} s and was stopped")
        return buf

    def request(self, target: str, args: tuple, timeout: float | None, what: str) -> tuple[str, Any, int]:
        data = pickle.dumps((target, args), protocol=pickle.HIGHEST_PROTOCOL)
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(_LEN.pack(len(data)) + data)
            self.proc.stdin.flush()
        except BrokenPipeError:  # the helper died between two calls: reported as a crash
            raise EOFError from None
        deadline = None if timeout is None else time.monotonic() + float(timeout)
        n = _LEN.unpack(self._read(_LEN.size, deadline, what, timeout))[0]
        return pickle.loads(self._read(n, deadline, what, timeout))


_helper: _Helper | None = None
_start_lock = threading.Lock()


def _get(preload: tuple[str, ...] = PRELOAD) -> _Helper:
    global _helper
    with _start_lock:
        if _helper is None or not _helper.alive():
            if _helper is not None:
                _helper.stop()
            _helper = _Helper(tuple(dict.fromkeys(PRELOAD + preload)))
        return _helper


def prewarm(*modules: str) -> None:
    """Start the helper now (if it is not running), importing ``modules`` as it starts, without waiting
    for it: the next :func:`call` finds it ready."""
    if _enabled():
        _get(tuple(modules))


def helper_pid() -> int | None:
    """The process id of the running helper, or None."""
    return _helper.pid if _helper is not None and _helper.alive() else None


def shutdown() -> None:
    """Stop the helper (the next call starts a new one)."""
    global _helper
    with _start_lock:
        if _helper is not None:
            _helper.stop()
            _helper = None


atexit.register(shutdown)


def _enabled() -> bool:
    return os.environ.get(ENV, "").strip().lower() not in ("0", "no", "false", "off") and os.name == "posix"


def _resolve(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def call(target: str, *args: Any, timeout: float | None, what: str) -> Any:
    """``module:function(*args)`` in the helper; returns its result.

    When the result is a dict, ``native_warnings`` is set in it: the lines the native code printed
    during the call. Raises :class:`SmrnbValueError` when the helper crashes (the signal is named), runs
    past ``timeout`` seconds (it is stopped) or the function raises; Ctrl-C stops the helper and raises
    :class:`KeyboardInterrupt` in the caller. A stopped or crashed helper is replaced at the next call.
    """
    if not _enabled():
        value = _resolve(target)(*args)
        if isinstance(value, dict):
            value.setdefault("native_warnings", 0)
        return value
    helper = _get()
    with helper.lock:
        try:
            kind, value, lines = helper.request(target, args, timeout, what)
        except TimeoutError as exc:
            shutdown()
            raise SmrnbValueError(f"{exc}; simplify the mesh first (simplify_mesh) or raise timeout") from None
        except EOFError:
            code = helper.proc.wait(timeout=10)
            shutdown()
            if code is not None and code < 0:
                sig = -code
                name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
                raise SmrnbValueError(f"{what} crashed in native code ({name}) on this input; check the mesh for "
                                      "degenerate or huge triangles (repair_non_manifold, simplify_mesh)") from None
            raise SmrnbValueError(f"{what} ended without a result (exit status {code})") from None
        except BaseException:  # Ctrl-C while waiting, or a broken pipe: the helper's state is unknown
            shutdown()
            raise
    if kind != "ok":
        raise SmrnbValueError(f"{what} failed: {value}")
    if isinstance(value, dict):
        value["native_warnings"] = lines
    return value


# ------------------------------------------------------------------------------------ the helper side


def _serve(answer_fd: int, preload: list[str]) -> None:
    """The helper's loop: read a request from stdin, run it, write the answer to ``answer_fd``; C-level
    output goes to the file the caller gave as stdout/stderr, counted per call."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller decides when a call stops
    for name in preload:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    out = os.fdopen(answer_fd, "wb")
    inp = sys.stdin.buffer
    while True:
        head = inp.read(_LEN.size)
        if len(head) < _LEN.size:
            return  # the caller has gone
        target, args = pickle.loads(inp.read(_LEN.unpack(head)[0]))
        sys.stdout.flush()
        sys.stderr.flush()
        start = os.lseek(1, 0, os.SEEK_END)
        try:
            answer: tuple = ("ok", _resolve(target)(*args))
        except BaseException as exc:  # reported to the caller, the helper stays up
            answer = ("error", f"{type(exc).__name__}: {str(exc)[:500]}")
        sys.stdout.flush()
        sys.stderr.flush()
        end = os.lseek(1, 0, os.SEEK_END)
        os.lseek(1, start, os.SEEK_SET)
        printed = os.read(1, min(end - start, 1 << 20)) if end > start else b""
        os.lseek(1, 0, os.SEEK_END)
        lines = sum(1 for ln in printed.decode("utf-8", "replace").splitlines() if ln.strip())
        data = pickle.dumps((*answer, lines), protocol=pickle.HIGHEST_PROTOCOL)
        out.write(_LEN.pack(len(data)) + data)
        out.flush()


__all__ = ["ENV", "call", "helper_pid", "prewarm", "shutdown"]


if __name__ == "__main__":
    _serve(int(sys.argv[1]), sys.argv[2:])
