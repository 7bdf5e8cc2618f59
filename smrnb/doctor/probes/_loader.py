# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Layer 4, runtime loader: would ld.so find every library the compiled extensions need?

For kaolin's ``_C*.so`` (located from package metadata and the file system, **never imported**)
and every path in ``ctx.extension_paths``, each ``DT_NEEDED`` is resolved by
:func:`smrnb.doctor._ldso.resolve_needed` against the environment **the process started with**
(``/proc/self/environ``; ld.so read LD_LIBRARY_PATH then), the libraries already mapped
(``/proc/self/maps``) and those ``import torch`` maps (kaolin imports torch first; its ``_C.so``
needs libc10.so etc. with no RPATH).  Facts schema: ``smrnb/doctor/FACTS.md`` (loader).
"""

from __future__ import annotations

import glob
import os
import re
import sys
from typing import Any

from smrnb.doctor._elf import host_elf, load_refusal, read_dynamic
from smrnb.doctor._ldso import (
    _split_env_path,
    libraries_only_findable_via_new_dirs,
    load_ld_cache,
    parse_ld_cache,
    read_mapped_libraries,
    resolve_needed,
    start_env_changes,
    torch_import_libraries,
)
from smrnb.doctor._model import ProbeContext
from smrnb.doctor.probes._torch_build import find_distribution, find_package_dir, site_dirs_default


def kaolin_extension_paths(site_dirs: list[str] | None = None) -> list[str]:
    """kaolin's compiled extension modules, found without importing kaolin: the package directory's
    ``_C*.so`` plus every ``.so`` the installed distribution's RECORD lists."""
    dirs = site_dirs if site_dirs is not None else site_dirs_default()
    out: list[str] = []
    loc = find_package_dir("kaolin", dirs)
    if loc:
        out += sorted(glob.glob(os.path.join(loc, "_C*.so")))
    dist = find_distribution("kaolin", dirs)
    if dist is not None:
        try:
            for f in dist.files or []:
                if str(f).endswith(".so") and str(f).startswith("kaolin"):
                    p = os.path.abspath(str(dist.locate_file(f)))
                    if os.path.isfile(p):
                        out.append(p)
        except Exception:  # broken metadata must not break the probe
            pass
    return list(dict.fromkeys(out))


def torch_dir_from(ctx: ProbeContext, site_dirs: list[str] | None = None) -> str | None:
    """The torch package directory: the torch layer's ``lib_dir``'s parent, else found on
    ``site_dirs`` without importing torch."""
    tf = ctx.facts.get("torch") or {}
    lib_dir = tf.get("lib_dir")
    if isinstance(lib_dir, str) and os.path.isdir(lib_dir):
        return os.path.dirname(lib_dir.rstrip("/"))
    if tf.get("installed") is False:
        return None
    return find_package_dir("torch", site_dirs if site_dirs is not None else site_dirs_default())


def extensions_of_interest(ctx: ProbeContext, site_dirs: list[str] | None = None) -> list[dict[str, str]]:
    """``[{"path", "source": "kaolin"|"user"}]``, kaolin's first, each path once."""
    seen: dict[str, str] = {}
    for p in kaolin_extension_paths(site_dirs):
        seen.setdefault(p, "kaolin")
    for p in ctx.extension_paths or []:
        seen.setdefault(os.path.abspath(os.path.expanduser(str(p))), "user")
    return [{"path": p, "source": s} for p, s in seen.items()]


def unloadable_extension(path: str, refused: dict[str, Any]) -> dict[str, Any]:
    """(blind audit 36) The facts of an extension the loader would refuse (:func:`smrnb.doctor._elf.load_refusal`: a
    directory, a FIFO, an executable, another architecture...): ``status="unavailable"``, its ``reason`` and
    ``refusal`` (the kind), nothing resolved."""
    return {"path": path, "status": "unavailable", "reason": refused["reason"], "refusal": refused["kind"],
            **{k: refused[k] for k in ("machine", "host_machine") if k in refused},
            "needed": [], "rpath": [], "runpath": [], "resolved": {}, "missing": []}


