# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 26b (a Python exception's structure: whose code raised it, and whether a release changed):
an object of a named class without an attribute, raised in a project's own files (a checkout's modules, its entry
script) or with no frame shown, the class shown as no package's: the project's bug first, another release of a
package it uses second; the class named as a package whose release the text gives (``trimesh 4.11.0`` beside
'Trimesh', "In version 4.4.9 of trimesh"): another release of that package first; code typed in a notebook's cell or
a REPL asking its own class: nothing. An installed package's own line calling a function with arguments it refuses:
the two packages' releases first, the caller's bug second. A change told without a release named ("after I updated
X to the latest version", "it was working before") and "no longer works with the new version of X". A misspelt
import of a package the text lists installed. Isaac Gym's refusal once torch is imported.
Each text is written for the test (other wordings, classes and packages than the threads); each kind has near-misses
that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

API, BUG, USER = "package_api_version_mismatch", "library_bug", "user_code_error"

#: (text, the first reading, the second reading or None)
READINGS = [
    # the project's own class, in its checkout's frames
    ("Traceback (most recent call last):\n  File \"render.py\", line 41, in <module>\n    out = render(cam, scene)\n"
     "  File \"/home/ana/code/gauss-editor/renderer/core.py\", line 88, in render\n    fov = cam.fov_x * 0.5\n"
     "AttributeError: 'ViewCamera' object has no attribute 'fov_x'\n", BUG, API),
    ("(splat) D:\\work\\mesh-splat> python train.py -s data/chair\nTraceback (most recent call last):\n"
     "  File \"D:\\work\\mesh-splat\\train.py\", line 120, in training\n    gaussians.densify(grads)\n"
     "  File \"D:\\work\\mesh-splat\\scene\\gaussian_model.py\", line 402, in densify\n"
     "    n = self.max_radii.shape[0]\nAttributeError: 'GaussianModel' object has no attribute 'max_radii'\n", BUG, API),
    # the message alone (a title, a paraphrase)
    ("AttributeError: 'PointTracker' object has no attribute 'query_frames'\n\nI get this when running the demo.\n",
     BUG, API),
    ("'SceneLoader' object has no attribute 'train_cameras'\nhappens right after loading the dataset\n", BUG, API),
    # the class named as a package whose release the text gives
    ("  File \"/home/r/robo/terrain/mesh_io.py\", line 30, in load\n    mesh.merge_vertices_fast()\nAttributeError: "
     "'Trimesh' object has no attribute 'merge_vertices_fast'\n\n$ pip list | grep trimesh\ntrimesh     4.5.3\n",
     API, USER),
    ("With version 7.2.0 of minio the upload fails: AttributeError: 'Minio' object has no attribute 'fput'\n", API,
     None),
    # an installed package's own line calls another package's function with arguments it refuses
    ("Traceback (most recent call last):\n  File \"/home/u/run.py\", line 3, in <module>\n    notes = transcribe(a)\n"
     "  File \"/opt/py/lib/python3.10/site-packages/audio_notes/io.py\", line 71, in transcribe\n"
     "    y = librosa.resample(y, 44100, 16000)\nTypeError: resample() takes 1 positional argument but 3 were "
     "given\n", API, BUG),
    ("  File \"/usr/lib/python3/dist-packages/viewerlib/server.py\", line 212, in start\n    app = make_app(host, "
     "port, debug=True)\nTypeError: make_app() got an unexpected keyword argument 'debug'\n", API, BUG),
    # a change told without a release named
    ("After I updated MeshTools to the latest version, the exporter stopped working:\nRuntimeError: export failed "
     "with code 3\n", BUG, None),
    ("It was working before, now every run ends with\nValueError: bad header in frame 0\n", BUG, None),
    ("from torchvision.models.utils import load_state_dict_from_url\nThis no longer works with the new version of "
     "torchvision\n", API, BUG),
    # a misspelt import of a package the text lists installed
    ("!pip list\nmatplotlib   3.8.2\nnumpy        1.26.4\n\n---> 1 import matplotlb.pyplot as plt\n"
     "ModuleNotFoundError: No module named 'matplotlb'\n", USER, None),
    ("$ pip list | grep open3d\nopen3d          0.18.0\n$ python view.py\n  File \"view.py\", line 1, in <module>\n"
     "    import opend3d as o3d\nModuleNotFoundError: No module named 'opend3d'\n", USER, None),
    # a source distribution without a file its own setup.py reads, as pip builds it
    ("Collecting tiny-rig==0.3.1\n  Downloading tiny-rig-0.3.1.tar.gz (12 kB)\n    ERROR: Command errored out with exit "
     "status 1:\n    Traceback (most recent call last):\n      File \"<string>\", line 1, in <module>\n      File "
     "\"/tmp/pip-install-q8w1x2_z/tiny-rig_3f9c2b1a7d6e4c5b8a9f0e1d2c3b4a59/setup.py\", line 6, in <module>\n"
     "        long_description = open('README.md').read()\n    FileNotFoundError: [Errno 2] No such file or directory: "
     "'README.md'\n", BUG, None),
    # Isaac Gym's own refusal
    ("  File \"/home/k/isaacgym/python/isaacgym/gymdeps.py\", line 21, in _import_deps\n    raise ImportError(\"PyTorch "
     "was imported before isaacgym modules.  Please import torch after isaacgym modules.\")\nImportError: PyTorch was "
     "imported before isaacgym modules.  Please import torch after isaacgym modules.\n", USER, None),
]


@pytest.mark.parametrize(("text", "first", "second"), READINGS, ids=[t[:50] for t, _, _ in READINGS])
def test_kind_reads_as_its_cause(text, first, second):
    got = rule_codes(text, n=3)
    assert got[:1] == [first], (text, got)
    if second:
        assert second in got[:2], (text, got)


NOT = [
    # code typed in a notebook's cell or a REPL asking its own class: a plain bug of the person's, no reading
    ("---------------------------------------------------------------------------\nAttributeError      Traceback "
     "(most recent call last)\nCell In[7], line 3\n      1 m = MyNet()\n----> 3 m.predict(x)\n\nAttributeError: "
     "'MyNet' object has no attribute 'predict'\n", BUG),
    ("<ipython-input-4-1a2b3c4d5e6f> in <module>\n----> 1 d.plot()\n\nAttributeError: 'DataHolder' object has no "
     "attribute 'plot'\n", API),
    (">>> s = Solver()\n>>> s.step()\nTraceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
     "AttributeError: 'Solver' object has no attribute 'step'\n", BUG),
    # one script alone may be the person's own; the bare line alone shows nothing of whose class it is
    ("  File \"/home/li/work/fit.py\", line 30, in <module>\n    r = est.score_all(X)\nAttributeError: 'Estimator' "
     "object has no attribute 'score_all'\n", BUG),
    ("AttributeError: 'Renderer' object has no attribute 'draw_points'\n", BUG),
    # None and the built-in types are read apart
    ("  File \"/home/u/proj/train.py\", line 12, in main\n    cfg.lr\nAttributeError: 'NoneType' object has no "
     "attribute 'lr'\n", BUG),
    ("  File \"/home/u/proj/train.py\", line 12, in main\n    x.shape\nAttributeError: 'list' object has no attribute "
     "'shape'\n", BUG),
    # inside an installed package's own file: attribute_in_package's reading, not the project's bug
    ("  File \"/opt/py/lib/python3.10/site-packages/shapes/loader.py\", line 9, in load\n    g.node[n]\n"
     "AttributeError: 'Graph' object has no attribute 'node'\n", USER),
    # torch's forward_call calling back the person's own forward: no package calls it with its own arguments
    ("Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 5, in <module>\n    out = model(x, "
     "y)\n  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1501, in _call_impl\n"
     "    return forward_call(*args, **kwargs)\nTypeError: forward() takes 2 positional arguments but 3 were given\n",
     API),
    # a change of the system, or a release named as the one that works, are other readings' words
    ("It was working fine with my old GPU. Now: RuntimeError: CUDA error: no kernel image is available for "
     "execution on the device\n", API),
    ("after updating the nvidia driver to the latest version nvidia-smi says: Failed to initialize NVML: "
     "Driver/library version mismatch\n", BUG),
    # a name that is no slip off any package the text lists, or a package that is missing outright
    ("$ pip list\nnumpy     1.26.4\n  File \"run.py\", line 1, in <module>\n    import plyfile\nModuleNotFoundError: "
     "No module named 'plyfile'\n", USER),
    ("ModuleNotFoundError: No module named 'lightening'\n", "python_package_missing"),
    # setup.py of the person's own checkout, or a file named by its absolute path: no release's packaging
    ("  File \"/home/u/code/rig/setup.py\", line 6, in <module>\n    open('README.md')\nFileNotFoundError: [Errno 2] No "
     "such file or directory: 'README.md'\n", BUG),
    ("  File \"/tmp/pip-install-q8w1x2_z/tiny-rig_3f9c2b1a7d6e4c5b8a9f0e1d2c3b4a59/setup.py\", line 9, in <module>\n"
     "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'\n", BUG),
    # Isaac Gym's other import errors are no import order
    ("ImportError: libpython3.7m.so.1.0: cannot open shared object file: No such file or directory\n  File "
     "\"/home/k/isaacgym/python/isaacgym/gymapi.py\"\n", USER),
]


@pytest.mark.parametrize(("text", "code"), NOT, ids=[t[:50] for t, _ in NOT])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3), (text, rule_codes(text, n=4))


