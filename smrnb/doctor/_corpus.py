# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Accuracy of explain on a corpus of real error texts (JSON lines: text, cause, also).

Right = the cause (or one of ``also``) among the first two findings; for an entry whose cause is
``unknown`` (an error whose text alone cannot show its cause), right = explain does not recognise it.
Used by the benchmark and the corpus tests; prints nothing itself.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from smrnb.doctor._explain import explain_result


def load(path: str | Path) -> list[dict]:
    """The entries of one corpus file (one JSON object per non-empty line)."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(ln) for ln in fh if ln.strip()]


def is_right(row: dict, top: int = 2, transform=None, similar=True) -> bool:
    """Whether explain answers ``row`` right (its ``text`` through ``transform`` first, when given;
    ``similar`` as for :func:`smrnb.doctor._explain.explain_result`: the readings of similar known reports)."""
    text = row["text"] if transform is None else transform(row["text"])
    res = explain_result(text, similar=similar)
    if row["cause"] == "unknown":
        return not res.recognised
    codes = [f.code for f in res.findings][:top]
    return bool({row["cause"], *(row.get("also") or [])} & set(codes))


def accuracy(rows: list[dict], top: int = 2, transform=None, similar=True) -> tuple[int, int]:
    """(right, total) for ``rows``: the right cause among the first ``top`` findings of explain (an
    ``unknown`` cause: the text not recognised); ``transform`` changes each text first (a copy's artifacts)."""
    return sum(is_right(r, top, transform, similar) for r in rows), len(rows)


#: 10 MB shapes no repeated unit makes (round 23's audit), each ending in an error line: explain's time on them is
#: bounded by the corpus tests and printed by the benchmark
SHAPES = ("blank lines", "key with no end", "random text", "random bytes")


def shape(name: str) -> str:
    """10 MB of one of :data:`SHAPES`: blank lines, a private key's header and base64 lines with no END line,
    random printable text in lines, random bytes decoded as UTF-8 with replacements; then an error line."""
    rnd = random.Random(23)
    if name == "blank lines":
        body = "\n" * 10_000_000
    elif name == "key with no end":
        b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        body = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(
            "".join(rnd.choices(b64, k=64)) for _ in range(150_000))
    elif name == "random text":
        printable = "".join(chr(c) for c in range(32, 127))
        body = "\n".join("".join(rnd.choices(printable, k=rnd.randint(20, 140))) for _ in range(125_000))
    else:
        body = rnd.randbytes(10_000_000).decode("utf-8", errors="replace")
    return body + "\nOSError: libcublas.so.12: cannot open shared object file: No such file or directory\n"
