# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 31c (library_bug: the fix was a release of a library, or a patch to it) read by its mechanism: a
package's own relative import of a sibling module its folder lacks; a named release the text says is buggy or broken;
Python 2's "'module' object has no attribute" named by the source line above it; a library's own words that the
failure is its bug (numba, JAX, pybind11, CPython's SystemError, TorchDynamo); ipykernel's OutStream cut or retyped;
JavaScript for the classic Notebook written by a package; GLFW's macOS lookup older than Apple Silicon; a file opened
at the CI runner's path that built the release; nvcc's second input from a build folder with a space; a crash right at
one package's import; pip given a project folder that is no package.
Each text is written for the test (other wordings, paths and packages than the threads); each kind has near-misses
that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # a package's own relative import of a sibling module its folder lacks
    ("  File \"/opt/venv/lib/python3.8/site-packages/segkit-0.4.0-py3.8.egg/segkit/heads/__init__.py\", line 7, in "
     "<module>\n    from .aspp_dual import ASPPDualHead\nModuleNotFoundError: No module named "
     "'segkit.heads.aspp_dual'\n", "library_bug"),
    ("---> 14 from .fusion_block import FusionBlock\n\nModuleNotFoundError: No module named "
     "'det3d.models.necks.fusion_block'\n", "library_bug"),
    ("  File \"/home/me/proj/mylib/ops/__init__.py\", line 2, in <module>\n    from . import voxel_pool, knn_query\n"
     "ModuleNotFoundError: No module named 'mylib.ops.knn_query'\n", "library_bug"),
    # a named release said to be buggy itself
    ("splatlib==1.2.3 has bug\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    "
     "import splatlib\nImportError: cannot import name 'rasterize' from 'splatlib'\n", "library_bug"),
    ("Cannot render because of a bug inside meshtools lib v 0.9.1\nKeyError: 'faces'\n", "library_bug"),
    ("pointops 3.1.0 introduced a bug in knn: RuntimeError: index out of range\n", "library_bug"),
    # Python 2's module AttributeError named by the source line under the last frame
    ("  File \"build/bdist.linux-x86_64/egg/audiokit/filters.py\", line 40, in MelFilter\n    fn=torch.hamming_window, "
     "n=0):\nAttributeError: 'module' object has no attribute 'hamming_window'\n", "package_api_version_mismatch"),
    # a library's own words that the failure is its bug
    ("numba.core.errors.LoweringError: Failed in nopython mode pipeline (step: native lowering)\nThis should not have "
     "happened, a problem has occurred in Numba's internals. You are currently using Numba version 0.57.1.\n",
     "library_bug"),
    ("RuntimeError: Invalid argument: Input dimension should be either 1 or equal to the output dimension it is "
     "broadcasting into\nThis is a bug in JAX's shape-checking rules; please report it!\n", "library_bug"),
    ("pybind11::handle::inc_ref() is being called while the GIL is either not held or invalid. Please see "
     "https://pybind11.readthedocs.io/en/stable/advanced/misc.html for debugging advice.\nAborted (core dumped)\n",
     "library_bug"),
    ("SystemError: <built-in method render of Surface object at 0x7f11> returned NULL without setting an exception\n",
     "library_bug"),
    ("SystemError: <built-in function decode> returned a result with an error set\n", "library_bug"),
    ("torch._dynamo.exc.InternalTorchDynamoError: AttributeError: 'NoneType' object has no attribute 'fake_mode'\n",
     "library_bug"),
    # ipykernel's OutStream: the class name cut at the text's end, or retyped
    ("--> 88         self.out = sys.stdout.buffer\n\nAttributeError: 'OutStream", "library_bug"),
    ("\"OutStream\" object does not have attribute 'buffer' when I call tool.main() in the notebook\n", "library_bug"),
    # classic-Notebook JavaScript written by a package on import: its release second
    ("When I import plotkit in JupyterLab 4 I get\nJavascript Error: IPython is not defined\n", "library_bug"),
    ("Javascript Error: Jupyter is not defined\nthe widget of vizpack does not show in VS Code\n", "library_bug"),
    # GLFW's macOS display lookup older than Apple Silicon
    ("[Open3D WARNING] GLFW Error: Cocoa: Failed to find service port for display\n", "library_bug"),
    ("glfw.GLFWError: (65544) b'Cocoa: Failed to find service port for display' on my M2 MacBook\n", "library_bug"),
    # a file opened at the CI runner's workspace that built the release
    ("[error] renderer.cpp:120 Failed to open file: D:\\a\\SplatView\\SplatView\\build\\shaders\\gen\\rast.spv\n",
     "library_bug"),
    ("FileNotFoundError: [Errno 2] No such file or directory: "
     "'/home/runner/work/meshkit/meshkit/data/templates/base.obj'\n", "library_bug"),
    ("Could not load resource /Users/runner/work/vizapp/vizapp/assets/fonts/Inter.ttf\n", "library_bug"),
    # nvcc's second input from a build folder whose path has a space
    ("D:\\My Projects\\ngp clone\\instant-ngp>cmake --build build --config RelWithDebInfo -j 8\n"
     "nvcc fatal   : A single input file is required for a non-link phase when an outputfile is specified\n",
     "library_bug"),
    ("(ngp) C:\\Users\\Jo Smith\\code\\tcnn>python setup.py install\nnvcc fatal : A single input file is required "
     "for a non-link phase when an outputfile is specified\n", "library_bug"),
    # a crash right at one package's import (glibc's heap checks too)
    (">>> import graphkit\nfree(): invalid pointer\nAborted (core dumped)\n", "library_bug"),
    (">>> import meshops\nSegmentation fault (core dumped)\n", "library_bug"),
    ("$ python -c 'import pcl_tools'\ndouble free or corruption (out)\nAborted (core dumped)\n", "library_bug"),
    # a limit macro retyped in backticks in a title (nvcc's / GCC's own forms were read before)
    ("`FLT_MAX` undefined in CUDA 12.6 for the raster examples\n", "library_bug"),
    ("`INT_MAX` is not declared when building with gcc 13\n", "library_bug"),
    # a release before said to work, no number ("it worked in previous versions")
    ("KeyError: 'uv_attr'\nIt worked in previous versions of the shader package.\n", "library_bug"),
    ("ValueError: bad vertex layout\nthis used to work with an older release\n", "library_bug"),
    # NCCL's unhandled CUDA error inside torch's own process group (the NCCL its wheel pins)
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
     "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n", "library_bug"),
    ("RuntimeError: NCCL error in: /opt/pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled cuda error, NCCL "
     "version 2.10.3\n", "library_bug"),
    # torch's own two answers disagree: is_available() True, device_count() 0
    ("In my environment `torch.cuda.is_available()` is `True` but `torch.cuda.device_count()` is `0`.\n",
     "library_bug"),
    (">>> torch.cuda.is_available() returns True\n>>> torch.cuda.device_count() -> 0\n", "library_bug"),
    # the one package the person imports pulls a module this Python lacks: its release not declaring it second
    ("When I import graphlib2 it returns ModuleNotFoundError: No module named 'psutil'\n", "library_bug"),
    ("In [1]: import meshkit\nModuleNotFoundError: No module named 'rtree'\n", "library_bug"),
    ("$ python -c \"import meshkit\"\nModuleNotFoundError: No module named 'rtree'\n", "library_bug"),
    # a GitHub release asset the code downloads said missing
    ("Downloading: https://github.com/acme/depthnet/releases/download/v3_0/dpt_large-2f21e586.pt returns 404\n",
     "library_bug"),
    ("torch.hub.load fails: the link github.com/acme/segnet/releases/download/v1/model.pth does not exist anymore\n",
     "library_bug"),
    # pip given a project folder (not a submodule folder) with no packaging file
    ("$ cd lrm && pip install -e .\nObtaining file:///home/me/Any3D/lrm\nERROR: file:///home/me/Any3D/lrm does not "
     "appear to be a Python project: neither 'setup.py' nor 'pyproject.toml' found.\n", "library_bug"),
]


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[t[:50] for t, _ in READINGS])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


