#!/usr/bin/env python3
"""The twenty-first collection's check of one labeller's file: python3 check.py /abs/path/<name>.jsonl prints format,
code and thread-overlap problems (with the other pool files and the earlier corpus parts)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import pool  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(pool.check(HERE, sys.argv[1]))
