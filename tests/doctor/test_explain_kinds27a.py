# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 27a (the released heldout15's and dev19's misses, read from the tools' own messages): pip's resolver
conflict note for a library other than torch; a missing module imported by an installed package's own file (its
install first, the package's metadata second); a subpackage its parent's __init__ does not import (numba.cuda,
sklearn.*, scipy before 1.9, xml.etree, concurrent.futures, importlib.util); jupyter_core's subcommand not found (a
known one's package, a misspelt one's spelling); torch.distributed's barrier(device_ids=...) on gloo; xformers'
dispatcher finding no operator and TorchCodec's loader (a build for another torch); an ipywidget shown as its text
repr; PyVista's notebook backend; a console script whose own distribution is not installed in its Python.
Each text is written for the test (other wordings, packages and paths than the threads); each kind has near-misses
that must NOT get its code.

The released parts' texts of each message (distinct texts; a labeller's copy counted once), before -> after:
pip's conflict note for another library 1 (package_api_version_mismatch: nothing -> it), for torch 2 (companion,
unchanged); an installed package's import of a missing module 3 (trimesh library_bug and instruct-nerf2nerf
api/library_bug: both readings kept in the first two, order swapped; jaxlib extension_not_compiled: library_bug,
python_package_missing -> extension_not_compiled, python_package_missing); 'numba' has no attribute 'cuda' 1
(user_code_error: extension_not_compiled -> user_code_error); jupyter-<sub> not found 4 (three jupyter-notebook
kernel_wrong_python: kept second; jupyter-notebooks user_code_error: kernel_wrong_python -> user_code_error);
device_ids on gloo 1 (user_code_error: nothing -> it; NCCL's and libuv's 4 unchanged); xformers' 'No operator
found' 2 (companion: the bare line nothing -> companion), TorchCodec 1 (companion/library_not_found: nothing -> both);
a widget's text repr 1 (threejs: nothing -> it), PyVista's backend 1 (build_dependency_missing/kernel_wrong_python:
nothing -> python_package_missing, kernel_wrong_python); a console script's distribution 2 (python_package_missing:
build_dependency_missing -> it; kernel_wrong_python/python_package_missing: nothing -> both)."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

API = "package_api_version_mismatch"
MISSING = "python_package_missing"