#: wordings earlier rounds already read (files said missing, round 22; a regression said, round 24): kept apart as
#: guards that the round's readings leave them as they were
GUARDS = [
    "ModuleNotFoundError: No module named 'nerfkit.fields.hash_grid_v2'\nthe __init__.py of fields has\n"
    "from .hash_grid import HashGrid\nfrom .hash_grid_v2 import HashGridV2\nbut I cannot find hash_grid_v2.py\n",
    "There is a regression in voxelops 2.0.1: the forward pass returns NaN\n",
]


@pytest.mark.parametrize("text", GUARDS, ids=[t[:50] for t in GUARDS])
def test_earlier_readings_kept(text):
    assert "library_bug" in rule_codes(text, n=2), (text, rule_codes(text, n=4))


NOT = [
    # a compiled module of the package (its build), torch's generated version file: not a sibling file missing
    ("  File \"/home/me/mmx/mmx/ops/__init__.py\", line 1, in <module>\n    from ._ext import nms\n"
     "ModuleNotFoundError: No module named 'mmx.ops._ext'\n", "library_bug"),
    ("  File \"/workspace/torch/__init__.py\", line 16, in <module>\n    from .version import __version__\n"
     "ModuleNotFoundError: No module named 'torch.version'\n", "library_bug"),
    ("  File \"/src/kit/kit/__init__.py\", line 3, in <module>\n    from .version import __version__\n"
     "ModuleNotFoundError: No module named 'kit.version'\n", "library_bug"),
    # an absolute import of another distribution, no relative import shown
    ("  File \"/home/me/proj/train.py\", line 4, in <module>\n    from mmseg.models.backbones.pvt_dia import x\n"
     "ModuleNotFoundError: No module named 'mmseg.models.backbones.pvt_dia'\n", "library_bug"),
    # the system's parts said broken are not a package's release
    ("Python 3.12 is broken for this project\nModuleNotFoundError: No module named 'distutils'\n", "library_bug"),
    ("CUDA 12.1 has a bug with my driver\n", "library_bug"),
    ("Ubuntu 22.04 is broken for this build of the kernel module\n", "library_bug"),
    # a release number without a package before it
    ("I think version 1.2 has a bug, or my config is wrong\nKeyError: 'layers'\n", "library_bug"),
    # Python 3's own form stays what it was; Python 2's without a source line naming the module is not read
    ("AttributeError: 'module' object has no attribute 'foo'\n", "package_api_version_mismatch"),
    # numba's typing error blames the code, not numba
    ("numba.core.errors.TypingError: Failed in nopython mode pipeline (step: nopython frontend)\nThis is not usually "
     "a problem with Numba itself but instead often caused by the use of unsupported features or an issue in "
     "resolving types.\n", "library_bug"),
    # a file of the user's own machine, not a CI runner's workspace (one name, not twice)
    ("Failed to open file: D:\\a\\shaders\\gen\\rast.spv\n", "library_bug"),
    ("FileNotFoundError: [Errno 2] No such file or directory: '/home/runner/data/x.obj'\n", "library_bug"),
    # a space only in the toolkit's own Program Files path
    ("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin>nvcc -c a.cu b.cu -o x.o\nnvcc fatal   : A "
     "single input file is required for a non-link phase when an outputfile is specified\n", "library_bug"),
    # a crash with no import right before it, or at torch's own import
    ("free(): invalid pointer\nAborted (core dumped)\n", "library_bug"),
    (">>> import torch\nSegmentation fault (core dumped)\n", "library_bug"),
    # an empty git submodule: the clone, not the project's instructions
    ("ERROR: Directory 'submodules/simple-knn' is not installable. Neither 'setup.py' nor 'pyproject.toml' found.\n",
     "library_bug"),
    ("ERROR: file:///home/me/proj/third_party/nvdiffrast does not appear to be a Python project: neither 'setup.py' "
     "nor 'pyproject.toml' found.\n", "library_bug"),
    # an older release of the OS or Python said to work is not the package's release
    ("KeyError: 'uv_attr'\nIt worked on an older version of Ubuntu\n", "library_bug"),
    # NCCL's unhandled CUDA error of a program built apart (a distribution's libnccl of another CUDA): not torch's
    ("NCCL failure common.cu:908 'unhandled cuda error'\ncuda 8.0.61, nccl 2.1.15 from the network repo\n",
     "library_bug"),
    # another library's is_available, or a wish: not torch's answer
    ("How to make o3d.core.cuda.is_available() True, I got a Nvidia GPU\ntorch.cuda.device_count() is 0\n",
     "library_bug"),
    # the person's import of the missing module itself, or of two packages: no other package's import
    (">>> import rtree\nModuleNotFoundError: No module named 'rtree'\n", "library_bug"),
    (">>> import meshkit\n>>> import viewkit\nModuleNotFoundError: No module named 'rtree'\n", "library_bug"),
    # a release asset named without a failure on its line
    ("pip install https://github.com/acme/kit/releases/download/v1/kit-1.0-py3-none-any.whl\nERROR: No matching "
     "distribution found for torch==1.4.0\n", "library_bug"),
    # a limit macro named without backticks in prose: not read
    ("FLT_MAX is fine here, the build fails later\n", "library_bug"),
    # GLFW without a display on Linux: not the macOS lookup
    ("glfw.GLFWError: (65544) b'X11: The DISPLAY environment variable is missing'\n", "library_bug"),
]


