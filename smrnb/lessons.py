# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Exercise checks of the teaching notebooks: one friendly line per mistake, never a traceback.

An exercise cell starts unsolved, with ``...`` where the answer goes::

    answer_fov = ...   # degrees

and the cell after it checks the answer against a truth computed independently::

    check("answer_fov", answer_fov, truth, unit="degrees", tol=0.2,
          right="the sample camera sees about 58 degrees", hint="use fx and the image width W")

:func:`check` prints one line: a tick when the answer is right, "not answered yet" while it is
still ``...``, or one line per mistake (wrong type, a unit slip such as millimetres for metres, a
flipped sign, off by how much, missing or extra items), then the hint. It never raises, so "Run
All" goes on to the end of the notebook. :func:`grade` returns the same verdict as a value.
:func:`check_function` calls a function the student wrote on a few cases.
"""

from __future__ import annotations

import math
import numbers
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from smrnb._text import short

#: what the verdict lines start with
RIGHT, WRONG, TODO, HINT = "\u2705", "\u274c", "\u270f\ufe0f", "\U0001f4a1"

#: factors that betray a unit slip, with what the slip usually is
_UNIT_SLIPS: tuple[tuple[float, str], ...] = (
    (1000.0, "1000x too large: millimetres instead of metres (or bytes instead of kB)?"),
    (0.001, "1000x too small: metres instead of millimetres?"),
    (100.0, "100x too large: a percentage instead of a fraction (or cm instead of m)?"),
    (0.01, "100x too small: a fraction instead of a percentage (or m instead of cm)?"),
    (180.0 / math.pi, "57.3x too large: degrees instead of radians?"),
    (math.pi / 180.0, "57.3x too small: radians instead of degrees?"),
)


@dataclass
class Verdict:
    """The outcome of one check: ``ok`` (right), ``answered`` (not ``...``) and the lines shown."""

    name: str
    ok: bool
    answered: bool
    mistakes: list[str] = field(default_factory=list)
    right: str = ""
    hint: str = ""

    @property
    def lines(self) -> list[str]:
        """What :func:`check` prints: one line per mistake, then the hint (or one tick line)."""
        if self.ok:
            return [f"{RIGHT} {self.name}: right" + (f": {self.right}" if self.right else "")]
        if not self.answered:
            out = [f"{TODO} {self.name}: not answered yet: replace the ... with your answer"
                   + (f" ({self.mistakes[0]})" if self.mistakes else "")]
        else:
            out = [f"{WRONG} {self.name}: {m}" for m in self.mistakes]
        if self.hint:
            out.append(f"{HINT} hint: {self.hint}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines)

    def __bool__(self) -> bool:
        return self.ok


# ------------------------------------------------------------------------------- values


def _plain(x: Any) -> Any:
    """Tensors / numpy values as Python values (scalars as numbers, arrays as lists)."""
    if hasattr(x, "tolist") and not isinstance(x, (str, bytes)):
        try:
            return x.tolist()
        except Exception:  # an object with an unrelated tolist
            return x
    return x


def _short(x: Any) -> str:
    """An answer as shown in feedback: a float in 6 significant digits, anything else as :func:`short` (60)."""
    return f"{x:.6g}" if isinstance(x, float) else short(x, 60)


def _kind(x: Any) -> str:
    if isinstance(x, bool):
        return "True or False"
    if isinstance(x, numbers.Integral):
        return "a whole number"
    if isinstance(x, numbers.Real):
        return "a number"
    if isinstance(x, str):
        return "text in quotes"
    if isinstance(x, Mapping):
        return "a dict"
    if isinstance(x, Sequence):
        return f"a list of {len(x)}"
    return type(x).__name__


def _type_name(x: Any) -> str:
    return "None" if x is None else type(x).__name__


def _with_unit(x: float, unit: str) -> str:
    return f"{x:.4g}" + (f" {unit}" if unit else "")


def _number_mistakes(what: str, answer: Any, expected: float, unit: str, tol: float | None,
                     rel: float | None) -> list[str]:
    """Mistakes of a number; ``what`` names an item of a list ("" for the answer itself)."""
    subject = what or "it"
    unit_note = f" ({unit})" if unit else ""
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        if isinstance(answer, str):
            try:
                float(answer)
            except ValueError:
                return [f"{subject} should be a number{unit_note}, got the text {_short(answer)}"]
            return [f"{subject} should be a number{unit_note}, got the text {_short(answer)}: write it without quotes"]
        return [f"{subject} should be {_kind(expected)}{unit_note}, got {_type_name(answer)} {_short(answer)}"]
    a, e = float(answer), float(expected)
    shown = (f"{what} = " if what else "") + _with_unit(a, unit)
    if not math.isfinite(a):
        return [f"{shown} is not a finite number"]
    allowed = max(tol or 0.0, (rel or 0.0) * abs(e))
    if isinstance(expected, numbers.Integral) and tol is None and rel is None and not float(a).is_integer():
        return [f"{subject} should be a whole number, got {_short(answer)}"]
    if abs(a - e) <= allowed:
        return []
    if e != 0 and a != 0:
        ratio = a / e
        for factor, text in _UNIT_SLIPS:
            if abs(ratio / factor - 1) < 0.02:
                return [f"{shown} is {text}"]
        if abs(ratio + 1) <= max(allowed / abs(e), 1e-9):
            return [f"{shown} has the wrong sign"]
    diff = a - e
    rel_text = f" ({abs(diff) / abs(e):.0%})" if e != 0 else ""
    within = f"; within {_with_unit(allowed, unit)} counts" if allowed > 0 else ""
    return [f"{shown} is {_with_unit(abs(diff), unit)} too {'high' if diff > 0 else 'low'}{rel_text}{within}"]


def _version(text: str) -> tuple[int, ...] | None:
    if re.fullmatch(r"\d+(\.\d+)+", text.strip()):
        return tuple(int(p) for p in text.strip().split("."))
    return None


def _text_mistakes(answer: Any, expected: str, choices: Sequence[str] | None) -> list[str]:
    if not isinstance(answer, str):
        if isinstance(answer, numbers.Real) and not isinstance(answer, bool) and _version(expected):
            return [f"it should be a version as text in quotes, got the number {_short(answer)}"]
        return [f"it should be text in quotes, got {_type_name(answer)} {_short(answer)}"]
    a = answer.strip()
    if a == expected:
        return []
    if a.lower() == expected.lower():
        return []  # the right word; case does not matter here
    if choices is not None and a.lower() not in {c.lower() for c in choices}:
        return [f"{_short(answer)} is not one of {', '.join(map(repr, choices))}"]
    va, ve = _version(a), _version(expected)
    if va is not None and ve is not None:
        return [f"{_short(answer)} is too {'new' if va > ve else 'old'}"]
    return [f"{_short(answer)} is not it"]


def _sequence_mistakes(answer: Any, expected: Sequence[Any], unit: str, tol: float | None,
                       rel: float | None, labels: Sequence[str] | None, ordered: bool) -> list[str]:
    if isinstance(answer, (str, bytes)) or not isinstance(answer, Sequence):
        return [f"it should be a list of {len(expected)}, got {_type_name(answer)} {_short(answer)}"]
    answer = list(answer)
    if all(isinstance(x, str) for x in expected):
        a_set, e_set = [x for x in answer], list(expected)
        missing = [x for x in e_set if x not in a_set]
        extra = [x for x in a_set if x not in e_set]
        out = []
        if missing:
            out.append(f"it is missing {', '.join(map(repr, missing))}")
        if extra:
            out.append(f"it should not contain {', '.join(map(repr, extra))}")
        if not out and ordered and answer != e_set:
            out.append("it has the right items in the wrong order")
        if not out and len(answer) != len(e_set):
            out.append("it repeats an item")
        return out
    if len(answer) != len(expected):
        return [f"it should have {len(expected)} items, got {len(answer)}"]
    out = []
    for i, (a, e) in enumerate(zip(answer, expected)):
        label = labels[i] if labels else f"item {i}"
        a = _plain(a)
        if isinstance(e, numbers.Real) and not isinstance(e, bool):
            out += _number_mistakes(label, a, e, unit, tol, rel)
        elif a != e:
            out.append(f"{label} = {_short(a)} is not it")
    return out


def grade(name: str, answer: Any, expected: Any, *, unit: str = "", tol: float | None = None,
          rel: float | None = None, choices: Sequence[str] | None = None, labels: Sequence[str] | None = None,
          ordered: bool = True, right: str = "", hint: str = "") -> Verdict:
    """The :class:`Verdict` on ``answer`` (the value of the variable ``name``) against ``expected``.

    Numbers agree within ``tol`` (absolute, in ``unit``) or ``rel`` (relative); integers must be
    equal unless a tolerance is given. Texts agree ignoring case and surrounding spaces
    (``choices``: the allowed texts). Sequences agree item by item (``labels`` name the items, e.g.
    ``("x", "y", "z")``); lists of texts may be ``ordered`` or not. ``right`` is shown with the
    tick, ``hint`` under the mistakes.
    """
    answer = _plain(answer)
    expected = _plain(expected)
    if answer is Ellipsis:
        expect = f"{_kind(expected)}" + (f", in {unit}" if unit else "")
        return Verdict(name, False, False, [expect], right, hint)
    if isinstance(expected, bool):
        if not isinstance(answer, bool):
            if isinstance(answer, str) and answer.strip().lower() in ("true", "false"):
                mistakes = [f"it should be True or False without quotes, got the text {_short(answer)}"]
            else:
                mistakes = [f"it should be True or False, got {_type_name(answer)} {_short(answer)}"]
        else:
            mistakes = [] if answer == expected else [f"{answer} is not it"]
    elif isinstance(expected, numbers.Real):
        mistakes = _number_mistakes("", answer, expected, unit, tol, rel)
    elif isinstance(expected, str):
        mistakes = _text_mistakes(answer, expected, choices)
    elif isinstance(expected, Sequence):
        mistakes = _sequence_mistakes(answer, expected, unit, tol, rel, labels, ordered)
    else:
        mistakes = [] if answer == expected else [f"{_short(answer)} is not it"]
    return Verdict(name, not mistakes, True, mistakes, right, hint)


def check(name: str, answer: Any, expected: Any, **options: Any) -> None:
    """Print the verdict of :func:`grade` (same arguments): one line per mistake, or a tick. Never raises.
    When the cell that sets ``name`` last stopped on an error, says so instead of grading the old value."""
    failed = failed_answer_cell(name)
    if failed:
        print(failed)
        return
    try:
        verdict = grade(name, answer, expected, **options)
    except Exception as exc:  # a checker bug must not look like the student's mistake
        print(f"{WRONG} {name}: the check itself failed ({type(exc).__name__}: {exc}); please report it")
        return
    print(verdict)


def grade_function(name: str, fn: Any, cases: Mapping[str, tuple[tuple[Any, ...], Any]], *, right: str = "",
                   hint: str = "") -> Verdict:
    """Call ``fn(*args)`` for each ``label: (args, expected)`` of ``cases``; one line per case it gets wrong
    (a wrong result, ``None`` from a missing ``return``, or the exception it raised, as one line)."""
    if fn is Ellipsis:
        return Verdict(name, False, False, ["a function"], right, hint)
    if not callable(fn):
        return Verdict(name, False, True, [f"it should be a function (def {name}(...):), got {_type_name(fn)}"],
                       right, hint)
    mistakes: list[str] = []
    results = []
    raised: dict[str, list[str]] = {}  # one line per distinct error, naming the cases it came from
    for label, (args, expected) in cases.items():
        try:
            got = _plain(fn(*args))
        except Exception as exc:  # the student's code: one line, no traceback
            text = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}".rstrip(": ")
            if text not in raised:
                raised[text] = []
                mistakes.append(text)  # placeholder, worded below once every case ran
            raised[text].append(label)
            results.append(exc)
            continue
        results.append(got)
        if got is None:
            mistakes.append(f"on {label} it returned None: did you forget `return`?")
        elif isinstance(expected, bool) and not isinstance(got, (bool, numbers.Integral)):
            mistakes.append(f"on {label} it returned {_type_name(got)} {_short(got)}, not True or False")
        elif bool(got) != expected if isinstance(expected, bool) else got != expected:
            mistakes.append(f"on {label} it returned {_short(got)}, expected {_short(expected)}")
    if results and all(r is None for r in results):
        return Verdict(name, False, False, ["the function still returns nothing"], right, hint)
    mistakes = [_raised_line(m, raised[m], len(cases)) if m in raised else m for m in mistakes]
    return Verdict(name, not mistakes, True, mistakes, right, hint)


def _raised_line(error: str, labels: list[str], n_cases: int) -> str:
    if len(labels) == 1:
        return f"on {labels[0]} it raised {error}"
    where = f"on every case ({n_cases})" if len(labels) == n_cases else "on " + ", ".join(labels[:-1]) + f" and {labels[-1]}"
    return f"{where} it raised {error}"


# ------------------------------------------------------------------- the answer cell's last run

#: the cells this kernel ran since the module was imported: (source, the error that stopped it or None)
_CELLS: list[tuple[str, BaseException | None]] = []


def _record_cell(result: Any) -> None:
    """IPython's ``post_run_cell``: remember each cell's source and whether it stopped on an error."""
    err = getattr(result, "error_before_exec", None) or getattr(result, "error_in_exec", None)
    _CELLS.append((getattr(getattr(result, "info", None), "raw_cell", "") or "", err))
    del _CELLS[:-500]


def _watch_cells() -> None:
    """Hear about every cell run in this IPython kernel (nothing outside IPython)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell, "_smrnb_lessons_watch", False):
        return
    shell.events.register("post_run_cell", _record_cell)
    shell._smrnb_lessons_watch = True


