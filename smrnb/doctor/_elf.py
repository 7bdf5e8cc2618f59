# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Read what the dynamic loader and the CUDA runtime will see in an ELF shared object.

Nothing here imports or loads the object: it is read as bytes.

* :func:`read_elf` -> :class:`ElfInfo`: NEEDED, SONAME, RPATH, RUNPATH, ``DT_FLAGS_1``, dynamic
  symbols (defined / undefined, with their GNU symbol versions), the version needs
  (``.gnu.version_r``, e.g. ``{"libstdc++.so.6": ["GLIBCXX_3.4.30", ...]}``) and version
  definitions (``.gnu.version_d``).
* :func:`lookup_symbols`: is a symbol defined in another library's dynamic symbol table?  Answered
  with that library's ``DT_GNU_HASH`` (or ``DT_HASH``) table, one probe per name, never by listing
  every symbol (libtorch_cpu.so exports ~75 000).
* :func:`demangle` (``c++filt``) and :func:`abi_flavour` (old-ABI ``Ss`` vs ``std::__cxx11``).
* :func:`embedded_cuda_archs`: the ``sm_XX`` cubins and PTX targets in the ``.nv_fatbin`` section.

Implementation note. pyelftools locates the ``.nv_fatbin`` section.  The dynamic segment, the
version records (DT_VERNEED / DT_VERDEF), the dynamic symbol table and the hash tables are read
with :mod:`struct` directly from the program headers, because pyelftools is too slow for the 2 s
budget of the doctor on torch-sized libraries: its ``GNUHashSection`` parses the whole bucket
array with ``construct`` when built (60 ms for libtorch_cpu.so, against < 1 ms here) and walking
the sections of libtorch_python.so for its version records takes 240 ms (< 1 ms here).  Reading
the dynamic segment also works on objects whose section headers were stripped, as ld.so does.
The tests cross-check every one of these readers against pyelftools on real libraries.

