# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 36, auditor A (smr-doctor explain on odd input): M4 ("before, not now" from a code line or a success
taken back), M5 (an upgrade that ended the failure read as a regression), M6 (a job script and a conda environment
file given a cause and a similar-report guess) and L1 (a short hf_ token echoed). The texts are the auditor's."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from smrnb.doctor._redact import redact_text

CUDART = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"
NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
SBATCH = ("#!/bin/bash\n#SBATCH --job-name=recon\n#SBATCH --gres=gpu:1\n#SBATCH --export=NONE\nmodule load cuda/12.1\n"
          "python train.py\n")
CONDA_ENV = ("name: recon\nchannels:\n  - pytorch\n  - nvidia\ndependencies:\n  - python=3.10\n  - pytorch=2.1.0\n"
             "  - pytorch-cuda=12.1\n  - cudatoolkit=11.8\n")


def _explain(text: str, *args: str) -> tuple[int, dict, str]:
    """smr-doctor explain --offline (--json and the text form) on ``text``: exit status, JSON, text form."""
    run = [sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline", *args]
    js = subprocess.run([*run, "--json"], input=text, capture_output=True, text=True, timeout=120)
    plain = subprocess.run(run, input=text, capture_output=True, text=True, timeout=120)
    assert plain.returncode == js.returncode, (plain.stdout, js.stdout)
    return js.returncode, json.loads(js.stdout), plain.stdout


def _severities(report: dict) -> list[str]:
    return [f["severity"] for f in report["findings"]]


# M4 --------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("tail", ["print('all good')", 'print(f"all good")', "logger.info('finished successfully')",
                                  "echo 'all good'"])
def test_a_success_phrase_quoted_in_a_code_line_is_no_statement(tail):
    rc, report, out = _explain(f"{NO_KERNEL}\n{tail}\n")
    assert rc == 1 and "error" in _severities(report), out
    assert "before, not now" not in out


@pytest.mark.parametrize("later", ["nope, still broken", "never mind, it fails again", "spoke too soon",
                                   "still not working"])
def test_a_later_line_that_takes_all_good_back_keeps_the_error(later):
    rc, report, out = _explain(f"{CUDART}\nall good\n{later}\n")
    assert rc == 1 and "error" in _severities(report), out
    assert "before, not now" not in out


def test_near_miss_all_good_said_on_its_own_line_is_still_before_not_now():
    rc, report, out = _explain(f"{CUDART}\nrerun after the fix:\nall good\n")
    assert rc == 0 and set(_severities(report)) == {"info"}, out
    assert "before, not now" in out


# M5 --------------------------------------------------------------------------------------------------------------

def test_an_upgrade_that_ended_the_failure_is_an_error_of_before_and_no_regression():
    text = f"This used to fail with:\n{CUDART}\nbut after upgrading to torch 2.1 it works.\n"
    rc, report, out = _explain(text)
    assert rc == 0 and set(_severities(report)) == {"info"}, out
    assert "library_bug" not in [f["code"] for f in report["findings"]], out
    assert "regression_said" not in out


def test_near_miss_an_upgrade_that_began_the_failure_is_still_a_regression():
    rc, report, out = _explain(f"{NO_KERNEL}\nsince upgrading to torch 2.1 it fails, before it worked\n")
    assert rc == 1 and "library_bug" in [f["code"] for f in report["findings"]], out
    assert "before, not now" not in out


# M6 --------------------------------------------------------------------------------------------------------------

def test_a_job_script_with_no_error_gets_no_cause_and_no_guess():
    rc, report, out = _explain(SBATCH)
    assert rc == 3 and not report["findings"] and not report["recognised"], out
    assert "slurm_export_dropped_env" not in out and "slurm_gpu_request_rejected" not in out
    # the Python API's guess from similar reports too (explain's default)
    import smrnb
    rep = smrnb.explain(SBATCH, live=False)
    assert not rep.findings, rep.findings


def test_a_conda_environment_file_gets_a_labelled_note_of_its_two_cuda_pins_and_no_path():
    rc, report, out = _explain(CONDA_ENV)
    assert rc == 0 and _severities(report) == ["info"], out
    f = report["findings"][0]
    assert f["title"].startswith("a file, not a failure") and "drop cudatoolkit=11.8" in f["fix"]["why"], f
    assert "/usr/local/cuda" not in out and "export CUDA_HOME" not in out


def test_near_miss_a_job_script_pasted_with_its_error_keeps_the_reading():
    rc, report, out = _explain(SBATCH + "srun: error: node07: task 0: Exited with exit code 1\n" + CUDART + "\n")
    assert rc == 1 and "error" in _severities(report), out


# L1 --------------------------------------------------------------------------------------------------------------

def test_a_short_hf_token_is_redacted_in_every_form():
    token = "hf_QmZrT8vWx2LpNc4Ys7"
    text = f"{CUDART} {token}"
    for args in ((), ("--markdown",)):
        out = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline", *args], input=text,
                             capture_output=True, text=True, timeout=120).stdout
        assert token not in out and "libcudart.so.11.0" in out, out
    rc, report, out = _explain(text)
    assert token not in json.dumps(report)


@pytest.mark.parametrize("word", ["hf_hub_download", "hf_transformersmodelx", "hf_Abcdefghijklmn"])
def test_near_miss_words_starting_with_hf_stay(word):
    assert redact_text(f"call {word}(x)") == f"call {word}(x)"
