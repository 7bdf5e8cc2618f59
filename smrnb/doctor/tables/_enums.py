# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Typed lookups over the doctor's enumeration and message tables.

Enumerations (one row per code, with the finding code it indicates):

``cuda_errors.csv``    every ``cudaError_t`` (``driver_types.h``); ``numbering`` is ``current`` (CUDA 10.1 on)
                       or ``pre-10.1`` (the older numbers: ``cudaErrorInvalidValue`` was 11, now 1)
``cu_results.csv``     every ``CUresult`` (``cuda.h``)
``nvrtc_results.csv``  every ``nvrtcResult`` (``nvrtc.h``)
``nvml_errors.csv``    every ``nvmlReturn_t`` (``nvml.h``)
``hip_errors.csv``     (round 32k) every ``hipError_t`` of ROCm's HIP (``hip_runtime_api.h``; ``message``: clr's
                       ``hipGetErrorString``), read only in a text that is HIP's (:func:`hip_error`; not an
                       :data:`ENUM_TABLES` member: its strings are CUDA's words with ROCm's meanings)

``first_seen`` / ``last_seen`` are the first and last CUDA release *among the headers read* that have the
row (11.7 is the oldest read for most: an earlier ``first_seen`` is not claimed). ``message`` is what
``cudaGetErrorString`` / ``nvrtcGetErrorString`` / ``nvmlErrorString`` return: the text users paste.

Messages (a regular expression ``pattern`` per row, an ``example`` it matches, the finding ``code``):

``loader_errors.csv``        dlopen / ld.so errors (glibc ``elf/``)
``nvcc_errors.csv``          nvcc fatal errors and warnings, host_config.h's ``#error`` lines
``cpp_extension_checks.csv`` ``torch.utils.cpp_extension``'s checks with the torch range each applies to
``extension_checks.csv``     setup.py / import checks of popular CUDA extensions
``nvidia_smi_messages.csv``  nvidia-smi and pynvml failure messages
``container_messages.csv``   NVIDIA container toolkit / Docker / Kubernetes messages
``slurm_gpu.csv``            Slurm GPU allocation messages and situations
``jupyter_kernel.csv``       the ways a Jupyter kernel runs another Python or environment
``torch_messages.csv``       torch's own runtime messages (CPU build, GPU arch, driver, memory, errors of the
                             calling code such as tensors on two devices) and the cuBLAS/cuDNN status names it prints
``library_messages.csv``     the own messages of the other GPU libraries a notebook loads beside torch (NCCL, jax,
                             numba, bitsandbytes, onnxruntime, TensorFlow's and numpy's CPU checks, HIP/ROCm)
                             Its ``library`` cell names the library for people; the Python packages the
                             doctor reads from it (:func:`library_import_names`, round 32f) are only its items
                             (split at ``(``, ``)``, ``,``, ``;``, ``:``, `` / ``) that are one name: outside the
                             parentheses a project's own name in any case (``CuPy``, ``dm_control``,
                             ``mmcv / mmengine``), inside them only a lowercase package or module name as Python
                             spells it (``OpenMMLab (mmcv, mmdet)``, ``Python (argparse, tyro)``); capitalised
                             details there (classes, tools, platforms), file names and any item of several words
                             (a description: ``a build told in prose``, ``(its testbed)``) give none

Situations without a message have an empty ``pattern``. Two plain tables complete them:
``nvcc_options.csv`` (options, values and architectures each nvcc release added or removed) and
``cuda_home_shapes.csv`` (every shape of a wrong ``CUDA_HOME`` and what torch does with it).

A ``code`` cell holds one finding code or several separated by ``|`` when the text alone cannot decide;
``none`` marks rows that are not a fault (success codes, warnings that need no fix).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from smrnb.doctor.tables._read import rows

ENUM_TABLES = ("cuda_errors", "cu_results", "nvrtc_results", "nvml_errors")
MESSAGE_TABLES = ("loader_errors", "nvcc_errors", "cpp_extension_checks", "extension_checks",
                  "nvidia_smi_messages", "container_messages", "slurm_gpu", "jupyter_kernel", "torch_messages",
                  "library_messages")
#: the longest text :func:`match_messages` / :func:`enum_rows_in_text` read (a pasted log's head and tail)
MAX_TEXT = 200_000


def _rows(name: str) -> tuple[dict[str, str], ...]:
    return rows(name)


def _codes(cell: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in (cell or "").split("|") if c.strip())


def _clip(text: object) -> str:
    if not isinstance(text, str):
        return ""
    if len(text) <= MAX_TEXT:
        return text
    half = MAX_TEXT // 2
    return text[:half] + "\n" + text[-half:]


