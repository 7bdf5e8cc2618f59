"""The agreement study's files (``tests/doctor/corpus/agreement``): every reading is of a text the study drew, in the
order it was given, with codes of the doctor's table; the draw is the one its README describes; the scorer runs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from smrnb.doctor._codes import CODES

HERE = Path(__file__).resolve().parent / "corpus" / "agreement"


def _score():
    spec = importlib.util.spec_from_file_location("agreement_score", HERE / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_draw_is_the_readme_s():
    s = _score()
    drawn = s.sample()
    assert len(drawn) == s.SAMPLE == 120
    assert {r["part"] for r in drawn} == set(s.SAMPLE_PARTS)
    assert len({r["id"] for r in drawn}) == 120


@pytest.mark.parametrize("name", ["expert_A", "expert_B", "expert_E", "expert_F", "expert_G", "expert_H", "expert_I",
                                  "expert_J", "expert_K", "expert_L", "expert_M", "expert_N", "expert_O",
                                  "expert_P", "expert_Q", "expert_R", "thread_C", "thread_D"])
def test_each_file_reads_its_texts_in_order_with_known_codes(name):
    s = _score()
    kind, which = s.READERS[name]
    rows = s.outputs(name)
    assert rows, f"{name}.jsonl is missing or empty"
    if isinstance(which, slice):
        want = [r["id"] for r in s.sample()[which]]
    else:
        if not (HERE.parent / f"{which}.jsonl").exists():
            pytest.skip(f"{which}.jsonl is not in this checkout")
        want = [r["id"] for r in s.labelled([which]).values()]
        if which in ("heldout18", "heldout19", "heldout21"):  # these parts' readers read them in id order
            want = sorted(want)
        if which == "heldout20":  # four readers, 43 texts each in the part's order (the last 41)
            quarter = "MNOP".index(name[-1])
            want = want[43 * quarter:43 * (quarter + 1)]
        else:
            half = {"heldout14": 71, "heldout17": 46, "heldout18": 41, "heldout19": 42, "heldout21": 45}[which]
            # the first reader of a part read its first half
            want = want[:half] if name in ("expert_E", "expert_G", "expert_I", "expert_K", "expert_Q") else want[half:]
    assert [r["id"] for r in rows] == want
    for r in rows:
        codes = r["codes"] if kind == "text" else [r["cause"], *r["also"]]
        assert 1 <= len(codes) <= (2 if kind == "text" else 4), r
        assert all(c in CODES or c == "unknown" for c in codes), r
        assert "unknown" not in codes or codes == ["unknown"], r
        if kind == "text":
            assert r["confidence"] in {"high", "medium", "low"}, r
        else:
            assert isinstance(r["found"], bool) and isinstance(r["resolution_seen"], bool), r


def test_the_scorer_runs_and_names_every_file():
    out = subprocess.run([sys.executable, str(HERE / "score.py")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    for name in ("expert_A", "expert_B", "thread_C", "thread_D"):
        assert name in out.stdout
