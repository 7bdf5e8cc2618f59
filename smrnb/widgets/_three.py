# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Layers as pythreejs objects: building them, the arrays that replace theirs in an in-place redraw, and
closing them. The live viewer (:class:`smrnb.widgets.Viewer`) draws through these.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from smrnb.widgets._colors import hex_color
from smrnb.widgets._compat import close_quietly
from smrnb.widgets._display import set_changed
from smrnb.widgets._layers import Layer, wire_colors, wire_normals
from smrnb.widgets._sync import DerivedArray


def make_object(t: Any, layer: Layer) -> Any:
    """The three.js object that draws ``layer`` (``t``: the pythreejs module): points, line segments, or a mesh
    (in a Group with its wireframe when the layer has one)."""
    attrs = {"position": t.BufferAttribute(layer.positions, normalized=False)}
    if layer.colors is not None:
        attrs["color"] = t.BufferAttribute(wire_colors(layer.colors), normalized=True)
    vc = "VertexColors" if layer.colors is not None else "NoColors"
    if layer.kind == "points":
        geo = t.BufferGeometry(attributes=attrs)
        mat = t.PointsMaterial(size=layer.size, sizeAttenuation=True, vertexColors=vc, color=hex_color(layer.color)
                               if layer.colors is None else "#ffffff")
        return t.Points(geometry=geo, material=mat, frustumCulled=False)
    if layer.kind == "lines":
        geo = t.BufferGeometry(attributes=attrs)
        return t.LineSegments(geometry=geo, material=t.LineBasicMaterial(color=hex_color(layer.color)),
                              frustumCulled=False)
    if layer.has_normals:  # smooth shading; flat shading derives each triangle's normal in the shader
        attrs["normal"] = normal_attribute(t)(wire_normals(layer.vertex_normals()), normalized=True)
    if layer.uvs is not None:
        attrs["uv"] = t.BufferAttribute(layer.uvs, normalized=False)
    geo = t.BufferGeometry(attributes=attrs, index=t.BufferAttribute(layer.faces.reshape(-1), normalized=False))
    kw: dict[str, Any] = {"flatShading": layer.flat, "side": "DoubleSide", "metalness": 0.0, "roughness": 0.9,
                          "polygonOffset": True, "polygonOffsetFactor": 1.0, "polygonOffsetUnits": 1.0}
    if layer.texture is not None:
        tex = t.DataTexture(data=layer.texture, format="RGBAFormat", type="UnsignedByteType",
                            magFilter="LinearFilter", minFilter="LinearFilter")
        mat = t.MeshStandardMaterial(map=tex, color="#ffffff", **kw)
    else:
        mat = t.MeshStandardMaterial(vertexColors=vc, color=hex_color(layer.color) if layer.colors is None
                                     else "#ffffff", **kw)
    # not culled: three.js computes a bounding sphere once, in-place updates would leave it stale
    obj = t.Mesh(geometry=geo, material=mat, frustumCulled=False)
    if layer.wireframe:
        wire = t.Mesh(geometry=geo, material=t.MeshBasicMaterial(color="#202020", wireframe=True),
                      frustumCulled=False)
        return t.Group(children=[obj, wire])
    return obj


def same_structure(a: Layer, b: Layer) -> bool:
    """Can ``b`` reuse the three.js objects made for ``a`` (same buffers and material kind)?"""
    return (a.kind == b.kind and a.flat == b.flat and a.wireframe == b.wireframe and a.texture is None
            and b.texture is None and a.has_normals == b.has_normals
            and all((getattr(a, k) is None) == (getattr(b, k) is None) for k in ("colors", "faces", "uvs")))


def wire_arrays(old: Layer, new: Layer, page_normals: bool = False) -> list[tuple[str, np.ndarray]]:
    """The arrays that replace those of an object made from ``old`` with ``new`` (same structure), as
    sent, in an order that keeps every intermediate state drawable: when the vertex count grows the
    vertex arrays go first and the triangle indices last; when it shrinks, the indices go first.
    ``page_normals``: derived normals not yet computed are left out (the page derives them)."""
    nrm = None if not new.has_normals or (page_normals and new.normals is None) else new.vertex_normals()
    vertex = [(key, wire_normals(arr) if key == "normal" else wire_colors(arr) if key == "color" else arr)
              for key, arr in (("position", new.positions), ("normal", nrm), ("color", new.colors),
                               ("uv", new.uvs)) if arr is not None]
    index = [("index", new.faces.reshape(-1))] if new.faces is not None else []
    return vertex + index if len(new.positions) >= len(old.positions) else index + vertex


