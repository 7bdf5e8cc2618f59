# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 25a (the released parts' misses of package_api_version_mismatch and library_bug, read from Python's
own mechanisms): a name missing from a module Python found (a dotted "No module named 'X.Y'" in Python 3's quoted
words, "module 'X' has no attribute 'Y'" in either quotes, "cannot import name 'Y' from 'X'", a bare "cannot import
name 'Y'" with no module named): another release of X first, X's own release (or the caller's guard) second; the
project's own module (its file outside every installed tree) its checkout's fault first; importlib's "'X' is not a
package" (a file of the user's own named X.py); a private name of torch's Python modules (apex, deepspeed) another
torch release; triton's module imported by another package that package's release; torch's "Numpy is not available"
and Cython's "numpy.dtype size changed"; an attribute missing inside an installed package's own code with no frame of
the project's; IPython 8's frame header; a callee named through a package's conventional short name; and the
messages of the user_code_error and library_bug misses: argparse's and tyro's refusals of a command line, nbformat's
NotJSONError (a saved web page, or the project's broken file), SIBR's missing cfg_args, Colab's UTF-8 locale check,
yacs' "Non-existent config key".
Each text is written for the test (other wordings, tools and packages than the threads); each kind has near-misses
that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

API, BUG = "package_api_version_mismatch", "library_bug"

READINGS = [
    # a dotted module missing: Python found the package above it
    ("Traceback (most recent call last):\n  File \"/home/li/seg/export.py\", line 4, in <module>\n    from "
     "segment_anything.utils.onnx import SamOnnxModel\nModuleNotFoundError: No module named "
     "'segment_anything.utils.onnx'\n$ pip install segment-anything\n", API),
    ("E   ModuleNotFoundError: No module named 'gymnasium.wrappers.monitoring'\n$ pip list\ngymnasium        1.0.0\n",
     API),
    ("$ pip install -U albumentations\n`import albumentations.augmentations.transforms` then gives\n"
     "ModuleNotFoundError: No module named "
     "\"albumentations.augmentations.transforms\"\n", API),
    # a name missing from a module, in Python's words or retyped in double quotes
    ("AttributeError: module 'gradio' has no attribute 'Box'\n>>> gradio.__version__\n'4.12.0'\n", API),
    ("pip install emd-tools\n    ed = emd_tools.EarthMover(a, b)\nAttributeError: module 'emd_tools' has no "
     "attribute 'EarthMover'\n", API),
    ("the error says module \"skimage.measure\" has no attribute \"marching_cubes_classic\"\n", API),
    ("ImportError: cannot import name 'VectorQuantizer2' from 'vqtorch.nn' (unknown location)\n$ pip list | grep "
     "vqtorch\nvqtorch        0.1.0\n", API),
    ("ImportError: cannot import name 'ModelManager' from 'diffsynth' "
     "(/home/kai/code/DiffSynth-Studio/diffsynth/__init__.py)\n", API),
    # the name alone (Python before 3.7, a title)
    ("ImportError: cannot import name 'AdamW'\ntransformers      4.46.0\ntorch             2.5.1\n", API),
    ("ImportError: cannot import name DataParallelCriterion\n$ pip install torch-encoding==1.2.1\n", BUG),
    # the project's own module lacks the name its own code imports
    ("ImportError: cannot import name 'build_sampler' from 'lib.datasets' "
     "(/home/zoe/work/mvsnet/lib/datasets/__init__.py)\n", BUG),
    # a private name of torch's own Python modules, looked up by another package
    ("  File \"/usr/local/lib/python3.8/dist-packages/deepspeed/comm/torch.py\", line 20, in <module>\n    rs = "
     "torch.distributed._reduce_scatter_base\nAttributeError: module 'torch.distributed' has no attribute "
     "'_reduce_scatter_base'\n", API),
    # triton's module imported by another installed package
    ("  File \"/opt/env/lib/python3.10/site-packages/bitsandbytes/triton/quantize.py\", line 5, in <module>\n    from "
     "triton.ops.matmul_perf_model import early_config_prune\nModuleNotFoundError: No module named 'triton.ops'\n", API),
    # torch without a usable NumPy, a Cython module built for another NumPy
    ("  File \"/home/x/infer.py\", line 20, in run\n    t = torch.from_numpy(img)\nRuntimeError: Numpy is not "
     "available\n", API),
    ("RuntimeError: Caught RuntimeError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):\n"
     "  File \"/opt/app/data.py\", line 41, in __getitem__\n    return torch.from_numpy(arr)\nRuntimeError: Numpy is "
     "not available\n", API),
    ("  File \"pandas/_libs/interval.pyx\", line 1, in init pandas._libs.interval\nValueError: numpy.dtype size "
     "changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject\n", API),
    ("RuntimeWarning: numpy.ufunc size changed, may indicate binary incompatibility. Expected 232 from C header, got "
     "216 from PyObject\n", API),
    # an attribute missing inside an installed package's own code, no frame of the project's
    ("Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/pythreejs/traits.py\", line 40, in "
     "validate\n    cls._trait_default_generators\nAttributeError: type object 'WebGLRenderer' has no attribute "
     "'_trait_default_generators'\n", BUG),
    # IPython 8's frame header inside an installed package
    ("KeyError                                  Traceback (most recent call last)\nFile ~/envs/a/lib/python3.11/"
     "site-packages/distributed/deploy/spec.py:310, in SpecCluster._start(self)\n--> 310 cls = self.new_spec['cls']\n"
     "KeyError: 'cls'\n", BUG),
    # a callee named through a package's conventional short name
    ("  File \"/home/a/eval.py\", line 30, in main\n    d = pcu.chamfer_distance(a, b, p_norm=3)\nTypeError: "
     "chamfer_distance() got an unexpected keyword argument 'p_norm'\n", API),
]


# (round 25a) the messages of the user_code_error and library_bug misses
READINGS += [
    ("train.py: error: unrecognized arguments: --lr_decay 0.5\n", "user_code_error"),
    ("usage: main.py [-h] [--model {vit_b,vit_l}]\nmain.py: error: argument --model: invalid choice: 'vit_h' (choose "
     "from 'vit_b', 'vit_l')\n", "user_code_error"),
    ("\u256d\u2500 Parsing error \u2500\u2500\u2500\u256e\n\u2502 Unrecognized or misplaced options: "
     "--pipeline.model.near-plane \u2502\n", "user_code_error"),
    ("[W 10:02:11.120 NotebookApp] Unreadable Notebook: /home/u/demo.ipynb NotJSONError('Notebook does not appear to be "
     "JSON: \\'<!DOCTYPE html>\\\\n<html lang=\"en\"...',)\n", "user_code_error"),
    ("nbformat.reader.NotJSONError: Notebook does not appear to be JSON: ''\n", "library_bug"),
    ("[SIBR] ##  ERROR  ##:   config file 'cfg_args' not found at D:\\splats\\bonsai\n", "user_code_error"),
    ("NotImplementedError: A UTF-8 locale is required. Got ISO-8859-1\n", "library_bug"),
    ("KeyError: 'Non-existent config key: SOLVER.WARMUP_SCHEDULE'\n", API),
    # torch's schema refusing an argument's type (a scripted class of an installed package, an operator)
    ("RuntimeError: __init__(__torch__.spmat.Storage self, Tensor? row, Tensor? col) -> (None):\nExpected a value of "
     "type 'Optional[Tensor]' for argument 'row' but instead found type 'int'.\n", API),
    # a REPL's value of X.__version__ shows X as a distribution
    ("AttributeError: module 'plotter3d' has no attribute 'volume'\n>>> import plotter3d\n>>> plotter3d.__version__\n"
     "'0.9.1'\n", API),
]


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[t[:50] for t, _ in READINGS])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


NOT_A_PACKAGE = [
    "ModuleNotFoundError: No module named 'open3d.visualization'; 'open3d' is not a package\n",
    "  File \"/home/u/bench/run.py\", line 2, in <module>\n    import xformers.ops\nModuleNotFoundError: No module "
    "named 'xformers.ops'; 'xformers' is not a package\n",
]


@pytest.mark.parametrize("text", NOT_A_PACKAGE, ids=[t[:50] for t in NOT_A_PACKAGE])
def test_a_parent_that_is_no_package_is_the_users_file(text):
    assert rule_codes(text, n=2) == ["user_code_error"], rule_codes(text, n=4)


NOT = [
    # Python 2's unquoted words name the full dotted name when the top package itself is missing
    ("ImportError: No module named foo_tools.settings\n", API),
    # a circular import, in Python 3.8's words or told
    ("ImportError: cannot import name 'Trainer' from partially initialized module 'trainer' (most likely due to a "
     "circular import) (/home/u/trainer.py)\n", API),
    ("ImportError: cannot import name 'config'\nI think it's a circular import between my two files.\n", API),
    # a module the text shows nowhere as a distribution may be a folder of the project's own: no release to pin
    ("ModuleNotFoundError: No module named 'scene_tools.render'\n", API),
    ("AttributeError: module 'mesh_ops' has no attribute 'simplify'\n", API),
    # a top-level module missing is not another release's API (round 25n's)
    ("ModuleNotFoundError: No module named 'einops'\n", API),
    # a file of the user's own named like the package
    ("  File \"/home/u/proj/trimesh.py\", line 3, in <module>\n    m = trimesh.load('a.obj')\nAttributeError: module "
     "'trimesh' has no attribute 'load'\n", API),
    # words near the messages
    ("NumPy is available in this env: torch.from_numpy works.\n", API),
    ("warning: the struct size changed between builds of our plugin\n", API),
    # an attribute of a compiled module, or torch's own _C, is no private name of torch's Python modules
    ("AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'\n", API),
]


# (round 25a) near the messages: other words, other rows
NOT += [
    ("KeyError: 'config key missing: foo'\n", API),
    ("Could not find config file 'settings.yaml'\n", "user_code_error"),
    ("json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n", "library_bug"),
    # Jupyter's own argv given to a script's argparse is the kernel row's, not another release of the program
    ("ipykernel_launcher.py: error: unrecognized arguments: -f /root/.local/share/jupyter/runtime/kernel-1b2c.json\n",
     API),
]


def test_the_local_rank_row_keeps_its_reading():
    assert rule_codes("train.py: error: unrecognized arguments: --local-rank=0\n", n=2) == [API, "user_code_error"]


@pytest.mark.parametrize(("text", "code"), NOT, ids=[t[:50] for t, _ in NOT])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3), (text, rule_codes(text, n=4))