@pytest.mark.parametrize(("text", "code"), NOT, ids=[t[:50] for t, _ in NOT])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=2), (text, rule_codes(text, n=4))


def test_guards_kept():
    # the empty submodule stays the first reading; the JavaScript error is still the calling code's first; the typing
    # error of numba is not read as its bug
    assert rule_codes("ERROR: Directory 'submodules/simple-knn' is not installable. Neither 'setup.py' nor "
                      "'pyproject.toml' found.\n", n=1) == ["extension_not_compiled"]
    assert rule_codes("Javascript Error: IPython is not defined\n", n=1) == ["user_code_error"]
    # 'is broken' without a bug said: the code written for the release before first
    assert rule_codes("Renderkit 3.7.0 is broken but 3.6.4 works\n  File \"/opt/conda/lib/python3.10/site-packages/"
                      "projkit/projector.py\", line 132, in traverse\n    cb.put_parameter('data', self.data)\n"
                      "AttributeError: 'SceneTraversal' object has no attribute 'put_parameter'\n",
                      n=1) == ["package_api_version_mismatch"]


@pytest.mark.parametrize("key", ["glfw_cocoa_no_service_port", "ci_build_path_file_missing", "numba_internal_error",
                                 "github_release_asset_missing",
                                 "jax_shape_check_bug", "pybind11_gil_not_held", "cpython_null_without_error",
                                 "ipykernel_outstream_no_fd"])
