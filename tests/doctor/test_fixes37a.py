# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""(round 37a) Printed fix commands runnable as printed: no placeholder bash reads as a redirection (blind audit 36 A
M7), and no unpinned reinstall of torch (blind audit 36 B's leftover).

* M7: ``torch-<torch version>_cu<cuda>.html`` and ``torch==<x.y>`` hold words bash reads as redirections: ``<torch``
  reads a file, ``version>_cu`` creates or empties one. Every printed command of the released corpus is read as bash
  reads it (an unquoted ``<`` / ``>`` outside a note is a redirection; only the deliberate ones listed here pass) and
  ``bash -n`` accepts it. Placeholders are printed inside double quotes (docs/troubleshooting.md); kaolin's wheel page
  is filled from the facts, else computed from the installed torch.
* B: ``pip install --force-reinstall torch`` without a release takes the newest torch; the reinstall of the same torch
  is pinned (the text's release, else as ``pip show torch`` says), xformers' rebuild reading pins the xformers release
  built for the text's torch.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from smrnb.doctor._corpus import load
from smrnb.doctor._explain import explain_result

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "corpus"
CLI = [sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline", "--json"]

#: redirections printed on purpose: stderr into the pipe or away (bash; cmd's nul; PowerShell's $null), and a
#: converted copy written to a new file named in the note
DELIBERATE = {("2>&", "1"), ("2>", "/dev/null"), (">", "/dev/null"), ("&>", "/dev/null"), ("2>", "nul"),
              ("2>", "$null"), (">", "fixed.ipynb")}
_SEP = " \t\n;&|()"


# ---------------------------------------------------------------- bash's reading of a line, from bash's rules
def _scan(s: str, i: int, out: list, close: str = "") -> int:
    """Read ``s`` from ``i`` outside quotes as bash does (quotes, backslashes, ``$( )``, a ``#`` note at a word's
    start) up to ``close``; each redirection operator goes to ``out`` with the word after it."""
    n, word_start = len(s), True
    while i < n:
        c = s[i]
        if close and c == close:
            return i + 1
        if c == "\\":
            i, word_start = i + 2, False
        elif c == "'":
            j = s.find("'", i + 1)
            i, word_start = (n if j < 0 else j + 1), False
        elif c == '"':
            i, word_start = _double_quoted(s, i + 1, out), False
        elif s.startswith("$(", i):
            i, word_start = _scan(s, i + 2, out, ")"), False
        elif c == "#" and word_start:
            j = s.find("\n", i)
            i = n if j < 0 else j
        elif c in "<>":
            k = i
            while k > 0 and s[k - 1].isdigit():
                k -= 1
            fd = s[k:i] if k == 0 or s[k - 1] in _SEP else ""
            if c == ">" and k > 0 and s[k - 1] == "&" and (k == 1 or s[k - 2] in _SEP):
                fd = "&"
            j = i + 1
            while j < n and s[j] in "<>&|":
                j += 1
            target = re.match(r"[ \t]*([^ \t\n;|()<>]*)", s[j:])
            out.append((fd + s[i:j], target.group(1) if target else ""))
            i, word_start = j, True
        else:
            word_start = c in _SEP
            i += 1
    return i


def _double_quoted(s: str, i: int, out: list) -> int:
    while i < len(s):
        if s[i] == "\\":
            i += 2
        elif s[i] == '"':
            return i + 1
        elif s.startswith("$(", i):
            i = _scan(s, i + 2, out, ")")
        else:
            i += 1
    return i


def redirections(line: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    _scan(line, 0, out)
    return out


def _shell_lines(cmd: str) -> list[str]:
    """The lines of ``cmd`` a shell runs: not a Python line to paste in a notebook (``import ...``), a ``%pip``
    magic without its ``%``; a cmd line up to its ``& rem`` note (a ``rem`` line is a note)."""
    out = []
    for ln in cmd.split("\n"):
        s = ln.strip()
        if not s or re.match(r"(?:import|from|rem)\s|[A-Za-z_][\w.]* = ", s, re.IGNORECASE):
            continue
        s = re.split(r"\s&\s*rem\b", s, maxsplit=1, flags=re.IGNORECASE)[0]
        out.append(s[1:] if s.startswith(("%", "!")) else s)
    return out


def _cmd_redirections(line: str) -> list[tuple[str, str]]:
    """cmd's reading: only double quotes quote, no backslash escapes."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"(\d?[<>]+&?)\s*([^\s<>|&]*)", re.sub(r'"[^"]*"', "", line))]


def _problems(cmd: str) -> list[str]:
    cmd_shell = bool(re.search(r"\s&\s*rem\b|^\s*set \"", cmd, re.IGNORECASE | re.MULTILINE))
    read = _cmd_redirections if cmd_shell else redirections
    return [f"{op} {t}" for ln in _shell_lines(cmd) for op, t in read(ln) if (op, t) not in DELIBERATE]


def _bash_n(script: str) -> str:
    p = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True, timeout=30)
    return "" if p.returncode == 0 else p.stderr.strip()


def test_the_reading_sees_what_bash_sees():
    """The reader itself: a placeholder unquoted is a redirection, one in quotes, in a note or in $( ) inside quotes
    as bash reads it."""
    assert redirections("pip install torch==<x.y>   # x.y: it") == [("<", "x.y"), (">", "#")]
    assert redirections('pip install torch=="<x.y>"   # <x.y>: it') == []
    assert redirections("a 2>&1 | grep -E 'x|<y>'") == [("2>&", "1")]
    assert redirections('head -1 "$(command -v <the script>)"') == [("<", "the"), (">", "")]
    assert redirections('head -1 "$(command -v "<the script>")"') == []


# ---------------------------------------------------------------- the whole released corpus
@lru_cache(maxsize=1)
def _corpus_commands() -> dict[str, str]:
    if not CORPUS.is_dir():
        pytest.skip("the corpus folder is absent")
    out: dict[str, str] = {}
    for p in sorted(CORPUS.glob("*.jsonl")):
        for r in load(p):
            for f in explain_result(r["text"], similar=False).findings:
                for c in f.fix.commands if f.fix else ():
                    out.setdefault(c, f"{p.stem}/{r['id']}:{f.code}")
    return out


def test_no_printed_command_of_the_corpus_holds_a_redirection_by_mistake():
    """Every printed command of every released corpus text: no unquoted ``<`` / ``>`` but the deliberate ones (before:
    252 distinct commands, 1,798 prints: ``python <your script>``, ``cuda-<x.y>``, ``torch-<torch version>_cu<cuda>``,
    ``cd <the extension's source tree>`` ...)."""
    cmds = _corpus_commands()
    assert len(cmds) > 2000
    bad = [(where, c[:160], p) for c, where in cmds.items() for p in [_problems(c)] if p]
    assert not bad, bad[:6]


def test_bash_parses_every_printed_posix_command_of_the_corpus():
    """``bash -n`` accepts every shell line printed (cmd lines, with their ``& rem`` notes, and PowerShell's are
    another shell's). Before: ``pip uninstall -y <package-owning-...>   # ...`` was a syntax error."""
    lines = [ln for c in _corpus_commands() for ln in _shell_lines(c)
             if not re.search(r"\s&\s*rem\b|\$env:|^set \"|\bfindstr\b|^\s*(?:Remove|Get|Set)-", ln + c)]
    err = _bash_n("\n".join(lines))
    if err:  # which line
        bad = [ln for ln in lines if _bash_n(ln)]
        assert not bad, bad[:6]


# ---------------------------------------------------------------- M7: kaolin's wheel page (the auditor's input)
M7 = """$ pip install git+https://github.com/NVIDIAGameWorks/kaolin.git
      ModuleNotFoundError: No module named 'torch'
  error: subprocess-exited-with-error
  × Getting requirements to build wheel did not run successfully.
ERROR: Failed building wheel for kaolin
"""


def _json(text: str) -> dict:
    p = subprocess.run(CLI, input=text, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode in (0, 1, 2, 3), p.stderr
    return json.loads(p.stdout)


def _all_commands(found) -> list[str]:
    return [c for f in found for c in (f.fix.commands if f.fix else ())]


def test_kaolin_page_the_text_leaves_open_is_computed_from_the_installed_torch():
    """Read alone (the CLI, --offline): the page is the installed torch's, as ``$(python -c ...)`` prints it (before:
    ``torch-<torch version>_cu<cuda>.html``, which bash reads as two redirections)."""
    cmds = [c for f in _json(M7)["findings"] for c in (f.get("fix") or {}).get("commands") or []]
    kaolin = [c for c in cmds if "nvidia-kaolin" in c]
    assert kaolin and all("<" not in c.split("   #")[0] for c in kaolin), kaolin
    assert all("torch-$(python -c 'import torch; print(torch.__version__.split(\"+\")[0])')_cu$(" in c for c in kaolin)
    assert not _bash_n("\n".join(kaolin)) and not any(_problems(c) for c in kaolin), kaolin


def test_kaolin_page_of_this_machines_torch_is_filled():
    """With this machine's facts (a live explain): a CUDA torch's page is filled; a CPU torch (the auditor's machine:
    2.13.0+cpu) has no kaolin wheel page, and kaolin builds from its repository (before: the page's placeholders)."""
    cu = _all_commands(explain_result(M7, facts={"torch": {"version": "2.4.1+cu121", "cuda": "12.1"}},
                                      similar=False).findings)
    assert any("-f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.4.1_cu121.html" in c for c in cu), cu
    cpu = _all_commands(explain_result(M7, facts={"torch": {"version": "2.13.0+cpu", "cuda": None, "cpu_build": True}},
                                       similar=False).findings)
    assert not any("nvidia-kaolin" in c or "<" in c.split("   #")[0] for c in cpu), cpu
    assert any("pip install --no-build-isolation 'git+https://github.com/NVIDIAGameWorks/kaolin.git'" in c
               and "2.13.0+cpu" in c for c in cpu), cpu


def test_a_placeholder_left_is_quoted_and_said_in_words():
    """The convention (docs/troubleshooting.md): a value no fact gives stays a word in angle brackets inside double
    quotes, and the note says what to put there."""
    text = "$ export CUDA_HOME=/a:/b\nOSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root."
    cmds = _all_commands(explain_result(text, similar=False).findings)
    held = [c for c in cmds if "<" in c.split("   #")[0]]
    assert held, cmds
    for c in held:
        assert not _problems(c), c
        for ph in re.findall(r"<([^<>]+)>", c.split("   #")[0]):
            assert f'"<{ph}>"' in c and (ph in c.split("   #", 1)[-1] or len(ph.split()) >= 2), c


# ---------------------------------------------------------------- B: no unpinned torch reinstall
def _code(found, code: str) -> list[str]:
    return [c for f in found if f.code == code for c in (f.fix.commands if f.fix else ())]


def test_cpu_only_torch_reinstall_keeps_torchs_release():
    """``Torch not compiled with CUDA enabled`` with no version shown: the CUDA build of the same release, read from
    pip's metadata (before: ``pip install --force-reinstall torch --index-url .../<cuXYZ>``, the newest torch)."""
    text = ('File "/home/xx/anaconda3/envs/tf-gpu/lib/python3.7/site-packages/torch/cuda/__init__.py", line 95, in '
            '_check_driver\n    raise AssertionError("Torch not compiled with CUDA enabled")\n'
            "AssertionError: Torch not compiled with CUDA enabled")
    cmds = [c for c in _code(explain_result(text, similar=False).findings, "cpu_only_torch_with_gpu") if "install" in c]
    # (round 38a) pip of the Python the traceback shows (its conda env's), which the reinstall is for too
    pip = "$HOME/anaconda3/envs/tf-gpu/bin/python -m pip"
    assert cmds and all(f"torch==$({pip} show torch | sed -n 's/^Version: \\([^+]*\\).*/\\1/p')" in c
                        and c.startswith(f"{pip} install ") for c in cmds), cmds
    assert not any(_problems(c) or _bash_n(c) for c in cmds), cmds
    # the pin reads pip's metadata as pip show prints it
    script = ("pip(){ printf 'Name: torch\\nVersion: 2.3.1+cpu\\nSummary: x\\n'; }; echo "
              + re.search(r"torch==\$\(\S+ -m pip show torch .*?/p'\)", cmds[0]).group(0).replace(pip, "pip"))
    assert subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=10).stdout == "torch==2.3.1\n"


def test_a_reinstall_of_torch_itself_is_pinned_to_the_texts_release():
    """A text that shows torch's release: its reinstall pins it (before: ``pip install --force-reinstall --no-deps
    torch``)."""
    text = ('$ python -c "import torch; print(torch.__version__, torch.version.cuda)"\n2.1.2+cu121 12.1\n'
            '$ python -c "import torch"\n'
            "ImportError: /venv/lib/python3.10/site-packages/torch/lib/libtorch_cpu.so: undefined symbol: "
            "iJIT_NotifyEvent")
    cmds = [c for c in _all_commands(explain_result(text, similar=False).findings)
            if re.search(r"pip install[^#]*--force-reinstall[^#]*\storch\b", c)]
    assert cmds, _all_commands(explain_result(text, similar=False).findings)
    assert all(re.search(r"\storch==2\.1\.2(?:\s|$)", c) for c in cmds), cmds


T23 = """$ python -c "import xformers.ops"
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.4.1+cu121)
    Python  3.10.14 (you have 3.10.14)
  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)
Traceback (most recent call last):
  File "/home/quin/sd/gen.py", line 40, in <module>
    out = xformers.ops.memory_efficient_attention(q, k, v)
NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:
     query       : shape=(1, 4096, 8, 40) (torch.float16)
`cutlassF` is not supported because:
    xFormers wasn't build with CUDA support
"""


def test_xformers_second_reading_pins_the_release_built_for_the_texts_torch():
    """The auditor's t23 (xformers built for 2.3.0, torch 2.4.1+cu121): the rebuild reading installs xformers
    0.0.28.post1, the release built for torch 2.4.1 (before: an unpinned ``... --no-deps xformers``, PyPI's newest,
    built for another torch)."""
    d = _json(T23)
    cmds = [c for f in d["findings"] for c in (f.get("fix") or {}).get("commands") or []
            if re.search(r"pip install\b[^#]*\sxformers", c)]
    assert cmds, d["findings"]
    assert all(re.search(r"\sxformers==0\.0\.28\.post1(?:\s|$)", c) for c in cmds), cmds


def test_the_live_reports_placeholders_are_quoted_too():
    """The live report's pass (diagnose, and explain's findings of this machine) quotes what it leaves open, as
    explain's does (before: ``pip install --no-deps <package>`` as the rule wrote it)."""
    from smrnb.doctor._model import Finding, Fix
    from smrnb.doctor._printed import said_in_words

    f = Finding("extension_not_compiled", "abi", "error", "t", (),
                Fix("w", ("pip install --force-reinstall --no-deps <package>", "ls -l <the library>; file <the library>",
                          "python -c \"import torch\"   # <x.y> in a note stays")))
    cmds = said_in_words([f])[0].fix.commands
    assert cmds[0].startswith('pip install --force-reinstall --no-deps "<package>"   # package: '), cmds
    assert cmds[1] == 'ls -l "<the library>"; file "<the library>"', cmds
    assert cmds[2] == 'python -c "import torch"   # <x.y> in a note stays', cmds
    assert not any(_problems(c) or _bash_n(c) for c in cmds), cmds
