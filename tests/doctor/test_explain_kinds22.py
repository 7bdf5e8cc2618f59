# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 22b (library_bug, package_api_version_mismatch and user_code_error told apart by where the failing
code lives and what the person says of it): a package's own __init__ importing a submodule its folder lacks
(Python's "cannot import name x from partially initialized module P (most likely due to a circular import)" for a
``from . import x`` whose module is absent); a module the person says is missing from the project's repository ("there
is no `data` folder", "I can't find centerpoint_fusion.py", "you didn't upload ..."); an installed package's own
file importing another distribution that is not installed (an optional dependency imported unconditionally, a
recipe without the requirement); a file of the user's own told to shadow a module (sys.path's first entry); a
message that lays the error on the calling code where the person says the project's code is unchanged; a kernel
fault reported from an installed extension's own Python file (its kernel as the second reading); conda's channels
without a build of a package for this platform (PackagesNotFoundError, conda 4.3's 'Package missing in current
<subdir> channels', env create's ResolvePackageNotFound: no build for the combination, of any package); a class
name of two words or more that the code never defines (NameError), which a wildcard or guarded import was to bring:
the installed release's API first, the code's missing import second. Each text
is written for the test (other wordings, packages and tools than the threads); each kind has near-misses that must
NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor._textfacts import read_text

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # a package's __init__ importing a submodule its folder lacks: a project's checkout (its repository lacks the file)
    ("Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n    import geomkit\n  File "
     "\"/home/ana/src/geomkit/geomkit/__init__.py\", line 4, in <module>\n    from . import io, meshes\nImportError: "
     "cannot import name 'meshes' from partially initialized module 'geomkit' (most likely due to a circular import) "
     "(/home/ana/src/geomkit/geomkit/__init__.py)\n", ["library_bug", "user_code_error"]),
    # the same wording with the traceback left out (the file's path tells the package's own __init__)
    ("ImportError: cannot import name 'point_sampler' from partially initialized module 'nerfkit.samplers' (most "
     "likely due to a circular import) (D:\\work\\nerfkit\\nerfkit\\samplers\\__init__.py)\n",
     ["library_bug", "user_code_error"]),
    # an installed release's __init__ lacking its submodule: its packaging first, another release second
    ("ImportError: cannot import name 'losses' from partially initialized module 'splatlib' (most likely due to a "
     "circular import) (/opt/venv/lib/python3.11/site-packages/splatlib/__init__.py)\n",
     ["library_bug", "package_api_version_mismatch"]),
    # the module told missing from the repository in the person's words
    ("from scenekit.data.loaders import ColmapLoader\nModuleNotFoundError: No module named 'scenekit.data'\n"
     "I looked in the repository and there is no `data` folder under scenekit.\n",
     ["library_bug"]),
    ("ModuleNotFoundError: No module named 'detzoo.models.heads.fusion_head'\nI searched the repo but I cannot find "
     "fusion_head.py anywhere.\n", ["library_bug"]),
    ("ModuleNotFoundError: No module named 'avatarkit.renderers'\nIt looks like you forgot to upload the renderers "
     "folder, could you push it?\n", ["library_bug"]),
    # an installed package's own file importing a distribution that is not installed (frame first, or error first)
    ("Traceback (most recent call last):\n  File \"plot.py\", line 1, in <module>\n    import meshview\n  File "
     "\"/usr/local/lib/python3.10/dist-packages/meshview/__init__.py\", line 7, in <module>\n    from "
     "meshview.web import serve\n  File \"/usr/local/lib/python3.10/dist-packages/meshview/web.py\", line 2, in "
     "<module>\n    import aiohttp_cors\nModuleNotFoundError: No module named 'aiohttp_cors'\n",
     ["python_package_missing", "library_bug"]),  # (round 27a) its install first, the package's metadata second
    ("ModuleNotFoundError: No module named 'mapbox_earcut'\n...\n  File \"C:\\Miniconda3\\envs\\geo\\lib\\"
     "site-packages\\polytools\\triangulate.py\", line 88, in earcut\n    import mapbox_earcut as earcut\n",
     ["python_package_missing", "library_bug"]),
    # a CUDA extension project's own module built apart from it (a csrc/ folder with its own setup.py): never built
    ("  File \"/opt/conda/lib/python3.10/site-packages/flash_attn/ops/fused_dense.py\", line 12, in <module>\n    "
     "import fused_dense_lib as fused_dense_cuda\nModuleNotFoundError: No module named 'fused_dense_lib'\n",
     ["extension_not_compiled", "library_bug"]),
    # a file of the user's own told to shadow a module
    ("ImportError: cannot import name 'wraps' from 'functools'\nI had a file named functools.py in the same folder "
     "as my script.\n", ["user_code_error"]),
    ("Error while finding spec for 'ipykernel.__main__' (<class 'ImportError'>: cannot import name 'parse')\nIt "
     "happens when there is a file called parse.py in the working directory where I start jupyter lab.\n",
     ["user_code_error"]),
    # a message laid on the calling code, the person saying the project's code is unchanged
    ("RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: "
     "[torch.FloatTensor [64, 128]], which is output 0 of ReluBackward0, is at version 1; expected version 0 "
     "instead.\nI didn't change anything in the code, I just ran train.sh from the README.\n",
     ["library_bug", "user_code_error"]),
    # torch's two-devices check: the calling code first, the bug of a project's or library's calling code second
    ("  File \"/opt/venv/lib/python3.11/site-packages/imgpipe/pipeline.py\", line 311, in __call__\n    latents = "
     "latents * self.scheduler.sigmas[0]\nRuntimeError: Expected all tensors to be on the same device, but found at "
     "least two devices, cuda:0 and cpu!\n", ["user_code_error", "library_bug"]),
    ("RuntimeError: Expected tensor for argument #1 'indices' to have the same device as tensor for argument #2 "
     "'weight'; but device 0 does not equal -1 (while checking arguments for embedding)\n",
     ["user_code_error", "library_bug"]),
    # a class of two words or more the code never defines, from a wildcard or guarded import: the release's API first
    ("from open3d import *\n  File \"viz.py\", line 8, in <module>\n    mesh = TriangleMesh()\nNameError: name "
     "'TriangleMesh' is not defined\n", ["package_api_version_mismatch", "user_code_error"]),
    ("----> 3 w = ImageWidget(data)\nNameError: name 'ImageWidget' is not defined\n",
     ["package_api_version_mismatch", "user_code_error"]),
    # a kernel fault reported from an installed extension's own Python file: the inputs first, its kernel second
    ("  File \"/opt/conda/lib/python3.10/site-packages/torch_scatter/scatter.py\", line 21, in scatter_sum\n    "
     "return out.scatter_add_(dim, index, src)\nRuntimeError: CUDA error: an illegal memory access was encountered\n",
     ["user_code_error", "library_bug"]),
    # conda's channels without a build for this platform (today's wording, conda 4.3's, env create's build pins)
    ("Solving environment: failed\n\nPackagesNotFoundError: The following packages are not available from current "
     "channels:\n\n  - open3d=0.9\n\nCurrent channels:\n\n  - https://repo.anaconda.com/pkgs/main/osx-arm64\n",
     ["package_no_build_for_platform"]),
    ("PackageNotFoundError: Package missing in current win-64 channels:\n  - pytorch3d\n", ["package_no_build_for_platform"]),
    ("$ conda env create -f environment.yml\nResolvePackageNotFound:\n  - libgcc-ng=11.2.0\n  - _openmp_mutex=5.1\n",
     ["package_no_build_for_platform"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # a CamelCase name from a partially initialized module: a class, a real circular import of the project's modules
    ("ImportError: cannot import name 'Trainer' from partially initialized module 'fitkit.trainer' (most likely due "
     "to a circular import) (/home/ana/fitkit/fitkit/trainer.py)\n", "library_bug"),
    # a compiled module of a package's own (never built): extension_not_compiled's, not the repository's
    ("ImportError: cannot import name 'iou3d_cuda' from partially initialized module 'ops.iou3d' (most likely due to "
     "a circular import) (/home/ana/det/ops/iou3d/__init__.py)\n", "library_bug"),
    # a module of an installed package's release (the package is there, a module of it is not): its API
    ("  File \"/opt/venv/lib/python3.11/site-packages/nbtool/handlers.py\", line 5, in <module>\n    from "
     "notebook.base.handlers import IPythonHandler\nModuleNotFoundError: No module named 'notebook.base'\n",
     "library_bug"),
    # the user's own script importing a package that is not installed: nobody's packaging
    ("  File \"/home/ana/proj/train.py\", line 4, in <module>\n    import wandb\nModuleNotFoundError: No module "
     "named 'wandb'\n", "library_bug"),
    # a package's own relative import of its own module: extension_not_compiled's reading, not another distribution
    ("  File \"/usr/lib/python3/dist-packages/meshops/__init__.py\", line 2, in <module>\n    from .meshops_ext import "
     "*\nModuleNotFoundError: No module named 'meshops.meshops_ext'\n", "library_bug"),
    # files missing in words about a data folder, with no import failure: no reading of code
    ("FileNotFoundError: [Errno 2] No such file or directory: 'data/train/images'\nthere is no `images` folder in "
     "my dataset\n", "library_bug"),
    # a module the person lacks, told in words, and "no such file": no repository reading
    ("ModuleNotFoundError: No module named 'cv2'\nthere is no cv2 module in this env, and there is no such file\n",
     "library_bug"),
    # a file named like a module said in prose without it failing to import: no shadowing reading
    ("I have a file named utils.py in the same folder.\nRuntimeError: CUDA error: device-side assert triggered\n",
     "library_bug"),
    # a shadowing file of another name than the import that fails
    ("ImportError: cannot import name 'wraps' from 'functools'\nI also have a file named helpers.py in the same "
     "folder.\n", "user_code_error"),
    # the code told unchanged on a failure that no message lays on the calling code (an out-of-memory)
    ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\nI didn't change anything in the "
     "code.\n", "library_bug"),
    # a kernel fault reported from torch's own file, or from the calling code's: not an extension's kernel
    ("  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 2210, in embedding\n    return "
     "torch.embedding(weight, input)\nRuntimeError: CUDA error: an illegal memory access was encountered\n",
     "library_bug"),
    ("  File \"/home/ana/proj/model.py\", line 40, in forward\n    x = x[idx]\nRuntimeError: CUDA error: an illegal "
     "memory access was encountered\n", "library_bug"),
    # a shape mismatch stays the calling code's alone
    ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 256x10)\n", "library_bug"),
    # a top-level module a package that builds no CUDA extension imports: no extension_not_compiled reading
    (READINGS[6][0], "extension_not_compiled"),
    # a one-word name (a module alias, a class of the standard library) or a module's name: no release reading
    ("NameError: name 'Image' is not defined\n", "package_api_version_mismatch"),
    ("NameError: name 'torch' is not defined\n", "package_api_version_mismatch"),
    ("NameError: name 'CUDA_HOME' is not defined\n", "package_api_version_mismatch"),
    # importlib.metadata's PackageNotFoundError is a distribution not installed here, no channel's missing build
    ("importlib.metadata.PackageNotFoundError: No package metadata was found for flashinfer\n",
     "package_no_build_for_platform"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)


