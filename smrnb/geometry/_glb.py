# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""GLB files sized for the web: quantised positions, 16-bit indices, a JPEG texture checked by PSNR.

What a file holds (glTF 2.0, one mesh, one node, one material):

* ``POSITION``: quantised (``quantize`` "all", the default, or "positions"): unsigned 16-bit integers per
  axis over the mesh's bounding box, the node's ``translation`` and ``scale`` turning them back into
  metres (KHR_mesh_quantization, listed as required: three.js' GLTFLoader, Blender's importer and the
  Khronos validator read it, and trimesh too, which applies the node's transform); the step is
  extent / 65535 per axis (0.06 mm over 4 m). ``quantize="none"``: float32, no extension.
* ``TEXCOORD_0``: with "all", unsigned 16-bit normalised (steps of 1/65535: 0.016 texel at 1024), else
  float32; v flipped to glTF's top-left origin. trimesh (5.2) reads normalised texture coordinates as
  raw integers (it ignores the accessor's ``normalized`` flag): :func:`read_glb` (``smrnb.load_mesh``)
  reads them right, and ``quantize="positions"`` writes float32 ones for trimesh pipelines.
* ``COLOR_0`` (untextured meshes with vertex colours): 8-bit normalised RGB (core glTF).
* indices: 16-bit where the vertex count allows it (core glTF), else 32-bit.
* the texture: **JPEG** by default, encoded with flat quantisation tables (the same step for every
  frequency, which minimises the squared error for a given size far better than the perceptual default
  tables; progressive, about 1.5 % smaller than baseline) at the coarsest step whose PSNR against the
  lossless texture, over the texels the mesh shows, is at least ``min_psnr`` (40 dB). Texels outside
  every chart (pure black after baking) are filled first by a push-pull pyramid (averages of the chart
  colours, smooth), so that the encoder spends no bytes on hard chart borders and mipmaps do not darken
  the edges of charts. Or **PNG**: the texture as baked, lossless.

Everything is assembled by hand (numpy, Pillow): trimesh's exporter writes float32 positions and 32-bit
indices only.
"""

from __future__ import annotations

import io
import json
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbValueError

TEXTURE_FORMATS = ("jpeg", "png")
QUANTIZE = ("all", "positions", "none")
_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963
_FLOAT, _UBYTE, _USHORT, _UINT = 5126, 5121, 5123, 5125
#: the coarsest flat quantisation step tried, and the chroma step relative to the luma one
_MAX_STEP = 64
_CHROMA = 1.35


@dataclass(frozen=True)
class TextureInfo:
    """How the texture was written."""

    format: str  # "jpeg" or "png"
    bytes: int
    width: int
    height: int
    psnr: float | None  # dB against the lossless texture over the texels the mesh shows (None: lossless)
    psnr_all: float | None  # the same over every texel
    step: int | None  # JPEG: the luma quantisation step (chroma: round(step * 1.35))
    tries: int = 0  # JPEG encodings made (to find the step, then the final one)


def fill_empty_texels(tex: torch.Tensor, used: torch.Tensor) -> torch.Tensor:
    """``tex (H, W, C)`` float with the texels outside ``used (H, W)`` replaced by a push-pull fill: each
    pyramid level averages the used texels below it, and every unused texel takes the (bilinearly
    upsampled) average of the nearest coarser level that has one. Used texels are unchanged."""
    H, W, C = tex.shape
    x = tex.permute(2, 0, 1)[None].float()
    w = used[None, None].to(x.dtype)
    levels = []
    s, sw = x * w, w
    while min(s.shape[-2:]) > 1:
        levels.append((s, sw))
        h2, w2 = (s.shape[-2] + 1) // 2, (s.shape[-1] + 1) // 2
        pad = (0, w2 * 2 - s.shape[-1], 0, h2 * 2 - s.shape[-2])
        s = torch.nn.functional.avg_pool2d(torch.nn.functional.pad(s, pad), 2) * 4
        sw = torch.nn.functional.avg_pool2d(torch.nn.functional.pad(sw, pad), 2) * 4
    col = s / sw.clamp_min(1e-12)
    for s, sw in reversed(levels):
        up = torch.nn.functional.interpolate(col, size=s.shape[-2:], mode="bilinear", align_corners=False)
        col = torch.where(sw > 0, s / sw.clamp_min(1e-12), up)
    out = torch.where(used[..., None], tex.float(), col[0].permute(1, 2, 0))
    return out.to(tex.dtype)


def _psnr(a: torch.Tensor, b: torch.Tensor, mask: torch.Tensor | None) -> float:
    """PSNR in dB of uint8 images ``(H, W, C)`` (on any device) over ``mask`` texels (all when None)."""
    d = a.to(torch.float32) - b.to(torch.float32)
    sq = (d * d).sum(dim=-1)
    n = sq.numel() if mask is None else int(mask.sum())
    total = float(sq.sum() if mask is None else (sq * mask).sum())
    if n == 0 or total == 0:
        return float("inf")
    return 10.0 * float(np.log10(255.0 ** 2 * n * a.shape[-1] / total))


def _jpeg(img: Any, step: int, final: bool = False) -> bytes:
    """JPEG bytes with flat quantisation tables; ``final``: progressive with optimised Huffman tables (the
    same pixels as the plain encoding, about 1.5 % smaller; slower, so made once)."""
    chroma = max(1, min(255, round(step * _CHROMA)))
    buf = io.BytesIO()
    extra = {"optimize": True, "progressive": True} if final else {}
    img.save(buf, "JPEG", qtables=[[step] * 64, [chroma] * 64], subsampling=0, **extra)
    return buf.getvalue()


def encode_texture(rgb: torch.Tensor, used: torch.Tensor, fmt: str, min_psnr: float) -> tuple[bytes, str, TextureInfo]:
    """``rgb (H, W, 3) uint8`` (already filled; any device) -> (image bytes, MIME type, :class:`TextureInfo`).

    JPEG: the coarsest flat quantisation step whose PSNR over ``used`` texels is >= ``min_psnr``. The
    first step tried is the one a uniform quantiser's error (step^2 / 12 per sample, about 0.25 dB
    pessimistic on photographs) predicts; the search then moves one step at a time (usually two
    encodings), each decoded and compared on ``rgb``'s device; the chosen step is encoded once more,
    progressive.
    """
    from PIL import Image

    host = rgb.cpu().numpy()
    img = Image.fromarray(host, "RGB")
    H, W = host.shape[:2]
    if fmt == "png":
        buf = io.BytesIO()
        img.save(buf, "PNG", compress_level=6)
        data = buf.getvalue()
        return data, "image/png", TextureInfo("png", len(data), W, H, None, None, None)
    if fmt != "jpeg":
        raise SmrnbValueError(f"texture_format must be one of {', '.join(TEXTURE_FORMATS)}, got {fmt!r}")
    cache: dict[int, float] = {}

    def psnr(step: int) -> float:
        if step not in cache:
            back = np.array(Image.open(io.BytesIO(_jpeg(img, step))).convert("RGB"))  # writable for torch
            cache[step] = _psnr(rgb, torch.from_numpy(back).to(rgb.device, non_blocking=True), used)
        return cache[step]

    # uniform quantisation of orthonormal DCT coefficients: mean squared error ~ step^2 / 12 per sample
    step = int(np.clip(np.rint(np.sqrt(12.0) * 255.0 / 10 ** (min_psnr / 20.0) * 1.03), 1, _MAX_STEP))
    while step > 1 and psnr(step) < min_psnr:
        step -= 1
    while step < _MAX_STEP and psnr(step) >= min_psnr and psnr(step + 1) >= min_psnr:
        step += 1
    if psnr(step) < min_psnr:  # below the target even at step 1 (never for 8-bit images): the best one
        step = max(cache, key=lambda k: cache[k])
    data = _jpeg(img, step, final=True)
    whole = _psnr(rgb, torch.from_numpy(np.array(Image.open(io.BytesIO(data)).convert("RGB"))).to(rgb.device), None)
    return data, "image/jpeg", TextureInfo("jpeg", len(data), W, H, cache[step], whole, step, len(cache) + 1)


class _Bin:
    """The binary chunk: 4-byte aligned views."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.views: list[dict] = []
        self.size = 0

    def add(self, data: bytes, target: int | None = None, stride: int | None = None) -> int:
        pad = (-self.size) % 4
        if pad:
            self.parts.append(b"\0" * pad)
            self.size += pad
        view: dict[str, Any] = {"buffer": 0, "byteOffset": self.size, "byteLength": len(data)}
        if target is not None:
            view["target"] = target
        if stride is not None:
            view["byteStride"] = stride
        self.parts.append(data)
        self.size += len(data)
        self.views.append(view)
        return len(self.views) - 1


def write_glb(vertices: np.ndarray, faces: np.ndarray, uv: np.ndarray | None, colors: np.ndarray | None,
              texture: torch.Tensor | None, *, name: str = "smrnb", quantize: str = "all",
              texture_format: str = "jpeg", min_psnr: float = 40.0) -> tuple[bytes, TextureInfo | None]:
    """The GLB bytes of one mesh (OpenGL frame, y up): ``vertices (V, 3)`` float, ``faces (F, 3)`` int,
    ``uv (V, 2)`` in [0, 1] (v up) or None, ``colors (V, 3)`` in [0, 1] or None, ``texture (H, W, 3)``
    float in [0, 1] (any device) or None. Returns the file's bytes and how the texture was written."""
    V = int(vertices.shape[0])
    blob = _Bin()
    accessors: list[dict] = []
    attributes: dict[str, int] = {}
    used_ext: list[str] = []
    node: dict[str, Any] = {"mesh": 0, "name": name}

    def accessor(view: int, ctype: int, count: int, kind: str, **kw: Any) -> int:
        accessors.append({"bufferView": view, "componentType": ctype, "count": count, "type": kind, **kw})
        return len(accessors) - 1

    v = np.asarray(vertices, dtype=np.float64)
    lo, hi = v.min(axis=0), v.max(axis=0)
    if quantize in ("all", "positions"):
        ext = np.where(hi > lo, hi - lo, 1.0)
        q = np.rint((v - lo) / ext * 65535.0).astype(np.uint16)
        padded = np.zeros((V, 4), dtype=np.uint16)  # each vertex 4-byte aligned: 8 bytes
        padded[:, :3] = q
        view = blob.add(padded.tobytes(), _ARRAY_BUFFER, stride=8)
        attributes["POSITION"] = accessor(view, _USHORT, V, "VEC3", min=q.min(axis=0).tolist(),
                                          max=q.max(axis=0).tolist())
        node["translation"] = lo.tolist()
        node["scale"] = (ext / 65535.0).tolist()
        used_ext.append("KHR_mesh_quantization")
    else:
        p = v.astype(np.float32)
        view = blob.add(p.tobytes(), _ARRAY_BUFFER)
        attributes["POSITION"] = accessor(view, _FLOAT, V, "VEC3", min=p.min(axis=0).tolist(),
                                          max=p.max(axis=0).tolist())
    if uv is not None:
        t = np.asarray(uv, dtype=np.float64).copy()
        t[:, 1] = 1.0 - t[:, 1]  # glTF: origin at the top-left of the image
        if quantize == "all":
            qt = np.rint(np.clip(t, 0.0, 1.0) * 65535.0).astype(np.uint16)
            attributes["TEXCOORD_0"] = accessor(blob.add(qt.tobytes(), _ARRAY_BUFFER), _USHORT, V, "VEC2",
                                                normalized=True)
        else:
            attributes["TEXCOORD_0"] = accessor(blob.add(t.astype(np.float32).tobytes(), _ARRAY_BUFFER), _FLOAT, V,
                                                "VEC2")
    if colors is not None and texture is None:
        c = np.zeros((V, 4), dtype=np.uint8)
        c[:, :3] = np.clip(np.asarray(colors, dtype=np.float32) * 255.0 + 0.5, 0, 255).astype(np.uint8)
        view = blob.add(c.tobytes(), _ARRAY_BUFFER, stride=4)
        attributes["COLOR_0"] = accessor(view, _UBYTE, V, "VEC3", normalized=True)
    f = np.asarray(faces).reshape(-1)
    # 65535 is the restart value glTF forbids in 16-bit indices
    itype, idt = (_USHORT, np.uint16) if V <= 65535 else (_UINT, np.uint32)
    indices = accessor(blob.add(f.astype(idt).tobytes(), _ELEMENT_ARRAY_BUFFER), itype, int(f.size), "SCALAR")

    material: dict[str, Any] = {"name": name, "doubleSided": False,
                                "pbrMetallicRoughness": {"metallicFactor": 0.0, "roughnessFactor": 1.0}}
    gltf: dict[str, Any] = {"asset": {"version": "2.0", "generator": "smrnb"}}
    info = None
    if texture is not None and uv is not None:
        tex = texture.detach().float().clamp(0, 1)
        used = (tex > 0).any(dim=-1)
        if texture_format == "jpeg" and bool(used.any()) and not bool(used.all()):
            tex = fill_empty_texels(tex, used)
        rgb = (tex * 255.0 + 0.5).to(torch.uint8)
        data, mime, info = encode_texture(rgb, used, texture_format, min_psnr)
        gltf["images"] = [{"bufferView": blob.add(data), "mimeType": mime, "name": f"{name}_baseColor"}]
        gltf["samplers"] = [{"magFilter": 9729, "minFilter": 9987, "wrapS": 33071, "wrapT": 33071}]
        gltf["textures"] = [{"sampler": 0, "source": 0}]
        material["pbrMetallicRoughness"]["baseColorTexture"] = {"index": 0}
    prim: dict[str, Any] = {"attributes": attributes, "indices": indices, "mode": 4}
    if info is not None:
        prim["material"] = 0
        gltf["materials"] = [material]
    # without a texture, glTF's default material (white, its colour times COLOR_0 when present): readers
    # then take the vertex colours as the mesh's colours (trimesh keeps them aside when a material is set)
    gltf.update({
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [node],
        "meshes": [{"name": name, "primitives": [prim]}],
        "accessors": accessors, "bufferViews": blob.views, "buffers": [{"byteLength": blob.size}],
    })
    if used_ext:
        gltf["extensionsUsed"] = used_ext
        gltf["extensionsRequired"] = used_ext
    js = json.dumps(gltf, separators=(",", ":")).encode("utf-8")
    js += b" " * ((-len(js)) % 4)
    binary = b"".join(blob.parts)
    binary += b"\0" * ((-len(binary)) % 4)
    total = 12 + 8 + len(js) + 8 + len(binary)
    out = b"".join([struct.pack("<4sII", b"glTF", 2, total), struct.pack("<I4s", len(js), b"JSON"), js,
                    struct.pack("<I4s", len(binary), b"BIN\0"), binary])
    return out, info


_NP = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}
_NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}


