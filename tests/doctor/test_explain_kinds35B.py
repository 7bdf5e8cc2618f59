# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 35b: the Python interpreter's own messages, from CPython's source, as explain reads them: the file import_from
and moduleobject.c name for a module still initialising (a file of the user's own in a package's place), 3.13's
'consider renaming' hint of import_from, relative imports outside a package (importlib's _sanity_check and
_resolve_name), an unpickled class its module lacks (pickle.find_class), a NumPy 2 pickle read by NumPy 1, and an
interpreter built without a system library's headers (_ctypes, _lzma, pip's 'ssl module ... not available', zipimport's
'zlib not available')."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result
from tests.doctor.test_codes25n import assert_row_matches_its_example_and_stays_linear


def _first_two(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings][:2]


POSITIVE = {
    # import_from (Python/ceval.c, _PyEval_ImportFrom in 3.13) names the file: a script named like the package
    "circular_own_file": ("Traceback (most recent call last):\n"
                          '  File "/home/u/faster_whisper.py", line 1, in <module>\n'
                          "    from faster_whisper import WhisperModel\n"
                          '  File "/home/u/faster_whisper.py", line 1, in <module>\n'
                          "    from faster_whisper import WhisperModel\n"
                          "ImportError: cannot import name 'WhisperModel' from partially initialized module "
                          "'faster_whisper' (most likely due to a circular import) (/home/u/faster_whisper.py)\n",
                          "user_code_error"),
    # the same message pasted alone, a Windows path (no frame shows the file)
    "circular_own_file_windows": ("ImportError: cannot import name 'YOLO' from partially initialized module "
                                  "'ultralytics' (most likely due to a circular import) "
                                  "(C:\\Users\\kim\\Desktop\\ultralytics.py)\n", "user_code_error"),
    # Python 3.13's moduleobject.c form, which names the file too
    "circular_attribute_313": ("Traceback (most recent call last):\n"
                               '  File "/home/u/scan/run.py", line 1, in <module>\n'
                               "    import open3d as o3d\n"
                               '  File "/home/u/scan/open3d.py", line 3, in <module>\n'
                               '    pcd = o3d.io.read_point_cloud("a.ply")\n'
                               "AttributeError: partially initialized module 'open3d' from '/home/u/scan/open3d.py' has "
                               "no attribute 'io' (most likely due to a circular import)\n", "user_code_error"),
    # 3.13's import_from hint
    "consider_renaming_from": ("Traceback (most recent call last):\n"
                               '  File "/home/u/det/ultralytics.py", line 1, in <module>\n'
                               "    from ultralytics import YOLO\n"
                               "ImportError: cannot import name 'YOLO' from 'ultralytics' (consider renaming "
                               "'/home/u/det/ultralytics.py' if it has the same name as a library you intended to "
                               "import)\n", "user_code_error"),
    # the message without its file, a class asked of a top-level module, no frame of the package
    "circular_class_no_file": ("ImportError: cannot import name 'WhisperModel' from partially initialized module "
                               "'faster_whisper' (most likely due to a circular import)\n", "user_code_error"),
    # importlib._bootstrap._sanity_check: a package's file run by its path
    "relative_no_parent": ("Traceback (most recent call last):\n"
                           '  File "/home/u/nerf/models/train.py", line 5, in <module>\n'
                           "    from .network import Net\n"
                           "ImportError: attempted relative import with no known parent package\n", "user_code_error"),
    # a notebook cell
    "relative_no_parent_notebook": ("ImportError                               Traceback (most recent call last)\n"
                                    "Cell In[3], line 1\n----> 1 from .utils import load_mesh\n\n"
                                    "ImportError: attempted relative import with no known parent package\n",
                                    "user_code_error"),
    # Python 2's import.c get_parent
    "relative_python2": ("  File \"demo.py\", line 4, in <module>\n    from .lib import render\n"
                         "ValueError: Attempted relative import in non-package\n", "user_code_error"),
    # importlib._bootstrap._resolve_name (a ValueError before 3.9)
    "relative_beyond_top": ("Traceback (most recent call last):\n"
                            '  File "/home/u/proj/lib/render.py", line 3, in <module>\n'
                            "    from ..utils import camera\n"
                            "ValueError: attempted relative import beyond top-level package\n", "user_code_error"),
    # pickle's find_class: a class another release of the library defined
    "pickle_other_release": ("Traceback (most recent call last):\n"
                             '  File "/home/u/proj/load.py", line 4, in <module>\n'
                             "    df = pd.read_pickle('frame.pkl')\n"
                             "AttributeError: Can't get attribute '_unpickle_block' on <module 'pandas._libs.internals' "
                             "from '/home/u/venv/lib/python3.9/site-packages/pandas/_libs/internals.cpython-39-x86_64-"
                             "linux-gnu.so'>\n", "package_api_version_mismatch"),
    # a checkpoint whose model classes another revision of a project's models/ defined
    "pickle_project_module": ("  File \"/usr/lib/python3/dist-packages/torch/serialization.py\", line 1392, in find_class\n"
                              "    return super().find_class(mod_name, name)\n"
                              "AttributeError: Can't get attribute 'C3k2' on <module 'models.common' from "
                              "'/home/u/yolo/models/common.py'>\n", "package_api_version_mismatch"),
    # a NumPy 2 pickle read by NumPy 1.x
    "numpy2_pickle": ("Traceback (most recent call last):\n"
                      '  File "/home/u/app/predict.py", line 9, in <module>\n'
                      "    model = joblib.load('model.joblib')\n"
                      "ModuleNotFoundError: No module named 'numpy._core'\n", "package_api_version_mismatch"),
    # the interpreter's own compiled modules, built only where the system library's headers were there
    "python_without_ctypes": ("Traceback (most recent call last):\n"
                              '  File "/home/u/proj/setup.py", line 3, in <module>\n    import ctypes\n'
                              '  File "/home/u/.pyenv/versions/3.10.4/lib/python3.10/ctypes/__init__.py", line 8, in '
                              "<module>\n    from _ctypes import Union, Structure, Array\n"
                              "ModuleNotFoundError: No module named '_ctypes'\n", "build_dependency_missing"),
    "python_without_lzma": ('  File "/opt/python/3.9.7/lib/python3.9/lzma.py", line 27, in <module>\n'
                            "    from _lzma import *\nModuleNotFoundError: No module named '_lzma'\n",
                            "build_dependency_missing"),
    "python_without_sqlite": ("ModuleNotFoundError: No module named '_sqlite3'\n", "build_dependency_missing"),
    # pip's own warning (src/pip/_internal/models/search_scope.py), then the index it never reached
    "pip_without_ssl": ("WARNING: pip is configured with locations that require TLS/SSL, however the ssl module in "
                        "Python is not available.\nCollecting open3d\n  Retrying (Retry(total=4, connect=None, "
                        "read=None, redirect=None, status=None)) after connection broken by 'SSLError(\"Can't connect "
                        "to HTTPS URL because the SSL module is not available.\")': /simple/open3d/\n"
                        "ERROR: Could not find a version that satisfies the requirement open3d (from versions: none)\n",
                        "build_dependency_missing"),
    # Lib/zipimport.py
    "zipimport_zlib": ("zipimport.ZipImportError: can't decompress data; zlib not available\n",
                       "build_dependency_missing"),
    # an operation on None in the person's own frame (Objects/abstract.c, object.c, ceval.c words)
    "none_subscripted_own": ("Traceback (most recent call last):\n"
                             '  File "/home/u/proj/train.py", line 41, in <module>\n'
                             '    width = cfg["model"]["width"]\n'
                             "TypeError: 'NoneType' object is not subscriptable\n", "user_code_error"),
    "none_attribute_own": ("Traceback (most recent call last):\n"
                           '  File "/home/u/proj/viz.py", line 12, in <module>\n'
                           "    h, w = depth.shape[:2]\n"
                           "AttributeError: 'NoneType' object has no attribute 'shape'\n", "user_code_error"),
    "none_unpacked_own": ("Traceback (most recent call last):\n"
                          '  File "C:\\Users\\kim\\seg\\main.py", line 30, in <module>\n'
                          "    mask, score = predict(img)\n"
                          "TypeError: cannot unpack non-iterable NoneType object\n", "user_code_error"),
    # Python/ceval.c's recursion limit in the person's own function
    "recursion_own": ("Traceback (most recent call last):\n"
                      '  File "/home/u/proj/octree.py", line 52, in <module>\n    root = split(points, 0)\n'
                      '  File "/home/u/proj/octree.py", line 17, in split\n    return split(pts[mask], depth + 1)\n'
                      '  File "/home/u/proj/octree.py", line 17, in split\n    return split(pts[mask], depth + 1)\n'
                      "  [Previous line repeated 995 more times]\n"
                      "RecursionError: maximum recursion depth exceeded while calling a Python object\n",
                      "user_code_error"),
    # a signature's TypeError raised through a package's pass-through wrapper (huggingface_hub's validate_hf_hub_args):
    # the arguments are the frame before's, an installed package's own call
    "kwarg_through_wrapper": ("Traceback (most recent call last):\n"
                              '  File "/home/u/proj/run.py", line 8, in <module>\n'
                              "    pipe = StableDiffusionPipeline.from_pretrained(mid)\n"
                              '  File "/home/u/venv/lib/python3.10/site-packages/diffusers/pipelines/pipeline_utils.py",'
                              " line 1096, in download\n    cached_folder = snapshot_download(\n"
                              '  File "/home/u/venv/lib/python3.10/site-packages/huggingface_hub/utils/_validators.py", '
                              "line 118, in _inner_fn\n    return fn(*args, **kwargs)\n"
                              "TypeError: snapshot_download() got an unexpected keyword argument 'resume_download'\n",
                              "package_api_version_mismatch"),
}


