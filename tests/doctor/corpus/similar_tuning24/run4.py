import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H
import tune as T

T.GRID.update(
    K=[7, 9, 11, 13, 15, 17, 21],
    HIGH_SIMILARITY=[0.3, 0.35, 0.4],
    LIN=[0.0, 0.15, 0.3, 0.4, 0.45, 0.5, 0.6, 0.75, 0.9],
    KNN=[0.0, 0.05, 0.1, 0.15, 0.2, 0.3],
    MIN_SHARED=[1, 2, 3, 4],
    MIN_TERMS=[2, 3, 5, 8, 12],
    MIN_SHARE=[0.1, 0.15, 0.2, 0.22, 0.25, 0.28, 0.3, 0.35],
)
b = T.total(H.PARTS, T.fix(dict(H.P0)), ("gd", 100, 1e-5, 400))
for lk in [("gd", 100, 1e-5, 400), ("gd", 400, 3e-5, 400), ("gd", 400, 3e-5, 1000)]:
    P, best = T.descend(H.TUNE, lk, passes=3)
    s = T.total(H.PARTS, P, lk)
    print(lk, "TUNE", best, "REPORT", sum(s[p] for p in H.REPORT), "ALL", sum(s.values()), P, flush=True)
    print("  per-part diff", {p: s[p] - b[p] for p in H.PARTS if s[p] != b[p]})
