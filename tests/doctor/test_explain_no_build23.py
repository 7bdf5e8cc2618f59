# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 23d: a code of its own for "no build of this package for this platform"
(package_no_build_for_platform), split from kaolin_no_wheel_for_combo, which stays kaolin's (its own wheel pages).

pip's "Could not find a version that satisfies the requirement X (from versions: ...)" / "No matching distribution
found for X" (src/pip/_internal/resolution/resolvelib/factory.py), pip's "X.whl is not a supported wheel on this
platform" for another Python tag, uv's "has no wheels with a matching Python ABI / platform tag" and "doesn't have a
source distribution or wheel for the current platform", conda's PackagesNotFoundError and UnsatisfiableError chains:
for several packages and platforms, each finding names its own package (and its own index where the table knows one),
never kaolin. kaolin's own case keeps its code. Near-misses do not get the new code: a misspelt name (the command's
mistake first), an index pip never reached (DNS, proxy, TLS), a resolver conflict between two pins, uv's "not found in
the package registry". Each text is written for the test."""

from __future__ import annotations

import pytest

from smrnb.doctor._codes import CODES
from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

NEW = "package_no_build_for_platform"


def _pip(pkg: str, versions: str = "none", req: str = "") -> str:
    return (f"ERROR: Could not find a version that satisfies the requirement {pkg}{req} (from versions: {versions})\n"
            f"ERROR: No matching distribution found for {pkg}{req}\n")


# (text, the package the finding must name)
NO_BUILD = [
    # PyG's companions asked of PyPI alone (their CUDA builds live on data.pyg.org)
    ("$ pip install torch-scatter==2.1.2\n" + _pip("torch-scatter", req="==2.1.2"), "torch-scatter"),
    # open3d on a Python newer than its wheels
    ("(venv) $ python3.12 -m pip install open3d\n" + _pip("open3d"), "open3d"),
    # onnxruntime-gpu on aarch64 (Jetson, Graviton)
    ("$ uname -m\naarch64\n$ pip3 install onnxruntime-gpu\n" + _pip("onnxruntime-gpu"), "onnxruntime-gpu"),
    # torch itself on a Python too new for the release asked
    ("Python 3.13.1\n" + _pip("torch", "2.5.0, 2.5.1, 2.6.0", "==2.2.0"), "torch"),
    # pip's second line alone
    ("ERROR: No matching distribution found for tensorflow-gpu==2.12.0\n", "tensorflow-gpu"),
    # triton on Windows (Linux wheels only)
    ("PS C:\\Users\\lin> pip install triton\n" + _pip("triton"), "triton"),
    # a wheel of another Python tag
    ("ERROR: pytorch3d-0.7.4-cp38-cp38-manylinux2014_x86_64.whl is not a supported wheel on this platform.\n", "pytorch3d"),
    # uv's resolver: no wheel with a matching ABI / platform tag
    ("  × No solution found when resolving dependencies:\n  ╰─▶ Because only open3d<=0.18.0 is available and "
     "open3d<=0.15.2 has no wheels with a matching Python ABI tag (e.g., `cp313`), we can conclude that "
     "open3d<=0.15.2 cannot be used.\n      And because open3d>=0.16.0,<=0.18.0 has no wheels with a matching "
     "platform tag (e.g., `macosx_14_0_arm64`) and you require open3d, we can conclude that your requirements are "
     "unsatisfiable.\n", "open3d"),
    ("  ╰─▶ Because decord==0.6.0 has no wheels with a matching platform tag (e.g., `macosx_14_0_arm64`) and you "
     "require decord==0.6.0, we can conclude that your requirements are unsatisfiable.\n", "decord"),
    # uv sync: a locked distribution with no file for this platform
    ("error: Distribution `onnxruntime-gpu==1.19.2 @ registry+https://pypi.org/simple` can't be installed because it "
     "doesn't have a source distribution or wheel for the current platform\n", "onnxruntime-gpu"),
    # conda: a solver conflict that names the package, and channels with no build for this subdir
    ("UnsatisfiableError: The following specifications were found to be incompatible with each other:\n"
     "Package cudatoolkit conflicts for:\npytorch==1.4.0 -> cudatoolkit[version='>=10.1,<10.2']\n", "cudatoolkit"),
]


@pytest.mark.parametrize(("text", "pkg"), NO_BUILD)
def test_no_build_reads_as_the_new_code_and_names_its_package(text, pkg):
    f = explain_result(text, similar=False).findings[0]
    assert f.code == NEW and f.layer == CODES[NEW].layer
    words = " ".join([f.title, f.fix.why, *f.fix.commands]).lower()
    assert pkg in words and "kaolin" not in words


@pytest.mark.parametrize("text", [
    "PackagesNotFoundError: The following packages are not available from current channels:\n\n  - pytorch3d\n\n"
    "Current channels:\n\n  - https://repo.anaconda.com/pkgs/main/osx-arm64\n",
    "ResolvePackageNotFound: \n  - cudatoolkit=11.3.1\n",
])
def test_conda_channels_without_a_build_read_as_the_new_code(text):
    f = explain_result(text, similar=False).findings[0]
    assert f.code == NEW and "kaolin" not in " ".join([f.title, f.fix.why, *f.fix.commands]).lower()
    assert any(c.startswith("conda info") for c in f.fix.commands)


@pytest.mark.parametrize(("pkg", "page"), [("torch-scatter", "data.pyg.org"), ("torch-sparse", "data.pyg.org"),
                                          ("torchvision", "download.pytorch.org"), ("mmcv-full", "openmmlab")])
def test_the_package_own_index_is_named_from_the_table(pkg, page):
    f = explain_result(_pip(pkg), similar=False).findings[0]
    assert f.code == NEW and page in f.fix.why