@pytest.mark.parametrize("key", sorted(POSITIVE))
def test_the_mechanism_is_read(key):
    text, code = POSITIVE[key]
    assert code in _first_two(text), (key, _first_two(text))


NEAR = {
    # a package's own __init__.py half-initialised (torchvision against another torch): not a file of the user's
    "circular_package_init": ("AttributeError: partially initialized module 'torchvision' from '/usr/local/lib/"
                              "python3.11/dist-packages/torchvision/__init__.py' has no attribute 'extension' (most "
                              "likely due to a circular import)\n", "user_code_error"),
    # an installed single-file module in site-packages: the package's own cycle, not the user's file
    "circular_installed_file": ("ImportError: cannot import name 'Timer' from partially initialized module 'tqdm_ext' "
                                "(most likely due to a circular import) (/home/u/venv/lib/python3.10/site-packages/"
                                "tqdm_ext.py)\n", "user_code_error"),
    # an installed package whose own modules import each other (its frames shown)
    "circular_package_frames": ("Traceback (most recent call last):\n"
                                '  File "/home/u/run.py", line 1, in <module>\n    import mypkg\n'
                                '  File "/home/u/venv/lib/python3.10/site-packages/mypkg/__init__.py", line 3, in '
                                "<module>\n    from mypkg.models import Net\n"
                                '  File "/home/u/venv/lib/python3.10/site-packages/mypkg/models.py", line 2, in '
                                "<module>\n    from mypkg import Config\n"
                                "ImportError: cannot import name 'Config' from partially initialized module 'mypkg' "
                                "(most likely due to a circular import)\n", "user_code_error"),
    # a lower-case name from a half-initialised package: a submodule its folder lacks (round 22's reading)
    "circular_submodule_name": ("ImportError: cannot import name 'cuda_utils' from partially initialized module 'vllm' "
                                "(most likely due to a circular import)\n", "user_code_error"),
    # a function pickled from a notebook's __main__: spawn's own row, not another release
    "pickle_main": ("AttributeError: Can't get attribute 'worker' on <module '__main__' (built-in)>\n",
                    "package_api_version_mismatch"),
    # numpy 2 installed: numpy._core exists, something else is wrong
    "numpy2_installed": ("numpy 2.1.3\nModuleNotFoundError: No module named 'numpy._core'\n",
                         "package_api_version_mismatch"),
    # an absolute import of the user's own module that is missing: not a relative import
    "absolute_import_missing": ("Traceback (most recent call last):\n"
                                '  File "/home/u/proj/train.py", line 2, in <module>\n'
                                "    from network import Net\n"
                                "ModuleNotFoundError: No module named 'network'\n", "library_bug"),
    # a package's own private compiled module: its build, not the interpreter's
    "package_private_module": ("ModuleNotFoundError: No module named 'pointnet2_ops._ext'\n",
                               "build_dependency_missing"),
    # torch's shared memory out of file descriptors (errno 24): the open-file limit, not /dev/shm's size
    "torch_shm_fd_limit": ("RuntimeError: unable to open shared memory object </torch_2378_1296283385_997> in "
                           "read-write mode: Too many open files (24)\n", "container_shm_too_small"),
    # a compiled module bound to None by a package's guarded import, called in its own folder
    "none_compiled_module": ('  File "/home/u/src/raymarch/backend/__init__.py", line 13, in call\n'
                             "    return getattr(_C, name)(*args)\n"
                             "AttributeError: 'NoneType' object has no attribute 'march_rays'\n", "user_code_error"),
    # torch calling the person's forward through its own wrapper: the person's forward, no release's
    "forward_through_torch": ("Traceback (most recent call last):\n"
                              '  File "/home/u/proj/train.py", line 60, in <module>\n    out = model(x, mask)\n'
                              '  File "/home/u/venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1518,'
                              " in _call_impl\n    return forward_call(*args, **kwargs)\n"
                              "TypeError: Net.forward() takes 2 positional arguments but 3 were given\n",
                              "package_api_version_mismatch"),
}