def probe(ctx: ProbeContext, *, site_dirs: list[str] | None = None) -> dict[str, Any]:
    """Facts of the loader layer (schema in ``smrnb/doctor/FACTS.md``)."""
    now = dict(ctx.environ)
    start = ctx.start_environ
    ld_env = start if start is not None else now
    mapped = read_mapped_libraries(os.path.join(ctx.proc_self, "maps"))
    ld_cache = parse_ld_cache()
    cache_source = "/etc/ld.so.cache"
    if ld_cache is None:
        ld_cache = load_ld_cache(None, run=ctx.run, timeout=ctx.timeout)
        cache_source = "ldconfig -p" if ld_cache is not None else None
    tdir = torch_dir_from(ctx, site_dirs)
    preloaded = torch_import_libraries(tdir, ld_cache)
    python = os.path.realpath(ctx.python or sys.executable)
    exts = extensions_of_interest(ctx, site_dirs)
    results = []
    host = host_elf(python)
    for ext in exts:
        refused = load_refusal(ext["path"], host)
        r = (unloadable_extension(ext["path"], refused) if refused else
             resolve_needed(ext["path"], ld_env, mapped, ld_cache, loaders=[python], preloaded=preloaded,
                            elsewhere_env=now))
        r["source"] = ext["source"]
        results.append(r)
    not_checked = []
    if start is None:
        not_checked.append(f"{ctx.proc_self}/environ could not be read: the environment this process started with "
                           "is unknown, so a LD_LIBRARY_PATH changed after start cannot be told apart")
    if not os.access(os.path.join(ctx.proc_self, "maps"), os.R_OK):
        not_checked.append(f"{ctx.proc_self}/maps could not be read: the libraries already loaded are unknown "
                           "(a library found only that way may be reported missing)")
    if ld_cache is None:
        not_checked.append("neither /etc/ld.so.cache nor `ldconfig -p` could be read: libraries found only through "
                           "the loader cache may be reported missing")
    libcuda = libcuda_on_path((ld_env or {}).get("LD_LIBRARY_PATH"))
    shadowed = torch_libs_shadowed((ld_env or {}).get("LD_LIBRARY_PATH"), tdir, preloaded)
    relative = ld_library_path_relative((ld_env or {}).get("LD_LIBRARY_PATH"))
    changed = start_env_changes(start, now)
    only_new = libraries_only_findable_via_new_dirs(
        [r["path"] for r in results if r.get("status") == "ok"], start, now, mapped, ld_cache)
    return {
        "status": "ok",
        "start_environ_known": start is not None,
        "start_ld_library_path": (start or {}).get("LD_LIBRARY_PATH") if start is not None else None,
        "current_ld_library_path": now.get("LD_LIBRARY_PATH"),
        "changed_since_start": changed,
        "only_findable_via_new_dirs": only_new,
        "extensions": results,
        "mapped_libraries": mapped,
        "torch_dir": tdir,
        "torch_import_libraries": preloaded,
        "ld_cache": {"entries": len(ld_cache) if ld_cache is not None else None, "source": cache_source},
        "torch_imported": "torch" in sys.modules,
        "libcuda_on_path": libcuda,
        "torch_libs_shadowed": shadowed,
        "ld_library_path_relative": relative,
        "not_checked": not_checked,
    }


def libcuda_on_path(ld_library_path: str | None) -> dict[str, Any] | None:
    """(round 33) The first ``libcuda.so.1`` a directory of ``LD_LIBRARY_PATH`` holds (the dynamic loader takes it
    before the driver's in the loader cache; CUDA's runtime and torch open ``libcuda.so.1`` by that name), with why it
    is not the driver's where it is not: ``empty``, ``not an ELF library``, or the toolkit's link-time stub (a file
    named ``libcuda.so`` behind the link, or one in a ``stubs`` directory; the driver's is ``libcuda.so.<driver
    version>``, WSL's ``libcuda.so.1.1``). None where no directory of it has one. Found on the lent H100: an empty
    ``libcuda.so.1`` first on ``LD_LIBRARY_PATH`` made torch say "Found no NVIDIA driver on your system"."""
    for d in (ld_library_path or "").split(":"):
        path = os.path.join(d, "libcuda.so.1") if d else ""
        if not path or not os.path.lexists(path):
            continue
        real = os.path.realpath(path)
        try:
            size = os.path.getsize(real)
            with open(real, "rb") as f:
                elf = f.read(4) == b"\x7fELF"
        except OSError:
            return {"path": path, "realpath": real, "not_driver": "a link to nothing (the file it names is missing)"}
        why = ("empty" if size == 0 else "not an ELF library" if not elf else
               "the CUDA toolkit's link-time stub" if os.path.basename(real) == "libcuda.so" or
               "stubs" in real.replace("\\", "/").split("/") else None)
        return {"path": path, "realpath": real, "size": size, "not_driver": why}
    return None



