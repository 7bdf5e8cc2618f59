# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Fixes: kernelspecs written through jupyter_client (dry run, never silently replaced), snippets."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import types

import pytest
from jupyter_client.kernelspec import KernelSpecManager

from smrnb import SmrnbValueError
from smrnb.doctor.fixes import needed_env, snippets, snippets_text, write_kernelspec

ENV = {"LD_LIBRARY_PATH": "/opt/cuda 12/lib64:/usr/local/nvidia/lib64", "CUDA_HOME": "/usr/local/cuda-13.0",
       "PATH": "/usr/local/cuda-13.0/bin:/usr/bin"}
FACTS = {"jupyter": {"status": "ok", "kernelspec": {"name": "lab-py", "argv": ["/opt/py/bin/python", "-m",
                                                                              "ipykernel_launcher", "-f",
                                                                              "{connection_file}"]}}}


@pytest.fixture()
def ksm(tmp_path, monkeypatch):
    """A KernelSpecManager whose user data dir is a fresh temp dir (as JUPYTER_DATA_DIR sets it)."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path))
    return KernelSpecManager()


def test_dry_run_writes_nothing_and_shows_kernel_json(ksm, tmp_path):
    res = write_kernelspec("smrnb-test", dry_run=True, env=ENV, facts=FACTS, ksm=ksm)
    assert not res.written and res.dry_run
    assert not (tmp_path / "kernels").exists()
    text = res.describe()
    assert text.startswith(f"Dry run: would write {tmp_path}/kernels/smrnb-test/kernel.json:")
    shown = json.loads(text.split(":\n", 1)[1])
    assert shown["env"] == ENV
    assert shown["argv"] == FACTS["jupyter"]["kernelspec"]["argv"]  # the current kernel's argv, copied


def test_write_then_refuse_then_force(ksm, tmp_path):
    res = write_kernelspec("smrnb-test", env=ENV, facts=FACTS, ksm=ksm)
    assert res.written and not res.replaced
    spec = ksm.get_kernel_spec("smrnb-test")  # jupyter_client reads it back
    assert spec.env == ENV and spec.argv[0] == "/opt/py/bin/python" and spec.language == "python"
    assert os.path.isfile(tmp_path / "kernels" / "smrnb-test" / "kernel.json")
    with pytest.raises(SmrnbValueError, match=r"name 'smrnb-test' is an existing kernelspec .* force=True"):
        write_kernelspec("smrnb-test", env={"PATH": "/x"}, ksm=ksm)
    assert ksm.get_kernel_spec("smrnb-test").env == ENV  # untouched
    res2 = write_kernelspec("smrnb-test", env={"PATH": "/x"}, force=True, ksm=ksm)
    assert res2.replaced and ksm.get_kernel_spec("smrnb-test").env == {"PATH": "/x"}


def test_default_name_never_takes_an_existing_one(ksm):
    a = write_kernelspec(env=ENV, facts=FACTS, ksm=ksm)
    b = write_kernelspec(env=ENV, facts=FACTS, ksm=ksm)
    assert (a.name, b.name) == ("lab-py-smrnb", "lab-py-smrnb-2")
    assert {"lab-py-smrnb", "lab-py-smrnb-2"} <= set(ksm.find_kernel_specs())


def test_bad_names_are_refused(ksm):
    with pytest.raises(SmrnbValueError, match="name must contain only letters, digits"):
        write_kernelspec("my kernel/../x", env=ENV, ksm=ksm)


def test_needed_env_takes_current_values_and_a_valid_cuda_home(tmp_path):
    cuda = tmp_path / "cuda-13.0"
    cuda.mkdir()
    env = needed_env(environ={"LD_LIBRARY_PATH": "/a:/b", "PATH": "/usr/bin", "CUDA_HOME": f"{cuda}:/other"},
                     facts={"toolkit": {"status": "ok", "build_cuda_home": str(cuda)}})
    assert env == {"LD_LIBRARY_PATH": "/a:/b", "PATH": "/usr/bin"}  # a malformed CUDA_HOME is not copied
    env = needed_env(environ={"PATH": "/usr/bin"}, facts={"toolkit": {"status": "ok", "build_cuda_home": str(cuda)}})
    assert env == {"CUDA_HOME": str(cuda), "PATH": "/usr/bin"}


def test_bashrc_snippet_runs_in_bash_and_sets_the_values():
    text = snippets(ENV)["bashrc"]
    script = text + "\nprintf '%s\\n' \"$LD_LIBRARY_PATH\" \"$CUDA_HOME\""
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=10, env={})
    assert out.stdout.splitlines() == [ENV["LD_LIBRARY_PATH"], ENV["CUDA_HOME"]]
    assert shlex.quote(ENV["LD_LIBRARY_PATH"]) in text


def test_systemd_and_sbatch_snippets():
    s = snippets(ENV)
    assert 'Environment="CUDA_HOME=/usr/local/cuda-13.0"' in s["systemd"] and "[Service]" in s["systemd"]
    assert s["sbatch"].startswith("#!/bin/bash\n#SBATCH")
    assert "export CUDA_HOME=/usr/local/cuda-13.0" in s["sbatch"]


def test_jupyterhub_snippet_is_valid_config():
    code = snippets(ENV)["jupyterhub"]
    c = types.SimpleNamespace(Spawner=types.SimpleNamespace(environment={}, env_keep=["PATH", "LANG"]))
    exec(compile(code, "jupyterhub_config.py", "exec"), {"c": c})
    assert c.Spawner.environment == ENV
    assert set(ENV) <= set(c.Spawner.env_keep)


def test_snippets_put_the_machines_context_first():
    facts = {"context": {"status": "ok", "slurm": {"job_id": "42"}, "jupyterhub": False}}
    assert list(snippets(ENV, facts))[0] == "sbatch"
    facts = {"context": {"status": "ok", "slurm": None, "jupyterhub": True}}
    assert list(snippets(ENV, facts))[0] == "jupyterhub"
    assert snippets_text(ENV).startswith("== bashrc ==")
