# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 33w: wrapped pastes. A terminal (PuTTY, conhost, screen, a serial console) puts a newline where it wrapped a
long line at its column, mid-word; mail, chat tools and pip's panels wrap at word boundaries. ``normalise`` undoes
both (``smrnb.doctor._paste.unwrap``), keyed on the wrap's own marks: lines of exactly the longest line's length cut
inside a word (a hard wrap), lines broken where the next word would not have fit, short of the width (a word wrap).
A text that shows neither stays as it is: records of one length, tables, a prompt and its command's message, a real
one-line error."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor._paste import normalise, unwrap


def _bench():
    """benchmarks/bench_explain.py, whose TRANSFORMS wrap texts as terminals and mail tools do: the same wraps here."""
    spec = importlib.util.spec_from_file_location("bench_explain", Path(__file__).parents[2] / "benchmarks"
                                                  / "bench_explain.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


#: a terminal's hard wrap at ``width`` columns (mid-word); a mail's or chat tool's word wrap at ``width``
_BENCH = _bench()
hard, word = _BENCH._hard_wrap, _BENCH._word_wrap


ABI = """Traceback (most recent call last):
  File "/home/user/miniconda3/envs/gs/lib/python3.10/site-packages/diff_gaussian_rasterization/__init__.py", line 15, in <module>
    from . import _C
ImportError: /home/user/miniconda3/envs/gs/lib/python3.10/site-packages/diff_gaussian_rasterization/_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"""
CUDART = """Loading the CUDA library of bitsandbytes from the environment's site packages failed with this message
ImportError: /opt/conda/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cuda118.so: libcudart.so.11.0: cannot open shared object file: No such file or directory"""
MISMATCH = """I am building the extension in a fresh environment with the toolkit that conda installed for me
RuntimeError: The detected CUDA version (12.1) mismatches the version that was used to compile PyTorch (11.8). Please make sure to use the same CUDA versions."""
GLIBC = """when I run the binary that the release page ships on my cluster's login node it stops at once with
./llama-server: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' not found (required by ./llama-server)"""
DOCKER = 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].'


def _codes(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings[:2]]


# ------------------------------------------------------------------ the form undone, exactly
@pytest.mark.parametrize("width", [80, 97, 100, 120])
def test_a_hard_wrap_is_undone_exactly(width):
    # at a terminal's usual column or any other (97: two different lines cut inside a word show it)
    assert normalise(hard(ABI, width)) == ABI
    assert normalise(hard(CUDART, width)) == CUDART


@pytest.mark.parametrize(("text", "width"), [(CUDART, 72), (CUDART, 80), (MISMATCH, 72), (MISMATCH, 80),
                                             (GLIBC, 72)])
def test_a_word_wrap_is_undone_exactly(text, width):
    assert word(text, width) != text
    assert normalise(word(text, width)) == text


def test_a_word_wraps_hyphen_break_and_a_long_words_cut_join_without_a_space():
    text = ("ImportError: /home/u/.conda/envs/mink/lib/python3.7/site-packages/MinkowskiEngineBackend/_C.cpython-37m-"
            "x86_64-linux-gnu.so: undefined symbol: _ZN3c104impl23ExcludeDispatchKeyGuardC1ENS_11DispatchKeyE")
    wrapped = word(text, 72)
    assert "site-\npackages" in wrapped
    assert normalise(wrapped) == text


def test_a_mail_quoted_wrap_is_undone_too():
    quoted = "\n".join("> " + ln for ln in word(MISMATCH, 72).split("\n"))
    assert normalise(quoted) == MISMATCH


def test_a_terminal_keeps_the_space_at_its_cut():
    head = "while loading the model onto the card in this notebook the kernel printed this:"
    text = head + " no kernel image is available for execution on the device"
    assert len(head) == 79 and hard(text, 80).split("\n")[0].endswith(" ")  # one line cut at 80, after a space
    assert normalise(hard(text, 80)) == text


# ------------------------------------------------------------------ through explain: the plain text's code
@pytest.mark.parametrize(("text", "form", "width"), [
    (ABI, hard, 72), (ABI, hard, 80), (ABI, word, 97), (ABI, word, 100), (CUDART, hard, 97), (CUDART, hard, 120),
    (CUDART, word, 72), (CUDART, word, 80), (MISMATCH, hard, 100), (GLIBC, hard, 72), (GLIBC, word, 72),
    (DOCKER, hard, 80),
])
def test_explain_reads_the_wrapped_paste_as_the_plain_text(text, form, width):
    want = _codes(text)[0]
    assert want in _codes(form(text, width)), (form.__name__, width)


# ------------------------------------------------------------------ near-misses: texts that stay as they are
RECORDS = "\n".join(f"Failed to initialize CUDA device #{n}: CUDA driver version is insufficient for runtime"
                    for n in range(105, 110))
