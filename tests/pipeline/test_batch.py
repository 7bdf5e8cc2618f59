# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``smrnb.batch`` / ``smrnb batch`` on a real dask.distributed LocalCluster of 2 worker processes."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="dask.distributed is not installed (the cluster extra)")

import smrnb
from smrnb.pipeline._batch import RECORD, find_configs, scan_names

pytestmark = pytest.mark.slow

QUICK = """source: {{path: sample, stride: {stride}}}
steps:
  - step: tsdf
    params: {{voxel_size: {voxel}, depth_max: 3.0}}
  - step: extract_mesh
  - step: export
    params: {{path: mesh.ply}}
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{name}.yaml"
    p.write_text(text)
    return p


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_scans_run_as_tasks_a_failure_is_reported_and_reruns_skip_finished_scans(tmp_path, client):
    cfg = tmp_path / "configs"
    write(cfg, "room_a", QUICK.format(stride=35, voxel=0.05))
    write(cfg, "room_b", QUICK.format(stride=30, voxel=0.06))
    (tmp_path / "empty").mkdir()
    write(cfg, "broken", QUICK.format(stride=35, voxel=0.05).replace("{path: sample, stride: 35}", "../empty"))
    out = tmp_path / "out"
    res = smrnb.batch([cfg], out, client=client, progress=False)
    by = {s.scan: s for s in res.scans}
    assert [s.scan for s in res.scans] == ["broken", "room_a", "room_b"]
    assert by["room_a"].status == by["room_b"].status == "done"
    assert by["broken"].status == "failed" and by["broken"].error and by["broken"].folder is None
    for name in ("room_a", "room_b"):
        folder = out / name
        assert (folder / "mesh.ply").stat().st_size > 1000 and (folder / RECORD).is_file()
        assert by[name].counts["frames"] >= 2 and by[name].counts["faces"] > 100 and by[name].counts["blocks"] > 0
    assert not (out / "broken").exists() and not list(out.glob(".*partial*"))
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [r["scan"] for r in rows] == ["broken", "room_a", "room_b"] and rows[0]["status"] == "failed"
    assert "| room_a | done |" in (out / "summary.md").read_text()
    # a re-run skips what is complete and unchanged, runs what changed, and still reports the failure
    stamp = (out / "room_a" / "mesh.ply").stat().st_mtime_ns
    write(cfg, "room_b", QUICK.format(stride=30, voxel=0.07))
    again = {s.scan: s.status for s in smrnb.batch([cfg], out, client=client, progress=False).scans}
    assert again == {"broken": "failed", "room_a": "skipped", "room_b": "done"}
    assert (out / "room_a" / "mesh.ply").stat().st_mtime_ns == stamp


def test_a_worker_killed_mid_task_leaves_nothing_half_written_as_complete(tmp_path, client):
    cfg = write(tmp_path / "configs", "slow", QUICK.format(stride=2, voxel=0.015))  # 36 frames at 1.5 cm
    out = tmp_path / "out"
    killed: list[int] = []

    def kill_the_busy_worker():
        deadline = time.time() + 120
        while time.time() < deadline and not list(out.glob(".slow.partial-*")):
            time.sleep(0.05)
        busy = [addr for addr, tasks in client.processing().items() if tasks]
        pids = client.run(os.getpid, workers=busy)
        for pid in pids.values():
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    t = threading.Thread(target=kill_the_busy_worker)
    t.start()
    res = smrnb.batch([cfg], out, client=client, retries=2, progress=False)
    t.join()
    (scan,) = res.scans
    assert killed, "no worker was killed mid-task"
    assert scan.status == "done", scan.error  # re-run on a live worker
    assert (out / "slow" / "mesh.ply").is_file() and (out / "slow" / RECORD).is_file()
    assert not list(out.glob(".slow.partial-*"))  # the killed attempt's folder is gone, never taken as a result
    client.wait_for_workers(2, timeout=120)


HELD = QUICK.replace("stride: {stride}}}", "stride: {stride}, holdout: {holdout}}}")  # every k-th frame held out


class Listener:
    """A progress listener that records what the batch told it, in order."""

    def __init__(self):
        self.started: list = []
        self.updates: list = []

    def start(self, scans):
        self.started = [(s.scan, s.status) for s in scans]

    def update(self, scan):
        self.updates.append((scan.scan, scan.status))


def test_held_out_depth_error_column_and_a_progress_listener(tmp_path, client):
    cfg = tmp_path / "configs"
    write(cfg, "held", HELD.format(stride=5, holdout=4, voxel=0.04))
    write(cfg, "plain", QUICK.format(stride=30, voxel=0.06))
    out = tmp_path / "out"
    seen = Listener()
    res = smrnb.batch([cfg], out, client=client, progress=seen)
    by = {s.scan: s for s in res.scans}
    assert seen.started == [("held", "queued"), ("plain", "queued")]
    assert sorted(seen.updates) == [("held", "done"), ("plain", "done")]
    h = by["held"].heldout
    assert h["n_frames"] == 4 and 0 < h["median_abs_error"] < 0.015 and h["coverage"] > 0.8
    assert by["held"].counts["frames"] == 15 - 4  # the held-out frames were not fused
    assert by["plain"].heldout == {}
    rows = {r["scan"]: r for r in csv.DictReader((out / "summary.csv").open())}
    assert float(rows["held"]["heldout_median_mm"]) == pytest.approx(1000 * h["median_abs_error"], abs=0.01)
    assert rows["held"]["heldout_frames"] == "4" and rows["plain"]["heldout_median_mm"] == ""
    # a re-run skips the finished scans and still reports their held-out error (from their records)
    again = Listener()
    res2 = smrnb.batch([cfg], out, client=client, progress=again)
    assert again.started == [("held", "skipped"), ("plain", "skipped")] and again.updates == []
    assert res2.scans[0].heldout["median_abs_error"] == h["median_abs_error"]
    with pytest.raises(smrnb.SmrnbTypeError, match="progress must be True, False or an object with start"):
        smrnb.batch([cfg], out, client=client, progress="yes")


def test_the_command_line(tmp_path):
    cfg = write(tmp_path / "c", "one", QUICK.format(stride=35, voxel=0.05))
    r = subprocess.run([sys.executable, "-m", "smrnb._cli", "batch", str(cfg), "--output", str(tmp_path / "o"),
                        "--local", "1"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "1 scans" in r.stdout and "1 done" in r.stdout and (tmp_path / "o" / "one" / "mesh.ply").is_file()
    r = subprocess.run([sys.executable, "-m", "smrnb._cli", "batch", str(tmp_path / "nothing"), "--output",
                        str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "is neither a config file nor a folder of them" in r.stderr


def test_config_discovery_and_names(tmp_path):
    a = write(tmp_path / "x", "scan", "x")
    b = write(tmp_path / "y", "scan", "y")
    assert scan_names([a, b]) == ["x-scan", "y-scan"]
    assert find_configs([tmp_path / "x"]) == [a]
    with pytest.raises(smrnb.SmrnbValueError, match="has no \\*.yaml or \\*.yml config files"):
        find_configs([tmp_path])
    with pytest.raises(smrnb.SmrnbValueError, match="local must be an int >= 1 \\(workers\\), got 0"):
        smrnb.batch([a], tmp_path / "o", local=0)


def _user_tree(root: Path) -> dict[str, bytes]:
    return {os.path.relpath(p, root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_what_is_in_the_way_is_refused_before_any_work(tmp_path, monkeypatch):
    import smrnb.pipeline._batch as B

    monkeypatch.setattr(B, "missing", lambda extra: (_ for _ in ()).throw(AssertionError("work started")))
    cfg = write(tmp_path / "configs", "scan", QUICK.format(stride=35, voxel=0.05))
    out = tmp_path / "results"
    (out / "scan").mkdir(parents=True)
    (out / "scan" / "notes.txt").write_text("the user's own folder called scan")
    before = _user_tree(out)
    with pytest.raises(smrnb.SmrnbValueError, match=r"results/scan' exists and was not made by smrnb batch"):
        smrnb.batch([cfg], out, local=1, progress=False)
    # a batch's folder to which the user added a file is the user's now
    (out / "scan" / RECORD).write_text('{"scan": "scan", "outputs": ["mesh.ply"], "status": "done"}')
    (out / "scan" / "mesh.ply").write_text("ply")
    with pytest.raises(smrnb.SmrnbValueError, match="was not made by smrnb batch"):
        smrnb.batch([cfg], out, local=1, progress=False)
    (out / "scan" / "notes.txt").unlink()
    assert B.made_by_smrnb(out / "scan")
    (out / "summary.md").write_text("# my own notes on these scans\n")
    with pytest.raises(smrnb.SmrnbValueError, match=r"summary\.md' exists and is not a batch summary"):
        smrnb.batch([cfg], out, local=1, progress=False)
    assert (out / "summary.md").read_text() == "# my own notes on these scans\n"
    (tmp_path / "afile").write_text("mine")
    with pytest.raises(smrnb.SmrnbValueError, match=r"afile' is a file, not a folder"):
        smrnb.batch([cfg], tmp_path / "afile", local=1, progress=False)
    assert (tmp_path / "afile").read_text() == "mine" and before["scan/notes.txt"]


def test_a_scans_own_error_is_a_result_and_an_interrupted_swap_is_put_back(tmp_path):
    import smrnb.pipeline._batch as B

    (tmp_path / "empty").mkdir()
    cfg = write(tmp_path / "configs", "broken", QUICK.format(stride=35, voxel=0.05).replace(
        "{path: sample, stride: 35}", "../empty"))
    out = tmp_path / "out"
    out.mkdir()
    rec = B._scan_task(os.fspath(cfg), "broken", os.fspath(out), "k", None, None)
    assert rec["status"] == "failed" and "empty" in rec["error"]  # returned, so Dask does not retry it
    with pytest.raises(smrnb.SmrnbError):
        B.run_scan(os.fspath(cfg), "broken", os.fspath(out), "k")  # the public task still raises
    assert sorted(p.name for p in out.iterdir()) == []
    old = out / ".scan.old-0123abcd"
    old.mkdir()
    (old / "mesh.ply").write_text("ply")
    (old / RECORD).write_text('{"scan": "scan", "outputs": ["mesh.ply"], "status": "done"}')
    B._clean_partials(out, ["scan"])  # the new folder never arrived: the earlier result comes back
    assert sorted(p.name for p in out.iterdir()) == ["scan"] and (out / "scan" / "mesh.ply").read_text() == "ply"
