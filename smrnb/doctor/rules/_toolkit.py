# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the toolkit layer: what building a CUDA extension (kaolin) would run into."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._codes import CODES as CODES_TABLE
from smrnb.doctor._codes import meanings
from smrnb.doctor._codes import why as fix_wording
from smrnb.doctor._install import (
    cc_to_int,
    conda_nvcc_command,
    int_to_cc,
    matching_nvcc,
    nvcc_supported_ccs,
    toolkit_dir_for,
)
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor.rules import Facts, rule
from smrnb.doctor.rules._abi import (
    CUPY_FIX,
    PYTHON_OPTIONAL_C_MODULES,
    cupy_wheel_commands,
    torch_header_of_torch,
)
from smrnb.doctor.rules._context import env_fix_commands, layer
from smrnb.doctor.rules._events import (
    GIT_SUBMODULE_OVER_HTTPS,
    _peek,
    builds,
    cupy_fails,
    events,
    finding,
    first_clause,
    from_text,
    has_sign,
    resolve,
    value,
)

CODES = meanings("rules.toolkit")  # this module's codes, from the one table (codes.py)

#: (blind audit 36) the shortest --timeout under which a tool's silence says something about the tool (a process start
#: and a --version answer take tens of milliseconds on an idle machine, more on a busy shared node)
SHORTEST_FAIR_TIMEOUT = 0.5

# torch.utils.cpp_extension named_arches (torch 2.13)
NAMED_ARCHES = {
    "kepler+tesla": "3.7", "kepler": "3.5+PTX", "maxwell+tegra": "5.3", "maxwell": "5.0;5.2+PTX",
    "pascal": "6.0;6.1+PTX", "volta+tegra": "7.2", "volta": "7.0+PTX", "turing": "7.5+PTX",
    "ampere+tegra": "8.7", "ampere": "8.0;8.6+PTX", "ada": "8.9+PTX", "hopper": "9.0+PTX",
    "blackwell+tegra": "11.0", "blackwell": "10.0;10.3;12.0;12.1+PTX",
}


def parse_arch_list(text: str) -> list[str]:
    """``TORCH_CUDA_ARCH_LIST`` -> ``["8.6", "9.0"]`` (``+PTX`` and ``a``/``f`` suffixes dropped,
    names expanded the way torch does); unparsable entries are returned verbatim."""
    out: list[str] = []
    for item in re.split(r"[;\s]+", text.strip()):
        if not item:
            continue
        expanded = NAMED_ARCHES.get(item.lower())
        for sub in (expanded.split(";") if expanded else [item]):
            m = re.match(r"^(\d+\.\d+)[af]?(\+PTX)?$", sub, re.IGNORECASE)
            val = m.group(1) if m else sub
            if val not in out:
                out.append(val)
    return out


def _gpu_ccs(facts: Facts) -> list[tuple[str, str]]:
    return [(g.get("name") or "GPU", g["compute_capability"]) for g in layer(facts, "driver").get("gpus") or []
            if g.get("compute_capability")]


def _set_cuda_home_fix(facts: Facts, why: str, target: str | None, cuda: str | None) -> Fix:
    cmds: list[str] = []
    if target:
        cmds += env_fix_commands(facts, {"CUDA_HOME": target}, module=f"cuda/{cuda}" if cuda else None)
    elif cuda:
        cmds.append(conda_nvcc_command(cuda))
        cmds.append('export CUDA_HOME="$CONDA_PREFIX"')
    return Fix(why, tuple(cmds))


def _complete_toolkit(nvccs: list[dict[str, Any]]) -> str | None:
    """(blind audit 36) The folder of the newest toolkit found whose include/ holds cuda_runtime.h (a whole toolkit,
    not a wrapper script's folder), or None."""
    whole = [n for n in nvccs if n.get("has_headers") and n.get("toolkit_dir")]
    if not whole:
        return None
    return str(max(whole, key=lambda n: tables.version_key(str(n.get("version") or "0")))["toolkit_dir"])


def _did_not_answer(tk: Mapping[str, Any], hung: Mapping[str, str]) -> Iterable[Finding]:
    """The build tools that did not answer: a warning, or (blind audit 36, C-M2) a note where the --timeout given was
    shorter than a program takes to start."""
    given = tk.get("command_timeout_s")
    if hung and isinstance(given, (int, float)) and given < SHORTEST_FAIR_TIMEOUT:
        # (blind audit 36, C-M2) a --timeout shorter than any program takes to start: the silence is the option's
        yield Finding("tool_did_not_answer", "toolkit", "info",
                      f"{len(hung)} build tool(s) were not given time to answer: the --timeout given ({given:g} s) is "
                      "shorter than a program takes to start",
                      tuple(hung.values()),
                      Fix("Nothing is known about these tools: they were stopped before they could start. Run the "
                          "doctor again with the default --timeout (5 s) or longer.",
                          ("smr-doctor --timeout 5",)))
    elif hung:
        yield Finding("tool_did_not_answer", "toolkit", "warning",
                      f"{len(hung)} build tool(s) did not answer: {', '.join(os.path.basename(k) for k in hung)}",
                      tuple(hung.values()),
                      Fix("These tools exist but hung (or printed without end) and were stopped; what they would "
                          "report is unknown. Run them by hand to see why (a network file system, a licence or "
                          "module system waiting, a wrapper script).",
                          tuple(f"timeout 20 {k if k.startswith('/') else k} --version" for k in hung)))


