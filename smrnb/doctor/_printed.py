# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""What explain prints, made true to the pasted text: the last pass over a text's findings.

The rules write a fix's commands from facts; where a command keeps a placeholder that the text itself fills
(the package a traceback's ``site-packages/<package>/`` path names, the CUDA release of ``/usr/local/cuda-<x.y>``),
where it is not runnable as printed (a Python line in a shell block), or where it is a POSIX command on a text from
Windows or a GNU-only flag on a text from macOS, this pass says what the text says. It changes titles, fixes and
commands (and the command that decides between readings) only, never which findings there are or their order."""

from __future__ import annotations

import functools
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from smrnb.doctor import _textfacts, tables
from smrnb.doctor._buildvars import with_build_variables
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor._redact import REDACTED, redact_text, redacted_and_secrets

#: a package folder a traceback or a build log names (``.../site-packages/pytorch3d/_C.so``)
_SITE_PKG_RE = re.compile(r"(?:site|dist)-packages[\\/]+([A-Za-z_][A-Za-z0-9_]*)(?=[\\/])")
#: folders under site-packages that are no package a user installed (or not the one to reinstall)
_NOT_THE_PACKAGE = {"torch", "pip", "setuptools", "pkg_resources", "_distutils_hack", "IPython", "ipykernel",
                    "tornado", "traitlets", "jupyter_client", "jupyter_core", "runpy", "importlib", "numpy",
                    "transformers", "accelerate"}
#: a CUDA toolkit folder the text names (``/usr/local/cuda-11.6``, ``cuda-11.6_ubuntu``, ``CUDA\v11.6``)
_CUDA_DIR_RE = re.compile(r"/usr/local/cuda-(\d{1,2}\.\d)\b|(?<![A-Za-z])cuda[-_](\d{1,2}\.\d)(?![\d.])|"
                          r"CUDA[\\/]+v(\d{1,2}\.\d)\b", re.IGNORECASE)
#: (round 28p) what every match of _CUDA_DIR_RE holds, in any case: searched first (the expression that ignores case
#: and starts with no literal reads a long text at a tenth of this speed)
_CUDA_WORD_RE = re.compile("cuda", re.IGNORECASE)
#: nvcc's own version line
_NVCC_RELEASE_RE = re.compile(r"Cuda compilation tools, release (\d{1,2}\.\d)")
#: torch.utils.cpp_extension.load(): a JIT build (no package to pip-install)
_JIT_RE = re.compile(r"cpp_extension\.py\S*\s*,?\s*line \d+, in (?:load|_jit_compile|load_inline|_write_ninja_file"
                     r"_and_build_library)\b|[\\/]torch_extensions[\\/]|Error building extension ['‘`\"]", re.IGNORECASE)
#: (round 28p) what every match of _JIT_RE holds, in any case (searched first, as _CUDA_WORD_RE)
_JIT_WORD_RE = re.compile("extens", re.IGNORECASE)
#: the extension cpp_extension's JIT build names ("Error building extension 'nvdiffrast_plugin'")
_JIT_NAME_RE = re.compile(r"Error building extension ['‘`\"]([\w.-]{1,80})['’`\"]", re.IGNORECASE)
_JIT_DIR_RE = re.compile(r"([~\w./\\:-]*[\\/]torch_extensions[\\/](?:[\w.-]+[\\/])?[\w.-]+)")
#: what only a POSIX shell runs (on a text from Windows)
_POSIX_RE = re.compile(r"(?:^|[;&|]\s*)(?:export |which |ls |grep |rm -rf |nm |ldd |file |uname|cat |sudo |apt(?:-get)? |"
                       r"lspci|df -h|ldconfig |unset |echo \$|echo \"|head -c )|\$\(|\$[A-Z_]{2,}|/tmp/|\| ?grep\b|/dev/|"
                       r"/usr/local\b")
_LINUX_NOTE = "   # Linux/macOS shell (bash): on Windows use PowerShell's equivalents"
#: POSIX commands of the rules and what runs in Windows' cmd/PowerShell instead
_WINDOWS_EQUIVALENTS = (  # a pattern of the whole command, and the command (str.format of its groups)
    # (round 27e, blind audit 27) the jupyter subcommand fix's bash lines: cmd's where lists every match on PATH
    (re.compile(r'^head -1 "\$\(command -v jupyter\)"   #(.*)$'),
     "where jupyter   # cmd: the first is the one that runs; its environment's python.exe (the folder above Scripts) is its Python"),
    (re.compile(r"^jupyter --paths; which -a jupyter   #(.*)$"),
     "jupyter --paths & where jupyter   # cmd:{0}"),
    (re.compile(r"^which -a python pip jupyter   #(.*)$"), "where python pip jupyter   # cmd:{0}"),
    (re.compile(r"^which -a nvcc; ls -d /usr/local/cuda\*$"),
     'where nvcc & dir "%ProgramFiles%\\NVIDIA GPU Computing Toolkit\\CUDA"   # cmd: every nvcc on PATH and the '
     "installed toolkits"),
    (re.compile(r"^ls -d /usr/local/cuda\*/bin/nvcc; which -a nvcc(.*)$"),  # (round 27b)
     'where nvcc & dir "%ProgramFiles%\\NVIDIA GPU Computing Toolkit\\CUDA"   # cmd: every nvcc on PATH and the '
     "installed toolkits"),
    (re.compile(r'^export CUDA_HOME=/usr/local/cuda-(\S+) PATH=/usr/local/cuda-\S+/bin:\$PATH '
                r'TORCH_CUDA_ARCH_LIST="([^"]*)"   #(.*)$'),  # a newer toolkit's build for the GPU's own code
     'set "CUDA_HOME=%ProgramFiles%\\NVIDIA GPU Computing Toolkit\\CUDA\\v{0}" & set '
     '"PATH=%ProgramFiles%\\NVIDIA GPU Computing Toolkit\\CUDA\\v{0}\\bin;%PATH%" & set "TORCH_CUDA_ARCH_LIST={1}"'
     "   # cmd:{2}"),
    (re.compile(r'^export TORCH_CUDA_ARCH_LIST="([^"]*)"(.*)$'),
     'set "TORCH_CUDA_ARCH_LIST={0}"{1}'),
    (re.compile(r"^export CUDA_HOME=/usr/local/cuda-(\S+) PATH=/usr/local/cuda-\S+/bin:\$PATH(.*)$"),
     'set "CUDA_HOME=%ProgramFiles%\\NVIDIA GPU Computing Toolkit\\CUDA\\v{0}" & set '
     '"PATH=%ProgramFiles%\\NVIDIA GPU Computing Toolkit\\CUDA\\v{0}\\bin;%PATH%"'
     "   # cmd{1}"),
    (re.compile(r"^export CUDA_HOME=/usr/local/cuda-(\S+)(.*)$"),
     'set "CUDA_HOME=%ProgramFiles%\\NVIDIA GPU Computing Toolkit\\CUDA\\v{0}"   # cmd{1}'),
    (re.compile(r'^nvidia-smi; echo "CUDA_VISIBLE_DEVICES=\$CUDA_VISIBLE_DEVICES".*$'),
     "nvidia-smi & echo CUDA_VISIBLE_DEVICES=%CUDA_VISIBLE_DEVICES%   # cmd: the GPUs the driver sees and the "
     "variable that hides them"),
    (re.compile(r"^lspci \| grep -i nvidia$"),
     'powershell -Command "Get-CimInstance Win32_VideoController | Select-Object Name, DriverVersion"   # the GPUs '
     "Windows sees"),
    (re.compile(r"^nvidia-smi; lspci \| grep -i nvidia$"),  # (round 27b) a what-decides line
     'nvidia-smi & powershell -Command "Get-CimInstance Win32_VideoController | Select-Object Name, DriverVersion"   '
     "# the driver's GPUs and the GPUs Windows sees"),
    (re.compile(r"^(.*?) 2>&1 \| grep -m1 -B5 -iE? '[^']*'(.*)$"),
     '{0} 2>&1 | findstr /I "error killed"{1}'),
    (re.compile(r"^head -c \d+ (<[^<>]+>\.\w+|\S+)(.*)$"),  # (round 31a) the file's first lines
     'powershell -Command "Get-Content -TotalCount 3 \'{0}\'"{1}'),
    (re.compile(r"^echo \$LD_LIBRARY_PATH$"), "echo %PATH%   # cmd: Windows loads DLLs from the folders on PATH"),
    (re.compile(r"^pip show -f (\S+) \| grep -E '.*$"),
     'pip show -f {0} | findstr /I ".pyd"   # the compiled modules it installed'),
    (re.compile(r'^echo "\$(\w+)"$'), "echo %{0}%"),
)


#: the fills that read the whole text, remembered within one explain (:func:`true_to_text` clears them before and after:
#: a text is read once for all its findings, and no text outlives its explain); :func:`_per_explain` fills it
_TEXT_READS: list[Any] = []


def _per_explain(fn: Any) -> Any:
    """A pure reading of the whole text (``fn(text)``), remembered for one explain: cached, and listed in
    :data:`_TEXT_READS` so that :func:`true_to_text` clears it."""
    cached = functools.lru_cache(maxsize=2)(fn)
    _TEXT_READS.append(cached)
    return cached


def _one(found: list[str]) -> str:
    """The one distinct non-empty value of ``found``, ``""`` when none or several."""
    got = list(dict.fromkeys(x for x in found if x))
    return got[0] if len(got) == 1 else ""


@_per_explain
def _site_package(text: str) -> str:
    """The one package folder under site-packages the text's paths name (besides torch and the notebook's own),
    ``""`` when none or several."""
    return _one([m.group(1) for m in _SITE_PKG_RE.finditer(text) if m.group(1) not in _NOT_THE_PACKAGE
                 and not m.group(1).startswith("_")])


@_per_explain
def _cuda_release(text: str) -> str:
    """The CUDA release the text's own toolkit path or nvcc line names (``""`` when none, or several)."""
    return _one([next(g for g in m.groups() if g) for m in (_CUDA_DIR_RE.finditer(text) if _CUDA_WORD_RE.search(text) else ())]
                + _NVCC_RELEASE_RE.findall(text))


#: (round 38a) a CUDA release the text shows in words the toolkit-path reading leaves out: a folder or release at a
#: sentence's end (``cuda-8.0.``), a release glued to the word (``cuda11.6``, conda's ``py3.9_cuda11.6_cudnn8``)
_CUDA_GLUED_RE = re.compile(r"/usr/local/cuda-(\d{1,2}\.\d)\.(?!\d)|(?<![A-Za-z])cuda[-_]?(\d{1,2}\.\d)(?!\d|\.\d)",
                            re.IGNORECASE)
#: torch's CUDA where the text writes it and the facts did not read it: a torch release's local part
#: (``torch 2.10.0.dev20251024+cu130``, ``Pytorch 1.6.0 + cu101``), conda's build string of pytorch
#: (``pytorch 1.12.1 py3.9_cuda11.6_cudnn8.3.2_0``), torch_scatter's check ("PyTorch has CUDA version 10.1")
_TEXT_TORCH_CUDA_RE = re.compile(r"\b(?:py)?torch\b[ \t=:-]*v?\d+\.\d+(?:\.\d+)?(?:\.?(?:dev|a|b|rc)\d*)?[ \t]*\+[ \t]*"
                                 r"cu(\d{2,3})\b|\bpytorch[ \t]+\d+\.\d+(?:\.\d+)?[ \t]+py\d\.\d+_cuda(\d{1,2}\.\d)_|"
                                 r"\bPyTorch has CUDA version (\d{1,2}\.\d)\b", re.IGNORECASE)


def _cu_release(cu: str) -> str:
    """``121`` -> ``12.1``, ``92`` -> ``9.2`` (a wheel's ``cuXYZ``); an ``X.Y`` as it is."""
    return cu if "." in cu else f"{cu[:-1]}.{cu[-1]}"


@_per_explain
def _text_torch_cuda(text: str) -> str:
    """(round 38a) The one CUDA release of torch the text writes (:data:`_TEXT_TORCH_CUDA_RE`), ``""`` when none or
    several."""
    if "cu" not in text.lower():
        return ""
    return _one([_cu_release(next(g for g in m.groups() if g)) for m in _TEXT_TORCH_CUDA_RE.finditer(text)])


@_per_explain
def _cuda_releases_shown(text: str) -> tuple[str, ...]:
    """(round 38a) Every CUDA release the text's toolkit folders, nvcc lines, glued words (``cuda11.6``) and torch
    builds (``+cu121``) name, each once, in order."""
    if not _CUDA_WORD_RE.search(text):
        return ()
    found = [next(g for g in m.groups() if g) for m in _CUDA_DIR_RE.finditer(text)] + _NVCC_RELEASE_RE.findall(text)
    found += [next(g for g in m.groups() if g) for m in _CUDA_GLUED_RE.finditer(text)]
    found += [_cu_release(next(g for g in m.groups() if g)) for m in _TEXT_TORCH_CUDA_RE.finditer(text)]
    return tuple(dict.fromkeys(found))


def _cuda_meant(text: str, facts: Mapping[str, Any] | None, torch_first: bool) -> str:
    """(round 38a, brief R38A item 1) The CUDA release a ``/usr/local/cuda-<x.y>`` placeholder means, as the text shows
    it: torch's CUDA (the facts', else the one the text writes) where the command pins torch's (``torch_first``) or
    where the text shows several releases and torch's is one of them; else the one release the text's toolkit path,
    nvcc line or glued ``cuda11.6`` names; ``""`` where nothing, or nothing single, shows it."""
    tc = _torch_cuda(facts) or _text_torch_cuda(text)
    if tc and torch_first:
        return tc
    shown = _cuda_releases_shown(text)
    one = _cuda_release(text) or (shown[0] if len(shown) == 1 else "")
    return one or (tc if tc in shown else "")


def _several_shown(c: str, text: str) -> str:
    """(round 38a) A ``<x.y>`` placeholder left open where the text shows several CUDA releases: its note names them."""
    shown = _cuda_releases_shown(text) if "<x.y>" in c else ()
    if len(shown) < 2 or "   #" not in c:
        return c
    return f"{c} (the text shows CUDA {', '.join(sorted(shown, key=tables.version_key))})"


def _os(facts: Mapping[str, Any] | None) -> str:
    ctx = facts.get("context") if isinstance(facts, Mapping) else None
    return str(ctx.get("os") or "") if isinstance(ctx, Mapping) else ""


#: (round 28c) a Linux shell's prompt (``user@host:~$``, ``[user@host dir]$``) or WSL's kernel name: the commands of a
#: WSL2 text run in its Linux shell, not in the Windows one it was started from
_LINUX_PROMPT_RE = re.compile(r"(?m)^\S{0,40}?[\w.-]+@[\w.-]+:[^\s$#]{0,200}[$#](?:\s|$)|^\[[\w.-]+@[\w.-]+ [^\]\n]{1,100}\][$#]"
                              r"|microsoft-standard")


@_per_explain
def _linux_prompt(text: str) -> bool:
    return bool(_LINUX_PROMPT_RE.search(text))


def _shell_os(facts: Mapping[str, Any] | None, text: str) -> str:
    """The OS whose shell runs the printed commands: a WSL2 text's Linux shell (its prompt shown) is Linux's, though the
    text names Windows."""
    os_ = _os(facts)
    ctx = facts.get("context") if isinstance(facts, Mapping) else None
    if os_ == "windows" and isinstance(ctx, Mapping) and ctx.get("wsl") and _linux_prompt(text):
        return "linux"
    return os_


def _torch_cuda(facts: Mapping[str, Any] | None) -> str:
    t = facts.get("torch") if isinstance(facts, Mapping) else None
    v = str(t.get("cuda") or "") if isinstance(t, Mapping) else ""
    return v if re.fullmatch(r"\d{1,2}\.\d", v) else ""


def _pkg_placeholder(cmd: str, pkg: str) -> str:
    return re.sub(r"<(?:package(?:-owning-[^<>]*)?|the package that owns [^<>]*|the package)>", pkg, cmd)


def _jit_folder(text: str) -> str:
    """(round 37f, blind audit 37 F15) The JIT build folder the text shows, narrowed to the failed extension's own
    (torch.utils.cpp_extension builds each in <TORCH_EXTENSIONS_DIR>/<py310_cu121>/<name>): never the folder of every
    extension of that Python and CUDA where the text names the one that failed."""
    dirs = [m.group(1) for m in _JIT_DIR_RE.finditer(text)]
    where = dirs[0] if dirs else ""
    named = _JIT_NAME_RE.search(text)
    if not named or not where:
        return where
    name = named.group(1)
    own = next((d for d in dirs if re.search(rf"[\\/]{re.escape(name)}$", d)), "")
    if own:
        return own
    if re.search(r"[\\/]torch_extensions[\\/]py\d+_(?:cu\d+|cpu|rocm[\w.]*)$", where):
        return where + ("\\" if "\\" in where and "/" not in where else "/") + name
    return where


def _jit_commands(text: str, windows: bool) -> list[str]:
    """A ``torch.utils.cpp_extension.load()`` build: clear its build folder (named where the text shows it) and rerun."""
    where = _jit_folder(text)
    if windows:
        folder = where if where and ":" in where else "%LOCALAPPDATA%\\torch_extensions"
        return [f'rmdir /s /q "{folder}"   # cmd: the JIT build folder of torch.utils.cpp_extension.load(); then rerun '
                "the script: the build log's first 'error' line is the cause"]
    named = _JIT_NAME_RE.search(text)
    script = _script_named(text)
    folder = where if where.startswith(("/", "~")) else (
        f"~/.cache/torch_extensions/*/{named.group(1)}" if named else "~/.cache/torch_extensions")
    return [f"rm -rf {folder}   # the JIT build folder of torch.utils.cpp_extension.load() (TORCH_EXTENSIONS_DIR "
            "where set); then rerun the script: the build log's first 'error' line is the cause",
            f"MAX_JOBS=1 python {script} 2>&1 | grep -m1 -B5 -iE 'error|killed'   # one compile job at a time"
            if script else "# then rerun what calls torch.utils.cpp_extension.load() (the script or notebook cell the "
            "traceback starts in) with MAX_JOBS=1 set: one compile job at a time, and its first 'error' line"]


#: a script the text runs: a command line's ``python [-u] x.py`` (a prompt's, a Dockerfile's, prose's)
_SCRIPT_RUN_RE = re.compile(r"(?:^|[\s$>`'\"(])python(?:\d(?:\.\d+)?)?(?:\.exe)?\s+(?:-[uOBsSE]\s+|-[WX]\s*\S+\s+)*"
                            r"([\w~./\\:-]{0,200}?[\w-]+\.py)(?=[\s`'\");&|]|$)", re.MULTILINE)
#: a traceback's frame (``File "train.py", line 3, in <module>``)
_FRAME_RE = re.compile(r'File "([^"\n<>]{0,300}?)", line \d+, in (\S+)')
_TB_HEAD = "Traceback (most recent call last):"


@_per_explain
def _script_named(text: str) -> str:
    """The one script the text runs: its command line's ``python x.py``, else the outermost frame of its tracebacks
    (the first after each ``Traceback (most recent call last):``) where that frame is a ``<module>`` of a ``.py`` file
    of the user's (not a package's ``__init__.py``, nothing under site-packages); ``""`` when none or several."""
    ran = _one(_SCRIPT_RUN_RE.findall(text))
    if ran or _SCRIPT_RUN_RE.search(text):
        return ran
    starts = [m.end() for m in re.finditer(re.escape(_TB_HEAD), text)] or [0]
    outer = [m for m in (_FRAME_RE.search(text, at) for at in starts) if m]
    return _one([m.group(1) for m in outer if m.group(2) == "<module>" and m.group(1).endswith(".py")
                 and not re.search(r"(?:site|dist)-packages|[\\/]lib[\\/]python\d|[\\/]bin[\\/]|(?:^|[\\/])__\w+__\.py$",
                                   m.group(1))])


#: a POSIX shell's variables set for one command (``CUDA_LAUNCH_BLOCKING=1 python x.py``, ``TORCH_CUDA_ARCH_LIST="8.9"
#: pip install .``), at a command's start or after ``&&``: cmd and PowerShell read the first word as the program
_ENV_PREFIX_RE = re.compile(r"(^|&&\s*)((?:[A-Z_][A-Z0-9_]*=(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'&|;]+)\s+)+)(?=[A-Za-z.])")
_ENV_ONE_RE = re.compile(r"([A-Z_][A-Z0-9_]*)=(?:\"([^\"\n]*)\"|'([^'\n]*)'|(\S+))")
#: a variable exported with a plain value (``export MAX_JOBS=2``; a path or ``$VAR`` has its own row below)
_EXPORT_PLAIN_RE = re.compile(r"^export ([A-Z_][A-Z0-9_]*)=([\w.-]+)\s*$")
#: a single-quoted argument standing alone (``pip install 'git+https://...'``; not one inside a double-quoted string)
_PIP_INSTALL_HEAD_RE = re.compile(r"^(?:python -m )?pip3? install\s")
_SINGLE_QUOTED_ARG_RE = re.compile(r"(?<=\s)'([^'\"\s]+)'(?=\s|$)")
#: ``rm -rf build/`` of a source tree (cmd: ``rmdir /s /q build``)
#: (``2>nul &``: a folder that is not there stops nothing, as ``rm -rf`` does not)
_RM_BUILD_RE = re.compile(r"(^|&&\s*)rm -rf ((?:\./)?[\w.-]+)/?\s*(?:&&\s*|$)")


def _cmd_env(body: str) -> str:
    """A POSIX command line's one-command variables and ``rm -rf folder/`` in cmd's words (``set "NAME=value" &&``,
    ``rmdir /s /q folder``); the rest as it was."""
    def env(m: re.Match[str]) -> str:
        sets = " && ".join(f'set "{v.group(1)}={next(g for g in v.groups()[1:] if g is not None)}"'
                           for v in _ENV_ONE_RE.finditer(m.group(2)))
        return f"{m.group(1)}{sets} && "
    body = _ENV_PREFIX_RE.sub(env, body)
    body = _EXPORT_PLAIN_RE.sub(r'set "\1=\2"', body)
    body = _SINGLE_QUOTED_ARG_RE.sub(r'"\1"', body)  # cmd passes single quotes on as part of the argument
    if _PIP_INSTALL_HEAD_RE.match(body):  # (round 31a) a pip target with a placeholder of words: 'x==<the release ...>'
        body = re.sub(r"(?<=\s)'([^'\"\n]+)'(?=\s|$)", r'"\1"', body)
    return _RM_BUILD_RE.sub(lambda m: f"{m.group(1)}rmdir /s /q {m.group(2)} 2>nul" + (" & " if m.group(0).rstrip()
                                                                                        .endswith("&&") else ""), body)


def _windows(cmd: str) -> str:
    """A rule's POSIX command on a text from Windows: cmd's equivalent where one is known (the rows of
    :data:`_WINDOWS_EQUIVALENTS`; a command's one-command variables and ``rm -rf folder`` by :func:`_cmd_env`), else
    the command with a note that it is a POSIX shell's."""
    body, sep, note = cmd.partition("   #")
    if body.lstrip().startswith("#"):
        return cmd
    converted = _cmd_env(body)
    if converted != body and not _POSIX_RE.search(converted):  # cmd's own words, where nothing POSIX is left
        return converted + (f"   # cmd:{note}" if sep else "   # cmd")
    if not _POSIX_RE.search(body):
        return cmd
    for rx, rep in _WINDOWS_EQUIVALENTS:
        m = rx.match(cmd)
        if m:
            out = rep.format(*m.groups()).replace("   # cmd   # ", "   # cmd: ")
            head, sep2, tail = out.partition("   #")
            head2 = _cmd_env(head)
            return out if head2 == head else head2 + (f"   #{tail}" if sep2 else "   # cmd")
    return cmd.replace("-d /tmp/x", "-d pip-files") if "-d /tmp/x" in cmd else cmd + _LINUX_NOTE


