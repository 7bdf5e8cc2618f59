# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the ABI layer: torch symbols an extension needs that torch does not define (C++ ABI flag
or torch version), GPU code that cannot run on the GPU, and the all-clear per extension
(facts: ``facts["abi"]`` and ``facts["loader"]``, FACTS.md)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from smrnb.doctor._codes import meanings, why
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor._owner import reinstall_command
from smrnb.doctor.rules import rule

CODES = meanings("rules.abi")  # this module's codes, from the one table (codes.py)


def _name(path: Any) -> str:
    return os.path.basename(str(path))


def _is_kaolin(path: str, facts: Mapping[str, Any]) -> bool:
    kf = facts.get("kaolin") or {}
    if path in (kf.get("extension_paths") or []):
        return True
    return any(e.get("path") == path and e.get("source") == "kaolin"
               for e in (facts.get("loader") or {}).get("extensions") or [])


def _reinstall_commands(path: str, facts: Mapping[str, Any]) -> tuple[str, ...]:
    torch_version = (facts.get("torch") or {}).get("version")
    if _is_kaolin(path, facts):
        cmd = (facts.get("kaolin") or {}).get("install_command")
        cmds = ["pip uninstall -y kaolin"]
        cmds += [cmd] if isinstance(cmd, str) and cmd else [
            "pip install kaolin -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-<torch>_cu<cuda>.html"]
        return tuple(cmds)
    return ("python -c \"import torch; print(torch.__version__)\"   # the torch to build against: "
            f"{torch_version}",
            "rm -rf build/   # stale objects compiled for the old torch",
            "pip install --no-build-isolation --no-cache-dir --force-reinstall <package-owning-"
            f"{_name(path)}>")


@rule("abi")
def unresolved_torch_symbols(facts: Mapping[str, Any]) -> Iterator[Finding]:
    af = facts.get("abi") or {}
    if af.get("status") != "ok":
        return
    for ext in af.get("extensions") or []:
        unresolved = ext.get("unresolved") or []
        if ext.get("status") != "ok" or not unresolved:
            continue
        path = str(ext.get("path"))
        abi_syms = [u for u in unresolved if u.get("diagnosis") == "cxx11_abi_mismatch"]
        ver_syms = [u for u in unresolved if u.get("diagnosis") != "cxx11_abi_mismatch"]
        total = ext.get("unresolved_count", len(unresolved))
        checked = ", ".join(ext.get("checked_in") or []) or "(no torch libraries found)"
        torch_abi = ext.get("torch_cxx11_abi")
        torch_flag = {True: "1 (std::__cxx11)", False: "0 (old std::string)"}.get(torch_abi, "unknown")
        if abi_syms:
            ext_flag = "0 (old `Ss` std::string)" if ext.get("uses_old_abi") and not ext.get("uses_cxx11_abi") else \
                "1 (std::__cxx11)" if ext.get("uses_cxx11_abi") and not ext.get("uses_old_abi") else "mixed/unknown"
            ev = [f"{path}: {total} torch symbol(s) not defined in {checked}",
                  f"extension built with _GLIBCXX_USE_CXX11_ABI={ext_flag}; torch uses {torch_flag}"]
            for u in abi_syms[:3]:
                other = " (the other-ABI spelling IS defined by torch)" if u.get("other_abi_defined") else ""
                ev.append(f"undefined symbol: {u.get('mangled')} = {u.get('demangled')}{other}")
            yield Finding(
                "cxx11_abi_mismatch", "abi", "error",
                f"{_name(path)} will fail to import: built with the other C++ string ABI than torch",
                tuple(ev),
                Fix(why("cxx11_abi_mismatch", "torch.utils.cpp_extension passes torch's own flag; a hand-set "
                        "-D_GLIBCXX_USE_CXX11_ABI=0 (setup.py, CFLAGS, CMake) or a build made for another torch "
                        "distribution (pip vs conda) causes this."),
                    ("python -c \"import torch; print(torch._C._GLIBCXX_USE_CXX11_ABI)\"",
                     "grep -rn _GLIBCXX_USE_CXX11_ABI setup.py CMakeLists.txt   # remove a hard-coded flag",
                     *_reinstall_commands(path, facts))))
        if ver_syms:
            ev = [f"{path}: {total} torch symbol(s) not defined in {checked} (in either string ABI)",
                  f"installed torch: {(facts.get('torch') or {}).get('version')}"]
            for u in ver_syms[:3]:
                ev.append(f"undefined symbol: {u.get('mangled')} = {u.get('demangled')}")
            yield Finding(
                "abi_torch_version_mismatch", "abi", "error",
                f"{_name(path)} will fail to import: built against another torch version",
                tuple(ev),
                Fix(why("abi_torch_version_mismatch", "torch's C++ ABI changes between releases: after upgrading "
                        "torch, always rebuild extensions."), _reinstall_commands(path, facts)))


