# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""(round 35) An import one slip off a widely used package, where the text does not show that package installed: the
import's misspelling (user_code_error, no install of the misspelt name), with or without the similar reports; not
where the import is written in an installed package's file, nor where the text names the package itself missing too."""

import pytest

from smrnb.doctor import explain
from smrnb.doctor._explain import explain_result


def _tb(name: str) -> str:
    return (f'Traceback (most recent call last):\n  File "p.py", line 1, in <module>\n    import {name}\n'
            f"ModuleNotFoundError: No module named '{name}'\n")


@pytest.mark.parametrize("name, meant", [("pandsa", "pandas"), ("tqmd", "tqdm"), ("trimsh", "trimesh"),
                                         ("matplotlb", "matplotlib")])
def test_a_misspelt_import_of_a_common_package_is_the_code_s_with_or_without_the_reports(name, meant):
    for similar in (False, True):
        res = explain_result(_tb(name), similar=similar)
        assert res.recognised
        assert [f.code for f in res.findings][:1] == ["user_code_error"], res.findings
        f = res.findings[0]
        assert f"a misspelling of {meant}" in f.title
        assert "python_package_missing" not in [g.code for g in res.findings]
        cmds = "\n".join(f.fix.commands)
        assert f"install {name}" not in cmds and f"import {meant}" in cmds


def test_the_report_prints_no_install_of_the_misspelt_name():
    text = explain(_tb("reqeusts"), live=False).to_text(verbose=True)
    assert "misspelling of requests" in text and "install reqeusts" not in text


def test_a_package_s_own_misspelt_import_is_not_the_person_s():
    text = ('Traceback (most recent call last):\n  File "/home/u/run.py", line 3, in <module>\n    import lib\n'
            '  File "/home/u/.venv/lib/python3.11/site-packages/lib/__init__.py", line 2, in <module>\n'
            "    import pandsa\nModuleNotFoundError: No module named 'pandsa'\n")
    codes = [f.code for f in explain_result(text, similar=False).findings]
    assert codes and codes[0] != "user_code_error", codes


def test_a_name_cut_short_beside_the_full_name_is_no_misspelling():
    text = ("ModuleNotFoundError: No module named 'torch_scatte\nI ran `python run.py` and "
            "`ModuleNotFoundError: No module named 'torch_scatter'` occurred.")
    codes = [f.code for f in explain_result(text, similar=False).findings]
    assert "user_code_error" not in codes, codes


def test_the_real_name_missing_is_still_an_install():
    codes = [f.code for f in explain_result(_tb("pandas"), similar=False).findings]
    assert codes[:1] == ["python_package_missing"], codes
