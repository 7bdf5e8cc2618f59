# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 30c (environment causes the rules missed on real texts, read by their mechanism): torchvision's /
torchaudio's own compiled module failing to load on Windows (a companion built for another torch); a symbol of the ONNX
copy torch builds into its own libraries (onnx_torch::) undefined in torch's own library (an older copy of it loaded);
WSL named where the same command works or is not used (not the failing machine); a Windows API set DLL missing
(api-ms-win-core-*: the program is built for a newer Windows); Python's "No module named X" retyped without "named" for
a module only its project's source tree builds.
Each text is written for the test (other wordings, paths and packages than the threads); each kind has near-misses
that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import rule_codes

READINGS = [
    # torchvision's own compiled module on Windows: its DLL dependencies (Python before 3.8: no module name)
    ("  File \"C:\\Users\\me\\miniconda3\\lib\\site-packages\\torchvision\\ops\\boxes.py\", line 2, in <module>\n"
     "    from torchvision import _C\nImportError: DLL load failed: The specified module could not be found.\n",
     "companion_built_for_other_torch"),
    ("----> 3 from torchvision import _C\n\nImportError: DLL load failed while importing _C: The specified module could "
     "not be found.\n", "companion_built_for_other_torch"),
    ("from torchvision import _C\nImportError: DLL load failed while importing _C: 找不到指定的模块。\n",
     "companion_built_for_other_torch"),
    # ... and a torch function it does not find (another torch release)
    ("Error in inDL(x, as.logical(local), as.logical(now), ...) :\n  unable to load shared object "
     "'D:/R/cache/torchvision.dll':\n  LoadLibrary failure:  The specified procedure could not be found.\n",
     "companion_built_for_other_torch"),
    ("OSError: [WinError 127] The specified procedure could not be found. Error loading "
     "\"C:\\env\\Lib\\site-packages\\torchaudio\\lib\\libtorchaudio.pyd\" or one of its dependencies.\n",
     "companion_built_for_other_torch"),
    # torch's bundled ONNX (onnx_torch::) undefined in torch's own library: an older copy of a torch library
    ("    from torch._C import *\nImportError: /usr/lib/python3/dist-packages/torch/lib/libtorch.so.1: undefined "
     "symbol: _ZN10onnx_torch30_TensorProto_default_instance_E\n", "library_shadowed_older_copy"),
    ("ImportError: /opt/venv/lib/python3.7/site-packages/torch/lib/libcaffe2.so: undefined symbol: "
     "_ZNK10onnx_torch10ModelProto12ByteSizeLongEv\n", "library_shadowed_older_copy"),
    # WSL named as where the same command runs: the failing machine is a Linux host
    ("docker: Error response from daemon: failed to create task for container: OCI runtime create failed: error "
     "running hook #0: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: load library "
     "failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown\n"
     "The same compose file runs fine on this laptop under Windows 11 with WSL2.\n", "gpu_not_exposed_to_process"),
    ("stderr: nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared "
     "object file: no such file or directory: unknown\nOn Arch; it works perfectly in WSL2 on my other drive.\n",
     "gpu_not_exposed_to_process"),
    # a Windows API set missing: the program's build is for a newer Windows
    ("The program can't start because api-ms-win-core-path-l1-1-0.dll is missing from your computer. Try reinstalling "
     "the program to fix this problem.\n", "package_no_build_for_platform"),
    ("python.exe - System Error\nThe code execution cannot proceed because api-ms-win-core-path-l1-1-0.dll was not "
     "found. (Windows 7 SP1, Python 3.11 installer)\n", "package_no_build_for_platform"),
    ("Error loading Python DLL 'C:\\tools\\app\\python39.dll'.\nLoadLibrary: api-ms-win-core-synch-l1-2-0.dll is "
     "missing from your computer.\n", "package_no_build_for_platform"),
    # Python's message retyped without "named", for a module only its project's source tree builds
    ("No module custom_rasterizer\n", "extension_not_compiled"),
    ("When running the demo: No module name chamfer\n", "extension_not_compiled"),
    ("Error: no module 'simple_knn' when training\n", "extension_not_compiled"),
]


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[t[:50] for t, _ in READINGS])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


