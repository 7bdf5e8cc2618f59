# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 32j: every row of every text-read message table fires through the real reader, from the user's side.

``_scan_tables`` (smrnb/doctor/_textfacts.py) searches a row's expression only in a window around the row's required
literal. Up to round 32i the window started at the line holding the literal, so a message wrapped before its literal
(a terminal's or a pasted issue's line break: ``nvcc fatal\\n  : Unsupported host compiler 'icx'``, ``... with CUDA
capability sm_120\\nis not compatible with the current PyTorch installation``) could never match although the row's
own expression matches it: the table tests checked ``row.pattern`` alone. Here each row's ``example`` goes through
``explain_result`` (alone and inside unrelated log lines), and every wrapped form of it that the row's expression
matches must give the row's event.
"""

from __future__ import annotations

import re

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor._textfacts import _BACK_CHARS, _table_rows, read_text

_PRE = ("2024-05-01 12:00:01 INFO starting job 42 on node gpu07\n"
        "Loading config from /home/u/proj/configs/train.yaml\n")
_POST = "\nSaving checkpoint skipped\nProcess finished with exit code 1\n"

#: rows whose example alone is a sign that gives its code only beside another fact (tests/doctor/test_explain_engine.py
#: _CONTEXT_ONLY says the same): for these the row's event must be produced, the code is not asked for
_BESIDE = {
    # torch's own -D_GLIBCXX_USE_CXX11_ABI flag: a mismatch only beside an undefined std::__cxx11 symbol (rules._abi)
    "cpp_extension_checks:cxx11_abi_flag": "",
    # a build variable: a cause only where the text names the project (round 26d, _textfacts._scan_tables)
    "extension_checks:xformers:force_cuda": "Building wheel for xformers (setup.py) ... error\n",
    # nvidia-smi's header is the driver's CUDA, a fact judged with the toolkit's version (rules._driver)
    "nvidia_smi_messages:cuda_version_column": "",
    # Slurm's node-local indices: a cause only inside a job beside an invalid device ordinal (rules._context)
    "slurm_gpu:cvd_local_indices": "",
    # a kernel that died: a hint ranked after what the server log shows beside it (rules._jupyter._HINT_ROWS)
    "jupyter_kernel:kernel_restarting": "",
    # a worker that died: /dev/shm too small only in a container or where shared memory is named (rules._torch)
    "torch_messages:dataloader_worker_exited": "",
    # (blind audit 36 M6) a job script's own line alone is a file that shows no failure: the event is read, the code
    # only beside a failure (inside the log below, and tests/doctor/test_audit36a.py)
    "slurm_gpu:export_none": "",
}


def _rows():
    for table, row, _gate in _table_rows():
        if row.example:
            yield pytest.param(table, row, id=f"{table}:{row.key}")


def _row_events(text: str) -> set[tuple[str, str]]:
    out = set()
    for lay in read_text(text).values():
        for ev in (lay.get("events") or []) if isinstance(lay, dict) else []:
            if ev.get("table"):
                out.add((ev["table"], ev.get("key")))
    return out


def _top2(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings][:2]


@pytest.mark.parametrize(("table", "row"), list(_rows()))
def test_every_row_example_fires_alone_and_inside_a_log(table, row):
    key = f"{table}:{row.key}"
    codes = set(row.codes) - {"none"}
    for text in (row.example, _PRE + row.example + _POST):
        if key in _BESIDE:
            assert (table, row.key) in _row_events(_BESIDE[key] + text), (key, text)
        elif codes:
            assert codes & set(_top2(text)), (key, text, _top2(text))
        else:  # a torch/library row read as no cause: its event is still produced
            assert (table, row.key) in _row_events(text), (key, text)


def _wrapped_forms(row) -> list[str]:
    """The example with one space inside its match broken as a terminal or a pasted issue breaks it, and with every
    space of the match broken at once, each kept only where the row's own expression still matches."""
    ex = row.example
    m = row.pattern.search(ex)
    assert m, (row.key, ex)
    out = []
    for sp in (k.start() for k in re.finditer(" ", ex) if m.start() <= k.start() < m.end()):
        out += [ex[:sp] + brk + ex[sp + 1:] for brk in ("\n", "\n    ", " \n", "\r\n")]
    out.append(ex[:m.start()] + m.group(0).replace(" ", "\n") + ex[m.end():])
    return [v for v in out if row.pattern.search(v)]


@pytest.mark.parametrize(("table", "row"), list(_rows()))
def test_every_wrapped_form_the_row_matches_fires_through_the_reader(table, row):
    key = f"{table}:{row.key}"
    dead = [v for v in _wrapped_forms(row)
            if (table, row.key) not in _row_events(_PRE + _BESIDE.get(key, "") + v + _POST)]
    assert not dead, (key, dead[:3])


def test_the_wrapped_forms_are_many():
    # the check above is not empty: hundreds of rows' expressions allow a line break inside their match
    assert sum(len(_wrapped_forms(r)) for _t, r, _g in _table_rows() if r.example) > 1000


# --- readings through a wrapped message, in wordings not from the corpus ---------------------------------------


