# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""What explain reads first: a long text capped to a bounded size, library names and symbols classified.

:func:`cap_text` keeps the head and tail of a long log and the middle's error lines, and cuts very long
lines, so no later step sees more than a bounded amount of text. :func:`lib_family` and
:func:`symbol_owner` say which family a library belongs to (``cudart``, ``cudnn``, ``torch``...) and who
defines a symbol; :func:`cuda_home_problem` judges a CUDA_HOME value read in a text by the live probe's rule.
"""

from __future__ import annotations

import re

from smrnb.doctor._redact import window
from smrnb.doctor.probes._toolkit import cuda_home_shape_problem

#: bytes of text kept from the head and from the tail of a long log
HEAD_CHARS = 256 * 1024
TAIL_CHARS = 256 * 1024
#: lines kept from the head and from the tail of a long log (round 29): a log of short lines (step counters,
#: progress, 3-character lines) holds 130,000 lines in its head and tail characters, each a pass of the per-line
#: readers; 2,500 lines of an ordinary log (100 characters) are about its 256 kB anyway. With the middle's
#: MIDDLE_LINES, no reader sees more than 6,000 lines (0.2-0.32 s of the per-line readers on realistic logs, 35-55 us
#: a line), so what is read is decided by the text, and the per-line scan's CPU-time budget is a safety net for
#: lines dense with signs
HEAD_LINES = 2500
TAIL_LINES = 2500
#: characters kept of one line (head and tail halves)
LINE_CHARS = 2000
#: lines kept from the middle of a long log: those holding one of MIDDLE_KEYS, at most MIDDLE_LINES of them and
#: MIDDLE_CHARS characters in all (2,000 lines of 2,000 characters would be 4 MB: every later scan of the text, a
#: search per table row among them, would read them all)
MIDDLE_LINES = 1000  # (round 29: was 2,000)
MIDDLE_CHARS = 192 * 1024
MIDDLE_KEYS = ("error", "fatal", "undefined symbol", "not found", "no such file", "unsupported", "mismatch")


#: the last text capped and its capped form: explain caps one text twice (its secrets, then the readers)
_last_capped: tuple[str, str] = ("", "")


def cap_text(text: str) -> str:
    """``text`` with at most HEAD_CHARS + TAIL_CHARS characters and lines of at most LINE_CHARS."""
    global _last_capped
    last = _last_capped
    if text is last[0]:  # the same object (an identity test: O(1), never a comparison of 10 MB)
        return last[1]
    capped = _capped(text)
    _last_capped = (text, capped)
    return capped


def forget_capped() -> None:
    """Drop :func:`cap_text`'s memo (its last input, up to 10 MB, and the capped form): called when an explain ends."""
    global _last_capped
    _last_capped = ("", "")


#: a run of three or more blank (or whitespace-only) lines: kept as two empty lines, before the head and tail are
#: cut, so that a log padded with blank lines keeps its words in the part read, and no reader walks 500 000 empty
#: lines (10 MB of newlines took 7.9 s, round 23). One pass in C, linear: each try starts at a newline and
#: its last ``\\s*`` gives back only what follows the run's last newline.
_BLANK_RUN_RE = re.compile(r"\n[^\S\n]*\n[^\S\n]*\n\s*\n")


def _head_end(text: str) -> int:
    """Where the kept head ends: HEAD_CHARS characters, or the end of its HEAD_LINES-th line if sooner."""
    end = min(len(text), HEAD_CHARS)
    if text.count("\n", 0, end) <= HEAD_LINES:
        return end
    i = -1
    for _ in range(HEAD_LINES):
        i = text.find("\n", i + 1)
    return i


def _tail_start(text: str) -> int:
    """Where the kept tail starts: TAIL_CHARS characters from the end, or the start of its TAIL_LINES-th line
    from the end if later."""
    start = max(0, len(text) - TAIL_CHARS)
    if text.count("\n", start) <= TAIL_LINES:
        return start
    i = len(text)
    for _ in range(TAIL_LINES):
        i = text.rfind("\n", 0, i)
    return i + 1


