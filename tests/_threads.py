# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Run a test's Playwright work in a thread of its own.

The browser tests keep a session-scoped sync Playwright alive in the main thread; its event loop counts as running
there, and Playwright's sync API refuses to start a second one inside it. A test outside ``tests/browser`` that drives
its own Chromium does so from a fresh thread through :func:`run_in_own_thread`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


def run_in_own_thread(fn: Callable[[], object], timeout_s: float, what: str) -> None:
    """Call ``fn()`` in a new thread and wait up to ``timeout_s``; its exception (an assertion too) is raised here,
    and a call still running at the timeout fails naming ``what``."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            fn()
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    t = threading.Thread(target=target, name=f"own-thread: {what}", daemon=True)
    t.start()
    t.join(timeout_s)
    assert not t.is_alive(), f"{what} did not finish within {timeout_s:.0f} s"
    if errors:
        raise errors[0]
