# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""(round 31a, issue 25) Every printed fix command runnable as printed, checked from the user's side.

The checks (:mod:`tests.doctor._cmdcheck31a`) are written from what a shell, pip and conda accept, not from the
builders: ``bash -n`` for POSIX lines (cmd and PowerShell lines checked as such), pip requirements
(``packaging``), conda specs, index addresses and download.pytorch.org variants for the torch named, environment
assignments, placeholders the finding does not explain in words, the text's platform (no ``export``/``ldd``/
``LD_LIBRARY_PATH`` for a Windows text, no ``ldconfig``/``apt``/``/proc`` for a Mac's), deletions and uninstalls of
packages the text does not name. A permanent sweep over a deterministic third of the corpus (and every text that
shows Windows or macOS), the faked machines' reports, and one test per fault fixed."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

from smrnb.doctor._corpus import load
from smrnb.doctor._explain import explain_result
from tests.doctor._cmdcheck31a import check

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis (a test dependency) is not installed")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "corpus"
SWEEP = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow])
#: a text that shows Windows or macOS (its platform decides the commands' form): always in the sweep
_PLATFORM_SHOWN_RE = re.compile(r"[A-Za-z]:\\|Windows|win_amd64|\.dll\b|\.pyd\b|darwin|macOS|Mac ?OS|\.dylib\b")


@lru_cache(maxsize=1)
def _rows() -> dict[str, dict]:
    if not CORPUS.is_dir():
        pytest.skip("the corpus folder is absent")
    return {f"{p.stem}/{r['id']}": r for p in sorted(CORPUS.glob("*.jsonl")) for r in load(p)}


def _os(res) -> str | None:
    ctx = res.facts.get("context") or {}
    if ctx.get("os") == "windows" and ctx.get("wsl"):
        return None  # a WSL2 text: its commands may be the Linux shell's or the Windows one's
    return ctx.get("os")


def _failures(key: str) -> list[tuple[str, str, list[str]]]:
    r = _rows()[key]
    res = explain_result(r["text"], similar=False)
    out = []
    for f in res.findings:
        for c in f.fix.commands if f.fix else ():
            got = check(c, _os(res), r["text"] + "\n" + f.title, f.fix.why)
            if got:
                out.append((f.code, c, got))
    return out


def _commands(key: str, code: str | None = None) -> list[str]:
    res = explain_result(_rows()[key]["text"], similar=False)
    return [c for f in res.findings if f.fix and (code is None or f.code == code) for c in f.fix.commands]


def test_every_printed_command_of_the_corpus_sweep_is_runnable_as_printed():
    """A deterministic third of the corpus (every third text) and every text that shows Windows or macOS: no
    printed command fails a check (before round 31a, over the whole corpus, 165 of 2,410 distinct commands failed:
    97 with a placeholder nothing explains, 61 another platform's, 9 a requirement pip refuses, 3 quotes, 1 syntax)."""
    bad, seen = [], 0
    for i, (key, r) in enumerate(_rows().items()):
        if i % 3 and not _PLATFORM_SHOWN_RE.search(r["text"]):
            continue
        seen += 1
        bad += [(key, *b) for b in _failures(key)]
    assert seen > 1500
    assert not bad, bad[:8]


# ---------------------------------------------------------------- one test per fault fixed (each failed before)
@pytest.mark.parametrize("key", ["dev18/pytorch_sparse-283", "dev18/tensorflow-10154", "dev12/whisper-writer-47",
                                 "dev21/gaussian-splatting-833", "dev20/warp-33", "dev11/darknet-1070"])
def test_a_windows_text_gets_no_posix_only_command(key):
    """export CC=gcc, unset LD_LIBRARY_PATH, ldd, LD_DEBUG, grep, /dev/nvidia*: cmd runs none of them (before: the
    POSIX command with a note 'on Windows use PowerShell's equivalents')."""
    cmds = _commands(key)
    assert not any(re.search(r"\b(?:export|unset|ldd|ldconfig|LD_LIBRARY_PATH|LD_DEBUG|grep|lsmod)\b|/dev/",
                             re.split(r"\s&\s*rem\s", c)[0]) for c in cmds), cmds
    assert not any("Linux/macOS shell (bash)" in c for c in cmds), cmds
    assert not _failures(key)


