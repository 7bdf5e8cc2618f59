# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Layer 5, ABI (statically): will the extension's torch symbols resolve, and does it carry GPU code
for this GPU?

* Every undefined, non-weak dynamic symbol of the extension in a torch namespace (``c10::``,
  ``at::``, ``torch::``, ``caffe2::``) is looked up in the dynamic symbol tables of torch's
  libraries (hash-table lookups, :func:`smrnb.doctor._elf.lookup_symbols`).  One that is defined
  nowhere is the "undefined symbol" ImportError, predicted without importing anything.
* Each unresolved symbol is demangled and classified: old-ABI ``Ss`` or ``std::__cxx11``; when
  the same name in the other string ABI *is* defined by torch (or the flavours of extension and
  torch differ), the cause is the ``_GLIBCXX_USE_CXX11_ABI`` flag, else a different torch version.
* The ``.nv_fatbin`` section lists the cubins (``sm_XX``) and PTX embedded; compared with each
  GPU's compute capability (``ctx.facts["driver"]["gpus"]``) it predicts "no kernel image is
  available for execution on the device" (kaolin then returns empty tensors without raising).

Facts schema: ``smrnb/doctor/FACTS.md`` (abi).
"""

from __future__ import annotations

import glob
import os
import re
import sys
from typing import Any

from smrnb.doctor._elf import (
    abi_flavour,
    demangle,
    embedded_cuda_archs,
    host_elf,
    load_refusal,
    lookup_symbols,
    other_abi_spelling,
    read_dynamic,
    read_elf,
)
from smrnb.doctor._ldso import load_ld_cache, read_mapped_libraries, resolve_needed
from smrnb.doctor._model import ProbeContext
from smrnb.doctor.probes._loader import extensions_of_interest, torch_dir_from

#: a mangled name whose outermost scope is a torch namespace (also vtables/typeinfo of their types)
TORCH_SYMBOL = re.compile(r"^_Z(?:T[VIS])?N?[rVK]*(?:3c10|2at|5torch|6caffe2)")

#: a mangled name of the C++ runtime itself (std::, std::string / streams by their substitutions, __cxxabiv1::,
#: __gnu_cxx::, operator new / delete; their vtables, VTTs, typeinfo and thunks): libstdc++ defines it, loaded by
#: every torch process; torch 2.11's CUDA libtorch.so refers to 139 such names unversioned without libstdc++ among its
#: NEEDED (measured on an H100), which made ``--package torch`` call torch's own library broken
CXX_RUNTIME_SYMBOL = re.compile(r"^_Z(?:T[VITSC]|T[hv][n\d_]+)?N?[rVK]*(?:S[tsiodab]|10__cxxabiv1|9__gnu_cxx)"
                                r"|^_Z(?:nw|na|dl|da)[a-zA-Z]")

#: well-known symbols that tell which string ABI a torch build uses (c10::Error's constructor)
_CXX11_PROBE = "_ZN3c105ErrorC1ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
_OLD_PROBE = "_ZN3c105ErrorC1ENS_14SourceLocationESs"

_TORCH_LIB_NAMES = ("libc10.so", "libtorch_cpu.so", "libtorch_python.so", "libtorch.so", "libtorch_cuda.so",
                    "libc10_cuda.so", "libtorch_global_deps.so")

#: the file name of a Python extension module that carries an interpreter tag (PEP 3149: ``.cpython-311-x86_64-linux-
#: gnu.so``, the stable ABI's ``.abi3.so``, PyPy's ``.pypy310-pp73-x86_64-linux-gnu.so``)
PY_MODULE_NAME = re.compile(r"\.(?:cpython-[^./]+|abi3|pypy[^./]*)\.so$")

#: the C library's parts every process has (before glibc 2.34 libpthread and libdl were files of their own)
_C_LIBRARIES = ("libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1")

MAX_REPORTED = 50  # unresolved symbols listed (and demangled) per extension


def is_torch_symbol(mangled: str) -> bool:
    """True for a mangled C++ name in ``c10::``, ``at::``, ``torch::`` or ``caffe2::``."""
    return bool(TORCH_SYMBOL.match(mangled))


def parse_capability(cc: Any) -> tuple[int, int] | None:
    """``"9.0"`` / ``(9, 0)`` / ``9.0`` -> ``(9, 0)``; None when unreadable."""
    if isinstance(cc, (tuple, list)) and len(cc) == 2:
        try:
            return int(cc[0]), int(cc[1])
        except (TypeError, ValueError):
            return None
    m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", str(cc))
    return (int(m.group(1)), int(m.group(2))) if m else None


def _arch_num(a: str) -> tuple[int, int, str] | None:
    m = re.fullmatch(r"(?:sm|compute)_(\d+)([af]?)", a)
    if not m:
        return None
    n = int(m.group(1))
    return n // 10, n % 10, m.group(2)


def kernel_image_for(capability: Any, archs: list[str], ptx: list[str]) -> dict[str, Any]:
    """Can a GPU of ``capability`` run code embedded as ``archs`` cubins and ``ptx``?

    A cubin ``sm_XY`` (or family ``sm_XYf``) runs on a GPU of the same major version X with minor
    >= Y (binary compatibility within a major); an arch-specific ``sm_XYa`` only on exactly X.Y.
    PTX ``compute_XY`` is JIT-compiled by the driver for any GPU of capability >= X.Y;
    ``compute_XYf`` only within major X, ``compute_XYa`` only for exactly X.Y.
    Returns ``{"ok": bool|None, "via": "sm_90" | "compute_80 (PTX JIT)" | None}``.
    """
    cc = parse_capability(capability)
    if cc is None:
        return {"ok": None, "via": None}

    def runs(n: tuple[int, int, str] | None, jit: bool) -> bool:
        if n is None:
            return False
        major, minor, kind = n
        if kind == "a":
            return (major, minor) == cc
        if kind == "f" or not jit:
            return major == cc[0] and minor <= cc[1]
        return (major, minor) <= cc

    def best(items: list[str]) -> str:
        return max(items, key=lambda a: (_arch_num(a) or (0, 0, ""))[:2])

    sass = [a for a in archs if runs(_arch_num(a), jit=False)]
    if sass:
        return {"ok": True, "via": best(sass)}
    jit = [p for p in ptx if runs(_arch_num(p), jit=True)]
    if jit:
        return {"ok": True, "via": f"{best(jit)} (PTX JIT)"}
    return {"ok": False, "via": None}


def torch_libraries(ctx: ProbeContext) -> list[str]:
    """torch's shared libraries to look symbols up in: those ``import torch`` maps (loader facts),
    else the well-known names in ``<torch>/lib``."""
    lf = ctx.facts.get("loader") or {}
    tdir = lf.get("torch_dir")
    libs = [p for p in (lf.get("torch_import_libraries") or {}).values()
            if isinstance(p, str) and tdir and p.startswith(tdir)
            and os.path.basename(p).startswith(("libc10", "libtorch"))]
    if not libs:
        tf = ctx.facts.get("torch") or {}
        lib_dir = tf.get("lib_dir")
        if not (isinstance(lib_dir, str) and os.path.isdir(lib_dir)):
            td = torch_dir_from(ctx)
            lib_dir = os.path.join(td, "lib") if td else None
        if lib_dir:
            libs = [p for n in _TORCH_LIB_NAMES for p in glob.glob(os.path.join(lib_dir, n))]
    order = {n: i for i, n in enumerate(_TORCH_LIB_NAMES)}
    return sorted(dict.fromkeys(libs), key=lambda p: order.get(os.path.basename(p), 99))


def _lookup_any(libs: list[str], names: list[str]) -> dict[str, str | None]:
    """name -> the first library defining it (or None)."""
    where: dict[str, str | None] = dict.fromkeys(names)
    todo = list(names)
    for lib in libs:
        if not todo:
            break
        got = lookup_symbols(lib, todo) or {}
        for n, ok in got.items():
            if ok:
                where[n] = lib
        todo = [n for n in todo if where[n] is None]
    return where


def _c_libraries(cache: Any, exe: str) -> list[str]:
    """The files of the C library's parts (libc, libm, libpthread, libdl, librt) of the Python executable's machine,
    from the loader cache: names they define are never an undefined symbol of a module."""
    want = read_dynamic(exe)
    out = []
    for name in _C_LIBRARIES:
        for entry in (cache or {}).get(name) or []:
            path = entry[0] if isinstance(entry, (tuple, list)) else entry
            d = read_dynamic(path) if isinstance(path, str) else None
            if d is not None and (want is None or (d.elf_class, d.machine) == (want.elf_class, want.machine)):
                out.append(path)
                break
    return out


def _unresolved_plain(names: list[str], libs: list[str]) -> list[str]:
    """The plain (C, unversioned, non-weak) undefined symbols of an extension that nothing it can be bound to defines:
    not torch's libraries, not its resolved NEEDED libraries nor theirs (two levels), not the Python executable, not
    any shared object this process has mapped (libpython, libc, ...). Python imports an extension with RTLD_NOW, so one
    such name is ``ImportError: ...: undefined symbol: NAME``. Where the executable cannot be read, nothing is claimed
    (``[]``): the Python C API is defined there or in libpython."""
    if not names:
        return []
    exe = os.path.realpath(sys.executable or "")
    if not exe or read_elf(exe, symbols=False) is None:
        return []
    cache = load_ld_cache()
    where = _lookup_any([*libs, exe, *_c_libraries(cache, exe)], names)
    rest = [n for n in names if where[n] is None]
    if rest:  # the shared objects this process has mapped: read (/proc/self/maps) only for names still open
        mapped = _lookup_any(list(read_mapped_libraries().values()), rest)
        rest = [n for n in rest if mapped[n] is None]
    seen = set(libs)
    level = [p for p in libs if p]
    for _ in range(2):  # the NEEDED libraries of the libraries it binds to (libcudart's, libGL's ...)
        if not rest or not level:
            break
        nxt: list[str] = []
        for lib in level[:64]:
            got = resolve_needed(lib, os.environ, mapped={}, ld_cache=cache, elsewhere=[])
            nxt += [e["path"] for e in (got.get("resolved") or {}).values() if e.get("path") and e["path"] not in seen]
        seen.update(nxt)
        found = _lookup_any(list(dict.fromkeys(nxt)), rest)
        rest = [n for n in rest if found[n] is None]
        level = nxt
    return rest[:MAX_REPORTED]


def torch_string_abi(ctx: ProbeContext, libs: list[str]) -> tuple[bool | None, str | None]:
    """(torch uses the cxx11 string ABI?, where that came from)."""
    tf = ctx.facts.get("torch") or {}
    if isinstance(tf.get("cxx11_abi"), bool):
        return tf["cxx11_abi"], "torch facts"
    c10 = [p for p in libs if os.path.basename(p) == "libc10.so"]
    if c10:
        got = lookup_symbols(c10[0], [_CXX11_PROBE, _OLD_PROBE]) or {}
        if got.get(_CXX11_PROBE):
            return True, "libc10.so defines c10::Error(SourceLocation, std::__cxx11::string)"
        if got.get(_OLD_PROBE):
            return False, "libc10.so defines c10::Error(SourceLocation, old-ABI std::string)"
        info = read_elf(c10[0], symbols=True)  # libc10.so is small (~1 300 exported symbols)
        if info is not None:
            old, cxx11 = _string_flavours([s.name for s in info.defined])
            if cxx11 != old:
                return cxx11, f"libc10.so exports {'std::__cxx11' if cxx11 else 'old-ABI std::string'} symbols"
    return None, None


def _string_flavours(names: list[str]) -> tuple[bool, bool]:
    old = cxx11 = False
    for n in names:
        if not cxx11 and ("St7__cxx11" in n or "B5cxx11" in n):
            cxx11 = True
        if not old and "Ss" in n and abi_flavour(n) == "old":
            old = True
        if old and cxx11:
            break
    return old, cxx11


def check_extension(path: str, libs: list[str], torch_cxx11: bool | None, gpus: list[dict[str, Any]],
                    run: Any = None, timeout: float = 5.0, other_libs: list[str] | None = None) -> dict[str, Any]:
    """The abi facts of one extension (see FACTS.md); never raises on unreadable files.

    Checked symbols: undefined, non-weak, and either in a torch namespace or an unversioned C++
    name (``THPVariable_Wrap``...; libstdc++'s exports always carry a GLIBCXX/CXXABI version).
    They are looked up in torch's ``libs``, then in the extension's other resolved libraries
    (``other_libs``); ``torch_undefined`` counts those in torch namespaces.
    """
    refused = load_refusal(path, host_elf())
    info = read_elf(path, symbols=True) if refused is None else None
    if info is None:
        refused = refused or {"kind": "not_dynamic", "reason": "not a dynamic ELF object (or damaged)"}
        return {"path": path, "status": "unavailable", "reason": refused["reason"], "refusal": refused["kind"],
                **{k: refused[k] for k in ("machine", "host_machine") if k in refused},
                "torch_undefined": 0, "unresolved": [], "uses_old_abi": False, "uses_cxx11_abi": False,
                "embedded_archs": None, "has_ptx": None}
    torch_undef = [s.name for s in info.undefined if not s.weak and is_torch_symbol(s.name)]
    candidates = torch_undef + [s.name for s in info.undefined if not s.weak and s.version is None
                                and s.name.startswith("_Z") and not is_torch_symbol(s.name)
                                and not CXX_RUNTIME_SYMBOL.match(s.name)]
    where = _lookup_any(libs, candidates) if libs else dict.fromkeys(candidates)
    rest = [n for n in candidates if where[n] is None]
    if rest and other_libs:
        where.update({n: p for n, p in _lookup_any([p for p in other_libs if p not in libs], rest).items() if p})
    unresolved_names = [n for n in candidates if where[n] is None] if libs else []
    counterparts = {n: other_abi_spelling(n) for n in unresolved_names}
    cp_where = _lookup_any(libs, [c for c in counterparts.values() if c]) if libs else {}
    old, cxx11 = _string_flavours([s.name for s in info.undefined] + [s.name for s in info.defined])
    shown = unresolved_names[:MAX_REPORTED]
    dem = demangle(shown, run=run, timeout=timeout) if shown else []
    unresolved = []
    for n, d in zip(shown, dem):
        flav = abi_flavour(n)
        cp = counterparts.get(n)
        cp_found = (cp_where.get(cp) is not None) if cp else None
        if cp is not None:  # the other-ABI spelling is known exactly: torch defines it, or not
            abi_cause = bool(cp_found)
        else:  # a name the textual swap cannot rewrite: fall back on the flavours
            abi_cause = (flav == "old" and torch_cxx11 is True) or (flav == "cxx11" and torch_cxx11 is False)
        diagnosis = "cxx11_abi_mismatch" if abi_cause else "abi_torch_version_mismatch"
        unresolved.append({"mangled": n, "demangled": d, "abi": flav, "other_abi_defined": cp_found,
                           "diagnosis": diagnosis})
    # plain names only of a Python extension module (it defines PyInit_<name>): Python dlopens it with RTLD_NOW; a
    # plugin library (nvshmem's PMIx bootstrap) is loaded into a process that defines its names, not checked alone
    # (blind audit 36) or its file name is a Python extension module's (``.cpython-311-x86_64-linux-gnu.so``,
    # ``.abi3.so``): Python's import dlopens it (RTLD_NOW) before it looks for PyInit_, so a name nothing defines fails
    # the import whether or not the module exports PyInit_ under its file's name
    module = any(s.name.startswith("PyInit_") for s in info.defined) or bool(PY_MODULE_NAME.search(path))
    plain = [s.name for s in info.undefined if module and not s.weak and s.version is None
             and not s.name.startswith("_Z")]
    facts_plain = {"plain_checked": module, "plain_undefined": len(plain) if module else sum(
        1 for s in info.undefined if not s.weak and s.version is None and not s.name.startswith("_Z"))}
    facts: dict[str, Any] = {
        "path": path, "status": "ok", "symbols_read": info.symbols_read,
        "torch_undefined": len(torch_undef), "unresolved_count": len(unresolved_names), "unresolved": unresolved,
        "unresolved_other": _unresolved_plain(plain, [*libs, *(other_libs or [])]) if info.symbols_read else [],
        **facts_plain,
        "uses_old_abi": old, "uses_cxx11_abi": cxx11, "torch_cxx11_abi": torch_cxx11,
        "checked_in": [os.path.basename(p) for p in libs],
        "defined_in": {os.path.basename(p): sum(1 for v in where.values() if v == p)
                       for p in dict.fromkeys([*libs, *(v for v in where.values() if v)])},
    }
    fat = embedded_cuda_archs(path) if info.has_fatbin else {"archs": [], "ptx": [], "containers": 0}
    if fat is None:
        facts.update(embedded_archs=None, embedded_ptx=None, has_ptx=None, has_gpu_code=None, gpu_images=[])
    else:
        facts.update(embedded_archs=fat["archs"], embedded_ptx=fat["ptx"], has_ptx=bool(fat["ptx"]),
                     has_gpu_code=bool(fat["archs"] or fat["ptx"]))
        images = []
        if facts["has_gpu_code"]:
            for g in gpus or []:
                k = kernel_image_for(g.get("compute_capability"), fat["archs"], fat["ptx"])
                images.append({"index": g.get("index"), "name": g.get("name"),
                               "compute_capability": g.get("compute_capability"), **k})
        facts["gpu_images"] = images
    return facts


def probe(ctx: ProbeContext, *, site_dirs: list[str] | None = None) -> dict[str, Any]:
    """Facts of the abi layer (schema in ``smrnb/doctor/FACTS.md``)."""
    lf = ctx.facts.get("loader") or {}
    paths = [e["path"] for e in lf.get("extensions", []) if isinstance(e, dict) and e.get("path")]
    if not lf.get("extensions"):
        paths = [e["path"] for e in extensions_of_interest(ctx, site_dirs)]
    libs = torch_libraries(ctx)
    torch_cxx11, abi_from = torch_string_abi(ctx, libs)
    gpus = [g for g in (ctx.facts.get("driver") or {}).get("gpus") or [] if isinstance(g, dict)]
    resolved_by_path = {e.get("path"): [r.get("path") for r in (e.get("resolved") or {}).values() if r.get("path")]
                        for e in lf.get("extensions") or [] if isinstance(e, dict)}
    exts = [check_extension(p, libs, torch_cxx11, gpus, run=ctx.run, timeout=ctx.timeout,
                            other_libs=resolved_by_path.get(p)) for p in paths]
    return {"status": "ok", "torch_libraries": libs, "torch_cxx11_abi": torch_cxx11, "torch_cxx11_abi_from": abi_from,
            "gpus": [{"index": g.get("index"), "name": g.get("name"), "compute_capability": g.get("compute_capability")}
                     for g in gpus if isinstance(g, dict)],
            "extensions": exts}
