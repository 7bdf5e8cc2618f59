# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Texture baking on the Redwood living-room frames: smrnb.bake_texture vs Open3D's
``project_images_to_albedo`` on the same mesh and UVs, measured in one run.

Protocol: fuse every frame except the held-out ones into a TSDF (smrnb), simplify to ~20k faces,
unwrap with smrnb.auto_uv; bake from TRAIN frames (11 by default, spread along the trajectory) with
both tools into a 1024^2 texture; render the textured mesh into each held-out view with the same
renderer (smrnb.geometry._texture.render_textured) and report PSNR against the real photograph over
pixels where the mesh is visible and agrees with the measured depth (within 3 cm).

Usage::

    python benchmarks/bench_texture.py [--data ../shared/data/redwood-livingroom1-clean-micro]
        [--train 11] [--held 6] [--res 1024] [--voxel 0.02]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

import smrnb
from smrnb.geometry._texture import bake_texture, render_textured


def psnr(a: torch.Tensor, b: torch.Tensor, mask: torch.Tensor) -> float:
    mse = float(((a - b) ** 2)[mask].mean())
    return 10 * np.log10(1.0 / mse)


def main() -> None:
    ap = argparse.ArgumentParser()
    repo = Path(__file__).resolve().parents[1]
    ap.add_argument("--data", default=str(repo.parent / "shared" / "data" / "redwood-livingroom1-clean-micro"))
    ap.add_argument("--train", type=int, default=11)
    ap.add_argument("--held", type=int, default=6)
    ap.add_argument("--res", type=int, default=1024)
    ap.add_argument("--voxel", type=float, default=0.02)
    ap.add_argument("--faces", type=int, default=20000)
    args = ap.parse_args()
    torch.set_num_threads(2)

    frames = smrnb.load_redwood(args.data)
    n = len(frames)
    train_idx = np.linspace(0, n - 1, args.train).round().astype(int).tolist()
    held_idx = [i for i in np.linspace(5, n - 6, args.held).round().astype(int).tolist() if i not in train_idx]
    fuse_idx = [i for i in range(n) if i not in held_idx]
    t = time.perf_counter()
    vol = smrnb.fuse_tsdf(frames.select(fuse_idx), voxel_size=args.voxel, progress=False)
    mesh = vol.extract_mesh()
    t_fuse = time.perf_counter() - t
    mesh = smrnb.simplify_mesh(mesh, target_number_of_vertices=args.faces // 2)
    uvs, fuv = smrnb.auto_uv(mesh.vertices, mesh.faces, resolution=args.res)
    mesh = mesh.replace(uvs=uvs, face_uvs_idx=fuv, vertex_colors=None)
    print(f"mesh: {mesh.num_vertices} vertices, {mesh.num_faces} faces (fusion {t_fuse:.1f} s); "
          f"train frames {train_idx}; held-out {held_idx}")
    train = frames.select(train_idx)

    t = time.perf_counter()
    ours = bake_texture(mesh, train, resolution=args.res)
    t_ours = time.perf_counter() - t

    results = {"smrnb": (ours.mesh, t_ours)}
    try:
        import open3d as o3d
    except ImportError as exc:  # benchmark reference only
        print(f"Open3D not available ({exc}); only smrnb measured")
    else:
        v = mesh.vertices.double().numpy()
        f = mesh.faces.numpy()
        tm = o3d.t.geometry.TriangleMesh()
        tm.vertex.positions = o3d.core.Tensor(v.astype(np.float32))
        tm.triangle.indices = o3d.core.Tensor(f.astype(np.int64))
        tri_uv = mesh.uvs[mesh.face_uvs_idx].numpy().astype(np.float32)  # (F, 3, 2)
        tm.triangle.texture_uvs = o3d.core.Tensor(tri_uv)
        imgs = [o3d.t.geometry.Image(o3d.core.Tensor(np.ascontiguousarray(train.color[i].numpy())))
                for i in range(len(train))]
        Ks = [o3d.core.Tensor(train.intrinsics(i).double().numpy()) for i in range(len(train))]
        Es = [o3d.core.Tensor(np.linalg.inv(train.poses[i].double().numpy())) for i in range(len(train))]
        t = time.perf_counter()
        albedo = tm.project_images_to_albedo(imgs, Ks, Es, tex_size=args.res, update_material=False)
        t_o3d = time.perf_counter() - t
        a = np.asarray(albedo.as_tensor().numpy(), dtype=np.float32)
        a = a[..., :3] / (255.0 if a.max() > 1.5 else 1.0)
        # Open3D's albedo image convention differs from glTF's; score every orientation and keep its best
        cands = {"as-is": a, "rows flipped": a[::-1].copy(), "columns flipped": a[:, ::-1].copy(),
                 "transposed": a.transpose(1, 0, 2).copy(), "transposed, rows flipped": a.transpose(1, 0, 2)[::-1].copy()}
        best = None
        for name, img in cands.items():
            m_o3d = mesh.replace(texture=torch.as_tensor(img))
            s = []
            for i in held_idx[:2]:
                r, hit = render_textured(m_o3d, frames.intrinsics(i), frames.poses[i], frames.height, frames.width)
                s.append(psnr(r, frames.color[i].float() / 255, hit))
            if best is None or np.mean(s) > best[0]:
                best = (np.mean(s), name, m_o3d)
        results[f"Open3D project_images_to_albedo ({best[1]})"] = (best[2], t_o3d)

    print(f"\n| method | bake time (s) | mean PSNR on {len(held_idx)} held-out views (dB) | per view |")
    print("| --- | --- | --- | --- |")
    for name, (m, secs) in results.items():
        vals = []
        for i in held_idx:
            r, hit = render_textured(m, frames.intrinsics(i), frames.poses[i], frames.height, frames.width)
            dr = smrnb.render_depth(m.replace(texture=None, uvs=None, face_uvs_idx=None), frames.intrinsics(i),
                                    frames.poses[i], frames.height, frames.width)
            md = frames.depth[i]
            ok = hit & (md > 0) & ((dr - md).abs() < 0.03)
            vals.append(psnr(r, frames.color[i].float() / 255, ok))
        print(f"| {name} | {secs:.2f} | {np.mean(vals):.2f} | {', '.join(f'{x:.1f}' for x in vals)} |")


if __name__ == "__main__":
    main()
