# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The doctor's command runner against ``subprocess.Popen.communicate`` (the reference it replaced),
measured in the same run:

* per-call cost of a trivial command (``true``), median of 5 rounds of 100 calls;
* a flooding tool (``head -c 200000000 /dev/zero``, like an ``nvidia-smi`` printing gigabytes):
  wall time and bytes kept; ``communicate()`` reads all 200 MB, the runner stops at its 8 MiB cap;
* redaction (``smrnb.doctor._redact.redact_text``) of 1 MB and 10 MB of log text with planted secrets,
  against ``str.replace`` of one literal over the same text (a floor: one linear pass in C).

Run: ``python benchmarks/bench_doctor_runner.py``. Asserts nothing; prints the numbers.
"""

from __future__ import annotations

import statistics
import subprocess
import time

from smrnb.doctor._model import Runner
from smrnb.doctor._redact import redact_text


def communicate(argv: list[str]) -> tuple[bytes, bytes]:
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         start_new_session=True)
    return p.communicate(timeout=60)


def per_call(fn, n: int = 100, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        times.append((time.perf_counter() - t0) / n)
    return statistics.median(times)


def main() -> None:
    run = Runner()
    ref = per_call(lambda: communicate(["true"]))
    ours = per_call(lambda: run(["true"]))
    print(f"trivial command: communicate {ref * 1e3:.2f} ms, Runner {ours * 1e3:.2f} ms, ratio {ours / ref:.2f}")
    flood = ["sh", "-c", "head -c 200000000 /dev/zero"]
    t0 = time.perf_counter()
    out, _ = communicate(flood)
    t_ref = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = run(flood)
    t_ours = time.perf_counter() - t0
    print(f"200 MB flood: communicate {t_ref:.3f} s keeping {len(out)} bytes; Runner {t_ours:.3f} s keeping "
          f"{len(res.stdout)} bytes (flooded={res.flooded}); ratio {t_ours / t_ref:.2f}")
    line = ("[build] nvcc -c kaolin/csrc/ops/foo.cu -o build/foo.o  # log line with paths and flags -O3 -arch=sm_90\n"
            "Looking in indexes: https://alice:pa55@pypi.example/simple token ghp_Z3xKq9vT2mB7nR4wY6pL1sD8fH0jA5cE2gU9\n")
    for mb in (1, 10):
        text = line * (mb * 1_000_000 // len(line))
        t0 = time.perf_counter()
        text.replace("pa55", "<redacted>")
        t_ref = time.perf_counter() - t0
        t0 = time.perf_counter()
        red = redact_text(text)
        t_ours = time.perf_counter() - t0
        assert "pa55" not in red and "ghp_Z3x" not in red
        print(f"redact {mb} MB: str.replace {t_ref * 1e3:.1f} ms, redact_text {t_ours * 1e3:.1f} ms, "
              f"ratio {t_ours / t_ref:.1f}")


if __name__ == "__main__":
    main()
