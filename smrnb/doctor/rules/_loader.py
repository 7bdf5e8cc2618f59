# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the runtime-loader layer: libraries ld.so will not find, libstdc++ too old, and an
environment changed after the process started (facts: ``facts["loader"]``, FACTS.md)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from smrnb.doctor._codes import meanings, why
from smrnb.doctor._ldso import change_effect
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor._owner import owning_distribution, reinstall_command
from smrnb.doctor.rules import rule

CODES = meanings("rules.loader")  # this module's codes, from the one table (codes.py)

#: CUDA toolkit libraries whose soname carries the CUDA major version (cudnn / nccl version separately)
_CUDA_LIB = re.compile(r"^lib(cudart|cublas|cublasLt|cufft|cufftw|curand|cusparse|cusolver|nvrtc|nvJitLink|"
                       r"cupti|npp\w*|nvjpeg)\.so\.(\d+)")
_TORCH_LIB = re.compile(r"^lib(c10|torch)\w*\.so")


def _torch_cuda_major(facts: Mapping[str, Any]) -> int | None:
    cuda = (facts.get("torch") or {}).get("cuda")
    m = re.match(r"(\d+)", cuda) if isinstance(cuda, str) else None
    return int(m.group(1)) if m else None


def _runtime_wheel(major: int) -> str:
    return f"nvidia-cuda-runtime-cu{major}" if major <= 12 else f"'nvidia-cuda-runtime=={major}.*'"


def runtime_wheel_command(major: int) -> str:
    """``pip install`` of the CUDA runtime of major ``major`` as a pip wheel, or a comment where none exists
    (the runtime wheels start with CUDA 11: there is no ``nvidia-cuda-runtime-cu10``)."""
    if major < 11:
        return f"# no pip wheel carries the CUDA {major} runtime: install a CUDA {major} toolkit, or a build of the package for this CUDA"
    return f"pip install {_runtime_wheel(major)}"


#: what fixes a variable set after the process started (the live rule and explain print the same)
ENV_FIX_COMMANDS = ("smr-doctor fix kernelspec --dry-run   # shows the kernel.json it would write",
                    "smr-doctor fix kernelspec", "# then: Kernel > Change kernel > the new kernel, and restart it")


def _reinstall_for_torch(path: str, torch_version: Any) -> tuple[str, ...]:
    """Replace the package owning ``path`` by the build made for the torch installed now (its wheel index),
    or rebuild it against this torch."""
    name = owning_distribution(path)
    cmds = (f"pip uninstall -y {name}", f"pip install --no-cache-dir {name}   # from the wheel index built for "
            f"torch {torch_version}") if name else ()
    return (*cmds, "# or rebuild against this torch: " + reinstall_command(path))


def _name(ext: Mapping[str, Any]) -> str:
    return os.path.basename(str(ext.get("path", "?")))


def _lib_evidence(ext: Mapping[str, Any], lib: str, start_llp: str | None) -> list[str]:
    r = (ext.get("resolved") or {}).get(lib) or {}
    ev = [f"{ext.get('path')} needs {lib} (DT_NEEDED)",
          f"RPATH {ext.get('rpath') or '(none)'}, RUNPATH {ext.get('runpath') or '(none)'}",
          f"LD_LIBRARY_PATH at process start: {start_llp if start_llp else '(unset)'}"]
    searched = r.get("searched") or []
    if searched:
        ev.append("ld.so would search: " + ", ".join(searched[:12]) + (" ..." if len(searched) > 12 else ""))
    elsewhere = r.get("found_elsewhere") or []
    ev.append(f"{lib} exists in: " + ", ".join(elsewhere) if elsewhere else f"{lib} is nowhere on this machine's usual "
              "library directories (LD_LIBRARY_PATH now, site-packages/nvidia/*/lib, torch/lib, /usr/local/cuda*, conda)")
    return ev


