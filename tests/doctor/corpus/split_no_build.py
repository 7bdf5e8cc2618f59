# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 23: split ``package_no_build_for_platform`` from ``kaolin_no_wheel_for_combo`` in the corpus' labels.

Until round 23 the corpus labelled ANY package pip, conda or uv finds no build of for the platform, Python, CPU or
CUDA as ``kaolin_no_wheel_for_combo`` (torch-scatter, open3d on Python 3.12, onnxruntime-gpu on aarch64, ...). That
code is now kaolin's own; the others have ``package_no_build_for_platform``. The decision is the text's alone, so that
anyone running this script on any part gets the same labels:

- for every row of every ``*.jsonl`` part given on the command line, where ``cause`` or an entry of ``also`` is
  ``kaolin_no_wheel_for_combo`` and the row's ``text`` does not contain "kaolin" (case-insensitive; a row without a
  ``text``, such as the second labellers' rows of ``agreement/thread_*.jsonl``, contains none), that label becomes
  ``package_no_build_for_platform``; nothing else in the row, and no other row, changes;
- a changed row keeps its bytes apart from the label (the label's JSON string is replaced in place, and the result
  is checked against the parsed row); files are rewritten only where a row changed;
- a reader's row of ``agreement/expert_*.jsonl`` (an ``id`` and the ``codes`` a reader named from the text alone) is
  decided by the text of the corpus row of that id (every ``*.jsonl`` beside this script): the reader named the old
  code under the old convention, so the same rename applies to its ``codes``;
- it prints, per part, how many rows changed; running it again changes nothing (idempotent).

Usage: ``python tests/doctor/corpus/split_no_build.py tests/doctor/corpus/*.jsonl tests/doctor/corpus/*/*.jsonl``
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path

OLD = "kaolin_no_wheel_for_combo"
NEW = "package_no_build_for_platform"

_CODES_RE = re.compile(r'("codes"\s*:\s*\[)([^\]]*)(\])')
_CAUSE_RE = re.compile(r'("cause"\s*:\s*)"' + OLD + '"')
_ALSO_RE = re.compile(r'("also"\s*:\s*\[)([^\]]*)(\])')


@lru_cache(maxsize=1)
def _texts() -> dict[str, str]:
    """Every corpus row's text by its id (the parts beside this script), for the readers' rows."""
    out: dict[str, str] = {}
    for part in sorted(Path(__file__).resolve().parent.glob("*.jsonl")):
        for ln in part.read_text(encoding="utf-8").splitlines():
            if ln.strip():
                r = json.loads(ln)
                out.setdefault(str(r.get("id")), str(r.get("text") or ""))
    return out


def migrate_row(row: dict) -> dict | None:
    """The row with its labels migrated, or None when it keeps them (kaolin in its text, or no old label)."""
    if "codes" in row and "cause" not in row:  # a reader's row: its text is the corpus row's of its id
        if OLD not in (row.get("codes") or ()) or "kaolin" in _texts().get(str(row.get("id")), "").lower():
            return None
        return {**row, "codes": [NEW if c == OLD else c for c in row["codes"]]}
    labels = [row.get("cause"), *(row.get("also") or ())]
    if OLD not in labels or "kaolin" in str(row.get("text") or "").lower():
        return None
    out = dict(row)
    if out.get("cause") == OLD:
        out["cause"] = NEW
    if OLD in (out.get("also") or ()):
        out["also"] = [NEW if c == OLD else c for c in out["also"]]
    return out


def migrate_line(line: str) -> str:
    """One JSON line migrated in place (its other bytes kept); the line itself where nothing changes."""
    body = line.rstrip("\r\n")
    if not body.strip():
        return line
    row = json.loads(body)
    want = migrate_row(row)
    if want is None:
        return line
    new = body
    if "codes" in want:
        new = _CODES_RE.sub(lambda m: m.group(1) + m.group(2).replace('"' + OLD + '"', '"' + NEW + '"') + m.group(3),
                            new, count=1)
    if row.get("cause") == OLD:
        new = _CAUSE_RE.sub(lambda m: m.group(1) + '"' + NEW + '"', new, count=1)
    if OLD in (row.get("also") or ()):
        new = _ALSO_RE.sub(lambda m: m.group(1) + m.group(2).replace('"' + OLD + '"', '"' + NEW + '"') + m.group(3),
                           new, count=1)
    if json.loads(new) != want:  # the in-place replacement touched something else, or missed the label
        raise SystemExit(f"split_no_build: could not migrate the row {row.get('id')!r} in place")
    return new + line[len(body):]


def migrate_part(path: Path) -> int:
    """Migrate one part in place; the number of rows changed."""
    lines = path.read_bytes().decode("utf-8").splitlines(keepends=True)  # its line ends kept as they are
    out = [migrate_line(ln) for ln in lines]
    changed = sum(a != b for a, b in zip(lines, out))
    if changed:
        path.write_bytes("".join(out).encode("utf-8"))
    return changed


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    total = 0
    for name in argv:
        n = migrate_part(Path(name))
        total += n
        print(f"{name}: {n} rows changed")
    print(f"total: {total} rows changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
