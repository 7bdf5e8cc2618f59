import glob
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H

OUT = os.path.join(H.HERE, "out")
F = {}
for f in glob.glob(OUT + "/fold_*.pkl"):
    p = os.path.basename(f)[5:-4]
    F[p] = pickle.load(open(f, "rb"))


def part_score(p, P, lin_key):
    comps, lins = F[p]
    items = H.RULES[p]
    ok = 0
    for i, it in enumerate(items):
        ok += H.score_item(it, comps[i], lins[lin_key][i] if comps[i] is not None else None, P)
    return ok


def total(parts, P, lin_key):
    return {p: part_score(p, P, lin_key) for p in parts}


GRID = dict(
    KNN=[0.0, 0.05, 0.1, 0.2, 0.3],
    LIN=[0.3, 0.45, 0.6, 0.75, 0.9],
    MIN_SHARE=[0.15, 0.2, 0.25, 0.3, 0.35, 0.4],
    HELD_SHARE=[0.3, 0.35, 0.4, 0.5, 0.6, 0.8],
    HIGH_SIMILARITY=[0.25, 0.3, 0.35, 0.4, 0.5],
    BESIDE=[0.2, 0.25, 0.3, 0.35, 0.4, 0.5],
    VOTE_POWER=[1.0, 2.0, 3.0],
    K=[7, 11, 15, 21],
    MIN_SIMILARITY=[0.05, 0.1, 0.15, 0.2],
)


def fix(P):
    P = dict(P)
    P["NB"] = max(0.0, 1.0 - P["KNN"] - P["LIN"])
    return P


def descend(parts, lin_key, P=None, passes=2):
    P = fix(dict(H.P0) if P is None else P)
    best = sum(total(parts, P, lin_key).values())
    print("start", lin_key, best, flush=True)
    for _ in range(passes):
        moved = False
        for name, vals in GRID.items():
            for v in vals:
                if v == P[name]:
                    continue
                Q = fix({**P, name: v})
                if Q["KNN"] + Q["LIN"] > 1.0 + 1e-9:
                    continue
                s = sum(total(parts, Q, lin_key).values())
                if s > best:
                    best, P, moved = s, Q, True
                    print("  ", name, v, best, flush=True)
        if not moved:
            break
    return P, best
