# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A real single-node Slurm (tests/_slurm.py): the doctor inside sbatch jobs, and a batch through
dask-jobqueue's SLURMCluster."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import _slurm
import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    if _slurm.missing():
        pytest.skip(f"Slurm is not installed here ({', '.join(_slurm.missing())} missing; .ci/run installs "
                    "Debian's slurmctld slurmd slurm-client munge)")
    s = _slurm.start(tmp_path_factory.mktemp("slurm"))
    yield s
    s.stop()


def doctor_in_job(slurm, tmp_path: Path, export: str) -> dict:
    out = tmp_path / f"doctor-{export.replace(',', '_')}.json"
    script = tmp_path / "job.sh"
    script.write_text(f"#!/bin/bash\ncd {REPO}\n{sys.executable} -m smrnb.doctor.cli --layer context --json\n")
    script.chmod(0o755)
    env = dict(slurm.env, LD_LIBRARY_PATH="/usr/local/cuda/lib64", CUDA_HOME="/usr/local/cuda")  # the submitting shell
    r = _slurm.subprocess.run(["sbatch", "--parsable", f"--export={export}", "-o", str(out), str(script)],
                              capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    slurm.wait_job(r.stdout.strip().split(";")[0])
    return json.loads(out.read_text())


def test_the_doctor_in_an_export_none_job_says_what_slurm_dropped(slurm, tmp_path):
    rep = doctor_in_job(slurm, tmp_path, "NONE")
    codes = {f["code"]: f for f in rep["findings"]}
    assert rep["facts"]["context"]["slurm"]["export_env"] == "NONE"
    f = codes["slurm_export_dropped_env"]
    assert "LD_LIBRARY_PATH" in f["title"] and "CUDA_HOME" in f["title"]
    assert f["fix"]["commands"][0] == "#SBATCH --export=ALL"


def test_the_doctor_in_an_export_all_job_finds_nothing_dropped(slurm, tmp_path):
    rep = doctor_in_job(slurm, tmp_path, "ALL")
    codes = {f["code"] for f in rep["findings"]}
    assert "context_slurm" in codes and "slurm_export_dropped_env" not in codes
    assert rep["facts"]["context"]["slurm"]["has_env"]["LD_LIBRARY_PATH"] is True


def test_a_batch_through_dask_jobqueue_slurmcluster(slurm, tmp_path, monkeypatch):
    pytest.importorskip("dask_jobqueue", reason="dask-jobqueue is not installed (the cluster extra)")
    from dask_jobqueue import SLURMCluster
    from distributed import Client

    import smrnb

    monkeypatch.setenv("SLURM_CONF", slurm.env["SLURM_CONF"])
    cfg = tmp_path / "scan.yaml"
    cfg.write_text("source: {path: sample, stride: 35}\nsteps:\n  - step: tsdf\n    params: {voxel_size: 0.05}\n"
                   "  - step: extract_mesh\n  - step: export\n    params: {path: mesh.ply}\n")
    with SLURMCluster(queue="debug", cores=1, processes=1, memory="2GB", python=sys.executable,
                      walltime="00:10:00", log_directory=str(tmp_path / "logs"), scheduler_options={"host": "127.0.0.1"},
                      job_script_prologue=[f"cd {REPO}"], interface=None) as cluster:
        cluster.scale(1)
        with Client(cluster) as client:
            client.wait_for_workers(1, timeout=180)
            res = smrnb.batch([cfg], tmp_path / "out", client=client, progress=False)
    (scan,) = res.scans
    assert scan.status == "done", scan.error
    assert (tmp_path / "out" / "scan" / "mesh.ply").stat().st_size > 1000
