# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit cases that fail today, with the class each one shows (see BLIND_AUDIT.md).

``tests/audit/test_blind_audit.py`` marks each of them ``xfail(strict=True)``: a case that starts
passing fails the suite until its line is removed here.
"""

BLIND_KNOWN_FAILING: dict[str, str] = {
    "explain_all_at_once": "misleading",
    "explain_ansi_colours": "misleading",
    "explain_cli_crlf_and_colour_stdin": "misleading",
    "explain_fullwidth_nfkc": "misleading",
    "explain_hard_wrapped_40": "misleading",
    "explain_narrow_nbsp_and_thin_space": "misleading",
    "explain_nbsp": "misleading",
    "explain_soft_hyphen": "misleading",
    "explain_tabs": "misleading",
    "explain_zero_width_joiner_in_words": "misleading",
    "explain_zero_width_spaces": "misleading",
    "raw_explain_unknown_error_called_fine": "misleading",
}
