# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Planted secrets never appear in any rendering, in-process or through the CLI."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from smrnb.doctor import Report, diagnose, explain
from smrnb.doctor._model import Finding, Fix, ProbeContext
from smrnb.doctor._redact import sanitize, secret_values
from smrnb.doctor.probes import collect

SECRETS = {
    "MY_API_TOKEN": "sekrit123",
    "DB_PASSWORD": "hunter2-pw",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMIK7MDENGbPxRfiCY",
    "HF_TOKEN": "hf_abcdefghijklmnop",
}


def _renderings(rep: Report) -> list[str]:
    return [rep.to_text(verbose=True), rep.to_json(), rep.to_markdown(redact=True), rep.to_markdown(redact=False),
            rep._repr_html_() or "", repr(rep), str(rep.to_dict())]


def _assert_clean(texts) -> None:
    for t in texts:
        for v in SECRETS.values():
            assert v not in t


def test_sanitize_removes_values_keys_and_assignments():
    secrets = secret_values(SECRETS)
    obj = {"env": dict(SECRETS, PATH="/usr/bin"), "cmd": "run --token sekrit123 now",
           "line": "export OTHER_SECRET=zzz-unknown-value; ok", "n": [("hunter2-pw",)]}
    out = sanitize(obj, secrets)
    assert out["env"]["MY_API_TOKEN"] == "<redacted>" and out["env"]["PATH"] == "/usr/bin"
    assert out["cmd"] == "run --token <redacted> now"
    assert out["line"] == "export OTHER_SECRET=<redacted>; ok"  # name-based even for unknown values
    assert out["n"] == [("<redacted>",)]
    # trivial values of secret-named variables are not treated as secrets (would wreck every text)
    assert secret_values({"USE_KEYRING": "1", "GPG_KEY": "true"}) == []


def test_report_sanitizes_facts_and_findings(monkeypatch):
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    facts = {"context": {"status": "ok", "cmdline": "jupyter lab --token sekrit123", "env": dict(SECRETS)},
             "jupyter": {"status": "ok", "kernelspec": {"name": "p", "env": {"DB_PASSWORD": "hunter2-pw"}}}}
    f = Finding("kernelspec_env", "jupyter", "warning", "kernelspec env sets HF_TOKEN=hf_abcdefghijklmnop",
                ("MY_API_TOKEN=sekrit123",), Fix("x", ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCY",)))
    _assert_clean(_renderings(Report(facts, [f])))


def test_diagnose_and_explain_with_planted_secrets(monkeypatch):
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    ctx = ProbeContext(timeout=2.0)
    assert ctx.environ["MY_API_TOKEN"] == "sekrit123"
    facts = collect(ctx)
    _assert_clean([str(facts)])
    _assert_clean(_renderings(diagnose(timeout=2.0)))
    text = "MY_API_TOKEN=sekrit123 python x.py\nImportError: libc10.so: cannot open shared object file: hunter2-pw"
    _assert_clean(_renderings(explain(text, live=False)))
    # an error explain does not recognise lists what it read: that list goes through redaction too
    unknown = ("MY_API_TOKEN=sekrit123 CUDA_HOME=/opt/hunter2-pw/cuda python x.py\nthe frobnicator gave up "
               "(torch 2.4.0+cu121, libfoo-sekrit123.so.1)")
    rep = explain(unknown, live=False)
    assert not rep.recognised and rep.meta["read"]
    _assert_clean(_renderings(rep))


@pytest.mark.slow
def test_cli_outputs_with_planted_secrets(tmp_path):
    env = dict(os.environ, **SECRETS, JUPYTER_DATA_DIR=str(tmp_path))
    runs = [["--json"], ["--markdown"], [], ["explain", "--offline", "HF_TOKEN=hf_abcdefghijklmnop libc10.so: "
                                                "cannot open shared object file"], ["fix", "snippets"],
            ["fix", "kernelspec", "--dry-run"], ["explain", "--offline", "HF_TOKEN=hf_abcdefghijklmnop the "
                                                     "frobnicator gave up"]]
    for args in runs:
        p = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", *args], capture_output=True, text=True,
                           timeout=60, env=env)
        assert p.returncode in (0, 1, 3), (args, p.stderr)
        _assert_clean([p.stdout, p.stderr])
