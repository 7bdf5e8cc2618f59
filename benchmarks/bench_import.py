# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Time of ``import smrnb`` in fresh interpreters (median of 10), against a bare interpreter start.

Run: ``python benchmarks/bench_import.py``. Asserts nothing; prints the numbers (bar: < 0.3 s).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

N = 10


def wall(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    wall("import smrnb")  # warm the file cache once
    bare = [wall("pass") for _ in range(N)]
    imp = [wall("import smrnb") for _ in range(N)]
    self_time = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import smrnb"], capture_output=True, text=True, timeout=120
    ).stderr.strip().splitlines()[-1]
    mb, mi = statistics.median(bare), statistics.median(imp)
    print(f"python -c pass          : median {mb * 1000:7.1f} ms over {N} runs")
    print(f"python -c 'import smrnb': median {mi * 1000:7.1f} ms over {N} runs (min {min(imp) * 1000:.1f} ms)")
    print(f"import smrnb itself     : {(mi - mb) * 1000:7.1f} ms (median difference; bar < 300 ms)")
    print(f"-X importtime, last line: {self_time}")


if __name__ == "__main__":
    main()
