# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Mesh files: GLB (textured, Y-up, sized for the web), OBJ + MTL + PNG, PLY with colors.

GLB is written by :mod:`smrnb.geometry._glb` (quantised positions, 16-bit indices, a JPEG texture at
>= 40 dB PSNR against the lossless one by default, PNG on request); OBJ and PLY through trimesh.

smrnb meshes handed to exporters are in the OpenGL frame (y up), which is glTF's frame, so GLB
files open upright in three.js without a transform. A mesh in the OpenCV frame is converted
(y and z flipped) on export and the conversion is recorded in the returned report.

UVs: a :class:`~smrnb.Mesh` indexes texture coordinates separately (``uvs`` + ``face_uvs_idx``,
kaolin's layout); file formats want one uv per vertex, so vertices are split where a vertex has
several uvs (seams). Reading back gives the same triangles at the same positions.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._files import as_path, atomic_write, atomic_write_set, check_input, check_writable
from smrnb.geometry._glb import QUANTIZE, TEXTURE_FORMATS, TextureInfo, needs_own_reader, read_glb, write_glb
from smrnb.geometry._guards import check_index_range, resolve_device, same_device
from smrnb.geometry._mesh import Mesh

FORMATS = ("glb", "obj", "ply")


@dataclass(frozen=True)
class ExportReport:
    """What :func:`export_mesh` wrote."""

    path: str
    format: str
    files: tuple[str, ...]
    vertices: int  # as written (after seam splits)
    faces: int
    textured: bool
    converted_from_opencv: bool
    replaced: tuple[str, ...] = ()  # files that existed before and were replaced (atomically)
    bytes: int = 0  # size of the main file
    quantized: str = "none"  # GLB: "all" (positions and uvs as 16-bit integers), "positions" or "none"
    texture: TextureInfo | None = None  # GLB: how the texture was encoded (format, size, PSNR)


def split_seams(mesh: Mesh) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Per-vertex arrays for file formats: (vertices, faces, uv per vertex or None, colors or None)."""
    v = mesh.vertices.detach().cpu().double().numpy()
    f = mesh.faces.detach().cpu().long().numpy()
    colors = None if mesh.vertex_colors is None else mesh.vertex_colors.detach().cpu().float().numpy()
    if mesh.uvs is None:
        return v, f, None, colors
    uvs = mesh.uvs.detach().cpu().double().numpy()
    fuv = mesh.face_uvs_idx.detach().cpu().long().numpy() if mesh.face_uvs_idx is not None else f
    pairs = np.stack([f.reshape(-1), fuv.reshape(-1)], 1)
    uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    nv = v[uniq[:, 0]]
    nuv = uvs[uniq[:, 1]]
    ncol = None if colors is None else colors[uniq[:, 0]]
    return nv, inv.reshape(-1, 3), nuv, ncol


def _split_seams_device(mesh: Mesh) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
    """:func:`split_seams` on the mesh's own device (one ``torch.unique`` over (vertex, uv) keys; sorted
    by vertex, so neighbouring vertices stay close in the file)."""
    v, f = mesh.vertices, mesh.faces.long()
    colors = mesh.vertex_colors
    if mesh.uvs is None:
        return v, f, None, colors
    nuv = mesh.uvs.shape[0]
    fuv = mesh.face_uvs_idx.long() if mesh.face_uvs_idx is not None else f
    uniq, inv = torch.unique(f.reshape(-1) * nuv + fuv.reshape(-1), return_inverse=True)
    vid = torch.div(uniq, nuv, rounding_mode="floor")
    return (v.index_select(0, vid), inv.view(-1, 3), mesh.uvs.index_select(0, uniq - vid * nuv),
            None if colors is None else colors.index_select(0, vid))


def _glb(mesh: Mesh, name: str, quantize: str, texture_format: str, min_psnr: float
         ) -> tuple[bytes, int, int, bool, bool, TextureInfo | None]:
    v, f, uv, colors = _split_seams_device(mesh)
    v = v.detach().double()
    converted = mesh.frame == "opencv"
    if converted:
        v = v * torch.tensor([1.0, -1.0, -1.0], dtype=v.dtype, device=v.device)
    textured = uv is not None and mesh.texture is not None
    data, info = write_glb(v.cpu().numpy(), f.cpu().numpy(), None if uv is None else uv.detach().cpu().numpy(),
                           None if colors is None else colors.detach().float().cpu().numpy(),
                           mesh.texture if textured else None, name=name, quantize=quantize,
                           texture_format=texture_format, min_psnr=min_psnr)
    return data, int(v.shape[0]), int(f.shape[0]), textured, converted, info


def _to_trimesh(mesh: Mesh, name: str = "smrnb"):
    import trimesh
    from PIL import Image

    v, f, uv, colors = split_seams(mesh)
    converted = mesh.frame == "opencv"
    if converted:
        v = v * np.array([1.0, -1.0, -1.0])
    if uv is not None and mesh.texture is not None:
        tex = mesh.texture.detach().cpu().float().clamp(0, 1).numpy()
        img = Image.fromarray((tex * 255 + 0.5).astype(np.uint8))
        material = trimesh.visual.material.PBRMaterial(baseColorTexture=img, name=name, metallicFactor=0.0, roughnessFactor=1.0,
                                                       doubleSided=False)
        visual = trimesh.visual.TextureVisuals(uv=uv, material=material)
        tm = trimesh.Trimesh(v, f, visual=visual, process=False, validate=False)
        textured = True
    else:
        kw: dict[str, Any] = {}
        if colors is not None:
            kw["vertex_colors"] = (np.clip(colors, 0, 1) * 255 + 0.5).astype(np.uint8)
        tm = trimesh.Trimesh(v, f, process=False, validate=False, **kw)
        textured = False
    return tm, textured, converted


def export_mesh(mesh: Mesh, path: str | os.PathLike, format: str | None = None, *, texture_format: str = "jpeg",
                quantize: str | bool = "positions", min_psnr: float = 40.0) -> ExportReport:
    """Write ``mesh`` to ``path`` as GLB, OBJ (+ MTL + PNG when textured) or PLY (with vertex colors).

    Parameters
    ----------
    mesh : Mesh
        OpenGL frame expected (y up); an OpenCV-frame mesh is flipped to OpenGL on export.
    path : path-like
        The file to write; its suffix picks the format unless ``format`` is given. Parent folders
        are created. For OBJ, ``name.mtl`` and ``name.png`` are written beside it when textured.
    format : "glb", "obj" or "ply", optional
    texture_format : "jpeg" or "png"
        GLB only: the texture as JPEG (default; the coarsest quantisation whose PSNR against the lossless
        texture is >= ``min_psnr`` over the texels the mesh shows, those a bilinear lookup on a triangle
        reads; the others are filled smoothly) or PNG (lossless, as baked).
    quantize : "positions", "all" or "none" (True = "all", False = "none")
        GLB only: "positions" (default) writes positions as 16-bit integers over the bounding box (step =
        extent / 65535; KHR_mesh_quantization: three.js, Blender, trimesh, the Khronos validator and
        :func:`load_mesh` read them) and float32 texture coordinates; "all" also writes texture coordinates
        as 16-bit normalised integers (4 bytes less per vertex; trimesh reads those as raw integers);
        "none" writes float32 only and needs no extension.
    min_psnr : float
        GLB with a JPEG texture: the least PSNR in dB against the lossless texture.

    Returns
    -------
    ExportReport
    """
    if not isinstance(mesh, Mesh):
        raise SmrnbTypeError(f"mesh must be a smrnb.Mesh, got {type(mesh).__name__}")
    path = as_path(path, "path")
    if format is not None and not isinstance(format, str):
        raise SmrnbTypeError(f"format must be a str ({', '.join(FORMATS)}) or None, got {type(format).__name__}")
    fmt = (format or path.suffix.lstrip(".")).lower()
    if fmt not in FORMATS:
        raise SmrnbValueError(f"format must be one of {', '.join(FORMATS)} (from the path suffix or format=), "
                              f"got {fmt[:20]!r} for {str(path)[:200]!r}")
    if not isinstance(texture_format, str) or texture_format.lower() not in TEXTURE_FORMATS:
        raise SmrnbValueError(f"texture_format must be one of {', '.join(TEXTURE_FORMATS)}, got {texture_format!r}")
    quantize = {True: "all", False: "none"}.get(quantize, quantize) if isinstance(quantize, bool) else quantize
    if not isinstance(quantize, str) or quantize not in QUANTIZE:
        raise SmrnbValueError(f"quantize must be one of {', '.join(QUANTIZE)} (or True/False), got {quantize!r}")
    if isinstance(min_psnr, bool) or not isinstance(min_psnr, (int, float)) or not 20.0 <= float(min_psnr) <= 60.0:
        raise SmrnbValueError(f"min_psnr must be a number of dB in [20, 60], got {min_psnr!r}")
    check_mesh_for_export(mesh)
    check_writable(path, "path")
    files = [str(path)]
    if fmt == "glb":
        # names inside the file do not depend on its path: the same mesh gives the same bytes anywhere
        data, nv, nf, textured, converted, info = _glb(mesh, "mesh", quantize, texture_format.lower(),
                                                       float(min_psnr))
        replaced = [str(path)] if atomic_write(path, data, "path") else []
        return ExportReport(str(path), fmt, tuple(files), nv, nf, textured, converted, tuple(replaced), len(data),
                            quantize, info)
    tm, textured, converted = _to_trimesh(mesh, name=path.stem)
    if fmt == "ply":
        blobs = [(path, tm.export(file_type="ply", encoding="binary"))]
    else:
        import trimesh.exchange.obj as objx

        mtl_name = path.stem + ".mtl"
        text, texture = objx.export_obj(tm, include_texture=textured, return_texture=True, mtl_name=mtl_name,
                                        include_normals=False, header="smrnb")
        blobs = [(path, text)]
        for name, blob in (texture or {}).items():
            out = path.parent / name
            blobs.append((out, blob))
            files.append(str(out))
    # one unit: every file staged complete before any is renamed into place, the main file last (a
    # reader never sees a new .obj pointing at a missing .mtl); a failure leaves every previous file whole
    replaced = atomic_write_set(blobs, "path")
    return ExportReport(str(path), fmt, tuple(files), len(tm.vertices), len(tm.faces), textured, converted,
                        tuple(replaced), os.path.getsize(path))


#: colours a little outside [0, 1] (rounding of a bake or a filter) are clamped on export; further out is a mistake
_COLOR_SLACK = 1e-3


def _check_unit_range(t: torch.Tensor | None, name: str) -> None:
    """Colours are floats in [0, 1]: refuse NaN/inf and values far outside (0-255 colours above all)."""
    if t is None or t.numel() == 0:
        return
    if not t.dtype.is_floating_point:
        raise SmrnbValueError(f"{name} must be float RGB in [0, 1], got dtype {t.dtype}; for 0-255 integers "
                              "use .float() / 255")
    finite = torch.isfinite(t)
    if not bool(finite.all()):
        raise SmrnbValueError(f"{name} must be finite RGB in [0, 1], got {int((~finite).sum())} NaN/inf value(s)")
    lo, hi = float(t.min()), float(t.max())
    if lo < -_COLOR_SLACK or hi > 1 + _COLOR_SLACK:
        hint = "; they look like 0-255 colours: divide by 255" if hi > 1.5 and lo >= 0 and hi <= 255 else ""
        raise SmrnbValueError(f"{name} must be RGB in [0, 1], got values in [{lo:.4g}, {hi:.4g}]{hint}")


def check_mesh_for_export(mesh: Mesh) -> None:
    """What a file format cannot hold: no faces, non-finite vertices or uvs, indices out of range, mixed devices."""
    if mesh.num_faces == 0:
        raise SmrnbValueError("mesh must have at least one face to export, got 0 faces")
    same_device(vertices=mesh.vertices, faces=mesh.faces, uvs=mesh.uvs, face_uvs_idx=mesh.face_uvs_idx,
                vertex_colors=mesh.vertex_colors, texture=mesh.texture)
    if not bool(torch.isfinite(mesh.vertices).all()):
        raise SmrnbValueError("mesh.vertices must be finite to export, got NaN/inf values")
    for name in ("vertex_colors", "texture"):
        _check_unit_range(getattr(mesh, name), f"mesh.{name}")
    check_index_range(mesh.faces, mesh.num_vertices, "mesh.faces", "mesh.vertices")
    if mesh.uvs is not None:
        if not bool(torch.isfinite(mesh.uvs).all()):
            raise SmrnbValueError("mesh.uvs must be finite, got NaN/inf values")
        if mesh.face_uvs_idx is not None:
            check_index_range(mesh.face_uvs_idx, mesh.uvs.shape[0], "mesh.face_uvs_idx", "mesh.uvs")
        elif mesh.uvs.shape[0] != mesh.num_vertices:
            raise SmrnbValueError(f"mesh.uvs without face_uvs_idx must have one uv per vertex ({mesh.num_vertices}), "
                                  f"got {mesh.uvs.shape[0]}")


def _load_quantized_glb(path, dev: torch.device) -> Mesh | None:
    """A GLB with normalised integer texture coordinates (what ``export_mesh`` writes by default), read by
    :func:`smrnb.geometry._glb.read_glb` (trimesh reads those as raw integers); None for other files."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SmrnbValueError(f"path {str(path)[:200]!r} could not be read: {exc}") from None
    if not needs_own_reader(data):
        return None
    try:
        r = read_glb(data)
    except (ValueError, KeyError, IndexError, TypeError, struct.error) as exc:
        raise SmrnbValueError(f"path {str(path)!r} could not be read as a mesh: {type(exc).__name__}: "
                              f"{str(exc)[:300]}") from None
    v = torch.as_tensor(r["vertices"], dtype=torch.float32)
    f = torch.as_tensor(r["faces"], dtype=torch.int64)
    check_index_range(f, v.shape[0], f"faces of {str(path)[:200]!r}", "its vertices")
    kw: dict[str, Any] = {}
    if "uvs" in r:
        kw["uvs"] = torch.as_tensor(r["uvs"], dtype=torch.float32)
        kw["face_uvs_idx"] = f.clone()
        if "texture" in r:
            kw["texture"] = torch.as_tensor(np.asarray(r["texture"].convert("RGB"), dtype=np.float32) / 255.0)
    elif "colors" in r:
        kw["vertex_colors"] = torch.as_tensor(r["colors"], dtype=torch.float32)
    return Mesh(v, f, frame="opengl", **kw).to(dev)


