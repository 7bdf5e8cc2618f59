# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Several widgets' array updates in one widget message.

Redrawing a re-run's mesh in place changes three arrays (positions, colours, triangle indices), each held by
its own pythreejs ``BufferAttribute`` widget; set one by one they are three comm messages, and each message
costs the kernel a JSON/HMAC envelope and a wake-up of ipykernel's IO thread (together more than the numpy
work of the redraw for a 16k-vertex mesh). :class:`BufferSync` is one small front-end model (anywidget: its
JavaScript ships inside the anywidget wheel's JupyterLab / Notebook extension, nothing is fetched) that takes
the new arrays of several widgets in **one** custom message and hands each widget, in the order given, exactly
the ``update`` message its own comm would have delivered (``_handle_comm_msg``: the same deserializers and
change handlers run, so pythreejs redraws as it always does).

The kernel keeps its side of every widget current without a message (:func:`send_arrays` stores the value as
the trait's own), so a page opened or reloaded later asks for and gets the new arrays. The path is used only
once a front end has loaded the model and said so (``ready``); before that, with no front end (nbconvert,
scripts), or where anywidget is not installed, :func:`send_arrays` returns False and the caller sets the traits
one by one as before.
"""

from __future__ import annotations

import threading
from typing import Any

#: the front end: on a ``smrnb-arrays`` message, every target model gets its update in order (models already
#: closed are skipped: a structure change may have replaced them after the message left the kernel)
_ESM = r"""
function initialize({ model }) {
  model.on("msg:custom", async (msg, buffers) => {
    if (!msg || msg.type !== "smrnb-arrays") return;
    const found = await Promise.allSettled(msg.updates.map((u) => model.widget_manager.get_model(u.model_id)));
    let k = 0;
    msg.updates.forEach((u, i) => {
      const bufs = buffers.slice(k, k + u.buffer_paths.length);
      k += u.buffer_paths.length;
      const target = found[i].status === "fulfilled" ? found[i].value : null;
      if (!target || typeof target._handle_comm_msg !== "function") return;
      target._handle_comm_msg({
        content: { data: { method: "update", state: u.state, buffer_paths: u.buffer_paths } },
        buffers: bufs,
      });
    });
  });
  model.set("ready", true);
  model.save_changes();
}
export default { initialize };
"""

_lock = threading.Lock()
_sync: list[Any] = []


def _make() -> Any:
    import anywidget
    import traitlets

    class BufferSync(anywidget.AnyWidget):
        """See the module docstring. ``ready``: a front end has loaded this model's JavaScript."""

        _esm = traitlets.Unicode(_ESM).tag(sync=True)
        ready = traitlets.Bool(False).tag(sync=True)

    return BufferSync()


def buffer_sync() -> Any | None:
    """The kernel's one :class:`BufferSync` (made on first use, so that a front end loads it before the first
    in-place update), or None where anywidget is not installed."""
    with _lock:
        if _sync and _sync[0].comm is not None:
            return _sync[0]
        try:
            w = _make()
        except ImportError:
            return None
        _sync[:] = [w]
        return w


def send_arrays(targets: list[tuple[Any, str, Any]]) -> bool:
    """Give each ``(widget, trait, array)`` its new array in one message, in the order given; True if sent
    that way. False (nothing changed) when no front end has the sync model ready: set the traits instead.

    Arrays equal to what a widget holds are left out. The arrays must already be what the trait accepts (the viewer's wire arrays: contiguous float32, uint8,
    int8 or uint32), since they are stored without the trait's validation."""
    import numpy as np
    from ipywidgets.widgets.widget import _remove_buffers

    sync = _sync[0] if _sync else None
    if not targets or sync is None or sync.comm is None or not sync.ready:
        return False
    # an array equal to the one the widget holds is not sent (as ipydatawidgets' own trait set does)
    targets = [(w, n, v) for w, n, v in targets if not _same(w._trait_values.get(n), v, np)]
    if not targets:
        return True
    updates, buffers = [], []
    for widget, name, value in targets:
        to_json = widget.trait_metadata(name, "to_json")
        state, paths, bufs = _remove_buffers({name: to_json(value, widget) if to_json else value})
        updates.append({"model_id": widget.model_id, "state": state, "buffer_paths": paths})
        buffers += bufs
    for widget, name, value in targets:  # the kernel's copy of each trait, for pages opened later
        widget._trait_values[name] = value
    sync.send({"type": "smrnb-arrays", "updates": updates}, buffers)
    return True


def _same(old: Any, new: Any, np: Any) -> bool:
    return old is new or (isinstance(old, np.ndarray) and old.shape == new.shape and old.dtype == new.dtype
                          and bool(np.array_equal(old, new)))
