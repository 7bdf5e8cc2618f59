# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The dependency audit (tests/_depaudit.py) knows what the project declares and names what it does not."""

from __future__ import annotations

from pathlib import Path

from _depaudit import declared_distributions, undeclared

REPO = Path(__file__).resolve().parents[1]


def test_the_test_command_declares_its_tree_of_requirements():
    declared = declared_distributions(REPO, ("test", "docs"))
    # direct (test extra), through smrnb[lab] -> smrnb[recon], and requirements of requirements
    for name in ("pytest", "rtree", "trimesh", "numpy", "ipywidgets", "pythreejs", "pyelftools", "mkdocs",
                 "traitlets", "jinja2"):
        assert name in declared, name
    assert "open3d-cpu" not in declared  # a benchmark reference only (the bench extra)


def test_an_undeclared_distribution_is_named_and_declared_ones_pass():
    declared = declared_distributions(REPO, ("test", "docs")) - {"rtree"}
    missing, _, _ = undeclared({"rtree", "trimesh", "json", "smrnb"}, declared, REPO)
    assert list(missing) in (["rtree"], ["Rtree"]) and missing[next(iter(missing))] == ["rtree"]
    assert undeclared({"trimesh", "numpy", "os"}, declared | {"rtree"}, REPO)[0] == {}


def test_an_undeclared_module_from_outside_the_environment_is_listed_not_failed(tmp_path):
    """An environment that reuses a GPU server's torch sees the starting Python's site-packages, where torch imports
    what happens to be there: not a missing install step. Inside the environment the same module fails."""
    import rtree

    declared = declared_distributions(REPO, ("test", "docs")) - {"rtree"}
    here = Path(rtree.__file__).resolve().parents[1]  # the site-packages rtree lies in
    missing, _, outside = undeclared({"rtree", "trimesh"}, declared, REPO, env=tmp_path)
    assert missing == {} and outside == ["rtree"]
    missing, _, outside = undeclared({"rtree", "trimesh"}, declared, REPO, env=here)
    assert list(missing) in (["rtree"], ["Rtree"]) and outside == []


def test_the_doctor_alone_declares_no_torch_and_no_numpy():
    base = declared_distributions(REPO, ()) - {"pip", "setuptools", "wheel", "torch"}
    assert "pyelftools" in base and "numpy" not in base and "trimesh" not in base
