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
from smrnb.doctor._fixes import needed_env, plan_env, snippets, snippets_text, write_kernelspec

ENV = {"LD_LIBRARY_PATH": "/opt/cuda 12/lib64:/usr/local/nvidia/lib64", "CUDA_HOME": "/usr/local/cuda-13.0",
       "PATH": "/usr/local/cuda-13.0/bin:/usr/bin"}
FACTS = {"jupyter": {"status": "ok", "kernel_python": "/opt/py/bin/python",
                     "kernelspec": {"name": "lab-py", "argv": ["/opt/py/bin/python", "-m",
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
    shown, _ = json.JSONDecoder().raw_decode(text.split(":\n", 1)[1])
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
    (tmp_path / "kernels" / "smrnb-test" / "logo-64x64.png").write_bytes(b"\x89PNG fake logo")
    res2 = write_kernelspec("smrnb-test", env={"PATH": "/x"}, force=True, ksm=ksm)
    assert res2.replaced and ksm.get_kernel_spec("smrnb-test").env == {"PATH": "/x"}
    # the replaced folder was copied first, outside kernels/ (a copy there would be one more kernel)
    backup = res2.backup
    assert backup and os.path.isdir(backup) and f"{os.sep}kernels{os.sep}" not in backup
    assert backup.startswith(str(tmp_path / "smrnb-kernelspec-backups"))
    assert json.loads(open(os.path.join(backup, "kernel.json")).read())["env"] == ENV
    assert open(os.path.join(backup, "logo-64x64.png"), "rb").read() == b"\x89PNG fake logo"
    assert backup in res2.describe() and "smrnb-test" in ksm.find_kernel_specs()
    assert not any(n.startswith("smrnb-test-") or ".bak" in n for n in ksm.find_kernel_specs())
    dry = write_kernelspec("smrnb-test", env={"PATH": "/y"}, force=True, dry_run=True, ksm=ksm)
    assert "backed up first to" in dry.describe() and not os.path.exists(dry.backup)


def test_force_replaces_the_spec_as_a_unit_and_a_failed_write_leaves_it(ksm, tmp_path, monkeypatch):
    import errno
    import shutil

    import smrnb._files as F

    write_kernelspec("smrnb-test", env=ENV, facts=FACTS, ksm=ksm)
    real = shutil.copytree

    def full_disk(src, dst, *a, **k):
        if ".smrnb-staging" in str(dst):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(F.shutil, "copytree", full_disk)
    with pytest.raises(SmrnbValueError, match="kernelspec .*smrnb-test.* could not be written .*it is unchanged"):
        write_kernelspec("smrnb-test", env={"PATH": "/x"}, force=True, ksm=ksm)
    assert ksm.get_kernel_spec("smrnb-test").env == ENV  # the old spec, whole, where Jupyter finds it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernels", "smrnb-kernelspec-backups"]
    monkeypatch.setattr(F.shutil, "copytree", real)
    assert write_kernelspec("smrnb-test", env={"PATH": "/x"}, force=True, ksm=ksm).replaced
    assert ksm.get_kernel_spec("smrnb-test").env == {"PATH": "/x"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernels", "smrnb-kernelspec-backups"]


def test_default_name_never_takes_an_existing_one(ksm, tmp_path):
    a = write_kernelspec(env=ENV, facts=FACTS, ksm=ksm)
    b = write_kernelspec(env=ENV, facts=FACTS, ksm=ksm)
    # (blind audit 36, C-L5) the spec it wrote for this Python is its own: found current, no second name
    assert (a.name, b.name) == ("lab-py-smrnb", "lab-py-smrnb") and b.current and not b.written
    assert "Current: " in b.describe() and not any(n.startswith("lab-py-smrnb-") for n in ksm.find_kernel_specs())
    # one of that name it did not write (a user's own) is never taken
    kj = tmp_path / "kernels" / "lab-py-smrnb" / "kernel.json"
    users = json.loads(kj.read_text())
    del users["metadata"]["smrnb"]
    kj.write_text(json.dumps(users))
    c = write_kernelspec(env=ENV, facts=FACTS, ksm=ksm)
    assert c.name == "lab-py-smrnb-2" and c.written and json.loads(kj.read_text()) == users
    assert {"lab-py-smrnb", "lab-py-smrnb-2"} <= set(ksm.find_kernel_specs())


def test_bad_names_are_refused(ksm):
    with pytest.raises(SmrnbValueError, match="name must contain only letters, digits"):
        write_kernelspec("my kernel/../x", env=ENV, ksm=ksm)


def test_needed_env_takes_current_values_and_a_valid_cuda_home(tmp_path):
    cuda = tmp_path / "cuda-13.0"
    (cuda / "bin").mkdir(parents=True)
    (cuda / "bin" / "nvcc").write_text("#!/bin/sh\n")
    (cuda / "bin" / "nvcc").chmod(0o755)
    (cuda / "include").mkdir()
    (cuda / "include" / "cuda_runtime.h").write_text("/* fake */\n")
    env = needed_env(environ={"LD_LIBRARY_PATH": "/a:/b", "PATH": "/usr/bin", "CUDA_HOME": f"{cuda}:/other"},
                     facts={"toolkit": {"status": "ok", "build_cuda_home": str(cuda)}})
    # a malformed CUDA_HOME is not copied; (blind audit 36, C-M9) nor a PATH without a CUDA folder
    assert env == {"LD_LIBRARY_PATH": "/a:/b"}
    env = needed_env(environ={"PATH": f"{cuda}/bin:/usr/bin"},
                     facts={"toolkit": {"status": "ok", "build_cuda_home": str(cuda)}})
    assert env == {"CUDA_HOME": str(cuda), "PATH": f"{cuda}/bin:/usr/bin"}
    (cuda / "include" / "cuda_runtime.h").unlink()  # an incomplete toolkit is flagged: not baked in
    assert needed_env(environ={"PATH": "/usr/bin"}, facts={"toolkit": {"status": "ok", "build_cuda_home": str(cuda)}}) \
        == {}


def test_bashrc_snippet_runs_in_bash_and_sets_the_values():
    text = snippets(ENV)["bashrc"]
    script = text + "\nprintf '%s\\n' \"$LD_LIBRARY_PATH\" \"$CUDA_HOME\" \"$PATH\""
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=10,
                         env={"PATH": "/home/u/bin:/usr/bin"})
    # PATH: the CUDA folder before the shell's own PATH (blind audit 36, C-M9: never a snapshot of this one's)
    assert out.stdout.splitlines() == [ENV["LD_LIBRARY_PATH"], ENV["CUDA_HOME"], "/usr/local/cuda-13.0/bin:/home/u/bin:/usr/bin"]
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
    # (blind audit 36, C-M9) PATH: the CUDA folders before the hub's own PATH, not a snapshot of this shell's
    assert c.Spawner.environment == {**ENV, "PATH": "/usr/local/cuda-13.0/bin:" + os.environ.get("PATH", "")}
    assert set(ENV) <= set(c.Spawner.env_keep)


def test_snippets_put_the_machines_context_first():
    facts = {"context": {"status": "ok", "slurm": {"job_id": "42"}, "jupyterhub": False}}
    assert list(snippets(ENV, facts))[0] == "sbatch"
    facts = {"context": {"status": "ok", "slurm": None, "jupyterhub": True}}
    assert list(snippets(ENV, facts))[0] == "jupyterhub"
    assert snippets_text(ENV).startswith("== bashrc ==")


def _spec_dir(root, name, kj):
    d = root / "kernels" / name
    d.mkdir(parents=True)
    (d / "kernel.json").write_text(json.dumps(kj))
    return d


def test_argv_gets_the_kernels_absolute_python_and_the_base_env_is_kept(ksm, tmp_path):
    base = _spec_dir(tmp_path / "other", "lab-py", {
        "argv": ["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "Lab",
        "language": "python", "interrupt_mode": "message",
        "env": {"WANDB_API_KEY": "wandb-value-123456", "OMP_NUM_THREADS": "4", "LD_LIBRARY_PATH": "/old/lib"}})
    facts = {"jupyter": {"status": "ok", "kernel_python": "/opt/venv/bin/python3",
                         "kernelspec": {"name": "lab-py", "path": str(base), "argv": ["python", "-m",
                                        "ipykernel_launcher", "-f", "{connection_file}"],
                                        "env": {"WANDB_API_KEY": "<redacted>"}}}}
    res = write_kernelspec("fixed", env={"LD_LIBRARY_PATH": "/new/lib", "PATH": "/usr/bin"}, facts=facts, ksm=ksm)
    spec = ksm.get_kernel_spec("fixed")
    assert spec.argv[0] == "/opt/venv/bin/python3"  # not "python" (whatever PATH finds first)
    assert spec.env == {"WANDB_API_KEY": "wandb-value-123456", "OMP_NUM_THREADS": "4",
                        "LD_LIBRARY_PATH": "/new/lib", "PATH": "/usr/bin"}  # the file holds the real values
    assert spec.interrupt_mode == "message"
    text = res.describe()
    assert "WANDB_API_KEY" in text and "OMP_NUM_THREADS" in text  # names shown...
    assert "wandb-value-123456" not in text and '"4"' not in text  # ...values only for path-like variables
    assert "/new/lib" in text


def test_a_cuda_home_the_doctor_flags_is_never_baked_in(tmp_path):
    def make_cuda(root, version, headers=True):
        d = root / f"cuda-{version}"
        (d / "bin").mkdir(parents=True)
        (d / "bin" / "nvcc").write_text(f"#!/bin/sh\necho 'Cuda compilation tools, release {version}, V{version}.1'\n")
        (d / "bin" / "nvcc").chmod(0o755)
        if headers:
            (d / "include").mkdir()
            (d / "include" / "cuda_runtime.h").write_text("/* fake */\n")
        return d

    good = make_cuda(tmp_path, "12.8")
    other = make_cuda(tmp_path, "13.0")
    nohdr = make_cuda(tmp_path, "12.1", headers=False)
    torch = {"status": "ok", "installed": True, "cuda": "12.8", "version": "2.8.0+cu128"}

    def entry(d, v):
        p = str(d / "bin" / "nvcc")
        return {"path": p, "realpath": os.path.realpath(p), "paths": [p], "found_via": ["/usr/local"], "version": v,
                "toolkit_dir": str(d), "has_headers": True}

    tk = {"status": "ok", "nvccs": [entry(good, "12.8"), entry(other, "13.0")], "build_nvcc": None}
    facts = {"torch": torch, "toolkit": tk}
    for bad, words in (("cuda-12.8", "relative"), (str(tmp_path / "gone"), "does not exist"),
                       (str(nohdr), "cuda_runtime.h"), (f"{good}:/usr/local/cuda", "':'"),
                       (str(other), "nvcc 13.0, but torch was built with CUDA 12.8")):
        env, notes = plan_env(facts, {"PATH": "/usr/bin", "CUDA_HOME": bad})
        assert env["CUDA_HOME"] == str(good), (bad, env)  # the matching toolkit the doctor found
        notes = [n for n in notes if n.startswith("CUDA_HOME")]  # (a PATH without CUDA folders has its own note)
        assert len(notes) == 1 and words in notes[0] and "instead" in notes[0], notes
    env, notes = plan_env({"torch": torch, "toolkit": dict(tk, nvccs=[entry(other, "13.0")])},
                          {"PATH": "/usr/bin", "CUDA_HOME": str(tmp_path / "gone")})
    assert "CUDA_HOME" not in env and "left out" in notes[0] and "PATH holds no CUDA toolkit folder" in notes[1]
    assert needed_env(facts, {"PATH": "/usr/bin", "CUDA_HOME": str(good)})["CUDA_HOME"] == str(good)