def test_new_rows_match_their_examples(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


def test_dynamo_row_matches_its_example():
    assert_row_matches_its_example_and_stays_linear("torch_messages", "dynamo_internal_error")


def _finding(text: str, code: str):
    return next(f for f in explain_result(text, similar=False).findings if f.code == code)


def test_release_bug_fix_names_the_release_before():
    f = _finding("nerfkit==0.3.4 has bug\nImportError: cannot import name 'csrc' from 'nerfkit'\n", "library_bug")
    print(f.title, f.fix.why, f.fix.commands, sep="\n")
    assert "nerfkit 0.3.4" in f.title
    assert any("nerfkit!=0.3.4" in c for c in f.fix.commands)


def test_sibling_module_fix_says_the_release_lacks_the_file():
    f = _finding("---> 11 from .pvt_dia import pvt_small_dia\nModuleNotFoundError: No module named "
                 "'mmseg.models.backbones.pvt_dia'\n", "library_bug")
    print(f.title, f.fix.why, f.fix.commands, sep="\n")
    assert "has no module pvt_dia" in f.title and any("git pull" in c for c in f.fix.commands)


def test_space_path_fix_names_the_folder():
    f = _finding("E:\\my code\\ngp>cmake --build build\nnvcc fatal   : A single input file is required for a "
                 "non-link phase when an outputfile is specified\n", "library_bug")
    print(f.title, f.fix.why, f.fix.commands, sep="\n")
    assert "E:\\my code\\ngp" in f.title and "without spaces" in f.fix.why


def test_library_says_bug_readings_say_what_decides():
    text = ("This should not have happened, a problem has occurred in Numba's internals. You are currently using "
            "Numba version 0.57.1.\n")
    bug, own = _finding(text, "library_bug"), _finding(text, "user_code_error")
    print(bug.title, bug.fix.commands, own.title, sep="\n")
    assert "Numba" in bug.title and any("numba" in c for c in bug.fix.commands)
    assert "nopython" in own.title and any("NUMBA_DISABLE_JIT" in c for c in own.fix.commands)


def test_import_crash_fix_names_the_package():
    f = _finding(">>> import graphkit\nfree(): invalid pointer\nAborted (core dumped)\n", "library_bug")
    print(f.title, f.fix.commands, sep="\n")
    assert "import graphkit" in f.title and any("faulthandler" in c for c in f.fix.commands)


def test_ci_path_fix_says_nothing_to_create():
    f = _finding("Failed to open file: D:\\a\\SplatView\\SplatView\\shaders\\rast.spv\n", "library_bug")
    print(f.title, f.fix.why, f.fix.commands, sep="\n")
    assert "machine that built its release" in f.title and "nightly" in f.fix.why
