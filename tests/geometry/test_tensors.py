# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The one read of torch's private edit counter: fails when torch renames it or changes what it counts."""

from __future__ import annotations

import torch

from smrnb.geometry._tensors import edit_version


def test_edit_version_counts_in_place_edits_and_nothing_else():
    t = torch.zeros(4, 3)
    v0 = edit_version(t)
    assert isinstance(v0, int)
    _ = t + 1, t.clone(), t.sum(), t[1:].contiguous()  # reads and copies are not edits
    assert edit_version(t) == v0
    t.add_(1)
    assert edit_version(t) > v0
    v1 = edit_version(t)
    t[0, 0] = 5.0  # an indexed assignment is an in-place edit
    assert edit_version(t) > v1


def test_edit_version_sees_an_edit_through_a_view():
    base = torch.zeros(6, dtype=torch.int64)
    before = edit_version(base)
    view = base[2:4]
    view.fill_(7)
    assert edit_version(base) > before and edit_version(view) == edit_version(base)
    assert base.tolist() == [0, 0, 7, 7, 0, 0]


def test_fill_holes_treats_an_in_place_edit_as_a_new_mesh():
    """What smrnb uses it for: fill_holes on its own unchanged output is a no-op; after an in-place
    edit of the vertices it is not (the counter moved)."""
    import smrnb

    v = torch.tensor([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    f = torch.tensor([[0, 2, 1], [0, 1, 3], [0, 3, 2]])  # a tetrahedron without its 1-2-3 face
    once = smrnb.fill_holes(smrnb.Mesh(v, f))
    again = smrnb.fill_holes(once)
    assert again.meta["fill_holes"]["repeated"] and again.vertices is once.vertices
    once.vertices.mul_(2.0)
    assert not smrnb.fill_holes(once).meta["fill_holes"]["repeated"]
