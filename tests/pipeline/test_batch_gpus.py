# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""One worker per GPU (``smrnb.batch(gpus=...)``, ``gpu_cluster``) on a machine faked with an ``nvidia-smi`` of two
H200s: the pinning each worker really gets, one scan per card at a time, a scan whose card fails run on the other
card, the GPU column of the summary and the table. The scans themselves run on the CPU."""

from __future__ import annotations

import csv
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import smrnb
from smrnb.pipeline import StepError, _gpus
from smrnb.pipeline._gpus import GpuRetry, ScanGpuError, gpu_fault, held_gpu, select_gpus, visible
from tests.doctor.test_probe_driver import make_tool
from tests.pipeline.test_batch import QUICK

UUID = ("GPU-6f2b7c0e-2d1a-4c1e-9a51-0c7e3e2b9d11", "GPU-0c9a1a35-6e0f-77b1-3c3d-6a2b4a7e5f10",
        "GPU-99aa1a35-6e0f-77b1-3c3d-6a2b4a7e5f10")
FIELDS = "index,name,uuid,pci.bus_id,driver_version,compute_cap,memory.total,memory.free"
SMI = "".join(f"{i}, NVIDIA H200, {u}, 00000000:{0x19 + 0x22 * i:02X}:00.0, 580.159.04, 9.0, 143771 MiB, 143208 MiB\n"
              for i, u in enumerate(UUID[:2]))
ROWS = [{"index": i, "name": "NVIDIA H200", "uuid": u} for i, u in enumerate(UUID)]

def lister(rows=ROWS):
    return lambda: {"status": "ok", "gpus": [dict(r) for r in rows]}


# ------------------------------------------------------------------------------------------- selection


def test_cuda_visible_devices_follows_cudas_rule():
    assert visible(ROWS, None) == ROWS
    assert [r["index"] for r in visible(ROWS, "2,0")] == [2, 0]
    assert [r["index"] for r in visible(ROWS, "1,7,0")] == [1]  # stops at the first entry naming no card
    assert visible(ROWS, "") == [] and visible(ROWS, "-1") == [] and visible(ROWS, "NoDevFiles") == []
    assert [r["index"] for r in visible(ROWS, UUID[2][:12] + "," + UUID[0])] == [2, 0]  # unique UUID prefixes
    assert [r["index"] for r in visible(ROWS, "0,0,1")] == [0]  # a repeated card ends the list too


def test_select_gpus_all_a_count_indices_and_uuids():
    env: dict[str, str] = {}
    assert [r["index"] for r in select_gpus("all", lister=lister(), environ=env)] == [0, 1, 2]
    assert [r["index"] for r in select_gpus(2, lister=lister(), environ=env)] == [0, 1]
    assert [r["index"] for r in select_gpus([2, UUID[0]], lister=lister(), environ=env)] == [2, 0]
    assert [r["index"] for r in select_gpus("1,2", lister=lister(), environ=env)] == [1, 2]
    # a Slurm job given cards 1 and 2 of the node: "all" is those two
    assert [r["index"] for r in select_gpus("all", lister=lister(), environ={"CUDA_VISIBLE_DEVICES": "1,2"})] == [1, 2]


@pytest.mark.parametrize("gpus, error, match", [
    (0, smrnb.SmrnbValueError, "gpus must be between 1 and 3"),
    (4, smrnb.SmrnbValueError, "gpus must be between 1 and 3"),
    ([0, 0], smrnb.SmrnbValueError, "names GPU 0: NVIDIA H200 twice; one worker per card"),
    ([5], smrnb.SmrnbValueError, "5 names no GPU this process may use"),
    (["GPU-nothing-like-this"], smrnb.SmrnbValueError, "names no GPU"),
    ([], smrnb.SmrnbValueError, "gpus must be 'all', a number of GPUs or a list"),
    (True, smrnb.SmrnbTypeError, "gpus must be 'all'"),
    ([1.5], smrnb.SmrnbTypeError, "each GPU is an index or a UUID, got 1.5"),
])
def test_select_gpus_refuses_bad_input_by_name(gpus, error, match):
    with pytest.raises(error, match=match):
        select_gpus(gpus, lister=lister(), environ={})


def test_no_gpu_for_this_process_says_why():
    with pytest.raises(smrnb.SmrnbValueError, match="CUDA_VISIBLE_DEVICES='' limits this process"):
        select_gpus("all", lister=lister(), environ={"CUDA_VISIBLE_DEVICES": ""})
    with pytest.raises(smrnb.SmrnbValueError, match="no GPU this process may use"):
        select_gpus("all", lister=lister([]), environ={})
    with pytest.raises(smrnb.SmrnbTypeError, match="lister must return a dict with a 'gpus' list"):
        select_gpus("all", lister=lambda: [1, 2], environ={})


def test_pinning_and_the_held_card():
    assert _gpus.pin_env(ROWS[1]) == {"CUDA_VISIBLE_DEVICES": UUID[1], "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    assert _gpus.pin_env({"index": 3, "name": "x"})["CUDA_VISIBLE_DEVICES"] == "3"
    assert held_gpu(ROWS, environ={"CUDA_VISIBLE_DEVICES": UUID[2]})["index"] == 2
    assert held_gpu(ROWS, environ={"CUDA_VISIBLE_DEVICES": f"{UUID[1]},{UUID[0]}"})["index"] == 1  # dask-cuda's order
    assert held_gpu(ROWS, environ={"CUDA_VISIBLE_DEVICES": "1"})["index"] == 1
    assert held_gpu(ROWS, environ={}) is None
    # what torch reports for cuda:0 wins over the environment (torch prints UUIDs without "GPU-")
    assert held_gpu(ROWS, torch_uuid=UUID[0][4:].upper(), environ={"CUDA_VISIBLE_DEVICES": "2"})["index"] == 0
    assert _gpus.gpu_label(ROWS[2]) == "2: NVIDIA H200" and _gpus.gpu_label(None) == ""


def test_which_errors_are_the_cards_fault():
    def chained(outer, inner):
        try:
            try:
                raise inner
            except Exception as e:
                raise outer from e
        except Exception as e:
            return e

    assert gpu_fault(RuntimeError("CUDA error: uncorrectable ECC error encountered")).startswith("cudaErrorECCUncorrectable")
    assert gpu_fault(RuntimeError("NVML_ERROR_GPU_IS_LOST")) is not None
    assert gpu_fault(RuntimeError("CUDA error: CUDA-capable device(s) is/are busy or unavailable")) is not None
    assert gpu_fault(chained(StepError("step 'tsdf' failed", step="tsdf"),
                             RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"))) == "CUDA out of memory"
    # the scan's own faults are not retried elsewhere: bad input, a kernel bug, an arch the wheel lacks
    for text in ("voxel_size must be > 0", "CUDA error: device-side assert triggered",
                 "CUDA error: no kernel image is available for execution on the device"):
        assert gpu_fault(RuntimeError(text)) is None, text
    e = ScanGpuError("RuntimeError: x", "tcp://a:1", "1: NVIDIA H200", "cudaErrorECCUncorrectable")
    back = pickle.loads(pickle.dumps(e))
    assert (str(back), back.worker, back.gpu, back.reason) == ("RuntimeError: x", "tcp://a:1", "1: NVIDIA H200",
                                                               "cudaErrorECCUncorrectable")


class FakeClient:
    def __init__(self, workers):
        self.workers = workers

    def scheduler_info(self):
        return {"workers": {w: {"resources": {"GPU": 1}} for w in self.workers} | {"cpu": {"resources": {}}}}


def test_gpu_retry_goes_to_a_card_not_yet_failed_then_gives_up_naming_each():
    r = GpuRetry(FakeClient(["a", "b", "c"]))
    sent = []

    def submit(**where):
        sent.append(where)
        return object()

    assert r.retry("s1", ScanGpuError("E1", "a", "0: H200", "cudaErrorECCUncorrectable: x"), submit) is not None
    assert sent[-1] == {"workers": ["b", "c"], "allow_other_workers": False}
    # out of memory keeps only that scan off that card
    assert r.retry("s2", ScanGpuError("E2", "b", "1: H200", "CUDA out of memory"), submit) is not None
    assert sent[-1]["workers"] == ["c"] and "b" not in r.bad
    assert r.retry("s3", ScanGpuError("E3", "c", "2: H200", "CUDA out of memory"), submit) is not None
    assert sent[-1]["workers"] == ["b"]
    assert r.retry("s1", ScanGpuError("E4", "b", "1: H200", "NVML_ERROR_GPU_IS_LOST: GPU is lost"), submit) is not None
    assert r.retry("s1", ScanGpuError("E5", "c", "2: H200", "cudaErrorECCUncorrectable: x"), submit) is None
    msg = r.message("s1", ScanGpuError("E5", "c", "2: H200", "x"))
    assert "0: H200 (cudaErrorECCUncorrectable: x); 1: H200 (NVML_ERROR_GPU_IS_LOST" in msg
    assert "no other GPU worker left" in msg
    assert r.message("s9", ValueError("bad")) == "ValueError: bad"


# ---------------------------------------------------------------------------------- real Dask workers

def _fake_gpus(tmp: Path, mp: pytest.MonkeyPatch) -> None:
    """PATH with an nvidia-smi of two H200s (NVML does not load on this machine: the probe asks nvidia-smi)."""
    from smrnb.doctor import list_gpus

    pytest.importorskip("distributed", reason="dask.distributed is not installed (the cluster extra)")
    if list_gpus().get("source") == "nvml":
        pytest.skip("NVML loads here: the GPUs listed are this machine's real ones, not the fake nvidia-smi's")
    make_tool(tmp / "bin", "nvidia-smi", {f"--query-gpu={FIELDS} --format=csv,noheader": (SMI, 0)})
    mp.setenv("PATH", f"{tmp / 'bin'}:{os.environ['PATH']}")
    mp.delenv("CUDA_VISIBLE_DEVICES", raising=False)


@pytest.fixture
def two_fake_gpus(tmp_path, monkeypatch):
    _fake_gpus(tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def gpu_client(tmp_path_factory):
    """A client of ``gpu_cluster("all")`` on the two fake cards (shared by the tests below; the card-failure
    test goes last)."""
    with pytest.MonkeyPatch.context() as mp:
        _fake_gpus(tmp_path_factory.mktemp("smi"), mp)
        from distributed import Client

        with _gpus.gpu_cluster("all", engine="local") as cluster, Client(cluster) as client:
            yield client


def write_configs(folder: Path, n: int, stride: int = 35) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"scan{i}.yaml").write_text(QUICK.format(stride=stride + i, voxel=0.05))
    return folder


def _pinned():
    return {k: os.environ.get(k) for k in ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")}


def _break_card(uuid):
    """In a worker: scans on the card ``uuid`` fail as a card with a failing memory does."""
    from smrnb.pipeline import _batch

    real = _batch.Pipeline.run
    _break_card.faults = 0

    def run(self, *a, **k):
        if os.environ.get("CUDA_VISIBLE_DEVICES") == uuid:
            _break_card.faults += 1
            raise RuntimeError("CUDA error: uncorrectable ECC error encountered\nCUDA kernel errors might be "
                               "asynchronously reported at some other API call")
        return real(self, *a, **k)

    _batch.Pipeline.run = run
    return uuid


def _faults():
    return getattr(_break_card, "faults", 0)


@pytest.mark.slow
def test_one_worker_per_gpu_each_pinned_and_the_scans_spread_over_both(tmp_path, gpu_client):
    client = gpu_client
    cluster = client.cluster
    assert cluster.smrnb_engine == "local" and [r["uuid"] for r in cluster.smrnb_gpus] == list(UUID[:2])
    info = client.scheduler_info()["workers"]
    assert sorted(d["name"] for d in info.values()) == ["gpu0", "gpu1"]
    assert all(d["resources"] == {"GPU": 1} and d["nthreads"] == 1 for d in info.values())
    env = {info[w]["name"]: e for w, e in client.run(_pinned).items()}
    assert env == {"gpu0": {"CUDA_VISIBLE_DEVICES": UUID[0], "CUDA_DEVICE_ORDER": "PCI_BUS_ID"},
                   "gpu1": {"CUDA_VISIBLE_DEVICES": UUID[1], "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}}
    out = tmp_path / "out"
    res = smrnb.batch([write_configs(tmp_path / "c", 4)], out, client=client, device="cpu", gpu=True,
                      progress=False)
    assert [s.status for s in res.scans] == ["done"] * 4
    by_card: dict[str, list] = {}
    for s in res.scans:
        rec = json.loads((out / s.scan / "smrnb-scan.json").read_text())
        assert s.gpu == rec["gpu"] and s.gpu.endswith("(held; ran on cpu)") and rec["device"] == "cpu"
        assert rec["gpu_card"]["uuid"] == UUID[int(rec["worker"][-1])]  # the worker's own card, by its name
        by_card.setdefault(rec["gpu_card"]["uuid"], []).append((rec["started"], rec["finished"]))
    assert set(by_card) == set(UUID[:2])  # both cards worked
    for spans in by_card.values():  # one scan at a time per card
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert {r["gpu"].split(" (")[0] for r in rows} == {"0: NVIDIA H200", "1: NVIDIA H200"}


@pytest.mark.slow
def test_the_doctor_reports_each_gpu_of_the_node_and_each_workers_pinning(gpu_client):
    rep = smrnb.doctor.diagnose_cluster(gpu_client, layers=["driver"], timeout=10)
    assert not rep.failed
    (node,) = rep.nodes
    assert [(g["index"], g["uuid"], g["pci_bus_id"], g["arch"]) for g in node.gpus] == [
        (0, UUID[0], "00000000:19:00.0", "sm_90"), (1, UUID[1], "00000000:3B:00.0", "sm_90")]
    assert sorted(node.workers.values()) == sorted(UUID[:2])  # each worker's CUDA_VISIBLE_DEVICES: its card
    assert all(g["torch_asked"] and g["seen_by"] == [] for g in node.gpus)  # the CPU torch of this machine
    assert "GPU 1: NVIDIA H200, " + UUID[1] in str(rep) and "torch sees it on: no worker" in str(rep)


@pytest.mark.slow
def test_a_scan_whose_card_fails_runs_on_the_other_card_and_no_later_scan_goes_there(tmp_path, gpu_client):
    client = gpu_client
    client.run(_break_card, UUID[0])
    res = smrnb.batch([write_configs(tmp_path / "c", 4)], tmp_path / "out", client=client, device="cpu",
                      gpu=True, retries=0, progress=False)
    assert [s.status for s in res.scans] == ["done"] * 4, [s.error for s in res.scans]
    assert {s.gpu for s in res.scans} == {"1: NVIDIA H200 (held; ran on cpu)"}
    faults = {client.scheduler_info()["workers"][w]["name"]: n for w, n in client.run(_faults).items()}
    assert faults["gpu0"] >= 1 and faults["gpu1"] == 0  # scans did meet the broken card, then went elsewhere
    # both cards broken: the scan fails, naming every card it tried
    client.run(_break_card, UUID[1])
    bad = smrnb.batch([write_configs(tmp_path / "d", 1)], tmp_path / "out2", client=client, device="cpu",
                      gpu=True, retries=0, progress=False)
    (scan,) = bad.scans
    assert scan.status == "failed" and "uncorrectable ECC error" in scan.error
    assert "0: NVIDIA H200" in scan.error and "1: NVIDIA H200" in scan.error and "no other GPU worker left" in scan.error


@pytest.mark.slow
def test_two_threads_one_card_still_one_scan_at_a_time(tmp_path):
    """A worker with two threads and one GPU resource (two scans could run at once; the card holds one)."""
    pytest.importorskip("distributed", reason="dask.distributed is not installed (the cluster extra)")
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None,
                      resources={"GPU": 1}) as cluster, Client(cluster) as client:
        out = tmp_path / "out"
        res = smrnb.batch([write_configs(tmp_path / "c", 2)], out, client=client, device="cpu", gpu=True,
                          progress=False)
    assert [s.status for s in res.scans] == ["done"] * 2
    spans = sorted((r["started"], r["finished"]) for r in
                   (json.loads((out / s.scan / "smrnb-scan.json").read_text()) for s in res.scans))
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


@pytest.mark.slow
def test_batch_gpus_all_starts_its_own_pinned_workers(tmp_path, two_fake_gpus):
    res = smrnb.batch([write_configs(tmp_path / "c", 2)], tmp_path / "out", gpus="all", device="cpu", progress=False)
    assert [s.status for s in res.scans] == ["done", "done"]
    assert all(s.gpu.split(" (")[0] in ("0: NVIDIA H200", "1: NVIDIA H200") and s.worker in ("gpu0", "gpu1")
               for s in res.scans)
    assert "| gpu |" in res.table()
    with pytest.raises(smrnb.SmrnbValueError, match="gpus starts its own cluster"):
        smrnb.batch([tmp_path / "c"], tmp_path / "out", gpus="all", client=object())


def test_the_command_line_flag(tmp_path):
    pytest.importorskip("distributed", reason="dask.distributed is not installed (the cluster extra)")
    cfg = write_configs(tmp_path / "c", 1)
    r = subprocess.run([sys.executable, "-m", "smrnb._cli", "batch", str(cfg), "--output", str(tmp_path / "o"),
                        "--gpus", "zero"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--gpus must be all, a number of GPUs" in r.stderr
    r = subprocess.run([sys.executable, "-m", "smrnb._cli", "batch", str(cfg), "--output", str(tmp_path / "o"),
                        "--gpus", "all"], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PATH": "/usr/bin:/bin", "CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 1 and "gpus: this machine has no GPU this process may use" in r.stderr, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
