# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The 3D viewer: smrnb's only pythreejs module.

:class:`Viewer` is a small interface (``show`` / ``add`` / ``clear`` / ``fit_camera`` / ``link``
/ ``to_png`` / ``widget``) so that another front end could replace pythreejs later. Scene data is
first turned into plain numpy "layers" (:class:`Layer`, shared with the static renderer in
:mod:`smrnb.widgets._static`), then into three.js objects.

Coordinates: the viewer draws in the OpenGL frame (x right, y up, z towards the viewer), metres.
Data labelled ``frame="opencv"`` (points, grids and meshes straight from RGB-D frames) is flipped
``(x, y, z) -> (x, -y, -z)`` for display only; the caller's data is never changed.

Every large array goes to the browser as a binary numpy buffer: positions and uvs as float32,
normals as normalized int8 and colors as normalized uint8 (3 bytes per vertex each instead of 12),
triangle indices as uint32, textures as uint8 RGBA. A 100k-vertex mesh costs about 42 bytes per
vertex on the wire (positions 12, normals 3, colors 3, indices ~24).
"""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.widgets._sync import DerivedArray, buffer_sync, drop_pending, send_arrays, sync_ready

#: default cap on voxels drawn; a grid with more occupied voxels is coarsened (a notice says so)
MAX_VOXELS = 200_000
#: cap on normals drawn as lines by the ``normals`` overlay
MAX_NORMALS = 20_000
#: points drawn while the camera moves in the live viewer (every k-th point of a larger cloud)
POINT_BUDGET = 300_000
#: seconds without camera motion before full detail comes back
SETTLE_SECONDS = 0.3
#: an in-place update sending more bytes than this pauses the renderer's autorender around its messages (one
#: repaint). A smaller one arrives within a frame: pythreejs already draws once per animation frame, and the
#: pause would be two of the five widget messages of redrawing a 16k-vertex coloured mesh
PAUSE_BYTES = 1 << 20
OVERLAYS = ("boundary", "non_manifold", "normals")
_OVERLAY_COLORS = {"boundary": "#e00000", "non_manifold": "#d000d0", "normals": "#1060ff"}
_DEFAULT_MESH_COLOR = (0.72, 0.72, 0.74)
_DEFAULT_POINT_COLOR = (0.2, 0.45, 0.8)


# ------------------------------------------------------------------------------ numpy layers


@dataclass
class Layer:
    """One drawable thing, as plain numpy arrays in the display (OpenGL) frame.

    kind : ``"points"``, ``"mesh"`` or ``"lines"``.
    positions : (N, 3) float32, metres. For ``lines`` consecutive pairs are segments.
    colors : (N, 3) float32 in [0, 1] or None (then ``color`` is used).
    faces : (F, 3) uint32 (meshes only).
    normals : (N, 3) float32 unit vertex normals (meshes only), computed in Python.
    uvs : (N, 2) float32 per vertex, texture : (H, W, 4) uint8 RGBA with row 0 at v = 0 (bottom).
    size : point size in metres (points only).
    """

    kind: str
    positions: np.ndarray
    colors: np.ndarray | None = None
    color: tuple[float, float, float] = _DEFAULT_MESH_COLOR
    faces: np.ndarray | None = None
    normals: np.ndarray | None = None
    uvs: np.ndarray | None = None
    texture: np.ndarray | None = None
    size: float = 0.01
    flat: bool = False
    wireframe: bool = False
    notes: list[str] = field(default_factory=list)
    #: (low, high) of the scalar the colours show (then a colour bar is drawn), and its name
    scalar_range: tuple[float, float] | None = None
    scalar_label: str = ""
    #: ``normals`` are the area-weighted vertex normals of ``positions`` and ``faces``, computed on first use
    #: (:meth:`vertex_normals`); a live viewer redrawing in place lets the page derive them instead
    derived_normals: bool = False

    @property
    def has_normals(self) -> bool:
        """Drawn with vertex normals (given, or derived from the positions and faces)."""
        return self.normals is not None or self.derived_normals

    def vertex_normals(self) -> np.ndarray | None:
        """(N, 3) float32 unit vertex normals (derived ones computed here on first use), or None."""
        if self.normals is None and self.derived_normals:
            self.normals = _normals_of(self.positions, self.faces)
        return self.normals

    def bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(low, high) corners of the finite positions, or None when there are none (computed once:
        the axes and the camera read it on every update)."""
        if "_bounds" not in self.__dict__:
            self.__dict__["_bounds"] = finite_bounds(self.positions)
        return self.__dict__["_bounds"]

    @property
    def nbytes(self) -> int:
        """Bytes of the binary buffers this layer sends to the browser (colors and normals travel
        as 1 byte per component, see :func:`wire_colors` and :func:`wire_normals`)."""
        full = sum(a.nbytes for a in (self.positions, self.faces, self.uvs, self.texture) if a is not None)
        return full + (self.colors.size if self.colors is not None else 0) + (self.positions.size if self.has_normals
                                                                                else 0)


