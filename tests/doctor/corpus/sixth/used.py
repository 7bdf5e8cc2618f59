#!/usr/bin/env python3
"""Usage: python3 tests/doctor/corpus/sixth/used.py URL [URL ...]  -> says for each URL whether its thread is already taken
(in an earlier corpus part or in another collector's pool file tests/doctor/corpus/sixth/*.jsonl)."""
import sys, json, glob
sys.path.insert(0, "tests/doctor/corpus")
import split
used = {l.strip() for l in open("tests/doctor/corpus/sixth/used_threads.txt") if l.strip()}
pool = {}
for p in glob.glob("tests/doctor/corpus/sixth/*.jsonl"):
    for l in open(p):
        if l.strip():
            try: pool[str(split.thread_key(json.loads(l)["url"]))] = p
            except Exception: pass
for u in sys.argv[1:]:
    k = str(split.thread_key(u))
    print(("TAKEN (earlier corpus part)" if k in used else f"TAKEN (pool {pool[k]})" if k in pool else "free"), u)
