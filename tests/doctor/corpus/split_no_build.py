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
- it prints, per part, how many rows changed; running it again changes nothing (idempotent).

Usage: ``python tests/doctor/corpus/split_no_build.py tests/doctor/corpus/*.jsonl tests/doctor/corpus/*/*.jsonl``
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

OLD = "kaolin_no_wheel_for_combo"
NEW = "package_no_build_for_platform"

_CAUSE_RE = re.compile(r'("cause"\s*:\s*)"' + OLD + '"')
_ALSO_RE = re.compile(r'("also"\s*:\s*\[)([^\]]*)(\])')


def migrate_row(row: dict) -> dict | None:
    """The row with its labels migrated, or None when it keeps them (kaolin in its text, or no old label)."""
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