def test_nvcc_fatal_wrapped_before_its_colon_is_nvccs_message():
    # nvcc 13.0 prints "nvcc fatal   : Unsupported host compiler '%s'" (strings of the nvcc binary, the table's
    # source); a pip log pasted at 80 columns breaks the line after "nvcc fatal"
    text = ("  building 'fused_ops' extension\n"
            "  /usr/local/cuda/bin/nvcc -ccbin icx -c fused.cu -o build/fused.o\n"
            "  nvcc fatal\n"
            "     : Unsupported host compiler 'icx'\n"
            "  error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1\n")
    assert ("nvcc_errors", "unsupported_host_compiler") in _row_events(text)
    assert "host_compiler_unsupported" in _top2(text)


def test_torch_capability_warning_wrapped_before_is_not_compatible():
    # torch/cuda/__init__.py _check_capability: "{} with CUDA capability sm_{} is not compatible with the current
    # PyTorch installation." (torch 2.x), wrapped by a terminal after the capability
    text = ("/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:287: UserWarning:\n"
            "NVIDIA GeForce RTX 5080 with CUDA capability sm_120\n"
            "is not compatible with the current PyTorch installation.\n"
            "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n")
    assert ("torch_messages", "capability_not_compatible") in _row_events(text)
    assert "torch_wheel_lacks_gpu_arch" in _top2(text)


def test_ptxas_fatal_wrapped_is_ptxas_message():
    # ptxas prints "ptxas fatal   : Unsupported .version 8.5; current version is '8.4'"
    text = ("[3/9] /usr/local/cuda/bin/nvcc -c kernels.cu -o kernels.o\n"
            "ptxas fatal\n"
            "   : Unsupported .version 8.5; current version is '8.4'\n"
            "ninja: build stopped: subcommand failed.\n")
    assert ("nvcc_errors", "ptxas_unsupported_version") in _row_events(text)
    assert set(_top2(text)) & {"multiple_cuda_toolkits", "toolkit_below_extension_minimum", "nvcc_torch_cuda_mismatch"}


# --- near-misses: the wider window never makes a match the message does not hold -------------------------------


def test_nvcc_fatal_of_another_message_lines_before_is_not_the_host_compiler_row():
    # "nvcc fatal" names another failure, and the host compiler words come from CMake, not after nvcc's colon
    text = ("nvcc fatal error count: 0\n"
            "-- The CUDA compiler identification is NVIDIA 12.4.131\n"
            "CMake Warning: Unsupported host compiler 'icx' for this project, trying anyway\n")
    assert ("nvcc_errors", "unsupported_host_compiler") not in _row_events(text)
    assert "host_compiler_unsupported" not in _top2(text)


def test_a_line_start_row_never_matches_mid_line_after_the_wider_window():
    # jupyter_kernel bang_pip is '^!\\s*pip3? install': a '!' in the middle of a long line before "pip install"
    # must not read as a line's start where the window back reaches into that line
    line1 = "note: run this cell with !" + " " * (_BACK_CHARS - 2)
    text = "import os\n" + line1 + "\npip install torch\n"
    assert text[text.index("\npip install") + 1 - _BACK_CHARS] == "!"
    assert ("jupyter_kernel", "bang_pip") not in _row_events(text)


def test_a_capability_line_far_before_the_warning_is_not_joined():
    # sm_120 three lines and more before the sentence: the expression's \\s{1,4} does not reach it
    text = ("Using device sm_120\n\n\n\n\n"
            "Warning: this build is not compatible with the current PyTorch installation.\n")
    assert ("torch_messages", "capability_not_compatible") not in _row_events(text)


_FRAME = ('  File "/home/user/miniconda3/envs/project-env/lib/python3.10/site-packages/torch/utils/cpp_extension.py", '
          'line 1%03d, in build_extensions')


@pytest.mark.parametrize(("table", "row"), [p for p in _rows() if "\n" in p.values[1].example])
def test_every_row_allowing_frames_between_its_lines_fires_with_them(table, row):
    # a row whose expression allows lines between its parts ((?:[^\n]*\n){0,8}?) fires however long those lines are,
    # within what the row allows (the reader's window once stopped 400 characters after the literal's line)
    lines, dead = row.example.split("\n"), []
    for at in range(1, len(lines)):
        for k in range(1, 9):
            text = "\n".join(lines[:at] + [_FRAME % n for n in range(k)] + lines[at:])
            if row.pattern.search(text) and (table, row.key) not in _row_events(_PRE + text + _POST):
                dead.append((at, k))
    assert not dead, (table, row.key, dead)


def test_assert_cuda_available_with_frames_between_is_the_assertion():
    # a launcher's own check (torch_messages assert_cuda_available), the assert printed by a chained traceback
    text = ("Traceback (most recent call last):\n"
            '  File "/workspace/gaussian-splatting/train.py", line 41, in <module>\n'
            "    assert torch.cuda.is_available(), 'CUDA device required for rasterization'\n"
            + "\n".join(_FRAME % n for n in range(5)) +
            "\nAssertionError: CUDA device required for rasterization\n")
    assert ("torch_messages", "assert_cuda_available") in _row_events(text)


def test_assert_cuda_available_beyond_the_rows_allowance_is_not_joined():
    # the row allows at most 8 lines between: an AssertionError twelve lines later is another failure's
    text = ("    assert torch.cuda.is_available(), 'CUDA device required'\n"
            + "\n".join(_FRAME % n for n in range(12)) +
            "\nAssertionError: shapes differ\n")
    assert ("torch_messages", "assert_cuda_available") not in _row_events(text)