#: (round 31a) a part of a POSIX command that has no meaning on Windows: the Linux loader's variables and tools (ldd,
#: ldconfig, LD_LIBRARY_PATH, LD_DEBUG, LD_PRELOAD), the kernel's devices and modules (/dev/nvidia*, lsmod, /proc), a
#: gcc for the host compiler (nvcc on Windows uses MSVC's cl), GNU file/uname/iconv and the system folders
_NO_WINDOWS_PART_RE = re.compile(r"\b(?:ldd|ldconfig|lsmod|unset|uname|iconv|apt(?:-get)?|sudo|nm|findmnt)\b|^\s*file\s|"
                                 r"\bLD_(?:LIBRARY_PATH|DEBUG|PRELOAD)\b|/dev/|/proc/|/usr/|\bexport CC=|\bhead -c\b|"
                                 r"\bsort -u\b|\$\(|\$[A-Za-z_]")
#: grep's forms cmd's findstr reads: a recursive search of the Python files, and a filter of another command's lines
_GREP_RN_RE = re.compile(r'^grep -rn ("[^"\n]+"|\'[^\'\n]+\') --include=\*\.py \.$')
_GREP_PIPE_RE = re.compile(r"^(?P<head>.+?)\s*\|\s*grep (?P<opts>(?:-[iEw]+ )*)(?:-- )?(?P<pat><[^<>\n]+>|'[^'\n]*'|\"[^\"\n]*\"|\S+)$")
_LS_RE = re.compile(r"^ls(?: -[ld]+)? (?P<arg><[^<>\n]+>|\"[^\"]+\"|\S+)$")
_LDCONFIG_GREP_RE = re.compile(r"^ldconfig -p \| grep (<[^<>\n]+>|\S+)$")
_ECHO_VAR_RE = re.compile(r"^echo \$\{?([A-Za-z_]\w*)\}?$")


def _windows_part(part: str) -> str:
    """One part of a POSIX command (between ``;`` and ``&&``) in cmd's words, or "" where it has no Windows meaning."""
    part = part.strip().replace("2>/dev/null", "2>nul")
    m = _GREP_RN_RE.match(part)
    if m:
        return f'findstr /s /n /c:"{m.group(1)[1:-1]}" *.py'
    m = _ECHO_VAR_RE.match(part)
    if m:
        return f"echo %{m.group(1)}%"
    m = _LDCONFIG_GREP_RE.match(part)
    if m and not m.group(1).startswith(("-", "'", '"')):  # the DLL on PATH (Windows loads DLLs from PATH's folders)
        name = m.group(1).rsplit("/", 1)[-1]
        return f'where "{name}"' if name.startswith("<") else f"where {name}"
    m = _GREP_PIPE_RE.match(part)
    if m and not _NO_WINDOWS_PART_RE.search(m.group("head")):
        if m.group("pat").startswith("<"):  # a placeholder, quoted (cmd reads a bare < as a redirection)
            return f'{m.group("head")} | findstr /i /c:"{m.group("pat")}"'
        pat = m.group("pat").strip("'\"")
        alts = pat.split("|")
        if "-c" in m.group("opts") or any(re.search(r"[\\()\[\]$^*+?{}.]", a) for a in alts) or any(" " in a for a in alts):
            return ""  # a regular expression findstr reads otherwise
        return f'{m.group("head")} | findstr{" /i" if "i" in m.group("opts") else ""} "{" ".join(alts)}"'
    if part == "uname -m":  # this Python's machine and bitness (a 32-bit Python loads no 64-bit DLL)
        return "python -c \"import platform, struct; print(platform.machine(), struct.calcsize('P') * 8)\""
    m = _LS_RE.match(part)
    if m and not _NO_WINDOWS_PART_RE.search(part) and "*" not in part:
        arg = m.group("arg").strip('"').replace("/", "\\")
        return f'dir "{arg}"'
    if _NO_WINDOWS_PART_RE.search(part) or _POSIX_RE.search(part):
        return ""
    return part


def _outside_quotes_split(body: str) -> list[str]:
    """``body`` split at its ``;`` and ``&&`` outside quotes (a ``python -c "a; b"`` stays whole)."""
    out, cur, q, i = [], [], "", 0
    while i < len(body):
        ch = body[i]
        if q:
            q = "" if ch == q else q
        elif ch in "'\"":
            q = ch
        elif ch == "<" and re.match(r"<[^<>\n]+>", body[i:]):  # a placeholder of words ("<the file's name>"): whole
            j = body.index(">", i) + 1
            cur.append(body[i:j])
            i = j
            continue
        elif ch == ";" or body.startswith("&&", i):
            out.append("".join(cur))
            cur, i = [], i + (2 if ch == "&" else 1)
            continue
        cur.append(ch)
        i += 1
    return [*out, "".join(cur)]


def _windows_parts(cmd: str) -> str:
    """(round 31a, issue 25) A POSIX command :func:`_windows` left as it was (its note says so) on a text from Windows:
    each part in cmd's words (:func:`_windows_part`), the parts with no Windows meaning left out; "" where none is
    left. A person copies it into cmd: an ``export``, ``ldd``, ``LD_LIBRARY_PATH`` or ``$(...)`` there fails or does
    nothing."""
    body, sep, note = cmd[:-len(_LINUX_NOTE)].partition("   #") if cmd.endswith(_LINUX_NOTE) else cmd.partition("   #")
    parts = [p for p in _outside_quotes_split(body) if p.strip()]
    done = [_windows_part(p) for p in parts]
    if not all(done) and (len(parts) == 1 or all(not d or d.startswith("cd ") for d in done)):
        return ""  # nothing left, or only the ``cd`` to where the rest would have run
    kept = " & ".join(d for d in done if d)
    return kept + (f"   # cmd:{note}" if sep and note.strip() else "   # cmd")


#: the shell a Windows text shows: PowerShell's prompt (``PS C:\\proj>``, a conda environment's ``(base) PS C:\\proj>``)
#: or its name, else cmd (a ``C:\\...>`` prompt,
#: Anaconda Prompt's ``(base) C:\\...>``, or none: cmd's prompts are most of what Windows users paste)
_PS_SHOWN_RE = re.compile(r"(?m)^[ \t>]*(?:\([\w.-]{1,40}\)\s*)?PS [A-Za-z]:\\|\b(?:PowerShell|powershell|POWERSHELL|pwsh)\b")
_CMD_SHOWN_RE = re.compile(r"(?m)^[ \t>]*(?:\([\w.-]{1,40}\)\s*)?[A-Za-z]:\\[^>\n]{0,200}>(?!>)|\b(?:cmd|CMD)(?:\.exe)?\b|"
                           r"Command Prompt|Anaconda Prompt")


@_per_explain
def _windows_shell(text: str) -> str:
    """``"powershell"`` where a Windows text shows PowerShell and not cmd, else ``"cmd"`` (the literals first: a long
    text without them is not searched)."""
    if not ("PS " in text or "owerShell" in text or "owershell" in text or "OWERSHELL" in text or "pwsh" in text):
        return "cmd"
    return "powershell" if _PS_SHOWN_RE.search(text) and not _CMD_SHOWN_RE.search(text) else "cmd"


#: a cmd form's one-command variable, its variables and its commands that PowerShell reads otherwise
_SET_RE = re.compile(r'\bset "([A-Za-z_][A-Za-z0-9_]*)=([^"]*)"')
_PERCENT_VAR_RE = re.compile(r"%([A-Za-z_][A-Za-z0-9_]*)%")
_RMDIR_RE = re.compile(r"\brmdir /s /q (\"[^\"]+\"|\S+)(?: 2>nul)?")
_WHERE_RE = re.compile(r"(^|[;&]\s*)where (?=\S)")


#: (round 27b) a POSIX ``which`` a note or a what-decides line names as a command (``: which python``, ``(which -a
#: nvcc)``, ```which pip```): not prose's "which"
_WHICH_CMD_RE = re.compile(r"(?<=[:(`;]\s)which (-a )?(python3?|pip3?|nvcc|gcc|conda|jupyter|nvidia-smi|cl)(?=$|[)`;,]|\s(?:&&|;))|"
                           r"(?<=[(`])which (-a )?(python3?|pip3?|nvcc|gcc|conda|jupyter|nvidia-smi|cl)(?=$|[)`;,])")


def _which_for_shell(note: str, shell: str) -> str:
    """``which python`` in a Windows text's note or what-decides line in its shell's words: cmd's ``where python``,
    PowerShell's ``Get-Command python`` (``-All`` for ``which -a``)."""
    if "which " not in note:
        return note

    def one(m: re.Match[str]) -> str:
        every, prog = (m.group(1), m.group(2)) if m.group(2) else (m.group(3), m.group(4))
        return f"where {prog}" if shell == "cmd" else f"Get-Command {prog}" + (" -All" if every else "")
    return _WHICH_CMD_RE.sub(one, note)


def _for_shell(c: str, shell: str) -> str:
    """A command of a Windows text (cmd's form, :func:`_windows`) in the words of the shell the text shows: in cmd a
    note after ``#`` is no comment (pip reads '#' as a requirement), so it follows ``& rem``; in PowerShell, ``set``
    sets no environment variable, ``%X%`` is not expanded, ``&&`` is no operator in Windows PowerShell 5.1 and ``where``
    is Where-Object: ``$env:X = "v";``, ``$env:X``, ``;``, ``where.exe``, ``Remove-Item``."""
    if c.lstrip().startswith("#"):  # a comment line
        body, note = "", c.lstrip()[1:]
    else:
        body, _, note = c.partition("   #")
    note = _which_for_shell(re.sub(r"^\s*cmd\b:?\s*", "", note).strip(), shell)
    if shell == "cmd":  # REM's rest of the line is not parsed for & | < > (cmd's parser: REM is read as one token)
        if not body.strip():  # a comment line
            return "rem " + note if note else c
        return f"{body.rstrip()} & rem {note}" if note else body.rstrip()
    if not body.strip():
        return "# " + note if note else c
    ps = _SET_RE.sub(lambda m: f'$env:{m.group(1)} = "{m.group(2)}"', body)
    ps = _RMDIR_RE.sub(lambda m: f"Remove-Item -Recurse -Force {m.group(1)} -ErrorAction SilentlyContinue", ps)
    ps = _PERCENT_VAR_RE.sub(r"$env:\1", ps)
    ps = ps.replace(" && ", "; ").replace(" & ", "; ").replace(" 2>nul", " 2>$null")  # (round 31a) PowerShell's null
    ps = _WHERE_RE.sub(lambda m: f"{m.group(1)}where.exe ", ps)
    return f"{ps.rstrip()}   # {note}" if note else ps.rstrip()


#: the CUDA 10.2 release notes: "CUDA 10.2 (Toolkit and NVIDIA driver) is the last release to support macOS"
#: (https://docs.nvidia.com/cuda/archive/10.2/cuda-toolkit-release-notes/, 2.1 General CUDA): a Mac has no NVIDIA driver, nvcc or CUDA torch;
#: torch's GPU there is Metal's ("mps", torch.backends.mps)
_NO_CUDA_ON_MACOS = "macOS has no NVIDIA driver or CUDA (CUDA 10.2 was the last release for macOS)"
#: Linux commands of the rules and what a Mac runs instead (a pattern of the whole command, str.format of its groups)
_MACOS_EQUIVALENTS = (
    (re.compile(r"^nvidia-smi$"),
     'python -c "import torch; print(torch.backends.mps.is_available())"   # ' + _NO_CUDA_ON_MACOS
     + ": torch's GPU on a Mac is device 'mps'"),
    (re.compile(r"^lspci \| grep -i nvidia$"),
     "system_profiler SPDisplaysDataType | grep -i -e chipset -e metal   # the GPU macOS sees"),
    (re.compile(r"^ss -ltnp \| grep ':(\d{1,5})'(.*)$"), "lsof -nP -iTCP:{0} -sTCP:LISTEN{1}"),
    (re.compile(r"^export CUDA_HOME=/usr/local/cuda\S*(?: PATH=\S+)?(?:\s+#.*)?$"),
     "# " + _NO_CUDA_ON_MACOS + ": build a CUDA extension on a Linux or Windows machine with an NVIDIA GPU, or use "
     "the package's CPU or MPS build where it has one"),
)


#: (round 31a) Linux-only lookups on a text from macOS: ldconfig's cache, apt-file, /proc/cpuinfo
_MAC_LDCONFIG_RE = re.compile(r"^ldconfig -p \| grep (?P<pat>.+?)(?P<note>\s+#.*)?$")
_MAC_APT_FILE_RE = re.compile(r"^apt-file search (?P<what>\S+)(?P<note>\s+#.*)?$")
_BREW_OPT_RE = re.compile(r"^(?:/usr/local|/opt/homebrew)/opt/([\w@.+-]+)/")
_MAC_CUDA_RE = re.compile(r"cuda|cudnn|nccl|nvidia|cublas|libnv", re.IGNORECASE)
_PROC_CPUINFO_RE = re.compile(r"^grep [^#]*/proc/cpuinfo\b[^#]*(?:#\s*(.*))?$")


def _macos_lookup(cmd: str) -> str | None:
    """(round 31a, issue 25) ldconfig, apt-file and /proc/cpuinfo on a text from macOS (none of them is there): a
    Homebrew formula's or the library's own folder, sysctl's CPU features; "" where the lookup has no macOS meaning
    (NVIDIA's libraries: macOS has no CUDA); None where the command is none of these."""
    m = _MAC_LDCONFIG_RE.match(cmd)
    if m:
        pat = m.group("pat").strip("'\"")
        if " " in pat or pat.startswith("-") or "|" in pat:
            return ""  # a pattern of several names (NVIDIA's EGL/GLX libraries: no NVIDIA driver on a Mac) or words
        if pat.startswith("/"):
            return f"ls -l {pat}   # the library the loader looked for"
        name = pat.split("/")[-1]
        cuda = " /usr/local/cuda/lib" if _MAC_CUDA_RE.search(name) else ""  # (CUDA for macOS ended with 10.2)
        return (f"find /usr/local/lib /opt/homebrew/lib{cuda} -name '{name}' 2>/dev/null   # where it is installed, "
                "if anywhere")
    m = _MAC_APT_FILE_RE.match(cmd)
    if m:
        b = _BREW_OPT_RE.match(m.group("what"))
        return f"brew info {b.group(1)}   # the Homebrew formula whose folder the library was linked from" if b else ""
    m = _PROC_CPUINFO_RE.match(cmd)
    if m:
        return ("sysctl -n machdep.cpu.features machdep.cpu.leaf7_features   # the instruction sets this CPU has "
                "(an Intel Mac; on Apple silicon, x86 code runs under Rosetta 2, which has no AVX)")
    return None


def _macos(cmd: str) -> str:
    looked = _macos_lookup(cmd)
    if looked is not None:
        return looked
    for rx, rep in _MACOS_EQUIVALENTS:
        m = rx.match(cmd)
        if m:
            return rep.format(*m.groups())
    return cmd.replace("nm -D --defined-only", "nm -gU").replace("ldd ", "otool -L ") if " -D " in cmd or "ldd " in cmd \
        else cmd


#: (round 27b) a GPU type a Slurm request names: ``--gres=gpu:v100:1``, ``#SBATCH --gres=gpu:h100:2``,
#: ``--gpus=a100:2``, ``--gpus-per-node=a100_80gb:4``, scontrol's ``gres/gpu:v100=1`` (Slurm's gres.conf Type names:
#: the site's own, most often the model)
_SLURM_GPU_TYPE_RE = re.compile(r"(?:--gres[= ]|\bgres[=/])gpu:([A-Za-z][\w-]{1,40}):\d|"
                                r"--gpus(?:-per-(?:node|task|socket))?[= ]([A-Za-z][\w-]{1,40}):\d")


@_per_explain
def _slurm_gpu(text: str) -> tuple[str, str]:
    """(round 27b) The GPU (type, compute capability) the text's Slurm request names, by smrnb's GPU table
    (tables/gpu_cc.csv); ``("", "")`` when none, several or not in the table."""
    names = [next(g for g in m.groups() if g) for m in _SLURM_GPU_TYPE_RE.finditer(text)] \
        if "gres" in text or "--gpus" in text else []  # (round 28p) a literal each of its forms holds: one search
    ccs = _one([tables.compute_capability_for_gpu(re.sub(r"[_-]+", " ", n)) or "" for n in names])
    return (_one(names) or names[0], ccs) if ccs and names else ("", "")


def _gpu_cc(facts: Mapping[str, Any] | None, text: str = "") -> tuple[str, str, int]:
    """The text's GPU (name, compute capability) where it names one, and its driver's major release (0: unknown);
    with no GPU the driver shows, the one the text's Slurm request names (:func:`_slurm_gpu`)."""
    drv = facts.get("driver") if isinstance(facts, Mapping) else None
    if not isinstance(drv, Mapping) or not any(isinstance(g, Mapping) and g.get("compute_capability")
                                               for g in drv.get("gpus") or ()):
        name, cc = _slurm_gpu(text) if text else ("", "")
        if cc:
            return f"the {name} the Slurm request names", cc, 0
    if not isinstance(drv, Mapping):
        return "", "", 0
    gpus = [g for g in drv.get("gpus") or () if isinstance(g, Mapping) and g.get("compute_capability")]
    ccs = {str(g["compute_capability"]) for g in gpus}
    m = re.match(r"(\d{3})\.", str(drv.get("driver_version") or drv.get("version") or ""))
    name = str(gpus[0].get("name") or "the GPU") if len(ccs) == 1 else ""
    return name, (next(iter(ccs)) if len(ccs) == 1 else ""), int(m.group(1)) if m else 0


#: nvidia-smi's compute_cap field is missing from older drivers, which answer 'Field "compute_cap" is not a valid field to
#: query.' (seen with nvidia-smi 470.182.03 in huggingface/candle#733 and 470.82.01 in NVIDIA/TensorRT-LLM#735); 510 as
#: the first driver that has it is not verified in NVIDIA's release notes (a driver between 470 and 510 gets no query)
_COMPUTE_CAP_DRIVER = 510
_CC_QUERY = "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1)"


def _compute_cap(c: str, facts: Mapping[str, Any] | None, text: str = "") -> str:
    """A command that asks nvidia-smi for compute_cap, given the text's GPU's capability where the text names the
    GPU, and never left to a driver older than the field."""
    if "compute_cap" not in c:
        return c
    name, cc, drv = _gpu_cc(facts, text)
    if cc:
        c = c.replace(_CC_QUERY, cc)
        if c.startswith("nvidia-smi --query-gpu=name,compute_cap"):
            return f"nvidia-smi --query-gpu=name --format=csv   # {name}: compute capability {cc} (smrnb's GPU table)"
        return c
    if drv and drv < _COMPUTE_CAP_DRIVER:
        c = c.replace(_CC_QUERY, "<X.Y>")
        if c.startswith("nvidia-smi --query-gpu=name,compute_cap"):
            return (f"nvidia-smi --query-gpu=name --format=csv   # driver {drv} predates the compute_cap field (510+): "
                    "look the name up on https://developer.nvidia.com/cuda-gpus")
    return c


#: (round 27b) extensions whose build reads its own variable for the GPU architectures, not torch's
#: TORCH_CUDA_ARCH_LIST: tiny-cuda-nn's bindings/torch/setup.py reads TCNN_CUDA_ARCHITECTURES ("86", "75;86"; else the
#: GPU present at build time); spconv's kernels are cumm's, whose build reads CUMM_CUDA_ARCH_LIST ("8.6"; cumm's
#: README / build scripts). gsplat, nvdiffrast (a JIT build), MinkowskiEngine and pytorch3d build with
#: torch.utils.cpp_extension: TORCH_CUDA_ARCH_LIST is theirs
_TCNN_RE = re.compile(r"tinycudann|tiny-cuda-nn|TCNN_CUDA_ARCHITECTURES|\btcnn_", re.IGNORECASE)
_SPCONV_RE = re.compile(r"\bspconv\b|\bcumm\b")
_ARCH_REBUILD_RE = re.compile(r"^((?:cd (?:<[^<>]*>|\S+) && )?rm -rf build/ && )?TORCH_CUDA_ARCH_LIST=\"([^\"]+)\" "
                              r"(pip install [^#]*?) \.(\s+#.*)?$")
#: the rules' reinstall by the name the text installed the package by (:func:`smrnb.doctor.rules._rebuild.tree_rebuild`)
_ARCH_BY_NAME_RE = re.compile(r"^TORCH_CUDA_ARCH_LIST=\"([^\"]+)\" (pip install [^#]*?) ([A-Za-z0-9][\w.-]*)   # \3 as the "
                              r"text installed it, by name: ")
_SPCONV_NOTE = "in cumm's source tree, then spconv's: spconv's kernels are cumm's, whose build reads CUMM_CUDA_ARCH_LIST"
_TCNN_SOURCE = "'git+https://github.com/NVlabs/tiny-cuda-nn/#subdirectory=bindings/torch'"


def _arch_variable(c: str, text: str) -> str:
    """(round 27b) A rebuild for the GPU's architecture with the variable the text's extension reads: tiny-cuda-nn's
    TCNN_CUDA_ARCHITECTURES (no dot: 86) and its bindings' source, spconv/cumm's CUMM_CUDA_ARCH_LIST beside torch's."""
    m = _ARCH_REBUILD_RE.match(c)
    named = None if m else _ARCH_BY_NAME_RE.match(c)
    if not m and not named:
        return c
    arch, pip = (m.group(2), m.group(3)) if m else (named.group(1), named.group(2))
    if _TCNN_RE.search(text):
        num = arch.replace("+PTX", "").replace(".", "") if "$(" not in arch else arch.replace(" | head -1)",
                                                                                               " | head -1 | tr -d .)")
        return (f'TCNN_CUDA_ARCHITECTURES="{num}" {pip} {_TCNN_SOURCE}   # tiny-cuda-nn reads TCNN_CUDA_ARCHITECTURES '
                "(its bindings/torch/setup.py), not TORCH_CUDA_ARCH_LIST")
    if _SPCONV_RE.search(text):
        return f'CUMM_CUDA_ARCH_LIST="{arch}" {c}; {_SPCONV_NOTE}' if named else \
            f'{m.group(1) or ""}CUMM_CUDA_ARCH_LIST="{arch}" TORCH_CUDA_ARCH_LIST="{arch}" {pip} .   # {_SPCONV_NOTE}'
    return c


#: (round 28b) the arch list the text itself builds with, and a printed one
_TEXT_ARCH_LIST_RE = re.compile(r"TORCH_CUDA_ARCH_LIST=[\"']?((?:\d{1,2}\.\d(?:\+PTX)?[; ]?){1,12})")
_PRINTED_ARCH_LIST_RE = re.compile(r'TORCH_CUDA_ARCH_LIST="((?:\d{1,2}\.\d(?:\+PTX)?;?){1,12})"')
_RM_BUILD_REMOTE_RE = re.compile(r"^rm -rf build/ && (?=[^#]*\bpip3? install\b(?![^#]*\s\.(?:\s|$))[^#]*"
                                 r"(?:git\+https?://|\s[A-Za-z][\w.-]*(?:==[\w.+-]+)?(?:\s|$)))")


