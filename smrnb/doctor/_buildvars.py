# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""(round 37f, blind audit 37 F11) The variables a CUDA extension's own build reads, in the printed build command:
FORCE_CUDA=1 where its setup.py builds the CUDA part only when a GPU is visible (pytorch3d, detectron2, mmcv), and the
architectures in the variable it reads (tiny-cuda-nn: TCNN_CUDA_ARCHITECTURES=80, not TORCH_CUDA_ARCH_LIST=8.0).
tables/build_variables.csv holds each package's variables and the setup.py that reads them."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from smrnb.doctor import tables

#: the text says the build ran where no GPU was visible (a login node, a GPU-less docker build), or the build's own
#: message says it found none
_NO_GPU_AT_BUILD_RE = re.compile(r"\bno gpus?\b|\blogin node\b|\bwithout (?:a )?gpu\b|\bgpu-?less\b|"
                                 r"unknown compute capability|not compiled with gpu support|\bdocker build\b",
                                 re.IGNORECASE)
#: the architecture variables a printed build command may already set, with their values
_ARCH_SET_RE = re.compile(r"\b(?:TORCH_CUDA_ARCH_LIST|TCNN_CUDA_ARCHITECTURES)=(?:\"[^\"]*\"|'[^']*'|\S+)\s+")
_SWITCH_SET_RE = re.compile(r"\b(?:FORCE_CUDA|MMCV_WITH_OPS)=\S+\s+")
#: the GPUs a build for several nodes covers where the text names none: Volta to Hopper, as far as the CUDA builds them
_COMMON_CCS = (70, 75, 80, 86, 89, 90)
_TORCH_CUDA_RE = re.compile(r"\+cu(\d{2})(\d)\b")


@functools.cache
def _rows() -> tuple[tuple[re.Pattern[str], dict[str, str]], ...]:
    return tuple((re.compile(r["pattern"], re.IGNORECASE), r) for r in tables.rows("build_variables"))


def _row_for(c: str, text: str) -> dict[str, str] | None:
    """The package a pip build command builds: named in the command, else (a command of ``pip install ...``)
    the one the text builds."""
    head = c.split("#", 1)[0]
    if not re.search(r"\bpip3? install\b", head) or not re.search(r"--no-build-isolation|git\+|\s\.(?:\s|$)|\s-e\s|"
                                                                    r"\s\.\.\.(?:\s|$)", head):
        return None  # a build from source only, not a prebuilt wheel
    hit = next((r for rx, r in _rows() if rx.search(head)), None)
    if hit is None and re.search(r"\bpip3? install(?: [^#]*)? \.\.\.(?:\s|$)", head):
        found = [(m.start(), r) for rx, r in _rows() for m in [rx.search(text)] if m]
        hit = min(found, key=lambda x: x[0])[1] if found else None
    return hit


def _ccs(facts: Mapping[str, Any] | None, text: str) -> list[int]:
    """The compute capabilities of the GPUs the text names (its nvidia-smi lines, else a GPU's name in its words)."""
    drv = facts.get("driver") if isinstance(facts, Mapping) else None
    out = {str(g.get("compute_capability")) for g in (drv.get("gpus") or () if isinstance(drv, Mapping) else ())
           if isinstance(g, Mapping) and g.get("compute_capability")}
    if not out:
        for pat in tables.rows("gpu_cc"):
            if re.search(pat["pattern"], text):
                out.add(pat["cc"])
    return sorted({int(cc.replace(".", "")) for cc in out if re.fullmatch(r"\d{1,2}\.\d", cc)})


def _archs(facts: Mapping[str, Any] | None, text: str) -> tuple[list[int], str]:
    """The architectures to build for and why: the text's GPUs, else (no GPU at build time) every common one the
    text's torch CUDA builds."""
    ccs = _ccs(facts, text)
    if ccs:
        return ccs, "the GPU the text names"
    if not _NO_GPU_AT_BUILD_RE.search(text):
        return [], ""
    m = _TORCH_CUDA_RE.search(text)
    have = tables.nvcc_archs(f"{m.group(1)}.{m.group(2)}") if m else None
    return [a for a in _COMMON_CCS if have is None or a in have], "no GPU at build time and none named: the common ones"


def with_build_variables(c: str, text: str, facts: Mapping[str, Any] | None) -> str:
    """A printed pip build of a package of tables/build_variables.csv with the variables its setup.py reads: its
    switch (FORCE_CUDA=1) and its architecture variable, set to the text's GPU (or, built where no GPU is visible,
    the common ones), in place of TORCH_CUDA_ARCH_LIST where the package reads another."""
    row = _row_for(c, text)
    if row is None:
        return c
    head, _, note = c.partition("   #")
    archs, why = _archs(facts, text)
    var = row["arch_variable"]
    if archs:
        value: str | None = ";".join(str(a) if row["arch_form"] == "number" else f"{a // 10}.{a % 10}" for a in archs)
    elif var != "TORCH_CUDA_ARCH_LIST" and "TORCH_CUDA_ARCH_LIST=" in head:
        value = "<the GPU's compute capability without its dot: 86>"
    else:
        value = None  # the command's own architectures (if any) stay
    lead = re.match(r"^(?:rm -rf build/? && )?", head).group(0)
    rest = _SWITCH_SET_RE.sub("", head[len(lead):] if value is None else _ARCH_SET_RE.sub("", head[len(lead):]))
    if row["install"] and re.search(r"\bpip3? install(?: [^#]*)? \.\.\.(?:\s|$)", rest):
        flag = "" if "--no-build-isolation" in rest else "--no-build-isolation "
        rest = re.sub(r"\s\.\.\.(?=\s|$)", f" {flag}{row['install']}", rest, count=1)
    # FORCE_CUDA=1 only where the build saw no GPU: with a GPU visible these setup.py build CUDA by themselves, and on
    # a machine with no CUDA toolkit FORCE_CUDA=1 turns a CPU build that works into one that fails
    switch = " ".join(w for w in row["switch"].split() if not w.startswith("FORCE_CUDA=") or _NO_GPU_AT_BUILD_RE.search(text))
    sets = " ".join(s for s in (switch, f'{var}="{value}"' if value else "") if s)
    if not sets:
        return c  # nothing the package reads to set: the command as it was
    said = f"{row['package']}'s setup.py reads " + " and ".join(
        x for x in (*(v.split("=")[0] for v in switch.split()), var if value else "") if x) + (f" ({why})" if why else "")
    kept = [p for p in note.split("; ") if p.strip() and not re.search(r"X\.Y|where the package reads it|^\s*\.\.\.:|"
                                                                       r"GPU-less docker build", p)]
    return f"{lead}{sets} {rest.strip()}".strip() + "   # " + "; ".join([said, *(p.strip() for p in kept)])
