#!/usr/bin/env python3
"""The eighth collection's check of one labeller's file: python3 check.py /abs/path/<name>.jsonl prints format,
code and thread-overlap problems (with the other pool files and the earlier corpus parts)."""

import collections
import glob
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import split  # noqa: E402

FIELDS = ("id", "url", "project", "text", "cause", "also", "fix", "evidence", "query")


def main(me: str) -> int:
    codes = split.known_causes()
    used = {ln.strip() for ln in (HERE / "used_threads.txt").read_text().splitlines() if ln.strip()}
    others = {}
    for path in glob.glob(str(HERE / "*.jsonl")):
        if Path(path).resolve() == Path(me).resolve():
            continue
        for line in open(path, encoding="utf-8"):
            if line.strip():
                others[str(split.thread_key(json.loads(line)["url"]))] = path
    rows = [json.loads(line) for line in open(me, encoding="utf-8") if line.strip()]
    bad, per, ids = 0, collections.Counter(), set()
    for i, r in enumerate(rows, 1):
        missing = [f for f in FIELDS if f not in r]
        if missing:
            print(f"line {i}: missing {missing}")
            bad += 1
            continue
        if r["id"] in ids:
            print(f"line {i}: duplicate id {r['id']}")
            bad += 1
        ids.add(r["id"])
        for c in [r["cause"], *r["also"]]:
            if c not in codes and c != "unknown":
                print(f"line {i}: unknown code {c!r}")
                bad += 1
        key = str(split.thread_key(r["url"]))
        per[key] += 1
        if key in used:
            print(f"line {i}: thread already in an earlier corpus part: {r['url']}")
            bad += 1
        if key in others:
            print(f"line {i}: thread also in {others[key]}: {r['url']}")
            bad += 1
    for key, n in per.items():
        if n > 3:
            print(f"{key}: {n} texts (at most 3 a thread)")
            bad += 1
    unknown = sum(r.get("cause") == "unknown" for r in rows)
    print(f"{len(rows)} entries, {len(per)} threads, {unknown} unknown, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
