# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Layer 2, torch build: version, CUDA variant, C++ ABI flag, arch list, where the CUDA runtime comes from.

torch is **not imported** here (it takes seconds, and may initialise CUDA): the facts come from
``importlib.metadata``, ``torch/version.py`` read as text, and the ELF headers of ``torch/lib``
(pyelftools). Only when torch is already in ``sys.modules`` are its live answers used; with
``ctx.import_check`` a *subprocess* imports torch and reports the arch list and ``cuda.is_available()``.
"""

from __future__ import annotations

import ast
import glob
import importlib.machinery
import importlib.metadata as md
import json
import os
import re
import sys
from typing import Any

from smrnb.doctor._model import ProbeContext

_VERSION_LINE = re.compile(r"^(\w+)\s*(?::[^=]*)?=\s*(.+?)\s*$")
CUDA_LIB_PREFIXES = ("libcudart", "libcublas", "libcudnn", "libnvrtc", "libcufft", "libcusparse",
                     "libcurand", "libcusolver", "libnccl", "libnvjitlink", "libcupti", "libnvToolsExt")


def parse_version_py(text: str) -> dict[str, Any]:
    """Assignments of ``torch/version.py`` (``__version__``, ``cuda``, ``hip``, ``git_version``...)
    parsed as literals; unknown forms are skipped."""
    out: dict[str, Any] = {}
    for line in text.splitlines():
        m = _VERSION_LINE.match(line.strip())
        if not m:
            continue
        try:
            out[m.group(1)] = ast.literal_eval(m.group(2))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    return out


def site_dirs_default() -> list[str]:
    return [p for p in sys.path if p and os.path.isdir(p)]


def find_distribution(name: str, site_dirs: list[str] | None) -> md.Distribution | None:
    """The first installed distribution ``name`` on ``site_dirs`` (default ``sys.path``)."""
    try:
        for d in md.distributions(name=name, path=site_dirs if site_dirs is not None else None):
            return d
    except Exception:
        return None
    return None


def find_package_dir(name: str, site_dirs: list[str] | None) -> str | None:
    """Directory of top-level package ``name`` on ``site_dirs`` found *without importing it*."""
    try:
        spec = importlib.machinery.PathFinder.find_spec(name, site_dirs if site_dirs is not None else sys.path)
    except Exception:
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    locs = list(spec.submodule_search_locations)
    return os.path.abspath(locs[0]) if locs else None


# --- ELF helpers (pyelftools) ------------------------------------------------------------------


def elf_dynamic(path: str) -> dict[str, list[str]] | None:
    """``{"needed": [...], "rpath": [...], "runpath": [...]}`` of an ELF file; None if unreadable."""
    try:
        from elftools.elf.dynamic import DynamicSection
        from elftools.elf.elffile import ELFFile

        with open(path, "rb") as fh:
            elf = ELFFile(fh)
            out: dict[str, list[str]] = {"needed": [], "rpath": [], "runpath": []}
            for sec in elf.iter_sections():
                if not isinstance(sec, DynamicSection):
                    continue
                for tag in sec.iter_tags():
                    if tag.entry.d_tag == "DT_NEEDED":
                        out["needed"].append(tag.needed)
                    elif tag.entry.d_tag == "DT_RPATH":
                        out["rpath"].extend(p for p in tag.rpath.split(":") if p)
                    elif tag.entry.d_tag == "DT_RUNPATH":
                        out["runpath"].extend(p for p in tag.runpath.split(":") if p)
            return out
    except Exception:
        return None


def elf_defines_cxx11_symbols(path: str, limit: int = 400_000) -> bool | None:
    """True when the ELF file *defines* a dynamic symbol containing ``__cxx11`` (built with
    ``_GLIBCXX_USE_CXX11_ABI=1``), False when it defines none, None when unreadable."""
    try:
        from elftools.elf.elffile import ELFFile
        from elftools.elf.sections import SymbolTableSection

        with open(path, "rb") as fh:
            elf = ELFFile(fh)
            sec = elf.get_section_by_name(".dynsym")
            if not isinstance(sec, SymbolTableSection):
                return None
            # scan the raw string table first: cheap, and a miss there settles it
            strtab = elf.get_section(sec["sh_link"])
            raw = strtab.data() if strtab is not None else b""
            if b"__cxx11" not in raw:
                return False
            for i, sym in enumerate(sec.iter_symbols()):
                if i > limit:
                    break
                if "__cxx11" in sym.name and sym["st_shndx"] != "SHN_UNDEF":
                    return True
            return False
    except Exception:
        return None


def expand_origin(entry: str, origin_dir: str) -> str:
    return os.path.normpath(entry.replace("$ORIGIN", origin_dir).replace("${ORIGIN}", origin_dir))


def _cuda_runtime_libs(lib_dir: str, site_roots: list[str]) -> tuple[list[dict[str, Any]], list[str] | None]:
    """Where libtorch_cuda.so's CUDA libraries come from: pip ``nvidia-*`` wheels through RPATH,
    torch's own lib dir ("bundled"), or the system loader ("system", path None)."""
    so = os.path.join(lib_dir, "libtorch_cuda.so")
    if not os.path.isfile(so):
        return [], None
    dyn = elf_dynamic(so)
    if dyn is None:
        return [], None
    dirs = [expand_origin(e, lib_dir) for e in dyn["rpath"] + dyn["runpath"]]
    out = []
    for lib in dyn["needed"]:
        if not lib.startswith(CUDA_LIB_PREFIXES):
            continue
        found = None
        for d in dirs:
            cand = os.path.join(d, lib)
            if os.path.exists(cand):
                found = cand
                break
        if found is None:
            out.append({"name": lib, "path": None, "origin": "system"})
            continue
        real = os.path.realpath(found)
        in_nvidia = any(os.path.realpath(real).startswith(os.path.join(os.path.realpath(r), "nvidia") + os.sep)
                        for r in site_roots)
        origin = "pip-wheel" if in_nvidia or f"{os.sep}nvidia{os.sep}" in real else (
            "bundled" if os.path.dirname(real) == os.path.realpath(lib_dir) else "system")
        out.append({"name": lib, "path": found, "origin": origin})
    return out, dirs


