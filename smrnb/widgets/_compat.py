# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The private parts of ipywidgets and traitlets that the widgets rely on, each behind one function.

None of them is public API, so each has a test in ``tests/widgets/test_compat.py`` that fails when the
library changes it (the attribute is gone, or no longer does what is relied on here). The front-end side
(``_handle_comm_msg`` of a widget model, called by the sync model's JavaScript in
:mod:`smrnb.widgets._sync`) is checked there too, in the installed widget manager.

* :func:`split_buffers`: ipywidgets' ``_remove_buffers``, the binary buffers of a widget state taken out
  the way a widget's own update message carries them.
* :func:`control_comm_open`: ipywidgets' ``Widget._control_comm``, the comm a widget front end opens
  when it connects to the kernel.
* :func:`stored_value` and :func:`store_value`: traitlets' ``HasTraits._trait_values``, a trait's value
  as stored, read and written without validation, defaults or change notifications.
* :func:`no_front_end`: the ``comm`` package's ``create_comm`` (the hook a kernel replaces, and ipywidgets
  calls when a widget opens), swapped for its ``DummyComm`` while smrnb makes widgets in a kernel that no
  widget front end will ever show (``nbconvert --execute``): they open no comm, so nothing of them is stored
  in the exported notebook.
* :func:`close_quietly`: the kernel's comm registry (``comm.get_comm_manager().comms``, the dict its
  ``comm_msg`` and ``comm_close`` handlers look ids up in). A widget smrnb closes leaves a stand-in under
  its id there, so a message its front end sent before the close reached it is dropped instead of written
  into the notebook as "No such comm: ID".
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def split_buffers(state: dict[str, Any]) -> tuple[dict[str, Any], list[list[Any]], list[Any]]:
    """``(state without its binary values, the paths of those values, the values)``, as a widget's update
    message carries them (``state`` itself is left as it is)."""
    from ipywidgets.widgets.widget import _remove_buffers

    return _remove_buffers(state)


def control_comm_open() -> bool:
    """Has a widget front end opened ipywidgets' control comm to this kernel (``jupyter.widget.control``)?"""
    from ipywidgets import Widget

    return getattr(Widget, "_control_comm", None) is not None


def stored_value(obj: Any, name: str) -> Any:
    """The value stored for trait ``name`` of ``obj`` (None when none is), without computing a default."""
    return obj._trait_values.get(name)


def store_value(obj: Any, name: str, value: Any) -> None:
    """Make ``value`` the value of trait ``name`` of ``obj`` without validating it or telling observers (no
    widget message goes out)."""
    obj._trait_values[name] = value


_QUIET_LOCK = threading.RLock()
_QUIET: dict[str, Any] = {"depth": 0, "create_comm": None}


def _dummy_comm(*args: Any, **kwargs: Any) -> Any:
    import comm

    return comm.DummyComm(*args, **kwargs)


@contextmanager
def no_front_end(active: bool = True) -> Iterator[None]:
    """While active, widgets made (in any thread) open a ``comm.DummyComm``: a widget that works in Python
    (traits, observers) and sends nothing. Nested and concurrent uses share one swap."""
    if not active:
        yield
        return
    import comm

    with _QUIET_LOCK:
        if _QUIET["depth"] == 0:
            _QUIET["create_comm"] = comm.create_comm
            comm.create_comm = _dummy_comm
        _QUIET["depth"] += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _QUIET["depth"] -= 1
            if _QUIET["depth"] == 0:
                comm.create_comm = _QUIET["create_comm"]


class _ClosedModel:
    """Stands in the kernel's comm registry for a widget smrnb closed: the messages its front end still sends
    (a three.js model echoes its ``version`` when it is made) are dropped. During Run all the kernel reads
    them only after every cell queued before them has run, long after the viewer replaced that geometry."""

    def __init__(self, comm_id: str) -> None:
        self.comm_id = comm_id
        self._closed = True

    def handle_msg(self, msg: Any) -> None:
        """A message the front end sent before it learnt of the close: nothing to do."""

    def handle_close(self, msg: Any) -> None:
        """The front end's own close of the model: nothing left to free."""


#: the stand-ins, oldest first; at most ``_CLOSED_KEPT`` are kept (a late message comes within one run)
_CLOSED_KEPT = 4096
_CLOSED: deque[str] = deque()
_CLOSED_LOCK = threading.Lock()


def close_quietly(widget: Any) -> None:
    """``widget.close()``, leaving a stand-in that drops the front end's late messages to it."""
    c = getattr(widget, "comm", None)
    comm_id = getattr(c, "comm_id", None)
    widget.close()
    if comm_id is None or type(c).__name__ == "DummyComm":  # a widget no front end knows sends nothing back
        return
    import comm

    comms = getattr(comm.get_comm_manager(), "comms", None)
    if not isinstance(comms, dict):
        return
    with _CLOSED_LOCK:
        if comm_id not in comms:
            comms[comm_id] = _ClosedModel(comm_id)
            _CLOSED.append(comm_id)
        while len(_CLOSED) > _CLOSED_KEPT:
            old = _CLOSED.popleft()
            if isinstance(comms.get(old), _ClosedModel):
                del comms[old]


__all__ = ["close_quietly", "control_comm_open", "no_front_end", "split_buffers", "store_value", "stored_value"]
