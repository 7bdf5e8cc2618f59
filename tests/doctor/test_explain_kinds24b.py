# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 24b (the released parts' misses of the Python and package codes, read as kinds): a failure the text
says an earlier release does not have (going back to it fixes it, "X.Y is fine", "does not occur on X.Y", "ever since
version X.Y": that release's bug); a generic Python exception (an attribute of None, a TypeError, KeyError, IndexError,
ValueError, a file of the package's own not found) raised inside an installed package's own code with no code of the
project's calling it (the package's bug first, a library of another release second); a named release of a package said
to break the code that uses it (the code written for another release first); an older release still seen after an
install (another copy imported first; in a notebook, the kernel first); and messages: a CMake build looking for the
legacy nvToolsExt library, jax-metal built for an older jax, macOS dyld's "Incompatible library version", torch's MPS
backend without bfloat16 or with a too-small placeholder, torch 0.x's dtype words and a convolution's channel check
printed without brackets, NCCL's watchdog timing out a collective not every rank entered, and Windows' fail-fast exit (0xC0000409: the
program's own abort), and CUDA's math headers against glibc 2.41's noexcept C23 functions, setuptools finding no file a package's build was to produce, and a data file of an installed package's own
folder not found; a segmentation fault told in lowercase prose.
Each text is written for the test (other wordings, tools and packages than the threads); each kind has near-misses
that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # a regression told by the release that works
    ("ImportError while loading the dataset reader.\nRolling back scikit-image to 0.19.3 makes it go away.\n",
     "library_bug"),
    ("Segmentation of the volume hangs forever with the current build; v2.4.1 was fine.\n", "library_bug"),
    ("Notably the slowdown does not happen with polars 0.20.31, only the newer wheels.\n", "library_bug"),
    ("The exporter crashes on every model ever since onnx-simplifier version 0.4.36 landed.\n", "library_bug"),
    ("pip install --force-reinstall ultralytics: I reinstalled version 8.0.20 and predictions work again.\n",
     "library_bug"),
    ("With this tokenizer, transformers==4.38.2 is working but transformers==4.39.0 is failing on decode.\n",
     "library_bug"),
    ("ImportError: build/_ops.so: undefined symbol: gState\nOur plugin stopped loading since we did the 1.4 update.\n",
     "library_bug"),
    # a generic exception raised in an installed package's own code, no project code calling it
    ("Traceback (most recent call last):\n  File \"/srv/venv/lib/python3.11/site-packages/meshio/_helpers.py\", line "
     "140, in read\n    return reader.points.shape\nAttributeError: 'NoneType' object has no attribute 'points'\n",
     "library_bug"),
    ("Traceback (most recent call last):\n  File \"C:\\Users\\kim\\miniforge3\\Lib\\site-packages\\gradio\\routes.py\", "
     "line 512, in predict\n    out = block.outputs[idx]\nIndexError: list index out of range\n", "library_bug"),
    ("Traceback (most recent call last):\n  File \"/opt/py/lib/python3.10/site-packages/nbconvert/exporters/html.py\", "
     "line 77, in template\n    open(path)\nFileNotFoundError: [Errno 2] No such file or directory: "
     "'/opt/py/lib/python3.10/site-packages/nbconvert/templates/lab/index.html.j2'\n", "library_bug"),
    ("Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/streamlit/state.py\", line 91, in "
     "get\n    return self._cache[key]\nKeyError: 'session_id'\n", "package_api_version_mismatch"),
    # a named release said to break the code that uses it
    ("Pydantic 2.0 broke our settings module: BaseSettings import now fails.\n", "package_api_version_mismatch"),
    ("The newest networkx release breaks the graph loader (G.node).\n", "package_api_version_mismatch"),
    ("scripts/eval.py errors out with scipy 1.14 when it calls simps.\n", "package_api_version_mismatch"),
    # an older release still seen after an install
    ("I updated numpy to 1.26.4 but python is still importing 1.21.5 from somewhere.\n", "library_shadowed_older_copy"),
    ("Reinstalled pandas twice but it's still showing the old version in my Jupyter notebook.\n",
     "kernel_restart_needed"),
    # message rows
    ("-- Found CUDAToolkit: /usr/local/cuda-12.9/include (found version \"12.9.41\")\nCMake Error at "
     "src/CMakeLists.txt:41 (message):\n  Could not find nvToolsExt\n", "library_bug"),
    ("CMake Error at CMakeLists.txt:88 (target_link_libraries):\n  Target \"denoise\" links to:\n\n    "
     "CUDA::nvToolsExt\n\n  but the target was not found.\n", "library_bug"),
    ("Traceback (most recent call last):\n  File \"fit.py\", line 9, in <module>\n    w = jnp.zeros(8)\n"
     "jax.errors.JaxRuntimeError: UNIMPLEMENTED: default_memory_space is not supported.\n",
     "companion_built_for_other_torch"),
    ("dyld[4410]: Library not loaded: @rpath/libgeos_c.1.dylib\n  Reason: Incompatible library version: "
     "_geos.cpython-311-darwin.so requires version 19.0.0 or later, but libgeos_c.1.dylib provides version 17.1.0\n",
     "library_shadowed_older_copy"),
    ("  File \"/Users/lee/sd/run.py\", line 40, in <module>\n    unet.to('mps', dtype=torch.bfloat16)\n"
     "RuntimeError: BFloat16 is not supported on MPS\n", "library_bug"),
    ("RuntimeError: Placeholder buffer size (3145728) is not large enough to contain the Tensor storage of size "
     "6291456\n", "library_bug"),
    ("  File \"train.py\", line 51, in step\n    loss.backward()\nRuntimeError: expected DoubleTensor but found "
     "FloatTensor\n", "user_code_error"),
    ("[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: "
     "WorkNCCL(SeqNum=9120, OpType=BROADCAST, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran for 600321 "
     "milliseconds before timing out.\n", "user_code_error"),
    ("time=2024-11-02 level=ERROR msg=\"worker died\"\nError: model runner exited with code 0xC0000409\n",
     "library_bug"),
    ("/usr/include/x86_64-linux-gnu/bits/mathcalls.h(81): error: exception specification is incompatible with that "
     "of previous function \"sinpif\" (declared at line 2588 of /opt/cuda/targets/x86_64-linux/include/crt/"
     "math_functions.h)\n", "library_bug"),
    ("running build_ext\ncopying build/lib.win-amd64-cpython-311/fastsplat/_backend.pyd -> fastsplat\nerror: can't "
     "copy 'widgets/static/viewer.min.js': doesn't exist or not a regular file\n", "library_bug"),
    ("E0412 loader: Texture file (/home/ci/.venv/lib/python3.12/site-packages/pyvista/assets/skybox.ktx) not found\n",
     "library_bug"),
    # Python's words with the module name retyped in backticks, a notebook run from another environment
    ("After `pip install plotly-resampler` in my venv, the notebook (started with jupyter lab from base) says "
     "No module named `plotly_resampler`\n", "kernel_wrong_python"),
    # a segmentation fault told in lowercase prose, two native packages imported: their runtimes clash
    ("import open3d as o3d\nimport pyrender\nscene = pyrender.Scene()\nthis gives a segmentation fault on my "
     "machine\n", "native_library_conflict"),
    ("RuntimeError: Given groups=1, weight of size 32 1 5 5, expected input[16, 28, 28, 1] to have 1 channels, but got "
     "28 channels instead\n", "user_code_error"),
]


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[t[:50] for t, _ in READINGS])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


