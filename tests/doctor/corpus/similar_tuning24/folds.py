import pickle
import sys
import time

import numpy as np
from scipy.optimize import minimize
from scipy.sparse import csr_matrix

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
import harness as H


def matrix(vecs, vocab):
    rows, cols, vals = [], [], []
    for i, v in enumerate(vecs):
        for t, x in v.items():
            j = vocab.get(t)
            if j is not None:
                rows.append(i)
                cols.append(j)
                vals.append(x)
    return csr_matrix((vals, (rows, cols)), shape=(len(vecs), len(vocab)))


def train(x_, y, l2, method, iters):
    n, d = x_.shape
    C = y.shape[1]
    if method == "gd":
        xt = x_.T.tocsr()
        w = np.zeros((d, C))
        b = np.zeros(C)
        vw = np.zeros_like(w)
        vb = np.zeros_like(b)
        for _ in range(iters):
            aw, ab = w + 0.9 * vw, b + 0.9 * vb
            z = x_ @ aw + ab
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            g = (p - y) / n
            vw = 0.9 * vw - 5.0 * (xt @ g + l2 * aw)
            vb = 0.9 * vb - 5.0 * g.sum(axis=0)
            w += vw
            b += vb
        return w, b

    def f(theta):
        w = theta[: d * C].reshape(d, C)
        b = theta[d * C :]
        z = x_ @ w + b
        z -= z.max(axis=1, keepdims=True)
        lse = np.log(np.exp(z).sum(axis=1, keepdims=True))
        logp = z - lse
        loss = -(y * logp).sum() / n + 0.5 * l2 * (w * w).sum()
        g = (np.exp(logp) - y) / n
        gw = x_.T @ g + l2 * w
        gb = g.sum(axis=0)
        return loss, np.concatenate([gw.ravel(), gb])

    r = minimize(
        f,
        np.zeros(d * C + C),
        jac=True,
        method="L-BFGS-B",
        options=dict(maxiter=iters, gtol=1e-10, ftol=1e-12),
    )
    return r.x[: d * C].reshape(d, C), r.x[d * C :]


def posts(w, b, qx, keep):
    if keep:
        w = w.copy()
        k = min(keep, w.shape[0])
        idx = np.argpartition(-np.abs(w), k - 1, axis=0)[:k]
        mask = np.zeros_like(w, dtype=bool)
        mask[idx, np.arange(w.shape[1])[None, :]] = True
        w[~mask] = 0
    z = qx @ w + b
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return p


LIN = [("gd", 100, 1e-5), ("gd", 400, 3e-5)]
KEEPS = [400, 1000]


def fold(p):
    t0 = time.time()
    index, vecs, causes = H.build(p)
    labels = sorted(set(causes))
    vocab = {t: j for j, t in enumerate(sorted(index.idf))}
    x_ = matrix(vecs, vocab)
    y = np.zeros((len(causes), len(labels)))
    y[np.arange(len(causes)), [labels.index(c) for c in causes]] = 1
    items = RULES[p]
    comps, qs = [], []
    for it in items:
        if H.reachable(it):
            c = H.components(index, it["prepared"])
            comps.append(c)
            qs.append(index._unit(c.get("query") or {}))
            c.pop("query", None)
        else:
            comps.append(None)
            qs.append({})
    qx = matrix(qs, vocab)
    t1 = time.time()
    lins = {}
    for m, it_, l2 in LIN:
        w, b = train(x_, y, l2, m, it_)
        for keep in KEEPS:
            pr = posts(w, b, qx, keep)
            lins[(m, it_, l2, keep)] = [
                {labels[j]: float(pr[i, j]) for j in range(len(labels)) if pr[i, j] > 1e-4}
                if comps[i] is not None
                else None
                for i in range(len(items))
            ]
    print(p, "build+comp", round(t1 - t0, 1), "train", round(time.time() - t1, 1), flush=True)
    return p, comps, lins


RULES = H.RULES
if __name__ == "__main__":
    from multiprocessing import Pool

    parts = (
        sys.argv[1].split(",")
        if len(sys.argv) > 1 and sys.argv[1]
        else sorted(H.PARTS, key=lambda q: -len(RULES[q]))
    )
    nproc = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    with Pool(nproc) as pool:
        for p, comps, lins in pool.imap_unordered(fold, parts):
            pickle.dump(
                (comps, lins), open(__import__("os").environ.get("OUTD", ".") + f"/fold_{p}.pkl", "wb")
            )
