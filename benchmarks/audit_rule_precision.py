# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Precision of explain's rules over the whole corpus: which finding codes and which rules fire wrongly.

    PYTHONPATH=. python benchmarks/audit_rule_precision.py [--corpus DIR] [--parts P,Q] [--top N]
        [--min-wrong K] [--code CODE] [--rule FILE:LINE] [--show N] [--json OUT]

Runs explain with ``similar=False`` (the rules alone, no readings of similar reports) over every corpus part
(``tests/doctor/corpus/*.jsonl``) and counts, per finding code, how often it was the first and the second
finding and how often it was right there (the entry's label or one of its ``also``) or wrong there. An entry
labelled ``unknown`` makes every finding of a recognised text wrong. The same counts are printed per rule: the
source line behind the finding: the sign of the event it was read from (the table row, ``table:key``, or the reader's
event kind, of ``smrnb/doctor/_textfacts.py``; the event's codes are ordered by ``rules/_events.py``), else the
source line in ``smrnb/doctor/rules/`` that built it; and per decision (the line saying what ordered the
event's readings). Where several rules give the same
code, the one explain kept (lowest rank, first in rule order) is counted.

The report ends with the offenders: codes and rules whose wrong first findings are many (``--min-wrong``) or
exceed their right first findings. ``--code``/``--rule`` print the entries a code or rule answered wrongly in
first or second place (id, label, first two findings, the text's first characters: ``--show``), to read them.

Prints only; changes nothing. About two minutes for the corpus of about 3,400 texts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

_RULES_DIR = os.sep + os.path.join("smrnb", "doctor", "rules") + os.sep


def _sign(ev: Mapping) -> str:
    """An event's sign: its layer's reader, table row or kind (what in the text made it)."""
    if ev.get("table"):
        return f"{ev['table']}:{ev.get('key') or ev.get('name')}"
    sub = ev.get("key") or ev.get("sign")
    return f"{ev.get('kind')}" + (f":{sub}" if sub else "")


def _install_tracer():
    """Make every Finding built in a rules module remember where (file:line, and the rule function it came
    through); return the per-call map code -> origin that explain's kept finding of that code came from."""
    from smrnb.doctor import _explain, rules
    from smrnb.doctor._model import Finding

    origins: dict[int, tuple[str, str]] = {}
    kept: dict[str, tuple[int, int, str, str]] = {}
    orig_post = Finding.__post_init__

    def post_init(self) -> None:
        orig_post(self)
        f = sys._getframe(1)
        inner = caller = sign = how = None
        while f is not None:
            fn = f.f_code.co_filename
            if _RULES_DIR in fn and not fn.endswith("__init__.py"):
                name = f.f_code.co_name
                loc = f.f_locals
                if name in ("finding", "resolve") and fn.endswith("_events.py"):
                    ev = loc.get("ev")
                    if sign is None and isinstance(ev, Mapping):
                        sign = _sign(ev)
                    how = how or loc.get("how")
                elif caller is None:
                    caller = f"{Path(fn).name}:{f.f_lineno} {name}"
                inner = inner or f"{Path(fn).name}:{f.f_lineno} {name}"
            f = f.f_back
        if inner:
            origins[id(self)] = (sign or caller or inner, str(how or "")[:70])

    Finding.__post_init__ = post_init
    orig_eval = rules.evaluate_traced

    def traced(facts, layers=None):
        out = orig_eval(facts, layers)
        from smrnb.doctor.rules._events import PRIORITY

        for i, (f, _) in enumerate(out):
            where, fn = origins.pop(id(f), ("(not in a rules module)", "?"))
            rank = f.rank if f.rank != 50 else PRIORITY.get(f.code, 25) + 4
            if f.code not in kept or rank < kept[f.code][0]:
                kept[f.code] = (rank, i, where, fn)
        origins.clear()
        return out

    _explain.evaluate_traced = traced
    return kept


def _right(row: dict, code: str) -> bool:
    return row["cause"] != "unknown" and code in {row["cause"], *(row.get("also") or [])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=os.environ.get("SMRNB_CORPUS",
                                                       str(Path(__file__).parents[1] / "tests/doctor/corpus")))
    ap.add_argument("--parts", default="", help="comma-separated parts (default: every *.jsonl of the corpus)")
    ap.add_argument("--top", type=int, default=40, help="rows of each table (sorted by wrong first findings)")
    ap.add_argument("--min-wrong", type=int, default=8, help="an offender: at least this many wrong first findings")
    ap.add_argument("--code", default="", help="print the entries this code answered wrongly (first or second)")
    ap.add_argument("--rule", default="", help="print the entries this rule line (file:line) answered wrongly")
    ap.add_argument("--show", type=int, default=300, help="characters of each text printed with --code/--rule")
    ap.add_argument("--json", default="", help="also write the tables as JSON here")
    args = ap.parse_args()

    kept = _install_tracer()
    from smrnb.doctor._corpus import load
    from smrnb.doctor._explain import explain_result

    parts = [x for x in args.parts.split(",") if x] or sorted(p.stem for p in Path(args.corpus).glob("*.jsonl"))
    # key -> [first, first right, first wrong, second, second right, second wrong]
    by_code: dict[str, list[int]] = defaultdict(lambda: [0] * 6)
    by_rule: dict[str, list[int]] = defaultdict(lambda: [0] * 6)
    by_how: dict[str, list[int]] = defaultdict(lambda: [0] * 6)
    wrong_rows: list[tuple[str, str, dict, list[str], list[str]]] = []
    n_all = 0
    for part in parts:
        p = Path(args.corpus) / f"{part}.jsonl"
        if not p.exists():
            continue
        for row in load(p):
            n_all += 1
            kept.clear()
            res = explain_result(row["text"], similar=False)
            codes = [f.code for f in res.findings][:2]
            where = [kept[c][2] if c in kept else "(no rule)" for c in codes]
            hows = [kept[c][3] or "(no decision: the event's order of codes)" if c in kept else "-" for c in codes]
            for place, (code, w, how) in enumerate(zip(codes, where, hows)):
                ok = _right(row, code)
                for table, key in ((by_code, code), (by_rule, w), (by_how, how)):
                    t = table[key]
                    t[3 * place] += 1
                    t[3 * place + (1 if ok else 2)] += 1
                if not ok:
                    wrong_rows.append((part, w, row, codes, where))

    def table(title: str, data: dict[str, list[int]], width: int) -> list[str]:
        print(f"\n{title} (corpus: {n_all} texts; first/second = place among explain's findings, rules only)")
        print(f"{'':{width}} {'1st':>5} {'right':>5} {'wrong':>5}   {'2nd':>5} {'right':>5} {'wrong':>5}")
        rows = sorted(data.items(), key=lambda kv: (-kv[1][2], -kv[1][5], kv[0]))
        for k, v in rows[:args.top]:
            print(f"{k[:width]:{width}} {v[0]:5} {v[1]:5} {v[2]:5}   {v[3]:5} {v[4]:5} {v[5]:5}")
        bad = [k for k, v in rows if v[2] >= args.min_wrong or v[2] > v[1]]
        return bad

    bad_codes = table("per finding code", by_code, 36)
    bad_rules = table("per rule: the event's sign (table:row, or reader kind) or the rule line that built it",
                      by_rule, 60)
    table("per decision (the 'decided by' line of the event's first reading)", by_how, 72)
    print(f"\noffenders (wrong first findings >= {args.min_wrong}, or more wrong than right first findings):")
    for k in bad_codes:
        v = by_code[k]
        print(f"  code {k}: first {v[0]}, right {v[1]}, wrong {v[2]}")
    for k in bad_rules:
        v = by_rule[k]
        print(f"  rule {k}: first {v[0]}, right {v[1]}, wrong {v[2]}")
    if args.code or args.rule:
        print("\nentries answered wrongly:")
        for part, w, row, codes, where in wrong_rows:
            if (args.code and args.code in codes and not _right(row, args.code)) or (args.rule and w.startswith(args.rule)):
                text = row["text"][:args.show].replace("\n", " | ")
                print(f"- {part} {row['id']} label={row['cause']} also={row.get('also') or []} got={codes} "
                      f"rules={where}\n    {text}")
    if args.json:
        Path(args.json).write_text(json.dumps({"codes": by_code, "rules": by_rule, "decisions": by_how}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
