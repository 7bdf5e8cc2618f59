# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Resolve shared-library names the way glibc's ``ld.so`` does, without loading anything.

Order for each ``DT_NEEDED`` name of an object (glibc ``elf/dl-load.c``, ``_dl_map_object``):

0. a name with a ``/`` is a path, opened as is;
1. an object **already mapped** in the process whose SONAME (or file name) is the name satisfies it
   at once (``/proc/self/maps``): this is why kaolin's ``_C.so``, which needs ``libc10.so`` with
   no RPATH, imports fine after ``import torch`` although plain ``ldd`` prints "not found";
2. unless the object has ``DT_RUNPATH``: its ``DT_RPATH``, then the RPATHs of the objects that
   loaded it, up to the main executable (an object with RUNPATH contributes no RPATH);
3. ``LD_LIBRARY_PATH`` **as it was when the process started** (ld.so reads it once; changing
   ``os.environ`` later affects only child processes);
4. the object's ``DT_RUNPATH``;
5. ``/etc/ld.so.cache`` (parsed directly; ``ldconfig -p`` as a fallback), unless ``DF_1_NODEFLIB``;
6. the default directories (``/lib/<multiarch>``, ``/usr/lib/<multiarch>``, ``/lib``, ``/usr/lib``;
   ``/lib64``, ``/usr/lib64`` on non-multiarch 64-bit systems).

