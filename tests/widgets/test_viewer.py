# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Viewer without a browser: the three.js objects it builds, the bytes it sends, the camera it fits."""

from __future__ import annotations

import base64
import io
import json
import time

import numpy as np
import pytest
import torch
from ipywidgets.widgets.widget import _remove_buffers
from PIL import Image

import smrnb
from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry import Mesh, PointCloud, VoxelGrid, compute_vertex_normals
from smrnb.widgets import Viewer, _colors, _display, _layers, _viewer
from smrnb.widgets._static import project


def icosphere(subdiv: int = 2) -> Mesh:
    import trimesh

    tm = trimesh.creation.icosphere(subdiv)
    return Mesh(torch.tensor(tm.vertices, dtype=torch.float32), torch.tensor(tm.faces, dtype=torch.int64))


def scene_objects(v: Viewer, kind: str) -> list:
    import pythreejs as three

    cls = {"mesh": three.Mesh, "points": three.Points, "lines": three.LineSegments}[kind]
    out = []
    for c in v.content.children:
        out += [c] if type(c) is cls else [g for g in getattr(c, "children", ()) if type(g) is cls]
    return out


def test_mesh_buffers_are_binary_float32_uint32_and_normals_come_from_python():
    m = icosphere(2)
    v = Viewer(m, shading="smooth")
    (obj,) = scene_objects(v, "mesh")
    geo = obj.geometry
    pos, nrm = geo.attributes["position"].array, geo.attributes["normal"].array
    assert pos.dtype == np.float32 and pos.shape == (m.num_vertices, 3)
    # normals travel as normalized int8 (3 bytes per vertex): within 1/127 per component
    assert nrm.dtype == np.int8 and geo.attributes["normal"].normalized
    assert geo.index.array.dtype == np.uint32 and geo.index.array.shape == (m.num_faces * 3,)
    np.testing.assert_allclose(nrm / 127.0, compute_vertex_normals(m.vertices, m.faces).numpy(), atol=0.5 / 127 + 1e-6)
    # the synced state carries the arrays as binary buffers, not JSON number lists
    state = geo.attributes["position"].get_state()
    _, paths, buffers = _remove_buffers(state)
    assert paths and sum(len(memoryview(b).cast("B")) for b in buffers) == pos.nbytes
    assert len(json.dumps(_remove_buffers(state)[0], default=str)) < 2000
    assert v.nbytes == pos.nbytes + nrm.nbytes + geo.index.array.nbytes


def test_plain_meshes_are_flat_shaded_textured_ones_smooth_and_the_buttons_switch():
    m = icosphere(2)
    v = Viewer(m)
    (obj,) = scene_objects(v, "mesh")
    # auto on a plain mesh: flat, no normals computed or sent (the shader lights each triangle by its plane)
    assert obj.material.flatShading and "normal" not in obj.geometry.attributes
    assert v.layers["main"][0].normals is None and v.shading.value == "auto"
    assert v.shading.layout.display == "flex" and v.voxel_mode.layout.display == "none"
    flat_bytes = v.nbytes
    v.shading.value = "smooth"  # the buttons redraw the mesh with vertex normals, camera kept
    (obj,) = scene_objects(v, "mesh")
    assert not obj.material.flatShading and obj.geometry.attributes["normal"].array.shape == (m.num_vertices, 3)
    assert v.nbytes == flat_bytes + 3 * m.num_vertices
    v.show(m, shading="flat")  # an explicit shading sets the buttons
    assert v.shading.value == "flat" and scene_objects(v, "mesh")[0].material.flatShading
    # textured: smooth under auto (a photo texture already carries the shading)
    tex = Mesh(m.vertices, m.faces, uvs=torch.rand(m.num_vertices, 2), face_uvs_idx=m.faces,
               texture=torch.rand(8, 8, 3))
    assert _layers.resolve_shading(tex, "auto") == "smooth" and _layers.resolve_shading(m, "auto") == "flat"
    assert _layers.resolve_shading(tex, "auto", texture=False) == "flat"
    (obj,) = scene_objects(Viewer(tex), "mesh")
    assert not obj.material.flatShading and "normal" in obj.geometry.attributes
    # a points layer hides the shading buttons
    assert Viewer(np.zeros((3, 3))).shading.layout.display == "none"


def test_vertex_colors_and_opencv_frame_flip():
    pts = torch.tensor([[0.0, 1.0, 2.0], [1.0, -1.0, 3.0]])
    cols = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    v = Viewer(PointCloud(pts, colors=cols, frame="opencv"), point_size=0.05)
    (obj,) = scene_objects(v, "points")
    np.testing.assert_allclose(obj.geometry.attributes["position"].array, pts.numpy() * [1, -1, -1])
    # colors travel as normalized uint8
    col = obj.geometry.attributes["color"]
    assert col.array.dtype == np.uint8 and col.normalized
    np.testing.assert_array_equal(col.array, (cols.numpy() * 255).round())
    assert obj.material.vertexColors == "VertexColors" and obj.material.size == pytest.approx(0.05)


def test_voxel_cubes_draw_exposed_faces_only():
    occ = torch.zeros(4, 4, 4, dtype=torch.bool)
    occ[1:3, 1:3, 1:3] = True  # a 2x2x2 block: 6 sides x 4 quads x 2 triangles
    g = VoxelGrid(occ, torch.zeros(3), 0.1)
    v = Viewer(g, voxel_mode="cubes")
    (obj,) = scene_objects(v, "mesh")
    faces = obj.geometry.index.array.reshape(-1, 3)
    assert len(faces) == 48
    p = obj.geometry.attributes["position"].array
    np.testing.assert_allclose(p.min(0), [0.1, 0.1, 0.1], atol=1e-6)
    np.testing.assert_allclose(p.max(0), [0.3, 0.3, 0.3], atol=1e-6)
    # every triangle's normal points away from the block centre (outward winding)
    tri = p[faces]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    assert (np.einsum("ij,ij->i", n, tri.mean(1) - 0.2) > 0).all()
    pts = Viewer(g, voxel_mode="points")  # dots: one point per voxel at its centre
    (po,) = scene_objects(pts, "points")
    assert len(po.geometry.attributes["position"].array) == 8
    assert po.material.size == pytest.approx(0.1)


