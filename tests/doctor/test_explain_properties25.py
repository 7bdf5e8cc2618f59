# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Property sweeps of ``smrnb.explain`` from its public promises (issue 25), written from the documentation
(README, docs/troubleshooting.md, CODES.md) and the report's public API, not from the rules:

- any text gets a report, never an exception; its exit status is one of the documented 0 / 1 / 3, and 3 exactly
  when the report says the text was not recognised, on its first line and as ``"recognised": false`` in JSON;
- no text is answered with an all-clear: a recognised text with no error or warning carries a note with a fix
  (``user_code_error``: "this is not your environment", with what to look at);
- a secret of a documented kind (a vendor token, a key or password after its name, a URL's password, a bearer
  token) planted anywhere in an error text, beside any words, is in none of the outputs (text, JSON, markdown,
  HTML, ``str``), whole or as a piece of 10 of its random characters;
- the readings never name a cause for a text that tells of no failure.

hypothesis draws the texts (derandomised: CI sees the same draws on every run; no example database is written).
"""

from __future__ import annotations

import html
import json

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis (a test dependency) is not installed")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from smrnb._errors import SmrnbValueError  # noqa: E402
from smrnb.doctor import explain  # noqa: E402

SWEEP = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: fragments of the field's error texts; the sweep joins random ones with random glue, so most joined texts are
#: nonsense a rule may or may not read: the promises above hold for all of them
FRAGMENTS = [
    "Traceback (most recent call last):", '  File "/home/u/proj/train.py", line 12, in <module>',
    '  File "/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py", line 293, in _lazy_init',
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
    "OSError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found",
    "undefined symbol: _ZN3c104cuda20CUDACachingAllocator9allocatorE", "nvcc fatal : Unsupported gpu architecture 'compute_90'",
    "torch.__version__ 2.1.0+cu121", "Cuda compilation tools, release 11.8, V11.8.89", "CUDA_HOME=/usr/local/cuda-12.1",
    "NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2",
    "ModuleNotFoundError: No module named 'kaolin'", "Segmentation fault (core dumped)",
    "torch.cuda.is_available() returns False", "error: command '/usr/bin/gcc' failed with exit code 1",
    "ERROR: Failed building wheel for kaolin", "srun: error: gpu-3: task 0: Exited with exit code 1",
    "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "IndexError: index 5 is out of bounds for dimension 0 with size 3", "Killed", "hello", "", "...",
    "KeyError: 'model'", "warning: this is fine", "Jupyter kernel died", "sm_90", "TORCH_CUDA_ARCH_LIST=8.6",
]
GLUE = st.sampled_from(["\n", " ", "\r\n", "\t", ": ", "\n\n", " | "])


@st.composite
def error_like(draw) -> str:
    parts = draw(st.lists(st.sampled_from(FRAGMENTS), min_size=0, max_size=8))
    noise = draw(st.lists(st.text(max_size=40), max_size=3))
    pieces = parts + noise
    order = draw(st.permutations(pieces)) if pieces else []
    out = ""
    for p in order:
        out += p + draw(GLUE)
    return out


def _forms(rep) -> dict[str, str]:
    return {"text": rep.to_text(verbose=True), "json": rep.to_json(), "markdown": rep.to_markdown(),
            "html": html.unescape(rep._repr_html_() or ""), "str": str(rep)}


def _check_report(rep) -> None:
    assert rep.exit_code in (0, 1, 3)
    d = json.loads(rep.to_json())
    assert d["recognised"] is rep.recognised
    assert (rep.exit_code == 3) is (not rep.recognised)
    if not rep.recognised:
        assert "NOT RECOGNISED" in rep.to_text().splitlines()[0]
        assert d["next_steps"], "an unknown text names the next steps"
    else:
        assert rep.findings, "a recognised text has a finding"
        if rep.exit_code == 0:  # notes only: never an all-clear, a note that says what to look at instead
            assert any(f.fix is not None for f in rep.findings), rep.codes


def _check_text(text: str) -> None:
    """:func:`_check_report` of the text's report; an empty or white-space-only text is bad input (blind audit 36
    A-L3): SmrnbValueError, as the CLI's usage error."""
    if not text.strip():
        with pytest.raises(SmrnbValueError, match="needs an error text"):
            explain(text, live=False)
        return
    _check_report(explain(text, live=False))


