# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 29b: Python-level errors read as the two likeliest of package_api_version_mismatch, user_code_error
and library_bug by what the traceback shows, each saying what decides; a text with no such cue keeps its reading.

- A name missing from an installed package's module ("module 'X' has no attribute 'Y'", "cannot import name 'Y' from
  'X'"): Python says only that the module object lacks the name (CPython's module_getattro, import_from), so another
  release of X (first) or a name no release has, which the code asking is wrong to use; whose code asks is the last
  frame: the person's own file or cell (user_code_error), an installed package's file (library_bug).
- Python's NameError in the person's own frame (a script, a notebook cell): a name the code never imports or defines
  (user_code_error), not a compiled module's guarded import (``_C``) nor a name the text shows bound.
- mujoco.viewer used after a bare `import mujoco` (mujoco's __init__ does not import its viewer).
- Python before 3.10's bare ``__init__()`` refusing arguments where no frame makes the call: the class the text's code
  constructs from a package.
Near-misses keep their environment code first: a package simply not installed, an undefined symbol at import, a CUDA
no-kernel-image error raised in a library's frame, a library's frame raising NameError."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import rule_codes

# a name missing from an installed package's module, asked by the person's own code (or typed, no frame)
OWN_ASKS = [
    ("Traceback (most recent call last):\n  File \"/home/ana/proj/make_mesh.py\", line 9, in <module>\n"
     "    mesh = trimesh.creation.torus_knot(2.0, 0.5)\n"
     "AttributeError: module 'trimesh.creation' has no attribute 'torus_knot'\n"),
    ("---------------------------------------------------------------------------\nImportError"
     "                               Traceback (most recent call last)\nCell In[2], line 1\n"
     "----> 1 from kaolin.ops.mesh import sample_points_fast\n\nImportError: cannot import name 'sample_points_fast' "
     "from 'kaolin.ops.mesh' (/usr/local/lib/python3.10/dist-packages/kaolin/ops/mesh/__init__.py)\n"),
    ("I get this when I run the example:\n    dataset = ShapeNet(root='/tmp/ShapeNet', pre_transform=T.KNNGraphs(k=6))\n"
     "AttributeError: module 'torch_geometric.transforms' has no attribute 'KNNGraphs'\n"),
    ("Traceback (most recent call last):\n  File \"C:\\Users\\ken\\work\\render.py\", line 2, in <module>\n"
     "    from pytorch3d.renderer import MeshRendererWithDepth\nImportError: cannot import name "
     "'MeshRendererWithDepth' from 'pytorch3d.renderer' (C:\\Users\\ken\\miniconda3\\envs\\p3d\\lib\\site-packages\\"
     "pytorch3d\\renderer\\__init__.py)\n"),
]

# the same, asked by another installed package's own file
PACKAGE_ASKS = [
    ("Traceback (most recent call last):\n  File \"/home/ana/proj/train.py\", line 3, in <module>\n"
     "    import kornia_extra\n  File \"/opt/conda/lib/python3.10/site-packages/kornia_extra/__init__.py\", line 4, in "
     "<module>\n    from trimesh.creation import torus_knot\n"
     "ImportError: cannot import name 'torus_knot' from 'trimesh.creation' (/opt/conda/lib/python3.10/site-packages/"
     "trimesh/creation.py)\n"),
]


@pytest.mark.parametrize("text", OWN_ASKS)
def test_a_name_missing_from_a_package_asked_by_own_code_reads_another_release_then_the_code(text):
    assert rule_codes(text) == ["package_api_version_mismatch", "user_code_error"]


@pytest.mark.parametrize("text", PACKAGE_ASKS)
def test_a_name_missing_from_a_package_asked_by_another_package_reads_another_release_then_its_bug(text):
    assert rule_codes(text) == ["package_api_version_mismatch", "library_bug"]


# Python's NameError in the person's own frame
NAME_ERRORS = [
    ("Traceback (most recent call last):\n  File \"/home/ana/proj/train.py\", line 42, in <module>\n"
     "    loader = DataLoader(ds, batch_size=bsz)\nNameError: name 'bsz' is not defined\n"),
    ("---------------------------------------------------------------------------\nNameError"
     "                                 Traceback (most recent call last)\nCell In[7], line 2\n      1 verts = mesh.vertices\n"
     "----> 2 display(plot_points(verts))\n\nNameError: name 'plot_points' is not defined\n"),
    ("---------------------------------------------------------------------------\nNameError"
     "                                 Traceback (most recent call last)\n<ipython-input-3-5b1c2e9f0a11> in <module>\n"
     "----> 1 out = renderer(meshes_world=mesh, camera=cams)\n\nNameError: name 'cams' is not defined\n"),
    ("Traceback (most recent call last):\n  File \"D:\\proj\\eval.py\", line 17, in <module>\n"
     "    score = evaluate(model, val_loder)\nNameError: name 'val_loder' is not defined. Did you mean: 'val_loader'?\n"),
]


@pytest.mark.parametrize("text", NAME_ERRORS)
def test_a_name_error_in_own_code_is_their_code(text):
    assert rule_codes(text, n=1) == ["user_code_error"]


NAME_NEAR = [
    # a library's own frame raising NameError: not the person's code
    ("Traceback (most recent call last):\n  File \"/home/ana/proj/run.py\", line 5, in <module>\n    sim.step()\n"
     "  File \"/usr/local/lib/python3.10/dist-packages/fullwave/solver.py\", line 88, in step\n"
     "    cp.cuda.Device(0).use()\nNameError: name 'cp' is not defined\n"),
    # a compiled module's guarded import in the project's checkout (its row: extension_not_compiled)
    ("Traceback (most recent call last):\n  File \"/home/u/GroundingDINO/groundingdino/models/GroundingDINO/"
     "ms_deform_attn.py\", line 53, in forward\n    output = _C.ms_deform_attn_forward(\nNameError: name '_C' is not "
     "defined\n"),
    # a name the text shows bound by an import that failed quietly (try/except): not a name never imported
    ("try:\n    from pycocotools import mask as maskUtils\nexcept ImportError:\n    pass\n"
     "Traceback (most recent call last):\n  File \"/home/u/proj/coco_eval.py\", line 30, in encode\n"
     "    rle = maskUtils.encode(m)\nNameError: name 'maskUtils' is not defined\n"),
]


@pytest.mark.parametrize("text", NAME_NEAR)
def test_name_error_near_misses_are_not_read_as_a_name_never_defined(text):
    assert "user_code_error" not in rule_codes(text, n=1)


# environment faults that keep their environment code first
ENVIRONMENT = [
    ("Traceback (most recent call last):\n  File \"/home/ana/proj/make_mesh.py\", line 1, in <module>\n"
     "    import trimesh\nModuleNotFoundError: No module named 'trimesh'\n", "python_package_missing"),
    ("Traceback (most recent call last):\n  File \"/home/a/p/run.py\", line 2, in <module>\n    import torch_scatter\n"
     "  File \"/home/a/.local/lib/python3.10/site-packages/torch_scatter/__init__.py\", line 16, in <module>\n"
     "    torch.ops.load_library(spec.origin)\nOSError: /home/a/.local/lib/python3.10/site-packages/torch_scatter/"
     "_scatter_cuda.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev\n", None),
    ("Traceback (most recent call last):\n  File \"/home/a/p/train.py\", line 80, in <module>\n    out = model(x)\n"
     "  File \"/opt/conda/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py\", line 165, in "
     "_flash_attn_forward\n    out, lse = flash_attn_cuda.fwd(q, k, v)\n"
     "RuntimeError: CUDA error: no kernel image is available for execution on the device\n", None),
]


@pytest.mark.parametrize(("text", "code"), ENVIRONMENT)
def test_environment_faults_keep_their_environment_code_first(text, code):
    got = rule_codes(text, n=1)
    assert got and got[0] not in ("user_code_error", "library_bug", "package_api_version_mismatch")
    if code:
        assert got == [code]


# a subpackage mujoco's __init__ does not import
MUJOCO = [
    ("Traceback (most recent call last):\n  File \"/home/r/ctrl/run.py\", line 40, in <module>\n"
     "    with mujoco.viewer.launch_passive(model, data) as viewer:\n"
     "AttributeError: module 'mujoco' has no attribute 'viewer'\n"),
    ("    with mujoco.viewer.launch_passive(\nAttributeError: module 'mujoco' has no attribute 'viewer'\n"),
]


@pytest.mark.parametrize("text", MUJOCO)
def test_mujoco_viewer_without_its_import_is_the_missing_import(text):
    assert rule_codes(text, n=1) == ["user_code_error"]
    f = explain_result(text, similar=False).findings[0]
    assert "import mujoco.viewer" in f.title


# Python before 3.10's bare __init__() with no frame making the call: the class the text's code constructs
CONSTRUCTORS = [
    ("from pythreejs import Vector3\nvec1 = Vector3(1, 2, 3)\n"
     "TypeError: __init__() takes from 1 to 3 positional arguments but 4 were given\n"),
    ("import MinkowskiEngine as ME\nx = ME.SparseTensor(feats=f, coords=c)\n"
     "TypeError: __init__() got an unexpected keyword argument 'feats'\n"),
]


@pytest.mark.parametrize("text", CONSTRUCTORS)
def test_a_bare_init_refusing_arguments_is_the_constructed_class(text):
    assert rule_codes(text) == ["package_api_version_mismatch", "user_code_error"]


# a TypeError/ValueError raised in a package's frame that the person's own frame calls: the values passed first
PASSED_VALUES = [
    ("Traceback (most recent call last):\n  File \"/home/ana/proj/viz.py\", line 12, in <module>\n"
     "    fig = plot_cloud(points, colors=\"red\")\n  File \"/home/ana/.venv/lib/python3.10/site-packages/pointviz/"
     "plot.py\", line 88, in plot_cloud\n    raise TypeError(f\"colors must be an array of shape (N, 3), got "
     "{type(colors)}\")\nTypeError: colors must be an array of shape (N, 3), got <class 'str'>\n"),
    ("---------------------------------------------------------------------------\nValueError"
     "                                Traceback (most recent call last)\nCell In[6], line 2\n"
     "----> 2 mesh = trimesh.Trimesh(vertices=v, faces=f_idx)\n\nFile /opt/conda/lib/python3.11/site-packages/"
     "trimesh/base.py:190, in Trimesh.__init__(self, vertices, faces)\n--> 190     raise ValueError('faces must be "
     "(n, 3) int')\n\nValueError: faces must be (n, 3) int\n"),
]

PASSED_VALUES.append(  # (round 29b, formerly test_explain_audit8's 'no guess outside the field')
    'Traceback (most recent call last):\n  File "mesh.py", line 20, in <module>\n    kal.ops.mesh.check_sign(verts, '
    'faces, points)\n  File "/usr/local/lib/python3.10/site-packages/kaolin/ops/mesh/check_sign.py", line 67, in '
    'check_sign\n    raise ValueError(f"Expected faces to be of shape (num_faces, 3) but got {faces.shape}")\n'
    "ValueError: Expected faces to be of shape (num_faces, 3) but got torch.Size([1200, 4])\n")

PASSED_NEAR = [
    # an import passes no value: the package's own code at import
    ("Traceback (most recent call last):\n  File \"main.py\", line 1, in <module>\n"
     "    from open3d.ml.torch.layers import SparseConv\n  File \"/home/u/env/lib/python3.8/site-packages/open3d/ml/"
     "torch/__init__.py\", line 38, in <module>\n    match = '.'.join(_ver.release[:2] + ('*',))\n"
     "TypeError: sequence item 0: expected str instance, int found\n"),
    # a call's signature refused inside the package: signature_codes' reading, not the values
    ("Traceback (most recent call last):\n  File \"demo/pcd_demo.py\", line 20, in main\n"
     "    model = init_detector(args.config, args.checkpoint)\n  File \"/home/u/envs/mm/lib/python3.7/site-packages/"
     "mmcv/utils/registry.py\", line 212, in build\n    return self.build_func(*args, **kwargs, registry=self)\n"
     "TypeError: build_model_from_cfg() got multiple values for argument 'registry'\n"),
]


@pytest.mark.parametrize("text", PASSED_VALUES)
def test_a_packages_type_or_value_error_on_the_callers_values_reads_the_call_then_the_package(text):
    assert rule_codes(text) == ["user_code_error", "library_bug"]


@pytest.mark.parametrize("text", PASSED_NEAR)
def test_passed_value_near_misses_are_not_read_as_the_callers_values(text):
    assert "user_code_error" not in rule_codes(text, n=1)


def test_a_name_asked_from_a_file_of_another_name_is_no_shadowing_file():
    # (formerly a near-miss of test_explain_kinds16_dev15: run.py shadows no package named trimesh)
    text = ("  File \"/home/ana/proj/run.py\", line 3, in <module>\n    mesh = trimesh.load('a.stl')\n"
            "AttributeError: module 'trimesh' has no attribute 'load'\n")
    assert rule_codes(text) == ["package_api_version_mismatch", "user_code_error"]
    f = _finding(text, "user_code_error")
    assert "your code asks trimesh for load" in f.title and "shadow" not in f.title


def test_no_frame_and_no_code_keeps_the_one_reading():
    # no cue of whose code asks: the one reading, as before (test_explain_kinds27a's numba, 27d's vllm)
    assert rule_codes("AttributeError: module 'numba' has no attribute 'jit_module_v2'\n") == \
        ["package_api_version_mismatch"]


def _finding(text: str, code: str):
    return next(f for f in explain_result(text, similar=False).findings if f.code == code)


def test_the_printed_readings_say_what_decides():
    f = _finding(OWN_ASKS[0], "user_code_error")
    assert "trimesh.creation" in f.title and "torus_knot" in f.title and "Not your environment" in f.title
    assert any("dir(m)" in c and "import trimesh.creation as m" in c for c in f.fix.commands)
    assert any("what decides" in e and "torus_knot in none of them" in e for e in f.evidence)
    f = _finding(NAME_ERRORS[0], "user_code_error")
    assert "'bsz'" in f.title and "train.py" in f.title
    assert any('grep -rn "bsz"' in c for c in f.fix.commands)
    f = _finding(PASSED_VALUES[0], "user_code_error")
    assert "pointviz" in f.title and "plot_cloud" in f.title and "Not your environment" in f.title
    f = _finding(PASSED_VALUES[0], "library_bug")
    assert any("what decides" in e and "documentation" in e for e in f.evidence)
    f = _finding(NAME_ERRORS[1], "user_code_error")
    assert "a notebook cell" in f.title and "Restart & Run All" in f.fix.why