# --- enumerations ----------------------------------------------------------------------------


@dataclass(frozen=True)
class EnumRow:
    """One enumerator of a CUDA / NVRTC / NVML result type."""

    table: str
    number: int
    name: str
    numbering: str  # "current" or "pre-10.1" (cudaError_t only)
    message: str
    meaning: str
    codes: tuple[str, ...]
    first_seen: str
    last_seen: str
    verified: str
    source: str


@functools.cache
def enum_rows(table: str) -> tuple[EnumRow, ...]:
    """Every row of the enumeration ``table`` (one of :data:`ENUM_TABLES`)."""
    if table not in ENUM_TABLES:
        raise ValueError(f"table must be one of {', '.join(ENUM_TABLES)}; got {table!r}")
    return tuple(EnumRow(table, int(r["number"]), r["name"], r["numbering"] or "current", r["message"],
                         r["meaning"], _codes(r["code"]), r["first_seen"], r["last_seen"], r["verified"],
                         r["source"]) for r in _rows(table))


def _numbering_for(release: object) -> str:
    m = re.match(r"\s*(\d+)\.(\d+)", str(release)) if release is not None else None
    if m and (int(m.group(1)), int(m.group(2))) < (10, 1):
        return "pre-10.1"
    return "current"


def enum_lookup(table: str, key: object, *, release: object = None) -> EnumRow | None:
    """The row of ``table`` for ``key``: a number (``209``, ``"209"``), a name
    (``"cudaErrorNoKernelImageForDevice"``, case-insensitive) or an exact message.

    Numbers follow the numbering of CUDA ``release`` (``cudaError_t`` numbers before 10.1 differ);
    without ``release`` the current numbering is used. Names and messages are looked up in the
    current numbering first. None when nothing matches or ``key`` is of another type."""
    numbering = _numbering_for(release)
    rows = enum_rows(table)
    if isinstance(key, bool):
        return None
    number: int | None = None
    if isinstance(key, int):
        number = key
    elif isinstance(key, str) and re.fullmatch(r"\s*-?\d+\s*", key):
        number = int(key)
    if number is not None:
        return next((r for r in rows if r.number == number and r.numbering == numbering), None)
    if not isinstance(key, str) or not key.strip():
        return None
    text = key.strip()
    ordered = sorted(rows, key=lambda r: r.numbering != numbering)
    for r in ordered:
        if r.name == text:
            return r
    low = text.lower()
    for r in ordered:
        if r.name.lower() == low:
            return r
    for r in ordered:
        if r.message and r.message.rstrip(".").lower() == low.rstrip("."):
            return r
    return None


def cuda_error(key: object, *, release: object = None) -> EnumRow | None:
    """A ``cudaError_t`` by number, name or ``cudaGetErrorString`` message (see :func:`enum_lookup`)."""
    return enum_lookup("cuda_errors", key, release=release)


def cu_result(key: object) -> EnumRow | None:
    """A ``CUresult`` by number or name (``CUDA_ERROR_NO_BINARY_FOR_GPU``)."""
    return enum_lookup("cu_results", key)


def nvrtc_result(key: object) -> EnumRow | None:
    """An ``nvrtcResult`` by number or name."""
    return enum_lookup("nvrtc_results", key)


def nvml_error(key: object) -> EnumRow | None:
    """An ``nvmlReturn_t`` by number, name or ``nvmlErrorString`` text."""
    return enum_lookup("nvml_errors", key)


#: (round 32k) HIP's runtime errors (``hip_errors.csv``: ``hipError_t`` of ROCm/HIP's hip_runtime_api.h, each with the
#: string ``hipGetErrorString`` returns, ROCm/clr hipamd/src/hip_error.cpp): read the way ``cuda_errors`` is, for a
#: text that is HIP's (a ROCm build of torch says "HIP error: <string>"). Kept out of :data:`ENUM_TABLES`: many of
#: its strings are CUDA's words ("shared object initialization failed", "invalid device function"), and what
#: they mean on ROCm differs, so the text's other facts decide which table reads them (``_textfacts._scan_hip``)
@functools.cache
def hip_error_rows() -> tuple[EnumRow, ...]:
    """Every ``hipError_t`` row of ``hip_errors.csv`` (table ``hip_errors``)."""
    return tuple(EnumRow("hip_errors", int(r["number"]), r["name"], r["numbering"] or "current", r["message"],
                         r["meaning"], _codes(r["code"]), r["first_seen"], r["last_seen"], r["verified"],
                         r["source"]) for r in _rows("hip_errors"))


