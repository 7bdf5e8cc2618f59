# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 32c (packages, Python and kernels) read by the tool's own message: TRELLIS's FlexiCubes left
undefined when its kaolin import failed; MuJoCo's MJCF schema check of another release; vLLM's MiniCPM-V versions;
OpenCV's strict argument parser; the web UI's xformers install on a Windows Python other than 3.10; PyPI's
pytorch3d placeholder; JupyterHub's spawn failing in the jupyterhub/jupyterhub image (the Hub only, no Notebook); Notebook 7's removed modules only in Python 3's quoted form. Narrowed: Visual Studio named
where the failure is a crash and no build (the IDE as a dump viewer) is no MSVC toolchain; "after importing this" is
no import order of two packages. CPython 2's unquoted "ImportError: No module named x" (a Python 2 ran the code):
another interpreter than the package's second; its dotted name means the top-level package is missing (Python 2
names the whole name only when its first part is not found).
Each kind has a wording not from the corpus and near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor import tables

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # TRELLIS: the FlexiCubes import inside try/except failed (kaolin missing)
    ("  File \"/content/TRELLIS/trellis/representations/mesh/cube2mesh.py\", line 38, in __init__\n"
     "    self.mesh_extractor = FlexiCubes(device=device)\nNameError: name 'FlexiCubes' is not defined\n",
     "kaolin_not_installed"),
    ("[SPARSE] Backend: spconv\nPlease install kaolin and diso to use the mesh extractor.\nTraceback (most recent call "
     "last):\n  File \"app.py\", line 12, in <module>\n", "kaolin_not_installed"),
    # MuJoCo's schema check of a model of another release
    ("ValueError: XML Error: Schema violation: unrecognized attribute: 'collision'\nElement 'option', line 3\n",
     "package_api_version_mismatch"),
    ("mujoco.FatalError: XML Error: Schema violation: unrecognized attribute: 'kv'\nElement 'position', line 88\n",
     "package_api_version_mismatch"),
    # vLLM's MiniCPM-V version dispatch
    ("ValueError: Currently, MiniCPMV only supports versions 2.0, 2.5, 2.6, 4.0. Got version: (4, 5)\n",
     "package_api_version_mismatch"),
    ("  File \"/usr/local/lib/python3.12/site-packages/vllm/model_executor/models/minicpmv.py\", line 1601, in "
     "__new__\n    raise ValueError(\nValueError: Currently, MiniCPMV only supports versions 2.0, 2.5, and 2.6\n",
     "package_api_version_mismatch"),
    # OpenCV's strict parser of a sequence argument
    ("    cv2.circle(img, (x, y), 3, (0, 255, 0), -1)\ncv2.error: OpenCV(4.8.0) :-1: error: (-5:Bad argument) in "
     "function 'circle'\n> Overload resolution failed:\n>  - Can't parse 'center'. Sequence item with index 0 has a "
     "wrong type\n", "package_api_version_mismatch"),
    ("TypeError: Can't parse 'dsize'. Sequence item with index 1 has a wrong type\n", "package_api_version_mismatch"),
    # the web UI on a Windows Python other than 3.10
    ("venv \"C:\\sd\\venv\\Scripts\\Python.exe\"\nPython 3.11.4 (tags/v3.11.4:d2340ef, Jun  7 2023, 05:45:37) [MSC "
     "v.1934 64 bit (AMD64)]\nInstallation of xformers is not supported in this version of Python.\n",
     "package_no_build_for_platform"),
    ("Python 3.9.13 (tags/v3.9.13:6de2ca5, May 17 2022, 16:36:42) [MSC v.1929 64 bit (AMD64)]\nCommit hash: 0123abc\n"
     "Launching Web UI with arguments: --xformers\nCannot import xformers\n", "package_no_build_for_platform"),
    # PyPI's pytorch3d placeholder
    ("$ pip install pytorch3d\nSuccessfully installed pytorch3d-0.0.1\n$ python -c 'import pytorch3d'\n"
     "ModuleNotFoundError: No module named 'pytorch3d'\n", "package_no_build_for_platform"),
    ("ModuleNotFoundError: No module named 'pytorch3d' even though I ran pip3 install pytorch3d\n",
     "package_no_build_for_platform"),
    # JupyterHub's spawn in the jupyterhub/jupyterhub image, which has no Notebook
    ("$ docker run -d -p 8000:8000 --name hub jupyterhub/jupyterhub jupyterhub\n[W 2024-02-01 10:00:01.020 JupyterHub "
     "user:692] alice's server never showed up at http://127.0.0.1:40001/user/alice/ after 30 seconds. Giving up\n"
     "Spawn failed: Server at http://127.0.0.1:40001/user/alice/ didn't respond in 30 seconds\n",
     "python_package_missing"),
    # CPython 2's own form: the interpreter second
    ("  File \"train.py\", line 3, in <module>\n    import open3d\nImportError: No module named open3d\n",
     "kernel_wrong_python"),
    ("Running the sample gives \"ImportError: No module named carla\" on my machine\n", "kernel_wrong_python"),
    ("500 : Internal Server Error\nSpawn failed: Server at http://127.0.0.1:51234/user/bob/ didn't respond in 30 "
     "seconds\nI started the hub with\n    docker run -p 8000:8000 -d quay.io/jupyterhub/jupyterhub:4.0 jupyterhub\n",
     "python_package_missing"),
]


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[t[:50] for t, _ in READINGS])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


