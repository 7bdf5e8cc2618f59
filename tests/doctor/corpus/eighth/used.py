#!/usr/bin/env python3
"""The eighth collection's look-up: python3 used.py URL [URL ...] says for each thread whether it is taken
(in an earlier corpus part, listed in used_threads.txt when the collection ran, or in a labeller's pool file)."""

import glob
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import split  # noqa: E402


def main(urls: list[str]) -> None:
    used = {ln.strip() for ln in (HERE / "used_threads.txt").read_text().splitlines() if ln.strip()}
    pool = {}
    for path in glob.glob(str(HERE / "*.jsonl")):
        for line in open(path, encoding="utf-8"):
            if line.strip():
                pool[str(split.thread_key(json.loads(line)["url"]))] = path
    for url in urls:
        key = str(split.thread_key(url))
        state = "TAKEN (earlier corpus part)" if key in used else f"TAKEN (pool {pool[key]})" if key in pool else "free"
        print(state, url)


if __name__ == "__main__":
    main(sys.argv[1:])