def _live_torch_facts() -> dict[str, Any]:
    """Facts from a torch that is already imported in this process (never imports it)."""
    torch = sys.modules.get("torch")
    out: dict[str, Any] = {}
    if torch is None:
        return out
    try:
        out["cxx11_abi"] = bool(torch._C._GLIBCXX_USE_CXX11_ABI)
    except Exception:
        pass
    try:
        cuda_mod = sys.modules.get("torch.cuda")
        if cuda_mod is not None and getattr(cuda_mod, "is_initialized", lambda: False)():
            out["cuda_available"] = bool(cuda_mod.is_available())
            out["arch_list"] = list(cuda_mod.get_arch_list())
    except Exception:
        pass
    return out


_IMPORT_CHECK = (
    "import json, torch\n"
    "d = {'cxx11_abi': bool(torch._C._GLIBCXX_USE_CXX11_ABI), 'cuda_available': bool(torch.cuda.is_available())}\n"
    "d['arch_list'] = list(torch.cuda.get_arch_list()) if d['cuda_available'] else None\n"
    "print(json.dumps(d))\n"
)


def _subprocess_torch_facts(ctx: ProbeContext, timeout: float | None = None) -> dict[str, Any]:
    timeout = max(ctx.timeout, 60.0) if timeout is None else timeout
    res = ctx.run([ctx.python, "-c", _IMPORT_CHECK], timeout=timeout)
    if res.no_answer:
        return {"import_error": f"import torch did not finish within {timeout:g} s" if res.timed_out else
                f"import torch did not answer usefully ({res.error})"}
    if not res.ok:
        tail = (res.stderr or res.error or "").strip().splitlines()
        return {"import_error": tail[-1][:300] if tail else f"exit status {res.returncode}"}
    try:
        d = json.loads(res.stdout.strip().splitlines()[-1])
        return {k: d.get(k) for k in ("cxx11_abi", "cuda_available", "arch_list")}
    except (ValueError, IndexError, AttributeError):
        return {"import_error": "could not read the import check's output"}


