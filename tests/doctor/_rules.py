"""What the doctor's rules alone make of a text, for the tests of the rules' readings."""

from __future__ import annotations

from smrnb.doctor._explain import explain_text


def rule_codes(text: str, facts=None, n: int = 2) -> list[str]:
    """The first ``n`` codes the rules give ``text`` (with ``facts`` of a machine when given); the readings of
    similar known reports are left out (tests/doctor/test_similar.py tests those)."""
    return [f.code for f in explain_text(text, facts, similar=False)][:n]
