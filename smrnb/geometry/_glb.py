# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""GLB files sized for the web: quantised positions, 16-bit indices, a JPEG texture checked by PSNR.

What a file holds (glTF 2.0, one mesh, one node, one material):

* ``POSITION``: quantised (``quantize`` "positions", the default, or "all"): unsigned 16-bit integers per
  axis over the mesh's bounding box, the node's ``translation`` and ``scale`` turning them back into
  metres (KHR_mesh_quantization, listed as required: three.js' GLTFLoader, Blender's importer and the
  Khronos validator read it, and trimesh too, which applies the node's transform); the step is
  extent / 65535 per axis (0.06 mm over 4 m). ``quantize="none"``: float32, no extension.
* ``TEXCOORD_0``: float32 (the default), v flipped to glTF's top-left origin; with "all", unsigned 16-bit
  normalised (steps of 1/65535: 0.016 texel at 1024; 4 bytes a vertex less), which trimesh (5.2) reads as
  raw integers (it ignores the accessor's ``normalized`` flag) while :func:`read_glb` (``smrnb.load_mesh``),
  three.js and Blender read it right.
* ``COLOR_0`` (untextured meshes with vertex colours): 8-bit normalised RGB (core glTF).
* indices: 16-bit where the vertex count allows it (core glTF), else 32-bit.
* the texture: **JPEG** by default, 4:4:4, flat quantisation tables (the same step for every frequency, which
  minimises the squared error for a given size far better than the perceptual default tables) and a dead
  zone (coefficients within a little more than half a step of zero round to zero), at the coarsest step and
  widest dead zone whose PSNR against the lossless texture, over the texels the mesh shows (those a bilinear
  lookup anywhere on a triangle reads, :func:`texel_footprint`), is at least ``min_psnr`` (40 dB). The search
  runs on a model of the encoder and decoder (:class:`_JpegModel`, on the texture's device); the chosen
  quantisation is encoded once (the encoder is handed the model's decoded image, which it quantises back to
  the same coefficients) and decoded to check the PSNR. The texels no triangle shows are filled first by a
  push-pull pyramid (averages of the shown colours, smooth): the encoder spends almost nothing on them and
  mipmaps do not darken the edges of charts. Or **PNG**: the texture as baked, lossless.

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
QUANTIZE = ("positions", "all", "none")
_ARRAY_BUFFER, _ELEMENT_ARRAY_BUFFER = 34962, 34963
_FLOAT, _UBYTE, _USHORT, _UINT = 5126, 5121, 5123, 5125
#: the coarsest flat quantisation step tried, and the chroma step relative to the luma one
_MAX_STEP = 64
_CHROMA = 1.35
#: JFIF's RGB -> YCbCr (what a JPEG encoder applies before the DCT; Cb and Cr centred on 128)
_YCC = ((0.299, 0.587, 0.114), (-0.168736, -0.331264, 0.5), (0.5, -0.418688, -0.081312))
#: the widest dead zone tried, in steps beyond the half step of plain rounding; the dB kept in hand for the
#: difference between the model's decoder and a real one (measured: within 0.02 dB), and the search's
#: tolerance on the dead zone
_MAX_DEADZONE = 0.45
_MARGIN = 0.02
_DEADZONE_TOL = 0.01


@dataclass(frozen=True)
class TextureInfo:
    """How the texture was written."""

    format: str  # "jpeg" or "png"
    bytes: int
    width: int
    height: int
    psnr: float | None  # dB against the lossless texture over the texels the mesh shows (None: lossless)
    psnr_all: float | None  # the same over every texel (those no triangle shows are filled, then kept coarsely)
    step: int | None  # JPEG: the luma quantisation step (chroma: round(step * 1.35))
    tries: int = 0  # JPEG: quantisations encoded (one, unless the check after decoding asked for more)
    deadzone: float | None = None  # JPEG: the dead zone, in steps beyond the half step of plain rounding
    progressive: bool | None = None  # JPEG: progressive (when smaller than baseline) or baseline
    evaluations: int = 0  # JPEG: quantisations the search tried on the model
    shown: float | None = None  # the fraction of texels the mesh shows (those ``psnr`` is measured over)


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


def texel_footprint(uv: torch.Tensor, faces: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """``(height, width)`` bool: the texels a bilinear lookup anywhere on the mesh reads, i.e. those whose
    centre lies within one texel (per axis) of a point of a triangle in ``uv (V, 2)`` (v up, texel centres
    at ``((j + 0.5) / W, 1 - (i + 0.5) / H)``). Exact: per triangle and texel row, the run of columns whose
    one-texel box meets the triangle (a separating-axis test solved for the column), on ``uv``'s device."""
    dev = uv.device
    H, W = int(height), int(width)
    p = torch.stack([uv[:, 0].double() * W - 0.5, (1.0 - uv[:, 1].double()) * H - 0.5], 1)
    t = p[faces.long()]  # (F, 3, 2): x = column, y = row
    nrm = torch.roll(t, -1, 1) - t
    nrm = torch.stack([-nrm[..., 1], nrm[..., 0]], -1)  # each edge's normal (F, 3, 2)
    proj = torch.einsum("fvk,fek->fve", t, nrm)
    reach = nrm.abs().sum(-1)  # half the box's extent along each normal
    lo_e, hi_e = proj.amin(1) - reach, proj.amax(1) + reach  # the box's centre projects inside these
    # centres strictly within 1 of the bounding box (clamped to the image afterwards, never into it)
    y0 = torch.floor(t[..., 1].amin(1)).clamp(0, H).long()
    y1 = torch.ceil(t[..., 1].amax(1)).clamp(-1, H - 1).long()
    rows = (y1 - y0 + 1).clamp_min(0)
    tri = torch.repeat_interleave(torch.arange(t.shape[0], device=dev), rows)
    y = torch.arange(tri.numel(), device=dev) - (torch.cumsum(rows, 0) - rows)[tri] + y0[tri]
    a = torch.floor(t[..., 0].amin(1)).clamp(0, W)[tri]
    b = torch.ceil(t[..., 0].amax(1)).clamp(-1, W - 1)[tri]
    yf = y.double()
    for k in range(3):
        nx, ny = nrm[tri, k, 0], nrm[tri, k, 1]
        lo, hi = lo_e[tri, k] - ny * yf, hi_e[tri, k] - ny * yf  # the column x needs lo < nx * x < hi
        flat = nx == 0
        q = torch.where(flat, torch.ones_like(nx), nx)
        p1, p2 = lo / q, hi / q
        a = torch.where(flat, torch.where((lo <= 0) & (hi >= 0), a, torch.full_like(a, W)), torch.maximum(a, torch.minimum(p1, p2)))
        b = torch.where(flat, b, torch.minimum(b, torch.maximum(p1, p2)))
    # a texel more rather than less where a centre sits on the boundary
    a = torch.ceil(a - 1e-7).clamp(0, W).long()
    b = torch.floor(b + 1e-7).clamp(-1, W - 1).long()
    keep = a <= b
    y, a, b = y[keep], a[keep], b[keep]
    runs = torch.zeros(H * (W + 1), dtype=torch.int32, device=dev)
    one = torch.ones_like(y, dtype=torch.int32)
    runs.index_add_(0, y * (W + 1) + a, one)
    runs.index_add_(0, y * (W + 1) + b + 1, -one)
    return runs.view(H, W + 1).cumsum(1)[:, :W] > 0


class _JpegModel:
    """What a baseline JPEG encoder with flat quantisation tables (the same step for every frequency, the
    chroma step ``round(step * 1.35)``, 4:4:4) keeps of ``rgb (H, W, 3) uint8``, and the image a decoder
    shows, computed on ``rgb``'s device: JFIF's YCbCr, 8x8 orthonormal DCTs (edge blocks padded by
    repetition, as the encoder does; one 64x64 product per block), quantisation with a dead zone, the
    inverse with the decoder's 8-bit YCbCr samples. An 8x8 block holding no ``used`` texel keeps its DC
    term alone: nothing shows it, and a flat block costs the encoder two symbols per channel. The PSNR
    over ``used`` texels is computed on the blocks that hold one, in block order."""

    def __init__(self, rgb: torch.Tensor, used: torch.Tensor) -> None:
        dev = rgb.device
        self.H, self.W = int(rgb.shape[0]), int(rgb.shape[1])
        ph, pw = (-self.H) % 8, (-self.W) % 8
        self.hb, self.wb = (self.H + ph) // 8, (self.W + pw) // 8
        self.ycc = torch.tensor(_YCC, dtype=torch.float32, device=dev)
        self.rgb_of = torch.linalg.inv(self.ycc)
        k = torch.arange(8, dtype=torch.float64)
        d = torch.cos(torch.pi * (2 * k[None, :] + 1) * k[:, None] / 16) * 0.5
        d[0] /= 2 ** 0.5
        self.kron = torch.kron(d, d).to(device=dev, dtype=torch.float32)  # vec(D B D^T) = kron @ vec(B)
        x = torch.nn.functional.pad(rgb.permute(2, 0, 1)[None].float(), (0, pw, 0, ph), mode="replicate")[0]
        y = torch.einsum("ij,jhw->ihw", self.ycc, x)
        y[0] -= 128.0  # the level shift (Cb and Cr are centred on 0 already)
        self.coef = self._blocks(y) @ self.kron.T  # (3, blocks, 64)
        u = self._blocks(torch.nn.functional.pad(used[None].float(), (0, pw, 0, ph)))[0] > 0
        self.shown = u.any(1)  # blocks holding a used texel
        idx = self.shown.nonzero()[:, 0]
        self.coef_used, self.ref, self.mask = self.coef[:, idx], self._blocks(x)[:, idx], u[idx].float()
        self.n_used = float(self.mask.sum())

    def _blocks(self, img: torch.Tensor) -> torch.Tensor:
        C = img.shape[0]
        return img.reshape(C, self.hb, 8, self.wb, 8).permute(0, 1, 3, 2, 4).reshape(C, self.hb * self.wb, 64)

    def _decode(self, coef: torch.Tensor, step: int, deadzone: float) -> torch.Tensor:
        """RGB blocks ``(3, n, 64)`` (float, integral, in [0, 255]) a decoder shows for ``coef`` quantised at
        ``step``: a coefficient rounds to the nearest multiple of its step, except that one within ``0.5 +
        deadzone`` steps of zero (or of the next multiple towards zero) drops towards zero; DC always rounds."""
        chroma = max(1, min(255, round(step * _CHROMA)))
        Q = torch.tensor([step, chroma, chroma], dtype=torch.float32, device=coef.device).view(3, 1, 1)
        off = torch.full((64,), 0.5 - deadzone, dtype=torch.float32, device=coef.device)
        off[0] = 0.5
        a = coef / Q
        y = (torch.sign(a) * torch.floor(a.abs() + off).clamp_min(0) * Q) @ self.kron
        y = (y + 128.0).round_().clamp_(0, 255)  # the decoder's YCbCr samples are 8-bit
        y[1:] -= 128.0
        return torch.einsum("ij,jnk->ink", self.rgb_of, y).round_().clamp_(0, 255)

    def psnr(self, step: int, deadzone: float) -> float:
        """PSNR in dB over the used texels of the image decoded after quantising at ``step``."""
        d = self._decode(self.coef_used, step, deadzone) - self.ref
        total = float(((d * d).sum(0) * self.mask).sum())
        return float("inf") if total == 0 else 10.0 * float(np.log10(255.0 ** 2 * self.n_used * 3 / total))

    def decoded(self, step: int, deadzone: float) -> torch.Tensor:
        """The decoder's ``(H, W, 3) uint8`` image after quantising at ``step`` (blocks nothing shows: DC)."""
        coef = self.coef.clone()
        coef[:, ~self.shown, 1:] = 0.0
        rgb = self._decode(coef, step, deadzone).to(torch.uint8)
        img = rgb.view(3, self.hb, self.wb, 8, 8).permute(1, 3, 2, 4, 0).reshape(self.hb * 8, self.wb * 8, 3)
        return img[:self.H, :self.W].contiguous()


def _jpeg(img: Any, step: int, progressive: bool) -> bytes:
    """JPEG bytes with flat quantisation tables (4:4:4, optimised Huffman tables)."""
    chroma = max(1, min(255, round(step * _CHROMA)))
    buf = io.BytesIO()
    img.save(buf, "JPEG", qtables=[[step] * 64, [chroma] * 64], subsampling=0, optimize=True, progressive=progressive)
    return buf.getvalue()


def _search(model: _JpegModel, target: float) -> tuple[int, float, int]:
    """The coarsest step, then the widest dead zone at it, whose modelled PSNR over the used texels is >=
    ``target``: (step, dead zone, evaluations)."""
    cache: dict[tuple[int, float], float] = {}

    def psnr(step: int, dz: float) -> float:
        if (step, dz) not in cache:
            cache[(step, dz)] = model.psnr(step, dz)
        return cache[(step, dz)]

    # uniform quantisation of orthonormal DCT coefficients: mean squared error ~ step^2 / 12 per sample
    step = int(np.clip(np.rint(np.sqrt(12.0) * 255.0 / 10 ** (target / 20.0) * 1.03), 1, _MAX_STEP))
    while step > 1 and psnr(step, 0.0) < target:
        step -= 1
    while step < _MAX_STEP and psnr(step + 1, 0.0) >= target:
        step += 1
    if psnr(step, 0.0) < target:  # below the target even at step 1 (never for 8-bit images)
        return step, 0.0, len(cache)
    lo, hi = 0.0, _MAX_DEADZONE
    if psnr(step, hi) >= target:
        return step, hi, len(cache)
    # regula falsi on the PSNR (smooth, falling with the dead zone); lo always meets the target
    while hi - lo > _DEADZONE_TOL and len(cache) < 12:
        p_lo, p_hi = psnr(step, lo), psnr(step, hi)
        mid = lo + (hi - lo) * (p_lo - target) / max(p_lo - p_hi, 1e-9)
        mid = round(min(max(mid, lo + _DEADZONE_TOL / 2), hi - _DEADZONE_TOL / 2), 4)
        if psnr(step, mid) >= target:
            lo = mid
        else:
            hi = mid
    return step, lo, len(cache)


def encode_texture(rgb: torch.Tensor, used: torch.Tensor, fmt: str, min_psnr: float) -> tuple[bytes, str, TextureInfo]:
    """``rgb (H, W, 3) uint8`` (already filled; any device) -> (image bytes, MIME type, :class:`TextureInfo`).

    JPEG: :func:`_search` picks the step and dead zone on :class:`_JpegModel` (on ``rgb``'s device), with
    ``min_psnr`` plus a small margin as the target over ``used`` texels; the model's decoded image is encoded
    baseline and progressive (the smaller is kept) and decoded to check. Where the real decoder falls short
    of ``min_psnr`` (the model is optimistic where the encoder's clamped input does not quantise back to
    the model's coefficients: hard edges against black), the target is raised by the shortfall measured and
    the search runs again; after three tries, plain rounding at ever finer steps until the check passes.
    """
    from PIL import Image

    H, W = int(rgb.shape[0]), int(rgb.shape[1])
    if fmt == "png":
        buf = io.BytesIO()
        Image.fromarray(rgb.cpu().numpy(), "RGB").save(buf, "PNG", compress_level=6)
        data = buf.getvalue()
        return data, "image/png", TextureInfo("png", len(data), W, H, None, None, None)
    if fmt != "jpeg":
        raise SmrnbValueError(f"texture_format must be one of {', '.join(TEXTURE_FORMATS)}, got {fmt!r}")
    model = _JpegModel(rgb, used)
    target, evals, tries = min_psnr + _MARGIN, 0, 0

    def encode(step: int, dz: float, image: torch.Tensor) -> tuple[bytes, bool, torch.Tensor, float]:
        img = Image.fromarray(image.cpu().numpy(), "RGB")
        data, progressive = min(((_jpeg(img, step, False), False), (_jpeg(img, step, True), True)),
                                key=lambda c: len(c[0]))
        back = torch.from_numpy(np.array(Image.open(io.BytesIO(data)).convert("RGB"))).to(rgb.device)
        return data, progressive, back, _psnr(rgb, back, used)

    while True:
        step, dz, n = _search(model, target)
        evals, tries = evals + n, tries + 1
        data, progressive, back, got = encode(step, dz, model.decoded(step, dz))
        if got >= min_psnr or tries == 3:
            break
        target += model.psnr(step, dz) - got + _MARGIN
    while got < min_psnr and step > 1:  # never seen: the plain encoder's own rounding, finer and finer
        step, dz, tries = step - 1, 0.0, tries + 1
        data, progressive, back, got = encode(step, dz, rgb)
    return data, "image/jpeg", TextureInfo("jpeg", len(data), W, H, got, _psnr(rgb, back, None), step, tries, dz,
                                           progressive, evals, model.n_used / (H * W))


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
              texture: torch.Tensor | None, *, name: str = "smrnb", quantize: str = "positions",
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
        faces_t = torch.from_numpy(np.asarray(faces, dtype=np.int64).reshape(-1, 3)).to(tex.device)
        used = texel_footprint(torch.from_numpy(np.asarray(uv, dtype=np.float64)).to(tex.device), faces_t,
                               tex.shape[0], tex.shape[1])
        if not bool(used.any()):  # no triangle on the texture: every texel counts
            used = torch.ones_like(used)
        if texture_format == "jpeg" and not bool(used.all()):
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
           "read_glb", "texel_footprint", "write_glb"]
