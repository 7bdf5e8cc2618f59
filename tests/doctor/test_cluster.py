# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The doctor across a real Dask cluster: two worker processes started with different environments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("distributed", reason="dask.distributed is not installed (the cluster extra)")

from smrnb.doctor._cluster import diagnose_cluster, group_reports

pytestmark = pytest.mark.slow


@pytest.fixture
def two_node_cluster(tmp_path):
    """A scheduler and two `dask worker` processes: one started with LD_LIBRARY_PATH and a PATH-style
    CUDA_HOME (as a `module load` on one node can leave them), one without (as `sbatch --export=NONE` would)."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=0, dashboard_address=None, processes=True)
    base = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "CUDA_HOME")}
    envs = [dict(base, LD_LIBRARY_PATH=str(tmp_path / "cuda-12.1" / "lib64"), CUDA_HOME="/usr/local/cuda:/opt/cuda"),
            dict(base)]
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address,
                               "--nworkers", "1", "--nthreads", "1", "--name", f"node{i}", "--no-dashboard"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for i, env in enumerate(envs)]
    client = Client(cluster)
    try:
        client.wait_for_workers(2, timeout=120)
        yield client, cluster.scheduler_address
    finally:
        client.close()
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
        cluster.close()


def test_each_worker_is_diagnosed_as_its_process_sees_it_and_only_differences_are_shown(two_node_cluster, tmp_path):
    client, address = two_node_cluster
    rep = diagnose_cluster(client, layers=["loader", "toolkit", "torch"], timeout=10)
    assert sum(len(g.workers) for g in rep.groups) == 2 and not rep.failed
    assert len(rep.groups) == 2
    diffs = dict(rep.differences())
    # the environment differs, and so does the nvcc a build would use (CUDA_HOME is a list on node0);
    # the rest is the same machine
    assert {"LD_LIBRARY_PATH at start", "CUDA_HOME"} <= set(diffs) <= {"LD_LIBRARY_PATH at start", "CUDA_HOME", "nvcc"}
    assert sorted(diffs["LD_LIBRARY_PATH at start"]) == sorted([str(tmp_path / "cuda-12.1" / "lib64"), "unset"])
    bad = next(i for i, g in enumerate(rep.groups) if g.view["CUDA_HOME"] != "unset")
    assert any(w.startswith("cuda_home_malformed") for w in rep.explaining()[bad])  # the finding that explains it
    assert not any(w.startswith("cuda_home") for w in rep.explaining()[1 - bad])
    text = str(rep)
    assert "what differs:" in text and f"group {bad + 1} only: cuda_home_malformed" in text
    html = rep._repr_html_()
    assert html.count("background:#fff3cd") == len(diffs) and "<table class='smrnb-cluster'>" in html
    # the command line, against the same scheduler
    r = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "cluster", "--scheduler", address, "--json",
                        "--layer", "loader", "--timeout", "10"], capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert len(out["groups"]) == 2 and "LD_LIBRARY_PATH at start" in out["differences"]


def test_identical_workers_make_one_group_and_a_silent_worker_is_listed():
    rep = {"facts": {"driver": {"driver_version": "580.1", "gpus": [{"name": "NVIDIA H200"}]},
                     "torch": {"installed": True, "version": "2.11.0", "cuda": "13.0"}},
           "meta": {"python": "3.12.3"}, "findings": [], "host": "n1"}
    c = group_reports({"tcp://a:1": rep, "tcp://b:1": dict(rep, host="n2")}, {"tcp://c:1": "TimeoutError: 70 s"})
    assert len(c.groups) == 1 and c.groups[0].workers == ["tcp://a:1", "tcp://b:1"] and c.differences() == []
    assert "every worker sees the same" in str(c) and "tcp://c:1: the doctor did not answer (TimeoutError" in str(c)
    assert "torch: 2.11.0 (CUDA 13.0)" in str(c) and "GPUs: NVIDIA H200" in str(c)


def test_a_scheduler_that_does_not_answer_is_a_usage_error():
    t0 = time.time()
    r = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "cluster", "--scheduler", "tcp://127.0.0.1:9",
                        "--timeout", "1"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "no Dask scheduler answers at tcp://127.0.0.1:9" in r.stderr
    assert time.time() - t0 < 90


def _gpus_of(cvd, sees, status="ok"):
    rows = [{"index": i, "name": "NVIDIA H200", "uuid": f"GPU-{i}aaaaaaa-0000", "pci_bus_id": f"00000000:{i + 1:02X}:00.0",
             "driver_version": "580.159.04", "compute_capability": "9.0", "arch": "sm_90",
             "memory_total_bytes": 150754820096, "memory_free_bytes": 140 * 2**30,
             "torch_sees": (i == sees) if status == "ok" else None, "torch_index": 0 if i == sees else None}
            for i in range(3)]
    return {"status": "ok", "source": "nvml", "gpus": rows, "cuda_visible_devices": cvd,
            "torch": {"status": status, **({"reason": "torch is not installed"} if status != "ok" else {})}}


def test_each_gpu_of_each_node_and_the_workers_whose_torch_sees_it():
    base = {"facts": {}, "meta": {"python": "3.12.3"}, "findings": []}
    reps = {"tcp://a:1": dict(base, host="n1", worker_name="gpu0", node_gpus=_gpus_of("GPU-0aaaaaaa-0000", 0)),
            "tcp://a:2": dict(base, host="n1", worker_name="gpu1", node_gpus=_gpus_of("GPU-1aaaaaaa-0000", 1)),
            "tcp://a:3": dict(base, host="n1", node_gpus=_gpus_of(None, 1)),
            "tcp://b:1": dict(base, host="n2", node_gpus=_gpus_of(None, None, status="not_installed"))}
    c = group_reports(reps)
    n1, n2 = c.nodes
    assert n1.host == "n1" and [g["index"] for g in n1.gpus] == [0, 1, 2]
    assert [[s["worker"] for s in g["seen_by"]] for g in n1.gpus] == [["gpu0 (tcp://a:1)"],
                                                                      ["gpu1 (tcp://a:2)", "tcp://a:3"], []]
    assert n1.workers["gpu0 (tcp://a:1)"] == "GPU-0aaaaaaa-0000" and n1.workers["tcp://a:3"] is None
    assert n1.notes() == ["GPU 1 is seen by 2 workers (gpu1 (tcp://a:2), tcp://a:3): they share it",
                          "GPU 2 is seen by no worker's torch"]
    assert n2.notes() == [] and n2.problems == ["tcp://b:1: torch was not asked which GPUs it sees "
                                                "(torch is not installed)"]
    text = str(c)
    assert "GPUs of n1: 3; workers there: gpu0 (tcp://a:1) (CUDA_VISIBLE_DEVICES=GPU-0aaaaaaa-0000)" in text
    assert ("  GPU 0: NVIDIA H200, GPU-0aaaaaaa-0000, bus 00000000:01:00.0, driver 580.159.04, compute capability "
            "9.0 (sm_90), 140.4 GiB (140.0 GiB free); torch sees it on: gpu0 (tcp://a:1) (cuda:0)") in text
    assert "torch sees it on: not asked" in text  # n2: unknown, never "no worker"
    html = c._repr_html_()
    assert html.count("<table class='smrnb-cluster-gpus'>") == 2 and "they share it" in html
    d = c.to_dict()
    assert [len(n["gpus"]) for n in d["nodes"]] == [3, 3] and json.dumps(d)
