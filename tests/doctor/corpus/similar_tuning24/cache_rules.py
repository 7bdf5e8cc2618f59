# ruff: noqa: E402
import pickle
import sys
import time

ROOT = __import__("pathlib").Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests/doctor/corpus"))
import similar

from smrnb.doctor import _explain

rec = {}


def fake(text, found, index, live=False):
    rec["a"] = (text, list(found), live)
    return []


_explain._similar_findings = fake
out = {}
t = time.time()
for p in similar.parts():
    rows = similar.rows([p])
    items = []
    for r in rows:
        rec.clear()
        res = _explain.explain_result(r["text"], similar=object())
        a = rec.get("a")
        items.append(
            dict(
                id=r["id"],
                cause=r["cause"],
                also=tuple(r.get("also") or ()),
                text=r["text"],
                codes=[f.code for f in res.findings],
                recognised=res.recognised,
                prepared=a[0] if a else None,
                found=a[1] if a else None,
                live=a[2] if a else None,
            )
        )
    out[p] = items
    print(p, len(items), time.time() - t, flush=True)
pickle.dump(
    out,
    open(
        __import__("os").path.join(
            __import__("os").path.dirname(__import__("os").path.abspath(__file__)), "rules.pkl"
        ),
        "wb",
    ),
)