def _node_matrix(node: dict) -> np.ndarray:
    if "matrix" in node:
        return np.asarray(node["matrix"], dtype=np.float64).reshape(4, 4).T
    m = np.eye(4)
    x, y, z, w = node.get("rotation", (0.0, 0.0, 0.0, 1.0))
    m[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                 [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                 [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    m[:3, :3] = m[:3, :3] * np.asarray(node.get("scale", (1.0, 1.0, 1.0)))[None, :]
    m[:3, 3] = node.get("translation", (0.0, 0.0, 0.0))
    return m


def needs_own_reader(data: bytes) -> bool:
    """Whether a GLB holds what trimesh misreads: a normalised integer ``TEXCOORD`` accessor."""
    try:
        gltf, _ = _chunks(data)
    except (ValueError, struct.error, UnicodeDecodeError):
        return False
    acc = gltf.get("accessors", [])
    for mesh in gltf.get("meshes", []):
        for prim in mesh.get("primitives", []):
            for key, i in prim.get("attributes", {}).items():
                if key.startswith("TEXCOORD") and acc[i].get("normalized") and acc[i]["componentType"] != _FLOAT:
                    return True
    return False


def _chunks(data: bytes) -> tuple[dict, bytes]:
    magic, version, total = struct.unpack_from("<4sII", data, 0)
    if magic != b"glTF" or version != 2:
        raise ValueError("not a glTF 2.0 binary file")
    n, kind = struct.unpack_from("<I4s", data, 12)
    if kind != b"JSON":
        raise ValueError("the first chunk is not JSON")
    gltf = json.loads(data[20:20 + n].decode("utf-8"))
    binary = b""
    off = 20 + n
    if off + 8 <= len(data):
        m, kind = struct.unpack_from("<I4s", data, off)
        if kind == b"BIN\0":
            binary = data[off + 8:off + 8 + m]
    return gltf, binary


def read_glb(data: bytes) -> dict[str, Any]:
    """The triangles of a GLB as numpy arrays in the file's frame, node transforms applied: ``vertices
    (V, 3)`` float64, ``faces (F, 3)`` int64, and when present ``uvs (V, 2)`` (v up, normalised integer
    accessors divided out), ``colors (V, 3)`` in [0, 1], ``texture`` (a PIL image of the first primitive's
    base colour). Handles what smrnb writes and files like it (triangle lists, buffers in the file);
    raises ValueError for anything else (sparse accessors, external buffers, other primitive modes)."""
    gltf, binary = _chunks(data)
    views, acc = gltf.get("bufferViews", []), gltf.get("accessors", [])

    def read(i: int) -> np.ndarray:
        a = acc[i]
        if "sparse" in a or "bufferView" not in a:
            raise ValueError("sparse or bufferless accessors are not supported here")
        view = views[a["bufferView"]]
        if view.get("buffer", 0) != 0 or gltf["buffers"][0].get("uri"):
            raise ValueError("external buffers are not supported here")
        dt = np.dtype(_NP[a["componentType"]]).newbyteorder("<")
        k, n = _NCOMP[a["type"]], a["count"]
        start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
        stride = view.get("byteStride") or k * dt.itemsize
        raw = np.frombuffer(binary, dtype=np.uint8, count=(n - 1) * stride + k * dt.itemsize, offset=start)
        out = np.lib.stride_tricks.as_strided(raw, (n, k * dt.itemsize), (stride, 1)).copy().view(dt).reshape(n, k)
        if a.get("normalized") and dt.kind in "ui":
            out = np.maximum(out.astype(np.float64) / np.iinfo(dt).max, -1.0)
        return out

    verts, faces, uvs, cols, texture, nv = [], [], [], [], None, 0
    scene = gltf.get("scenes", [{}])[gltf.get("scene", 0)] if gltf.get("scenes") else {"nodes": []}
    stack = [(i, np.eye(4)) for i in scene.get("nodes", [])]
    while stack:
        ni, parent = stack.pop()
        node = gltf["nodes"][ni]
        m = parent @ _node_matrix(node)
        stack.extend((c, m) for c in node.get("children", []))
        if "mesh" not in node:
            continue
        for prim in gltf["meshes"][node["mesh"]]["primitives"]:
            if prim.get("mode", 4) != 4:
                raise ValueError("only triangle lists are supported here")
            attr = prim["attributes"]
            p = read(attr["POSITION"]).astype(np.float64)
            p = p @ m[:3, :3].T + m[:3, 3]
            f = read(prim["indices"]).reshape(-1, 3).astype(np.int64) if "indices" in prim else \
                np.arange(len(p), dtype=np.int64).reshape(-1, 3)
            verts.append(p)
            faces.append(f + nv)
            nv += len(p)
            if "TEXCOORD_0" in attr:
                t = read(attr["TEXCOORD_0"]).astype(np.float64)
                uvs.append(np.stack([t[:, 0], 1.0 - t[:, 1]], 1))
            if "COLOR_0" in attr:
                c = read(attr["COLOR_0"]).astype(np.float64)[:, :3]
                cols.append(c)
            mat = gltf.get("materials", [{}])[prim["material"]] if "material" in prim else {}
            tex = mat.get("pbrMetallicRoughness", {}).get("baseColorTexture")
            if texture is None and tex is not None:
                from PIL import Image

                img = gltf["images"][gltf["textures"][tex["index"]]["source"]]
                view = views[img["bufferView"]]
                start = view.get("byteOffset", 0)
                texture = Image.open(io.BytesIO(binary[start:start + view["byteLength"]]))
                texture.load()
    if not verts:
        raise ValueError("no triangle mesh in the file")
    out: dict[str, Any] = {"vertices": np.concatenate(verts), "faces": np.concatenate(faces)}
    if len(uvs) == len(verts):
        out["uvs"] = np.concatenate(uvs)
    if len(cols) == len(verts):
        out["colors"] = np.concatenate(cols)
    if texture is not None:
        out["texture"] = texture
    return out

__all__ = ["QUANTIZE", "TEXTURE_FORMATS", "TextureInfo", "encode_texture", "fill_empty_texels", "needs_own_reader",
           "read_glb", "write_glb"]
