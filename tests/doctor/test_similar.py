"""Readings from similar known reports (smrnb.doctor._similar): the shipped index is current, a text no rule
matches gets guesses that never count as recognised, a text that is no failure gets none, and the readings
generalise to a corpus part they were not built from."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import smrnb
from smrnb.doctor import _similar
from smrnb.doctor._explain import explain_result

CORPUS = Path(__file__).parent / "corpus"
sys.path.insert(0, str(CORPUS))
import similar as build_script  # noqa: E402  (tests/doctor/corpus/similar.py)


def _rows(part: str) -> list[dict]:
    return [json.loads(ln) for ln in (CORPUS / f"{part}.jsonl").read_text(encoding="utf-8").splitlines() if ln.strip()]


def test_the_shipped_index_is_what_the_corpus_builds():
    assert build_script.main(["check"]) == 0, "run: python tests/doctor/corpus/similar.py build"
    shipped = _similar.shipped()
    assert shipped is not None and len(shipped.reports) > 500
    for held in build_script.HELD_OUT:  # a held-out part never feeds the index it is scored with
        ids = {r["id"] for r in _rows(held)}
        assert not ids & {r.id for r in shipped.reports}, held


def test_each_reports_nearest_neighbour_in_the_index_has_its_cause():
    idx = _similar.shipped()
    rows = [r for p in build_script.parts() for r in _rows(p) if r["cause"] != "unknown"]
    nearest = [idx.nearest(r["text"], 1) for r in rows]
    hits = sum(1 for r, near in zip(rows, nearest) if near and near[0][0].cause == r["cause"])
    assert hits / len(rows) > 0.95, (hits, len(rows))


def test_readings_generalise_to_a_part_the_index_was_not_built_from():
    # heldout4 left out of the index: its texts' causes among the two readings for well over half of them
    # (the rules alone, before heldout4 was worked on, recognised 65 %; this is the readings alone)
    idx = build_script.built(exclude=("heldout4",))
    rows = [r for r in _rows("heldout4") if r["cause"] != "unknown"]
    right = sum(bool({r["cause"], *r["also"]} & {x.code for x in idx.readings(r["text"], 2)}) for r in rows)
    assert right / len(rows) >= 0.55, (right, len(rows))


def _unrecognised_with_readings() -> str:
    """A real text no rule recognises that gets readings from an index without its part."""
    for part in ("dev6", "heldout4", "heldout3", "heldout2", "heldout", "dev", "test"):
        idx = build_script.built(exclude=(part,))
        for r in _rows(part):
            if not explain_result(r["text"], similar=False).recognised and explain_result(r["text"], similar=idx).findings:
                return r["text"]
    pytest.skip("every corpus text is recognised by a rule now")


def test_a_guess_never_makes_a_text_recognised():
    text = _unrecognised_with_readings()
    res = explain_result(text)
    assert not res.recognised
    assert res.findings and all(f.sources == ("similar reports",) and f.severity == "info" for f in res.findings)
    assert all(any(e.startswith("like https://") for e in f.evidence) for f in res.findings)
    rep = smrnb.explain(text)
    assert rep.exit_code == 3 and not rep.recognised
    out = str(rep)
    assert out.splitlines()[0].startswith("smrnb doctor: NOT RECOGNISED")
    assert "a guess to check, not a finding" in out
    d = json.loads(rep.to_json())
    assert d["recognised"] is False and d["next_steps"]
    from smrnb.doctor._magics import diagnosis_line
    assert diagnosis_line(text) is None  # the hook says nothing it does not know


def test_rule_findings_come_first_and_one_reading_at_most_follows_them():
    for r in _rows("dev")[:60]:
        res = explain_result(r["text"])
        rules = [f for f in res.findings if "similar reports" not in f.sources]
        guesses = [f for f in res.findings if "similar reports" in f.sources]
        assert res.findings[: len(rules)] == rules
        if rules:
            assert len(guesses) <= (1 if len(rules) == 1 else 0)
        assert len({f.code for f in res.findings}) == len(res.findings)


@pytest.mark.parametrize("text", [
    "hello world, my cat sat on the mat",
    "Epoch 3/10 loss 0.213 accuracy 0.94",
    "",
    "   \n\t",
    "import torch\nx = torch.zeros(3)\nprint(x)",
    # a healthy training log: its error words are metrics
    "epoch 12 | train_loss 0.18 | val_error 0.041 | error rate 4.1% | cuda mem 7.9GB\n"
    "mean absolute error on test: 0.0387, no errors in 10000 samples, CUDA kernels ok\n",
    "WARNING:absl:Found untraced functions while saving\nINFO:tensorflow:Assets written\nTraining finished.\n",
    # failures outside the field: the network, a key, a file of the user's
    "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/api/models",
    "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
    "    cfg = json.load(open('config.json'))\nFileNotFoundError: [Errno 2] No such file or directory: 'config.json'",
    # a bug in the user's own code, though the text names torch and CUDA elsewhere
    "torch 2.1.0+cu121, CUDA 12.1, driver 535\nTraceback (most recent call last):\n  File \"eval.py\", line 30, in "
    "<module>\n    model.load_state_dict(ckpt['state_dict'])\nKeyError: 'state_dict'",
    # the machine's other resources: a full disk, a job's time limit, the host's OOM killer
    "torch.save(model, '/scratch/ckpt.pt')\nRuntimeError: [enforce fail at inline_container.cc:595] . unexpected "
    "pos 1472 vs 1364\nOSError: [Errno 28] No space left on device",
    "slurmstepd: error: *** JOB 77 ON gpu-node-3 CANCELLED AT 2026-01-02T03:04:05 DUE TO TIME LIMIT ***",
    # (round 25: a Slurm step's oom-kill event has a code now, host_memory_exhausted: tests/doctor/test_codes25n.py)
])
def test_a_text_that_is_no_failure_of_the_field_gets_no_reading(text):
    res = explain_result(text)
    # (round 28a) a built-in exception on the person's own values in their own file (a config file they open, a key of
    # their checkpoint) is read by a rule as the person's code (user_code_error, info): never as a setup problem
    assert not res.recognised or [(f.code, f.severity) for f in res.findings] == [("user_code_error", "info")]
    assert not [f for f in res.findings if "similar reports" in f.sources]


@pytest.mark.parametrize("text", [
    "Traceback (most recent call last):\n  File \"run.py\", line 2, in <module>\n    print(1/0)\n"
    "ZeroDivisionError: division by zero",
])
def test_a_plain_bug_the_persons_code_raised_reads_as_theirs_first(text):
    # (round 34: until then such a text got no reading) only the causes that say it is not the setup, the person's
    # code first: the reports' own vote put "a library's bug" first for a division by zero in the person's script
    res = explain_result(text)
    assert not res.recognised
    codes = [f.code for f in res.findings]
    assert codes and codes[0] == "user_code_error", codes
    assert set(codes) <= _similar.NOT_THE_SETUP
    assert all("similar reports" in f.sources for f in res.findings)


def test_an_operation_on_none_in_the_persons_code_is_read_by_a_rule_as_theirs():
    # a plain bug whose only field word is a quoted attribute name: round 34 gave it the readings, the person's code
    # first; round 35b's rule reads CPython's words for an operation on None raised in the person's own frame
    text = ("Traceback (most recent call last):\n  File \"infer.py\", line 12, in <module>\n    img = img.cuda()\n"
            "AttributeError: 'NoneType' object has no attribute 'cuda'")
    res = explain_result(text)
    codes = [f.code for f in res.findings]
    assert codes and codes[0] == "user_code_error", codes
    assert "similar reports" not in res.findings[0].sources
    assert set(codes) <= _similar.NOT_THE_SETUP


@pytest.mark.parametrize("text", [
    "AssertionError: Torch not compiled with CUDA enabled",
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old",
    "XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed.",
    "nvcc fatal : Unsupported gpu architecture 'compute_90'",
    "FileNotFoundError: [Errno 2] No such file or directory: ':/usr/local/cuda:/usr/local/cuda-10.1/bin/nvcc'",
    # a person's own words for the failure, no error word and no exception
    "after the driver update i can not use nvidia-smi in wsl2 any more",
    "How do I make o3d.core.cuda.is_available() True? I have an NVIDIA GPU but it still returns False",
    "the target device or backend do not support efficient float16 computation (GTX 1070)",
    "my RTX 3060 stopped working in docker after the container toolkit update",
])
def test_the_fields_own_failures_may_get_readings(text):
    assert _similar.reads_as_a_failure_of_the_field(text)


@pytest.mark.parametrize("text", [
    "training on the GPU works now, thanks: loss 0.12 after 3 epochs",
    "the CUDA build supports sm_90 and runs on the H100 with torch 2.4",
    "Does torch support CUDA 12.4 on Windows? Just asking before I install it.",
])
def test_a_persons_words_that_tell_of_no_failure_do_not_open_the_gate(text):
    assert not _similar.reads_as_a_failure_of_the_field(text)


def _one_rule_and_guesses(codes: list[str]) -> list[str]:
    """The codes explain lists for a text one rule read (``no_kernel_image_for_gpu``) when the readers vote for
    ``codes`` (each with 0.4 of the vote and a nearest report of similarity 0.5)."""
    from smrnb.doctor._explain import _similar_findings
    from smrnb.doctor._model import Finding

    rep = _similar.Report("r", "https://example.org/r", codes[0], (), "a fix", {"x": 1.0})

    class Votes:
        def readings(self, text, n=2, **kw):
            return [_similar.Reading(c, 0.4, 0.5, ((rep, 0.5),), 1) for c in codes][:n]

    rule = Finding("no_kernel_image_for_gpu", "torch", "error", "no kernel image")
    return [f.code for f in [rule, *_similar_findings("CUDA error: no kernel image", [rule], Votes())]]


def test_beside_a_rules_finding_a_guess_may_be_an_error_or_a_warning_never_a_note():
    # library_bug (a warning: the project's code) and multiple_cuda_toolkits (a warning) are causes of a failure;
    # user_code_error is a note ("not your environment"): it never follows a rule's cause as a guess
    assert _one_rule_and_guesses(["library_bug"]) == ["no_kernel_image_for_gpu", "library_bug"]
    assert _one_rule_and_guesses(["multiple_cuda_toolkits"]) == ["no_kernel_image_for_gpu", "multiple_cuda_toolkits"]
    assert _one_rule_and_guesses(["user_code_error"]) == ["no_kernel_image_for_gpu"]
    assert _one_rule_and_guesses(["user_code_error", "library_bug"]) == ["no_kernel_image_for_gpu", "library_bug"]


def test_a_text_the_gate_holds_back_gets_readings_only_when_a_known_report_is_very_like_it():
    # a plain bug's last exception (AttributeError) and no error word of the field: held back, unless a known
    # report reads almost the same (a module that lost an attribute in another version); never beside the network
    text = ("AttributeError: module 'open3d' has no attribute 'registration'\n\n"
            "When I preprocessed 3DMatch training data, I got the error")
    assert not _similar.reads_as_a_failure_of_the_field(text)
    read = _similar.shipped().readings(text)
    assert read and read[0].similarity >= _similar.HIGH_SIMILARITY
    assert not _similar.shipped().readings(text + "\nConnection refused")


def test_without_an_index_explain_gives_the_rules_alone(monkeypatch):
    text = _unrecognised_with_readings()
    monkeypatch.setattr(_similar, "INDEX", Path("/nonexistent/similar_reports.json"))
    _similar.shipped.cache_clear()
    try:
        assert explain_result(text).findings == []
    finally:
        monkeypatch.undo()
        _similar.shipped.cache_clear()


def test_a_guess_beside_a_rules_reading_says_it_is_a_guess_on_its_line():
    for part in ("dev6", "dev7", "dev", "test"):
        for r in _rows(part):
            rep = smrnb.explain(r["text"], live=False)
            srcs = [f.sources for f in rep.findings]
            if rep.recognised and len(srcs) >= 2 and srcs[0] != ("similar reports",) and ("similar reports",) in srcs:
                lines = str(rep).splitlines()
                guess_lines = [ln for ln in lines if ln.startswith("or") and "similar reports" in ln]
                assert guess_lines and all("a guess from similar reports (not a finding)" in ln for ln in guess_lines)
                return
    pytest.skip("no corpus text gets a rule's reading and a guess beside it")


def test_naive_bayes_posterior_is_a_distribution_that_favours_the_cause_of_shared_terms():
    reports = [_similar.Report(f"r{i}", "https://example.org", cause, (), "", weights) for i, (cause, weights) in
               enumerate([("a", {"libcudart": 0.8, "cannot open": 0.6}), ("a", {"libcudart": 1.0}),
                          ("b", {"no kernel": 0.7, "image": 0.7}), ("b", {"image": 1.0})])]
    idx = _similar.Index({"libcudart": 1.0, "cannot open": 1.0, "no kernel": 1.0, "image": 1.0}, reports)
    post = idx.bayes({"libcudart": 2.0, "cannot open": 1.0})
    assert abs(sum(post.values()) - 1) < 1e-9 and post["a"] > 0.9 > post["b"]


def _tiny_index() -> _similar.Index:
    """An index of eight made-up reports: three of an installed library's changed API raising a plain bug in its own
    files, five of a CUDA runtime library missing (a term in half of the reports or more carries no weight)."""
    lib = ('Traceback (most recent call last):\n  File "run_{n}.py", line 9, in <module>\n    out = model.render(x)\n'
           '  File "/opt/conda/lib/python3.10/site-packages/meshkit/render.py", line {n}, in render\n'
           '    self.backend.rasterize_points(x)\nAttributeError: \'Backend\' object has no attribute \'rasterize_points\'')
    cuda = "ImportError: libcudart.so.1{n}.0: cannot open shared object file: No such file or directory"
    rows = [{"id": f"lib-{n}", "url": f"https://example.org/lib/{n}", "cause": "package_api_version_mismatch",
             "text": lib.format(n=n), "fix": "install the release the code was written for"} for n in (1, 2, 3)]
    rows += [{"id": f"cuda-{n}", "url": f"https://example.org/cuda/{n}", "cause": "cudart_not_found",
              "text": cuda.format(n=n), "fix": "make the runtime visible"} for n in (1, 2, 3, 4, 5)]
    return _similar.Index.build(rows)


def test_a_plain_bug_raised_in_a_librarys_files_may_be_backed_by_a_clear_vote():
    # an AttributeError of a library's own object, raised in its site-packages file, no word of the field: held back
    # by the field's gate, yet a clear vote of the reports may read it (a library's changed API)
    text = ('Traceback (most recent call last):\n  File "demo.py", line 4, in <module>\n    img = model.render(pts)\n'
            '  File "/usr/lib/python3/dist-packages/meshkit/render.py", line 77, in render\n'
            '    self.backend.rasterize_points(pts)\n'
            "AttributeError: 'Backend' object has no attribute 'rasterize_points'")
    assert not _similar.reads_as_a_failure_of_the_field(text)
    assert _similar._fails_beside_a_vote(text)
    read = _tiny_index().readings(text)
    assert read and read[0].code == "package_api_version_mismatch"


@pytest.mark.parametrize("last", [
    "NameError: name 'rasterize_points' is not defined",
    "ZeroDivisionError: division by zero",
    "SyntaxError: invalid syntax",
    "KeyError: 'backend'",
])
def test_a_slip_in_the_persons_own_file_is_not_backed_by_a_vote(last):
    # the same words of a library, but the last exception is a plain bug raised in the person's own file: no
    # reading unless a known report is very like it
    text = ('Traceback (most recent call last):\n  File "demo.py", line 4, in <module>\n'
            '    img = model.render(pts) / count  # meshkit rasterize_points backend\n' + last)
    assert not _similar._fails_beside_a_vote(text)
    # ... while the same exception raised inside an installed package's files may be (a package that no longer
    # runs on this Python: a SyntaxError in its site-packages file)
    inside = text.replace('File "demo.py"', 'File "/home/u/.local/lib/python3.7/site-packages/meshkit/__init__.py"')
    assert _similar._fails_beside_a_vote(inside)


def test_words_that_tell_of_no_failure_are_not_backed_by_a_vote():
    assert not _similar._fails_beside_a_vote("meshkit render works now with the new backend, thanks")