NOT = [
    # another class undefined: not TRELLIS's kaolin import
    ("NameError: name 'MeshRenderer' is not defined\n", "kaolin_not_installed"),
    # MuJoCo's other XML errors (a file not found, a malformed document): not the schema of another release
    ("ValueError: XML Error: Error opening file 'scene.xml': No such file or directory\n",
     "package_api_version_mismatch"),
    # another model's own version check, not vLLM's dispatch
    ("ValueError: This checkpoint only supports versions of transformers>=4.40\n", "package_api_version_mismatch"),
    # OpenCV's other argument errors (a sequence of the wrong length)
    ("cv2.error: Can't parse 'pt1'. Expected sequence length 2, got 3\n", "package_api_version_mismatch"),
    # the web UI on Windows with Python 3.10, or on Linux: xformers is installed there
    ("Python 3.10.6 (tags/v3.10.6:9c7b4bd, Aug  1 2022, 21:53:49) [MSC v.1932 64 bit (AMD64)]\nLaunching Web UI with "
     "arguments: --xformers\nCannot import xformers\n", "package_no_build_for_platform"),
    ("Python 3.8.10 (default, Nov 14 2022, 12:59:47) [GCC 9.4.0]\nLaunching Web UI with arguments: --xformers\n"
     "Cannot import xformers\n", "package_no_build_for_platform"),
    # pytorch3d installed from its wheel page, or another package
    ("pip install pytorch3d -f https://dl.fbaipublicfiles.com/pytorch3d/packaging/wheels/py39_cu113_pyt1110/"
     "download.html\nModuleNotFoundError: No module named 'pytorch3d'\n", "package_no_build_for_platform"),
    ("pip install pytorch3d-lite\nModuleNotFoundError: No module named 'pytorch3d'\n", "package_no_build_for_platform"),
    # the spawn failing where the users' servers run in images of their own (DockerSpawner), or the singleuser image
    ("Spawn failed: Server at http://172.18.0.5:8888/user/alice/ didn't respond in 30 seconds\nc.DockerSpawner.image "
     "= 'jupyter/base-notebook'\ndocker run -d --name hub my-hub-image\n", "python_package_missing"),
    ("docker run -d jupyterhub/singleuser:4.0\nSpawn failed: Server at http://127.0.0.1:8888 didn't respond\n",
     "python_package_missing"),
    # Python 3's quoted forms: no Python 2 shown
    ("  File \"train.py\", line 3, in <module>\n    import open3d\nModuleNotFoundError: No module named 'open3d'\n",
     "kernel_wrong_python"),
    ("  File \"train.py\", line 3, in <module>\n    import open3d\nImportError: No module named 'open3d'\n",
     "kernel_wrong_python"),
    # (narrowed) a crash dump opened in Visual Studio, no build: not the MSVC toolchain
    ("The app exits silently. Windows Event Viewer: Exception code: 0xc0000005. I attached Visual Studio and it stops "
     "in meshlab.dll\n", "windows_msvc_toolchain"),
    ("Process finished with exit code -1073741819 (0xC0000005)\nthe Visual Studio debugger shows an access violation "
     "in render.pyd\n", "windows_msvc_toolchain"),
    # (narrowed) one thing imported before a crash: no order of two packages' imports
    ("Segmentation fault (core dumped) after importing this custom node\n", "native_library_conflict"),
]