@rule("toolkit")
def toolkit_findings(facts: Facts) -> Iterable[Finding]:
    tk = facts.get("toolkit") or {}
    if tk.get("status") != "ok":
        return
    torch = layer(facts, "torch")
    tcuda = torch.get("cuda")
    nvccs: list[dict[str, Any]] = tk.get("nvccs") or []
    match = matching_nvcc(tk, tcuda) if tcuda else None
    exact = match if match and match.get("version") == tcuda else None
    target = toolkit_dir_for(exact) if exact else None
    # (blind audit 36, C-M6) beside a CPU-only torch (no CUDA to match), a complete toolkit the doctor found
    whole = target or (None if tcuda else _complete_toolkit(nvccs))

    if tk.get("cuda_home_malformed"):
        var = tk.get("cuda_home_malformed_var") or ("CUDA_HOME" if tk.get("cuda_home_env") else "CUDA_PATH")
        raw = tk.get("cuda_home_malformed_value") or (tk.get("cuda_home_env") if var == "CUDA_HOME" else
                                                      tk.get("cuda_path_env"))
        why = tk.get("cuda_home_malformed_why") or "is malformed"
        yield Finding("cuda_home_malformed", "toolkit", "error" if tcuda else "warning", f"{var} {why.split(' (')[0]}",
                      (f"{var}={raw!r}: {why}",
                       f"torch.utils.cpp_extension would look for {raw}/bin/nvcc",
                       f"torch: {torch.get('version')} ({'CUDA ' + tcuda if tcuda else 'CPU build'})"
                       if torch.get("installed") else "torch: not installed"),
                      _set_cuda_home_fix(facts, fix_wording("cuda_home_malformed"), whole, tcuda))

    build_nvcc, build_ver = tk.get("build_nvcc"), tk.get("build_nvcc_version")
    if tcuda and not tk.get("cuda_home_malformed") and "build_nvcc" in tk and build_nvcc is None:
        ev = [f"torch.utils.cpp_extension would use CUDA_HOME={tk.get('build_cuda_home')} (no bin/nvcc there)",
              f"nvcc found: {', '.join(n['path'] + ' (' + str(n.get('version')) + ')' for n in nvccs) or 'none'}"]
        yield Finding("cuda_home_missing", "toolkit", "warning", "No CUDA toolkit for building extensions",
                      tuple(ev),
                      _set_cuda_home_fix(facts, fix_wording("cuda_home_missing", f"Here: nvcc {tcuda}."), target, tcuda))
    elif not tcuda and not tk.get("cuda_home_malformed") and "build_nvcc" in tk and build_nvcc is None and (
            tk.get("cuda_home_env") or tk.get("cuda_path_env")):
        # (blind audit 30, L12) a CUDA_HOME set by hand that holds no bin/nvcc, beside a CPU-only torch: nothing
        # installed fails by it yet (a note, as cuda_home_incomplete's), but a CUDA build would
        var = "CUDA_HOME" if tk.get("cuda_home_env") else "CUDA_PATH"
        yield Finding("cuda_home_missing", "toolkit", "info",
                      f"{var}={tk.get('build_cuda_home') or tk.get('cuda_home_env') or tk.get('cuda_path_env')} holds no "
                      "bin/nvcc: no CUDA extension can be built",
                      (f"torch.utils.cpp_extension would use {var}={tk.get('build_cuda_home')} (no bin/nvcc there)",
                       f"nvcc found: {', '.join(n['path'] + ' (' + str(n.get('version')) + ')' for n in nvccs) or 'none'}",
                       f"torch: {torch.get('version')} (CPU build)" if torch.get("installed") else "torch: not installed"),
                      _set_cuda_home_fix(facts, fix_wording("cuda_home_missing"), whole, tcuda))
    elif build_nvcc and tk.get("build_cuda_home") and tk.get("build_cuda_home_has_headers") is False and not (
            tk.get("cuda_home_malformed") or tk.get("build_cuda_home_exists") is False):
        # (round 33) not where CUDA_HOME is no directory at all (found on the lent H100: a build's text naming
        # CUDA_HOME's bin/nvcc, "not found", merged with this machine's CUDA_HOME that does not exist, read as
        # "has nvcc but no CUDA headers" beside "does not exist")
        yield Finding("cuda_home_incomplete", "toolkit", "warning" if tcuda else "info",
                      f"CUDA_HOME={tk['build_cuda_home']} has nvcc but no CUDA headers",
                      (f"torch would use CUDA_HOME={tk['build_cuda_home']} (derived from {build_nvcc})",
                       f"{tk['build_cuda_home']}/include/cuda_runtime.h does not exist"),
                      _set_cuda_home_fix(facts, fix_wording("cuda_home_incomplete", "cpp_extension derives CUDA_HOME as the "
                                                "directory above the nvcc on PATH: a wrapper script like "
                                                "/usr/local/bin/nvcc gives /usr/local."),
                                         target or (toolkit_dir_for(match) if match else None) or whole, tcuda))

    versions = sorted({n["version"] for n in nvccs if n.get("version")}, key=tables.version_key)
    if len(versions) > 1:
        yield Finding("multiple_cuda_toolkits", "toolkit", "warning",
                      f"{len(versions)} CUDA toolkit versions reachable: {', '.join(versions)}",
                      (*(f"{n['path']} -> {n['realpath']}: {n.get('version')} (via {', '.join(n['found_via'])})"
                         for n in nvccs), f"a build would use: {build_nvcc or 'none'} ({build_ver})"),
                      _set_cuda_home_fix(facts, fix_wording("multiple_cuda_toolkits", "Classic culprits: conda cudatoolkit-dev, "
                                                "an old /usr/local/cuda on PATH."), target, tcuda))

    if tcuda and build_ver:
        tv, bv = tables.parse_version(tcuda) or (), tables.parse_version(build_ver) or ()
        if tv[:1] != bv[:1] or tv[:2] != bv[:2]:
            major = tv[:1] != bv[:1]
            yield Finding("nvcc_torch_cuda_mismatch", "toolkit", "error" if major else "warning",
                          f"nvcc {build_ver} vs torch's CUDA {tcuda}",
                          (f"build nvcc: {build_nvcc} ({build_ver})", f"torch {torch.get('version')}: CUDA {tcuda}",
                           "torch raises 'The detected CUDA version (...) mismatches the version that was used to "
                           "compile PyTorch'" if major else "torch warns about the minor mismatch; builds usually work"),
                          _set_cuda_home_fix(facts, fix_wording("nvcc_torch_cuda_mismatch", f"Here: an nvcc {tcuda}."),
                                             target, tcuda))
        elif build_ver:
            yield Finding("toolkit_ok", "toolkit", "ok", f"Build nvcc {build_ver} matches torch's CUDA {tcuda}",
                          (f"build nvcc: {build_nvcc}",))

    build_entry = next((n for n in nvccs if build_nvcc and build_nvcc in n.get("paths", [])), None)
    if from_text(facts, "toolkit"):
        yield from _text_compilers(facts)
    if build_entry and build_ver:
        gcc = tk.get("gcc") or {}
        max_gcc = tk.get("max_gcc_for_build_nvcc")
        if gcc.get("major") and max_gcc and gcc["major"] > max_gcc:
            yield Finding("host_compiler_unsupported", "toolkit", "error",
                          f"gcc {gcc.get('version')} is too new for nvcc {build_ver} (max {max_gcc})",
                          (f"{gcc.get('path')}: {gcc.get('version')}", f"nvcc {build_ver} accepts gcc <= {max_gcc}"),
                          Fix(fix_wording("host_compiler_unsupported"),
                              (f"sudo apt-get install gcc-{max_gcc} g++-{max_gcc}  # or: conda install -c conda-forge "
                               f"gxx_linux-64={max_gcc}",
                               f"export CC=gcc-{max_gcc} CXX=g++-{max_gcc} CUDAHOSTCXX=g++-{max_gcc}")))
        supported = nvcc_supported_ccs(build_entry)
        if supported:
            for name, cc in _gpu_ccs(facts):
                n = cc_to_int(cc)
                if n is not None and n not in supported:
                    newer = n > max(supported)
                    yield Finding("unsupported_gpu_arch", "toolkit", "error",
                                  f"nvcc {build_ver} cannot compile for {name} (compute {cc})",
                                  (f"nvcc {build_ver} supports: {', '.join(int_to_cc(s) for s in sorted(supported))}",),
                                  Fix(fix_wording("unsupported_gpu_arch", "This GPU is newer than the toolkit: install a newer "
                                          "CUDA toolkit (and matching torch)." if newer else
                                          "This GPU is older than the toolkit supports (CUDA 13 dropped < 7.5): "
                                          "use a CUDA 12.x toolkit and a cu126-or-older torch."),
                                      (f"nvcc 'Unsupported gpu architecture compute_{n}'",)))
            env_list = tk.get("torch_cuda_arch_list_env")
            if env_list:
                for arch in parse_arch_list(env_list):
                    n = cc_to_int(arch)
                    if n is None or n not in supported:
                        yield Finding("unsupported_gpu_arch", "toolkit", "error",
                                      f"TORCH_CUDA_ARCH_LIST names {arch}, which nvcc {build_ver} cannot compile",
                                      (f"TORCH_CUDA_ARCH_LIST={env_list}",
                                       f"nvcc {build_ver} supports: {', '.join(int_to_cc(s) for s in sorted(supported))}"),
                                      _arch_list_fix(facts, supported, fix_wording("unsupported_gpu_arch", "Your GPU's capability is enough "
                                                                                  "for a local build.")))

    hung = tk.get("did_not_answer") or {}
    yield from _did_not_answer(tk, hung)
    if torch.get("installed") and "ninja" in tk and tk["ninja"] is None and "ninja" not in hung:
        yield Finding("ninja_missing", "toolkit", "warning", "ninja is not on PATH",
                      ("ninja --version: not found",),
                      Fix(fix_wording("ninja_missing", "Without it: 'Ninja is required to load C++ extensions'."),
                          ("pip install ninja",)))

    kao = layer(facts, "kaolin")
    if torch.get("installed") and kao and not kao.get("installed") and kao.get("install_kind_suggested") == "source":
        yield Finding("torch_not_found_at_build", "toolkit", "info", "Build kaolin with --no-build-isolation",
                      ("pip builds in an isolated environment by default, without the installed torch",),
                      Fix(fix_wording("torch_not_found_at_build", "Otherwise setup.py fails with \"ModuleNotFoundError: No module "
                              "named 'torch'\" or builds against a different torch."),
                          ("pip install ninja setuptools wheel", "pip install --no-build-isolation .")))


