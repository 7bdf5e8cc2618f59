# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain from the user's side: a pasted text and what the report says about it (its codes, titles, fixes,
commands, exit status, markdown). Each text is a kind of error, written here from the tool that prints it
(torch.utils.cpp_extension, torch._inductor, jax, Python's import system, Windows' loader, NumPy, Jupyter):
a reading must come from the tool's real context, name the package the text names, and give the fix of the
system the text comes from."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from smrnb.doctor import explain
from smrnb.doctor._redact import redact_identity

CLI = [sys.executable, "-m", "smrnb.doctor.cli"]


def _all_text(rep) -> str:
    return "\n".join(f"{f.title}\n{f.fix.why if f.fix else ''}\n" + "\n".join(f.fix.commands if f.fix else ())
                     for f in rep.findings)


# ------------------------------------------------------------------ a table row only in its tool's context
@pytest.mark.parametrize("text", [
    'Traceback (most recent call last):\n  File "train.py", line 41, in <module>\n    x = batch[7]\n'
    "IndexError: list index out of range",
    'File "/srv/app/loader.py", line 12, in pick\n    return names[i]\nIndexError: list index out of range',
    "IndexError: list index out of range",
])
def test_an_index_error_of_the_users_code_is_no_gpu_finding(text):
    rep = explain(text, live=False)
    assert "gpu_not_exposed_to_process" not in rep.codes
    assert rep.exit_code != 1 or not any(f.layer == "driver" for f in rep.errors)


@pytest.mark.parametrize("text", [
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/cpp_extension.py", line 2714, in '
    "_get_cuda_arch_flags\n    arch_list[-1] += '+PTX'\n    ~~~~~~~~~^^^^\nIndexError: list index out of range",
    '  File "/usr/lib/python3/dist-packages/torch/utils/cpp_extension.py", line 1561, in _get_cuda_arch_flags\n'
    "IndexError: list index out of range",
])
def test_the_empty_arch_list_of_a_build_without_a_gpu_is_still_read(text):
    rep = explain(text, live=False)
    assert "gpu_not_exposed_to_process" in rep.codes[:2]


# ------------------------------------------------------------------ triton missing for torch.compile
def test_torch_compile_without_triton_is_a_missing_dependency_named_triton():
    text = ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: Cannot find a "
            "working triton installation. Either the package is not installed or it is too old.\n")
    rep = explain(text, live=False)
    first = rep.findings[0]
    assert first.code == "build_dependency_missing" and "triton" in first.title
    assert "torchvision" not in first.title + first.fix.why + " ".join(first.fix.commands)
    assert any("triton" in c for c in first.fix.commands)
    for f in rep.findings:  # the other reading (a triton of another release) names triton too
        if f.code == "companion_built_for_other_torch" and "similar reports" not in f.sources:
            assert "triton" in f.title and "triton" in f.fix.why


def test_a_triton_release_in_the_text_makes_the_mismatch_the_first_reading():
    text = ("triton==2.1.0\n"
            "RuntimeError: Cannot find a working triton installation. Either the package is not installed or it "
            "is too old.")
    f = explain(text, live=False).findings[0]
    assert f.code == "companion_built_for_other_torch" and "triton 2.1" in f.title


# ------------------------------------------------------------------ a CPU-only build of another library
@pytest.mark.parametrize(("text", "pkg"), [
    ("WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
     "installed. Falling back to cpu.", "jaxlib"),
    ("UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available "
     "providers: 'AzureExecutionProvider, CPUExecutionProvider'", "onnxruntime"),
])
def test_a_cpu_only_build_of_another_library_names_that_library_not_torch(text, pkg):
    f = explain(text, live=False).findings[0]
    assert f.code == "cpu_only_torch_with_gpu"
    assert pkg in f.title and "torch" not in f.title
    assert pkg in f.fix.why and not any("torch" in c for c in f.fix.commands)


# ------------------------------------------------------------------ a module of the project's own
@pytest.mark.parametrize("text", [
    'Traceback (most recent call last):\n  File "run.py", line 2, in <module>\n    from common.io_utils import '
    "load\nModuleNotFoundError: No module named 'common.io_utils'",
    "ModuleNotFoundError: No module named 'src.models'",
    "ImportError: cannot import name 'Trainer' from 'lib.engine' (/home/dev/proj/lib/engine.py)",
])
def test_a_module_of_the_projects_own_gets_no_pip_install_of_its_name(text):
    rep = explain(text, live=False)
    assert "package_api_version_mismatch" not in [f.code for f in rep.findings if "similar reports" not in f.sources]
    assert not any("pip install" in c and any(w in c for w in ("common", "src", "lib")) for f in rep.findings
                   for c in (f.fix.commands if f.fix else ()))


def test_a_module_of_an_installed_distribution_is_still_another_release():
    text = ('  File "/opt/conda/lib/python3.10/site-packages/diffusers/__init__.py", line 5, in <module>\n'
            "ModuleNotFoundError: No module named 'diffusers.models.unet_2d_blocks'")
    f = explain(text, live=False).findings[0]
    assert f.code == "package_api_version_mismatch" and "diffusers" in " ".join(f.fix.commands)
    assert explain("ModuleNotFoundError: No module named 'kaolin.models'", live=False).codes[0] == \
        "package_api_version_mismatch"


