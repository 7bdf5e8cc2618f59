import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H
import tune as T

lk = ("gd", 100, 1e-5, 400)
P1 = T.fix({**H.P0, "K": 17, "HIGH_SIMILARITY": 0.3, "MIN_SHARED": 1, "MIN_TERMS": 5})
b = T.total(H.PARTS, T.fix(dict(H.P0)), lk)
a = T.total(H.PARTS, P1, lk)
rules = {p: sum(H.right(it, it["codes"]) for it in H.RULES[p]) for p in H.PARTS}
print("| part | group | n | rules | before | after | diff |\n|---|---|---|---|---|---|---|")
for p in H.TUNE + H.REPORT:
    print(
        f"| {p} | {'tune' if p in H.TUNE else 'report'} | {len(H.RULES[p])} | {rules[p]} | {b[p]} | {a[p]} | {a[p] - b[p]:+d} |"
    )
for g, ps in (("tune", H.TUNE), ("report", H.REPORT), ("all", H.PARTS)):
    print(
        f"| total {g} | | {sum(len(H.RULES[p]) for p in ps)} | {sum(rules[p] for p in ps)} | {sum(b[p] for p in ps)} | {sum(a[p] for p in ps)} | {sum(a[p] - b[p] for p in ps):+d} |"
    )
