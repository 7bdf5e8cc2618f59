# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The exercise checker: one friendly line per mistake (type, unit, sign, off by how much), never a traceback."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from smrnb.lessons import HINT, RIGHT, TODO, WRONG, check, check_function, grade, grade_function


def one_line(v) -> str:
    mistakes = [line for line in v.lines if not line.startswith(HINT)]
    assert len(mistakes) == 1, v.lines
    return mistakes[0]


def test_unanswered_says_so_and_what_kind_of_answer_is_wanted():
    v = grade("answer_fov", ..., 57.8, unit="degrees", tol=0.2, hint="use fx and W")
    assert not v.ok and not v.answered
    assert v.lines == [f"{TODO} answer_fov: not answered yet: replace the ... with your answer (a number, in degrees)",
                       f"{HINT} hint: use fx and W"]


def test_a_right_number_within_tolerance_gets_a_tick():
    v = grade("answer_fov", 57.75, 57.8, unit="degrees", tol=0.2, right="58 degrees wide")
    assert v.ok and v.lines == [f"{RIGHT} answer_fov: right: 58 degrees wide"]
    assert grade("n", torch.tensor(8), 8).ok  # tensors count as their value
    assert grade("n", 8.0, 8).ok


@pytest.mark.parametrize("answer, expected, kw, needle", [
    (45.0, 57.8, {"unit": "degrees", "tol": 0.2}, "45 degrees is 12.8 degrees too low (22%); within 0.2 degrees counts"),
    (70.0, 57.8, {"unit": "degrees", "tol": 0.2}, "too high"),
    (math.radians(57.8), 57.8, {"unit": "degrees", "tol": 0.2}, "radians instead of degrees"),
    (5.0, 0.005, {"unit": "m", "tol": 1e-4}, "1000x too large: millimetres instead of metres"),
    (87.0, 0.87, {"tol": 0.005}, "a percentage instead of a fraction"),
    (-2.0, 2.0, {"unit": "m", "tol": 1e-3}, "-2 m has the wrong sign"),
    ("57.8", 57.8, {"unit": "degrees"}, "should be a number (degrees), got the text '57.8': write it without quotes"),
    ("abc", 57.8, {}, "should be a number, got the text 'abc'"),
    (12.5, 12, {}, "should be a whole number, got 12.5"),
    (13, 12, {}, "13 is 1 too high"),
    (None, 12, {}, "should be a whole number, got None"),
])
def test_number_mistakes_name_type_unit_sign_and_distance(answer, expected, kw, needle):
    line = one_line(grade("answer", answer, expected, **kw))
    assert line.startswith(f"{WRONG} answer: ") and needle in line, line


@pytest.mark.parametrize("answer, expected, kw, needle", [
    ("12.4", "12.3", {}, "'12.4' is too new"),
    ("11.8", "12.3", {}, "'11.8' is too old"),
    (12.3, "12.3", {}, "a version as text in quotes, got the number 12.3"),
    ("drivers", "toolkit", {"choices": ("driver", "toolkit")}, "'drivers' is not one of 'driver', 'toolkit'"),
    ("driver", "toolkit", {"choices": ("driver", "toolkit")}, "'driver' is not it"),
    ("False", False, {}, "True or False without quotes"),
    (True, False, {}, "True is not it"),
])
def test_text_and_bool_mistakes(answer, expected, kw, needle):
    assert needle in one_line(grade("answer", answer, expected, **kw))


def test_text_ignores_case_and_spaces():
    assert grade("answer_3", " Toolkit ", "toolkit").ok


def test_sequences_one_line_per_wrong_item():
    v = grade("answer_gl", (0.1, 0.2, 2.0), (0.1, -0.2, -2.0), unit="m", tol=1e-4, labels="xyz")
    assert v.lines == [f"{WRONG} answer_gl: y = 0.2 m has the wrong sign", f"{WRONG} answer_gl: z = 2 m has the wrong sign"]
    assert "should have 3 items, got 2" in one_line(grade("p", (1.0, 2.0), (1.0, 2.0, 3.0)))
    assert grade("p", torch.tensor([1.0, 2.0, 3.0]), (1.0, 2.0, 3.0), tol=1e-6).ok