def test_huge_grid_is_capped_with_a_visible_notice():
    occ = torch.ones(20, 20, 20, dtype=torch.bool)
    v = Viewer(VoxelGrid(occ, torch.zeros(3), 0.01), max_voxels=999, voxel_mode="points")
    (po,) = scene_objects(v, "points")
    assert len(po.geometry.attributes["position"].array) == 343  # ceil(20 / 3) ** 3
    assert "8,000 occupied voxels exceed the cap of 999" in v.notice.value
    assert "coarsened 3x" in v.notice.value


def test_texture_splits_seams_and_sends_rgba_uint8_rows_flipped():
    verts = torch.tensor([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=torch.float32)
    faces = torch.tensor([[0, 1, 2], [0, 2, 3]])
    uvs = torch.tensor([[0, 0], [1, 0], [1, 1], [0.5, 0.5], [0, 1]], dtype=torch.float32)
    fuv = torch.tensor([[0, 1, 2], [3, 2, 4]])  # vertex 0 has two uvs: a seam
    tex = torch.zeros(2, 2, 3)
    tex[0] = torch.tensor([1.0, 0.0, 0.0])  # top row red
    m = Mesh(verts, faces, uvs=uvs, face_uvs_idx=fuv, texture=tex)
    v = Viewer(m)
    (obj,) = scene_objects(v, "mesh")
    attrs = obj.geometry.attributes
    assert attrs["position"].array.shape == (5, 3) and attrs["uv"].array.shape == (5, 2)
    assert attrs["uv"].array.dtype == np.float32
    data = obj.material.map.data
    assert data.dtype == np.uint8 and data.shape == (2, 2, 4)
    assert data[1, 0, 0] == 255 and data[0, 0, 0] == 0  # top image row is the last texture row (v = 1)
    # each split vertex keeps its uv
    pos = attrs["position"].array
    uv = attrs["uv"].array
    idx = obj.geometry.index.array.reshape(-1, 3)
    for f in range(2):
        for k in range(3):
            np.testing.assert_allclose(pos[idx[f, k]], verts[faces[f, k]].numpy())
            np.testing.assert_allclose(uv[idx[f, k]], uvs[fuv[f, k]].numpy())


def test_overlays_boundary_nonmanifold_normals():
    m = icosphere(1)
    open_mesh = Mesh(m.vertices, m.faces[1:])
    v = Viewer(open_mesh, overlays=("boundary", "normals"), wireframe=True, shading="flat")
    lines = scene_objects(v, "lines")
    assert len(lines) == 2
    red = [ln for ln in lines if ln.material.color == "#e00000"][0]
    assert len(red.geometry.attributes["position"].array) == 6  # 3 boundary edges of the removed face
    assert "3 boundary (hole) edges" in v.notice.value
    meshes = scene_objects(v, "mesh")
    assert any(o.material.wireframe for o in meshes) and any(o.material.flatShading for o in meshes)
    fan = Mesh(torch.tensor([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1]], dtype=torch.float32),
               torch.tensor([[0, 1, 2], [1, 0, 3], [0, 1, 4]]))
    nm = Viewer(fan, overlays="non_manifold")
    assert "1 non-manifold edges" in nm.notice.value


@pytest.mark.parametrize("size", [(640, 400), (300, 600)])
def test_camera_fits_the_data_at_the_canvas_aspect(size):
    pts = torch.tensor([[-2.0, 0, 0], [2.0, 0, 0], [0, -0.5, 0], [0, 0.5, 0], [0, 0, 1.0]]) + 5.0
    w, h = size
    v = Viewer(PointCloud(pts, frame="opengl"), width=w, height=h)
    assert v.camera.aspect == pytest.approx(w / h)
    px, depth = project(pts.numpy(), v.camera_pose(), w, h)
    assert (depth > v.camera.near).all() and (depth < v.camera.far).all()
    assert (px[:, 0] >= 0).all() and (px[:, 0] <= w).all() and (px[:, 1] >= 0).all() and (px[:, 1] <= h).all()
    # fitted, not tiny: the data spans a good part of the narrower side
    span = px.max(0) - px.min(0)
    assert span.max() > 0.4 * min(w, h)
    np.testing.assert_allclose(v.controls.target, [5.0, 5.0, 5.5], atol=1e-6)


def test_update_in_place_keeps_renderer_camera_and_objects_and_rebuilds_on_new_structure():
    v = Viewer(icosphere(1))
    renderer, camera = v.renderer, v.camera
    old = scene_objects(v, "mesh")[0]
    attr, index = old.geometry.attributes["position"], old.geometry.index
    pose = tuple(v.camera.position)
    bigger = icosphere(3)
    v.show(Mesh(bigger.vertices * 3, bigger.faces))
    assert v.renderer is renderer and v.camera is camera and tuple(v.camera.position) == pose
    same = scene_objects(v, "mesh")[0]
    # same buffers, new arrays: only the data travels
    assert same is old and same.geometry.attributes["position"] is attr and same.geometry.index is index
    np.testing.assert_allclose(attr.array, bigger.vertices.numpy() * 3)
    assert index.array.dtype == np.uint32 and len(index.array) == bigger.num_faces * 3
    assert old.frustumCulled is False  # the browser's bounding sphere would be stale
    # another structure (vertex colors now): new objects, the old front-end models are closed
    v.show(Mesh(bigger.vertices, bigger.faces, vertex_colors=torch.rand(bigger.num_vertices, 3)))
    new = scene_objects(v, "mesh")[0]
    assert new is not old and "color" in new.geometry.attributes
    assert old.comm is None and old.geometry.comm is None and attr.comm is None
    v.show(Mesh(bigger.vertices * 3, bigger.faces), fit=True)
    assert tuple(v.camera.position) != pose
    v.show(PointCloud(torch.zeros(3, 3)), name="extra")
    assert set(v.layers) == {"main", "extra"}
    v.remove("extra")
    with pytest.raises(SmrnbValueError, match="no layer named 'nope'; layers: main"):
        v.remove("nope")


