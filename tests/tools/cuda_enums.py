# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Refresh the doctor's CUDA enumeration tables from CUDA headers (and, where given, libraries).

    python tests/tools/cuda_enums.py                                  # the toolkit in /usr/local/cuda
    python tests/tools/cuda_enums.py 13.6=/opt/cuda-13.6 12.9=/tmp/wheels/cuda_runtime_12.9 ...

Each argument is ``RELEASE=DIR``: a toolkit or an unpacked ``nvidia-*`` wheel. Under ``DIR`` the tool looks
for ``driver_types.h`` (``cudaError_t``), ``cuda.h`` (``CUresult``), ``nvrtc.h`` (``nvrtcResult``) and
``nvml.h`` (``nvmlReturn_t``), and for ``libcudart.so*`` / ``libnvrtc.so*``, whose
``cudaGetErrorString`` / ``nvrtcGetErrorString`` give the exact message a user sees (they need no GPU and
no driver). The matching ``smrnb/doctor/tables/*.csv`` file is then merged:

* a row already there keeps its ``meaning``, ``code``, ``verified`` and ``source`` text; its
  ``first_seen`` / ``last_seen`` range grows to cover every release the enumerator was seen in, and its
  ``message`` is set from the newest library that knows it;
* an enumerator not yet in the table is added with the header's first sentence as ``meaning`` and an
  empty ``code``: ``tests/doctor/test_cuda_enums.py`` fails until someone maps it to a finding code.

Only ``numbering=current`` rows are touched (CUDA 10.1 renumbered ``cudaError_t``; the older numbering's
rows are kept as they are). Prints a summary of what changed.
"""

from __future__ import annotations

import csv
import ctypes
import re
import sys
from pathlib import Path

TABLES = Path(__file__).resolve().parents[2] / "smrnb" / "doctor" / "tables"

#: table -> (header file name, regex opening the enum body, library glob, message function)
ENUMS = {
    "cuda_errors": ("driver_types.h", r"enum\s+__device_builtin__\s+cudaError\s*\{", "libcudart.so*",
                    "cudaGetErrorString"),
    "cu_results": ("cuda.h", r"typedef\s+enum\s+cudaError_enum\s*\{", "", ""),
    "nvrtc_results": ("nvrtc.h", r"typedef\s+enum\s*\{(?=\s*NVRTC_SUCCESS)", "libnvrtc.so*",
                      "nvrtcGetErrorString"),
    "nvml_errors": ("nvml.h", r"typedef\s+enum\s+nvmlReturn_enum\s*\{", "", ""),
}

FIELDS = ["number", "name", "numbering", "message", "meaning", "code", "first_seen", "last_seen",
          "verified", "source"]


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v)) or (0,)


def _clean_doc(doc: str) -> str:
    """First sentence of a doxygen comment, on one line, without markup."""
    text = re.sub(r"^\s*(/\*\*|\*/|\*|//!<|///<|//)", "", doc, flags=re.M)
    text = re.sub(r"\\(deprecated|brief)\b", "", text)
    text = re.sub(r"::|\\ref\s+\S+\s+\"[^\"]*\"", "", text)
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    first = m.group(1) if m else text
    return first[:240]


def parse_enum(text: str, opener: str) -> list[tuple[str, int, str]]:
    """(name, value, doc) of each enumerator of the first enum matching ``opener``."""
    m = re.search(opener, text)
    if not m:
        return []
    body = text[m.end(): text.index("}", m.end())]
    out: list[tuple[str, int, str]] = []
    pending = ""
    for part in re.finditer(r"/\*\*.*?\*/|//[^\n]*|([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^,\n/]+)", body, re.S):
        tok = part.group(0)
        if part.group(1) is None:
            if tok.startswith("//!<") and out:  # trailing comment documents the previous enumerator
                name, value, _ = out[-1]
                out[-1] = (name, value, tok)
            elif tok.startswith("/**"):
                pending = tok
            continue
        value = part.group(2).strip()
        try:
            number = int(value, 0)
        except ValueError:
            continue  # an alias (X = Y): not a new code
        out.append((part.group(1), number, pending))
        pending = ""
    return out


