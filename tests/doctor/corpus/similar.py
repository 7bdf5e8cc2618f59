"""Build or check the doctor's index of similar known reports (``smrnb/doctor/tables/similar_reports.json``).

    python tests/doctor/corpus/similar.py build    # rebuild it from the corpus parts below
    python tests/doctor/corpus/similar.py check    # exit 1 when the shipped index is not what build makes

The index is made from every labelled part except the held-out parts kept for scoring (``HELD_OUT``): a
held-out part is scored with readings it never contributed to (``benchmarks/bench_explain.py`` builds an
index without the part it scores).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from smrnb.doctor._similar import INDEX, Index  # noqa: E402

#: parts kept out of the shipped index: scored as held-out, never read by it
HELD_OUT = ("heldout20", "heldout21")


def parts() -> list[str]:
    """The corpus parts the shipped index is built from (every ``*.jsonl`` here but ``HELD_OUT``), sorted."""
    return sorted(p.stem for p in HERE.glob("*.jsonl") if p.stem not in HELD_OUT)


def rows(names) -> list[dict]:
    out = []
    for n in names:
        with open(HERE / f"{n}.jsonl", encoding="utf-8") as fh:
            out += [json.loads(ln) for ln in fh if ln.strip()]
    return out


def built(exclude=()) -> Index:
    """The index of every shipped part but ``exclude``."""
    return Index.build(rows([p for p in parts() if p not in set(exclude)]))


def dumps(index: Index) -> str:
    return json.dumps(index.to_json(), ensure_ascii=False, sort_keys=False, separators=(",", ":")) + "\n"


def main(argv: list[str]) -> int:
    if argv[:1] == ["build"]:
        INDEX.write_text(dumps(built()), encoding="utf-8")
        print(f"wrote {INDEX} from {', '.join(parts())}")
        return 0
    if argv[:1] == ["check"]:
        same = INDEX.read_text(encoding="utf-8") == dumps(built())
        print("similar_reports.json is current" if same else "similar_reports.json is stale: run build")
        return 0 if same else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