def test_in_place_updates_keep_every_state_drawable_and_pause_the_renderer_only_when_large():
    v = Viewer(icosphere(1))
    obj = scene_objects(v, "mesh")[0]
    geo = obj.geometry
    sent: list[str] = []
    geo.attributes["position"].observe(lambda c: sent.append("position"), "array")
    geo.index.observe(lambda c: sent.append("index"), "array")
    v.renderer.observe(lambda c: sent.append(f"pause={c['new']}"), "_pause_autorender")

    def drawable() -> None:  # every index points at a vertex the position array has at that moment
        assert int(geo.index.array.max()) < len(geo.attributes["position"].array)

    geo.index.observe(lambda c: drawable(), "array")
    geo.attributes["position"].observe(lambda c: drawable(), "array")
    small, smaller = icosphere(2), icosphere(1)  # 162 vertices, then 42 (from 42): well under PAUSE_BYTES
    v.show(Mesh(small.vertices * 2, small.faces))
    v.show(Mesh(smaller.vertices * 2, smaller.faces))
    # growing: vertices first; shrinking: indices first; small updates: no pause around them
    assert sent == ["position", "index", "index", "position"]
    assert scene_objects(v, "mesh")[0] is obj  # swapped in place
    sent.clear()
    big = icosphere(6)  # 40,962 vertices: 0.5 MB of positions, 1 MB of indices
    assert big.num_vertices * 12 + big.num_faces * 12 > _viewer.PAUSE_BYTES
    v.show(Mesh(big.vertices, big.faces))
    assert sent == ["pause=True", "position", "index", "pause=False"]  # one repaint for the large update
    np.testing.assert_array_equal(geo.index.array, big.faces.numpy().reshape(-1))


def test_a_front_end_with_the_sync_model_gets_an_in_place_update_as_one_message(monkeypatch):
    """Redrawing in place: one custom message on smrnb's sync model carries every array (in the drawable order,
    as the same update messages each buffer widget's own comm would carry), the kernel's copy of every trait is
    the new array (a page opened later asks for it), and no buffer widget sends a message of its own."""
    from ipywidgets import Widget

    from smrnb.widgets._sync import buffer_sync

    v = Viewer(Mesh(icosphere(1).vertices, icosphere(1).faces, vertex_colors=torch.rand(42, 3)))
    sync = buffer_sync()
    assert sync is not None and not sync.ready  # no front end here: per-buffer messages until one says so
    monkeypatch.setattr(sync, "ready", True)
    geo = scene_objects(v, "mesh")[0].geometry
    sent: list[tuple] = []
    # every widget message as it leaves the widget (whatever comm class is installed: ipykernel's drops messages
    # without a running kernel)
    monkeypatch.setattr(Widget, "_send", lambda self, msg, buffers=None: sent.append((self, msg, buffers)))
    big = icosphere(3)  # 642 vertices from 42: growing, so vertex arrays first
    colors = torch.rand(big.num_vertices, 3)
    v.show(Mesh(big.vertices * 2, big.faces, vertex_colors=colors))
    arrays = [(c, d, b) for c, d, b in sent if b]
    assert len(arrays) == 1 and arrays[0][0] is sync
    data, buffers = arrays[0][1], arrays[0][2]
    assert data["method"] == "custom" and data["content"]["type"] == "smrnb-arrays"
    updates = data["content"]["updates"]
    targets = [geo.attributes["position"], geo.attributes["color"], geo.index]
    assert [u["model_id"] for u in updates] == [t.model_id for t in targets]
    np.testing.assert_array_equal(geo.attributes["position"].array, (big.vertices * 2).numpy())
    np.testing.assert_array_equal(geo.index.array, big.faces.numpy().reshape(-1))
    assert geo.attributes["color"].array.dtype == np.uint8 and len(geo.attributes["color"].array) == 642
    k = 0
    for u, t in zip(updates, targets):  # exactly what each widget's own update message would have carried
        state, paths, bufs = _remove_buffers({"array": t.trait_metadata("array", "to_json")(t.array, t)})
        assert u["state"] == state and u["buffer_paths"] == paths
        for b in bufs:
            assert bytes(buffers[k]) == bytes(b)
            k += 1
    assert k == len(buffers)
    # a page opened now gets the new arrays from the kernel's state
    assert bytes(_remove_buffers(geo.index.get_state())[2][0]) == geo.index.array.tobytes()
    # new positions, same colours and triangles: only the changed array travels (as a trait set would send it)
    sent.clear()
    v.show(Mesh(big.vertices, big.faces, vertex_colors=colors))
    assert [[u["model_id"] for u in d["content"]["updates"]] for _c, d, b in sent if b] == [[targets[0].model_id]]
    # a page that could not apply an update names the widgets: they get their array the ordinary way, and the
    # kernel stops using the path (until a page loads the model again and says it is ready)
    sent.clear()
    sync._handle_custom_msg({"type": "smrnb-arrays-failed", "model_ids": [targets[2].model_id, "gone"]}, [])
    assert not sync.ready
    (c, d, b), = [m for m in sent if m[2]]
    assert c is targets[2] and d["method"] == "update" and "array" in d["state"]
    assert bytes(b[0]) == targets[2].array.tobytes()
    # no front end with the model: an ordinary trait set (one update message each) per changed buffer widget
    sent.clear()
    changed: list[str] = []
    for t in targets:
        t.observe(lambda c: changed.append(c["owner"].model_id), "array")
    v.show(Mesh(big.vertices * 3, big.faces, vertex_colors=colors * 0.5))
    assert sorted(changed) == sorted(t.model_id for t in targets[:2])
    assert not [m for m in sent if m[0] is sync and m[2]]


