# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the ABI layer: torch symbols an extension needs that torch does not define (C++ ABI flag
or torch version), GPU code that cannot run on the GPU, and the all-clear per extension
(facts: ``facts["abi"]`` and ``facts["loader"]``, FACTS.md)."""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Iterator, Mapping
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._codes import meanings, why
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor._symbols import demangle, string_abi
from smrnb.doctor.rules import rule
from smrnb.doctor.rules._events import (
    _peek,
    builds,
    cupy_fails,
    default_build,
    events,
    finding,
    has_sign,
    kernel_python_codes,
    one_edit,
    own_nvcc_version,
    own_program_fails,
    resolve,
    restart_said,
    value,
)
from smrnb.doctor.rules._rebuild import (
    _PER_TORCH_WHEELS,
    IN_THE_TREE,
    PIP_REBUILD,
    installed_name,
    kaolin_reinstall,
    per_torch_wheel,
    pyg_wheel_command,
    rebuild_of_file,
    tree_rebuild,
)
from smrnb.doctor.tables import IMPORT_ALIASES, release_tuple, shown_before_removal

CODES = meanings("rules.abi")  # this module's codes, from the one table (codes.py)


#: (round 29) a library's message that names the release range to install ("Please install mmcv>=2.0.0rc4, <2.2.0.",
#: "please install numpy>=1.22,<2"): the package and its specifiers, as pip reads them
_PLEASE_INSTALL_RE = re.compile(r"\b[Pp]lease (?:install|use|upgrade to|downgrade to) ([A-Za-z][\w.-]{0,60}?)"
                                r"((?:\s?(?:>=|<=|==|~=|!=|<|>)\s?[0-9][\w.+]{0,20},?){1,3})")

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
        return (kaolin_reinstall(cmd if isinstance(cmd, str) and cmd else
                                 "pip install kaolin -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/"
                                 "torch-<torch>_cu<cuda>.html"),)
    return ("python -c \"import torch; print(torch.__version__)\"   # the torch to build against: "
            f"{torch_version}", *rebuild_of_file(path, facts))


# (round 38d, issue 25) also under `--layer loader`: a torch symbol the extension needs and torch does not define fails
# its import ("undefined symbol: ..."), which `explain --layer loader` of that line reports; the loader's run collects
# the abi probe's facts for it (probes.RULE_NEEDS)
@rule("abi", stand_in=("loader",))
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
        arch_list = _buildable_arch_list(caps, facts)
        if _is_kaolin(path, facts):
            version = (facts.get("kaolin") or {}).get("version")
            tag = f"--branch v{str(version).split('+')[0]} " if version else ""
            # one --force-reinstall build that replaces kaolin in place (no uninstall first: a failed build keeps it)
            cmds = [f"git clone --recursive {tag}https://github.com/NVIDIAGameWorks/kaolin kaolin-src && cd kaolin-src && "
                    f"rm -rf build/ && TORCH_CUDA_ARCH_LIST=\"{arch_list}\" IGNORE_TORCH_VER=1 pip install "
                    "--no-build-isolation --no-cache-dir --force-reinstall .   # this machine's GPU(s)"]
        else:
            cmds = rebuild_of_file(path, facts, env=f"TORCH_CUDA_ARCH_LIST=\"{arch_list}\" ", note="this machine's GPU(s)")
        yield Finding(
            "no_kernel_image_for_gpu", "abi", "error",
            f"{_name(path)} has no GPU code for compute capability {', '.join(caps)}",
            tuple(ev),
            Fix(why("no_kernel_image_for_gpu", "A cubin runs only on GPUs of its major architecture (sm_80 does "
                    "not run on 9.0) and PTX is JIT-compiled only for GPUs at or above its version."), tuple(cmds)))


def _buildable_arch_list(caps: list[str], facts: Mapping[str, Any]) -> str:
    """TORCH_CUDA_ARCH_LIST for the GPUs' capabilities, limited to what the build nvcc can compile."""
    from smrnb.doctor._install import build_arch_list

    nv = (facts.get("toolkit") or {}).get("build_nvcc_version")
    return build_arch_list(caps, nv) or ";".join(caps)


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
        if le.get("missing") or le.get("version_missing") or ext.get("unresolved_count") or ext.get("unresolved") \
                or ext.get("unresolved_other"):
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
        title, unchecked = _checked_words(ext, resolved)
        if unchecked:
            ev.append(unchecked)
        yield Finding("extension_ok", "abi", "ok", f"{_name(path)} loads: {title}", tuple(ev))


def _checked_words(ext: Mapping[str, Any], resolved: Mapping[str, Any]) -> tuple[str, str]:
    """(blind audit 36) What extension_ok's title may claim: only what was checked (a numpy module has no torch
    symbols and no GPU code, libgomp no plain name to look up), and the evidence line of what was left unchecked."""
    n_libs = len(resolved)
    said = [f"its {n_libs} NEEDED librar{'y resolves' if n_libs == 1 else 'ies resolve'}" if n_libs else
            "it needs no library (no DT_NEEDED)"]
    if ext.get("torch_undefined"):
        said.append(f"its {ext['torch_undefined']} torch symbols are defined")
    plain = int(ext.get("plain_undefined") or 0)
    unchecked = ""
    if plain and ext.get("plain_checked", True):
        said.append(f"its {plain} plain C symbol{'s are' if plain != 1 else ' is'} defined")
    elif plain:
        unchecked = (f"{plain} plain C symbol{'s' if plain != 1 else ''} not looked up: not a Python module (no PyInit_, "
                     "no interpreter tag in its name), so the process that loads it (a plugin's host) may define them")
    if ext.get("has_gpu_code"):
        imgs = ext.get("gpu_images") or []
        said.append("GPU code for every GPU here" if imgs else "GPU code embedded (no GPU here to check it against)")
    title = ", ".join(said[:-1]) + (" and " if len(said) > 1 else "") + said[-1]
    return title + ("; plain C symbols not checked (not a Python module)" if unchecked else ""), unchecked


# ------------------------------------------------------------------ undefined torch symbols, source and modules
KAOLIN_WHEEL_PAGE = "https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-{torch}_cu{cuda}.html"


def _torch_flag(facts: Mapping[str, Any]) -> bool | None:
    flag = value(facts, "torch", "cxx11_abi")
    return value(facts, "abi", "torch_cxx11_abi") if flag is None else flag


def _pip_wheel_flag(facts: Mapping[str, Any]) -> bool | None:
    """(round 37e) The C++ ABI of a torch known only by its version: a build of PyTorch's own pip index (a local
    version, +cuXYZ or +cpu) before 2.7 is an old-ABI build (_GLIBCXX_USE_CXX11_ABI=0; the pip wheels moved to the
    new ABI in 2.7); None for any other (conda's and PyPI's untagged builds, 2.7 and later, ROCm)."""
    m = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?\+(?:cu\d{2,3}|cpu)", str(value(facts, "torch", "version") or ""))
    return False if m and (int(m.group(1)), int(m.group(2))) < (2, 7) else None


def _static_verdict(facts: Mapping[str, Any], sym: str) -> tuple[str | None, Mapping[str, Any] | None]:
    """The abi probe's verdict on ``sym`` when its ELF check of an extension saw the same symbol unresolved."""
    for ext in value(facts, "abi", "extensions") or []:
        if not isinstance(ext, Mapping):
            continue
        for u in ext.get("unresolved") or []:
            if isinstance(u, Mapping) and u.get("mangled") == sym and u.get("diagnosis") in (
                    "cxx11_abi_mismatch", "abi_torch_version_mismatch"):
                return str(u["diagnosis"]), {**u, "path": ext.get("path")}
    return None, None


def _wheel_for_other_torch(facts: Mapping[str, Any], needed_by: str) -> str | None:
    """(blind audit 36, F7) The evidence that the extension's wheel was made for another torch: its package's +ptXY
    (``loader.built_for_torch``, "torch-scatter 2.1.2+pt21cu121") against the torch release the text shows."""
    lf = facts.get("loader")
    if not (isinstance(lf, dict) and dict.get(lf, "built_for_torch")):  # a look the evidence does not list
        return None
    built = value(facts, "loader", "built_for_torch") or {}
    m = _INSTALLED_AT_RE.search(needed_by)
    pkg = m.group(1).lower() if m else ""
    want = built.get(pkg) if isinstance(built, Mapping) else None
    tv = str(value(facts, "torch", "version_base") or "") if want else ""
    if not (want and tv) or ".".join(tv.split(".")[:2]) == want:
        return None
    return (f"the text shows {pkg.replace('_', '-')}'s wheel made for torch {want} (its version's +pt"
            f"{want.replace('.', '')}) beside torch {tv}: the wheel was built for another torch release")


def torch_symbol_readings(facts: Mapping[str, Any], sym: str) -> list[str]:
    """An undefined torch symbol: the C++ ABI flag differs (the symbol's std::string flavour against torch's
    ``_GLIBCXX_USE_CXX11_ABI``, or the abi probe's verdict) or the torch version does. Both readings, the
    likelier first, when neither torch's flag nor the probe's verdict is known."""
    verdict, _ = _static_verdict(facts, sym)
    if verdict:
        return [verdict]
    flavour = string_abi(sym, demangle(sym))
    flag = _torch_flag(facts)

    def code(torch_abi: bool | None) -> str:
        if flavour != "none" and torch_abi is not None:
            return "cxx11_abi_mismatch" if (flavour == "cxx11") != bool(torch_abi) else "abi_torch_version_mismatch"
        return "cxx11_abi_mismatch" if flavour == "old" else "abi_torch_version_mismatch"

    if flag is None and flavour != "none" and (wheel := _pip_wheel_flag(facts)) is not None:
        # (round 37e) the text's torch is a pip wheel of a known ABI: its reading first, the other one second
        first, alt = code(wheel), code(not wheel)
        return [first] + ([alt] if alt != first else [])
    first = code(flag)
    if flag is None and flavour != "none":  # an old-ABI torch (pip wheels before 2.7) turns one into the other
        alt = code(False)
        return [first] + ([alt] if alt != first else [])
    return [first]


@builds("abi_torch_version_mismatch", "cxx11_abi_mismatch")
def _torch_symbol(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any] | None:
    sym = str(ev.get("symbol") or "")
    lib = ev.get("needed_by")
    if not sym:  # a loader-table row, or libtorch_cuda_cu.so (torch 1.11/1.12 only)
        name = str(ev.get("library") or "")
        if name.startswith(("libtorch_cuda_cu.", "libtorch_cuda_cpp.")):
            return {"title": f"{name} missing: the extension was built for torch 1.11/1.12",
                    "evidence": ["libtorch_cuda_cu.so / libtorch_cuda_cpp.so exist only in torch 1.11 and 1.12 (split "
                                 "libtorch_cuda.so); other torch releases have neither"],
                    "commands": ["python -c \"import torch; print(torch.__version__)\"",
                                 "pip install --no-build-isolation --no-cache-dir --force-reinstall <package>   # rebuild "
                                 "(or install the wheel) for the installed torch"]}
        if name.startswith(("libtorch_cpu.", "libtorch_cuda.")):
            return {"title": f"{name} missing: the binary was built for torch 1.5 or later",
                    "evidence": ["libtorch_cpu.so / libtorch_cuda.so exist since torch 1.5 (libtorch.so split); an "
                                 "older torch has neither, so a binary built for a newer torch cannot load"],
                    "commands": ["python -c \"import torch; print(torch.__version__)\"",
                                 "pip install --no-build-isolation --no-cache-dir --force-reinstall <package>   # rebuild "
                                 "(or install the release made) for the installed torch"]}
        if ev.get("key") == "win_proc_not_found":  # Windows names no symbol: rules._loader._torch_extension_import
            return {"title": "A compiled extension lacks a function of the installed torch (Windows: the procedure "
                             "could not be found)",
                    "evidence": ["ERROR_PROC_NOT_FOUND (127) while importing a compiled module other than torch's own: "
                                 "it imports torch's C++ functions from c10.dll / torch_cpu.dll by name, and this torch "
                                 "release lacks one (Windows prints no symbol name)"],
                    "commands": ["python -c \"import torch; print(torch.__version__, torch.version.cuda)\"",
                                 "pip install --no-build-isolation --no-cache-dir --force-reinstall <package>   # rebuild "
                                 "(or install the wheel made) for the installed torch"]}
        if ev.get("kind") == "state" and str(ev.get("fact") or "").startswith("the text shows two torch installs"):
            return _torch_installs_fix(ev)
        if ev.get("kind") == "state" and str(ev.get("fact") or "").startswith("the text shows torch "):
            # (round 32b) rule two_torch_releases: two torch releases installed in one environment
            return {"title": "Two torch releases are installed in one environment: extensions of one load against the "
                             "other's libraries",
                    "evidence": [str(ev.get("fact"))],
                    "commands": ["conda list | grep -i torch; pip list 2>/dev/null | grep -i torch   # both managers",
                                 "pip uninstall -y torch; conda remove --force pytorch   # then install one torch and "
                                 "the extensions (PyG's wheels) made for it"]}
        if ev.get("key") == "extension_op_not_registered":  # (round 32b) tables/torch_messages.csv: torch.ops lookup
            ns = re.search(r"No such operator ([A-Za-z_]\w*)|'_OpNamespace' '(\w+)'", str(ev.get("line") or ""))
            pkg = (ns.group(1) or ns.group(2)) if ns else "<package>"
            return {"title": f"torch has no {pkg}:: operators: {pkg}'s compiled library is not loaded (built for "
                             "another torch release, or not built)",
                    "evidence": [f"torch.ops.{pkg} finds no operator: the library registering them was never loaded "
                                 "into this torch (a package built for another torch release often only warns at "
                                 "import and goes on)"],
                    "commands": ["python -c \"import torch; print(torch.__version__, torch.version.cuda)\"",
                                 f"python -m {pkg}.info   # xformers: the torch it was built for",
                                 f"pip install --force-reinstall {pkg}==<the release made for this torch>   # or "
                                 "rebuild it against this torch (--no-build-isolation)"]}
        if str(ev.get("key") or "").startswith("torchsharp_"):  # tables/library_messages.csv's TorchSharp rows
            return {"title": "TorchSharp's LibTorchSharp and the libtorch it loads are of different releases",
                    "evidence": ["each TorchSharp release is built against one libtorch release and needs the native "
                                 "package of that release (TorchSharp-cpu / TorchSharp-cuda-*, or libtorch-cpu / "
                                 "libtorch-cuda-* of the version its release notes name)"],
                    "commands": ["dotnet list package   # TorchSharp and the libtorch-* package versions",
                                 "# reference the TorchSharp-cpu / TorchSharp-cuda-<os> bundle of the same version"]}
        return None
    dem = demangle(sym)
    short = (dem or sym)[:120]
    code = ev.get("_code")
    flavour = string_abi(sym, dem)
    flag = _torch_flag(facts)
    tv = value(facts, "torch", "version")
    evidence = [f"undefined symbol: {sym}"] + ([f"demangled: {dem}"] if dem else []) + ([f"needed by: {lib}"] if lib else [])
    evidence.append({"cxx11": "the symbol uses the new C++11 ABI std::string (std::__cxx11::basic_string)",
                     "old": "the symbol uses the old (pre-C++11 ABI) std::string (`Ss`)",
                     "none": "the symbol has no std::string in it (no ABI flavour to compare)"}[flavour])
    if flag is not None:
        evidence.append(f"this torch{(' ' + str(tv)) if tv else ''} uses _GLIBCXX_USE_CXX11_ABI={1 if flag else 0}")
    verdict, u = _static_verdict(facts, sym)
    other = _wheel_for_other_torch(facts, str(lib or ""))
    if u is not None:
        evidence.append(f"the doctor's static check of {u.get('path')} finds this symbol unresolved too"
                        + (": its other-ABI spelling IS defined in torch" if u.get("other_abi_defined") else "")
                        + (": its other-ABI spelling is not defined in torch either"
                           if u.get("other_abi_defined") is False else ""))
    elif flag is None and flavour == "old" and code == "cxx11_abi_mismatch":
        evidence.append("torch pip wheels use the new ABI since 2.7, conda/source builds always did: an old-ABI symbol "
                        "means the extension was compiled with -D_GLIBCXX_USE_CXX11_ABI=0 (or for a pre-2.7 pip torch: "
                        "then it is a torch version mismatch)")
    elif flag is None and flavour != "none" and _pip_wheel_flag(facts) is None and not other:
        evidence.append("if torch is an old-ABI build (pip wheels before 2.7) this reading changes: "
                        "`python -c \"import torch; print(torch._C._GLIBCXX_USE_CXX11_ABI)\"` decides")
    if other:
        evidence.append(other)
    if code == "cxx11_abi_mismatch":
        title = f"Undefined symbol {short}: the extension and torch use different C++ ABIs"
        cmds = ["python -c \"import torch; print(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)\"",
                tree_rebuild(facts, path=str(lib or ""), note=f"{IN_THE_TREE}, no CXXFLAGS/CFLAGS that set "
                             "-D_GLIBCXX_USE_CXX11_ABI: torch's cpp_extension passes torch's own flag (never force it "
                             "by hand)")]
    else:
        title = f"Undefined symbol {short}: the extension was built against another torch"
        cmds = ["python -c \"import torch; print(torch.__version__, torch.version.cuda)\""]
        if not (lib and "kaolin" in str(lib)):  # kaolin's own wheel command follows
            cmds.append(_rebuild_against_torch(facts, str(lib or "")))
    if lib and "kaolin" in str(lib):
        cmds.append(_kaolin_command(facts))
    return {"title": title, "evidence": evidence, "commands": cmds}


def _conda_and_pip(installs: list[Mapping[str, Any]]) -> tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]:
    """(blind audit 36, F12) The first torch install conda made and the first pip made, of ``torch.installs_listed``."""
    return (next((i for i in installs if i.get("by") == "conda"), None),
            next((i for i in installs if i.get("by") == "pip"), None))


def _torch_installs_fix(ev: Mapping[str, Any]) -> dict[str, Any]:
    """(blind audit 36, F12) Conda's pytorch and pip's torch (or two torch records) in one environment: which one
    Python imports, and the other's removal."""
    installs = [i for i in ev.get("installs") or [] if isinstance(i, Mapping)]
    conda, pip = _conda_and_pip(installs)
    check = ("python -c \"import torch; print(torch.__version__, torch.__file__)\"   # the one torch Python imports: "
             "site-packages/torch, one folder both installs wrote into")
    if conda and pip:
        cmds = [check, "conda list | grep -iE '^(py)?torch '   # both rows: conda's (a channel) and pip's (pypi)",
                f"conda remove --force -y {conda.get('name')}   # drop conda's {conda.get('name')} {conda.get('version')}; "
                "--force: not the packages that depend on it",
                f"pip install --force-reinstall --no-deps --no-cache-dir torch=={pip.get('version')}   # pip's torch "
                "again: conda's removal deleted files of the shared folder (or the reverse: pip uninstall -y torch, "
                f"then conda install --force-reinstall {conda.get('name')}=={conda.get('version')})"]
        detail = (f"conda's {conda.get('name')} {conda.get('version')} and pip's torch {pip.get('version')} both "
                  "installed into the same site-packages/torch folder: Python imports that one folder, whose files "
                  "come from whichever install wrote last, mixed with the other's leftovers (the traceback's torch "
                  "path is that folder). Keep one: remove the other with the manager that installed it, then "
                  "reinstall the one you keep so its files are whole.")
    else:
        cmds = [check, "pip list 2>/dev/null | grep -i torch; ls $(python -c 'import site; print(site.getsitepackages()"
                "[0])') | grep -i '^torch-'   # each torch-*.dist-info is one install",
                "pip uninstall -y torch; pip uninstall -y torch   # until pip says it is not installed, then one "
                "install: pip install --force-reinstall torch==<the release you keep>"]
        detail = ("Two torch installs are recorded in one environment, and Python imports one site-packages/torch "
                  "folder whose files come from both: remove every record, then install one torch.")
    return {"title": "Two torch installs in one environment (" + ("conda's and pip's" if conda and pip else
                                                                  "two records") + "): Python imports a mix of both",
            "evidence": [str(ev.get("fact"))], "fix": detail, "commands": cmds,
            "rank": -10}  # before what the mix causes (an older libcudart of conda's cudatoolkit loaded first)


_INSTALLED_AT_RE = re.compile(r"[\\/](?:site|dist)-packages[\\/]+([A-Za-z][\w]*)[\\/]")


def _rebuild_against_torch(facts: Mapping[str, Any], lib: str) -> str:
    """(round 26d) The rebuild of an extension that lacks a symbol of the installed torch: where its module lies in
    site-packages (an installed package, not a source tree being built), that package reinstalled (a PyG operator
    package from PyG's wheel index for this torch), never ``rm -rf build/`` of the current folder; else the source
    tree rebuilt (:func:`smrnb.doctor.rules._rebuild.tree_rebuild`)."""
    m = _INSTALLED_AT_RE.search(lib)
    top = re.search(r"[\\/](?:site|dist)-packages[\\/]+([A-Za-z]\w*)[^\\/]*$", lib)
    if not m and top and top.group(1) != "torch":  # (blind audit 36, F9) a top-level module file of a package
        # (round 38a) named by the distribution that installs it where the table knows it (flash_attn_2_cuda)
        return (f"{PIP_REBUILD} {installed_name(lib) or f'<package-owning-{_name(lib)}>'}   "
                "# rebuild (or install the release made) for the installed torch")
    if not m or m.group(1) == "torch":
        return tree_rebuild(facts, path=lib, note=f"{IN_THE_TREE}: rebuild it against the torch that is installed")
    pkg = installed_name(lib, m.group(1))
    if per_torch_wheel(lib):
        return pyg_wheel_command(facts, pkg)
    return (f"pip install --no-build-isolation --no-cache-dir --force-reinstall {pkg}   # rebuild (or install the "
            "release made) for the installed torch")


def _kaolin_command(facts: Mapping[str, Any]) -> str:
    inst = value(facts, "kaolin", "install_command")
    if inst:
        return str(inst)
    tv, tc = value(facts, "torch", "version_base"), value(facts, "torch", "cuda")
    if value(facts, "torch", "version") and not tc:
        return "# this torch is CPU-only: kaolin's wheel pages are per CUDA build; install a CUDA torch first"
    return "pip install kaolin==<version> -f " + KAOLIN_WHEEL_PAGE.format(
        torch=tv or "<torch>", cuda=str(tc or "<xy>").replace(".", ""))