def _arch_list_fix(facts: Facts, supported: set[int], reason: str) -> Fix:
    gpus = [cc for _, cc in _gpu_ccs(facts) if cc_to_int(cc) in supported]
    value = ";".join(sorted(set(gpus), key=tables.version_key)) or int_to_cc(max(supported))
    return Fix(reason,
               tuple(env_fix_commands(facts, {"TORCH_CUDA_ARCH_LIST": value})[:1]) or
               (f'export TORCH_CUDA_ARCH_LIST="{value}"',))


# ------------------------------------------------------------------ a build's messages (text or probe)
_CUDA_HEADER_PREFIXES = ("cuda", "cusparse", "cublas", "curand", "cufft", "cusolver", "nv", "crt/", "thrust/", "cub/",
                         "cooperative_groups", "math_constants", "device_launch", "sm_", "texture_",
                         # the runtime's type headers every CUDA header includes (CUDA 13.0 include/)
                         "vector_types", "vector_functions", "driver_types", "host_defines", "builtin_types",
                         "channel_descriptor", "surface_", "library_types", "device_types", "math_functions")
_CUDA_LINK_LIBS = ("cudart", "cublas", "cusparse", "cusolver", "cufft", "curand", "nvrtc", "nvtoolsext", "nvjitlink",
                   "cudadevrt", "cudnn", "nccl")


#: headers of the Universal C Runtime, the Windows SDK and MSVC's own runtime: MSVC's C1083 on one of them is a Visual
#: C++ install without the Windows SDK (or a shell without vcvars' INCLUDE), not a library the project needs
_MSVC_SDK_HEADERS = frozenset({
    "io.h", "stdio.h", "stdlib.h", "string.h", "stddef.h", "stdint.h", "math.h", "errno.h", "ctype.h", "wchar.h",
    "time.h", "assert.h", "malloc.h", "process.h", "direct.h", "fcntl.h", "locale.h", "limits.h", "float.h",
    "corecrt.h", "crtdbg.h", "crtdefs.h", "vcruntime.h", "windows.h", "winsock2.h", "ws2tcpip.h", "basetsd.h",
    "windef.h", "winapifamily.h", "sal.h", "excpt.h", "sys/types.h", "sys/stat.h"})


def header_codes(ev: Mapping[str, Any], facts: Facts | None = None) -> list[str]:
    """What a header the compiler cannot find means. A CUDA header: the toolkit the build uses lacks it, or the build
    was given no toolkit at all (no CUDA include directory on its command line: CUDA_HOME unset or not found, a
    setup.py that never adds it); a CUDA include directory the text shows decides for the first."""
    h = str(ev.get("header") or "").lower()
    if torch_header_of_torch(ev):
        return ["cpu_only_torch_with_gpu"]  # torch's own header needs one this torch did not install
    if h.startswith("thc/"):
        return []  # rules.abi: a torch API the source uses and torch removed
    if "C1083" in str(ev.get("line") or "") and h in _MSVC_SDK_HEADERS:
        return ["windows_msvc_toolchain", "build_dependency_missing"]  # MSVC without the Windows SDK / UCRT
    if not h.startswith(_CUDA_HEADER_PREFIXES):
        return ["build_dependency_missing"]
    if facts is not None and value(facts, "toolkit", "hip_build") and not value(facts, "toolkit", "build_nvcc"):
        # (round 32i) a build for ROCm (hip-config.cmake, hipcc, ROCM_PATH) needs no CUDA header: its sources are
        # hipified and its libraries are the ROCm ports (rocThrust/hipCUB for thrust/CUB, hipBLAS ...); a CUDA header
        # asked for is a CUDA-only dependency picked in the port's place (libthrust-dev's thrust/system/cuda), or a
        # source left un-hipified: that dependency first, not a CUDA toolkit to install
        return ["build_dependency_missing", "cuda_home_incomplete"]
    toolkit_shown = facts is not None and any(value(facts, "toolkit", k) for k in ("build_cuda_home", "cuda_home_env",
                                                                                   "build_nvcc"))
    shown = toolkit_shown or (facts is not None and bool(value(facts, "toolkit", "cuda_include_dir")))
    by_torch = "/torch/include/" in str(ev.get("included_from") or "").replace("\\", "/")
    if h == "cuda.h" and not toolkit_shown and not by_torch:
        # cuda.h (the driver API's header) is in every toolkit's include directory: where the compiler finds none, no
        # toolkit's include directory is on its path; an include directory on the command line (a Makefile's default
        # -I/usr/local/cuda/include) that lacks it holds no toolkit (installed elsewhere: /opt/cuda, or not at all)
        return ["cuda_home_missing", "cuda_home_incomplete", "build_dependency_missing"]
    if shown or by_torch:
        return ["cuda_home_incomplete", "build_dependency_missing"]
    return ["cuda_home_incomplete", "cuda_home_missing", "build_dependency_missing"]


#: torch's own CUDA libraries: a CUDA build of torch ships them in torch/lib, a CPU-only build has none
#: (torch 2.13.0+cpu: lib/libc10.so and lib/libtorch_cpu.so, no libc10_cuda.so / libtorch_cuda.so; c10_cuda.lib on Windows)
_TORCH_CUDA_LINK_LIBS = ("c10_cuda", "torch_cuda")


def link_codes(ev: Mapping[str, Any]) -> list[str]:
    lib = str(ev.get("lib") or "").lower()
    if lib == "cuda":
        return ["build_dependency_missing"]  # libcuda: the driver's, only a stub in the toolkit
    if lib in _TORCH_CUDA_LINK_LIBS:
        return ["cpu_only_torch_with_gpu", "build_dependency_missing"]
    return ["cuda_home_incomplete", "build_dependency_missing"] if lib.startswith(_CUDA_LINK_LIBS) else \
        ["build_dependency_missing"]


