# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Scene data as plain numpy "layers" (:class:`Layer`): what the viewer, its static pictures and its saved
pages draw. No pythreejs here: :mod:`smrnb.widgets._three` turns layers into three.js objects,
:mod:`smrnb.widgets._static` into pictures, :mod:`smrnb.widgets._html` into a page.

Coordinates: layers are in the OpenGL frame (x right, y up, z towards the viewer), metres.
Data labelled ``frame="opencv"`` (points, grids and meshes straight from RGB-D frames) is flipped
``(x, y, z) -> (x, -y, -z)`` for display only; the caller's data is never changed.

Every large array goes to the browser as a binary numpy buffer: positions and uvs as float32,
normals as normalized int8 and colors as normalized uint8 (3 bytes per vertex each instead of 12),
triangle indices as uint32, textures as uint8 RGBA. A 100k-vertex mesh costs about 42 bytes per
vertex on the wire (positions 12, normals 3, colors 3, indices ~24).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.widgets._colors import parse_rgb, viridis

#: default cap on voxels drawn; a grid with more occupied voxels is coarsened (a notice says so)
MAX_VOXELS = 200_000
#: cap on normals drawn as lines by the ``normals`` overlay
MAX_NORMALS = 20_000
OVERLAYS = ("boundary", "non_manifold", "normals")
_OVERLAY_COLORS = {"boundary": "#e00000", "non_manifold": "#d000d0", "normals": "#1060ff"}
_DEFAULT_MESH_COLOR = (0.72, 0.72, 0.74)
_DEFAULT_POINT_COLOR = (0.2, 0.45, 0.8)


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
    #: what a unit of ``positions`` is: ``"m"``, or ``"voxels"`` for a mesh of a grid given as a plain tensor
    #: (voxel index units; ``Mesh.meta["units"]``): the axes' legend says which
    units: str = "m"

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
        if getattr(x, "dtype", None) is not None and str(x.dtype) == "torch.bfloat16":
            x = x.float()  # numpy has no bfloat16
        x = x.numpy() if x.device.type == "cpu" and not x.requires_grad else x.detach().cpu().numpy()
    return np.ascontiguousarray(np.asarray(x), dtype=dtype)


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


def _color_array(c: Any, n: int, name: str) -> np.ndarray | None:
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
    c = _color_array(colors, len(keep), "colors")
    c = None if c is None else np.ascontiguousarray(c[keep])
    size = point_size if point_size is not None else max(_extent(p) / 300.0, 1e-6)
    notes = [] if keep.all() else [f"{int((~keep).sum()):,} non-finite points not drawn"]
    return Layer("points", p, c, parse_rgb(color, _DEFAULT_POINT_COLOR), size=float(size), notes=notes)


