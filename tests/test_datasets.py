# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Dataset readers (Redwood, TUM, 7-Scenes) on real and synthetic layouts, and the bundled sample."""

from __future__ import annotations

import filecmp
import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

import smrnb
from smrnb.datasets import load_7scenes, load_redwood, load_sample, load_tum, read_log, sample_path, write_log
from smrnb.geometry import Frames


def _png16(path: Path, a: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    im = Image.fromarray(a.astype(np.uint16))
    assert im.mode == "I;16"
    im.save(path)


def _rgb(path: Path, a: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(a.astype(np.uint8), "RGB").save(path)


def test_public_names():
    assert smrnb.load_redwood is load_redwood and smrnb.load_tum is load_tum
    assert smrnb.load_7scenes is load_7scenes and smrnb.load_sample is load_sample


# ------------------------------------------------------------------------------------------- Redwood

@pytest.mark.shared_data
def test_redwood_rgbd5(shared_data):
    root = shared_data / "redwood-livingroom1-rgbd5"
    fr = load_redwood(root)
    assert isinstance(fr, Frames) and len(fr) == 5 and (fr.height, fr.width) == (480, 640)
    assert fr.depth.dtype == torch.float32 and fr.color.dtype == torch.uint8 and fr.poses.dtype == torch.float32
    raw = np.asarray(Image.open(root / "depth" / "00003.png"))
    assert np.array_equal(fr.depth[3].numpy(), raw.astype(np.float32) / np.float32(1000))
    assert 0.10 < float((fr.depth == 0).float().mean()) < 0.16  # README: ~13 % holes
    assert fr.K.tolist() == [[525.0, 0.0, 319.5], [0.0, 525.0, 239.5], [0.0, 0.0, 1.0]]
    assert fr.meta["trajectory"].endswith("trajectory.log") and fr.meta["pose_pairing"] == "by frame id"
    assert fr.names == ["00000", "00001", "00002", "00003", "00004"]
    assert abs(float(fr.poses[0, 0, 0]) - (-0.2739592186924325)) < 1e-6
    odo = load_redwood(root, trajectory="odometry.log", color=False)
    assert odo.color is None and odo.poses[0, :3, 3].tolist() == pytest.approx([2.0, 2.0, -0.3])


@pytest.mark.shared_data
def test_redwood_micro_selection(redwood_micro):
    fr = load_redwood(redwood_micro, frames=[10, 20, 30, 40, 50], stride=2, max_frames=2)
    assert fr.names == ["00010", "00030"] and fr.meta["indices"] == [10, 30] and fr.meta["num_available"] == 211
    metas, mats = read_log(redwood_micro / "trajectory_open3d_estimated.log")
    assert len(mats) == 211 and metas[30] == (30, 30, 31)
    assert torch.equal(fr.poses[1], torch.from_numpy(mats[30]).float())
    fr = load_redwood(redwood_micro, stride=100, color=False)
    assert fr.names == ["00000", "00100", "00200"]


def _redwood_layout(tmp_path: Path, n=3, H=6, W=8) -> Path:
    root = tmp_path / "rw"
    for i in range(n):
        _png16(root / "depth" / f"{i:05d}.png", np.full((H, W), 1000 + i, np.uint16))
        _rgb(root / "color" / f"{i:05d}.png", np.full((H, W, 3), 10 * i, np.uint8))
    poses = np.tile(np.eye(4), (n, 1, 1))
    poses[:, 0, 3] = np.arange(n)
    write_log(root / "trajectory.log", poses)
    return root


def test_redwood_synthetic_layout_and_default_intrinsics(tmp_path):
    root = _redwood_layout(tmp_path, H=480, W=640)
    fr = load_redwood(root)
    assert fr.meta["intrinsics_source"].startswith("default PrimeSense 525/525/319.5/239.5")
    assert fr.depth[2, 0, 0].item() == pytest.approx(1.002) and fr.color[1, 0, 0].tolist() == [10, 10, 10]
    assert fr.poses[:, 0, 3].tolist() == [0.0, 1.0, 2.0] and fr.meta["frame"] == "opencv"
    # intrinsics JSON is column-major: K[0, 2] is element 6
    (root / "camera_primesense.json").write_text(json.dumps(
        {"width": 640, "height": 480, "intrinsic_matrix": [500, 0, 0, 0, 510, 0, 300, 200, 1]}))
    assert load_redwood(root).K.tolist() == [[500, 0, 300], [0, 510, 200], [0, 0, 1]]


def test_redwood_errors(tmp_path):
    with pytest.raises(smrnb.SmrnbValueError, match=r"load_redwood: path '.*nowhere' does not exist"):
        load_redwood(tmp_path / "nowhere")
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(smrnb.SmrnbValueError, match="load_redwood: path '.*f.txt' is not a folder"):
        load_redwood(tmp_path / "f.txt")
    with pytest.raises(smrnb.SmrnbTypeError, match="load_redwood: path must be a str or os.PathLike folder, got int"):
        load_redwood(3)
    with pytest.raises(smrnb.SmrnbValueError, match=r"load_redwood: no depth/ folder in '.*'"):
        load_redwood(tmp_path)
    root = _redwood_layout(tmp_path)
    shutil.rmtree(root / "color")
    with pytest.raises(smrnb.SmrnbValueError, match=r"no image/ or color/ folder in '.*rw' \(pass color=False"):
        load_redwood(root)
    assert load_redwood(root, color=False, intrinsics=(5, 5, 3.5, 2.5)).color is None
    _rgb(root / "image" / "00000.png", np.zeros((6, 8, 3)))
    with pytest.raises(smrnb.SmrnbValueError, match=r"no color image in '.*image' for 2 depth image\(s\), e.g. "
                                                   "'00001.png'"):
        load_redwood(root)
    for i in (1, 2):
        _rgb(root / "image" / f"{i:05d}.png", np.zeros((5, 8, 3)))
    with pytest.raises(smrnb.SmrnbValueError, match=r"color image '.*00001.png' is 8x5, expected 8x6"):
        load_redwood(root, intrinsics=(5, 5, 3.5, 2.5))
    with pytest.raises(smrnb.SmrnbValueError, match=r"intrinsics \(cx, cy\) = \(319.5, 239.5\) do not fit the 8x6 "
                                                   "images"):
        load_redwood(root, color=False)
    with pytest.raises(smrnb.SmrnbValueError, match=r"load_redwood: frames must be in \[0, 2\] \(the sequence has 3 "
                                                   r"frames\), got 7"):
        load_redwood(root, frames=[7], color=False)
    with pytest.raises(smrnb.SmrnbValueError, match="load_redwood: stride must be an int >= 1, got 0"):
        load_redwood(root, stride=0)
    with pytest.raises(smrnb.SmrnbValueError, match="load_redwood: max_frames must be an int >= 1 or None, got 0"):
        load_redwood(root, max_frames=0)
    (root / "other.log").write_text((root / "trajectory.log").read_text())
    (root / "trajectory.log").rename(root / "traj_a.log")
    with pytest.raises(smrnb.SmrnbValueError, match=r"several .log trajectories in '.*' \(other.log, traj_a.log\); "
                                                   "choose one with trajectory="):
        load_redwood(root, color=False, intrinsics=(5, 5, 3.5, 2.5))
    (root / "other.log").write_text("0 0 1\n1 0 0 0\n0 1 0 0\n0 0 1\n0 0 0 1\n")
    with pytest.raises(smrnb.SmrnbValueError, match=r"trajectory '.*other.log' line 4: expected 4 numbers"):
        load_redwood(root, trajectory="other.log", color=False, intrinsics=(5, 5, 3.5, 2.5))
    write_log(root / "other.log", np.tile(np.eye(4), (2, 1, 1)), ids=[100, 101])
    with pytest.raises(smrnb.SmrnbValueError, match=r"trajectory '.*other.log' has 2 poses for 3 frames"):
        load_redwood(root, trajectory="other.log", color=False, intrinsics=(5, 5, 3.5, 2.5))
    (root / "depth" / "00000.png").unlink()
    Image.fromarray(np.zeros((6, 8), np.uint8)).save(root / "depth" / "00000.png")
    with pytest.raises(smrnb.SmrnbValueError, match=r"depth image '.*00000.png' must be a 16-bit single-channel PNG, "
                                                   "got PIL mode 'L'"):
        load_redwood(root, trajectory="traj_a.log", color=False, intrinsics=(5, 5, 3.5, 2.5))


# ------------------------------------------------------------------------------------ bundled sample

def test_sample_contents_and_budget():
    root = sample_path()
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    assert size <= 8_000_000
    ids = list(range(0, 211, 3))
    assert sorted(p.name for p in (root / "depth").iterdir()) == [f"{i:05d}.png" for i in ids]
    assert sorted(p.name for p in (root / "image").iterdir()) == [f"{i:05d}.jpg" for i in ids]
    metas, mats = read_log(root / "trajectory.log")
    assert [m[0] for m in metas] == ids
    lic = (root / "LICENSE.md").read_text()
    assert "CC BY 3.0" in lic and "Handa" in lic and "Choi" in lic and "Open3D" in lic
    readme = (root / "README.md").read_text()
    assert "fbbe2e5fc2ee836e65d7bd864d8a32679eef7be5" in readme and "every 3rd frame" in readme


def test_load_sample_frames():
    fr = load_sample(stride=10)
    assert len(fr) == 8 and fr.names[:3] == ["00000", "00030", "00060"] and fr.meta["pose_pairing"] == "by frame id"
    assert fr.K.tolist() == [[525.0, 0.0, 319.5], [0.0, 525.0, 239.5], [0.0, 0.0, 1.0]]
    assert torch.equal(fr.poses[0], torch.eye(4))  # first Open3D pose is the identity
    assert fr.depth.dtype == torch.float32 and float(fr.depth.max()) < 10.0  # millimetres -> metres
    assert 0.0 < float((fr.depth == 0).float().mean()) < 0.08  # README: clean depth, <= 7 % holes
    # frames spread over the whole trajectory: sampled centres span what the full trajectory spans
    _, mats = read_log(sample_path() / "trajectory.log")
    c = mats[:, :3, 3]
    assert np.linalg.norm(c.max(0) - c.min(0)) > 1.0


@pytest.mark.shared_data
def test_sample_is_a_byte_for_byte_subset(redwood_micro):
    root = sample_path()
    for sub in ("image", "depth"):
        for p in (root / sub).iterdir():
            assert filecmp.cmp(p, redwood_micro / sub / p.name, shallow=False), p
    metas, mats = read_log(root / "trajectory.log")
    src_metas, src_mats = read_log(redwood_micro / "trajectory_open3d_estimated.log")
    ids = [m[0] for m in metas]
    assert np.array_equal(mats, src_mats[ids]) and metas == [src_metas[i] for i in ids]
    s_c, f_c = mats[:, :3, 3], src_mats[:, :3, 3]
    assert np.allclose(s_c.max(0), f_c.max(0), atol=0.1) and np.allclose(s_c.min(0), f_c.min(0), atol=0.1)


# ----------------------------------------------------------------------------------------------- TUM

def _quat_xyzw(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.r_[axis * math.sin(angle / 2), math.cos(angle / 2)]


def _tum_layout(tmp_path: Path, H=480, W=640) -> tuple[Path, dict]:
    root = tmp_path / "rgbd_dataset_freiburg1_xyz"
    d_ts = [1.000, 1.033, 1.066, 1.100]
    c_ts = [1.005, 1.030, 1.090, 1.101]  # 1.066 has no color within 0.02 s (nearest 1.090 is 0.024 away)
    g_ts = np.arange(0.99, 1.08, 0.01)  # ground truth stops before 1.100
    depth_lines, rgb_lines = ["# depth maps", "# timestamp filename"], ["# color images"]
    for k, t in enumerate(d_ts):
        _png16(root / "depth" / f"{t:.6f}.png", np.full((H, W), 5000 * (k + 1), np.uint16))
        depth_lines.append(f"{t:.6f} depth/{t:.6f}.png")
    for k, t in enumerate(c_ts):
        _rgb(root / "rgb" / f"{t:.6f}.png", np.full((H, W, 3), 50 * k, np.uint8))
        rgb_lines.append(f"{t:.6f} rgb/{t:.6f}.png")
    (root / "depth.txt").write_text("\n".join(depth_lines) + "\n")
    (root / "rgb.txt").write_text("\n".join(rgb_lines) + "\n")
    gt = ["# ground truth trajectory", "# timestamp tx ty tz qx qy qz qw"]
    quats = {}
    for k, t in enumerate(g_ts):
        q = _quat_xyzw([0.3, 1.0, -0.2], 0.1 * k)
        quats[round(t, 2)] = (np.array([k * 0.1, 1.0, -2.0]), q)
        gt.append(f"{t:.4f} {k * 0.1:.4f} 1.0000 -2.0000 " + " ".join(f"{v:.9f}" for v in q))
    (root / "groundtruth.txt").write_text("\n".join(gt) + "\n")
    return root, quats


def test_tum_synthetic_associations_and_quaternions(tmp_path):
    from scipy.spatial.transform import Rotation

    root, quats = _tum_layout(tmp_path)
    fr = load_tum(root)
    # depth 1.066 has no color within 0.02 s; depth 1.100 has no pose within 0.02 s
    assert fr.names == ["1.000000", "1.033000"]
    assert fr.meta["dropped_no_color"] == 1 and fr.meta["dropped_no_pose"] == 1
    assert fr.depth[0, 0, 0].item() == 1.0 and fr.depth[1, 0, 0].item() == 2.0  # raw / 5000
    assert fr.color[0, 0, 0, 0].item() == 0 and fr.color[1, 0, 0, 0].item() == 50  # 1.033 pairs with 1.030
    assert fr.K[0, 0].item() == pytest.approx(517.3)  # freiburg1 from the folder name
    for i, t in enumerate((1.00, 1.03)):
        tr, q = quats[t]
        T = np.eye(4)
        T[:3, :3] = Rotation.from_quat(q).as_matrix()  # scipy's order is also x, y, z, w
        T[:3, 3] = tr
        assert np.allclose(fr.poses[i].numpy(), T, atol=1e-6)
    fr = load_tum(root, poses=False, color=False, intrinsics=(525, 525, 319.5, 239.5), max_frames=3)
    assert fr.poses is None and fr.color is None and len(fr) == 3 and fr.K[0, 2].item() == 319.5


def test_tum_errors(tmp_path):
    root, _ = _tum_layout(tmp_path, H=8, W=10)
    (root / "groundtruth.txt").rename(root / "gt.txt")
    with pytest.raises(smrnb.SmrnbValueError, match=r"load_tum: ground truth '.*groundtruth.txt' is missing"):
        load_tum(root)
    (root / "gt.txt").rename(root / "groundtruth.txt")
    with pytest.raises(smrnb.SmrnbValueError, match=r"load_tum: intrinsics \(cx, cy\) = \(318.6, 255.3\) do not fit "
                                                   "the 10x8 images"):
        load_tum(root)
    (root / "depth.txt").write_text("1.0 depth/x.png extra\n")
    with pytest.raises(smrnb.SmrnbValueError, match=r"depth.txt' line 1: expected 2 columns, got 3"):
        load_tum(root)
    (root / "depth.txt").write_text("5.0 depth/x.png\n")
    with pytest.raises(smrnb.SmrnbValueError, match="no depth image in .* has a color image within max_dt=0.02 s"):
        load_tum(root)
    with pytest.raises(smrnb.SmrnbValueError, match=r"load_tum: image '.*x.png' listed in .* does not exist"):
        load_tum(root, color=False, poses=False, intrinsics=(5, 5, 4.5, 3.5))


@pytest.mark.shared_data
def test_tum_real_frame(shared_data, tmp_path):
    src = shared_data / "redwood-livingroom1-rgbd5" / "tum_single_frame"
    root = tmp_path / "tum"
    (root / "rgb").mkdir(parents=True)
    (root / "depth").mkdir()
    shutil.copyfile(src / "TUM_color.png", root / "rgb" / "1.000000.png")
    shutil.copyfile(src / "TUM_depth.png", root / "depth" / "1.000000.png")
    (root / "rgb.txt").write_text("1.000000 rgb/1.000000.png\n")
    (root / "depth.txt").write_text("1.000000 depth/1.000000.png\n")
    fr = load_tum(root, poses=False)
    raw = np.asarray(Image.open(src / "TUM_depth.png"))
    assert np.array_equal(fr.depth[0].numpy(), raw.astype(np.float32) / np.float32(5000))
    valid = fr.depth[0][fr.depth[0] > 0]
    assert 0.3 < float(valid.median()) < 6.0  # a Kinect room scene in metres (x1000 would be 5x too deep)
    assert 0.15 < float((fr.depth == 0).float().mean()) < 0.23  # README: ~19 % zeros
    pc = smrnb.depth_to_points(fr.depth[0], fr.K, color=fr.color[0])
    from smrnb.geometry import check_points

    assert check_points(pc).ok


# ------------------------------------------------------------------------------------------ 7-Scenes

def _seven_layout(tmp_path: Path, n=4, H=480, W=640, ext=".color.png") -> Path:
    root = tmp_path / "chess" / "seq-01"
    for i in range(n):
        d = np.full((H, W), 1500, np.uint16)
        d[0, :10] = 65535
        d[1, :5] = 0
        _png16(root / f"frame-{i:06d}.depth.png", d)
        _rgb(root / f"frame-{i:06d}{ext}", np.full((H, W, 3), i, np.uint8))
        T = np.eye(4)
        T[:3, 3] = [i, 0, 0]
        np.savetxt(root / f"frame-{i:06d}.pose.txt", T)
    return root


def test_7scenes_synthetic(tmp_path):
    root = _seven_layout(tmp_path)
    fr = load_7scenes(root)
    assert len(fr) == 4 and fr.names[0] == "frame-000000" and fr.K.tolist() == [[585, 0, 320], [0, 585, 240], [0, 0, 1]]
    assert float((fr.depth[0, 0, :10] == 0).all()) and fr.depth[0, 5, 5].item() == 1.5  # 65535 -> 0, mm -> m
    assert int((fr.depth[0] == 0).sum()) == 15
    assert fr.poses[:, 0, 3].tolist() == [0.0, 1.0, 2.0, 3.0]
    pc = smrnb.depth_to_points(fr.depth[0], fr.K)
    assert len(pc) == 480 * 640 - 15
    np.savetxt(root / "camera-intrinsics.txt", np.array([[500, 0, 300], [0, 500, 200], [0, 0, 1.0]]))
    np.savetxt(root / "frame-000002.pose.txt", np.full((4, 4), np.inf))
    fr = load_7scenes(root, stride=2)
    assert fr.meta["dropped_bad_pose"] == ["frame-000002"] and fr.names == ["frame-000000", "frame-000003"]
    assert fr.K[0, 0].item() == 500 and fr.meta["intrinsics_source"] == "camera-intrinsics.txt"


def test_7scenes_jpg_and_errors(tmp_path):
    root = _seven_layout(tmp_path, n=2, H=6, W=8, ext=".color.jpg")
    fr = load_7scenes(root, intrinsics=(5, 5, 3.5, 2.5))
    assert fr.color.shape == (2, 6, 8, 3)
    with pytest.raises(smrnb.SmrnbValueError, match=r"no frame-XXXXXX.depth.png files in '.*chess'; pass one sequence "
                                                   r"folder, e.g. '.*seq-01'"):
        load_7scenes(root.parent)
    (root / "frame-000001.pose.txt").unlink()
    with pytest.raises(smrnb.SmrnbValueError, match=r"1 pose file\(s\) missing in .* e.g. 'frame-000001.pose.txt'"):
        load_7scenes(root)
    (root / "frame-000001.pose.txt").write_text("1 0 0\n0 1 0\n")
    with pytest.raises(smrnb.SmrnbValueError, match=r"pose '.*frame-000001.pose.txt' must hold a 4x4 matrix, got "
                                                   r"shape \(2, 3\)"):
        load_7scenes(root)


# ------------------------------------------------- a bad pose names its file line (validation where data enters)

def _plant(path: Path, line: int, text: str) -> None:
    """Replace 1-based ``line`` of a text file."""
    lines = path.read_text().splitlines()
    lines[line - 1] = text
    path.write_text("\n".join(lines) + "\n")


def test_redwood_bad_pose_names_the_trajectory_line(tmp_path):
    from smrnb.datasets import iter_redwood

    root = _redwood_layout(tmp_path, n=4)
    log = root / "trajectory.log"
    good = log.read_text()
    kw = {"intrinsics": (5, 5, 3.5, 2.5)}
    # write_log: pose k is the 5 lines 5k+1 (metadata) .. 5k+5 (its last matrix row)
    _plant(log, 15, "1 2 3 4")  # last row of pose 2
    msg = r"poses must be rigid camera-to-world transforms: last row must be \[0, 0, 0, 1\], got \[1.0, 2.0, 3.0, 4.0\] \(frame 2, .*trajectory.log line 15, frame id 2, " \
          r"pose of depth/00002.png\)"
    with pytest.raises(smrnb.SmrnbValueError, match="load_redwood: " + msg):
        load_redwood(root, **kw)
    # the stream checks every selected pose when it is made, before the first batch is read
    with pytest.raises(smrnb.SmrnbValueError, match="iter_redwood: " + msg):
        iter_redwood(root, batch_size=1, **kw)
    # positions of the selection: frame 1 of frames=[0, 2]
    with pytest.raises(smrnb.SmrnbValueError, match=r"\(frame 1, .*trajectory.log line 15, frame id 2,"):
        load_redwood(root, frames=[0, 2], **kw)
    assert len(load_redwood(root, frames=[0, 1, 3], **kw)) == 3  # only the selected poses are judged
    log.write_text(good)
    _plant(log, 8, "0 3 0 0")  # second row of pose 1 scaled by 3: the rotation rows are named
    with pytest.raises(smrnb.SmrnbValueError, match=r"not orthonormal.*\(frame 1, .*trajectory.log lines 7-9, frame id 1"):
        load_redwood(root, **kw)
    log.write_text(good)
    _plant(log, 3, "0 nan 1 0")  # the NaN's row of pose 0
    with pytest.raises(smrnb.SmrnbValueError, match=r"finite.*\(frame 0, .*trajectory.log line 3, frame id 0"):
        load_redwood(root, **kw)
    # poses paired in order (the ids do not name the files): the line is still the pose's own
    write_log(log, np.tile(np.eye(4), (4, 1, 1)), ids=[10, 11, 12, 13])
    _plant(log, 20, "0 0 1 1")
    with pytest.raises(smrnb.SmrnbValueError, match=r"\(frame 3, .*trajectory.log line 20, frame id 13, pose of "
                                                   r"depth/00003.png\)"):
        load_redwood(root, **kw)


def test_redwood_bad_intrinsics_json_names_the_file(tmp_path):
    root = _redwood_layout(tmp_path)
    (root / "camera_primesense.json").write_text('{"intrinsic_matrix": [NaN, 0, 0, 0, 5, 0, 3.5, 2.5, 1]}')
    with pytest.raises(smrnb.SmrnbValueError, match=r"K must be finite, got 1 NaN/inf value\(s\).*camera_primesense.json, "
                                                   "'intrinsic_matrix'"):
        load_redwood(root)
    (root / "camera_primesense.json").write_text('{"intrinsic_matrix": [-5, 0, 0, 0, 5, 0, 3.5, 2.5, 1]}')
    with pytest.raises(smrnb.SmrnbValueError, match=r"positive focal lengths.*camera_primesense.json"):
        load_redwood(root)


def test_tum_bad_pose_names_the_ground_truth_line(tmp_path):
    root, _ = _tum_layout(tmp_path, H=8, W=10)
    gt = root / "groundtruth.txt"
    lines = gt.read_text().splitlines()
    # ground truth 1.0300 (line 2 comments + 5th pose = line 7) pairs with depth 1.033
    t, x, y, z = lines[6].split()[:4]
    _plant(gt, 7, f"{t} {x} {y} {z} 0 0 0 0")
    kw = {"intrinsics": (5, 5, 4.5, 3.5)}
    with pytest.raises(smrnb.SmrnbValueError, match=r"load_tum: poses must be rigid.*finite.*\(frame 1, .*groundtruth.txt "
                                                   r"line 7, ground truth at 1.030000 for depth at 1.033000: qx qy qz qw"
                                                   r" = 0 0 0 0, a zero quaternion\)"):
        load_tum(root, **kw)
    assert len(load_tum(root, frames=[0], **kw)) == 1  # frame 0 (ground truth 1.00, line 3) is fine
    _plant(gt, 7, f"{t} nan {y} {z} 0 0 0 1")
    with pytest.raises(smrnb.SmrnbValueError, match=r"finite.*\(frame 1, .*groundtruth.txt line 7, ground truth at "
                                                   r"1.030000.*= 0 0 0 1\)"):
        load_tum(root, **kw)
    _plant(gt, 7, f"{t} one {y} {z} 0 0 0 1")
    with pytest.raises(smrnb.SmrnbValueError, match=r"ground truth '.*groundtruth.txt' line 7 must hold 7 numbers"):
        load_tum(root, **kw)


def test_7scenes_bad_pose_names_the_pose_file_line(tmp_path):
    root = _seven_layout(tmp_path, n=3, H=6, W=8)
    kw = {"intrinsics": (5, 5, 3.5, 2.5)}
    pose = root / "frame-000001.pose.txt"
    T = np.eye(4)
    T[3] = [1, 2, 3, 4]
    pose.write_text("# camera-to-world\n\n" + "\n".join(" ".join(f"{v:g}" for v in r) for r in T) + "\n")
    with pytest.raises(smrnb.SmrnbValueError, match=r"load_7scenes: .*last row must be \[0, 0, 0, 1\].*\(frame 1, "
                                                   r".*frame-000001.pose.txt line 6\)"):
        load_7scenes(root, **kw)
    np.savetxt(pose, np.diag([2.0, 2.0, 2.0, 1.0]))
    with pytest.raises(smrnb.SmrnbValueError, match=r"not orthonormal.*\(frame 1, .*frame-000001.pose.txt lines 1-3\)"):
        load_7scenes(root, **kw)
    assert load_7scenes(root, frames=[0, 2], **kw).names == ["frame-000000", "frame-000002"]
    pose.write_text("1 0 0 0\n0 1 0 0\n0 0 1 x\n0 0 0 1\n")
    with pytest.raises(smrnb.SmrnbValueError, match=r"pose '.*frame-000001.pose.txt' line 3: expected numbers"):
        load_7scenes(root, **kw)


def test_write_log_on_a_full_disk_keeps_the_old_file_and_checks_poses(tmp_path):
    from tests._fsize import SMRNB_ERROR_EXITS_3, run_with_file_size_limit

    old = tmp_path / "trajectory.log"
    old.write_text("0 0 1\n")
    code = ("import sys, numpy as np, smrnb, smrnb.datasets\ntry:\n"
            "    smrnb.datasets.write_log(sys.argv[1], np.tile(np.eye(4), (50, 1, 1)))\n" + SMRNB_ERROR_EXITS_3)
    r = run_with_file_size_limit(code, str(old), limit=500)
    assert r.returncode == 3 and "unchanged" in r.stdout, (r.stdout, r.stderr[-1500:])
    assert old.read_text() == "0 0 1\n" and [p.name for p in tmp_path.iterdir()] == ["trajectory.log"]
    with pytest.raises(smrnb.SmrnbValueError, match=r"poses must have shape \(P, 4, 4\)"):
        write_log(tmp_path / "x.log", np.eye(4))
    with pytest.raises(smrnb.SmrnbValueError, match="poses must be finite"):
        write_log(tmp_path / "x.log", np.full((1, 4, 4), np.nan))
    with pytest.raises(smrnb.SmrnbValueError, match="one id per pose"):
        write_log(tmp_path / "x.log", np.tile(np.eye(4), (2, 1, 1)), ids=[1])
    assert not (tmp_path / "x.log").exists()


# ---------------------------------------------------------------------- files as they come in

TINY_K = (50.0, 50.0, 31.5, 23.5)


def _tiny_redwood(root: Path, n: int = 2) -> Path:
    for i in range(n):
        _png16(root / "depth" / f"{i:05d}.png", np.full((48, 64), 1500))
        _rgb(root / "image" / f"{i:05d}.jpg", np.full((48, 64, 3), 90))
    return root


def test_intrinsic_json_refuses_what_is_not_9_numbers(tmp_path):
    from smrnb.datasets import read_intrinsic_json

    p = tmp_path / "camera.json"
    cases = {
        "": r"is empty \(0 bytes\)",
        "[" * 100_000 + "]" * 100_000: "nested too deeply",
        '{"intrinsic_matrix": [true, 0, 0, 0, true, 0, "319.5", "239.5", 1]}': r"\[0\] must be a number, got bool True",
        '{"intrinsic_matrix": [525, 0, 0, 0, 525, 0, "319.5", 239.5, 1]}': r"\[6\] must be a number, got str",
        '{"intrinsic_matrix": [1, 2, 3]}': "must have 9 numbers, got a list of 3",
        '{"width": 640}': "must be a JSON object with 'intrinsic_matrix'",
        "{not json": "is not valid JSON",
        '{"intrinsic_matrix": [525, 0, 0, 0, 525, 0, 319.5, 239.5, 1], "width": 640.5, "height": 480}':
            "'width' must be a whole number of pixels",
        '{"intrinsic_matrix": [1e400, 0, 0, 0, 525, 0, 319.5, 239.5, 1]}': "must be finite",
    }
    for text, match in cases.items():
        p.write_text(text)
        with pytest.raises(smrnb.SmrnbValueError, match=match):
            read_intrinsic_json(p)
    p.write_text('{"intrinsic_matrix": [525, 0, 0, 0, 525, 0, 319.5, 239.5, 1], "width": 640, "height": 480}')
    K, size = read_intrinsic_json(p)
    assert K[0, 2] == 319.5 and size == (640, 480)


def test_a_decompression_bomb_is_refused_from_its_header(tmp_path):
    import struct
    import zlib

    root = _tiny_redwood(tmp_path / "scan")

    def chunk(t: bytes, d: bytes) -> bytes:
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    for w, h in ((40_000, 40_000), (10_000, 10_000)):  # over PIL's own limit, and under it but over a frame's
        ihdr = struct.pack(">IIBBBBB", w, h, 16, 0, 0, 0, 0)
        (root / "depth" / "00001.png").write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 9))
                                                   + chunk(b"IEND", b""))
        with pytest.raises(smrnb.SmrnbValueError, match=r"00001\.png.*(too large|pixels)"):
            load_redwood(root, intrinsics=TINY_K)


