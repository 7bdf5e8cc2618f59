# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain on the corpus of real error texts, and its bounds on pathological inputs."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from smrnb.doctor import _evidence
from smrnb.doctor._corpus import SHAPES, accuracy, load, shape
from smrnb.doctor._explain import explain_text
from smrnb.doctor._magics import diagnosis_line

CORPUS = Path(os.environ.get("SMRNB_CORPUS") or Path(__file__).parent / "corpus")


@pytest.mark.parametrize("part,bar", [("dev", 0.95), ("test", 0.93)])
def test_corpus_accuracy(part, bar):
    p = CORPUS / f"{part}.jsonl"
    if not p.exists():
        pytest.skip(f"{p} absent (the corpus arrives with its own branch)")
    ok, n = accuracy(load(p))
    assert n >= 20 and ok / n >= bar, f"{part}: {ok}/{n}"


def test_every_finding_names_its_evidence_and_its_neighbour():
    p = CORPUS / "dev.jsonl"
    if not p.exists():
        pytest.skip(f"{p} absent")
    n = 0
    for row in load(p):
        for f in explain_text(row["text"]):
            assert any(e.startswith("evidence: ") for e in f.evidence), f
            assert any(e.startswith("told from its neighbour: ") for e in f.evidence), f
            n += 1
    assert n >= 150


def _elapsed(fn, text):
    t0 = time.perf_counter()
    fn(text)
    return time.perf_counter() - t0


def _cpu_best(fn, text, runs: int = 3) -> float:
    """The best of ``runs`` measurements of the CPU time of this thread in ``fn(text)``: other processes on a
    busy machine, the moments this one waits for a core and other threads of the test process do not count."""
    best = float("inf")
    for _ in range(runs):
        t0 = time.thread_time()
        fn(text)
        best = min(best, time.thread_time() - t0)
    return best


def test_caps_bound_what_is_read():
    long = ("x" * 100 + "\n") * 100_000 + ":" * 1_000_000
    capped = _evidence.cap_text(long)
    assert len(capped) <= _evidence.HEAD_CHARS + _evidence.TAIL_CHARS + 10_000
    assert max(len(ln) for ln in capped.split("\n")) <= _evidence.LINE_CHARS + 5


@pytest.mark.parametrize("unit", [":", "a:", "/usr/lib/x86_64-linux-gnu/libcudart.so.12:", "sm_86 " * 3,
                                  "libx.so: \u65e0\u6cd5\u6253\u5f00\u5171\u4eab\u5bf9\u8c61\u6587\u4ef6\n",
                                  "Number of GPUs: 0\n", "undefined reference to `cusparseSpMM'\n",
                                  "/x/stubs/libcuda.so: ", 'catastrophic error: cannot open source file "a.h" ',
                                  "sbatch: error: --gres=gpu:1 "])
def test_time_grows_at_most_linearly(unit):
    # both sizes well above the head+tail cap (3 and 30 caps), so the same code path runs on 10x the input
    n = 3 * (_evidence.HEAD_CHARS + _evidence.TAIL_CHARS) // len(unit) + 1
    small, big = unit * n, unit * (10 * n)
    for fn in (explain_text, diagnosis_line):
        t1 = _cpu_best(fn, small)
        t10 = _cpu_best(fn, big)
        assert t10 <= 15 * t1 + 0.1, (unit, fn.__name__, t1, t10)


def test_pathological_inputs_end_quickly():
    for text in ("RuntimeError: " + ":" * 200_000, ("/a/b/" * 40 + "\n") * 50_000, "x" * 3_000_000,
                 "undefined symbol: " + "_ZN" * 100_000):
        assert _elapsed(explain_text, text) < 10.0
        assert _elapsed(diagnosis_line, text) < 10.0


def test_bytes_are_decoded():
    f = explain_text(b"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB \xff\xfe")
    assert f and f[0].code == "cuda_oom"


def test_arch_list_is_computed_from_the_gpu_and_the_nvcc():
    from smrnb.doctor._explain import build_arch_list

    assert build_arch_list(["sm_86"], "12.1") == "8.6"
    assert build_arch_list(["compute_89"], "11.4") == "8.6+PTX"  # 11.4 has no sm_89; never a Jetson arch
    assert build_arch_list(["sm_120"], "12.8") == "12.0"
    assert build_arch_list(["sm_35"], "13.0") is None  # nothing this nvcc can build runs there
    log = "nvcc fatal   : Unsupported gpu architecture 'compute_89'\nCuda compilation tools, release 11.4, V11.4.152"
    f = explain_text(log)[0]
    assert f.code == "unsupported_gpu_arch"
    assert any('TORCH_CUDA_ARCH_LIST="8.6+PTX"' in c for c in f.fix.commands)
    assert not any('"9.0"' in c for c in f.fix.commands)


