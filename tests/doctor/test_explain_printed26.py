# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 26: a printed command runs as printed where the text shows the shell it will run in.

A POSIX shell's one-command variables (``CUDA_LAUNCH_BLOCKING=1 python train.py``,
``TORCH_CUDA_ARCH_LIST="8.9" pip install .``) are a program name to cmd and PowerShell; a single-quoted argument
keeps its quotes in cmd (``pip install 'numpy<2'`` redirects from a file named ``2'``). On a text from Windows the
printed pass writes them in the words of the shell the text shows (blind audit 26): cmd's (``set "X=v" &&``, a note
after ``& rem``: cmd has no ``#`` comment, pip reads ``#`` as a requirement) or, where the text shows PowerShell,
PowerShell's (``$env:X = "v";``, ``$env:VAR``, ``where.exe``, ``Remove-Item``; ``&&`` is no operator in 5.1). A rerun of a build with fewer compile jobs whose package the text names
nowhere is the variable set for the build's own command, not ``pip install ... <package>``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor._printed import _windows

CORPUS = Path(__file__).parent / "corpus"
#: a POSIX one-command variable before a program (at a command's start or after &&)
_ENV_PREFIX = re.compile(r"(?:^|&&\s*)[A-Z_][A-Z0-9_]*=\S+\s+[a-z.]")
WIN = "C:\\Users\\me\\proj> python train.py\n"


def _commands(text: str) -> list[str]:
    return [c for f in explain_result(text, similar=False).findings for c in (f.fix.commands if f.fix else ())]


def test_a_windows_texts_launch_blocking_rerun_is_cmds():
    cmds = _commands(WIN + "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert any(c.startswith('set "CUDA_LAUNCH_BLOCKING=1" && python train.py & rem ') for c in cmds), cmds
    assert not any(_ENV_PREFIX.search(c.split(" & rem ")[0]) for c in cmds), cmds
    assert not any("#" in c for c in cmds), cmds  # cmd has no '#' comment


def test_a_powershell_texts_rerun_is_powershells():
    cmds = _commands("PS C:\\Users\\ana\\proj> python train.py\n"
                     "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert any(c.startswith('$env:CUDA_LAUNCH_BLOCKING = "1"; python train.py   # ') for c in cmds), cmds
    assert not any('set "' in c or "&&" in c or " & rem" in c for c in cmds), cmds


def test_a_conda_environments_powershell_prompt_is_powershell():
    # (the blind audit's texts: "(base) PS C:\\Users\\ana\\apex> pip install ...")
    cmds = _commands("(mesh) PS C:\\Users\\ana\\neus> python exp_runner.py\n"
                     "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert any(c.startswith('$env:CUDA_LAUNCH_BLOCKING = "1"; python exp_runner.py') for c in cmds), cmds


def test_a_powershell_texts_toolkit_and_rebuild_are_powershells():
    cmds = _commands("PS C:\\src\\ext> pip install .\nOSError: CUDA_HOME environment variable is not set. Please set "
                     "it to your CUDA install root.\ntorch 2.3.1+cu121\n")
    assert any(c.startswith('$env:CUDA_HOME = "$env:ProgramFiles\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1"')
               for c in cmds), cmds
    assert not any("%ProgramFiles%" in c or 'set "' in c for c in cmds), cmds


def test_a_windows_texts_arch_rebuild_is_cmds():
    cmds = _commands(WIN + "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
                     "GPU: NVIDIA GeForce RTX 4090\nsite-packages\\pytorch3d\\_C.pyd\n")
    rebuild = [c for c in cmds if "TORCH_CUDA_ARCH_LIST" in c]
    # (blind audit 36, F9) pytorch3d lies in site-packages: reinstalled by its name, no build/ of the current folder
    assert rebuild and all(c.startswith('set "TORCH_CUDA_ARCH_LIST=8.9" && pip install ') and "rmdir" not in c
                           for c in rebuild), rebuild
    assert all(" & rem " in c and "#" not in c for c in rebuild), rebuild


@pytest.mark.parametrize("cmd_form, cmd, powershell", [
    ('set "X=1" && python x.py   # cmd: why', 'set "X=1" && python x.py & rem why', '$env:X = "1"; python x.py   # why'),
    ("pip install pillow   # the name pip knows", "pip install pillow & rem the name pip knows",
     "pip install pillow   # the name pip knows"),
    ("# then rerun <pid>", "rem then rerun <pid>", "# then rerun <pid>"),
    ('rmdir /s /q build 2>nul & set "A=8.6" && pip install .   # cmd', 'rmdir /s /q build 2>nul & set "A=8.6" && pip '
     'install .', 'Remove-Item -Recurse -Force build -ErrorAction SilentlyContinue; $env:A = "8.6"; pip install .'),
    ("echo %PATH%   # cmd: folders", "echo %PATH% & rem folders", "echo $env:PATH   # folders"),
    ("where cl", "where cl", "where.exe cl"),
])
def test_cmds_form_in_the_shell_the_text_shows(cmd_form, cmd, powershell):
    from smrnb.doctor._printed import _for_shell
    assert _for_shell(cmd_form, "cmd") == cmd
    assert _for_shell(cmd_form, "powershell") == powershell


def test_the_same_texts_on_linux_keep_the_posix_forms():
    cmds = _commands("$ python train.py\nRuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert any(c.startswith("CUDA_LAUNCH_BLOCKING=1 python train.py") for c in cmds), cmds


@pytest.mark.parametrize("posix, cmd", [
    ("CUDA_LAUNCH_BLOCKING=1 python x.py   # why", 'set "CUDA_LAUNCH_BLOCKING=1" && python x.py   # cmd: why'),
    ('FOO=1 BAR="a b" python x.py', 'set "FOO=1" && set "BAR=a b" && python x.py   # cmd'),
    ("export MAX_JOBS=2   # then", 'set "MAX_JOBS=2"   # cmd: then'),
    ("pip install 'numpy<2'", 'pip install "numpy<2"   # cmd'),
    ("rm -rf build/ && pip install .", "rmdir /s /q build 2>nul & pip install .   # cmd"),
    # a POSIX part left: the command as it was, with the note that it is a POSIX shell's
    ("ls /usr/local/cuda && CUDA_HOME=/usr/local/cuda python setup.py install",
     "ls /usr/local/cuda && CUDA_HOME=/usr/local/cuda python setup.py install   # Linux/macOS shell (bash): on "
     "Windows use PowerShell's equivalents"),
    # a quote inside a double-quoted Python line is Python's, not the shell's
    ('python -c "import torch; print(\'x\')"', 'python -c "import torch; print(\'x\')"'),
    ("# a comment line", "# a comment line"),
])
def test_posix_forms_in_cmds_words(posix, cmd):
    assert _windows(posix) == cmd


def test_a_build_killed_with_no_package_named_sets_the_variable():
    cmds = _commands("c++: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.\n")
    assert any(c.startswith("export MAX_JOBS=2   # then run the build's command again") for c in cmds), cmds
    assert not any("<package>" in c for c in cmds), cmds


def test_a_build_killed_with_its_package_named_reruns_it():
    cmds = _commands("Building wheel for flash-attn (setup.py) ...\n"
                     "c++: fatal error: Killed signal terminated program cc1plus\n")
    assert any(c.startswith("MAX_JOBS=2 pip install --no-build-isolation -v flash-attn") for c in cmds), cmds


def _corpus_rows():
    if not CORPUS.is_dir():
        pytest.skip("the corpus folder is absent")
    for part in sorted(CORPUS.glob("*.jsonl")):
        with open(part, encoding="utf-8") as fh:
            yield from (json.loads(ln) for ln in fh if ln.strip())


def test_no_corpus_text_gets_a_posix_variable_on_windows_or_an_unnamed_rerun():
    """Over every corpus text: where the text reads as Windows, no printed command starts a program with a POSIX
    one-command variable unless it carries the POSIX note, and none of cmd's carries a '#' note; nowhere a
    ``MAX_JOBS=N pip install ... <package>`` (before round 26: 37 and 44 such commands)."""
    env, unnamed, windows = [], [], 0
    for r in _corpus_rows():
        res = explain_result(r["text"], similar=False)
        win = (res.facts.get("context") or {}).get("os") == "windows"
        windows += win
        for c in (c for f in res.findings for c in (f.fix.commands if f.fix else ())):
            body = c.split("   #")[0].split(" & rem ")[0]
            if win and _ENV_PREFIX.search(body) and "Linux/macOS shell" not in c:
                env.append((r["id"], c))
            if win and "   #" in c and " & rem " not in c and not c.startswith(("rem ", "# ")) and "$env:" not in c \
                    and not re.search(r"(?m)^\s*(?:\([\w.-]+\)\s*)?PS [A-Za-z]:", r["text"]) and "powershell" not in r["text"].lower():
                env.append((r["id"], c))  # a '#' note in cmd's form: pip reads '#' as a requirement
            if re.search(r"MAX_JOBS=\d[^#]*<package>", body):
                unnamed.append((r["id"], c))
    assert windows > 100  # the sweep reads many Windows texts
    assert not env and not unnamed, (env[:5], unnamed[:5])


# ------------------------------------------------------------------ macOS (blind audit 26: Linux/CUDA commands on a Mac)
MAC = "ana@mbp proj % python3 train.py --device cuda\nTraceback (most recent call last):\n" \
      "  File \"/Users/ana/proj/train.py\", line 12, in <module>\n    x = x.to(\"cuda\")\n"


def test_a_macs_no_gpu_finding_asks_for_mps_not_nvidia_smi():
    cmds = _commands(MAC + "AssertionError: Torch not compiled with CUDA enabled\n")
    assert not any(c.split("   #")[0].strip() in ("nvidia-smi", "lspci | grep -i nvidia") for c in cmds), cmds
    assert any("torch.backends.mps.is_available()" in c for c in cmds), cmds


def test_a_macs_cuda_home_finding_sets_no_toolkit_path():
    cmds = _commands("ana@mbp nvdiffrast % pip install .\n      File \"/Users/ana/venv/lib/python3.11/site-packages/"
                     "torch/utils/cpp_extension.py\", line 1076, in CUDAExtension\n"
                     "      OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n")
    assert not any(c.startswith("export CUDA_HOME=") for c in cmds), cmds
    assert any(c.startswith("# macOS has no NVIDIA driver or CUDA") for c in cmds), cmds


@pytest.mark.parametrize("linux, mac", [
    ("ss -ltnp | grep ':6006'   # the holder", "lsof -nP -iTCP:6006 -sTCP:LISTEN   # the holder"),
    ("nvidia-smi", 'python -c "import torch; print(torch.backends.mps.is_available())"   # macOS has no NVIDIA driver '
                   "or CUDA (CUDA 10.2 was the last release for macOS): torch's GPU on a Mac is device 'mps'"),
    ("ldd x.so", "otool -L x.so"),
    ("pip list", "pip list"),
])
def test_linux_forms_on_a_mac(linux, mac):
    from smrnb.doctor._printed import _macos
    assert _macos(linux) == mac


# ------------------------------------------------------------------ a launcher's '...' (blind audit 26, V10)
_NO_DRIVER = ("/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:118: UserWarning: CUDA initialization: "
              "Found no NVIDIA driver on your system.\nFalse 12.1\n")


def test_the_texts_docker_run_gets_the_gpus_option():
    cmds = _commands("root@0f1e2d3c4b5a:/workspace# python -c 'import torch; print(torch.cuda.is_available())'\n"
                     + _NO_DRIVER + "$ docker run -it --rm -v $PWD:/workspace pytorch/pytorch:2.2.0-cuda12.1-cudnn8-"
                     "runtime bash\n")
    assert any(c.startswith("docker run --gpus all -it --rm -v $PWD:/workspace pytorch/pytorch:2.2.0-cuda12.1-cudnn8-"
                            "runtime bash   # ") for c in cmds), cmds
    assert not any(c.startswith("docker run --gpus all ...") for c in cmds), cmds


@pytest.mark.parametrize("line", ["$ docker run --gpus all -it img bash\n",  # the option given: the cause is elsewhere
                                  "$ docker run -e HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWx img bash\n"])  # a secret
def test_a_docker_run_with_the_option_or_a_secret_is_not_copied(line):
    cmds = _commands("root@0f1e2d3c4b5a:/workspace# python train.py\n" + _NO_DRIVER + line)
    assert not any("hf_AbCd" in c or "AbCdEfGh" in c for c in cmds), cmds
    assert not any(c.startswith("docker run --gpus all -") for c in cmds), cmds
    assert any(c.startswith("docker run --gpus all ...") for c in cmds), cmds  # the reading is there, unfilled


# ------------------------------------------------------------------ Colab (blind audit 26, V7)
COLAB_NOTE = ("\n---------------------------------------------------------------------------\nNOTE: If your import is "
              "failing due to a missing package, you can\nmanually install dependencies using either !pip or !apt.\n")


def test_a_colab_cells_missing_package_is_installed_into_the_runtime():
    text = ("ModuleNotFoundError                       Traceback (most recent call last)\n<ipython-input-4-2b1c8e0a1d55> "
            "in <cell line: 2>()\n----> 2 import open3d as o3d\nModuleNotFoundError: No module named 'open3d'\n"
            + COLAB_NOTE)
    f = explain_result(text, similar=False).findings
    assert f[0].code == "python_package_missing", [x.code for x in f]
    assert f[0].fix.commands[0].startswith("%pip install open3d")
    assert not any(x.code in ("kernel_wrong_python", "env_not_propagated_to_kernel") for x in f), [x.code for x in f]
    assert not any("ipykernel install" in c for x in f for c in x.fix.commands)


def test_a_jupyter_cells_missing_package_keeps_the_kernels_reading():
    text = ("ModuleNotFoundError                       Traceback (most recent call last)\nCell In[4], line 2\n"
            "----> 2 import open3d as o3d\nModuleNotFoundError: No module named 'open3d'\n"
            "It works when I run python in the terminal.\n")
    assert explain_result(text, similar=False).findings[0].code == "kernel_wrong_python"
