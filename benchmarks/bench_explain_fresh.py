# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Explain on fresh-like text: released held-out parts read by the rules of the commit that added them.

    python benchmarks/bench_explain_fresh.py [--parts heldout6,heldout7,heldout8]

A held-out part is fresh text only once: after its release, rounds of rules are written from its misses. This
benchmark recovers the fresh condition for the readings of similar known reports without spending a held-out score:
for each released part it checks out (a temporary detached git worktree) the commit that added the part, takes the
rules' findings there (``explain_result(text, similar=False)`` in a subprocess of that tree), and adds this tree's
readings (an index built without the part) through this tree's ``_similar_findings``, the code explain runs. Printed
per part: the old rules alone, the old rules with this tree's readings, and the readings alone (their first two
causes, gated as explain gates them, no rule). Accuracy as everywhere: the cause (or an ``also``) among the first two findings; an ``unknown`` cause is
right when the text is not recognised. Needs git and this repository's history; the corpus parts must exist at HEAD.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests/doctor/corpus"
#: run in the old tree: the rules' findings (code, layer, severity) and whether the text was recognised, per text
_DUMP = """
import json, sys
from smrnb.doctor._explain import explain_result
rows = [json.loads(ln) for ln in open(sys.argv[1], encoding="utf-8") if ln.strip()]
out = []
for r in rows:
    res = explain_result(r["text"], similar=False)
    out.append({"f": [[f.code, f.layer, f.severity, f.title] for f in res.findings], "rec": res.recognised})
json.dump(out, open(sys.argv[2], "w"))
"""


def _added_at(part: str) -> str:
    """The commit that added ``part``'s file to the corpus."""
    out = subprocess.run(["git", "log", "--diff-filter=A", "--format=%H", "--", f"tests/doctor/corpus/{part}.jsonl"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    if not out:
        raise SystemExit(f"{part}: no commit added tests/doctor/corpus/{part}.jsonl")
    return out[-1]


def _old_rules(part: str, commit: str, rows_file: Path, tmp: Path) -> list[dict]:
    tree = tmp / f"tree-{part}"
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), commit], cwd=ROOT, check=True)
    try:
        out = tmp / f"{part}.json"
        subprocess.run([sys.executable, "-c", _DUMP, str(rows_file), str(out)], cwd=tree, check=True,
                       env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
        return json.loads(out.read_text())
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", default="heldout6,heldout7,heldout8")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(CORPUS))
    import similar  # tests/doctor/corpus/similar.py

    from smrnb.doctor._codes import CODES
    from smrnb.doctor._explain import _prepared, _similar_findings
    from smrnb.doctor._model import Finding

    for part in [p for p in args.parts.split(",") if p]:
        if part in similar.HELD_OUT:
            print(f"{part}: held out (scored by its keeper, never here)")
            continue
        rows_file = CORPUS / f"{part}.jsonl"
        rows = [json.loads(ln) for ln in rows_file.read_text(encoding="utf-8").splitlines() if ln.strip()]
        commit = _added_at(part)
        with tempfile.TemporaryDirectory() as tmp:
            old = _old_rules(part, commit, rows_file, Path(tmp))
        index = similar.built(exclude=(part,))
        right = {"rules": 0, "rules + readings": 0, "readings alone": 0}
        for r, o in zip(rows, old):
            want = {r["cause"], *(r.get("also") or [])}
            if r["cause"] == "unknown":
                hit = not o["rec"]
                right["rules"] += hit
                right["rules + readings"] += hit
                continue
            found = [Finding(c, layer, sev, title) for c, layer, sev, title in o["f"] if c in CODES]
            guesses = _similar_findings(_prepared(r["text"]), found, index)
            right["rules"] += bool(want & {f.code for f in found[:2]})
            right["rules + readings"] += bool(want & {f.code for f in (found + guesses)[:2]})
            right["readings alone"] += bool(want & {x.code for x in index.readings(r["text"], n=2)})
        n = len(rows)
        known = sum(r["cause"] != "unknown" for r in rows)
        print(f"{part} ({n} texts; rules of {commit[:7]}, the commit that added it): "
              f"rules {100 * right['rules'] / n:.1f} %, + this tree's readings "
              f"{100 * right['rules + readings'] / n:.1f} %, readings alone (top two, {known} labelled texts) "
              f"{100 * right['readings alone'] / max(known, 1):.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
