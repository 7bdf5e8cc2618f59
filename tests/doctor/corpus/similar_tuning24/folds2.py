import os
import pickle
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import folds as FO
import harness as H

from smrnb.doctor import _similar as S

NBS = [(0.05, 30.0), (0.2, 30.0), (0.1, 20.0), (0.1, 45.0), (0.3, 45.0), (0.05, 20.0)]
LIN = []


def fold(p):
    t0 = time.time()
    index, vecs, causes = H.build(p)
    labels = sorted(set(causes))
    vocab = {t: j for j, t in enumerate(sorted(index.idf))}
    x_ = FO.matrix(vecs, vocab)
    y = np.zeros((len(causes), len(labels)))
    y[np.arange(len(causes)), [labels.index(c) for c in causes]] = 1
    items = H.RULES[p]
    qs, reach = [], []
    nbs = {k: [] for k in NBS}
    for it in items:
        ok = H.reachable(it)
        q = index._query(H.bag(it["prepared"])) if ok else {}
        qs.append(index._unit(q))
        reach.append(ok)
        for a, sc in NBS:
            if ok:
                S.NB_ALPHA, S.NB_SCALE = a, sc
                index._bayes_causes = None
                index._bayes_terms = {}
                nbs[(a, sc)].append(index.bayes(q))
            else:
                nbs[(a, sc)].append(None)
    qx = FO.matrix(qs, vocab)
    lins = {}
    for m, it_, l2 in LIN:
        w, b = FO.train(x_, y, l2, m, it_)
        pr = FO.posts(w, b, qx, 1000)
        lins[(m, it_, l2, 1000)] = [
            {labels[j]: float(pr[i, j]) for j in range(len(labels)) if pr[i, j] > 1e-4} if reach[i] else None
            for i in range(len(items))
        ]
    print(p, round(time.time() - t0, 1), flush=True)
    return p, nbs, lins


if __name__ == "__main__":
    from multiprocessing import Pool

    parts = sorted(H.PARTS if len(sys.argv) > 1 else H.TUNE, key=lambda q: -len(H.RULES[q]))
    with Pool(2) as pool:
        for p, nbs, lins in pool.imap_unordered(fold, parts):
            pickle.dump((nbs, lins), open(f"out2/fold_{p}.pkl", "wb"))
