# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 23e: which release of which library removed what (``tables/removed_apis.csv``, an enumeration from
release notes, changelogs and migration guides, each row naming its source). Python's own forms of "this name is not
there" (``module 'X' has no attribute 'Y'``, ``cannot import name 'Y' from 'X'``, ``No module named 'X.Y'``, ``type
object 'C' has no attribute 'Y'``) and NumPy 2.0's own removal message, matched against the table, give
``package_api_version_mismatch`` naming the release that removed the name, its replacement, runnable commands and the
source; a release shown in the text older than the removal gives no such finding. Each text is written for the test
(other wordings, paths and libraries than the corpus threads); near-misses (a module of the project's own, a typo, a
name never in the library, an attribute of an object) must not get the table's finding."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from smrnb.doctor._codes import CODES
from smrnb.doctor._explain import explain_text

TABLE = Path(__file__).resolve().parents[2] / "smrnb" / "doctor" / "tables" / "removed_apis.csv"
ROWS = list(csv.DictReader(TABLE.open(encoding="utf-8")))


def _findings(text: str):
    return list(explain_text(text, None, similar=False))


def _removal(text: str):
    """The finding the table gave for ``text`` (its evidence names tables/removed_apis.csv), else None."""
    return next((f for f in _findings(text) if any("tables/removed_apis.csv" in str(e) for e in f.evidence)), None)


# (text, the release named in the title, the pin command's start, a word of the replacement line)
FORMS = [
    # module 'X' has no attribute 'Y'
    ("  File \"/srv/app/features.py\", line 41, in encode\n    weights = np.zeros(n, dtype=np.float)\n"
     "AttributeError: module 'numpy' has no attribute 'float'\n", "numpy 1.24", 'pip install "numpy<1.24"', "float"),
    ("Traceback (most recent call last):\n  File \"graphs/build.py\", line 9, in <module>\n    A = nx.to_numpy_matrix(G)\n"
     "AttributeError: module 'networkx' has no attribute 'to_numpy_matrix'\n", "networkx 3.0", 'pip install "networkx<3.0"',
     "to_numpy_array"),
    ("    from collections import Mapping as _M  # noqa\n  File \"/opt/py/lib/python3.11/site-packages/oldcfg/core.py\", "
     "line 3\nAttributeError: module 'collections' has no attribute 'Mapping'\n", "Python 3.10", "conda create",
     "collections.abc.Mapping"),
    ("  File \"thumbs.py\", line 7, in make\n    im = im.resize((64, 64), Image.ANTIALIAS)\n"
     "AttributeError: module 'PIL.Image' has no attribute 'ANTIALIAS'\n", "Pillow 10.0", 'pip install "Pillow<10.0"',
     "LANCZOS"),
    # cannot import name 'Y' from 'X'
    ("ImportError: cannot import name 'cached_download' from 'huggingface_hub' "
     "(/home/ci/.venv/lib/python3.12/site-packages/huggingface_hub/__init__.py)\n", "huggingface_hub 0.26",
     'pip install "huggingface_hub<0.26"', "hf_hub_download"),
    ("  File \"/usr/local/lib/python3.10/dist-packages/jinja2/__init__.py\"\nImportError: cannot import name "
     "'soft_unicode' from 'markupsafe' (/usr/local/lib/python3.10/dist-packages/markupsafe/__init__.py)\n",
     "MarkupSafe 2.1", 'pip install "MarkupSafe<2.1"', "soft_str"),
    ("ImportError: cannot import name 'simps' from 'scipy.integrate' (C:\\Tools\\env\\Lib\\site-packages\\scipy\\"
     "integrate\\__init__.py)\n", "scipy 1.14", 'pip install "scipy<1.14"', "simpson"),
    ("ImportError: cannot import name 'contextfilter' from 'jinja2' (/env/site-packages/jinja2/__init__.py)\n",
     "Jinja2 3.1", 'pip install "Jinja2<3.1"', "pass_context"),
    # No module named 'X.Y'
    ("  File \"/work/restore/degrade.py\", line 2, in <module>\n    from torchvision.transforms.functional_tensor import "
     "rgb_to_grayscale\nModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'\n",
     "torchvision 0.17", 'pip install "torch==2.1.*" "torchvision==0.16.*"', "torchvision.transforms.functional"),
    ("ModuleNotFoundError: No module named 'sklearn.externals.joblib'\n", "scikit-learn 0.23",
     'pip install "scikit-learn<0.23"', "joblib"),
    ("ModuleNotFoundError: No module named 'distutils'\n", "Python 3.12", "conda create -n py-older python=3.11",
     "setuptools"),
    ("  File \"setup_helpers.py\", line 1\n    from distutils.util import strtobool\nModuleNotFoundError: No module named "
     "'distutils.util'\n", "Python 3.12", "conda create", "setuptools"),
    ("ModuleNotFoundError: No module named 'imghdr'\n", "Python 3.13", "conda create -n py-older python=3.12", "filetype"),
    # type object 'C' has no attribute 'Y'
    ("AttributeError: type object 'Image' has no attribute 'LINEAR'\n", "Pillow 10.0", 'pip install "Pillow<10.0"',
     "BILINEAR"),
    # the library's own removal message
    ("AttributeError: `np.Infinity` was removed in the NumPy 2.0 release. Use `np.inf` instead.\n", "numpy 2.0",
     'pip install "numpy<2.0"', "np.inf"),
]