def drawn(obj: Any) -> Any:
    """The three.js mesh, points or lines of a drawn object (a wireframe's Group holds the mesh first)."""
    return obj.children[0] if type(obj).__name__ == "Group" else obj


def array_targets(obj: Any, arrays: list[tuple[str, np.ndarray]]) -> list[tuple[Any, np.ndarray]]:
    """The buffer widgets of ``obj`` that take the arrays of :func:`wire_arrays`, in their order."""
    geo = drawn(obj).geometry
    return [(geo.index if key == "index" else geo.attributes[key], arr) for key, arr in arrays]


def set_look(obj: Any, new: Layer) -> None:
    """``new``'s plain colour and point size on ``obj``'s material (set only where they change)."""
    mat = drawn(obj).material
    if new.colors is None and new.texture is None:
        set_changed(mat, "color", hex_color(new.color))
    if new.kind == "points":
        set_changed(mat, "size", new.size)


_NORMAL_ATTRIBUTE: list[Any] = []


def normal_attribute(three: Any) -> Any:
    """pythreejs' ``BufferAttribute`` whose kernel copy may be derived later (:class:`~smrnb.widgets._sync.DerivedArray`):
    a page redrawing in place derives the normals itself; the kernel computes its own copy only when asked for
    the widget's state (a page opened later)."""
    if not _NORMAL_ATTRIBUTE:
        class NormalAttribute(DerivedArray, three.BufferAttribute):
            pass

        _NORMAL_ATTRIBUTE.append(NormalAttribute)
    return _NORMAL_ATTRIBUTE[0]


def wire_normals_of(layer: Layer) -> Any:
    """The kernel's copy of normals a page derives: ``layer``'s, as sent, computed when first asked for."""
    return lambda: wire_normals(layer.vertex_normals())


def headlight(three: Any) -> Any:
    """A directional light riding with the camera. ``target`` and ``shadow`` are given explicitly:
    left uninitialised, the front end logs "Error setting state: t.on is not a function"."""
    return three.DirectionalLight(color="#ffffff", position=[1, 2, 3], intensity=0.6, target=three.Object3D(),
                                  shadow=three.DirectionalLightShadow(
                                      camera=three.OrthographicCamera(-5, 5, 5, -5, 0.5, 500)))


#: the axes' colours (x red, y green, z blue), shared with the static pictures
AXES_RGB = ((0.87, 0.0, 0.0), (0.0, 0.5, 0.0), (0.0, 0.0, 0.87))


def axes_object(three: Any) -> Any:
    """Unit axes along +x, +y, +z from the origin (placed by ``position``, sized by ``scale``), drawn over
    the data (no depth test, drawn last): a teaching aid that no wall or floor of a scan can hide."""
    import numpy as np

    pos = np.zeros((6, 3), np.float32)
    pos[[1, 3, 5], [0, 1, 2]] = 1.0
    col = np.repeat(np.asarray(AXES_RGB, np.float32), 2, axis=0)
    geo = three.BufferGeometry(attributes={"position": three.BufferAttribute(pos, normalized=False),
                                           "color": three.BufferAttribute(col, normalized=False)})
    mat = three.LineBasicMaterial(vertexColors="VertexColors", depthTest=False, depthWrite=False, transparent=True)
    return three.LineSegments(geometry=geo, material=mat, renderOrder=1000, frustumCulled=False, visible=False)


def close_tree(obj: Any) -> None:
    """Close the widgets of a replaced scene object (geometry, attributes, material, texture)."""
    seen: set[int] = set()

    def walk(o: Any) -> None:
        if o is None or id(o) in seen or not hasattr(o, "close"):
            return
        seen.add(id(o))
        for attr in ("children", "geometry", "material", "map", "index"):
            v = getattr(o, attr, None)
            for c in (v if isinstance(v, (list, tuple)) else [v]):
                walk(c)
        attrs = getattr(o, "attributes", None)
        if isinstance(attrs, dict):
            for c in attrs.values():
                walk(c)
        close_quietly(o)

    walk(obj)


__all__ = ["array_targets", "close_tree", "drawn", "headlight", "make_object", "normal_attribute", "same_structure",
           "set_look", "wire_arrays", "wire_normals_of"]