@pytest.mark.parametrize("key", ("conda_packages_not_found", "python_class_name_undefined"))
def test_new_rows_match_their_example_and_stay_linear(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


def test_conda_row_names_no_kaolin():
    f = explain_result(next(t for t, _ in READINGS if "win-64 channels" in t), similar=False).findings[0]
    assert "kaolin" not in f.title.lower() and any(c.startswith("conda info") for c in f.fix.commands)


def test_the_second_reading_of_a_calling_code_check_is_a_note():
    from smrnb.doctor import explain

    text = ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
            "cpu!\n")
    fs = explain_result(text, similar=False).findings
    assert [f.code for f in fs[:2]] == ["user_code_error", "library_bug"]
    assert fs[1].severity == "info" and "Not your environment" in fs[1].title
    assert explain(text, live=False).exit_code == 0


def test_submodule_absent_is_read_from_the_package_file():
    ev = [e for e in read_text("ImportError: cannot import name 'data' from partially initialized module 'kit' (most "
                               "likely due to a circular import) (/src/kit/kit/__init__.py)\n")["torch"]["events"]
          if e.get("kind") == "module_missing"]
    assert ev and ev[0]["submodule_absent"] == "/src/kit/kit/__init__.py"


@pytest.mark.parametrize(("text", "words"), [
    (READINGS[0][0], ("geomkit's folder has no module meshes", "git pull")),
    (READINGS[6][0], ("No module named 'aiohttp_cors'", "pip install aiohttp_cors")),  # (round 27a) its install
    (READINGS[9][0], ("functools.py", "mv functools.py")),
])
def test_findings_name_the_module_and_what_to_run(text, words):
    f = explain_result(text, similar=False).findings[0]
    title, commands = words
    assert title in f.title
    assert any(commands in c for c in f.fix.commands)
    assert not any("CUDA_LAUNCH_BLOCKING" in c for c in f.fix.commands)
