# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 16b (the kinds behind dev14's misses, smrnb users' own stacks): a Jupyter widget without its
front-end in the page; a Jupyter server and an extension of releases not made for each other (entry points, the
classic notebook's 500 page); a Jupyter application refusing its configuration; a module name undefined in a
notebook session; an API an installed library changed between releases (the Jupyter and Dask families, scikit-image,
Open3D... named without a traceback into site-packages; Python's older 'cannot import name' without its module, read
from the from-import line above it; a TorchScript op's argument count; a call's returned tuple of another length); a
package release refusing this Python; torch's companions missing (torchvision, torch_geometric) and a hyphenated
distribution name for a compiled op package; a dunder torch module of a newer torch; torchaudio without FFmpeg's
libraries; cumm/spconv's CPU build; torch's PyPI placeholder; Slurm refusing the account for a partition; JupyterHub's
proxy not on the hub's PATH; CMake taking the build folder for the source; one of torch's own libraries lacking a
symbol of torch (a stale library). Each text is written for the test (other wordings,
versions, tools than the threads); each kind has near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import rule_codes

READINGS = [
    # a Jupyter widget without its front-end: the widget manager's or the library's lab extension missing, or of
    # another release than the kernel's package
    ("[JupyterLab 1.2] Error displaying widget: model not found\n",
     ["threejs_extension_missing", "package_api_version_mismatch"]),
    ("Widget Javascript not detected.  It may not be installed or enabled properly.\n",
     ["threejs_extension_missing", "package_api_version_mismatch"]),
    ("bqplot Figure shows: Error: Could not create a model.\n",
     ["threejs_extension_missing", "package_api_version_mismatch"]),
    ("Failed to display Jupyter Widget of type IntSlider.\n",
     ["threejs_extension_missing", "package_api_version_mismatch"]),
    # a server and an extension of releases not made for each other
    ("[W 2021-02-01 10:00:00.000 ServerApp] nbgitpuller | error linking extension: There is no "
     "`_jupyter_server_extension_points` defined at the root of the extension module.\n",
     ["package_api_version_mismatch", "library_bug"]),
    ("AttributeError: module 'jupyter_lsp' has no attribute 'load_jupyter_server_extension'\n",
     ["package_api_version_mismatch", "library_bug"]),
    ("Opening any .ipynb the browser shows 500 : Internal Server Error\n",
     ["package_api_version_mismatch", "library_bug"]),
    # a Jupyter application refusing its configuration
    ("[C 09:01:02.003 LabApp] Bad config encountered during initialization:\n"
     "[C 09:01:02.003 LabApp] The 'port' trait of a LabApp instance expected an int, not the str 'eighty'.\n",
     ["user_code_error"]),
    # a module name undefined in this session (the import cell not run, the kernel restarted)
    ("----> 3 arr = np.zeros((4, 4))\nNameError: name 'np' is not defined\n", ["user_code_error"]),
    # an installed library's API of another release than the calling code's
    ("ImportError: cannot import name 'parse_timedelta' from 'distributed.utils'\n",
     ["package_api_version_mismatch"]),
    ("AttributeError: module 'skimage.measure' has no attribute 'compare_ssim'\n", ["package_api_version_mismatch"]),
    ("ImportError: cannot import name 'JupyterHandler' from 'notebook.base.handlers'\n",
     ["package_api_version_mismatch"]),
    ("  File \"train.py\", line 4, in <module>\n    from torchsparse.utils import sparse_quantize, make_ntuple\n"
     "ImportError: cannot import name 'make_ntuple'\n", ["package_api_version_mismatch"]),
    ("---> 12 from distributed.utils import (\n     13     parse_bytes,\n"
     "ImportError: cannot import name 'format_bytes'\n", ["package_api_version_mismatch"]),
    ("RuntimeError: segment_csr() expected at most 4 argument(s) but received 5 argument(s). Declaration: "
     "torch_scatter::segment_sum_csr(Tensor src, Tensor indptr, Tensor? optional_out) -> Tensor\n",
     ["package_api_version_mismatch", "user_code_error"]),
    ("    color, depth, alpha, radii = rasterizer(means3D=xyz, opacities=opacity)\n"
     "ValueError: not enough values to unpack (expected 4, got 3)\n",
     ["package_api_version_mismatch", "library_bug"]),
    ("ValueError: too many values to unpack (expected 2)\n", ["package_api_version_mismatch", "library_bug"]),
    # Python 2's 'No module named' with the last part only, the from-import line naming the whole module
    ("  File \"/usr/lib/python2.7/dist-packages/trimesh/__init__.py\", line 5, in <module>\n"
     "    from trimesh.exchange import load\nImportError: No module named exchange\n", ["package_api_version_mismatch"]),
    # a package release refusing this Python
    ("ERROR: Package 'jupyterlab' requires a different Python: 3.6.9 not in '>=3.7'\n",
     ["package_api_version_mismatch"]),
    ("RuntimeError: traitlets requires Python version 3.7 or above.\n", ["package_api_version_mismatch"]),
    # torch's companions not installed in this Python; a compiled op package's distribution name for its module's
    ("ModuleNotFoundError: No module named 'torchaudio'\n", ["torch_not_installed"]),
    ("ImportError: No module named torchvision.datasets\n", ["torch_not_installed"]),
    ("ModuleNotFoundError: No module named 'torch-geometric'\n", ["torch_not_installed"]),
    ("ModuleNotFoundError: No module named 'pointnet2-ops'\n", ["extension_not_compiled"]),
    # a dunder module of torch that this (older) torch does not have
    ("    from torch.__config__ import show\nModuleNotFoundError: No module named 'torch.__config__'\n",
     ["package_api_version_mismatch"]),
    # torchaudio's FFmpeg extension without FFmpeg's libraries
    ("RuntimeError: Failed to intialize FFmpeg extension. Tried versions: ['6', '5', '4', ''].\n",
     ["library_not_found"]),
    # cumm/spconv's CPU build given a GPU tensor
    ("RuntimeError: /io/include/tensorview/tensor.h(221) don't compiled with cuda\n",
     ["cpu_only_torch_with_gpu", "prebuilt_binary_wrong_cuda"]),
    # torch's PyPI placeholder pulled in as a requirement
    ("Best match: torch 0.1.2\n    RuntimeError: PyTorch does not currently provide packages for PyPI (see status at "
     "https://github.com/pytorch/pytorch/issues/566).\n", ["torch_not_installed"]),
    # Slurm refusing the account for the partition asked for
    ("srun: error: Unable to allocate resources: Invalid account or account/partition combination specified\n",
     ["slurm_gpu_request_rejected"]),
    # JupyterHub not finding its proxy on the hub process's PATH
    ("[C 2022-07-04 08:00:00.000 JupyterHub proxy:712] Failed to find proxy ['/usr/local/bin/configurable-http-proxy']\n",
     ["env_not_propagated_to_kernel"]),
    # CMake taking the build folder for the source folder (a CMake before 3.13's -S/-B)
    ("CMake Error: The source directory \"C:/src/tiny-cuda-nn/build\" does not exist.\nSpecify --help for usage\n",
     ["build_dependency_missing", "user_code_error"]),
    # one of torch's own libraries without a symbol of torch: two builds' files mixed
    ("ImportError: /opt/conda/lib/python3.8/site-packages/torch/lib/libtorch_cpu.so: undefined symbol: "
     "THNN_FloatSpatialConvolutionMM_updateOutput\n", ["library_shadowed_older_copy", "abi_torch_version_mismatch"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # a widget that displays; an error about a model of the user's (not the widget manager's)
    ("IntSlider(value=3) rendered; Widget Javascript detected\n", "threejs_extension_missing"),
    ("RuntimeError: Could not create a model from the config: missing key 'backbone'\n", "threejs_extension_missing"),
    # a server extension that loads; a 500 of another web server
    ("[I ServerApp] jupyterlab_git | extension was successfully loaded.\n", "package_api_version_mismatch"),
    ("requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: https://x/api\n",
     "package_api_version_mismatch"),
    # a NameError of the code's own variable, of a compiled op left undefined by a failed import
    ("NameError: name 'model' is not defined\n", "user_code_error"),
    ("NameError: name '_C' is not defined\n", "user_code_error"),
    # a name missing from a folder of the project's own; an old-form import error with no from-import line to name
    # its module
    ("ImportError: cannot import name 'build_loader' from 'datasets.loaders' (/home/u/proj/datasets/loaders.py)\n",
     "package_api_version_mismatch"),
    ("ImportError: cannot import name 'helper'\n", "package_api_version_mismatch"),
    # a TorchScript call with too few arguments (no count of a removed one), another unpacking message
    ("RuntimeError: forward() is missing value for argument 'x'. Declaration: forward(Tensor x) -> Tensor\n",
     "package_api_version_mismatch"),
    ("ValueError: cannot unpack non-iterable NoneType object\n", "library_bug"),
    # a Python requirement met; torchvision's removed module (another release's API, not torchvision missing)
    ("Requires-Python >=3.8; 3.10.12 satisfies it\n", "package_api_version_mismatch"),
    ("ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'\n", "torch_not_installed"),
    ("ImportError: cannot import name 'read_image' from 'torchvision.io'\n", "torch_not_installed"),
    # torch's own compiled module (a checkout shadowing the install), not a dunder module
    ("ModuleNotFoundError: No module named 'torch._C'\n", "package_api_version_mismatch"),
    # FFmpeg found by torchaudio; a CUDA build of cumm failing otherwise
    ("torchaudio.utils.ffmpeg_utils.get_versions(): {'libavcodec': (58, 134, 100)}\n", "library_not_found"),
    ("RuntimeError: /io/include/tensorview/cuda/launch.h(53) CUDA error 209\n", "cpu_only_torch_with_gpu"),
    # a partition refused for the GPU request itself
    ("sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification\n",
     "user_code_error"),
    # another program not found; a source folder that is not a build folder
    ("FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'\n", "env_not_propagated_to_kernel"),
    ("CMake Error: The source directory \"/home/u/proj/src\" does not exist.\n", "build_dependency_missing"),
    # torch's own library without a symbol of another library (MKL's: that library's release)
    ("ImportError: /home/u/envs/a/lib/python3.9/site-packages/torch/lib/libtorch_cpu.so: undefined symbol: "
     "iJIT_NotifyEvent\n", "library_shadowed_older_copy"),
    # an extension's own library without torch's symbol (the extension's reading, not torch's files mixed)
    ("ImportError: /home/u/.local/lib/python3.8/site-packages/torch_scatter/_scatter_cuda.so: undefined symbol: "
     "_ZN3c106detail19maybe_wrap_dim_slowEllb\n", "library_shadowed_older_copy"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)


@pytest.mark.parametrize("text, missing", [
    ("ModuleNotFoundError: No module named 'torchvision'", "torchvision"),
    ("Traceback (most recent call last):\n  File \"prep.py\", line 2, in <module>\n    import torchaudio\n"
     "ModuleNotFoundError: No module named 'torchaudio'", "torchaudio"),
    ("    from torch_geometric.data import Data\nModuleNotFoundError: No module named 'torch_geometric'",
     "torch_geometric"),
])
def test_a_companion_missing_is_named_not_torch(text, missing):
    # torch_not_installed read for a companion names the companion in its title and its install command: a person
    # with torch installed must not be told torch is missing
    f = [f for f in explain_result(text, similar=False).findings if f.code == "torch_not_installed"][0]
    assert f.title.startswith(f"{missing} is not installed") and "torch is not installed" not in f.title
    assert f"python -m pip install {missing}" in f.fix.commands


def test_torch_itself_missing_keeps_torchs_own_words():
    f = explain_result("ModuleNotFoundError: No module named 'torch'", similar=False).findings[0]
    assert f.code == "torch_not_installed" and f.title.startswith("torch is not installed")