def load_mesh(path: str | os.PathLike, device: Any = "cpu") -> Mesh:
    """Read a mesh file (GLB/GLTF, OBJ, PLY, STL, OFF) into a :class:`Mesh` without merging vertices.

    Scenes (several meshes) are concatenated. Texture coordinates and the base-color texture are
    read when present (then ``uvs`` index per vertex: ``face_uvs_idx == faces``); vertex colors
    otherwise. Frame: whatever the file holds (GLB is y up: ``frame="opengl"``).
    """
    import trimesh

    dev = resolve_device(device, "device")
    path = check_input(path, "path", what="mesh file")  # missing, a symlink loop, no permission, a folder, 0 bytes
    if path.suffix.lower() == ".glb":
        mesh = _load_quantized_glb(path, dev)
        if mesh is not None:
            return mesh
    try:
        loaded = trimesh.load(str(path), process=False, maintain_order=True)
    except Exception as exc:  # trimesh raises many types on bad files
        raise SmrnbValueError(f"path {str(path)!r} could not be read as a mesh: {type(exc).__name__}: {str(exc)[:300]}") from None
    if isinstance(loaded, trimesh.Scene):
        geoms = [g for g in loaded.dump() if isinstance(g, trimesh.Trimesh)] if hasattr(loaded, "dump") else []
        if not geoms:
            raise SmrnbValueError(f"path {str(path)!r} holds no triangle mesh")
        tm = geoms[0] if len(geoms) == 1 else trimesh.util.concatenate(geoms)
    else:
        tm = loaded
    if not isinstance(tm, trimesh.Trimesh):
        raise SmrnbValueError(f"path {str(path)!r} holds a {type(tm).__name__}, not a triangle mesh")
    v = torch.as_tensor(np.asarray(tm.vertices, dtype=np.float32))
    f = torch.as_tensor(np.asarray(tm.faces, dtype=np.int64))
    bad = ~torch.isfinite(v).all(dim=1) if v.numel() else torch.zeros(0, dtype=torch.bool)
    if bool(bad.any()):
        first = int(bad.nonzero()[0, 0])
        raise SmrnbValueError(f"path {str(path)[:200]!r}: {int(bad.sum())} vertex(es) are not finite (NaN/inf), "
                              f"the first is vertex {first}; fix the file or drop those vertices")
    check_index_range(f, v.shape[0], f"faces of {str(path)[:200]!r}", "its vertices")
    kw: dict[str, Any] = {}
    visual = tm.visual
    if getattr(visual, "kind", None) == "texture" and getattr(visual, "uv", None) is not None:
        kw["uvs"] = torch.as_tensor(np.asarray(visual.uv, dtype=np.float32))
        kw["face_uvs_idx"] = f.clone()
        img = None
        mat = getattr(visual, "material", None)
        for attr in ("baseColorTexture", "image"):
            img = getattr(mat, attr, None) if mat is not None else None
            if img is not None:
                break
        if img is not None:
            arr = np.asarray(img.convert("RGB"), dtype=np.float32) / 255.0
            kw["texture"] = torch.as_tensor(arr)
    elif getattr(visual, "kind", None) == "vertex":
        kw["vertex_colors"] = torch.as_tensor(np.asarray(visual.vertex_colors)[:, :3].astype(np.float32) / 255.0)
    return Mesh(v, f, frame="opengl", **kw).to(dev)


__all__ = ["export_mesh", "load_mesh", "ExportReport", "FORMATS"]