def _build_kept(c: str, text: str) -> str:
    """(round 28b, blind audit 28) A printed source build keeps every arch the text builds for (an A6000's 8.6
    beside an H100's 9.0), and ``rm -rf build/`` only where pip builds the current folder (``.``): joined to a
    ``git+https`` or a PyPI name it would delete a build/ of whatever folder the user is in."""
    if not re.search(r"\bpip3? install\b[^#]*\s\.(?:\s|$)", c.split("#", 1)[0]):
        c = re.sub(r"^rm -rf build/ && ", "", c) if c.startswith("rm -rf build/ && ") and "pip" in c else c
    printed, shown = _PRINTED_ARCH_LIST_RE.search(c), _TEXT_ARCH_LIST_RE.search(text)
    if printed and shown:
        have = printed.group(1).split(";")
        more = [a for a in re.split(r"[; ]", shown.group(1)) if a and a.replace("+PTX", "") not in
                {h.replace("+PTX", "") for h in have}]
        # (round 29, blind audit 29) but not an arch the command's nvcc cannot build (the text's own failure: nvcc
        # 12.1 and "12.0"): the command's own CUDA_HOME's release, else the text's toolkit
        home = re.search(r"CUDA_HOME=\S*?cuda-(\d{1,2}\.\d)\b", c)
        archs = tables.nvcc_archs(home.group(1) if home else _cuda_release(text) or "")
        if archs:
            more = [a for a in more if not re.fullmatch(r"\d{1,2}\.\d", a.replace("+PTX", ""))
                    or int(a.replace("+PTX", "").replace(".", "")) in archs]
        if more:
            both = sorted(set(have + more), key=lambda a: float(a.replace("+PTX", "")))
            c = c.replace(printed.group(0), f'TORCH_CUDA_ARCH_LIST="{";".join(both)}"', 1)
    return c


#: (round 27b) mmcv 1.x came as two packages: mmcv-full, with the CUDA ops (mmcv.ops, its compiled mmcv._ext), and
#: mmcv, the lite build without them (open-mmlab's mmcv 1.x README / docs/en/get_started/installation.md "There are
#: two versions of MMCV": mmcv-full "comprehensive, with full features and various CUDA ops out of box", mmcv "lite,
#: without CUDA ops"); OpenMMLab's 1.x projects (mmdet 2.x, mmseg 0.x, mmdet3d 0.x) install mmcv-full (their install
#: docs: mim install mmcv-full). mmcv 2.0 renamed them mmcv (full) and mmcv-lite
_MMCV_BELOW_2_RE = re.compile(r"""^pip install (["']?)mmcv<2(?:\.0){0,2}\1(.*)$""")
#: a text whose mmcv 1.x is the lite package: its own pip names mmcv 1.x, no mmcv-full and no compiled op anywhere
_MMCV_LITE_RE = re.compile(r"\bmmcv(?:==|-|\s+)1\.\d")
_MMCV_FULL_RE = re.compile(r"mmcv[-_]full|mmcv\.ops|mmcv\._ext|mmcv[\\/]ops[\\/]|_ext\.\w*\.(?:so|pyd)", re.IGNORECASE)


def _mmcv_full(c: str, text: str) -> str:
    """(round 27b) A pin of mmcv below 2 as the package that has mmcv 1.x's CUDA ops, mmcv-full (mim picks its
    prebuilt wheel for the installed torch and CUDA), unless the text's mmcv 1.x is the lite package."""
    m = _MMCV_BELOW_2_RE.match(c)
    if not m or (_MMCV_LITE_RE.search(text) and not _MMCV_FULL_RE.search(text)):
        return c
    return ('pip install -U openmim && mim install "mmcv-full<2"   # mmcv 1.x with its CUDA ops is the package '
            "mmcv-full (mmcv<2 from PyPI is the lite build, without mmcv.ops); mim picks its wheel for this torch and "
            "CUDA" + (f"; {m.group(2).strip().lstrip('#').strip()}" if m.group(2).strip() else ""))


#: (round 28b, blind audit 28) an unpinned reinstall or uninstall of mmcv the rules print, and the mmcv the text shows
_MMCV_PLAIN_RE = re.compile(r"^(?P<head>(?:python -m )?pip3? (?P<verb>install|uninstall -y)\b[^#]*?\s)mmcv(?=\s|$)(?![^#]*[=<>])")
_MMCV_SHOWN_RE = re.compile(r"\bmmcv([-_]full)?(?:==|\s+v?|-)(\d\.\d{1,2}\.\d{1,2}(?:rc\d)?)\b", re.IGNORECASE)


def _mmcv_release(c: str, text: str, facts: Mapping[str, Any] | None) -> str:
    """(round 28b) mmcv as the text shows it: ``mmcv-full`` uninstalled by its own name; never an unpinned
    ``pip install mmcv`` (PyPI's newest: mmcv 2.2 is refused by mmdet 3.x, mmcv 2 is another API than mmcv-full 1.x)
    but the text's release from OpenMMLab's index for the text's torch and CUDA (mmcv's installation docs:
    ``pip install mmcv==2.1.0 -f https://download.openmmlab.com/mmcv/dist/cu121/torch2.1/index.html``), pip
    building that release from source against the installed torch where the index has no wheel for them."""
    if re.match(r"^# or rebuild against this torch: pip install\b[^#]*\smmcv$", c):
        return ""  # the pinned line below is that rebuild where OpenMMLab has no wheel
    m = _MMCV_PLAIN_RE.match(c)
    if not m or "mim install" in c:
        return c
    shown = _MMCV_SHOWN_RE.search(text)
    full = bool(re.search(r"mmcv[-_]full", text, re.IGNORECASE)) and not (shown and not shown.group(1)
                                                                            and shown.group(2).startswith("2"))
    name = "mmcv-full" if full else "mmcv"
    if m.group("verb") != "install":
        return f"pip uninstall -y {name}" + ("   #" + c.split("#", 1)[1] if "#" in c else "")
    rel = shown.group(2) if shown else ""
    if not rel:
        return (f'pip install -U openmim && mim install "{name}==<the release the project needs>"   # never an '
                "unpinned mmcv (PyPI's newest is another API; mmdet 3.x refuses mmcv 2.2); mim picks the wheel "
                "made for this torch and CUDA")
    tv, tc = _value(facts, "version_base"), _torch_cuda(facts)  # (round 29a) torch.cuda of its X.Y shape only
    mm = ".".join(str(tv).split(".")[:2]) if tv else ""
    if not (mm and tc):
        return (f'pip install -U openmim && mim install "{name}=={rel}"   # the release the text shows; mim picks '
                "its wheel made for this torch and CUDA")
    force = "--force-reinstall " if "--force-reinstall" in c else ""  # (blind audit 36, F3) replaces it in place
    return (f'pip install --no-build-isolation {force}--no-deps "{name}=={rel}" -f https://download.openmmlab.com/mmcv/dist/'
            f"cu{str(tc).replace('.', '')}/torch{mm}/index.html   # the release the text shows, OpenMMLab's wheel "
            f"for torch {mm} and CUDA {tc} where it publishes one, else built here against this torch")


def _value(facts: Mapping[str, Any] | None, key: str) -> Any:
    d = (facts or {}).get("torch") or {}
    return d.get(key) if isinstance(d, Mapping) else None


def _torch_release(facts: Mapping[str, Any] | None) -> str:
    """torch's release in the facts, without its local part (``2.4.1`` of ``2.4.1+cu121``), ``""`` where none."""
    return str(_value(facts, "version_base") or str(_value(facts, "version") or "").split("+")[0])


#: (round 27b) the newest Python each release line below a pin the rules print supports (its wheels on PyPI and its
#: release notes' "Python versions supported" / PyPI classifiers): (package, the pin's bound) -> (last release below
#: it, its newest Python). numpy 1.19.x: 3.6-3.9 (1.19.3 added 3.9 wheels); numpy 1.23.x: 3.8-3.11 (1.23.2 added 3.11);
#: numpy 1.26.x: 3.9-3.12; scipy 1.1.0: 2.7, 3.4-3.7; scipy 1.2.x (the LTS line): 2.7, 3.4-3.7; scipy 1.12.0 and
#: 1.13.x: 3.9-3.12; torch 0.4.1: 2.7, 3.5-3.7; torch 1.7.1: 3.6-3.9; torch 1.12.1: 3.7-3.10; torch 1.13.1: 3.7-3.11;
#: open3d 0.7.0: 2.7, 3.5-3.7; open3d 0.9.0: 3.5-3.8 (open3d's release notes; 3.9 wheels came later). mmcv is not
#: here: mmcv<2 from PyPI is an sdist that installs on later Pythons (its CUDA ops are mmcv-full's)
_PIN_NEWEST_PYTHON = {("numpy", "1.20"): ("1.19.5", 9), ("numpy", "1.24"): ("1.23.5", 11),
                      ("numpy", "2"): ("1.26.4", 12), ("numpy", "2.0"): ("1.26.4", 12),
                      ("scipy", "1.2"): ("1.1.0", 7), ("scipy", "1.3"): ("1.2.3", 7),
                      ("scipy", "1.13"): ("1.12.0", 12), ("scipy", "1.14"): ("1.13.1", 12),
                      ("torch", "1.0"): ("0.4.1", 7), ("torch", "1.8"): ("1.7.1", 9),
                      ("torch", "1.13"): ("1.12.1", 10), ("torch", "2.0"): ("1.13.1", 11),
                      ("open3d", "0.8"): ("0.7.0", 7), ("open3d", "0.10"): ("0.9.0", 8)}
#: the Python a text shows: a site-packages path's python3.11/, Windows' Python311\, a wheel's cp311 tag, "Python 3.11.4"
_TEXT_PYTHON_RE = re.compile(r"\bpython3\.(\d{1,2})[\\/]|[\\/]Python3(\d{1,2})[\\/]|\bcp3(\d{1,2})\b|"
                             r"\bPython ?3\.(\d{1,2})(?:\.\d{1,2})?\b", re.IGNORECASE)
_PIN_RE = re.compile(r"""^(?:python -m )?pip3? install (["']?)(numpy|scipy|torch|open3d)<([\d.]+)\1(.*)$""")


@_per_explain
def _text_python(text: str) -> int:
    """The one Python 3 minor the text shows (:data:`_TEXT_PYTHON_RE`), 0 when none or several."""
    got = _one([next(g for g in m.groups() if g) for m in _TEXT_PYTHON_RE.finditer(text)])
    return int(got) if got else 0


def _pin_for_python(c: str, text: str) -> str:
    """(round 27b) A pin below a release whose line supports no Python as new as the text's (``scipy<1.2`` on Python
    3.11: no scipy 1.1 installs there): said so, with the Python that runs it, instead of a pin pip cannot meet."""
    m = _PIN_RE.match(c)
    if not m:
        return c
    pkg, bound = m.group(2), m.group(3)
    last = _PIN_NEWEST_PYTHON.get((pkg, bound))
    py = _text_python(text)
    if not last or (py and py <= last[1]) or (not py and last[1] > 9):
        return c
    rel, top = last
    if not py:  # (round 28a, blind audit 27) no Python shown, and the release line ends before every current Python
        return (f'conda create -n {pkg}-below-{bound} python=3.{top} "{pkg}<{bound}"   # {pkg} {rel}, the last release '
                f"below {bound}, supports Python 3.{top} at most (a Python past its end of life): only in such an "
                "environment; on a current Python the code change above is the fix")
    return (f'conda create -n {pkg}-below-{bound} python=3.{top} "{pkg}<{bound}"   # no {pkg}<{bound} installs on the '
            f"text's Python 3.{py} ({pkg} {rel}, the last release below {bound}, supports Python 3.{top} at most): "
            f"run the code in a Python 3.{top} environment, or change the code for the installed {pkg}")


_RELEASE_PH_RE = re.compile(r"^pip install '([\w.-]+)==<the release the code names>'(.*)$")
_UP_RE = re.compile(r"\b(?:upgrad\w*|updat\w*|newer|too old|outdated|at least)\b", re.IGNORECASE)
_DOWN_RE = re.compile(r"\b(?:downgrad\w*|too new|removed in|deprecated|no longer)\b", re.IGNORECASE)


def _release_named(c: str, text: str) -> str:
    """``pip install '<pkg>==<the release the code names>'`` with what the text says of the release: a requirement
    it prints (``pkg>=1.2``), the release it moved from and to, or the direction its words give (an upgrade)."""
    m = _RELEASE_PH_RE.match(c)
    if not m:
        return c
    pkg = m.group(1)
    name = re.sub(r"[-_.]", "[-_.]", re.escape(pkg).replace("\\", ""))
    req = re.search(rf"(?<![\w-]){name}\s*(>=|~=|<=|<(?!=)|>(?!=))\s*(\d+(?:\.\w+){{0,3}})", text, re.IGNORECASE)
    if req:
        return f"pip install '{pkg}{req.group(1)}{req.group(2)}'   # the release the text's requirement names"
    moved = re.search(rf"(?<![\w-]){name}\b[^\n]{{0,60}}?\bfrom (?:v|version )?(\d+(?:\.\w+){{1,3}}) to "
                      rf"(?:v|version )?(\d+(?:\.\w+){{1,3}})", text, re.IGNORECASE)
    if moved:
        return (f"pip install '{pkg}=={moved.group(1)}'   # the release before the text's change to {moved.group(2)} "
                f"(or update the code to {moved.group(2)}'s API)")
    lines = [ln for ln in text.split("\n") if re.search(rf"(?<![\w-]){name}(?![\w-])", ln, re.IGNORECASE)]
    near = "\n".join(lines)
    if _UP_RE.search(near) and not _DOWN_RE.search(near):
        return f"pip install --upgrade '{pkg}'   # the text says its release is too old"
    return c


#: dyld's "Expected in: /usr/lib/libobjc.A.dylib" (the library the symbol should come from)
#: import names that are not the name pip installs: the distribution each project's own install docs name
#: (scikit-image.org "Installing scikit-image"; scikit-learn.org "Installing scikit-learn"; pypi.org/project/
#: opencv-python; pillow.readthedocs.io "Installation"; pyyaml.org/wiki/PyYAMLDocumentation). Round 25 (a package
#: missing from the Python that runs the code, python_package_missing), each by its project's install page or PyPI
#: page: Beautiful Soup's docs "Installing Beautiful Soup" (beautifulsoup4), dateutil.readthedocs.io
#: (python-dateutil), pyopengl.sourceforge.net (PyOpenGL), pypi.org/project/python-dotenv, pymupdf.readthedocs.io
#: "Installation" (PyMuPDF, imported as fitz), gitpython.readthedocs.io (GitPython, imported as git),
#: pyzmq.readthedocs.io (pyzmq), pyserial.readthedocs.io (pyserial, imported as serial), python-docx.readthedocs.io,
#: pygobject.gnome.org (PyGObject, imported as gi), wxpython.org (wxPython), libigl.github.io/libigl-python-bindings
#: (libigl, imported as igl), scikit-video.org, umap-learn.readthedocs.io (umap-learn), hydra.cc "Installation"
#: (hydra-core), pycryptodome.readthedocs.io (pycryptodome, imported as Crypto), github.com/mlfoundations/open_clip
#: (open_clip_torch), attrs.org (attrs, imported as attr). Not faiss: its CPU and GPU builds are two distributions
#: (faiss-cpu, faiss-gpu), and the name is rewritten in every printed pip command, uninstall included
PIP_DISTRIBUTION = {"skimage": "scikit-image", "sklearn": "scikit-learn", "cv2": "opencv-python", "pil": "pillow",
                    "yaml": "pyyaml", "bs4": "beautifulsoup4", "dateutil": "python-dateutil", "opengl": "PyOpenGL",
                    "dotenv": "python-dotenv", "fitz": "PyMuPDF", "zmq": "pyzmq", "serial": "pyserial",
                    "docx": "python-docx", "gi": "PyGObject", "wx": "wxPython", "igl": "libigl",
                    "skvideo": "scikit-video", "umap": "umap-learn", "hydra": "hydra-core", "crypto": "pycryptodome",
                    "open_clip": "open_clip_torch", "attr": "attrs",
                    "pkg_resources": "setuptools"}  # (round 29) pkg_resources is a module of setuptools' distribution
#: projects whose PyPI name is another project or a placeholder, or that are not on PyPI: what their own install
#: pages install instead (github.com/NVIDIA/apex README "Installation"; pytorch3d INSTALL.md; detectron2
#: docs/tutorials/install.md; nvdiffrast docs "Installation"; tiny-cuda-nn README "PyTorch extension"; kaolin docs
#: "Installation")
PIP_FROM_SOURCE = {
    "apex": ("git+https://github.com/NVIDIA/apex", "NVIDIA apex builds from its repository (the PyPI 'apex' is an "
             "unrelated project): its README builds the CUDA extension with --config-settings "
             "'--build-option=--cpp_ext' --config-settings '--build-option=--cuda_ext'"),
    "pytorch3d": ("'git+https://github.com/facebookresearch/pytorch3d.git@stable'",
                  "pytorch3d installs from its repository or its prebuilt wheels (INSTALL.md), not from PyPI"),
    "detectron2": ("'git+https://github.com/facebookresearch/detectron2.git'",
                   "detectron2 is not on PyPI: it installs from its repository (its install.md)"),
    "nvdiffrast": ("git+https://github.com/NVlabs/nvdiffrast.git --no-build-isolation",
                   "nvdiffrast installs from its repository with --no-build-isolation, its setup importing the installed "
                   "torch (its docs' Installation), not from PyPI"),
    "tinycudann": ("'git+https://github.com/NVlabs/tiny-cuda-nn/#subdirectory=bindings/torch'",
                   "tinycudann (tiny-cuda-nn's PyTorch bindings) is not on PyPI: it builds from its repository"),
    "kaolin": ("kaolin -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-<torch version>_cu<cuda>.html",
               "kaolin's wheels come from NVIDIA's index for the installed torch and CUDA (its docs' Installation)"),
}
_PIP_CMD_RE = re.compile(r"\bpip3? (install|show|uninstall|download)\b([^#;&|]*)")
_PIP_ARG_RE = re.compile(r"(?<=\s)(?:(['\"])([A-Za-z][\w.-]*)(\[[^\]]*\])?([=<>!~][^'\"]*)?\1|"
                         r"([A-Za-z][\w.-]*)(\[[^\]\s]*\])?([=<>!~]=?[^\s'\"]*)?)(?=\s|$)")


def _source_with_spec(source: str, what: str, spec: str) -> str:
    """(round 29, blind audit 29) A project's own install (``PIP_FROM_SOURCE``) keeps the release the command asked
    for: kaolin's wheel page takes pip's specifier; a git install takes the tag of an exact release (``@v0.7.4``), and
    for a range the tag to choose is named, never ``@stable`` (the newest release) for "a release before X"."""
    if not spec:
        return what
    if source == "kaolin":
        return what.replace("kaolin", f'"kaolin{spec}"', 1)
    if "git+" not in what:
        return what
    exact = re.fullmatch(r"==\s*v?([0-9][\w.]*)", spec)
    tag = f"@v{exact.group(1)}" if exact else f"@<the tag of a release {spec.replace('<', 'below ')} (git tag -l)>"
    base = re.sub(r"@stable(?=['\s]|$)", "", what)
    m = re.match(r"^(['\"]?)(git\+\S+?)(#[^'\"\s]*)?\1(\s.*)?$", base)
    if not m:
        return what
    return f"{m.group(1)}{m.group(2).rstrip('/')}{tag}{m.group(3) or ''}{m.group(1)}{m.group(4) or ''}"


def pip_names(c: str) -> str:
    """``c`` with every package a pip command names as pip knows it: an import name by its distribution (skimage ->
    scikit-image) and, for ``pip install``, a project not on PyPI (or whose PyPI name is another project) by what its
    own install page installs, with a comment saying so."""
    m = _PIP_CMD_RE.search(c)
    if not m:
        return c
    verb, args = m.group(1), m.group(2)
    notes: list[str] = []
    own_index = bool(re.search(r"\s(?:-f|--find-links|--index-url|--extra-index-url|-i)[\s=]", args))  # names its source

    def one(a: re.Match[str]) -> str:
        q = a.group(1) or ""
        name, extra, spec = (a.group(2), a.group(3), a.group(4)) if q else (a.group(5), a.group(6), a.group(7))
        extra, spec = extra or "", spec or ""
        key = name.lower().replace("-", "_")
        bare = key.replace("_", "")  # tiny-cuda-nn, tinycudann: one project, however its name is written
        source = next((k for k in PIP_FROM_SOURCE if k.replace("_", "") == bare), "")
        if verb == "install" and source and not own_index:
            what, note = PIP_FROM_SOURCE[source]
            notes.append(note)
            return _source_with_spec(source, what, spec)
        if key in PIP_DISTRIBUTION:
            return f"{q}{PIP_DISTRIBUTION[key]}{extra}{spec}{q}"
        return a.group(0)

    new = _PIP_ARG_RE.sub(one, " " + args)[1:]
    if new == args:
        return c
    out = c[:m.start(2)] + new + c[m.end(2):]
    if verb == "install" and "git+" in new and "git+" not in args and "--no-build-isolation" not in out:
        # (blind audit 36, F3) these projects' setup.py imports torch: pip's isolated build has none ("No module
        # named 'torch'"), so a build from their repository uses the installed torch
        out = out[:m.start(2)] + " --no-build-isolation" + out[m.start(2):]
    if notes:
        out += ("   # " if not re.search(r"\s#", out) else "; ") + "; ".join(dict.fromkeys(notes))
    return out


_EXPECTED_IN_RE = re.compile(r"Expected in: (?:flat namespace\s*)?(/[^\s'\"]+\.dylib)\b")


#: a library file the text names (its path as shown)
_LIB_FILE_RE = re.compile(r"(?<![\w.])((?:[A-Za-z]:)?[\w./\\+-]*?[\w+-]+\.(?:so(?:\.\d+)*|dll|pyd|dylib))(?![\w.])")


def _text_events(facts: Mapping[str, Any] | None, kind: str) -> list[dict[str, Any]]:
    """The text reader's events of ``kind`` (``undefined_symbol``, ``header_missing``, ``link_lib_missing``): what the
    text says is missing, read once by _textfacts and not again here."""
    if not isinstance(facts, Mapping):
        return []
    return [e for e in _textfacts.events_of(dict(facts)) if e.get("kind") == kind and e.get("from", "text") == "text"]


def _path_shown(path: str) -> str:
    """A library path as a command can take it: the reader's ``needed_by`` keeps the bracket or backtick that opened
    it ("(/lib/libp11-kit.so.0: undefined symbol"); a glob, a placeholder or a path cut short ("`*/iou3d/x.so",
    "/.../lib/libtorch_cpu.so") is no path a command can take, ``""``."""
    path = path.lstrip("`([{\"'")
    return "" if not path or re.search(r"[*?<>`$…]|\.\.\.", path) else path


def _missing_named(facts: Mapping[str, Any] | None) -> str:
    """The one header (``cuda_runtime.h``; a directory-style one whole: ``Eigen/Dense``) or linker library
    (``-lcudart`` as ``libcudart.so``, MSVC's ``cudart.lib``) the text says is missing, ``""`` when none or several."""
    headers = [str(e.get("header") or "") for e in _text_events(facts, "header_missing")]
    header = _one([h.split("/")[-1] if "." in h.split("/")[-1] else h for h in headers])
    if header:
        return header
    return _one([(f"{e['lib']}.lib" if "cannot open input file" in str(e.get("line") or "").lower() else
                  f"lib{e['lib']}.so") for e in _text_events(facts, "link_lib_missing") if e.get("lib")])


