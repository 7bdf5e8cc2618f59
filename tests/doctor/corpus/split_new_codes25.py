# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 25: the corpus' labels of four causes that had no code, moved to the codes they now have.

Until round 25 the labellers stretched other codes over four causes (CAUSES.md said so): a Python package missing from
the Python that runs a script was ``kernel_wrong_python``; a port another process holds was ``user_code_error``; the
host's (CPU) memory running out was ``unknown`` (or, for a compiler of a parallel build killed, ``extension_build_failed``);
code written for a script meeting a Jupyter kernel's process was ``user_code_error``.
The decision is the row's existing label and its text alone, so that anyone running this script on any part gets the
same labels. For every row of every ``*.jsonl`` part given on the command line:

- ``python_package_missing``: ``cause`` is ``kernel_wrong_python``, the text holds Python's "No module named X" (quoted
  or not) for at least one top-level X, none of them torch or a companion that installs apart from it (torchvision,
  torchaudio, torchtext, torch_geometric, torch_scatter, torch_sparse, torch_cluster; torch has its code, ``torch_not_
  installed``) and none a private or compiled-looking module (a leading ``_``, or ending in ``_C``, ``_cuda``, ``_ext``,
  ``_cpp``, ``_ops``), nor one the doctor's table of modules only a project's source tree builds lists
  (``smrnb/doctor/tables/source_built_modules.csv``); and the text shows no sign of a notebook or a kernel
  (:data:`NOTEBOOK_RE`: Jupyter, notebook, kernel, ipykernel, IPython's traceback, Colab, VS Code, ``%pip`` / ``!pip``)
  and no build (:data:`BUILD_RE`: setup.py, build_ext, nvcc, ninja, cmake, compiling, a wheel built, a .so/.pyd
  file, "the build process"): the code runs in a Python that lacks a plain package.
- ``port_in_use``: ``cause`` is ``user_code_error`` and the text holds a bind failure's own words (:data:`PORT_RE`:
  "Address already in use", EADDRINUSE, WinError 10048, TensorBoard's "could not bind to port N, it was already in
  use", "port N is already in use", Gradio's "Cannot find empty port in range").
- ``host_memory_exhausted``: ``cause`` is ``unknown`` and the text holds the host's memory running out
  (:data:`HOST_MEMORY_RE`: Windows' WinError 1455 / "The paging file is too small", "DataLoader worker (pid N) is killed
  by signal: Killed", the kernel's "Out of memory: Killed process" / "oom-kill" / "invoked oom-killer", OOMKilled,
  Python's MemoryError, numpy's "Unable to allocate ... for an array", a compiler "Killed signal terminated program" /
  nvcc's "died due to signal 9") and no GPU memory running out (:data:`GPU_MEMORY_RE`); or ``cause`` is
  ``extension_build_failed`` and the text holds a compiler killed (:data:`COMPILER_KILLED_RE`).

- ``script_code_in_kernel`` (round 25's fourth): ``cause`` is ``user_code_error`` and the text holds a script's code
  meeting a Jupyter kernel's process (:data:`KERNEL_PROCESS_RE`: "UnsupportedOperation: fileno", "'OutStream' object has
  no attribute", "This event loop is already running", "cannot be called from a running event loop", "Can't get
  attribute 'f' on <module '__main__'", "ipykernel_launcher.py: error:").

A moved row's ``cause`` becomes the new code and its old cause goes first into ``also`` (so that no answer that was right
becomes wrong), except ``unknown``, which stands alone (the row's ``also`` stays as it was); nothing else in the row,
and no other row, changes. A changed row keeps its bytes apart from the labels (the labels' JSON is replaced in place,
and the result is checked against the parsed row); files are rewritten only where a row changed.

A row without a ``text`` (the second labellers' ``agreement/thread_*.jsonl``) is decided by the text of the corpus row of
its id (every ``*.jsonl`` beside this script), with its own labels; a reader's row of ``agreement/expert_*.jsonl`` (an
``id`` and the ``codes`` a reader named from the text alone) has the old code of a split renamed to the new one where
the corpus row of its id moved by that split (its cause the old code and its text passing the test, or already the new
code): the reader named the old code under the old convention.

It prints, per part, how many rows changed, and per new code; running it again changes nothing (idempotent).

Usage: ``python tests/doctor/corpus/split_new_codes25.py tests/doctor/corpus/*.jsonl tests/doctor/corpus/*/*.jsonl``
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

#: Python's "No module named X": X quoted (Python 3), bare (Python 2) or in a person's backticks; its top-level part
NO_MODULE_RE = re.compile(r"No module named ['\"`]?([A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z0-9_.]*)?", re.IGNORECASE)
#: torch and the companions that install apart from it (their own code: torch_not_installed)
TORCH_FAMILY = frozenset({"torch", "pytorch", "torchvision", "torchaudio", "torchtext", "torch_geometric",
                          "torch_scatter", "torch_sparse", "torch_cluster"})
#: a private or compiled-looking module name (a package's own compiled part: extension_not_compiled)
COMPILED_RE = re.compile(r"^_|_(?:C|cuda|ext|cpp|ops)$")
#: a notebook or a kernel named in the text (then kernel_wrong_python / kernel_restart_needed decide)
NOTEBOOK_RE = re.compile(r"jupyter|notebook|ipykernel|\bkernel|ipython|ipynb|\bcolab\b|vs ?code|visual studio code|"
                         r"\bcell\b|----> ?\d|[%!] ?pip3? |[%!] ?conda |spyder", re.IGNORECASE)
#: a build in the text (a module a build asks for, or one a build produced, is the build's: extension_not_compiled,
#: torch_not_found_at_build, build_dependency_missing)
BUILD_RE = re.compile(r"setup\.py|build_ext|\bnvcc\b|\bninja\b|building wheel|bdist_wheel|pyproject\.toml|"
                      r"--no-build-isolation|\bcmake\b|\bcompil|\.(?:so|pyd)\b|\bbuild (?:guide|process|folder|"
                      r"directory)", re.IGNORECASE)
#: the modules the doctor knows only a project's own source tree builds (smrnb/doctor/tables/source_built_modules.csv:
#: its module, or a prefix of it where the row says so): a compiled extension, not a package to install
_SOURCE_BUILT = Path(__file__).resolve().parents[3] / "smrnb" / "doctor" / "tables" / "source_built_modules.csv"


@lru_cache(maxsize=1)
def _source_built() -> tuple[tuple[str, bool], ...]:
    with open(_SOURCE_BUILT, encoding="utf-8", newline="") as fh:
        return tuple((r["module"].lower(), r["prefix"] == "yes") for r in csv.DictReader(fh))


def _built_from_source(name: str) -> bool:
    low = name.lower()
    return any(low == m or (prefix and low.startswith(m)) for m, prefix in _source_built())
PORT_RE = re.compile(r"Address already in use|message: address already in use|\bEADDRINUSE\b|WinError 10048|could not bind to port \d{1,5}, it was "
                     r"already in use|\b[Pp]ort:? \d{2,5} is already in use|Cannot find empty port in range")
COMPILER_KILLED_RE = re.compile(r"Killed signal terminated program|died due to signal 9\b")
HOST_MEMORY_RE = re.compile(r"WinError 1455|[Tt]he paging file is too small|is killed by signal: Killed|"
                            r"Out of memory: Kill(?:ed)? process|oom-kill|invoked oom-killer|\bOOMKilled\b|"
                            r"(?<![\w.])MemoryError\b|Unable to allocate [\d.]+ ?[KMGTPE]?i?B for an array|"
                            + COMPILER_KILLED_RE.pattern)
#: code written for a script meeting a Jupyter kernel's process (ipykernel's OutStream, the kernel's running asyncio
#: loop, spawn workers and the notebook's __main__, the kernel launcher's argv)
KERNEL_PROCESS_RE = re.compile(r"UnsupportedOperation: fileno|'OutStream' object has no attribute|This event loop is "
                               r"already running|cannot be called from a running event loop|Cannot run the event loop "
                               r"while another loop is running|Can't get attribute '[^'\n]{1,100}' on <module "
                               r"'__main__'|\b(?:ipykernel|colab_kernel)_launcher(?:\.py)?: error:")
GPU_MEMORY_RE = re.compile(r"CUDA out of memory|OutOfMemoryError|cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY|"
                           r"\brmm\b|CUDA error[^\n]{0,80}out of memory", re.IGNORECASE)


def _package_missing(text: str) -> bool:
    names = [(m.group(1), m.group(2) or "") for m in NO_MODULE_RE.finditer(text)]
    if not names or NOTEBOOK_RE.search(text) or BUILD_RE.search(text):
        return False
    return all(not sub and top.lower() not in TORCH_FAMILY and not COMPILED_RE.search(top)
               and not _built_from_source(top) for top, sub in names)


def _host_memory(text: str) -> bool:
    return bool(HOST_MEMORY_RE.search(text)) and not GPU_MEMORY_RE.search(text)


#: (new code, old cause, the test of the text), in the order the splits are tried
SPLITS: tuple[tuple[str, str, object], ...] = (
    ("python_package_missing", "kernel_wrong_python", _package_missing),
    ("port_in_use", "user_code_error", lambda t: bool(PORT_RE.search(t))),
    ("script_code_in_kernel", "user_code_error", lambda t: bool(KERNEL_PROCESS_RE.search(t))),
    ("host_memory_exhausted", "unknown", _host_memory),
    ("host_memory_exhausted", "extension_build_failed", lambda t: bool(COMPILER_KILLED_RE.search(t))),
)
NEW_CODES = frozenset(new for new, _, _ in SPLITS)

_CAUSE_RE = re.compile(r'("cause"\s*:\s*)("(?:[^"\\]|\\.)*")')
_ALSO_RE = re.compile(r'("also"\s*:\s*)(\[[^\]]*\])')
_CODES_RE = re.compile(r'("codes"\s*:\s*)(\[[^\]]*\])')


#: the parts (and collection folders) labelled after round 25 with its codes: their labellers' own reading, never moved
LABELLED_WITH_THE_CODES = frozenset({"heldout16", "dev19", "heldout17", "dev20", "heldout18", "dev21", "heldout19",
                                     "dev22", "heldout20", "heldout21", "sixteenth", "seventeenth", "eighteenth",
                                     "nineteenth", "twentieth", "twentyfirst"})


@lru_cache(maxsize=1)
def _corpus() -> dict[str, tuple[str, tuple[str, ...], str]]:
    """Every corpus row's (cause, also, text) by its id (the parts beside this script, less those labelled with the
    codes: :data:`LABELLED_WITH_THE_CODES`), for the rows without a text."""
    out: dict[str, tuple[str, tuple[str, ...], str]] = {}
    for part in sorted(Path(__file__).resolve().parent.glob("*.jsonl")):
        if part.stem in LABELLED_WITH_THE_CODES:
            continue
        for ln in part.read_text(encoding="utf-8").splitlines():
            if ln.strip():
                r = json.loads(ln)
                if r.get("text"):
                    out.setdefault(str(r.get("id")), (str(r.get("cause")), tuple(r.get("also") or ()),
                                                      str(r.get("text"))))
    return out


def split_of(cause: str, text: str) -> str:
    """The new code a row of ``cause`` and ``text`` moves to, else ""."""
    for new, old, test in SPLITS:
        if cause == old and test(text):  # type: ignore[operator]
            return new
    return ""


def _moved_from(row_id: str) -> tuple[str, str]:
    """(the old cause, the new code) of the corpus row ``row_id`` where it moves (or moved) by a split, else ("", "")."""
    cause, also, text = _corpus().get(row_id, ("", (), ""))
    new = split_of(cause, text)
    if new:
        return cause, new
    if cause in NEW_CODES:  # moved already: the old cause is the first of also, or unknown (which stands alone)
        olds = [o for n, o, _ in SPLITS if n == cause]
        first = also[0] if also else ""
        return (first if first in olds and first != "unknown" else "unknown" if "unknown" in olds else ""), cause
    return "", ""


def migrate_row(row: dict) -> dict | None:
    """The row with its labels migrated, or None when it keeps them."""
    if "codes" in row and "cause" not in row:  # a reader's row: by the corpus row of its id
        old, new = _moved_from(str(row.get("id")))
        codes = list(row.get("codes") or ())
        if not new or old not in codes:
            return None
        return {**row, "codes": list(dict.fromkeys(new if c == old else c for c in codes))}
    text = str(row.get("text") or "") or _corpus().get(str(row.get("id")), ("", (), ""))[2]
    cause = str(row.get("cause") or "")
    new = split_of(cause, text)
    if not new:
        return None
    also = [c for c in row.get("also") or () if c != new]
    return {**row, "cause": new, "also": also if cause == "unknown" else [cause, *(c for c in also if c != cause)]}


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
    dump = lambda v: json.dumps(v, ensure_ascii=False)  # noqa: E731
    if "cause" in row and "also" in row:
        new = _CAUSE_RE.sub(lambda m: m.group(1) + dump(want["cause"]), new, count=1)
        new = _ALSO_RE.sub(lambda m: m.group(1) + dump(want["also"]), new, count=1)
    elif "cause" in row:  # no also yet: written right after the cause
        new = _CAUSE_RE.sub(lambda m: m.group(1) + dump(want["cause"]) + ', "also": ' + dump(want["also"]), new,
                            count=1)
    else:
        new = _CODES_RE.sub(lambda m: m.group(1) + dump(want["codes"]), new, count=1)
    if json.loads(new) != want:  # the in-place replacement touched something else, or missed a label
        raise SystemExit(f"split_new_codes25: could not migrate the row {row.get('id')!r} in place")
    return new + line[len(body):]


def migrate_part(path: Path) -> Counter:
    """Migrate one part in place; the number of rows changed per new code."""
    lines = path.read_bytes().decode("utf-8").splitlines(keepends=True)  # its line ends kept as they are
    out = [migrate_line(ln) for ln in lines]
    changed: Counter = Counter()
    for a, b in zip(lines, out):
        if a != b:
            r = json.loads(b)
            changed[r.get("cause") or next((c for c in r.get("codes") or () if c in NEW_CODES), "?")] += 1
    if changed:
        path.write_bytes("".join(out).encode("utf-8"))
    return changed


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    total: Counter = Counter()
    for name in argv:
        n = migrate_part(Path(name))
        total += n
        per = ", ".join(f"{k} {v}" for k, v in sorted(n.items()))
        print(f"{name}: {sum(n.values())} rows changed" + (f" ({per})" if per else ""))
    print(f"total: {sum(total.values())} rows changed" + "".join(f"; {k}: {v}" for k, v in sorted(total.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