def test_color_images_exif_orientation_is_applied_and_depth_in_the_color_folder_refused(tmp_path):
    root = _tiny_redwood(tmp_path / "scan")
    upright = np.zeros((48, 64, 3), np.uint8)
    upright[:, :32] = (250, 10, 10)  # red left half, as a viewer shows it
    stored = Image.fromarray(upright).transpose(Image.Transpose.ROTATE_90)  # the rows as a phone stores them
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    stored.save(root / "image" / "00000.jpg", exif=exif.tobytes(), quality=95)
    fr = load_redwood(root, intrinsics=TINY_K)
    assert tuple(fr.color.shape[1:3]) == (48, 64)
    c = fr.color[0].numpy().astype(int)
    assert c[:, :28, 0].mean() > 200 and c[:, 36:, 0].mean() < 50
    (root / "image" / "00001.jpg").unlink()
    _png16(root / "image" / "00001.png", np.full((48, 64), 1500))
    with pytest.raises(smrnb.SmrnbValueError, match=r"00001\.png.* is a single-channel .*depth image in the color folder"):
        load_redwood(root, intrinsics=TINY_K)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="drops to an unprivileged user (needs root)")
def test_unreadable_folders_are_named_as_permission_problems(tmp_path):
    root = _tiny_redwood(tmp_path / "scan")
    load_redwood(root, intrinsics=TINY_K)  # modules imported while readable
    os.chmod(tmp_path, 0o755)
    results = {}
    for target in (root, root / "depth"):
        os.chmod(target, 0o000)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.setgid(65534)
            os.setuid(65534)
            try:
                load_redwood(root, intrinsics=TINY_K)
                msg = "no error"
            except Exception as exc:
                msg = f"{type(exc).__name__}: {exc}"
            os.write(w, msg.encode())
            os._exit(0)
        os.close(w)
        os.waitpid(pid, 0)
        results[target.name] = os.read(r, 4000).decode()
        os.close(r)
        os.chmod(target, 0o755)
    for name, msg in results.items():
        assert msg.startswith("SmrnbValueError") and "permission denied" in msg and "not exist" not in msg, (name, msg)


