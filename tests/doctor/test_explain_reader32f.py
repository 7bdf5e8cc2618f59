# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The text reader's own mistakes, round 32f: four faults that misled explain on any fresh text.

1. The packages library_messages.csv is about were every word of its ``library`` cell ("a", "with", "library",
   "project", "tools"): a project of one's own laid out ``project/project/train.py`` read as a library's checkout.
   Now a strict parse of the cell (tables.library_import_names), checked here over every row.
2. "pip install fails with the following error" read as pip building ``fails``, ``with``, ``the``, ``following``.
   Now a pip install command's requirements end at the first word that is none or a sentence's.
3. The paste normaliser stripped a Python REPL's ``>>> `` prompt as a mail quote: round 31c's reading of a package
   typed at the prompt whose own import fails (``>>> import dgl`` ... "No module named 'torchdata'") never saw its
   prompt. Now a REPL session keeps its prompts.
4. The in_notebook sign fired on the bare word "notebook" ("No module named notebook.notebookapp": the Jupyter
   Notebook package itself). Now a notebook is shown by a kernel's, IPython's or Jupyter's own output, or by the
   notebook the person runs, named."""

from __future__ import annotations

import re

import pytest

from smrnb.doctor import tables
from smrnb.doctor._explain import explain_result
from smrnb.doctor._paste import normalise
from smrnb.doctor._textfacts import read_text
from smrnb.doctor.rules._abi import _table_packages
from smrnb.doctor.rules._events import signs


def _codes(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings][:2]


# --- 1. library_messages.csv's library cell: import names only --------------------------------------------------

#: words of the cells' descriptions that the old reading took for packages
_DESCRIPTION_WORDS = {"a", "an", "the", "with", "and", "or", "of", "for", "in", "on", "its", "their", "that", "by",
                      "library", "libraries", "package", "packages", "project", "projects", "tool", "tools", "program",
                      "programs", "code", "codes", "build", "builds", "built", "data", "files", "forks", "plugins",
                      "kernel", "kernels", "driver", "runtime", "server", "servers", "shells", "miners", "testbed",
                      "spawners", "resolver", "sync", "prose", "told", "installed", "released", "extension",
                      "extensions", "headers", "bindings", "wrappers", "like", "using", "through", "own", "any"}


def test_every_library_cell_parses_to_import_names_only():
    rows = tables.message_rows("library_messages")
    assert len(rows) > 500
    for r in rows:
        cell = str(r.fields.get("library") or "")
        names = tables.library_import_names(cell)
        for n in names:
            assert re.fullmatch(r"[a-z][a-z0-9_]*", n), (r.key, cell, n)
            assert n not in _DESCRIPTION_WORDS, (r.key, cell, n)
        # every name is one item of the cell as written (never a word of a description of several words)
        items = {i.strip().split(".")[0].replace("-", "_").lower()
                 for i in re.split(r"[(),;:]|\s+/\s+|(?<=\w)/(?=\w)", cell.replace("::", "."))}
        assert set(names) <= items, (r.key, cell, names)


@pytest.mark.parametrize("cell, names", [
    ("a build told in prose", ()),
    ("OpenMMLab (mmcv, mmdet, mmdet3d, mmseg)", ("openmmlab", "mmcv", "mmdet", "mmdet3d", "mmseg")),
    ("dm_control (PyMJCF, dm_control.mjcf)", ("dm_control",)),
    ("detectron2 / tensorpack transforms (ResizeTransform, RotationTransform)", ("detectron2",)),
    ("Python bindings of system libraries (soundfile, cffi/ctypes wrappers)", ("soundfile",)),
    ("CuPy", ("cupy",)),
    ("torch-sparse, torch-scatter, torch-cluster", ("torch_sparse", "torch_scatter", "torch_cluster")),
    ("stable-diffusion-webui (launch.py)", ("stable_diffusion_webui",)),
])
def test_library_cell_strict_parse(cell, names):
    assert tables.library_import_names(cell) == names


def test_table_packages_hold_no_description_word():
    known = _table_packages()
    assert not known & {"a", "with", "library", "project", "tools", "the", "code"}
    assert {"dm_control", "mmdet", "cupy", "open3d", "kaolin", "torch_scatter"} <= known


@pytest.mark.parametrize("text", [
    # a project of one's own in a folder of its own name (not a library's source checkout)
    'Traceback (most recent call last):\n  File "/home/ana/code/project/project/train.py", line 88, in <module>\n'
    "    loss = criterion(out, target.float())\n  File \"/home/ana/code/project/project/train.py\", line 41, in "
    "criterion\n    return (a - b).pow(2).mean() / len(a.shape[5])\nIndexError: tuple index out of range\n",
    'Traceback (most recent call last):\n  File "/home/lee/tools/tools/convert.py", line 12, in <module>\n'
    '    main(sys.argv[1])\n  File "/home/lee/tools/tools/convert.py", line 9, in main\n    print(rows[3]["name"])\n'
    "KeyError: 'name'\n",
])
def test_own_project_folder_is_no_library_checkout(text):
    assert "user_code_error" in _codes(text)


def test_near_miss_library_checkout_stays_the_librarys():
    # jupyterhub's own source checkout (installed in develop mode): its code, not the person's
    text = ('Traceback (most recent call last):\n  File "/src/jupyterhub/jupyterhub/app.py", line 3200, in '
            "launch_instance_async\n    await self.initialize(argv)\nKeyError: 'JUPYTERHUB_API_TOKEN'\n")
    assert "user_code_error" not in _codes(text)


# --- 2. the packages pip builds: pip's own lines and a command's requirements ------------------------------------

def _building(text: str) -> list[str]:
    return list(read_text(text).get("toolkit", {}).get("building") or [])


@pytest.mark.parametrize("text, built", [
    ("pip install fails with the following error\nCommand \"/usr/bin/python3 -u -c \"import setuptools\" install\" "
     "failed with error code 1 in /tmp/pip-build-iabusc5q/mujoco-py/\n", []),
    ("I ran pip install torch-scatter and it failed:\n  error: command 'gcc' failed with exit status 1\n",
     ["torch-scatter"]),
    ("When I do `MAX_JOBS=4 pip install flash-attn --no-build-isolation`, I get this error\n", ["flash-attn"]),
    ("pip install gives an error on the cluster\n", []),
])
def test_pip_install_prose_names_no_package(text, built):
    assert _building(text) == built


def test_pip_own_build_lines_still_read():
    text = ("Building wheels for collected packages: mujoco-py\n  Building wheel for mujoco-py (setup.py) ... error\n"
            "  Failed to build mujoco-py\nERROR: Could not build wheels for mujoco-py, which is required to install "
            "pyproject.toml-based projects\n")
    assert _building(text) == ["mujoco-py"]
    assert _building("$ pip install 'spconv-cu117==2.3.6' cumm-cu117\n") == ["spconv-cu117", "cumm-cu117"]


# --- 3. a REPL session's prompts ------------------------------------------------------------------------------

def test_normaliser_keeps_a_repl_sessions_prompts():
    session = ">>> import torch\n>>> torch.cuda.is_available()\nFalse\n>>> for i in range(2):\n...     print(i)\n"
    assert normalise(session) == session
    # a mail's nested quote (its lines followed by more quoted lines, then the reply) is still a quote
    assert normalise(">>> you wrote this\n>>> and this\n>> then\n> and\nmy reply") == \
        "you wrote this\nand this\nthen\nand\nmy reply"
    # a quoted prompt line of a session: the quote goes, the prompt stays
    assert normalise("> >>> import dgl\n>>> dgl.__version__\n'1.1.2'") == ">>> import dgl\n>>> dgl.__version__\n'1.1.2'"


@pytest.mark.parametrize("text", [
    # round 31c's reading of a package typed at the prompt whose own import fails (its release does not declare the
    # module it imports), reached again now the prompt stays
    ">>> import dgl\nTraceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
    "ModuleNotFoundError: No module named 'torchdata'\n>>>\n",
    "$ python\nPython 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] on linux\n>>> import pyrender\n"
    "ImportError: No module named 'OpenGL'\n",
])
def test_repl_import_pulls_another_package(text):
    assert "library_bug" in _codes(text)


def test_near_miss_two_packages_typed_at_the_prompt():
    # two packages imported: which one imports the missing module is not shown
    text = (">>> import trimesh\n>>> import pyrender\nTraceback (most recent call last):\n  File \"<stdin>\", line 1, "
            "in <module>\nModuleNotFoundError: No module named 'OpenGL'\n")
    assert "library_bug" not in _codes(text)


# --- 4. a notebook is shown by a kernel's output, not by the word -----------------------------------------------

@pytest.mark.parametrize("text", [
    "ImportError: No module named notebook.notebookapp\nThis happens after following the cookbook's setup steps.\n",
    "$ python3 -m notebook\n/usr/bin/python3: No module named notebook\n",
    "ModuleNotFoundError: No module named 'notebook.auth'\nafter pip install notebook==7.0 the password command fails\n",
])
def test_notebook_package_named_is_no_notebook_session(text):
    assert "in_notebook" not in signs(read_text(text))
    # no notebook's kernel running another Python first: the package missing (or its release lacking the module)
    assert _codes(text)[0] in ("python_package_missing", "package_api_version_mismatch")


@pytest.mark.parametrize("text", [
    # Jupyter's server log, the notebook the person runs named, IPython's cell frame
    "[I 10:02:11.481 NotebookApp] Kernel started: 5b1c\n[I 10:02:14.002 NotebookApp] KernelRestarter: restarting "
    "kernel (1/5), new random ports\n/usr/bin/python3: No module named ipykernel_launcher\n",
    "export LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64\nbut when I start the notebook, torch finds an older CUDA\n",
    "Cell In[3], line 1\n----> 1 import open3d\nModuleNotFoundError: No module named 'open3d'\n",
])
def test_notebook_still_shown(text):
    assert "in_notebook" in signs(read_text(text))