def test_a_windows_grep_is_findstr():
    cmds = _commands("dev20/warp-33")
    assert any(c.startswith('findstr /s /n /c:"sub" *.py') for c in cmds), cmds
    assert any('| findstr /i "nvidia- nccl onnxruntime cudnn"' in c for c in _commands("dev18/tensorflow-10154")), \
        _commands("dev18/tensorflow-10154")


@pytest.mark.parametrize("key", ["dev8/cvxpy-807", "dev10/wallet713-128", "dev11/tensorflow-62860",
                                 "heldout14/open3d-3012", "dev9/paddle-16630"])
def test_a_macos_text_gets_no_ldconfig_apt_or_proc(key):
    cmds = _commands(key)
    assert not any(re.search(r"\b(?:ldconfig|apt-file|apt-get|apt)\b|/proc/", c.split("   #")[0]) for c in cmds), cmds
    assert not _failures(key)


def test_a_macos_library_of_homebrew_names_its_formula():
    cmds = _commands("dev10/wallet713-128")
    assert any(c.startswith("brew info openssl@1.1") for c in cmds), cmds
    assert any("sysctl -n machdep.cpu.features" in c for c in _commands("dev11/tensorflow-62860"))


@pytest.mark.parametrize("key, token", [("dev/bigdata-133", "..."), ("dev/flownet2-218", "<x.y>"),
                                        ("dev/llmdet-32", "<package>"), ("dev/tcnn-231", "<n>"),
                                        ("dev/hallo-98", "<ver>"), ("dev/notebook-4888", "<env>"),
                                        ("dev/kaolin-698", "<torch>")])
def test_a_placeholder_the_facts_cannot_fill_is_said_in_words(key, token):
    """Where no fact fills a placeholder, the command's note says what to put there (before: `<x.y>`, `<n>`,
    `<ver>`, `...` with no word about them)."""
    inner = re.escape(token.strip("<>"))
    cmds = [c for c in _commands(key) if token in c.split("   #")[0].split(" & rem ")[0] and not c.startswith("#")]
    assert cmds, _commands(key)
    assert all(re.search(rf"(?:#|;|rem) [^\n]*(?<![\w<]){inner}: \w", c) for c in cmds), cmds
    assert not _failures(key)


@pytest.mark.parametrize("key, bad", [("dev12/geneface-262", "_raymarching_face"), ("dev11/paddle-3643", "_socket"),
                                      ("heldout8/imp-1039", "_IMP_kernel"), ("dev15/realfusion-14", "_gridencoder")])
def test_a_private_module_is_no_pip_target(key, bad):
    """pip refuses '_raymarching_face' (PEP 508 names start with a letter or digit): the package that installs it,
    in words."""
    cmds = _commands(key)
    assert not any(re.search(rf"\bpip3? \w+ [^#]*(?<![\w<]){bad}(?=\s|$)", c.replace(f"installs {bad}>", ">"))
                   for c in cmds), cmds
    assert any(f"<the package that installs {bad}>" in c for c in cmds), cmds


@pytest.mark.parametrize("key, word", [("heldout10/fairseq-3419", "successfully."), ("dev9/dtaidistance-12", "from")])
def test_prose_after_pip_install_is_no_package(key, word):
    """'pip install successfully.' and 'pip install from PyPI' in a sentence name no package to reinstall."""
    cmds = _commands(key)
    assert not any(re.search(rf"\bpip3? (?:install|show)\b[^#&]*\s{re.escape(word)}(?=\s|$)", c) for c in cmds), cmds


def test_a_program_device_choice_is_no_package_to_show():
    """library_messages' "a program's own device choice" row is torch's CPU build, not a package of that name."""
    cmds = _commands("dev10/invokeai-1202", "cpu_only_torch_with_gpu")
    assert cmds and not any("device choice" in c for c in cmds), cmds
    assert not _failures("dev10/invokeai-1202")


def test_conda_gets_a_package_name_or_words_never_two_specs():
    cmds = _commands("dev16/htcn-3", "package_no_build_for_platform")
    assert cmds and not any(re.search(r"conda (?:install|search)[^#]*\bthe package\b(?!.*>)", c) for c in cmds), cmds
    assert any("<the package conda names>" in c for c in cmds), cmds
    assert not _failures("dev16/htcn-3")


