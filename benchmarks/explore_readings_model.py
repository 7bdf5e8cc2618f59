"""An exploration, not a benchmark of shipped code: would another model of the readings of similar reports rank the
labelled cause higher on parts it never saw?

    python benchmarks/explore_readings_model.py dev16,dev17,heldout12,heldout13,dev15,dev14
    python benchmarks/explore_readings_model.py dev16,heldout12 --l1     # a sparse (L1) model, C=100: minutes a part

For each target part, every other corpus part (never a held-out one, ``similar.HELD_OUT``) trains; the target's
labelled texts (not ``unknown``) are scored ungated: is the labelled cause (or an ``also``) among the model's first
two causes? Compared in the same run: the shipped mix (:mod:`smrnb.doctor._similar`: neighbours 0.1, naive Bayes 0.45,
its linear model 0.45) and a multinomial logistic regression on TF-IDF of the same word terms plus character 3-5-grams
within words (scikit-learn, C=10; with ``--l1``, an L1 penalty, C=100, saga: sparse weights, counted per cause; the
L1 penalty as ``l1_ratio=1`` needs scikit-learn 1.8 or later). Needs scikit-learn, which smrnb does not depend on (``pip install scikit-learn``);
without it the script says so and exits 2. Results: benchmarks/RESULTS_explain.md ("Round 22").
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "doctor" / "corpus")]


def shipped_mix(index, text: str, n: int = 2) -> list[str]:
    """The shipped mix's first ``n`` causes for ``text``, no gate."""
    from smrnb.doctor import _similar as m
    q = index._query(m.terms(text))
    if not q:
        return []
    knn: dict[str, float] = {}
    for r, s in index._ranked(index._similarities(q), m.K):
        knn[r.cause] = knn.get(r.cause, 0.0) + s ** m.VOTE_POWER
    z = sum(knn.values()) or 1.0
    nb, lin = index.bayes(q), index.linear(q)
    v = {c: m.KNN_WEIGHT * knn.get(c, 0.0) / z + m.NB_WEIGHT * nb.get(c, 0.0) + m.LINEAR_WEIGHT * lin.get(c, 0.0)
         for c in {*knn, *nb, *lin}}
    return sorted(v, key=lambda c: (-v[c], c))[:n]


def main(argv: list[str]) -> int:
    try:
        import numpy as np
        from scipy.sparse import hstack
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
    except ImportError as e:
        print(f"explore_readings_model needs scikit-learn, numpy and scipy ({e}); smrnb does not depend on them")
        return 2
    import similar

    from smrnb.doctor._explain import _prepared
    from smrnb.doctor._similar import terms

    l1 = "--l1" in argv
    argv = [a for a in argv if a != "--l1"]
    targets = (argv[0] if argv else "dev16,dev17,heldout12,heldout13,dev15,dev14").split(",")
    parts = similar.parts()
    rows = {p: similar.rows([p]) for p in parts}
    for rs in rows.values():
        for r in rs:
            r["_t"] = _prepared(r["text"])[:40_000]
    scores: dict[str, list[float]] = {"shipped mix": [], "word+char LR": []}
    for t in targets:
        train = [r for p in parts if p != t for r in rows[p] if r["cause"] != "unknown"]
        test = [r for r in rows[t] if r["cause"] != "unknown"]
        vecs = [TfidfVectorizer(analyzer=lambda s: list(terms(s).elements()), min_df=2, max_df=0.5, sublinear_tf=True),
                TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), min_df=2, max_df=0.5, sublinear_tf=True,
                                max_features=300_000)]
        x_train = hstack([v.fit_transform([r["_t"] for r in train]) for v in vecs]).tocsr()
        x_test = hstack([v.transform([r["_t"] for r in test]) for v in vecs]).tocsr()
        model = (LogisticRegression(C=100, l1_ratio=1.0, solver="saga", max_iter=300, tol=1e-3) if l1 else
                 LogisticRegression(C=10, max_iter=3000)).fit(x_train, [r["cause"] for r in train])
        top = np.argsort(-model.decision_function(x_test), axis=1)[:, :2]
        lr = sum(bool({r["cause"], *r["also"]} & {model.classes_[j] for j in tt}) for r, tt in zip(test, top))
        index = similar.built(exclude=(t,))
        mix = sum(bool({r["cause"], *r["also"]} & set(shipped_mix(index, r["text"]))) for r in test)
        scores["shipped mix"].append(mix / len(test))
        scores["word+char LR"].append(lr / len(test))
        kept = (model.coef_ != 0).sum(axis=1)
        print(f"{t} ({len(test)} texts): shipped mix {mix / len(test):.3f}, word+char LR {lr / len(test):.3f} "
              f"(non-zero weights a cause: mean {kept.mean():.0f}, most {kept.max()})", flush=True)
    for name, s in scores.items():
        print(f"{name}: mean {sum(s) / len(s):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
