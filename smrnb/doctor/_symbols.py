# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""C++ symbols as an error names them: demangled, their std::string ABI flavour, whether they are torch's.

Shared by the rules that decide an undefined symbol (``rules.abi``, ``rules.loader``), whether the symbol
came from a pasted error or from the abi probe's ELF reading.
"""

from __future__ import annotations

import functools
import re

from smrnb.doctor import _elf as elf

_TORCH_NS_RE = re.compile(r"(?:^_Z|N|K|L)(?:3c10|2at|5torch|6caffe2)")
_OLD_STRING_RE = re.compile(r"(?:E|K|P|R|I|S_|[0-9]|^)Ss(?![a-z])")


@functools.lru_cache(maxsize=256)
def demangle(symbol: str) -> str | None:
    """The demangled C++ name of ``symbol`` (``c++filt``, 2 s at most), or None when it cannot be."""
    if not isinstance(symbol, str) or not symbol.startswith("_Z"):
        return None
    try:
        out = elf.demangle([symbol], timeout=2.0)
    except Exception:  # c++filt missing or failing: no demangled name
        return None
    return out[0] if out and isinstance(out[0], str) and out[0] != symbol else None


def string_abi(mangled: str, demangled: str | None = None) -> str:
    """``"cxx11"`` (std::__cxx11::basic_string), ``"old"`` (``Ss``) or ``"none"`` (no std::string)."""
    try:  # the tokenizer of elf knows identifiers from substitutions
        flav = elf.abi_flavour(mangled)
        if flav in ("cxx11", "old", "none") and mangled.startswith("_Z"):
            return flav
    except Exception:  # a name the tokenizer cannot read: the heuristics below
        pass
    if "__cxx11" in mangled or (demangled and "__cxx11" in demangled):
        return "cxx11"
    if demangled:
        return "old" if re.search(r"std::(?:basic_)?string\b", demangled) else "none"
    return "old" if _OLD_STRING_RE.search(mangled[2:] if mangled.startswith("_Z") else mangled) else "none"


def is_torch_symbol(mangled: str, demangled: str | None = None) -> bool:
    """Whether a symbol is in a torch namespace (``c10::``, ``at::``, ``torch::``, ``caffe2::``)."""
    if demangled:
        return bool(re.match(r"^(?:[\w:<>, *&]*\s)?(?:c10|at|torch|caffe2)::", demangled))
    return bool(_TORCH_NS_RE.search(mangled[:12]))