def test_smooth_normals_of_an_in_place_redraw_are_derived_by_the_page_and_owed_by_the_kernel(monkeypatch):
    """Smooth shading redrawn in place for a page with the sync model: no normals computed or sent, the message
    asks the page to derive them from its own position and index buffers (both sent), and the kernel's copy is
    computed when the state is asked for: the int8 normals the ordinary path would have sent."""
    from ipywidgets import Widget

    from smrnb.widgets._sync import buffer_sync

    v = Viewer(icosphere(2), shading="smooth")
    sync = buffer_sync()
    monkeypatch.setattr(sync, "ready", True)
    geo = scene_objects(v, "mesh")[0].geometry
    normal, position, index = geo.attributes["normal"], geo.attributes["position"], geo.index
    sent: list[tuple] = []
    # every widget message as it leaves the widget (whatever comm class is installed: ipykernel's drops messages
    # without a running kernel)
    monkeypatch.setattr(Widget, "_send", lambda self, msg, buffers=None: sent.append((self, msg, buffers)))
    big = icosphere(3)
    bumpy = Mesh(big.vertices * (1 + 0.2 * torch.rand(big.num_vertices, 1, generator=torch.Generator().manual_seed(0))),
                 big.faces)
    v.show(bumpy, shading="smooth")
    assert v.layers["main"][0].normals is None  # not computed for the live view
    (c, d, b), = [m for m in sent if m[2]]
    content = d["content"]
    assert c is sync and [u["model_id"] for u in content["updates"]] == [position.model_id, index.model_id]
    assert content["normals"] == [{"model_id": normal.model_id, "position": position.model_id,
                                   "index": index.model_id}]
    expected = _layers.wire_normals(compute_vertex_normals(bumpy.vertices, bumpy.faces).numpy())
    state, paths, bufs = _remove_buffers(normal.get_state())  # the owed copy, computed now
    assert tuple(state["array"]["shape"]) == (big.num_vertices, 3) and state["array"]["dtype"] == "int8"
    np.testing.assert_array_equal(np.frombuffer(bytes(bufs[0]), np.int8).reshape(-1, 3), expected)
    # unchanged positions and triangles are still sent when the page derives normals from them
    sent.clear()
    v.show(bumpy, shading="smooth")
    (_c, d, _b), = [m for m in sent if m[2]]
    assert len(d["content"]["updates"]) == 2 and len(d["content"]["normals"]) == 1
    # no page with the model: the normals are computed here and sent like any array
    sent.clear()
    changed: list[str] = []
    normal.observe(lambda c: changed.append("normal"), "array")
    monkeypatch.setattr(sync, "ready", False)
    v.show(icosphere(3), shading="smooth")
    assert changed == ["normal"] and not [m for m in sent if m[0] is sync and m[2]]
    sphere = icosphere(3)
    np.testing.assert_array_equal(normal.array, _layers.wire_normals(compute_vertex_normals(sphere.vertices,
                                                                                            sphere.faces).numpy()))


def test_linked_viewers_share_the_view():
    from ipywidgets.widgets.widget_link import Link

    a, b = Viewer(icosphere(1)), Viewer(icosphere(2))
    b.camera.position = (9.0, 9.0, 9.0)
    a.link(b)
    assert tuple(b.camera.position) == tuple(a.camera.position)
    links = [lk for lk in a._links if isinstance(lk, Link)]
    assert {(lk.source[1], lk.target[1]) for lk in links} == {("position", "position"),
                                                             ("quaternion", "quaternion"), ("target", "target")}
    assert all(lk.source[0] in (a.camera, a.controls) and lk.target[0] in (b.camera, b.controls) for lk in links)
    b.show(icosphere(1))  # b was fitted by the link: showing new data keeps the shared view
    assert tuple(b.camera.position) == tuple(a.camera.position)
    with pytest.raises(SmrnbTypeError, match="other must be a Viewer, got int"):
        a.link(3)


def _live(monkeypatch, live: bool) -> None:
    import ipywidgets

    monkeypatch.delenv("SMRNB_STATIC_PICTURES", raising=False)
    monkeypatch.setattr(ipywidgets.Widget, "_control_comm", object() if live else None)


def test_a_live_front_end_gets_the_widget_and_no_picture(monkeypatch):
    v = Viewer(icosphere(2), width=200, height=120, background="#ffffff")
    _live(monkeypatch, True)
    monkeypatch.setattr(Viewer, "to_png", lambda *a, **k: pytest.fail("no picture is rendered for a live front end"))
    data = v._repr_mimebundle_()
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == v.widget.model_id
    assert "image/png" not in data and "text/html" not in data
    assert "Renderer(" not in data["text/plain"] and "Viewer(200x120" in data["text/plain"]


def test_without_a_live_front_end_the_picture_replaces_the_widget(monkeypatch):
    v = Viewer(icosphere(2), width=200, height=120, background="#ffffff")
    _live(monkeypatch, False)
    data = v._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" not in data  # nbconvert would show it empty
    img = np.asarray(Image.open(io.BytesIO(base64.b64decode(data["image/png"]))).convert("RGB"))
    assert img.shape == (120, 200, 3)
    assert (img != 255).any(axis=2).sum() > 0.05 * img.shape[0] * img.shape[1]  # the sphere is drawn
    assert f"data:image/png;base64,{data['image/png']}" in data["text/html"]
    monkeypatch.setenv("SMRNB_STATIC_PICTURES", "always")  # both, e.g. for a front end that hides its manager
    data = v._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data and "image/png" in data
    monkeypatch.setenv("SMRNB_STATIC_PICTURES", "never")
    assert "image/png" not in v._repr_mimebundle_()
    _live(monkeypatch, True)
    monkeypatch.setattr(_viewer, "frontend_status", lambda: {"installed": False})
    data = v._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" not in data
    assert "jupyter-threejs front end is not installed" in data["text/html"] and "image/png" in data


def test_save_png_writes_the_picture(tmp_path):
    v = Viewer(icosphere(2), width=64, height=48)
    out = v.save_png(tmp_path / "sphere.png")
    assert Image.open(out).size == (64, 48) and not list(tmp_path.glob(".sphere.png.*"))