@SWEEP
@given(error_like())
def test_any_error_like_text_gets_an_honest_report(text: str) -> None:
    _check_text(text)


@SWEEP
@given(st.text(max_size=3000))
def test_any_unicode_text_gets_an_honest_report(text: str) -> None:
    _check_text(text)


@SWEEP
@given(st.binary(max_size=2000))
def test_any_bytes_decoded_get_an_honest_report(raw: bytes) -> None:
    _check_text(raw.decode("utf-8", "replace"))


ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _rand(n: int):
    return st.text(alphabet=ALNUM, min_size=n, max_size=n)


@st.composite
def planted_secret(draw) -> tuple[str, str]:
    """(a line holding a secret of a documented kind, its random part)."""
    kind = draw(st.sampled_from(["ghp", "github_pat", "hf", "aws", "openai", "slack", "gitlab", "google",
                                 "password", "token_env", "url_password", "bearer"]))
    r = draw(_rand(36))
    # a random part with at least two letters and two digits: the shape of every real key
    r = "a1" + r[2:34] + "Z9"
    line = {
        "ghp": f"git clone https://ghp_{r}@github.com/org/repo.git",
        "github_pat": f"GITHUB_TOKEN=github_pat_11{r}_{r[:20]}",
        "hf": f"huggingface-cli login --token hf_{r[:34]}",
        "aws": f"AWS_SECRET_ACCESS_KEY={r[:20]}{r[:20]}",
        "openai": f"openai.api_key = 'sk-proj-{r}'",
        "slack": f"SLACK_BOT_TOKEN: xoxb-1234567890-1234567890123-{r[:24]}",
        "gitlab": f"pip install git+https://oauth2:glpat-{r[:20]}@gitlab.com/g/p.git",
        "google": f"key=AIza{r[:35]}",
        "password": f"db_password = \"{r[:16]}\"",
        "token_env": f"export WANDB_API_KEY={r}",
        "url_password": f"pip install -i https://user:{r[:18]}@pypi.corp.example/simple torch",
        "bearer": f"Authorization: Bearer {r}",
    }[kind]
    return line, r


@SWEEP
@given(planted_secret(), st.lists(st.sampled_from(FRAGMENTS), max_size=6), st.integers(min_value=0, max_value=6),
       GLUE)
def test_a_planted_secret_is_in_no_output(secret, context, where, glue) -> None:
    line, r = secret
    where = min(where, len(context))
    text = glue.join([*context[:where], line, *context[where:]])
    rep = explain(text, live=False)
    pieces = {r[i:i + 10] for i in range(0, len(r) - 9)}
    for form, out in _forms(rep).items():
        leaked = sorted(p for p in pieces if p in out)
        assert not leaked, (form, line, leaked[:3])


QUIET = ["hello world", "my cat sat on the mat", "The training finished in 3 hours and the loss went down.",
         "I installed the package and ran the notebook, all good", "Thanks for the great library!",
         "torch 2.1.0 with CUDA 12.1 on an A100", "nvidia-smi shows two GPUs", "see the attached log"]


@SWEEP
@given(st.lists(st.sampled_from(QUIET), min_size=1, max_size=5), GLUE)
def test_a_text_that_tells_of_no_failure_gets_no_cause(lines, glue) -> None:
    rep = explain(glue.join(lines), live=False)
    assert not rep.errors and not rep.warnings, rep.codes
    assert rep.exit_code in (0, 3)