def finite_bounds(p: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(low, high) per column of an (N, 3) array over its finite rows; None when no row is finite.

    Reduces the transposed copy: numpy's ``min(axis=0)`` of an (N, 3) array walks it with a
    three-element inner loop (0.4 ms for 16k float32 rows), the contiguous rows reduce ~20x faster.
    """
    if not len(p):
        return None
    t = np.ascontiguousarray(np.asarray(p).T)
    lo, hi = t.min(1), t.max(1)
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()):  # rare: drop the non-finite rows, then again
        t = t[:, np.isfinite(t).all(0)]
        if not t.shape[1]:
            return None
        lo, hi = t.min(1), t.max(1)
    return lo, hi


def wire_colors(c: np.ndarray) -> np.ndarray:
    """Colors as sent to three.js: uint8 per component, a normalized attribute (1/4 of float32;
    8 bits per channel is what the canvas shows anyway)."""
    return (c * 255.0 + 0.5).astype(np.uint8)


def wire_normals(n: np.ndarray) -> np.ndarray:
    """Unit normals as sent to three.js: int8 per component, a normalized attribute (1/4 of
    float32; direction error below 0.5 degree, invisible in Lambert/PBR shading)."""
    return np.rint(n * 127.0).astype(np.int8)


def _np(x: Any, dtype: Any) -> np.ndarray:
    if hasattr(x, "detach"):  # a tensor: a CPU one without autograd history is shared as it is
        x = x.numpy() if x.device.type == "cpu" and not x.requires_grad else x.detach().cpu().numpy()
    return np.ascontiguousarray(np.asarray(x), dtype=dtype)


def _set_changed(obj: Any, name: str, value: Any) -> None:
    """``obj.name = value`` unless it already is (a widget trait set that changes nothing still validates)."""
    if getattr(obj, name) != value:
        setattr(obj, name, value)


#: the OpenCV -> OpenGL sign pattern (1, -1, -1) repeated, as float32 (grown to the largest array seen)
_FLIP = [np.tile(np.array([1.0, -1.0, -1.0], np.float32), 1 << 14)]


def _to_gl(p: np.ndarray, frame: str) -> np.ndarray:
    """(N, 3) float32 in the OpenGL frame (an OpenCV-frame array has y and z negated): one contiguous multiply
    by the repeated sign pattern (numpy broadcasts a row of 3 over (N, 3) as one 3-element inner loop per row,
    and three column-wise negations each walk the whole array)."""
    p = np.ascontiguousarray(p, dtype=np.float32)
    if frame != "opencv":
        return p
    n = p.size
    if _FLIP[0].size < n:
        _FLIP[0] = np.tile(np.array([1.0, -1.0, -1.0], np.float32), max(n // 3, 2 * _FLIP[0].size // 3))
    return np.multiply(p.reshape(-1), _FLIP[0][:n]).reshape(p.shape)


def _colors(c: Any, n: int, name: str) -> np.ndarray | None:
    if c is None:
        return None
    a = _np(c, np.float32)
    if a.shape != (n, 3):
        raise SmrnbValueError(f"{name} must have shape ({n}, 3), got {a.shape}")
    if a.size and a.max() > 1.0 + 1e-6:  # 0..255 colors
        a = a / 255.0
    return np.ascontiguousarray(np.clip(a, 0.0, 1.0), dtype=np.float32)


def _extent(p: np.ndarray) -> float:
    b = finite_bounds(p)
    return 1.0 if b is None else float(np.linalg.norm(b[1] - b[0])) or 1.0


def points_layer(points: Any, *, colors: Any = None, point_size: float | None = None,
                 color: Any = None) -> Layer:
    """A :class:`Layer` for a PointCloud or an (N, 3) array (metres; PointCloud's ``frame`` honoured)."""
    frame = getattr(points, "frame", "opengl")
    if colors is None:
        colors = getattr(points, "colors", None)
    pts = getattr(points, "points", points)
    if not hasattr(pts, "shape"):
        raise SmrnbTypeError(f"points must be a PointCloud or an (N, 3) array, got {type(points).__name__}")
    p = _np(pts, np.float64)
    if p.ndim != 2 or p.shape[1] != 3:
        raise SmrnbValueError(f"points must have shape (N, 3), got {p.shape}")
    keep = np.isfinite(p).all(1)
    p = _to_gl(p[keep], frame)
    c = _colors(colors, len(keep), "colors")
    c = None if c is None else np.ascontiguousarray(c[keep])
    size = point_size if point_size is not None else max(_extent(p) / 300.0, 1e-6)
    notes = [] if keep.all() else [f"{int((~keep).sum()):,} non-finite points not drawn"]
    return Layer("points", p, c, _rgb(color, _DEFAULT_POINT_COLOR), size=float(size), notes=notes)


def _pool_any(occ: np.ndarray, k: int) -> np.ndarray:
    pad = [(0, (-s) % k) for s in occ.shape]
    o = np.pad(occ, pad)
    X, Y, Z = (s // k for s in o.shape)
    return o.reshape(X, k, Y, k, Z, k).any(axis=(1, 3, 5))


#: how voxels are drawn: one dot per voxel, or cubes (their exposed faces)
VOXEL_MODES = ("points", "cubes")


def voxels_layer(grid: Any, *, mode: str = "points", max_voxels: int = MAX_VOXELS, color: Any = None) -> Layer:
    """Occupied voxels of a ``VoxelGrid`` (unbatched) as points (one square per voxel) or cubes.

    ``cubes`` draws only the voxel faces that touch an empty voxel, as one merged mesh. Not instanced:
    pythreejs 2.4.2 bundles three.js r97, which has ``InstancedBufferGeometry`` but no ``InstancedMesh``
    (r109) and no built-in material that reads per-instance offsets (that needs a custom shader, and the
    static renderer and ``save_html`` could not share it); and the exposed faces of a solid grid are
    far fewer than 12 triangles per voxel (a 10^3 block: 1,200 triangles instead of 12,000). The
    viewer's ``voxels`` toggle switches between cubes (default) and dots. More than ``max_voxels``
    occupied voxels: the grid is coarsened by 2, 3, ... (a voxel is drawn when any of its k^3
    children is occupied) until it fits, and the layer's notes say so.
    """
    if mode not in VOXEL_MODES:
        raise SmrnbValueError(f"voxel_mode must be 'points' or 'cubes', got {mode!r}")
    if not isinstance(max_voxels, int) or max_voxels < 1:
        raise SmrnbValueError(f"max_voxels must be an int >= 1, got {max_voxels!r}")
    occ_t = getattr(grid, "occupancy", None)
    if occ_t is None:
        raise SmrnbTypeError(f"voxels must be a VoxelGrid, got {type(grid).__name__}")
    if occ_t.dim() != 3:
        raise SmrnbValueError(f"voxels must be an unbatched VoxelGrid (X, Y, Z), got shape {tuple(occ_t.shape)}")
    full = _np(occ_t > 0 if occ_t.dtype.is_floating_point else occ_t, bool)
    occ = full
    total = count = int(np.count_nonzero(full))  # count_nonzero: no int64 copy of a 512^3 grid
    vs = float(grid.voxel_size)
    origin = _np(grid.origin, np.float64)
    k = 1
    notes: list[str] = []
    while count > max_voxels:
        k += 1
        occ = _pool_any(full, k)
        count = int(np.count_nonzero(occ))
    if k > 1:
        notes.append(f"{total:,} occupied voxels exceed the cap of {max_voxels:,}: showing the grid coarsened "
                     f"{k}x ({count:,} voxels of {vs * k * 1000:g} mm); raise max_voxels to see all")
    vs_k = vs * k
    idx = np.argwhere(occ)
    col = _rgb(color, (0.85, 0.55, 0.2))
    frame = getattr(grid, "frame", "opengl")
    if mode == "points":
        centers = origin + (idx + 0.5) * vs_k
        return Layer("points", _to_gl(centers, frame), None, col, size=vs_k, notes=notes)
    # cubes: the faces between an occupied voxel and an empty (or outside) neighbour
    padded = np.pad(occ, 1)
    quads = []
    # (axis, direction): corner offsets of the face, ordered counter-clockwise seen from outside
    cube = {(0, 1): [(1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)], (0, -1): [(0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0)],
            (1, 1): [(0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0)], (1, -1): [(0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1)],
            (2, 1): [(0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)], (2, -1): [(0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 0)]}
    for (axis, d), corners in cube.items():
        off = np.zeros(3, dtype=int)
        off[axis] = d
        nb = padded[tuple(idx[:, a] + 1 + off[a] for a in range(3))]
        sel = idx[~nb]
        if len(sel):
            quads.append(sel[:, None, :] + np.array(corners)[None])
    if not quads:
        return Layer("mesh", np.zeros((0, 3), np.float32), None, col, faces=np.zeros((0, 3), np.uint32),
                     flat=True, notes=notes)
    q = np.concatenate(quads)  # (Q, 4, 3) integer corners
    verts = origin + q.reshape(-1, 3) * vs_k
    if frame == "opencv":  # flipping y and z keeps the handedness, so the winding stays outward
        verts = verts * np.array([1.0, -1.0, -1.0])
    base = np.arange(len(q), dtype=np.uint32)[:, None] * 4
    faces = np.concatenate([base + np.array([0, 1, 2], np.uint32), base + np.array([0, 2, 3], np.uint32)], 1)
    faces = faces.reshape(-1, 3)
    v32 = np.ascontiguousarray(verts, np.float32)
    # flat-shaded: the browser lights each face by its plane, no normals travel
    return Layer("mesh", v32, None, col, faces=np.ascontiguousarray(faces, np.uint32), flat=True, notes=notes)


def _area_normals(vertices: Any, faces: Any) -> Any:
    """:func:`smrnb.geometry.normals.area_vertex_normals` on one thread: the viewer's meshes are small
    enough that waking torch's sleeping OpenMP threads (``OMP_WAIT_POLICY=PASSIVE``, see
    :mod:`smrnb._threads`) for each of its ~15 operations costs more than the split saves (16k
    vertices: 0.44 ms on one thread, 0.55 ms on two; 650k: 39 ms and 41 ms)."""
    import torch

    from smrnb.geometry import area_vertex_normals

    before = torch.get_num_threads()
    if before != 1:
        torch.set_num_threads(1)
    try:
        return area_vertex_normals(vertices, faces)
    finally:
        if before != 1:
            torch.set_num_threads(before)


def _normals_of(positions: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """(N, 3) float32 area-weighted unit vertex normals of a layer's (N, 3) float32 positions and (F, 3) faces."""
    import torch

    return _np(_area_normals(torch.from_numpy(positions), torch.from_numpy(faces.astype(np.int64))), np.float32)


#: mesh shadings: ``flat`` lights each triangle by its own plane (three.js ``flatShading``, no normals sent),
#: ``smooth`` interpolates area-weighted vertex normals, ``auto`` is smooth for a textured mesh and flat otherwise
SHADINGS = ("auto", "flat", "smooth")
#: what a viewer's buttons set, by the kind of data they apply to: (the ``show`` option and viewer attribute,
#: its values); the buttons show while such data is on screen
_MODE_BUTTONS = {"VoxelGrid": ("voxel_mode", VOXEL_MODES), "Mesh": ("shading", SHADINGS)}


def resolve_shading(mesh: Any, shading: str, texture: bool = True) -> str:
    """``flat`` or ``smooth`` for ``mesh`` under ``shading`` (see :data:`SHADINGS`).

    ``auto`` follows K3D-jupyter (``flat_shading=True``) and PyVista (``smooth_shading=False``): a plain mesh
    is drawn flat, so a student sees the triangles marching cubes, hole filling and simplification made (a
    smooth normal field hides them). A textured mesh is drawn smooth: its texture, baked from photographs,
    already carries the scene's shading, and lighting each facet on its own would print the triangles over it.
    """
    if shading not in SHADINGS:
        raise SmrnbValueError(f"shading must be one of {', '.join(map(repr, SHADINGS))}, got {shading!r}")
    if shading != "auto":
        return shading
    textured = texture and getattr(mesh, "texture", None) is not None and getattr(mesh, "uvs", None) is not None
    return "smooth" if textured else "flat"


def mesh_layer(mesh: Any, *, shading: str = "auto", wireframe: bool = False, texture: bool = True,
               color: Any = None) -> Layer:
    """A :class:`Layer` for a :class:`~smrnb.geometry.mesh.Mesh`.

    ``shading`` (:data:`SHADINGS`, resolved by :func:`resolve_shading`): ``flat`` sends no normals (the
    browser lights each triangle by its plane); ``smooth`` sends the mesh's own ``vertex_normals`` or
    area-weighted ones (:func:`smrnb.geometry.normals.area_vertex_normals`, what
    :func:`smrnb.compute_vertex_normals` computes by default): for a plain mesh left to
    :meth:`Layer.vertex_normals` (computed when first needed; a page redrawing in place with the sync model derives
    them itself, see :mod:`smrnb.widgets._sync`). With a texture (``uvs``, ``face_uvs_idx``, ``texture``) vertices
    are split at uv seams exactly like the exporters do (:func:`smrnb.geometry.split_seams`), normals computed
    here and carried along.
    """
    import torch

    from smrnb.geometry import split_seams

    if not (hasattr(mesh, "vertices") and hasattr(mesh, "faces")):
        raise SmrnbTypeError(f"mesh must be a Mesh, got {type(mesh).__name__}")
    smooth = resolve_shading(mesh, shading, texture) == "smooth"
    frame = getattr(mesh, "frame", "opengl")
    notes: list[str] = []
    tex_img = None
    nrm = None
    if texture and mesh.texture is not None and mesh.uvs is not None:
        normals = mesh.vertex_normals
        if smooth and normals is None:
            normals = _area_normals(torch.as_tensor(mesh.vertices).detach().cpu().float(),
                                    torch.as_tensor(mesh.faces).detach().cpu().long())
        # the colors slot of split_seams carries the normals through the seam split
        v, f, uv, n = split_seams(mesh.replace(vertex_colors=normals.float() if smooth else None))
        tex = _np(mesh.texture.float().clamp(0, 1) * 255.0 + 0.5, np.float32).astype(np.uint8)
        if tex.shape[2] == 3:
            tex = np.concatenate([tex, np.full(tex.shape[:2] + (1,), 255, np.uint8)], 2)
        tex_img = np.ascontiguousarray(tex[::-1])  # row 0 = v 0 (three.js DataTexture, flipY false)
        uvs = np.ascontiguousarray(uv, np.float32)
        colors = None
        notes.append(f"texture {mesh.texture.shape[1]} x {mesh.texture.shape[0]}; {len(v):,} vertices after "
                     f"uv-seam splits")
        pos = _to_gl(np.asarray(v, np.float32), frame)
        if smooth:
            nrm = _to_gl(np.asarray(n, np.float32), frame)
    else:
        pos = _to_gl(_np(mesh.vertices, np.float32), frame)
        f = _np(mesh.faces, np.int64)
        if smooth and mesh.vertex_normals is not None:
            nrm = _to_gl(_np(mesh.vertex_normals, np.float32), frame)
        uvs = None
        colors = _colors(mesh.vertex_colors, len(pos), "vertex_colors")
    faces = np.ascontiguousarray(f, dtype=np.uint32)
    # smooth without normals of its own: area-weighted ones of the display-frame positions (the OpenCV -> OpenGL
    # flip is a rotation, normals turn with it), computed when first needed (Layer.vertex_normals)
    return Layer("mesh", pos, colors, _rgb(color, _DEFAULT_MESH_COLOR), faces=faces, normals=nrm, uvs=uvs,
                 texture=tex_img, flat=not smooth, wireframe=wireframe, notes=notes,
                 derived_normals=smooth and nrm is None)


def overlay_layers(mesh: Any, overlays: Any, base: Layer) -> list[Layer]:
    """Teaching overlays of a mesh as ``lines`` layers: open boundary edges (holes) in red,
    non-manifold edges in magenta, vertex normals as short blue lines (at most MAX_NORMALS)."""
    from smrnb.geometry import boundary_edges, non_manifold_edges

    names = (overlays,) if isinstance(overlays, str) else tuple(overlays or ())
    bad = [o for o in names if o not in OVERLAYS]
    if bad:
        raise SmrnbValueError(f"overlays must be among {', '.join(OVERLAYS)}, got {', '.join(map(repr, bad))}")
    if not names:
        return []
    out = []
    frame = getattr(mesh, "frame", "opengl")
    pos = _to_gl(_np(mesh.vertices, np.float64), frame)
    faces = _np(mesh.faces, np.int64)
    for name in names:
        col = _rgb(_OVERLAY_COLORS[name], (1, 0, 0))
        if name in ("boundary", "non_manifold"):
            e = np.asarray(boundary_edges(faces) if name == "boundary" else non_manifold_edges(faces)).reshape(-1, 2)
            seg = pos[e.reshape(-1)] if len(e) else np.zeros((0, 3), np.float32)
            label = "boundary (hole) edges" if name == "boundary" else "non-manifold edges"
            out.append(Layer("lines", np.ascontiguousarray(seg, np.float32), None, col,
                             notes=[f"{len(e):,} {label} in {_OVERLAY_COLORS[name]}"]))
        else:
            p, n = base.positions, base.vertex_normals()
            if n is None:  # a flat-shaded mesh sends no normals; the overlay still shows the vertex normals
                n = _normals_of(p, base.faces)
            step = max(1, math.ceil(len(p) / MAX_NORMALS))
            p, n = p[::step], n[::step]
            length = _extent(base.positions) * 0.02
            seg = np.stack([p, p + n * length], 1).reshape(-1, 3)
            note = f"normals of {len(p):,} vertices" + (f" (every {step}th)" if step > 1 else "")
            out.append(Layer("lines", np.ascontiguousarray(seg, np.float32), None, col, notes=[note]))
    return out


def _rgb(c: Any, default: tuple[float, float, float]) -> tuple[float, float, float]:
    if c is None:
        return default
    if isinstance(c, str):
        s = c.lstrip("#")
        if len(s) != 6:
            raise SmrnbValueError(f"color must be '#rrggbb' or an (r, g, b) triple in [0, 1], got {c!r}")
        return tuple(int(s[i:i + 2], 16) / 255.0 for i in (0, 2, 4))  # type: ignore[return-value]
    t = tuple(float(x) for x in c)
    if len(t) != 3:
        raise SmrnbValueError(f"color must be '#rrggbb' or an (r, g, b) triple in [0, 1], got {c!r}")
    return t  # type: ignore[return-value]


def _with_scalars(layer: Layer, scalars: Any, scalar_range: Any, label: Any, points: Any) -> Layer:
    s = _np(scalars, np.float64)
    n = len(layer.positions) if layer.kind == "mesh" else len(_np(points, np.float64)) if hasattr(points, "shape") \
        else len(layer.positions)
    if s.shape != (n,):
        raise SmrnbValueError(f"scalars must have shape ({n},) (one value per {'vertex' if layer.kind == 'mesh' else 'point'}),"
                              f" got {s.shape}")
    if not isinstance(label, str):
        raise SmrnbTypeError(f"scalar_label must be a str, got {type(label).__name__}")
    if layer.kind == "points" and len(layer.positions) != n:  # non-finite points were dropped
        keep = np.isfinite(_np(points, np.float64)).all(1)
        s = s[keep]
    fin = np.isfinite(s)
    if scalar_range is None:
        lo, hi = (float(s[fin].min()), float(s[fin].max())) if fin.any() else (0.0, 1.0)
    else:
        try:
            lo, hi = (float(x) for x in scalar_range)
        except (TypeError, ValueError):
            raise SmrnbValueError(f"scalar_range must be (low, high) numbers, got {scalar_range!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and hi >= lo):
            raise SmrnbValueError(f"scalar_range must be finite with low <= high, got {scalar_range!r}")
    t = (s - lo) / (hi - lo) if hi > lo else np.zeros_like(s)
    col = _viridis(np.where(fin, t, 0.0).astype(np.float32))
    col[~fin] = 0.6
    layer.colors = np.ascontiguousarray(col, np.float32)
    layer.scalar_range, layer.scalar_label = (lo, hi), label
    n_bad = int((~fin).sum())
    layer.notes.append(f"colour = {label}: {lo:.4g} (dark blue) -> {hi:.4g} (yellow)"
                       + (f"; {n_bad:,} without a value in grey" if n_bad else ""))
    return layer


def colorbar_html(layers: list[Layer]) -> str:
    """One colour bar (viridis, low -> high with the label) per layer that shows a scalar."""
    if all(layer.scalar_range is None for layer in layers):
        return ""
    stops = ", ".join(_hex(tuple(c)) for c in _viridis(np.linspace(0, 1, 9, dtype=np.float32)))
    out = []
    for layer in layers:
        if layer.scalar_range is None:
            continue
        lo, hi = layer.scalar_range
        out.append("<div class='smrnb-colorbar' style='display:flex;align-items:center;gap:6px;font-size:12px;"
                   f"color:#333;margin:2px 0'><span class='smrnb-colorbar-low'>{lo:.4g}</span>"
                   f"<span style='display:inline-block;width:180px;height:12px;border:1px solid #999;"
                   f"background:linear-gradient(to right, {stops})'></span>"
                   f"<span class='smrnb-colorbar-high'>{hi:.4g}</span><span>{html.escape(layer.scalar_label)}"
                   "</span></div>")
    return "".join(out)


def _hex(c: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{int(round(min(max(x, 0.0), 1.0) * 255)):02x}" for x in c)


#: at most this many TSDF voxels are drawn (a random, seeded subset beyond it)
MAX_TSDF_POINTS = 200_000


_VIRIDIS_STOPS = np.array([[0.267, 0.005, 0.329], [0.230, 0.322, 0.546], [0.128, 0.567, 0.551],
                           [0.369, 0.789, 0.383], [0.993, 0.906, 0.144]], np.float32)


def _ramp(x: np.ndarray) -> np.ndarray:
    """The ramp at ``x`` in [0, 1] (5 stops of viridis, linear between them)."""
    stops = _VIRIDIS_STOPS
    x = np.clip(x, 0.0, 1.0) * (len(stops) - 1)
    i = np.minimum(x.astype(np.int64), len(stops) - 2)
    f = (x - i)[:, None].astype(np.float32)
    return stops[i] * (1 - f) + stops[i + 1] * f


#: the ramp at 1024 steps: a table lookup instead of interpolating every value (colours travel as 8 bits)
_VIRIDIS_LUT = _ramp(np.linspace(0.0, 1.0, 1024))


def _viridis(t: np.ndarray) -> np.ndarray:
    """A perceptually ordered colour ramp (5 stops of viridis, linear between them) for t in [0, 1]
    (NaN -> the low end), (N, 3) float32; within 1/1023 of the exact ramp in t."""
    x = np.asarray(t, np.float32) * np.float32(1023.0) + np.float32(0.5)
    return _VIRIDIS_LUT[np.fmin(np.fmax(x, 0.0), 1023.0).astype(np.intp)]  # fmax/fmin: NaN -> the bound


def tsdf_layer(volume: Any, *, band: float = 0.5, max_points: int = MAX_TSDF_POINTS) -> Layer:
    """The voxels of a ``TSDFVolume`` near its surface (``|tsdf| < band`` of the truncation, seen at
    least once), one point per voxel, coloured by weight (how many frames saw the voxel) on a
    dark-blue -> yellow ramp; the layer's notes give the weight range (the colour bar's ends).
    """
    if not isinstance(max_points, int) or max_points < 1:
        raise SmrnbValueError(f"max_points must be an int >= 1, got {max_points!r}")
    n = int(volume.num_blocks)
    B, vs = int(volume.block_size), float(volume.voxel_size)
    tsdf = _np(volume.tsdf[:n], np.float32)
    weight = _np(volume.weight[:n], np.float32)
    flat = np.flatnonzero((weight > 0) & (np.abs(tsdf) < band))  # ~5x faster than a 2-D nonzero
    total = len(flat)
    notes = []
    if total > max_points:
        flat = flat[np.sort(np.random.default_rng(0).choice(total, max_points, replace=False))]
        notes.append(f"{max_points:,} of {total:,} near-surface voxels drawn")
    blk, loc = np.divmod(flat, B ** 3)
    w = weight.reshape(-1)[flat]
    # centre = block origin + the voxel's offset in its block (row-major: loc = (x * B + y) * B + z), both
    # tabled in metres and in the display frame (OpenCV -> OpenGL: y and z flip), then one gather each
    gl = np.array([1.0, -1.0, -1.0])
    origin = (_np(volume.block_coords[:n], np.float64) * (B * vs) * gl).astype(np.float32)
    offset = (np.stack(np.unravel_index(np.arange(B ** 3), (B, B, B)), 1) * vs * gl).astype(np.float32)
    centers = origin[blk] + offset[loc]
    lo, hi = (float(w.min()), float(w.max())) if len(w) else (0.0, 0.0)
    colors = _viridis((w - lo) / (hi - lo) if hi > lo else np.zeros_like(w))
    notes.append(f"colour = TSDF weight (frames that saw the voxel): dark blue {lo:g} -> yellow {hi:g}; "
                 f"{total:,} voxels within {band:g} of the truncation distance from the surface")
    return Layer("points", centers, colors, size=vs, notes=notes, scalar_range=(lo, hi),
                 scalar_label="TSDF weight (frames that saw the voxel)")


def layers_for(data: Any, *, point_size: float | None = None, colors: Any = None, color: Any = None,
               voxel_mode: str = "points", max_voxels: int = MAX_VOXELS, shading: str = "auto",
               wireframe: bool = False, overlays: Any = (), texture: bool = True, scalars: Any = None,
               scalar_range: Any = None, scalar_label: str = "value") -> list[Layer]:
    """The layers that draw ``data`` (Mesh, PointCloud, VoxelGrid, TSDFVolume or an (N, 3) array).

    ``scalars`` ((N,) per vertex or point, e.g. :func:`smrnb.geometry.metrics.vertex_depth_error`)
    colours the data on the viridis ramp over ``scalar_range`` (default: the finite min and max;
    non-finite values grey) and the viewer draws a colour bar labelled ``scalar_label``.
    """
    name = type(data).__name__
    if scalars is not None:
        if name not in ("Mesh", "PointCloud") and not hasattr(data, "shape"):
            raise SmrnbValueError(f"scalars need a Mesh, a PointCloud or an (N, 3) array, got {name}")
        if colors is not None:
            raise SmrnbValueError("give colors or scalars, not both")
        layers = layers_for(data, point_size=point_size, color=color, shading=shading, wireframe=wireframe,
                            overlays=overlays, texture=False)
        return [_with_scalars(layers[0], scalars, scalar_range, scalar_label, getattr(data, "points", data)),
                *layers[1:]]
    if overlays and name != "Mesh":
        raise SmrnbValueError(f"overlays need a Mesh, got {name}")
    if name == "Mesh":
        base = mesh_layer(data, shading=shading, wireframe=wireframe, texture=texture, color=color)
        return [base, *overlay_layers(data, overlays, base)]
    if name == "PointCloud" or (hasattr(data, "shape") and len(getattr(data, "shape", ())) == 2):
        return [points_layer(data, colors=colors, point_size=point_size, color=color)]
    if name == "VoxelGrid":
        return [voxels_layer(data, mode=voxel_mode, max_voxels=max_voxels, color=color)]
    if name == "TSDFVolume":
        return [tsdf_layer(data)]
    raise SmrnbTypeError(f"data must be a Mesh, PointCloud, VoxelGrid, TSDFVolume or an (N, 3) array, got {name}")


# ------------------------------------------------------------------------------- camera math


def fit_camera_pose(positions: list[np.ndarray], fov: float = 45.0, aspect: float = 1.6,
                    direction: tuple[float, float, float] = (0.45, 0.35, 1.0), fill: float = 0.9,
                    sample: int = 20_000) -> dict[str, Any]:
    """Camera that frames every position: ``{position, target, quaternion, near, far, radius}``.

    The camera looks at the centre of the bounding box from ``direction`` and stands just far enough
    back that every position (up to ``sample`` of them, a seeded random subset) projects inside ``fill``
    of the half-width and half-height of the view (``fov`` is vertical, degrees; ``aspect`` =
    width/height): a wide room fills the canvas instead of the circle around its bounding sphere.
    """
    pts = [p for p in positions if len(p)]
    if pts:
        allp = np.concatenate(pts).astype(np.float64)
        allp = allp[np.isfinite(allp).all(1)]
    else:
        allp = np.zeros((0, 3))
    if len(allp) == 0:
        allp = np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]])
    lo, hi = finite_bounds(allp)  # type: ignore[misc]  # allp has finite rows
    center = (lo + hi) / 2
    radius = max(float(np.linalg.norm(allp - center, axis=1).max()), 1e-3)
    if len(allp) > sample:
        allp = allp[np.random.default_rng(0).choice(len(allp), sample, replace=False)]
    d = np.asarray(direction, np.float64)
    d /= np.linalg.norm(d)
    right = np.cross((0.0, 1.0, 0.0), d)
    if np.linalg.norm(right) < 1e-9:
        right = np.cross((0.0, 0.0, 1.0), d)
    right /= np.linalg.norm(right)
    up = np.cross(d, right)
    q = allp - center
    toward, a, b = q @ d, np.abs(q @ right), np.abs(q @ up)
    tan_v = math.tan(math.radians(fov) / 2) * fill
    tan_h = math.tan(math.radians(fov) / 2) * aspect * fill
    # a point at depth dist - toward projects inside the view when |a| / depth <= tan_h (and b likewise)
    dist = float(np.max(np.maximum(toward + a / tan_h, toward + b / tan_v)))
    dist = max(dist, float(toward.max()) + radius * 0.05, radius * 0.1)  # the camera stays outside the data
    pos = center + d * dist
    return {"position": tuple(float(x) for x in pos), "target": tuple(float(x) for x in center),
            "quaternion": _look_at_quaternion(pos, center), "near": dist / 100.0,
            "far": dist * 10.0 + radius * 2, "radius": radius}


def _look_at_quaternion(eye: np.ndarray, target: np.ndarray, up: tuple[float, float, float] = (0, 1, 0)
                        ) -> tuple[float, float, float, float]:
    """Quaternion (x, y, z, w) of a camera at ``eye`` looking at ``target`` (camera looks down -z)."""
    z = eye - target
    z = z / np.linalg.norm(z)
    x = np.cross(np.asarray(up, np.float64), z)
    if np.linalg.norm(x) < 1e-9:
        x = np.cross((0.0, 0.0, 1.0), z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    m = np.stack([x, y, z], 1)  # columns: camera axes in world
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        w, qx, qy, qz = 0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        w, qx, qy, qz = (m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        w, qx, qy, qz = (m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        w, qx, qy, qz = (m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s
    return (float(qx), float(qy), float(qz), float(w))


# ---------------------------------------------------------------------------- front end check


def frontend_status() -> dict[str, Any]:
    """Is the ``jupyter-threejs`` lab extension where the server looks? (the doctor's jupyter probe facts)."""
    import os
    import sys

    from smrnb.doctor import jupyter_paths, threejs_labextension

    try:
        import importlib.metadata as md

        version = md.version("pythreejs")
    except Exception:
        version = None
    try:
        facts = threejs_labextension(jupyter_paths("labextensions", dict(os.environ), sys.prefix), version)
    except Exception as exc:  # a failed probe means "unknown", never an exception
        return {"installed": None, "reason": f"{type(exc).__name__}: {exc}"}
    return facts


def live_frontend() -> bool:
    """Is a live widget front end attached to this kernel now?

    Two signs, either enough: ipywidgets' ``jupyter.widget.control`` comm is open (front ends built
    on ``@jupyter-widgets/base-manager`` open it on connecting to a kernel that has ipywidgets
    imported), or the request being executed carries cell metadata (JupyterLab and Notebook 7
    send ``cellId``, ``deletedCells``, ``recordTiming``). ``nbconvert --execute``, nbclient and
    papermill send none and open no control comm; a terminal IPython has no kernel at all.
    ``SMRNB_STATIC_PICTURES`` overrides the guess: ``always`` (static pictures beside the live
    widget), ``never`` (the widget alone), ``auto`` (the default).
    """
    import os

    mode = os.environ.get("SMRNB_STATIC_PICTURES", "auto").strip().lower()
    if mode == "never":
        return True
    if mode == "always":
        return False
    try:
        from ipywidgets import Widget
    except ImportError:  # pragma: no cover - ipywidgets is a dependency of the widgets
        return False
    if getattr(Widget, "_control_comm", None) is not None:
        return True
    try:
        from IPython import get_ipython

        ip = get_ipython()
        parent = getattr(ip, "parent_header", None) if getattr(ip, "kernel", None) is not None else None
        return bool((parent or {}).get("metadata"))
    except Exception:  # a shell without a parent header: no live front end known
        return False


def static_pictures() -> str:
    """``"live"``: the widget alone; ``"static"``: a picture instead of the widget; ``"both"``."""
    import os

    if os.environ.get("SMRNB_STATIC_PICTURES", "auto").strip().lower() == "always":
        return "both"
    return "live" if live_frontend() else "static"


def widget_bundle(widget: Any, **kwargs: Any) -> dict[str, Any]:
    """An ipywidget's display data without its ``text/plain``."""
    bundle = widget._repr_mimebundle_(**kwargs)
    if isinstance(bundle, tuple):
        bundle = bundle[0]
    return {k: v for k, v in (bundle or {}).items() if k != "text/plain"}


def png_html(png: bytes, caption: str = "") -> str:
    """An ``<img>`` with the PNG inline (and a grey caption), for static outputs."""
    b64 = base64.b64encode(png).decode("ascii")
    cap = f"<div style='color:#666;font-size:90%'>{html.escape(caption)}</div>" if caption else ""
    return f"<div><img src='data:image/png;base64,{b64}'/>{cap}</div>"


# ------------------------------------------------------------------------------------ viewer


class Viewer:
    """An interactive 3D view (pythreejs) of meshes, point clouds and voxel grids.

    Parameters
    ----------
    data : Mesh, PointCloud, VoxelGrid or (N, 3) array, optional
        Shown right away (see :meth:`show` for the options, passed as keywords).
    width, height : int
        Canvas size in CSS pixels; the camera's aspect ratio is ``width / height``.
    background : str
        Canvas colour ``'#rrggbb'``.
    fov : float
        Vertical field of view, degrees.
    caption : str
        A line under the canvas saying what the picture shows (kept in static pictures and
        :meth:`save_html` pages); settable later through :attr:`caption`.
    point_budget : int
        While the person drags or zooms, a point layer of more than this many points is drawn as
        every k-th point (at most ``point_budget``, dots enlarged to keep the surface closed); full
        detail comes back when the camera rests (:data:`SETTLE_SECONDS`). A press or a wheel step on
        the canvas starts it (the browser tells the kernel through a picker on an enclosing sphere:
        OrbitControls itself reports only the end of a drag).

    Notes
    -----
    ``display(viewer)`` (or a viewer as the last expression of a cell) shows the live widget and
    carries a PNG of the same scene for nbconvert, docs and front ends without the widget extension.
    ``show`` on a viewer already on screen updates it in place: same canvas, camera kept.
    :meth:`save_png` and :meth:`save_html` (an offline interactive page) keep the current view.
    """

    def __init__(self, data: Any = None, *, width: int = 640, height: int = 400, background: str = "#ffffff",
                 fov: float = 45.0, caption: str = "", point_budget: int = POINT_BUDGET, **options: Any) -> None:
        import threading

        import ipywidgets as ipw
        import pythreejs as three

        for nm, v in (("width", width), ("height", height)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 16:
                raise SmrnbValueError(f"{nm} must be an int >= 16 (pixels), got {v!r}")
        if not isinstance(point_budget, int) or isinstance(point_budget, bool) or point_budget < 1000:
            raise SmrnbValueError(f"point_budget must be an int >= 1000 (points), got {point_budget!r}")
        self.point_budget = point_budget
        buffer_sync()  # made with the first viewer, so that a front end has loaded it before any in-place update
        #: the coarse twin of each drawn object (None where the layer is within the budget)
        self._coarse: dict[str, list[Any]] = {}
        #: True while the camera moves and coarse twins are drawn; ``detail_log`` lists the switches
        self.moving = False
        self.detail_log: list[tuple[float, str]] = []
        self._settle_timer: Any = None
        self._detail_lock = threading.RLock()
        self._three = three
        self.width, self.height = width, height
        self.background = _hex(_rgb(background, (1, 1, 1)))
        self.fov = float(fov)
        self.layers: dict[str, list[Layer]] = {}
        self._objects: dict[str, list[Any]] = {}
        self._fitted = False
        self.camera = three.PerspectiveCamera(position=[0, 0, 3], fov=self.fov, aspect=width / height, near=0.01,
                                              far=100.0, children=[_headlight(three)])
        self.controls = three.OrbitControls(controlling=self.camera)
        #: the drawn data (what picking looks at); axes and lights sit beside it in the scene
        self.content = three.Group()
        self.axes = three.AxesHelper(1.0, visible=False)
        self.scene = three.Scene(children=[self.camera, three.AmbientLight(color="#ffffff", intensity=0.55),
                                           self.content, self.axes], background=self.background)
        # a double click picks (a single click ends every orbit drag, it would pick on each)
        self.picker = three.Picker(controlling=self.content, event="dblclick", pointThreshold=0.01,
                                   lineThreshold=0.005)
        # a press or a wheel step anywhere on the canvas: a picker on a sphere around everything (1000 km:
        # never in the scene, never drawn, its world matrix the identity) reports it to the kernel, which
        # switches big clouds to their coarse twins; each press hits it at another point, so each is sent
        self._grab_sphere = three.Mesh(three.SphereBufferGeometry(1e6, 16, 12),
                                       three.MeshBasicMaterial(side="DoubleSide", transparent=True, opacity=0.0))
        self._grab = [three.Picker(controlling=self._grab_sphere, event=ev) for ev in ("mousedown", "wheel")]
        for g in self._grab:
            g.observe(self._on_grab, names=["point"])
        self.camera.observe(self._on_camera_moved, names=["position", "quaternion"])
        self.renderer = three.Renderer(scene=self.scene, camera=self.camera,
                                       controls=[self.controls, self.picker, *self._grab],
                                       width=width, height=height, antialias=True)
        self.renderer.add_class("smrnb-viewer")
        self.pick_info = ipw.HTML(value="<span style='color:#777;font-size:12px'>double-click the data: its "
                                  "coordinates and normal</span>")
        self.pick_info.add_class("smrnb-viewer-pick")
        self.picker.observe(self._on_pick, names=["point", "distance"])
        self.clip_axis = ipw.Dropdown(options=["x", "y", "z"], value="x", description="clip",
                                      layout=ipw.Layout(width="110px"), style={"description_width": "30px"})
        self.clip = ipw.FloatSlider(value=1.0, min=0.0, max=1.0, step=0.01, readout_format=".0%",
                                    description="keep", style={"description_width": "35px"},
                                    layout=ipw.Layout(width="260px"))
        self.clip.add_class("smrnb-viewer-clip")
        self.clip_axis.observe(lambda _: self._update_clip(), names="value")
        self.clip.observe(lambda _: self._update_clip(), names="value")
        self.legend = ipw.HTML(value="")
        # voxel grids: cubes (exposed faces, one merged mesh) or one dot per voxel; shown with a grid only
        self.voxel_mode = ipw.ToggleButtons(options=[("cubes", "cubes"), ("dots", "points")], value="cubes",
                                            description="voxels", style={"button_width": "56px",
                                                                         "description_width": "45px"},
                                            layout=ipw.Layout(display="none"))
        self.voxel_mode.add_class("smrnb-viewer-voxel-mode")
        self.voxel_mode.observe(self._on_mode, names="value")
        # meshes: auto (flat, smooth when textured), each triangle lit by its plane, or smooth vertex normals
        self.shading = ipw.ToggleButtons(options=[(m, m) for m in SHADINGS], value="auto", description="shading",
                                         tooltips=["flat for a plain mesh, smooth for a textured one",
                                                   "each triangle lit by its own plane: the triangles show",
                                                   "area-weighted vertex normals interpolated across triangles"],
                                         style={"button_width": "72px", "description_width": "52px"},
                                         layout=ipw.Layout(display="none"))
        self.shading.add_class("smrnb-viewer-shading")
        self.shading.observe(self._on_mode, names="value")
        self._shown: dict[str, tuple[Any, dict[str, Any]]] = {}
        self.notice = ipw.HTML(value="", layout=ipw.Layout(margin="2px 0 0 0"))
        self._caption_html = ipw.HTML(value="")
        self._caption_html.add_class("smrnb-viewer-caption")
        self.caption = caption
        tools = ipw.HBox([self.clip_axis, self.clip, self.pick_info], layout=ipw.Layout(align_items="center"))
        modes = ipw.HBox([self.voxel_mode, self.shading])
        self.widget = ipw.VBox([self.renderer, self._caption_html, tools, modes, self.legend, self.notice])
        self._links: list[Any] = []
        if data is not None:
            self.show(data, **options)
        elif options:
            raise SmrnbValueError(f"options {sorted(options)} need data to show")

    @property
    def caption(self) -> str:
        """The line under the canvas (``""`` for none)."""
        return self._caption

    @caption.setter
    def caption(self, text: str) -> None:
        if not isinstance(text, str):
            raise SmrnbTypeError(f"caption must be a str, got {type(text).__name__}")
        self._caption = text
        self._caption_html.value = (f"<div style='font-size:13px;color:#333;margin:2px 0'>{html.escape(text)}</div>"
                                    if text else "")

    # ----------------------------------------------------------------------------- content
    def show(self, data: Any, *, name: str = "main", fit: bool | None = None, **options: Any) -> Viewer:
        """Replace layer ``name`` (default ``"main"``) with ``data``; other layers stay.

        Options: ``point_size`` (metres), ``colors`` ((N, 3) in [0, 1] for arrays), ``color``
        (``'#rrggbb'``, used without per-vertex colours), ``voxel_mode`` (``points`` | ``cubes``),
        ``max_voxels``, ``shading`` (``auto`` | ``flat`` | ``smooth``, see :func:`resolve_shading`; the
        viewer's shading buttons show and set it), ``wireframe`` (bool), ``overlays``
        (any of ``boundary``, ``non_manifold``, ``normals``), ``texture`` (bool: draw the baked
        texture when the mesh has one). ``fit``: refit the camera (default: only for the first data).
        Returns the viewer (so ``Viewer().show(mesh)`` displays).
        """
        kind = type(data).__name__
        if kind in _MODE_BUTTONS:  # the option follows the buttons, and an option given sets them
            option, allowed = _MODE_BUTTONS[kind]
            buttons = getattr(self, option)
            value = options.setdefault(option, buttons.value)
            if value in allowed and value != buttons.value:
                with buttons.hold_trait_notifications():
                    self._shown[name] = (data, dict(options))  # the observer below sees this value already
                    buttons.value = value
        layers = layers_for(data, **options)
        self._shown[name] = (data, dict(options))
        kinds = {type(d).__name__ for d, _ in self._shown.values()}
        for k, (option, _allowed) in _MODE_BUTTONS.items():
            _set_changed(getattr(self, option).layout, "display", "flex" if k in kinds else "none")
        self._set_layers(name, layers)
        if fit or (fit is None and not self._fitted):
            self.fit_camera()
        return self

    add = show

    def remove(self, name: str) -> None:
        """Remove layer ``name`` (unknown names raise, listing the layers)."""
        if name not in self.layers:
            raise SmrnbValueError(f"no layer named {name!r}; layers: {', '.join(self.layers) or '(none)'}")
        self._set_layers(name, [])
        del self.layers[name]
        self._shown.pop(name, None)

    def clear(self) -> None:
        """Remove every layer (the camera stays where it is)."""
        for name in list(self.layers):
            self.remove(name)

    def _coarse_layer(self, layer: Layer) -> Layer | None:
        """Every k-th point of a points layer over the budget (dots enlarged by sqrt(k), at most 3x)."""
        from dataclasses import replace

        n = len(layer.positions)
        if layer.kind != "points" or n <= self.point_budget:
            return None
        k = -(-n // self.point_budget)
        return replace(layer, positions=np.ascontiguousarray(layer.positions[::k]),
                       colors=None if layer.colors is None else np.ascontiguousarray(layer.colors[::k]),
                       size=layer.size * min(math.sqrt(k), 3.0), notes=[])

    def _set_layers(self, name: str, layers: list[Layer]) -> None:
        prev = self.layers.get(name)
        coarse = [self._coarse_layer(layer) for layer in layers]
        if (prev is not None and len(prev) == len(layers) and all(map(_same_structure, prev, layers))
                and [c is None for c in coarse] == [c is None for c in self._coarse.get(name, [])]):
            # same kinds of buffers: swap the arrays in place (no new front-end models or materials). The
            # arrays and the bounds are computed before the first message goes out (each message wakes the
            # kernel's IO thread, which then competes for the interpreter with the numpy work still to do)
            updates = [(obj, a, b) for obj, a, b in zip(self._objects[name], prev, layers)]
            updates += [(obj, obj._smrnb_layer, b) for obj, b in zip(self._coarse[name], coarse) if obj is not None]
            # one message for every array when a page runs smrnb's sync model (it applies them within one task:
            # the page draws the whole update in its next frame), the page deriving smooth normals from the new
            # positions and triangles; else one message per array, normals computed here
            def plan(page_normals: bool) -> list[tuple[Any, str, np.ndarray]]:
                """(buffer widget, trait, array) of every object, each object's in the order of _wire_arrays."""
                return [(attr, "array", arr) for obj, a, b in updates
                        for attr, arr in self._array_targets(obj, self._wire_arrays(a, b, page_normals))]

            page = sync_ready()
            targets = plan(page)
            for layer in layers:
                layer.bounds()
            derived = [(g.attributes["normal"], g.attributes["position"], g.index, _wire_normals_of(b))
                       for obj, _a, b in updates if page and b.normals is None and b.derived_normals
                       for g in [self._drawn(obj).geometry]]
            if not send_arrays(targets, derived):
                if derived:  # no page to derive them after all
                    targets = plan(False)
                # a large update: one repaint for the whole of it, not one per array (each costs a frame in
                # software GL)
                pause = sum(arr.nbytes for _w, _n, arr in targets) > PAUSE_BYTES
                if pause:
                    self.renderer._pause_autorender = True
                try:
                    for attr, _n, arr in targets:
                        drop_pending(attr)
                        attr.array = arr
                finally:
                    if pause:
                        self.renderer._pause_autorender = False
            for obj, _a, b in updates:
                self._set_look(obj, b)
            for obj, b in zip(self._coarse[name], coarse):
                if obj is not None:
                    obj._smrnb_layer = b
            self.layers[name] = layers
            self._update_notice()
            return
        old = self._objects.pop(name, []) + [o for o in self._coarse.pop(name, []) if o is not None]
        new = [self._make_object(layer) for layer in layers]
        twins = []
        for obj, c in zip(new, coarse):
            twin = None
            if c is not None:
                twin = self._make_object(c)
                twin._smrnb_layer = c
                twin.visible = self.moving
                obj.visible = not self.moving
            twins.append(twin)
        keep = [c for c in self.content.children if not any(c is o for o in old)]
        self.content.children = tuple(keep + new + [t for t in twins if t is not None])
        for o in old:  # free the front-end models of the replaced geometry
            _close_tree(o)
        self._objects[name] = new
        self._coarse[name] = twins
        self.layers[name] = layers
        self._update_notice()

    # ------------------------------------------------------------------------- level of detail
    def _on_grab(self, change: Any = None) -> None:
        """A press or wheel step on the canvas: coarse twins while the camera moves."""
        self._set_detail(moving=True)
        self._schedule_settle(3.0)  # a press without a drag never ends one: come back anyway

    def _on_camera_moved(self, change: Any = None) -> None:
        """The browser reports the camera at the end of a drag or wheel step: full detail once it rests."""
        if self.moving:
            self._schedule_settle(SETTLE_SECONDS)

    def _schedule_settle(self, seconds: float) -> None:
        import threading

        with self._detail_lock:
            if self._settle_timer is not None:
                self._settle_timer.cancel()
            self._settle_timer = threading.Timer(seconds, self._set_detail, kwargs={"moving": False})
            self._settle_timer.daemon = True
            self._settle_timer.start()

    def _set_detail(self, *, moving: bool) -> None:
        import time

        with self._detail_lock:
            if moving == self.moving:
                return
            twins = [(o, t) for name in self._objects for o, t in zip(self._objects[name], self._coarse.get(name, []))
                     if t is not None]
            self.moving = moving
            if not twins:
                return
            self.renderer._pause_autorender = True  # one repaint for the switch
            try:
                for obj, twin in twins:
                    (obj if moving else twin).visible = False
                    (twin if moving else obj).visible = True
            finally:
                self.renderer._pause_autorender = False
            self.detail_log.append((time.time(), "coarse" if moving else "full"))
            del self.detail_log[:-100]

    def _update_notice(self) -> None:
        import html

        from smrnb.widgets._html import _fmt_m, axes_of

        layers = [layer for ls in self.layers.values() for layer in ls]
        ax = axes_of(layers)
        origin = tuple(ax["origin"])
        # a re-run that moves the corner by at most one snap step (a fifth of an axis: a corner at -1.47 m then
        # -1.54 m snaps to -1.5 then -1.6) leaves the axes where they are: no jump, and nothing to send
        step = ax["length"] / 5.0
        if (self.axes.visible and layers and tuple(self.axes.scale) == (ax["length"],) * 3
                and all(abs(a - b) <= step * 1.001 for a, b in zip(origin, self.axes.position))):
            origin = tuple(self.axes.position)
        # traits are set only when they change: a set that changes nothing still validates (a re-run's redraw
        # is ~1 ms of mostly widget machinery, and these are half of its trait sets)
        axes = {"position": origin, "scale": (ax["length"],) * 3, "visible": bool(layers)}
        changed = {k: v for k, v in axes.items() if getattr(self.axes, k) != v}
        if changed:
            with self.axes.hold_sync():
                for k, v in changed.items():
                    setattr(self.axes, k, v)
        _set_changed(self.legend, "value", colorbar_html(layers) + (
            "<div class='smrnb-viewer-axes' style='font-size:12px;color:#555'>axes <b style='color:#d00'>x</b> "
            f"<b style='color:#080'>y</b> <b style='color:#00d'>z</b>: {_fmt_m(ax['length'])} each (y up)</div>"
            if layers else ""))
        sizes = [layer.size for layer in layers if layer.kind == "points"]
        if sizes:  # points within about one point of the ray are picked
            _set_changed(self.picker, "pointThreshold", float(max(min(sizes), 1e-6)))
        self._update_clip()
        notes = [n for ls in self.layers.values() for layer in ls for n in layer.notes]
        _set_changed(self.notice, "value", "".join(f"<div class='smrnb-viewer-note' style='font-size:12px;color:#555'>"
                                                   f"{html.escape(n)}</div>" for n in notes))

    @staticmethod
    def _wire_arrays(old: Layer, new: Layer, page_normals: bool = False) -> list[tuple[str, np.ndarray]]:
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

    @staticmethod
    def _drawn(obj: Any) -> Any:
        """The three.js mesh, points or lines of a drawn object (a wireframe's Group holds the mesh first)."""
        return obj.children[0] if type(obj).__name__ == "Group" else obj

    @staticmethod
    def _array_targets(obj: Any, arrays: list[tuple[str, np.ndarray]]) -> list[tuple[Any, np.ndarray]]:
        """The buffer widgets of ``obj`` that take the arrays of :meth:`_wire_arrays`, in their order."""
        geo = Viewer._drawn(obj).geometry
        return [(geo.index if key == "index" else geo.attributes[key], arr) for key, arr in arrays]

    @staticmethod
    def _set_look(obj: Any, new: Layer) -> None:
        """``new``'s plain colour and point size on ``obj``'s material (set only where they change)."""
        mat = Viewer._drawn(obj).material
        if new.colors is None and new.texture is None:
            _set_changed(mat, "color", _hex(new.color))
        if new.kind == "points":
            _set_changed(mat, "size", new.size)

    def _make_object(self, layer: Layer) -> Any:
        t = self._three
        attrs = {"position": t.BufferAttribute(layer.positions, normalized=False)}
        if layer.colors is not None:
            attrs["color"] = t.BufferAttribute(wire_colors(layer.colors), normalized=True)
        vc = "VertexColors" if layer.colors is not None else "NoColors"
        if layer.kind == "points":
            geo = t.BufferGeometry(attributes=attrs)
            mat = t.PointsMaterial(size=layer.size, sizeAttenuation=True, vertexColors=vc, color=_hex(layer.color)
                                   if layer.colors is None else "#ffffff")
            return t.Points(geometry=geo, material=mat, frustumCulled=False)
        if layer.kind == "lines":
            geo = t.BufferGeometry(attributes=attrs)
            return t.LineSegments(geometry=geo, material=t.LineBasicMaterial(color=_hex(layer.color)),
                                  frustumCulled=False)
        if layer.has_normals:  # smooth shading; flat shading derives each triangle's normal in the shader
            attrs["normal"] = _normal_attribute(t)(wire_normals(layer.vertex_normals()), normalized=True)
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
            mat = t.MeshStandardMaterial(vertexColors=vc, color=_hex(layer.color) if layer.colors is None
                                         else "#ffffff", **kw)
        # not culled: three.js computes a bounding sphere once, in-place updates would leave it stale
        obj = t.Mesh(geometry=geo, material=mat, frustumCulled=False)
        if layer.wireframe:
            wire = t.Mesh(geometry=geo, material=t.MeshBasicMaterial(color="#202020", wireframe=True),
                          frustumCulled=False)
            return t.Group(children=[obj, wire])
        return obj

    # ------------------------------------------------------------------------------ teaching tools
    def _update_clip(self) -> None:
        """Clip away what lies beyond ``clip`` (a fraction of the data's extent) along ``clip_axis``
        (three.js renderer clipping plane: drawn where ``-x + c >= 0``, i.e. ``x <= c``)."""
        three = self._three
        old = list(self.renderer.clippingPlanes)
        plane = self._clip_plane()
        if plane is None:
            if old:
                self.renderer.clippingPlanes = []
            return
        normal = [0.0, 0.0, 0.0]
        normal[plane[0]] = -1.0
        self.renderer.clippingPlanes = [three.Plane(normal=normal, constant=plane[1])]
        for p in old:
            p.close()

    def _on_mode(self, change: Any) -> None:
        """Redraw what the buttons just changed apply to (voxel grids for ``voxel_mode``, meshes for
        ``shading``), camera kept."""
        option = "voxel_mode" if change["owner"] is self.voxel_mode else "shading"
        for name, (data, options) in list(self._shown.items()):
            if _MODE_BUTTONS.get(type(data).__name__, ("",))[0] == option and options.get(option) != change["new"]:
                self.show(data, name=name, fit=False, **{**options, option: change["new"]})

    def _on_pick(self, change: Any = None) -> None:
        self.pick_info.value = pick_text(self, self.picker.object, self.picker.point, self.picker.faceNormal,
                                         self.picker.face, self.picker.index)

    # ------------------------------------------------------------------------------ camera
    def fit_camera(self, *, also: Viewer | None = None) -> dict[str, Any]:
        """Point the camera at everything shown (and at what ``also`` shows), at the canvas's aspect
        ratio; returns the pose."""
        viewers = (self,) if also is None else (self, also)
        pose = fit_camera_pose([layer.positions for v in viewers for ls in v.layers.values() for layer in ls],
                               self.fov, self.width / self.height)
        with self.camera.hold_sync():
            self.camera.aspect = self.width / self.height
            self.camera.near = pose["near"]
            self.camera.far = pose["far"]
            self.camera.position = pose["position"]
            self.camera.quaternion = pose["quaternion"]
        self.controls.target = pose["target"]
        self._fitted = True
        return pose

    def link(self, other: Viewer) -> None:
        """Share one camera view with ``other`` (before/after): orbiting either moves both.

        Both sides are linked in the browser (``jslink`` of position, quaternion and the orbit
        target); the shared view is fitted to what both show, so neither side runs off its canvas.
        """
        import ipywidgets as ipw

        if not isinstance(other, Viewer):
            raise SmrnbTypeError(f"other must be a Viewer, got {type(other).__name__}")
        if other is self:
            raise SmrnbValueError("other must be a different Viewer, got this one")
        self.fit_camera(also=other)
        with other.camera.hold_sync():
            for attr in ("position", "quaternion", "near", "far"):
                setattr(other.camera, attr, getattr(self.camera, attr))
        other.controls.target = self.controls.target
        other._fitted = True
        for a, b in ((self.camera, other.camera), (self.controls, other.controls)):
            for attr in (("position", "quaternion") if a is self.camera else ("target",)):
                lk = ipw.jslink((a, attr), (b, attr))
                self._links.append(lk)
                other._links.append(lk)

    # ------------------------------------------------------------------------------ output
    @property
    def nbytes(self) -> int:
        """Bytes of the binary geometry buffers currently in the scene."""
        return sum(layer.nbytes for ls in self.layers.values() for layer in ls)

    def _clip_plane(self) -> tuple[int, float] | None:
        """``(axis, c)``: what the clipping control keeps is ``position[axis] <= c``; None when it keeps all."""
        if self.clip.value >= 1.0 or not self.layers:
            return None
        a = "xyz".index(self.clip_axis.value)
        pts = [layer.positions[:, a] for ls in self.layers.values() for layer in ls if len(layer.positions)]
        if not pts:
            return None
        lo = min(float(np.nanmin(p)) for p in pts)
        hi = max(float(np.nanmax(p)) for p in pts)
        return a, lo + self.clip.value * (hi - lo)

    def _axes(self) -> dict[str, Any]:
        """The axes as the live view draws them (``origin``, ``length``): pictures and pages show the same
        ones (:meth:`_update_notice` places them, and keeps them through a small move of the data)."""
        return {"origin": [float(x) for x in self.axes.position], "length": float(self.axes.scale[0])}

    def static_layers(self) -> list[Layer]:
        """What a static picture draws: the layers cut by the clipping control (whole faces and
        segments: those with every vertex on the kept side; points one by one) and the axes."""
        from dataclasses import replace

        layers = [layer for ls in self.layers.values() for layer in ls]
        if not layers:
            return []
        axes = self._axes()
        plane = self._clip_plane()
        if plane is not None:
            a, c = plane
            cut = []
            for layer in layers:
                keep = layer.positions[:, a] <= c
                if layer.kind == "mesh" and layer.faces is not None:
                    cut.append(replace(layer, faces=layer.faces[keep[layer.faces.astype(np.int64)].all(1)]))
                elif layer.kind == "lines":
                    seg = keep.reshape(-1, 2).all(1).repeat(2)
                    cut.append(replace(layer, positions=layer.positions[seg],
                                       colors=None if layer.colors is None else layer.colors[seg]))
                else:
                    cut.append(replace(layer, positions=layer.positions[keep],
                                       colors=None if layer.colors is None else layer.colors[keep]))
            layers = cut
        o = np.asarray(axes["origin"], np.float32)
        for k, rgb in enumerate(((0.87, 0.0, 0.0), (0.0, 0.5, 0.0), (0.0, 0.0, 0.87))):
            end = o.copy()
            end[k] += axes["length"]
            layers.append(Layer("lines", np.stack([o, end]).astype(np.float32), None, rgb))
        return layers

    def to_png(self, width: int | None = None, height: int | None = None) -> bytes:
        """A PNG of the scene from the current camera (software renderer, no browser needed), with
        the axes and the clipping control's cut."""
        from smrnb.widgets._static import render_png

        return render_png(self.static_layers(), self.camera_pose(), width or self.width, height or self.height,
                          self.background)

    def static_html(self, note: str = "") -> str:
        """The scene as a static page fragment: the PNG of :meth:`to_png`, the caption, the colour bars,
        the axes' length, the layers' notes and ``note`` (what nbconvert, the docs and GitHub show)."""
        from smrnb.widgets._html import _fmt_m

        png = self.to_png()
        b64 = base64.b64encode(png).decode("ascii")
        layers = [layer for ls in self.layers.values() for layer in ls]
        parts = [f"<div class='smrnb-viewer-static'><img src='data:image/png;base64,{b64}'/>",
                 self._caption_html.value, colorbar_html(layers)]
        if layers:
            parts.append("<div style='font-size:12px;color:#555'>axes <b style='color:#d00'>x</b> "
                         f"<b style='color:#080'>y</b> <b style='color:#00d'>z</b>: "
                         f"{_fmt_m(self._axes()['length'])} each (y up)</div>")
        plane = self._clip_plane()
        if plane is not None:
            parts.append(f"<div style='font-size:12px;color:#555'>clipped: {'xyz'[plane[0]]} &lt;= "
                         f"{plane[1]:.3g} m kept</div>")
        parts += [f"<div style='font-size:12px;color:#555'>{html.escape(n)}</div>"
                  for layer in layers for n in layer.notes]
        if note:
            parts.append(f"<div style='color:#666;font-size:90%'>{html.escape(note)}</div>")
        return "".join(parts) + "</div>"

    def camera_pose(self) -> dict[str, Any]:
        return {"position": tuple(self.camera.position), "quaternion": tuple(self.camera.quaternion),
                "fov": self.fov, "near": self.camera.near, "far": self.camera.far}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, Any]:
        data: dict[str, Any] = {"text/plain": repr(self)}
        mode = static_pictures()
        status = frontend_status() if mode != "static" else {}
        if mode == "live" and status.get("installed") is not False:
            data.update(widget_bundle(self.widget, include=include, exclude=exclude, **kwargs))  # no picture
            return data
        png = self.to_png()
        data["image/png"] = base64.b64encode(png).decode("ascii")
        if status.get("installed") is False:
            data["text/html"] = self.static_html("static picture: the jupyter-threejs front end is not installed "
                                                 "where the server looks (run %smr_doctor)")
            return data
        if mode == "both":
            data.update(widget_bundle(self.widget, include=include, exclude=exclude, **kwargs))
        else:  # no live front end (nbconvert, docs, GitHub): the picture, not an empty widget view
            data["text/html"] = self.static_html(f"static picture of {self!r}; run the notebook for the 3D view")
        return data

    def save_png(self, path: Any, width: int | None = None, height: int | None = None) -> Any:
        """Write :meth:`to_png` to ``path`` (atomically, :func:`smrnb._files.atomic_write`); returns the path."""
        from pathlib import Path

        from smrnb._files import atomic_write

        atomic_write(path, self.to_png(width, height))
        return Path(path)

    def save_html(self, path: Any, *, title: str | None = None, point_budget: int = 200_000) -> Any:
        """Write one self-contained HTML page of the current scene and camera to ``path`` (atomically);
        returns the path.

        The page inlines three.js (npm ``three``, MIT, shipped in the wheel; version in
        :func:`smrnb.widgets._html.threejs_version`) and every array, so it opens offline: orbit, zoom
        and pan like the live viewer, with axes (their length in metres), colour bars and the layers'
        notes as captions. While the camera moves, a cloud of more than ``point_budget`` points is
        drawn as every k-th point (at most ``point_budget``), in full when the drag ends.
        """
        from pathlib import Path

        from smrnb._files import atomic_write
        from smrnb.widgets._html import scene_html

        if title is not None and not isinstance(title, str):
            raise SmrnbTypeError(f"title must be a str, got {type(title).__name__}")
        if not isinstance(point_budget, int) or isinstance(point_budget, bool) or point_budget < 1:
            raise SmrnbValueError(f"point_budget must be an int >= 1, got {point_budget!r}")
        pose = self.camera_pose()
        pose["target"] = tuple(self.controls.target)
        page = scene_html([layer for ls in self.layers.values() for layer in ls], pose, self.width, self.height,
                          self.background, title or self.caption or repr(self), point_budget, axes=self._axes())
        atomic_write(path, page)
        return Path(path)

    def __repr__(self) -> str:
        parts = []
        for name, ls in self.layers.items():
            for layer in ls:
                n = len(layer.positions) // (2 if layer.kind == "lines" else 1)
                unit = {"points": "points", "mesh": "vertices", "lines": "segments"}[layer.kind]
                extra = f", {len(layer.faces):,} faces" if layer.faces is not None else ""
                parts.append(f"{name}: {layer.kind} {n:,} {unit}{extra}")
        return f"Viewer({self.width}x{self.height}; {'; '.join(parts) or 'empty'})"


def pick_text(viewer: Viewer, obj: Any, point: Any, normal: Any, face: Any, index: Any) -> str:
    """What a pick shows: the point (metres, display frame), the surface normal of a mesh, the index of a
    picked point, and for a vertex on the rim of a hole the hole's edge count."""
    layer = None
    for name, objs in viewer._objects.items():
        for o, lay in zip(objs, viewer.layers[name]):
            if obj is o or any(obj is c for c in getattr(o, "children", ())):
                layer = lay
    if obj is None or layer is None:
        return "<span class='smrnb-pick-miss' style='font-size:12px;color:#777'>nothing under the pointer</span>"
    x, y, z = (float(c) for c in point)
    parts = [f"<b>point</b> ({x:.3f}, {y:.3f}, {z:.3f}) m"]
    if layer.kind == "mesh":
        parts.append("<b>normal</b> ({:.2f}, {:.2f}, {:.2f})".format(*(float(c) for c in normal)))
        f = [int(v) for v in face]
        p = np.array([x, y, z], np.float32)
        nearest = min(f, key=lambda v: float(np.linalg.norm(layer.positions[v] - p)))
        rim = _rim_sizes(layer).get(nearest)
        if rim:
            parts.append(f"<b>hole rim</b>: {rim} edges")
    elif layer.kind == "points" and index is not None:
        parts.append(f"point #{int(index):,}")
    return "<span class='smrnb-pick' style='font-size:12px'>" + " &middot; ".join(parts) + "</span>"


def _rim_sizes(layer: Layer) -> dict[int, int]:
    """Vertex -> edge count of the boundary loop (hole) it lies on, for a mesh layer (cached on it).
    Vertices split at uv seams are welded by position first, so seams are not taken for holes."""
    cached = getattr(layer, "_rims", None)
    if cached is not None:
        return cached
    from smrnb.geometry import boundary_loops

    _, inv = np.unique(layer.positions, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    welded = inv[layer.faces.astype(np.int64)]
    loop_len = np.zeros(int(inv.max()) + 1 if len(inv) else 0, np.int64)
    for loop in boundary_loops(welded):
        loop_len[np.asarray(loop)] = len(loop)
    per_vertex = loop_len[inv]
    on_rim = np.flatnonzero(per_vertex)
    sizes = dict(zip(on_rim.tolist(), per_vertex[on_rim].tolist()))
    layer._rims = sizes  # type: ignore[attr-defined]
    return sizes


_NORMAL_ATTRIBUTE: list[Any] = []


def _normal_attribute(three: Any) -> Any:
    """pythreejs' ``BufferAttribute`` whose kernel copy may be derived later (:class:`~smrnb.widgets._sync.DerivedArray`):
    a page redrawing in place derives the normals itself; the kernel computes its own copy only when asked for
    the widget's state (a page opened later)."""
    if not _NORMAL_ATTRIBUTE:
        class NormalAttribute(DerivedArray, three.BufferAttribute):
            pass

        _NORMAL_ATTRIBUTE.append(NormalAttribute)
    return _NORMAL_ATTRIBUTE[0]


def _wire_normals_of(layer: Layer) -> Any:
    """The kernel's copy of normals a page derives: ``layer``'s, as sent, computed when first asked for."""
    return lambda: wire_normals(layer.vertex_normals())


def _same_structure(a: Layer, b: Layer) -> bool:
    """Can ``b`` reuse the three.js objects made for ``a`` (same buffers and material kind)?"""
    return (a.kind == b.kind and a.flat == b.flat and a.wireframe == b.wireframe and a.texture is None
            and b.texture is None and a.has_normals == b.has_normals
            and all((getattr(a, k) is None) == (getattr(b, k) is None) for k in ("colors", "faces", "uvs")))


def _headlight(three: Any) -> Any:
    """A directional light riding with the camera. ``target`` and ``shadow`` are given explicitly:
    left uninitialised, the front end logs "Error setting state: t.on is not a function"."""
    return three.DirectionalLight(color="#ffffff", position=[1, 2, 3], intensity=0.6, target=three.Object3D(),
                                  shadow=three.DirectionalLightShadow(
                                      camera=three.OrthographicCamera(-5, 5, 5, -5, 0.5, 500)))


def _close_tree(obj: Any) -> None:
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
        o.close()

    walk(obj)


__all__ = ["MAX_VOXELS", "OVERLAYS", "SHADINGS", "Layer", "Viewer", "fit_camera_pose", "frontend_status", "layers_for",
           "mesh_layer", "overlay_layers", "points_layer", "voxels_layer"]
