# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""kaolin probe on fabricated installs (wheel dist-info, source tree), import check in a subprocess."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from smrnb.doctor._model import ProbeContext, Runner
from smrnb.doctor.probes import _kaolin as kaolin
from smrnb.doctor.rules import evaluate

UNDEFINED = ("ImportError: /opt/venv/lib/python3.12/site-packages/kaolin/_C.cpython-312-x86_64-linux-gnu.so: "
             "undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs")
H200_TORCH = {"status": "ok", "installed": True, "version": "2.11.0+cu130", "version_base": "2.11.0", "cuda": "13.0"}


def fake_python(tmp_path: Path, body: str) -> str:
    p = tmp_path / "python3"
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(0o755)
    return str(p)


def kaolin_site(tmp_path: Path, version: str = "0.18.0", dist_info: bool = True, editable: bool = False) -> Path:
    site = tmp_path / "site"
    pkg = site / "kaolin"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('the probe must not import kaolin')\n")
    (pkg / "version.py").write_text(f"__version__ = '{version}'\n")
    (pkg / "_C.cpython-312-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    (pkg / "ops").mkdir()
    (pkg / "ops" / "mise.cpython-312-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    if dist_info:
        d = site / f"kaolin-{version}.dist-info"
        d.mkdir()
        (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: kaolin\nVersion: {version}\n")
        if editable:
            (d / "direct_url.json").write_text(json.dumps({"url": "file:///src/kaolin", "dir_info": {"editable": True}}))
    return site


def make_ctx(python: str = sys.executable, import_check: bool = False, timeout: float = 5.0) -> ProbeContext:
    c = ProbeContext(run=Runner(), environ={"PATH": "/usr/bin:/bin"}, python=python,
                     import_check=import_check, timeout=timeout)
    c.facts["torch"] = H200_TORCH
    c.facts["driver"] = {"status": "ok", "gpus": [{"name": "NVIDIA H200", "compute_capability": "9.0"}]}
    return c


def test_installed_wheel(tmp_path):
    site = kaolin_site(tmp_path)
    facts = kaolin.probe(make_ctx(), site_dirs=[str(site)])
    assert facts["status"] == "ok" and facts["installed"]
    assert facts["version"] == "0.18.0" and facts["location"] == str(site / "kaolin")
    assert facts["extension_paths"] == [str(site / "kaolin" / "_C.cpython-312-x86_64-linux-gnu.so")]
    assert facts["install_kind"] == "wheel" and facts["import_check"] is None
    found = {f.code: f for f in evaluate({"kaolin": facts, "torch": H200_TORCH}, layers=["kaolin"])}
    assert found["kaolin_installed"].severity == "info"
    assert found["kaolin_version_gate"].severity == "info"  # 2.11.0 is beyond 0.18.0's 2.8.0
    json.dumps(facts)


def test_editable_and_source_tree(tmp_path):
    facts = kaolin.probe(make_ctx(), site_dirs=[str(kaolin_site(tmp_path, editable=True))])
    assert facts["install_kind"] == "editable"
    other = tmp_path / "other"
    other.mkdir()
    facts = kaolin.probe(make_ctx(), site_dirs=[str(kaolin_site(other, version="0.17.0", dist_info=False))])
    assert facts["installed"] and facts["version"] == "0.17.0"
    assert facts["install_kind"].startswith("source-tree")


def test_not_installed_gives_the_command(tmp_path):
    facts = kaolin.probe(make_ctx(), site_dirs=[str(tmp_path)])
    assert facts["status"] == "absent" and not facts["installed"]
    assert facts["install_kind_suggested"] == "source"
    found = {f.code: f for f in evaluate({"kaolin": facts, "torch": H200_TORCH}, layers=["kaolin"])}
    assert found["kaolin_not_installed"].fix.commands == (facts["install_command"],)
    nw = found["kaolin_no_wheel_for_combo"]
    assert "torch-2.11.0_cu130.html" in " ".join(nw.evidence)
    assert "2.8.0_cu128" in " ".join(nw.evidence)  # no cu13 wheel at all: the newest torch's wheels
    assert found["kaolin_version_gate"].severity == "info"


def test_import_check_ok(tmp_path):
    py = fake_python(tmp_path, 'echo \'{"version": "0.18.0", "seconds": 10.8}\'\n')
    facts = kaolin.probe(make_ctx(py, import_check=True), site_dirs=[str(kaolin_site(tmp_path))])
    assert facts["import_check"] == {"ok": True, "seconds": 10.8, "error": None}
    found = {f.code: f for f in evaluate({"kaolin": facts, "torch": H200_TORCH}, layers=["kaolin"])}
    assert found["kaolin_ok"].severity == "ok"


def test_import_check_undefined_symbol(tmp_path):
    py = fake_python(tmp_path, "echo 'Traceback (most recent call last):' >&2\n"
                               f"echo '{UNDEFINED}' >&2\nexit 1\n")
    facts = kaolin.probe(make_ctx(py, import_check=True), site_dirs=[str(kaolin_site(tmp_path))])
    assert facts["import_check"]["ok"] is False
    assert facts["import_check"]["error"] == UNDEFINED
    f = [f for f in evaluate({"kaolin": facts, "torch": H200_TORCH}, layers=["kaolin"]) if f.code == "kaolin_import_failed"]
    assert len(f) == 1 and f[0].severity == "error"
    assert "built against another torch" in f[0].fix.why


def test_import_check_timeout_is_reported(tmp_path):
    py = fake_python(tmp_path, "exec sleep 600\n")
    t0 = time.perf_counter()
    res = kaolin.import_check(make_ctx(py), timeout=1.0)
    assert time.perf_counter() - t0 < 5
    assert res["ok"] is False and "within 1 s" in res["error"]


def test_no_import_without_the_flag(tmp_path):
    log = tmp_path / "argv.log"
    py = fake_python(tmp_path, f'echo "$@" >> \'{log}\'\necho 3.12.3\n')
    facts = kaolin.probe(make_ctx(py), site_dirs=[str(kaolin_site(tmp_path))])
    assert facts["python_version"] == "3.12.3"  # the kernel's python was asked its version...
    assert "import torch, kaolin" not in log.read_text()  # ...and never asked to import kaolin
    assert facts["import_check"] is None
