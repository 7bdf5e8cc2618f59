#!/usr/bin/env python3
"""The twenty-first collection's look-up: python3 used.py URL [URL ...] says for each thread whether it is taken
(in an earlier corpus part, listed in used_threads.txt when the collection ran, or in a labeller's pool file)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import pool  # noqa: E402

if __name__ == "__main__":
    pool.used(HERE, sys.argv[1:])