def _tum_one_frame(root: Path, gt_line: str) -> Path:
    _png16(root / "depth" / "1.0.png", np.full((48, 64), 5000))
    _rgb(root / "rgb" / "1.0.png", np.full((48, 64, 3), 90))
    (root / "depth.txt").write_text("1.0 depth/1.0.png\n")
    (root / "rgb.txt").write_text("1.0 rgb/1.0.png\n")
    (root / "groundtruth.txt").write_text(gt_line + "\n")
    return root


def test_numbers_that_overflow_are_named_not_called_nan(tmp_path):
    # a quaternion whose norm overflows a float64 is still a rotation (180 degrees about x + y), not the identity
    fr = load_tum(_tum_one_frame(tmp_path / "q", "1.0 0 0 0 1e200 1e200 0 0"), intrinsics=TINY_K)
    R = fr.poses[0, :3, :3].double()
    assert torch.allclose(R, torch.tensor([[0.0, 1, 0], [1, 0, 0], [0, 0, -1]], dtype=torch.float64), atol=1e-6)
    with pytest.raises(smrnb.SmrnbValueError, match=r"groundtruth.txt' line 1: 1e400 is too large for a 64-bit float"):
        load_tum(_tum_one_frame(tmp_path / "t", "1.0 1e400 0 0 0 0 0 1"), intrinsics=TINY_K)
    with pytest.raises(smrnb.SmrnbValueError, match=r"pose value 1e\+39 \(.*groundtruth.txt line 1.*float32 range"):
        load_tum(_tum_one_frame(tmp_path / "b", "1.0 1e39 0 0 0 0 0 1"), intrinsics=TINY_K)
    root = _tiny_redwood(tmp_path / "rw")
    eye = "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"
    (root / "trajectory.log").write_text("0 0 1\n1 0 0 1e400\n0 1 0 0\n0 0 1 0\n0 0 0 1\n1 1 2\n" + eye)
    with pytest.raises(smrnb.SmrnbValueError, match=r"trajectory.log' line 2: 1e400 is too large"):
        load_redwood(root, intrinsics=TINY_K)


def test_duplicate_trajectory_ids_and_boolean_intrinsics_are_refused(tmp_path):
    root = _tiny_redwood(tmp_path / "rw")
    eye = "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"
    (root / "trajectory.log").write_text("0 0 1\n" + eye + "0 0 1\n" + eye + "1 1 2\n" + eye)
    with pytest.raises(smrnb.SmrnbValueError, match=r"gives frame id 0 twice \(lines 1 and 6\)"):
        load_redwood(root, intrinsics=TINY_K)
    (root / "trajectory.log").write_text("0 0 1\n" + eye + "0 0 1\n" + eye)  # one id everywhere: in frame order
    assert load_redwood(root, intrinsics=TINY_K).meta["pose_pairing"] == "in order"
    for bad in ((True, True, 31.5, 23.5), np.eye(3, dtype=bool), ("50", 50, 31.5, 23.5)):
        with pytest.raises(smrnb.SmrnbTypeError, match="intrinsics must be numbers"):
            load_redwood(root, intrinsics=bad)