SMI = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.199.02   Driver Version: 470.161.03   CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |
| N/A   36C    P8     9W /  70W |      0MiB / 15109MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+"""
PROMPT = """root@694cefcad33a:/# cat /usr/local/cuda/include/cudnn.h | grep CUDNN_MAJOR -A 2
cat: /usr/local/cuda/include/cudnn.h: No such file or directory"""
FRAME = """  File "D:\\StabilityMatrix\\Data\\Packages\\ComfyUI-Zluda\\custom_nodes\\cgem156-ComfyUI\\node.py", line 5, in
import pandas as pd
ModuleNotFoundError: No module named 'pandas'"""
REPEATED = """ImportError: libcudart.so.11.0: cannot open shared object file: No such file
I get this when I import the package in a notebook
ImportError: libcudart.so.11.0: cannot open shared object file: No such file
and the same in a plain python shell"""
SENTENCES = """The installation finished without a single warning on my machine, as far as I can tell.
Then the import fails at once with the message below.
ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"""
LISTING = """LICENSE             bundlesdf      kaolin                 run_demo.py
Utils.py            datareader.py  learning               run_linemod.py
__pycache__         debug          mycpp                  run_ycb_video.py
assets              demo_data      offscreen_renderer.py  weights"""


@pytest.mark.parametrize("text", [RECORDS, SMI, PROMPT, FRAME, REPEATED, SENTENCES, LISTING, DOCKER, ABI, CUDART,
                                  MISMATCH, GLIBC, "a" * 200, ("x" * 80 + "\n") * 3])
def test_a_plain_text_is_not_unwrapped(text):
    assert unwrap(text) == text
    assert normalise(text) == normalise(text.replace("\n", "\n"))  # the same object's copy: no surprise
    assert "\n".join(normalise(text).split("\n")) == normalise(text)
    assert normalise(text).count("\n") == text.count("\n")


def test_the_prompt_and_the_records_keep_their_lines_through_explain():
    for text in (PROMPT, RECORDS, REPEATED):
        assert normalise(text).split("\n") == text.split("\n")


# ------------------------------------------------------------------ properties: idempotent, never raises, linear
hypothesis = pytest.importorskip("hypothesis", reason="hypothesis (a test dependency) is not installed")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SWEEP = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
WORDS = st.sampled_from(["error:", "cannot", "open", "shared", "object", "file:", "/usr/lib/x86_64-linux-gnu/",
                         "libcudart.so.11.0", "site-packages/torch/", "_ZN3c104cuda9SetDeviceEi", "the", "a", "-",
                         "File", '"', "Traceback", "(most", "recent", "call", "last):", "in", "<module>", "x" * 30,
                         "RuntimeError:", "\u00a0", "\u200b", "\u2014", "\u2026", "\t", "> ", "**", ">>>", "  "])


@st.composite
def wrapped_texts(draw) -> str:
    lines = draw(st.lists(st.lists(WORDS, max_size=30).map(" ".join), min_size=1, max_size=8))
    text = "\n".join(lines)
    width = draw(st.integers(min_value=20, max_value=130))
    form = draw(st.sampled_from(["plain", "hard", "word"]))
    return text if form == "plain" else hard(text, width) if form == "hard" else word(text, width)


@SWEEP
@given(wrapped_texts())
def test_normalise_is_idempotent_on_wrapped_texts(text):
    once = normalise(text)
    assert normalise(once) == once


@SWEEP
@given(st.text(max_size=400))
def test_normalise_never_raises_and_is_idempotent(text):
    once = normalise(text)
    assert isinstance(once, str)
    assert normalise(once) == once


@pytest.mark.parametrize("text", [">  > x", "> " * 9 + "x", "**> x", "e\u200d\u0301", "[\x0031mX"])
def test_normalise_is_idempotent_where_one_step_feeds_another(text):
    # a quote level after two spaces, a ninth level, a quote that the bold marks hid, an accent that a zero-width
    # joiner kept apart, a colour code that a NUL hid: a second pass found each on main
    once = normalise(text)
    assert normalise(once) == once


def _seconds(fn, *args) -> float:
    best = 9e9
    for _ in range(2):
        t0 = time.thread_time()
        fn(*args)
        best = min(best, time.thread_time() - t0)
    return best


@pytest.mark.parametrize("unit", [
    "x" * 79 + "\n",  # lines of one length, none continuing another
    "ImportError: /usr/lib/libcudart.so.11.0: cannot open shared object file: No such file or directory\n",
    "a" * 80 + "\nb\n",  # every other line cut at a terminal's column
    "word " * 15 + "\n",
    "File " * 16 + "\n",
    "> " * 40 + "**\n",
])
@pytest.mark.parametrize("form", ["hard", "word"])
def test_normalising_ten_megabytes_takes_well_under_a_second(unit, form):
    piece = unit * (20_000 // len(unit))  # wrapped once (textwrap is slow), repeated to 10 MB
    piece = hard(piece, 80) if form == "hard" else word(piece, 72)
    text = piece * (10_000_000 // len(piece))
    assert _seconds(unwrap, text) < 1.0
    assert _seconds(normalise, text) < 2.0