@rule("loader")
def missing_libraries(facts: Mapping[str, Any]) -> Iterator[Finding]:
    lf = facts.get("loader") or {}
    if lf.get("status") != "ok":
        return
    start_llp = lf.get("start_ld_library_path")
    via_new = {(d.get("extension"), d.get("library")) for d in lf.get("only_findable_via_new_dirs") or []}
    torch_major = _torch_cuda_major(facts)
    torch_version = (facts.get("torch") or {}).get("version")
    for ext in lf.get("extensions") or []:
        if ext.get("status") != "ok":
            yield Finding("extension_unreadable", "loader", "warning",
                          f"{_name(ext)}: cannot be read as a shared library ({ext.get('reason', 'unreadable')})",
                          (f"path: {ext.get('path')}",),
                          Fix("Check the path: the doctor reads the ELF file named, it does not import it.",
                              (f"ls -l {ext.get('path')}", f"file {ext.get('path')}")))
            continue
        for lib in ext.get("missing") or []:
            if (ext.get("path"), lib) in via_new:
                continue  # reported by env_changed below, with the right fix
            ev = _lib_evidence(ext, lib, start_llp)
            elsewhere = ((ext.get("resolved") or {}).get(lib) or {}).get("found_elsewhere") or []
            m = _CUDA_LIB.match(lib)
            if m and torch_major is not None and int(m.group(2)) != torch_major:
                yield Finding(
                    "prebuilt_binary_wrong_cuda", "loader", "error",
                    f"{_name(ext)} was built for CUDA {m.group(2)}, torch here uses CUDA {torch_major}",
                    (*ev, f"torch {torch_version}: torch.version.cuda = {(facts.get('torch') or {}).get('cuda')}"),
                    Fix(why("prebuilt_binary_wrong_cuda", f"{lib} belongs to CUDA {m.group(2)}."),
                        ("python -c \"import torch; print(torch.__version__, torch.version.cuda)\"",
                         *_reinstall_for_torch(str(ext.get("path")), torch_version))))
                continue
            if m:
                fix_cmds = []
                if elsewhere:
                    fix_cmds += ["smr-doctor fix kernelspec   # a kernel whose env puts "
                                 f"{elsewhere[0]} on LD_LIBRARY_PATH at start",
                                 f"export LD_LIBRARY_PATH={elsewhere[0]}:$LD_LIBRARY_PATH   # in the shell that "
                                 "starts jupyter / python, before it starts"]
                fix_cmds += ["python -c \"import torch\"   # torch's own CUDA wheels: import torch before the "
                             "extension so its RPATH-loaded runtime is already mapped",
                             runtime_wheel_command(int(m.group(2))) + "   # the runtime as a pip wheel"]
                yield Finding(
                    "cudart_not_found", "loader", "error",
                    f"{_name(ext)}: {lib} not found by the loader", tuple(ev),
                    Fix(why("cudart_not_found", f"{lib} is not on the RPATH, the start-time LD_LIBRARY_PATH, the "
                            "ld.so cache or the default directories."),
                        tuple(fix_cmds)))
                continue
            fix_cmds = []
            if _TORCH_LIB.match(lib):
                fix_cmds.append("python -c \"import torch; import <extension module>\"   # torch's libraries are "
                                "found only once torch is imported")
                if not (facts.get("torch") or {}).get("installed"):
                    fix_cmds.append("pip install torch   # the version the extension was built for")
                yield Finding("torch_libs_not_loaded", "loader", "error",
                              f"{_name(ext)}: {lib} not found: import torch first", tuple(ev),
                              Fix(why("torch_libs_not_loaded"), tuple(fix_cmds)))
                continue
            if elsewhere:
                fix_cmds += ["smr-doctor fix kernelspec   # kernel env with LD_LIBRARY_PATH including "
                             f"{elsewhere[0]}", f"export LD_LIBRARY_PATH={elsewhere[0]}:$LD_LIBRARY_PATH   "
                             "# before starting python / jupyter"]
            else:
                fix_cmds.append(f"apt-file search {lib}   # or: conda search / pip search the package that ships it")
            yield Finding("library_not_found", "loader", "error", f"{_name(ext)}: {lib} not found by the loader",
                          tuple(ev),
                          Fix(why("library_not_found", f"ld.so will fail with '{lib}: cannot open shared object file'."),
                              tuple(fix_cmds)))