def test_bad_arguments_name_themselves():
    with pytest.raises(SmrnbValueError, match="width must be an int >= 16 \\(pixels\\), got 3"):
        Viewer(width=3)
    with pytest.raises(SmrnbValueError, match="shading must be one of 'auto', 'flat', 'smooth', got 'toon'"):
        Viewer(icosphere(1), shading="toon")
    with pytest.raises(SmrnbValueError, match="overlays need a Mesh, got PointCloud"):
        Viewer(PointCloud(torch.zeros(2, 3)), overlays="boundary")
    with pytest.raises(SmrnbValueError, match="overlays must be among boundary, non_manifold, normals, got 'holes'"):
        Viewer(icosphere(1), overlays="holes")
    with pytest.raises(SmrnbTypeError, match="data must be a Mesh, PointCloud, VoxelGrid, TSDFVolume or an \\(N, 3\\) array, got dict"):
        Viewer({})
    with pytest.raises(SmrnbValueError, match="voxel_mode must be 'points' or 'cubes', got 'boxes'"):
        Viewer(VoxelGrid(torch.ones(2, 2, 2, dtype=torch.bool), torch.zeros(3), 0.1), voxel_mode="boxes")
    with pytest.raises(SmrnbValueError, match="colors must have shape \\(2, 3\\), got \\(3, 3\\)"):
        Viewer(np.zeros((2, 3)), colors=np.zeros((3, 3)))
    with pytest.raises(SmrnbValueError, match="point_budget must be an int >= 1000 \\(points\\), got 10"):
        Viewer(point_budget=10)
    with pytest.raises(SmrnbTypeError, match="caption must be a str, got bytes"):
        Viewer(caption=b"x")


def test_a_cloud_over_the_point_budget_gets_a_coarse_twin_used_while_the_camera_moves(monkeypatch):
    monkeypatch.setattr(_viewer, "SETTLE_SECONDS", 0.05)
    g = torch.Generator().manual_seed(0)
    v = Viewer(torch.rand(25_000, 3, generator=g), point_budget=10_000)
    full, twin = v.content.children
    assert len(twin.geometry.attributes["position"].array) == 8_334  # every 3rd point
    assert twin.material.size == pytest.approx(full.material.size * 3 ** 0.5)
    assert full.visible and not twin.visible and not v.moving
    v._on_press({"new": (1.0, 2.0, 3.0)})  # a press on the canvas
    assert twin.visible and not full.visible and v.moving
    v.show(torch.rand(30_000, 3, generator=g))  # an update while moving keeps the coarse twin on screen
    assert twin.visible and not full.visible and len(twin.geometry.attributes["position"].array) == 10_000
    v._on_camera_moved()  # the drag ended: full detail once the camera rests
    for _ in range(100):
        if not v.moving:
            break
        time.sleep(0.02)
    assert full.visible and not twin.visible and [m for _, m in v.detail_log] == ["coarse", "full"]
    v.show(torch.rand(500, 3, generator=g))  # within the budget: no twin
    assert len(v.content.children) == 1 and v._coarse["main"] == [None]


def test_a_press_stays_coarse_until_its_release_is_heard(monkeypatch):
    """OrbitControls reports the camera only when a drag ends: a press keeps the coarse twins until the page's
    release (a picker on mouseup), not a few seconds (a long drag went back to full detail mid-drag)."""
    monkeypatch.setattr(_viewer, "SETTLE_SECONDS", 0.05)
    v = Viewer(torch.rand(25_000, 3, generator=torch.Generator().manual_seed(0)), point_budget=10_000)
    events = {c.event: c for c in v.renderer.controls if type(c).__name__ == "Picker"}
    assert {"mousedown", "mouseup", "mousewheel", "dblclick"} <= set(events)
    events["mousedown"].point = (3.0, 1.0, 2.0)  # the page's press, as the picker reports it
    assert v.moving and v._settle_timer.interval == _viewer.PRESS_FALLBACK_SECONDS
    events["mousewheel"].point = (2.0, 2.0, 2.0)  # a wheel step meanwhile: a wheel's shorter fallback
    assert v._settle_timer.interval == _viewer.WHEEL_FALLBACK_SECONDS
    events["mousedown"].point = (4.0, 1.0, 2.0)
    events["mouseup"].point = (9.0, 1.0, 2.0)  # the release, elsewhere after a drag
    for _ in range(100):
        if not v.moving:
            break
        time.sleep(0.02)
    assert not v.moving and [m for _, m in v.detail_log] == ["coarse", "full"]


