# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 32: a module only its project's source tree builds (tables/source_built_modules.csv) is never reinstalled
by name from PyPI, whatever pip options the rule's command carries before the name: the table's own build command in
the project's checkout is printed instead (round 29's rewrite read only '--force-reinstall [--no-deps] NAME')."""

from __future__ import annotations

import re

import pytest

from smrnb.doctor._explain import explain_result


@pytest.mark.parametrize("text,module,build", [
    ('Traceback (most recent call last):\n  File "core/corr.py", line 80, in __call__\n'
     "    corr, = corr_sampler.forward(volume, coords, self.radius)\nNameError: name 'corr_sampler' is not defined",
     "corr_sampler", "cd sampler && "),
    ("ModuleNotFoundError: No module named 'alt_cuda_corr'", "alt_cuda_corr", "cd alt_cuda_corr && "),
])
def test_a_source_built_module_is_rebuilt_in_its_checkout_not_installed_by_name(text, module, build):
    res = explain_result(text)
    f = next(f for f in res.findings if f.code == "extension_not_compiled")
    cmds = f.fix.commands
    assert not [c for c in cmds if re.match(rf"pip install [^#]*\b{module}\b", c)], cmds
    assert any(c.startswith(build) for c in cmds), cmds


@pytest.mark.parametrize("key", ["dev15/nerfstudio-772", "dev21/jupyterhub-3007"])
def test_round32_rows_say_their_placeholders_in_words(key):
    # round 32's rows printed '<user>@<server>' and '<container>' with nothing saying what to put there
    from tests.doctor.test_fixes31a import _failures

    assert _failures(key) == []


def test_every_command_explain_prints_for_every_corpus_text_is_runnable_as_printed():
    """Every text of the corpus, as a person sees it (the rules' findings and the readings of similar reports): no
    printed command fails round 31a's checks (round 31a's permanent sweep reads a third of the texts, rules only;
    round 32's rows had two commands with placeholders nothing explained, in texts outside that third)."""
    from tests.doctor._cmdcheck31a import check
    from tests.doctor.test_fixes31a import _os, _rows

    bad, seen = [], 0
    for key, r in _rows().items():
        res = explain_result(r["text"])
        for f in res.findings:
            for c in f.fix.commands if f.fix else ():
                seen += 1
                got = check(c, _os(res), r["text"] + "\n" + f.title, f.fix.why)
                if got:
                    bad.append((key, f.code, c, got))
    assert seen > 10_000
    assert not bad, bad[:8]