READINGS = [
    # 1. pip's conflict note: another release of a library than the package requires
    ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. "
     "This behaviour is the source of the following dependency conflicts.\n"
     "rl-games 1.6.1 requires numpy<2,>=1.21.6, but you have numpy 2.1.3 which is incompatible.\n", API),
    ("isaaclab-tasks 0.10.1 requires gymnasium==0.29.0, but you have gymnasium 1.1.1 which is incompatible.\n", API),
    ("tensorflow 2.15.0 requires protobuf!=4.21.0,<5.0.0dev,>=3.20.3, but you'll have protobuf 5.28.0 which is "
     "incompatible.\n", API),
    ("gradio 4.44.0 requires pydantic>=2.0, but you have pydantic 1.10.13 which is incompatible.\n", API),
    # 3. a subpackage its parent does not import
    (">>> import numba\n>>> numba.cuda.is_available()\nTraceback (most recent call last):\n"
     "  File \"<stdin>\", line 1, in <module>\nAttributeError: module 'numba' has no attribute 'cuda'\n",
     "user_code_error"),
    ("    X_tr, X_te = sklearn.model_selection.train_test_split(X)\n"
     "AttributeError: module 'sklearn' has no attribute 'model_selection'\n", "user_code_error"),
    ("    tree = xml.etree.ElementTree.parse(path)\nAttributeError: module 'xml' has no attribute 'etree'\n",
     "user_code_error"),
    ("    pool = concurrent.futures.ThreadPoolExecutor(4)\n"
     "AttributeError: module 'concurrent' has no attribute 'futures'\n", "user_code_error"),
    ("    m = scipy.sparse.csr_matrix(a)\nAttributeError: module 'scipy' has no attribute 'sparse'\n", "user_code_error"),
    # 4. jupyter_core's subcommand: a misspelt one, a known one's package
    ("$ jupyter notebooks\nTraceback (most recent call last):\n  File \"/usr/local/bin/jupyter\", line 8, in <module>\n"
     "Exception: Jupyter command `jupyter-notebooks` not found.\n", "user_code_error"),
    ("Exception: Jupyter command `jupyter-labextention` not found.\n", "user_code_error"),
    ("Exception: Jupyter command `jupyter-lab` not found.\n", MISSING),
    ("jupyter nbextension enable --py widgetsnbextension\nException: Jupyter command `jupyter-nbextension` not "
     "found.\n", MISSING),
    # 5. torch.distributed: barrier's device_ids on gloo (Windows has no NCCL)
    ("  File \"D:\\proj\\train.py\", line 88, in main\n    dist.barrier(device_ids=[args.local_rank])\n"
     "RuntimeError: Function argument device_ids not supported for the selected backend gloo\n", "user_code_error"),
    ("RuntimeError: Function argument device_ids not supported for the selected backend mpi\n", "user_code_error"),
    # 6. companions built for another torch: xformers' dispatcher, TorchCodec's loader
    ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
     "     query       : shape=(2, 4096, 8, 40) (torch.float16)\n", "companion_built_for_other_torch"),
    ("  File \"/venv/lib/python3.11/site-packages/xformers/ops/fmha/dispatch.py\", line 63, in _run_priority_list\n"
     "NotImplementedError: No operator found for `memory_efficient_attention_backward` with inputs:\n",
     "companion_built_for_other_torch"),
    ("  File \"/venv/lib/python3.12/site-packages/torchcodec/_core/ops.py\", line 69, in "
     "load_torchcodec_shared_libraries\nRuntimeError: Could not load libtorchcodec. Likely causes:\n"
     "  1. FFmpeg is not properly installed in your environment.\n", "companion_built_for_other_torch"),
    ("RuntimeError: Could not load libtorchcodec. Likely causes:\n", "library_not_found"),
    # 7. an ipywidget shown as its text repr: no front-end where the server runs
    ("In [3]: plot = k3d.plot(); plot += k3d.points(xyz); plot.display()\n"
     "Plot(antialias=3, axes=['x', 'y', 'z'], background_color=16777215, camera_auto_fit=True)\n",
     "threejs_extension_missing"),
    ("display(ui)\nVBox(children=(IntSlider(value=0, description='frame'), Output()))\n", "threejs_extension_missing"),
    ("controls = widgets.HBox(children=(play, slider))\ncontrols\n"
     "HBox(children=(Play(value=0, max=99), IntSlider(value=0, max=99)))\n", "threejs_extension_missing"),
    ("w = widgets.IntSlider(value=3, max=10)\nw\nIntSlider(value=3, max=10)\n", "threejs_extension_missing"),
    # PyVista's notebook backend: its packages not in the kernel's Python
    ("UserWarning: Failed to use notebook backend: \n\nPlease install `trame`.\n\nFalling back to a static output.\n",
     MISSING),
    ("pyvista: Failed to use notebook backend, falling back to static\n", "kernel_wrong_python"),
    # 8. a console script's own distribution not installed in its Python
    ("$ labelme\nTraceback (most recent call last):\n  File \"/usr/local/bin/labelme\", line 6, in <module>\n"
     "    from pkg_resources import load_entry_point\npkg_resources.DistributionNotFound: The 'labelme' distribution "
     "was not found and is required by the application\n", MISSING),
    ("Successfully installed mytool-0.3\n$ mytool --help\nTraceback (most recent call last):\n"
     "  File \"/usr/bin/mytool\", line 33, in <module>\n"
     "    sys.exit(load_entry_point('mytool', 'console_scripts', 'mytool')())\n"
     "  File \"/usr/bin/mytool\", line 22, in importlib_load_entry_point\n"
     "    for entry_point in distribution(dist_name).entry_points\n"
     "  File \"/usr/lib/python3.10/importlib/metadata/__init__.py\", line 969, in distribution\n"
     "    return Distribution.from_name(distribution_name)\n"
     "  File \"/usr/lib/python3.10/importlib/metadata/__init__.py\", line 548, in from_name\n"
     "    raise PackageNotFoundError(name)\n"
     "importlib.metadata.PackageNotFoundError: No package metadata was found for mytool\n", "kernel_wrong_python"),
]


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[f"{i}:{t[:40]}" for i, (t, _) in enumerate(READINGS)])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