def test_printed_fixes_name_real_packages_only():
    for major in ("8", "10"):
        for f in explain_text(f"ImportError: libcudart.so.{major}.0: cannot open shared object file: No such file"):
            assert not any(f"nvidia-cuda-runtime-cu{major}" in c for c in (f.fix.commands if f.fix else ())), f


def test_findings_name_the_evidence_and_the_neighbour():
    text = "ImportError: libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12"
    f = explain_text(text)[0]
    assert f.code == "library_shadowed_older_copy"
    assert any(e.startswith("evidence: undefined_symbol __nvJitLinkAddData_12_1 (from the text; line: ") for e in f.evidence)
    assert any(e.startswith("told from its neighbour:") for e in f.evidence)


def _cpu(fn, text, bar: float = float("inf")) -> float:
    """CPU seconds of this thread in ``fn(text)`` (the load of other processes and other threads of the test
    process do not count); a second run only when the first is over ``bar`` (a busy moment), the better of two."""
    best = float("inf")
    for _ in range(2):
        t0 = time.thread_time()
        fn(text)
        best = min(best, time.thread_time() - t0)
        if best <= bar:
            break
    return best


_LOG_LINE = "/usr/local/lib/python3.11/site-packages/pkg/a.cpp:12:3: warning: unused variable 'x' [-Wunused]\n"


@pytest.mark.parametrize("unit", ["a:", ":", '"KEY":', "KEY=", "=", "@", '"', "sk-", "undefined symbol: _ZN",
                                  "/bin/nvcc'", "'", "libcudart.so.12: cannot open shared object file\n",
                                  "sm_86 compute_90 ", "error: fatal: not found\n", _LOG_LINE,
                                  # long error lines: the middle of a capped log is bounded in characters too
                                  "error " + "a" * 1990 + "\n", "error " + "ab " * 660 + "\n",
                                  "TypeError: " + "a" * 500 + "() got an unexpected keyword argument 'x'\n"])
def test_explain_of_10_mb_takes_at_most_a_second(unit):
    text = unit * (10_000_000 // len(unit)) + "\nfatal error: THC/THC.h: No such file or directory\n"
    assert _cpu(explain_text, text, bar=1.0) <= 1.0




@pytest.mark.parametrize("name", SHAPES)
def test_explain_of_10_mb_of_other_shapes_is_bounded(name):
    # smrnb.explain as the notebook calls it: the text's secrets, the readers, the fills. The code before round 23
    # took 7.2, 1.7, 1.8 and 1.5 s CPU for these shapes, before round 28p 0.03, 0.53, 0.87 and 1.04 s; since, 0.04,
    # 0.40, 0.60 and 0.69 s at a load average of 6 on 2 cores (the worst of six runs 0.72 s); after rounds 28a-28c,
    # random text and bytes 0.80-0.91 s on an idle machine; round 29 (the Linux-prompt search once per explain, the
    # capped text bounded in lines) 0.54-0.56 and 0.75 s, alternated with the code before (0.73-0.75 and 0.75 s) on an
    # idle machine. The bound stays the 1 s
    from smrnb.doctor import explain

    text = shape(name)
    assert _cpu(lambda t: explain(t, live=False), text, bar=1.0) <= 1.0


@pytest.mark.parametrize("n", [30_000, 200_000, 1_000_000])
def test_the_hook_on_a_1_mb_message_takes_at_most_50_ms(n):
    assert _cpu(diagnosis_line, "RuntimeError: " + ":" * n, bar=0.05) <= 0.05


def test_an_unknown_cause_is_right_when_explain_does_not_recognise_the_text():
    rows = [{"text": "Segmentation fault (core dumped)", "cause": "unknown"},
            {"text": "nvcc fatal   : Unsupported gpu architecture 'compute_120'", "cause": "unknown"},
            {"text": "nvcc fatal   : Unsupported gpu architecture 'compute_120'", "cause": "unsupported_gpu_arch"}]
    assert accuracy(rows) == (2, 3)
