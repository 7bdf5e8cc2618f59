# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Context probe on fabricated roots and environments; fixes tailored to the context; no secret leaks."""

from __future__ import annotations

import json
import os
from pathlib import Path

from smrnb.doctor._model import ProbeContext, Runner
from smrnb.doctor.probes import _context as context
from smrnb.doctor.rules import evaluate
from smrnb.doctor.rules._context import env_fix_commands

SECRETS = {"JUPYTERHUB_API_TOKEN": "tok-0123456789abcdef", "AWS_SECRET_ACCESS_KEY": "aws-shh",
           "DB_PASSWORD": "hunter2", "MY_API_KEY": "k-42"}


def make_root(tmp_path: Path, cgroup: str = "0::/\n", files: tuple[str, ...] = ()) -> Path:
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "os-release").write_text('PRETTY_NAME="Ubuntu 24.04.3 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\n')
    (root / "proc" / "self").mkdir(parents=True)
    (root / "proc" / "self" / "cgroup").write_text(cgroup)
    (root / "proc" / "1").mkdir(parents=True)
    (root / "proc" / "1" / "comm").write_text("systemd\n")
    for f in files:
        p = root / f
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
    return root


def make_ctx(env: dict[str, str]) -> ProbeContext:
    return ProbeContext(run=Runner(env=env), environ=env)


def test_slurm_job_with_lmod(tmp_path):
    env = {"SLURM_JOB_ID": "4242", "SLURM_JOB_PARTITION": "gpu", "SLURM_JOB_GPUS": "0", "LMOD_CMD": "/usr/share/lmod",
           "LOADEDMODULES": "gcc/12.2:cuda/12.1", **SECRETS}
    facts = context.probe(make_ctx(env), root=str(make_root(tmp_path)))
    assert {k: facts["slurm"][k] for k in ("job_id", "job_partition", "job_gpus")} == \
        {"job_id": "4242", "job_partition": "gpu", "job_gpus": "0"}
    assert facts["slurm"]["has_env"] == {"LD_LIBRARY_PATH": False, "CUDA_HOME": False, "CUDA_PATH": False}
    assert facts["env_modules"] == {"system": "lmod", "loaded": ["gcc/12.2", "cuda/12.1"]}
    assert facts["os_release"] == "Ubuntu 24.04.3 LTS" and facts["pid1"] == "systemd"
    blob = json.dumps(facts)
    assert all(v not in blob for v in SECRETS.values())
    assert sorted(facts["secret_variable_names"]) == sorted(SECRETS)
    cmds = env_fix_commands({"context": facts}, {"CUDA_HOME": "/usr/local/cuda-12.1"}, module="cuda/12.1")
    assert cmds[0].splitlines() == ["# in the sbatch script, before the command that starts Jupyter / python:",
                                    "module load cuda/12.1", "export CUDA_HOME=/usr/local/cuda-12.1"]
    found = {f.code for f in evaluate({"context": facts}, layers=["context"])}
    assert "context_slurm" in found


def test_jupyterhub_spawner_and_secrets(tmp_path):
    env = {"JUPYTERHUB_USER": "ada", "JUPYTERHUB_SERVICE_PREFIX": "/user/ada/", **SECRETS}
    facts = context.probe(make_ctx(env), root=str(make_root(tmp_path)))
    assert facts["jupyterhub"] is True
    assert facts["jupyterhub_info"] == {"user": "ada", "service_prefix": "/user/ada/"}
    cmds = env_fix_commands({"context": facts}, {"LD_LIBRARY_PATH": "/opt/cuda/lib64"})
    assert cmds[0].endswith("c.Spawner.environment.update({'LD_LIBRARY_PATH': '/opt/cuda/lib64'})")
    findings = evaluate({"context": facts}, layers=["context"])
    blob = json.dumps([f.to_dict() for f in findings]) + json.dumps(facts)
    assert all(v not in blob for v in SECRETS.values())


def test_systemd_service_in_docker(tmp_path):
    root = make_root(tmp_path, "0::/system.slice/jupyter.service\n", files=(".dockerenv",))
    facts = context.probe(make_ctx({"INVOCATION_ID": "abc"}), root=str(root))
    assert facts["systemd_unit"] == "jupyter.service"
    assert facts["container"] == "docker"
    cmds = env_fix_commands({"context": facts}, {"CUDA_HOME": "/usr/local/cuda"})
    assert cmds[0].splitlines()[0] == "sudo systemctl edit jupyter.service"
    assert 'Environment="CUDA_HOME=/usr/local/cuda"' in cmds[0]
    assert any(c.startswith("# in the image (Dockerfile)") for c in cmds)