FIRST = [
    # the likelier reading first
    ("rl-games 1.6.1 requires numpy<2,>=1.21.6, but you have numpy 2.1.3 which is incompatible.\n", API),
    ("  File \"/opt/conda/lib/python3.10/site-packages/dgl/distributed/dist_graph.py\", line 9, in <module>\n"
     "    import psutil\nModuleNotFoundError: No module named 'psutil'\n", MISSING),
    ("Exception: Jupyter command `jupyter-notebooks` not found.\n", "user_code_error"),
    ("Exception: Jupyter command `jupyter-notebook` not found.\n", MISSING),
    # 2. a missing module imported by an installed package's own file: its install first, the package's metadata
    # (pip show <package>'s Requires) second
    ("Traceback (most recent call last):\n  File \"/work/run.py\", line 1, in <module>\n    import dgl\n"
     "  File \"/opt/conda/lib/python3.10/site-packages/dgl/distributed/dist_graph.py\", line 9, in <module>\n"
     "    import psutil\nModuleNotFoundError: No module named 'psutil'\n", MISSING),
    ("  File \"C:\\venvs\\a\\Lib\\site-packages\\trimesh\\path\\polygons.py\", line 12, in <module>\n"
     "    from shapely.geometry import Polygon\nModuleNotFoundError: No module named 'shapely'\n", MISSING),
    ("pkg_resources.DistributionNotFound: The 'labelme' distribution was not found and is required by the "
     "application\n", MISSING),
    # pip's conflict note beside the failure that stopped the program: the failure first
    ("rl-games 1.6.1 requires numpy<2,>=1.21.6, but you have numpy 2.1.3 which is incompatible.\n"
     "Successfully installed numpy-2.1.3\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
     "    import torch\n  File \"/venv/lib/python3.10/site-packages/torch/__init__.py\", line 237, in <module>\n"
     "    from torch._C import *\nImportError: libcudnn.so.8: cannot open shared object file: No such file or "
     "directory\n", "cudart_not_found"),
]


@pytest.mark.parametrize(("text", "code"), FIRST, ids=[t[:40] for t, _ in FIRST])
def test_likelier_reading_first(text, code):
    assert rule_codes(text, n=1) == [code], rule_codes(text, n=4)


NOT = [
    # pip's conflict note about torch itself is the companion's (pip_companion_conflict), not another release's API
    ("torchvision 0.16.0 requires torch==2.1.0, but you have torch 2.2.0 which is incompatible.\n", API),
    # a requirement that is not installed at all is no release conflict
    ("unsloth-zoo 2025.9.9 requires triton_windows; platform_system == \"Windows\", which is not installed.\n", API),
    # the project's own file importing a missing module: no package's metadata to blame
    ("Traceback (most recent call last):\n  File \"/home/u/proj/tools/train.py\", line 4, in <module>\n"
     "    import psutil\nModuleNotFoundError: No module named 'psutil'\n", "library_bug"),
    # a package's own compiled part is not an undeclared dependency
    ("  File \"/usr/local/lib/python3.10/dist-packages/mmcv/utils/ext_loader.py\", line 13, in load_ext\n"
     "    ext = importlib.import_module('mmcv.' + name)\nModuleNotFoundError: No module named 'mmcv._ext'\n",
     "library_bug"),
    # os.path is imported by os: a missing attribute of a module that is not a subpackage is no missing import
    ("AttributeError: module 'numba' has no attribute 'jit_module_v2'\n", "user_code_error"),
    # a known subcommand is never read as a misspelling
    ("Exception: Jupyter command `jupyter-notebook` not found.\n", "user_code_error"),
    ("Exception: Jupyter command `jupyter-lab` not found.\n", "user_code_error"),
    # barrier() on NCCL, and NCCL's own absence, are not gloo's device_ids
    ("RuntimeError: Distributed package doesn't have NCCL built in\n", "threejs_extension_missing"),
    # xformers' import warning without a dispatch failure names its build, not another torch's operator search
    ("WARNING[XFORMERS]: Need to compile C++ extensions to use all xFormers features.\n", "library_not_found"),
    # torchaudio's own FFmpeg extension is its row's, not TorchCodec's
    ("ImportError: FFmpeg libraries are not found. Please install FFmpeg.\n", "companion_built_for_other_torch"),
    # reprs that are not widgets: a matplotlib figure, a torch module, a bokeh figure's id
    ("<Figure size 640x480 with 1 Axes>\nFigure(640x480)\n", "threejs_extension_missing"),
    ("Sequential(\n  (0): Linear(in_features=10, out_features=5, bias=True)\n  (1): ReLU()\n)\n",
     "threejs_extension_missing"),
    ("Text(0.5, 1.0, 'loss')\n", "threejs_extension_missing"),
    ("Plot(x, y) fails with ValueError: x and y must have same first dimension\n", "threejs_extension_missing"),
    # a distribution another one requires is that dependency's (build_dependency_missing), not the script's own
    ("pkg_resources.DistributionNotFound: The 'heapdict' distribution was not found and is required by "
     "distributed\n", "kernel_wrong_python"),
    # importlib.metadata's lookup by a package reading a version (no console script) is not a script's distribution
    ("  File \"/venv/lib/python3.11/site-packages/sglang/srt/utils.py\", line 12, in assert_pkg_version\n"
     "    installed = version(pkg)\nimportlib.metadata.PackageNotFoundError: No package metadata was found for "
     "flashinfer\n", "kernel_wrong_python"),
]


