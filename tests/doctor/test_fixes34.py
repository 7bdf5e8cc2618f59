# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 34: the fix of a bare "cannot import name 'Y'" (no module named) says in words what its ``<PKG>`` stands for,
so the printed command passes round 31a's check of placeholders (it printed ``pip show <PKG>`` with the words in the
command before it only)."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result
from tests.doctor._cmdcheck31a import check


@pytest.mark.parametrize("text", [
    "pip install meshkit==0.4.1 splinekit==2.0\n...\nImportError: cannot import name 'compute_spline_warp_field'",
    "Installed meshkit 0.4.1 with pip, then:\nImportError: cannot import name 'build_voxel_sampler'",
])
def test_a_bare_names_fix_says_what_pkg_stands_for(text):
    res = explain_result(text, similar=False)
    cmds = [(f, c) for f in res.findings if f.fix for c in f.fix.commands if "<PKG>" in c]
    assert cmds, [(f.code, f.fix.commands if f.fix else None) for f in res.findings]
    for f, c in cmds:
        assert check(c, "linux", text + "\n" + f.title, f.fix.why) == [], c
