# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Several widgets' array updates in one widget message.

Redrawing a re-run's mesh in place changes three arrays (positions, colours, triangle indices), each held by
its own pythreejs ``BufferAttribute`` widget; set one by one they are three comm messages, and each message
costs the kernel a JSON/HMAC envelope and a wake-up of ipykernel's IO thread (in an interpreter that sat idle
while the person looked at the picture, ~0.3-0.5 ms each: more than the numpy work of the redraw for a
16k-vertex mesh). :class:`BufferSync` is one small front-end model (anywidget: its JavaScript ships inside the
anywidget wheel's JupyterLab / Notebook extension, nothing is fetched) that takes the new arrays of several
widgets in **one** custom message and hands each widget, in the order given, exactly the ``update`` message its
own comm would have delivered (``_handle_comm_msg``: the same deserializers and change handlers run, so
pythreejs redraws as it always does).

Smooth shading's vertex normals can be **derived by the page** from the positions and triangles in the same
message (area-weighted, as :func:`smrnb.compute_vertex_normals` computes them by default; quantised to int8 like
:func:`smrnb.widgets._layers.wire_normals`): the kernel then sends no normals and computes its own copy only when
asked for the widget's state (:class:`DerivedArray`).

The kernel keeps its side of every widget current without a message (:func:`send_arrays` stores the value as
the trait's own), so a page opened or reloaded later asks for and gets the new arrays. The path is used only
once a front end has loaded the model and said so (``ready``); before that, with no front end (nbconvert,
scripts), or where anywidget is not installed, :func:`send_arrays` returns False and the caller sets the traits
one by one. A page that cannot apply an update says which widgets it missed; they get their arrays the
ordinary way and the kernel stops using the path until a page loads the model again.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from smrnb.widgets._compat import split_buffers, store_value, stored_value

#: the page's area-weighted vertex normals of float32 positions (x, y, z per vertex) and uint32 triangles, as
#: int8 (round(127 * unit normal); a vertex whose faces' normals cancel gets 0, 0, 0). Sums in float64.
NORMALS_JS = r"""
function vertexNormals(p, tri) {
  const acc = new Float64Array(p.length);
  for (let f = 0; f < tri.length; f += 3) {
    const a = 3 * tri[f], b = 3 * tri[f + 1], c = 3 * tri[f + 2];
    const x1 = p[b] - p[a], y1 = p[b + 1] - p[a + 1], z1 = p[b + 2] - p[a + 2];
    const x2 = p[c] - p[a], y2 = p[c + 1] - p[a + 1], z2 = p[c + 2] - p[a + 2];
    const nx = y1 * z2 - z1 * y2, ny = z1 * x2 - x1 * z2, nz = x1 * y2 - y1 * x2;
    acc[a] += nx; acc[a + 1] += ny; acc[a + 2] += nz;
    acc[b] += nx; acc[b + 1] += ny; acc[b + 2] += nz;
    acc[c] += nx; acc[c + 1] += ny; acc[c + 2] += nz;
  }
  const out = new Int8Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    const len = Math.sqrt(acc[i] * acc[i] + acc[i + 1] * acc[i + 1] + acc[i + 2] * acc[i + 2]);
    if (len > 0) {
      out[i] = Math.round((127 * acc[i]) / len);
      out[i + 1] = Math.round((127 * acc[i + 1]) / len);
      out[i + 2] = Math.round((127 * acc[i + 2]) / len);
    }
  }
  return out;
}
"""

#: the front end: on a ``smrnb-arrays`` message, the normals it is asked to derive are computed from the message's
#: own position and index buffers and placed right after the positions; then every target model gets its update
#: in order, in one task; the ids of models it could not find or update go back in a ``smrnb-arrays-failed``
#: message (see :func:`_on_failed`)
_ESM = NORMALS_JS + r"""
function typed(Kind, view) {
  const n = view.byteLength / Kind.BYTES_PER_ELEMENT;
  if (view.byteOffset % Kind.BYTES_PER_ELEMENT === 0) return new Kind(view.buffer, view.byteOffset, n);
  return new Kind(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
}

function initialize({ model }) {
  model.on("msg:custom", async (msg, buffers) => {
    if (!msg || msg.type !== "smrnb-arrays") return;
    const failed = [];
    let k = 0;
    const entries = msg.updates.map((u) => {
      const bufs = buffers.slice(k, k + u.buffer_paths.length);
      k += u.buffer_paths.length;
      return { u, bufs };
    });
    const byId = new Map(entries.map((e) => [e.u.model_id, e]));
    for (const r of msg.normals || []) {
      const P = byId.get(r.position), T = byId.get(r.index);
      if (!P || !T) {
        failed.push(r.model_id);
        continue;
      }
      const out = vertexNormals(typed(Float32Array, P.bufs[0]), typed(Uint32Array, T.bufs[0]));
      const entry = {
        u: { model_id: r.model_id, state: { array: { shape: [out.length / 3, 3], dtype: "int8" } },
             buffer_paths: [["array", "buffer"]] },
        bufs: [new DataView(out.buffer)],
      };
      entries.splice(entries.indexOf(P) + 1, 0, entry);
    }
    const found = await Promise.allSettled(entries.map((e) => model.widget_manager.get_model(e.u.model_id)));
    entries.forEach(({ u, bufs }, i) => {
      const target = found[i].status === "fulfilled" ? found[i].value : null;
      if (!target || typeof target._handle_comm_msg !== "function") {
        failed.push(u.model_id);
        return;
      }
      try {
        target._handle_comm_msg({
          content: { data: { method: "update", state: u.state, buffer_paths: u.buffer_paths } },
          buffers: bufs,
        });
      } catch (err) {
        failed.push(u.model_id);
      }
    });
    if (failed.length) model.send({ type: "smrnb-arrays-failed", model_ids: failed });
  });
  model.set("ready", true);
  model.save_changes();
}
export default { initialize };
"""

_lock = threading.Lock()
_sync: list[Any] = []
#: the widgets of the updates sent, by model id, while they live (a failure report names them by id)
_recent: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
_PENDING = "_smrnb_pending"


def _make() -> Any:
    import anywidget
    import traitlets

    class BufferSync(anywidget.AnyWidget):
        """See the module docstring. ``ready``: a front end has loaded this model's JavaScript."""

        _esm = traitlets.Unicode(_ESM).tag(sync=True)
        ready = traitlets.Bool(False).tag(sync=True)

    w = BufferSync()
    w.on_msg(_on_failed)
    return w


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


def sync_ready() -> bool:
    """A page has loaded the sync model (the next :func:`send_arrays` will go as one message)."""
    sync = _sync[0] if _sync else None
    return bool(sync is not None and sync.comm is not None and sync.ready)


class DerivedArray:
    """Mixin for a widget with an ``array`` trait whose kernel copy may still be owed (a page derived the array
    itself, see :func:`send_arrays`): the copy is computed when the widget's state is asked for (a page opened
    later, an embed), so the kernel never sends stale values."""

    def get_state(self, key: Any = None, drop_defaults: bool = False) -> Any:
        fn = self.__dict__.pop(_PENDING, None)
        if fn is not None:
            store_value(self, "array", fn())
        return super().get_state(key=key, drop_defaults=drop_defaults)  # type: ignore[misc]


def drop_pending(widget: Any) -> None:
    """Forget an owed copy (the caller is about to set the array)."""
    widget.__dict__.pop(_PENDING, None)


def send_arrays(targets: list[tuple[Any, str, Any]], derived: list[tuple[Any, Any, Any, Any]] = ()) -> bool:
    """Give each ``(widget, trait, array)`` its new array in one message, in the order given; True if sent
    that way. False (nothing changed) when no front end has the sync model ready: set the traits instead.

    ``derived``: ``(normal_widget, position_widget, index_widget, compute)``: the page derives that widget's
    normals from the position and index arrays of this message (both are sent even when unchanged); the kernel's
    copy is ``compute()``, called when the widget's state is asked for (the widget must be a
    :class:`DerivedArray`).

    Arrays equal to what a widget holds are left out. The arrays must already be what the trait accepts (the
    viewer's wire arrays: contiguous float32, uint8, int8 or uint32), since they are stored without the trait's
    validation."""
    if not (targets or derived) or not sync_ready():
        return False
    sync = _sync[0]
    needed = {id(w) for _n, p, i, _f in derived for w in (p, i)}
    # an array equal to the one the widget holds is not sent (as ipydatawidgets' own trait set does)
    targets = [(w, n, v) for w, n, v in targets
               if id(w) in needed or _PENDING in w.__dict__ or not _same(stored_value(w, n), v)]
    if not targets:
        return True
    updates, buffers = [], []
    for widget, name, value in targets:
        to_json = widget.trait_metadata(name, "to_json")
        state, paths, bufs = split_buffers({name: to_json(value, widget) if to_json else value})
        updates.append({"model_id": widget.model_id, "state": state, "buffer_paths": paths})
        buffers += bufs
    for widget, name, value in targets:  # the kernel's copy of each trait, for pages opened later
        drop_pending(widget)
        store_value(widget, name, value)
        _recent[widget.model_id] = widget
    for widget, _p, _i, compute in derived:
        widget.__dict__[_PENDING] = compute
        _recent[widget.model_id] = widget
    normals = [{"model_id": n.model_id, "position": p.model_id, "index": i.model_id} for n, p, i, _f in derived]
    sync.send({"type": "smrnb-arrays", "updates": updates, "normals": normals}, buffers)
    return True


def _on_failed(sync: Any, content: Any, buffers: Any) -> None:
    """A front end could not apply some arrays (a model it does not know, a front end unlike JupyterLab's):
    no more one-message updates from this kernel until a page loads the model again, and the widgets that a
    page still has get their current array the ordinary way (a widget closed meanwhile has nothing to send)."""
    if not isinstance(content, dict) or content.get("type") != "smrnb-arrays-failed":
        return
    sync.ready = False
    for model_id in content.get("model_ids") or []:
        w = _recent.get(model_id) if isinstance(model_id, str) else None
        if w is not None and w.comm is not None and "array" in w.keys:
            w.send_state("array")


def _same(old: Any, new: Any) -> bool:
    return old is new or (isinstance(old, np.ndarray) and old.shape == new.shape and old.dtype == new.dtype
                          and bool(np.array_equal(old, new)))
