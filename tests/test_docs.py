# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The documentation site: generated pages agree with the package's data; ``mkdocs build --strict`` passes."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import _executed

REPO = Path(__file__).resolve().parents[1]


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ModuleNotFoundError:  # the parent package is missing
        return True


_MISSING = [m for m in ("mkdocs", "material", "mkdocs_jupyter", "mkdocstrings", "mkdocstrings_handlers.python")
            if _missing(m)]
pytestmark = pytest.mark.skipif(bool(_MISSING), reason=f"docs tools not installed ({', '.join(_MISSING)}): "
                                                       "pip install -e '.[docs]'")


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("smrnb_docs_gen", REPO / "docs" / "_gen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kaolin_guide_lists_every_release_and_wheel_page_of_the_doctor_tables(gen):
    from smrnb.doctor import tables

    page = gen.kaolin_install_md()
    for rel in tables.kaolin_releases():
        assert f"**{rel.version}**" in page
        assert f"{rel.torch_min}–{rel.torch_max}" in page
        for w in rel.wheels:
            torch_v, cu = w.split("_cu")
            assert tables.kaolin_wheel_page(torch_v, f"{cu[:-1]}.{cu[-1]}") in page
    for row in tables.rows("nvcc_gcc"):
        assert f"| {row['cuda']} | {row['max_gcc']} |" in page
    for row in tables.rows("cuda_driver"):
        assert f"| {row['cuda']} | {row['release']} | {row['min_driver']} |" in page


def test_kaolin_guide_plans_come_from_the_doctor_planner(gen):
    page = gen.kaolin_install_md()
    # torch 2.8.0+cu128 on Python 3.11 has a 0.18.0 wheel (kaolin.json); a CPU torch gets a source build
    assert "pip install kaolin==0.18.0 -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.8.0_cu128.html" in page
    assert "Plan: **wheel**" in page and "Plan: **source**" in page
    assert "--no-build-isolation" in page and "IGNORE_TORCH_VER=1" in page


def test_api_page_documents_every_public_name(gen):
    import smrnb

    page = gen.api_md()
    blocks = [line.split("::: ", 1)[1] for line in page.splitlines() if line.startswith("::: ")]
    assert sorted(b.rsplit(".", 1)[1] for b in blocks) == sorted(n for n in smrnb.__all__ if n != "__version__")
    for b in blocks:  # each block names the module that really defines the object
        module, name = b.rsplit(".", 1)
        assert hasattr(importlib.import_module(module), name), b


def test_benchmark_page_includes_the_results_files(gen):
    page = gen.benchmarks_md()
    results = sorted((REPO / "benchmarks").glob("RESULTS*.md"))
    for p in results:
        first = p.read_text(encoding="utf-8").strip().splitlines()[0].lstrip("#").strip()
        assert first in page
    if not results:
        assert "No `benchmarks/RESULTS*.md`" in page


def _viewers_displayed(path: Path) -> int:
    """Viewers and step widgets a notebook displays: those made in a cell whose last line is an expression."""
    import ast
    import json

    n = 0
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        src = "".join(cell["source"]) if cell["cell_type"] == "code" else ""
        if not src.strip():
            continue
        try:
            body = ast.parse(src).body
        except SyntaxError:  # a cell of magics
            continue
        if body and isinstance(body[-1], ast.Expr):
            n += src.count("Viewer(") + src.count("StepWidget(")
    return n


def _tiny_notebook(path: Path, source: str) -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


def test_the_docs_build_executes_notebooks_names_the_one_that_fails_and_takes_given_copies(gen, tmp_path,
                                                                                          monkeypatch):
    """The build's own executor (a full test run passes it the session's executions instead, so it is checked
    here on two one-cell notebooks) and ``SMRNB_DOCS_EXECUTED``."""
    ok = _tiny_notebook(tmp_path / "ok.ipynb", "print(6 * 7)")
    bad = _tiny_notebook(tmp_path / "bad.ipynb", "raise ValueError('the cell that fails')")
    out = tmp_path / "out"
    out.mkdir()
    # both at once, as the build runs two: the one that fails is named with its error, the other is executed
    with pytest.raises(RuntimeError, match=r"(?s)executing bad\.ipynb for the docs failed.*the cell that fails"):
        gen.execute_notebooks([ok, bad], out)
    assert "42" in (out / "ok.ipynb").read_text(encoding="utf-8")
    given = gen._given_executions([ok], out)
    assert given["ok.ipynb"].read_bytes() == (out / "ok.ipynb").read_bytes() and given["ok.ipynb"].parent != out
    with pytest.raises(RuntimeError, match=r"SMRNB_DOCS_EXECUTED=.*no executed copy of ok\.ipynb, bad\.ipynb there"):
        gen._given_executions([ok, bad], tmp_path / "empty")


@pytest.mark.slow
def test_mkdocs_build_strict(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    # the committed notebooks already executed this session (by the Binder test) are rendered as they are;
    # run alone, the build executes them itself (docs/_gen.py)
    given = _executed.copy_all(tmp_path / "executed")
    if given is not None:
        env["SMRNB_DOCS_EXECUTED"] = str(given)
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"),
                           "-d", str(site)], cwd=str(REPO), capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert not (REPO / ".cache").exists(), "the docs build must not write a cache into the checkout"
    for page in ["index.html", "install/index.html", "kaolin-install/index.html", "guide/index.html",
                 "steps/index.html", "troubleshooting/index.html", "codes/index.html", "api/index.html",
                 "benchmarks/index.html"]:
        assert (site / page).is_file(), page
    for nb in sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        html = (site / "notebooks" / nb.stem / "index.html").read_text(encoding="utf-8")
        assert "Learning goals" in html
        # executed at build time: outputs are there, with a static picture for every viewer and step widget
        if os.environ.get("SMRNB_DOCS_EXECUTE", "1") not in ("0", "false", "no"):
            assert "not answered yet" in html, f"{nb.name}: the executed exercises' checks are missing"
            want = _viewers_displayed(nb)
            got = html.count("static picture of")
            assert got >= want, f"{nb.name}: {got} viewer pictures in the page, {want} viewers displayed"
            assert html.count("data:image/png;base64,") >= want
            # (a cell that raised fails the build itself: docs/_gen.py executes with allow_errors=False)
    for img in ["points", "marching_cubes", "tsdf", "fill_holes", "texture"]:
        data = (site / "images" / f"{img}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert "depth_to_points" in api and "Back-project a depth image" in api
