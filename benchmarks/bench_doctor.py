# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Wall time of ``smr-doctor --json`` in a subprocess (median of 5), and the "hanging nvidia-smi"
scenario: a fake ``nvidia-smi`` that sleeps forever on PATH, cut off by ``--timeout``.

Run: ``python benchmarks/bench_doctor.py``. Asserts nothing; prints the numbers (bar: <= 2 s).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

N = 5


def smr_doctor() -> list[str]:
    exe = shutil.which("smr-doctor")
    return [exe] if exe else [sys.executable, "-m", "smrnb.doctor.cli"]


CPU: list[float] = []


def run(args: list[str], env: dict[str, str] | None = None) -> tuple[float, dict]:
    """Wall seconds and the parsed JSON; the child's user+sys CPU seconds go to ``CPU``."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([*smr_doctor(), *args], capture_output=True, text=True, timeout=120, env=env,
                       start_new_session=True)
    dt = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
    return dt, json.loads(p.stdout)


def main() -> None:
    run(["--json"])  # warm caches
    times, last = [], {}
    CPU.clear()
    for _ in range(N):
        dt, last = run(["--json"])
        times.append(dt)
    probe = {k: v.get("elapsed_s") for k, v in last["facts"].items()}
    print(f"smr-doctor --json: median {statistics.median(times):.2f} s over {N} runs "
          f"(min {min(times):.2f}, max {max(times):.2f}); bar <= 2 s")
    print(f"  CPU (user+sys) of the smr-doctor process tree: median {statistics.median(CPU):.2f} s; "
          f"load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"  in-process collection {last['meta']['elapsed_s']:.2f} s; per probe (s): {probe}")
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "nvidia-smi")
        with open(fake, "w") as fh:
            fh.write("#!/bin/sh\nexec sleep 100000\n")
        os.chmod(fake, 0o755)
        env = dict(os.environ, PATH=f"{tmp}:{os.environ['PATH']}")
        for timeout in (1, 5):
            dt, rep = run(["--json", "--timeout", str(timeout)], env=env)
            drv = rep["facts"]["driver"]
            print(f"hanging nvidia-smi, --timeout {timeout}: wall {dt:.2f} s; driver layer "
                  f"{drv['status']} ({drv.get('reason')}) after {drv['elapsed_s']:.2f} s")


if __name__ == "__main__":
    main()
