# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Binder: a fresh venv built from exactly ``binder/requirements.txt`` and ``binder/postBuild`` runs the notebooks.

Slow (it installs torch, JupyterLab and smrnb into a new venv: a few minutes; pip uses this machine's pip
configuration, so a local wheel directory such as ``find-links`` is honoured the same way as on Binder the
PyTorch CPU index is). ``SMRNB_BINDER_NOTEBOOKS`` (comma-separated stems, e.g. ``02_rgbd_to_points``)
limits which notebooks are executed; default: all of them. The executed copies are recorded for the rest of the
session (``tests/_executed.py``): the docs build and the unsolved run of ``test_notebooks.py`` read them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import _executed

REPO = Path(__file__).resolve().parents[1]
BINDER = REPO / "binder"
NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _run(cmd, *, env, timeout, cwd=REPO):
    proc = subprocess.run([str(c) for c in cmd], cwd=str(cwd), env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_binder_files_pin_a_cpu_torch_and_no_kaolin():
    req = (BINDER / "requirements.txt").read_text(encoding="utf-8")
    lines = [ln.strip() for ln in req.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in lines
    torch_pins = [ln for ln in lines if ln.startswith("torch")]
    assert len(torch_pins) == 1 and torch_pins[0].endswith("+cpu"), torch_pins
    assert not any("kaolin" in ln for ln in lines)
    post = (BINDER / "postBuild").read_text(encoding="utf-8")
    assert os.access(BINDER / "postBuild", os.X_OK), "postBuild must be executable"
    assert 'pip install --no-cache-dir -e ".[lab]"' in post and "kaolin" not in post
    start = post.split('default_url = "', 1)[1].split('"', 1)[0]
    assert start.startswith("/lab/tree/") and (REPO / start.removeprefix("/lab/tree/")).is_file(), start


@pytest.mark.slow
def test_fresh_venv_from_the_binder_files_runs_the_notebooks(tmp_path):
    venv, home, out = tmp_path / "venv", tmp_path / "home", tmp_path / "executed"
    home.mkdir()
    _run([sys.executable, "-m", "venv", venv], env=dict(os.environ), timeout=300)
    bindir = venv / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "JUPYTER_PATH",
                                                              "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR")}
    env.update(PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv), HOME=str(home),
               PIP_DISABLE_PIP_VERSION_CHECK="1",
               # where the PyTorch CPU index cannot be reached (a CI machine with PyPI only), pip skips it either
               # way; without this it first retries every package's page there 5 times with back-off (~90 s)
               PIP_RETRIES="0")
    py = bindir / "python"
    _run([py, "-m", "pip", "install", "-r", BINDER / "requirements.txt"], env=env, timeout=1200)
    _run([shutil.which("bash") or "/bin/bash", BINDER / "postBuild"], env=env, timeout=1200)

    probe = _run([py, "-c", "import importlib.util, json, torch, smrnb; print(json.dumps({'torch': torch.__version__, "
                  "'cuda': torch.version.cuda, 'kaolin': importlib.util.find_spec('kaolin') is not None, "
                  "'smrnb': smrnb.__file__}))"], env=env, timeout=300)
    facts = json.loads(probe.stdout.strip().splitlines()[-1])
    assert facts["torch"].endswith("+cpu") and facts["cuda"] is None and facts["kaolin"] is False, facts
    assert Path(facts["smrnb"]).resolve().is_relative_to(REPO.resolve()), facts  # the editable checkout
    assert (home / ".jupyter" / "jupyter_server_config.py").is_file()

    specs = json.loads(_run([py, "-m", "jupyter", "kernelspec", "list", "--json"], env=env, timeout=120).stdout)
    python3 = Path(specs["kernelspecs"]["python3"]["resource_dir"]).resolve()
    assert python3.is_relative_to(venv.resolve()), f"kernel python3 is not the venv's: {python3}"

    wanted = [s for s in os.environ.get("SMRNB_BINDER_NOTEBOOKS", "").split(",") if s]
    chosen = [p for p in NOTEBOOKS if not wanted or p.stem in wanted]
    assert chosen, f"SMRNB_BINDER_NOTEBOOKS={wanted} matches no notebook"
    executed = _executed.execute(chosen, out, python=py, env=env)
    for p in chosen:
        errors = _executed.errors_in(executed[p.name])
        assert not errors, f"{p.name}: {errors[0]}"
        nb = json.loads(executed[p.name].read_text(encoding="utf-8"))
        kernel_python = nb["metadata"].get("language_info", {}).get("version")
        assert kernel_python, p.name
    # the docs build and test_notebooks' unsolved run read these copies instead of executing the notebooks again
    _executed.record(executed, "the Binder venv's kernel (tests/test_binder.py)")
