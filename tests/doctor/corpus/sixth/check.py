#!/usr/bin/env python3
"""Usage: python3 tests/doctor/corpus/sixth/check.py tests/doctor/corpus/sixth/<you>.jsonl   -> format, codes, thread overlap problems."""
import sys, json, glob, collections
sys.path.insert(0, "tests/doctor/corpus")
import split
codes = split.known_causes()
used = {l.strip() for l in open("tests/doctor/corpus/sixth/used_threads.txt") if l.strip()}
me = sys.argv[1]
others = {}
for p in glob.glob("tests/doctor/corpus/sixth/*.jsonl"):
    if p == me: continue
    for l in open(p):
        if l.strip():
            try: others[str(split.thread_key(json.loads(l)["url"]))] = p
            except Exception: pass
rows = [json.loads(l) for l in open(me) if l.strip()]
bad = 0; per = collections.Counter(); ids = set()
for i, r in enumerate(rows, 1):
    miss = [f for f in ("id","url","project","text","cause","also","fix","evidence","query") if f not in r]
    if miss: print(f"line {i}: missing {miss}"); bad += 1; continue
    if r["id"] in ids: print(f"line {i}: duplicate id {r['id']}"); bad += 1
    ids.add(r["id"])
    for c in [r["cause"], *r["also"]]:
        if c not in codes and c != "unknown": print(f"line {i}: unknown code {c!r}"); bad += 1
    k = str(split.thread_key(r["url"])); per[k] += 1
    if k in used: print(f"line {i}: thread already in an earlier corpus part: {r['url']}"); bad += 1
    if k in others: print(f"line {i}: thread also in {others[k]}: {r['url']}"); bad += 1
for k, n in per.items():
    if n > 3: print(f"{k}: {n} texts (at most 3 a thread)"); bad += 1
unk = sum(r.get("cause") == "unknown" for r in rows)
print(f"{len(rows)} entries, {len(per)} threads, {unk} unknown, {bad} problems")