@pytest.mark.parametrize("key", ["dev/libmamba-544", "test/mangoselm-25"])
def test_strings_runs_on_a_whole_path_only(key):
    """strings '(/lib64/libstdc++.so.6' (a bracket the text put before it) or '.../anaconda3/...' (a path the text
    elides) is no file: no strings command then."""
    cmds = _commands(key, "libstdcxx_too_old")
    assert cmds and not any(re.match(r"strings (?!/)", c) for c in cmds), cmds
    assert not _failures(key)


def test_cmd_gets_double_quotes_around_a_pip_target_with_words():
    cmds = _commands("dev17/pythreejs-401")
    assert any('pip install "pythreejs==<the release the code names>"' in c for c in cmds), cmds
    assert not _failures("dev17/pythreejs-401")


def test_head_on_windows_is_powershell():
    cmds = _commands("dev18/ds30-8")
    assert not any(c.startswith("head ") for c in cmds), cmds
    assert any("Get-Content -TotalCount" in c for c in cmds), cmds


# ---------------------------------------------------------------- generated commands (hypothesis)
_POSIX_PARTS = ["nvidia-smi", "nvcc --version", "echo $CUDA_HOME", "unset LD_LIBRARY_PATH", "ldd /x/libfoo.so",
                "ls -l /dev/nvidia*", "lsmod | grep nvidia", 'grep -rn "foo" --include=*.py .',
                "pip list 2>/dev/null | grep -i -E 'torch|nvidia-'", "export CC=gcc-11 CXX=g++-11",
                'python -c "import torch; print(torch.__version__)"', "ldconfig -p | grep libcudnn",
                "file /x/y.so", "uname -m", "ls <the folder>", "pip show -f torch | grep -i <the file's name>"]


@SWEEP
@given(parts=st.lists(st.sampled_from(_POSIX_PARTS), min_size=1, max_size=4),
       sep=st.sampled_from(["; ", " && "]), note=st.sampled_from(["", "   # why it helps"]))
def test_a_posix_command_on_windows_is_cmds_or_nothing(parts, sep, note):
    """Any command joined from the rules' POSIX parts, printed for a Windows text: cmd's words that pass the checks,
    or left out; never the POSIX command with a note."""
    from smrnb.doctor._printed import _for_shell, _windows, _windows_parts

    w = _windows(sep.join(parts) + note)
    out = _windows_parts(w) if w.endswith("on Windows use PowerShell's equivalents") else w
    if out:
        printed = _for_shell(out, "cmd")
        assert not check(printed, "windows", "torch nvidia", ""), printed
        ps = _for_shell(out, "powershell")  # PowerShell 5.1 cannot open the device nul as a file: $null
        assert " 2>nul" not in ps and " & " not in ps.split("   #")[0], ps


@SWEEP
@given(head=st.sampled_from(["pip install --force-reinstall", "pip install --no-build-isolation --no-deps",
                             "pip uninstall -y", "pip show -f"]),
       name=st.from_regex(r"_[a-z][a-z0-9_]{0,12}", fullmatch=True),
       note=st.sampled_from(["", "   # a build made here"]))
def test_a_private_module_never_reaches_pip(head, name, note):
    from smrnb.doctor._printed import _private_named

    out = _private_named(f"{head} {name}{note}")
    assert f"<the package that installs {name}>" in out and not check(out, "linux", name, ""), out


@SWEEP
@given(cmd=st.sampled_from(["docker run --gpus all ...", "export CUDA_HOME=/usr/local/cuda-<x.y>",
                            "pip install torch==<ver> --index-url https://download.pytorch.org/whl/<cuXYZ>",
                            "export CC=gcc-<n> CXX=g++-<n>", "python -m ipykernel install --user --name <env>",
                            "pip install --force-reinstall <package>", "CUDA_LAUNCH_BLOCKING=1 python <script>",
                            'export TORCH_CUDA_ARCH_LIST="<X.Y>+PTX"', "srun --gres=gpu:1 ..."]),
       note=st.sampled_from(["", "   # the fix"]))
def test_every_placeholder_is_said_in_words(cmd, note):
    from smrnb.doctor._printed import _glossed

    out = _glossed(cmd + note)
    assert not check(out, "linux", "", ""), out


