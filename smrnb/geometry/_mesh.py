# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Thin containers: :class:`Mesh`, :class:`PointCloud`, :class:`Frames`.

They store exactly what they are given (numpy arrays become tensors sharing memory, nothing is
merged, repaired, re-ordered or cast): repair is an explicit call that reports what it changed.
Shapes are checked at construction so errors surface where the data came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry._camera import check_K, check_poses, where_text
from smrnb.geometry._validate import as_tensor, check_float, check_integer, check_shape


def _opt(x: Any, name: str) -> torch.Tensor | None:
    return None if x is None else as_tensor(x, name)


@dataclass(eq=False)
class Mesh:
    """A triangle mesh (the seed tutorial's ``kal.rep.Mesh``).

    Parameters
    ----------
    vertices : (V, 3) float tensor, metres, OpenGL frame (y up) unless ``frame`` says otherwise
    faces : (F, 3) integer tensor, counter-clockwise seen from outside
    vertex_colors : (V, 3) float in [0, 1], optional
    vertex_normals : (V, 3) float, optional
    uvs : (T, 2) float in [0, 1], optional (texture coordinates, v up)
    face_uvs_idx : (F, 3) integer into ``uvs``, optional
    texture : (H, W, 3) float in [0, 1], optional (row 0 is the top of the image, v = 1)
    frame : "opengl" or "opencv"
    """

    vertices: torch.Tensor
    faces: torch.Tensor
    vertex_colors: torch.Tensor | None = None
    vertex_normals: torch.Tensor | None = None
    uvs: torch.Tensor | None = None
    face_uvs_idx: torch.Tensor | None = None
    texture: torch.Tensor | None = None
    frame: str = "opengl"
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.vertices = as_tensor(self.vertices, "vertices")
        check_shape(self.vertices, "vertices", (None, 3))
        check_float(self.vertices, "vertices")
        self.faces = as_tensor(self.faces, "faces")
        check_shape(self.faces, "faces", (None, 3))
        if self.faces.numel() == 0 and self.faces.dtype.is_floating_point:
            self.faces = self.faces.long()
        check_integer(self.faces, "faces")
        V = self.vertices.shape[0]
        for name in ("vertex_colors", "vertex_normals"):
            t = _opt(getattr(self, name), name)
            if t is not None:
                check_shape(t, name, (V, 3))
            setattr(self, name, t)
        self.uvs = _opt(self.uvs, "uvs")
        if self.uvs is not None:
            check_shape(self.uvs, "uvs", (None, 2))
        self.face_uvs_idx = _opt(self.face_uvs_idx, "face_uvs_idx")
        if self.face_uvs_idx is not None:
            check_shape(self.face_uvs_idx, "face_uvs_idx", (self.faces.shape[0], 3))
            if self.uvs is None:
                raise SmrnbValueError("face_uvs_idx needs uvs, got uvs=None")
        self.texture = _opt(self.texture, "texture")
        if self.texture is not None:
            check_shape(self.texture, "texture", (None, None, 3), (None, None, 4))
        if self.frame not in ("opengl", "opencv"):
            raise SmrnbValueError(f"frame must be 'opengl' or 'opencv', got {self.frame!r}")

    def __iter__(self):
        """``vertices, faces = mesh``: a mesh unpacks as the tutorial's ``(vertices, faces)`` pair.

        Only the two tensors come out (colors, UVs and ``meta`` stay on the mesh object).
        """
        return iter((self.vertices, self.faces))

    @property
    def num_vertices(self) -> int:
        return int(self.vertices.shape[0])

    @property
    def num_faces(self) -> int:
        return int(self.faces.shape[0])

    @property
    def device(self) -> torch.device:
        return self.vertices.device

    def to(self, device: Any) -> Mesh:
        """A copy with every tensor on ``device``."""
        kw = {f.name: (getattr(self, f.name).to(device) if isinstance(getattr(self, f.name), torch.Tensor)
                       else getattr(self, f.name)) for f in fields(self)}
        return Mesh(**kw)

    def replace(self, **changes: Any) -> Mesh:
        """A new mesh with some fields replaced (``dataclasses.replace``)."""
        return replace(self, **changes)

    def to_trimesh(self):
        """A ``trimesh.Trimesh`` (CPU, numpy) with ``process=False`` so nothing is merged."""
        import trimesh

        kw: dict[str, Any] = {}
        if self.vertex_colors is not None:
            c = self.vertex_colors.detach().cpu().float().clamp(0, 1).numpy()
            kw["vertex_colors"] = (c * 255 + 0.5).astype("uint8")
        return trimesh.Trimesh(self.vertices.detach().cpu().numpy(), self.faces.detach().cpu().numpy(),
                               process=False, validate=False, **kw)

    @classmethod
    def from_trimesh(cls, tm, *, frame: str = "opengl") -> Mesh:
        """Wrap a ``trimesh.Trimesh`` (vertex colors carried over when present)."""
        import numpy as np

        colors = None
        vc = getattr(getattr(tm, "visual", None), "vertex_colors", None)
        if getattr(tm.visual, "kind", None) == "vertex" and vc is not None and len(vc) == len(tm.vertices):
            colors = torch.as_tensor(np.asarray(vc)[:, :3].astype("float32") / 255.0)
        return cls(torch.as_tensor(np.asarray(tm.vertices, dtype=np.float32)),
                   torch.as_tensor(np.asarray(tm.faces, dtype=np.int64)), vertex_colors=colors, frame=frame)

    def __repr__(self) -> str:
        extras = [n for n in ("vertex_colors", "vertex_normals", "uvs", "texture") if getattr(self, n) is not None]
        return (f"Mesh({self.num_vertices} vertices, {self.num_faces} faces, {self.frame} frame, "
                f"device={self.device}{', ' + ', '.join(extras) if extras else ''})")