def hip_error(key: object) -> EnumRow | None:
    """A ``hipError_t`` by number, name (``hipErrorSharedObjectInitFailed``, case-insensitive) or the exact
    ``hipGetErrorString`` string; None when nothing matches."""
    if isinstance(key, bool) or not isinstance(key, (int, str)):
        return None
    rows = hip_error_rows()
    if isinstance(key, int) or re.fullmatch(r"\s*-?\d+\s*", key):
        return next((r for r in rows if r.number == int(key)), None)
    low = key.strip().lower().rstrip(".")
    return next((r for r in rows if r.name.lower() == low), None) or \
        next((r for r in rows if r.message.lower().rstrip(".") == low), None)


@functools.cache
def _name_index() -> tuple[re.Pattern[str], dict[str, EnumRow]]:
    index: dict[str, EnumRow] = {}
    for table in ENUM_TABLES:
        for r in enum_rows(table):
            if r.numbering == "current" and r.codes != ("none",):
                index.setdefault(r.name, r)
    names = sorted(index, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b"), index


@functools.cache
def _message_index() -> tuple[re.Pattern[str], dict[str, EnumRow]]:
    # runtime and NVRTC messages as they appear after "CUDA error: " / in torch's RuntimeError; short
    # generic ones ("no error", "invalid argument") are left to the name index
    index: dict[str, EnumRow] = {}
    for table in ("cuda_errors", "nvrtc_results"):
        for r in enum_rows(table):
            msg = r.message.rstrip(".")
            if r.numbering == "current" and len(msg) >= 18 and r.codes != ("none",):
                index.setdefault(msg, r)
    msgs = sorted(index, key=len, reverse=True)
    return re.compile("(" + "|".join(map(re.escape, msgs)) + ")"), index


def enum_rows_in_text(text: object) -> list[EnumRow]:
    """The enumerators a pasted text names (``cudaErrorIllegalAddress``, ``CUDA_ERROR_OUT_OF_MEMORY``,
    ``NVML_ERROR_GPU_IS_LOST``) or quotes by message (``an illegal memory access was encountered``), in
    order of first appearance, each once. Success codes are never reported."""
    body = _clip(text)
    if not body:
        return []
    found: dict[tuple[str, str], tuple[int, EnumRow]] = {}
    for pattern, index in (_name_index(), _message_index()):
        for m in pattern.finditer(body):
            row = index[m.group(1)]
            found.setdefault((row.table, row.name), (m.start(), row))
    return [row for _, row in sorted(found.values(), key=lambda p: p[0])]


# --- message tables --------------------------------------------------------------------------


@dataclass(frozen=True)
class MessageRow:
    """One message form (or situation) of a message table, with the finding code(s) it indicates."""

    table: str
    key: str
    pattern: re.Pattern[str] | None
    example: str
    meaning: str
    codes: tuple[str, ...]
    verified: str
    source: str
    fields: Mapping[str, str] = field(repr=False, compare=False, default_factory=dict)


@dataclass(frozen=True)
class MessageMatch:
    row: MessageRow
    start: int
    groups: Mapping[str, str]


#: (round 32f) one name of a ``library`` cell: a letter, then letters and digits joined by single ``-``, ``_`` or ``.``
_LIBRARY_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*")
#: a file's name, not a package's (``launch.py``, ``crt/math_functions.h``, ``llama.cpp``, ``CUDA.jl``)
_FILE_SUFFIX_RE = re.compile(r"\.(?:py|h|hpp|c|cc|cpp|cu|cuh|cmake|jl|so|dll|txt|json|yaml)$", re.IGNORECASE)


def library_import_names(cell: str) -> tuple[str, ...]:
    """(round 32f) The Python packages a ``library`` cell of library_messages.csv names, as import names (lowercase,
    ``-`` as ``_``, a dotted module's top package): its one-name items outside the parentheses (any case: the
    project's own spelling, ``Open3D``), and the lowercase one-name items inside them (``(mmcv, mmdet)``); a
    description's words never (``a build told in prose``, ``Python bindings of system libraries``), nor a class, tool or
    platform named in the parentheses (``(ResizeTransform)``, ``(SiftGPU)``, ``(Windows)``), nor a file's name."""
    out: list[str] = []
    depth = 0
    for piece in re.split(r"([()])", str(cell or "").replace("::", ".")):  # boost::compute: one C++ name
        if piece in ("(", ")"):
            depth += 1 if piece == "(" else -1
            continue
        for item in re.split(r"[,;:]", piece):
            item = item.strip()
            parts = re.split(r"\s+/\s+", item) if " / " in item else item.split("/") if " " not in item else [item]
            for name in (p.strip() for p in parts):
                if not _LIBRARY_NAME_RE.fullmatch(name) or _FILE_SUFFIX_RE.search(name):
                    continue
                if depth > 0 and name != name.lower():
                    continue
                top = name.split(".")[0].replace("-", "_").lower()
                if top not in out:
                    out.append(top)
    return tuple(out)


@functools.cache
def message_rows(table: str) -> tuple[MessageRow, ...]:
    """Every row of the message ``table`` (one of :data:`MESSAGE_TABLES`), in file order: specific
    forms come before the generic form they refine (``cannot_open_cudart`` before ``cannot_open_other``)."""
    if table not in MESSAGE_TABLES:
        raise ValueError(f"table must be one of {', '.join(MESSAGE_TABLES)}; got {table!r}")
    out = []
    for r in _rows(table):
        pat = re.compile(r["pattern"], re.MULTILINE) if r.get("pattern") else None
        key = r.get("key") or ""
        if table == "extension_checks":
            key = f"{r['project']}:{key}"
        out.append(MessageRow(table, key, pat, r.get("example", ""), r.get("meaning") or r.get("condition", ""),
                              _codes(r["code"]), r["verified"], r["source"], dict(r)))
    return tuple(out)


def match_messages(text: object, tables: Iterable[str] = MESSAGE_TABLES) -> list[MessageMatch]:
    """Every row of ``tables`` whose pattern occurs in ``text``, ordered by position in the text (and,
    at one position, by table order). A row matches at most once (its first occurrence)."""
    body = _clip(text)
    if not body:
        return []
    out = []
    for table in tables:
        for row in message_rows(table):
            if row.pattern is None:
                continue
            m = row.pattern.search(body)
            if m:
                out.append(MessageMatch(row, m.start(), {k: v for k, v in m.groupdict().items() if v is not None}))
    return sorted(out, key=lambda mm: mm.start)


def first_match(table: str, text: object) -> MessageMatch | None:
    """The first row of ``table`` (file order: most specific first) that matches ``text``."""
    body = _clip(text)
    for row in message_rows(table):
        if row.pattern is not None and body:
            m = row.pattern.search(body)
            if m:
                return MessageMatch(row, m.start(), {k: v for k, v in m.groupdict().items() if v is not None})
    return None


# --- plain tables ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CudaHomeShape:
    """A shape of a wrong (or right) ``CUDA_HOME`` and what ``torch.utils.cpp_extension`` does with it."""

    shape: str
    env: str  # "CUDA_HOME=/usr/local/cuda/bin"; empty when the shape is about guesses
    torch_home: str  # "verbatim", or what _find_cuda_home returns
    nvcc_path: str
    torch_behaviour: str
    user_sees: str
    codes: tuple[str, ...]
    torch_versions: str
    verified: str
    source: str


@functools.cache
def cuda_home_shapes() -> tuple[CudaHomeShape, ...]:
    return tuple(CudaHomeShape(r["shape"], r["env"], r["torch_home"], r["nvcc_path"], r["torch_behaviour"],
                               r["user_sees"], _codes(r["code"]), r["torch_versions"], r["verified"], r["source"])
                 for r in _rows("cuda_home_shapes"))


@dataclass(frozen=True)
class NvccOptionChange:
    """An option, value or architecture an nvcc release added, removed or limits."""

    option: str
    value: str
    change: str  # added / removed / renamed / present / limit
    cuda: str  # "12.8", or a range "13.0-13.3"
    meaning: str
    codes: tuple[str, ...]
    verified: str
    source: str


@functools.cache
def nvcc_option_changes() -> tuple[NvccOptionChange, ...]:
    return tuple(NvccOptionChange(r["option"], r["value"], r["change"], r["cuda"], r["meaning"], _codes(r["code"]),
                                  r["verified"], r["source"]) for r in _rows("nvcc_options"))


def nvcc_option_change(option: str, value: str = "") -> NvccOptionChange | None:
    """When nvcc added/removed ``option`` (``"--threads"``) or one of its values (``"--std", "c++20"``,
    ``"--gpu-architecture", "sm_90a"``); None when the table does not know it."""
    opt = option.strip().lower()
    val = value.strip().lower()
    for row in nvcc_option_changes():
        names = [n.strip().lower() for n in re.split(r"\s+", re.sub(r"\([^)]*\)", " ", row.option)) if n.strip()]
        if opt not in names:
            continue
        values = row.value.lower().split()
        if (not val and not row.value) or (val and val in values):
            return row
    return None


def clear_caches() -> None:
    for fn in (enum_rows, _name_index, _message_index, message_rows, cuda_home_shapes, nvcc_option_changes):
        fn.cache_clear()