def _library_named(c: str, text: str, facts: Mapping[str, Any] | None) -> str:
    """A command's library placeholder with the library the text names, else a comment saying what to look for: no
    filler word where a name belongs (round 22). The symbol, the library that needs it and the missing header or
    ``-l`` library are the text reader's events (loader.undefined_symbol, toolkit.header_missing,
    toolkit.link_lib_missing)."""
    if "<the library that should define it>" in c:
        sym = re.search(r"grep '([^']*)'", c)
        undefined = _text_events(facts, "undefined_symbol") if "<symbol>" in c or sym else []
        sym_ = sym.group(1) if sym else ""
        if not sym and "<symbol>" in c:  # the check's own placeholder: the one symbol the text says is undefined
            sym_ = _one([str(e.get("symbol") or "") for e in undefined])
        if not sym_:
            return ("# the text names no symbol: list the libraries the failing module loads (ldd on Linux, the "
                    "Dependencies tool on Windows) and look for one of another release than it was built with")
        needed = [str(e.get("needed_by") or "") for e in undefined if e.get("symbol") == sym_]
        lib = _one([_path_shown(n) for n in needed])
        name = _one([re.split(r"[\\/]", n)[-1] for n in needed])
        if not lib and name and re.fullmatch(r"[\w.+-]+", name):  # its path cut short or a glob: the file's name
            return (f"# which library should define '{sym_}': run ldd on {name} (its full path, which the text does not "
                    "show whole), then nm -D --defined-only on each library it lists, and grep for the symbol")
        if lib:
            return (f"for l in $(ldd {lib} | awk '/=> \\// {{print $3}}'); do nm -D --defined-only \"$l\" 2>/dev/null | "
                    f"grep -q '{sym_}' && echo \"$l\"; done   # which library {lib.split('/')[-1]} loads defines "
                    f"{sym_} (none: the one it needs is another release)")
        return (f"# which library should define '{sym_}': run nm -D --defined-only on each library that ldd lists for "
                "the failing module, and grep for the symbol")
    if "<the library named>" in c:
        lib = _one(_LIB_FILE_RE.findall(text))
        if lib:
            return c.replace("<the library named>", lib)
        return ("# the text names no library file: run file on the library the error names (and uname -m): its "
                "architecture must be this machine's")
    if "<the missing header or library>" in c:
        missing = _missing_named(facts)
        if missing:
            return c.replace("<the missing header or library>", missing)
        return ("# the text names no missing header or library: the build log's first 'error' line says what the "
                "build lacks")
    return c


#: an import statement of code (a script's line, IPython's "---> 3 from x import y", a REPL's ">>> import x")
_CODE_IMPORT_RE = re.compile(r"^[^\S\n]{0,12}(?:>>> ?|In \[\d+\]: ?|-{0,8}> ?\d* {0,8}|\d{1,6} {1,8}|"
                             r"[^\n]{0,120}\bpython[\d.]* -c ['\"])?"
                             r"(?:from ([A-Za-z_]\w*)(?:\.[\w.]*)? import |import ([A-Za-z_]\w*)(?:\.[\w.]*)?"
                             r"(?: as \w+)?\s*(?:$|;|['\"]\s*$))", re.MULTILINE)
#: an import that failed: Python's ImportError / OSError / ModuleNotFoundError line, Windows' "DLL load failed"
_IMPORT_FAILED_RE = re.compile(r"^[^\S\n]{0,12}(?:ImportError|OSError|ModuleNotFoundError)\b|DLL load failed", re.MULTILINE)
_NOT_AN_OWNER = {"os", "sys", "re", "json", "importlib", "ctypes", "typing", "collections", "__future__"}


@_per_explain
def _failing_import(text: str) -> str:
    """The top-level package of the last import statement the text shows before its last failed import (the
    traceback's innermost import: ``from torch._C import *`` -> torch), ``""`` when none."""
    errs = list(_IMPORT_FAILED_RE.finditer(text))
    if not errs:
        return ""
    if text.find("import ", 0, errs[-1].start()) == -1:  # (round 28p) what every import statement holds
        return ""
    tops = [a or b for a, b in _CODE_IMPORT_RE.findall(text[:errs[-1].start()]) if (a or b) not in _NOT_AN_OWNER]
    return tops[-1] if tops else ""


_OWNS_RE = re.compile(r"<the package that owns ([^<>\s]+)>")


def _owner_named(c: str, text: str) -> str:
    """A reinstall's owner placeholder with the package the text shows: the site-packages folder of the path that
    names the library, else the package whose import failed."""
    m = _OWNS_RE.search(c)
    if m and m.group(1) != "the":
        lib = re.escape(m.group(1))
        owner = re.search(rf"(?:site|dist)-packages[\\/]+([A-Za-z_]\w*)[\\/][^\s:'\"]*?{lib}", text) \
            if "-packages" in text else None
        if owner:
            return c.replace(m.group(0), owner.group(1))
    if not re.search(r"<(?:package-owning-the-extension|the package that owns the extension|the package)>|"
                     r"(?:--force-reinstall|uninstall -y)[^#]*<package>", c):
        return c
    top = _failing_import(text)
    if not top:
        return c
    if top == "torch" and "rebuild against this torch" in c:
        return ""  # torch's own library: there is no extension to rebuild against it
    c = re.sub(r"<(?:package-owning-the-extension|the package that owns [^<>]*|the package)>", top, c)
    return re.sub(r"((?:--force-reinstall|uninstall -y)[^#]*)<package>", lambda x: x.group(1) + top, c)


_OWNER_PLACEHOLDER_RE = re.compile(r"<(?:package-owning-the-extension|the package that owns [^<>]*|the package)>|"
                                   r"(?<=\s)<package>(?=\s|$)")


def _owner_unknown(c: str, text: str) -> str:
    """(blind audit 36, F10) The import name that :func:`_owner_named` would put where a reinstall names the package
    owning the failing module, where no table, no metadata here and nothing in the text says that a distribution has
    that name (``tensorrt_llm_ext``: an import name may be no distribution, or another project's); ``""`` where it is
    known or nothing would be put."""
    from smrnb.doctor._owner import metadata_owner
    from smrnb.doctor.rules._abi import per_torch_wheel, source_built_row

    if not re.search(r"(?:--force-reinstall|uninstall -y)\b", c) or not _OWNER_PLACEHOLDER_RE.search(c):
        return ""
    if (owns := _OWNS_RE.search(c)) and owns.group(1) != "the":
        return ""  # a file's owner: the text's site-packages folder of that file fills it
    top = _failing_import(text)
    if not top or top == "torch" or top.startswith("_"):  # a private module: _private_named says so
        return ""
    key = top.lower().replace("-", "_")
    if (key in PIP_DISTRIBUTION or any(k.replace("_", "") == key.replace("_", "") for k in PIP_FROM_SOURCE)
            or per_torch_wheel(key + ".") or source_built_row(key) is not None or key in tables.released_import_names()
            or metadata_owner(top)):
        return ""
    shown = re.compile(rf"\bpip3? install\b[^\n#]*?(?<![\w.-]){re.escape(top).replace('_', '[-_.]')}(?![\w-])", re.IGNORECASE)
    return "" if shown.search(text) else top


def _owner_finder(c: str, text: str) -> tuple[str, str]:
    """(blind audit 36, F10) Where the package owning the failing module is unknown (:func:`_owner_unknown`): the
    command that finds its distribution, and ``c`` reinstalling what it prints (``""`` for a comment's alternative)."""
    from smrnb.doctor.rules._rebuild import distribution_finder

    unknown = _owner_unknown(c, text)
    if not unknown:
        return "", c
    return distribution_finder(unknown), "" if c.startswith("#") else _OWNER_PLACEHOLDER_RE.sub(
        "<the distribution it prints>", c)


#: a home folder in a path a command copied from the text (``/home/NAME/``, macOS' ``/Users/NAME/``, Windows'
#: ``C:\\Users\\NAME\\``, a name with spaces there too)
_POSIX_HOME_RE = re.compile(r"(?<![\w.~/$:%-])/(?:home|Users)/([A-Za-z0-9_][\w.-]{0,63})(?=/)")
_WINDOWS_HOME_RE = re.compile(r"\b[A-Za-z]:(?:\\{1,2}|/)Users(?:\\{1,2}|/)([^\\/:*?\"'<>|\n]{1,64})(?=[\\/])", re.IGNORECASE)
_SHARED_HOMES = {"public", "default", "default user", "all users", "shared"}


def _home_free(c: str) -> str:
    """A printed command with the home folder of a path it copied from the text written as the variable that names
    it (``$HOME``, ``%USERPROFILE%``): the same folder for the user who runs it, and no user name in any output form
    (round 23: the fills copy paths, the redaction of identities covers markdown only)."""
    if "/home/" not in c and "/Users/" not in c and "sers" not in c:
        return c
    c = _WINDOWS_HOME_RE.sub(lambda m: m.group(0) if m.group(1).lower() in _SHARED_HOMES else "%USERPROFILE%", c)
    return _POSIX_HOME_RE.sub(lambda m: m.group(0) if m.group(1).lower() in _SHARED_HOMES else "$HOME", c)


#: (round 27e) the release a text says fixed the failure, or worked ("fixed in 4.38.1", "worked on transformers 4.37.2")
_FIXED_IN_RE = re.compile(r"\bfixed in (?:([A-Za-z][\w-]{1,40})[ =]=?)?v?(\d+\.\d+(?:\.\d+)?)\b", re.IGNORECASE)
_WORKED_ON_RE = re.compile(r"\bwork(?:s|ed)(?: fine)? (?:on|with|in|under) (?:([A-Za-z][\w-]{1,40})[ =]=?)?v?"
                           r"(\d+\.\d+(?:\.\d+)?)\b", re.IGNORECASE)
#: a package named with a release: "installed transformers 4.38.0", "pandas==2.2.0"
_NAMED_RELEASE_RE = re.compile(r"\b([A-Za-z][\w-]{1,40})(?:==| v?)(\d+\.\d+(?:\.\d+)?)\b")
_NOT_A_RELEASED_NAME = {"on", "in", "with", "to", "from", "python", "python3", "version", "release", "fixed", "v",
                        "and", "or", "is", "was", "the", "line", "cuda", "since", "before", "after", "under"}


@_per_explain
def _release_said(text: str) -> tuple[str, str, str]:
    """(round 27e) ``(package, release, how)``: the release a text says fixed the failure (``how`` "fixed") or worked
    ("worked"), with the package it names beside it or elsewhere with a release of the same major line; else
    ``("", "", "")``."""
    for rx, how in ((_FIXED_IN_RE, "fixed"), (_WORKED_ON_RE, "worked")):
        m = rx.search(text)
        if not m:
            continue
        pkg, rel = m.group(1) or "", m.group(2)
        if pkg.lower() in _NOT_A_RELEASED_NAME:
            pkg = ""
        if not pkg:
            major = rel.split(".")[0]
            named = [n.group(1) for n in _NAMED_RELEASE_RE.finditer(text) if n.group(1).lower() not in
                     _NOT_A_RELEASED_NAME and n.group(2).split(".")[0] == major and n.group(2) != rel]
            pkg = _one(named)
        if pkg:
            return pkg, rel, how
    return "", "", ""


def _works_filled(c: str, text: str) -> str:
    """``'<the package>==<the release the text says works>'`` with the package and release the text says fixed it or
    worked (:func:`_release_said`)."""
    if "<the release the text says works>" not in c:
        return c
    pkg, rel, how = _release_said(text)
    if not pkg:
        return c
    if how == "fixed":
        return f'pip install "{pkg}>={rel}"   # the release the text says fixed it'
    return f'pip install "{pkg}=={rel}"   # the release the text says worked; or a later one with the fix'


#: (round 28c) a module a text's ``python -c "import X"`` or a traceback's source line imports
_IMPORTED_RE = re.compile(r"(?m)(?:-c [\"']|^\s{2,}|;\s?)(?:import|from) ([A-Za-z_][\w.]{0,80})")
#: nvcc's own message about an option's value ("nvcc fatal   : Value 'c++20' is not defined for option 'std'")
_NVCC_OPTION_RE = re.compile(r"(?:Value|Keyword) '[^'\n]{0,80}' is not defined for option '([\w-]{1,40})'")


_FORCE_REINSTALL_RE = re.compile(r"^(?:#[^:]*:\s*)?pip install [^#]*--force-reinstall (?:--[a-z][\w-]* )*([A-Za-z][\w.-]*)(?=\s|$)")


def _clean_rebuild(built_by: str) -> str:
    """The project's build command with its own build folder removed first (an in-tree build would relink the objects
    compiled for the old CUDA) and, for pip, the installed torch used (--no-build-isolation: an isolated build
    installs the newest torch from PyPI to build against); the table's prose and comments kept as a comment."""
    parts = re.split(r"\s#\s", built_by + " ", maxsplit=1)  # a comment, not a URL's #fragment
    cmd, note = parts[0].strip(), (parts[1] if len(parts) > 1 else "")
    m = re.match(r"^(.*?)\s*\((in the [^()]{1,60} checkout)\)$", cmd)
    if m:
        cmd, note = m.group(1), f"{m.group(2)}; {note.strip()}".rstrip("; ")
    tail = f"   # {note.strip()}" if note.strip() else ""
    m = re.match(r"^cd (\S+) && (.*)$", cmd)
    if m:
        rest = _clean_rebuild(m.group(2))
        return f"cd {m.group(1)} && {rest}{tail}"
    m = re.match(r"^pip install (\S+?)/?\.?$", cmd)
    if m and "://" in m.group(1):
        return _clean_rebuild_pip(cmd) + tail
    if m and m.group(1) not in (".", ""):
        return f"rm -rf {m.group(1)}/build && pip install --no-build-isolation {m.group(1)}/{tail}"
    if re.match(r"^(?:python3? setup\.py|pip3? install)\b", cmd):
        return f"rm -rf build && {_clean_rebuild_pip(cmd)}{tail}"
    return cmd + tail  # a project's own script or CMake: its own build folder, left to it


def _clean_rebuild_pip(cmd: str) -> str:
    return re.sub(r"^pip install (?!.*--no-build-isolation)", "pip install --no-build-isolation ", cmd)


def _source_built_rebuilt(cmds: list[str]) -> list[str]:
    """(round 29, blind audit 29) A reinstall by name of a module only its project's source tree builds
    (tables/source_built_modules.csv: pointnet2_ops, chamfer_3D, ...): a PyPI project of that name is another package,
    or none; the rebuild in the project's checkout instead (the table's command), once."""
    from smrnb.doctor.rules._abi import source_built_row

    out: list[str] = []
    for c in cmds:
        m = _FORCE_REINSTALL_RE.match(c)
        row = source_built_row(m.group(1).replace("-", "_")) if m else None
        if row is None:
            out.append(c)
            continue
        mod = row["module"]
        rebuild = _clean_rebuild(row["built_by"].strip('"'))
        line = rebuild + ("; " if "   # " in rebuild else "   # ") + (
            f"in the {row['project']} checkout {mod} was built in: it is built from that source (no PyPI package of this "
            "name builds it), against the installed torch")
        if line not in out:
            out.append(line)
    return out


#: a source tree the text shows being built: setup.py run, ``pip install .`` / ``-e .`` / a folder, a build/ folder
_TREE_SHOWN_RE = re.compile(r"\bsetup\.py\s+(?:install|develop|build|build_ext|bdist_wheel)\b|"
                            r"\bpip3? install\b[^\n#]*?\s(?:-e\s+)?\.{1,2}(?:/[\w.-]*)*/?(?=\s|$)|"
                            r"[\\/]build[\\/](?:lib|temp)[\w.-]*[\\/]")
#: the folder holding a build/ folder of a compiled module the text shows (``~/src/x/build/lib.linux-x86_64-3.10/``)
_TREE_PATH_RE = re.compile(r"(?<![\w.-])((?:~|/)[\w./~-]*?[\w.-])/build/(?:lib|temp)[\w.-]*/")
#: names a text's ``pip install`` may show that are torch and its own stack, not the extension
_NOT_THE_EXTENSION = {"torch", "pytorch", "torchvision", "torchaudio", "pip", "setuptools", "wheel", "ninja", "numpy"}


def _registry_installed(text: str) -> str:
    """The one package the text shows installed from a registry: its site-packages folder, else the name its own
    ``pip install NAME`` installs (not torch's stack); ``""`` where it shows none, or a source tree."""
    pkg = _site_package(text)
    if pkg and pkg not in _NOT_THE_EXTENSION:
        return pkg
    own = _installed_by_the_text(text)
    if own and re.fullmatch(r"[A-Za-z0-9][\w.-]*", own) and own.lower() not in _NOT_THE_EXTENSION:
        return own
    return ""


def rebuild_source(text: str) -> dict[str, str]:
    """(blind audit 36, F9 / C-M12; session 37) What the text shows of the extension's source, for the rules' one
    decision of where its rebuild runs (:func:`smrnb.doctor.rules._rebuild.tree_rebuild`): ``tree``, the one source
    tree whose path it shows (``""`` where it shows none, or several); ``installed``, where it shows no source tree
    built but the package installed from a registry (a site-packages path, ``pip install NAME``), that name."""
    if _TREE_SHOWN_RE.search(text):
        paths = list(dict.fromkeys(_TREE_PATH_RE.findall(text)))
        return {"tree": paths[0] if len(paths) == 1 else "", "installed": ""}
    return {"tree": "", "installed": _registry_installed(text)}


def _pyg_from_its_page(c: str, facts: Mapping[str, Any] | None) -> str:
    """(blind audit 36, F3) A force-reinstall of a PyG operator package by name (torch-cluster: PyPI has only its
    source, whose build imports torch, so pip's isolated build fails) as the wheel PyG's page has for this torch."""
    from smrnb.doctor.rules._rebuild import per_torch_wheel, pyg_wheel_command

    m = _FORCE_REINSTALL_RE.match(c)
    if not m or c.startswith("#") or re.search(r"\s(?:-f|--find-links|--index-url|-i)[\s=]", c) or \
            "--no-build-isolation" in c:
        return c
    pkg = per_torch_wheel(m.group(1).replace("-", "_") + ".")
    return pyg_wheel_command(facts or {}, pkg) if pkg and m.group(1).replace("-", "_").lower() == pkg else c


def _one_live_toolkit(cmd: str, facts: Mapping[str, Any] | None) -> str:
    """(blind audit 30, E01) A toolkit placeholder the text leaves open, where explain runs on a machine whose probe
    found CUDA toolkits of exactly one release (this machine's nvcc paths, not the text's) and torch's CUDA, where
    known, is that release: that toolkit's own directory (``/usr/local/cuda-13.0``, not a wrapper's ``/usr/local``)."""
    tk = facts.get("toolkit") if isinstance(facts, Mapping) else None
    if not isinstance(tk, Mapping) or (tk.get("provenance") or {}).get("nvccs") != "live":
        return cmd
    nvccs = [n for n in tk.get("nvccs") or [] if isinstance(n, Mapping) and n.get("version")]
    torch = facts.get("torch") if isinstance(facts, Mapping) else None
    tcuda = torch.get("cuda") if isinstance(torch, Mapping) else None
    if len({n["version"] for n in nvccs}) != 1 or (tcuda and tcuda != nvccs[0]["version"]):
        return cmd
    homes = [p[: -len("/bin/nvcc")] for n in nvccs for p in (n.get("paths") or [n.get("path")])
             if isinstance(p, str) and p.endswith("/bin/nvcc") and n.get("has_headers") is not False]
    named = [h for h in homes if re.fullmatch(r"/usr/local/cuda-\d+\.\d+", h)] or homes
    return cmd.replace("/usr/local/cuda-<x.y>", named[0]) if named else cmd


def _commands(f: Finding, text: str, facts: Mapping[str, Any] | None) -> tuple[str, ...]:
    os_ = _shell_os(facts, text)
    pkg = _site_package(text)
    jit = bool(_JIT_WORD_RE.search(text) and _JIT_RE.search(text))
    low = text.lower()
    tf_only = "tensorflow" in low and "torch" not in low
    out: list[str] = []
    for c in f.fix.commands if f.fix else ():
        if jit and re.search(r"pip install [^#]*<package>", c):
            out += [_home_free(j) for j in _jit_commands(text, os_ == "windows")]
            continue
        if pkg:
            c = _pkg_placeholder(c, pkg)
        # (round 28c) a toolkit for CUDA_HOME is torch's CUDA release (cpp_extension checks nvcc against it)
        cuda = _cuda_meant(text, facts, "torch.version.cuda" in c or bool(
            re.search(r"\bCUDA_(?:HOME|PATH)=/usr/local/cuda-<x\.y>", c))) if "cuda-<x.y>" in c else ""
        if cuda:  # the text's toolkit folder or nvcc; where the command pins torch's CUDA, the text's torch's
            c = c.replace("/usr/local/cuda-<x.y>", f"/usr/local/cuda-{cuda}")
            c = c.replace("cuda-toolkit-<x>-<y>", "cuda-toolkit-" + cuda.replace(".", "-"))
        if "/usr/local/cuda-<x.y>" in c:
            c = _one_live_toolkit(c, facts)
        c = _compute_cap(c, facts, text)
        c = _build_kept(_arch_variable(c, text), text)
        c = _pin_for_python(_mmcv_full(_release_named(_works_filled(c, text), text), text), text)
        c = _mmcv_release(c, text, facts)
        lib = _EXPECTED_IN_RE.search(text) if "<the library that should define it>" in c else None
        if lib:  # macOS' dyld names the library that should define the symbol
            c = c.replace("<the library that should define it>", lib.group(1))
        c = _library_named(c, text, facts)
        finder, c = _owner_finder(c, text)
        out += [finder] if finder else []
        c = _owner_named(c, text)
        if not c:
            continue
        c = _notebook_env(_script_filled(_show_named(c, text, facts), text), text)
        c = _torchrun_filled(_launch_filled(c, text), text)
        built = _built_package(text) if "--no-build-isolation" in c or "pip" in c and "<package>" in c else ""
        target = _isolated_target(c, built, text)
        if target:  # the build that fails is the package's, not that of the module it lacks
            c = re.sub(r"(--no-build-isolation\b[^#]*?\s)torch(?=\s|$)", lambda m, b=target: m.group(1) + b, c)
        c = _variant_filled(_kernel_named(_kaolin_filled(c, text), text), f.title, _slurm_gpu(text)[1], facts, text)
        c = _torch_pinned(_xformers_release(_git_release(c, text), facts), facts, os_)
        if re.search(r"\bpip3? (?:install|show|uninstall)\b[^#]*<package>", c):
            # the package pip built in the text's log, else the one the text's own pip command installs
            named = built if built and built != "torch" else _installed_by_the_text(text) or _prose_package(text)
            if named and (re.fullmatch(r"[A-Za-z0-9][\w.-]*", named) or re.search(r"\bpip3? install\b", c)):
                c = c.replace("<package>", named)  # a folder or a URL only where pip installs it
        if "<the release the text says works>" in c:
            continue  # (round 28c) the text names no release that works: no pin to print
        if "<extension module>" in c:  # (round 28c) the module the text's own import that failed names
            mods = [m for m in _IMPORTED_RE.findall(text) if m.split(".")[0] != "torch"]
            if mods:
                c = c.replace("<extension module>", mods[-1])
        if 'python -c "import <package>"' in c:  # (round 28c) the top module of the text's last import
            mods = [m.split(".")[0] for m in _IMPORTED_RE.findall(text) if m.split(".")[0] != "torch"]
            if mods:
                c = c.replace('python -c "import <package>"', f'python -c "import {mods[-1]}"')
        if "<the option>" in c:  # (round 28c) the option nvcc's own message names
            opt = _NVCC_OPTION_RE.search(text)
            if opt:
                c = c.replace("<the option>", f"'-{opt.group(1)}'")
        c = _cuda_build_named(c, facts)
        c = _extension_folder_named(c, text)
        c = _torch_index_guard(c, text, os_)
        c = _wsl_guard(c, text, facts)
        if not c:
            continue
        if tf_only and (re.search(r"\btorch\b", c.split("   #")[0]) or "<package" in c):
            continue  # (round 28c) a TensorFlow text without torch: no torch command, no package left unnamed
        if c.startswith("OPENBLAS_CORETYPE=") and not _ARM_SHOWN_RE.search(text):
            continue  # (round 28c) OpenBLAS' ARM core types only where the text shows an ARM machine
        c = pip_names(_distro_gcc(c, text))
        if "torch-<torch version>_cu<cuda>.html" in c:  # (round 29) kaolin's page as pip_names wrote it: the text's torch
            c = _kaolin_page_computed(_kaolin_filled(c, text), facts, os_)
        c = _no_deps(_pyg_from_its_page(c, facts))
        c = with_build_variables(_several_shown(_glossed(_private_named(_jobs_unnamed(c))), text), text, facts)
        c = c.replace("-d /tmp/x", "-d pip-files")  # a folder of the current directory, on every OS
        if os_ == "windows":
            c = _windows(c)
            if c.endswith(_LINUX_NOTE):  # (round 31a) no POSIX command on a Windows text: its parts in cmd's words
                c = _windows_parts(c)
                if not c:
                    continue
        elif os_ == "macos":
            c = _macos(c)
            if not c:
                continue
        out.append(_home_free(_failed_python(_pip_names(c), text, os_)))
    out = _source_built_rebuilt(out)
    out = _conda_nvcc_unshown(out, text, os_)
    if os_ == "windows":
        shell = _windows_shell(text)
        out = [_for_shell(c, shell) for c in out]
    return _once(out)