@dataclass(eq=False)
class PointCloud:
    """Points with optional colors and normals.

    Parameters
    ----------
    points : (N, 3) float, metres; frame given by ``frame``
    colors : (N, 3) float in [0, 1], optional
    normals : (N, 3) float, optional
    frame : "opencv" (x right, y down, z forward, as loaded) or "opengl" (y up)
    """

    points: torch.Tensor
    colors: torch.Tensor | None = None
    normals: torch.Tensor | None = None
    frame: str = "opencv"
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.points = as_tensor(self.points, "points")
        check_shape(self.points, "points", (None, 3))
        check_float(self.points, "points")
        N = self.points.shape[0]
        for name in ("colors", "normals"):
            t = _opt(getattr(self, name), name)
            if t is not None:
                check_shape(t, name, (N, 3))
            setattr(self, name, t)
        if self.frame not in ("opengl", "opencv"):
            raise SmrnbValueError(f"frame must be 'opengl' or 'opencv', got {self.frame!r}")

    def __len__(self) -> int:
        return int(self.points.shape[0])

    @property
    def device(self) -> torch.device:
        return self.points.device

    def to(self, device: Any) -> PointCloud:
        return PointCloud(self.points.to(device), None if self.colors is None else self.colors.to(device),
                          None if self.normals is None else self.normals.to(device), self.frame, dict(self.meta))

    def replace(self, **changes: Any) -> PointCloud:
        return replace(self, **changes)

    def __repr__(self) -> str:
        return f"PointCloud({len(self)} points, {self.frame} frame, device={self.device})"