NOT = [
    # a downgrade of the driver, CUDA, the compiler or Python is no library's regression; nor an OS "is fine"
    ("Downgrading the NVIDIA driver to 535.154 fixed it.\nCUDA error: unknown error\n", "library_bug"),
    ("Going back to CUDA 11.8 and gcc 11 solved the build.\n", "library_bug"),
    ("On Ubuntu 20.04 is fine, on 22.04 it is not.\n", "library_bug"),
    ("The README says torch >= 2.1.0 is fine for this release.\n", "library_bug"),
    # the project's own code (or a notebook cell) calling the package: its values may be what the package refuses
    ("Traceback (most recent call last):\n  File \"/home/eva/proj/train.py\", line 12, in <module>\n    load(cfg)\n"
     "  File \"/home/eva/venv/lib/python3.10/site-packages/hydra/core/utils.py\", line 3, in load\n    cfg['model']\n"
     "KeyError: 'model'\n", "library_bug"),
    ("----> 3 df = reader.load('x.csv')\nFile ~/venv/lib/python3.10/site-packages/mylib/io.py:8, in load(path)\n"
     "Cell In[4], line 3\n  File \"/home/u/venv/lib/python3.10/site-packages/mylib/io.py\", line 8, in load\n"
     "ValueError: unknown file type\n", "library_bug"),
    # numpy's own argument checks stay the calling code's
    ("Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/numpy/core/fromnumeric.py\", line "
     "57, in _wrapfunc\nValueError: cannot reshape array of size 10 into shape (3,3)\n", "library_bug"),
    # a program, not a file of the package's own, not found
    ("Traceback (most recent call last):\n  File \"/opt/conda/lib/python3.10/site-packages/jupyterhub/proxy.py\", line "
     "6, in start\nFileNotFoundError: [Errno 2] No such file or directory: 'configurable-http-proxy'\n", "library_bug"),
    # the C library or the driver breaking something is no Python package's API
    ("Our wheel breaks with glibc 2.41: cannot enable executable stack as shared object requires\n",
     "package_api_version_mismatch"),
    ("The new NVIDIA driver release breaks NVENC on my laptop.\n", "package_api_version_mismatch"),
    # an install that shows the new release is no older copy
    ("I upgraded to 3.2.0 and now it shows 3.2.0.\n", "library_shadowed_older_copy"),
    # MPS words of other causes keep theirs
    ("TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64.\n",
     "library_bug"),
    # another Windows status (a DLL the program needs not found) is no fail-fast abort
    ("Error: llama runner process has terminated: exit status 0xc0000135\n", "library_bug"),
    # the project's own function declared twice with other exception specifications is its own code
    ("src/io.cpp(12): error: exception specification is incompatible with that of previous function \"load_mesh\"\n",
     "library_bug"),
    # a file of the user's own that the command names is no build output
    ("cp: cannot stat 'weights/model.pt': No such file or directory\n", "library_bug"),
    # a file of the user's own (not under the package's folder), or a compiled module of a package, is no data file
    ("Config file (/home/ana/proj/configs/base.yaml) not found\n", "library_bug"),
    # a bare segmentation fault in prose, no two packages: not recognised as a clash
    ("the training script gives a segmentation fault after epoch 3\n", "native_library_conflict"),
    # an update of CUDA is no library's regression
    ("It fails since we did the CUDA 12.1 update.\nRuntimeError: CUDA error: unknown error\n", "library_bug"),
    # a store's connect timeout at start-up is no collective that ranks entered unevenly
    ("torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/2 clients joined.\n",
     "user_code_error"),
    # another dtype message (the same element type) is no old dtype mismatch
    ("RuntimeError: expected scalar type Long but found Int\n", "cuda_oom"),
]