def test_lists_of_names_say_what_is_missing_extra_or_out_of_order():
    truth = ["simplify", "uv", "texture"]
    assert "missing 'uv', 'texture'" in one_line(grade("s", ["simplify"], truth))
    assert "should not contain 'tsdf'" in grade("s", ["tsdf", *truth], truth).lines[0]
    assert "wrong order" in one_line(grade("s", ["uv", "simplify", "texture"], truth))
    assert grade("s", ["uv", "simplify", "texture"], truth, ordered=False).ok
    assert "should be a list of 3" in one_line(grade("s", "simplify", truth))


def test_functions_are_called_on_each_case_and_each_failure_is_one_line():
    cases = {"the scene": ((10,), True), "the broken mesh": ((1,), False)}
    assert grade_function("f", lambda n: n > 5, cases).ok
    v = grade_function("f", lambda n: n > 0, cases)
    assert v.lines == [f"{WRONG} f: on the broken mesh it returned True, expected False"]
    v = grade_function("f", lambda n: n.nope, cases)  # the same error on every case: said once
    assert v.lines == [f"{WRONG} f: on every case (2) it raised AttributeError: 'int' object has no attribute 'nope'"]
    v = grade_function("f", lambda n: 1 / (n - 1) > 0, cases)  # an error on one case only names it
    assert v.lines == [f"{WRONG} f: on the broken mesh it raised ZeroDivisionError: division by zero"]
    v = grade_function("f", lambda n: None, cases)
    assert not v.answered and v.lines[0].startswith(TODO)
    v = grade_function("f", lambda n: None if n > 5 else False, cases)
    assert "did you forget `return`?" in v.lines[0]
    assert not grade_function("f", ..., cases).answered
    assert "should be a function" in one_line(grade_function("f", 3, cases))


def test_check_prints_and_never_raises(capsys):
    check("answer", 45.0, 57.8, unit="degrees", tol=0.2, hint="use fx")
    check_function("f", lambda n: 1 / 0, {"zero": ((0,), True)})
    check("answer", object(), 1.0)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{WRONG} answer: 45 degrees") and out[1] == f"{HINT} hint: use fx"
    assert out[2] == f"{WRONG} f: on zero it raised ZeroDivisionError: division by zero"
    assert out[3].startswith(f"{WRONG} answer: it should be a number, got object")
    assert len(out) == 4


REPO = Path(__file__).resolve().parents[1]


def test_a_failed_answer_cell_is_said_and_its_old_value_is_not_graded():
    """In a real IPython shell: a SyntaxError or a NameError in the answer cell leaves the old definition
    (or the ``...``) in place; the check says the cell stopped instead of grading that old value."""
    script = r"""
from IPython.core.interactiveshell import InteractiveShell
sh = InteractiveShell.instance()
cells = ["from smrnb.lessons import check, check_function",
         "cases = {'ten': ((10,), True), 'one': ((1,), False)}",
         "def f(n):\n    return n > 5", "check_function('f', f, cases)",
         "def f(n)\n    return n > 0", "check_function('f', f, cases)",
         "def f(n):\n    return m > 5", "check_function('f', f, cases)",
         "answer = ...", "answer = len(filed)", "check('answer', answer, 3)",
         "answer = 3", "check('answer', answer, 3)"]
for c in cells:
    print('>>>', flush=True)
    sh.run_cell(c)
"""
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120,
                         cwd=REPO).stdout
    blocks = [b.strip() for b in out.split(">>>")[1:]]
    assert blocks[3] == f"{RIGHT} f: right"
    assert blocks[5] == (f"{WRONG} f: the cell that defines it stopped with SyntaxError (line 1): expected ':'; fix it "
                         "and run that cell again (nothing was checked: the old value would be graded)"), blocks[5]
    assert blocks[7] == f"{WRONG} f: on every case (2) it raised NameError: name 'm' is not defined"
    assert blocks[10].startswith(f"{WRONG} answer: the cell that defines it stopped with NameError: name 'filed' is not "
                                 "defined"), blocks[10]
    assert blocks[12] == f"{RIGHT} answer: right"
    assert all("Traceback" not in b for b in (blocks[5], blocks[7], blocks[10]))
