# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 29: what explain reads of a long text is bounded in lines as well as characters, and does not depend on
how busy the machine is.

Before: a 10 MB log of short distinct lines (step counters, 3-character lines) kept some 130,000 lines in its capped
head and tail, each a pass of the per-line readers (1.5 s CPU); the per-line scan stopped after 0.5 s of wall-clock
time, so a busy machine read fewer lines than an idle one and could name other findings for the same text."""

from __future__ import annotations

import json
import random
import re
import string
import time
from pathlib import Path

import pytest

from smrnb.doctor import _evidence, _textfacts, explain, tables
from smrnb.doctor._explain import _prepared

CORPUS = Path(__file__).parent / "corpus"


def _cpu_best(fn, runs: int = 2) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t0)
    return best


def _short_lines(k: int) -> str:
    rnd = random.Random(k)
    body = "\n".join("".join(rnd.choices(string.ascii_letters, k=k)) for _ in range(10_000_000 // (k + 1)))
    return body + "\nOSError: libcublas.so.12: cannot open shared object file: No such file or directory\n"


@pytest.mark.parametrize("text", [_short_lines(3), _short_lines(8),
                                  "\n".join(str(i) for i in range(1_500_000)) + "\nfatal error: cuda.h: No such file\n"],
                         ids=["3-char lines", "8-char lines", "step counters"])
def test_a_log_of_short_lines_is_capped_in_lines(text):
    capped = _evidence.cap_text(text)
    assert capped.count("\n") <= _evidence.HEAD_LINES + _evidence.TAIL_LINES + _evidence.MIDDLE_LINES + 4
    # the head's first line and the tail's error line are both kept
    assert capped.split("\n", 1)[0] == text.split("\n", 1)[0]
    assert text.rstrip("\n").rsplit("\n", 1)[1] in capped
    assert _cpu_best(lambda: explain(text, live=False)) <= 1.0


def test_an_ordinary_log_keeps_its_head_and_tail_characters():
    # a compiler's warnings (125-character lines): 256 kB of head is some 2,100 lines, under HEAD_LINES: the line cap
    # changes nothing
    line = "/usr/local/lib/python3.11/site-packages/pkg/src/a.cpp:12:3: warning: unused variable 'x' [-Wunused-variable]\n"
    text = "".join(f"[{i:06d}] {line}" for i in range(100_000))
    capped = _evidence.cap_text(text)
    head = capped.split("\n...\n", 1)[0]
    assert head == text[:_evidence.HEAD_CHARS]
    assert capped.endswith(text[-_evidence.TAIL_CHARS:])


def test_a_short_text_of_many_lines_is_cut_in_its_middle():
    text = "\n".join(f"line {i}" for i in range(20_000))  # 200 kB: under the character cap, over the line cap
    capped = _evidence.cap_text(text)
    assert "line 0\n" in capped and capped.endswith("line 19999")
    assert "line 10000\n" not in capped
    assert capped.count("\n") <= _evidence.HEAD_LINES + _evidence.TAIL_LINES + 4


@pytest.mark.parametrize("unit", [
    "Collecting torch-{i}==2.{i}.0 (from -r requirements.txt (line {i})) error: subprocess-exited-with-error",
    '  File "/usr/lib/python3.11/site-packages/pkg{i}/mod.py", line {i}, in f{i}\n    x = call_{i}(a)\n'
    "ValueError: bad value {i}",
    "[{i}/9000] /usr/local/cuda/bin/nvcc -c /src/k{i}.cu -o k{i}.o -gencode=arch=compute_86,code=sm_86",
])
def test_the_capped_lines_of_a_realistic_log_are_all_read(unit):
    # what is read depends on the text alone: the line scan of a capped realistic 10 MB log ends well inside its
    # (CPU-time) safety net, so it never reports having stopped early
    text = "\n".join(unit.format(i=i) for i in range(200_000))[:10_000_000]
    facts = _textfacts.read_text(_prepared(text))
    assert "text_truncated" not in facts.get("context", {})


def test_the_scan_budget_is_cpu_time_of_this_thread():
    # a wall-clock budget stopped early whenever other processes held the cores; a thread's CPU time does not count
    # theirs. The safety net still stops a scan that really costs that much CPU.
    src = Path(_textfacts.__file__).read_text(encoding="utf-8")
    scan = src[src.index("def _scan_lines("): src.index("def _scan_lines(") + 600]
    assert "time.thread_time()" in scan and "perf_counter" not in scan
    text = "\n".join(f"torch {i}.{i}.{i} on gpu device {i} after update, import x{i}" for i in range(5000))
    facts = _textfacts.read_text(text, budget_s=0.0)
    assert "text_truncated" in facts.get("context", {})


def test_every_gpu_name_starts_with_a_capital_or_a_digit():
    # _textfacts._gpu_name_re looks ahead for [A-Z0-9] before trying the table's alternatives: a row whose model
    # starts otherwise would never be read from a text
    for p in tables._gpu_patterns():
        for alt in p.pattern.pattern.split("|"):
            body = alt[2:] if alt.startswith("\\b") else alt
            assert re.match(r"[A-Z0-9]|\[[0-9]", body), (p.pattern.pattern, alt)


def _corpus_lines():
    for f in sorted(CORPUS.glob("*.jsonl")):
        for row in f.read_text(encoding="utf-8").splitlines():
            yield from json.loads(row)["text"].lower().split("\n")


def test_the_regression_words_gate_no_line_a_release_reading_matches():
    # _scan_prose searches the regression's expressions only in a line holding one of _REGRESSION_WORDS: every
    # corpus line and every wording below that they match holds one
    said = ["it worked with 2.1 but fails now", "since the 0.17 release", "after upgrading pytorch", "a regression",
            "downgrading pytorch to 1.12.1 will solve the problem", "i reinstalled version 2.14 and it works again",
            "3.14 is fine", "doesn't occur on torch 2.11", "ever since around ollama-cuda version 0.12.4",
            "==1.22.0 is working but ==1.23.0 is failing", "previous version works", "went back to 0.9.1",
            "rolled back to 2.0", "reverted to v1.2", "after i updated comfyui to latest", "was working before",
            "new in the last 3 days", "last working commit", "broke in 2.3", "didn't have this issue before"]
    checked = 0
    for low in [*said, *_corpus_lines()]:
        if any(rx.search(low) for rx in (_textfacts._REGRESSION_RE, _textfacts._REGRESSION_VAGUE_RE)) or \
                _textfacts._RELEASE_FINE_RE.search(low[max(0, low.find(" fine") - 40): low.find(" fine") + 5]
                                                   if " fine" in low else ""):
            checked += 1
            assert any(w in low for w in _textfacts._REGRESSION_WORDS), low
    assert checked >= len(said)
