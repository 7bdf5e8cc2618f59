# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A success phrase after an error makes the error one of before only where the words say the run now succeeds
(round 23): a line of its own or a sentence that states it; not negated, not a question, not a plan or a TODO,
not taken back after it. The phrases docs/troubleshooting.md names keep working."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import _went_well, explain_result
from smrnb.doctor._report import Report

ERROR = "OSError: libcublas.so.12: cannot open shared object file: No such file or directory\n"


def _report(text: str) -> Report:
    res = explain_result(text, similar=False)
    return Report(res.facts, res.findings, {"recognised": res.recognised}, secrets=[])


@pytest.mark.parametrize("line", [
    # the docs' phrases: a rerun OK, all good, epoch 1 finished, pytest's summary, "your run did not fail"
    "rerun OK",
    "all good",
    "epoch 1 finished",
    "==================== 12 passed in 3.40s ====================",
    "your run did not fail",
    # the same in sentences that state them
    "Reinstalled the wheel from the cu12 index, rerun OK",
    "[12:01:07] step 400/400 -- all good",
    "Pinned the driver and rebooted. All good!",
    "epoch 3/20 done",
    "Nightly build completed successfully.",
    "This is just the changelog; the build didn't fail.",
    "after the retry it works now",
])
def test_a_line_that_says_the_run_now_succeeds_makes_the_error_one_of_before(line):
    text = ERROR + line + "\n"
    assert _went_well(text)
    res = explain_result(text, similar=False)
    assert res.findings and all(f.severity == "info" for f in res.findings)
    assert res.findings[0].title.startswith("before, not now")
    assert _report(text).exit_code == 0


@pytest.mark.parametrize("line", [
    # negated
    "it is not all good -- the loader still cannot find it",
    "nope, isn't all good yet",
    "Never all good on the login node",
    "hardly all tests passed: 3 of 40",
    # asked
    "so is it all good now?",
    "rerun ok? no idea yet",
    "did the job didn't fail?",
    "Are all tests passed",
    # planned, a TODO, a condition
    "FIXME: check that all tests passed on CI",
    "we need to make sure the build did not fail",
    "once the new image is pushed it should be all good",
    "if the retry succeeded we ship",
    "Plan for Monday: rerun ok then tag",
    # taken back after it
    "all good except the GPU tests",
    "all good, but import still breaks",
    "all good before the driver update",
])
def test_a_success_phrase_that_does_not_say_the_run_now_succeeds_keeps_the_error(line):
    text = ERROR + line + "\n"
    assert not _went_well(text)
    res = explain_result(text, similar=False)
    assert res.findings[0].code == "library_not_found" or res.findings[0].severity == "error"
    assert not any(f.title.startswith("before, not now") for f in res.findings)
    assert _report(text).exit_code == 1