@builds("torch_api_incompatible_source")
def _torch_api(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    line = str(ev.get("line") or "")
    phrase = str(ev.get("phrase") or ev.get("module") or ev.get("header") or "")
    i = line.lower().find(phrase.lower()) if phrase else -1
    api = line[i:i + len(phrase)] if i >= 0 else phrase
    return {"title": f"The source uses a torch API that torch removed ({api or 'THC, torch._six, AT_CHECK'})",
            "commands": ["pip install --upgrade <the extension>   # a release written for this torch",
                         "python -c \"import torch; print(torch.__version__)\""]}


def _torch_releases_shown(facts: Mapping[str, Any]) -> list[str]:
    """(round 31b) The torch releases the text shows: torch's own version line, a pip/conda listing or 'pytorch 1.7.1'."""
    releases = value(facts, "loader", "package_releases") or {}
    shown = [str(value(facts, "torch", "version") or "")] + [str(v) for k in ("torch", "pytorch")
                                                            for v in releases.get(k) or []]
    return [v for v in dict.fromkeys(shown) if v][:3]


def _torch_shown_at_or_after(facts: Mapping[str, Any], release: str) -> bool:
    """(round 31b) Whether the text shows a torch at or after ``release``: then that torch has the name, and what
    the compiler lacks is an include or another torch on the build's path, not a newer torch."""
    return bool(release) and any(release_tuple(v) >= release_tuple(release) for v in _torch_releases_shown(facts))


@builds("source_needs_newer_torch")
def _newer_torch(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    """(round 31b) A torch C++ name a later torch added (tables/added_apis.csv, form cpp), unknown to the compiler;
    (round 35a) a member called as a template that the installed torch declares plain (template_call_on_plain_member)."""
    if ev.get("sign") == "template_call_on_plain_member":
        at = str(ev.get("phrase") or "the source")
        return {"title": f"The extension's source calls a torch member as a template ({at}: x.data_ptr<scalar_t>() "
                         "or the like) that the installed torch declares as a plain function: the source was written "
                         "for a newer torch than the one it is built against",
                "detail": "nvcc reads x.data_ptr<scalar_t>() against headers with only void* data_ptr() as a "
                          "comparison: 'a pointer to a bound function may only be used to call the function', 'type "
                          "name is not allowed', 'expected an expression'. Torch releases that declare the templated "
                          "member (data_ptr<T>, its accessors) compile it; install the torch the project requires "
                          "(its README or setup.py), then rebuild.",
                "commands": ["python -c \"import torch; print(torch.__version__)\"   # the torch the build compiles "
                             "against",
                             f"grep -n \"data_ptr\\|accessor\" {at.rsplit('(', 1)[0]}   # the templated calls, at line "
                             f"{at.rsplit('(', 1)[-1].rstrip(')')}",
                             "pip install --no-build-isolation -v .   # after installing the torch the project "
                             "requires"]}
    name, ver = str(ev.get("name") or "a torch C++ API"), str(ev.get("added_in") or "")
    shown = _torch_releases_shown(facts)
    from smrnb.doctor import tables

    key = str(ev.get("key") or "")
    row = next((r for r in tables.rows("added_apis") if r["key"] == key), None)  # the event's own row, to cite
    return {"title": f"The extension's source uses {name}, which torch {ver} added: it was written for a newer torch "
                     "than the one it is built against" + (f" (the text shows torch {' / '.join(shown)})" if shown else ""),
            "detail": f"torch {ver} added {name}; a torch before it has no such name, so the build needs torch {ver} or "
                      "later (or a release of the extension written for the installed torch). Where the torch in "
                      "the building Python is already that new, the build compiled against another torch's headers "
                      "(pip's isolated build environment: --no-build-isolation), or the source lacks the include.",
            "commands": ["python -c \"import torch; print(torch.__version__)\"   # the torch the build compiles against",
                         f'pip install "torch>={ver}"   # with its matching torchvision/torchaudio (pytorch.org\'s '
                         "install line for the CUDA the driver supports), then rebuild: pip install "
                         "--no-build-isolation -v .",
                         "# or: git checkout <a tag of the extension written for the installed torch>"],
            "evidence": [f"tables/added_apis.csv {key}: added in torch {ver} (source: {row['source']}; verified: "
                         f"{row['verified']})"] if row else []}


#: (round 34b) library_messages rows whose reading is a compiled part left out of a build: what to run
_NOT_COMPILED_ROW_COMMANDS: dict[str, list[str]] = {
    "torchaudio_cpp_extension_missing": [
        "python -c \"import torch, torchaudio; print(torch.__version__, torchaudio.__version__)\"   # the pair",
        "pip install --force-reinstall torchaudio==<torch's paired release> --index-url "
        "https://download.pytorch.org/whl/<cpu|cuXYZ>   # <cpu|cuXYZ>: torch's build (cpu, or cu121 for CUDA 12.1); "
        "a wheel with the extension (Windows: a release that ships one, or WSL2)"],
    "caffe_built_without_nccl": [
        "grep -n USE_NCCL CMakeLists.txt Makefile.config 2>/dev/null   # OFF / commented out: no NCCL methods in pycaffe",
        "cmake -DUSE_NCCL=ON .. && make -j && make pycaffe   # (Makefile build: USE_NCCL := 1, then make all pycaffe)"],
}


@builds("extension_not_compiled")
def _not_compiled(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    if str(ev.get("key") or "") in _NOT_COMPILED_ROW_COMMANDS:  # (round 34b) a library's own words for it
        return {"title": str(ev.get("meaning") or "").split(": ")[0].rstrip("."),
                "detail": str(ev.get("meaning") or ""), "commands": _NOT_COMPILED_ROW_COMMANDS[str(ev["key"])]}
    what = ev.get("module") or ev.get("project") or ""
    if "." in str(what) and (row := source_built_row(str(what))):  # (round 34b) built in place in a project's tree
        return {"title": f"{what} was never built: {row['project']} builds it from its C++ sources in place",
                "commands": [f"{row['built_by'].strip()}   # in the project's checkout, with the Python that runs it",
                             f"python -c \"import {what}\"   # then again"]}
    pkg = str(what).split(".")[0] if what else "<package>"
    if pkg.startswith("_"):  # (round 31a) a private module's name is no distribution pip installs ("Invalid requirement")
        pkg = f"<the package that installs {pkg}>"
    if owner := COMPILED_PART_OF.get(pkg):  # (round 27a) a compiled part distributed apart from its package
        return {"title": f"{pkg}, {owner}'s compiled part, is not installed: it is a distribution of its own",
                "fix": f"{owner} imports {pkg}, its compiled backend, which pip installs as a distribution of its own "
                       f"(releases of {owner} that do not require it leave it out): install {pkg} of a release {owner} "
                       "accepts into the same Python.",
                "commands": [f"pip show {owner}   # its release: {pkg} must be of a release {owner} accepts",
                             f'pip install -U "{owner}" {pkg}   # both, of matching releases ({owner}\'s install '
                             "page names the GPU variant)"]}
    return {"title": "The package's compiled module was never built" + (f" ({what})" if what else ""),
            "commands": [f"pip install --no-build-isolation --force-reinstall --no-cache-dir {pkg}   # with its "
                         "CUDA extension (FORCE_CUDA=1 where the package reads it)",
                         f"pip show -f {pkg} | grep -E '\\.(so|pyd)$'   # the compiled modules it installed"]}


def row_field(ev: Mapping[str, Any], field: str) -> str:
    """A column (``field``) of the table row an event was read by (``library`` of library_messages.csv); ""
    for an event of no table row."""
    from smrnb.doctor import tables

    if ev.get("table") not in tables.MESSAGE_TABLES:
        return ""
    row = next((r for r in tables.message_rows(str(ev["table"])) if r.key == ev.get("key")), None)
    return str(row.fields.get(field) or "").strip() if row is not None else ""


def pip_names(library: str) -> str:
    """The pip names a table's ``library`` column gives (``OpenMMLab (mmcv, mmengine)`` -> ``mmcv mmengine``,
    ``ipywidgets (Jupyter widgets)`` -> ``ipywidgets``); ``""`` where it names no package (``Python (...)``)."""
    head, _, inner = str(library).partition("(")
    names = [n.strip() for n in inner.rstrip(") ").split(",")] if inner else []
    if names and all(re.fullmatch(r"[A-Za-z][\w.-]*", n) for n in names):
        return " ".join(names)
    head = head.strip()
    return head if re.fullmatch(r"[A-Za-z][\w.-]*", head) and head.lower() not in ("python", "cpython") else ""


#: NumPy 2.0's own AttributeError for a name it removed (numpy/__init__.py __getattr__ with _expired_attrs_2_0.py)
_OWN_REMOVAL_RE = re.compile(r"`np\.(\w{1,40})` was removed in the NumPy 2\.0 release")


@functools.cache
def _removed_api_rows() -> dict[str, dict[str, str]]:
    """tables/removed_apis.csv by the dotted name Python's own line names (``module`` + ``.name``; ``module`` alone
    for a removed module)."""
    from smrnb.doctor import tables

    out: dict[str, dict[str, str]] = {}
    for r in tables.rows("removed_apis"):
        full = r["module"] + (f".{r['name']}" if r.get("name") else "")
        out.setdefault(full, r)
    return out


@functools.cache
def _removed_by_bare_name() -> dict[str, dict[str, str]]:
    """(round 26a) The rows of tables/removed_apis.csv by a removed name alone, for Python's bare "cannot import name
    'X'" with no module: only a distinctive name (8 characters or more, with an underscore or an inner capital: not
    'Config', 'Registry', 'Image') that every row naming it gives to one library."""
    from smrnb.doctor import tables

    by: dict[str, list[dict[str, str]]] = {}
    for r in tables.rows("removed_apis"):
        name = r.get("name") or ""
        if r.get("form") in ("import", "attribute") and len(name) >= 8 and (
                "_" in name.strip("_") or any(c.isupper() for c in name[1:])):
            by.setdefault(name, []).append(r)
    return {n: rs[0] for n, rs in by.items() if len({r["library"] for r in rs}) == 1}


def removed_api(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> dict[str, str] | None:
    """(round 23e) The row of tables/removed_apis.csv naming what a "this name is not there" event of Python's own
    (``module 'X' has no attribute 'Y'``, ``cannot import name 'Y' from 'X'``, ``No module named 'X.Y'``, ``type object
    'C' has no attribute 'Y'``) names: a release of that library (or of Python) removed or renamed it. None for a name
    no release removed (a typo, a module of the project's own, a name never in the library), and None where every
    release of the library the text names is older than the removal (the table does not explain it then)."""
    if ev.get("kind") != "module_missing" or ev.get("dashed") or ev.get("none_import"):
        return None
    mod = str(ev.get("module") or "")
    rows = _removed_api_rows()
    if mod.startswith(("open3d.cpu.pybind.", "open3d.cuda.pybind.")):
        # (round 35d) Open3D's compiled submodules print their build's path (python/open3d/__init__.py: 'from
        # open3d.cpu.pybind import (camera, geometry, io, pipelines, ...)'): open3d.pipelines.registration's name
        mod = "open3d." + mod.split(".", 3)[3]
    row = rows.get(mod)  # (a class named alone, "type object 'Image'", is read as its module's name: _textfacts)
    if row is None and ev.get("bare_name"):
        row = _removed_by_bare_name().get(mod)  # (round 26a) "cannot import name 'load_state_dict_from_url'" alone
    parts = mod.split(".")
    for i in range(len(parts) - 1, 0, -1):
        if row is not None or ev.get("import_name") or ev.get("attribute"):
            break
        # a submodule of a removed module ("No module named 'distutils.util'" on Python 3.12) went with it
        up = rows.get(".".join(parts[:i]))
        row = up if up is not None and up.get("form") == "module" else None
    if row is None or _shown_before_removal(facts, row):
        return None  # (or the release shown predates the removal: something else lacks the name)
    return row


def _shown_before_removal(facts: Mapping[str, Any], row: Mapping[str, str]) -> bool:
    """Whether every release of a tables/removed_apis.csv row's library (or Python) the text shows is older than the
    release that removed the row's name (the row does not explain the name's absence then)."""
    if row["library"].lower() != "python":
        return shown_before_removal(row, value(facts, "loader", "package_releases") or {})
    named = [str(v) for v in value(facts, "loader", "pythons_named") or []]
    return bool(named) and all(release_tuple(v) < release_tuple(row["removed_in"]) for v in named)


@functools.cache
def _added_api_rows() -> dict[str, dict[str, str]]:
    """(round 27d) tables/added_apis.csv (the reverse of removed_apis.csv: what a release ADDED, from its release
    notes) by the dotted name Python's own line names (``module`` + ``.name``; ``module`` alone for a module)."""
    from smrnb.doctor import tables

    return {r["module"] + (f".{r['name']}" if r.get("name") else ""): r for r in tables.rows("added_apis")
            if r.get("form") != "cpp"}  # (round 31b) C++ names: read from a compiler's error, never Python's


def added_api(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> dict[str, str] | None:
    """(round 27d) The row of tables/added_apis.csv naming what a "this name is not there" event of Python's own
    names (``module 'drjit' has no attribute 'syntax'``, ``cannot import name 'X' from 'pkg'``, ``No module named
    'torch.nn.attention'``): a later release of that library added it, so the installed one is older than the code's.
    A module row only for "No module named" (an attribute of a parent is a submodule not imported, round 23's
    reading), a name row only for the attribute or import form; None where the text shows a release of the library
    at or after the one that added it (then something else lacks the name: a shadowing file, a broken install)."""
    if ev.get("kind") != "module_missing" or ev.get("dashed") or ev.get("none_import") or ev.get("bare_name"):
        return None
    row = _added_api_rows().get(str(ev.get("module") or ""))
    if row is None or (row.get("form") == "module") != (not (ev.get("attribute") or ev.get("import_name"))):
        return None
    shown = _releases_shown(facts, row)
    if shown and any(release_tuple(v) >= release_tuple(row["added_in"]) for v in shown):
        return None
    return row


def _checkout_row(row: Mapping[str, str]) -> bool:
    """Whether a table row's module is a repository's own folder (YOLOv5's models.yolo: a project run from its
    checkout, :data:`_PROJECT_FOLDER_NAMES`), not an installed package's: its release comes from git, and PyPI's
    package of the library's name (where there is one) is another project's packaging."""
    top = row["module"].split(".")[0].lower()
    return top in _PROJECT_FOLDER_NAMES and top not in {row["library"].lower(), row["library"].lower().replace("-", "_")}


def added_api_fix(row: Mapping[str, str], facts: Mapping[str, Any] | None = None, *,
                  unpickled: bool = False) -> dict[str, Any]:
    """(round 27d) The title, commands and evidence of a name tables/added_apis.csv says a later release added; (round
    36) where pickle named it (``unpickled``), the saved object is what was written by the later release."""
    what = row["module"] + (f".{row['name']}" if row.get("name") else "")
    lib, ver = row["library"], row["added_in"]
    shown = _releases_shown(facts, row)
    whose = (f"the saved object (a pickle, a checkpoint) was written by {lib} {ver} or later, and the installed {lib} "
             "is older" if unpickled else f"the installed {lib} is older than the code was written for")
    return {"title": f"{what} arrived in {lib} {ver}: {whose}"
                     + (f" (the text shows {lib} {' / '.join(shown)})" if shown else ""),
            "detail": f"{lib} {ver} added {what} (its release notes); a release before it has no such name, so the "
                      f"code needs {lib} {ver} or later. Where `pip show {lib}` already says {ver} or later, the "
                      "Python that runs the code is another one (a kernel, a second environment), or a file named "
                      f"like {what.split('.')[0]} shadows it.",
            "commands": ([f"git -C <the {lib} checkout> describe --tags   # the release the checkout is at",
                          f"git -C <the {lib} checkout> pull   # {ver} or later (or: git checkout v{ver})"]
                         if _checkout_row(row) else
                         [f"pip show {lib}   # the installed release (in the Python that runs the code: python -m pip)",
                          f'pip install -U "{lib}>={ver}"   # the release that added {what}, or later']),
            "evidence": [f"tables/added_apis.csv {row['key']}: added in {lib} {ver} (source: {row['source']}; "
                         f"verified: {row['verified']})",
                         *([f"the text shows {lib} {' / '.join(shown)}, older than {ver}"] if shown else [])]}


#: (round 27c) the suffixes of a top-level module's name that a build gives only to a compiled module (not _ops/_op:
#: a project's Python package is named mesh_ops as often)
_COMPILED_TOP_SUFFIXES = ("_ext", "_C", "_cuda", "_cpp", "_cuda_kernel", "_backend")


def _compiled_top_lacks_function(ev: Mapping[str, Any], parts: list[str]) -> bool:
    """(round 27c) Python's "module 'X_ext' has no attribute 'f'" for a top-level module named as a compiled one
    (exllamav2_ext, a project's foo_cuda), not torch's own: the module imported and lacks f, which the Python code
    calling it expects: it was built, from another revision than that code (a prebuilt wheel older than the checkout,
    a stale build): rebuilding it from the same source first (extension_not_compiled), the release pairing second."""
    top = parts[0] if parts else ""
    return bool(ev.get("attribute")) and len(parts) == 2 and top not in ("torch", "_C") and not top.startswith("__") \
        and (top.endswith(_COMPILED_TOP_SUFFIXES) or top in _COMPILED_NAMES) and "partially initialized" not in \
        str(ev.get("line") or "")


def compiled_top_fix(mod: str) -> dict[str, Any]:
    """(round 27c) The fix of a top-level compiled module lacking a function its package's Python code calls."""
    top, fn = (mod.split(".") + [""])[:2]
    pkg = re.sub(r"(?:_ext|_C|_c|_cuda|_cpp|_backend|_ops|_op)$", "", top) or top
    return {"title": f"The compiled module {top} lacks {fn}, which the Python code calling it expects: the two are of "
                     "different revisions (a prebuilt wheel older than the source, a stale build)",
            "commands": [f"python -c \"import {top}; print({top}.__file__)\"   # the build that is loaded (site-packages "
                         "or the checkout)",
                         f"pip uninstall -y {pkg} && pip install --no-build-isolation .   # in the checkout: the "
                         "extension built from the same revision as its Python code (or the wheel of that release)"]}


def _removed_member_row(line: str) -> dict[str, str] | None:
    """(round 27c) The tables/removed_apis.csv row of an object's missing member in Python's words ("'tensorrt.tensorrt.
    ICudaEngine' object has no attribute 'get_binding_shape'"): the class's member a release removed, or None."""
    from smrnb.doctor._textfacts import _INSTANCE_ATTR_RE, _removed_class_attrs

    for cls, attr in _INSTANCE_ATTR_RE.findall(line)[:1]:
        full = _removed_class_attrs().get((cls, attr))
        if full:
            return _removed_api_rows().get(full)
    return None


def _releases_shown(facts: Mapping[str, Any] | None, row: Mapping[str, str]) -> list[str]:
    """(round 26a) The releases of the row's library (or Python) the text shows (a pip list line, 'trimesh 4.11.0')."""
    if not facts:
        return []
    if row["library"].lower() == "python":
        return [str(v) for v in value(facts, "loader", "pythons_named") or []][:2]
    releases = value(facts, "loader", "package_releases") or {}
    names = dict.fromkeys([row["library"].lower().replace("-", "_"), row["module"].split(".")[0].lower()])
    return [str(v) for k in names for v in releases.get(k) or []][:2]


def _removed_row_codes(row: Mapping[str, str], ev: Mapping[str, Any]) -> list[str]:
    """The codes of a name tables/removed_apis.csv says a release removed (the row's); (round 26a) an object's method
    or a keyword refused with no traceback frame in the text (a snippet of the user's own code calling it): no
    project's code is shown calling it, so the user's code to change second, not the calling project's update."""
    codes = [c for c in str(row.get("codes") or "package_api_version_mismatch").split("|") if c]
    if ev.get("framed") is False and "library_bug" in codes:
        codes = [c for c in codes if c != "library_bug"] + ["user_code_error"]
    return codes


def _torch_pairs() -> dict[str, dict[str, str]]:
    """(round 27e; round 28v: read from tables/torch_companions.csv, each row sourced) torch's release line for each
    torchvision / torchaudio line: torchvision's README compatibility table (torch 2.13 -> torchvision 0.28 as
    published with torchvision 0.29.2) and torchaudio's installation Compatibility Matrix (torchaudio 2.x is torch
    2.x's, 0.1x is torch 1.1x's; torchaudio 2.11 supports torch 2.11 and later)."""
    from smrnb.doctor.tables import _read

    out: dict[str, dict[str, str]] = {}
    for r in _read.rows("torch_companions"):
        out.setdefault(r["library"], {})[r["line"]] = r["torch"]
    return out


def _torch_pair_exception(lib: str, torch_release: str) -> str:
    """(round 28v) The companion release of a torch patch release whose patch number differs from torch's
    (torch_companions.csv's ``exceptions``: torch 2.0.0 -> torchvision 0.15.1 / torchaudio 2.0.1, the wheels of
    PyTorch's previous-versions page); "" for the others."""
    from smrnb.doctor.tables import _read

    for r in _read.rows("torch_companions"):
        if r["library"] == lib:
            for pair in str(r.get("exceptions") or "").split():
                t, _, c = pair.partition("=")
                if t == torch_release:
                    return c
    return ""


def _companion_pair_pin(lib: str, removed_in: str) -> str:
    """(round 27e) The last torchvision / torchaudio line before ``removed_in`` pinned with the torch of its release
    line, from PyTorch's own index: the companion alone below the installed release makes pip replace torch to satisfy
    it (on Windows from PyPI, whose torch is CPU-only)."""
    pairs = _torch_pairs()[lib]
    lines = list(pairs)
    older = [v for v in lines if release_tuple(v) < release_tuple(removed_in)]
    if not older:
        return f"# {lib} before {removed_in}: pin it with the torch of its release line, never alone"
    line = older[-1]
    return (f'pip install "torch=={pairs[line]}.*" "{lib}=={line}.*" --index-url '
            f"https://download.pytorch.org/whl/<cuXYZ>   # only where the code cannot change: the pair of one "
            f"release line (the companion alone makes pip replace torch, from PyPI a CPU-only one on Windows); "
            f"cuXYZ: the installed torch's CUDA (torch.version.cuda)")


def companion_for_torch(lib: str, torch_version: str) -> str:
    """(round 27e) The torchvision / torchaudio release of the installed torch's release line (:func:`_torch_pairs`):
    the same patch number (torch 2.3.1 -> torchvision 0.18.1, torchaudio 2.3.1), or the table's exception (torch
    2.0.1 -> torchvision 0.15.2, torchaudio 2.0.2), else the line (``0.18.*``) where the text gives no patch; "" for
    a torch the table lacks."""
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", torch_version or "")
    pairs = _torch_pairs()
    if not m or lib not in pairs:
        return ""
    mm = f"{m.group(1)}.{m.group(2)}"
    line = next((c for c, t in pairs[lib].items() if t == mm), "")
    if not line:
        return ""
    if m.group(3) is None:
        return f"{line}.*"
    return _torch_pair_exception(lib, f"{mm}.{m.group(3)}") or f"{line}.{m.group(3)}"


def pip_conflict_fix(ev: dict[str, Any]) -> dict[str, Any]:
    """(round 28a) The pins pip's resolver says conflict, and the commands that align them: the pinned requirement
    moved to what the package needs, or the package pinned to a release that accepts the pin."""
    requested = dict(ev.get("requested") or {})
    deps = [d for d in ev.get("depends") or [] if len(d) == 4]
    pinned = next((d for d in deps if requested.get(d[2])), deps[0])
    pkg, ver, dep, spec = pinned
    mine = requested.get(dep, "")
    said = "; ".join(f"{p} {v} requires {d}{s or ' (any)'}" for p, v, d, s in deps[:4])
    cmds = []
    if spec:
        cmds.append(f"pip install \"{dep}{spec}\" \"{pkg}=={ver}\"   # move your pin of {dep} to what {pkg} {ver} "
                    "needs (edit it in requirements.txt)")
    if mine:
        cmds.append(f"pip install \"{dep}{mine}\" \"{pkg}<{ver}\"   # or keep {dep}{mine} and let pip pick an "
                    f"older {pkg} that accepts it")
    cmds.append(f"pip index versions {pkg}   # the releases of {pkg} there are (each one's requirements: pip "
                f"download --no-deps {pkg}==<release>)")
    return {"title": f"pip cannot satisfy the requirements together: {said}"
                     + (f", and the command pins {dep}{mine}" if mine else ""),
            "fix": "pip's resolver found no set of releases that meets every requirement: the pins asked for (the "
                   "command's, a requirements file's) and what the releases it tried require exclude each other. "
                   "Loosen or move the pin the conflict names (not every pin: the others may be needed), or pin the "
                   "package that requires it to a release that accepts it.",
            "commands": cmds}


def removed_api_fix(row: Mapping[str, str], facts: Mapping[str, Any] | None = None, *,
                    unpickled: bool = False) -> dict[str, Any]:
    """The title, detail, commands and evidence of a name tables/removed_apis.csv says a release removed; (round 26a)
    the release the text shows, where it shows one, in the title and evidence; (round 36) where pickle named it
    (``unpickled``), the saved object is what an older release wrote, and no line of the code is to change."""
    what, lib, ver, repl, _ = _removed_named(row)
    if row.get("form") == "keyword":  # (round 26a) a keyword argument of a callable
        what = f"the {row['name']}= argument of {row['module']}()"
    if lib.lower() == "python":
        pin = (f"conda create -n py-older python=3.{release_tuple(ver)[1] - 1}   # a Python older than {ver}, "
               "which still has it")
    elif lib.lower() in _torch_pairs():  # (round 27e) a companion pinned alone makes pip replace torch (PyPI's CPU-only on Windows)
        pin = _companion_pair_pin(lib.lower(), ver)
    else:
        pin = f'pip install "{lib}<{ver}"   # the last release before the one that removed it'
    head = what[:1].upper() + what[1:] if row.get("form") == "keyword" else what
    shown = _releases_shown(facts, row)
    name = "Python" if lib.lower() == "python" else lib
    since = f" (the text shows {name} {' / '.join(shown)})" if shown else ""
    evidence = [f"tables/removed_apis.csv {row['key']}: removed in {lib} {ver} (source: {row['source']}; "
                f"verified: {row['verified']})",
                *([f"the text shows {name} {' / '.join(shown)}, not older than {ver}"] if shown else [])]
    if unpickled:
        return {"title": f"{head} was removed in {name} {ver}: the saved object (a pickle, a checkpoint) was written by "
                         "an older release, whose class the installed one no longer has" + since,
                "detail": f"pickle stores a class by its module and name; {name} {ver} removed {what}"
                          + (f" (now {repl})" if repl else "") + ". Load the file with a release before "
                          f"{ver}, save its plain data (a state_dict, arrays), and load that with the installed one; "
                          "or save it anew with the installed release.",
                "commands": [pin, f"pip show {lib.lower()}   # the installed release"],
                "evidence": evidence}
    return {"title": f"{head} was removed in {name} {ver}: the code was written for an older release" + since,
            "detail": f"Replacement: {repl}" if repl else "",
            # (round 28a, blind audit 27) the code change first wherever the row names one: a pin of an old release
            # may have no build for the Python in use (scipy<1.2, open3d<0.10), and a companion pinned alone moves torch
            "commands": [*([f"# change the code: {what} -> {repl}", pin] if repl else [pin, f"pip show {lib}"]),
                         *([] if lib.lower() == "python" else [f"pip show {lib.lower()}   # the installed release"])],
            "evidence": evidence}



def _removed_named(row: Mapping[str, str]) -> tuple[str, str, str, str, str]:
    """A tables/removed_apis.csv row's words: what the code calls (``mod.name``, ``f() with k=``), the library, the
    release that removed it, its replacement and the name to grep for."""
    what = row["module"] + (f".{row['name']}" if row.get("name") else "")
    if row.get("form") == "keyword":
        what = f"{row['module']}() with {row['name']}="
    name = row.get("name") or row["module"].rsplit(".", 1)[-1]
    return what, row["library"], row["removed_in"], row.get("replacement") or "", name


def removed_api_caller_fix(row: Mapping[str, str], *, unpickled: bool = False) -> dict[str, Any]:
    """(round 26a) The second reading of a name tables/removed_apis.csv says a release removed: the code calling it is
    a project's (or another package's) not updated for that release; its maintainers' fix, or a pin in its
    requirements; (round 36) where pickle named it (``unpickled``), the file a project ships or downloads."""
    what, lib, ver, repl, name = _removed_named(row)
    if unpickled:
        return {"title": f"The saved file came with a project written for {lib} before {ver} (which removed {what}): "
                         f"its maintainers' file saved anew (or a pin of {lib} below {ver} in its requirements) is due",
                "fix": f"Where the file is a project's (a checkpoint or dataset it ships or downloads), it was pickled "
                       f"with {lib} before {ver}: look for a newer file or release of the project, or report it; "
                       "where you saved it yourself, the first reading is the whole story.",
                "commands": ["git pull   # in the project's checkout: a newer file or loader, if any",
                             f"grep -n -i \"{lib}\" requirements*.txt setup.py pyproject.toml   # the release it pins"],
                "evidence": [f"tables/removed_apis.csv {row['key']}: removed in {lib} {ver} (source: {row['source']})"]}
    return {"title": f"The project calling {what} was not updated for {lib} {ver}, which removed it: its maintainers' "
                     f"fix (or a pin of {lib} below {ver} in its requirements) is due",
            "fix": f"Where the call is in a project's or another package's code (its file in the traceback, not "
                   f"yours), that code was written for {lib} before {ver} and its requirements do not pin it: update "
                   f"the project (its maintainers may have ported it{' to ' + repl if repl else ''}), or report it. "
                   f"Where the call is your own code, the first reading is the whole story.",
            "commands": [f"grep -rn \"{name}\" --include=*.py .   # the calls to port",
                         "git pull   # in the project's checkout: the maintainers' port, if any",
                         f"grep -n -i \"{lib}\" requirements*.txt setup.py pyproject.toml   # the release it pins"],
            "evidence": [f"tables/removed_apis.csv {row['key']}: removed in {lib} {ver} (source: {row['source']})"]}


def removed_api_own_fix(row: Mapping[str, str], call: str | None = None) -> dict[str, Any]:
    """(round 26a) The user's own code calling a name tables/removed_apis.csv says a release removed (a snippet with
    no traceback frame of a project's file): the code to change; (round 28a) grepped for as the text's own line calls
    it (``df.append(``, not every ``append``), else as a call of the removed member."""
    what, lib, ver, repl, name = _removed_named(row)
    grep = f"grep -rnF \"{call}\"" if call else f"grep -rn \"{name}\"" if row.get("form") == "keyword" or not \
        row.get("name") else f"grep -rnF \".{name}(\""
    return {"title": f"Not your environment: your code calls {what}, which {lib} {ver} removed"
                     + (f": change it to {repl}" if repl else ""),
            "fix": f"The call is in your own code (the text shows no project's file calling it): port it to the "
                   f"installed release{' (' + repl + ')' if repl else ''}, or keep {lib} below {ver}.",
            "commands": [f"{grep} --include=*.py --include=*.ipynb .   # the calls to change"],
            "evidence": [f"tables/removed_apis.csv {row['key']}: removed in {lib} {ver} (source: {row['source']})"]}


#: (round 25a) message rows whose package_api_version_mismatch is the release of a program or project the text does
#: not name as a package: what to run
_CLI_RELEASE = ["<the program> --help   # the options and subcommands of the installed release",
                "pip show <the program's package>   # its release; the command in a README may be written for another "
                "one (its docs for that release, or pip install '<the package>==<that release>')"]
_API_ROW_COMMANDS: dict[str, list[str]] = {
    # (round 27e, blind audit 27) APIs their own messages say moved or were removed (tables/library_messages.csv)
    "openai_api_removed_in_v1": ["pip show openai   # 1.0 or later: the module-level API is gone",
                                 "openai migrate   # openai's own tool: ports the code to the 1.0 client (OpenAI())",
                                 'pip install "openai==0.28"   # or, where the code cannot change, the old API, as '
                                 "openai's message says"],
    "pydantic_basesettings_moved": ["pip install pydantic-settings   # then in the code: from pydantic_settings import "
                                    "BaseSettings",
                                    'pip install "pydantic<2"   # only where the code cannot change'],
    # (round 27c) syntax of a newer Python than the one running (tables/library_messages.csv, Python's own message)
    "py_union_operator_before_310": ["python --version   # X | None between classes needs Python 3.10 or later",
                                     "conda create -n py310 python=3.10   # a Python the code was written for",
                                     "pip install '<the package whose file holds the line>==<a release for this "
                                     "Python>'   # its python_requires names the Pythons a release supports"],
    "py_dict_union_before_39": ["python --version   # dict | dict needs Python 3.9 or later",
                                "conda create -n py39 python=3.9   # a Python the code was written for",
                                "pip install '<the package whose file holds the line>==<a release for this Python>'"],
    # (round 27c) an installer too old for the package's metadata (setuptools' own messages)
    "setuptools_invalid_environment_marker": ["python -m pip install --upgrade pip setuptools   # in the Python that "
                                              "installs (an old virtualenv's pip 1.x reads no PEP 508 markers)",
                                              "python -m pip install <the package>   # again, with the new pip"],
    "setuptools_pep621_unknown_project": ["python -m pip install --upgrade pip setuptools   # setuptools 61+ reads "
                                          "pyproject.toml's [project] table",
                                          "pip uninstall -y UNKNOWN && pip install .   # the empty UNKNOWN 0.0.0 out, "
                                          "then the project again"],
    "argparse_unrecognized_arguments": _CLI_RELEASE, "cli_invalid_or_misplaced_choice": _CLI_RELEASE,
    # (round 34b) a local server's API without the route its client calls
    "local_api_route_not_found": ["curl -s http://127.0.0.1:<port>/docs | head   # <port>: the server's port (in the "
                                  "URL above); the routes the running server serves (FastAPI's docs page; else the "
                                  "server's README for its release)",
                                  "cd <the server's folder> && git pull   # (or its release the client names) then "
                                  "start its API again"],
    # (round 34b) a project's own setup.py option its checked-out revision does not take
    "setup_py_option_not_recognized": ["grep -n \"sys.argv\" setup.py   # the options this revision's setup.py takes "
                                       "out of sys.argv itself",
                                       "git log -1 --format='%h %cd'; git checkout <the commit the instructions pin>   "
                                       "# the revision the build command was written for"],
    "torch_schema_argument_type": ["# the 'Declaration:' line under the message: the installed release's signature",
                                   "pip show <the package of the function or operator: image:: is torchvision's, "
                                   "torch_sparse's scripted classes its own>   # its release, against the one the "
                                   "calling code was written for"],
    "yacs_nonexistent_config_key": ["python -c \"import <the package>; print(<the package>.__file__)\"   # the copy "
                                    "imported: a fork's config needs the fork's package, not the upstream release",
                                    "grep -rn \"<the key's last part>\" --include=*.py <that folder>   # where its "
                                    "defaults define the key, if anywhere"],
}


def _script_removed_fix(ev: Mapping[str, Any]) -> dict[str, Any]:
    """(round 36) A console script that a release of its distribution removed (huggingface_hub 1.0's huggingface-cli):
    the script in its place, and the pin that keeps the old one."""
    gone, script = ev["script_removed"], str(ev.get("script") or "the script")
    lib, removed, instead = gone["library"], gone["removed_in"], gone["instead"]
    return {"title": f"{script}: command not found: {lib} {removed} removed {script}; its commands are "
                     f"{instead}'s ({lib} {gone['added_in']} and later have {instead})",
            "evidence": [f"{lib} {removed} removed the {script} command: {gone['source']}"],
            "fix": f"Run the same command with {instead} ({gone['examples']}); or, for scripts written for {script}, "
                   f"keep a release before {removed}.",
            "commands": [f"{instead} --help   # the commands of the installed {lib} ({instead} version: its release)",
                         f"python -m pip show {lib}   # the installed release: {removed} or later has no {script}",
                         f"python -m pip install \"{lib}<{removed}\"   # only where a script must keep calling {script}"]}


@builds("package_api_version_mismatch")
def _api_version(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    mod = str(ev.get("module") or "")
    if ev.get("script_removed"):  # (round 36) rules._torch._what_a_row_installs: a console script a release removed
        return _script_removed_fix(ev)
    if comfyui_core_missing(ev):  # (round 34b) a custom node written for a later ComfyUI
        return comfyui_core_fix(mod, "package_api_version_mismatch")
    row = removed_api(facts, ev)
    if row is not None:
        return removed_api_fix(row, facts, unpickled=bool(ev.get("unpickled")))
    if (row := added_api(facts, ev)) is not None:  # (round 27d) a name a later release added
        return added_api_fix(row, facts, unpickled=bool(ev.get("unpickled")))
    if ev.get("kind") == "pip_conflict":  # (round 28a) rules._kaolin
        return pip_conflict_fix(ev)
    if ev.get("kind") == "signature_mismatch" and ev.get("caller_package"):  # (round 26b) signature_codes
        return caller_package_fix(facts, ev, "package_api_version_mismatch")
    if ev.get("kind") == "signature_mismatch":  # a call of a package's function written for another release
        top = _called_package(facts, str(ev.get("name") or ""))
        callee = str(ev.get("callee") or ev.get("name") or "the function")
        return {"title": f"The call of {callee}() fits another release of {top or 'its package'}, not the installed one",
                "commands": [f"pip show {top}   # the installed release" if top else "pip list",
                             f"pip install '{top or '<package>'}==<the release the code names>'   # see its "
                             "requirements file, or update the call to the installed release's signature"]}
    if ev.get("kind") == "class_attribute_missing":  # (round 26b) class_attribute_codes
        return project_class_fix(facts, ev, "package_api_version_mismatch")
    if ev.get("sign") == "release_breaks_said":  # (round 24) rules._torch.release_breaks_told
        pkg = str(ev.get("package") or "")
        return {"title": f"The code was written for another release of {pkg or 'a package it uses'}: the release the "
                         "text names changed its API",
                "commands": [f"pip show {pkg}   # the installed release" if pkg else "pip list",
                             f"pip install '{pkg or '<package>'}==<the release the code was written for>'   # see the "
                             "project's requirements file, or port the code to the new API"]}
    if ev.get("generic") and ev.get("package"):  # (round 24) a generic exception raised in an installed package
        pkg = str(ev["package"])
        return {"title": f"{pkg} fails in its own code: a library it uses may be of another release than it was "
                         "written for",
                "commands": ["pip list   # the releases of the libraries beside it",
                             f"pip show {pkg}   # its requirements: the releases it was written for"]}
    own = _OWN_REMOVAL_RE.search(str(ev.get("line") or "")) if not mod else None
    row = _removed_api_rows().get(f"numpy.{own.group(1)}") if own else None
    if row is not None:  # (round 23e) NumPy 2.0's own words for a name tables/removed_apis.csv names
        return removed_api_fix(row, facts)
    if not mod and ev.get("key") == "pip_requirement_conflict":  # (round 27a) pip's conflict note: its own pin
        return _pip_conflict_fix(ev)
    if not mod and ev.get("key") == "extension_type_lacks_method":
        row = _removed_member_row(str(ev.get("line") or ""))
        if row is not None and not _shown_before_removal(facts, row):
            # (round 27c) a compiled class's member tables/removed_apis.csv says a release removed (not where the text
            # shows only releases before that removal: TensorRT 8.6.1 has Builder.build_engine, which 10.0 removed)
            return removed_api_fix(row, facts)
    if not mod and str(ev.get("key") or "") in _API_ROW_COMMANDS:  # (round 25a) a program's own command line/config
        return {"title": str(ev.get("meaning") or "").split(": ")[0].rstrip("."),
                "commands": _API_ROW_COMMANDS[str(ev["key"])]}
    if not mod:  # a library's own message (tables/library_messages.csv): its meaning says which release of what
        meaning = str(ev.get("meaning") or "")
        lib = pip_names(row_field(ev, "library"))
        if not lib and ev.get("key") == "library_says_name_removed":  # (round 30b) the library whose frame raised it
            lib = pip_names(str(value(facts, "torch", "last_frame_package") or ""))
        title = meaning.split(": ")[0].rstrip(".") or f"The installed {lib or 'package'} is another release than the code needs"
        asked = _PLEASE_INSTALL_RE.search(str(ev.get("line") or ""))
        if asked:  # (round 29, blind audit 29) the message names the range to install: that range, its package shown
            pkg, spec = asked.group(1), re.sub(r"\s+", "", asked.group(2)).rstrip(".,;")
            if pkg.lower() == "mmcv" and re.search(r"(?:^|,)(?:>=|==|~=)1\.", spec):
                pkg = "mmcv-full"  # mmcv 1.x's CUDA ops are the package mmcv-full (_printed._mmcv_full's reading)
            return {"title": title, "detail": meaning if ": " in meaning else "",
                    "commands": [f"pip show {pkg}   # the installed release",
                                 f'pip install -U openmim && mim install "{pkg}{spec}"   # the range the message asks '
                                 "for; mim picks OpenMMLab's prebuilt wheel for this torch and CUDA (pip alone builds "
                                 "mmcv from its source)" if pkg.lower().startswith("mmcv") else
                                 f'pip install "{pkg}{spec}"   # the range the message asks for']}
        said = str(ev.get("line") or "").split(": ", 1)[-1].strip()
        return {"title": title, "detail": meaning if ": " in meaning else "",
                "commands": [*([f"# {said}   <- the library's own words: change the call as they say"]
                               if ev.get("key") == "library_says_name_removed" and said else []),
                             f"pip show {lib}   # the installed release" if lib else "pip list",
                             *(["pip install 'numpy<2'   # or a release of the failing package built for NumPy 2"]
                               if lib.lower() == "numpy" else [])]}
    if ev.get("bare_name"):  # (round 25a) the name alone: the import line names its package
        return {"title": f"{mod} cannot be imported from the installed release of its package: the code was written "
                         "for another release",
                "commands": [f"grep -rn \"import.*\\b{mod}\\b\" --include=*.py .   # the import line: 'from PKG... "
                             f"import {mod}' names the package",
                             "pip show <PKG>   # PKG: the package that import line names; the installed release, "
                             "where the project's requirements name the one it was written for"]}
    if _compiled_top_lacks_function(ev, mod.split(".")):  # (round 27c) module 'X_ext' has no attribute 'f'
        return compiled_top_fix(mod)
    top = mod.split(".")[0]
    releases = (value(facts, "loader", "package_releases") or {}).get(top.lower()) or []
    ver = str(releases[-1]) if releases else ""
    return {"title": f"{mod} does not exist in the installed {top}: the code was written for another release",
            "commands": [f"pip show {top}   # the installed release",
                         # (round 25a) a bound only from a release the text gives; else the project's own pins
                         f'pip install "{top}<{ver}"   # a release before the {ver} shown, if the code was written '
                         "for an older one: the name may have left several releases earlier, so the release the "
                         "project's requirements pin, or the library's changelog names, is the one to install (else: "
                         f"pip install -U {top})" if ver else
                         "pip install -r requirements.txt   # the releases the project was written for (its setup.py "
                         "or pyproject.toml names them too)"]}


def _pip_conflict_fix(ev: Mapping[str, Any]) -> dict[str, Any]:
    """(round 27a) pip's "X V requires Y<spec>, but you have Y W which is incompatible": Y pinned to what X declares,
    or X's release made for the installed Y."""
    g = ev.get("groups") or {}
    line = str(ev.get("line") or "")
    pkg = line.split(" requires ")[0].split()[-2] if " requires " in line and len(line.split(" requires ")[0].split()) >= 2 else ""
    dep, spec, have = str(g.get("dep") or "<library>"), str(g.get("spec") or "").strip(), str(g.get("have") or "")
    want = f"{dep}{spec}" if spec else dep
    return {"title": f"{pkg or 'A package'} requires {want}, but {dep} {have or '(another release)'} is installed: "
                     "the package was made for another release of it",
            "commands": [f'pip install "{want}"   # the release {pkg or "the package"} declares (pip check lists every '
                         "conflict left)",
                         f"pip show {dep} {pkg}".rstrip() + "   # the releases installed; where another package needs "
                         f"{dep} {have or 'as installed'}, the two need separate environments"]}


@builds("no_kernel_image_for_gpu")
def _no_kernel_image(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    from smrnb.doctor._install import build_arch_list, newer_toolkit_command

    ccs = [cc for cc in (value(facts, "driver", "gpus") or []) if isinstance(cc, Mapping)]
    caps = [str(g.get("compute_capability")) for g in ccs if g.get("compute_capability")]
    named = list(value(facts, "toolkit", "archs_named") or [])
    cc_group = (ev.get("groups") or {}).get("cc")
    if cc_group:
        caps.append(f"{cc_group[:-1]}.{cc_group[-1]}")
    nv = value(facts, "toolkit", "build_nvcc_version")
    evidence = [f"the GPU has compute capability {', '.join(caps)}"] if caps else []
    for ext in value(facts, "abi", "extensions") or []:
        if isinstance(ext, Mapping) and ext.get("embedded_archs") is not None:
            evidence.append(f"{ext.get('path')}: embeds {' '.join(ext['embedded_archs']) or 'nothing'}"
                            f"{', PTX' if ext.get('has_ptx') else ', no PTX'}")
    arch_list = value(facts, "torch", "arch_list")
    if caps and isinstance(arch_list, list) and arch_list:
        evidence.append(f"torch has kernels for it ({' '.join(arch_list)}): the extension lacks them")
    al = build_arch_list(caps or named, nv)
    arch = f'TORCH_CUDA_ARCH_LIST="{al}"' if al else 'TORCH_CUDA_ARCH_LIST="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1)"'
    kaolin = has_sign(facts, "kaolin")
    own = value(facts, "toolkit", "nvcc_command")
    if own and caps and not kaolin and not value(facts, "torch", "version") and not value(facts, "torch", "cuda"):
        # (round 29a, blind audit 28 F7) the failing program is the user's own nvcc build (no torch in the text): its
        # command again, with the GPU's architecture beside the ones it had
        return {"title": "No kernel image for this GPU in a binary that ran", "evidence": evidence,
                "commands": ["nvidia-smi --query-gpu=name,compute_cap --format=csv",
                             nvcc_for_gpu(str(own), caps, list(value(facts, "toolkit", "extension_archs") or []))]}
    if cupy := cupy_fails(facts):
        return {"title": f"No kernel image for this GPU in CuPy's binary ({cupy})", "evidence": evidence,
                "fix": CUPY_FIX, "commands": cupy_wheel_commands(facts, cupy, caps)}
    if own_program_fails(facts) and caps:
        return {"title": "No kernel image for this GPU in a program built without its architecture",
                "evidence": evidence, "commands": own_program_rebuild(facts, caps),
                "fix": "The program (or a library it loads) was built without code for this GPU's architecture: rebuild "
                       "it with the GPU's architecture (-gencode), with a toolkit whose nvcc knows that architecture."}
    cmds = ["nvidia-smi --query-gpu=name,compute_cap --format=csv",
            f"{arch} pip install --no-build-isolation --no-cache-dir --force-reinstall git+https://github.com/"
            "NVIDIAGameWorks/kaolin   # IGNORE_TORCH_VER=1 when torch is outside its range" if kaolin else
            tree_rebuild(facts, env=f"{arch} ")]
    if al and (newer := newer_toolkit_command(caps or named, nv)):  # a GPU newer than the nvcc in use
        cmds.append(newer)
    return {"title": "No kernel image for this GPU in a binary that ran", "evidence": evidence, "commands": cmds}


#: (round 37f) what a CuPy failure of the GPU's architecture needs (CuPy's installation guide; CUDA_PATH: CuPy's
#: environment-variables page, "For runtime")
CUPY_FIX = ("CuPy's wheels are built for one CUDA major (cupy-cuda11x, cupy-cuda12x) and compile kernels with the NVRTC "
            "of the CUDA root CUDA_PATH names (not CUDA_HOME): install the wheel for a CUDA that knows the GPU and the "
            "driver runs, with that CUDA's toolkit where CuPy compiles; neither torch nor TORCH_CUDA_ARCH_LIST is "
            "involved.")


def cupy_wheel_commands(facts: Mapping[str, Any], dist: str, caps: list[str]) -> list[str]:
    """(round 37f, blind audit 37 F2) CuPy's wheel for the CUDA major the driver runs, in place of the one installed:
    CuPy publishes one wheel per CUDA major (cupy-cuda11x: CUDA 11.2-11.x, cupy-cuda12x: CUDA 12.x; its PyPI pages and
    installation guide), and a wheel of a CUDA that predates the GPU (cupy-cuda102 on sm_80) has no code for it."""
    from smrnb.doctor._install import cc_to_int, first_nvcc_for

    dv = str(value(facts, "driver", "cuda_driver_version") or "")
    # the first CUDA whose nvcc compiles for each GPU; an arch no row has asks for no major above CuPy's floor (11)
    need = max((f for f in (first_nvcc_for(n) for n in (cc_to_int(c) for c in caps) if n) if f),
               key=tables.version_key, default="11.0")
    major = int(dv.split(".")[0]) if dv[:2].isdigit() else 12
    major = max(major, 11, int(need.split(".")[0]))
    why_major = (f"nvidia-smi's CUDA Version {dv}" if dv else
                 "for a driver whose 'CUDA Version' is 12 or later; cupy-cuda11x for a CUDA 11 driver")
    old = dist if dist != "cupy" else "cupy-cuda11x cupy-cuda12x cupy-cuda13x"  # pip skips those not installed
    return ["nvidia-smi   # 'CUDA Version': the newest CUDA the driver runs",
            f"pip uninstall -y {old} && pip install cupy-cuda{major}x   # CuPy's wheel for CUDA {major}.x ({why_major}); "
            f"the GPU ({', '.join(caps) or '?'}) needs CUDA {need} or later"]


def own_program_rebuild(facts: Mapping[str, Any], caps: list[str]) -> list[str]:
    """(round 37f, blind audit 37 F2) A program of the user's own built without the GPU's architecture: its nvcc build
    again with a -gencode for the GPU beside the ones it had, with a toolkit whose nvcc builds that architecture
    (tables/nvcc_archs.csv), or with the nvcc in use the PTX of its newest architecture (the driver compiles it)."""
    from smrnb.doctor._install import _TEGRA_ARCHS, cc_to_int, first_nvcc_for, nvcc_archs

    had = [str(a) for a in value(facts, "toolkit", "extension_archs") or [] if str(a).isdigit()]
    nums = [n for n in (cc_to_int(c) for c in caps) if n]
    nv = own_nvcc_version(facts)
    have = nvcc_archs(nv) if nv else None
    lib = next(iter(value(facts, "loader", "libraries_named") or []), "the library")
    cmds = ["nvidia-smi --query-gpu=name,compute_cap --format=csv"]
    newer = [n for n in nums if have is not None and n not in have]
    firsts = [f for f in (first_nvcc_for(n) for n in newer) if f]
    if newer and firsts:
        cuda = max(firsts, key=tables.version_key)
        cmds.append(f"export PATH=/usr/local/cuda-{cuda}/bin:$PATH && nvcc --list-gpu-arch   # CUDA {cuda} or later "
                    f"installed: the first nvcc that builds sm_{newer[-1]} (nvcc {nv} cannot"
                    + (f"; with it, -gencode arch=compute_{low[-1]},code=compute_{low[-1]} gives PTX the driver "
                       "compiles at first use" if (low := [a for a in have or [] if a < min(newer) and a not in
                                                           _TEGRA_ARCHS]) else "") + ")")
    archs = sorted({*map(int, had), *nums})
    gen = " ".join(f"-gencode arch=compute_{n},code=sm_{n}" for n in archs)
    cmds.append(f'rm -rf build && cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES="{";".join(map(str, archs))}" && '
                f"cmake --build build   # rebuild {lib} for the GPU's architecture beside the ones it had (a build "
                f"calling nvcc itself: {gen}); no pip: it is not a Python package")
    return cmds


#: nvcc's options that name the architectures to build for (nvcc --help): dropped from the user's command, which gets
#: one -gencode per architecture instead
_NVCC_ARCH_OPTION_RE = re.compile(r"\s(?:-arch|--gpu-architecture|-gencode|--generate-code|-code|--gpu-code)(?:=|\s+)\S+")


def nvcc_for_gpu(cmd: str, caps: list[str], had: list[str]) -> str:
    """(round 29a) The user's nvcc command (``nvcc -O2 -arch=sm_80 -o saxpy saxpy.cu``) with a -gencode for the GPU's
    compute capabilities (``6.1``) and for the architectures it was built for (``80``), its other options, output and
    source files kept: a cubin runs only on its own major architecture, at or above its minor."""
    nums = sorted({c.replace(".", "") for c in caps if re.fullmatch(r"\d{1,2}\.\d", c)} |
                  {a for a in had if str(a).isdigit()}, key=int)
    rest = _NVCC_ARCH_OPTION_RE.sub("", " " + cmd).strip()
    head, _, tail = rest.partition(" ")
    gen = " ".join(f"-gencode arch=compute_{n},code=sm_{n}" for n in nums)
    return f"{head} {gen} {tail}".strip() + "   # the GPU's architecture beside the ones it was built for"


#: (round 25b) "_ops"/"_op": a project's compiled operators (pointnet2_ops, pointgroup_ops, voxel_op of
#: PointPillars' ops/ folder), built by its own setup.py and absent until then
_COMPILED_SUFFIXES = ("_c", "_ext", "_cuda", "_cpp", "_cpu", "_cuda_kernel", "_backend", "cuda", "_C", "_ops", "_op")
#: compiled modules whose names have none of those suffixes (apex's amp_C, gsplat's csrc)
_COMPILED_NAMES = ("amp_C", "csrc", "pmeshlab", "SCN")  # (round 24a) PyMeshLab's compiled core: pymeshlab/__init__.py does `from .pmeshlab import *`
# (round 32a) SparseConvNet's SCN: its setup.py lists packages=['sparseconvnet', 'sparseconvnet.SCN'] and builds
# CUDAExtension('sparseconvnet.SCN', ['sparseconvnet/SCN/cuda.cu', ..., 'sparseconvnet/SCN/pybind.cpp']): the folder
# of its C++ sources has the compiled module's name, so without the build (or from the checkout) 'sparseconvnet.SCN'
# is that folder, imported as a namespace package that has none of the module's functions (facebookresearch/
# SparseConvNet setup.py; issue 56: "module 'sparseconvnet.SCN' has no attribute 'Metadata_2'", fixed by develop.sh)
#: the names of :data:`_COMPILED_NAMES` a package's source tree also holds as a folder of the module's sources
_SOURCE_FOLDER_NAMES = ("SCN",)


#: the namespaces of torch's own headers (installed under torch/include)
TORCH_HEADER_DIRS = ("thc/", "thcunn/", "aten/", "c10/", "torch/", "caffe2/")


def torch_header_of_torch(ev: Mapping[str, Any]) -> bool:
    """Whether a missing header is one of torch's own, included by one of torch's own installed headers: then
    the torch install lacks part of itself (a CPU-only build ships no CUDA headers), not the extension's source."""
    by = str(ev.get("included_from") or "").replace("\\", "/")
    return "/torch/include/" in by and str(ev.get("header") or "").lower().startswith(TORCH_HEADER_DIRS)


def module_codes(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> list[str]:
    """What a module (or name) that cannot be imported means: pip's build isolation hiding torch, a package
    without its compiled module, code written for another release of a package, or a kernel of another
    Python; a kernel that installed packages and was not restarted since (IPython's or Colab's restart note in the
    text) first. Empty when the text does not say which."""
    if shadow_named(facts, ev):
        # (round 22) the person says a file of theirs is named like this module, in the folder the program starts in:
        # sys.path's first entry (the script's folder, or the working folder of `python -m` and of a kernel) puts
        # that file in the module's place, whatever is installed
        return ["user_code_error"]
    if misspelt_import(facts, ev) or misspelt_common_import(facts, ev):
        return ["user_code_error"]
    if bare := _bare_folder_reading(ev):  # (round 27d) the module imported is a bare folder, not the package
        return bare
    early = _round25a_codes(facts, ev, str(ev.get("module") or "").split("."))
    codes = early if early is not None else _module_codes(facts, ev)
    top = str(ev.get("module") or "").split(".")[0]
    if ev.get("package_self_import") and codes[:1] in ([], ["package_api_version_mismatch"], ["kernel_wrong_python"],
                                              ["python_package_missing"], ["torch_not_installed"]):
        # (round 32g, _textfacts._own_package_import) importing X alone fails on X's own submodule: X's __init__.py
        # imports what this copy of X lacks, a release (or an install) without it; where the text shows only the
        # statement, a folder of the project's own named X found first is the other reading
        return ["library_bug", "user_code_error"]
    if codes[:1] in ([], ["package_api_version_mismatch"], ["user_code_error"], ["python_package_missing"]) and \
            top not in _TORCH_FAMILY and \
            top != "torch" and has_sign(facts, "files_missing_said"):
        # (round 22) the module's file or folder told absent from the project's code ("there is no `data` folder",
        # "I can't find centerpoint_fusion.py", "you didn't upload ..."): a reader who looked finds the repository or
        # the release lacks what its own code imports (a folder .gitignore left out, stale imports of files never
        # committed): the maintainers' fix, before another release of the package or the calling code's mistake
        codes = ["library_bug", *(c for c in codes if c != "library_bug")]
    elif codes[:1] in ([], ["kernel_wrong_python"], ["torch_not_installed"], ["package_api_version_mismatch"],
                       ["python_package_missing"]) and _imported_by_installed_package(facts, ev) and \
            "library_bug" not in codes:
        # (round 22) an installed package's own file imports another distribution that is not installed ("from
        # trame.app import ..." in pyvista/trame/jupyter.py, "from triangle import ..." in trimesh/creation.py): this
        # Python lacks it, or the package imports a dependency it neither declares nor guards (an optional one
        # imported unconditionally, a conda recipe's requirements behind setup.py's): the package's release to fix
        by = str((value(facts, "torch", "package_imports") or {}).get(top) or "")
        if codes in ([], ["python_package_missing"]) and by in _cuda_extension_projects():
            # a CUDA extension's project importing a top-level module of its own that is built apart from it (flash-attn's
            # rotary_emb and fused_dense_lib from csrc/ folders, each its own setup.py): never built, else its packaging
            codes = ["extension_not_compiled"]
        # (round 27a) a plain package the installed one imports: the install of the missing one into this Python
        # first (what the person does now), the package's release second (its metadata lacks the dependency: pip show
        # <package>'s Requires decides); until round 27a the other way round
        if codes[:1] == ["kernel_wrong_python"] and value(facts, "jupyter", "kernel_package_import") and \
                not restart_said(facts):
            # (round 34a) a notebook's kernel imports the installed package whose own file asks for the missing one:
            # the kernel runs the Python that holds the package (its site-packages), so the missing dependency is not
            # installed there, whatever another Python has; no other interpreter to pick
            codes = ["python_package_missing"]
        codes = [*codes[:1], "library_bug", *codes[1:]] if codes else ["library_bug"]
        if COMPILED_PART_OF.get(top) == by:  # (round 27a) the package's compiled part, a distribution of its own
            codes = ["extension_not_compiled", "python_package_missing"]
    if ev.get("python2") and codes in (["python_package_missing"], ["torch_not_installed"]) and \
            len(events(facts, "torch", "module_missing")) == 1:
        # (round 32c) CPython 2's own form of the message (Python/import.c: ImportError "No module named %.200s", the
        # name unquoted; Python 3 quotes it, "No module named %R", and raises ModuleNotFoundError since 3.6): a Python
        # 2 ran the code, mostly another interpreter than the Python 3 the package was installed into (`python` still
        # 2.7 beside pip3, conda's env not active): that interpreter second, where nothing else is
        codes = [codes[0], "kernel_wrong_python"]
    if restart_said(facts) and "kernel_restart_needed" not in codes:
        codes = ["kernel_restart_needed"] + codes
    return codes


#: (round 27d) top-level names that are namespace packages by design (PEP 420): several distributions install
#: into them (google-genai as google.genai, google-cloud-*, azure-*, matplotlib's mpl_toolkits, NVIDIA's nvidia-*
#: wheels), so "from google import genai" failing there is that distribution missing
_NAMESPACE_ROOTS = frozenset({"google", "azure", "mpl_toolkits", "nvidia", "jaraco", "zope", "sphinxcontrib"})


def _bare_folder_reading(ev: Mapping[str, Any]) -> list[str]:
    """(round 27d) Python's own words for a module that is a bare folder (a PEP 420 namespace package), not the
    installed package: "cannot import name 'X' from 'P' (unknown location)" (CPython's import_from, Python/ceval.c:
    the location is the module's __file__, None for a namespace package) and "module 'P' has no attribute
    '__version__'" (a package defines it in its __init__.py; a folder without one has none). A folder named P on
    sys.path first (the working folder, a checkout's subfolder) shadows the installed package (user_code_error),
    else the package's files are gone and only its folder is left (python_package_missing); a namespace root by
    design (google, azure, nvidia...) lacks the distribution that installs P.X. __version__ missing is also an older
    release that defines none (spconv 1.x; the corpus's openpcdet-1371, mmdetection3d-2688): that reading first.
    [] for other events."""
    if ev.get("kind") != "module_missing" or ev.get("dashed"):
        return []
    parts = str(ev.get("module") or "").split(".")
    line = str(ev.get("line") or "")
    if ev.get("import_name") and len(parts) == 2 and "(unknown location)" in line:
        return ["python_package_missing"] if parts[0] in _NAMESPACE_ROOTS else \
            ["user_code_error", "python_package_missing"]
    if ev.get("attribute") and len(parts) == 2 and parts[1] == "__version__" and parts[0] not in _NAMESPACE_ROOTS:
        # an older release that defines none (spconv 1.x), or a folder left by another distribution's uninstall
        # (mmcv-full and mmcv share one folder) first, a folder of the user's named P second
        return ["package_api_version_mismatch", "user_code_error"]
    return []


def bare_folder_fix(ev: Mapping[str, Any]) -> dict[str, Any] | None:
    """(round 27d) The words of _bare_folder_reading's first reading (a folder shadowing the package), else None."""
    if "user_code_error" not in _bare_folder_reading(ev):
        return None
    top = str(ev.get("module") or "").split(".")[0]
    return {"title": f"Not your environment: the {top} Python imported is a bare folder named {top} (no __init__.py), "
                     f"not the installed package",
            "fix": f"Python's words say the module {top} has no file (\"unknown location\") or no __version__: it is "
                   f"a folder named {top} found on sys.path before the installed package (the folder you start in, a "
                   f"checkout's subfolder), or all that is left of an install whose files were removed. Rename or "
                   f"move that folder (or start from another folder); if the folder is in site-packages, reinstall "
                   f"the package.",
            "commands": [f"python -c \"import {top}; print({top}.__path__)\"   # the folder imported as {top}",
                         f"ls -d {top} */{top} 2>/dev/null   # a folder of that name where the program starts",
                         f"pip install --force-reinstall --no-deps {top}   # if the folder is the installed one, "
                         "emptied (use the package's pip name)"]}


def bare_folder_missing_fix(ev: Mapping[str, Any]) -> dict[str, Any] | None:
    """(round 27d) The words of _bare_folder_reading's python_package_missing reading: the distribution that installs
    P.X into a namespace root (google.genai), or the package's files gone with its folder left; else None."""
    reading = _bare_folder_reading(ev)
    if "python_package_missing" not in reading:
        return None
    mod = str(ev.get("module") or "")
    top = mod.split(".")[0]
    if reading[0] == "python_package_missing":
        return {"title": f"{mod} is not installed: {top} is a namespace shared by several distributions, and none "
                         f"installed here provides {mod}",
                "commands": [f"python -c \"import {top}; print(list({top}.__path__))\"   # the folders that make up "
                             f"the {top} namespace",
                             f"python -m pip install <the distribution of {mod} (its docs' pip line: google-genai for "
                             "google.genai)>   # into the Python that runs the code"]}
    return {"title": f"The installed {top} has lost its files: only a folder named {top} is left (a half-finished "
                     "uninstall or upgrade)",
            "commands": [f"python -c \"import {top}; print({top}.__path__)\"   # the folder imported",
                         f"python -m pip install --force-reinstall {top}   # its files back (the package's pip name)"]}


def misspelt_import(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> str:
    """(round 26b) The package a top-level module Python cannot import is one slip off (``_typo_of_known``'s
    comparison), where the text lists that package installed (pip list's or conda list's row, a release named with
    it, its files under site-packages) and not the name imported: the import statement is misspelt ("import
    lightening" with lightning 2.0.3 listed), whatever the kernel or the environment; else ""."""
    mod = _top_level_import(ev)
    if not mod:
        return ""
    shown = _import_names_shown(facts)
    low = mod.lower()
    if low in shown or len(low) < 6:
        return ""
    known = _typo_of_known(mod)
    if known and _import_name(known) in shown:
        return known
    return next((k for k in sorted(shown) if len(k) >= 6 and one_edit(low, k)), "")


def _top_level_import(ev: Mapping[str, Any]) -> str:
    """The top-level module a "No module named 'x'" event names where it is a plain import of that name (not an
    attribute or a name imported from it, a dashed or None import, a class, a pip name); "" otherwise."""
    mod = str(ev.get("module") or "")
    if ev.get("kind") != "module_missing" or "." in mod or any(ev.get(k) for k in (
            "attribute", "import_name", "dashed", "none_import", "type_object", "pip_name")):
        return ""
    return mod


def _import_names_shown(facts: Mapping[str, Any]) -> set[str]:
    """The import names of the packages the text shows installed (their files, pip list's rows, releases named)."""
    shown = {_import_name(str(p)) for p in value(facts, "torch", "packages_installed") or []}
    return shown | {_import_name(str(p)) for p in value(facts, "loader", "package_releases") or {}}


def misspelt_common_import(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> str:
    """(round 35) The package of the stack or the widely used one (:func:`_typo_of_known`) a top-level module Python
    cannot import is one slip off, where the text does not show that package installed (:func:`misspelt_import`
    answers where it does), nothing shows the name itself installed, the import is not written in an installed
    package's file (``torch.last_frame_package``) and the text does not name the package itself missing too: "import
    pandsa" in a two-line traceback is the import's misspelling, which no install mends (``pip install pandsa`` would
    fetch whatever holds that name on PyPI); else ""."""
    mod = _top_level_import(ev)
    known = _typo_of_known(mod) if mod else ""  # first: the facts below are read (and cited) only for a name one slip off
    if not known or value(facts, "torch", "last_frame_package"):
        return ""  # (or the import is written in an installed package's file: its misspelling is the package's own)
    if mod.lower() in _import_names_shown(facts):
        return ""
    # the text names the package itself missing too ("No module named 'torch_scatte" in a cut title, then
    # 'torch_scatter' in full): a name cut short, not a misspelt import
    missing = {str(e.get("module") or "").lower() for e in events(facts, kind="module_missing")}
    return "" if known.lower() in missing else known


def misspelt_finding(mod: str, known: str, shown: bool = True) -> dict[str, Any]:
    """(round 26b) The words of a misspelt import (``misspelt_import``; ``misspelt_common_import`` where the text does
    not show ``known`` installed, round 35)."""
    return {"title": f"Not your environment: the code imports {mod}, a misspelling of {known}"
                     + (", which the text shows installed" if shown else
                        " (a widely used package; no package named like the misspelling is needed)"),
            "fix": (f"Python looks for a module named exactly {mod}; the installed package is {known}. Correct the "
                    "import statement (no install is needed, and installing the misspelt name could fetch an unrelated "
                    "package from PyPI)." if shown else
                    f"Python looks for a module named exactly {mod}, one letter off {known}. Correct the import "
                    f"statement to {known} (installing the misspelt name could fetch an unrelated package from PyPI); "
                    f"if {known} is then missing too, install it under its own name."),
            "commands": [f"python -c \"import {known}; print({known}.__file__)\"   # "
                         + ("the installed package imports" if shown else f"whether {known} is installed"),
                         f"grep -rn \"import {mod}\" --include=*.py --include=*.ipynb .   # the line to correct"]}


def shadow_named(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> str:
    """The module name of a file of the user's own told to shadow it (``torch.sign`` shadow_file_said) where the
    module event ``ev`` names it (one of its dotted parts), else ""."""
    for e in events(facts, "torch", "sign"):
        name = str(e.get("phrase") or "") if e.get("sign") == "shadow_file_said" else ""
        if name and name.lower() in str(ev.get("module") or "").lower().split("."):
            return name
    return ""


def shadow_finding(name: str) -> dict[str, Any]:
    """The words of a file of the user's own shadowing the module ``name``."""
    return {"title": f"Not your environment: a file of yours named {name}.py shadows the module {name} (Python "
                     "imports the file from the folder it starts in)",
            "fix": f"Python puts the folder of the script (or the folder a tool starts in) first on sys.path, so a file "
                   f"{name}.py there is imported in place of the module {name}: rename the file (and remove its "
                   f"__pycache__ copy), or start the program from another folder.",
            "commands": [f"python -c \"import {name}; print({name}.__file__)\"   # in that folder: the file imported",
                         f"mv {name}.py my_{name}.py && rm -rf __pycache__/{name}.*"]}


def module_owner_finding(facts: Mapping[str, Any], ev: Mapping[str, Any], code: str) -> dict[str, Any] | None:
    """(round 22) The words of a module missing from a project's own code (library_bug: its folder or repository
    lacks the file; user_code_error: the user's copy does), or imported by an installed package that does not bring
    it (library_bug); None for other module events."""
    if ev.get("kind") != "module_missing":
        return None
    mod = str(ev.get("module") or "")
    parent, _, last = mod.rpartition(".")
    where = str(ev.get("submodule_absent") or "")
    if (code == "library_bug" or (code == "user_code_error" and ev.get("framed") is False)) and (
            row := removed_api(facts, ev)) is not None:  # (round 26a) _removed_row_codes' second readings
        return removed_api_caller_fix(row, unpickled=bool(ev.get("unpickled"))) if code == "library_bug" else \
            removed_api_own_fix(row, ev.get("call"))
    if code == "library_bug" and _imported_by_installed_package(facts, ev):
        by = str((value(facts, "torch", "package_imports") or {}).get(mod.split(".")[0]))
        dist = mod.split(".")[0]
        return {"title": f"{by}'s own code imports {dist}, which is not installed: a dependency {by} neither installs "
                         "nor guards (its release's packaging), or an optional one to install",
                "fix": f"The installed {by} imports {dist} in its own files, and this Python has no {dist}: the "
                       f"package's release imports a dependency its requirements (or its conda recipe) do not bring, "
                       f"or an optional one without a guard. Install {dist} into the same Python, or take the release "
                       f"of {by} that declares or guards it.",
                "commands": [f"pip show {by}   # the release, and what it Requires", f"pip install {dist}   # into the "
                             "Python that runs the code (python -m pip ...)",
                             f"pip install --upgrade {by}   # a release that declares or guards the import"]}
    if code == "library_bug" and (where or has_sign(facts, "files_missing_said")):
        what = f"{parent}'s folder has no module {last}" if where and parent else f"{mod} is not in the project's code"
        return {"title": f"{what}: the project's repository or release lacks a file its own code imports",
                "fix": f"The project's own code imports {mod}, and its checkout (or installed release) has no such "
                       "file or folder: files never committed (a .gitignore that left them out), imports of files the "
                       "maintainers removed. Pull the maintainers' fixed code (or report it); until then, remove the "
                       "stale import or restore the file from the release it belongs to.",
                "commands": ["git pull   # in the project's checkout: the maintainers' fix",
                             "git status --ignored   # files the repository leaves out",
                             f"python -c \"import {parent or mod}; print({parent or mod}.__file__)\"   # the copy "
                             "Python imports"]}
    if code == "user_code_error" and (name := shadow_named(facts, ev)):
        return shadow_finding(name)
    if code == "user_code_error" and (path := module_file_in_package_place(ev)):
        # (round 35b) Python's own line names the file it imported in the package's place
        words = shadow_finding(mod.split(".")[0])
        return {**words, "fix": f"Python imported {path} as the module {mod.split('.')[0]}: " + words["fix"]}
    own = own_module_path(ev)
    if own and code in ("library_bug", "user_code_error"):
        # (round 25a) the module's file is the project's own (_found_module_lacks_name)
        folder = own.rsplit("/", 1)[0]
        return {"title": (f"{parent} (the project's own {own}) has no {last}: the project's checkout lacks what its "
                          "own code imports" if code == "library_bug" else
                          f"Not your environment: your copy of {own} has no {last} (a file edited, renamed or left "
                          "from another version of the project)"),
                "commands": [f"grep -n \"{last}\" {own}   # defined there?", f"git -C {folder} status   # files changed "
                             "in your copy", f"git -C {folder} pull   # the maintainers' fixed code"]}
    if code == "library_bug" and not ev.get("dashed") and (parent or ev.get("bare_name")):
        # (round 25a) a name missing from a module Python found (_found_module_lacks_name)
        top = mod.split(".")[0] if parent else "its package"
        return {"title": f"{mod} is missing from the copy of {top} that Python imports: that release (or checkout) "
                         "is incomplete, or the code calling it does not handle a release without it",
                "fix": f"Python found {parent or 'the module'} but not {last}. If the installed release is the one the "
                       "code was written for, the package (or the project's checkout) lacks what its own code uses: "
                       "reinstall it, or take the maintainers' fixed release; a package calling another one should "
                       "guard a name that other release lacks.",
                "commands": ([f"python -c \"import {top}; print({top}.__file__, getattr({top}, '__version__', ''))\""
                              "   # the copy Python imports, and its release",
                              f"pip install --force-reinstall --no-deps {top}   # an incomplete install"]
                             if parent else ["pip list   # the releases installed"])
                + ["git pull   # in a project's checkout: the maintainers' fix"]}
    if code == "user_code_error" and where:
        return {"title": f"Not your environment: {parent}'s own __init__.py imports its submodule {last}, which "
                         f"its folder lacks (a file removed or renamed in this copy, or a file of yours named "
                         f"{parent.split('.')[0]} shadowing the package)",
                "commands": [f"ls {where.rsplit('/', 1)[0] if '/' in where else parent.replace('.', '/')}   # {last}.py "
                             f"or {last}/ should be there",
                             f"python -c \"import {parent}; print({parent}.__file__)\""]}
    if code == "user_code_error" and parent and (ev.get("attribute") or ev.get("import_name")) and \
            re.fullmatch(r"[A-Za-z_][\w.]{0,200}", mod):
        # (round 29b) _who_asks: the person's code asks a package's module for a name no release of it may have
        top, key = mod.split(".")[0], last.lower()[:6]
        return {"title": f"Not your environment: your code asks {parent} for {last}, which that package may never "
                         "have had (a name spelt otherwise, another package's, a submodule to import first, an alias "
                         "bound to something else)",
                "fix": f"Python found {parent} and it has no {last}. If the package's documentation of the installed "
                       f"release (or any release) has no {last}, the code is wrong: correct the name, import it from the "
                       f"package that defines it, `import {mod}` first if it is a submodule, or check what the name "
                       f"{parent.split('.')[-1]} is bound to (`import x as y` of another module, a file of yours named "
                       f"{top}.py); if a release has it, the first reading (that release) applies.",
                "check": f"the package's documentation (or changelog) of its releases: {last} in none of them -> "
                         f"the code's name is wrong; in a release other than the installed one -> that release",
                "commands": [f"python -c \"import {parent} as m; print(m.__file__, getattr(m, '__version__', ''), "
                             f"[n for n in dir(m) if '{key}' in n.lower()])\"   # the copy imported, its release, the "
                             f"names like {last} it has",
                             f"grep -rn \"{last}\" --include=*.py .   # where your code uses it"]}
    return None


#: (round 27a) distributions that are another package's compiled part, installed apart from it: jax's jaxlib (jax's
#: own docs before 0.4: 'pip install --upgrade jax jaxlib'; jax/lib/__init__.py imports jaxlib and, from 0.2.x,
#: raises "jax requires jaxlib to be installed" where it is absent)
COMPILED_PART_OF: dict[str, str] = {"jaxlib": "jax"}


def _imported_by_installed_package(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> bool:
    """Whether the missing top-level module ``ev`` names is imported by an installed package's own frame of the
    traceback (``torch.package_imports``), another package than itself and not torch's family."""
    mod = str(ev.get("module") or "")
    if "." in mod or ev.get("import_name") or ev.get("attribute"):
        return False  # a module of a package that is there, or a name of it: the release's API, not its absence
    by = str((value(facts, "torch", "package_imports") or {}).get(mod) or "")
    return bool(by) and by not in _TORCH_FAMILY and by != "torch" and not ev.get("own_import")


def class_attribute_codes(facts: Mapping[str, Any], seen: list[dict[str, Any]]) -> list[str]:
    """What an object of a named class without the attribute the code asks for means, raised outside every installed
    package's own file (``torch.class_attribute_missing``; a title repeats the traceback's line, so all of them).

    Where the text shows the class is a package's (imported from it, Python's "Did you mean" of a renamed member, or
    (round 26b) the class named as a package whose release the text gives: ``trimesh 4.11.0`` beside 'Trimesh'), the
    calling code was written for another release of that package (a method renamed or removed), else the code's own
    mistake. (round 26b) Otherwise the class is the project's own (a checkout's ``MiniCam``, ``GSplatLoader``,
    ``DiGModel``), asked for by the project's own files (a checkout's tree: frames in two of its folders, or a folder
    of GitHub's archive, ``-master``) or with no frame shown in a report that tells what ran (not the bare line
    alone): the project's code is inconsistent
    with itself, its bug (fixed upstream; ``git log``/its issues decide), else the project expects another release of
    a package that builds the object (``pip show`` against its requirements decides); code the person typed (a
    notebook's cell, a REPL) asking its own class: nothing (a plain bug of theirs, or what similar reports say)."""
    imported = value(facts, "torch", "called_names") or {}  # read anywhere in the text (an import below it)
    releases = value(facts, "loader", "package_releases") or {}
    objects = {str(e.get("object") or "") for e in seen}
    if any(e.get("typo") for e in seen):
        # (round 27e, blind audit 27) Python's suggestion a typo away from the name asked for: the code's typo first
        return ["user_code_error", "package_api_version_mismatch"]
    if any(e.get("library_class") for e in seen) or objects & set(imported) or \
            any(o.lower() in releases or o.lower().replace("_", "") in releases for o in objects):
        return ["package_api_version_mismatch", "user_code_error"]
    if any(e.get("typed") for e in seen):
        return []
    own = [str(f) for f in value(facts, "torch", "source_files") or [] if not str(f).startswith("<")]
    entry = str(value(facts, "torch", "entry_script") or "")
    if own and entry and entry not in own:
        # (round 34a) the script a shell prompt ran in its directory ("D:\\ISAT>python main.py"), where the frames
        # show only a module it imports (D:\\ISAT\\ISAT\\widgets\\mainwindow.py): the checkout's entry script
        own.append(entry)
    if own:
        # a checkout's tree: its entry script and a module in a folder of its own (view.py, then
        # .../utils/point_utils.py), or a folder GitHub's archive names (safer-splat-master/); one script alone may
        # be the person's own (rounds 16 and 19's near-misses: /home/ana/proj/train.py)
        dirs = {f.replace("\\", "/").rsplit("/", 1)[0] if "/" in f.replace("\\", "/") else "" for f in own}
        if len(dirs) < 2 and not any(re.search(r"-(?:master|main)[/\\]", f) for f in own):
            return []
    elif not any(e.get("told") for e in seen):
        return []  # the bare line alone (rounds 13 and 19's near-misses): nothing shows whose class it is
    return ["library_bug", "package_api_version_mismatch"]


def project_class_fix(facts: Mapping[str, Any], ev: Mapping[str, Any], code: str) -> dict[str, Any]:
    """(round 26b) The title, fix and commands of an object's attribute missing (``class_attribute_codes``): the
    project's own class (its bug first, another release of a package it calls second), or a package's class."""
    obj, attr = str(ev.get("object") or "the object"), str(ev.get("attribute") or "the attribute")
    releases = value(facts, "loader", "package_releases") or {}
    pkg = next((k for k in releases if k in (obj.lower(), obj.lower().replace("_", ""))), "")
    raw = "" if ev.get("project_class") else str((value(facts, "torch", "called_names") or {}).get(obj) or "")
    pkg = pkg or IMPORT_ALIASES.get(raw, raw)
    if code == "library_bug":
        return {"title": f"The project's own code asks its {obj} for {attr}, which it lacks: the project's bug (its "
                         "files disagree)",
                "fix": ("The traceback ends in the project's own files (not an installed package's, not code typed "
                        "in a notebook)" if ev.get("own_frame") else "No frame is shown: a project's own class (no "
                        "package's name or release is given for it); the traceback's last file decides whose") +
                       f": they ask {obj} for {attr} and nothing gave it one. The project's files "
                       "disagree: a bug that later commits fix, a half-updated checkout or a local edit. Its git log and "
                       "issue tracker decide; where they show no fix, read the second reading (another release of a "
                       "package it uses).",
                "commands": ["git status; git log -3 --oneline   # in the project's folder: local edits, an old "
                             "checkout", "git pull   # the project's fix, where upstream has one (search its issues "
                             "for the message)",
                             f"grep -rn \"{attr}\" --include=*.py .   # where the project defines or sets it"]}
    if pkg:
        ver = ", ".join(str(v) for v in releases.get(pkg) or [])
        return {"title": f"{obj}.{attr} is not in the installed {pkg}{' ' + ver if ver else ''}: the code was written "
                         f"for another release of {pkg}",
                "fix": f"The text shows {obj} is {pkg}'s and the code asks it for {attr}, which the installed "
                       f"release{' (' + ver + ')' if ver else ''} does not have (renamed or removed, or added later). "
                       "Install the release the "
                       "code was written for (the project's requirements), or port the call to the installed API; "
                       "where the code was never right for any release, it is the code's own mistake.",
                "commands": [f"pip show {pkg}   # the installed release",
                             f"pip install '{pkg}==<the release the code was written for>'   # see the project's "
                             "requirements file"]}
    return {"title": f"{obj} lacks {attr}: the code may expect another release of the package that defines or builds "
                     f"{obj}",
            "fix": f"Where {obj} comes from a package (or is built from one's objects), the code was written for "
                   "another release of it: compare the installed releases with the ones the project pins. Its "
                   "requirements decide.",
            "commands": ["pip list   # the installed releases",
                         "pip install -r requirements.txt   # the releases the project pins (or its environment.yml, "
                         "setup.py)"]}


def caller_package_fix(facts: Mapping[str, Any], ev: Mapping[str, Any], code: str) -> dict[str, Any]:
    """(round 26b) The title, fix and commands of an installed package's own call that does not fit its callee's
    signature (``signature_codes``' ``caller_package``): two packages' releases that do not fit, or the caller's bug."""
    caller, callee = str(ev.get("caller_package") or "the package"), str(ev.get("callee") or "the function")
    raw = str((value(facts, "torch", "called_names") or {}).get(str(ev.get("name") or "")) or "")
    other = IMPORT_ALIASES.get(raw, raw) if raw and raw != caller else ""
    pkg = other or "the function's package"
    if code == "library_bug":
        return {"title": f"A bug of the installed {caller}: its own call of {callee}() does not fit",
                "fix": f"The traceback ends in {caller}'s own file, whose line calls {callee}() with arguments it "
                       f"refuses. Where the installed {pkg} is the release {caller} requires, {caller}'s release has the bug: "
                       "its issue tracker and a later release (or the one before) are the fix.",
                "commands": [f"pip show {caller}   # the release, for its issue tracker",
                             f"pip install --upgrade {caller}   # or the release before the one that fails"]}
    return {"title": f"{caller} calls {callee}() as another release of {pkg} defines it: the two packages' installed "
                     "releases do not fit",
            "fix": f"The traceback ends in the installed {caller}'s own line calling {callee}(): the arguments it "
                   f"passes fit another release of {pkg} than the one installed (a keyword "
                   f"added or removed, a parameter made keyword-only). {caller}'s requirements name the releases it "
                   f"was written for: install those, or a release of {caller} written for the installed one.",
            "commands": [f"pip show {caller}   # its release and its Requires: line",
                         f"pip show {other}   # the installed release of the function's package" if other else
                         "pip list   # the release of the package that defines the function",
                         f"pip install --upgrade {caller}   # a release written for the installed one, or pin the "
                         "other to the release it needs"]}


def signature_codes(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> list[str]:
    """What a call that does not fit its callee's signature means (``torch.signature_mismatch``: 'got an unexpected
    keyword argument', 'missing N required positional arguments', 'takes N positional arguments but M were given'):
    when the text shows the callee coming from an installed package (imported from it, or called as
    ``package.module.name(``), the calling code was written for another release of that package (a keyword added or
    removed, a parameter made required), else the calling code's own mistake; with no such sign, nothing: a function
    of the project's own called wrongly is a plain bug, and a TypeError raised inside a library's frame may be a
    callback of the user's (``forward()`` called by ``nn.Module``), so the frame alone does not tell."""
    name = str(ev.get("name") or "")
    if not name or name.startswith("__"):
        return []
    parts = str(ev.get("callee") or "").split(".")
    if len(parts) == 2 and parts[1] in ("forward", "backward") and re.match(r"_[A-Za-z]", parts[0]) and \
            ev.get("how") == "takes":
        # (round 18) a private torch.autograd.Function of an extension's wrapper (class _Morton3D: forward(ctx, ...),
        # called through _Morton3D.apply) given another number of arguments: the calling code and the installed
        # wrapper are of different releases of the extension (a copy installed from an older checkout), else the
        # wrapper's own bug
        return ["package_api_version_mismatch", "library_bug"]
    caller = str(ev.get("caller_package") or "")
    if caller and caller not in ("torch", "tensorflow", "keras", "jax"):
        # (round 26b) an installed package's own line calls a function the arguments do not fit: the calling
        # package and the callee's (another package, or a module of its own built or installed apart) are of
        # releases that do not fit each other (librosa 0.10 made resample's rates keyword-only, and a
        # transcription package written for 0.9 calls it positionally), else the calling package's own bug; the
        # code of the person's own is no reading (it is not the caller). A framework's own frame calling back
        # (torch's forward_call) is the calling code's forward, not a release's
        return ["package_api_version_mismatch", "library_bug"]
    if _called_package(facts, name):
        return ["package_api_version_mismatch", "user_code_error"]
    if ev.get("own_def"):
        # (round 28a) the text shows the callee defined in the person's own code: their call and their definition
        # disagree (a keyword the function does not take), no release of a package
        return ["user_code_error"]
    return []


def _called_package(facts: Mapping[str, Any], name: str) -> str:
    """The installed package the text shows ``name`` coming from (``torch.called_names``), or ""."""
    raw = str((value(facts, "torch", "called_names") or {}).get(name) or "") if name else ""
    top = IMPORT_ALIASES.get(raw, raw)
    # (round 25a) a package's conventional short name (`import MinkowskiEngine as ME`, then `ME.SparseTensor(`) is
    # that package, whether or not the text shows it installed
    return top if top and (raw in IMPORT_ALIASES or _an_installed_distribution(facts, {}, top)) else ""


def _an_installed_distribution(facts: Mapping[str, Any], ev: Mapping[str, Any], top: str) -> bool:
    """Whether the top-level package ``top`` of a module that cannot be imported is an installed distribution's:
    the machine's own import check, a package the text shows installed (its files under site-packages, pip
    naming it) or one the doctor's tables are about; a name the text shows nowhere else may be a folder of the
    project's own, which no release pins."""
    t = _import_name(top)
    shown = [_import_name(str(p)) for p in value(facts, "torch", "packages_installed") or []]
    released = value(facts, "loader", "packages_released") or []
    return ev.get("from") == "live" or t in shown or t in released or t in _table_packages() or t in STACK_PACKAGES


#: torch's companions that install apart from it, with the modules each has had since its first releases (a module
#: of them missing is the package missing, not another release's)
_TORCH_FAMILY = {"torchvision": frozenset({"transforms", "datasets", "models", "utils"}),
                 "torchaudio": frozenset({"transforms", "functional", "datasets"}),
                 "torch_geometric": frozenset({"data", "nn", "datasets", "utils", "transforms"}),
                 # PyG's compiled companions and spconv: each a package of its own, installed beside torch from a wheel
                 # made for torch's release and CUDA (data.pyg.org/whl; spconv-cuXYZ on PyPI, spconv's README)
                 "torch_scatter": frozenset(), "torch_sparse": frozenset(), "torch_cluster": frozenset(),
                 "spconv": frozenset()}  # (spconv.pytorch missing: spconv 1.x is installed, another API)
#: the pip command for a companion whose wheel is chosen by torch's CUDA (not the plain PyPI name)
_COMPANION_INSTALL = {"spconv": "python -m pip install spconv-cu<xyz>   # xyz: torch's CUDA, e.g. spconv-cu118 "
                                "(spconv's README)",
                      **{p: f"python -m pip install {p.replace('_', '-')} -f https://data.pyg.org/whl/torch-<ver>+<cu>"
                            ".html   # the page of the installed torch (PyG's install page)"
                         for p in ("torch_scatter", "torch_sparse", "torch_cluster")}}


@builds("torch_not_installed")
def _package_not_installed(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    """torch itself, or one of its companions (``_TORCH_FAMILY``) a text shows missing: the finding names the package
    that is missing, never torch when torch is there and torchvision is not."""
    top = str(ev.get("module") or "").split(".")[0]
    if ev.get("from") == "live" or top not in _TORCH_FAMILY:
        return default_build("torch_not_installed", ev)
    return {"title": f"{top} is not installed in the Python that runs the code",
            "fix": f"{top} is not installed in the Python that runs this code (torch is a separate package): install "
                   f"the {top} release made for the installed torch into that Python (the command below "
                   "with the kernel's python, %pip install in a notebook; pytorch.org/get-started and the package's "
                   "own install page list the matching releases and their CUDA variants).",
            "commands": ["python -c \"import sys, torch; print(sys.executable, torch.__version__, torch.version.cuda)\"",
                         _COMPANION_INSTALL.get(top, f"python -m pip install {top}")]}


#: packages whose __init__ imports none of these subpackages (an attribute access finds them only once imported):
#: pytorch3d's __init__.py holds only __version__ (facebookresearch/pytorch3d, pytorch3d/__init__.py); scikit-image
#: before 0.20 imported no subpackage (0.20 added lazy loading through lazy_loader); PIL's __init__ imports none of
#: its modules (Pillow docs: "from PIL import Image"); matplotlib's does not import pyplot
SUBMODULES_NOT_IMPORTED: dict[str, frozenset[str]] = {
    "pytorch3d": frozenset({"structures", "loss", "renderer", "ops", "io", "transforms", "utils", "datasets",
                            "implicitron", "vis"}),
    "skimage": frozenset({"measure", "io", "color", "filters", "transform", "feature", "morphology", "segmentation",
                          "draw", "exposure", "util", "metrics", "restoration", "registration", "graph", "data"}),
    "PIL": frozenset({"Image", "ImageDraw", "ImageFont", "ImageOps", "ImageFilter", "ImageEnhance"}),
    "matplotlib": frozenset({"pyplot"}),
    # (round 27a) numba's __init__ imports its core and decorators, not its CUDA target (numba docs, 'Writing CUDA
    # Kernels': `from numba import cuda`); scikit-learn's imports none of its estimator subpackages (its docs import
    # each: `from sklearn.model_selection import ...`); scipy's before 1.9 imported none of its subpackages (1.9 added
    # lazy loading: scipy/__init__.py's `submodules` list and __getattr__, read in scipy 1.17 installed here); the
    # standard library's xml/__init__.py holds only its docstring and concurrent/__init__.py nothing (CPython 3.11,
    # read here); importlib's __init__ imports _bootstrap, not util, machinery, metadata or resources (os.path is no
    # such case: os imports it)
    "numba": frozenset({"cuda"}),
    "sklearn": frozenset({"model_selection", "metrics", "linear_model", "preprocessing", "cluster", "decomposition",
                          "ensemble", "neighbors", "svm", "tree", "feature_extraction", "feature_selection",
                          "manifold", "pipeline", "datasets", "mixture", "naive_bayes", "neural_network",
                          "impute", "compose", "covariance", "cross_decomposition", "discriminant_analysis",
                          "gaussian_process", "inspection", "isotonic", "kernel_approximation", "kernel_ridge",
                          "multiclass", "multioutput", "random_projection", "semi_supervised", "calibration",
                          "dummy"}),
    "scipy": frozenset({"sparse", "linalg", "signal", "ndimage", "spatial", "optimize", "interpolate", "stats",
                        "special", "io", "integrate", "fft", "fftpack", "cluster", "odr", "misc"}),
    "xml": frozenset({"etree", "dom", "sax", "parsers"}),
    "concurrent": frozenset({"futures"}),
    "importlib": frozenset({"util", "machinery", "metadata", "resources", "abc"}),
    # (round 29b) mujoco's __init__ imports its compiled bindings, gl_context and renderer, not its viewer
    # (google-deepmind/mujoco python/mujoco/__init__.py; its docs, 'Interactive viewer': "provided ... in the
    # mujoco.viewer module", used after `import mujoco.viewer`)
    "mujoco": frozenset({"viewer"})}
#: (round 27a) packages that load their subpackages lazily from a release on: the attribute error is then a release
#: before it (scipy 1.9's lazy loading), a second reading beside the missing import
SUBMODULES_LAZY_SINCE: dict[str, str] = {"scipy": "1.9"}


def submodule_not_imported(ev: Mapping[str, Any]) -> tuple[str, str] | None:
    """(package, subpackage) when ``ev`` is 'module X has no attribute Y' for a subpackage Y of
    :data:`SUBMODULES_NOT_IMPORTED`, else None."""
    parts = str(ev.get("module") or "").split(".")
    if ev.get("kind") == "module_missing" and ev.get("attribute") and len(parts) == 2 and \
            parts[1] in SUBMODULES_NOT_IMPORTED.get(parts[0], ()):
        return parts[0], parts[1]
    return None


def submodule_finding(pkg: str, sub: str, code: str) -> dict[str, Any]:
    """The words of the two readings of a subpackage used without its import."""
    who = "another installed package's code" if code == "library_bug" else "the calling code"
    return {"title": f"{pkg}.{sub} is used without `import {pkg}.{sub}` ({who}): `import {pkg}` does not load it",
            "fix": f"`import {pkg}` does not import its subpackage {sub} (the package's __init__ leaves it out), so "
                   f"`{pkg}.{sub}` exists only once something imports it: add `import {pkg}.{sub}` (or `from {pkg}.{sub} "
                   f"import ...`) before the call" + (" in that package's code, or take its release that does (report "
                                                      "it upstream)" if code == "library_bug" else "") + ".",
            "commands": [f"python -c \"import {pkg}.{sub}; print({pkg}.{sub}.__file__)\"   # the subpackage is there"]}


#: (round 34c) names a package has defined at its top level in every release (its defining API), so "module 'P' has
#: no attribute 'A'" for one of them is no release of P lacking it: the module Python imported as P is not the
#: installed package but something else of that name found first on sys.path (a folder named P in the project or the
#: folder the program starts in, which Python 3.3+ imports as a namespace package with no attributes, or a file P.py of
#: the user's), else an install of P whose files are gone (its folder left). Read in the packages' own releases:
#: triton's python/triton/__init__.py has exported jit since 1.0 (triton-lang/triton at 1.0.0: `from .code_gen import
#: jit, autotune, heuristics, Config, Autotuner`; 2.x and 3.x: `from .runtime import ... jit`); numpy/__init__.py
#: exports array, zeros and ndarray from numpy.core since 1.0; torch/__init__.py defines Tensor, zeros, from_numpy and
#: (since 0.4) tensor, and imports torch.nn and torch.cuda, since its first releases; cv2's compiled module has had
#: imread since OpenCV 2.x; pandas/__init__.py exports DataFrame and read_csv since 0.x; requests/__init__.py get since
#: 0.x; PyYAML's yaml/__init__.py load and dump since 3.0
DEFINING_ATTRIBUTES: dict[str, frozenset[str]] = {
    "triton": frozenset({"jit"}),
    "numpy": frozenset({"array", "zeros", "ndarray"}),
    "torch": frozenset({"Tensor", "zeros", "from_numpy", "tensor", "nn", "cuda"}),
    "cv2": frozenset({"imread"}),
    "pandas": frozenset({"DataFrame", "read_csv"}),
    "requests": frozenset({"get"}),
    "yaml": frozenset({"load", "dump"}),
}


def defining_attribute_missing(ev: Mapping[str, Any]) -> tuple[str, str] | None:
    """(round 34c) (package, name) when ``ev`` is 'module P has no attribute A' for a name of P's defining API
    (:data:`DEFINING_ATTRIBUTES`), or Python 3.13's own hint that the module is a file shadowing a library ("(consider
    renaming '...' if it has the same name as a library you intended to import)", Objects/moduleobject.c
    _Py_module_getattro_impl), else None."""
    parts = str(ev.get("module") or "").split(".")
    if ev.get("kind") != "module_missing" or not ev.get("attribute") or len(parts) != 2:
        return None
    line = str(ev.get("line") or "")
    if "partially initialized" in line or "circular import" in line:
        return None  # a circular import: Python's own words, read elsewhere
    if parts[1] in DEFINING_ATTRIBUTES.get(parts[0], ()) or _CONSIDER_RENAMING_RE.search(line):
        return parts[0], parts[1]
    return None


#: Python 3.13's hint on a module attribute missing where the module's file may shadow a library or the standard
#: library (CPython Objects/moduleobject.c: "(consider renaming '%U' if it has the same name as a library you intended
#: to import)", "(consider renaming '%U' since it has the same name as the standard library module named '%U' and
#: prevents importing that standard library module)")
_CONSIDER_RENAMING_RE = re.compile(r"\(consider renaming '[^'\n]{1,300}' (?:if|since) it has the same name as (?:a "
                                   r"library you intended to import|the standard library module)")


def shadowed_package_finding(pkg: str, name: str, circular: bool = False) -> dict[str, Any]:
    """(round 34c) The words of a package's defining name missing (:func:`defining_attribute_missing`); (round 35a)
    ``circular``: of Python's circular import on a released package (:func:`circular_on_released`)."""
    why = (f"Python reports {pkg} importing itself while it loads" if circular else
           f"every release of {pkg} defines {pkg}.{name}")
    return {"title": f"Not your environment: the module imported as {pkg} is not the installed {pkg} ({why}): a "
                     f"folder or file named {pkg} shadows it",
            "fix": f"Python found something named {pkg} before the installed package: a folder {pkg}/ (a namespace "
                   f"package without attributes) or a file {pkg}.py in the folder the program starts in or in the "
                   f"project, or a {pkg} folder left without its files by an uninstall. Rename or move it (and its "
                   f"__pycache__), or reinstall {pkg} if the folder printed is the installed one.",
            "commands": [f"python -c \"import {pkg}; print(getattr({pkg}, '__file__', None), list(getattr({pkg}, "
                         f"'__path__', [])))\"   # what was imported as {pkg}",
                         f"ls -d {pkg} {pkg}.py */{pkg} 2>/dev/null   # a folder or file of that name in the project"]}


def attribute_typo(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> str:
    """(round 34c) The name the code meant where the attribute it asks of a module is a typo of it, else "": Python's
    own suggestion on the line ("... has no attribute 'ToTenser'. Did you mean: 'ToTensor'?", Python 3.10+
    traceback.TracebackException's _compute_suggestion_error), or a name the same text imports from or calls on a
    module (``torch.called_names``: ``transforms.ToTensor()``) that is one typo from it (two neighbouring letters
    swapped, one changed, one left out inside the name: _textfacts._one_typo), not a renamed member (a prefix, a suffix,
    an underscore)."""
    from smrnb.doctor._textfacts import _DID_YOU_MEAN_RE, _one_typo

    parts = str(ev.get("module") or "").split(".")
    if ev.get("kind") != "module_missing" or not ev.get("attribute") or len(parts) < 2:
        return ""
    asked, line = parts[-1], str(ev.get("line") or "")
    if "partially initiali" in line or "circular import" in line:
        return ""  # Python's words of a circular import (a file named like the package): read elsewhere
    m = _DID_YOU_MEAN_RE.search(line)
    named = [m.group(1)] if m else []
    # the names are peeked at (not noted as read): only a typo found makes them this reading's facts; a name of the
    # text differing only in case is another object (pyglet.window, the module, and pyglet.window.Window, its class)
    named += [n for n in (_peek(facts, "torch", "called_names") or {}) if isinstance(n, str) and
              n.lower() != asked.lower()]
    meant = next((n for n in named if _one_typo(asked, n)), "")
    if meant and not m:
        value(facts, "torch", "called_names")  # noted: the reading rests on them
    return meant


def attribute_typo_finding(mod: str, meant: str) -> dict[str, Any]:
    """(round 34c) The words of a module attribute misspelt (:func:`attribute_typo`)."""
    pkg, _, asked = mod.rpartition(".")
    return {"title": f"Not your environment: {pkg}.{asked} is a misspelling of {pkg}.{meant}",
            "fix": f"The code asks {pkg} for '{asked}'; the name is '{meant}' (one letter apart). Correct the spelling "
                   "in the code; no install or upgrade is needed.",
            "commands": [f"grep -rn \"{asked}\" --include=*.py --include=*.ipynb .   # the line to correct",
                         f"python -c \"import {pkg}; print({pkg}.{meant})\"   # the name as the package defines it"]}


#: released packages (import names) of smrnb users' stacks that a text names without showing them installed: the
#: Jupyter family, the Dask family, and the geometry and point-cloud libraries beside torch; a module or name missing
#: from one of them is the installed release's API, never a folder of the project's own
STACK_PACKAGES = frozenset({
    "notebook", "nbconvert", "nbformat", "nbclassic", "traitlets", "jupyter_core", "jupyter_client",
    "jupyter_server", "jupyterlab", "jupyterlab_server", "ipywidgets", "widgetsnbextension", "ipykernel", "ipython",
    "voila", "tornado", "dask", "distributed", "dask_cuda", "skimage", "open3d", "trimesh", "pymeshlab",
    "torch_scatter", "torch_sparse", "torch_cluster", "torch_geometric", "torchsparse", "spconv", "cumm", "gsplat",
    "nerfstudio", "nerfacc", "tinycudann", "pytorch3d", "mmcv", "mmdet", "mmdet3d", "numpy", "scipy", "sklearn"})


def _import_name(dist: str) -> str:
    """The import name of a distribution as a text shows it: lower-case, ``_`` for ``-``, without the suffix of a
    build for one CUDA release or for GPUs (spconv-cu114, cupy-cuda11x, faiss-gpu import as spconv, cupy, faiss)."""
    return re.sub(r"_(?:cu[0-9]{2,3}|cuda[0-9]{2,3}x?|gpu)$", "", dist.replace("-", "_").lower())


@functools.cache
def _table_packages() -> frozenset[str]:
    """The Python packages the doctor's tables are about (torch and its companions, kaolin, the CUDA extensions
    of extension_checks.csv and extension_minimums.csv, the libraries of library_messages.csv), import names."""
    from smrnb.doctor import tables

    names = {"torch", "torchvision", "torchaudio", "triton", "kaolin"}
    names |= {str(r.fields.get("project") or "") for r in tables.message_rows("extension_checks")}
    for r in tables.rows("extension_minimums"):
        names |= {r["project"], *str(r.get("names") or "").split()}
    out = {w.replace("-", "_").lower() for n in names for w in re.split(r"[^A-Za-z0-9_.-]+", n) if w}
    # (round 32f) library_messages.csv's library cell is for people: only the names its strict parse gives
    # (tables._enums.library_import_names), never the words of its descriptions ("a", "with", "library")
    for r in tables.message_rows("library_messages"):
        out.update(tables.library_import_names(str(r.fields.get("library") or "")))
    return frozenset(out)


@functools.cache
def _cuda_extension_projects() -> frozenset[str]:
    """The CUDA extension projects of the doctor's tables (extension_checks.csv, extension_minimums.csv), import
    names."""
    from smrnb.doctor import tables

    names = {str(r.fields.get("project") or "") for r in tables.message_rows("extension_checks")}
    for r in tables.rows("extension_minimums"):
        names |= {r["project"], *str(r.get("names") or "").split()}
    return frozenset(w.replace("-", "_").lower() for n in names for w in re.split(r"[^A-Za-z0-9_.-]+", n) if w)


def _who_asks(facts: Mapping[str, Any], ev: Mapping[str, Any], parts: list[str]) -> str:
    """(round 29b) The second reading of a name missing from an installed package's module ("module 'X' has no
    attribute 'Y'", "cannot import name 'Y' from 'X'"): Python says only that the module object it imported lacks the
    name (CPython's module_getattro and import_from), so either the installed release lacks it (another release has
    it: the first reading) or no release has it and the code asking is wrong. Whose code asks is the traceback's last
    frame: an installed package's own file (its import of another package's name: that package's bug, it does not
    guard the release it meets), else the person's own code or a notebook cell (or no frame: the line they typed): a
    name spelt otherwise, another package's name, a submodule to import first, an alias bound to something else."""
    by = value(facts, "torch", "last_frame_package")
    if by or ev.get("own_import"):
        return "library_bug" if ev.get("attribute") or ev.get("import_name") else ""
    if by == "" or ev.get("code_shown"):
        return "user_code_error"  # a frame of the person's own, or their code using the name shown
    return ""  # no frame and no code: no cue of whose code asks, the one reading


def _shadowed_or_mixed_codes(facts: Mapping[str, Any], ev: Mapping[str, Any], parts: list[str]) -> list[str] | None:
    """A module's name missing because another copy stands in the package's place: torch's own _C from another build
    than its Python files, a file of the user's named like the package, a companion built for another torch; None
    where none of these is shown."""
    last = parts[-1]
    if len(parts) == 2 and (ev.get("attribute") or ev.get("import_name")) and module_file_in_package_place(ev):
        # (round 35b) Python's own line names the file it imported as the top-level module P, and that file is a
        # plain P.py of the user's (outside every installed tree and the standard library, not in a folder P): the
        # person's script or module named like the package stands in its place (it imports P, i.e. itself, still
        # half-initialised: "circular import"; or 3.13's "consider renaming"), whatever the release installed
        return ["user_code_error"]
    if ev.get("attribute") and parts[:2] == ["torch", "_C"] and len(parts) == 3 and \
            value(facts, "torch", "init_c_attr") == last:
        # (round 32i) torch's own __init__.py calls a function its compiled _C lacks: both ship in one wheel, built
        # together, so this _C is another build's than the Python files beside it (two torch installs mixed in one
        # site-packages, a source build's stale _C, another torch folder earlier on sys.path): remove every copy and
        # install one; torch then does not import at all
        return ["library_shadowed_older_copy", "torch_import_failed"]
    if ev.get("attribute") and len(parts) == 2 and _shadowing_file(facts, parts[0]):
        # a file of the user's own in the traceback is named like the package (trimesh.py beside the script, outside
        # every installed tree and the package's own folder): Python imports it in the package's place
        return ["user_code_error"]
    if not ev.get("attribute") and _shadowed_submodule(facts, ev, parts):
        # (round 18) a submodule missing where the package is a file of the user's own (torchvision.py importing
        # torchvision.transforms): the file is a module, not the package, so it has no submodules at all
        return ["user_code_error"]
    if ev.get("attribute") and parts[0] in ("torchvision", "torchaudio") and \
            "partially initialized module" in str(ev.get("line") or "") and not _shadowing_file(facts, parts[0]):
        # torchvision/torchaudio failing half-way through their own import (their torch.ops registrations, _meta_
        # registrations' torchvision.extension) with no file of the user's own shadowing them: a release built for
        # another torch than the installed one (torch upgraded or downgraded alone), else a release without the name
        return ["companion_built_for_other_torch", "package_api_version_mismatch"]
    if (circular := circular_on_released(facts, ev, parts)) is not None:
        # (round 35a) Python's words of a released package imported while it is still loading: a file of the user's
        # own named like it (the path Python prints, or none shown) imports itself in the package's place
        return ["user_code_error"] if circular else ["user_code_error", "library_bug"]
    return None


#: (round 35a) the standard library's Unix-only modules and names (the Python docs' "Availability: Unix" of each, and
#: "Availability: not Windows"; https://docs.python.org/3/library/unix.html: "Unix Specific Services": posix, pwd, grp,
#: termios, tty, pty, fcntl, resource, syslog; sys.getdlopenflags/setdlopenflags; os.fork, os.getuid, ...; signal's
#: SIGKILL, SIGALRM, ..., signal.alarm/setitimer "Availability: Unix")
POSIX_ONLY_MODULES = frozenset({"posix", "pwd", "grp", "termios", "tty", "pty", "fcntl", "resource", "syslog",
                                "_posixsubprocess", "crypt"})
POSIX_ONLY_NAMES = {
    "sys": frozenset({"getdlopenflags", "setdlopenflags"}),
    "os": frozenset({"fork", "forkpty", "getuid", "geteuid", "getgid", "getegid", "setuid", "setgid", "setsid",
                     "setpgrp", "getpgid", "killpg", "uname", "sched_getaffinity", "sched_setaffinity", "getloadavg",
                     "sysconf", "mkfifo", "nice", "chown", "lchown", "wait3", "wait4", "WNOHANG", "register_at_fork",
                     "statvfs", "initgroups"}),
    "signal": frozenset({"SIGKILL", "SIGALRM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGQUIT", "SIGPIPE", "SIGCHLD",
                         "SIGSTOP", "SIGCONT", "SIGTSTP", "alarm", "setitimer", "getitimer", "ITIMER_REAL", "pause",
                         "pthread_kill", "pthread_sigmask", "siginterrupt"}),
}


def posix_only_on_windows(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> bool:
    """(round 35a) Whether a module missing is one of the standard library's Unix-only modules or names
    (:data:`POSIX_ONLY_MODULES`, :data:`POSIX_ONLY_NAMES`) in a text from Windows ('No module named 'fcntl'', "module
    'sys' has no attribute 'getdlopenflags'", Python 2's "'module' object has no attribute ...")."""
    if ev.get("kind") != "module_missing" or value(facts, "context", "os") != "windows":
        return False
    parts = str(ev.get("module") or "").split(".")
    if len(parts) == 1 and not (ev.get("attribute") or ev.get("import_name")):
        return parts[0] in POSIX_ONLY_MODULES
    return len(parts) == 2 and bool(ev.get("attribute")) and parts[1] in POSIX_ONLY_NAMES.get(parts[0], ())


#: (round 35a) top-level modules Isaac Sim's Kit provides through its extensions (omni.usd.libs: pxr; the Carbonite
#: framework: carb; omni.* itself), importable only once SimulationApp runs (isaac-sim/IsaacSim
#: source/extensions/isaacsim.simulation_app/docs/Overview.md: the Omniverse Toolkit "must be running before other
#: Omniverse modules can be imported"; Isaac Lab's scripts launch AppLauncher before their other imports)
KIT_MODULES = frozenset({"pxr", "carb", "omni", "usdrt"})
#: folders of Isaac Sim's and Isaac Lab's own code in a traceback's paths
_ISAAC_PATH_WORDS = ("isaaclab", "isaacsim", "isaac-sim", "isaac_sim", "orbit/source", "/kit/python", "omni/isaac")


def kit_module_before_app(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> bool:
    """(round 35a) Whether a top-level module missing is one Kit provides (:data:`KIT_MODULES`: pxr, carb) asked from
    Isaac Sim's or Isaac Lab's code (a traceback path of theirs): outside Isaac Sim, pxr is usd-core's, a plain
    package."""
    mod = str(ev.get("module") or "")
    if ev.get("kind") != "module_missing" or mod not in KIT_MODULES or ev.get("attribute") or ev.get("import_name"):
        return False
    paths = [*(value(facts, "torch", "source_files") or []), *(value(facts, "torch", "packages_installed") or [])]
    return any(w in str(p).replace("\\", "/").lower() for p in paths for w in _ISAAC_PATH_WORDS)


def unix_or_kit_finding(facts: Mapping[str, Any], ev: Mapping[str, Any], code: str) -> dict[str, Any] | None:
    """(round 35a) The words of :func:`posix_only_on_windows` and :func:`kit_module_before_app` for ``code``; None for
    other events."""
    mod = str(ev.get("module") or "")
    if posix_only_on_windows(facts, ev):
        by = str(value(facts, "torch", "last_frame_package") or "")
        who = f"{by}'s code" if by else "the code"
        return {"title": f"{mod} is Unix-only in Python's standard library and this is Windows: {who} was written for "
                         "Linux/macOS" + ("" if code == "package_no_build_for_platform" else
                                          " (a bug of that code where it claims Windows support)"),
                "fix": f"Python's standard library has {mod} on Unix only (its documentation: 'Availability: Unix'), "
                       f"so {who} cannot run on native Windows as it is. Run it where it was written for (Linux, WSL2, "
                       "a Linux container), or install a release of the package that supports Windows (its "
                       "installation notes); in code of your own, guard the call for Windows (os.name == 'nt').",
                "commands": ["wsl --install   # a Linux under Windows (then install and run the package there)",
                             *([f"pip show {by}   # its release; its documentation says which platforms it supports"]
                               if by else [])]}
    if kit_module_before_app(facts, ev):
        return {"title": f"No module named '{mod}' inside Isaac Sim / Isaac Lab: Kit provides {mod} only once the "
                         "simulation app is launched, and the script imports it (or a module that does) before that"
                         + ("" if code == "user_code_error" else " (the project's script to fix)"),
                "fix": f"{mod} comes with Isaac Sim's Kit extensions, on the path only after SimulationApp (Isaac Lab: "
                       "AppLauncher(args).app) has started. Move every import of isaaclab.*/omni.*/pxr (and of "
                       "modules importing them) below the app's launch in the script, and run it with Isaac Lab's "
                       "Python (./isaaclab.sh -p script.py) or Isaac Sim's python.sh.",
                "commands": ["grep -n \"^from\\|^import\\|AppLauncher\\|SimulationApp\" <the script>   # the imports above "
                             "the app's launch",
                             "./isaaclab.sh -p <the script> ...   # Isaac Lab's Python with Kit's paths"]}
    return None


#: (round 35a) the file Python names beside a module still loading: CPython Python/ceval.c import_from ("cannot import
#: name %R from partially initialized module %R (most likely due to a circular import) (%S)") and, Python 3.13+,
#: Objects/moduleobject.c _Py_module_getattro_impl ("partially initialized module '%U' from '%U' has no attribute '%U'
#: (most likely due to a circular import)"; before 3.13 without "from '%U'")
def circular_on_released(facts: Mapping[str, Any], ev: Mapping[str, Any], parts: list[str]) -> bool | None:
    """(round 35a) Whether Python's "partially initialized module P (most likely due to a circular import)" names a
    released package P (:func:`_released_elsewhere`) that a module of the user's own stands in for: True where the
    file Python prints (or a traceback file of the user's own) is P.py outside every installed tree; False where no
    file is shown and nothing else reads it (a released P whose own installed files are not in the traceback: a
    release whose import cycles on itself would fail for every user, so the user's own P.py, or a folder P, imported
    itself first); None where it does not apply (P's own files run, a dotted module, a name that may be a submodule P's
    __init__ imports and its folder lacks, which Python words the same way)."""
    line = str(ev.get("line") or "")
    if "partially initialized module" not in line or len(parts) != 2 or not _released_elsewhere(facts, parts[0]):
        return None
    top = parts[0].lower()
    path = printed_module_file(line)[1].replace("\\", "/").strip().lower()
    if path and path != "unknown location":
        own = not any(k in path for k in ("site-packages/", "dist-packages/", ".egg/"))
        return True if own and path.rsplit("/", 1)[-1] == f"{top}.py" else None
    if _shadowing_file(facts, parts[0]):
        return True
    if top in {str(p).lower() for p in value(facts, "torch", "packages_installed") or []}:
        return None  # the installed package's own files run in the traceback: its own cycle, or a half install
    if ev.get("import_name") and not parts[1][:1].isupper():
        return None  # 'cannot import name x' (lower case) may be a submodule of P that P's folder lacks
    if parts[1].startswith("_"):
        return None  # a private name (cv2's _registerMatType): P's own modules ask it of P (two releases mixed)
    return False
#: (round 35b) the file Python names for a module it imported, in CPython's own messages: import_from's "cannot import
#: name %R from partially initialized module %R (most likely due to a circular import) (%S)" (Python/ceval.c
#: import_from, _PyEval_ImportFrom in 3.13), Objects/moduleobject.c _Py_module_getattro_impl's "partially initialized
#: module '%U' from '%U' has no attribute '%U' (most likely due to a circular import)" (3.13+), and 3.13's "(consider
#: renaming '%U' if it has the same name as a library you intended to import)" / "(consider renaming '%U' since it has
#: the same name as the standard library module named '%U' ...)" of import_from (getattr's: defining_attribute_missing)
_MODULE_FILE_RES = (
    re.compile(r"from partially initiali[sz]ed module '([A-Za-z0-9_.]{1,120})' \(most likely due to a circular "
               r"import\)\s{0,4}\(([^()\n]{1,400})\)"),
    re.compile(r"partially initiali[sz]ed module '([A-Za-z0-9_.]{1,120})' from '([^'\n]{1,400})' has no attribute"),
    re.compile(r"cannot import name '[^'\n]{1,120}' from '([A-Za-z0-9_.]{1,120})' \(consider renaming '([^'\n]{1,400})' "
               r"(?:if|since) it has the same name"),
)


def printed_module_file(line: str, patterns: tuple[re.Pattern[str], ...] = _MODULE_FILE_RES[:2]) -> tuple[str, str]:
    """The module and the file one of Python's own lines names for a half-initialised module (the first of
    ``patterns``, :data:`_MODULE_FILE_RES`, that reads it), as Python printed them; ("", "") where none does."""
    for pattern in patterns:
        if m := pattern.search(line):
            return m.group(1), m.group(2)
    return "", ""


def module_file_in_package_place(ev: Mapping[str, Any]) -> str:
    """(round 35b) The file Python's own line names for the top-level module P it imported (:data:`_MODULE_FILE_RES`)
    where that file is a plain ``P.py`` outside every installed tree and the standard library and not in a folder named
    P (a package's own checkout): a file of the user's own standing in the package's place; "" otherwise. A package's
    ``P/__init__.py`` (a package failing half-way through its own import) is not such a file."""
    line = str(ev.get("line") or "")
    for pattern in _MODULE_FILE_RES:
        mod, printed = printed_module_file(line, (pattern,))
        if not mod or "." in mod:
            continue
        top, path = mod.lower(), printed.replace("\\", "/")
        low = path.lower()
        names = low.split("/")
        if names[-1] != f"{top}.py" or (len(names) > 1 and names[-2] == top):
            continue
        if any(k in low for k in ("site-packages/", "dist-packages/", ".egg/")) or re.search(
                r"/lib(?:64)?/python[23](?:\.\d{1,2})?/[^/]{1,120}$", low):
            continue
        return printed  # as Python printed it
    return ""


def _misnamed_or_unimported_codes(facts: Mapping[str, Any], ev: Mapping[str, Any], parts: list[str]) -> list[str] | None:
    """A module's name asked by a misspelling, a name every release defines, a compiled class's member or a submodule
    its parent does not import (:func:`_module_codes`' readings of the name itself); None where none applies."""
    if attribute_typo(facts, ev):
        # (round 34c) the name asked of the module is one typo from a name Python suggests or the same text uses on a
        # module ('ToTenser' beside transforms.ToTensor()): the code's misspelling, whatever release is installed
        return ["user_code_error", "package_api_version_mismatch"]
    if defining_attribute_missing(ev):
        # (round 34c) a name every release of the package defines (triton.jit, numpy.array): the module imported is
        # another of that name (the project's folder triton/, a file numpy.py), else an install whose files are gone
        return ["user_code_error", "python_package_missing"]
    if ev.get("type_object") and len(parts) > 2:
        # a class of a compiled module (its qualified name: pybind11's and C types') lacking a member: the module was
        # built and imports, so the code uses a name of another release of it (an enum member renamed, a method
        # added later), else its own misspelling of the name
        return ["package_api_version_mismatch", "user_code_error"]
    if submodule_not_imported(ev):
        # 'module X has no attribute Y' where Y is a subpackage X's __init__ does not import: Python binds a submodule
        # to its parent only once something imports it (the language reference, 'The import system', 5.4.2
        # Submodules), so `import X` then `X.Y.f()` fails whatever the release: the calling code's missing import
        # (`import X.Y`), the user's own or, where another installed package's code calls it, that package's bug
        others = set(value(facts, "torch", "packages_installed") or []) - {parts[0]}
        codes = ["library_bug", "user_code_error"] if others else ["user_code_error", "library_bug"]
        if parts[0] in SUBMODULES_LAZY_SINCE:  # (round 27a) a release before its lazy loading: the second reading
            codes = [codes[0], "package_api_version_mismatch"]
        return codes
    return None


def _platform_codes(facts: Mapping[str, Any], ev: Mapping[str, Any], parts: list[str]) -> list[str] | None:
    """(round 35a) A module missing because of the platform, not a package: a Unix-only name of the standard library
    on Windows, Kit's modules asked before Isaac Sim's app runs; None otherwise."""
    if posix_only_on_windows(facts, ev):
        # (round 35a) a module or name Python's standard library has on Unix only, asked on Windows: the code was
        # written for Linux/macOS; an installed package's (its last frame): that package does not support Windows (a
        # release for it, WSL or Linux), else the person's own code's
        if _who_asks(facts, ev, parts) == "user_code_error" and not value(facts, "torch", "last_frame_package"):
            return ["user_code_error", "package_no_build_for_platform"]
        return ["package_no_build_for_platform", "library_bug"]
    if kit_module_before_app(facts, ev):
        # (round 35a) pxr / carb (USD's and Carbonite's Python bindings) asked in Isaac Sim / Isaac Lab's code: Kit
        # puts them on the path only once SimulationApp (AppLauncher) runs, as the omni.* modules
        # (tables/library_messages.csv isaac_sim_module_before_app): a script importing them, or an Isaac Lab module
        # that does, before launching the app; the script's own order (a project's script: its maintainers' fix)
        return ["user_code_error", "library_bug"]
    return None


def _module_codes(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> list[str]:
    mod = str(ev.get("module") or "")
    parts = mod.split(".")
    last = parts[-1]
    if ev.get("dashed") and not (_an_installed_distribution(facts, ev, parts[0]) or source_built_module(parts[0])
                                 or parts[0] in _TORCH_FAMILY):
        # Python's own line names a module with a dash, which no import statement can ask for: code passed a
        # distribution's name to importlib (itkwidgets' import_module("imjoy-jupyterlab-extension")), a bug of that
        # code, the installed package's unless the project's own frame asked; a package the doctor knows, so named,
        # is that package (the user wrote its distribution's name)
        return ["user_code_error", "library_bug"] if ev.get("dashed") == "own" else ["library_bug", "user_code_error"]
    building = has_sign(facts, "pip_build", "build_context", "torch_absent_at_build")
    if len(parts) == 1 and mod in PYTHON_OPTIONAL_C_MODULES and not (ev.get("import_name") or ev.get("attribute")):
        # (round 35b) a compiled module of Python's own standard library that CPython's build makes only where the
        # system library's headers were there (_ctypes: libffi, _lzma, _bz2, _sqlite3, ...): this interpreter (pyenv,
        # a source build) was built without them; install the headers, then rebuild the interpreter
        return ["build_dependency_missing", "extension_not_compiled"]
    if (mixed := _shadowed_or_mixed_codes(facts, ev, parts)) is not None:
        return mixed
    if (platform := _platform_codes(facts, ev, parts)) is not None:
        return platform
    row = removed_api(facts, ev)
    if row is not None:
        # (round 23e) a name a release of the library (or of Python) removed or renamed, by its release notes
        # (tables/removed_apis.csv): the code was written for an older release (the row's codes: Pillow 10's
        # constants also read as the calling library's bug, its release not updated)
        return _removed_row_codes(row, ev)
    if (row := added_api(facts, ev)) is not None:
        # (round 27d) a name a later release added (tables/added_apis.csv, from its release notes): the installed
        # release is older than the code's; the calling code's own mistake (a name of another package) second
        codes = [c for c in row["codes"].split("|") if c]
        if ev.get("guarded_import"):
            # (round 34b) a NameError after the code's optional import (try/except): the package missing altogether
            # is the other way the import fails, the code's own name no reading (it imports the name)
            codes = [*codes[:1], "python_package_missing"]
        return codes
    if (named := _misnamed_or_unimported_codes(facts, ev, parts)) is not None:
        return named
    if parts[0] == "torch" and len(parts) == 1 and not ev.get("attribute"):
        return _torch_itself_missing_codes(facts, building)
    if parts[0] in _TORCH_FAMILY and not (ev.get("import_name") or ev.get("attribute")) and (
            len(parts) == 1 or (len(parts) == 2 and parts[1] in _TORCH_FAMILY[parts[0]])):
        # torch's companion itself (or a module it has had since its first releases) is missing: the package is not
        # installed in this Python (a torch built from source brings no torchvision; torch_geometric is its own
        # install beside torch_scatter/torch_sparse), as for torch itself
        if has_sign(facts, "in_notebook"):
            return kernel_python_codes(facts) + ["torch_not_installed"]
        return ["torch_not_installed"]
    if building and len(parts) == 1 and mod.lower() in _BUILD_REQUIREMENTS:
        # setup.py imports its build requirements before anything is built: missing there is pip's isolated build
        # environment (only what pyproject.toml's build-system.requires names) or a machine without them
        return ["build_dependency_missing", "torch_not_found_at_build"]
    if mod in ("torch._six", "torch.six") or last == "_six":
        return ["torch_api_incompatible_source"]
    if parts[0] == "triton":  # torch's inductor imports triton's internals (_triton_codes)
        return _triton_codes(facts, ev, parts)
    if parts[0] in LINUX_WHEELS_ONLY and len(parts) == 1 and not (ev.get("import_name") or ev.get("attribute")) \
            and value(facts, "context", "os") == "windows":
        # (round 34b) as triton's (_triton_codes): a package whose releases carry Linux wheels only, missing on native
        # Windows: no pip install finds a wheel there (the platform's), else it is just not installed
        return ["package_no_build_for_platform", "python_package_missing"]
    if comfyui_core_missing(ev):
        # (round 34b) a module of ComfyUI's own tree that a custom node imports and the running ComfyUI lacks: the
        # node was written for a later ComfyUI (its update is the fix); the node's own bug (a module ComfyUI never
        # had, a fork's) second
        return ["package_api_version_mismatch", "library_bug"]
    if len(parts) > 2 and source_built_module(mod) and not (ev.get("import_name") or ev.get("attribute")):
        # (round 34b) a compiled module a project builds in place inside its own package tree (Hunyuan3D-2's
        # hy3dgen/texgen/differentiable_renderer/mesh_processor, source_built_modules.csv's dotted rows): its folder
        # has the sources only until the project's build step ran
        return ["extension_not_compiled"]
    if ev.get("submodule_absent") and not (last.lower().endswith(_COMPILED_SUFFIXES) or "_cuda" in last or
                                           last in _COMPILED_NAMES or last.startswith("_")):
        # (round 22) 'cannot import name x from partially initialized module P (.../P/__init__.py)': P's own __init__
        # imports its submodule x (`from . import x`), which its folder lacks (Python swallows the submodule's
        # ModuleNotFoundError and words the missing name as a circular import): a project's checkout, or a package's
        # release, without a file its own code imports (never committed, left out of the package); the project's
        # maintainers' fix, else a file the user removed or a name of the user's own shadowing P
        path = str(ev.get("submodule_absent") or "").lower()
        installed = any(k in path for k in ("site-packages/", "dist-packages/", ".egg/"))
        return ["library_bug", "package_api_version_mismatch" if installed else "user_code_error"]
    if ev.get("import_name") and _from_python_file(str(ev.get("line") or "")):
        # 'cannot import name X from Y (.../y.py)': Y is a Python file, so X is a name it defines (or no longer
        # defines), never a compiled submodule of it: the code and the installed release of Y disagree; a file of
        # the project's own (not under site-/dist-packages, no distribution of that name shown) has no release
        m = _FROM_FILE_RE.search(str(ev.get("line") or ""))
        path = m.group(1).replace("\\", "/").lower() if m else ""
        if any(k in path for k in ("site-packages/", "dist-packages/", ".egg/")) or _an_installed_distribution(
                facts, ev, parts[0]):
            return ["package_api_version_mismatch", *filter(None, [_who_asks(facts, ev, parts)])]
        return _found_module_lacks_name(facts, ev, parts)
    compiled = last.lower().endswith(_COMPILED_SUFFIXES) or "_cuda" in last or last in _COMPILED_NAMES
    if compiled or (last.startswith("_") and not last.startswith("__") and not ev.get("import_name")):
        # a private name imported from a module ('cannot import name _helper from pkg.mod') is a function, not a
        # compiled submodule
        if len(parts) == 2 and parts[0] in STACK_PACKAGES and not last.startswith("_") and not (
                ev.get("own_import") or ev.get("import_name") or ev.get("attribute")):
            # a released package's named compiled module imported by the calling code itself ('torch_cluster.knn_cuda'):
            # never built, or a module of an older release the calling code was written for (releases rename and
            # merge their compiled modules: torch_cluster 1.3's knn_cuda is not a module of its later releases)
            return ["extension_not_compiled", "package_api_version_mismatch"]
        return ["extension_not_compiled"]
    if ev.get("own_import"):
        # an installed package's own file imports a module of its own that the install lacks: a compiled module never
        # built (installed from a source checkout, a git URL without the build step), else the package's packaging
        return ["extension_not_compiled", "library_bug"]
    if source_built_module(parts[0]) and not (ev.get("import_name") or ev.get("attribute")):
        # a CUDA extension that only its project's source tree builds (setup.py in a folder or a git submodule; a
        # PyPI project of the same name, where there is one, is another package): missing means never built there;
        # said installed and still missing, the project's packaging may leave the module out (no __init__.py, a
        # package its setup.py does not list): `pip show -f` of it decides
        said = has_sign(facts, "package_said_installed", "module_said_installed")
        return ["extension_not_compiled"] + (["library_bug"] if said else [])
    if ev.get("import_name") and len(parts) == 2 and not last.startswith("_") and _package_itself(ev):
        # 'cannot import name X from Y' with Y a top-level package (no file named, or its __init__.py under
        # site-/dist-packages): the installed release of Y does not define X (removed or renamed since the calling
        # code was written, or not added yet); Python prints the file of a project's own module
        return ["package_api_version_mismatch", *filter(None, [_who_asks(facts, ev, parts)])]
    if ev.get("import_name") and len(parts) > 2 and _imported_by_another_installed_package(facts, parts[0]):
        return ["package_api_version_mismatch", *filter(None, [_who_asks(facts, ev, parts)])]
    if len(parts) > 1 and _from_source_checkout(facts, parts[0]):
        # the traceback runs in the package's source tree (python started in its checkout): that tree, without the
        # compiled modules an install built, shadows the installed package
        return ["extension_not_compiled", "package_api_version_mismatch"]
    if ev.get("attribute") and len(parts) == 3 and parts[1] == "_C" and parts[0] not in (*_TORCH_FAMILY, "torch"):
        # (round 24a) a function missing from an installed package's own _C: a partial or stale build first
        return ["extension_not_compiled", "package_api_version_mismatch"]
    if _compiled_top_lacks_function(ev, parts):  # (round 27c) built, from another revision than its Python code
        return ["extension_not_compiled", "package_api_version_mismatch"]
    if ev.get("attribute") and len(parts) > 2 and parts[-2] in _SOURCE_FOLDER_NAMES:
        # (round 32a) a function missing from a compiled module whose name is also its sources' folder: that folder,
        # imported in place of the module that was never built (or is shadowed by the checkout), whatever is installed
        return ["extension_not_compiled", "package_api_version_mismatch"]
    if (len(parts) > 1 or ev.get("attribute")) and _an_installed_distribution(facts, ev, parts[0]):
        return ["package_api_version_mismatch", *filter(None, [_who_asks(facts, ev, parts)])]  # (an attribute missing from the package itself: its name cut off)
    mod = parts[-2] if ev.get("attribute") and len(parts) > 2 else ""
    if mod and (mod.lower().endswith(_COMPILED_SUFFIXES) or mod in _COMPILED_NAMES):
        # a function missing from a package's compiled module ('nerfacc.cuda.csrc', 'pkg._C') where no release of the
        # package is shown: the module is a stub or a build of other sources (a JIT build that failed, a wheel
        # without the kernels, a stale build); building it from the installed sources first, another release second
        return ["extension_not_compiled", "package_api_version_mismatch"]
    if len(parts) > 1 or ev.get("attribute"):
        return _found_module_lacks_name(facts, ev, parts)
    if ev.get("project_import") and not _an_installed_distribution(facts, ev, parts[0]):
        # a package named like no release the text shows, imported deep (its own subpackages) by a script in a folder
        # of the project (scripts/x.py): the project's own package, which Python does not find when the script is run
        # by its path (sys.path[0] is the script's folder, not the project's root): run it from the root as a module
        # (python -m scripts.x) or with the root on PYTHONPATH
        return ["user_code_error"]
    return _top_level_codes(facts, ev)


def _torch_itself_missing_codes(facts: Mapping[str, Any], building: bool) -> list[str]:
    """``No module named 'torch'``: pip's isolated build environment while building, another Python than a
    notebook kernel's, or no torch in the Python that ran the script."""
    notebook = has_sign(facts, "in_notebook")
    if building:
        return ["torch_not_found_at_build"] + (["kernel_wrong_python"] if notebook else [])
    if notebook:
        # torch installed for another Python than the kernel's, or not installed at all (an image or an
        # environment made without it): the second unless the text says torch is installed
        said = has_sign(facts, "torch_said_installed", "package_said_installed")
        return kernel_python_codes(facts) + ([] if said else ["torch_not_installed"])
    if has_sign(facts, "torch_said_installed"):
        # torch is installed, yet not where this import looks: pip's isolated build environment (installing a
        # package) or another Python (a kernel, a venv); `pip install -v` / `sys.executable` decide
        return ["torch_not_found_at_build", "kernel_wrong_python"]
    return ["torch_not_installed"]  # the Python that ran the script has no torch


def _top_level_codes(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> list[str]:
    """A top-level module missing that no rule above reads: a notebook's kernel of another Python; said installed
    (or importing in a terminal), another Python first and, outside a notebook, the package missing from the Python
    that runs the code second (the install went to another); else a plain package missing (round 25)."""
    if has_sign(facts, "in_notebook"):
        return kernel_python_codes(facts)
    plain = package_not_installed(facts, ev)
    if has_sign(facts, "terminal_works", "package_said_installed"):
        return kernel_python_codes(facts) + (["python_package_missing"] if plain else [])
    return ["python_package_missing"] if plain else []


#: Python's standard library (a Python built without one of its modules: no pip install brings it), and Python 2's
#: modules Python 3 renamed or removed (code written for Python 2)
_STDLIB = frozenset(sys.stdlib_module_names) | {
    "urllib2", "urlparse", "httplib", "ConfigParser", "Queue", "cPickle", "StringIO", "cStringIO", "Tkinter",
    "tkMessageBox", "commands", "HTMLParser", "__builtin__", "thread", "SocketServer", "xmlrpclib", "cookielib",
    "exceptions", "sets", "md5", "sha", "imp", "distutils", "asyncore", "asynchat", "smtpd"}
#: top-level names that are a project's own folders far more often than a distribution on PyPI (a script run from
#: another folder than the project's root does not find them): no install brings them
_PROJECT_FOLDER_NAMES = frozenset({
    "utils", "util", "models", "model", "lib", "libs", "src", "core", "common", "config", "configs", "tools", "modules",
    "data", "dataset", "networks", "network", "helpers", "scripts", "options", "losses", "layers",
    "experiments", "app", "main", "test", "tests"})


def package_not_installed(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> bool:
    """(round 25) Whether the module event ``ev`` is a plain Python package missing from the Python that runs the
    code (``python_package_missing``): Python's 'No module named X' for a top-level X (never a submodule or a name of a
    package that is there: that is the installed release's API) that is not torch or a companion, not a compiled or
    source-built module (those are decided before), not a module of Python's own standard library (a Python built
    without it: no pip install brings it), not a usual name of a project's own folder, not imported three parts deep
    or as the folder around a source-built module, not one slip off a package of the stack, and not asked for in a
    build (its environment decides there)."""
    mod = str(ev.get("module") or "")
    if ev.get("kind") != "module_missing" or "." in mod or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,80}", mod):
        return False
    if any(ev.get(k) for k in ("attribute", "import_name", "dashed", "none_import", "own_import", "project_import",
                               "type_object", "submodule_absent", "pip_name")):
        return False
    if mod.lower() in ("torch", "pytorch") or mod.lower() in _TORCH_FAMILY or mod.startswith("_") or \
            source_built_module(mod):
        return False
    if mod in _STDLIB or mod.lower() in _PROJECT_FOLDER_NAMES:
        return False
    below = str(ev.get("imported_as") or "").split(".")[1:]
    if (len(below) >= 2 and not _released_elsewhere(facts, mod)) or any(source_built_module(p) for p in below):
        # imported three parts deep (from vision.fair.detectron2.demo import X), or as the folder around a CUDA
        # extension only a source tree builds (from pointnet2_ops_lib.pointnet2_ops import x): the project's own
        # package tree, which Python does not find from the folder the script runs in; no install brings it.
        # (round 35a) A released package's import name (from segment_anything.utils.amg import x) is not a project's
        # tree: Python names the top-level package when that is what it cannot find (importlib's
        # _find_and_load_unlocked imports the parents first), so the package itself is missing however deep the import
        return False
    if _typo_of_known(mod):
        return False  # a name one slip off a package the doctor knows (ipwidgets): the import is misspelt
    if any(e.get("line") == ev.get("line") and e.get("table") in ("library_messages", "torch_messages")
           for e in events(facts, kind="message")):
        return False  # a table row reads the same line (a server's own words for its kernels not built): it knows it
    # a build in the text (its compiler's or setup.py's words, pip's build step failing, a build's requirements):
    # the build's environment decides, not this Python (pip_build alone is any pip install: not a build). (round 34b)
    # pip_source_build alone ("pip install -e ." among the steps the person ran, then `python -c "import X"`) is the
    # install before the run, not the error inside a build: pip's own words for a failed build step
    # (subprocess-exited-with-error, build_context's) place it there, as does a table row reading the install's own
    # outcome ("Successfully installed UNKNOWN-0.0.0": setuptools' project without its metadata, round 27c)
    if has_sign(facts, "pip_source_build") and any(
            e.get("table") in ("library_messages", "torch_messages") for e in events(facts, kind="message")):
        return False
    return not has_sign(facts, "build_context", "torch_absent_at_build", "build_requirements_failed")


#: (round 25) widely used packages a misspelt import is one edit off ("import pandsa"): printing `pip install pandsa`
#: would install whatever holds that name on PyPI (typo-squatting), so such a name gets no install command
_COMMON_PACKAGES = frozenset({
    "pandas", "matplotlib", "requests", "seaborn", "tqdm", "pillow", "imageio", "einops", "transformers",
    "tensorflow", "keras", "plotly", "networkx", "sympy", "numba", "pytest", "jupyter", "datasets", "accelerate",
    "diffusers", "xformers", "pyyaml", "opencv", "openai", "gradio", "fastapi", "uvicorn", "flask", "django",
    "pydantic", "tensorboard", "wandb", "lightning", "pytorch_lightning", "torchvision", "torchaudio", "plyfile",
    "pyvista", "pyrender", "kornia", "nvdiffrast", "trimesh", "scikit_image", "scikit_learn", "statsmodels",
    "beautifulsoup4", "selenium", "boto3", "redis", "psycopg2", "sqlalchemy", "pymongo", "hydra", "omegaconf"})
#: what a misspelt import is compared with, in a fixed order (the first one edit off is named)
_TYPO_TARGETS = tuple(sorted(STACK_PACKAGES | _COMMON_PACKAGES))


def _typo_of_known(name: str) -> str:
    """The package of the stack (:data:`STACK_PACKAGES`) or a widely used one (:data:`_COMMON_PACKAGES`) that ``name``
    is one edit off (a letter left out, added, changed, or two swapped; names of six letters or more; shorter names
    only two neighbouring letters swapped, "tqmd"), else ""."""
    low = name.lower()
    if low in STACK_PACKAGES or low in _COMMON_PACKAGES or len(low) < 4:
        return ""
    if len(low) < 6:
        return next((k for k in _TYPO_TARGETS if len(k) == len(low) and any(
            low[:i] + low[i + 1] + low[i] + low[i + 2:] == k for i in range(len(low) - 1))), "")
    for known in _TYPO_TARGETS:
        a, b = (low, known) if len(low) >= len(known) else (known, low)
        if len(a) - len(b) > 1 or a == b:
            continue
        if len(a) == len(b):
            diff = [i for i in range(len(a)) if a[i] != b[i]]
            if len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]]):
                return known
        elif any(a[:i] + a[i + 1:] == b for i in range(len(a))):
            return known
    return ""


#: importlib's words when the parent of a dotted module is a plain module ("No module named 'X.Y'; 'X' is not a
#: package": importlib/_bootstrap.py _find_and_load_unlocked, _ERR_MSG + "; {!r} is not a package")
_NOT_A_PACKAGE_RE = re.compile(r"; '([A-Za-z0-9_.]{1,100})' is not a package")


def _not_a_package(ev: Mapping[str, Any], parts: list[str]) -> bool:
    """Whether Python's own line says the missing module's parent is a plain module, not a package."""
    m = _NOT_A_PACKAGE_RE.search(str(ev.get("line") or "")) if len(parts) > 1 else None
    return bool(m) and m.group(1) == ".".join(parts[:-1])


def _torch_private_attribute(ev: Mapping[str, Any], parts: list[str]) -> bool:
    """Whether ``ev`` is a private attribute (``_name``) missing from torch or one of its Python modules (not its
    compiled ``torch._C`` nor a CUDA module of it)."""
    if not ev.get("attribute") or parts[0] != "torch" or len(parts) < 2:
        return False
    last = parts[-1]
    return last.startswith("_") and not last.startswith("__") and last != "_C" and not any(
        p.startswith("_C") or p.lower().endswith(_COMPILED_SUFFIXES) for p in parts[1:-1])


def _found_module_lacks_name(facts: Mapping[str, Any], ev: Mapping[str, Any], parts: list[str]) -> list[str]:
    """(round 25a) A dotted module, or a name of a module, that Python's import machinery did not find after it
    found the module above it: "No module named 'X.Y'" (importlib names the full dotted name only once X imported:
    a missing X is "No module named 'X'"), "module 'X' has no attribute 'Y'", "cannot import name 'Y' from 'X'". The
    module X is there, so the name is absent from the copy of X installed: a release of X without it (removed,
    renamed, or added later than the installed one: package_api_version_mismatch), else X's own release is broken
    or the calling package does not guard it (library_bug). Where X's files are shown in a folder of the project's
    own (the from-file path outside every installed tree, no checkout of a package named X), the project's checkout
    lacks what its own code imports: library_bug first, the person's own copy second."""
    line = str(ev.get("line") or "")
    if "partially initialized" in line or ev.get("type_object"):
        return []  # a circular import, a compiled type's member: read elsewhere
    if own_module_path(ev):
        return ["library_bug", "user_code_error"]
    if not (ev.get("attribute") or ev.get("import_name")) and not re.search(r"No module named [`'\"]", line):
        return []  # Python 2's unquoted words name the full dotted name when the top package itself is missing
    last = parts[-1].lower()
    if len(parts) > 1 and not (ev.get("attribute") or ev.get("import_name")) and (
            last.endswith(("_op", "_ops")) or last.startswith("cpp") or last == parts[-2].lower()):
        # a compiled op's module by its build's naming (torch.utils.cpp_extension's CppExtension names: voxel_op,
        # cpp_subsampling; a module built in place in its own folder, X/X.so): never built in this checkout
        return ["extension_not_compiled", "package_api_version_mismatch"]
    if not (_release_shown(facts, parts[0]) or _checkout_path(ev)):
        if not _released_elsewhere(facts, parts[0]):
            return []  # a module the text shows nowhere as a distribution may be a folder of the project's own
        # (round 33k) a name only a released package has (torchtext, diffusers, pycolmap, bpy, monai, paddle): the
        # module Python found is that package's installed release, whether or not the text names the release; whose
        # code asks for the name decides the second reading (_who_asks), and with no cue of it (a from-import line
        # alone: the calling code's, or the package's own release without a subpackage) there is none
        return ["package_api_version_mismatch", *filter(None, [_who_asks(facts, ev, parts)])]
    return ["package_api_version_mismatch", "library_bug"]


def _released_elsewhere(facts: Mapping[str, Any], top: str) -> bool:
    """(round 33k) Whether ``top`` is the import name of a released package, whether or not the text shows it
    installed: a PyPI project's (tables/released_import_names.txt: the 15,000 most downloaded of hugovk/top-pypi-
    packages, less the names a project's own folder may have: utils, models, data, English words outside the 1,000
    most downloaded) or one of the doctor's own tables (kaolin, isaacgym: released outside PyPI); and the text shows no
    folder of that name in the project's own files (a traceback's file outside every installed tree under .../top/:
    the project's own copy, read as before)."""
    from smrnb.doctor import tables

    t = _import_name(top)
    if t not in tables.released_import_names() and t not in _table_packages() and t not in STACK_PACKAGES:
        return False
    own = [str(f).replace("\\", "/").lower() for f in value(facts, "torch", "source_files") or []]
    return not any(f"/{t}/" in f"/{p}" for p in own)


def _release_shown(facts: Mapping[str, Any], top: str) -> bool:
    """(round 25a) Whether the text shows ``top`` as a distribution of its own: a release of it named ("monai 0.8",
    pip's or conda's listing, ``top.__version__`` printed) or a ``pip install`` of it."""
    t = _import_name(top)
    releases = value(facts, "loader", "package_releases") or {}
    built = value(facts, "toolkit", "building") or []
    return t in {_import_name(str(k)) for k in releases} or t in {_import_name(str(b)) for b in built}


def _checkout_path(ev: Mapping[str, Any]) -> bool:
    """(round 25a) Whether Python's 'from X (PATH)' shows X imported from a source checkout of a package named X
    (``.../X-dev/X/__init__.py``, an editable install)."""
    m = _FROM_FILE_RE.search(str(ev.get("line") or ""))
    top = str(ev.get("module") or "").split(".")[0].lower()
    path = m.group(1).replace("\\", "/").lower() if m else ""
    return bool(top) and bool(re.search(rf"/{re.escape(top)}[\w.-]{{0,40}}/{re.escape(top)}/", path))


def own_module_path(ev: Mapping[str, Any]) -> str:
    """(round 25a) The file Python's "cannot import name 'Y' from 'X' (PATH)" names where it is the project's own: an
    absolute path outside every installed tree and not a source checkout of a package named X (``.../X-dev/X/``);
    "" otherwise."""
    if ev.get("kind") != "module_missing" or not ev.get("import_name"):
        return ""
    line = str(ev.get("line") or "")
    m = _FROM_FILE_RE.search(line) if "partially initialized" not in line else None
    path = m.group(1).replace("\\", "/") if m else ""
    low, top = path.lower(), str(ev.get("module") or "").split(".")[0].lower()
    if not (low.startswith("/") or re.match(r"[a-z]:/", low)) or any(
            k in low for k in ("site-packages/", "dist-packages/", ".egg/")):
        return ""
    return "" if re.search(rf"/{re.escape(top)}[\w.-]{{0,40}}/{re.escape(top)}/", low) else path


def _round25a_codes(facts: Mapping[str, Any], ev: Mapping[str, Any], parts: list[str]) -> list[str] | None:
    """(round 25a) The readings decided before the others, else None:
    - "cannot import name 'X'" with no module named anywhere (``bare_name``): the from-import found its module (a
      module missing is "No module named"), and that module's installed release lacks X (another release's API), else
      the release that should define it is broken (library_bug); read only where the text is about the
      environment's releases (a release named, a pip install): a name alone may be the project's own module's;
    - importlib's "No module named 'X.Y'; 'X' is not a package" (_find_and_load_unlocked): X imported and is a plain
      module, not a package: a file of the user's own named X.py in the package's place;
    - a private name of torch's own Python modules ('module torch.distributed has no attribute _all_gather_base',
      looked up by apex): the installed torch is another release than the calling package was written for (private
      names come and go between releases; torch's compiled _C, and torch._six's own reading, left out)."""
    if ev.get("bare_name"):
        shown = value(facts, "loader", "package_releases") or value(facts, "toolkit", "building")
        # (round 26a) or a distinctive name tables/removed_apis.csv says a release removed (removed_api)
        return ["package_api_version_mismatch", "library_bug"] if shown or removed_api(facts, ev) else []
    if not (ev.get("attribute") or ev.get("import_name")) and _not_a_package(ev, parts):
        return ["user_code_error"]
    if _torch_private_attribute(ev, parts) and parts[-1] != "_six":
        return ["package_api_version_mismatch", "library_bug"]
    return None


#: (round 34b) import names of packages whose releases carry Linux wheels only (Dao-AILab/flash-attention's releases
#: page and README: Linux, Windows only by a source build "with more testing needed"; vllm's installation docs: Linux
#: only)
LINUX_WHEELS_ONLY = frozenset({"flash_attn", "vllm"})
#: (round 34b) top-level modules of ComfyUI's own tree (comfyanonymous/ComfyUI) that later releases added beside the
#: ones it always had (nodes, folder_paths, latent_preview, execution, server, the comfy and comfy_extras packages):
#: node_helpers.py (2024; its nodes.py of 2023 imports no such module), comfy_execution/ (2024), comfyui_version.py
#: (2024-12), comfy_api/, comfy_api_nodes/ and comfy_config/ (2025). ComfyUI runs from its own folder, so these are
#: importable by every custom node; its nodes.py load_custom_node logs the import's error as "Cannot import
#: {module_path} module for custom nodes: {e}" (and "(IMPORT FAILED)" in its summary)
COMFYUI_LATER_MODULES = frozenset({"node_helpers", "comfy_execution", "comfyui_version", "comfy_api", "comfy_api_nodes",
                                   "comfy_config"})


def comfyui_core_missing(ev: Mapping[str, Any]) -> bool:
    """(round 34b) Python's "No module named X" for a module of ComfyUI's own tree: one its later releases added
    (:data:`COMFYUI_LATER_MODULES`), or a submodule of its comfy / comfy_extras packages ("No module named
    'comfy.ldm.flux'": Python names the dotted module only where the package itself imported, so comfy is there and
    lacks it). A custom node written for another ComfyUI than the one that runs it."""
    if ev.get("kind") != "module_missing" or any(ev.get(k) for k in ("attribute", "import_name", "dashed",
                                                                         "none_import", "type_object")):
        return False
    parts = str(ev.get("module") or "").split(".")
    return parts[0] in COMFYUI_LATER_MODULES or (parts[0] in ("comfy", "comfy_extras") and len(parts) > 1)


def comfyui_core_fix(mod: str, code: str) -> dict[str, Any]:
    """(round 34b) The words of :func:`comfyui_core_missing`'s two readings: ComfyUI older than the custom node, else
    the node's own bug (it imports what no ComfyUI release has: a fork's module)."""
    if code == "library_bug":
        return {"title": f"Else the custom node's bug: it imports {mod}, which no ComfyUI release may have (a fork's "
                         "module)",
                "commands": ["# the custom node's issue tracker and README: the ComfyUI it supports",
                             "cd custom_nodes/<the node> && git pull   # its release that imports ComfyUI's own modules"],
                "severity": "info"}
    return {"title": f"The running ComfyUI has no {mod}: the custom node was written for a later ComfyUI",
            "detail": f"{mod} is a module of ComfyUI's own tree (its later releases added it); ComfyUI puts its folder "
                      "on sys.path for every custom node, so a node importing it fails on an older ComfyUI and "
                      "ComfyUI skips it ('IMPORT FAILED').",
            "commands": ["cd <ComfyUI's folder> && git pull   # or ComfyUI-Manager's 'Update ComfyUI'; the portable "
                         "build: update/update_comfyui.bat",
                         "python -m pip install -r requirements.txt   # in ComfyUI's Python, after the update"]}


def _triton_codes(facts: Mapping[str, Any], ev: Mapping[str, Any], parts: list[str]) -> list[str]:
    """A triton module missing: torch's inductor imports triton's internals, which change between releases (each torch
    release pins one): torch's companion of another release; (round 25a) where another installed package's own frame
    imports it (unsloth's `from triton.common.build import libcuda_dirs`, no torch frame shown), that package was
    written for another triton release; (round 25b) triton itself missing on native Windows: triton publishes Linux
    wheels only (its README's supported platforms), so torch, xformers and unsloth find none; a Windows build of it is
    a fork's (triton-windows), into a full Python (the embedded one lacks the headers it compiles with)."""
    if len(parts) == 1 and not ev.get("import_name") and value(facts, "context", "os") == "windows":
        return ["package_no_build_for_platform", "companion_built_for_other_torch"]
    torchy = ("torch", "triton", "torchvision", "torchaudio")
    shown = [str(p).lower() for p in value(facts, "torch", "packages_installed") or []]
    by = str(value(facts, "torch", "last_frame_package") or "").lower() or (shown[-1] if len(shown) == 1 else "")
    if len(parts) > 1 and by and by not in torchy and not any(p in torchy for p in shown):
        return ["package_api_version_mismatch", "companion_built_for_other_torch"]
    return ["companion_built_for_other_torch"]


def _shadowing_file(facts: Mapping[str, Any], top: str) -> str:
    """A traceback file of the user's own (``torch.source_files``: outside every installed tree) named ``top``.py and
    not in a folder of that name (a checkout of the package itself): it shadows the package ``top``; "" if none."""
    for path in value(facts, "torch", "source_files") or []:
        parts = str(path).replace("\\", "/").lower().split("/")
        if parts[-1] == f"{top.lower()}.py" and (len(parts) < 2 or parts[-2] != top.lower()):
            return str(path)
    return ""


#: the words of an extension built without its GPU code (pytorch3d's 'Not compiled with GPU support', detectron2's)
_NO_GPU_BUILD_WORDS = ("not compiled with gpu support", "not compiled with cuda support", "not built with cuda")


def _not_compiled_codes(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> list[str]:
    """The readings of an extension without its compiled (GPU) code: built without it, unless the machine has no
    NVIDIA GPU to build for (ROCm/AMD's platform or another vendor's GPU named, macOS) and none of NVIDIA's is shown:
    CUDA kernels could not run there at all, whatever the build (no_gpu first)."""
    low = str(ev.get("line") or "").lower()
    if any(w in low for w in _NO_GPU_BUILD_WORDS) and not (value(facts, "driver", "gpus") or
                                                           value(facts, "driver", "driver_version")) and (
            has_sign(facts, "rocm_platform") or value(facts, "driver", "other_gpus") or
            value(facts, "context", "os") == "macos"):
        return ["no_gpu", "extension_not_compiled"]
    return ["extension_not_compiled"]


def _shadowed_submodule(facts: Mapping[str, Any], ev: Mapping[str, Any], parts: list[str]) -> bool:
    """Whether a missing module is a submodule of a package that a traceback file of the user's own shadows: Python 3's
    'No module named X.Y' (its "'X' is not a package") with X.py of the user's own in the traceback, or Python 2's
    bare 'No module named Y' (it names only the last part) where the text imports a package X that such a file
    shadows."""
    if ev.get("import_name") or not parts[0]:
        return False
    if len(parts) > 1:
        return bool(_shadowing_file(facts, parts[0]))
    line = str(ev.get("line") or "")
    if not re.search(r"No module named [A-Za-z_]", line):
        return False  # Python 3 quotes the full dotted name: a bare name there is a top-level module
    imported = [str(m) for m in value(facts, "loader", "modules_imported") or []]
    return any(m.lower() != parts[0].lower() and _shadowing_file(facts, m) for m in imported)


def _package_itself(ev: Mapping[str, Any]) -> bool:
    """Whether a 'cannot import name' names no file for the package (a title, Python before 3.8) or its
    ``__init__.py`` under site-/dist-packages (an installed release)."""
    line = str(ev.get("line") or "")
    m = _FROM_FILE_RE.search(line)
    if not m:
        return "partially initialized" not in line and not re.search(r"from '[^']{1,200}' \(", line)
    path = m.group(1).replace("\\", "/").lower()
    return path.endswith("__init__.py") and any(k in path for k in ("site-packages/", "dist-packages/"))


def source_built_row(name: str) -> Mapping[str, str] | None:
    """The row of ``source_built_modules.csv`` (a CUDA extension that only its project's source tree builds) whose
    import name is ``name`` (or, for a row marked ``prefix``, starts it: a fork's renamed copy); None for any other
    name (:func:`smrnb.doctor.tables.source_built_row`, the one lookup the text reader shares)."""
    from smrnb.doctor import tables

    return tables.source_built_row(name)


def source_built_module(name: str) -> str:
    """The module name of ``name``'s row of ``source_built_modules.csv`` (:func:`source_built_row`); ``""`` for any
    other name."""
    row = source_built_row(name)
    return row["module"] if row else ""


def _imported_by_another_installed_package(facts: Mapping[str, Any], top: str) -> bool:
    """Whether a name missing from package ``top`` was imported while an installed package (its files under
    site-/dist-packages in the traceback) other than ``top`` ran, and the text imports ``top``: one installed package
    needs a release of another that this environment does not have."""
    shown = [p.lower() for p in value(facts, "torch", "packages_installed") or []]
    imported = [m.lower() for m in value(facts, "loader", "modules_imported") or []]
    t = top.replace("-", "_").lower()
    return bool(shown) and t not in shown and t in imported


def _from_source_checkout(facts: Mapping[str, Any], top: str) -> bool:
    """Whether the traceback shows package ``top`` imported from a source checkout (``.../kaolin/kaolin/x.py``
    outside site-/dist-packages) of a package the doctor's tables know (a folder of the project's own is no checkout
    of a released package)."""
    t = top.lower()
    if t not in _table_packages():
        return False
    paths = [str(p).replace("\\", "/").lower() for p in value(facts, "torch", "source_files") or []]
    if any(f"/{t}/{t}/" in p for p in paths):
        return True
    # (round 25b) the package's own __init__.py outside every installed tree: Python started in (or with on its path)
    # the repository's root, whose unbuilt package folder shadows the installed one (torch's /workspace/torch/
    # __init__.py without the torch/version.py and _C its build generates)
    return any(p.endswith(f"/{t}/__init__.py") and not any(k in p for k in ("site-packages/", "dist-packages/", ".egg"))
               for p in paths)


#: what the setup.py of CUDA extensions imports at its top (flash-attn: packaging, psutil, ninja; apex, detectron2:
#: setuptools, wheel; Cython and pybind11 builds; numpy headers) before building anything
#: (round 35b) the standard library's optional compiled modules and the system library (Debian/Ubuntu development
#: package) whose headers CPython's build needs for each: CPython's configure ("py_cv_module__ctypes" ... "missing"
#: where a library is not found) and its old setup.py's "The necessary bits to build these optional modules were not
#: found: _bz2 _ctypes _lzma ..."; the CPython devguide, 'Install dependencies' (libffi-dev, liblzma-dev, libbz2-dev,
#: libsqlite3-dev, tk-dev, libssl-dev, libgdbm-dev, uuid-dev, libreadline-dev, libncurses-dev, zlib1g-dev); pyenv's
#: wiki 'Suggested build environment' (the same list). A Python built without one imports the Python half (ctypes,
#: lzma, bz2, sqlite3, tkinter) and fails on "No module named '_ctypes'"
PYTHON_OPTIONAL_C_MODULES = {"_ctypes": "libffi-dev", "_lzma": "liblzma-dev", "_bz2": "libbz2-dev",
                             "_sqlite3": "libsqlite3-dev", "_tkinter": "tk-dev", "_ssl": "libssl-dev",
                             "_hashlib": "libssl-dev", "_uuid": "uuid-dev", "_gdbm": "libgdbm-dev",
                             "_dbm": "libgdbm-dev", "_curses": "libncurses-dev", "_readline": "libreadline-dev",
                             "zlib": "zlib1g-dev"}
_BUILD_REQUIREMENTS = frozenset({"packaging", "wheel", "setuptools", "ninja", "cython", "pybind11", "psutil",
                                 "setuptools_scm", "cmake", "numpy", "pkg_resources", "distutils", "scikit_build"})


#: Python's "cannot import name 'X' from 'Y' (PATH)": PATH is Y's file (import.c / _bootstrap.py _handle_fromlist)
_FROM_FILE_RE = re.compile(r"cannot import name '[^']{1,200}' from '[^']{1,200}' \(([^()\n]{1,400})\)")


def _from_python_file(line: str) -> bool:
    """Whether the module a name could not be imported from is a plain Python file (not a package's __init__.py)."""
    m = _FROM_FILE_RE.search(line)
    if not m:
        return False
    name = m.group(1).replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.endswith(".py") and name != "__init__.py"


#: compiled companions of torch published as one wheel per torch release and CUDA (PyG's wheel index
#: https://data.pyg.org/whl/torch-<torch>+<cuda>.html), named as their module files appear in a loader's message
def _extension_imported_before_torch(facts: Mapping[str, Any], needed_by: str) -> bool:
    """(round 32b) The module whose torch symbol is undefined is the first import the person typed (at the prompt,
    "`>>> import chamfer`", or a top-level line; not a traceback's source line), and the text imports no torch:
    torch before its libtorch_global_deps loaded torch._C with RTLD_GLOBAL (torch/__init__.py:
    sys.setdlopenflags(_dl_flags.RTLD_GLOBAL | _dl_flags.RTLD_LAZY); from torch._C import *), so an extension that
    does not list torch's libraries as its own dependencies found the at:: / c10:: symbols only once torch was
    imported. Its own build against another torch is still the first reading."""
    lf = facts.get("loader")
    # a look that the finding's evidence does not list (dict.get past rules._Traced): the facts read with value()
    # below are its evidence, and only where they decide
    typed = dict.get(lf, "typed_imports") if isinstance(lf, dict) else None
    base = re.split(r"[/\\]", needed_by)[-1].split(".")[0].lower()
    if not (typed and base and str(typed[0]).lower() == base):
        return False
    return bool(value(facts, "loader", "typed_imports")) and "torch" not in [
        str(m).lower() for m in value(facts, "loader", "modules_imported") or []]


#: (round 32b) words that put a torch release in the past or beside the one in use ("worked with torch 1.13",
#: "upgraded from 1.9", "downgrading to 1.8"): two releases in such a text are two attempts, not one environment
_RELEASES_COMPARED_RE = re.compile(r"\b(?:work(?:s|ed|ing)?|fine|upgrad\w*|downgrad\w*|switch\w*|before|previous"
                                   r"|older|newer|instead|tried|also tested|reinstall\w*)\b")


def _torch_installs_mixed(facts: Mapping[str, Any]) -> Finding | None:
    """(blind audit 36, F12) ``conda list`` shows conda's pytorch (a channel) and pip's torch (pypi), or the text
    shows two torch dist-info / conda-meta records, in the environment that fails (a loader message or a crash): both
    installed into one site-packages/torch folder, which Python imports, its files mixed from both."""
    installs = [i for i in value(facts, "torch", "installs_listed") or [] if isinstance(i, Mapping)]
    conda, pip = _conda_and_pip(installs)
    if not (conda and pip) and len({str(i.get("version")) for i in installs if i.get("record")}) < 2:
        return None
    fail = next((e for e in events(facts, "torch", "sign") if e.get("sign") == "crash_said"), None) or next(
        iter(events(facts, "loader", "undefined_symbol")), None) or next(iter(events(facts, "loader", "message")), None)
    if fail is None:
        return None
    if conda and pip:
        said = (f"conda's {conda.get('name')} {conda.get('version')}"
                + (f" (channel {conda.get('channel')})" if conda.get("channel") else "")
                + f" and pip's {pip.get('name')} {pip.get('version')}")
    else:
        said = " and ".join(f"{i.get('name')} {i.get('version')} ({i.get('by')})" for i in installs
                            if i.get("record"))
    return finding("abi_torch_version_mismatch", facts, {
        "kind": "state", "from": "text", "weight": 20, "line": str(fail.get("line") or ""),
        "fact": f"the text shows two torch installs in one environment: {said}",
        "installs": [dict(i) for i in installs[:4]]},
        how="two torch installs listed in one environment (conda's and pip's, or two records)")


@rule("abi")
def two_torch_releases(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """(round 32b) The text shows two torch releases installed in the environment that fails (a report's 'PyTorch
    version: 1.12.1' beside `conda list`'s 'torch 1.9.1'), and the failure is a crash or an undefined symbol: conda's
    pytorch and pip's torch install into the same site-packages (two dist-infos, one torch/ folder of mixed files),
    so extensions built for one release load against the other's libraries. Not read where the text compares
    releases (one that worked, an upgrade): those are attempts in turn."""
    mixed = _torch_installs_mixed(facts)
    if mixed is not None:
        yield mixed
        return
    shown = [str(v) for v in value(facts, "torch", "versions_shown") or []]
    minors = {tuple(v.split(".")[:2]) for v in shown}
    if len(minors) < 2:
        return
    said = str((value(facts, "torch", "read_from") or {}).get("versions_shown") or "")  # the second release's line
    if _RELEASES_COMPARED_RE.search(said.lower()) or value(facts, "torch", "replaced"):
        return  # (round 37e) torch replaced in the text (pip's -U, "Successfully uninstalled torch-"): one after another
    crash = next((e for e in events(facts, "torch", "sign") if e.get("sign") == "crash_said"), None) or next(
        (e for e in events(facts, "loader", "undefined_symbol") if e.get("owner") in ("torch", "c10")), None)
    if crash is None or any(_RELEASES_COMPARED_RE.search(str(e.get("line") or "").lower())
                            for e in events(facts, "torch", "sign") if e.get("sign") == "crash_said"):
        return
    f = finding("abi_torch_version_mismatch", facts, {
        "kind": "state", "from": "text", "weight": 18, "line": str(crash.get("line") or ""),
        "fact": f"the text shows torch {shown[0]} and torch {shown[1]} installed in one environment"},
        how=f"two torch releases shown installed ({', '.join(shown[:3])}): extensions of one load against the other")
    if f is not None:
        yield f


@rule("abi")
def text_symbols_and_sources(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """Undefined torch symbols (read in an error text or seen by the probe), torch APIs the source uses that
    torch removed, and packages whose compiled module is missing."""
    for ev in events(facts, "loader", "undefined_symbol"):
        if ev.get("owner") not in ("torch", "c10"):
            continue
        nb = str(ev.get("needed_by") or "")
        sym = str(ev.get("symbol") or "")
        try:
            readings = torch_symbol_readings(facts, sym)
        except Exception:  # a demangler failure must not hide the finding
            readings = ["abi_torch_version_mismatch"]
        if ("torchvision" in nb or "torchaudio" in nb) and readings[:1] != ["cxx11_abi_mismatch"]:
            continue  # a companion's binary (rules.loader), unless torch's known flag differs from the symbol's
        if ev.get("at") == "link" and re.search(r"std::(?:__cxx11::)?(?:basic_)?string\b", sym):
            # the linker's, for an application built against libtorch's own headers (one release): the string ABI
            # its flags chose differs from the libtorch archive's (libtorch-cxx11-abi-* or the pre-cxx11 one;
            # TorchConfig.cmake adds the flag, a hand-written qmake/Makefile does not) before another release does
            readings = ["cxx11_abi_mismatch", "abi_torch_version_mismatch"]
        if _wheel_for_other_torch(facts, nb) and readings[0] == "cxx11_abi_mismatch" \
                and not _static_verdict(facts, sym)[0]:
            # (blind audit 36, F7) a PyG wheel whose +ptXY names another torch than the one the text shows: that wheel
            # is the cause, whatever the symbol's string ABI (an old-ABI symbol is a pre-2.7 pip torch's too)
            readings = ["abi_torch_version_mismatch"] + [c for c in readings if c != "abi_torch_version_mismatch"]
        how = "the abi probe's check of the extension" if _static_verdict(facts, sym)[0] else (
            f"torch's _GLIBCXX_USE_CXX11_ABI={int(bool(_torch_flag(facts)))}" if _torch_flag(facts) is not None else None)
        if how is None and _pip_wheel_flag(facts) is not None and len(readings) > 1:
            how = (f"torch {value(facts, 'torch', 'version')} is a PyTorch pip wheel before 2.7, built with "
                   "_GLIBCXX_USE_CXX11_ABI=0")
        if len(readings) == 1 and _extension_imported_before_torch(facts, nb):
            readings = [*readings, "torch_libs_not_loaded"]
        if len(readings) == 1 and any(name in nb for name in _PER_TORCH_WHEELS):
            # PyG's operator packages ship one wheel per torch release (data.pyg.org/whl/torch-X+cuY): a wheel made
            # for another torch reads the same as a build against another torch (when the C++ ABI is not in doubt)
            readings = [*readings, "companion_built_for_other_torch"]
        for i, code in enumerate(readings):
            f = finding(code, facts, {**ev, "_code": code}, reading=i, how=how if i == 0 else None)
            if f is not None:
                yield f
    for ev in events(facts, "abi", "newer_api"):
        if not _torch_shown_at_or_after(facts, str(ev.get("added_in") or "")):
            yield from resolve(facts, ev, ["source_needs_newer_torch"])
    for ev in events(facts, "abi", "sign"):
        if ev.get("sign") == "torch_api_removed" and value(facts, "toolkit", "lua_torch") and \
                "thc" in str(ev.get("phrase") or "").lower():
            # (round 32i) a Lua Torch7 build (luarocks, cunn's THCUNN): THC is cutorch's library, a rock of its own
            # that the build needs installed first, not a PyTorch API a release removed
            yield from resolve(facts, ev, ["build_dependency_missing"])
        elif ev.get("sign") == "torch_api_removed":
            yield from resolve(facts, ev, ["torch_api_incompatible_source"])
        elif ev.get("sign") == "cannot_import_c":
            if "undefined symbol" in str(ev.get("line") or "").lower():
                continue  # the loader opened the module's file and read its symbols: it was built
            yield from resolve(facts, ev, _not_compiled_codes(facts, ev))
    for ev in events(facts, "toolkit", "header_missing"):
        if torch_header_of_torch(ev):
            continue  # rules.torch: torch's own header needs a header this torch did not install
        if str(ev.get("header") or "").lower().startswith("thc/"):
            yield from resolve(facts, {**ev, "phrase": ev.get("header")}, ["build_dependency_missing"] if value(
                facts, "toolkit", "lua_torch") else ["torch_api_incompatible_source"])  # (round 32i) as above
