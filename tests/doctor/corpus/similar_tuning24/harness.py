# ruff: noqa: E402, E741
"""LOPO tuning harness for the readings of similar known reports."""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
import math
import pickle
import sys
from collections import Counter

sys.path.insert(0, ROOT)
sys.path.insert(0, ROOT + "/tests/doctor/corpus")
import similar as B

from smrnb.doctor import _explain as E
from smrnb.doctor import _similar as S

RULES = pickle.load(open(HERE + "/rules.pkl", "rb"))
PARTS = sorted(RULES)
TUNE = [p for p in PARTS if not p.startswith("heldout")]  # dev, dev6..dev17, test
REPORT = [p for p in PARTS if p.startswith("heldout")]

_bags = {}


def bag(text):
    b = _bags.get(text)
    if b is None:
        b = _bags[text] = S.terms(text)
    return b


def build(exclude, top=S.TERMS):
    rows = [
        r for p in PARTS if p != exclude for r in B.rows([p]) if r.get("cause") and r["cause"] != "unknown"
    ]
    bags = [bag(str(r["text"])) for r in rows]
    df = Counter()
    for b in bags:
        df.update(b.keys())
    n = len(rows)
    idf = {t: math.log(n / d) for t, d in df.items() if 2 <= d < n * 0.5}
    reports = []
    for r, b in zip(rows, bags):
        v = S.Index._unit({t: (1 + math.log(c)) * idf[t] for t, c in b.items() if t in idf})
        keep = dict(sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))[:top])
        reports.append(
            S.Report(
                str(r["id"]),
                str(r["url"]),
                str(r["cause"]),
                tuple(r.get("also") or ()),
                str(r.get("fix") or ""),
                S.Index._unit(keep),
            )
        )
    used = {t for r in reports for t in r.weights}
    index = S.Index({t: w for t, w in idf.items() if t in used}, reports)
    vecs = [index._unit(index._query(b)) for b in bags]
    return index, vecs, [r.cause for r in reports]


def reachable(it):
    f = it["found"]
    return (
        it["prepared"]
        and f is not None
        and len(f) <= 1
        and not (f and it["live"])
        and not any(x.severity == "info" for x in f)
    )


def components(index, text):
    held = not S.reads_as_a_failure_of_the_field(text)
    c = dict(held=held)
    if held and (len(text) > S.HELD_MAX_CHARS or S._OUTSIDE.search(text)):
        c["stop"] = True
        return c
    mine = bag(text)
    query = index._query(mine)
    c["nq"] = len(query)
    c["query"] = query
    acc = index._similarities(query)
    near = index._ranked(acc, 21)
    c["near"] = near
    c["shared0"] = sum(1 for t in near[0][0].weights if t in mine) if near else 0
    c["nb"] = index.bayes(query)
    own = {}
    for i, s in sorted(acc.items(), key=lambda iv: (-iv[1], index.reports[iv[0]].id)):
        cc = index.reports[i].cause
        l = own.setdefault(cc, [])
        if len(l) < 3 and s > 0:
            l.append((index.reports[i], s))
    c["own"] = own
    c["fails"] = S._fails_beside_a_vote(text) if held else None
    return c


P0 = dict(
    K=11,
    MIN_SIMILARITY=0.1,
    VOTE_POWER=2.0,
    KNN=0.1,
    NB=0.45,
    LIN=0.45,
    MIN_SHARE=0.25,
    HIGH_SIMILARITY=0.35,
    HELD_SHARE=0.4,
    BESIDE=0.3,
    MIN_SHARED=2,
    MIN_TERMS=5,
)


def readings(c, lin, P, n=2, held_share=None):
    held_share = P["HELD_SHARE"] if held_share is None else held_share
    if c.get("stop") or c["nq"] < P["MIN_TERMS"]:
        return []
    near = c["near"][: P["K"]]
    if not near or near[0][1] < P["MIN_SIMILARITY"] or c["shared0"] < P["MIN_SHARED"]:
        return []
    knn = {}
    for r, s in near:
        knn[r.cause] = knn.get(r.cause, 0.0) + s ** P["VOTE_POWER"]
    total = sum(knn.values()) or 1.0
    nb = c["nb"] if P["NB"] else {}
    lin = lin if P["LIN"] else {}
    wn = P["NB"] if nb else 0.0
    wl = P["LIN"] if lin else 0.0
    z = P["KNN"] + wn + wl
    wk, wn, wl = P["KNN"] / z, wn / z, wl / z
    votes = {
        k: wk * knn.get(k, 0.0) / total + wn * nb.get(k, 0.0) + wl * lin.get(k, 0.0)
        for k in {*knn, *nb, *lin}
    }
    order = sorted(votes, key=lambda k: (-votes[k], k))[:n]
    first = order[0]
    if votes[first] < P["MIN_SHARE"]:
        return []
    if c["held"]:
        backed = (near[0][1] >= P["HIGH_SIMILARITY"] and first == near[0][0].cause) or (
            votes[first] >= held_share and c["fails"]
        )
        if not backed:
            return []
    out = []
    for k in order:
        of = tuple((r, s) for r, s in near if r.cause == k) or tuple(c["own"].get(k, ()))
        if not of or of[0][1] < P["MIN_SIMILARITY"]:
            continue
        out.append(S.Reading(k, votes[k], of[0][1], of, sum(1 for r, _ in near if r.cause == k)))
    return out


class Fake:
    def __init__(self, c, lin, P):
        self.c, self.lin, self.P = c, lin, P

    def readings(self, text, n=2, held_share=None, **kw):
        return readings(self.c, self.lin, self.P, n, held_share)


def right(it, codes):
    if it["cause"] == "unknown":
        return not it["recognised"]
    return bool({it["cause"], *it["also"]} & set(codes[:2]))


def score_item(it, c, lin, P):
    if c is None:
        return right(it, it["codes"])
    S.MIN_SHARE_BESIDE_A_RULE = P["BESIDE"]
    sims = E._similar_findings(it["prepared"], it["found"], Fake(c, lin, P), False)
    have = set(it["codes"])
    return right(it, it["codes"] + [g.code for g in sims if g.code not in have])