# ------------------------------------------------------------------ a dying kernel without torch
def test_a_dying_kernel_is_no_torch_finding_unless_the_text_shows_torch():
    log = ("[I 2025-01-09 08:00:01.100 ServerApp] KernelRestarter: restarting kernel (2/5), keep random ports\n"
           "Kernel Restarting: The kernel for analysis.ipynb appears to have died. It will restart automatically.")
    assert "torch_import_failed" not in explain(log, live=False).codes
    with_torch = 'In [1]: import torch\n' + log
    assert "torch_import_failed" in explain(with_torch, live=False).codes


# ------------------------------------------------------------------ a library message's own title
def test_numpy_abi_message_has_a_whole_title():
    text = ("A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.1.3 as it may crash.\n"
            "ImportError: numpy.core.multiarray failed to import")
    f = explain(text, live=False).findings[0]
    assert f.code == "package_api_version_mismatch"
    assert "NumPy" in f.title and "<" not in f.title and not f.title.startswith(" ")
    assert any("numpy<2" in c for c in f.fix.commands)


# ------------------------------------------------------------------ the fix of the text's system
@pytest.mark.parametrize("text", [
    'OSError: [WinError 126] The specified module could not be found. Error loading "D:\\envs\\ml\\Lib\\'
    'site-packages\\torch\\lib\\shm.dll" or one of its dependencies.',
    "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
])
def test_a_windows_library_error_gets_the_windows_fix(text):
    rep = explain(text, live=False)
    f = next(f for f in rep.findings if f.code in ("library_not_found", "cudart_not_found"))
    said = f.fix.why + "\n" + "\n".join(f.fix.commands)
    assert "LD_LIBRARY_PATH" not in said and "ldconfig" not in said and "kernelspec" not in said
    assert "PATH" in f.fix.why and "os.add_dll_directory" in f.fix.why


def test_a_linux_library_error_keeps_the_linux_fix():
    rep = explain("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
                  live=False)
    f = next(f for f in rep.findings if f.code == "cudart_not_found")
    assert "LD_LIBRARY_PATH" in f.fix.why and "os.add_dll_directory" not in f.fix.why


# ------------------------------------------------------------------ markdown for a public bug report
def test_markdown_redacts_the_user_of_every_home_path_the_text_shows():
    text = ("ImportError: /home/zoe.k/venv/lib/python3.10/site-packages/ext/_C.so: undefined symbol: "
            "_ZN3c105ErrorC2ENS_14SourceLocationESs\n"
            'OSError: [WinError 126] The specified module could not be found. Error loading "C:\\Users\\zoek\\env'
            '\\Lib\\site-packages\\torch\\lib\\c10.dll" or one of its dependencies.\n')
    md = explain(text, live=False).to_markdown(redact=True)
    shown = re.sub(r"\\(.)", r"\1", md)  # (blind audit 36 A, L2) as rendered: Markdown's backslash escapes undone
    assert "zoe" not in md.lower() and "/home/<user>/venv" in shown and "C:\\Users\\<user>\\env" in shown
    assert redact_identity("/Users/zoek/miniforge3/lib", {}) == "/Users/<user>/miniforge3/lib"
    assert "C:/Users/Public" in redact_identity("C:/Users/Public/Desktop", {})


def test_this_machines_user_name_is_redacted_as_a_name_never_as_a_word():
    reps = {"/home/dev": "~", "dev": "<user>", "box7": "<host>"}
    text = "point CUDA_HOME at a dev toolkit; /srv/dev/cache; dev@box7:~$; USER=dev; /home/dev/x"
    assert redact_identity(text, reps) == ("point CUDA_HOME at a dev toolkit; /srv/<user>/cache; <user>@<host>:~$; "
                                           "USER=<user>; ~/x")
    root = {"/root": "~", "root": "<user>"}
    assert redact_identity("the toolkit root (CUDA_HOME); /root/.cache; /srv/rootfs", root) == \
        "the toolkit root (CUDA_HOME); ~/.cache; /srv/rootfs"


# ------------------------------------------------------------------ exit status of explain
@pytest.mark.parametrize(("text", "rc"), [
    # a cause of warning severity: the text failed because of it
    ("In the terminal `python -c 'import torch'` works, but in the notebook:\n"
     "ModuleNotFoundError: No module named 'torch'", 1),
    ("RuntimeError: CUDA error: an illegal memory access was encountered", 0),  # a note: not the environment
    ("the weather is nice today", 3),
])
def test_explain_exit_status_says_cause_note_or_unknown(text, rc):
    p = subprocess.run([*CLI, "explain", "--offline", "--json"], input=text, capture_output=True, text=True,
                       timeout=60)
    d = json.loads(p.stdout)
    assert p.returncode == d["summary"]["exit_code"] == rc, (d["findings"], p.stderr)
    if rc == 1:
        assert not d["summary"]["errors"] or any(f["severity"] == "warning" for f in d["findings"])


# ------------------------------------------------------------------ a tagged release of another package beside torch's
@pytest.mark.parametrize("text, want", [
    ("I have torch 2.1.2+cu121 and exllamav2 0.0.15+cu121 installed", "2.1.2+cu121"),
    ("pip install torch==2.1.0+cu118 xformers==0.0.22.post7+cu118", "2.1.0+cu118"),
    ("torch 2.3.0+cu121, flash_attn 2.5.8+cu122", "2.3.0+cu121"),
    ("tried 1.11.0+cu113 of torch", "1.11.0+cu113"),
    ("Successfully installed torch-2.3.1+cu121", "2.3.1+cu121"),
])
def test_torchs_version_is_torchs_when_the_line_names_another_packages_release(text, want):
    from smrnb.doctor._explain import read

    assert read(text)["torch"]["version"] == want
