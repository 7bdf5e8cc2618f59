# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A real single-node Slurm for the tests: Debian's munged, slurmctld and slurmd, started in a temp dir.

``.ci/run`` installs the packages (``slurmctld slurmd slurm-client munge``). The configuration has no
cgroup plugins (``proctrack/linuxproc``, ``task/none``) so the daemons run inside a container as
root; ports are picked free on 127.0.0.1. :func:`start` returns a :class:`Slurm` whose ``env`` has
``SLURM_CONF`` for sbatch/squeue/dask-jobqueue; :meth:`Slurm.stop` ends every job and daemon it started.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

BINARIES = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol")


def missing() -> list[str]:
    return [b for b in BINARIES if shutil.which(b) is None and not Path("/usr/sbin", b).exists()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _memory_mb() -> int:
    """Most of this machine's memory, in MB (jobs ask for memory: dask-jobqueue's --mem)."""
    try:
        kb = int(next(ln for ln in Path("/proc/meminfo").read_text().splitlines() if ln.startswith("MemTotal")).split()[1])
    except (OSError, StopIteration, ValueError, IndexError):
        return 1024
    return max(1024, int(kb / 1024 * 0.8))


def _which(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


@dataclass
class Slurm:
    root: Path
    env: dict[str, str]
    procs: list[str] = field(default_factory=list)
    started_munged: bool = False

    def run(self, *cmd: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, env=self.env)

    def wait_job(self, job_id: str, timeout: float = 180) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            r = self.run("squeue", "-h", "-j", job_id, "-o", "%T")
            if r.returncode == 0 and not r.stdout.strip():
                return
            time.sleep(0.5)
        raise TimeoutError(f"Slurm job {job_id} did not finish in {timeout} s: {self.run('squeue').stdout}")

    def stop(self) -> None:
        self.run("scancel", "--user", "root", timeout=30)
        self.run("scontrol", "shutdown", timeout=30)
        for pidfile in ("slurmctld.pid", "slurmd.pid"):
            try:
                os.kill(int((self.root / pidfile).read_text().strip()), 15)
            except (OSError, ValueError):
                pass


def start(root: Path) -> Slurm:
    """Start munged (unless one runs), slurmctld and slurmd for this host; raise RuntimeError with the
    daemons' own words when they cannot run here."""
    host = socket.gethostname().split(".")[0]
    for d in ("state", "spool", "log"):
        (root / d).mkdir(parents=True, exist_ok=True)
    ctl, node = _free_port(), _free_port()
    conf = root / "slurm.conf"
    conf.write_text("\n".join([
        "ClusterName=smrnbtest", f"SlurmctldHost={host}(127.0.0.1)", "SlurmUser=root", "SlurmdUser=root",
        "AuthType=auth/munge", "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none", "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
        "SchedulerType=sched/builtin", "MpiDefault=none", "ReturnToService=2",
        f"StateSaveLocation={root / 'state'}", f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'slurmctld.pid'}", f"SlurmdPidFile={root / 'slurmd.pid'}",
        f"SlurmctldLogFile={root / 'log' / 'slurmctld.log'}", f"SlurmdLogFile={root / 'log' / 'slurmd.log'}",
        f"SlurmctldPort={ctl}", f"SlurmdPort={node}",
        f"NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} RealMemory={_memory_mb()} State=UNKNOWN",
        f"PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP", ""]))
    env = dict(os.environ, SLURM_CONF=str(conf))
    s = Slurm(root, env)
    if subprocess.run(["pgrep", "-x", "munged"], capture_output=True).returncode != 0:
        Path("/run/munge").mkdir(parents=True, exist_ok=True)
        r = subprocess.run([_which("munged"), "--force"], capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise RuntimeError(f"munged did not start: {r.stderr.strip()[-500:]}")
        s.started_munged = True
    for cmd in ([_which("slurmctld"), "-c", "-f", str(conf)], [_which("slurmd"), "-f", str(conf)]):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()[-800:]}")
    deadline = time.time() + 60
    while time.time() < deadline:
        r = s.run("sinfo", "-h", "-o", "%T")
        if r.returncode == 0 and r.stdout.strip() in ("idle", "mixed", "allocated"):
            return s
        time.sleep(0.5)
    logs = "".join((root / "log" / f).read_text()[-800:] for f in ("slurmctld.log", "slurmd.log")
                   if (root / "log" / f).exists())
    s.stop()
    raise RuntimeError(f"the Slurm node did not come up within 60 s (sinfo: {r.stdout.strip()!r} "
                       f"{r.stderr.strip()!r}); logs: {logs}")