``$ORIGIN`` (directory of the object, symlinks not resolved), ``$LIB`` and ``$PLATFORM`` are
expanded in RPATH/RUNPATH.  A candidate file counts only if it is an ELF object of the same class
and machine (ld.so skips a 32-bit library in a 64-bit search).  Not modelled: glibc-hwcaps
subdirectories, secure-execution (setuid) rules, ``LD_PRELOAD``, and dlopen namespaces.
"""

from __future__ import annotations

import functools
import glob
import os
import platform
import re
import site
import struct
import sys
import sysconfig
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from smrnb.doctor._elf import DynamicInfo, file_version, read_dynamic, read_elf

__all__ = [
    "cuda_path_entries",
    "default_dirs",
    "elsewhere_dirs",
    "libraries_only_findable_via_new_dirs",
    "load_ld_cache",
    "parse_ld_cache",
    "parse_ldconfig_p",
    "read_mapped_libraries",
    "resolve_library",
    "resolve_needed",
    "start_env_changes",
    "torch_import_libraries",
    "version_check",
]

VIAS = ("path", "already-loaded", "rpath", "ld_library_path", "runpath", "ldconfig", "default")

# ----------------------------------------------------------------------------- ld.so.cache

_NEW_MAGIC = b"glibc-ld.so.cache1.1"
_OLD_MAGIC = b"ld.so-1.7.0"
_FLAG_TYPE_MASK, _FLAG_ELF_LIBC6, _FLAG_ARCH_MASK = 0x00FF, 0x0003, 0xFF00
#: (e_machine, ELF class) -> the ld.so.cache arch flag (glibc ``sysdeps/generic/ldconfig.h``).
_CACHE_ARCH = {(62, 64): 0x0300, (183, 64): 0x0A00, (3, 32): 0x0000, (21, 64): 0x0500,
               (22, 64): 0x0400, (243, 64): 0x1000, (40, 32): 0x0900}
#: ``ldconfig -p`` arch labels -> the same flags.
_LDCONFIG_ARCH = {"x86-64": 0x0300, "AArch64": 0x0A00, "": 0x0000, "64bit": 0x0500, "hard-float": 0x0900}

LdCache = dict[str, list[tuple[str, int]]]  # soname -> [(path, arch flag)] in cache order

_CACHE_MEMO: dict[tuple[str, int, int], LdCache | None] = {}


def parse_ld_cache(path: str = "/etc/ld.so.cache") -> LdCache | None:
    """Parse glibc's ``ld.so.cache`` ("glibc-ld.so.cache1.1" format, alone or after the old
    "ld.so-1.7.0" table).  Returns ``{soname: [(path, arch_flag), ...]}`` or None if unreadable.

    Header (48 bytes): magic+version (20), u32 nlibs, u32 len_strings, u8 flags, 3 pad,
    u32 extension_offset, 3 x u32 unused; then nlibs entries of 24 bytes: i32 flags, u32 key,
    u32 value, u32 osversion, u64 hwcap.  Key (soname) and value (path) are offsets of
    NUL-terminated strings from the start of the new-format header.
    """
    memo_key = file_version(path)
    if memo_key is None:
        return None
    if memo_key in _CACHE_MEMO:
        return _CACHE_MEMO[memo_key]
    result: LdCache | None = None
    try:
        with open(path, "rb") as fh:
            data = fh.read(64 << 20)
        base = 0
        if data.startswith(_OLD_MAGIC) and len(data) >= 16:
            nold = struct.unpack_from("<I", data, 12)[0]
            base = 16 + 12 * nold
            base += (-base) % 8
        if data[base: base + 20] == _NEW_MAGIC and len(data) >= base + 48:
            nlibs = struct.unpack_from("<I", data, base + 20)[0]
            if base + 48 + 24 * nlibs <= len(data):
                result = {}
                # the string table follows the entries: split it once, index by offset
                str_start = base + 48 + 24 * nlibs
                strings: dict[int, bytes] = {}
                pos = str_start - base
                for piece in data[str_start:].split(b"\0"):
                    strings[pos] = piece
                    pos += len(piece) + 1

                def cstr(off: int) -> str:
                    got = strings.get(off)
                    if got is None:  # an offset into the middle of a string (shared suffix)
                        o = base + off
                        end = data.find(b"\0", o)
                        got = data[o: end if end >= 0 else len(data)]
                    return got.decode("utf-8", "replace")

                for i in range(nlibs):
                    flags, key, value = struct.unpack_from("<iII", data, base + 48 + 24 * i)
                    if flags & _FLAG_TYPE_MASK != _FLAG_ELF_LIBC6:
                        continue
                    if base + key >= len(data) or base + value >= len(data):
                        continue
                    result.setdefault(cstr(key), []).append((cstr(value), flags & _FLAG_ARCH_MASK))
    except (OSError, struct.error, ValueError, MemoryError):
        result = None
    _CACHE_MEMO[memo_key] = result
    return result


_LDCONFIG_LINE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)(?:\s+OS ABI:[^=]*)?\s+=>\s+(.+?)\s*$")


def parse_ldconfig_p(text: str) -> LdCache:
    """Parse ``ldconfig -p`` output (``\\tlibfoo.so.1 (libc6,x86-64) => /usr/lib/.../libfoo.so.1``)."""
    out: LdCache = {}
    for line in text.splitlines():
        m = _LDCONFIG_LINE.match(line)
        if not m:
            continue
        parts = [p.strip() for p in m.group(2).split(",")]
        if not parts or not parts[0].startswith("libc6"):
            continue
        arch = next((_LDCONFIG_ARCH[p] for p in parts[1:] if p in _LDCONFIG_ARCH), 0x0000)
        out.setdefault(m.group(1), []).append((m.group(3), arch))
    return out


def load_ld_cache(path: str | None = "/etc/ld.so.cache", run: Callable[..., Any] | None = None,
                  timeout: float = 5.0) -> LdCache | None:
    """The ld.so cache: parsed from ``path`` (None: skip the file), else from ``ldconfig -p``
    through ``run`` (a Runner), else None (then the resolver skips that step)."""
    cache = parse_ld_cache(path) if path else None
    if cache is not None:
        return cache
    if run is None:
        return None
    for exe in ("ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"):
        res = run([exe, "-p"], timeout=timeout)
        if getattr(res, "ok", False):
            return parse_ldconfig_p(res.stdout)
    return None


# ----------------------------------------------------------------------------- search path pieces


@functools.lru_cache(maxsize=1)
def _multiarch() -> str:
    ma = sysconfig.get_config_var("MULTIARCH")
    return ma if isinstance(ma, str) and ma else f"{platform.machine()}-linux-gnu"


def default_dirs(elf_class: int = 64, root: str = "/") -> list[str]:
    """ld.so's built-in directories for this system (multiarch layout when ``/lib/<triplet>``
    exists, as on Debian/Ubuntu; ``lib64`` on other 64-bit systems)."""
    ma = _multiarch()
    if os.path.isdir(os.path.join(root, "lib", ma)):
        return [f"/lib/{ma}", f"/usr/lib/{ma}", "/lib", "/usr/lib"]
    if elf_class == 64:
        return ["/lib64", "/usr/lib64"]
    return ["/lib", "/usr/lib"]


@functools.lru_cache(maxsize=1)
def _lib_token() -> str:
    ma = _multiarch()
    if os.path.isdir(f"/lib/{ma}"):
        return f"lib/{ma}"
    return "lib64" if sys.maxsize > 2**32 else "lib"


def expand_tokens(entry: str, origin: str) -> str | None:
    """Expand ``$ORIGIN``/``${ORIGIN}``, ``$LIB``, ``$PLATFORM`` in one RPATH/RUNPATH entry.

    ``origin`` is the directory of the object as it was opened (symlinks not resolved, as glibc).
    An empty entry means the current directory.  As in glibc's ``_dl_dst_substitute``, an
    unrecognised ``$NAME`` stays literally in the path (a bare token counts only when followed by
    ``/`` or the end: ``$ORIGIN-x`` is literal), and a known token without a value
    (an empty ``origin``) makes the entry unusable (None).
    """
    if entry == "":
        return os.getcwd()
    repl = {"ORIGIN": origin, "LIB": _lib_token(), "PLATFORM": platform.machine()}
    bad = False

    def sub(m: re.Match[str]) -> str:
        nonlocal bad
        name = m.group(1) or m.group(2)
        if name not in repl:
            return m.group(0)
        if not repl[name]:
            bad = True
        return repl[name]

    out = re.sub(r"\$(?:\{(ORIGIN|LIB|PLATFORM)\}|(ORIGIN|LIB|PLATFORM)(?=/|$))", sub, entry)
    return None if bad else out


def _split_env_path(value: str | None) -> list[str]:
    """LD_LIBRARY_PATH entries (glibc splits on ``:`` and ``;``; empty means the cwd)."""
    if value is None or value == "":
        return []
    return [p if p else os.getcwd() for p in re.split(r"[:;]", value)]


def _compatible(candidate: str, want: DynamicInfo | None) -> DynamicInfo | None:
    if not os.path.isfile(candidate):
        return None
    d = read_dynamic(candidate)
    if d is None:
        return None
    if want is not None and (d.elf_class != want.elf_class or d.machine != want.machine):
        return None
    return d


def _origin(path: str) -> str:
    return os.path.dirname(path if os.path.isabs(path) else os.path.join(os.getcwd(), path))


# ----------------------------------------------------------------------------- the process


def read_mapped_libraries(maps_path: str = "/proc/self/maps") -> dict[str, str]:
    """Shared objects mapped into the process: ``{soname: path}`` (the file name when the
    object has no SONAME).  ``{}`` when the maps file cannot be read."""
    try:
        with open(maps_path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(16 << 20)
    except (OSError, ValueError):
        return {}
    paths: dict[str, None] = {}
    for line in text.splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) < 6:
            continue
        p = parts[5].strip()
        if not p.startswith("/") or p.endswith("(deleted)"):
            continue
        if re.search(r"\.so(\.|$)", os.path.basename(p)):
            paths[p] = None
    out: dict[str, str] = {}
    for p in paths:
        d = read_dynamic(p)
        key = d.soname if d is not None and d.soname else os.path.basename(p)
        out.setdefault(key, p)
    return out


def torch_import_libraries(torch_dir: str | None, ld_cache: LdCache | None = None) -> dict[str, str]:
    """``{soname: path}`` of the libraries ``import torch`` maps, found without importing torch.

    ``torch/__init__.py`` loads ``lib/libtorch_global_deps.so`` and then ``torch/_C*.so``; their
    NEEDED closure (libtorch_python, libtorch, libtorch_cpu, libc10, libtorch_cuda, libc10_cuda,
    and the pip ``nvidia-*`` CUDA libraries reached through torch's RPATH) is what an extension
    imported after torch finds "already loaded".  ``{}`` when ``torch_dir`` is not a torch package.
    """
    if not torch_dir or not os.path.isdir(torch_dir):
        return {}
    roots = glob.glob(os.path.join(torch_dir, "_C.*so")) + glob.glob(os.path.join(torch_dir, "_C.so"))
    roots += [os.path.join(torch_dir, "lib", "libtorch_global_deps.so")]
    mapped: dict[str, str] = {}
    todo = [r for r in roots if os.path.isfile(r)]
    seen: set[str] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        d = read_dynamic(path)
        if d is None:
            continue
        if d.soname and path not in roots:
            mapped.setdefault(d.soname, path)
        for name in d.needed:
            if name in mapped:
                continue
            found, _via, _ = resolve_library(name, d, env={}, mapped=mapped, ld_cache=ld_cache)
            if found and found.startswith(os.path.dirname(torch_dir.rstrip("/"))):
                mapped.setdefault(name, found)
                todo.append(found)
    return mapped


# ----------------------------------------------------------------------------- resolving


def resolve_library(name: str, requester: DynamicInfo, env: Mapping[str, str], *,
                    mapped: Mapping[str, str] | None = None, ld_cache: LdCache | None = None,
                    loaders: Iterable[DynamicInfo] = (), preloaded: Mapping[str, str] | None = None,
                    ) -> tuple[str | None, str | None, list[str]]:
    """Resolve one NEEDED ``name`` of ``requester``; returns ``(path, via, searched_dirs)``.

    ``via`` is one of :data:`VIAS` (``"already-loaded"`` also for ``preloaded``), or None when
    ld.so would fail (then ``path`` is None and ``searched_dirs`` lists where it looked).
    """
    searched: list[str] = []
    if "/" in name:
        p = name if os.path.isabs(name) else os.path.join(_origin(requester.path), name)
        return (p, "path", searched) if _compatible(p, requester) else (None, None, [os.path.dirname(p)])
    for table in (mapped or {}, preloaded or {}):
        if name in table:
            return table[name], "already-loaded", searched

    def try_dirs(dirs: Iterable[str | None]) -> str | None:
        for dd in dirs:
            if not dd:
                continue
            searched.append(dd)
            cand = os.path.join(dd, name)
            if _compatible(cand, requester):
                return cand
        return None

    if not requester.runpath:
        for obj in [requester, *loaders]:
            if obj.runpath:
                continue
            hit = try_dirs(expand_tokens(e, _origin(obj.path)) for e in obj.rpath)
            if hit:
                return hit, "rpath", searched
    hit = try_dirs(_split_env_path(env.get("LD_LIBRARY_PATH")))
    if hit:
        return hit, "ld_library_path", searched
    hit = try_dirs(expand_tokens(e, _origin(requester.path)) for e in requester.runpath)
    if hit:
        return hit, "runpath", searched
    if requester.nodeflib:
        return None, None, searched
    if ld_cache:
        arch = _CACHE_ARCH.get((requester.machine, requester.elf_class))
        for path, flag in ld_cache.get(name, []):
            if (arch is None or flag == arch) and _compatible(path, requester):
                return path, "ldconfig", searched
        searched.append("ld.so.cache")
    hit = try_dirs(default_dirs(requester.elf_class))
    if hit:
        return hit, "default", searched
    return None, None, searched


def _site_dirs_for(path: str) -> list[str]:
    out = []
    cur = os.path.dirname(os.path.abspath(path))
    while cur and cur != os.path.dirname(cur):
        if os.path.basename(cur) in ("site-packages", "dist-packages"):
            out.append(cur)
            break
        cur = os.path.dirname(cur)
    try:
        out += list(site.getsitepackages()) + [site.getusersitepackages()]
    except (AttributeError, OSError):
        pass
    return list(dict.fromkeys(out))


def elsewhere_dirs(env: Mapping[str, str], near: str | None = None) -> list[str]:
    """Directories where a library ld.so cannot find often lives: LD_LIBRARY_PATH *now*,
    ``site-packages/nvidia/*/lib``, ``torch/lib``, ``/usr/local/cuda*/lib64`` and
    ``targets/*/lib``, ``$CONDA_PREFIX/lib``."""
    dirs: list[str] = list(_split_env_path(env.get("LD_LIBRARY_PATH")))
    for sp in _site_dirs_for(near or sys.executable):
        dirs += sorted(glob.glob(os.path.join(sp, "nvidia", "*", "lib")))
        dirs.append(os.path.join(sp, "torch", "lib"))
    for home in (env.get("CUDA_HOME"), env.get("CUDA_PATH")):
        if home and ":" not in home:
            dirs += [os.path.join(home, "lib64"), os.path.join(home, "lib")]
    for cuda in sorted(glob.glob("/usr/local/cuda*")):
        dirs.append(os.path.join(cuda, "lib64"))
        dirs += sorted(glob.glob(os.path.join(cuda, "targets", "*", "lib")))
    if env.get("CONDA_PREFIX"):
        dirs.append(os.path.join(env["CONDA_PREFIX"], "lib"))
    return [d for d in dict.fromkeys(dirs) if os.path.isdir(d)]


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v))


def version_check(needs: Mapping[str, list[str]], resolved: Mapping[str, Mapping[str, Any]],
                  ) -> dict[str, list[str]]:
    """Versions (``GLIBCXX_3.4.32``...) needed from a resolved library but not defined by it:
    ``{lib: [missing versions]}``.  Libraries that did not resolve or define no versions are
    skipped (ld.so only checks versions of libraries it found)."""
    out: dict[str, list[str]] = {}
    for lib, versions in needs.items():
        path = (resolved.get(lib) or {}).get("path")
        if not path:
            continue
        info = read_elf(path, symbols=False)
        if info is None or not info.version_defs:
            continue
        missing = [v for v in versions if v not in info.version_defs]
        if missing:
            out[lib] = sorted(missing, key=_vkey)
    return out


def _max_glibcxx(versions: Iterable[str]) -> str | None:
    vs = [v[len("GLIBCXX_"):] for v in versions if v.startswith("GLIBCXX_") and re.fullmatch(r"GLIBCXX_[\d.]+", v)]
    return max(vs, key=_vkey) if vs else None


def resolve_needed(elf_path: str, env: Mapping[str, str], mapped: Mapping[str, str] | None = None,
                   ld_cache: LdCache | None = None, *, loaders: Iterable[str] = (),
                   preloaded: Mapping[str, str] | None = None, elsewhere: list[str] | None = None,
                   elsewhere_env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Resolve every ``DT_NEEDED`` of ``elf_path`` as ld.so would in a process started with ``env``.

    Parameters
    ----------
    elf_path : str
        The extension (``kaolin/_C.cpython-312-x86_64-linux-gnu.so``).
    env : mapping
        The environment **at process start** (only ``LD_LIBRARY_PATH`` matters to ld.so).
    mapped : mapping, optional
        ``{soname: path}`` already mapped in the process; None reads this process's
        ``/proc/self/maps`` (:func:`read_mapped_libraries`); ``{}`` for a fresh process.
    ld_cache : dict, optional
        :func:`load_ld_cache` result; None parses ``/etc/ld.so.cache``; ``{}`` skips the step.
    loaders : iterable of str
        Objects above the extension in the load chain whose RPATHs ld.so also searches (the Python
        executable for an extension module).
    preloaded : mapping, optional
        Libraries a prerequisite import maps (:func:`torch_import_libraries`); they resolve as
        ``"already-loaded"`` with ``"loaded_by": "import torch"``.
    elsewhere : list of str, optional
        Directories to name for missing libraries (default :func:`elsewhere_dirs` of
        ``elsewhere_env`` or ``env``).

    Returns
    -------
    dict
        ``{"path", "status": "ok"|"unavailable", "needed", "soname", "rpath", "runpath",
        "resolved": {lib: {"path", "via", "found_elsewhere": [dirs], ...}}, "missing": [libs],
        "version_missing": {lib: [versions]}, "glibcxx_needed", "glibcxx_loaded"}``.  A file that is
        not a dynamic ELF object gives ``status="unavailable"`` with a ``reason``.
    """
    path = os.fspath(elf_path)
    info = read_elf(path, symbols=False)
    if info is None:
        why = "file not found" if not os.path.exists(path) else "not a dynamic ELF object (or damaged)"
        return {"path": path, "status": "unavailable", "reason": why, "needed": [], "rpath": [],
                "runpath": [], "resolved": {}, "missing": []}
    if mapped is None:
        mapped = read_mapped_libraries()
    if ld_cache is None:
        ld_cache = parse_ld_cache()
    loader_infos = [d for d in (read_dynamic(p) for p in loaders) if d is not None]
    resolved: dict[str, dict[str, Any]] = {}
    missing: list[str] = []
    where: list[str] | None = elsewhere
    for name in info.needed:
        found, via, searched = resolve_library(name, info, env, mapped=mapped, ld_cache=ld_cache,
                                               loaders=loader_infos, preloaded=preloaded)
        entry: dict[str, Any] = {"path": found, "via": via, "found_elsewhere": []}
        if via == "already-loaded":
            entry["loaded_by"] = "process" if mapped and name in mapped else "import torch"
        if found is None:
            missing.append(name)
            if where is None:
                where = elsewhere_dirs(elsewhere_env if elsewhere_env is not None else env, near=path)
            entry["found_elsewhere"] = [d for d in where if _compatible(os.path.join(d, name), info)]
            entry["searched"] = searched
        resolved[name] = entry
    vmiss = version_check(info.version_needs, resolved)
    glibcxx_needed = _max_glibcxx(info.version_needs.get("libstdc++.so.6", []))
    glibcxx_loaded = None
    stdcxx = (resolved.get("libstdc++.so.6") or {}).get("path") or (mapped or {}).get("libstdc++.so.6")
    if stdcxx:
        si = read_elf(stdcxx, symbols=False)
        glibcxx_loaded = _max_glibcxx(si.version_defs) if si else None
    return {"path": path, "status": "ok", "soname": info.soname, "needed": list(info.needed),
            "rpath": list(info.rpath), "runpath": list(info.runpath), "resolved": resolved,
            "missing": missing, "version_missing": vmiss, "glibcxx_needed": glibcxx_needed,
            "glibcxx_loaded": glibcxx_loaded, "libstdcxx_path": stdcxx}


# ----------------------------------------------------------------------------- start environment

_ENV_VARS = ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH")


def change_effect(var: str) -> str:
    """What a change of ``var`` inside a running process does and does not reach (the words the
    warnings and findings use: the loader reads only LD_LIBRARY_PATH, and only at start)."""
    if var == "LD_LIBRARY_PATH":
        return ("the dynamic loader of this running process read LD_LIBRARY_PATH when it started: libraries in the "
                "new directories will NOT be found by `import` of compiled extensions (torch, kaolin, ...); only "
                "child processes (subprocess, !commands) see the new value")
    if var in ("CUDA_HOME", "CUDA_PATH"):
        cpp = sys.modules.get("torch.utils.cpp_extension")
        now = getattr(cpp, "CUDA_HOME", None) if cpp is not None else None
        return (f"{var} is not read by the loader; it tells CUDA extension builds where the toolkit is. Builds run as "
                "child processes (!pip install, subprocess) see the new value; torch.utils.cpp_extension (load(), "
                "JIT builds in this process) reads it once, when first imported"
                + (f": here it was imported already and still uses CUDA_HOME={now!r}" if cpp is not None else
                   " (not imported yet here, so it will use the new value)"))
    if var == "PATH":
        return ("PATH is not read by the loader either: its CUDA entries decide which nvcc child processes and builds "
                "find, and the new entries apply to them from now on; a kernel started later does not have them "
                "unless its kernelspec sets them")
    return f"{var} changed"


def cuda_path_entries(path_value: str | None) -> list[str]:
    """The entries of a PATH value that belong to a CUDA toolkit (name contains ``cuda``, or the
    directory holds ``nvcc``)."""
    out = []
    for p in (path_value or "").split(os.pathsep):
        if p and ("cuda" in p.lower() or os.path.isfile(os.path.join(p, "nvcc"))):
            out.append(p)
    return out


def start_env_changes(start_env: Mapping[str, str] | None, now_env: Mapping[str, str]) -> dict[str, Any]:
    """What changed since the process started, in the variables that matter to loading CUDA code.

    Returns ``{var: {"start": str|None, "now": str|None, "added": [...], "removed": [...]}}`` for
    ``LD_LIBRARY_PATH``, ``CUDA_HOME``, ``CUDA_PATH`` that differ, and ``PATH`` when its CUDA
    entries differ (``start``/``now`` then hold only the CUDA entries, joined with ``:``).
    ``{}`` when nothing changed or ``start_env`` is None (unknown start environment).
    """
    if start_env is None:
        return {}
    out: dict[str, Any] = {}
    for var in _ENV_VARS:
        a, b = start_env.get(var), now_env.get(var)
        if a != b:
            sa, sb = _split_env_path(a) if var == "LD_LIBRARY_PATH" else [a] if a else [], \
                _split_env_path(b) if var == "LD_LIBRARY_PATH" else [b] if b else []
            out[var] = {"start": a, "now": b, "added": [x for x in sb if x not in sa],
                        "removed": [x for x in sa if x not in sb]}
    ca, cb = cuda_path_entries(start_env.get("PATH")), cuda_path_entries(now_env.get("PATH"))
    if ca != cb:
        out["PATH"] = {"start": ":".join(ca) or None, "now": ":".join(cb) or None,
                       "added": [x for x in cb if x not in ca], "removed": [x for x in ca if x not in cb]}
    return out


def libraries_only_findable_via_new_dirs(paths: Iterable[str], start_env: Mapping[str, str] | None,
                                         now_env: Mapping[str, str], mapped: Mapping[str, str] | None = None,
                                         ld_cache: LdCache | None = None) -> list[dict[str, Any]]:
    """NEEDED libraries of the extensions at ``paths`` that the running process's loader cannot
    find (start-time LD_LIBRARY_PATH, RPATH/RUNPATH, cache, defaults, already-mapped objects) but
    that a process started with ``now_env`` would find through its LD_LIBRARY_PATH.

    ``mapped=None`` reads ``/proc/self/maps``.  Returns a list of ``{"extension", "library",
    "path", "dir", "variable": "LD_LIBRARY_PATH"}``; ``[]`` when ``start_env`` is None.
    Cheap: dynamic segments only, the ld.so.cache parsed once.
    """
    if start_env is None:
        return []
    if mapped is None:
        mapped = read_mapped_libraries()
    if ld_cache is None:
        ld_cache = parse_ld_cache()
    out: list[dict[str, Any]] = []
    for p in paths:
        d = read_dynamic(p)
        if d is None:
            continue
        for name in d.needed:
            found, _via, _ = resolve_library(name, d, start_env, mapped=mapped, ld_cache=ld_cache)
            if found:
                continue
            found, via, _ = resolve_library(name, d, now_env, mapped=mapped, ld_cache=ld_cache)
            if found and via == "ld_library_path":
                out.append({"extension": os.fspath(p), "library": name, "path": found,
                            "dir": os.path.dirname(found), "variable": "LD_LIBRARY_PATH"})
    return out