def test_podman_apptainer_kubernetes_conda(tmp_path):
    assert context.probe(make_ctx({}), root=str(make_root(tmp_path / "a", files=("run/.containerenv",))))["container"] == "podman"
    assert context.probe(make_ctx({"APPTAINER_CONTAINER": "/x.sif"}), root=str(make_root(tmp_path / "b")))["container"] == "apptainer"
    k8s = make_root(tmp_path / "c", "0::/kubepods/besteffort/pod1/abc\n")
    assert context.probe(make_ctx({}), root=str(k8s))["container"] == "kubernetes"
    facts = context.probe(make_ctx({"CONDA_PREFIX": "/opt/conda/envs/lab", "CONDA_DEFAULT_ENV": "lab"}),
                          root=str(make_root(tmp_path / "d")))
    assert facts["conda_env"] == "/opt/conda/envs/lab" and facts["container"] is None
    cmds = env_fix_commands({"context": facts}, {"CUDA_HOME": "/opt/conda/envs/lab"})
    assert cmds[0] == "conda env config vars set CUDA_HOME=/opt/conda/envs/lab\nconda deactivate && conda activate lab"
    assert cmds[-1].startswith("# ~/.bashrc")


def test_missing_proc_and_etc_never_raise(tmp_path):
    facts = context.probe(make_ctx({"PATH": "/bin"}), root=str(tmp_path / "empty"))
    assert facts["status"] == "ok" and facts["os_release"] is None and facts["systemd_unit"] is None
    json.dumps(facts)


def test_this_machine():
    facts = context.probe(ProbeContext(run=Runner(), environ=dict(os.environ)))
    assert facts["glibc"] and facts["glibc"][0].isdigit()
    if os.path.exists("/.dockerenv"):
        assert facts["container"] == "docker"


def test_non_utf8_files_never_raise(tmp_path):
    root = make_root(tmp_path)
    (root / "etc" / "os-release").write_bytes(b'PRETTY_NAME="\xff\xfe Linux"\n\x00\x80garbage')
    (root / "proc" / "self" / "cgroup").write_bytes(b"\xff\xfe/docker/\x00")
    facts = context.probe(make_ctx({"PATH": "/bin"}), root=str(root))
    assert facts["container"] == "docker" and "Linux" in facts["os_release"]
    json.dumps(facts)


def slurm_findings(tmp_path: Path, env: dict[str, str]) -> dict:
    root = tmp_path / "root"
    facts = context.probe(make_ctx({"SLURM_JOB_ID": "77", "PATH": "/usr/bin:/bin", **env}),
                          root=str(root if root.is_dir() else make_root(tmp_path)))
    return {f.code: f for f in evaluate({"context": facts}, layers=["context"])}


def test_sbatch_export_none_that_dropped_the_cuda_environment_is_diagnosed(tmp_path):
    f = slurm_findings(tmp_path, {"SLURM_EXPORT_ENV": "NONE"})["slurm_export_dropped_env"]
    assert f.severity == "warning"
    assert f.title == "sbatch --export=NONE: LD_LIBRARY_PATH, CUDA_HOME, the CUDA entries of PATH did not reach the job"
    assert "SLURM_EXPORT_ENV=NONE" in f.evidence and f.fix.commands[0] == "#SBATCH --export=ALL"
    # a list without ALL drops what it does not name, and the fix keeps the list
    f = slurm_findings(tmp_path, {"SLURM_EXPORT_ENV": "CUDA_HOME", "CUDA_HOME": "/usr/local/cuda"})
    assert f["slurm_export_dropped_env"].title.startswith("sbatch --export=CUDA_HOME: LD_LIBRARY_PATH, the CUDA")
    assert f["slurm_export_dropped_env"].fix.commands[0] == "#SBATCH --export=ALL,CUDA_HOME"


def test_sbatch_export_all_or_a_script_that_sets_the_environment_is_fine(tmp_path):
    assert "slurm_export_dropped_env" not in slurm_findings(tmp_path, {"SLURM_EXPORT_ENV": "ALL"})
    assert "slurm_export_dropped_env" not in slurm_findings(tmp_path, {})  # sbatch's default (ALL), not recorded
    ok = {"SLURM_EXPORT_ENV": "NONE", "LD_LIBRARY_PATH": "/usr/local/cuda/lib64", "CUDA_HOME": "/usr/local/cuda",
          "PATH": "/usr/local/cuda/bin:/usr/bin"}  # `module load cuda` in the script put them back
    assert "slurm_export_dropped_env" not in slurm_findings(tmp_path, ok)