@pytest.mark.parametrize(("text", "code"), NOT, ids=[f"{i}:{t[:40]}" for i, (t, _) in enumerate(NOT)])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3), (text, rule_codes(text, n=4))


NEW_ROWS = [
    "pip_requirement_conflict", "torch_distributed_barrier_device_ids_not_nccl", "xformers_no_operator_found",
    "torchcodec_could_not_load", "ipywidget_shown_as_text_repr", "pyvista_notebook_backend_failed",
    "console_script_distribution_missing", "jupyter_subcommand_not_found", "pkg_resources_distribution_not_found",
]


@pytest.mark.parametrize("key", NEW_ROWS)
def test_new_rows_match_their_example_and_stay_linear(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


def _findings(text: str):
    return explain_result(text, similar=False).findings


def test_pip_conflict_fix_pins_what_the_package_requires():
    f = _findings("omni-isaac-lab 0.20.0 requires gymnasium==0.29.0, but you have gymnasium 1.0.0 which is "
                  "incompatible.\n")[0]
    assert f.code == API and "omni-isaac-lab" in f.title
    assert any('pip install "gymnasium==0.29.0"' in c for c in f.fix.commands), f.fix.commands


def test_misspelt_jupyter_subcommand_fix_runs_the_known_one():
    f = _findings("Exception: Jupyter command `jupyter-notebooks` not found.\n")[0]
    assert f.code == "user_code_error" and "jupyter notebook" in f.title
    assert f.fix.commands[0] == "jupyter notebook" and "CUDA_LAUNCH_BLOCKING" not in f.fix.why


def test_known_jupyter_subcommand_installs_its_package():
    f = _findings("Exception: Jupyter command `jupyter-labextension` not found.\n")[0]
    assert f.code == MISSING and any("pip install jupyterlab" in c for c in f.fix.commands), f.fix.commands


def test_gloo_barrier_fix_drops_device_ids():
    f = _findings("RuntimeError: Function argument device_ids not supported for the selected backend gloo\n")[0]
    assert f.code == "user_code_error" and "barrier()" in f.fix.why and "CUDA_LAUNCH_BLOCKING" not in f.fix.why
    assert not any("CUDA_LAUNCH_BLOCKING" in c for c in f.fix.commands)


def test_xformers_fix_names_its_info_and_the_pairing():
    f = _findings("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n")[0]
    assert any("xformers.info" in c for c in f.fix.commands) and any("0.0.32: 2.8.0" in c for c in f.fix.commands)


def test_console_script_fix_installs_into_the_scripts_python():
    f = _findings("pkg_resources.DistributionNotFound: The 'carla' distribution was not found and is required by "
                  "the application\n")[0]
    assert f.code == MISSING and "carla" in f.title and any("head -1" in c for c in f.fix.commands)


def test_package_import_second_reading_says_what_decides():
    fs = _findings("  File \"/opt/conda/lib/python3.10/site-packages/dgl/distributed/dist_graph.py\", line 9, in "
                   "<module>\n    import psutil\nModuleNotFoundError: No module named 'psutil'\n")
    assert [f.code for f in fs[:2]] == [MISSING, "library_bug"]
    assert any("pip show dgl" in c for c in fs[1].fix.commands), fs[1].fix.commands


def test_jaxlib_is_jax_compiled_part():
    fs = _findings("  File \"/usr/local/lib/python3.7/site-packages/jax/lib/__init__.py\", line 23, in <module>\n"
                   "    import jaxlib\nModuleNotFoundError: No module named 'jaxlib'\n")
    assert [f.code for f in fs[:2]] == ["extension_not_compiled", MISSING]
    assert any("jaxlib" in c and "--no-build-isolation" not in c for c in fs[0].fix.commands), fs[0].fix.commands