def _gpu_code_text(ext: Mapping[str, Any]) -> str:
    archs = ", ".join(ext.get("embedded_archs") or []) or "no cubins"
    ptx = ", ".join(ext.get("embedded_ptx") or []) or "no PTX"
    return f"{archs}; {ptx}"


@rule("abi")
def gpu_code(facts: Mapping[str, Any]) -> Iterator[Finding]:
    af = facts.get("abi") or {}
    if af.get("status") != "ok":
        return
    for ext in af.get("extensions") or []:
        if ext.get("status") != "ok" or not ext.get("has_gpu_code"):
            continue
        bad = [g for g in ext.get("gpu_images") or [] if g.get("ok") is False]
        if not bad:
            continue
        path = str(ext.get("path"))
        caps = sorted({str(g.get("compute_capability")) for g in bad})
        ev = [f"{path} embeds {_gpu_code_text(ext)} (.nv_fatbin)"]
        ev += [f"GPU {g.get('index')} {g.get('name')}: compute capability {g.get('compute_capability')}: no cubin "
               "of its architecture, no PTX at or below it" for g in bad]
        if _is_kaolin(path, facts):
            ev.append("kaolin then prints 'CUDA Error: no kernel image is available for execution on the device' "
                      "and returns EMPTY tensors without raising (observed on an H200 with an sm_80-only build)")
        arch_list = ";".join(caps)
        cmds = [f"export TORCH_CUDA_ARCH_LIST=\"{arch_list}\"   # this machine's GPU(s); add +PTX for newer GPUs",
                "rm -rf build/   # objects compiled for the old architectures"]
        if _is_kaolin(path, facts):
            cmds += ["pip uninstall -y kaolin",
                     "cd kaolin-src && IGNORE_TORCH_VER=1 pip install --no-build-isolation --no-cache-dir .   "
                     "# from a kaolin source checkout"]
        else:
            cmds.append(reinstall_command(path))
        yield Finding(
            "no_kernel_image_for_gpu", "abi", "error",
            f"{_name(path)} has no GPU code for compute capability {', '.join(caps)}",
            tuple(ev),
            Fix(why("no_kernel_image_for_gpu", "A cubin runs only on GPUs of its major architecture (sm_80 does "
                    "not run on 9.0) and PTX is JIT-compiled only for GPUs at or above its version."), tuple(cmds)))


@rule("abi")
def extensions_ok(facts: Mapping[str, Any]) -> Iterator[Finding]:
    af = facts.get("abi") or {}
    lf = facts.get("loader") or {}
    loader_by_path = {e.get("path"): e for e in lf.get("extensions") or [] if isinstance(e, dict)}
    for ext in af.get("extensions") or []:
        path = ext.get("path")
        le = loader_by_path.get(path)
        if ext.get("status") != "ok" or le is None or le.get("status") != "ok":
            continue
        if le.get("missing") or le.get("version_missing") or ext.get("unresolved_count") or ext.get("unresolved"):
            continue
        if any(g.get("ok") is False for g in ext.get("gpu_images") or []):
            continue
        if not ext.get("symbols_read", True):
            continue
        resolved = le.get("resolved") or {}
        via_torch = [lib for lib, r in resolved.items() if r.get("loaded_by") == "import torch"]
        ev = [f"{len(resolved)} NEEDED libraries resolve: " + ", ".join(
            f"{lib} ({r.get('via')})" for lib, r in list(resolved.items())[:8])]
        if via_torch:
            ev.append(f"{', '.join(via_torch)} resolve only because `import torch` maps them first (no RPATH; "
                      "plain `ldd` prints 'not found' for them, which is expected)")
        n = ext.get("torch_undefined", 0)
        if n:
            defined_in = {k: v for k, v in (ext.get("defined_in") or {}).items() if v}
            ev.append(f"{n} torch symbols all defined (" + ", ".join(f"{k}: {v}" for k, v in defined_in.items()) + ")")
        if ext.get("has_gpu_code"):
            imgs = ext.get("gpu_images") or []
            ev.append(f"GPU code: {_gpu_code_text(ext)}" + ("; " + "; ".join(
                f"GPU {g.get('index')} ({g.get('compute_capability')}) runs {g.get('via')}" for g in imgs) if imgs
                else "; no GPU to check against"))
        yield Finding("extension_ok", "abi", "ok", f"{_name(path)} loads: libraries, torch symbols and GPU code check out",
                      tuple(ev))