@dataclass(eq=False)
class Frames:
    """A sequence of RGB-D frames with intrinsics and camera-to-world poses.

    Parameters
    ----------
    depth : (N, H, W) float32, metres; 0 marks "no measurement" (readers map 65535/NaN to 0)
    K : (3, 3) or (N, 3, 3) float, pixel intrinsics (fx, fy, cx, cy; pixel centres at integers)
    color : (N, H, W, 3) uint8, optional, registered to depth
    poses : (N, 4, 4) float, camera-to-world, OpenCV/OpenNI camera axes (x right, y down,
        z forward), optional (None = unknown)
    names : list of str, optional (file stems or timestamps)
    """

    depth: torch.Tensor
    K: torch.Tensor
    color: torch.Tensor | None = None
    poses: torch.Tensor | None = None
    names: list[str] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.depth = as_tensor(self.depth, "depth")
        check_shape(self.depth, "depth", (None, None, None))
        check_float(self.depth, "depth")
        N, H, W = self.depth.shape
        self.K = as_tensor(self.K, "K")
        check_shape(self.K, "K", (3, 3), (N, 3, 3))
        check_float(self.K, "K")
        # the one camera/pose home (smrnb.geometry._camera): readers build Frames, so they validate here
        where = self.meta.get("where") if callable(self.meta.get("where")) else None
        if self.K.dim() == 2:
            check_K(self.K, "K", height=H, width=W)
        else:
            for i in range(N):
                check_K(self.K[i], "K", height=H, width=W, index=i, where=where_text(where, i))
        self.color = _opt(self.color, "color")
        if self.color is not None:
            check_shape(self.color, "color", (N, H, W, 3))
            if self.color.dtype != torch.uint8:
                if not self.color.dtype.is_floating_point:
                    raise SmrnbTypeError(f"color must be uint8 (0..255) or float in [0, 1], got dtype {self.color.dtype}")
                if self.color.numel():
                    lo, hi = torch.aminmax(self.color)
                    if not (float(lo) >= 0.0 and float(hi) <= 1.0):
                        raise SmrnbValueError(
                            f"color must be uint8 (0..255) or float in [0, 1], got float values in [{float(lo):g}, "
                            f"{float(hi):g}]" + ("; divide by 255" if float(hi) > 1.0 else ""))
        self.poses = _opt(self.poses, "poses")
        if self.poses is not None:
            check_shape(self.poses, "poses", (N, 4, 4))
            check_float(self.poses, "poses")
            check_poses(self.poses, "poses", where=where)
        self.meta.pop("where", None)
        if self.names is not None and len(self.names) != N:
            raise SmrnbValueError(f"names must have {N} entries (one per frame), got {len(self.names)}")

    def __len__(self) -> int:
        return int(self.depth.shape[0])

    @property
    def height(self) -> int:
        return int(self.depth.shape[1])

    @property
    def width(self) -> int:
        return int(self.depth.shape[2])

    def intrinsics(self, i: int) -> torch.Tensor:
        """(3, 3) intrinsics of frame ``i``."""
        return self.K if self.K.dim() == 2 else self.K[i]

    def select(self, index) -> Frames:
        """Frames at ``index`` (slice, list of ints or bool mask), sharing memory where possible."""
        idx = index if isinstance(index, slice) else torch.as_tensor(index)
        names = None
        if self.names is not None:
            names = self.names[index] if isinstance(index, slice) else [self.names[int(i)] for i in
                                                                         (torch.nonzero(idx).flatten() if idx.dtype == torch.bool else idx)]
        return Frames(self.depth[idx], self.K if self.K.dim() == 2 else self.K[idx],
                      None if self.color is None else self.color[idx],
                      None if self.poses is None else self.poses[idx], names, dict(self.meta))

    def to(self, device: Any) -> Frames:
        return Frames(self.depth.to(device), self.K.to(device),
                      None if self.color is None else self.color.to(device),
                      None if self.poses is None else self.poses.to(device), self.names, dict(self.meta))

    def pin_memory(self) -> Frames:
        """A copy in page-locked host memory (needs CUDA): a GPU then copies the images straight from it,
        asynchronously (``fuse_tsdf(frames, device="cuda")`` overlaps those copies with fusion), instead
        of through the driver's staging buffers. Worth it for frames fused or copied more than once."""
        if self.depth.device.type != "cpu":
            raise SmrnbValueError(f"pin_memory: the frames are on {self.depth.device}, not in host memory")
        if not torch.cuda.is_available():
            raise SmrnbValueError("pin_memory: page-locked memory is for copies to a CUDA GPU, and torch sees none "
                                  f"here (torch {torch.__version__})")
        return Frames(self.depth.pin_memory(), self.K, None if self.color is None else self.color.pin_memory(),
                      self.poses, self.names, dict(self.meta))

    def __repr__(self) -> str:
        return (f"Frames({len(self)} x {self.height}x{self.width}, color={'yes' if self.color is not None else 'no'}, "
                f"poses={'yes' if self.poses is not None else 'no'}, device={self.depth.device})")