def _gcc_hint(version: str | None) -> str:
    return f"GLIBCXX_{version}" if version else "the needed GLIBCXX version"


@rule("loader")
def symbol_versions(facts: Mapping[str, Any]) -> Iterator[Finding]:
    lf = facts.get("loader") or {}
    if lf.get("status") != "ok":
        return
    mapped = lf.get("mapped_libraries") or {}
    for ext in lf.get("extensions") or []:
        if ext.get("status") != "ok":
            continue
        for lib, versions in (ext.get("version_missing") or {}).items():
            path = ((ext.get("resolved") or {}).get(lib) or {}).get("path")
            if lib == "libstdc++.so.6":
                loaded = "already mapped in this process" if mapped.get(lib) == path else "that ld.so would load"
                yield Finding(
                    "libstdcxx_too_old", "loader", "error",
                    f"{_name(ext)} needs GLIBCXX_{ext.get('glibcxx_needed')}, the libstdc++ {loaded} has only up to "
                    f"GLIBCXX_{ext.get('glibcxx_loaded')}",
                    (f"{ext.get('path')} requires {', '.join(versions)} from libstdc++.so.6 (.gnu.version_r)",
                     f"libstdc++ {loaded}: {path} (newest GLIBCXX_{ext.get('glibcxx_loaded')})"),
                    Fix(why("libstdcxx_too_old", f"Needed: {_gcc_hint(ext.get('glibcxx_needed'))}."),
                        (f"strings {path} | grep -c GLIBCXX_{ext.get('glibcxx_needed')}   # 0 here",
                         "conda install -c conda-forge 'libstdcxx-ng>=12'   # conda envs: newer libstdc++",
                         "ls /usr/lib/x86_64-linux-gnu/libstdc++.so.6*   # the system one, if newer: put its "
                         "directory first on LD_LIBRARY_PATH at start (smr-doctor fix kernelspec)")))
            else:
                yield Finding(
                    "symbol_version_missing", "loader", "error",
                    f"{_name(ext)} needs {', '.join(versions)} from {lib}, which {path} does not define",
                    (f"{ext.get('path')} requires {', '.join(versions)} from {lib}", f"{lib} resolves to {path}"),
                    Fix(why("symbol_version_missing", f"Here {lib} is the older one."),
                        ("ldd --version   # this system's glibc",
                         reinstall_command(str(ext.get("path"))))))


@rule("loader")
def env_changed(facts: Mapping[str, Any]) -> Iterator[Finding]:
    lf = facts.get("loader") or {}
    if lf.get("status") != "ok":
        return
    changed = lf.get("changed_since_start") or {}
    only_new = lf.get("only_findable_via_new_dirs") or []
    if not changed and not only_new:
        return
    ev = []
    for var, ch in changed.items():
        ev.append(f"{var}: at start {ch.get('start')!r}, now {ch.get('now')!r}")
    for d in only_new:
        ev.append(f"{os.path.basename(str(d.get('extension')))} needs {d.get('library')}: only in {d.get('dir')}, "
                  "which is on LD_LIBRARY_PATH now but was not when the process started")
    ev += [f"{var}: {change_effect(var)}" for var in changed]
    severity = "error" if only_new else "warning" if "LD_LIBRARY_PATH" in changed else "info"
    title = ("Libraries an extension needs are reachable only through LD_LIBRARY_PATH set after start: the loader "
             "will not see them" if only_new else
             "LD_LIBRARY_PATH changed after the process started: this process's loader does not see it"
             if "LD_LIBRARY_PATH" in changed else
             f"{', '.join(changed)} changed after the process started: child processes and builds see the new "
             "value, a restarted kernel will not")
    yield Finding(
        "env_not_propagated_to_kernel", "loader", severity, title, tuple(ev),
        Fix(why("env_not_propagated_to_kernel", "Assigning os.environ (or %env) later changes only child processes."
                if "LD_LIBRARY_PATH" in changed or only_new else
                "Values set inside a running kernel are also lost when it restarts."), ENV_FIX_COMMANDS))