def test_typed_code_gets_no_project_reading():
    text = ("Cell In[3], line 2\n----> 2 t.fit()\nAttributeError: 'Trainer2' object has no attribute 'fit'\n")
    assert rule_codes(text, n=3) == [], rule_codes(text, n=4)


def test_new_row_matches_its_example_and_stays_linear():
    assert_row_matches_its_example_and_stays_linear("library_messages", "isaacgym_torch_imported_first")


def _findings(text: str):
    return explain_result(text, similar=False).findings


def test_project_class_fix_says_what_decides():
    fs = _findings("  File \"/home/a/cam-proj/view.py\", line 40, in <module>\n    pts = to_points(view)\n"
                   "  File \"/home/a/cam-proj/utils/geom.py\", line 16, in to_points\n    K = view.intrinsics\n"
                   "AttributeError: 'MiniView' object has no attribute 'intrinsics'\n")
    assert [f.code for f in fs[:2]] == [BUG, API]
    assert "MiniView" in fs[0].title and "project" in fs[0].title
    assert any(c.startswith("git status") for c in fs[0].fix.commands), fs[0].fix.commands
    assert any("grep -rn \"intrinsics\"" in c for c in fs[0].fix.commands), fs[0].fix.commands
    assert any("requirements" in c for c in fs[1].fix.commands), fs[1].fix.commands