NOT = [
    # torch's own _C on Windows: its DLLs (the VC++ runtime, CUDA's), not a companion
    ("    from torch._C import *\nImportError: DLL load failed: The specified module could not be found.\n",
     "companion_built_for_other_torch"),
    ("  File \"C:\\py\\lib\\site-packages\\torch\\__init__.py\", line 81, in <module>\n    from torch._C import *\n"
     "ImportError: DLL load failed while importing _C: The specified module could not be found.\n",
     "companion_built_for_other_torch"),
    # another extension's module failing on Windows
    ("from mmcv import _ext\nImportError: DLL load failed while importing _ext: The specified module could not be "
     "found.\n", "companion_built_for_other_torch"),
    # torch's own TH-free symbols in an extension: another torch release, not an older copy of torch's library
    ("ImportError: /home/u/ext/build/lib/my_ops.so: undefined symbol: _ZN10onnx_torch30_TensorProto_default_instance_E"
     "\n", "library_shadowed_older_copy"),
    ("ImportError: /opt/venv/lib/python3.7/site-packages/onnx/onnx_cpp2py_export.so: undefined symbol: "
     "_ZN4onnx30_TensorProto_default_instance_E\n", "library_shadowed_older_copy"),
    # WSL that fails: its driver path is the reading
    ("libcuda.so: cannot open shared object file: No such file or directory\nIt works fine on native Ubuntu but fails "
     "on WSL2.\n", "package_no_build_for_platform"),
    # the universal C runtime (installable on Windows 7) is a missing library, not a Windows too old
    ("The program can't start because api-ms-win-crt-runtime-l1-1-0.dll is missing from your computer.\n",
     "package_no_build_for_platform"),
    # a prose "no module" that names no source-built module
    ("There is no module loaded for the kernel driver\n", "extension_not_compiled"),
    ("No module numpy_helpers in the repo, is it needed?\n", "extension_not_compiled"),
]


@pytest.mark.parametrize(("text", "code"), NOT, ids=[t[:50] for t, _ in NOT])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3), (text, rule_codes(text, n=4))


def test_wsl_that_fails_still_reads_wsl():
    codes = rule_codes("libcuda.so.1: cannot open shared object file: No such file or directory\nIt works fine on "
                       "native Ubuntu but fails on WSL2.\n", n=2)
    assert "gpu_not_exposed_to_process" in codes, codes


def _first(text: str):
    return explain_result(text, similar=False).findings[0]


def test_companion_fix_names_the_torch_pair():
    f = _first("from torchvision import _C\nImportError: DLL load failed: The specified module could not be found.\n")
    print(f.code, f.title, f.fix.why, f.fix.commands, sep="\n")
    assert f.code == "companion_built_for_other_torch"
    assert "torchvision" in " ".join(f.fix.commands).lower() or "torchvision" in f.title.lower()


def test_api_set_fix_says_no_file_to_install():
    f = _first("The program can't start because api-ms-win-core-path-l1-1-0.dll is missing from your computer.\n")
    print(f.code, f.title, f.fix.why, f.fix.commands, sep="\n")
    assert f.code == "package_no_build_for_platform" and "API set of Windows" in f.title
    assert "Windows 8" in f.fix.why and any("winver" in c for c in f.fix.commands)


def test_onnx_torch_reading_names_the_older_copy():
    f = _first("ImportError: /usr/local/lib/python3.6/dist-packages/torch/lib/libtorch.so.1: undefined symbol: "
               "_ZN10onnx_torch30_TensorProto_default_instance_E\n")
    print(f.code, f.title, f.fix.why, f.fix.commands, sep="\n")
    assert f.code == "library_shadowed_older_copy" and "two builds" in f.title and "CUDA" not in f.fix.why
    assert any("LD_LIBRARY_PATH" in c for c in f.fix.commands)


def test_retyped_module_fix_names_the_project_build():
    f = _first("No module custom_rasterizer\n")
    print(f.code, f.title, f.fix.why, f.fix.commands, sep="\n")
    assert f.code == "extension_not_compiled" and "custom_rasterizer" in f.title
