# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit cases that fail today, with the class each one shows (see BLIND_AUDIT.md).

``tests/audit/test_blind_audit.py`` marks each of them ``xfail(strict=True)``: a case that starts
passing fails the suite until its line is removed here.
"""

BLIND_KNOWN_FAILING: dict[str, str] = {
    # (empty since round 33w: explain_hard_wrapped_40, an error hard-wrapped at 40 columns mid-word, passes since
    # normalise undoes a terminal's hard wrap)
}
