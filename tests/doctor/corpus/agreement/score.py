"""How far the text alone can take a reader, and how far two labellers of a thread agree (see README.md here).

    python tests/doctor/corpus/agreement/score.py            # the readers' and labellers' scores
    python tests/doctor/corpus/agreement/score.py --doctor   # ... beside explain's on the same texts

A text-only reader is scored as explain is: right when the labelled cause (or an ``also``) is among its first two
codes, or, for an ``unknown`` label, when it answers ``unknown`` alone. A second labeller agrees with the first when
either's cause is in the other's cause-and-also set.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent
sys.path[:0] = [str(CORPUS.parents[2]), str(CORPUS)]

#: the parts the development sample is drawn from (the newest collections' development parts), the seed of the
#: draw and its size: the first SAMPLE texts in the order of sha256(SEED + id)
SAMPLE_PARTS = ("dev16", "dev17", "heldout12", "heldout13")
SEED = "relabel22"
SAMPLE = 120
#: per output file: what it is and the corpus texts it reads (the sample's halves, or a held-out part whole)
READERS = {"expert_A": ("text", slice(0, 60)), "expert_B": ("text", slice(60, 120)),
           "thread_C": ("thread", slice(0, 30)), "thread_D": ("thread", slice(60, 90)),
           "expert_E": ("text", "heldout14"), "expert_F": ("text", "heldout14"),
           "expert_G": ("text", "heldout17"), "expert_H": ("text", "heldout17"),
           "expert_I": ("text", "heldout18"), "expert_J": ("text", "heldout18"),
           "expert_K": ("text", "heldout19"), "expert_L": ("text", "heldout19"),
           "expert_M": ("text", "heldout20"), "expert_N": ("text", "heldout20"), "expert_O": ("text", "heldout20"),
           "expert_P": ("text", "heldout20"), "expert_Q": ("text", "heldout21"), "expert_R": ("text", "heldout21")}


def labelled(parts) -> dict[str, dict]:
    out = {}
    for p in parts:
        with open(CORPUS / f"{p}.jsonl", encoding="utf-8") as fh:
            for ln in fh:
                if ln.strip():
                    r = json.loads(ln)
                    out[r["id"]] = dict(r, part=p)
    return out


def sample() -> list[dict]:
    rows = sorted(labelled(SAMPLE_PARTS).values(), key=lambda r: hashlib.sha256((SEED + r["id"]).encode()).hexdigest())
    return rows[:SAMPLE]


def outputs(name: str) -> list[dict]:
    path = HERE / f"{name}.jsonl"
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as fh:
        return [json.loads(ln) for ln in fh if ln.strip()]


def right(label: dict, codes: list[str]) -> bool:
    """explain's measure: the labelled cause or an ``also`` among the first two codes; ``unknown`` alone for an
    ``unknown`` label."""
    if label["cause"] == "unknown":
        return codes[:1] == ["unknown"]
    return bool({label["cause"], *label.get("also", ())} & set(codes[:2]))


def main(argv: list[str]) -> int:
    labels = {**labelled(SAMPLE_PARTS), **labelled([p for p in ("heldout14", "heldout17", "heldout18", "heldout19", "heldout20",
                                                                           "heldout21") if (CORPUS / f"{p}.jsonl").exists()])}
    doctor = {}
    if "--doctor" in argv:
        import similar

        from smrnb.doctor._corpus import is_right
        for part in sorted({labels[r["id"]]["part"] for n in READERS for r in outputs(n) if r["id"] in labels}):
            index = similar.built(exclude=(part,))
            for r in similar.rows([part]):
                doctor[r["id"]] = (is_right(r, similar=False), is_right(r, similar=index))
    for name, (kind, _) in READERS.items():
        rows = [r for r in outputs(name) if r["id"] in labels]
        if not rows:
            continue
        if kind == "text":
            ok = [right(labels[r["id"]], r["codes"]) for r in rows]
            by_conf = Counter((r.get("confidence"), o) for r, o in zip(rows, ok))
            line = (f"{name} (text alone, {len(rows)} texts): first two {sum(ok)} = {100 * sum(ok) / len(rows):.1f} %; "
                    f"first {sum(bool(r['codes']) and right(labels[r['id']], r['codes'][:1]) for r in rows)}; "
                    + ", ".join(f"{c} {by_conf[(c, True)]}/{by_conf[(c, True)] + by_conf[(c, False)]}"
                                for c in ("high", "medium", "low")))
            if doctor:
                both = Counter((o, doctor[r["id"]][1]) for r, o in zip(rows, ok) if r["id"] in doctor)
                d = sum(doctor[r["id"]][1] for r in rows if r["id"] in doctor)
                line += (f"\n    explain on the same texts: rules {sum(doctor[r['id']][0] for r in rows)}, + readings {d};"
                         f" reader right & explain wrong {both[(True, False)]}, explain right & reader wrong "
                         f"{both[(False, True)]}, both wrong {both[(False, False)]}")
            print(line)
        else:
            seen = [r for r in rows if r.get("found") and r.get("resolution_seen")]

            def sets(r):
                a = labels[r["id"]]
                return {a["cause"], *a.get("also", ())}, {r["cause"], *r.get("also", ())}
            meet = sum(bool(x & y) for x, y in map(sets, seen))
            second_in_first = sum(r["cause"] in sets(r)[0] for r in seen)
            first_in_second = sum(labels[r["id"]]["cause"] in sets(r)[1] for r in seen)
            print(f"{name} (second labeller from the thread, {len(rows)} texts, {len(seen)} with the thread's resolution "
                  f"seen): cause-and-also sets meet {meet}/{len(seen)}; second's cause in the first's set "
                  f"{second_in_first}; first's cause in the second's set {first_in_second}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
