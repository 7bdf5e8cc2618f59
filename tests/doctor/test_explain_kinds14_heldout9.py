# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 14 (after heldout9's release, a few kinds behind its misses): CUB's headers missing from a toolkit
older than CUDA 11.0, JupyterLab's extension build without Node.js, a name NumPy 2.0 removed, AliceVision's GPU check
(Meshroom's depth map), mumax3's no-binary-for-GPU. Texts written for the test (other tools, versions, wordings than
the threads); each kind with near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    ("In file included from src/radix.cu:3:\nsrc/radix.cuh:7:10: fatal error: cub/cub.cuh: No such file or directory\n"
     "    7 | #include <cub/cub.cuh>\ncompilation terminated.\n", ["toolkit_below_extension_minimum", "build_dependency_missing"]),
    ('kernels.cu(12): catastrophic error: cannot open source file "cub/cub.cuh"\n',
     ["toolkit_below_extension_minimum", "build_dependency_missing"]),
    ("(base) C:\\> jupyter labextension install @jupyter-widgets/jupyterlab-manager\nAn error occured.\n"
     "ValueError: Please install nodejs >=12.0.0 before continuing. nodejs may be installed using "
     "conda or directly from the nodejs website.\n", ["build_dependency_missing"]),
    ("ValueError: Please install nodejs 5+ and npm before continuing installation.\n", ["build_dependency_missing"]),
    ('  File "/opt/venv/lib/python3.12/site-packages/skimage/util/dtype.py", line 27\n'
     "AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead.\n",
     ["package_api_version_mismatch"]),
    ("AttributeError: `np.NaN` was removed in the NumPy 2.0 release. Use `np.nan` instead.. Did you mean: 'nan'?\n",
     ["package_api_version_mismatch"]),
    ("[2024-03-01 10:00:00.000][error] This program needs a CUDA-Enabled GPU (with at least compute capability 2.0).\n"
     "ERROR:root:Error on node computation: Error on node \"DepthMap_1\"\n", ["no_gpu", "driver_too_old"]),
    ("panic: No binary for GPU. Your nvidia driver may be out-of-date\n\ngoroutine 1 [running]:\n",
     ["no_kernel_image_for_gpu", "driver_too_old"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # another header of a library the build needs, CUB's own name in a sentence, thrust's namespace error
    ("fatal error: cuda_runtime.h: No such file or directory\n", "toolkit_below_extension_minimum"),
    ("we vendor cub/cub.cuh in third_party so the build never looks for it in the toolkit\n",
     "toolkit_below_extension_minimum"),
    # npm present but a package of the extension failing to build, node's own error
    ("npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n", "build_dependency_missing"),
    # a deprecation warning of NumPy 1.x (still works), a name of the user's own module
    ("DeprecationWarning: `np.float` is a deprecated alias for the builtin `float`.\n",
     "package_api_version_mismatch"),
    ("AttributeError: module 'mynp' has no attribute 'sctypes'\n", "package_api_version_mismatch"),
    # AliceVision finding the GPU and failing later; another program's GPU-needed sentence
    ("[info] Found 1 CUDA device(s): GeForce RTX 3060 (compute capability 8.6)\n[error] Could not open image a.jpg\n",
     "no_gpu"),
    # a CUDA binary for the GPU but another failure of mumax3
    ("panic: CUDA_ERROR_OUT_OF_MEMORY\n", "no_kernel_image_for_gpu"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)
