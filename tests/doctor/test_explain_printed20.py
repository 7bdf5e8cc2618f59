# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain from the user's side, round 20b: what is printed is true to the pasted text. Texts in other wordings than
the audit's (audit19): titles name the text's package, every printed command of a POSIX text parses as a shell line,
no ``<...>`` placeholder where the text gives the value, a text from Windows gets cmd/PowerShell commands (or a
command said to be Linux's), a text from macOS no GNU-only flag, guess headers cut at a word, and --markdown hides a
person's folder outside /home."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor._redact import redact_identity
from smrnb.doctor._report import Report


def _found(text: str, similar: bool = False):
    return explain_result(text, similar=similar).findings


def _commands(text: str, similar: bool = False) -> list[str]:
    return [c for f in _found(text, similar) if f.fix for c in f.fix.commands]


def _parses(cmd: str) -> bool:
    """A command as bash reads it (placeholders the text truly lacks stand for one word)."""
    body = re.sub(r"<[^<>]*>", "X", cmd)
    shlex.split(body, comments=True)
    return subprocess.run(["bash", "-n", "-c", body], capture_output=True).returncode == 0


POSIX_ONLY = re.compile(r"(?:^|[;&|]\s*)(?:export |which |ls |grep |rm -rf |ldd |lspci)|\$\(|/tmp/|/usr/local/cuda")


# ------------------------------------------------------------------ placeholders the text fills
def test_package_named_by_the_traceback_fills_the_reinstall_command():
    text = ("Traceback (most recent call last):\n"
            '  File "/opt/venvs/nerf/lib/python3.10/site-packages/tinycudann/modules.py", line 19, in <module>\n'
            "    import tinycudann_bindings._86_C as _C\n"
            "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
            "torch 2.1.0+cu121, CUDA 12.1\n")
    cmds = _commands(text)
    assert cmds and not any("<package" in c or "<the package that owns" in c for c in cmds), cmds


def test_cuda_folder_the_text_names_fills_cuda_home():
    text = ("$ ls /usr/local/\ncuda-12.1  bin  lib\n"
            "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n")
    cmds = " ".join(_commands(text))
    assert "/usr/local/cuda-12.1" in cmds and "<x.y>" not in cmds, cmds


def test_jit_cpp_extension_build_gets_its_build_folder_not_pip_install():
    text = ('  File "/home/u/proj/gridencoder/backend.py", line 6, in <module>\n'
            "    _backend = load(name='_grid_encoder', sources=[...])\n"
            '  File "/home/u/.venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 1284, in load\n'
            '  File "/home/u/.venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 1508, in _jit_compile\n'
            "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.\n"
            "RuntimeError: Error building extension '_grid_encoder'\n")
    cmds = _commands(text)
    assert not any(re.search(r"pip install [^#]*<package>", c) for c in cmds), cmds
    assert any("torch_extensions" in c for c in cmds), cmds


# ------------------------------------------------------------------ commands that run as printed
@pytest.mark.parametrize("text", [
    # a library's own message whose table names a family, not a pip name
    "AttributeError: module 'ipywidgets' has no attribute 'register'\n"
    "Error displaying widget: model not found\n",
    "KeyError: 'MMDet3DDataset is not in the dataset registry. Please check whether the value of `MMDet3DDataset` "
    "is correct or it was registered as expected.'\n",
    # a module cut at a hyphen
    "ModuleNotFoundError: No module named 'ipyvolume-widgets-extension'\n(in a Jupyter notebook cell)\n",
    # the notebook's own check
    "ModuleNotFoundError: No module named 'einops'\nit is installed, pip list shows it, but the notebook cannot import it\n",
])
def test_every_printed_command_parses_as_a_shell_line(text):
    for c in _commands(text):
        assert _parses(c), c


def test_missing_ipykernel_is_installed_before_the_kernel_is_registered():
    text = ("Running cells with 'myenv (Python 3.12.1)' requires the ipykernel package.\n"
            "Run the following command to install 'ipykernel' into the Python environment.\n"
            "ModuleNotFoundError: No module named 'ipykernel'\n")
    cmds = _commands(text)
    reg = [c for c in cmds if "ipykernel install" in c]
    assert not reg or all("pip install ipykernel" in c for c in reg), cmds


def test_hyphenated_module_is_never_pip_installed_cut_at_the_hyphen():
    text = "ModuleNotFoundError: No module named 'napari-plugin-engine'\n(in a Jupyter notebook)\n"
    found = _found(text)
    assert found
    cmds = _commands(text)
    assert not any(re.search(r"%?pip install napari(?:\s|$)", c) for c in cmds), cmds
    assert any("napari-plugin-engine" in f.title for f in found)


def test_conda_nvcc_for_cuda_10_is_a_package_that_exists():
    from smrnb.doctor._install import conda_nvcc_command

    assert "cuda-nvcc=10" not in conda_nvcc_command("10.2")
    assert "cudatoolkit-dev=10.2" in conda_nvcc_command("10.2")
    assert "cuda-nvcc" not in conda_nvcc_command("9.0")
    assert conda_nvcc_command("12.4") == "conda install -c nvidia cuda-nvcc=12.4 cuda-cudart-dev=12.4"


def test_compute_cap_is_not_asked_of_a_driver_older_than_the_field():
    text = ("NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4\n"
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    cmds = _commands(text)
    assert not any("compute_cap" in c.split("#")[0] for c in cmds), cmds


# ------------------------------------------------------------------ titles name the text's package
def test_jax_cublas_check_is_not_called_torchs():
    text = ("E external/xla/xla/stream_executor/cuda/cuda_blas.cc: CUDA backend failed to initialize: Found cuBLAS "
            "version 120002, but JAX was built against version 120103, which is newer. The copy of cuBLAS that is "
            "installed must be at least as new as the version against which JAX was built.\n")
    found = _found(text)
    assert found
    assert not any("torch" in f.title for f in found), [f.title for f in found]
    assert not any("libtorch" in c for c in _commands(text))


def test_pip_no_release_of_a_misspelled_name_says_so():
    text = ("$ pip install xformer\nERROR: Could not find a version that satisfies the requirement xformer "
            "(from versions: none)\nERROR: No matching distribution found for xformer\n")
    found = _found(text)
    assert found and "xformers" in found[0].title
    rep = Report(explain_result(text, similar=False).facts, found, {"recognised": True}, secrets=[])
    assert "[kaolin] kaolin" not in rep.to_text()


def test_library_bug_without_torch_does_not_upgrade_torch():
    text = ("Traceback (most recent call last):\n  File \"render.py\", line 40, in render\n"
            "    rendered, radii = rasterizer(means3D=xyz, opacities=o)\n"
            "ValueError: too many values to unpack (expected 2)\n")
    assert not any("torch" in c for c in _commands(text)), _commands(text)


def test_slurm_refusal_of_a_cpu_only_job_is_not_a_gpu_request():
    text = ("#!/bin/bash\n#SBATCH --partition=short\n#SBATCH --ntasks=128\n#SBATCH --mem=4G\n"
            "sbatch: error: Batch job submission failed: Requested node configuration is not available\n")
    found = [f for f in _found(text) if f.code == "slurm_gpu_request_rejected"]
    assert found
    assert "GPU request" not in found[0].title or "no GPU" in found[0].title
    cmds = " ".join(found[0].fix.commands)
    assert "--gres" not in cmds and "short" in cmds


def test_egl_without_nvdiffrast_gets_no_nvdiffrast_advice():
    text = ("vtkEGLRenderWindow.cxx:382 WARN| vtkEGLRenderWindow: EGL device index: 0 could not be initialized. "
            "Trying other devices...\nRuntimeError: eglInitialize failed: EGL_NOT_INITIALIZED\n")
    assert not any("nvdiffrast" in c or "RasterizeCudaContext" in c for c in _commands(text))


# ------------------------------------------------------------------ platforms
def test_windows_text_gets_cmd_commands():
    text = ("(base) C:\\Users\\kim\\proj> python setup.py install\n"
            "nvcc fatal : Cannot find compiler 'cl.exe' in PATH\n"
            "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin\\nvcc.exe failed with exit status 1\n"
            "OSError: CUDA_HOME environment variable is not set.\n")
    for c in _commands(text):
        body = c.split("   #")[0]
        assert not POSIX_ONLY.search(body) or "Linux" in c, c


def test_windows_pip_download_has_no_tmp_folder():
    text = ("PS D:\\ai> pip install triton\nERROR: Could not find a version that satisfies the requirement triton "
            "(from versions: none)\nERROR: No matching distribution found for triton\n")
    cmds = _commands(text)
    assert cmds and not any("/tmp/" in c for c in cmds), cmds
    assert any("Windows" in f.fix.why for f in _found(text) if f.fix)


def test_macos_text_gets_no_gnu_nm_flag():
    text = ("ImportError: dlopen(/Users/ann/venv/lib/python3.9/site-packages/pyrender/_ext.cpython-39-darwin.so, 2): "
            "Symbol not found: _objc_msgSend_stret\n  Referenced from: /Users/ann/venv/lib/python3.9/site-packages/"
            "pyrender/_ext.cpython-39-darwin.so\n  Expected in: /usr/lib/libobjc.A.dylib\n")
    assert not any("nm -D" in c for c in _commands(text))


# ------------------------------------------------------------------ readings' headers
def test_guess_headers_end_at_a_word():
    from smrnb.doctor._codes import CODES

    text = "something went wrong in my notebook widget after updating, ModuleNotFoundError somewhere\n"
    for f in _found(text, similar=True):
        if f.title.startswith("like known reports of: ") and f.title.endswith("..."):
            head = f.title[len("like known reports of: "):-3]
            meaning = CODES[f.code].meaning
            assert meaning.startswith(head)
            nxt = meaning[len(head):len(head) + 1]
            assert nxt in (" ", ",", ";", ":", "(", ""), (head, nxt)


# ------------------------------------------------------------------ redaction of a person's folder
@pytest.mark.parametrize("path, name", [
    ("/scratch/mwilson/runs/exp1/train.py", "mwilson"),
    ("/data-hdd2/li.wei/code/train.py", "li.wei"),
    ("/data/users/okafor/proj/train.py", "okafor"),
])
def test_markdown_hides_a_persons_folder_outside_home(path, name):
    assert name not in redact_identity(f'File "{path}", line 3, in <module>', {})


def test_environment_named_from_the_user_is_hidden():
    text = "/home/qzhang/anaconda3/envs/qzhang_py38/lib/python3.8/site-packages/mmcv/_ext.so: undefined symbol"
    assert "qzhang" not in redact_identity(text, {})


@pytest.mark.parametrize("path", ["/usr/local/cuda-11.8/bin/nvcc", "/data/imagenet/train/n01440764",
                                  "/mnt/c/Users/Public/x.py", "site-packages/mmcv/_ext.so", "/mnt/data/models/ckpt"])
def test_redaction_keeps_system_and_project_paths(path):
    assert redact_identity(path, {}) == path


# ------------------------------------------------------------------ the release the text names
@pytest.mark.parametrize("text, want", [
    ("ImportError: cannot import name 'secure_write' from 'jupyter_core.paths'\n"
     "jupyter-server 2.14 requires jupyter_core>=5.1, but you have jupyter-core 4.7.1 which is incompatible.\n",
     ">=5.1"),
    ("ModuleNotFoundError: No module named 'mmcv._ext'\nI changed mmcv from 1.7.1 to 2.0.0 and now this happens\n",
     "1.7.1"),
])
def test_release_placeholder_filled_from_what_the_text_says(text, want):
    from smrnb.doctor._printed import _release_named

    pkg = "jupyter_core" if "jupyter" in text else "mmcv"
    got = _release_named(f"pip install '{pkg}==<the release the code names>'   # see its requirements file", text)
    assert want in got and "<the release" not in got, got
    assert _parses(got)


def test_installed_release_is_not_taken_for_the_one_the_code_names():
    from smrnb.doctor._printed import _release_named

    text = "Successfully installed spconv==2.1.0\nAttributeError: module 'spconv' has no attribute 'SparseConv3d'\n"
    got = _release_named("pip install 'spconv==<the release the code names>'   # see its requirements file", text)
    assert "2.1.0" not in got