def _defines(source: str, name: str) -> bool:
    n = re.escape(name)
    return re.search(rf"^\s*(def\s+{n}\b|class\s+{n}\b|{n}\s*(:[^=\n]*)?[-+*/%@&|^]?=(?!=))", source, re.M) is not None


def failed_answer_cell(name: str) -> str | None:
    """When the latest cell that sets ``name`` stopped on an error (a SyntaxError, a NameError...), the
    line saying so: the check would otherwise grade the value ``name`` had before (the ``...`` or an old
    answer). None when that cell ran through, or when no such cell was seen."""
    for source, err in reversed(_CELLS):
        if _defines(source, name):
            if err is None:
                return None
            where = f" (line {err.lineno})" if isinstance(err, SyntaxError) and err.lineno else ""
            what = (err.msg if isinstance(err, SyntaxError) else str(err).splitlines()[0] if str(err) else "")[:120]
            return (f"{WRONG} {name}: the cell that defines it stopped with {type(err).__name__}{where}: {what}; "
                    "fix it and run that cell again (nothing was checked: the old value would be graded)")
    return None


def check_function(name: str, fn: Callable[..., Any] | Any, cases: Mapping[str, tuple[tuple[Any, ...], Any]],
                   **options: Any) -> None:
    """Print the verdict of :func:`grade_function` (same arguments). Never raises. When the cell that
    defines ``name`` last stopped on an error, says so instead of calling the old definition."""
    failed = failed_answer_cell(name)
    if failed:
        print(failed)
        return
    try:
        verdict = grade_function(name, fn, cases, **options)
    except Exception as exc:
        print(f"{WRONG} {name}: the check itself failed ({type(exc).__name__}: {exc}); please report it")
        return
    print(verdict)


_watch_cells()

__all__ = ["Verdict", "check", "check_function", "failed_answer_cell", "grade", "grade_function"]