# ---------------------------------------------------------------- the live report on faked machines
def _live_facts(cvd=None, gpus=None, slurm=None, driver="580.65.06", container=None, torch="2.9.1+cpu", **drv):
    """A faked machine (test_audit30's): an H100 pair, or none, with a Slurm job, a container, CUDA_VISIBLE_DEVICES."""
    g = [{"index": i, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "uuid": f"GPU-{i}aaa"}
         for i in range(2)] if gpus is None else gpus
    return {"driver": {"status": "ok" if g else "absent", "source": "nvidia-smi", "driver_version": driver if g else
                       None, "cuda_driver_version": "13.0" if g else None, "gpus": g, **drv},
            "torch": {"status": "ok", "installed": True, "version": torch, "version_base": torch.split("+")[0],
                      "cuda": None if torch.endswith("+cpu") else "12.1"},
            "context": {"status": "ok", "os": "linux", "cuda_visible_devices": cvd, "slurm": slurm,
                        "container": container}}


_NO_DEV = {"nvidia_smi": "/usr/bin/nvidia-smi", "reason": "nvidia-smi failed: No devices were found"}
_MACHINES = [_live_facts(), _live_facts(cvd=""), _live_facts(cvd="-1"), _live_facts(driver="470.82.01"),
             _live_facts(gpus=[], slurm={"job_id": "48213"}, **_NO_DEV), _live_facts(gpus=[], **_NO_DEV),
             _live_facts(gpus=[], container="docker", **_NO_DEV), _live_facts(driver="525.60.13")]


@pytest.mark.parametrize("facts", _MACHINES)
def test_every_command_of_a_faked_machines_report_is_runnable(facts):
    """diagnose's findings (its rules over the machine's facts, then :func:`said_in_words`): before, the Slurm job's
    ``srun --gres=gpu:1 ...`` said nothing of its ``...``."""
    from smrnb.doctor._printed import said_in_words
    from smrnb.doctor.rules import evaluate

    found = said_in_words(evaluate(facts, layers=["driver", "torch", "context"]))
    bad = [(f.code, c, got) for f in found if f.fix for c in f.fix.commands
           if (got := check(c, "linux", None, f.fix.why))]
    assert not bad, bad


def test_an_abi_rebuild_names_its_owner_placeholder_in_words():
    from smrnb.doctor._model import Finding, Fix
    from smrnb.doctor._printed import said_in_words

    f = Finding("abi_torch_version_mismatch", "abi", "error", "t",
                fix=Fix("w", ("pip install --no-build-isolation --no-cache-dir --force-reinstall "
                              "<package-owning-libext_old.so>", "pip install --force-reinstall _my_ext")))
    cmds = said_in_words([f])[0].fix.commands
    assert "package-owning-libext_old.so: the pip package that installed that file" in cmds[0], cmds
    assert cmds[1].startswith("pip install --force-reinstall \"<the package that installs _my_ext>\""), cmds
    assert not any(check(c, "linux", None, "w") for c in cmds), cmds


def test_diagnose_says_its_placeholders_in_words():
    """diagnose and explain's live findings pass through said_in_words (the wiring, read from the source)."""
    import inspect

    import smrnb.doctor as doctor

    src = inspect.getsource(doctor)
    assert src.count("said_in_words(evaluate(") == 2, src


def test_a_cuda_library_not_named_is_looked_up_by_its_names_not_by_words():
    """cudart_not_found where the text names no library: before, ``ldconfig -p | grep the CUDA library`` (grep looks
    for 'the' in the files 'CUDA' and 'library')."""
    from smrnb.doctor.rules._loader import _cudart

    cmds = _cudart({}, {"key": "no_row_names_it"})["commands"]
    assert not any("grep the " in c for c in cmds), cmds
    assert not any(check(c, "linux", None, "") for c in cmds), cmds
    assert any(c.startswith("ldconfig -p | grep -i -E 'libcuda|") for c in cmds), cmds


def test_a_windows_architecture_check_is_this_pythons():
    """wrong_architecture_binary on Windows: no GNU file or uname there; this Python's machine and bitness instead
    (before: the POSIX command with a note)."""
    cmds = _commands("dev7/pytorch-chatbot-10", "wrong_architecture_binary")
    assert cmds and not any(re.search(r"\b(?:uname|file)\s", c.split(" & rem ")[0]) for c in cmds), cmds
    assert any("struct.calcsize('P')" in c for c in cmds), cmds