Every public function takes any path (a missing file, a directory, random bytes, a truncated ELF)
and answers ``None`` or an empty value with a reason instead of raising.
"""

from __future__ import annotations

import importlib.util
import mmap
import os
import platform
import re
import shutil
import stat
import struct
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from smrnb.doctor._model import Runner

__all__ = [
    "DynamicInfo",
    "ElfInfo",
    "Symbol",
    "abi_flavour",
    "demangle",
    "embedded_cuda_archs",
    "file_version",
    "load_refusal",
    "lookup_symbols",
    "read_dynamic",
    "read_elf",
]

# ----------------------------------------------------------------------------- constants

_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_HASH, _DT_STRTAB, _DT_SYMTAB = 0, 1, 4, 5, 6
_DT_STRSZ, _DT_SONAME, _DT_RPATH, _DT_RUNPATH = 10, 14, 15, 29
_DT_GNU_HASH, _DT_VERSYM, _DT_FLAGS_1 = 0x6FFFFEF5, 0x6FFFFFF0, 0x6FFFFFFB
_DT_VERDEF, _DT_VERDEFNUM, _DT_VERNEED, _DT_VERNEEDNUM = 0x6FFFFFFC, 0x6FFFFFFD, 0x6FFFFFFE, 0x6FFFFFFF
DF_1_NODEFLIB, DF_1_PIE = 0x800, 0x08000000
_ET_REL, _ET_EXEC, _ET_DYN, _ET_CORE = 1, 2, 3, 4

#: ELF e_machine values the doctor names.
MACHINES = {3: "x86", 62: "x86_64", 183: "aarch64", 21: "ppc64", 22: "s390", 243: "riscv", 40: "arm"}

_MAX_DYN_ENTRIES = 100_000
_MAX_SYMBOLS = 5_000_000


@dataclass(frozen=True)
class Symbol:
    """One dynamic symbol: mangled ``name``, GNU ``version`` (``"GLIBCXX_3.4.30"`` or None),
    ``weak`` binding, and whether it is ``defined`` in this object (st_shndx != SHN_UNDEF)."""

    name: str
    version: str | None = None
    weak: bool = False
    defined: bool = False


@dataclass(frozen=True)
class DynamicInfo:
    """The dynamic segment of an ELF object, as the loader reads it.

    ``rpath`` / ``runpath`` are the raw colon-separated entries, ``$ORIGIN`` not expanded.
    ``layout`` is internal (file offsets of the tables used by :func:`lookup_symbols`).
    """

    path: str
    elf_class: int  # 32 or 64
    little_endian: bool
    machine: int
    soname: str | None
    needed: tuple[str, ...]
    rpath: tuple[str, ...]
    runpath: tuple[str, ...]
    flags_1: int
    layout: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    e_type: int = _ET_DYN  # ELF file type: ET_DYN for a shared object (and a PIE executable), ET_EXEC, ET_REL

    @property
    def machine_name(self) -> str:
        return MACHINES.get(self.machine, f"machine {self.machine}")

    @property
    def nodeflib(self) -> bool:
        return bool(self.flags_1 & DF_1_NODEFLIB)


@dataclass(frozen=True)
class ElfInfo(DynamicInfo):
    """:class:`DynamicInfo` plus symbols and versions (what :func:`read_elf` returns).

    ``undefined`` / ``defined`` are tuples of :class:`Symbol` from ``.dynsym`` (empty when
    ``read_elf(..., symbols=False)``); ``version_needs`` maps a needed file (``"libstdc++.so.6"``)
    to the version names required from it; ``version_defs`` lists the versions this object
    defines (``"GLIBCXX_3.4.30"``...); ``has_fatbin`` says whether a ``.nv_fatbin`` section exists.
    """

    undefined: tuple[Symbol, ...] = ()
    defined: tuple[Symbol, ...] = ()
    version_needs: dict[str, list[str]] = field(default_factory=dict)
    version_defs: tuple[str, ...] = ()
    has_fatbin: bool = False
    symbols_read: bool = False


# ----------------------------------------------------------------------------- raw reading


class _Bad(Exception):
    """The bytes are not a usable ELF object (internal; never escapes this module)."""


def _open_regular(path: str) -> BinaryIO:
    """``path`` opened for reading in binary, only if it is a regular file (after links): a FIFO, a device, a socket
    or a directory raises ``_Bad`` at once. Opened non-blocking, so a FIFO never waits for a writer (blind audit 36:
    ``--extension fifo.so`` hung the loader layer until the overall deadline)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _Bad("not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_at(fh: BinaryIO, offset: int, size: int) -> bytes:
    if offset < 0 or size < 0:
        raise _Bad("negative offset")
    fh.seek(offset)
    data = fh.read(size)
    if len(data) != size:
        raise _Bad("truncated")
    return data


def _parse_dynamic(fh: BinaryIO, path: str) -> DynamicInfo:
    ident = fh.read(64)
    if len(ident) < 52 or ident[:4] != b"\x7fELF":
        raise _Bad("not an ELF file")
    cls, data = ident[4], ident[5]
    if cls not in (1, 2) or data not in (1, 2):
        raise _Bad("bad ELF class or data encoding")
    e = "<" if data == 1 else ">"
    e_type, machine = struct.unpack_from(e + "HH", ident, 16)
    if cls == 2:
        phoff = struct.unpack_from(e + "Q", ident, 32)[0]
        phentsize, phnum = struct.unpack_from(e + "HH", ident, 54)
        ph_fmt, dyn_fmt = e + "IIQQQQQQ", e + "qQ"
    else:
        phoff = struct.unpack_from(e + "I", ident, 28)[0]
        phentsize, phnum = struct.unpack_from(e + "HH", ident, 42)
        ph_fmt, dyn_fmt = e + "IIIIIIII", e + "iI"
    if phnum == 0 or phentsize < struct.calcsize(ph_fmt) or phnum > 4096:
        raise _Bad("no program headers")
    raw = _read_at(fh, phoff, phentsize * phnum)
    loads: list[tuple[int, int, int]] = []  # (vaddr, offset, filesz)
    dyn: tuple[int, int] | None = None
    for i in range(phnum):
        f = struct.unpack_from(ph_fmt, raw, i * phentsize)
        if cls == 2:
            p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = f[:6]
        else:
            p_type, p_offset, p_vaddr, _paddr, p_filesz = f[:5]
        if p_type == _PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == _PT_DYNAMIC:
            dyn = (p_offset, p_filesz)
    if dyn is None:
        raise _Bad("no dynamic segment (a static executable or an object file)")

    def v2o(vaddr: int) -> int:
        for va, off, sz in loads:
            if va <= vaddr < va + sz:
                return vaddr - va + off
        # prelinked / odd objects store file offsets; accept them when plausible
        raise _Bad(f"address {vaddr:#x} outside every PT_LOAD")

    dyn_size = struct.calcsize(dyn_fmt)
    n = min(dyn[1] // dyn_size, _MAX_DYN_ENTRIES)
    raw = _read_at(fh, dyn[0], n * dyn_size)
    tags: list[tuple[int, int]] = []
    for i in range(n):
        tag, val = struct.unpack_from(dyn_fmt, raw, i * dyn_size)
        if tag == _DT_NULL:
            break
        tags.append((tag, val))
    first: dict[int, int] = {}
    for tag, val in tags:
        first.setdefault(tag, val)
    if _DT_STRTAB not in first:
        raise _Bad("no DT_STRTAB")
    strtab = v2o(first[_DT_STRTAB])
    strsz = min(first.get(_DT_STRSZ, 1 << 20), 64 << 20)

    def s(off: int) -> str:
        # read only the strings needed: libtorch_cpu.so's DT_STRTAB is 5 MB of symbol names
        if off < 0 or off >= strsz:
            raise _Bad("string offset outside DT_STRTAB")
        out = b""
        while len(out) < 65536:
            chunk = _read_at_most(fh, strtab + off + len(out), min(512, strsz - off - len(out)))
            if not chunk:
                break
            end = chunk.find(b"\0")
            if end >= 0:
                return (out + chunk[:end]).decode("utf-8", "replace")
            out += chunk
        return out.decode("utf-8", "replace")

    needed = tuple(s(v) for t, v in tags if t == _DT_NEEDED)
    soname = s(first[_DT_SONAME]) if _DT_SONAME in first else None
    rpath = tuple(p for t, v in tags if t == _DT_RPATH for p in s(v).split(":"))
    runpath = tuple(p for t, v in tags if t == _DT_RUNPATH for p in s(v).split(":"))
    layout: dict[str, int] = {"strtab": strtab, "strsz": strsz}
    for key, tag in (("symtab", _DT_SYMTAB), ("gnu_hash", _DT_GNU_HASH), ("hash", _DT_HASH),
                     ("versym", _DT_VERSYM), ("verdef", _DT_VERDEF), ("verneed", _DT_VERNEED)):
        if tag in first:
            try:
                layout[key] = v2o(first[tag])
            except _Bad:
                pass
    layout["verdefnum"] = first.get(_DT_VERDEFNUM, 0)
    layout["verneednum"] = first.get(_DT_VERNEEDNUM, 0)
    return DynamicInfo(path, 64 if cls == 2 else 32, data == 1, machine, soname, needed, rpath, runpath,
                       first.get(_DT_FLAGS_1, 0), layout, e_type)


def _read_at_most(fh: BinaryIO, offset: int, size: int) -> bytes:
    if offset < 0:
        raise _Bad("negative offset")
    fh.seek(offset)
    return fh.read(size)


_DYN_CACHE: dict[tuple[str, int, int], DynamicInfo | None] = {}


def file_version(path: str) -> tuple[str, int, int] | None:
    """``(path, size, mtime_ns)``: what a parse of ``path`` is cached under; None when it cannot be read."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return path, st.st_size, st.st_mtime_ns


def read_dynamic(path: str | os.PathLike[str]) -> DynamicInfo | None:
    """The dynamic segment of ``path`` (NEEDED, SONAME, RPATH, RUNPATH), or None when the file is
    missing, unreadable, not ELF, truncated, or has no dynamic segment.

    Cheap (a few small reads; cached by path, size and mtime): the loader resolver calls it for
    every candidate library and every library mapped into the process.
    """
    p = os.fspath(path)
    key = file_version(p)
    if key is None:
        return None
    if key in _DYN_CACHE:
        return _DYN_CACHE[key]
    try:
        with _open_regular(p) as fh:
            info: DynamicInfo | None = _parse_dynamic(fh, p)
    except (_Bad, OSError, struct.error, ValueError, OverflowError, MemoryError):
        info = None
    if len(_DYN_CACHE) > 4096:
        _DYN_CACHE.clear()
    _DYN_CACHE[key] = info
    return info


# ----------------------------------------------------------------------------- symbols


def _sym_layout(d: DynamicInfo) -> tuple[str, int]:
    e = "<" if d.little_endian else ">"
    return (e + "IBBHQQ", 24) if d.elf_class == 64 else (e + "IIIBBH", 16)


def _unpack_sym(d: DynamicInfo, raw: bytes, off: int) -> tuple[int, int, int]:
    """(st_name, st_info, st_shndx) of the symbol at ``off`` in ``raw``."""
    fmt, _ = _sym_layout(d)
    f = struct.unpack_from(fmt, raw, off)
    if d.elf_class == 64:
        return f[0], f[1], f[3]
    return f[0], f[3], f[5]


def _symbol_count_gnu(fh: BinaryIO, d: DynamicInfo) -> int:
    """Number of .dynsym entries, from the GNU hash table (highest bucket, walk its chain)."""
    e = "<" if d.little_endian else ">"
    off = d.layout["gnu_hash"]
    nbuckets, symoffset, bloom_size, _shift = struct.unpack(e + "4I", _read_at(fh, off, 16))
    word = d.elf_class // 8
    if nbuckets == 0 or nbuckets > 1 << 24 or bloom_size > 1 << 24:
        raise _Bad("implausible GNU hash table")
    boff = off + 16 + bloom_size * word
    buckets = struct.unpack(e + f"{nbuckets}I", _read_at(fh, boff, 4 * nbuckets))
    chain = boff + 4 * nbuckets
    last = max(buckets)
    if last < symoffset:
        return symoffset
    fh.seek(chain + 4 * (last - symoffset))
    while last < _MAX_SYMBOLS:
        raw = fh.read(4)
        if len(raw) < 4:
            raise _Bad("truncated GNU hash chain")
        if struct.unpack(e + "I", raw)[0] & 1:
            return last + 1
        last += 1
    raise _Bad("GNU hash chain does not end")


def _symbol_count(fh: BinaryIO, d: DynamicInfo) -> int:
    if "gnu_hash" in d.layout:
        return _symbol_count_gnu(fh, d)
    if "hash" in d.layout:
        e = "<" if d.little_endian else ">"
        _nbucket, nchain = struct.unpack(e + "II", _read_at(fh, d.layout["hash"], 8))
        return min(nchain, _MAX_SYMBOLS)
    raise _Bad("no hash table to size .dynsym")


def _versions(fh: BinaryIO, d: DynamicInfo, strtab: bytes,
              ) -> tuple[dict[int, tuple[str, str]], dict[str, list[str]], tuple[str, ...]]:
    """From the dynamic segment's DT_VERNEED / DT_VERDEF records (the data of ``.gnu.version_r`` /
    ``.gnu.version_d``): {version index: (file, version name)}, the needs per file, and the
    version names this object defines.  Record layouts are the same for ELF32 and ELF64::

        Verneed  u16 version, u16 cnt, u32 file, u32 aux, u32 next      (16 bytes)
        Vernaux  u32 hash, u16 flags, u16 other, u32 name, u32 next     (16 bytes)
        Verdef   u16 version, u16 flags, u16 ndx, u16 cnt, u32 hash, u32 aux, u32 next (20 bytes)
        Verdaux  u32 name, u32 next                                     (8 bytes)
    """
    e = "<" if d.little_endian else ">"

    def s(off: int) -> str:
        if off >= len(strtab):
            raise _Bad("version name outside DT_STRTAB")
        end = strtab.find(b"\0", off)
        return strtab[off: end if end >= 0 else len(strtab)].decode("utf-8", "replace")

    idx: dict[int, tuple[str, str]] = {}
    needs: dict[str, list[str]] = {}
    defs: list[str] = []
    if "verneed" in d.layout:
        pos = d.layout["verneed"]
        for _ in range(min(int(d.layout.get("verneednum", 0)) or 1000, 1000)):
            _v, cnt, vfile, aux, nxt = struct.unpack(e + "HHIII", _read_at(fh, pos, 16))
            fname = s(vfile)
            apos = pos + aux
            for _j in range(min(cnt, 1000)):
                _h, _fl, other, name, anext = struct.unpack(e + "IHHII", _read_at(fh, apos, 16))
                vname = s(name)
                needs.setdefault(fname, []).append(vname)
                idx[other & 0x7FFF] = (fname, vname)
                if not anext:
                    break
                apos += anext
            if not nxt:
                break
            pos += nxt
    if "verdef" in d.layout:
        pos = d.layout["verdef"]
        for _ in range(min(int(d.layout.get("verdefnum", 0)) or 10000, 10000)):
            _v, flags, ndx, cnt, _h, aux, nxt = struct.unpack(e + "HHHHIII", _read_at(fh, pos, 20))
            if cnt:
                name = s(struct.unpack(e + "I", _read_at(fh, pos + aux, 4))[0])
                idx.setdefault(ndx & 0x7FFF, ("", name))
                if not flags & 0x1:  # VER_FLG_BASE names the file itself
                    defs.append(name)
            if not nxt:
                break
            pos += nxt
    return idx, needs, tuple(defs)


def _has_section(fh: BinaryIO, d: DynamicInfo, wanted: bytes) -> bool:
    """Whether a section named ``wanted`` exists (section headers + .shstrtab, via struct)."""
    e = "<" if d.little_endian else ">"
    hdr = _read_at(fh, 0, 64 if d.elf_class == 64 else 52)
    if d.elf_class == 64:
        shoff = struct.unpack_from(e + "Q", hdr, 40)[0]
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", hdr, 58)
        name_off, off_off, size_off, off_fmt = 0, 24, 32, "Q"
    else:
        shoff = struct.unpack_from(e + "I", hdr, 32)[0]
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", hdr, 46)
        name_off, off_off, size_off, off_fmt = 0, 16, 20, "I"
    if not shoff or not shnum or shnum > 65000 or shstrndx >= shnum or shentsize < 40:
        return False
    raw = _read_at(fh, shoff, shentsize * shnum)
    sbase = shstrndx * shentsize
    str_off = struct.unpack_from(e + off_fmt, raw, sbase + off_off)[0]
    str_size = struct.unpack_from(e + off_fmt, raw, sbase + size_off)[0]
    names = _read_at_most(fh, str_off, min(str_size, 1 << 20))
    for i in range(shnum):
        n = struct.unpack_from(e + "I", raw, i * shentsize + name_off)[0]
        if names[n: n + len(wanted) + 1] == wanted + b"\0":
            return True
    return False


def _read_symbols(fh: BinaryIO, d: DynamicInfo, strtab: bytes, vidx: dict[int, tuple[str, str]],
                  ) -> tuple[list[Symbol], list[Symbol]]:
    n = _symbol_count(fh, d)
    fmt, size = _sym_layout(d)
    raw = _read_at(fh, d.layout["symtab"], n * size)
    e = "<" if d.little_endian else ">"
    versym = None
    if "versym" in d.layout:
        try:
            versym = struct.unpack(e + f"{n}H", _read_at(fh, d.layout["versym"], 2 * n))
        except _Bad:
            versym = None
    undefined: list[Symbol] = []
    defined: list[Symbol] = []
    rows = struct.iter_unpack(fmt, raw)
    next(rows, None)  # index 0 is the null symbol
    is64 = d.elf_class == 64
    nstr = len(strtab)
    for i, f in enumerate(rows, start=1):
        st_name, st_info, st_shndx = (f[0], f[1], f[3]) if is64 else (f[0], f[3], f[5])
        if st_name == 0 or st_name >= nstr:
            continue
        end = strtab.find(b"\0", st_name)
        name = strtab[st_name: end if end >= 0 else nstr].decode("utf-8", "replace")
        ver = None
        if versym is not None:
            vi = versym[i] & 0x7FFF
            if vi >= 2:
                got = vidx.get(vi)
                ver = got[1] if got else None
        sym = Symbol(name, ver, (st_info >> 4) == 2, st_shndx != 0)
        (defined if st_shndx != 0 else undefined).append(sym)
    return undefined, defined


def read_elf(path: str | os.PathLike[str], symbols: bool = True) -> ElfInfo | None:
    """Read ``path`` as the loader would; None when it is not a usable dynamic ELF object.

    Parameters
    ----------
    path : str or PathLike
        A shared object (``.so``) or dynamic executable.
    symbols : bool
        Also list every ``.dynsym`` entry (``defined`` / ``undefined``).  Keep it for extensions
        (a few thousand symbols); use :func:`lookup_symbols` against large libraries instead.

    Returns
    -------
    ElfInfo or None
        Never raises; a file whose symbol or version tables are damaged still gives its dynamic
        segment with ``symbols_read=False``.
    """
    d = read_dynamic(path)
    if d is None:
        return None
    p = d.path
    try:
        st = os.stat(p)
        memo_key = (p, st.st_size, st.st_mtime_ns, bool(symbols))
    except OSError:
        return None
    if memo_key in _ELF_MEMO:
        return _ELF_MEMO[memo_key]
    undefined: list[Symbol] = []
    defined: list[Symbol] = []
    symbols_read = False
    vidx: dict[int, tuple[str, str]] = {}
    needs: dict[str, list[str]] = {}
    defs: tuple[str, ...] = ()
    fatbin = False
    try:
        with _open_regular(p) as fh:
            strtab = _read_at_most(fh, d.layout["strtab"], d.layout["strsz"])
            try:
                vidx, needs, defs = _versions(fh, d, strtab)
            except (_Bad, struct.error, ValueError, OverflowError):
                vidx, needs, defs = {}, {}, ()
            try:
                fatbin = _has_section(fh, d, b".nv_fatbin")
            except (_Bad, struct.error, ValueError, OverflowError):
                fatbin = False
            if symbols and "symtab" in d.layout:
                try:
                    undefined, defined = _read_symbols(fh, d, strtab, vidx)
                    symbols_read = True
                except (_Bad, struct.error, ValueError, OverflowError, MemoryError):
                    undefined, defined = [], []
    except (OSError, _Bad):
        pass
    info = ElfInfo(d.path, d.elf_class, d.little_endian, d.machine, d.soname, d.needed, d.rpath, d.runpath,
                   d.flags_1, d.layout, d.e_type, tuple(undefined), tuple(defined), needs, defs, fatbin, symbols_read)
    if len(_ELF_MEMO) > 256:
        _ELF_MEMO.clear()
    _ELF_MEMO[memo_key] = info
    return info


_ELF_MEMO: dict[tuple[str, int, int, bool], ElfInfo] = {}


# ----------------------------------------------------------------------------- what the loader refuses

#: ``platform.machine()`` -> ELF e_machine, where the Python executable's own header cannot be read
_PLATFORM_MACHINES = {"x86_64": 62, "amd64": 62, "i386": 3, "i686": 3, "aarch64": 183, "arm64": 183,
                      "ppc64le": 21, "ppc64": 21, "s390x": 22, "riscv64": 243}


def _header(path: str) -> tuple[int, int, int]:
    """``(elf_class, e_type, e_machine)`` of a regular ELF file; ``_Bad`` (with why) or OSError otherwise."""
    with _open_regular(path) as fh:
        head = fh.read(64)
    if not head:
        raise _Bad("an empty file")
    if head[:4] != b"\x7fELF":
        low = head.lower()
        raise _Bad("not an ELF file" + (" (a Git LFS pointer: the file was never fetched)"
                                        if head.startswith(b"version https://git-lfs") else
                                        " (an HTML page saved as a file)" if b"<html" in low or b"<!doctype" in low
                                        else ""))
    if len(head) < 52 or head[4] not in (1, 2) or head[5] not in (1, 2):
        raise _Bad("a damaged ELF file (its header is truncated or invalid)")
    e_type, machine = struct.unpack_from("<HH" if head[5] == 1 else ">HH", head, 16)
    return (64 if head[4] == 2 else 32), e_type, machine


def host_elf(python: str | None = None) -> tuple[int, int] | None:
    """``(elf_class, e_machine)`` of the Python that would load an extension (``python``, default
    ``sys.executable``), else of this platform (``platform.machine()``); None when neither is known."""
    try:
        cls, _, machine = _header(os.path.realpath(python or sys.executable or ""))
        return cls, machine
    except (_Bad, OSError, ValueError, struct.error):
        m = _PLATFORM_MACHINES.get(platform.machine().lower())
        return (struct.calcsize("P") * 8, m) if m else None


def _file_kind(mode: int) -> str:
    return ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else
            "a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode) else
            "not a file")


def load_refusal(path: str | os.PathLike[str], host: tuple[int, int] | None = None) -> dict[str, Any] | None:
    """Why the dynamic loader would refuse ``path`` as a shared library (``dlopen``), or None when it is a
    shared object of this machine. Only a regular file is ever opened (a FIFO or a device is named, never read).

    Returns ``{"kind", "reason"}``: ``kind`` is ``missing``, ``directory``, ``not_regular``, ``unreadable``,
    ``not_elf``, ``not_dynamic``, ``object_file``, ``executable`` (glibc: "cannot dynamically load (position-
    independent) executable") or ``wrong_architecture`` (another CPU architecture or word size than ``host``,
    :func:`host_elf`'s ``(elf_class, e_machine)``; then also ``machine`` and ``host_machine``). Never raises.
    """
    p = os.fspath(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return {"kind": "missing", "reason": "a link to nothing (the file it names is missing)"
                if os.path.islink(p) else "file not found"}
    except (OSError, ValueError) as exc:
        return {"kind": "unreadable", "reason": f"cannot be read ({getattr(exc, 'strerror', None) or exc})"}
    if stat.S_ISDIR(st.st_mode):
        return {"kind": "directory", "reason": "is a directory, not a file"}
    if not stat.S_ISREG(st.st_mode):
        return {"kind": "not_regular", "reason": f"not a regular file: {_file_kind(st.st_mode)}, not opened"}
    try:
        cls, e_type, machine = _header(p)
    except _Bad as exc:
        return {"kind": "not_elf", "reason": str(exc)}
    except (OSError, ValueError, struct.error) as exc:
        return {"kind": "unreadable", "reason": f"cannot be read ({getattr(exc, 'strerror', None) or exc})"}
    h = host if host is not None else host_elf()
    if h is not None and (cls, machine) != tuple(h):
        name, hname = MACHINES.get(machine, f"machine {machine}"), MACHINES.get(h[1], f"machine {h[1]}")
        return {"kind": "wrong_architecture", "machine": f"{name} ({cls}-bit)", "host_machine": f"{hname} ({h[0]}-bit)",
                "reason": f"built for {name} ({cls}-bit), but this Python runs on {hname} ({h[0]}-bit)"}
    if e_type == _ET_REL:
        return {"kind": "object_file", "reason": "an object file (ELF relocatable, .o), not a shared library: "
                                                 "it must be linked with -shared"}
    if e_type == _ET_EXEC:
        return {"kind": "executable", "reason": "an executable, not a shared library (the loader refuses it: "
                                                "'cannot dynamically load executable')"}
    if e_type != _ET_DYN:
        return {"kind": "not_elf", "reason": "a core dump, not a shared library" if e_type == _ET_CORE else
                f"an ELF file of type {e_type}, not a shared library"}
    d = read_dynamic(p)
    if d is None:
        return {"kind": "not_dynamic", "reason": "an ELF file without a usable dynamic segment (damaged)"}
    if d.flags_1 & DF_1_PIE:
        return {"kind": "executable", "reason": "a position-independent executable, not a shared library (the loader "
                                                "refuses it: 'cannot dynamically load position-independent "
                                                "executable')"}
    return None


def _gnu_hash(name: bytes) -> int:
    """The DT_GNU_HASH function (Bernstein: h = h * 33 + c, from 5381, modulo 2**32)."""
    h = _GNU_HASH_MEMO.get(name)
    if h is None:
        h = 5381
        for c in name:
            h = (h * 33 + c) & 0xFFFFFFFF
        if len(_GNU_HASH_MEMO) > 200_000:
            _GNU_HASH_MEMO.clear()
        _GNU_HASH_MEMO[name] = h
    return h


_GNU_HASH_MEMO: dict[bytes, int] = {}


def _prime_gnu_hashes(names: list[bytes]) -> None:
    """Hash many names at once with numpy (the same polynomial, uint32 wrap-around arithmetic):
    h = 5381 * 33**n + sum_j c_j * 33**(n-1-j)  (mod 2**32).  Worth it from a few hundred names."""
    todo = [n for n in dict.fromkeys(names) if n not in _GNU_HASH_MEMO and len(n) < 4096]
    if len(todo) < 256 or not _HAVE_NUMPY:
        return  # the scalar hash fills the memo name by name (the doctor needs no numpy)
    import numpy as np

    todo.sort(key=len)
    top = len(todo[-1])
    pw = np.array([pow(33, k, 1 << 32) for k in range(top + 1)], dtype=np.uint32)
    out: list[int] = []
    for start in range(0, len(todo), 256):  # chunks of similar length keep the padding small
        chunk = todo[start: start + 256]
        width = len(chunk[-1])
        mat = np.zeros((len(chunk), width), dtype=np.uint32)
        for i, n in enumerate(chunk):  # right-aligned: the last byte has weight 33**0
            if n:
                mat[i, width - len(n):] = np.frombuffer(n, dtype=np.uint8)
        body = (mat * pw[width - 1::-1][None, :]).sum(axis=1, dtype=np.uint32) if width else \
            np.zeros(len(chunk), dtype=np.uint32)
        lengths = np.array([len(n) for n in chunk], dtype=np.int64)
        out.extend(int(x) for x in body + np.uint32(5381) * pw[lengths])
    if len(_GNU_HASH_MEMO) > 200_000:
        _GNU_HASH_MEMO.clear()
    _GNU_HASH_MEMO.update(zip(todo, out))


def _sysv_hash(name: bytes) -> int:
    h = 0
    for c in name:
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


class _HashLookup:
    """Symbol lookup through one object's DT_GNU_HASH or DT_HASH table.

    Reads through a read-only ``mmap`` of the file: a lookup touches a bloom word, one bucket, a
    few chain words, one symbol and one string, whatever the size of the table."""

    def __init__(self, d: DynamicInfo, buf: Any):
        self.d, self.buf = d, buf
        self.e = "<" if d.little_endian else ">"
        self.fmt, self.size = _sym_layout(d)
        self.strtab = d.layout["strtab"]
        self.symtab = d.layout["symtab"]
        self.n = len(buf)
        if "gnu_hash" in d.layout:
            off = d.layout["gnu_hash"]
            self.kind = "gnu"
            self.nbuckets, self.symoffset, self.bloom_size, self.shift = self._u(self.e + "4I", off)
            if self.nbuckets == 0 or self.bloom_size == 0 or self.bloom_size > 1 << 24 or self.nbuckets > 1 << 24:
                raise _Bad("implausible GNU hash table")
            word = d.elf_class // 8
            self.bloom_off, self.word_fmt = off + 16, self.e + ("Q" if word == 8 else "I")
            self.word = word
            self.buckets = off + 16 + word * self.bloom_size
            self.chain = self.buckets + 4 * self.nbuckets
        elif "hash" in d.layout:
            off = d.layout["hash"]
            self.kind = "sysv"
            self.nbucket, self.nchain = self._u(self.e + "II", off)
            if self.nbucket == 0 or self.nbucket > 1 << 24 or self.nchain > _MAX_SYMBOLS:
                raise _Bad("implausible SysV hash table")
            self.buckets = off + 8
            self.chain = off + 8 + 4 * self.nbucket
        else:
            raise _Bad("no DT_GNU_HASH or DT_HASH")

    def _u(self, fmt: str, off: int) -> tuple[int, ...]:
        if off < 0 or off + struct.calcsize(fmt) > self.n:
            raise _Bad("hash table read outside the file")
        return struct.unpack_from(fmt, self.buf, off)

    def _name_matches(self, idx: int, name: bytes) -> bool | None:
        """None: not this name; else whether the symbol of that name is defined."""
        off = self.symtab + idx * self.size
        if off + self.size > self.n:
            raise _Bad("symbol index outside the file")
        st_name, _info, shndx = _unpack_sym(self.d, self.buf, off)
        s = self.strtab + st_name
        if self.buf[s: s + len(name) + 1] == name + b"\0":
            return shndx != 0
        return None

    def defined(self, name: str) -> bool:
        b = name.encode()
        u32 = self.e + "I"
        if self.kind == "gnu":
            h = _gnu_hash(b)
            bits = self.d.elf_class
            word = self._u(self.word_fmt, self.bloom_off + self.word * ((h // bits) % self.bloom_size))[0]
            mask = (1 << (h % bits)) | (1 << ((h >> self.shift) % bits))
            if word & mask != mask:
                return False
            idx = self._u(u32, self.buckets + 4 * (h % self.nbuckets))[0]
            if idx < self.symoffset:
                return False
            for _ in range(_MAX_SYMBOLS):
                cur = self._u(u32, self.chain + 4 * (idx - self.symoffset))[0]
                if (cur | 1) == (h | 1):
                    hit = self._name_matches(idx, b)
                    if hit is not None:
                        return hit
                if cur & 1:
                    return False
                idx += 1
            return False
        h = _sysv_hash(b)
        idx = self._u(u32, self.buckets + 4 * (h % self.nbucket))[0]
        for _ in range(self.nchain + 1):
            if idx == 0 or idx >= self.nchain:
                return False
            if self._name_matches(idx, b):
                return True
            idx = self._u(u32, self.chain + 4 * idx)[0]
        return False


_VECTOR_FROM = 256  # names per library from which the numpy lookup pays for itself
# numpy only speeds up large lookups; `pip install smrnb` (the doctor alone) does not bring it
_HAVE_NUMPY = importlib.util.find_spec("numpy") is not None


def _gnu_lookup_many(t: _HashLookup, names: list[str]) -> dict[str, bool]:
    """The GNU-hash lookup of :meth:`_HashLookup.defined` for many names at once (numpy): the bloom
    filter, bucket and chain steps run as array operations; only the names whose 32-bit hash
    matches a chain entry are compared byte by byte.  Same answers as the scalar walk."""
    import numpy as np

    enc = [n.encode() for n in names]
    h = np.array([_gnu_hash(b) for b in enc], dtype=np.uint64)
    bits = t.d.elf_class
    wdt = np.dtype(t.word_fmt)
    end = t.chain
    if t.bloom_off + t.word * t.bloom_size > t.n or t.buckets + 4 * t.nbuckets > t.n:
        raise _Bad("hash table outside the file")
    bloom = np.frombuffer(t.buf, dtype=wdt, count=t.bloom_size, offset=t.bloom_off).astype(np.uint64)
    buckets = np.frombuffer(t.buf, dtype=np.dtype(t.e + "u4"), count=t.nbuckets, offset=t.buckets).astype(np.int64)
    word = bloom[((h // bits) % t.bloom_size).astype(np.int64)]
    one = np.uint64(1)
    mask = (one << (h % np.uint64(bits))) | (one << ((h >> np.uint64(t.shift)) % np.uint64(bits)))
    if bits == 32:
        mask &= np.uint64(0xFFFFFFFF)
    alive = (word & mask) == mask
    idx = buckets[(h % np.uint64(t.nbuckets)).astype(np.int64)]
    alive &= idx >= t.symoffset
    nchain_words = max(0, (t.n - end) // 4)
    chain = np.frombuffer(t.buf, dtype=np.dtype(t.e + "u4"), count=nchain_words, offset=end)  # a view, no copy
    e = t.e
    sym_dt = np.dtype([("name", e + "u4"), ("info", "u1"), ("other", "u1"), ("shndx", e + "u2"),
                       ("value", e + "u8"), ("size", e + "u8")]) if bits == 64 else \
        np.dtype([("name", e + "u4"), ("value", e + "u4"), ("size", e + "u4"), ("info", "u1"), ("other", "u1"),
                  ("shndx", e + "u2")])
    nsyms = max(0, (t.n - t.symtab) // sym_dt.itemsize)
    symtab = np.frombuffer(t.buf, dtype=sym_dt, count=nsyms, offset=t.symtab)  # a view, no copy
    found = np.zeros(len(names), dtype=bool)
    pos = np.where(alive, idx - t.symoffset, 0)
    for _ in range(_MAX_SYMBOLS):
        act = np.nonzero(alive)[0]
        if act.size == 0:
            break
        p = pos[act]
        inside = p < nchain_words
        alive[act[~inside]] = False
        act, p = act[inside], p[inside]
        cur = chain[p].astype(np.uint64)
        cand = act[(cur | one) == (h[act] | one)]
        if cand.size:  # 32-bit hash equal: compare the names themselves
            symidx = pos[cand] + t.symoffset
            if int(symidx.max()) >= nsyms:
                raise _Bad("symbol index outside the file")
            rec = symtab[symidx]
            for k, st_name, shndx in zip(cand.tolist(), rec["name"].tolist(), rec["shndx"].tolist()):
                o = t.strtab + st_name
                if t.buf[o: o + len(enc[k]) + 1] == enc[k] + b"\0":
                    found[k] = shndx != 0
                    alive[k] = False
        alive[act[(cur & one) == one]] = False
        pos[act] += 1
    return dict(zip(names, found.tolist()))


def lookup_symbols(library: str | os.PathLike[str], names: Iterable[str]) -> dict[str, bool] | None:
    """Which ``names`` does ``library`` define in its dynamic symbol table?

    Uses the library's ``DT_GNU_HASH`` table (or ``DT_HASH``): a handful of reads per name
    whatever the size of the table.  Symbol versions are ignored (torch's symbols carry none).

    Returns ``{name: defined}`` or None when the library cannot be read.
    """
    d = read_dynamic(library)
    names = list(dict.fromkeys(names))
    if d is None or "symtab" not in d.layout:
        return None
    try:
        if "gnu_hash" in d.layout:
            _prime_gnu_hashes([n.encode() for n in names])
        with _open_regular(d.path) as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            table = _HashLookup(d, buf)
            if table.kind == "gnu" and len(names) >= _VECTOR_FROM and _HAVE_NUMPY:
                return _gnu_lookup_many(table, names)
            return {n: table.defined(n) for n in names}
    except (_Bad, OSError, struct.error, ValueError, OverflowError, MemoryError):
        return None


# ----------------------------------------------------------------------------- C++ names

_CXX11_STRING = "NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"


def _tokens_outside_identifiers(mangled: str) -> Iterable[str]:
    """Yield the two-character codes of an Itanium mangled name that are *not* inside a
    length-prefixed identifier (``5Error``), so an identifier spelled ``BoSs`` is not read as
    ``Ss``.  A heuristic scanner, not a full demangler: it skips ``<len><id>``, substitutions
    ``S<seq>_``, template parameters ``T<seq>_``, literals ``L<type><value>E`` and array sizes."""
    i, n = 0, len(mangled)
    while i < n:
        c = mangled[i]
        if c.isdigit():
            j = i
            while j < n and mangled[j].isdigit():
                j += 1
            i = j + int(mangled[i:j])
            continue
        nxt = mangled[i + 1] if i + 1 < n else ""
        if c == "S" and nxt:
            if nxt == "_" or nxt.isdigit() or nxt.isupper():  # substitution S_ / S<seq>_
                j = mangled.find("_", i)
                i = n if j < 0 else j + 1
            else:  # standard abbreviation: St Sa Sb Ss Si So Sd
                yield mangled[i: i + 2]
                i += 2
            continue
        if (c == "T" and (nxt == "_" or nxt.isdigit())) or (c == "D" and nxt == "v"):
            j = mangled.find("_", i)  # template parameter T_ / T<n>_, vector type Dv<n>_
            i = n if j < 0 else j + 1
            continue
        if c == "L" and i + 1 < n and mangled[i + 1].islower():
            j = mangled.find("E", i)
            i = n if j < 0 else j + 1
            continue
        if c == "A" and i + 1 < n and mangled[i + 1].isdigit():
            j = mangled.find("_", i)
            i = n if j < 0 else j + 1
            continue
        if c == "B" and mangled.startswith("B5cxx11", i):
            yield "B5cxx11"
            i += 7
            continue
        i += 1


def abi_flavour(mangled: str) -> str:
    """Which libstdc++ ABI a mangled C++ name was compiled against.

    ``"cxx11"``: it names ``std::__cxx11::basic_string`` / ``list`` (``St7__cxx11``) or carries the
    ``[abi:cxx11]`` tag (``B5cxx11``): built with ``_GLIBCXX_USE_CXX11_ABI=1``.
    ``"old"``: it uses the pre-C++11 ``std::string`` abbreviation ``Ss`` (as in ``RKSs``): built
    with ``_GLIBCXX_USE_CXX11_ABI=0``.  ``"none"``: no std::string in the signature (or not a
    C++ name), so the flag does not change it.
    """
    if not isinstance(mangled, str) or not mangled.startswith("_Z"):
        return "none"
    if "St7__cxx11" in mangled or "B5cxx11" in mangled:
        return "cxx11"
    for tok in _tokens_outside_identifiers(mangled[2:]):
        if tok == "Ss":
            return "old"
    return "none"


def other_abi_spelling(mangled: str) -> str | None:
    """The same name in the other string ABI, when a plain textual swap gives it exactly.

    ``_ZN3c105ErrorC2ENS_14SourceLocationESs`` -> ``..._14SourceLocationENSt7__cxx1112basic_string
    IcSt11char_traitsIcESaIcEEE``.  The swap is exact only when the string is the last component
    that takes a substitution slot (later ``S<n>_`` back-references would shift), so the answer
    is None when back-references follow the swapped component.
    """
    flav = abi_flavour(mangled)
    if flav == "old":
        pos = mangled.rfind("Ss")
        head, tail = mangled[:pos], mangled[pos + 2:]
        if re.search(r"S[0-9A-Z]*_", tail) or mangled.count("Ss") != 1:
            return None
        return head + _CXX11_STRING + tail
    if flav == "cxx11" and mangled.count(_CXX11_STRING) == 1 and "B5cxx11" not in mangled:
        head, tail = mangled.split(_CXX11_STRING)
        if re.search(r"S[0-9A-Z]*_", tail):
            return None
        return head + "Ss" + tail
    return None


def demangle(names: Sequence[str], run: Callable[..., Any] | None = None, timeout: float = 5.0) -> list[str]:
    """Demangle C++ names with ``c++filt`` (one call for all names).

    Parameters
    ----------
    names : sequence of str
        Mangled names (``_ZN3c105ErrorC2ENS_14SourceLocationESs``).
    run : Runner-like, optional
        ``run(argv, timeout=..., input=...) -> CmdResult``; default a fresh
        :class:`smrnb.doctor._model.Runner`.

    Returns
    -------
    list of str, same length and order as ``names``.  Fallback: when ``c++filt`` is absent, fails,
    times out or answers a different number of lines, the names come back unchanged (mangled), and
    :func:`demangler_available` says why.
    """
    names = [str(n) for n in names]
    if not names:
        return []
    if any("\n" in n for n in names):
        return list(names)
    if run is None:
        if shutil.which("c++filt") is None:
            return list(names)
        run = Runner()
    try:
        res = run(["c++filt"], timeout=timeout, input="\n".join(names) + "\n")
    except Exception:  # a test double or custom runner without ``input=``: fall back, never raise
        return list(names)
    if not getattr(res, "ok", False) or not isinstance(getattr(res, "stdout", None), str):
        return list(names)
    out = res.stdout.splitlines()
    if len(out) != len(names):
        return list(names)
    return out


# ----------------------------------------------------------------------------- CUDA fatbin

FATBIN_MAGIC = 0xBA55ED50
_FATBIN_KIND_PTX, _FATBIN_KIND_ELF = 1, 2
_FLAG_ARCH_SPECIFIC, _FLAG_FAMILY_SPECIFIC = 0x100000, 0x200000  # sm_90a / sm_100f (seen with nvcc 13.0)


def embedded_cuda_archs(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The GPU code embedded in ``path``'s ``.nv_fatbin`` section.

    Layout parsed (little-endian; the ``fatbinary`` format written by nvcc, as read back by
    ``cuobjdump``; checked here against nvcc 13.0 output):

    * The section is a sequence of **containers**, each 8-byte aligned (zero padding between)::

        u32 magic = 0xBA55ED50 | u16 version = 1 | u16 header_size = 16 | u64 payload_size

    * The container's payload (``payload_size`` bytes after its header) is a sequence of
      **entries**, each an entry header followed by its data::

        +0  u16 kind        1 = PTX, 2 = ELF cubin
        +2  u16 (0x0101)
        +4  u32 header_size (64, or 80/112 with extended fields on newer archs)
        +8  u64 data_size   (bytes after this header, padded to 8)
        +16 u32 compressed_size (0 when not compressed)
        +20 u32 (0, or 0x40 with extended fields)
        +24 u16 minor, u16 major: the code version (PTX ISA 9.0; cubin ELF format 1.8)
        +28 u32 arch        e.g. 80 -> sm_80 cubin / compute_80 PTX
        +32 u32 name offset, u32 name size (0 = no name)
        +40 u64 flags       (bit 0: 64-bit code; 0x2000/0x8000: compressed payload;
                             0x100000: arch-specific ``sm_90a``; 0x200000: family ``sm_100f``)

      The next entry starts at ``entry + header_size + data_size``.

    Returns
    -------
    dict or None
        ``{"archs": ["sm_80", "sm_90a", ...], "ptx": ["compute_90", ...], "containers": n}`` (sorted by
        number, deduplicated over all containers), or ``{"archs": [], "ptx": [], "containers": 0}``
        for an ELF without a ``.nv_fatbin`` section (CPU-only code), or None when the file cannot
        be read as ELF or its fatbin is damaged.
    """
    p = os.fspath(path)
    try:
        from elftools.common.exceptions import ELFError
        from elftools.elf.elffile import ELFFile

        with _open_regular(p) as fh:
            elf = ELFFile(fh)
            sec = None
            for i in range(elf.num_sections()):
                try:
                    s = elf.get_section(i, type=("SHT_PROGBITS",))
                except ELFError:
                    continue
                if s.name == ".nv_fatbin":
                    sec = s
                    break
            if sec is None:
                return {"archs": [], "ptx": [], "containers": 0}
            return _parse_fatbin(fh, int(sec["sh_offset"]), int(sec["sh_size"]))
    except (_Bad, OSError, struct.error, ValueError, OverflowError, MemoryError):
        return None
    except Exception:  # pyelftools raises ELFError/construct errors/others on garbage
        return None


def _parse_fatbin(fh: BinaryIO, start: int, size: int) -> dict[str, Any]:
    end = start + size
    archs: set[tuple[int, str]] = set()
    ptx: set[tuple[int, str]] = set()
    containers = 0
    pos = start
    while pos + 16 <= end:
        magic, _version, hsize, payload = struct.unpack("<IHHQ", _read_at(fh, pos, 16))
        if magic != FATBIN_MAGIC:
            if magic == 0:  # alignment padding between containers
                pos += 8
                continue
            raise _Bad(f"bad fatbin magic {magic:#x} at {pos - start}")
        if hsize < 16 or pos + hsize + payload > end:
            raise _Bad("fatbin container overruns its section")
        containers += 1
        e, cend = pos + hsize, pos + hsize + payload
        while e + 32 <= cend:
            kind, _u, ehs, dsize, _csize, _u2, _minor, _major, arch = struct.unpack(
                "<HHIQIIHHI", _read_at(fh, e, 32))
            if ehs < 32:
                raise _Bad("fatbin entry header too small")
            flags = struct.unpack("<Q", _read_at(fh, e + 40, 8))[0] if ehs >= 48 else 0
            suffix = "a" if flags & _FLAG_ARCH_SPECIFIC else "f" if flags & _FLAG_FAMILY_SPECIFIC else ""
            if kind == _FATBIN_KIND_PTX:
                ptx.add((arch, suffix))
            elif kind == _FATBIN_KIND_ELF:
                archs.add((arch, suffix))
            e += ehs + dsize
        pos = cend
        pos += (-(pos - start)) % 8
    return {"archs": [f"sm_{a}{x}" for a, x in sorted(archs)], "ptx": [f"compute_{a}{x}" for a, x in sorted(ptx)],
            "containers": containers}