@pytest.mark.parametrize("text, release, pin, replacement", FORMS)
def test_each_form_names_the_release_its_replacement_the_commands_and_the_source(text, release, pin, replacement):
    f = _removal(text)
    assert f is not None, [(x.code, x.title) for x in _findings(text)]
    assert f.code == "package_api_version_mismatch"
    assert _findings(text)[0].code == "package_api_version_mismatch"
    assert f"removed in {release}" in f.title
    assert any(c.startswith(pin) for c in f.fix.commands[:2])  # (round 27e) a torch companion: the code change first
    # (a Windows text: cmd's comment line, round 26)
    # (round 28a, blind audit 27: the code change first wherever the row names one)
    assert any(c.startswith(("# or change the code:", "rem or change the code:", "# change the code:",
                             "rem change the code:")) and replacement in c
               for c in f.fix.commands)
    src = next(str(e) for e in f.evidence if "tables/removed_apis.csv" in str(e))
    assert "source: http" in src or "source: python/cpython" in src


def test_pillow_constants_keep_the_calling_librarys_reading_second():
    codes = [f.code for f in _findings("AttributeError: module 'PIL.Image' has no attribute 'CUBIC'\n")]
    assert codes[:2] == ["package_api_version_mismatch", "library_bug"]


@pytest.mark.parametrize("text", [
    "$ pip list | grep numpy\nnumpy                    1.21.6\nAttributeError: module 'numpy' has no attribute 'float'\n",
    "Successfully installed networkx==2.8.8\nAttributeError: module 'networkx' has no attribute 'to_numpy_matrix'\n",
    "  File \"/home/k/.pyenv/versions/3.9.18/lib/python3.9/site-packages/pkg/x.py\", line 2\nAttributeError: module "
    "'collections' has no attribute 'Mapping'\n",
])
def test_a_release_shown_older_than_the_removal_is_not_explained_by_the_table(text):
    assert _removal(text) is None


@pytest.mark.parametrize("text", [
    # a module of the project's own missing a name
    "  File \"/home/ana/proj/train.py\", line 4, in <module>\n    from proj.utils import load_cfg\nImportError: cannot "
    "import name 'load_cfg' from 'proj.utils' (/home/ana/proj/proj/utils.py)\n",
    "AttributeError: module 'helpers' has no attribute 'Mapping'\n",
    # a typo of a name the library has
    "AttributeError: module 'numpy' has no attribute 'flaot'\n",
    "ImportError: cannot import name 'hf_hub_downlaod' from 'huggingface_hub' (/v/site-packages/huggingface_hub/__init__.py)\n",
    # a name that was never in the library
    "ImportError: cannot import name 'TurboTrainer' from 'transformers' (/v/site-packages/transformers/__init__.py)\n",
    "ModuleNotFoundError: No module named 'torchvision.transforms.magic_ops'\n",
    # a name the library still has, of another module than the removed one
    "AttributeError: module 'scipy.special' has no attribute 'simps'\n",
    # an attribute of an object, not of a module
    "AttributeError: 'DataFrame' object has no attribute 'append'\n",
    "AttributeError: 'Image' object has no attribute 'ANTIALIAS'\n",
    "AttributeError: type object 'Config' has no attribute 'Mapping'\n",
])
def test_near_misses_get_no_removal_finding(text):
    assert _removal(text) is None
    assert not any(re.search(r"was removed in \S+ \d", f.title) for f in _findings(text))


@pytest.mark.parametrize("text", [
    "AttributeError: 'DataFrame' object has no attribute 'append'\n",
    "AttributeError: type object 'Config' has no attribute 'Mapping'\n",
    "AttributeError: module 'helpers' has no attribute 'Mapping'\n",
])
def test_an_object_or_a_module_of_the_projects_own_does_not_get_the_code(text):
    assert "package_api_version_mismatch" not in [f.code for f in _findings(text)]


def test_the_table_is_broad_and_every_row_names_its_source_and_verification():
    assert len(ROWS) >= 100
    assert len({r["library"] for r in ROWS}) >= 15
    keys = [r["key"] for r in ROWS]
    assert len(keys) == len(set(keys))
    for r in ROWS:
        assert r["source"].strip() and ("http" in r["source"] or "/" in r["source"]), r["key"]
        assert r["verified"] in ("yes", "partial"), r["key"]
        assert r["form"] in ("attribute", "import", "module", "keyword"), r["key"]  # (round 26a) keyword
        assert re.fullmatch(r"\d{1,3}\.\d{1,3}(?:\.\d{1,3})?", r["removed_in"]), r["key"]
        assert all(c in CODES for c in r["codes"].split("|")), r["key"]
        assert r["replacement"].strip(), r["key"]


@pytest.mark.parametrize("row", ROWS, ids=[r["key"] for r in ROWS])
def test_every_rows_example_matches_its_own_row(row):
    f = _removal(row["example"] + "\n")
    assert f is not None, row["key"]
    assert f.code == row["codes"].split("|")[0]
    assert f"tables/removed_apis.csv {row['key']}:" in " ".join(str(e) for e in f.evidence)
    assert f"removed in {'Python' if row['library'] == 'python' else row['library']} {row['removed_in']}" in f.title
