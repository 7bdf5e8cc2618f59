# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the toolkit layer: what building a CUDA extension (kaolin) would run into."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._codes import meanings
from smrnb.doctor._codes import why as fix_wording
from smrnb.doctor._install import cc_to_int, int_to_cc, matching_nvcc, nvcc_supported_ccs, toolkit_dir_for
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor.rules import Facts, rule
from smrnb.doctor.rules._context import conda_nvcc_command, env_fix_commands, layer

CODES = meanings("rules.toolkit")  # this module's codes, from the one table (codes.py)

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

    if tk.get("cuda_home_malformed"):
        var = tk.get("cuda_home_malformed_var") or ("CUDA_HOME" if tk.get("cuda_home_env") else "CUDA_PATH")
        raw = tk.get("cuda_home_env") if var == "CUDA_HOME" else tk.get("cuda_path_env")
        why = tk.get("cuda_home_malformed_why") or "is malformed"
        yield Finding("cuda_home_malformed", "toolkit", "error" if tcuda else "warning", f"{var} {why.split(' (')[0]}",
                      (f"{var}={raw!r}: {why}",
                       f"torch.utils.cpp_extension would look for {raw}/bin/nvcc",
                       f"torch: {torch.get('version')} ({'CUDA ' + tcuda if tcuda else 'CPU build'})"
                       if torch.get("installed") else "torch: not installed"),
                      _set_cuda_home_fix(facts, fix_wording("cuda_home_malformed"), target, tcuda))

    build_nvcc, build_ver = tk.get("build_nvcc"), tk.get("build_nvcc_version")
    if tcuda and not tk.get("cuda_home_malformed") and build_nvcc is None:
        ev = [f"torch.utils.cpp_extension would use CUDA_HOME={tk.get('build_cuda_home')} (no bin/nvcc there)",
              f"nvcc found: {', '.join(n['path'] + ' (' + str(n.get('version')) + ')' for n in nvccs) or 'none'}"]
        yield Finding("cuda_home_missing", "toolkit", "warning", "No CUDA toolkit for building extensions",
                      tuple(ev),
                      _set_cuda_home_fix(facts, fix_wording("cuda_home_missing", f"Here: nvcc {tcuda}."), target, tcuda))
    elif build_nvcc and tk.get("build_cuda_home") and not tk.get("build_cuda_home_has_headers"):
        yield Finding("cuda_home_incomplete", "toolkit", "warning" if tcuda else "info",
                      f"CUDA_HOME={tk['build_cuda_home']} has nvcc but no CUDA headers",
                      (f"torch would use CUDA_HOME={tk['build_cuda_home']} (derived from {build_nvcc})",
                       f"{tk['build_cuda_home']}/include/cuda_runtime.h does not exist"),
                      _set_cuda_home_fix(facts, fix_wording("cuda_home_incomplete", "cpp_extension derives CUDA_HOME as the "
                                                "directory above the nvcc on PATH: a wrapper script like "
                                                "/usr/local/bin/nvcc gives /usr/local."),
                                         target or (toolkit_dir_for(match) if match else None), tcuda))

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
    if hung:
        yield Finding("tool_did_not_answer", "toolkit", "warning",
                      f"{len(hung)} build tool(s) did not answer: {', '.join(os.path.basename(k) for k in hung)}",
                      tuple(hung.values()),
                      Fix("These tools exist but hung (or printed without end) and were stopped; what they would "
                          "report is unknown. Run them by hand to see why (a network file system, a licence or "
                          "module system waiting, a wrapper script).",
                          tuple(f"timeout 20 {k if k.startswith('/') else k} --version" for k in hung)))
    if torch.get("installed") and tk.get("ninja") is None and "ninja" not in hung:
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