def _pool_any(occ: np.ndarray, k: int) -> np.ndarray:
    pad = [(0, (-s) % k) for s in occ.shape]
    o = np.pad(occ, pad)
    X, Y, Z = (s // k for s in o.shape)
    return o.reshape(X, k, Y, k, Z, k).any(axis=(1, 3, 5))


def _coarsened(full: np.ndarray, count: int, max_voxels: int) -> tuple[np.ndarray, int, int]:
    """``(occupancy, k, occupied count)``: ``full`` (``count`` voxels occupied) coarsened by the smallest k
    (1, 2, 3, ...; a voxel occupied when any of its k^3 children is) that leaves at most ``max_voxels``."""
    occ, k = full, 1
    while count > max_voxels:
        k += 1
        occ = _pool_any(full, k)
        count = int(np.count_nonzero(occ))
    return occ, k, count


#: the four corner offsets of each face of a unit cube, by (axis, direction), counter-clockwise seen from outside
_CUBE_FACES = {(0, 1): [(1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)], (0, -1): [(0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0)],
               (1, 1): [(0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0)], (1, -1): [(0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1)],
               (2, 1): [(0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)], (2, -1): [(0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 0)]}


def _exposed_quads(occ: np.ndarray, idx: np.ndarray) -> np.ndarray | None:
    """(Q, 4, 3) integer corners (in voxels) of the faces between an occupied voxel of ``occ`` (their indices
    ``idx``) and an empty (or outside) neighbour, each counter-clockwise seen from outside; None when none."""
    padded = np.pad(occ, 1)
    quads = []
    for (axis, d), corners in _CUBE_FACES.items():
        off = np.zeros(3, dtype=int)
        off[axis] = d
        nb = padded[tuple(idx[:, a] + 1 + off[a] for a in range(3))]
        sel = idx[~nb]
        if len(sel):
            quads.append(sel[:, None, :] + np.array(corners)[None])
    return np.concatenate(quads) if quads else None


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
    total = int(np.count_nonzero(full))  # count_nonzero: no int64 copy of a 512^3 grid
    vs = float(grid.voxel_size)
    origin = _np(grid.origin, np.float64)
    occ, k, count = _coarsened(full, total, max_voxels)
    notes: list[str] = []
    if k > 1:
        notes.append(f"{total:,} occupied voxels exceed the cap of {max_voxels:,}: showing the grid coarsened "
                     f"{k}x ({count:,} voxels of {vs * k * 1000:g} mm); raise max_voxels to see all")
    vs_k = vs * k
    idx = np.argwhere(occ)
    col = parse_rgb(color, (0.85, 0.55, 0.2))
    frame = getattr(grid, "frame", "opengl")
    if mode == "points":
        centers = origin + (idx + 0.5) * vs_k
        return Layer("points", _to_gl(centers, frame), None, col, size=vs_k, notes=notes)
    q = _exposed_quads(occ, idx)
    if q is None:
        return Layer("mesh", np.zeros((0, 3), np.float32), None, col, faces=np.zeros((0, 3), np.uint32),
                     flat=True, notes=notes)
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
    """Geometry's ``area_vertex_normals`` (the unchecked core of :func:`smrnb.compute_vertex_normals`) on one
    thread: the viewer's meshes are small enough that waking torch's sleeping OpenMP threads
    (``OMP_WAIT_POLICY=PASSIVE``, see :mod:`smrnb._threads`) for each of its ~15 operations costs more than the
    split saves (16k vertices: 0.44 ms on one thread, 0.55 ms on two; 650k: 39 ms and 41 ms)."""
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


def _split_at_seams(mesh: Any, smooth: bool, frame: str) -> tuple[np.ndarray, Any, np.ndarray, np.ndarray | None]:
    """A textured mesh's vertices split at uv seams (:func:`smrnb.geometry.split_seams`, as the exporters split
    them): ``(positions, faces, uvs, normals)``, positions and normals (the mesh's own or area-weighted ones,
    computed before the split; None unless ``smooth``) in the display frame."""
    import torch

    from smrnb.geometry import split_seams

    normals = mesh.vertex_normals
    if smooth and normals is None:
        normals = _area_normals(torch.as_tensor(mesh.vertices).detach().cpu().float(),
                                torch.as_tensor(mesh.faces).detach().cpu().long())
    # the colors slot of split_seams carries the normals through the seam split
    v, f, uv, n = split_seams(mesh.replace(vertex_colors=normals.float() if smooth else None))
    nrm = _to_gl(np.asarray(n, np.float32), frame) if smooth else None
    return _to_gl(np.asarray(v, np.float32), frame), f, np.ascontiguousarray(uv, np.float32), nrm


def _texture_rgba(texture: Any) -> np.ndarray:
    """(H, W, 4) uint8 RGBA of an (H, W, 3 or 4) texture in [0, 1], row 0 = v 0 (three.js DataTexture, flipY
    false)."""
    tex = _np(texture.float().clamp(0, 1) * 255.0 + 0.5, np.float32).astype(np.uint8)
    if tex.shape[2] == 3:
        tex = np.concatenate([tex, np.full(tex.shape[:2] + (1,), 255, np.uint8)], 2)
    return np.ascontiguousarray(tex[::-1])


def mesh_layer(mesh: Any, *, shading: str = "auto", wireframe: bool = False, texture: bool = True,
               color: Any = None) -> Layer:
    """A :class:`Layer` for a :class:`~smrnb.Mesh`.

    ``shading`` (:data:`SHADINGS`, resolved by :func:`resolve_shading`): ``flat`` sends no normals (the
    browser lights each triangle by its plane); ``smooth`` sends the mesh's own ``vertex_normals`` or
    area-weighted ones (what :func:`smrnb.compute_vertex_normals` computes by default): for a plain mesh left to
    :meth:`Layer.vertex_normals` (computed when first needed; a page redrawing in place with the sync model derives
    them itself, see :mod:`smrnb.widgets._sync`). With a texture (``uvs``, ``face_uvs_idx``, ``texture``) vertices
    are split at uv seams exactly like the exporters do (:func:`smrnb.geometry.split_seams`), normals computed
    here and carried along.
    """
    if not (hasattr(mesh, "vertices") and hasattr(mesh, "faces")):
        raise SmrnbTypeError(f"mesh must be a Mesh, got {type(mesh).__name__}")
    smooth = resolve_shading(mesh, shading, texture) == "smooth"
    frame = getattr(mesh, "frame", "opengl")
    notes: list[str] = []
    tex_img = None
    nrm = None
    if texture and mesh.texture is not None and mesh.uvs is not None:
        pos, f, uvs, nrm = _split_at_seams(mesh, smooth, frame)
        tex_img = _texture_rgba(mesh.texture)
        colors = None
        notes.append(f"texture {mesh.texture.shape[1]} x {mesh.texture.shape[0]}; {len(pos):,} vertices after "
                     f"uv-seam splits")
    else:
        pos = _to_gl(_np(mesh.vertices, np.float32), frame)
        f = _np(mesh.faces, np.int64)
        if smooth and mesh.vertex_normals is not None:
            nrm = _to_gl(_np(mesh.vertex_normals, np.float32), frame)
        uvs = None
        colors = _color_array(mesh.vertex_colors, len(pos), "vertex_colors")
    faces = np.ascontiguousarray(f, dtype=np.uint32)
    # smooth without normals of its own: area-weighted ones of the display-frame positions (the OpenCV -> OpenGL
    # flip is a rotation, normals turn with it), computed when first needed (Layer.vertex_normals)
    meta = getattr(mesh, "meta", None)
    units = "voxels" if isinstance(meta, dict) and meta.get("units") == "voxels" else "m"
    return Layer("mesh", pos, colors, parse_rgb(color, _DEFAULT_MESH_COLOR), faces=faces, normals=nrm, uvs=uvs,
                 texture=tex_img, flat=not smooth, wireframe=wireframe, notes=notes,
                 derived_normals=smooth and nrm is None, units=units)


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
        col = parse_rgb(_OVERLAY_COLORS[name], (1, 0, 0))
        if name in ("boundary", "non_manifold"):
            e = np.asarray(boundary_edges(faces) if name == "boundary" else non_manifold_edges(faces)).reshape(-1, 2)
            seg = pos[e.reshape(-1)] if len(e) else np.zeros((0, 3), np.float32)
            label = "boundary (hole) edges" if name == "boundary" else "non-manifold edges"
            out.append(Layer("lines", np.ascontiguousarray(seg, np.float32), None, col,
                             notes=[f"{len(e):,} {label} in {_OVERLAY_COLORS[name]}"], units=base.units))
        else:
            p, n = base.positions, base.vertex_normals()
            if n is None:  # a flat-shaded mesh sends no normals; the overlay still shows the vertex normals
                n = _normals_of(p, base.faces)
            step = max(1, math.ceil(len(p) / MAX_NORMALS))
            p, n = p[::step], n[::step]
            length = _extent(base.positions) * 0.02
            seg = np.stack([p, p + n * length], 1).reshape(-1, 3)
            note = f"normals of {len(p):,} vertices" + (f" (every {step}th)" if step > 1 else "")
            out.append(Layer("lines", np.ascontiguousarray(seg, np.float32), None, col, notes=[note], units=base.units))
    return out


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
    col = viridis(np.where(fin, t, 0.0).astype(np.float32))
    col[~fin] = 0.6
    layer.colors = np.ascontiguousarray(col, np.float32)
    layer.scalar_range, layer.scalar_label = (lo, hi), label
    n_bad = int((~fin).sum())
    layer.notes.append(f"colour = {label}: {lo:.4g} (dark blue) -> {hi:.4g} (yellow)"
                       + (f"; {n_bad:,} without a value in grey" if n_bad else ""))
    return layer


#: at most this many TSDF voxels are drawn (a random, seeded subset beyond it)
MAX_TSDF_POINTS = 200_000

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
    colors = viridis((w - lo) / (hi - lo) if hi > lo else np.zeros_like(w))
    notes.append(f"colour = TSDF weight (frames that saw the voxel): dark blue {lo:g} -> yellow {hi:g}; "
                 f"{total:,} voxels within {band:g} of the truncation distance from the surface")
    return Layer("points", centers, colors, size=vs, notes=notes, scalar_range=(lo, hi),
                 scalar_label="TSDF weight (frames that saw the voxel)")


def layers_for(data: Any, *, point_size: float | None = None, colors: Any = None, color: Any = None,
               voxel_mode: str = "points", max_voxels: int = MAX_VOXELS, shading: str = "auto",
               wireframe: bool = False, overlays: Any = (), texture: bool = True, scalars: Any = None,
               scalar_range: Any = None, scalar_label: str = "value") -> list[Layer]:
    """The layers that draw ``data`` (Mesh, PointCloud, VoxelGrid, TSDFVolume or an (N, 3) array).

    ``scalars`` ((N,) per vertex or point, e.g. each vertex's held-out depth error in metres)
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

__all__ = ["MAX_NORMALS", "MAX_TSDF_POINTS", "MAX_VOXELS", "OVERLAYS", "SHADINGS", "VOXEL_MODES", "Layer",
           "finite_bounds", "layers_for", "mesh_layer", "overlay_layers", "points_layer", "resolve_shading",
           "tsdf_layer", "voxels_layer", "wire_colors", "wire_normals"]