@pytest.mark.parametrize("key", sorted(NEAR))
def test_the_near_miss_is_not_read_so(key):
    text, code = NEAR[key]
    assert code not in _first_two(text), (key, _first_two(text))


#: the order of the readings (the mechanism's)
FIRST_READINGS = {
    "pickle_other_release": ["package_api_version_mismatch"],
    "relative_no_parent": ["user_code_error", "library_bug"],
    "relative_beyond_top": ["user_code_error", "library_bug"],
    "circular_class_no_file": ["user_code_error", "library_bug"],
    "python_without_ctypes": ["build_dependency_missing", "extension_not_compiled"],
    "python_without_lzma": ["build_dependency_missing", "extension_not_compiled"],
}


@pytest.mark.parametrize("key", sorted(FIRST_READINGS))
def test_the_first_readings(key):
    assert _first_two(POSITIVE[key][0]) == FIRST_READINGS[key]


def test_the_shadowing_file_is_named():
    f = explain_result(POSITIVE["circular_own_file_windows"][0], similar=False).findings[0]
    assert "ultralytics.py" in f.title and "C:\\Users\\kim\\Desktop\\ultralytics.py" in f.fix.why


@pytest.mark.parametrize("key", ["python_relative_import_no_parent", "python_relative_import_beyond_top",
                                 "pickle_module_attribute_missing", "pip_python_without_ssl",
                                 "zipimport_without_zlib"])
