# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The static fallback renderer: projection geometry and what lands on which pixel."""

from __future__ import annotations

import numpy as np
import pytest

from smrnb.widgets._framing import fit_camera_pose
from smrnb.widgets._layers import Layer
from smrnb.widgets._static import project, render_image

CAM = {"position": (0.0, 0.0, 5.0), "quaternion": (0.0, 0.0, 0.0, 1.0), "fov": 90.0}


def test_projection_of_a_camera_looking_down_minus_z():
    # fov 90: x_ndc = x / depth; a point at (1, 1, 0) seen from z = 5 lands at ndc (0.2 / aspect, 0.2)
    px, depth = project(np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 6.0]]), CAM, 200, 100)
    np.testing.assert_allclose(depth, [5.0, 5.0, -1.0])
    np.testing.assert_allclose(px[0], [100.0, 50.0])
    np.testing.assert_allclose(px[1], [(0.2 / 2 + 1) * 100, (1 - 0.2) * 50])


def test_a_square_facing_the_camera_covers_the_centre_and_not_the_corners():
    sq = Layer("mesh", np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], np.float32),
               faces=np.array([[0, 1, 2], [0, 2, 3]], np.uint32), color=(1.0, 0.0, 0.0),
               normals=np.tile(np.float32([0, 0, 1]), (4, 1)))
    img = render_image([sq], CAM, 100, 100, "#ffffff")
    assert img.shape == (100, 100, 3)
    r, g, b = (int(x) for x in img[50, 50])
    assert r == 255 and g == 0 and b == 0  # facing the light at the camera: full brightness
    assert (img[2, 2] == 255).all() and (img[97, 97] == 255).all()
    # the square spans ndc [-0.2, 0.2]: pixels 40..60
    red = (img[..., 1] == 0)
    ys, xs = np.nonzero(red)
    assert xs.min() == pytest.approx(40, abs=1) and xs.max() == pytest.approx(59, abs=1)


def test_points_nearest_wins_and_behind_the_camera_is_dropped():
    pts = Layer("points", np.array([[0, 0, 0], [0, 0, 1], [0, 0, 9]], np.float32),
                colors=np.array([[1, 0, 0], [0, 0, 1], [0, 1, 0]], np.float32), size=0.2)
    img = render_image([pts], CAM, 64, 64, "#000000")
    assert tuple(img[32, 32]) == (0, 0, 255)  # the blue point is nearer than the red one
    assert not (img[..., 1] > 0).any()  # the green point is behind the camera


def test_fit_camera_pose_frames_a_wide_box():
    box = np.array([[-10, -1, -1], [10, 1, 1]], np.float32)
    for aspect in (0.5, 2.0):
        pose = fit_camera_pose([box], fov=45.0, aspect=aspect)
        w, h = int(100 * aspect), 100
        px, depth = project(box, {**pose, "fov": 45.0}, w, h)
        assert (depth > pose["near"]).all()
        assert (px[:, 0] >= 0).all() and (px[:, 0] <= w).all()


def test_a_textured_square_shows_its_texture_not_one_colour_per_face():
    """The picture draws what the caption says (``texture W x H``): an 8 x 8 checkerboard on two triangles
    shows its 8 squares across, each texel where its uv is, shaded like the face."""
    check = ((np.add.outer(np.arange(8), np.arange(8)) % 2) * 255).astype(np.uint8)
    tex = np.dstack([check, check, check, np.full_like(check, 255)])
    sq = Layer("mesh", np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], np.float32),
               faces=np.array([[0, 1, 2], [0, 2, 3]], np.uint32),
               uvs=np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32), texture=tex)
    cam = {"position": (0.0, 0.0, 1.2), "quaternion": (0.0, 0.0, 0.0, 1.0), "fov": 90.0}
    img = render_image([sq], cam, 240, 240, "#ff0000").astype(int)
    row = img[120, 30:210, 0]  # across the square, through both triangles
    flips = int((np.abs(np.diff(row)) > 128).sum())
    assert flips == 7, flips  # 8 squares: 7 black/white edges (one colour per face would give 1 at most)
    # texel (0, 0) is at uv (0, 0): the bottom-left corner of the square (v up) is black, its right neighbour white
    y = 200
    assert img[y, 40, 0] < 30 and img[y, 40 + 240 // 10, 0] > 220
