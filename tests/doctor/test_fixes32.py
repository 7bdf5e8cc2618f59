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