def nvidia_distributions(dirs: list[str]) -> dict[str, str]:
    """``{"nvidia-cuda-runtime": "13.0.96", ...}``: installed ``nvidia-*`` CUDA wheels, read from the
    ``.dist-info`` directory names (parsing every distribution's METADATA took ~1 s here).
    ``nvidia-ml-py`` (NVML bindings) is not a CUDA library and is left out."""
    out: dict[str, str] = {}
    for d in dirs:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for entry in names:
            m = re.match(r"^(nvidia[-_][A-Za-z0-9_.-]+?)-(\d[^-]*)\.dist-info$", entry, re.IGNORECASE)
            if not m:
                continue
            name = re.sub(r"[-_.]+", "-", m.group(1)).lower()
            if name != "nvidia-ml-py" and name not in out:
                out[name] = m.group(2)
    return out


def probe(ctx: ProbeContext, *, site_dirs: list[str] | None = None) -> dict[str, Any]:
    """Facts of the torch layer (schema in ``smrnb/doctor/FACTS.md``).

    Parameters
    ----------
    ctx : ProbeContext
    site_dirs : list of str, optional
        Where to look for distributions and packages (default ``sys.path``); tests point it at a
        fabricated site-packages.
    """
    dirs = site_dirs if site_dirs is not None else site_dirs_default()
    nvidia_wheels = nvidia_distributions(dirs)
    tdir = find_package_dir("torch", dirs)
    dist = find_distribution("torch", dirs)
    if tdir is None and dist is None:
        return {"status": "absent", "installed": False, "nvidia_wheels": nvidia_wheels}
    facts: dict[str, Any] = {"status": "ok", "installed": True, "location": tdir,
                             "lib_dir": os.path.join(tdir, "lib") if tdir else None,
                             "imported": "torch" in sys.modules if site_dirs is None else False,
                             "nvidia_wheels": nvidia_wheels}
    vp: dict[str, Any] = {}
    if tdir:
        try:
            with open(os.path.join(tdir, "version.py"), encoding="utf-8", errors="replace") as fh:
                vp = parse_version_py(fh.read(200_000))
        except OSError:
            vp = {}
    version = vp.get("__version__") if isinstance(vp.get("__version__"), str) else None
    if version is None and dist is not None:
        version = dist.version
    facts["version"] = version
    facts["version_base"] = re.split(r"[+]", version)[0] if version else None
    cuda = vp.get("cuda")
    facts["cuda"] = cuda if isinstance(cuda, str) and re.fullmatch(r"\d+\.\d+(\.\d+)?", cuda) else None
    facts["hip"] = vp.get("hip") if isinstance(vp.get("hip"), str) else None
    facts["git_version"] = vp.get("git_version") if isinstance(vp.get("git_version"), str) else None
    facts["cxx11_abi"] = None
    facts["arch_list"] = None
    facts["cuda_available"] = None
    facts["cxx11_abi_from"] = None
    facts["cuda_runtime_libs"] = []
    lib_dir = facts["lib_dir"]
    if lib_dir and os.path.isdir(lib_dir):
        libs, rpath_dirs = _cuda_runtime_libs(lib_dir, dirs)
        facts["cuda_runtime_libs"] = libs
        facts["libtorch_cuda_rpath"] = rpath_dirs
        facts["has_libtorch_cuda"] = os.path.isfile(os.path.join(lib_dir, "libtorch_cuda.so"))
    live = _live_torch_facts() if facts["imported"] else {}
    if not live and ctx.import_check and not ctx.imports_deferred:
        live = _subprocess_torch_facts(ctx)
        facts["import_check"] = True
    merge_live_facts(facts, live)
    return facts


def merge_live_facts(facts: dict[str, Any], live: dict[str, Any]) -> None:
    """Put the answers of a live torch (this process, or an import check) into the torch facts."""
    if live.get("cxx11_abi") is not None:
        facts["cxx11_abi"], facts["cxx11_abi_from"] = live["cxx11_abi"], "torch._C"
    elif facts.get("lib_dir") and facts.get("cxx11_abi") is None:
        lib_dir = facts["lib_dir"]
        c10 = sorted(glob.glob(os.path.join(lib_dir, "libc10.so*")))
        if c10:
            facts["cxx11_abi"] = elf_defines_cxx11_symbols(c10[0])
            facts["cxx11_abi_from"] = "libc10.so dynamic symbols" if facts["cxx11_abi"] is not None else None
    for k in ("arch_list", "cuda_available", "import_error"):
        if k in live:
            facts[k] = live[k]
