"""Session 36's mends of what the round-35 notes left: a paste's ``**kwargs`` kept, huggingface_hub 1.0's removed
``huggingface-cli``, a pickled object's titles, and the pieces two rules wrote twice (one Damerau edit, the
submodule commands, the file Python prints for a half-initialised module)."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor._paste import drop_bold, normalise
from smrnb.doctor.rules._abi import module_file_in_package_place, printed_module_file
from smrnb.doctor.rules._events import GIT_SUBMODULE_OVER_HTTPS, one_edit


def _findings(text: str):
    return explain_result(text, similar=False).findings


def _commands(f) -> list[str]:
    return list(getattr(f.fix, "commands", ()) or ())


# --- the paste normaliser: markdown's bold goes, Python's ** stays ------------------------------------------------


@pytest.mark.parametrize("text", [
    "    return forward_call(*args, **kwargs)",
    "def f(**kw): return g(**kw)",
    "x**2 + y**2",
    "f(**a, **b)",
    "make: *** [all] Error 2",
    "/home/***/envs/x",
    "(a+b)**0.5 and n ** 3",
    "foo(a,\n    **kwargs\n)",
    "TypeError: __init__() got an unexpected keyword argument 'scale' in Model(**cfg)",
])
def test_python_double_star_is_kept(text):
    assert normalise(text) == text


@pytest.mark.parametrize("text, plain", [
    ("no **CUDA-capable device** is detected", "no CUDA-capable device is detected"),
    ("**Error:** cannot open shared object file", "Error: cannot open shared object file"),
    ("a **b** and **c**", "a b and c"),
    ("f(**a, **b) **Note** here", "f(**a, **b) Note here"),
    ("my NVIDIA GeForce GTX 980 Ti**. Latest CUDA", "my NVIDIA GeForce GTX 980 Ti. Latest CUDA"),
    ("_**RuntimeError: Expected all tensors**_", "_RuntimeError: Expected all tensors_"),
    ("but **no `nvidia-cudnn-*` is added**:", "but no `nvidia-cudnn-*` is added:"),
    ("** ImportError: libGL.so.1: cannot open**", " ImportError: libGL.so.1: cannot open"),
])
def test_markdown_bold_is_dropped(text, plain):
    assert normalise(text) == plain
    assert drop_bold(plain) == plain


def test_bold_around_a_block_of_lines_is_dropped():
    # a traceback bolded whole in a forum post: the marks open its first line and close its last
    text = ("I get this error\n\n**File \"/h/lib/python3.6/site-packages/spconv/utils/__init__.py\", line 65, in "
            "points_to_voxel\n    assert block_filtering is False\nAssertionError**\n\n    foo(a,\n        **kwargs)\n")
    assert normalise(text) == text.replace("**File", "File").replace("AssertionError**", "AssertionError")


def test_a_pasted_frame_keeps_its_kwargs_in_the_evidence():
    text = ("Traceback (most recent call last):\n  File \"run.py\", line 10, in <module>\n    y = model(x)\n"
            "  File \"/usr/lib/python3/site-packages/torch/nn/modules/module.py\", line 1501, in _call_impl\n"
            "    return forward_call(*args, **kwargs)\n"
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total "
            "capacity; 20.1 GiB already allocated)\n")
    assert normalise(text) == text
    assert _findings(text)[0].code == "cuda_oom"


# --- huggingface_hub 1.0 removed huggingface-cli (hf in its place, from 0.34.0) ------------------------------------

HF_CLI = "$ huggingface-cli login\nbash: huggingface-cli: command not found\n"


def test_huggingface_cli_without_a_release_shown_gets_both_readings():
    found = _findings(HF_CLI)
    assert [f.code for f in found[:2]] == ["package_api_version_mismatch", "python_package_missing"]
    assert "huggingface_hub 1.0.0 removed huggingface-cli" in found[0].title
    assert any(c.startswith("hf --help") for c in _commands(found[0]))
    assert any("huggingface_hub/releases/tag/v1.0.0" in str(e) for e in found[0].evidence)
    assert "1.0.0 or later, which has no huggingface-cli" in found[1].title  # what would decide, in the second


def test_huggingface_cli_with_hub_1_shown_is_the_removal_alone():
    found = _findings(HF_CLI + "$ pip show huggingface_hub\nName: huggingface_hub\nVersion: 1.1.2\n")
    assert [f.code for f in found] == ["package_api_version_mismatch"]


def test_huggingface_cli_with_an_older_hub_shown_is_the_install_alone():
    found = _findings(HF_CLI + "huggingface_hub==0.20.1\n")
    assert [f.code for f in found] == ["python_package_missing"]
    assert "hf" not in found[0].title.split() and "removed" not in found[0].title


def test_another_console_script_is_unchanged():
    found = _findings("bash: tensorboard: command not found\n")
    assert [f.code for f in found] == ["python_package_missing"]
    assert "removed" not in found[0].title


# --- a pickled object: the saved file is what another release wrote, no line of code to change --------------------

DGL_PICKLE = ("Traceback (most recent call last):\n  File \"main.py\", line 20, in <module>\n"
              "    data = torch.load(\"graphs.pt\")\n"
              "AttributeError: Can't get attribute 'DGLHeteroGraph' on <module 'dgl.heterograph' from "
              "'/opt/conda/lib/python3.9/site-packages/dgl/heterograph.py'>\n")
DGL_IMPORT = ("  File \"run.py\", line 5, in <module>\n    from dgl.heterograph import DGLHeteroGraph\n"
              "ImportError: cannot import name 'DGLHeteroGraph' from 'dgl.heterograph' "
              "(/usr/lib/python3.10/site-packages/dgl/heterograph.py)\n")
YOLO_PICKLE = ("Traceback (most recent call last):\n  File \"detect.py\", line 12, in <module>\n"
               "    model = torch.load('yolov5s.pt', map_location=device)['model'].float()\n"
               "AttributeError: Can't get attribute 'DetectionModel' on <module 'models.yolo' from "
               "'/home/u/catkin_ws/src/yolov5/models/yolo.py'>\n")


def test_a_pickled_removed_class_blames_the_saved_object_not_the_code():
    first, second = _findings(DGL_PICKLE)[:2]
    assert first.code == "package_api_version_mismatch"
    assert "saved object" in first.title and "code was written for" not in first.title
    assert not any(c.startswith("# change the code") for c in _commands(first))
    assert second.code == "library_bug" and "saved file" in second.title
    assert not any("--include=*.py" in c for c in _commands(second))  # no calls to grep for


def test_the_same_removed_class_imported_by_code_still_blames_the_code():
    first = _findings(DGL_IMPORT)[0]
    assert first.code == "package_api_version_mismatch" and "the code was written for an older release" in first.title


def test_a_pickled_class_a_later_release_added_says_the_file_is_newer():
    first = next(f for f in _findings(YOLO_PICKLE) if f.code == "package_api_version_mismatch")
    assert "saved object" in first.title and "written by" in first.title
    assert any("git -C" in c for c in _commands(first))


# --- pieces written once ------------------------------------------------------------------------------------------


def _damerau_one(a: str, b: str) -> bool:
    """One insertion, deletion, substitution or swap of neighbours, by brute force over every edit of ``a``."""
    letters = set(a + b) | {"#"}
    edits = {a[:i] + a[i + 1:] for i in range(len(a))}
    edits |= {a[:i] + c + a[i:] for i in range(len(a) + 1) for c in letters}
    edits |= {a[:i] + c + a[i + 1:] for i in range(len(a)) for c in letters}
    edits |= {a[:i] + a[i + 1] + a[i] + a[i + 2:] for i in range(len(a) - 1)}
    return a != b and b in edits


hypothesis = pytest.importorskip("hypothesis", reason="hypothesis (a test dependency) is not installed")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_NAMES = st.text(alphabet="abcx_", max_size=7)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(_NAMES, _NAMES)
def test_one_edit_is_one_damerau_edit(a, b):
    assert one_edit(a, b) == _damerau_one(a, b) == one_edit(b, a)


def test_both_readings_of_an_ssh_submodule_print_the_same_commands():
    text = ("Cloning into '/home/kim/gs/submodules/diff-gaussian-rasterization'...\n"
            "git@github.com: Permission denied (publickey).\n"
            "fatal: Could not read from remote repository.\n"
            "fatal: clone of 'git@github.com:graphdeco-inria/diff-gaussian-rasterization.git' into submodule path "
            "'/home/kim/gs/submodules/diff-gaussian-rasterization' failed\n")
    found = [f for f in _findings(text) if _commands(f)[:2] == GIT_SUBMODULE_OVER_HTTPS]
    assert len({f.code for f in found}) == 2


@pytest.mark.parametrize("line, want", [
    ("ImportError: cannot import name 'Image' from partially initialized module 'PIL' (most likely due to a circular "
     "import) (/home/u/PIL.py)", ("PIL", "/home/u/PIL.py")),
    ("AttributeError: partially initialized module 'torch' from '/home/u/torch.py' has no attribute 'nn' (most "
     "likely due to a circular import)", ("torch", "/home/u/torch.py")),
    ("AttributeError: module 'torch' has no attribute 'nn'", ("", "")),
])
def test_the_file_python_prints_for_a_half_initialised_module(line, want):
    assert printed_module_file(line) == want


def test_a_file_in_a_package_place_and_the_package_checkout():
    assert module_file_in_package_place({"line": "AttributeError: partially initialized module 'torch' from "
                                                 "'/home/u/torch.py' has no attribute 'nn'"}) == "/home/u/torch.py"
    assert module_file_in_package_place({"line": "AttributeError: partially initialized module 'yolo' from "
                                                 "'/home/u/yolo/yolo.py' has no attribute 'x'"}) == ""


# --- pip's own forms of a release (the text as a machine: loader.package_releases) ---------------------------------

from smrnb.doctor._textfacts import read_text  # noqa: E402


def _releases(text: str) -> dict:
    return (read_text(text).get("loader") or {}).get("package_releases") or {}


@pytest.mark.parametrize("text, want", [
    ("$ pip show huggingface_hub\nName: huggingface_hub\nVersion: 1.1.2\nSummary: Client library\n",
     {"huggingface_hub": ["1.1.2"]}),
    ("Successfully installed huggingface-hub-1.1.2 tokenizers-0.20.0 torch-2.1.0+cu121 mmcv-full-1.7.2\n",
     {"huggingface_hub": ["1.1.2"], "tokenizers": ["0.20.0"], "torch": ["2.1.0"], "mmcv_full": ["1.7.2"]}),
    ("  Downloading transformers-4.46.0-py3-none-any.whl (10.0 MB)\n", {"transformers": ["4.46.0"]}),
    ("  Using cached https://download.pytorch.org/whl/cu121/torch-2.1.0%2Bcu121-cp310-cp310-linux_x86_64.whl\n",
     {"torch": ["2.1.0"]}),
    ("Collecting flash-attn\n  Downloading flash_attn-2.5.8.tar.gz (2.5 MB)\n", {"flash_attn": ["2.5.8"]}),
    ("torch                     2.3.1+cu121\n", {"torch": ["2.3.1"]}),
])
def test_pip_forms_of_a_release_are_read(text, want):
    got = _releases(text)
    assert {k: got.get(k) for k in want} == want


def test_a_version_split_by_a_path_is_no_release():
    assert "v1.2" not in _releases("see v1.2-3.4.tar.gz\n")


def test_pip_show_decides_a_removal_reading():
    # the release pip show prints is older than the removal: the removal row does not explain the missing name
    text = ("AttributeError: module 'numpy' has no attribute 'float'\n$ pip show numpy\nName: numpy\nVersion: 1.23.5\n")
    assert not any("removed in NumPy 1.24" in f.title or "removed in numpy 1.24" in f.title for f in _findings(text))
    later = text.replace("1.23.5", "1.26.4")
    assert any("1.24" in f.title for f in _findings(later))