def _messages(lib: Path, func: str, numbers: list[int]) -> dict[int, str]:
    try:
        dll = ctypes.CDLL(str(lib))
        fn = getattr(dll, func)
    except (OSError, AttributeError):
        return {}
    fn.restype = ctypes.c_char_p
    fn.argtypes = [ctypes.c_int]
    out = {}
    for n in numbers:
        raw = fn(n)
        if raw:
            msg = raw.decode("utf-8", "replace")
            if msg not in ("unrecognized error code", "NVRTC_ERROR unknown"):
                out[n] = msg
    return out


def observe(release: str, root: Path, table: str) -> tuple[list[tuple[str, int, str]], dict[int, str]]:
    header, opener, libglob, func = ENUMS[table]
    found = sorted(root.rglob(header))
    if not found:
        return [], {}
    enum = parse_enum(found[0].read_text(encoding="utf-8", errors="replace"), opener)
    msgs: dict[int, str] = {}
    if libglob:
        libs = sorted(p for p in root.rglob(libglob) if p.is_file() and "stubs" not in p.parts)
        if libs:
            msgs = _messages(libs[0], func, [n for _, n, _ in enum])
    return enum, msgs


def merge(table: str, seen: dict[str, list[tuple[str, tuple[str, int, str], dict[int, str]]]]) -> list[str]:
    path = TABLES / f"{table}.csv"
    rows: list[dict[str, str]] = []
    if path.exists():
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    by_name = {r["name"]: r for r in rows if r.get("numbering", "current") == "current"}
    notes: list[str] = []
    for name, sightings in seen.items():
        releases = sorted((s[0] for s in sightings), key=_vkey)
        number = sightings[-1][1][1]
        if len({s[1][1] for s in sightings}) > 1:
            notes.append(f"{table}: {name} has different numbers across releases: "
                         f"{sorted({(s[0], s[1][1]) for s in sightings})}")
        newest_msg = next((s[2][number] for s in reversed(sightings) if number in s[2]), "")
        row = by_name.get(name)
        if row is None:
            row = {"number": str(number), "name": name, "numbering": "current", "message": newest_msg,
                   "meaning": _clean_doc(sightings[-1][1][2]), "code": "", "first_seen": releases[0],
                   "last_seen": releases[-1], "verified": "yes",
                   "source": f"{ENUMS[table][0]} {releases[0]}-{releases[-1]}"}
            rows.append(row)
            by_name[name] = row
            notes.append(f"{table}: new {name} = {number} (map it to a finding code)")
            continue
        if row["number"] != str(number):
            notes.append(f"{table}: {name} is {number} in {releases[-1]}, the table says {row['number']}")
        lo = min([releases[0], row["first_seen"]] if row["first_seen"] else [releases[0]], key=_vkey)
        hi = max([releases[-1], row["last_seen"]] if row["last_seen"] else [releases[-1]], key=_vkey)
        row["first_seen"], row["last_seen"] = lo, hi
        if newest_msg and _vkey(releases[-1]) >= _vkey(row["last_seen"]):
            row["message"] = newest_msg
    rows.sort(key=lambda r: (r.get("numbering", "current") != "current", int(r["number"]), r["name"]))
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})
    return notes


def main(argv: list[str]) -> int:
    pairs = argv or ["13.0=/usr/local/cuda"]
    seen: dict[str, dict[str, list]] = {t: {} for t in ENUMS}
    for pair in pairs:
        release, _, folder = pair.partition("=")
        root = Path(folder)
        if not root.is_dir():
            print(f"not a folder: {folder}", file=sys.stderr)
            return 2
        for table in ENUMS:
            enum, msgs = observe(release, root, table)
            for entry in enum:
                seen[table].setdefault(entry[0], []).append((release, entry, msgs))
    for table in ENUMS:
        for name in seen[table]:
            seen[table][name].sort(key=lambda s: _vkey(s[0]))
        if seen[table]:
            for note in merge(table, seen[table]):
                print(note)
            print(f"{table}: {len(seen[table])} enumerators seen")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