def test_the_index_the_text_names_is_the_one_named():
    text = "Looking in links: https://data.dgl.ai/wheels/cu118/repo.html\n" + _pip("dgl", req="==1.1.2+cu118")
    f = explain_result(text, similar=False).findings[0]
    assert f.code == NEW and "https://data.dgl.ai/wheels/cu118/repo.html" in f.fix.why


def test_the_table_row_for_uv_matches_its_example():
    assert_row_matches_its_example_and_stays_linear("library_messages", "uv_no_wheel_for_platform")


def test_the_code_table_words_it_for_any_package():
    e = CODES[NEW]
    assert e.fix and e.check and e.source and e.told_from and "text" in e.homes
    assert "kaolin" not in (e.meaning.split("(not kaolin)")[0] + e.meaning.split("(not kaolin)")[-1] + e.fix
                            + e.check).lower()
    assert "kaolin_no_wheel_for_combo" in e.told_from


def test_the_report_heads_it_by_what_it_is_about():
    # the layer that holds pip's and conda's findings is headed by package releases when none is kaolin's
    from smrnb.doctor._report import Report

    r = explain_result("$ pip install torch-scatter\n" + _pip("torch-scatter"), similar=False)
    text = Report(r.facts, r.findings, {"recognised": True}, secrets=[]).to_text()
    assert "[kaolin] kaolin" not in text and "Package releases and wheels (pip)" in text


KAOLIN = [
    "Looking in links: https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.4.0_cu121.html\n"
    + _pip("kaolin", "0.1", "==0.17.0"),
    "$ pip install kaolin\n" + _pip("kaolin", "0.0, 0.1", "==0.15.0"),
    "ERROR: kaolin-0.15.0-cp39-cp39-manylinux2014_x86_64.whl is not a supported wheel on this platform.\n",
]


@pytest.mark.parametrize("text", KAOLIN)
def test_kaolin_keeps_its_own_code(text):
    assert rule_codes(text, n=1) == ["kaolin_no_wheel_for_combo"]


NEAR = [
    # a misspelt name: no project of that name at all (the command's mistake first)
    _pip("bitsandbyte"),
    _pip("xformer"),
    # pip never reached the index: DNS, TLS, a proxy
    "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken "
    "by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f3a>: Failed to establish a "
    "new connection: [Errno -3] Temporary failure in name resolution')': /simple/torch-scatter/\n"
    + _pip("torch-scatter"),
    "Could not fetch URL https://pypi.org/simple/open3d/: There was a problem confirming the ssl certificate: "
    "HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: /simple/open3d/ (Caused by "
    "SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self signed "
    "certificate in certificate chain (_ssl.c:1129)'))) - skipping\n" + _pip("open3d"),
    # a resolver conflict between two pins (every package has builds; they disagree)
    "ERROR: Cannot install torch==2.1.0 and torchvision==0.17.0 because these package versions have conflicting "
    "dependencies.\n\nThe conflict is caused by:\n    The user requested torch==2.1.0\n    torchvision 0.17.0 depends "
    "on torch==2.2.0\n\nERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/"
    "dependency-resolution/#dealing-with-dependency-conflicts\n",
    # uv: a name no registry has (not a platform's missing build)
    "  × No solution found when resolving dependencies:\n  ╰─▶ Because torch-scater was not found in the package "
    "registry and you require torch-scater, we can conclude that your requirements are unsatisfiable.\n",
    # importlib's PackageNotFoundError: a distribution not installed here
    "importlib.metadata.PackageNotFoundError: No package metadata was found for open3d\n",
]


@pytest.mark.parametrize("text", NEAR)
def test_near_misses_do_not_read_first_as_the_new_code(text):
    assert NEW not in rule_codes(text, n=1)


@pytest.mark.parametrize("text", NEAR[2:])
def test_near_misses_other_than_a_typo_do_not_get_the_new_code_at_all(text):
    assert NEW not in rule_codes(text, n=3)


def test_the_label_split_is_applied_to_every_part_and_to_the_readers_guesses():
    """split_no_build.py's rule holds in every labelled part and reader's file: kaolin's code only where the text
    names kaolin; the rename keeps other rows and is idempotent (a reader's row decided by its corpus text)."""
    import importlib.util
    import json
    from pathlib import Path

    here = Path(__file__).resolve().parent / "corpus"
    spec = importlib.util.spec_from_file_location("split_no_build", here / "split_no_build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    texts = mod._texts()
    for part in [*here.glob("*.jsonl"), *here.glob("*/*.jsonl")]:
        for ln in part.read_text(encoding="utf-8").splitlines():
            if ln.strip():
                assert mod.migrate_line(ln) == ln, (part.name, ln[:120])  # nothing left to migrate
                row = json.loads(ln)
                codes = [row.get("cause"), *(row.get("also") or ()), *(row.get("codes") or ())]
                text = str(row.get("text") or texts.get(str(row.get("id")), ""))
                if "kaolin_no_wheel_for_combo" in codes and text:
                    assert "kaolin" in text.lower(), (part.name, row.get("id"))
    old = {"id": "x", "text": "ERROR: No matching distribution found for torch-scatter==2.1.2", "cause":
           "kaolin_no_wheel_for_combo", "also": ["user_code_error"], "fix": "kaolin_no_wheel_for_combo was wrong"}
    line = json.dumps(old)
    new = mod.migrate_line(line)
    assert json.loads(new) == {**old, "cause": "package_no_build_for_platform"} and mod.migrate_line(new) == new
    kept = json.dumps({**old, "text": "pip install kaolin==0.17.0 ... No matching distribution found for kaolin"})
    assert mod.migrate_line(kept) == kept
