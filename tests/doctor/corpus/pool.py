# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The labellers' tools of a collection (``sixth/``, ``seventh/``, ``eighth/``: each folder's ``used.py`` and
``check.py`` call these with their own folder): whether a thread is taken, and the check of one labeller's file."""

import collections
import glob
import json
from pathlib import Path

import split


def used(here: Path, urls: list[str]) -> None:
    """Print for each thread of ``urls`` whether it is taken (an earlier corpus part, listed in
    ``here/used_threads.txt`` when the collection ran, or a labeller's pool file in ``here``)."""
    used = {ln.strip() for ln in (here / "used_threads.txt").read_text().splitlines() if ln.strip()}
    pool = {}
    for path in glob.glob(str(here / "*.jsonl")):
        for line in open(path, encoding="utf-8"):
            if line.strip():
                pool[str(split.thread_key(json.loads(line)["url"]))] = path
    for url in urls:
        key = str(split.thread_key(url))
        state = "TAKEN (earlier corpus part)" if key in used else f"TAKEN (pool {pool[key]})" if key in pool else "free"
        print(state, url)


FIELDS = ("id", "url", "project", "text", "cause", "also", "fix", "evidence", "query")


def check(here: Path, me: str) -> int:
    """Format, code and thread-overlap problems of one labeller's file ``me`` of the collection in ``here`` (with
    the other pool files there and ``here/used_threads.txt``, the earlier parts when it ran); 1 when any."""
    codes = split.known_causes()
    used = {ln.strip() for ln in (here / "used_threads.txt").read_text().splitlines() if ln.strip()}
    others = {}
    for path in glob.glob(str(here / "*.jsonl")):
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