def test_import_smrnb_does_not_import_pythreejs_or_ipywidgets():
    import subprocess
    import sys

    code = ("import sys, smrnb; smrnb.__version__; "
            "print(sorted(m for m in ('pythreejs', 'ipywidgets', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_live_front_end_is_read_from_the_control_comm_or_the_cells_metadata(monkeypatch):
    import types

    import IPython

    _live(monkeypatch, False)
    shell = types.SimpleNamespace(kernel=object(), parent_header={"header": {}, "metadata": {}})
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    assert _display.live_frontend() is False  # nbconvert / nbclient / papermill: no metadata
    monkeypatch.setattr(IPython, "get_ipython", lambda: types.SimpleNamespace(parent_header={"metadata": {"x": 1}}))
    assert _display.live_frontend() is False  # no kernel: a terminal
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    shell.parent_header["metadata"] = {"cellId": "c1", "deletedCells": [], "recordTiming": False}  # JupyterLab
    assert _display.live_frontend() is True and not _display.headless()
    # sticky: a widget made later in a button's callback (a comm message, no cell metadata) is still live
    shell.parent_header = {"header": {}, "metadata": {}}
    assert _display.live_frontend() is True and not _display.headless()
    _live(monkeypatch, True)
    assert _display.live_frontend() is True


def test_a_tsdf_volume_is_drawn_as_its_near_surface_voxels_coloured_by_weight():
    from smrnb.geometry import TSDFVolume

    vol = TSDFVolume(voxel_size=0.02, block_size=8, color=False)
    K = torch.tensor([[100.0, 0, 32], [0, 100.0, 24], [0, 0, 1]])
    depth = torch.full((48, 64), 1.0)  # a wall 1 m in front of the camera
    left = torch.eye(4)
    vol.integrate(depth, K, left)
    shifted = torch.eye(4)
    shifted[0, 3] = 0.1  # a second view, 10 cm to the right, sees only part of what the first saw
    vol.integrate(depth, K, shifted)
    (layer,) = _layers.layers_for(vol)
    z = -layer.positions[:, 2]  # back from the OpenGL frame to the camera's z
    assert layer.kind == "points" and len(z) > 500
    assert np.abs(z - 1.0).max() <= 0.5 * vol.truncation + 1e-6  # only the band around the wall
    # every drawn point is its voxel's centre: block coords * B + the voxel's row-major offset, in metres
    n = int(vol.num_blocks)
    keep = (vol.weight[:n] > 0) & (vol.tsdf[:n].abs() < 0.5)
    blk, loc = keep.nonzero(as_tuple=True)
    local = torch.stack([loc // 64, (loc // 8) % 8, loc % 8], 1)
    expect = ((vol.block_coords[:n][blk] * 8 + local).double() * 0.02 * torch.tensor([1.0, -1.0, -1.0])).numpy()
    np.testing.assert_allclose(layer.positions, expect, atol=1e-6)
    lo, hi = layer.colors.min(axis=0), layer.colors.max(axis=0)
    assert (hi - lo).max() > 0.3  # seen once and seen twice: two colours
    assert any("dark blue 1 -> yellow 2" in n for n in layer.notes)
    few = _layers.tsdf_layer(vol, max_points=100)
    assert len(few.positions) == 100 and "100 of" in few.notes[0]


def _painted_extent(png: bytes) -> tuple[float, float]:
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    ink = (img != 255).any(axis=2)
    ys, xs = np.nonzero(ink)
    return (xs.max() - xs.min() + 1) / img.shape[1], (ys.max() - ys.min() + 1) / img.shape[0]


def test_framing_fills_the_canvas_for_a_wide_room():
    import trimesh

    room = trimesh.creation.box(extents=(5.0, 2.6, 4.0))  # a living room's proportions
    v = Viewer(Mesh(torch.tensor(room.vertices, dtype=torch.float32), torch.tensor(room.faces)), width=320, height=200)
    fx, fy = _painted_extent(v.to_png())
    assert max(fx, fy) >= 0.7 and fx <= 1.0 and fy <= 1.0, (fx, fy)


def test_linked_views_fit_both_objects():
    small = Viewer(icosphere(2), width=200, height=160)
    big_mesh = icosphere(2)
    big = Viewer(Mesh(big_mesh.vertices * 3 + torch.tensor([2.0, 0, 0]), big_mesh.faces), width=200, height=160)
    small.link(big)
    for v in (small, big):
        img = np.asarray(Image.open(io.BytesIO(v.to_png())).convert("RGB"))
        ink = (img != 255).any(axis=2)
        assert not (ink[0].any() or ink[-1].any() or ink[:, 0].any() or ink[:, -1].any()), "runs off the canvas"
    assert tuple(small.camera.position) == tuple(big.camera.position)


def test_scalars_colour_the_mesh_and_draw_a_colour_bar():
    m = icosphere(2)
    h = m.vertices[:, 1]
    v = Viewer(m, scalars=h, scalar_label="height (m)")
    (obj,) = scene_objects(v, "mesh")
    col = obj.geometry.attributes["color"].array
    lo, hi = int(h.argmin()), int(h.argmax())
    # viridis ends: dark blue-violet at the lowest vertex, yellow at the highest
    assert col[lo][2] > col[lo][1] and col[hi][0] > 200 and col[hi][1] > 200 and col[hi][2] < 80
    assert v.legend.value.count("smrnb-colorbar'") == 1 and "height (m)" in v.legend.value
    assert f"{float(h.min()):.4g}" in v.legend.value and f"{float(h.max()):.4g}" in v.legend.value
    s = h.clone()
    s[0] = float("nan")
    v.show(m, scalars=s, scalar_range=(0.0, 0.5))
    (obj,) = scene_objects(v, "mesh")
    assert tuple(obj.geometry.attributes["color"].array[0]) == (153, 153, 153)  # no value: grey
    assert "1 without a value in grey" in v.notice.value and ">0.5<" in v.legend.value
    with pytest.raises(SmrnbValueError, match=r"scalars must have shape \(162,\) \(one value per vertex\), got \(3,\)"):
        v.show(m, scalars=[1.0, 2.0, 3.0])
    with pytest.raises(SmrnbValueError, match="scalar_range must be finite with low <= high"):
        v.show(m, scalars=h, scalar_range=(1.0, 0.0))
    v.show(m)  # without scalars: no colour bar
    assert "smrnb-colorbar'" not in v.legend.value


def test_axes_sit_at_the_front_corner_with_a_round_length_in_metres(tmp_path):
    m = icosphere(2)
    v = Viewer(m)  # 2 m wide: axes of 0.5 m
    assert v.axes.visible and v.axes.scale == (0.5, 0.5, 0.5)
    # at the bottom-left corner of the face towards the default camera (z = +1), snapped outwards to a fifth of
    # an axis (10 cm): the sphere's corner (-1, -1, +1) exactly
    lo, hi = v.layers["main"][0].positions.min(0), v.layers["main"][0].positions.max(0)
    np.testing.assert_allclose(v.axes.position, [lo[0], lo[1], hi[2]], atol=1e-6)
    assert "50 cm each" in v.legend.value
    # a re-run that moves the corner by less than 10 cm leaves the axes where they are (nothing sent)
    sent = []
    v.axes.observe(lambda ch: sent.append(ch["name"]), names=["position", "scale"])
    v.show(Mesh(m.vertices + torch.tensor([0.05, 0.0, -0.05]), m.faces))
    assert sent == [] and v.axes.position == (-1.0, -1.0, 1.0)
    # nor does one that crosses a snap line by a few cm (the corner snaps one step down, to -1.1): no jump
    v.show(Mesh(m.vertices + torch.tensor([-0.03, 0.0, 0.0]), m.faces))
    assert sent == [] and v.axes.position == (-1.0, -1.0, 1.0)
    # the picture and the offline page draw the axes where the live view has them (not re-snapped to -1.1)
    x_axis = [layer for layer in v.static_layers() if layer.kind == "lines"][0]
    np.testing.assert_allclose(x_axis.positions, [[-1.0, -1.0, 1.0], [-0.5, -1.0, 1.0]], atol=1e-6)
    page = v.save_html(tmp_path / "axes.html").read_text()
    scene = json.loads(page.split('<script type="application/json" id="smrnb-scene">', 1)[1].split("</script>", 1)[0])
    assert scene["axes"] == {"origin": [-1.0, -1.0, 1.0], "length": 0.5}
    assert "axes.material.depthTest = false" in page  # over the data, like the live view
    v.show(Mesh(m.vertices + torch.tensor([0.3, 0.0, 0.0]), m.faces))  # the corner moves 30 cm in x
    assert v.axes.position[0] == pytest.approx(-0.7) and v.axes.position[1:] == (-1.0, 1.0)
    v.clear()
    assert not v.axes.visible and v.legend.value == ""


def test_axes_of_a_mesh_in_voxel_units_say_voxels():
    ball = torch.zeros(24, 24, 24, dtype=torch.bool)
    ax = torch.arange(24.0)
    x, y, z = torch.meshgrid(ax, ax, ax, indexing="ij")
    ball = ((x - 11.5) ** 2 + (y - 11.5) ** 2 + (z - 11.5) ** 2) < 9 ** 2
    sphere = smrnb.voxelgrid_to_mesh(ball)
    assert sphere.meta["units"] == "voxels"
    v = Viewer(sphere, overlays=["boundary"])
    assert "2 voxels each" in v.legend.value and " m each" not in v.legend.value  # an 18-voxel ball
    assert "2 voxels each" in v.static_html()
    holed = smrnb.fill_holes(sphere.replace(faces=sphere.faces[10:]))  # meta carried through a repair
    assert "voxels each" in Viewer(holed).legend.value
    grid = smrnb.VoxelGrid(ball.float(), torch.zeros(3), 0.01)  # a grid with a voxel size: metres
    assert "2 cm each" in Viewer(smrnb.voxelgrid_to_mesh(grid)).legend.value


def _axes_seen(v: Viewer, data_mesh=None) -> list[float]:
    """Per axis, the share of its length that the default camera sees over the data (ray cast through the
    data's triangles and points) and that lies inside the canvas."""
    import trimesh

    pose = v.camera_pose()
    eye = np.asarray(pose["position"], np.float64)
    ax = v._axes()
    o = np.asarray(ax["origin"], np.float64)
    tris = [layer for ls in v.layers.values() for layer in ls if layer.kind == "mesh" and len(layer.faces)]
    pts = [layer for ls in v.layers.values() for layer in ls if layer.kind == "points"]
    scene = None
    if tris:
        scene = trimesh.Trimesh(np.concatenate([t.positions for t in tris]),
                                np.concatenate([t.faces.astype(np.int64) + sum(len(u.positions) for u in tris[:i])
                                                for i, t in enumerate(tris)]), process=False)
    seen = []
    for k in range(3):
        ts = np.linspace(0.1, 1.0, 10)
        targets = o + np.outer(ts, np.eye(3)[k]) * ax["length"]
        px, depth = project(targets.astype(np.float32), pose, v.width, v.height)
        inside = (depth > 0) & (px[:, 0] >= 0) & (px[:, 0] <= v.width) & (px[:, 1] >= 0) & (px[:, 1] <= v.height)
        d = targets - eye
        dist = np.linalg.norm(d, axis=1)
        hidden = np.zeros(len(targets), bool)
        if scene is not None:
            loc, ray, _ = scene.ray.intersects_location(np.repeat(eye[None], len(d), 0), d / dist[:, None])
            for r, p in zip(ray, loc):
                hidden[r] |= np.linalg.norm(p - eye) < dist[r] - 1e-4
        for layer in pts:  # a point of the cloud within its size of the sight line, in front of the target
            p = layer.positions.astype(np.float64)
            for i in range(len(targets)):
                u = d[i] / dist[i]
                along = (p - eye) @ u
                off = np.linalg.norm((p - eye) - np.outer(along, u), axis=1)
                hidden[i] |= bool(((along > 0) & (along < dist[i] - layer.size) & (off < layer.size)).any())
        seen.append(float((inside & ~hidden).mean()))
    return seen


def test_axes_are_drawn_over_the_data_and_framed_by_the_default_camera():
    volume = smrnb.fuse_tsdf(smrnb.load_sample(stride=24), voxel_size=0.05, progress=False)
    room = volume.extract_mesh()
    cloud = smrnb.frames_to_points(smrnb.load_sample(stride=35), stride=8, depth_max=4.0)
    grid = smrnb.pointcloud_to_voxelgrid(cloud, voxel_size=0.1)
    ball = icosphere(3)
    textured = Mesh(ball.vertices, ball.faces, uvs=(ball.vertices[:, :2] + 1) / 2, face_uvs_idx=ball.faces,
                    texture=torch.rand(8, 8, 3, generator=torch.Generator().manual_seed(0)))
    # every kind of view: a scanned mesh, a cloud, voxels as cubes and as dots, a TSDF's band, a textured mesh
    kinds = [("room", room, {}), ("cloud", cloud, {}), ("ball", ball, {}), ("voxel cubes", grid, {}),
             ("voxel dots", grid, {"voxel_mode": "points"}), ("tsdf", volume, {}), ("textured", textured, {})]
    for name, data, options in kinds:
        v = Viewer(data, width=320, height=200, **options)
        assert v.axes.visible, name
        # the live view draws the axes with no depth test, last: nothing of the data hides them
        assert v.axes.material.depthTest is False and v.axes.renderOrder > 0
        # and from the default camera they sit in front of the data, inside the canvas
        seen = _axes_seen(v)
        assert min(seen) >= 0.8, (name, seen)


def test_pick_shows_point_normal_and_the_hole_rim_edge_count():
    m = icosphere(2)
    v = Viewer(Mesh(m.vertices, m.faces[1:]))  # face 0 removed: a 3-edge hole
    obj = v._objects["main"][0]
    on_rim, inside = [int(i) for i in m.faces[0]], [int(i) for i in m.faces[-1]]
    p = m.vertices[on_rim[0]].tolist()
    text = _viewer.pick_text(v, obj, p, (0.0, 0.0, 1.0), on_rim, None)
    assert "({:.3f}, {:.3f}, {:.3f}) m".format(*p) in text and "<b>normal</b> (0.00, 0.00, 1.00)" in text
    assert "<b>hole rim</b>: 3 edges" in text
    far = [i for i in inside if i not in on_rim]
    assert "hole rim" not in _viewer.pick_text(v, obj, m.vertices[far[0]].tolist(), (0, 0, 1), inside, None)
    assert "nothing under the pointer" in _viewer.pick_text(v, None, (0, 0, 0), (0, 0, 0), [0, 0, 0], None)
    # a closed, textured sphere: vertices split at uv seams are not a hole
    uv = (m.vertices[:, :2] + 1) / 2
    tex = Mesh(m.vertices, m.faces, uvs=uv, face_uvs_idx=torch.flip(m.faces, [1]) % len(uv),
               texture=torch.rand(8, 8, 3))
    vt = Viewer(tex)
    layer = vt.layers["main"][0]
    assert len(layer.positions) > m.num_vertices  # split at seams
    assert _viewer._rim_sizes(layer) == {}
    # points: the point's index
    vp = Viewer(PointCloud(m.vertices, frame="opengl"))
    assert "point #7" in _viewer.pick_text(vp, vp._objects["main"][0], (0, 0, 0), (0, 0, 0), [0, 0, 0], 7)


def test_clip_slider_sets_one_renderer_plane_along_the_chosen_axis():
    v = Viewer(icosphere(2))
    assert list(v.renderer.clippingPlanes) == []
    v.clip.value = 0.25
    (plane,) = v.renderer.clippingPlanes
    assert tuple(plane.normal) == (-1.0, 0.0, 0.0) and plane.constant == pytest.approx(-0.5, abs=1e-6)
    v.clip_axis.value = "y"
    (plane2,) = v.renderer.clippingPlanes
    assert tuple(plane2.normal) == (0.0, -1.0, 0.0) and plane.comm is None  # the old plane is closed
    v.clip.value = 1.0
    assert list(v.renderer.clippingPlanes) == []


def test_voxel_toggle_switches_cubes_and_dots_and_keeps_the_camera():
    occ = torch.zeros(4, 4, 4, dtype=torch.bool)
    occ[1:3, 1:3, 1:3] = True
    g = VoxelGrid(occ, torch.zeros(3), 0.1)
    v = Viewer(icosphere(1))
    assert v.voxel_mode.layout.display == "none"  # no grid: no toggle
    v.show(g)
    assert v.voxel_mode.layout.display == "flex" and v.voxel_mode.value == "cubes"
    assert len(scene_objects(v, "mesh")) == 1 and len(scene_objects(v, "mesh")[0].geometry.index.array) == 48 * 3
    v.camera.position = (5.0, 0.0, 0.0)
    v.voxel_mode.value = "points"
    (pts,) = scene_objects(v, "points")
    assert len(pts.geometry.attributes["position"].array) == 8 and tuple(v.camera.position) == (5.0, 0.0, 0.0)
    v.show(g, voxel_mode="cubes")  # an explicit mode moves the toggle
    assert v.voxel_mode.value == "cubes" and len(scene_objects(v, "mesh")) == 1


def test_save_html_ships_threejs_with_its_licence_and_inlines_it(tmp_path):
    from importlib import resources

    from smrnb.widgets import _html

    js = resources.files("smrnb.widgets").joinpath("_js")
    version = _html.threejs_version()
    module = js.joinpath("three.module.min.js").read_text()
    assert f'const t="{version.split(".")[1]}"' in module[:400]  # three's REVISION matches VERSION
    assert "from\"./" not in module.replace(" ", "") and "MIT" in js.joinpath("LICENSE.three").read_text()
    v = Viewer(icosphere(1), scalars=icosphere(1).vertices[:, 0], scalar_label="x (m)")
    page = v.save_html(tmp_path / "s.html").read_text()
    assert page.count("data:text/javascript;base64,") == 2 and "smrnb-colorbar" in page and "x (m)" in page
    assert "http://" not in page and "https://" not in page.split('<script type="module">')[1]
    with pytest.raises(SmrnbTypeError, match="title must be a str, got int"):
        v.save_html(tmp_path / "t.html", title=3)


def _png_array(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def test_static_pictures_carry_axes_the_clip_cut_the_caption_and_colour_bar(monkeypatch, tmp_path):
    sphere = icosphere(3)
    v = Viewer(sphere, width=240, height=160, caption="unit sphere, 642 vertices")
    assert "unit sphere, 642 vertices" in v._caption_html.value
    img = _png_array(v.to_png())
    red = (img[..., 0] > 180) & (img[..., 1] < 60) & (img[..., 2] < 60)
    blue = (img[..., 2] > 180) & (img[..., 0] < 60) & (img[..., 1] < 60)
    assert red.sum() >= 10 and blue.sum() >= 5  # the x and z axes, drawn like the live view's AxesHelper
    painted = (img != 255).any(axis=2).sum()
    v.clip.value = 0.5  # keep x <= 0: about half the sphere
    cut = _png_array(v.to_png())
    assert 0.3 * painted < (cut != 255).any(axis=2).sum() < 0.8 * painted
    (mesh,) = [layer for layer in v.static_layers() if layer.kind == "mesh"]
    kept = mesh.positions[mesh.faces.astype(np.int64)]
    assert (kept[..., 0] <= 1e-6).all() and len(mesh.faces) < 0.6 * sphere.num_faces
    _live(monkeypatch, False)
    page = v._repr_mimebundle_()["text/html"]
    assert "unit sphere, 642 vertices" in page and "clipped: x &lt;= " in page and "axes" in page
    v.clip.value = 1.0
    v.show(sphere, scalars=sphere.vertices[:, 1], scalar_label="height (m)")
    page = v._repr_mimebundle_()["text/html"]
    assert "smrnb-colorbar" in page and "height (m)" in page
    assert "unit sphere, 642 vertices" in v.save_html(tmp_path / "s.html").read_text()  # the page's title
    with pytest.raises(SmrnbTypeError, match="caption must be a str, got int"):
        v.caption = 3


def test_the_colour_ramp_table_matches_the_ramp_and_takes_nan_and_out_of_range():
    t = np.random.default_rng(0).random(10_000).astype(np.float32)
    # the table's step is 1/1023 of the ramp; the steepest of its 4 segments rises ~2.5 per unit
    np.testing.assert_allclose(_colors.viridis(t), _colors._ramp(t), atol=2.6 / 1023 / 2 + 1e-6)
    ends = _colors.viridis(np.array([np.nan, -3.0, 0.0, 1.0, 7.0], np.float32))
    np.testing.assert_allclose(ends[[0, 1, 2]], np.repeat(_colors._VIRIDIS_STOPS[:1], 3, 0), atol=1e-6)
    np.testing.assert_allclose(ends[[3, 4]], np.repeat(_colors._VIRIDIS_STOPS[-1:], 2, 0), atol=1e-6)
