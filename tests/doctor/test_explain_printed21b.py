# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain from the user's side, round 21b: printed pip commands name what pip installs (a distribution, not an
import name; a project's own source where PyPI's name is another project), a fix names the package whose build or
call fails (not torch where torch is not involved), and torch's own map_location message is read as its own fix.
Texts in other wordings than the audit's (audit20)."""

from __future__ import annotations

import re

from smrnb.doctor._explain import explain_result
from smrnb.doctor._printed import PIP_DISTRIBUTION, PIP_FROM_SOURCE, pip_names


def _commands(text: str) -> list[str]:
    return [c for f in explain_result(text, similar=False).findings if f.fix for c in f.fix.commands]


_PIP_ARGS = re.compile(r"\bpip3? (install|show|uninstall)\b([^#;&|]*)")


def _pip_targets(cmd: str) -> list[tuple[str, str]]:
    out = []
    for m in _PIP_ARGS.finditer(cmd):
        for tok in m.group(2).split():
            name = re.split(r"[=<>!~\[]", tok.strip("'\""), maxsplit=1)[0].lower().replace("-", "_")
            out.append((m.group(1), name))
    return out


def _wrong_names(cmds: list[str]) -> list[str]:
    return [c for c in cmds for verb, name in _pip_targets(c)
            if name in PIP_DISTRIBUTION or (verb == "install" and name in PIP_FROM_SOURCE and not _OWN_INDEX.search(c))]


_OWN_INDEX = re.compile(r"\s(?:-f|--find-links|--index-url|--extra-index-url)[\s=]")


# ------------------------------------------------------------------ item 1: pip names
def test_the_table_rewrites_every_import_name_and_source_only_project():
    for imp, dist in PIP_DISTRIBUTION.items():
        assert pip_names(f"pip install --upgrade {imp}") == f"pip install --upgrade {dist}"
        assert pip_names(f"pip show {imp.upper()}   # x") == f"pip show {dist}   # x"
    assert pip_names("pip install 'cv2==<the release the code names>'") == \
        "pip install 'opencv-python==<the release the code names>'"
    for name, (what, _note) in PIP_FROM_SOURCE.items():
        out = pip_names(f"pip install --force-reinstall {name}")
        assert what in out and "#" in out, out
        assert not _wrong_names([out])
    kept = "pip install kaolin==0.15.0 -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.1.0_cu121.html"
    assert pip_names(kept) == kept  # a command that names its own index is the project's own install
    assert pip_names("pip show -f apex") == "pip show -f apex"  # NVIDIA apex's own distribution name
    assert pip_names("pip install -r requirements.txt") == "pip install -r requirements.txt"


SKIMAGE_TEXT = """\
$ python extract_mesh.py --ckpt runs/scene0
Traceback (most recent call last):
  File "/home/kim/proj/tools/extract_mesh.py", line 12, in <module>
    from skimage.measure import marching_cubes_classic
ImportError: cannot import name 'marching_cubes_classic' from 'skimage.measure' (/home/kim/miniconda3/envs/rec/lib/python3.10/site-packages/skimage/measure/__init__.py)
"""

APEX_TEXT = """\
Traceback (most recent call last):
  File "/work/bert/train.py", line 7, in <module>
    from apex.optimizers import FusedLAMB
  File "/opt/conda/lib/python3.8/site-packages/apex/optimizers/fused_lamb.py", line 3, in <module>
    import amp_C
ModuleNotFoundError: No module named 'amp_C'
"""


def test_no_printed_command_installs_a_wrong_name_project():
    for text in (SKIMAGE_TEXT, APEX_TEXT):
        cmds = _commands(text)
        assert cmds
        assert not _wrong_names(cmds), _wrong_names(cmds)


def test_skimage_release_commands_name_scikit_image():
    cmds = _commands(SKIMAGE_TEXT)
    pipped = [c for c in cmds if re.search(r"\bpip (show|install)\b", c)]
    if pipped:
        assert all("skimage" not in c.split("#")[0] for c in pipped), pipped


# ------------------------------------------------------------------ item 4: the package whose build or call fails
SCATTER_BUILD = """\
Collecting torch-sparse==0.6.9
  Downloading torch_sparse-0.6.9.tar.gz (36 kB)
    ERROR: Command errored out with exit status 1:
     command: /usr/bin/python3 -c 'import sys, setuptools, tokenize; sys.argv[0] = ...'
         cwd: /tmp/pip-install-abc123de/torch-sparse_0123456789abcdef0123456789abcdef/
    Complete output (5 lines):
    Traceback (most recent call last):
      File "<string>", line 1, in <module>
      File "/tmp/pip-install-abc123de/torch-sparse_0123456789abcdef0123456789abcdef/setup.py", line 5, in <module>
        import torch
    ModuleNotFoundError: No module named 'torch'
"""


def test_no_build_isolation_names_the_package_being_built():
    cmds = [c for c in _commands(SCATTER_BUILD) if "--no-build-isolation" in c]
    assert cmds
    assert all(not re.search(r"\storch(\s|$)", c.split("#")[0]) for c in cmds), cmds
    assert any("torch-sparse" in c for c in cmds), cmds


MESH_LIB_BUG = """\
Traceback (most recent call last):
  File "/srv/app/export.py", line 40, in save
    scene.export("out.glb")
  File "/srv/venv/lib/python3.9/site-packages/meshio/_helpers.py", line 77, in write
    assert cells.ndim == 2, "internal error: cell array must be 2-D"
AssertionError: internal error: cell array must be 2-D
"""


def test_no_torch_upgrade_where_torch_is_not_in_the_failing_frames():
    cmds = _commands(MESH_LIB_BUG + "\n(the model is a torch network trained earlier)\n")
    assert not any(re.search(r"pip install --upgrade torch\b", c) for c in cmds), cmds
    assert not any(c.startswith("pip show torch") for c in cmds), cmds


# ------------------------------------------------------------------ item 2: torch's map_location message
MAP_LOC = """\
>>> net = torch.load("weights/best.pt")
RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are \
running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.
"""


def test_map_location_message_gets_its_own_fix_first():
    found = [f for f in explain_result(MAP_LOC, similar=False).findings if f.fix and f.fix.commands]
    assert found
    first = found[0]
    assert "map_location" in first.fix.commands[0]
    assert "map_location" in first.fix.why
    for f in found:
        cuda = [i for i, c in enumerate(f.fix.commands) if "--index-url" in c and "/cu" in c]
        ml = [i for i, c in enumerate(f.fix.commands) if "map_location" in c]
        if cuda:
            assert ml and ml[0] < cuda[0], f.fix.commands