@builds("cuda_home_incomplete")
def _incomplete(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    what = ev.get("header") or (f"-l{ev['lib']}" if ev.get("lib") else None) or (ev.get("groups") or {}).get("h")
    home = value(facts, "toolkit", "build_cuda_home") or value(facts, "toolkit", "cuda_home_env")
    return {"title": (f"{what} is missing from the toolkit the build uses" if what else
                      "The toolkit the build uses lacks CUDA's headers or libraries") + (f" ({home})" if home else ""),
            "commands": [f"ls {home or '$CUDA_HOME'}/include/cuda_runtime.h {home or '$CUDA_HOME'}/lib64/libcudart.so",
                         "export CUDA_HOME=/usr/local/cuda-<x.y>   # a full toolkit (a -devel image, cuda-toolkit-<x>-<y>)"]}


@builds("build_dependency_missing")
def _build_dep(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    h, lib = str(ev.get("header") or ""), str(ev.get("lib") or "")
    low = (h or lib).lower()
    if not (h or lib) and "triton" in (str(ev.get("line") or "") + " " + str(ev.get("module") or "")).lower():
        return _triton_missing(facts)
    if ev.get("kind") == "module_missing" and (dev := PYTHON_OPTIONAL_C_MODULES.get(str(ev.get("module") or ""))):
        mod = str(ev["module"])
        # (round 35b) rules._abi.PYTHON_OPTIONAL_C_MODULES: a module of the interpreter's own build
        return {"title": f"This Python was built without its {mod} module: {dev} (the system library's headers) was "
                         "missing when the interpreter was compiled",
                "fix": f"{mod} is part of Python's standard library, compiled only where its system library's headers "
                       f"are there when Python itself is built (pyenv, a source build, some minimal images): install "
                       f"{dev} (dnf/yum: the -devel package), then rebuild or reinstall this Python, and recreate the "
                       "virtual environments made from it; or use a Python from the system or conda, which has it.",
                "commands": [f"sudo apt-get install {dev}   # the headers CPython's build looks for",
                             "pyenv install --force <version>   # or rebuild: ./configure && make && make install",
                             f"python -c \"import {mod}\"   # in the rebuilt Python"]}
    if lib == "cuda":
        cmd = "export LIBRARY_PATH=/usr/local/cuda/lib64/stubs:$LIBRARY_PATH   # libcuda: the toolkit's stub, for a build without a driver"
    elif "egl" in low or low.startswith("gl"):
        cmd = "sudo apt-get install libegl1-mesa-dev libgl1-mesa-dev   # EGL/GL headers"
    elif low.startswith("python"):
        cmd = "sudo apt-get install python3-dev   # Python.h (or the conda env's python headers)"
    elif h:
        cmd = f"apt-file search {h}"
    elif lib:
        cmd = f"apt-file search lib{lib}.so"
    else:
        cmd = CODES_TABLE["build_dependency_missing"].check
    if ev.get("required_by") and ev.get("package"):  # pip: a dependency of the package installed found nowhere
        dep, parent = str(ev["package"]), str(ev["required_by"])
        return {"title": f"{dep}, which {parent} requires, is not found where pip looked",
                "fix": f"pip installs {parent} but finds no release of its dependency {dep} where it looked (a wheel page "
                       f"or index given with -f/--no-index that holds only {parent}): install {dep} first from its own "
                       f"source (PyPI or its project's install page), then {parent}.",
                "commands": [f"python -m pip install {dep}", f"python -m pip install {parent}   # with the same -f page"]}
    what = h or (f"-l{lib}" if lib else None)
    said = re.sub(r" \([^()]{0,200}\)", "", first_clause(str(ev.get("meaning") or ""))).rstrip(".")  # the row's own title
    if not what and said and str(ev.get("key") or "") in _ROW_DEP_COMMANDS:
        return {"title": said, "commands": _ROW_DEP_COMMANDS[str(ev["key"])]}
    return {"title": f"The build needs {what}, which is not installed" if what else said or
            "A build dependency is missing", "commands": [cmd]}


#: (round 34a) library_messages rows whose missing dependency is a source the build fetches: what to run
_ROW_DEP_COMMANDS = {
    "git_submodule_ssh_url": GIT_SUBMODULE_OVER_HTTPS,
    # (round 35b) the interpreter built without a system library's headers
    "pip_python_without_ssl": ["sudo apt-get install libssl-dev   # OpenSSL's headers (dnf: openssl-devel), then "
                               "rebuild Python (pyenv install --force <version>)",
                               "python -c \"import ssl; print(ssl.OPENSSL_VERSION)\"   # in the rebuilt Python",
                               "conda activate <env>   # Windows conda: its Library\\bin (OpenSSL's DLLs) on PATH"],
    "zipimport_without_zlib": ["sudo apt-get install zlib1g-dev   # zlib's headers (dnf: zlib-devel), then rebuild "
                               "Python (pyenv install --force <version>)", "python -c \"import zlib\""],
    "bazel_external_package_missing": ["bazel clean --expunge   # a partly fetched external repository, then build "
                                       "again", "# build the release after this one, or the dependency revision its "
                                       "WORKSPACE / MODULE.bazel pins (no --override_repository to another checkout)"],
}


def _triton_missing(facts: Facts) -> dict[str, Any]:
    """torch.compile's inductor backend found no usable triton (the compiler of its GPU kernels): a pip package
    pinned by each torch release (tables/torch_triton.csv), not a system package."""
    tv = value(facts, "torch", "version_base")
    pin = tables.triton_for_torch(tv) if tv else None
    return {"title": "torch.compile needs triton, which is not installed",
            "detail": "Here the dependency is triton, the compiler torch.compile's inductor backend uses for GPU "
                      "kernels: a pip package each torch release pins (Linux wheels bring it; on Windows it is "
                      "the separate triton-windows); backend='aot_eager' compiles without it.",
            "commands": ["pip show torch triton   # is triton installed, and which release",
                         f"pip install 'triton=={pin}.*'   # the triton torch {tv} pins" if pin else
                         "pip install --force-reinstall torch   # a Linux CUDA wheel brings the triton it pins",
                         "pip install triton-windows   # on Windows: the release made for this torch"]}


@builds("cuda_home_missing")
def _home_missing(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    extra = [f"nvcc {n.get('version')} exists at {n.get('path')}" for n in value(facts, "toolkit", "nvccs") or []
             if isinstance(n, Mapping) and n.get("path") and ev.get("from") == "live"]
    return {"title": "No nvcc where the build looks for it", "evidence": extra,
            "commands": ["ls -d /usr/local/cuda*/bin/nvcc; which -a nvcc",
                         "export CUDA_HOME=/usr/local/cuda-<x.y> PATH=/usr/local/cuda-<x.y>/bin:$PATH   # the toolkit "
                         "of torch.version.cuda"]}


@builds("cuda_home_malformed")
def _home_malformed(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    v = value(facts, "toolkit", "cuda_home_malformed_value") or value(facts, "toolkit", "cuda_home_env") or \
        (ev.get("groups") or {}).get("home") or ""
    why_ = value(facts, "toolkit", "cuda_home_malformed_why") or "is not one toolkit directory"
    var = value(facts, "toolkit", "cuda_home_malformed_var") or "CUDA_HOME"
    shown = f"{v[:100]}{'...' if len(v) > 100 else ''}"
    return {"title": f"{var} is not one toolkit directory: '{shown}' {why_.split(' (')[0]}" if v else
            f"{var} is not one toolkit directory",
            "commands": [f'echo "${var}"', f"export {var}=/usr/local/cuda-<x.y>   # one absolute toolkit directory"]}


@builds("nvcc_torch_cuda_mismatch")
def _nvcc_torch(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    groups = ev.get("groups") or {}
    nv = groups.get("nvcc") or value(facts, "toolkit", "build_nvcc_version")
    tc = groups.get("torch") or value(facts, "torch", "cuda")
    nv = str(nv).replace("%s", "") if nv else nv
    if ev.get("rocm"):  # (round 32i) _rocm_vs_torch: ROCm's pair, hipcc's release against torch.version.hip
        hip, rocm = ev["rocm"]
        return {"title": f"The machine's ROCm is {rocm} but torch was built for ROCm {hip}: an extension built here "
                         "does not match torch's HIP runtime",
                "fix": f"Build the extension with the ROCm release torch was built for ({hip}: ROCM_HOME and PATH at "
                       f"/opt/rocm-{hip}), or install the torch built for the machine's ROCm {rocm} (the index "
                       f"https://download.pytorch.org/whl/rocm{rocm}) and rebuild the extension.",
                "commands": ["python -c \"import torch; print(torch.__version__, torch.version.hip)\"",
                             "hipcc --version; ls -d /opt/rocm*",
                             f"pip install torch --index-url https://download.pytorch.org/whl/rocm{rocm}   # then "
                             "rebuild the extension (pip install --no-build-isolation --no-cache-dir ...)"]}
    out = {"title": f"nvcc is CUDA {nv} but torch was built with CUDA {tc}" if nv and tc else
           "nvcc and torch use different CUDA versions",
           "commands": ["python -c \"import torch; print(torch.version.cuda)\"", "nvcc --version",
                        f"export CUDA_HOME=/usr/local/cuda-{tc or '<torch.version.cuda>'} "
                        f"PATH=/usr/local/cuda-{tc or '<torch.version.cuda>'}/bin:$PATH"]}
    if ev.get("key") == "cuda_minor_mismatch":
        # torch.utils.cpp_extension._check_cuda_version: another minor of the same major is a warning ("Most likely
        # this shouldn't be a problem"), the build goes on; only another major raises
        out["severity"] = "warning"
        out["title"] += ": the same major, torch only warns"
        if has_sign(facts, "install_succeeded") and not events(facts, "toolkit", "build_failed"):
            out["severity"] = "info"
            out["title"] = (f"nvcc CUDA {nv} and torch's CUDA {tc}: a minor mismatch torch only warns about; the "
                            "install succeeded" if nv and tc else "A minor CUDA mismatch torch only warns about; the "
                            "install succeeded")
            out["detail"] = "Nothing failed here: the same CUDA major builds working extensions."
    return out


@builds("host_compiler_unsupported")
def _host_cc(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    if ev.get("kind") == "stdlib_undefined_at_link":
        return {"title": "The compiler does not match the C++ runtime the build links (mixed GCC installations)",
                "fix": "Another compiler than the one the environment's C++ runtime belongs to builds the objects: pick "
                       "one toolchain (the system gcc with the system libstdc++, or the environment's own compiler).",
                "commands": ["which -a gcc g++ c++; g++ --version", "export CC=<gcc> CXX=<g++>   # one toolchain"]}
    g = (ev.get("groups") or {}).get("max") or value(facts, "toolkit", "max_gcc_for_build_nvcc")
    have = value(facts, "toolkit", "gcc") or {}
    return {"title": f"gcc is newer than nvcc accepts{(' (gcc ' + str(g) + ' at most)') if g else ''}"
            + (f": gcc {have.get('version')}" if have.get("version") else ""),
            "commands": ([f"sudo apt-get install gcc-{g} g++-{g}   # or: conda install -c conda-forge gxx_linux-64={g}",
                          f"export CC=gcc-{g} CXX=g++-{g} CUDAHOSTCXX=g++-{g}"] if g else
                         ["gcc --version; nvcc --version", "export CC=gcc-<n> CXX=g++-<n> CUDAHOSTCXX=g++-<n>"])}


@builds("windows_msvc_toolchain")
def _msvc(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    cmds = ["where cl", "# from an 'x64 Native Tools Command Prompt for VS' of a version nvcc supports"]
    if ev.get("key") == "unsupported_msvc" and "unsupported microsoft visual studio" in str(ev.get("line") or "").lower():
        # (round 28c) crt/host_config.h refuses an MSVC newer than the toolkit knows (_MSC_VER): an older MSVC toolset
        # beside it (Visual Studio Installer, individual components) or a newer CUDA toolkit; the nvcc flag at one's risk
        cmds.append("# nvcc refuses this MSVC version (cl's 'Version 19.xx'): install an older MSVC v143 toolset beside it "
                    "(Visual Studio Installer, Individual components) and build from its prompt (vcvars64.bat "
                    "-vcvars_ver=14.xx), or a CUDA toolkit that accepts this MSVC; -allow-unsupported-compiler only at "
                    "your own risk")
    return {"title": "The MSVC toolchain is not usable for this build", "commands": cmds}


@builds("torch_not_found_at_build")
def _no_torch_at_build(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    return {"title": "pip's build isolation hides torch from the build",
            "commands": ["pip install ninja setuptools wheel", "pip install --no-build-isolation <package>"]}


@builds("ninja_missing")
def _ninja(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    # the code's own severity (warning, as the codes page says); an explained text's warning is a cause found all the
    # same (exit status 1)
    return {"title": "ninja is not on PATH", "commands": ["pip install ninja"]}


def _triton_ptxas(facts: Facts, ev: Mapping[str, Any]) -> bool:
    """Whether a ptxas failure is triton's: the text shows triton (its frames, its 'Internal Triton PTX codegen
    error', a TRITON_PTXAS_PATH)."""
    if "triton" in [str(p).lower() for p in value(facts, "torch", "packages_installed") or []]:
        return True
    return "triton" in str(ev.get("line") or "").lower() or has_sign(facts, "triton_ptxas")


def _triton_ptx_map_off(ev: Mapping[str, Any]) -> bool:
    """triton's PTX ISA exactly one minor above the one its ptxas knows, from PTX ISA 8.6 on ("Unsupported .version 8.6;
    current version is '8.5'"): triton derives the .version it writes from the release of the very ptxas it runs
    (ptx_get_version(cuda_version) of that ptxas's --version), and its releases before the fix mapped CUDA 12.x to
    PTX 8.x (80 + minor), while CUDA 12.6's ptxas knows 8.5, 12.8's 8.7 and 12.9's 8.8 (triton-lang/triton
    python/triton/backends/nvidia/compiler.py, later third_party/nvidia/backend/compiler.py: 'if minor < 6: return 80 +
    minor else: return 80 + minor - 1'); an older ptxas picked by hand lags by more than one step."""
    g = ev.get("groups") or {}
    m_ver = re.fullmatch(r"8\.(\d)", str(g.get("ver") or ""))
    m_cur = re.fullmatch(r"8\.(\d)", str(g.get("cur") or ""))
    return bool(m_ver and m_cur and int(m_ver.group(1)) >= 6 and int(m_ver.group(1)) - int(m_cur.group(1)) == 1)


@builds("multiple_cuda_toolkits")
def _multiple(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    if ev.get("triton"):
        g = ev.get("groups") or {}
        ver, cur = g.get("ver"), g.get("cur")
        return {"title": "triton's ptxas is older than the PTX it compiles" + (
            f" (PTX ISA {ver}, ptxas knows up to {cur})" if ver and cur else "") + ": TRITON_PTXAS_PATH or an older "
            "toolkit's ptxas is picked",
            "evidence": ["triton (python/triton/backends/nvidia/compiler.py) runs the ptxas named by TRITON_PTXAS_PATH, "
                         "else the one its wheel ships (triton/backends/nvidia/bin/ptxas); nvcc and CUDA_HOME play no "
                         "part"],
            "commands": ["echo $TRITON_PTXAS_PATH   # set: triton uses that ptxas",
                         "unset TRITON_PTXAS_PATH   # back to the ptxas triton ships",
                         "export TRITON_PTXAS_PATH=/usr/local/cuda-<x.y>/bin/ptxas   # or a toolkit new enough for "
                         f"PTX ISA {ver or '<the .version above>'}",
                         "pip show torch triton   # the triton release this torch pins"]}
    vers = list(dict.fromkeys(str(n.get("version")) for n in value(facts, "toolkit", "nvccs") or []
                              if isinstance(n, Mapping) and n.get("version")))  # (round 37e) each release once
    return {"title": "Another installed toolkit is picked than intended" + (f" ({', '.join(vers)})" if len(vers) > 1 else ""),
            "commands": ["which -a nvcc; ls -d /usr/local/cuda*", "export CUDA_HOME=/usr/local/cuda-<x.y> "
                         "PATH=/usr/local/cuda-<x.y>/bin:$PATH   # pin the one of torch.version.cuda"]}


@builds("unsupported_gpu_arch")
def _unsupported_arch(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    from smrnb.doctor._install import build_arch_list, newer_toolkit_command

    groups = ev.get("groups") or {}
    req = groups.get("arch") or groups.get("value")
    nv = value(facts, "toolkit", "build_nvcc_version")
    wanted = [a for a in (value(facts, "toolkit", "archs_named") or [])] + [
        str(g.get("compute_capability")) for g in value(facts, "driver", "gpus") or [] if isinstance(g, Mapping)
        and g.get("compute_capability")]
    if req:
        wanted.insert(0, str(req))
    if cupy := cupy_fails(facts):
        return _cupy_arch(facts, cupy, nv, wanted)
    cmds = ["nvcc --version; nvcc --list-gpu-arch"]
    al = build_arch_list(wanted, nv) if nv else None
    if al:
        cmds.append(f'export TORCH_CUDA_ARCH_LIST="{al}"   # computed from {", ".join(dict.fromkeys(wanted))} and nvcc {nv}')
        if newer := newer_toolkit_command(wanted, nv):  # a GPU newer than the nvcc: its own code with a newer toolkit
            cmds.append(newer)
    elif wanted:
        cmds.append('export TORCH_CUDA_ARCH_LIST="<X.Y>+PTX"   # X.Y: the highest arch `nvcc --list-gpu-arch` prints '
                    "below the GPU's; or a newer toolkit")
    else:
        cmds.append('export TORCH_CUDA_ARCH_LIST="<X.Y>"   # X.Y: the GPU\'s capability (nvidia-smi --query-gpu=compute_cap '
                    "--format=csv), if the nvcc in use lists it (nvcc --list-gpu-arch)")
    return {"title": "The build cannot target the requested GPU arch" + (f" ({req})" if req else ""), "commands": cmds}


def _cupy_arch(facts: Facts, cupy: str, nv: str | None, wanted: list[str]) -> dict[str, Any]:
    """(round 37f, blind audit 37 F2) CuPy's NVRTC (of the CUDA root CUDA_PATH names) does not know the GPU: a CUDA
    root whose NVRTC does, through CUDA_PATH, which CuPy reads (not CUDA_HOME), or the wheel of a newer CUDA."""
    from smrnb.doctor._install import cc_to_int, first_nvcc_for

    caps = [w for w in wanted if "." in str(w)]
    need = [f for f in (first_nvcc_for(n) for n in (cc_to_int(c) for c in caps) if n) if f]
    cmds = []
    if need:
        cuda = max(need, key=tables.version_key)
        cmds.append(f"export CUDA_PATH=/usr/local/cuda-{cuda}   # CuPy's CUDA root (CuPy reads CUDA_PATH, not "
                    f"CUDA_HOME): CUDA {cuda} or later installed, the first whose NVRTC knows sm_"
                    f"{max(cc_to_int(c) or 0 for c in caps)}" + (f" (CUDA {nv} does not)" if nv else ""))
    return {"title": "CuPy's CUDA compiler (NVRTC" + (f" of CUDA {nv}" if nv else "") + ") cannot target this GPU",
            "fix": CUPY_FIX, "commands": cmds + cupy_wheel_commands(facts, cupy, caps)}


@builds("nvcc_option_unsupported")
def _option_unsupported(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    """(round 37f, blind audit 37 F14) nvcc refusing an option value a later release added (tables/nvcc_options.csv:
    -std=c++20 from CUDA 12.0): the release that first has it, against the nvcc in use."""
    from smrnb.doctor.rules._events import default_build

    got = default_build("nvcc_option_unsupported", ev)
    g = ev.get("groups") or {}
    opt, val = str(g.get("option") or "").lstrip("-"), str(g.get("value") or "")
    row = tables.nvcc_option_change(f"--{opt}", val) if opt and val else None
    if row is None or row.change != "added" or not re.fullmatch(r"\d{1,2}\.\d", row.cuda):
        return got
    nv = value(facts, "toolkit", "build_nvcc_version")
    if nv and tables.version_key(str(nv)) >= tables.version_key(row.cuda):
        return got  # the nvcc in use is new enough: the table does not explain it
    flag = f"-{opt}={val}"
    return {"title": f"{flag} needs CUDA {row.cuda} or later" + (f"; the nvcc in use is {nv}" if nv else ""),
            "fix": f"nvcc accepts {flag} from CUDA {row.cuda} on (tables/nvcc_options.csv: {row.meaning.rstrip('.')}): "
                   f"build with a CUDA {row.cuda} or newer toolkit, or ask the project's build for an older value.",
            "commands": [*got["commands"],
                         f"export PATH=/usr/local/cuda-{row.cuda}/bin:$PATH CUDACXX=/usr/local/cuda-{row.cuda}/bin/nvcc"
                         f"   # CUDA {row.cuda} or later installed: the first nvcc that accepts {flag}"
                         + (f" (nvcc {nv} does not)" if nv else "") + "; CMake reads CUDACXX in a fresh build folder"]}


@builds("extension_build_failed")
def _build_failed(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    name = (ev.get("groups") or {}).get("name")
    return {"title": f"The build of {name} failed; the compiler output above says why" if name else
            "The extension build failed; the compiler output above says why", "rank": 20,
            "commands": ["MAX_JOBS=1 pip install --no-build-isolation -v <package> 2>&1 | grep -m1 -B5 -iE 'error|killed'"]}


@rule("toolkit")
def build_messages(facts: Facts) -> Iterable[Finding]:
    """A build's messages: nvcc's fatal errors, torch.utils.cpp_extension's checks and the setup checks of
    CUDA extensions (tables/nvcc_errors.csv, cpp_extension_checks.csv, extension_checks.csv), headers and
    libraries the compiler or linker cannot find, and the signs of a build (build isolation, ninja, MSVC)."""
    missing: list[Finding] = []
    for ev in events(facts, "toolkit", "message"):
        if ev.get("key") == "ptxas_unsupported_version" and _triton_ptxas(facts, ev) and _triton_ptx_map_off(ev):
            # (round 32g) triton's CUDA-to-PTX map one ISA above what its own ptxas knows
            yield from resolve(facts, {**ev, "triton": True, "bug": "triton_ptx_map"},
                               ["library_bug", "multiple_cuda_toolkits"])
            continue
        if ev.get("key") == "ptxas_unsupported_version" and _triton_ptxas(facts, ev):
            # triton's own PTX (a torch.compile or triton kernel) fed to a ptxas too old for it: no nvcc or CUDA_HOME
            # is involved; triton runs TRITON_PTXAS_PATH when set, else the ptxas it ships
            yield from resolve(facts, {**ev, "triton": True}, ["multiple_cuda_toolkits", "companion_built_for_other_torch"])
            continue
        for f in resolve(facts, *_symptom(facts, ev)):
            missing += [f] if f.code == "cuda_home_missing" else []
            yield _nvcc_missing_in_notebook(facts, f)
    for ev in events(facts, "toolkit", "header_missing"):
        yield from resolve(facts, ev, header_codes(ev, facts))
    for ev in events(facts, "toolkit", "link_lib_missing"):
        yield from resolve(facts, ev, link_codes(ev))
    for ev in events(facts, "toolkit", "sign"):
        if ev.get("sign") == "nvcc_located" and _toolkits_shown(facts) < 2:
            continue  # (round 37e) one toolkit's nvcc shown (or none: `which nvcc` printed nothing)
        for f in resolve(facts, ev, _sign_codes(facts, str(ev.get("sign")))):
            missing += [f] if f.code == "cuda_home_missing" else []
            yield _nvcc_missing_in_notebook(facts, f)
    for ev in events(facts, "toolkit", "stdlib_undefined_at_link"):
        # the linker finds no definition of a C++ standard library symbol the objects use: they were compiled with a
        # GCC whose headers are newer than the libstdc++ the link picks (an Anaconda environment's older copy first on
        # the library path, a compiler mixed with another's runtime); GCC's libstdc++ ABI policy: symbols are added in
        # later releases, never removed
        yield from resolve(facts, {**ev, "weight": 30}, ["libstdcxx_too_old", "host_compiler_unsupported"])
    for ev in events(facts, "toolkit", "build_failed"):
        if _project_name(str(ev.get("package"))) in _cuda_extension_projects():
            # pip failed to build a CUDA extension and the text shows no compiler line that says why
            yield from resolve(facts, {**ev, "weight": 34, "groups": {"name": ev.get("package")}},
                               ["extension_build_failed"])
        elif has_sign(facts, "pip_source_build"):
            # pip failed to build a source tree it was given (./gridencoder, a submodule, a git URL): in these stacks a
            # project's own compiled extension, its compiler's reason elsewhere (ranked after any that says it)
            yield from resolve(facts, {**ev, "weight": 24, "groups": {"name": ev.get("package")}},
                               ["extension_build_failed"])
    dropped = [e for e in events(facts, "context", "sign") if e.get("sign") == "env_dropped"]
    if missing and dropped:  # sudo, a scheduler or a spawner resets the environment that had the toolkit
        best = min(missing, key=lambda f: f.rank)
        f = finding("env_not_propagated_to_kernel", facts, dropped[0], rank=best.rank + 1)
        if f is not None:
            yield f


#: rows that tell only that a build or load failed earlier in the process (the error that says why is elsewhere)
_SYMPTOM_ROWS = frozenset({"deepspeed:cpu_adam_op_not_built"})


def _symptom(facts: Facts, ev: dict[str, Any]) -> tuple[dict[str, Any], list[str] | None]:
    """``ev`` and the codes to read it as: a symptom row's own when the text shows nothing else of the build, else
    only its first code, ranked after the rest: another message of the loader or the toolkit is the failure itself."""
    if ev.get("key") == "single_input_file" and has_sign(facts, "workdir_space"):
        # (round 31c) the build runs in a folder whose path has a space, which the project's build files pass to nvcc
        # unquoted (two words: two inputs): their bug; an MSVC-style option is the other reading
        return {**ev, "space_path": True}, ["library_bug", "nvcc_option_unsupported"]
    if ev.get("key") == "single_input_file" and value(facts, "context", "os") != "windows" and \
            not has_sign(facts, "windows", "msvc"):
        # nvcc took a second input file on a build outside Windows: no MSVC-style option is involved; the build's
        # own command line (a flag split in two, an empty or unquoted value) is the other reading
        return ev, ["nvcc_option_unsupported", "library_bug"]
    if ev.get("key") not in _SYMPTOM_ROWS:
        return ev, None
    others = [e for ly in ("loader", "toolkit") for e in events(facts, ly, "message") if e.get("key") != ev.get("key")]
    others += events(facts, "toolkit", "header_missing") + events(facts, "toolkit", "link_lib_missing")
    if not others:
        return ev, None
    return {**ev, "weight": int(ev.get("weight") or 10) + 75}, list(ev.get("codes") or [])[:1]


def _project_name(name: str) -> str:
    return name.strip().lower().replace("_", "-")


@functools.cache
def _cuda_extension_projects() -> frozenset[str]:
    """The CUDA extensions whose setup checks the doctor's tables hold (extension_checks.csv, extension_minimums.csv),
    and (round 32a) the CUDA extensions only a project's source tree builds (source_built_modules.csv): their setup.py
    names the distribution as the module (tiny-cuda-nn bindings/torch/setup.py setup(name="tinycudann"), torch-ngp
    freqencoder/setup.py setup(name='freqencoder'), graphdeco-inria/diff-gaussian-rasterization setup.py
    setup(name="diff_gaussian_rasterization")), so pip's "Failed building wheel for tinycudann" is that build."""
    names = {str(row.fields.get("project") or "") for row in tables.message_rows("extension_checks")}
    names |= {r["project"] for r in tables.rows("extension_minimums")}
    names |= {r["module"] for r in tables.rows("source_built_modules")}
    return frozenset(_project_name(n) for n in names if n)


def _nvcc_missing_in_notebook(facts: Facts, f: Finding) -> Finding:
    """nvcc missing in a notebook while a terminal finds it: the kernel's PATH is the cause, ranked first."""
    if f.code in ("cuda_home_missing", "cuda_home_malformed") and has_sign(facts, "terminal_works") and has_sign(
            facts, "in_notebook"):
        return replace(f, rank=f.rank + 8)
    return f


def _crash_without_build(facts: Facts) -> bool:
    """(round 32c) The text's failure is a process crash (tables/torch_messages.csv's crash rows: SIGSEGV, Windows'
    STATUS_ACCESS_VIOLATION 0xC0000005, an abort) and it shows no build: no message of the toolkit or loader layer, no
    build that failed, no build step's words."""
    from smrnb.doctor.rules._loader import CRASH_ROWS

    crash = any(e.get("key") in CRASH_ROWS for e in events(facts, "torch", "message", table="torch_messages"))
    return crash and not (events(facts, "toolkit", "message") or events(facts, "loader", "message")
                          or events(facts, "toolkit", "build_failed")
                          or has_sign(facts, "build_context", "pip_build", "pip_source_build"))


#: library_messages rows that are a setup.py's (or setuptools') own refusal while pip asked the build requirements: that
#: refusal is the failure, not torch missing from the isolated environment (round 35c: setuptools' automatic discovery
#: and its requirement checks, pypa/setuptools setuptools/discovery.py, setuptools/dist.py)
_SETUP_OWN_REFUSALS = ("python_release_unsupported", "setuptools_flat_layout_discovery",
                       "setuptools_invalid_requirement_specifier", "setuptools_pyproject_config_invalid",
                       "setuptools_license_classifiers_superseded")


def _toolkits_shown(facts: Facts) -> int:
    """(round 37e) How many CUDA toolkits the text shows: distinct nvcc releases (its release line, the version in its
    path: /usr/local/cuda-11.8/bin/nvcc) or distinct nvcc paths (/usr/bin/nvcc beside /usr/local/cuda/bin/nvcc)."""
    versions, paths = set(), set()
    for n in _peek(facts, "toolkit", "nvccs") or []:
        if not isinstance(n, Mapping):
            continue
        path = str(n.get("path") or "").replace("\\", "/").rstrip("/")
        m = re.search(r"cuda[-_/]?v?(\d{1,2}\.\d)", path.lower())
        for v in (n.get("version"), m.group(1) if m else None):
            if v:
                versions.add(".".join(str(v).split(".")[:2]))
        if path:
            paths.add(path)
    return max(len(versions), len(paths))


def _sign_codes(facts: Facts, sign: str) -> list[str]:
    if sign == "nvcc_missing":
        return ["cuda_home_malformed"] if value(facts, "toolkit", "cuda_home_malformed") else ["cuda_home_missing"]
    if sign == "build_requirements_failed" and any(e.get("key") in _SETUP_OWN_REFUSALS for e in
                                                   events(facts, "torch", "message", table="library_messages")):
        # (round 33d) the setup.py asked for its build requirements stopped on its own check of the Python
        # ("ERROR: ipykernel requires Python version 3.4 or above."): that check is the failure, not torch
        return []
    if sign == "build_requirements_failed" and (sd := str(value(facts, "toolkit", "sdist") or "")) and \
            _project_name(sd) not in _cuda_extension_projects() and "torch" not in sd.lower() and \
            not any(value(facts, "torch", k) for k in ("version", "installed", "hip", "cuda")):
        # (round 32i) pip ran the setup.py of a source distribution it fetched to ask its build requirements
        # (PEP 517 get_requires_for_build_wheel) and that failed, for a package the doctor does not know as a torch
        # extension, in a text that shows no torch: torch missing from the isolated build environment stays the first
        # reading in these stacks; another tool or module the setup.py runs or imports (cmake, Cython, numpy) the
        # second
        return ["torch_not_found_at_build", "build_dependency_missing"]
    if sign in ("torch_absent_at_build", "build_requirements_failed"):
        return ["torch_not_found_at_build"]
    if sign == "pip_build" and has_sign(facts, "torch_absent_at_build"):
        return []
    if sign == "msvc" and _crash_without_build(facts):
        # (round 32c) Visual Studio named in a text whose failure is a process crash (an access violation 0xC0000005,
        # a segfault) and no build: the IDE used as a debugger to open a crash dump, not a toolchain that failed
        return []
    if sign == "gcc_unsupported" and any("windows_msvc_toolchain" in (e.get("codes") or ())
                                         for e in events(facts, "toolkit", "message")):
        return []  # (round 28c) host_config.h's message names MSVC: the host compiler is cl.exe, not gcc
    return {"msvc": ["windows_msvc_toolchain"], "gcc_unsupported": ["host_compiler_unsupported"],
            "ninja_absent": ["ninja_missing"], "gpu_too_old_for_extension": ["gpu_below_extension_minimum"],
            "nvrtc_arch": ["unsupported_gpu_arch", "torch_wheel_lacks_gpu_arch"],
            "multiple_nvcc": ["multiple_cuda_toolkits"], "nvcc_located": ["multiple_cuda_toolkits"]}.get(sign, [])


def _rocm_vs_torch(facts: Facts, tk: Mapping[str, Any]) -> Iterable[Finding]:
    """(round 32i) ROCm's counterpart of nvcc_torch_cuda_mismatch: a torch built for one ROCm release ("2.4.1+rocm6.0",
    torch.version.hip) on a machine whose ROCm toolkit is another (a rocm package's version, /opt/rocm-X.Y, hipcc's
    "HIP version"), and a HIP runtime error raised in another package's frame (an extension compiled here with the
    machine's hipcc): the extension's code objects and HIP runtime are the machine's release, torch's are the one its
    wheel bundles. torch.utils.cpp_extension builds ROCm extensions with ROCM_HOME's hipcc (torch/utils/
    cpp_extension.py _find_rocm_home, _check_cuda_version's ROCm branch compares nothing); the pair must match, as
    nvcc's release must match torch.version.cuda's major."""
    hip, rocm = str(value(facts, "torch", "hip") or ""), str(tk.get("rocm_release") or "")
    pkg = str(value(facts, "torch", "last_frame_package") or "").lower()
    if not (hip and rocm and tk.get("hip_error")) or pkg in ("", "torch", "package") or \
            tables.parse_version(hip)[:2] == tables.parse_version(rocm)[:2]:
        return
    f = finding("nvcc_torch_cuda_mismatch", facts, {
        "kind": "state", "from": "text", "weight": 20, "line": (tk.get("read_from") or {}).get("rocm_release", ""),
        "rocm": (hip, rocm),
        "fact": f"torch built for ROCm {hip}, the machine's ROCm (its hipcc) is {rocm}; HIP failed in {pkg}"})
    if f is not None:
        yield f


def _text_compilers(facts: Facts) -> Iterable[Finding]:
    """The host gcc and the GPUs a text shows against the nvcc release it shows (tables/nvcc_gcc.csv,
    tables/nvcc_archs.csv): the checks the live rule makes on probed compilers."""
    from smrnb.doctor._install import nvcc_archs

    tk = layer(facts, "toolkit")
    yield from _rocm_vs_torch(facts, tk)
    gcc, mx, nv = tk.get("gcc") or {}, tk.get("max_gcc_for_build_nvcc"), tk.get("build_nvcc_version")
    line = (tk.get("read_from") or {}).get("gcc", "")
    if gcc.get("major") and mx and gcc["major"] > mx:
        f = finding("host_compiler_unsupported", facts, {"kind": "state", "from": "text", "weight": 16, "line": line,
                                                         "fact": f"gcc {gcc.get('version')}, nvcc {nv} accepts gcc <= {mx}"})
        if f is not None:
            yield f
    have = nvcc_archs(nv)
    for g in layer(facts, "driver").get("gpus") or []:
        n = cc_to_int(g.get("compute_capability"))
        if have and n and n not in have and n > max(have):
            f = finding("unsupported_gpu_arch", facts, {
                "kind": "state", "from": "text", "weight": 20, "groups": {"arch": f"sm_{n}"},
                "line": (tk.get("read_from") or {}).get("build_nvcc_version", ""),
                "fact": f"GPU {g.get('name') or ''} (compute {g.get('compute_capability')}) is newer than nvcc {nv}"})
            if f is not None:
                yield f


# ------------------------------------------------------------------ an extension's own minimum toolkit
@rule("toolkit")
def extension_minimums(facts: Facts) -> Iterable[Finding]:
    """A package pip builds (``toolkit.building``) against the oldest nvcc its setup.py accepts
    (tables/extension_minimums.csv): the build's nvcc, else the CUDA version the text names."""
    tk = layer(facts, "toolkit")
    built = tk.get("building") or []
    nv, named = tk.get("build_nvcc_version"), tk.get("cuda_named") or []
    have = nv or (named[0] if named else None)
    if not built or not have:
        return
    said = {str(e.get("project")) for e in events(facts, "toolkit", "message")
            if "toolkit_below_extension_minimum" in (e.get("codes") or ())}
    for pkg in built:
        req = tables.extension_minimum(pkg)
        if req is None or req.needs != "nvcc" or req.project in said:
            continue  # the build's own message, when the text has it, is the finding
        if tables.version_key(have) >= tables.version_key(req.minimum):
            continue
        ev = {"kind": "state", "from": "text", "weight": 14 if nv else 20, "project": req.project,
              "minimum": req.minimum, "have": have, "have_from": "nvcc" if nv else "the CUDA the text names",
              "line": (tk.get("read_from") or {}).get("building", ""),
              "fact": f"{req.project} needs nvcc >= {req.minimum}; the text's toolkit is CUDA {have}"}
        yield from resolve(facts, ev, ["toolkit_below_extension_minimum"])


@builds("toolkit_below_extension_minimum")
def _below_extension_minimum(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    project = ev.get("project")
    req = tables.extension_minimum(str(project)) if project else None
    minimum = ev.get("minimum") or (req.minimum if req else None)
    have = ev.get("have") or value(facts, "toolkit", "build_nvcc_version")
    who = project or "The extension"
    title = (f"{who} builds only with CUDA >= {minimum}" + (f"; the toolkit here is CUDA {have}" if have else "")
             if minimum else f"{who} needs a newer CUDA toolkit than the one the build uses")
    evidence = ([f"{who}'s setup.py: {req.source}"] if req else []) + (
        [f"CUDA {have} read from {ev.get('have_from')}"] if ev.get("have_from") else [])
    target = minimum or "<x.y>"
    return {"title": title, "evidence": evidence,
            "commands": ["nvcc --version   # the toolkit the build uses (CUDA_HOME, else nvcc on PATH)",
                         f"conda install -c nvidia cuda-toolkit={target}   # or a system toolkit >= {target}, matching "
                         "torch.version.cuda's major",
                         f"export CUDA_HOME=<that toolkit> PATH=<that toolkit>/bin:$PATH && pip install "
                         f"--no-build-isolation {project or '<package>'}"]}
