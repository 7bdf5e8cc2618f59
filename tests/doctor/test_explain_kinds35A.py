# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 35a (heldout19's misses, read by the tool's own message): Python's "partially initialized module P
(most likely due to a circular import)" on a released package P, with no file or the user's own P.py printed (a file
of the user's named like the package imports itself in its place: user_code_error).
Each kind has a wording not from the corpus and near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # CPython Python/ceval.c import_from, the corpus' form (no file printed: the reporter cut it)
    ("ImportError: cannot import name 'WhisperModel' from partially initialized module 'faster_whisper' (most likely "
     "due to a circular import)\nI got the following error, please help!\n", "user_code_error"),
    # the same with the user's file printed
    ("Traceback (most recent call last):\n  File \"/home/u/bot/main.py\", line 1, in <module>\n"
     "    from openai import OpenAI\n  File \"/home/u/bot/openai.py\", line 2, in <module>\n    from openai import OpenAI\n"
     "ImportError: cannot import name 'OpenAI' from partially initialized module 'openai' (most likely due to a "
     "circular import) (/home/u/bot/openai.py)\n", "user_code_error"),
    # Objects/moduleobject.c, before 3.13 and 3.13's form with the module's file
    ("Traceback (most recent call last):\n  File \"C:\\Users\\me\\Desktop\\cv2.py\", line 3, in <module>\n"
     "    img = cv2.imread('a.png')\nAttributeError: partially initialized module 'cv2' has no attribute 'imread' "
     "(most likely due to a circular import)\n", "user_code_error"),
    ("AttributeError: partially initialized module 'trimesh' from '/home/me/work/trimesh.py' has no attribute "
     "'load' (most likely due to a circular import)\n", "user_code_error"),
]


@pytest.mark.parametrize(("text", "code"), READINGS)
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text), rule_codes(text, n=4)


NEAR_MISSES = [
    # a cycle among the project's own modules (no released package): not read as a shadowing file
    ("AttributeError: partially initialized module 'dialogbox_app_prefs' has no attribute 'prefs' (most likely due to "
     "a circular import)\n", "user_code_error"),
    # the installed package's own files run in the traceback: its own cycle, not a file of the user's
    ("Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n    import transformers\n"
     "  File \"/opt/conda/lib/python3.10/site-packages/transformers/__init__.py\", line 26, in <module>\n"
     "    from . import dependency_versions_check\n"
     "  File \"/opt/conda/lib/python3.10/site-packages/transformers/dependency_versions_check.py\", line 16, in "
     "<module>\n    from .utils.versions import require_version\nImportError: cannot import name 'AutoConfig' from "
     "partially initialized module 'transformers' (most likely due to a circular import) "
     "(/opt/conda/lib/python3.10/site-packages/transformers/__init__.py)\n", "user_code_error"),
]


@pytest.mark.parametrize(("text", "code"), NEAR_MISSES)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text), rule_codes(text, n=4)