#: (round 31a, issue 25) a placeholder of a printed command (``<package>``, ``<x.y>``, a trailing ``...``)
_PLACEHOLDER_RE = re.compile(r"(?<!<)<(?![<=&0-9])([^<>\n]{1,160})>(?!&)|(?<![.\w/])\.\.\.(?![.\w/])")
_TORCH_PAGE = "the installed torch's release (torch.__version__ without its +local part, e.g. 2.1.0)"
_CUDA_NODOT = "torch's CUDA without its dot (torch.version.cuda: 121 for 12.1)"
_CU_VARIANT = "cu and torch.version.cuda without its dot (cu121 for 12.1), cpu for a CPU build"
#: what to put for each placeholder a rule prints (a pattern of its token and the text before it, and the words)
_GLOSSES: tuple[tuple[re.Pattern[str], str, str], ...] = tuple((re.compile(rx), tok, words) for rx, tok, words in (
    (r"torch==<ver>$", "ver", "the torch release to install (its companion's matching release beside it)"),
    (r"torch==<x\.y\.z>$", "x.y.z", "the installed torch's release: pip show torch's Version, without its +local part"),
    (r"kaolin==<(?:ver|version)>$", "", "a kaolin release the page lists for this torch and CUDA"),
    (r"==<version>$", "version", "a release of the package"),
    (r"torch-<(?:ver|torch|torch version)>$", "", _TORCH_PAGE),
    (r"torch-<major\.minor>$", "major.minor", "the installed torch's major.minor (e.g. 2.1)"),
    (r"torch-<torch major\.minor>$", "torch major.minor", "the installed torch's major.minor (e.g. 2.1)"),
    (r"_cu<(?:xy|cuda)>$", "", _CUDA_NODOT),
    (r"<cu>$", "cu", "cu and " + _CUDA_NODOT + ", or cpu"),
    (r"<cuXYZ(?:\|cpu| or cpu)?>$", "", _CU_VARIANT),
    # (round 36g, audit 36 F6) no example release here: read as the user's torch's, one the text never showed
    (r"<x\.y>$", "x.y", "the CUDA release of the toolkit to use: torch's CUDA, which "
                         "python -c 'import torch; print(torch.version.cuda)' prints"),
    (r"<X\.Y>(?:\+PTX)?$", "X.Y", "the GPU's compute capability (nvidia-smi --query-gpu=compute_cap --format=csv, e.g. 8.6)"),
    (r"cuda-toolkit-<x>-<y>$", "x-y", "the CUDA release's major and minor (cuda-toolkit-12-1)"),
    (r"<package-owning-the-extension>$", "package-owning-the-extension",
     "the pip package whose compiled module failed to load (pip show -f NAME lists its files)"),
    (r"<package-owning-[^<>]+>$", "", "the pip package that installed that file (pip show -f NAME lists its files)"),
    (r"<packages>$", "", "the packages you asked to install"),
    (r"<package>$", "", "the package the error is about (the one its traceback's site-packages path or the "
                                 "failing build names)"),
    (r"<n>$", "n", "a gcc major release nvcc accepts (nvcc's host_config.h names the newest)"),
    (r"<(?:gcc|g\+\+)>$", "", "one toolchain's compilers (gcc-11 and g++-11)"),
    (r"<script>$", "script", "your program's file (train.py)"),
    (r"<env>$", "env", "a name for the kernel (the environment's own name)"),
    (r"<command>$", "command", "the command to run with these variables"),
    (r"<GPUs>$", "GPUs", "how many GPUs to use"),
    (r"<notebook>$", "notebook", "your notebook's file name"),
    (r"<os>$", "os", "the OS of the machine (win-x64 or linux-x64)"),
    (r"<(?:owner|repo|branch|path)>$", "", "the notebook's place on GitHub (owner/repo/branch/path)"),
    (r"<extension>$", "extension", "the extension module that fails to import"),
    (r"<image>$", "image", "the container image"),
    (r"<partition>$", "partition", "the Slurm partition the job asks for"),
    (r"<run>$", "run", "the run's output folder"),
    (r"\.\.\.$", "...", "the rest of your own command (its image or script and their arguments)"),
))


#: (round 31a, issue 25) a pip target that is a private module's name (``_raymarching_face``, ``_socket``): PEP 508 names
#: start with a letter or digit, so pip refuses it ("Invalid requirement")
_PRIVATE_TARGET_RE = re.compile(r"(\bpip3? (?:install|uninstall|show|download)\b[^#|&;]*?\s)(_\w+)(?=\s|$)")


def _private_named(c: str) -> str:
    """A pip command whose target is a module's private name: the words of the package that installs it instead."""
    return _PRIVATE_TARGET_RE.sub(lambda m: f"{m.group(1)}<the package that installs {m.group(2)}>", c)


def said_in_words(found: list[Finding]) -> list[Finding]:
    """(round 31a, issue 25) The findings of this machine (``diagnose``; explain's live findings beside a text) with
    each command's placeholders said in words and no private module's name as a pip target (:func:`_glossed`,
    :func:`_private_named`): explain's text findings get the same in :func:`_commands`."""
    return _each_command(found, lambda c: placeholders_quoted(_glossed(_private_named(c))))


#: (round 37a, blind audit 36 M7) a placeholder a command holds: ``<x.y>``, ``<the package that owns it>``
_PH_AT_RE = re.compile(r"<([A-Za-z.\[][^<>\n\"$`\\]{0,159})>")
#: a cmd line's ``& rem`` note
_REM_AT_RE = re.compile(r"&\s*rem\b", re.IGNORECASE)


def placeholders_quoted(c: str) -> str:
    """(round 37a, blind audit 36 M7) ``c`` with each placeholder in its code (not its note) inside double quotes:
    ``torch=="<x.y>"``, ``cd "<the extension's source tree>"``. Unquoted, bash reads ``<x.y>`` as a redirection (``<x``
    reads a file, ``y>`` creates or empties the next word's file); quoted it is one literal word that pip, cd or conda
    refuse as it stands, and the note after ``#`` says what to put there. A comment line, a Python line and a
    placeholder already inside quotes are kept."""
    if "<" not in c:
        return c
    return "\n".join(_line_placeholders_quoted(ln) for ln in c.split("\n"))


def _line_placeholders_quoted(line: str) -> str:
    s = line.lstrip()
    if not s or s.startswith("#") or re.match(r"(?:rem|import|from)\s|[A-Za-z_][\w.]* = ", s, re.IGNORECASE):
        return line
    cmd_shell = bool(re.search(r"\s&\s*rem\b", line, re.IGNORECASE)) or s.lower().startswith('set "')
    out: list[str] = []
    i, n, quote, word_start = 0, len(line), "", True
    outer: list[str] = []  # the quotes around each ``$(`` open here: bash reads its inside afresh
    while i < n:
        ch = line[i]
        if quote != "'" and line.startswith("$(", i) and not cmd_shell:
            outer.append(quote)
            out.append("$(")
            i, quote, word_start = i + 2, "", True
            continue
        if not quote and ch == ")" and outer:
            quote = outer.pop()
            out.append(ch)
            i += 1
            continue
        if quote:
            if ch == "\\" and quote == '"' and not cmd_shell:
                out.append(line[i:i + 2])
                i += 2
                continue
            quote = "" if ch == quote else quote
        elif ch == "\\" and not cmd_shell:
            out.append(line[i:i + 2])
            i += 2
            continue
        elif ch == '"' or (ch == "'" and not cmd_shell):
            quote = ch
        elif (ch == "#" and word_start) or (cmd_shell and ch == "&" and _REM_AT_RE.match(line, i)):
            out.append(line[i:])  # the note
            break
        elif ch == "<" and _PH_AT_RE.match(line, i):
            m = _PH_AT_RE.match(line, i)
            out.append(f'"{m.group(0)}"')
            i, word_start = m.end(), False
            continue
        out.append(ch)
        word_start = not quote and ch in " \t;&|("
        i += 1
    return "".join(out)


def _each_command(found: list[Finding], mend: Any) -> list[Finding]:
    """``found`` with ``mend`` applied to every fix command (a finding whose commands do not change is kept as it is):
    the live findings' passes (:func:`said_in_words`, :func:`this_pythons_commands`)."""
    out = []
    for f in found:
        cmds = tuple(mend(c) for c in f.fix.commands) if f.fix is not None else ()
        out.append(f if f.fix is None or cmds == f.fix.commands else replace(f, fix=Fix(f.fix.why, cmds, f.fix.docs)))
    return out


def _glossed(c: str) -> str:
    """(round 31a, issue 25) ``c`` with what to put for each placeholder its note does not already name, said in its
    note (``# x.y: the CUDA release ...``); a placeholder that is words (``<the package that owns it>``) says it
    itself. ``file PATH; ls -l <it>``: the path the command already names."""
    if c.lstrip().startswith("#"):
        return c
    c = re.sub(r"^(file (\S+); ls -l) <it>", r"\1 \2", c)
    body, sep, note = c.partition("   #")
    said: list[str] = []
    for m in _PLACEHOLDER_RE.finditer(body):
        inner = m.group(1) or "..."
        if len(inner.split()) >= 2 and m.group(1):
            continue  # words: it says what to put
        if re.search(rf"(?<![\w<]){re.escape(inner)}(?![\w>])|<{re.escape(inner)}>", note):
            continue  # the note names it already
        for rx, tok, words in _GLOSSES:
            if rx.search(body[:m.end()]):
                line = f"{tok or inner}: {words}"
                if line not in said:
                    said.append(line)
                break
    if not said:
        return c
    return f"{body}   #{note}; {'; '.join(said)}" if sep else f"{body.rstrip()}   # {'; '.join(said)}"


#: (round 28c) a conda environment the text shows (conda's own name or variable, an environment's folder or prompt)
_CONDA_SHOWN_RE = re.compile(r"conda|mamba|/envs/|\\envs\\|^\(base\)", re.IGNORECASE | re.MULTILINE)
_CONDA_NVCC_RE = re.compile(r"^conda install -c (?:nvidia|conda-forge) (?:cuda-nvcc|cudatoolkit-dev)=(\d{1,2}\.\d)\b")


def _conda_nvcc_unshown(cmds: list[str], text: str, os_: str) -> list[str]:
    """(round 28c) An nvcc from conda's nvidia channel only where the text shows conda; else a toolkit of that release
    where NVIDIA's installer puts it (/usr/local/cuda-X.Y), and no ``CUDA_HOME="$CONDA_PREFIX"``."""
    if os_ not in ("", "linux") or _CONDA_SHOWN_RE.search(text):
        return cmds
    out: list[str] = []
    for c in cmds:
        m = _CONDA_NVCC_RE.match(c)
        if m:
            d = f"/usr/local/cuda-{m.group(1)}"
            c = (f"export CUDA_HOME={d} PATH={d}/bin:$PATH   # a CUDA {m.group(1)} toolkit installed there (NVIDIA's "
                 "installer or package)")
        elif c.startswith('export CUDA_HOME="$CONDA_PREFIX"'):
            continue
        out.append(c)
    return out


