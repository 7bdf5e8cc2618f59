# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Stopping long work between frames: a stop request that loops check at their natural seams.

A caller that can be asked to stop (the app's Stop button) runs its work inside
``with stoppable(event):``; loops over frames (TSDF fusion, texture baking) and the pipeline
between stages call :func:`check`, which raises :class:`Stopped` once ``event`` is set. Nothing
half-done is kept: the stage that was stopped has no result and stays stale.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from smrnb._errors import SmrnbError

_local = threading.local()


class Stopped(SmrnbError):
    """The work was stopped on request (between two frames or two stages)."""


@contextmanager
def stoppable(event: threading.Event) -> Iterator[threading.Event]:
    """Make :func:`check` in this thread raise :class:`Stopped` once ``event`` is set."""
    prev = getattr(_local, "event", None)
    _local.event = event
    try:
        yield event
    finally:
        _local.event = prev


def check(where: str = "") -> None:
    """Raise :class:`Stopped` when a stop was requested for this thread's work; cheap otherwise."""
    ev = getattr(_local, "event", None)
    if ev is not None and ev.is_set():
        raise Stopped(f"stopped on request{' ' + where if where else ''}")


__all__ = ["Stopped", "check", "stoppable"]