def _capped(text: str) -> str:
    if "\n\n" in text or "\n " in text or "\n\r" in text or "\n\t" in text:
        text = _BLANK_RUN_RE.sub("\n\n\n", text)
    head_end, tail_start = _head_end(text), _tail_start(text)
    if head_end < tail_start:  # head, tail, and the middle's error lines (up to MIDDLE_LINES)
        mid = text[head_end:tail_start]
        # one lower-cased copy searched once per key (an ASCII text keeps its length when lower-cased); else
        # each key in its three usual cases
        hay = mid.lower() if mid.isascii() else mid
        spans: set[tuple[int, int]] = set()
        kept = 0  # characters of the lines kept (each cut to LINE_CHARS)
        for key in MIDDLE_KEYS:  # str.find scans (C speed), each jumping to the next line after a hit
            # (round 28p) in a text beyond ASCII (each key searched in its three forms): one search for what the key
            # and its capitalised form share (key[1:]), so that an absent key costs two scans of the middle, not three
            i_rest = mid.find(key[1:]) if hay is mid else 0
            for k in ((key,) if hay is not mid else dict.fromkeys((key, key.capitalize(), key.upper()))):
                if i_rest == -1 and k != key.upper():
                    continue  # the key and its capitalised form both hold key[1:]: absent
                i = hay.find(k)
                while i != -1 and len(spans) < MIDDLE_LINES and kept < MIDDLE_CHARS:
                    a = mid.rfind("\n", 0, i) + 1
                    b = mid.find("\n", i)
                    b = len(mid) if b == -1 else b
                    if (a, b) not in spans:
                        spans.add((a, b))
                        kept += min(b - a, LINE_CHARS) + 1
                    i = hay.find(k, b)
        middle = [mid[a: min(b, a + LINE_CHARS)] for a, b in sorted(spans)]
        text = text[:head_end] + "\n...\n" + "\n".join(middle) + "\n...\n" + text[tail_start:]
    out = []
    for ln in text.split("\n"):
        if len(ln) > LINE_CHARS:
            ln = window(ln, 0, LINE_CHARS // 2) + " ... " + window(ln, len(ln) - LINE_CHARS // 2, len(ln))
        out.append(ln)
    return "\n".join(out)


# ------------------------------------------------------------------ library names
#: library stem -> family (the family a loader error names; versions of cudnn/nccl are not CUDA versions)
#: the driver's user-space libraries (libnvidia-container's list of what a container gets from the host's
#: driver, src/nvc_info.c: utility, compute, video, graphics and NGX libraries); each file is named with the
#: driver's version (``libcuda.so.575.57.08``). Other ``libnvidia-*`` libraries (libnvidia-container) are not
#: the driver's.
DRIVER_LIBS: tuple[str, ...] = (
    "libcuda.", "libcudadebugger", "libnvidia-ml", "libnvidia-cfg", "libnvidia-nscq", "libnvidia-opencl",
    "libnvidia-gpucomp", "libnvidia-ptxjitcompiler", "libnvidia-fatbinaryloader", "libnvidia-allocator",
    "libnvidia-compiler", "libnvidia-pkcs11", "libnvidia-nvvm", "libnvidia-tileiras", "libnvidia-encode",
    "libnvidia-opticalflow", "libnvcuvid", "libvdpau_nvidia", "libnvidia-eglcore", "libnvidia-glcore",
    "libnvidia-tls", "libnvidia-glsi", "libnvidia-fbc", "libnvidia-ifr", "libnvidia-rtcore", "libnvoptix",
    "libnvidia-glvkspirv", "libnvidia-cbl", "libnvidia-ngx",
)
LIB_FAMILIES: tuple[tuple[str, str], ...] = (
    ("libcudart", "cudart"), *((stem, "driver") for stem in DRIVER_LIBS),
    ("libcudnn", "cudnn"), ("libnccl", "nccl"), ("libnvjitlink", "nvjitlink"), ("libcublaslt", "cublas"),
    ("libcublas", "cublas"), ("libcusparse", "cusparse"), ("libcusolver", "cusolver"), ("libcufft", "cufft"),
    ("libcurand", "curand"), ("libnvrtc", "nvrtc"), ("libnvtoolsext", "nvtx"), ("libcupti", "cupti"),
    ("libc10", "torch"), ("libtorch", "torch"), ("libcaffe2", "torch"), ("libshm", "torch"),
    ("libstdc++", "libstdcxx"), ("libc.so", "glibc"), ("libm.so", "glibc"), ("libpython", "python"),
    ("libegl", "gl"), ("libgl", "gl"), ("libopengl", "gl"),
)


def lib_family(name: str) -> tuple[str, str]:
    """``("cudnn", "8")`` for ``libcudnn_ops_infer.so.8``; family ``"other"`` when unknown."""
    low = name.lower()
    fam = "other"
    for stem, f in LIB_FAMILIES:
        if low.startswith(stem):
            fam = f
            break
    ver = low.split(".so", 1)[1].lstrip(".") if ".so" in low else ""
    return fam, ver


# ------------------------------------------------------------------ symbols
_OWNER_PREFIXES = (("3c10", "c10"), ("2at", "torch"), ("5torch", "torch"), ("6caffe2", "torch"))


def symbol_owner(sym: str) -> str:
    """Who defines ``sym``: torch / c10 / python / libstdcxx / a CUDA family / cuda_runtime / other."""
    if sym.startswith("_Z"):
        body = sym[2:12]
        for pre, owner in _OWNER_PREFIXES:
            if pre in body:
                return owner
        if "St" in sym[:6] or "__cxx11" in sym[:40]:
            return "libstdcxx"
        return "other"
    low = sym.lower()
    if sym.startswith(("Py", "_Py", "THP")):
        return "torch_python" if sym.startswith("THP") else "python"
    for fam in ("nvjitlink", "nvrtc", "cublaslt", "cublas", "cusparse", "cudnn", "nccl", "cufft", "curand", "cusolver"):
        if low.startswith(fam) or low.startswith("__" + fam):
            return "cublas" if fam == "cublaslt" else fam
    if low.startswith("__cuda") or low.startswith("cuda"):
        return "cuda_runtime"
    if sym.startswith(("GOMP_", "omp_", "__kmpc_", "kmp_")):
        return "openmp"  # the OpenMP runtime's entry points (libgomp's GOMP_*, LLVM/Intel libomp's __kmpc_*, omp_*)
    return "other"


def cuda_home_problem(value: str) -> str | None:
    """Why a CUDA_HOME value read in a text is broken, or None: the live probe's rule
    (:func:`smrnb.doctor.probes._toolkit.cuda_home_shape_problem`), on the value as the text shows it
    (a shell variable or ``~`` not yet expanded is not judged)."""
    v = value.strip().strip("'\"")
    if not v or v.lower() in ("none", "''") or v.startswith(("$", "~")):
        return None
    return cuda_home_shape_problem(v)