def test_rows_match_their_examples(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


def test_the_interpreter_build_is_named():
    f = explain_result(POSITIVE["python_without_ctypes"][0], similar=False).findings[0]
    assert "libffi-dev" in f.title and any("libffi-dev" in c for c in f.fix.commands)


def test_the_fd_limit_row_still_reads_a_full_shm():
    text = "RuntimeError: unable to write to file </torch_18692_1954506624_0>: No space left on device (28)\n"
    assert _first_two(text)[0] == "container_shm_too_small"


#: None met inside an installed package's own code: the package's frame (round 28a's exception_in_package reading),
#: not the person's value
NONE_IN_PACKAGE = ("Traceback (most recent call last):\n"
                   '  File "/home/u/proj/run.py", line 8, in <module>\n    mesh = load(path)\n'
                   '  File "/home/u/venv/lib/python3.10/site-packages/meshkit/io.py", line 55, in load\n'
                   "    return data['faces']\n"
                   "TypeError: 'NoneType' object is not subscriptable\n")


def test_none_in_a_package_frame_is_not_the_own_value_reading():
    found = explain_result(NONE_IN_PACKAGE, similar=False).findings
    assert found and not any("a value that is None" in f.title for f in found)


def test_recursion_in_a_package_frame_is_not_the_own_reading():
    text = ('  File "/home/u/venv/lib/python3.10/site-packages/torch/fx/graph.py", line 300, in _format\n'
            "    return self._format(x)\n  [Previous line repeated 980 more times]\n"
            "RecursionError: maximum recursion depth exceeded while calling a Python object\n")
    assert not any("calls itself" in f.title for f in explain_result(text, similar=False).findings)
    assert "calls itself" in explain_result(POSITIVE["recursion_own"][0], similar=False).findings[0].title