def test_triton_imported_by_torch_stays_torchs_companion():
    text = ("  File \"/opt/env/lib/python3.10/site-packages/torch/_inductor/triton_heuristics.py\", line 5, in "
            "<module>\n    from triton.common.backend import BaseBackend\nModuleNotFoundError: No module named "
            "'triton.common'\n")
    assert rule_codes(text, n=1) == ["companion_built_for_other_torch"], rule_codes(text, n=4)


def test_a_compiled_ops_module_reads_unbuilt():
    # the first reading is the build's; round 25b's compiled-suffix rule ("_op", "_ops") decides it before round 25a's
    # dotted-module rule, which would add another release second: merged, the suffix rule answers alone
    text = "ModuleNotFoundError: No module named 'ops.voxel_op'\n"
    assert rule_codes(text, n=1) == ["extension_not_compiled"], rule_codes(text, n=4)


@pytest.mark.parametrize(("table", "key"), [
    ("library_messages", "torch_numpy_not_available"), ("library_messages", "cython_numpy_type_size_changed"),
    ("library_messages", "argparse_unrecognized_arguments"), ("library_messages", "cli_invalid_or_misplaced_choice"),
    ("library_messages", "nbformat_not_json_html"), ("library_messages", "nbformat_not_json"),
    ("library_messages", "sibr_gaussian_viewer_no_cfg_args"), ("library_messages", "colab_utf8_locale_required"),
    ("library_messages", "yacs_nonexistent_config_key"), ("library_messages", "torch_schema_argument_type"),
])
def test_new_rows_match_their_example_and_stay_linear(table, key):
    assert_row_matches_its_example_and_stays_linear(table, key)