@pytest.mark.parametrize(("text", "code"), NOT, ids=[t[:50] for t, _ in NOT])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3), (text, rule_codes(text, n=4))


@pytest.mark.parametrize(("table", "key"), [
    ("library_messages", "nvtx_legacy_library_missing"), ("library_messages", "jax_metal_plugin_jax_mismatch"),
    ("library_messages", "dyld_incompatible_library_version"), ("torch_messages", "mps_bfloat16_unsupported"),
    ("torch_messages", "mps_placeholder_buffer_too_small"), ("torch_messages", "scalar_type"),
    ("torch_messages", "conv_channels"), ("torch_messages", "nccl_watchdog_collective_timeout"),
    ("library_messages", "windows_fail_fast_exit"), ("library_messages", "cuda_headers_glibc_c23_noexcept"),
    ("library_messages", "setuptools_built_file_missing"), ("library_messages", "package_own_data_file_missing"),
])
def test_new_rows_match_their_example_and_stay_linear(table, key):
    assert_row_matches_its_example_and_stays_linear(table, key)


def test_generic_exception_finding_names_the_package():
    f = explain_result(next(t for t, _ in READINGS if "meshio" in t), similar=False).findings[0]
    assert f.code == "library_bug" and "meshio" in f.title and any("pip show meshio" in c for c in f.fix.commands)


def test_regression_finding_says_a_release_works():
    f = explain_result(next(t for t, _ in READINGS if "v2.4.1 was fine" in t), similar=False).findings[0]
    assert f.code == "library_bug" and "release" in f.title and "consistency check" not in f.fix.why