#: (round 26d) distributions published once per CUDA release, by import name: the pattern of their installed names, and
#: the name for a CUDA release ``(major, minor)`` (spconv's README: spconv-cu113 ... spconv-cu126, PyPI's
#: spconv-cu118/-cu120/-cu124/-cu126 seen; CuPy's installation guide: cupy-cuda11x, cupy-cuda12x, cupy-cuda13x)
_SPCONV_CUDAS = (113, 114, 116, 117, 118, 120, 124, 126)
_PER_CUDA_DIST = {
    "spconv": (r"^(spconv|cumm)(-cu[0-9]+)?==",
               lambda mj, mn: next((f"spconv-cu{v}" for v in reversed(_SPCONV_CUDAS)
                                    if v // 10 == mj and v % 10 <= mn), "")),
    "cupy": (r"^cupy(-cuda[0-9]+x?)?==", lambda mj, mn: f"cupy-cuda{mj}x" if mj >= 11 else ""),
}


def _cuda_build_named(c: str, facts: Mapping[str, Any] | None) -> str:
    """A reinstall of a package published once per CUDA release (spconv, cupy) by the distribution for torch's CUDA
    the text shows, and its uninstall by whichever of its builds is installed (``pip freeze``), not its import name."""
    m = re.match(r"^((?:python -m )?pip3? )(install|uninstall -y)\b([^#]*?)\b(spconv|cupy)\b(?![\w.-])(.*)$", c)
    if not m:
        return c
    pat, name_for = _PER_CUDA_DIST[m.group(4)]
    if m.group(2).startswith("uninstall"):
        return f"pip freeze | grep -iE '{pat}' | cut -d= -f1 | xargs pip uninstall -y   # the {m.group(4)} build installed"
    tc = re.match(r"(\d+)\.(\d)", _torch_cuda(facts) or "")
    dist = name_for(int(tc.group(1)), int(tc.group(2))) if tc else ""
    if not dist:
        return c
    return f"{m.group(1)}install{m.group(3)}{dist}{m.group(5)}"


#: a CUDA/C++ source file of a source tree the text builds (``/home/ana/DCNv2/src/cuda/dcn_v2_cuda.cu``): its top folder
_SOURCE_TREE_RE = re.compile(r"[\\/]([A-Za-z][\w.-]{1,60})[\\/](?:src|csrc|cuda|lib|ops)[\\/][\w./\\-]*?\.(?:cu|cpp|cc|h|cuh)\b")


def _extension_folder_named(c: str, text: str) -> str:
    """(round 26d) ``pip install --upgrade <the extension>`` where the text builds one source tree (DCNv2's folder):
    what to do there, as a comment naming it (a source checkout is no PyPI name to upgrade)."""
    if "<the extension>" not in c:
        return c
    trees = {m.group(1) for m in _SOURCE_TREE_RE.finditer(text)} - {"torch", "site-packages", "include"}
    if len(trees) != 1:
        return c
    tree = trees.pop()
    return (f"# {tree}: a release or fork of it written for this torch (its source still uses the removed API), then "
            f"rebuild it in its folder (rm -rf build/ there first)")


#: a torch (re)install from PyTorch's CUDA index (download.pytorch.org/whl/cuXYZ)
_TORCH_CUDA_INDEX_RE = re.compile(r"^(?:python -m )?pip3? install\b[^#]*\btorch\b[^#]*download\.pytorch\.org/whl/<?cu")
_JETSON_RE = re.compile(r"\b(?:jetson|jetpack|l4t|tegra\w*)\b", re.IGNORECASE)
_NGC_TORCH_RE = re.compile(r"\bnvcr\.io/nvidia/pytorch:([\w.-]{1,40})")


def _torch_index_guard(c: str, text: str, os_: str) -> str:
    """(round 26d) No torch from PyTorch's CUDA index where none of its builds fits the machine: macOS (PyTorch
    publishes no CUDA build for it), a Jetson (JetPack's torch is NVIDIA's build for the board; the index's aarch64
    wheels are not), an NGC PyTorch container (the image's torch is NVIDIA's build: its tag decides)."""
    if not _TORCH_CUDA_INDEX_RE.search(c):
        return c
    if os_ == "macos":
        return "# macOS: PyTorch publishes no CUDA build for macOS (no NVIDIA GPU or driver there); use the CPU/MPS build"
    if _JETSON_RE.search(text):
        return ("# Jetson: install NVIDIA's torch wheel for this JetPack release (docs.nvidia.com/deeplearning/frameworks/"
                "install-pytorch-jetson-platform), not one from download.pytorch.org")
    ngc = _NGC_TORCH_RE.search(text)
    if ngc:
        return (f"# inside nvcr.io/nvidia/pytorch:{ngc.group(1)} keep the image's torch (NVIDIA's build): pick the image "
                "tag whose CUDA this driver runs (NGC's support matrix), or update the host's driver")
    return c


#: NVML's answer under WSL2, which the reader's ``wsl`` sign (context.wsl: "wsl", "microsoft-standard") does not hold
_WSL_NVML = "gpu access blocked by the operating system"
#: what loads, unloads or reinstalls a Linux NVIDIA kernel module (none exists under WSL2)
_KMOD_RE = re.compile(r"^(?:sudo )?(?:modprobe|rmmod|reboot)\b|\bsudo (?:modprobe|rmmod|reboot)\b|^dkms status")
_WSL_DRIVER = ("# WSL2: the NVIDIA driver is the Windows host's (no Linux kernel module): run 'wsl --shutdown' in "
               "Windows (PowerShell) and reopen WSL, or update the Windows NVIDIA driver; never install a Linux "
               "driver inside WSL")


def _wsl_guard(c: str, text: str, facts: Mapping[str, Any] | None) -> str:
    """(round 26d) Under WSL2 no Linux NVIDIA kernel module is loaded or rebuilt and no reboot helps: the first such
    command becomes the Windows side's step (a comment line), the others are dropped (``""``)."""
    if not _KMOD_RE.search(c):
        return c
    ctx = facts.get("context") if isinstance(facts, Mapping) else None
    if not (isinstance(ctx, Mapping) and ctx.get("wsl")) and _WSL_NVML not in text.lower():
        return c
    return _WSL_DRIVER


#: (round 28c) the rules' Debian/Ubuntu way to an older gcc (``sudo apt-get install gcc-N g++-N``) and the variables that
#: name its compilers
_APT_GCC_RE = re.compile(r"^sudo apt-get install gcc-(\d{1,2}) g\+\+-\d{1,2}\b")
_CC_GCC_RE = re.compile(r"^export CC=gcc-(\d{1,2}) CXX=g\+\+-\d{1,2} CUDAHOSTCXX=g\+\+-\d{1,2}\b")
#: a Red Hat family text: Fedora (its prompt, release or package suffix), RHEL and its rebuilds (el7/el8/el9), and
#: whether it is the 7 series (yum, devtoolset) or later (dnf, gcc-toolset)
_FEDORA_RE = re.compile(r"\bfedora\b|\.fc\d{2}\b", re.IGNORECASE)
_EL_RE = re.compile(r"\b(?:centos|rhel|red hat enterprise|rocky|almalinux|alma linux)\b|\.el[789]\b", re.IGNORECASE)
_EL7_RE = re.compile(r"\b(?:centos|rhel|red hat enterprise linux)(?: linux)?(?: release)? ?7\b|\.el7\b", re.IGNORECASE)


#: (round 28c) an ARM machine the text shows (its architecture, a Jetson/Tegra board, an ARM server or core)
_ARM_SHOWN_RE = re.compile(r"aarch64|arm64|\barmv\d|\barm\b|jetson|tegra|\borin\b|raspberry|graviton|cortex-a|neoverse|"
                           r"ampere altra", re.IGNORECASE)


def _distro_gcc(c: str, text: str) -> str:
    """(round 28c) An older gcc on a Red Hat family text, where there is no apt-get: RHEL 8/9 and rebuilds install
    ``gcc-toolset-N`` with dnf (its compilers in /opt/rh/gcc-toolset-N/root/usr/bin), RHEL/CentOS 7 ``devtoolset-N``
    with yum (Red Hat Developer Toolset, /opt/rh/devtoolset-N/...), Fedora has neither: conda-forge's gcc N, whose
    compilers are named ``x86_64-conda-linux-gnu-gcc`` / ``-g++`` (conda-forge's gxx_linux-64)."""
    m = _APT_GCC_RE.match(c) or _CC_GCC_RE.match(c)
    if not m or not (_FEDORA_RE.search(text) or _EL_RE.search(text)):
        return c
    n = m.group(1)
    apt = c.startswith("sudo apt-get")
    if _FEDORA_RE.search(text):
        if apt:
            return (f"conda install -c conda-forge gxx_linux-64={n}   # gcc {n} in a conda environment, beside Fedora's "
                    "own gcc")
        cc = '"$CONDA_PREFIX/bin/x86_64-conda-linux-gnu-gcc"'
        cxx = '"$CONDA_PREFIX/bin/x86_64-conda-linux-gnu-g++"'
        return f"export CC={cc} CXX={cxx} CUDAHOSTCXX={cxx}   # conda-forge's gcc {n}"
    tool = f"devtoolset-{n}" if _EL7_RE.search(text) else f"gcc-toolset-{n}"
    if apt:
        return f"sudo {'yum' if tool.startswith('devtoolset') else 'dnf'} install {tool}   # gcc {n} beside the system's"
    d = f"/opt/rh/{tool}/root/usr/bin"
    return f"export CC={d}/gcc CXX={d}/g++ CUDAHOSTCXX={d}/g++"


#: a build rerun with fewer compile jobs whose package the text names nowhere (``MAX_JOBS=2 pip install ... <package>``)
_JOBS_UNNAMED_RE = re.compile(r"^MAX_JOBS=(\d+) (?:python -m )?pip3? install\b[^#]*<package>[^#]*?(?:\s*#\s*(.*))?$")


def _jobs_unnamed(c: str) -> str:
    """A rerun of a build with fewer compile jobs whose package the text does not name: the variable set for the
    shell, to rerun the build's own command with (runnable as printed; no ``<package>`` left)."""
    m = _JOBS_UNNAMED_RE.match(c)
    if not m:
        return c
    why = f"; {m.group(2)}" if m.group(2) else ""
    first = "; its log's first 'error' line is the cause" if "grep" in c.split("#", 1)[0] else ""
    return f"export MAX_JOBS={m.group(1)}   # then run the build's command again in this shell{first}{why}"


#: a launcher's command the rules print with ``...`` for the rest of the person's command line, and the option it adds
_LAUNCHERS = (("docker run --gpus all ...", "docker run", "--gpus all", "--gpus"),
              ("srun --gres=gpu:1 ...", "srun", "--gres=gpu:1", "--gres"),
              ("apptainer exec --nv ...", "apptainer exec", "--nv", "--nv"),
              ("singularity exec --nv ...", "singularity exec", "--nv", "--nv"))
#: the text's own command line of a launcher (at a line's start, after a shell prompt or ``$``), up to a comment or a
#: pipe
_LAUNCH_LINE_RE = {name: re.compile(rf"(?m)(?:^|[$#%>]\s)\s*({re.escape(name)}\s[^\n]{{1,600}})") for _, name, _, _ in
                   _LAUNCHERS}


def _one_command(line: str) -> str:
    """(round 38a, audit 36 B's t14) ``line`` up to its first comment, pipe, ``;`` or ``&`` outside quotes (a
    ``python -c "import torch; ..."`` argument is whole); ``""`` where a quote is left open (the line was cut)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "|;&" or (ch == "#" and (i == 0 or line[i - 1].isspace())):
            return line[:i].rstrip()
    return "" if quote else line.rstrip()


def _launch_filled(c: str, text: str) -> str:
    """A launcher's ``...`` (``docker run --gpus all ...``, ``srun --gres=gpu:1 ...``) with the rest of the text's own
    command line of that launcher where the text shows one without the option (the last such line; none with a secret
    in it): the person's command with the option added, runnable as printed."""
    for printed, name, option, key in _LAUNCHERS:
        if not c.startswith(printed):
            continue
        found = [m.group(1) for m in _LAUNCH_LINE_RE[name].finditer(text)]
        lines = [_one_command(ln) or ln.rstrip() for ln in found]
        lines = [ln for ln in lines if key not in ln and REDACTED not in ln and "<" not in ln]
        if lines:
            rest = lines[-1][len(name):].strip()
            if rest.count('"') % 2 or rest.count("'") % 2:  # (round 28c) cut inside a quoted argument (an open quote)
                rest = rest[:min(i for i in (rest.find('"'), rest.find("'")) if i != -1)].rstrip() + " ..."
            return f"{name} {option} {rest}" + c[len(printed):]
    return c


#: (round 27b) the text's own command line that starts a distributed script: torchrun / torch.distributed.run or
#: .launch, srun, or python itself, with a ``.py`` script (at a line's start or after a prompt), up to a comment or pipe
_DDP_LINE_RE = re.compile(r"(?m)(?:^|[$#%>]\s)\s*((?:srun|torchrun|python3?(?: -m torch\.distributed\.(?:run|launch))?)"
                          r"\s[^\n#|;&<>]{0,300}?\.py\b[^\n#|;&<>]{0,300})")
_PRINTED_TORCHRUN_RE = re.compile(r"^torchrun --master_port (\d{1,5}) \.\.\.(.*)$")


def _torchrun_filled(c: str, text: str) -> str:
    """(round 27b) ``torchrun --master_port N ...`` with the text's own command line in place of ``...`` (the last
    one; none that held a secret): torchrun's with its port replaced, srun's or python's with MASTER_PORT set for it
    (init_process_group's env:// reads it; srun passes the environment on); else the script the traceback runs, its
    arguments to add. Runnable as printed."""
    m = _PRINTED_TORCHRUN_RE.match(c)
    if not m:
        return c
    port, note = m.group(1), m.group(2)
    lines = [ln.strip() for ln in _DDP_LINE_RE.findall(text) if REDACTED not in ln]
    if lines:
        line = re.sub(r"\s--master[_-]port[= ]\S+", "", lines[-1])
        head = re.match(r"torchrun|python3? -m torch\.distributed\.(?:run|launch)", line)
        if head:
            return f"{head.group(0)} --master_port {port}{line[head.end():]}{note}"
        return (f"MASTER_PORT={port} {line}   # init_process_group's env:// reads MASTER_PORT"
                + (" (srun passes the environment on)" if line.startswith("srun") else "")
                + f"; with torchrun: torchrun --master_port {port}; one port per job on a machine")
    script = _script_named(text)
    if not script or not script.endswith(".py"):
        return c
    script = f'"{script}"' if " " in script else script
    if re.search(r"(?m)^srun: ", text):  # the job ran under srun
        return (f"MASTER_PORT={port} srun python {script}   # with the job's own srun options and the script's "
                "arguments; init_process_group's env:// reads MASTER_PORT (srun passes the environment on); one port per "
                "job on a machine")
    return f"torchrun --master_port {port} {script}   # with the script's own arguments{note.replace('   #', ';', 1)}"


#: a pip command and its arguments (before a comment)
_PIP_ARGS_RE = re.compile(r"^((?:python -m )?pip3? (?:show|install|uninstall|download)\b)([^#'\"]*?)(\s*#.*)?$")


def _pip_names(c: str) -> str:
    """Every argument of a printed ``pip show/install`` is a name: a display label pasted as the argument ("cumm /
    spconv (tensorview)", a bash syntax error) becomes the names it lists ("cumm spconv"), its prose dropped."""
    m = _PIP_ARGS_RE.match(c)
    if not m or not re.search(r"\s/\s|[()]", m.group(2)):
        return c
    args = re.sub(r"\([^()]*\)|[()]", " ", m.group(2))
    args = " ".join(a for a in args.split() if a != "/" and a not in ("and", "or"))
    return f"{m.group(1)} {args}{m.group(3) or ''}" if args else c


#: (round 28b) a pip install that force-reinstalls, and what it installs (its non-option words before any comment)
_FORCE_RE = re.compile(r"^(?P<head>.*?\bpip3? install\b)(?P<args>[^#]*?--force-reinstall\b[^#]*?)(?P<tail>\s*(?:#.*)?)$")
_OPTION_VALUE_RE = re.compile(r"\s(?:-f|--find-links|--index-url|--extra-index-url|-i|-c|-r|--config-settings|-C)[ =]\S+")


def _no_deps(c: str) -> str:
    """(round 28b, blind audit 28) ``--force-reinstall`` makes pip reinstall every dependency too, from the index:
    torch (and numpy) replaced under gsplat, mmcv, pytorch3d, torch-scatter. A printed force-reinstall of anything but
    torch itself gets ``--no-deps`` (torch's own keeps its dependencies: its CUDA libraries and triton come with it)."""
    m = _FORCE_RE.match(c)
    if not m or "--no-deps" in c:
        return c
    names = [re.split(r"[=<>!~\[ ]", a.strip("'\""), maxsplit=1)[0].lower()
             for a in _OPTION_VALUE_RE.sub(" ", m.group("args")).split() if not a.startswith("-")]
    if "torch" in names or "pytorch" in names:
        return c
    return m.group("head") + m.group("args").replace("--force-reinstall", "--force-reinstall --no-deps", 1) + m.group("tail")


def _once(cmds: list[str]) -> tuple[str, ...]:
    """No command printed twice in one finding: the same command (its comment aside) is kept once, at its first
    place, with the comment that one of them gives."""
    out: list[str] = []
    at: dict[str, int] = {}
    for c in cmds:
        key = re.split(r"\s+#", c, maxsplit=1)[0].strip()
        if not key:  # a comment line: itself only
            key = c
        if key in at:
            i = at[key]
            if len(c) > len(out[i]) and out[i].strip() == key:
                out[i] = c
            continue
        at[key] = len(out)
        out.append(c)
    return tuple(out)


_NVDIFFRAST_RE = re.compile(r"nvdiffrast|Rasteri[sz]e(?:GL|Cuda)Context|\bdr\.", re.IGNORECASE)
_TRIED_CUDA_CONTEXT_RE = re.compile(r"\b(?:chang(?:e|ed|ing)|switch(?:ed|ing)?|tried|trying|use[ds]?|using|replac(?:e|ed|ing))\b[^\n]{0,80}"
                                    r"RasterizeCudaContext",
                                    re.IGNORECASE)
#: a job script's or a command line's GPU request
_SLURM_GPU_RE = re.compile(r"--gres\b|--gpus|--gpus-per|\bgres[:=]|--gpu\b|\bgpu:\d|-G ?\d", re.IGNORECASE)


#: torch's own code in a text: a frame or module path inside the torch package (not its headers) or its C++ namespaces
_TORCH_OWN_RE = re.compile(r"[\\/]torch[\\/](?!include\b|lib[\\/]include\b)[\w.]|\b(?:c10|at|torch)::|"
                           r"\btorch\.(?:nn|cuda|utils|autograd|_C|distributed|optim|jit|fx|_dynamo|_inductor|library|"
                           r"serialization|onnx)\b")
#: the package pip builds in the text's log, by its unpacked source folder (``pip-install-*/<pkg>_<hash>/``): pip's
#: own build lines ("Building wheel for x", "Failed building wheel for x", "Running setup.py install for x") are read
#: with the text reader's own pattern (_textfacts._BUILT_RE, whose names make fact toolkit.building). The fact itself
#: cannot be read here: it also holds the arguments of every `pip install` line, prose after one included
#: ("`pip install ./gridencoder`, it can not work" gives 'it', 'can', ...), which is not what pip built
_PIP_FOLDER_RE = re.compile(r"[\\/]pip-(?:install|req-build)-\w+[\\/]([A-Za-z][\w.-]*?)_[0-9a-f]{32}[\\/]")


@_per_explain
def _built_package(text: str) -> str:
    """The one package the text's pip log builds, ``""`` when none or several."""
    # (round 28p) each expression only where the text holds a literal every match of it holds (one search first)
    names = [m.group(1) for m in _PIP_FOLDER_RE.finditer(text)] if "pip-" in text else []
    if "uild" in text or "unning setup.py" in text:
        names += [n for n in _textfacts._BUILT_RE.findall(text) if n.lower() not in _textfacts.NOT_BUILT_WORDS]
    return _one([n.lower().rstrip(".").replace("_", "-") for n in names])


#: a target of the text's own pip command that a printed command may repeat unquoted: a name with an exact pin, a folder
_PLAIN_TARGET_RE = re.compile(r"git\+https?://[\w./@:%-]+|[A-Za-z0-9][\w.-]*(?:==[\w.+!-]+)?|\.{1,2}(?:/[\w.-]+)*/?|\./[\w./-]+")


def _isolated_target(c: str, built: str, text: str) -> str:
    """What a printed ``pip install --no-build-isolation torch`` should build: the package pip built in the text
    (with the version the text's own pip command pins for it), else the one target of the text's own ``pip install``;
    ``""`` when the text names none but torch (torch itself is a wheel: building it without isolation is no fix)."""
    if not re.search(r"--no-build-isolation\b[^#]*?\storch(?=\s|$)", c):
        return ""
    own = _installed_by_the_text(text)
    own = own if _PLAIN_TARGET_RE.fullmatch(own) else ""
    name = re.split(r"==", own, maxsplit=1)[0].lower().replace("_", "-")
    if built and built != "torch":
        return own if name == built else built
    return own if own and name not in ("torch", "pytorch") else ""


#: an environment a text names: conda's prompt "(myenv) $", "conda activate myenv", a conda env's folder
#: ".../envs/myenv/", a venv's interpreter or activate script ".../myenv/bin/python", "python -m venv myenv", and a
#: kernelspec's own folder ".../jupyter/kernels/myenv" (the kernel ``--name`` replaces)
_ENV_NAME = r"([A-Za-z_][\w.-]{0,63})"
_ENV_NAMED_RE = re.compile(
    r"(?:^|[\s:>])\(" + _ENV_NAME + r"\)\s*(?:\$|#|>|PS\b|[A-Za-z]:\\|[\w.-]+@[\w.-]+|~)|"
    r"\b(?:conda|mamba|micromamba|workon|pyenv) activate\s+(?:-n\s+)?" + _ENV_NAME + r"(?=\s|$|[;&|'\"`])|"
    r"[\\/]envs[\\/]" + _ENV_NAME + r"[\\/]|"
    r"[\\/]" + _ENV_NAME + r"[\\/](?:bin|Scripts)[\\/](?:python[\d.]*|activate|pip3?)(?:\.exe)?\b|"
    r"\b(?:python3? -m venv|virtualenv)\s+" + _ENV_NAME + r"(?=\s|$)|"
    r"[\\/]jupyter[\\/]kernels[\\/]" + _ENV_NAME + r"(?=[\\/\s]|$)", re.MULTILINE)
#: folders above bin/ that are no environment of the user's (the system's, a conda installation's base folder)
_NOT_AN_ENV = {"usr", "local", "opt", "root", "home", "conda", "anaconda", "anaconda3", "miniconda", "miniconda3",
               "miniforge", "miniforge3", "mambaforge", "micromamba", "condabin", "python3", "python", "ipykernel",
               "system", "sbin", "snap", "lib", "tmp", "homebrew", "linuxbrew", "sw", "tools", "software", "apps"}


@_per_explain
def _env_named(text: str) -> str:
    """The one environment the text names (:data:`_ENV_NAMED_RE`), conda's ``base`` only where it names no other;
    ``""`` when none or several."""
    found = [next(g for g in m.groups() if g) for m in _ENV_NAMED_RE.finditer(text[:200000])]
    found = [n for n in found if n.lower() not in _NOT_AN_ENV and not n.startswith(".") and not n[0].isdigit()
             and not re.fullmatch(r"python[\d.]*", n, re.IGNORECASE)]
    return _one([n for n in found if n != "base"]) or _one(found)


def _kernel_named(c: str, text: str) -> str:
    """``ipykernel install --name <env>`` with the one environment the text names."""
    if "--name <env>" not in c:
        return c
    env = _env_named(text)
    return c.replace("--name <env>", f"--name {env}") if env else c


#: the text's torch build with its CUDA ("2.1.1+cu121") and the kaolin release it has ("kaolin 0.14.0" in pip list,
#: "kaolin==0.14.0", "kaolin-0.14.0-cp310-...whl", "kaolin.__version__" printed as "kaolin version 0.14.0")
_TORCH_BUILD_RE = re.compile(r"(?<![\w.])(\d\.\d{1,2}\.\d{1,2})\+cu(\d{3})\b")
_KAOLIN_RELEASE_RE = re.compile(r"\bkaolin(?:==|-|\s+(?:version\s+|v)?)(\d\.\d{1,2}\.\d{1,2})\b", re.IGNORECASE)


def _kaolin_filled(c: str, text: str) -> str:
    """kaolin's wheel-page command with the text's torch build and kaolin release: the release the text has where
    the table lists its wheel for that torch, else the newest release that has one (the command says so), else a
    comment instead of a command that would find no wheel."""
    m = re.match(r"(%?pip install kaolin==)(\S+)( -f \S*torch-)(\S+?)_cu(\S+?)\.html(?:\s+#\s*(.*))?$", c)
    if not m and "torch-<torch version>_cu<cuda>.html" in c:
        # (round 29, blind audit 29) kaolin's page for a release range or no release (pip_names' form): the page of
        # the torch build the text shows
        build = _one([f"{a}_{b}" for a, b in _TORCH_BUILD_RE.findall(text)])
        if build:
            tv, cu = build.split("_")
            return c.replace("https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-<torch version>_cu<cuda>.html",
                             tables.kaolin_wheel_page(tv, cu))
    if not m or "<" not in c:
        return c
    ver, tv, cu, said = m.group(2), m.group(4), m.group(5), m.group(6) or ""
    has = _one(_KAOLIN_RELEASE_RE.findall(text)) if "<" in ver else ver
    if "<" in tv or "<" in cu:
        build = _one([f"{a}_{b}" for a, b in _TORCH_BUILD_RE.findall(text)])
        if not build:  # the release alone: the page stays to fill
            return c.replace("kaolin==<version>", f"kaolin=={has}") if has else c
        tv, cu = build.split("_")
    with_wheel = [r.version for r in tables.kaolin_releases() if r.has_wheel(tv, cu)]
    page = tables.kaolin_wheel_page(tv, cu)
    if has and has in with_wheel:
        return f"{m.group(1)}{has} -f {page}" + (f"   # {said}" if said else "")
    if with_wheel:
        why = f"kaolin {has} has no wheel for torch {tv}+cu{cu}; " if has else ""
        return (f"{m.group(1)}{with_wheel[0]} -f {page}   # " + (f"{said}; " if said else "") +
                f"{why}kaolin {with_wheel[0]} is the newest release with a wheel for it")
    near = "; ".join(f"kaolin {r.version}: {', '.join(r.wheels[-2:])}" for r in tables.kaolin_releases()[:2])
    return (f"{m.group(1)}<version> -f {page}   # " + (f"{said}; " if said else "") +
            f"no kaolin release in smrnb's table has a wheel for torch {tv}+cu{cu}" +
            (f" ({has} has none)" if has else "") + f": the page lists a newer one if any; else install a torch "
            f"one has a wheel for ({near}), or build kaolin from source against this torch")


#: (round 36g, audit 36 F2) the xformers release whose wheels are built for each torch release (facebookresearch/xformers
#: CHANGELOG.md, read this round: "Pre-built binary wheels require PyTorch X" under each release; 0.0.28.post1 re-uploaded
#: 0.0.28's wheels, for torch 2.4.1, with those of CUDA 12.4; 0.0.27.post2 for 2.4.0): xformers pins that exact torch,
#: so an unpinned `pip install -U xformers` replaces the installed torch with the one the newest xformers needs
XFORMERS_FOR_TORCH = {
    "2.9.0": "0.0.33", "2.8.0": "0.0.32", "2.7.1": "0.0.31", "2.7.0": "0.0.30", "2.6.0": "0.0.29.post2",
    "2.5.1": "0.0.28.post3", "2.5.0": "0.0.28.post2", "2.4.1": "0.0.28.post1", "2.4.0": "0.0.27.post2",
    "2.3.1": "0.0.27", "2.3.0": "0.0.26", "2.2.2": "0.0.25.post1", "2.2.1": "0.0.25", "2.2.0": "0.0.24",
    "2.1.2": "0.0.23.post1", "2.1.1": "0.0.23"}


#: (round 37a) torch's release pinned as the installed torch's metadata says (pip show torch's Version, without its
#: +local part; read without importing torch, which may be what fails): an unpinned ``pip install torch`` takes the
#: newest torch, and every compiled extension breaks
TORCH_RELEASE_KEPT = "torch==$(pip show torch | sed -n 's/^Version: \\([^+]*\\).*/\\1/p')"
#: a reinstall of torch itself with no release (``--force-reinstall ... torch``), not one meant to change it
_TORCH_REINSTALL_RE = re.compile(r"^((?:%|python3? -m )?pip3? install\b(?=[^#]*--force-reinstall)[^#]*?\s)torch(?=\s|$)")
#: a note or index that means another torch on purpose (a newer release, another vendor's build)
_TORCH_CHANGED_RE = re.compile(r"newest|oldest|torch \d+\.\d+'s|torch \d\.\d+\+|last torch|pick a variant|/whl/(?:xpu|rocm)"
                               r"|/whl/\"?<a CUDA")


def _torch_pinned(c: str, facts: Mapping[str, Any] | None, os_: str) -> str:
    """(round 37a, audit 36 B's leftover) a reinstall of the same torch pinned to its release: the text's (or this
    machine's), else as its metadata says (:data:`TORCH_RELEASE_KEPT`; on Windows ``torch==<x.y.z>``, said in words)."""
    m = None if re.search(r"\btorch==", c) else _TORCH_REINSTALL_RE.match(c)
    if m and not _TORCH_CHANGED_RE.search(c):
        tv = _torch_release(facts)
        pin = f"torch=={tv}" if re.fullmatch(r"\d+\.\d+(?:\.\d+)?", tv) else TORCH_RELEASE_KEPT
        c = m.group(1) + pin + c[m.end():]
    if os_ == "windows" and TORCH_RELEASE_KEPT in c:
        c = c.replace(TORCH_RELEASE_KEPT, "torch==<x.y.z>")
    return c


#: (round 37a) a pip install of xformers with no release: its wheels are built for one torch each (above)
_XFORMERS_UNPINNED_RE = re.compile(r"^((?:[A-Z_]+=\S+ )*pip3? install\b[^#]*?\s)xformers(?=\s|$)")


def _xformers_release(c: str, facts: Mapping[str, Any] | None) -> str:
    """(round 37a, audit 36 B's leftover) an unpinned xformers reinstall (the rebuild reading's) pinned to the
    release built for the text's torch (:data:`XFORMERS_FOR_TORCH`); where that is not known, the note says how to
    read it (``python -m xformers.info`` names the torch it was built for, ``pip show torch`` the installed one)."""
    m = _XFORMERS_UNPINNED_RE.match(c)
    if not m:
        return c
    tv = _torch_release(facts)
    rel = XFORMERS_FOR_TORCH.get(tv)
    body, sep, note = c.partition("   #")
    if rel:
        return (f"{m.group(1)}xformers=={rel}{body[m.end():]}   #{note + ';' if sep else ''} xformers {rel}: the release "
                f"built for torch {tv} (torch stays)")
    return (f"{body}   #{note + ';' if sep else ''} xformers' release built for the installed torch (pip show torch): "
            "an xformers for another torch fails the same way")


_KAOLIN_PAGE = "https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-<torch version>_cu<cuda>.html"
#: (round 37a) the page's torch and CUDA as the installed torch prints them (POSIX shells' command substitution)
_KAOLIN_PAGE_COMPUTED = ("https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-$(python -c 'import torch; "
                         "print(torch.__version__.split(\"+\")[0])')_cu$(python -c 'import torch; "
                         "print(torch.version.cuda.replace(\".\", \"\"))').html")


def _kaolin_page_computed(c: str, facts: Mapping[str, Any] | None, os_: str) -> str:
    """(round 37a, blind audit 36 M7) kaolin's wheel page that the text leaves open: the page of the torch this
    machine's facts show (a CPU torch has none: kaolin then builds from its repository against it), else the page as
    the installed torch prints it (``$(python -c ...)``, on a POSIX shell), never ``<torch version>`` for bash to read
    as a redirection."""
    if _KAOLIN_PAGE not in c:
        return c
    ver = str(_value(facts, "version") or "")
    base = ver.split("+")[0] if re.fullmatch(r"\d+\.\d+\.\d+(?:\+\w+)?", ver) else ""
    cuda = _torch_cuda(facts)
    if base and cuda:
        return c.replace(_KAOLIN_PAGE, tables.kaolin_wheel_page(base, cuda))
    if base and (_value(facts, "cpu_build") or ver.endswith("+cpu")):
        body, _, note = c.partition("   #")
        body = body.replace(f"kaolin -f {_KAOLIN_PAGE}", tables.kaolin_repository().join(("'git+", ".git'")))
        return (f"{body}   # kaolin's wheel pages are for CUDA builds of torch; this torch is {ver} (a CPU build): "
                "kaolin builds from its repository against it")
    return c if os_ == "windows" else c.replace(_KAOLIN_PAGE, _KAOLIN_PAGE_COMPUTED)


#: (round 29a) a git-hosted extension whose tags are ``v<release>`` (kaolin's v0.17.0, pytorch3d's v0.7.8,
#: nvdiffrast's v0.3.3: their GitHub releases), by the repository's name
_V_TAGGED = {"kaolin": "NVIDIAGameWorks/kaolin", "pytorch3d": "facebookresearch/pytorch3d", "nvdiffrast": "NVlabs/nvdiffrast"}
_GIT_INSTALL_RE = re.compile(r"^(?P<env>(?:[A-Z_][A-Z0-9_]*=(?:\"[^\"]*\"|\S+) )*)(?P<pip>pip3? install\b[^#]*?)"
                             r"\s(?P<url>git\+https://github\.com/(?P<repo>[\w.-]+/(?P<name>[\w.-]+?))(?:\.git)?)"
                             r"(?P<rest>(?:\s[^#]*?)?)(?P<tail>\s*(?:#.*)?)$")
#: a source build of the current folder the text shows: setup.py's commands, pip's editable or folder install
_SOURCE_BUILD_RE = re.compile(r"\bpython3?\s+setup\.py\s+(develop|install|build_ext|bdist_wheel)\b|"
                              r"\bpip3?\s+install\s+(?:-[-\w]+\s+)*(-e\s+\.|--editable\s+\.|\.)(?=\s|$)", re.MULTILINE)


def _release_of(name: str, text: str) -> str:
    """The one release of ``name`` the text gives: ``kaolin==0.17.0``, ``kaolin 0.17.0``, ``kaolin-0.17.0-cp310...whl``,
    ``kaolin.__version__`` and the value printed after it; "" when none or several."""
    n = re.escape(name)
    found = re.findall(rf"\b{n}(?:==|-|\s+(?:version\s+|v)?)(\d+\.\d{{1,2}}\.\d{{1,2}})\b", text, re.IGNORECASE)
    found += re.findall(rf"\b{n}\.__version__[^\n]{{0,40}}?\n?[^\n\d]{{0,12}}(\d+\.\d{{1,2}}\.\d{{1,2}})\b", text)
    return _one(found)


def _git_release(c: str, text: str) -> str:
    """(round 29a, blind audit 28 H10) A rebuild of a git-hosted extension installs the user's release, not the git
    HEAD: in the source tree the text built from (``python setup.py develop``), or at the release the text gives
    (``@v0.17.0``); else the command as the rule wrote it."""
    m = _GIT_INSTALL_RE.match(c)
    if not m or m.group("name").lower() not in _V_TAGGED or "@" in m.group("url"):
        return c
    name = m.group("name").lower()
    if not re.search(rf"\b{name}\b", text, re.IGNORECASE):
        return c
    built = _SOURCE_BUILD_RE.search(text)
    ours = re.search(rf"\b{name}\b[^\n]{{0,60}}\b(?:from source|source tree|from its source|setup\.py)|"
                     rf"git clone[^\n]*{name}|[\\/]{name}(?:-src)?(?:[\\/](?:setup\.py)?)?(?=\s|$)|\bcd\s+\S*{name}\b",
                     text, re.IGNORECASE)
    if built and ours:
        editable = bool(built.group(1) == "develop" or (built.group(2) or "").startswith(("-e", "--editable")))
        where = re.search(rf"(?:\bcd\s+|\s)((?:~|/)[\w./-]*/{name}(?:-src)?)(?:/setup\.py)?\b", text, re.IGNORECASE)
        head = f"cd {where.group(1)} && " if where else ""
        pip = re.sub(r"\s--force-reinstall\b|\s--no-deps\b", "", m.group("pip"))
        note = "" if where else f"   # in {name}'s source tree, the one the text built from"
        rest = m.group("rest").strip()
        return f"{head}rm -rf build && {m.group('env')}{pip.strip()} {rest + ' ' if rest else ''}" \
               f"{'-e .' if editable else '.'}{note}"
    rel = _release_of(name, text)
    if rel:
        said = m.group("tail").strip().lstrip("#").strip()
        return f"{m.group('env')}{m.group('pip')} {m.group('url')}@v{rel}{m.group('rest').rstrip()}   # the " \
               f"text's release, {rel}" + (f"; {said}" if said else "")
    return c


_ANY_VARIANT = "<a CUDA variant built for the GPU>"


def _variant_filled(c: str, title: str, cc: str = "", facts: Mapping[str, Any] | None = None, text: str = "") -> str:
    """PyTorch's index for a GPU whose arch the finding names (``(sm_90)``) where no torch release is pinned: the
    newest torch release's oldest CUDA variant whose wheels carry kernels for it (table torch_wheel_archs: PyTorch's
    support matrix; where it has no row, the variants whose nvcc compiles for it, table nvcc_archs), the oldest
    running on the most drivers, the others named beside it; else a comment saying which CUDA to pick. (nvcc 12.8
    still compiles for Volta, but torch 2.11's cu128 wheels carry no Volta kernels.)"""
    if _ANY_VARIANT not in c:
        return c
    arch = _one(re.findall(r"\bsm_(\d{2,3})\b", title)) or cc.replace(".", "")  # (27b) or the Slurm request's GPU
    if not arch:
        return c
    n = int(arch)
    if facts is not None and re.match(r"^pip3? install --force-reinstall torch --index-url ", c):
        # (round 37g, blind audit 37 F1) pinned to the text's torch, Python, driver and companions
        from smrnb.doctor.rules._torchpin import pinned_torch_command

        pinned = pinned_torch_command(n, facts, _text_python(text), "(NVRTC)" in title)
        if pinned:
            return pinned
    newest = max(tables.rows("torch_cuda"), key=lambda r: tables.version_key(r["torch"]))
    runs = {v: tables.torch_wheel_runs(newest["torch"], v, n) for v in newest["variants"].split()}
    ok = [v for v, r in runs.items() if r or (r is None and n in (tables.nvcc_archs(f"{v[2:-1]}.{v[-1]}") or ()))]
    if ok:
        others = f" (or {', '.join(ok[1:])} where nvidia-smi's 'CUDA Version' is that new)" if ok[1:] else ""
        how = "whose wheels carry kernels" if runs[ok[0]] else "that compiles"
        return (c.replace(_ANY_VARIANT, ok[0]) + f"   # torch {newest['torch']}'s oldest CUDA variant {how} "
                f"for sm_{arch}{others}")
    last = tables.torch_last_for_arch(n)
    if last and re.match(r"^pip3? install --force-reinstall torch --index-url https://download\.pytorch\.org/whl/"
                         + re.escape(_ANY_VARIANT) + "$", c):
        # (round 29a, blind audit 28 F9) a GPU no current wheel carries: the last release whose wheels did
        return (f"pip install torch=={last[0]} --index-url https://download.pytorch.org/whl/{last[1]}   # the last torch "
                f"release whose {last[1]} wheels carry kernels for sm_{arch} (newer releases dropped it)")
    have = tables.cuda_releases_for_arch(n)
    if not have:
        return c + f"   # no CUDA release in smrnb's table compiles for sm_{arch}: pick the variant its vendor names"
    newest = max((r["cuda"] for r in tables.rows("nvcc_archs")), key=tables.version_key)
    upto = " or newer" if have[-1] == newest else f" to {have[-1]}.x"
    return c + (f"   # pick a variant of CUDA {have[0]}{upto} (the CUDA releases that compile for sm_{arch}), of a torch "
                f"release that publishes one")


#: the text's own ``pip install`` command, and its targets (a name, a folder, a URL)
_TEXT_PIP_INSTALL_RE = re.compile(r"(?:^|[\s>$`\"'])pip3? install ([^\n#`]{1,300})", re.MULTILINE)
#: pip's options that take a value, as the text reader knows them, less the editable one: ``-e .``'s folder is the target
_PIP_OPTION_WITH_VALUE = _textfacts._PIP_VALUE_OPTIONS - {"-e", "--editable"}


@_per_explain
def _installed_by_the_text(text: str) -> str:
    """The one target of the text's own ``pip install`` commands (``-e .``, ``./gridencoder``,
    ``git+https://.../pytorch3d.git``, a name), ``""`` when none or several."""
    found: list[str] = []
    for m in _TEXT_PIP_INSTALL_RE.finditer(text):
        for tok in _textfacts.pip_arguments(m.group(1), 16, _PIP_OPTION_WITH_VALUE,
                                            lambda t: t.strip("\"'").rstrip(",;")):
            if tok in ("&&", "|", ";", "2>&1") or REDACTED in tok or not re.fullmatch(r"[\w.+:/@=<>~!\[\],-]{1,200}",
                                                                                   tok):
                break
            if not re.search(r"[/:@\\]", tok) and (tok.lower() in _PROSE_AFTER_PIP or not _PIP_TARGET_RE.fullmatch(tok)):
                break  # (round 31a) prose ("pip install successfully.", "pip install from PyPI"): no package's name
            found.append(tok)
            break  # the first target of each command: the words after it may be prose
    return _one(found)


#: (round 31a, issue 25; round 32f: shared with the text reader, :mod:`smrnb.doctor._textfacts`) a name pip reads as a
#: requirement, and the words that follow "pip install" in a sentence, not in a command
_PIP_TARGET_RE = _textfacts.PIP_TARGET_RE
_PROSE_AFTER_PIP = _textfacts.PROSE_AFTER_PIP


#: torch.serialization's refusal to restore CUDA tensors, which names its own fix (torch/serialization.py)
_MAP_LOCATION_RE = re.compile(r"Attempting to deserialize object on (?:a )?CUDA device[^\n]*|"
                              r"please use torch\.load with map_location", re.IGNORECASE)
_NO_CUDA_CODES = {"no_gpu", "cpu_only_torch_with_gpu", "gpu_not_exposed_to_process", "torch_cuda_unavailable"}


#: the host gcc's release as a text shows it: CMake's "No known features for CXX compiler "GNU" version 9.3.0" and
#: "The CXX compiler identification is GNU 9.3.0", gcc's "gcc version 9.3.0" and "gcc (Ubuntu 9.3.0-17ubuntu1) 9.3.0"
_GCC_RELEASE_RE = re.compile(r"\"GNU\"\s+version\s+(\d{1,2})\.\d|compiler identification is GNU (\d{1,2})\.\d|"
                             r"\bgcc version (\d{1,2})\.\d|\b(?:gcc|g\+\+)(?:-\d+)? \([^()\n]{1,80}\) (\d{1,2})\.\d")
#: host_config.h's own refusal names nvcc's newest gcc
_GCC_LIMIT_RE = re.compile(r"gcc versions later than (\d{1,2}) are not supported")
_CMAKE_NO_FEATURES_RE = re.compile(r"[Nn]o known features for (?:C|CXX|CUDA) compiler")


@_per_explain
def _gcc_release(text: str) -> str:
    """The one gcc major the text shows (``""`` when none, or several)."""
    return _one([next(g for g in m.groups() if g) for m in _GCC_RELEASE_RE.finditer(text)])


def _host_compiler(f: Finding, text: str, cmds: list[str], title: str, why: str) -> tuple[list[str], str, str]:
    """host_compiler_unsupported against what the text shows: nvcc's newest gcc from host_config.h's own words, else
    from the CUDA release the text names (tables/nvcc_gcc.csv, per release's crt/host_config.h), compared with the
    text's gcc: a gcc nvcc accepts is not called too new (a CMake that knows no features of the compiler is CMake's
    own limit or a stale cache), and ``gcc-<n>`` is the newest gcc nvcc accepts."""
    from smrnb.doctor import tables

    limit = _GCC_LIMIT_RE.search(text)
    cuda = _cuda_release(text)
    most = int(limit.group(1)) if limit else (tables.max_gcc_for_nvcc(cuda) if cuda else None)
    have = _gcc_release(text)
    if not most:
        return cmds, title, why
    nvcc = f"nvcc {cuda}" if cuda else "nvcc"
    if have and int(have) <= most and not limit:
        cmake = bool(_CMAKE_NO_FEATURES_RE.search(text))
        title = (f"The build refused gcc {have}, which {nvcc} accepts (gcc {most} at most): not a gcc too new for nvcc"
                 + ("; CMake knows no features of that compiler" if cmake else ""))
        why = (f"The text's gcc {have} is within what {nvcc} accepts (its crt/host_config.h refuses only gcc newer than "
               f"{most}), so an older gcc will not help. "
               + ("CMake says it knows no language features for the compiler: a CMake older than the compiler, or a "
                  "build folder configured before with another compiler (its CMakeCache.txt); update CMake or "
                  "configure a fresh build folder." if cmake else
                  "The build's first error line names what it refuses."))
        cmds = (["cmake --version; gcc --version   # a CMake older than the compiler knows none of its features",
                 "cd <the CMake project's folder> && rm -rf build && cmake . -B build   # configure afresh: the old "
                 "cache may hold another compiler"]
                if cmake else ["gcc --version; nvcc --version"])
        return cmds, title, why
    cmds = [re.sub(r"<n>", str(most), c) + ("" if "<n>" not in c or "#" in c else
                                           f"   # the newest gcc {nvcc} accepts")
            for c in cmds]
    if have and int(have) > most and "newer than nvcc accepts" in title and f"gcc {have}" not in title:
        title = f"gcc {have} is newer than {nvcc} accepts (gcc {most} at most)"
    return cmds, title, why


#: a text that asks for torch's CPU build itself: a requirement pinning '+cpu' or torch's CPU index
_CPU_TORCH_ASKED_RE = re.compile(r"\btorch\s*==\s*[\d.]+\+cpu\b|download\.pytorch\.org/whl/cpu\b")
#: PyTorch's CUDA index in a command: a variant (whl/cu121) or round 30b's placeholder (whl/<cuXYZ>)
_TORCH_CUDA_WHL_RE = re.compile(r"download\.pytorch\.org/whl/<?cu")
#: the pages a pip command or a requirements file names for --find-links
_FIND_LINKS_RE = re.compile(r"(?:^|\s)(?:-f|--find-links)[ =]+(https?://\S+)", re.MULTILINE)


def _companion_build(cmds: list[str], title: str, why: str, text: str) -> tuple[list[str], str, str]:
    """cpu_only_torch_with_gpu where the text asks for torch's CPU build itself and what fails is another package's
    build (a companion such as torch-scatter): no CUDA torch reinstall the text does not ask for, but the failing
    build's fix, its prebuilt wheel from the page the text names where it names one."""
    built = _built_package(text)
    if not built or built == "torch" or not _CPU_TORCH_ASKED_RE.search(text) or not any(
            _TORCH_CUDA_WHL_RE.search(c) for c in cmds):
        return cmds, title, why
    keep = [c for c in cmds if not _TORCH_CUDA_WHL_RE.search(c) and "--force-reinstall torch" not in c]
    page = _one_page(text)
    new = [_page_wheel(built, page)] if page else []
    new.append(f"pip install --no-build-isolation {built}   # or build it against the torch installed first (its "
               "setup.py imports torch)")
    title = title + ": the CPU build the text's requirements ask for"
    why = (f"The text asks for torch's CPU build itself, so a CUDA torch is not its fix: what fails is the build of "
           f"{built}. Install its prebuilt wheel for this torch, or build it with the installed torch visible "
           "(--no-build-isolation). Only where this machine should use a GPU: " + why[:1].lower() + why[1:])
    return keep + new, title, why


def _one_page(text: str) -> str:
    """The one --find-links page the text names other than PyTorch's own (``-f
    https://data.pyg.org/whl/torch-2.0.0+cpu.html``); "" where it names none or several."""
    pages = [u for u in _FIND_LINKS_RE.findall(text) if "download.pytorch.org" not in u]
    return pages[0] if len(pages) == 1 else ""


def _page_wheel(built: str, page: str) -> str:
    return f"pip install {built} -f {page}   # its prebuilt wheel for this torch, from the page the text names"


def _companion_wheel(cmds: list[str], text: str) -> list[str]:
    """(round 30b) A companion's build that found no torch where the text's requirements name the companion's wheel
    page (:func:`_one_page`): its prebuilt wheel from that page first (no build); round 22's fix under the CPU-build
    reading, which a text with no GPU shown no longer gets."""
    built, page = _built_package(text), _one_page(text)
    if not built or built == "torch" or not page or any(f" -f {page}" in c for c in cmds):
        return cmds
    return [_page_wheel(built, page), *cmds]


#: (round 27e) Python's suggestion on a missing attribute
_TYPO_SUGGESTED_RE = re.compile(r"has no attribute '([A-Za-z_]\w{0,80})'\.? Did you mean: '([A-Za-z_]\w{0,80})'\?")
#: (round 27e) a text that shows CUDA or a GPU at all
_CUDA_SHOWN_RE = re.compile(r"cuda|\bgpu|device-side|nvidia|cudnn|cublas|nccl", re.IGNORECASE)
#: (round 29) an error the CUDA runtime (or a library on it) reports, possibly at a later call than the one that
#: caused it: where CUDA_LAUNCH_BLOCKING=1 helps (torch's own hint "CUDA kernel errors might be asynchronously
#: reported at some other API call"; cudaError_t / CUresult names; cuBLAS / cuDNN / NCCL statuses)
#: a Python traceback (a script's frames, a notebook cell's)
_TRACEBACK_SHOWN_RE = re.compile(r'File "|Traceback \(most recent call last\)|^Cell In\[|<ipython-input-', re.MULTILINE)
_NOTEBOOK_CELL_RE = re.compile(r"^Cell In\[|<ipython-input-|^In \[\d+\]:", re.MULTILINE)
_ASYNC_CUDA_ERROR_RE = re.compile(r"CUDA error|cudaError|CUDA_ERROR_|device-side assert|illegal memory access|"
                                  r"misaligned address|illegal instruction|launch failure|asynchronously reported|"
                                  r"CUBLAS_STATUS|CUDNN_STATUS|NCCL error|CUDA_EXCEPTION|cudaErrorLaunch",
                                  re.IGNORECASE)


#: (round 28b) Windows' py launcher with a version running a script (``py -3.12 demo.py``)
_PY_LAUNCHER_RE = re.compile(r"(?m)(?:^|>\s*|\$\s+)(py -3(?:\.\d{1,2})?)\s+[\w.\\/:-]+\.py\b")


def _by_text(f: Finding, text: str) -> Finding:
    """A fix the text tells more precisely than the code's own: the package a library's own check belongs to, an
    OpenGL reading without nvdiffrast, a Slurm refusal of a job that asks for no GPU."""
    if f.fix is None:
        return f
    cmds = list(f.fix.commands)
    title, why, evidence = f.title, f.fix.why, f.evidence
    if f.code == "opengl_egl_unavailable" and any("RasterizeCudaContext" in c for c in cmds) and (
            not _NVDIFFRAST_RE.search(text) or _TRIED_CUDA_CONTEXT_RE.search(text)):
        cmds = [c for c in cmds if "RasterizeCudaContext" not in c]  # not nvdiffrast's, or the text tried it
    if f.code == "library_bug" and not _TORCH_OWN_RE.search(text) and any(c.startswith("pip show torch") for c in cmds):
        pkg = _site_package(text)
        cmds = [f"pip show {pkg}   # the release, for its issue tracker" if pkg else
                "pip list   # the releases of the libraries the traceback's frames belong to, for their issue trackers",
                _works_filled("<the release the text says works>", text).replace("<the release the text says works>",
                                                                                  "") or
                f"pip install --upgrade {pkg}   # or the release before the one that broke" if pkg else
                "# install the releases the project pins (its requirements file): the library whose call failed "
                "may be another release or fork than the code was written for"]
    if f.code in _NO_CUDA_CODES and _MAP_LOCATION_RE.search(text) and not any("map_location" in c for c in cmds):
        # torch.serialization's own message: a checkpoint saved from a GPU, loaded where torch sees none
        why = ("torch's own message names the fix: the checkpoint was saved on a GPU and torch.load restores its "
               "tensors onto CUDA, which this process does not have; on a machine without a GPU load it onto the CPU "
               "with map_location (the rest of this fix only matters if this machine should have a GPU). " + why)
        cmds = ["python -c \"import torch; torch.load('<checkpoint file>', map_location=torch.device('cpu'))\"   # "
                "in the code: torch.load(..., map_location='cpu'), as torch's message says"] + cmds
    if f.code == "cpu_only_torch_with_gpu":
        cmds, title, why = _companion_build(cmds, title, why, text)
    if f.code == "torch_not_found_at_build":
        cmds = _companion_wheel(cmds, text)
    typo = _TYPO_SUGGESTED_RE.search(text) if f.code == "user_code_error" else None
    if typo and not any("Did you mean" in c for c in cmds):
        # (round 27e) Python's own suggestion names the fix
        cmds = [f"# Did you mean: '{typo.group(2)}'? (Python's own suggestion): the code asks for '{typo.group(1)}'; "
                "correct the name on the line the traceback ends at"] + cmds
    if f.code == "user_code_error" and ("CUDA_LAUNCH_BLOCKING" in why or any("CUDA_LAUNCH_BLOCKING" in c for c in cmds)) \
            and (not _CUDA_SHOWN_RE.search(text) and ("torch" not in text.lower() and "File \"" in text
                                                      or "UnpicklingError" in text)
                 or _TRACEBACK_SHOWN_RE.search(text) and not _ASYNC_CUDA_ERROR_RE.search(text)):
        # (round 27e, blind audit 27) no CUDA and no torch operation in the text (pandas, unpickling, an attribute of
        # the code's own object): no CUDA debugging. (Round 29, blind audit 29) nor for a traceback whose error is
        # raised at the call (a NameError, a dtype or shape check, a state_dict's sizes, two devices):
        # CUDA_LAUNCH_BLOCKING only moves an error the CUDA runtime reports later, asynchronously, to its call
        kept = [c for c in cmds if "CUDA_LAUNCH_BLOCKING" not in c and "on CPU the same code" not in c]
        if len(kept) < len(cmds):
            stop = ("%debug   # in the next cell: the debugger at the error; print the values the failing call got"
                    if _NOTEBOOK_CELL_RE.search(text) else
                    "python -m pdb -c continue <your script>   # stops at the error: print the values the failing call "
                    "got")
            cmds = kept + [stop, "# fix the call at the last frame of the code's own in the traceback (its "
                                 "arguments, keys, paths or data)"]
            # (round 38a, audit 36 B's t19) the reading's what-decides too: the same stop at the call, no CUDA rerun
            evidence = tuple(_DECIDES_RE.sub(lambda m, s=stop: m.group(1) + s + m.group(3), e)
                             if "what decides: `CUDA_LAUNCH_BLOCKING" in e else e for e in evidence)
        why = ("This is not your environment: the failing call (or its inputs) is wrong. The last frame of the "
               "code's own in the traceback is the call to check: the values, keys, paths, shapes or types it "
               "passes.")
    if f.code == "driver_broken" and "not loaded" in title and _WSL_NVML in text.lower():
        # (round 27b) NVML's own words under WSL2, where no Linux kernel module exists to be loaded
        title = ("NVIDIA driver not reachable under WSL2: NVML says 'GPU access blocked by the operating system' (the "
                 "Windows host's driver decides)")
    launcher = _PY_LAUNCHER_RE.search(text) if f.code == "torch_not_installed" else None
    if launcher and "torch" in f.title.split(" is not installed")[0] and not any(" -m pip install" in c for c in cmds):
        # (round 28b, blind audit 28) Windows' py launcher picks the interpreter: its pip is that Python's
        py = launcher.group(1)
        cmds = [f"{py} -c \"import sys; print(sys.executable)\"   # the Python that ran the script",
                f"{py} -m pip install torch --index-url https://download.pytorch.org/whl/cu126   # into that Python; "
                "a CUDA variant the driver supports (nvidia-smi's 'CUDA Version'), whl/cpu without an NVIDIA GPU"]
    if f.code == "host_compiler_unsupported" and "C++ runtime" not in title:
        cmds, title, why = _host_compiler(f, text, cmds, title, why)
    if f.code == "slurm_gpu_request_rejected" and not _SLURM_GPU_RE.search(text) and re.search(
            r"node configuration is not available", text, re.IGNORECASE):
        from smrnb.doctor.rules._context import slurm_partition

        p = slurm_partition(text) or "<partition>"
        title = "Slurm found no node that fits the job's request (the job asks for no GPU: CPUs, memory or nodes)"
        why = ("Slurm refused the job at submission because no node of the partition has what it asks for: the text's "
               "job requests no GPU, so the number of tasks or CPUs (-n/--ntasks, -c/--cpus-per-task), the memory "
               "(--mem) or the node count (-N) exceeds what one node of that partition offers; compare with sinfo and "
               "lower the request (or choose another partition).")
        cmds = [f"sinfo -p {p} -o '%P %c %m %D %G'   # CPUs, memory (MB), node count and GRES per node",
                f"scontrol show partition {p}   # its limits (MaxNodes, MaxCPUsPerNode, MaxMemPerNode)"]
    if cmds == list(f.fix.commands) and title == f.title and why == f.fix.why and evidence == f.evidence:
        return f
    return replace(f, title=title, evidence=evidence, fix=Fix(why, tuple(cmds), f.fix.docs))


#: a package named in prose or a title: "gsplat fails to build", "I installed pymeshlab via pip", "when I import x"
_PROSE_PACKAGE_RE = re.compile(
    r"(?:^|[.!?]\s)[^\S\n]*([A-Za-z][\w.-]{1,40}) (?:fails|failed|won't|will not|can't|cannot|does not|doesn't) (?:to )?"
    r"(?:build|install|compile|import)\b|"
    r"\b(?:installed|installing|built|building|compiled|compiling) ([A-Za-z][\w.-]{1,40}) (?:via|with|from|using) "
    r"(?:pip|conda|source|setup\.py)\b|"
    r"\bwhen I (?:try to |tried to )?(?:import|install|build|compile) ([A-Za-z][\w.-]{1,40})\b", re.MULTILINE)
#: words in those places that are no package
_NOT_A_PACKAGE_WORD = {"it", "this", "that", "them", "the", "a", "an", "package", "packages", "extension", "library",
                       "module", "code", "project", "wheel", "everything", "anything", "something", "nothing", "i",
                       "we", "he", "she", "they", "pip", "conda", "setup.py", "requirements", "cuda", "gcc", "cmake"}


#: (blind audit 37 F6) the arguments after the script of a command line the text ran (``$ python train.py --device
#: cuda:1``): to the line's end, a comment or a shell separator; shell words of options, paths and values only
_SCRIPT_ARGS_RE = re.compile(r"^[^\S\n]*(?:\(\S+\)\s*)?(?:[\w@.:~/-]*[$#>]\s+)?python(?:\d(?:\.\d+)?)?\s+"
                             r"(?:-[uOBsSE]\s+)*([\w~./:-]{0,200}?[\w-]+\.py)((?:[^\S\n]+[\w~./:=,@+%-]+){1,20})"
                             r"[^\S\n]*(?=[;&|#\n]|$)", re.MULTILINE)


def script_arguments(text: str, script: str) -> str:
    """(blind audit 37 F6) The arguments the text's one command line ran ``script`` with, ``""`` when it ran it
    without any, ran it with different ones twice, or the words after it read as prose (the first is not an option,
    a path, a file or a ``key=value``): a rerun that drops them may not meet the error again (``--device cuda:1``)."""
    found = {m.group(2).strip() for m in _SCRIPT_ARGS_RE.finditer(text[:200000])
             if m.group(1) == script or m.group(1).endswith(("/" + script, "\\" + script))}
    args = _one(sorted(found))
    first = args.split()[0] if args else ""
    return args if first and (first.startswith("-") or re.search(r"[./=]", first)) else ""


def _with_arguments(c: str, text: str) -> str:
    """A rerun of the text's script (``python x.py``, ``python -m pdb -c continue x.py``) with the arguments the text
    ran it with (:func:`script_arguments`)."""
    m = re.search(r"\bpython3? (?:-m pdb -c continue )?([\w~./-]+\.py)(?=\s*(?:#|$))", c)
    if not m:
        return c
    args = script_arguments(text, m.group(1).rsplit("/", 1)[-1]) or script_arguments(text, m.group(1))
    return c[:m.end()] + " " + args + c[m.end():] if args else c


def _script_filled(c: str, text: str) -> str:
    """``<your script>`` / ``<script>`` with the one script the text runs (:func:`_script_named`), and a rerun of it
    with the arguments the text ran it with (:func:`_with_arguments`)."""
    if "script>" in c and re.search(r"<(?:your )?script>", c) and (script := _script_named(text)):
        c = re.sub(r"<(?:your )?script>", lambda _m: f'"{script}"' if " " in script else script, c)
    return _with_arguments(c, text)


#: (round 27b) a notebook cell's frame: IPython's "Cell In[3], line 2" (8.x), "<ipython-input-3-...>" (7.x), a prompt
#: "In [3]:" and ipykernel's cell file "/tmp/ipykernel_123/456.py"
_NOTEBOOK_CELL_RE = re.compile(r"\bCell In ?\[\d{1,5}\]|<ipython-input-\d{1,5}-|^[^\S\n]{0,8}In \[\d{1,5}\]:|"
                               r"[\\/]ipykernel_\d+[\\/]\d+\.py", re.MULTILINE)
#: a rerun of the script with variables set for it (``CUDA_LAUNCH_BLOCKING=1 python <your script>``)
_ENV_RERUN_RE = re.compile(r"^((?:[A-Z_][A-Z0-9_]*=[\w.:;+-]+ )+)python3? <(?:your )?script>(?:\s+#\s*(.*))?$")


def _notebook_env(c: str, text: str) -> str:
    """(round 27b) ``CUDA_LAUNCH_BLOCKING=1 python <your script>`` where the error is a notebook cell's and the text
    runs no script: the kernel is the process to run with the variable, set before torch initialises CUDA (a
    variable set after that is not read): in the first cell, before ``import torch``, then the kernel restarted."""
    m = _ENV_RERUN_RE.match(c)
    if not m or not _NOTEBOOK_CELL_RE.search(text):
        return c
    sets = "; ".join(f'os.environ["{k}"] = "{v}"' for k, v in re.findall(r"([A-Z_][A-Z0-9_]*)=(\S+)", m.group(1)))
    why = f" ({m.group(2)})" if m.group(2) else ""
    return (f"# a notebook: restart the kernel, then in its first cell, before import torch: import os; {sets}; and run "
            f"the cells again{why}")


@_per_explain
def _prose_package(text: str) -> str:
    """The one package the text's prose or title says fails to build, install or import, ``""`` when none or
    several."""
    found = [next(g for g in m.groups() if g).rstrip(".") for m in _PROSE_PACKAGE_RE.finditer(text[:20000])]
    return _one([n for n in found if n.lower() not in _NOT_A_PACKAGE_WORD])


def _imported_package(text: str, facts: Mapping[str, Any] | None) -> str:
    """The one top-level package a part of which the text says is missing (the reader's torch.module_missing:
    ``No module named 'kaolin.nnsearch'``, ``cannot import name 'x' from 'y'``; not ``No module named 'x_plugin'``,
    a module that may be no package), else the package whose import failed, ``""`` when none or several."""
    mods = _one([str(e.get("module") or "").split(".")[0] for e in _text_events(facts, "module_missing")
                 if "." in str(e.get("module") or "")])  # a top-level module missing itself may be no package
    return mods or _failing_import(text)


def _show_named(c: str, text: str, facts: Mapping[str, Any] | None) -> str:
    """``pip show <the library>`` / ``pip show <the package>`` where no site-packages path names the package: the
    package whose module or import the text says failed, else ``pip list`` with what to look for in it."""
    m = re.match(r"(pip3? show )<(?:the library|the package)>(\s.*)?$", c)
    if not m:
        return c
    pkg = _imported_package(text, facts)
    if pkg and pkg not in ("torch",):
        return pip_names(m.group(1) + pkg + (m.group(2) or ""))
    return "pip list   # the installed releases: find the package the error names (its module, import or frame)"


_DECIDES_RE = re.compile(r"(what decides: `)([^`]*)(`)")


def _evidence(f: Finding, text: str, facts: Mapping[str, Any] | None) -> Finding:
    """The command that decides between readings, filled as a fix's commands are: the package or library the text
    names, else what to look for (no filler word where a name belongs)."""
    pkg = _site_package(text)

    def fill(m: re.Match[str]) -> str:
        c = m.group(2)
        if pkg:
            c = _pkg_placeholder(c, pkg).replace("<the library>", pkg)
        c = _owner_named(_library_named(c, text, facts), text) or c
        c = _home_free(_script_filled(_show_named(c, text, facts), text))
        return m.group(1) + c + m.group(3)

    ev = tuple(_DECIDES_RE.sub(fill, e) if "what decides: `" in e else e for e in f.evidence)
    if _shell_os(facts, text) == "windows":  # (round 27b) a POSIX command or which in a Windows text's line, in its shell's words
        shell = _windows_shell(text)

        def win(m: re.Match[str]) -> str:
            c = m.group(2)
            w = _windows(c)
            return m.group(1) + (_for_shell(w, shell) if w != c and not w.endswith(_LINUX_NOTE) else c) + m.group(3)
        ev = tuple(_which_for_shell(_DECIDES_RE.sub(win, e) if "what decides: `" in e else e, shell) for e in ev)
    return f if ev == f.evidence else replace(f, evidence=ev)


#: secrets looked for one ``str.find`` scan each up to this many; more (a private key's lines: thousands) in one
#: pass over the places a value may start
_FEW_SECRETS = 256
#: where a value may start: a non-space character not after a word character (``(?<!\w)``)
_VALUE_START_RE = re.compile(r"(?<!\w)\S")


def _apart(text: str, i: int, j: int) -> bool:
    r"""``text[i:j]`` stands apart: no word character (``\w``) just before ``i`` or just at ``j``."""
    return not ((i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"))
                or (j < len(text) and (text[j].isalnum() or text[j] == "_")))


def _values_redacted(text: str, secrets: list[str]) -> str:
    """``text`` with each of ``secrets`` replaced by ``<redacted>`` where it stands apart (no word character just
    before or after it); places that overlap are hidden as one. Up to :data:`_FEW_SECRETS`: each found with
    ``str.find`` (C), the places sorted and merged (a regular expression a secret took 3 ms on
    half a megabyte, and a random text shows dozens of ``a:b@c``: round 23s); many (a 10 MB key with no END line
    gave 8,000 lines, 8,000 passes: 40 s, round 23): one pass over the places a value may start, each looked up
    by its first characters. Linear in the text either way."""
    secrets = [v for v in dict.fromkeys(secrets) if v]
    if not secrets:
        return text
    spans: list[tuple[int, int]] = []
    if len(secrets) <= _FEW_SECRETS:
        found = []
        for v in secrets:
            i = text.find(v)
            while i != -1:
                if _apart(text, i, i + len(v)):
                    found.append((i, i + len(v)))
                i = text.find(v, i + 1)
        for i, j in sorted(found):  # overlapping places merged: all of each secret hidden, whichever is longer
            if spans and i < spans[-1][1]:
                spans[-1] = (spans[-1][0], max(spans[-1][1], j))
            else:
                spans.append((i, j))
    else:
        k = min(len(v) for v in secrets)
        by_head: dict[str, list[str]] = {}
        for v in sorted(secrets, key=len, reverse=True):
            by_head.setdefault(v[:k], []).append(v)
        last = 0
        for m in _VALUE_START_RE.finditer(text):
            i = m.start()
            if i < last:
                continue
            for v in by_head.get(text[i:i + k], ()):
                j = i + len(v)
                if text.startswith(v, i) and _apart(text, i, j):
                    spans.append((i, j))
                    last = j
                    break
    if not spans:
        return text
    out, last = [], 0
    for i, j in spans:
        out += (text[last:i], REDACTED)
        last = j
    return "".join(out) + text[last:]


def _without_secrets(text: str, facts: Mapping[str, Any] | None) -> tuple[str, Mapping[str, Any] | None]:
    """The text and its events as the fills read them: every secret the redaction recognises (by name, by shape, URL
    userinfo, a private key's lines) replaced by ``<redacted>`` wherever it appears, its name beside it or not, and no
    event read from a line that held one. A fill copies a word out of its line ("pip install --token V pkg" gives
    V as the package), away from the name that marks it secret: what it copies from is redacted first."""
    safe, secrets = redacted_and_secrets(text)
    safe = _values_redacted(safe, secrets)
    if safe == text or not isinstance(facts, Mapping):
        return safe, facts

    def clean(e: Any) -> bool:
        line = str(e.get("line") or "") if isinstance(e, Mapping) else ""
        return not any(v in line for v in secrets) and redact_text(line) == line

    kept = {ly: ({**d, "events": [e for e in d.get("events") or () if clean(e)]} if isinstance(d, Mapping) and
                 d.get("events") else d) for ly, d in facts.items()}
    return safe, kept


#: (round 27e) an index a text installs from: pip's options, pip.conf's keys, pip's variables and its "Looking in
#: indexes:" line (pip's own words, pip/_internal/index/collector.py / models/search_scope.py get_formatted_locations)
_INDEX_GIVEN_RE = re.compile(
    r"(?:(--extra-index-url|--index-url|(?<![\w-])-i)(?:\s+|=)|^[ \t]*(extra-index-url|index-url)[ \t]*=[ \t]*|"
    r"\bPIP_(EXTRA_INDEX_URL|INDEX_URL)=|Looking in indexes:[ \t]*(?:[^\s,]+,[ \t]*)*)[\"']?(https?://[^\s,\"']+)",
    re.MULTILINE)
#: indexes whose names anyone may register on (PyPI and its mirrors) or of a vendor the doctor knows: not private
_PUBLIC_INDEX_RE = re.compile(
    r"^(?:[\w.-]*\.)?(?:pypi\.org|pypi\.python\.org|pythonhosted\.org|download\.pytorch\.org|pypi\.nvidia\.com|"
    r"pypi\.ngc\.nvidia\.com|data\.pyg\.org|nvidia-kaolin\.s3[\w.-]*|dl\.fbaipublicfiles\.com|"
    r"[\w.-]*(?:mirror|tuna|aliyun|douban|ustc|huaweicloud|tencent|bfsu|sjtu)[\w.-]*)$", re.IGNORECASE)
#: the pip commands that fetch a package by name from an index
_PIP_FETCH_RE = re.compile(r"^((?:python3? -m |py -m )?pip3? (?:install|download|index versions))\b(?![^#]*(?:--index-url|"
                           r"--extra-index-url|(?<![\w-])-i\s|download\.pytorch\.org|--find-links|(?<![\w-])-f\s))")


@_per_explain
def _private_index(text: str) -> tuple[str, str]:
    """(round 27e) The option and URL of a private index the text installs from (not PyPI, its mirrors or a vendor
    index the doctor knows), its credentials as placeholders (the text is read redacted: ``<redacted>@``), else
    ``("", "")``. A name fetched without it comes from public PyPI, where anyone may have registered that name
    (dependency confusion)."""
    if "http" not in text or "ndex" not in text and " -i" not in text:
        return "", ""
    for m in _INDEX_GIVEN_RE.finditer(text):
        url = m.group(4).rstrip(".;)")
        host = re.sub(r"^https?://(?:[^@/]*@)?", "", url).split("/", 1)[0].split(":", 1)[0]
        if not host or _PUBLIC_INDEX_RE.match(host):
            continue
        extra = "extra" in (m.group(1) or m.group(2) or m.group(3) or "").lower()
        url = re.sub(r"^(https?://)[^@/]*@", r"\1<user>:<token>@", url)
        return ("--extra-index-url" if extra else "--index-url"), url
    return "", ""


def _on_private_index(f: Finding, cmds: tuple[str, ...], text: str) -> tuple[Finding, tuple[str, ...]]:
    """(round 27e) A fix's pip commands and links kept on the private index the text installs from
    (:func:`_private_index`): the index with its credentials as placeholders, never PyPI's page or a bare name."""
    opt, url = _private_index(text)
    if not opt:
        return f, cmds
    out = tuple(_PIP_FETCH_RE.sub(lambda m: f'{m.group(1)} {opt} "{url}"', c) for c in cmds)
    why = f.fix.why if f.fix else ""
    why2 = re.sub(r"\(?https://pypi\.org/project/[^\s)]*(?: and the project's README)?\)?",
                  f"(the private index the text installs from, {url}: with --index-url, not public PyPI, where anyone "
                  "may have registered the same name)", why)
    if f.code in ("package_no_build_for_platform", "python_package_missing") and "private index" not in why2:
        why2 += (f" The text installs from a private index ({url}): keep it in every pip command (a bare name fetches "
                 "whatever public package has it); on that index 'from versions: none' also means the credentials "
                 "were refused or the name differs there.")
    if out == cmds and why2 == why or f.fix is None:
        return f, out
    return replace(f, fix=Fix(why2, out, f.fix.docs)), out


def true_to_text(found: list[Finding], text: str, facts: Mapping[str, Any] | None) -> list[Finding]:
    """``found`` with each fix's commands filled from the text and fit for its platform (module doc); the fills read
    the text with its secrets redacted (:func:`_without_secrets`)."""
    for fn in _TEXT_READS:
        fn.cache_clear()
    try:
        return _true_to_text(found, text, facts)
    finally:
        for fn in _TEXT_READS:
            fn.cache_clear()


#: (round 28b) a printed command that replaces torch: a pip install whose targets include torch itself
_TORCH_REPLACED_RE = re.compile(r"^(?:python3? -m |py(?: -3\.\d+)? -m )?pip3? install\b[^#]*?\s['\"]?torch(?:[=<>~!]|['\"]?(?:\s|$))")


def _torch_kept(f: Finding, cmds: tuple[str, ...], text: str, facts: Mapping[str, Any] | None) -> tuple[str, ...]:
    """(round 28b, blind audit 28) No torch replacement the text contradicts: none for a CPU-only-torch reading where
    the text shows torch's CUDA build (``2.1.0+cu121``)."""
    cuda_torch = bool(_torch_cuda(facts)) and not _value(facts, "cpu_build")
    if f.code != "cpu_only_torch_with_gpu" or not cuda_torch:
        return cmds
    kept = tuple(c for c in cmds if not _TORCH_REPLACED_RE.match(c))
    return kept if kept else cmds


def _true_to_text(found: list[Finding], text: str, facts: Mapping[str, Any] | None) -> list[Finding]:
    text, facts = _without_secrets(text, facts)
    out = []
    said = {f.title.rstrip(".").lower(): f.code for f in found if f.code != "user_code_error" and len(f.title) >= 24}
    for f in found:
        rest = f.title.split("Not your environment: ", 1)[1].lower() if f.title.startswith("Not your environment: ") \
            else ""
        same = next((code for t, code in said.items() if rest.startswith(t)), "") if rest else ""
        if f.code == "user_code_error" and f.severity == "info" and same:
            # the same message as another finding's, its words said twice (a warning and a note): the note says
            # only what it adds, the other reading of that one message
            f = replace(f, title="Not your environment, the other reading: the project's own code or config is at "
                                 f"fault (the same message as [{same}], read as the code's error)")
        f = _evidence(_by_text(f, text), text, facts)
        if f.fix is None or not f.fix.commands:
            out.append(f)
            continue
        cmds = _torch_kept(f, _commands(f, text, facts), text, facts)
        f, cmds = _on_private_index(f, cmds, text)
        cmds = tuple(placeholders_quoted(c) for c in cmds)
        out.append(f if cmds == f.fix.commands else replace(f, fix=Fix(f.fix.why, cmds, f.fix.docs)))
    return out


__all__ = ["placeholders_quoted", "said_in_words", "true_to_text"]


#: (blind audit 36, H5) a command that runs pip or python by the name PATH resolves: at its start or after "&&" / ";"
#: (round 38a) and inside a command substitution (``$(python -c 'import torch; ...')``, ``$(pip show torch | ...)``)
_BARE_PYTHON_RE = re.compile(r"(?:^|(?<=&& )|(?<=; )|(?<=\$\())(?:pip3?|python3?)(?= )")


def this_pythons_commands(found: list[Finding], executable: str, path_python: str | None,
                          path_pip: str | None) -> list[Finding]:
    """(blind audit 36, H5) The live findings with ``pip ...``, ``python -m pip ...`` and ``python ...`` written for the
    Python the doctor examined (``executable``: a venv used without being activated, a kernel's interpreter) where the
    ``python`` or ``pip`` PATH resolves (``path_python``, ``path_pip``: None where none) is in another folder than
    ``executable``: ``<executable> -m pip ...``, ``<executable> ...``. Where both are that Python's, as they are."""
    home = os.path.dirname(executable)
    other_python = path_python is None or os.path.dirname(path_python) != home
    other_pip = path_pip is None or os.path.dirname(path_pip) != home
    if not executable or not (other_python or other_pip):
        return found
    exe = shlex.quote(executable) if os.name != "nt" else (f'"{executable}"' if " " in executable else executable)
    pip, python = f"{exe} -m pip" if other_pip else None, exe if other_python else None
    return _each_command(found, lambda c: "\n".join(_for_this_python(line, pip, python) for line in c.split("\n")))


def _for_this_python(line: str, pip: str | None, python: str | None) -> str:
    """One line of a command (a script's lines apart) with its bare ``pip`` / ``python`` as ``pip`` / ``python`` (None:
    kept as it is); a comment or a notebook's ``%pip`` line, and the note after "   #", as they are."""
    if line.lstrip().startswith(("#", "%")):
        return line
    body, sep, note = line.partition("   #")
    return _BARE_PYTHON_RE.sub(lambda m: (pip if m.group().startswith("pip") else python) or m.group(), body) + sep + note


#: (round 38a, brief R38A item 2) the interpreter a text shows: a command's own path to python (``$ /opt/conda/envs/x/
#: bin/python train.py``), and the prefix whose site-packages its traceback's frames are in
#: (``.../envs/x/lib/python3.10/site-packages/torch/...`` -> ``.../envs/x/bin/python``)
_TEXT_PYTHON_PATH_RE = re.compile(r"(?:^|(?<=[\s$>'\"(=]))((?:/|~/)[^\s'\"$`;&|()<>]{0,200}?/bin/python(?:3(?:\.\d{1,2})?)?)"
                                  r"(?=[\s'\";)]|$)", re.MULTILINE)
_SITE_PREFIX_RE = re.compile(r"(?:^|(?<=[\s'\"(=]))((?:/|~/)[^\s'\"$`;&|()<>:]{0,200}?)/lib/python3\.\d{1,2}/site-packages/|"
                             r"\bFile \"(/[^\"\n$`]{0,200}?)/lib/python3\.\d{1,2}/site-packages/")  # a frame's path: spaces too
#: prefixes whose bin/ has no python of this site-packages: the system's, the user site (~/.local), pip's build
#: environments; and those whose bin/ has python3 only (Homebrew, the python.org framework)
_NOT_A_PYTHON_PREFIX_RE = re.compile(r"^/usr$|/\.local$|pip-build-env|/pip-|^/tmp/")
_PYTHON3_ONLY_RE = re.compile(r"^/usr/local$|^/opt/homebrew$|Python\.framework")


@_per_explain
def _text_interpreter(text: str) -> str:
    """(round 38a) The one Python the text shows failing, as a shell word (in double quotes where its path holds a
    space, ``~/`` then ``$HOME/``): the prefix of its traceback's site-packages (``bin/python`` there), else the one
    path to python a command runs; ``""`` where none or several (then ``python``, as PATH finds it)."""
    if "python" not in text:
        return ""
    prefixes = [p for m in _SITE_PREFIX_RE.finditer(text) for p in [m.group(1) or m.group(2)]
                if not _NOT_A_PYTHON_PREFIX_RE.search(p)]
    prefix = _one(prefixes)
    path = (f"{prefix}/bin/{'python3' if _PYTHON3_ONLY_RE.search(prefix) else 'python'}" if prefix else
            "" if prefixes else _one(_TEXT_PYTHON_PATH_RE.findall(text)))
    if not path or not re.fullmatch(r"[\w./~+@ -]+", path):
        return ""
    return f'"{re.sub(r"^~/", "$HOME/", path)}"' if " " in path else path


def text_shows_python(text: str) -> bool:
    """(round 38d) Whether the text shows a Python of its own: a path into a site-packages (a traceback's frame) or a
    path to a python a command runs. Where it shows none and was read with this machine's facts, the Python to run
    is the one explain examined, this process's (:func:`this_pythons_commands`)."""
    return "python" in text and bool(_SITE_PREFIX_RE.search(text) or _TEXT_PYTHON_PATH_RE.search(text))


def _failed_python(c: str, text: str, os_: str) -> str:
    """(round 38a, brief R38A item 2) A command that computes a value with ``$(python ...)`` / ``$(pip ...)`` run by
    the Python the text shows failing (:func:`_text_interpreter`), the bare ``python`` / ``pip`` of its lines too:
    the ``python`` PATH finds may be another one, whose torch is not the one that failed."""
    if "$(p" not in c or os_ == "windows" or not re.search(r"\$\((?:pip3?|python3?) ", c):
        return c
    py = _text_interpreter(text)
    return "\n".join(_for_this_python(line, f"{py} -m pip", py) for line in c.split("\n")) if py else c