def _first(text: str):
    return explain_result(text, similar=False).findings


def test_fix_bounds_the_release_the_text_shows():
    # (round 35e: gradio.Box is now a row of tables/removed_apis.csv, removed in gradio 4.0, whose fix pins "gradio<4.0";
    # librosa.output, in no table, keeps this test on the reading of a name the tables do not know)
    f = _first("AttributeError: module 'librosa' has no attribute 'output'\n$ pip list | grep librosa\nlibrosa==0.10.1\n")[0]
    assert f.code == API and "librosa" in f.title
    assert any('pip install "librosa<0.10.1"' in c for c in f.fix.commands), f.fix.commands


def test_fix_without_a_release_names_the_projects_requirements():
    f = _first("ModuleNotFoundError: No module named 'gymnasium.wrappers.monitoring'\n$ pip install gymnasium\n")[0]
    assert f.code == API and any("pip show gymnasium" in c for c in f.fix.commands)
    assert any("requirements" in c for c in f.fix.commands) and not any("<" in c.split("#")[0] for c in
                                                                         f.fix.commands), f.fix.commands


def test_fix_of_the_projects_own_module_names_its_file():
    fs = _first("ImportError: cannot import name 'build_sampler' from 'lib.datasets' "
                "(/home/zoe/work/mvsnet/lib/datasets/__init__.py)\n")
    assert [f.code for f in fs[:2]] == [BUG, "user_code_error"]
    assert "/home/zoe/work/mvsnet/lib/datasets/__init__.py" in fs[0].title
    assert any("git -C" in c and "mvsnet/lib/datasets" in c for c in fs[0].fix.commands)
    assert "calling code" not in fs[1].title and "your copy" in fs[1].title


def test_library_bug_reading_names_the_package_and_a_reinstall():
    fs = _first("ModuleNotFoundError: No module named 'gymnasium.wrappers.monitoring'\n$ pip install gymnasium\n")
    bug = next(f for f in fs if f.code == BUG)
    assert "gymnasium" in bug.title and any("--force-reinstall" in c for c in bug.fix.commands)


def test_numpy_fix_pins_numpy_below_2():
    f = _first("RuntimeError: Numpy is not available\n")[0]
    assert f.code == API and any("numpy<2" in c for c in f.fix.commands)


def test_message_rows_print_their_own_commands():
    f = _first("ns-train: error: unrecognized arguments: --trainer.load-dir outputs/x\n")[0]
    assert f.code == "user_code_error" and any("--help" in c for c in f.fix.commands), f.fix.commands
    f = _first("NotImplementedError: A UTF-8 locale is required. Got ANSI_X3.4-1968\n")[0]
    assert f.code == "library_bug" and "Colab" in f.title and any("getpreferredencoding" in c for c in f.fix.commands)
    f = _first("nbformat.reader.NotJSONError: Notebook does not appear to be JSON: ''\n")[0]
    assert f.code == "library_bug" and any("json.tool" in c for c in f.fix.commands), f.fix.commands