def test_package_class_fix_names_the_release():
    f = _findings("AttributeError: 'Trimesh' object has no attribute 'as_open3d'\nIn version 4.4.9 of trimesh "
                  "this raises.\n")[0]
    assert f.code == API and "trimesh 4.4.9" in f.title, f.title
    assert any(c.startswith("pip show trimesh") for c in f.fix.commands), f.fix.commands


def test_caller_package_fix_names_both_packages():
    fs = _findings("  File \"/opt/py/lib/python3.10/site-packages/audio_notes/io.py\", line 71, in transcribe\n"
                   "    y = librosa.resample(y, 44100, 16000)\nTypeError: resample() takes 1 positional argument but 3 "
                   "were given\n")
    assert fs[0].code == API and "audio_notes" in fs[0].title and "librosa" in fs[0].title, fs[0].title
    assert any(c.startswith("pip show librosa") for c in fs[0].fix.commands), fs[0].fix.commands
    assert fs[1].code == BUG and "audio_notes" in fs[1].title


def test_update_fix_says_what_changed_decides():
    f = _findings("After I updated MeshTools to the latest version, the exporter stopped working:\nRuntimeError: "
                  "export failed with code 3\n")[0]
    assert f.code == BUG and "update" in f.title
    assert any("conda list --revisions" in c for c in f.fix.commands), f.fix.commands


def test_sdist_fix_names_the_package_and_the_file():
    f = _findings("    File \"/tmp/pip-install-ab12cd34/tiny_rig_3f9c2b1a7d6e4c5b8a9f0e1d2c3b4a59/setup.py\", line 6, "
                  "in <module>\n    FileNotFoundError: [Errno 2] No such file or directory: 'requirements.txt'\n")[0]
    assert f.code == BUG and "tiny_rig" in f.title and "requirements.txt" in f.title, f.title
    assert any(c.startswith("pip download --no-deps --no-binary :all: tiny_rig") for c in f.fix.commands)


def test_misspelt_import_fix_corrects_the_line_and_installs_nothing():
    f = _findings("$ pip list | grep open3d\nopen3d          0.18.0\n    import opend3d as o3d\nModuleNotFoundError: "
                  "No module named 'opend3d'\n")[0]
    assert f.code == USER and "opend3d" in f.title and "open3d" in f.title, f.title
    assert not any("pip install" in c for c in f.fix.commands), f.fix.commands