GUARDS = [
    # a build where Visual Studio is named stays the toolchain's (with a crash code in the same text too)
    ("running build_ext\nbuilding 'rasterizer._C' extension\nI opened the x64 Native Tools prompt of Visual Studio "
     "2019 and the build still fails\nerror: command 'cl.exe' failed: No such file or directory\n",
     "windows_msvc_toolchain"),
    ("Process finished with exit code -1073741819 (0xC0000005)\nbuilding 'knn' extension\nVisual Studio 2022 Build "
     "Tools installed\n", "windows_msvc_toolchain"),
    # an order of two packages' imports stays the clash of their native libraries
    ("Segmentation fault (core dumped) if I import open3d after import torch\n", "native_library_conflict"),
]


@pytest.mark.parametrize(("text", "code"), GUARDS, ids=[t[:50] for t, _ in GUARDS])
def test_earlier_readings_kept(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


@pytest.mark.parametrize(("text", "code"), NOT, ids=[t[:50] for t, _ in NOT])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=2), (text, rule_codes(text, n=4))


def test_notebook7_reading_needs_python3_form():
    # Notebook 7 needs Python >= 3.8, whose ModuleNotFoundError quotes the name; Python 2's unquoted form is not it
    row = next(r for r in tables.message_rows("library_messages") if r.key == "notebook7_removed_module")
    assert row.pattern.search("ModuleNotFoundError: No module named 'notebook.notebookapp'")
    assert not row.pattern.search("ImportError: No module named notebook.notebookapp")


@pytest.mark.parametrize("key", ["trellis_flexicubes_needs_kaolin", "mujoco_xml_schema_unrecognized",
                                 "vllm_minicpmv_version_unsupported", "opencv_sequence_item_wrong_type",
                                 "webui_xformers_python_unsupported", "pytorch3d_pypi_placeholder",
                                 "jupyterhub_image_has_no_notebook"])
def test_rows_match_their_examples(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


@pytest.mark.parametrize("text", [
    "  File \"run.py\", line 2, in <module>\n    import meshkit.io\nImportError: No module named meshkit.io\n",
    "  File \"app.py\", line 5, in <module>\n    from flaskext.sqlalchemy import SQLAlchemy\nImportError: No module "
    "named flaskext.sqlalchemy\n"])
def test_python2_dotted_name_is_the_package_missing(text):
    # Python 2's load_next names the rest of the name from the part it could not find: the first part is missing,
    # not a submodule of an installed release
    codes = rule_codes(text, n=2)
    assert codes[:1] == ["python_package_missing"] and "package_api_version_mismatch" not in codes, codes


def test_python2_last_part_keeps_the_import_it_came_from():
    # Python 2 names only the last part where the package exists ("from open3d.linux import *" -> 'linux'): the
    # earlier readings of that import stay (not a top-level package missing)
    text = ">>> import open3d\n  File \"open3d/__init__.py\", line 9, in <module>\n    from open3d.linux import *\n" \
           "ImportError: No module named linux\n"
    assert "package_api_version_mismatch" in rule_codes(text, n=2), rule_codes(text, n=4)

