# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain from the user's side, round 21a (the second blind audit's worst printed defects): a Linux text that names
Windows only as where it works is not read as Windows; no command with a filler word ("the library") where a name
belongs (torchaudio's missing backend named); every printed pip argument a package name and no command twice in one
finding; values read from text judged without their Markdown/quote marks. Texts in other wordings than the audit's."""

from __future__ import annotations

import re
import subprocess

from smrnb.doctor._explain import explain_result
from smrnb.doctor._textfacts import read_text


def _found(text: str):
    return explain_result(text, similar=False).findings


def _commands(text: str) -> list[str]:
    return [c for f in _found(text) if f.fix for c in f.fix.commands]


def _parses(cmd: str) -> bool:
    body = re.sub(r"<[^<>]*>", "X", cmd)
    return subprocess.run(["bash", "-n", "-c", body], capture_output=True).returncode == 0


# ------------------------------------------------------------------ 1. the OS a text is read from
def test_linux_release_text_naming_windows_as_where_it_works_is_not_windows():
    text = ("Running on Ubuntu 22.04 the container fails, while on my Windows laptop it is fine:\n"
            "docker: Error response from daemon: failed to create task for container: nvidia-container-cli: "
            "initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: "
            "no such file or directory: unknown.\n")
    ctx = read_text(text).get("context", {})
    assert ctx.get("os") != "windows", ctx
    cmds = _commands(text)
    assert not any(c.startswith(("where ", "powershell")) or "%CUDA_VISIBLE_DEVICES%" in c for c in cmds), cmds


def test_windows_path_or_dll_still_reads_windows_even_with_a_linux_release_named():
    text = ("Same code works on my debian server, but here:\n"
            "OSError: [WinError 126] The specified module could not be found. Error loading "
            "\"C:\\Users\\me\\venv\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.\n")
    assert read_text(text).get("context", {}).get("os") == "windows"


def test_windows_prose_alone_still_reads_windows():
    text = ("On Windows 10 with an RTX 3060:\n"
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert read_text(text).get("context", {}).get("os") == "windows"


# ------------------------------------------------------------------ 2. no filler word where a name belongs
def test_torchaudio_backend_error_names_its_backends_not_the_library():
    text = ("import torchaudio\nwav, sr = torchaudio.load('clip.flac')\n"
            "RuntimeError: Couldn't find appropriate backend to handle uri clip.flac and format None.\n")
    found = [f for f in _found(text) if f.code == "library_not_found"]
    assert found, [f.code for f in _found(text)]
    f = found[0]
    printed = " ".join([f.title, *f.fix.commands])
    assert "the library" not in printed, printed
    assert "soundfile" in printed and "FFmpeg" in printed, printed
    assert all(_parses(c) for c in f.fix.commands), f.fix.commands


def test_torchaudio_ffmpeg_extension_names_ffmpeg_libraries():
    text = ("from torchaudio.io import StreamReader\n"
            "ImportError: FFmpeg libraries are not found. Please install FFmpeg.\n")
    cmds = _commands(text)
    assert cmds and not any(re.search(r"\bthe library\b", c) for c in cmds), cmds
    assert any("libavcodec" in c or "ffmpeg" in c for c in cmds), cmds


def test_no_printed_command_has_the_words_the_library():
    for text in ("RuntimeError: No audio I/O backend is available\n",
                 "torchaudio.load failed: RuntimeError: Couldn't find appropriate backend to handle uri a.wav "
                 "and format None.\n"):
        for c in _commands(text):
            assert not re.search(r"(?:grep|search|ls|find) the library\b", c), c


# ------------------------------------------------------------------ 3. pip arguments are names; nothing twice
def test_cumm_not_compiled_with_cuda_prints_package_names_once():
    text = ("spconv 2.3.6, torch 2.0.1+cu118\n"
            "  File \"train.py\", line 40, in forward\n"
            "ValueError: /io/include/tensorview/tensor.h(171) don't compiled with cuda\n")
    for f in _found(text):
        cmds = list(f.fix.commands) if f.fix else []
        bodies = [re.split(r"\s+#", c, maxsplit=1)[0].strip() for c in cmds]
        bodies = [b for b in bodies if b]
        assert len(bodies) == len(set(bodies)), (f.code, cmds)
        for c in cmds:
            assert _parses(c), c
            m = re.match(r"pip (?:show|install)\b([^#]*)", c)
            if m:
                assert "/ " not in m.group(1) and "(" not in m.group(1), c


def test_pip_display_label_split_into_names():
    from smrnb.doctor._printed import _once, _pip_names

    assert _pip_names("pip show alpha / beta (gamma)   # then x") == "pip show alpha beta   # then x"
    assert _pip_names("pip install torch --index-url https://download.pytorch.org/whl/cu121") == \
        "pip install torch --index-url https://download.pytorch.org/whl/cu121"
    assert _once(["pip show a", "pip show a   # why", "nvidia-smi"]) == ("pip show a   # why", "nvidia-smi")


# ------------------------------------------------------------------ 4. values without their Markdown marks
def test_cuda_home_in_inline_code_is_not_a_relative_path():
    text = ("I exported CUDA_HOME=`/usr/local/cuda-11.8` and still:\n"
            "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n")
    tk = read_text(text).get("toolkit", {})
    assert not str(tk.get("cuda_home_malformed_why") or "").startswith("is a relative"), tk
    printed = " ".join(f.title for f in _found(text))
    assert "relative path" not in printed, printed


def test_quoted_nvcc_path_read_without_its_quote_mark():
    text = ("which nvcc gives `/opt/cuda-12.1/bin/nvcc`\n"
            "error: command '/usr/bin/nvcc' failed with exit code 1\n")
    nv = read_text(text).get("toolkit", {}).get("nvccs") or []
    assert all("`" not in str(n.get("path", "")) for n in nv), nv


def test_an_error_that_says_windows_still_reads_windows_with_a_linux_release_asked_about():
    text = ("NotImplementedError: Windows is not supported by this build of the extension\n"
            "Should I move to a Debian machine instead?\n")
    assert read_text(text).get("context", {}).get("os") == "windows"
