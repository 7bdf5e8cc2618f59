# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 16 (the kinds behind dev15's misses, the second sample of smrnb users' own stacks): JupyterLab
without Node.js for its build check; JupyterHub's local spawner without the environment's bin on its PATH; dpkg
refusing a package whose dependencies are not installed; CMake without the compiler's features; a project's git
submodules never fetched (its CMake check, pip given their empty folders); distutils' macOS deployment target
refused; a UTF-8 file read with Windows' locale codec; a user's file named like the package it shadows (Python
3.13's hint, or the traceback's last file); a setup.py building nvcc's path from a CUDA folder that is None; GNU ld's
missing library in a Chinese locale; torch's JIT build failure in other quotes; an installed package's own
__init__ importing a module the install lacks; an object's attribute missing in an installed package's own code
(another release of what it calls); a widget without its front-end in the page (the corpus labels any widget's
front-end threejs_extension_missing, now a code a text can show). Each text is written for the test (other
wordings, versions, tools than the threads); each kind has near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # JupyterLab's build check at start with no Node.js on PATH
    ("[W 2019-03-01 10:00:01.123 LabApp] Could not determine jupyterlab build status without nodejs\n",
     ["build_dependency_missing"]),
    # a widget without its front-end in the page (JupyterLab without the manager or the widget's extension)
    ("Error displaying widget: model not found\n", ["threejs_extension_missing"]),
    ("HBox(children=(IntProgress(value=0, max=10),))\nFailed to display Jupyter Widget of type HBox.\n",
     ["threejs_extension_missing"]),
    # JupyterHub's local spawner: the single-user command not on the hub's PATH
    ("[E 2023-02-01 10:00:00.000 JupyterHub user:884] Unhandled error starting ana's server: [Errno 2] No such file "
     "or directory: 'jupyterhub-singleuser'\n", ["env_not_propagated_to_kernel", "kernel_wrong_python"]),
    # dpkg -i of a .deb whose dependencies are not installed
    ("dpkg: dependency problems prevent configuration of libnvidia-container-tools:\n libnvidia-container-tools "
     "depends on libnvidia-container1 (>= 1.14.3); however:\n  Package libnvidia-container1 is not installed.\n",
     ["build_dependency_missing"]),
    # CMake without the compiler's features (a compiler this CMake does not know, a cache of another compiler)
    ("CMake Error in CMakeLists.txt:\n  No known features for CXX compiler\n\n  \"Clang\"\n\n  version 17.0.6.\n",
     ["host_compiler_unsupported"]),
    # a project's git submodules never fetched: its own CMake check, or pip given their empty folders
    ("CMake Error at CMakeLists.txt:120 (message):\n  Some tiny-cuda-nn dependencies are missing. If you forgot the "
     "\"--recursive\" flag when cloning this project, this can be fixed by calling \"git submodule update --init "
     "--recursive\".\n", ["build_dependency_missing"]),
    ("ERROR: Directory './third_party/simple-knn' is not installable. Neither 'setup.py' nor 'pyproject.toml' "
     "found.\n", ["extension_not_compiled", "build_dependency_missing"]),
    # distutils refusing a macOS deployment target older than the Python's
    ("distutils.errors.DistutilsPlatformError: $MACOSX_DEPLOYMENT_TARGET mismatch: now \"10.9\" but \"12.0\" during "
     "configure\n", ["extension_build_failed"]),
    # a UTF-8 file read with Windows' locale code page: the opening code first, a library's release second
    ("  File \"strip_outputs.py\", line 9, in <module>\n    nb = json.load(open(path))\nUnicodeDecodeError: "
     "'charmap' codec can't decode byte 0x9d in position 4120: character maps to <undefined>\n",
     ["user_code_error", "library_bug"]),
    # a user's file named like the package: Python 3.13's hint, or the traceback's last file
    ("AttributeError: module 'open3d' has no attribute 'geometry' (consider renaming '/home/ana/open3d.py' if it has "
     "the same name as a library you intended to import)\n", ["user_code_error"]),
    ("Traceback (most recent call last):\n  File \"/home/ana/scratch/open3d.py\", line 4, in <module>\n"
     "    pcd = open3d.io.read_point_cloud(\"a.ply\")\nAttributeError: module 'open3d' has no attribute 'io'\n",
     ["user_code_error"]),
    # a setup.py building nvcc's path from CUDA_HOME that is None
    ("  File \"setup.py\", line 31, in get_cuda_bare_metal_version\n    raw_output = subprocess.check_output("
     "[CUDA_HOME + \"/bin/nvcc\", \"-V\"], universal_newlines=True)\nTypeError: unsupported operand type(s) for +: "
     "'NoneType' and 'str'\n", ["cuda_home_missing"]),
    # GNU ld in a Chinese locale: a library the link names is missing
    ("/usr/bin/ld: 找不到 -lcumm\ncollect2: error: ld returned 1 exit status\n", ["build_dependency_missing"]),
    # torch's JIT build failure quoted by a word processor, in lower case
    ("error building extension ‘fused_adam’\n", ["extension_build_failed"]),
    # an installed package's own __init__ importing its own module the install lacks (a git install never built)
    ("  File \"/usr/lib/python3/dist-packages/pyfqmr/__init__.py\", line 2, in <module>\n    from .simplify import "
     "Simplify\nModuleNotFoundError: No module named 'pyfqmr.simplify'\n", ["extension_not_compiled", "library_bug"]),
    # an object's attribute missing inside an installed package's own code: another release of what it calls
    ("  File \"/opt/conda/lib/python3.8/site-packages/pyrender/viewer.py\", line 1020, in _record\n"
     "    self._saved_frames.append(self.get_image())\nAttributeError: 'Window' object has no attribute "
     "'invalid'\n", ["package_api_version_mismatch", "library_bug"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # JupyterLab with Node.js, building
    ("[I LabApp] JupyterLab build is up to date; node v18.17.1\n", "build_dependency_missing"),
    # a widget whose state was not saved with the notebook (its front-end is there)
    ("A Jupyter widget could not be displayed because the widget state could not be found. This could happen if the "
     "kernel storing the widget is no longer available, or if the widget state was not saved in the notebook.\n",
     "threejs_extension_missing"),
    # another file of JupyterHub missing (its config), the spawner's command found
    ("FileNotFoundError: [Errno 2] No such file or directory: 'jupyterhub_config.py'\n", "env_not_propagated_to_kernel"),
    # dpkg's other warnings
    ("dpkg: warning: files list file for package 'libfoo' missing; assuming package has no files currently installed\n",
     "build_dependency_missing"),
    # CMake detecting the compiler's features
    ("-- The CXX compiler identification is GNU 9.3.0\n-- Detecting CXX compile features - done\n",
     "host_compiler_unsupported"),
    # a clone with its submodules, a folder pip builds
    ("git clone --recursive https://github.com/NVlabs/instant-ngp\n", "build_dependency_missing"),
    ("Processing ./submodules/simple-knn\n  Preparing metadata (setup.py) ... done\n", "extension_not_compiled"),
    # the deployment target set, no mismatch
    ("export MACOSX_DEPLOYMENT_TARGET=11.0\n", "extension_build_failed"),
    # a file that is not UTF-8 read as UTF-8 (the file's fault, not the codec's)
    ("UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte\n", "library_bug"),
    # a name missing from the package called from a file of another name, or from the package's own module
    # (round 29b: the same from run.py reads another release, then the calling code's name (not a shadowing
    # file): test_explain_kinds29b.test_a_name_asked_from_a_file_of_another_name_is_no_shadowing_file)
    ("  File \"/opt/conda/lib/python3.10/site-packages/trimesh/trimesh.py\", line 3, in <module>\n"
     "AttributeError: module 'trimesh' has no attribute 'load'\n", "user_code_error"),
    # CUDA_HOME read with a default, no path built from None
    ("    cuda_dir = os.environ.get(\"CUDA_HOME\", \"/usr/local/cuda\")\n", "cuda_home_missing"),
    # a project's own package importing its own module (no release to blame), an absolute import of a package
    ("  File \"/home/ana/proj/mypkg/__init__.py\", line 3, in <module>\n    from .core import Core\n"
     "ModuleNotFoundError: No module named 'mypkg.core'\n", "extension_not_compiled"),
    # an attribute missing in the project's own code, or on None inside a package (the caller's value)
    ("  File \"/home/ana/proj/train.py\", line 22, in <module>\n    x = model.encoder\nAttributeError: 'Net' "
     "object has no attribute 'encoder'\n", "package_api_version_mismatch"),
    ("  File \"/opt/conda/lib/python3.8/site-packages/mmcv/runner/hooks.py\", line 12, in after_iter\n"
     "    runner.log_buffer.update(x)\nAttributeError: 'NoneType' object has no attribute 'update'\n",
     "package_api_version_mismatch"),
    # a JIT build that went through
    ("Building extension module fused_adam...\nLoading extension module fused_adam...\n", "extension_build_failed"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)
