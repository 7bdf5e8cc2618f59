"""What the doctor's rules alone make of a text, for the tests of the rules' readings."""

from __future__ import annotations

import re
import time

from smrnb.doctor import tables
from smrnb.doctor._explain import explain_text


def rule_codes(text: str, facts=None, n: int = 2) -> list[str]:
    """The first ``n`` codes the rules give ``text`` (with ``facts`` of a machine when given); the readings of
    similar known reports are left out (tests/doctor/test_similar.py tests those)."""
    return [f.code for f in explain_text(text, facts, similar=False)][:n]


def assert_row_matches_its_example_and_stays_linear(table: str, key: str) -> None:
    """A message row of ``table`` matches its own example, and searching 200 kB that hold its pattern's words
    (an adversarial near-match) takes well under a second: no catastrophic backtracking."""
    row = next(r for r in tables.message_rows(table) if r.key == key)
    assert row.pattern.search(str(row.fields.get("example") or "")), key
    hay = "a" * 200_000 + " ".join(re.findall(r"[A-Za-z]{3,}", row.pattern.pattern)) * 200
    t0 = time.perf_counter()
    row.pattern.search(hay)
    assert time.perf_counter() - t0 < 0.5, key
