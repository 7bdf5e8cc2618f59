# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The private parts of ipywidgets, traitlets and the widget front end that the widgets rely on: each test fails
when the library changes what :mod:`smrnb.widgets._compat` (or the sync model's JavaScript) relies on."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from smrnb.widgets import _compat
from smrnb.widgets._compat import close_quietly, control_comm_open, split_buffers, store_value, stored_value


def test_split_buffers_takes_the_binary_values_out_of_a_state_as_an_update_message_carries_them():
    a, b = memoryview(np.arange(6, dtype=np.uint32)), b"\x01\x02"
    state = {"array": {"shape": [2, 3], "dtype": "uint32", "buffer": a}, "plain": [1, "x"], "more": [b, 3]}
    out, paths, buffers = split_buffers(state)
    assert out == {"array": {"shape": [2, 3], "dtype": "uint32"}, "plain": [1, "x"], "more": [None, 3]}
    assert paths == [["array", "buffer"], ["more", 0]] and buffers[0] is a and buffers[1] is b
    assert state["array"]["buffer"] is a and state["more"][0] is b  # the state given is left as it is


@pytest.fixture
def kernel_comms(monkeypatch):
    """The ``comm`` package's own comm manager and comms that publish nothing, as a kernel's are wired."""
    import comm
    from comm.base_comm import BaseComm, CommManager

    class Quiet(BaseComm):
        def publish_msg(self, *args, **kwargs):
            pass

    manager = CommManager()
    monkeypatch.setattr(comm, "get_comm_manager", lambda: manager)
    monkeypatch.setattr(comm, "create_comm", lambda *a, **k: Quiet(*a, **k))
    return manager


def _front_end(manager, kind: str, comm_id: str) -> None:
    """The kernel's handler for a message the front end sent to ``comm_id`` (``comm_msg`` or ``comm_close``)."""
    msg = {"content": {"comm_id": comm_id, "data": {"method": "update", "state": {"version": 1}}}}
    getattr(manager, kind)(None, None, msg)


def test_a_closed_widget_drops_the_front_ends_late_messages(kernel_comms, caplog):
    import ipywidgets as ipw

    # the library: a message to a comm the kernel closed is logged as "No such comm" (the kernel's stderr,
    # which ipykernel sends into the notebook)
    plain = ipw.IntSlider()
    pid = plain.comm.comm_id
    assert kernel_comms.comms[pid] is plain.comm
    plain.close()
    with caplog.at_level("WARNING", logger="Comm"):
        _front_end(kernel_comms, "comm_msg", pid)
    assert f"No such comm: {pid}" in caplog.text
    caplog.clear()
    # close_quietly: the same close (the front end is told, the widget is gone), the late messages dropped
    w = ipw.IntSlider()
    wid = w.comm.comm_id
    close_quietly(w)
    assert w.comm is None and not isinstance(kernel_comms.comms[wid], type(plain.comm))
    with caplog.at_level("WARNING", logger="Comm"):
        _front_end(kernel_comms, "comm_msg", wid)
        _front_end(kernel_comms, "comm_close", wid)  # the front end's own close takes the stand-in away
        assert wid not in kernel_comms.comms
    assert "No such comm" not in caplog.text


def test_closed_widget_stand_ins_are_bounded(kernel_comms, monkeypatch):
    import ipywidgets as ipw

    monkeypatch.setattr(_compat, "_CLOSED_KEPT", 3)
    monkeypatch.setattr(_compat, "_CLOSED", _compat.deque())
    ids = []
    for _ in range(5):
        w = ipw.IntSlider()
        ids.append(w.comm.comm_id)
        close_quietly(w)
    assert [i in kernel_comms.comms for i in ids] == [False, False, True, True, True]
    d = ipw.IntSlider()
    monkeypatch.setattr(d, "comm", __import__("comm").DummyComm())  # a widget no front end knows: nothing kept
    close_quietly(d)
    assert sum(isinstance(c, _compat._ClosedModel) for c in kernel_comms.comms.values()) == 3


def test_control_comm_open_reads_the_comm_a_front_end_opens(monkeypatch):
    from ipywidgets import Widget
    from ipywidgets._version import __control_protocol_version__

    assert "_control_comm" in vars(Widget)  # the class attribute read, None until a front end connects
    monkeypatch.setattr(Widget, "_control_comm", None)
    assert control_comm_open() is False

    class Comm:
        def on_msg(self, callback):
            self.callback = callback

    comm = Comm()
    # what ipywidgets runs when the front end opens "jupyter.widget.control"
    Widget.handle_control_comm_opened(comm, {"metadata": {"version": __control_protocol_version__}})
    assert Widget._control_comm is comm and control_comm_open() is True


def test_stored_values_are_read_and_written_without_defaults_validation_or_messages(monkeypatch):
    import traitlets
    from ipywidgets import Widget

    class Lazy(traitlets.HasTraits):
        made = traitlets.Any()

        @traitlets.default("made")
        def _made(self):
            raise AssertionError("stored_value must not compute a default")

    assert stored_value(Lazy(), "made") is None

    class W(Widget):
        n = traitlets.Int(7).tag(sync=True)

    w = W()
    seen, sent = [], []
    w.observe(lambda c: seen.append(c), names=["n"])
    monkeypatch.setattr(Widget, "_send", lambda self, msg, buffers=None: sent.append(msg))
    assert stored_value(w, "n") == 7
    store_value(w, "n", "not an int")  # stored as given: no validation
    assert w.n == "not an int" and stored_value(w, "n") == "not an int"
    assert seen == [] and sent == []  # no observer called, no message sent
    assert w.get_state("n") == {"n": "not an int"}  # a page asking for the state gets the stored value


def _labextension(name: str) -> Path | None:
    from jupyter_core.paths import jupyter_path

    for root in jupyter_path("labextensions"):
        d = Path(root, *name.split("/"), "static")
        if d.is_dir():
            return d
    return None


def test_widget_models_in_the_installed_widget_manager_handle_comm_messages_as_the_sync_model_calls_them():
    """The sync model's JavaScript hands each buffer widget its update through the model's ``_handle_comm_msg``
    (the method a model's own comm delivers to); it must take ``{content: {data: {method: "update", ...}}}``."""
    static = _labextension("@jupyter-widgets/jupyterlab-manager")
    if static is None:
        pytest.skip("the @jupyter-widgets/jupyterlab-manager lab extension is not installed")
    text = "".join(p.read_text(encoding="utf-8", errors="replace") for p in static.glob("*.js"))
    m = re.search(r"_handle_comm_msg\((\w+)\)\{(.{0,200})", text)
    assert m is not None, "WidgetModel._handle_comm_msg(msg) is not defined in the installed widget manager"
    arg, body = m.group(1), m.group(2)
    assert f"{arg}.content.data" in body and '"update"' in body