def _takes_llp_first(requester: str) -> bool:
    """Whether ld.so searches LD_LIBRARY_PATH before ``requester``'s own path for its NEEDED libraries: ld.so(8)
    searches DT_RPATH first only where the object has no DT_RUNPATH; then LD_LIBRARY_PATH; then DT_RUNPATH."""
    d = read_dynamic(requester)
    return d is not None and (bool(d.runpath) or not d.rpath)


def torch_libs_shadowed(ld_library_path: str | None, torch_dir: str | None,
                        preloaded: dict[str, str]) -> list[dict[str, Any]]:
    """(blind audit 36, C-M11) The libraries ``import torch`` maps (``preloaded``: ``{soname: torch's own path}``) that
    a directory of ``LD_LIBRARY_PATH`` also holds, where ld.so takes that copy first: torch's libraries carry
    DT_RUNPATH (``$ORIGIN``), which ld.so(8) searches after LD_LIBRARY_PATH. As ld.so does, the first directory
    holding a readable file of that name decides: a file of another ELF class or machine is passed over; one that is
    not a loadable ELF (empty, truncated, a Git LFS pointer) stops the load ("file too short", "invalid ELF header").
    Each: ``name``, ``path`` (the copy), ``dir``, ``torch_own`` (torch's file), ``damaged`` (True: not a loadable ELF),
    ``torch_package`` (True: a library of torch/lib itself, not a CUDA wheel's). Only torch/lib's own libraries are
    listed when the copy is a good ELF (a CUDA library of another source can be the same release); a damaged copy of
    any of them is."""
    dirs = _split_env_path(ld_library_path)
    if not dirs or not torch_dir or not preloaded:
        return []
    lib_dir = os.path.realpath(os.path.join(torch_dir, "lib"))
    requesters = glob.glob(os.path.join(torch_dir, "_C*.so")) + list(preloaded.values())
    if not any(_takes_llp_first(r) for r in requesters):
        return []
    want = read_dynamic(next(iter(preloaded.values())))
    out: list[dict[str, Any]] = []
    for name, own in sorted(preloaded.items()):
        own_real = os.path.realpath(own)
        for d in dirs:
            cand = os.path.join(d, name)
            if not os.path.isfile(cand) or not os.access(cand, os.R_OK):
                continue  # ld.so passes over a missing or unreadable file
            if os.path.realpath(cand) == own_real:
                break
            info = read_dynamic(cand)
            if info is not None and want is not None and (info.elf_class, info.machine) != (want.elf_class,
                                                                                             want.machine):
                continue
            own_pkg = os.path.dirname(own_real) == lib_dir
            if info is None or own_pkg:
                out.append({"name": name, "path": cand, "dir": d, "torch_own": own, "damaged": info is None,
                            "torch_package": own_pkg})
            break
    return out


def ld_library_path_relative(value: str | None) -> dict[str, Any] | None:
    """(blind audit 36, C-L7) The entries of ``LD_LIBRARY_PATH`` that ld.so reads against the current directory: the
    empty ones (a leading or trailing ``:``, ``::``; glibc's fillin_rpath makes them the current directory) and the
    relative ones (``.``, ``lib``): ``{"value", "empty": count, "relative": [entries], "cwd"}``, or None where every
    entry is absolute (or the variable is unset or empty: then ld.so reads nothing of it)."""
    if not value:
        return None
    parts = re.split(r"[:;]", value)
    empty = sum(1 for p in parts if not p)
    relative = [p for p in parts if p and not p.startswith("/")]
    if not empty and not relative:
        return None
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None
    return {"value": value, "empty": empty, "relative": relative, "cwd": cwd}
