# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Explain: turn a pasted error (one line, a traceback or a whole build log) into findings.

Two stages. :func:`smrnb.doctor._evidence.extract` reads structured evidence from any wording
(library families and versions, undefined symbols and their owners, GPU archs, CUDA versions on both
sides, CUDA_HOME forms, ...); :func:`decide` names causes from that evidence. Every code, its layer
and the wording of its fix come from the one table (:mod:`smrnb.doctor._codes`) that the live rules use
too, and where a cause has a live rule that can take what the text says as facts (a broken driver),
explain calls that rule itself. Each finding lists the evidence that fired it and what tells it from
its nearest neighbour. Live facts (``facts`` as returned by ``collect``), when given, refine the
decision: an undefined ``c10::`` symbol is a C++ ABI flag mismatch when the symbol's std::string
flavour differs from torch's ``_GLIBCXX_USE_CXX11_ABI`` and a torch-version mismatch otherwise.

The text is capped first (head, tail and the middle's error lines), so the work is linear and
bounded. :func:`explain_text` is pure (no probes); :func:`smrnb.doctor.explain` adds live facts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from smrnb.doctor._codes import CODES as _TABLE
from smrnb.doctor._codes import meanings, why
from smrnb.doctor._elf import abi_flavour
from smrnb.doctor._elf import demangle as _demangle_names
from smrnb.doctor._evidence import cap_text, cuda_home_problem, extract
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor.rules._driver import driver_too_old_title
from smrnb.doctor.tables import kaolin_wheel_page, rows, version_key

#: the kaolin wheel page of a torch and CUDA (``{torch}``, ``{cuda}`` without its dot), from tables/kaolin.json
KAOLIN_WHEEL_PAGE = kaolin_wheel_page("{torch}", "{cuda}")
_TORCH_NS_RE = re.compile(r"(?:^_Z|N|K|L)(?:3c10|2at|5torch|6caffe2)")
_OLD_STRING_RE = re.compile(r"(?:E|K|P|R|I|S_|[0-9]|^)Ss(?![a-z])")
#: the library named before ``: undefined symbol`` on the same line
_NEEDED_BY_RE = re.compile(r"([^\s:'\"]{1,300}\.so[^\s:'\"]{0,40}): undefined symbol")
_LIBSTDCXX_RE = re.compile(r"([^\s:'\"`]{0,300}libstdc\+\+\.so[.0-9]{0,12})")

#: every code an explain finding may carry -> its meaning (a view of the one table)
CODES: dict[str, str] = meanings("explain")


# ---------------------------------------------------------------------- demangling
@functools.lru_cache(maxsize=256)
def demangle(symbol: str) -> str | None:
    """The demangled C++ name of ``symbol`` (``c++filt``, :func:`smrnb.doctor._elf.demangle`), or None when
    it cannot be."""
    if not symbol.startswith("_Z"):
        return None
    try:
        out = _demangle_names([symbol], timeout=2.0)
    except Exception:  # explain never raises: an undemangled name is still evidence
        return None
    return out[0] if out and isinstance(out[0], str) and out[0] != symbol else None


def string_abi(mangled: str, demangled: str | None = None) -> str:
    """``"cxx11"`` (std::__cxx11::basic_string), ``"old"`` (``Ss``) or ``"none"`` (no std::string)."""
    try:  # the ELF module's tokenizer tells identifiers from substitutions
        flav = abi_flavour(mangled)
        if flav in ("cxx11", "old", "none") and mangled.startswith("_Z"):
            return flav
    except Exception:  # a name the tokenizer cannot read: the heuristics below
        pass
    if "__cxx11" in mangled or (demangled and "__cxx11" in demangled):
        return "cxx11"
    if demangled:
        return "old" if re.search(r"std::(?:basic_)?string\b", demangled) else "none"
    return "old" if _OLD_STRING_RE.search(mangled[2:] if mangled.startswith("_Z") else mangled) else "none"


def is_torch_symbol(mangled: str, demangled: str | None = None) -> bool:
    if demangled:
        return bool(re.match(r"^(?:[\w:<>, *&]*\s)?(?:c10|at|torch|caffe2)::", demangled))
    return bool(_TORCH_NS_RE.search(mangled[:12]))


# ---------------------------------------------------------------------- facts helpers
def _f(facts: Mapping[str, Any] | None, layer: str, key: str) -> Any:
    if not facts:
        return None
    d = facts.get(layer)
    if not isinstance(d, Mapping) or d.get("status", "ok") != "ok":
        return None
    return d.get(key)


def _major(v: Any) -> str | None:
    if v is None:
        return None
    m = re.match(r"\s*(\d+)", str(v))
    return m.group(1) if m else None


def _gpu_cc(facts: Mapping[str, Any] | None) -> str | None:
    gpus = _f(facts, "driver", "gpus") or []
    for g in gpus:
        if isinstance(g, Mapping) and g.get("compute_capability"):
            return str(g["compute_capability"])
    return None


_CUDA_FAMILIES = {"cudart", "cudnn", "nccl", "nvjitlink", "cublas", "cusparse", "cusolver", "cufft", "curand",
                  "nvrtc", "nvtx", "cupti"}


def _ev(ev: list[Any], kind: str) -> list[Any]:
    return [e for e in ev if e.kind == kind]


def nvcc_archs(nvcc: str | None) -> list[int] | None:
    """Compute capabilities (as 86, 90...) the nvcc release ``nvcc`` compiles for (tables/nvcc_archs.csv)."""
    if not nvcc:
        return None
    best = None
    for r in rows("nvcc_archs"):
        if version_key(r["cuda"]) <= version_key(nvcc):
            best = r
    return sorted(int(a) for a in best["archs"].split()) if best else None


#: embedded (Jetson/Tegra) archs: never the PTX fallback for a discrete GPU
_TEGRA_ARCHS = frozenset({32, 53, 62, 72, 87, 88, 101, 110})


def build_arch_list(gpu_archs: list[str], nvcc: str | None) -> str | None:
    """TORCH_CUDA_ARCH_LIST for the GPU arch(s) named in the text and what the nvcc in use can build.

    An arch the nvcc supports is kept (``8.6``); a newer one becomes the highest arch the nvcc has, with
    PTX the driver compiles for the newer GPU (``8.6+PTX``); None when the text names no arch.
    """
    caps = sorted({int(d) for d in ("".join(ch for ch in a if ch.isdigit()) for a in gpu_archs)
                   if d and 2 <= len(d) <= 3})
    if not caps:
        return None
    have = nvcc_archs(nvcc)
    out = []
    for c in caps:
        if have is None or c in have:
            out.append(f"{c // 10}.{c % 10}")
        else:
            lower = [a for a in have if a < c and a not in _TEGRA_ARCHS]
            if lower:
                out.append(f"{lower[-1] // 10}.{lower[-1] % 10}+PTX")
    return ";".join(dict.fromkeys(out)) or None


# ---------------------------------------------------------------------- decisions that use live facts
Decided = tuple[str, list[str], list[str], str]  # code, extra evidence, commands, title


def _needed_by(line: str) -> str | None:
    m = _NEEDED_BY_RE.search(line)
    return m.group(1) if m else None


def decide_torch_symbol(sym: str, lib: str | None, facts: Mapping[str, Any] | None) -> Decided:
    """An undefined torch/c10 symbol: C++ ABI flag mismatch or torch version mismatch (the same test as
    the abi rules: the symbol's std::string flavour against torch's flag, or the static check's verdict)."""
    dem = demangle(sym)
    short = (dem or sym)[:120]
    ev = [f"undefined symbol: {sym}"] + ([f"demangled: {dem}"] if dem else []) + ([f"needed by: {lib}"] if lib else [])
    flavour = string_abi(sym, dem)
    torch_abi = _f(facts, "torch", "cxx11_abi")
    if torch_abi is None:  # torch not imported: the abi probe reads the flag from libc10's symbols
        torch_abi = _f(facts, "abi", "torch_cxx11_abi")
    torch_ver = _f(facts, "torch", "version")
    ev.append({"cxx11": "the symbol uses the new C++11 ABI std::string (std::__cxx11::basic_string)",
               "old": "the symbol uses the old (pre-C++11 ABI) std::string (`Ss`)",
               "none": "the symbol has no std::string in it (no ABI flavour to compare)"}[flavour])
    if torch_abi is not None:
        ev.append(f"this torch{(' ' + str(torch_ver)) if torch_ver else ''} uses "
                  f"_GLIBCXX_USE_CXX11_ABI={1 if torch_abi else 0}")
    if flavour != "none" and torch_abi is not None:
        code = "cxx11_abi_mismatch" if (flavour == "cxx11") != bool(torch_abi) else "abi_torch_version_mismatch"
    elif flavour == "old":
        code = "cxx11_abi_mismatch"
        ev.append("torch pip wheels use the new ABI since 2.7, conda/source builds always did: an old-ABI "
                  "symbol means the extension was compiled with -D_GLIBCXX_USE_CXX11_ABI=0 (or for a pre-2.7 pip "
                  "torch: then it is a torch version mismatch)")
    else:
        code = "abi_torch_version_mismatch"
    for ext in _f(facts, "abi", "extensions") or []:  # the static ELF check saw the same symbol missing
        if not isinstance(ext, Mapping):
            continue
        for u in ext.get("unresolved") or []:
            if isinstance(u, Mapping) and u.get("mangled") == sym and u.get("diagnosis") in (
                    "cxx11_abi_mismatch", "abi_torch_version_mismatch"):
                code = u["diagnosis"]
                ev.append(f"the doctor's static check of {ext.get('path')} finds this symbol unresolved too"
                          + (": its other-ABI spelling IS defined in torch" if u.get("other_abi_defined") else "")
                          + (": its other-ABI spelling is not defined in torch either"
                             if u.get("other_abi_defined") is False else ""))
                break
    flag = "1" if torch_abi else "0" if torch_abi is not None else "<torch's flag>"
    if code == "cxx11_abi_mismatch":
        title = f"Undefined symbol {short}: the extension and torch use different C++ ABIs"
        cmds = ["python -c \"import torch; print(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)\"",
                f"rm -rf build/ && CXXFLAGS=-D_GLIBCXX_USE_CXX11_ABI={flag} pip install --no-build-isolation "
                "--no-cache-dir --force-reinstall .   # rebuild with torch's ABI flag"]
    else:
        title = f"Undefined symbol {short}: the extension was built against another torch"
        cmds = ["python -c \"import torch; print(torch.__version__, torch.version.cuda)\"",
                "rm -rf build/ && pip install --no-build-isolation --no-cache-dir --force-reinstall .   "
                "# rebuild the extension against the torch that is installed"]
    if lib and "kaolin" in lib:
        inst = _f(facts, "kaolin", "install_command")
        if inst:
            cmds.append(str(inst))
        elif _f(facts, "torch", "version") and not _f(facts, "torch", "cuda"):
            cmds.append("# this torch is CPU-only: kaolin's wheel pages are per CUDA build; install a CUDA torch first")
        else:
            cmds.append("pip install kaolin==<version> -f " + KAOLIN_WHEEL_PAGE.format(
                torch=_f(facts, "torch", "version_base") or "<torch>",
                cuda=(str(_f(facts, "torch", "cuda") or "<xy>")).replace(".", "")))
    return code, ev, cmds, title


def _torch_flag_unknown(sym: str, facts: Mapping[str, Any] | None) -> bool:
    """Neither torch's ABI flag nor the static check's verdict on ``sym`` is known."""
    if _f(facts, "torch", "cxx11_abi") is not None or _f(facts, "abi", "torch_cxx11_abi") is not None:
        return False
    return not any(isinstance(u, Mapping) and u.get("mangled") == sym
                   for ext in _f(facts, "abi", "extensions") or [] if isinstance(ext, Mapping)
                   for u in ext.get("unresolved") or [])


def _facts_cuda_majors(facts: Mapping[str, Any] | None) -> tuple[set[str], Any]:
    torch_cuda = _f(facts, "torch", "cuda")
    majors = {_major(torch_cuda)} if torch_cuda else set()
    for n in _f(facts, "toolkit", "nvccs") or []:
        if isinstance(n, Mapping) and n.get("version"):
            majors.add(_major(n["version"]))
    return {m for m in majors if m}, torch_cuda


def _arch_commands(wanted: list[str], nvcc_ver: str | None) -> list[str]:
    al = build_arch_list([a for a in wanted if a], nvcc_ver)
    if al:
        return [f"export TORCH_CUDA_ARCH_LIST=\"{al}\"   # computed from {', '.join(a for a in wanted if a)}"
                + (f" and nvcc {nvcc_ver}" if nvcc_ver else "")]
    return ["export TORCH_CUDA_ARCH_LIST=\"<X.Y>\"   # X.Y: the GPU's capability (nvidia-smi --query-gpu=compute_cap "
            "--format=csv), if the nvcc in use lists it (nvcc --list-gpu-arch)"]


def _build_nvcc(facts: Mapping[str, Any] | None) -> tuple[str | None, list[str]]:
    bn = _f(facts, "toolkit", "build_nvcc")
    for n in _f(facts, "toolkit", "nvccs") or []:
        if isinstance(n, Mapping) and (n.get("path") == bn or bn in (n.get("paths") or [])):
            return (str(n["version"]) if n.get("version") else None), list(n.get("list_gpu_arch") or [])
    return None, []


def _driver_cuda(found: str) -> str:
    n = int(found)
    return f"{n // 1000}.{(n % 1000) // 10}"


# ---------------------------------------------------------------------- decide from evidence
def decide(ev: list[Any], facts: Mapping[str, Any] | None = None) -> list[tuple[int, Finding]]:
    """Ranked findings (rank, Finding) from evidence facts; lower rank first.

    The code of each finding names its layer and fix wording in the one table of codes; the
    commands and the title carry what the text (and the live facts) say."""
    kinds = {e.kind for e in ev}
    out: list[tuple[int, Finding]] = []

    def find(rank: int, code: str, title: str, fired: list[Any], detail: str = "",
             cmds: tuple[str, ...] | list[str] = (), neighbour: str = "", severity: str = "error",
             extra: list[str] | tuple[str, ...] = (), fix: Fix | None = None) -> None:
        evidence = tuple([f"evidence: {e.kind} {e.value} (line: {e.line[:160]})" for e in fired[:4]] + list(extra)
                         + ([f"told from its neighbour: {neighbour}"] if neighbour else []))
        out.append((rank, Finding(code, _TABLE[code].layer, severity, title, evidence,
                                  fix or Fix(why(code, detail), tuple(cmds)))))

    def first(kind: str) -> list[Any]:
        return _ev(ev, kind)[:1]

    def value(kind: str) -> str | None:
        got = _ev(ev, kind)
        return got[0].value if got else None

    missing = _ev(ev, "lib_missing")
    undef = _ev(ev, "undefined_symbol")
    archs = [e.value for e in _ev(ev, "gpu_arch")]
    text_nvcc = value("nvcc_version")
    # --- driver side
    if "nvml_mismatch" in kinds or "driver_unreachable" in kinds:
        from smrnb.doctor.probes._driver import broken_kind
        from smrnb.doctor.rules._driver import broken_driver_finding

        fired = first("nvml_mismatch") + first("driver_unreachable")
        line = fired[0].line
        kind = broken_kind(line) or ("version_mismatch" if "nvml_mismatch" in kinds else "not_loaded")
        live = broken_driver_finding({"status": "broken", "broken_kind": kind, "source": "the error text",
                                      "message": line})
        find(10, "driver_broken", live.title, fired, fix=live.fix,
             neighbour="driver_too_old is a working driver older than the CUDA runtime needs; "
                       "gpu_not_exposed_to_process is a working host driver this process is not given",
             extra=live.evidence[1:])
    if "driver_insufficient" in kinds:
        found = value("driver_cuda_found")
        dcuda = _driver_cuda(found) if found else None
        tc = _f(facts, "torch", "cuda")
        dv = _f(facts, "driver", "driver_version")
        extra = ([f"found version {found} = cudaDriverGetVersion(): the driver supports CUDA up to {dcuda}"]
                 if found else []) + ([f"torch here is built for CUDA {tc}"] if tc else []) + \
            ([f"driver version {dv}"] if dv else [])
        find(12, "driver_too_old", driver_too_old_title(dv, tc, dcuda), first("driver_insufficient"),
             cmds=("nvidia-smi   # 'CUDA Version' is the newest CUDA the driver supports",
                   "pip install torch --index-url https://download.pytorch.org/whl/cu"
                   + (dcuda.replace(".", "") if dcuda else "<xy>") + "   # a build the driver supports "
                   "(check the index lists it), or update the driver"),
             neighbour="driver_broken is a driver that does not answer at all", extra=extra)
    dmax, wanted = value("driver_max_cuda"), [e.value for e in _ev(ev, "cuda_wanted")] + [
        f"{b[2:-1]}.{b[-1]}" for b in (e.value.split("+")[1] for e in _ev(ev, "torch_build")) if b.startswith("cu")]
    # CUDA 11+ runs newer minors of its major on an older driver (minor-version compatibility); 10.x does not
    newer = [w for w in wanted if dmax and version_key(w) > version_key(dmax)
             and (_major(w) != _major(dmax) or int(_major(w) or 0) <= 10)]
    minor_only = [w for w in wanted if dmax and version_key(w) > version_key(dmax) and w not in newer]
    if minor_only and not newer:
        find(20, "driver_below_cuda_minor", f"The driver (CUDA up to {dmax}) runs CUDA {minor_only[0]} only under "
             "minor-version compatibility", first("driver_max_cuda"),
             cmds=("nvidia-smi",), extra=[f"nvidia-smi: the driver runs CUDA <= {dmax}; the text uses CUDA "
                                          f"{minor_only[0]}"],
             neighbour="driver_too_old: a newer CUDA major than the driver supports", severity="warning")
    if newer and "driver_insufficient" not in kinds:
        top = max(newer, key=version_key)
        dv = value("driver_version")
        find(16, "driver_too_old", driver_too_old_title(dv, top, dmax),
             first("driver_max_cuda") + [e for e in _ev(ev, "cuda_wanted") + _ev(ev, "torch_build") if top in e.value
                                         or top.replace(".", "") in e.value][:1],
             cmds=("nvidia-smi   # 'CUDA Version' is the newest CUDA the driver supports",
                   f"# install the CUDA {dmax} (or older) build instead, or update the driver"),
             extra=[f"nvidia-smi: the driver runs CUDA <= {dmax}; the text installs or uses CUDA {top}"],
             neighbour="driver_cuda_version_not_toolkit: nvidia-smi's CUDA Version is the driver's limit, "
                       "not an installed toolkit")
    if "ptx_toolchain" in kinds:
        find(12, "driver_below_cuda_minor", "The driver is older than the toolkit that produced the PTX",
             first("ptx_toolchain"), cmds=("nvidia-smi", "nvcc --version"),
             neighbour="driver_too_old: the runtime itself refuses to start")
    container = [e for e in ev if e.kind == "no_cuda_gpus"] + [e for e in missing if e.value.startswith("driver:")]
    if container or "no_cuda_runtime_at_build" in kinds:
        find(14, "gpu_not_exposed_to_process", "This process is not given the GPU",
             container[:2] + first("no_cuda_runtime_at_build"),
             cmds=("docker run --gpus all ...   # or: srun --gres=gpu:1 ...", "echo $CUDA_VISIBLE_DEVICES; nvidia-smi",
                   "TORCH_CUDA_ARCH_LIST=<arch> FORCE_CUDA=1 pip install ...   # building in a GPU-less docker build"),
             neighbour="cudart_not_found is a toolkit library missing while the driver is there")
    if "no_driver_found" in kinds:
        find(20, "no_gpu", "No NVIDIA driver (or GPU) on this machine", first("no_driver_found"),
             "torch found no NVIDIA driver: the machine or runtime has no NVIDIA GPU, or the driver is not installed.",
             ("nvidia-smi", "lspci | grep -i nvidia"), "gpu_not_exposed_to_process: a GPU exists but is hidden",
             severity="warning")
        find(40, "gpu_not_exposed_to_process", "This process may not be given the GPU", first("no_driver_found"),
             cmds=("docker run --gpus all ...",), severity="warning",
             neighbour="no_gpu: the machine has no NVIDIA GPU at all")
    if "oom" in kinds:
        find(15, "cuda_oom", "The GPU ran out of memory", first("oom"),
             cmds=("nvidia-smi   # other processes holding memory",
                   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True   # fragmentation"),
             neighbour="driver_broken / no_kernel_image_for_gpu are setup errors")
    # --- libraries and symbols
    for e in undef:
        owner, sym = e.value.split(":", 1)
        lib = _needed_by(e.line)
        if owner in _CUDA_FAMILIES - {"cudart"} or owner == "cuda_runtime" and "version lib" in e.line:
            find(11, "library_shadowed_older_copy", f"An older {owner} library is loaded before the one torch ships",
                 [e], cmds=("echo $LD_LIBRARY_PATH", "python -c \"import torch\" ; ldd $(python -c 'import torch,os;"
                            "print(os.path.dirname(torch.__file__))')/lib/libtorch_cuda.so | grep -i " + owner,
                            "unset LD_LIBRARY_PATH   # or drop the toolkit's lib64 from it"),
                 neighbour="cudart_not_found is no copy found at all")
        elif owner == "torch_python":
            find(20, "torch_libs_not_loaded", "The extension was loaded before torch", [e],
                 cmds=("python -c \"import torch; import <extension>\"",),
                 neighbour="abi_torch_version_mismatch: a c10/at symbol missing from a loaded torch")
        elif owner in ("torch", "c10") and lib and ("torchvision" in lib or "torchaudio" in lib):
            find(13, "companion_built_for_other_torch", f"{lib.rsplit('/', 1)[-1]} of {('torchvision' if 'torchvision' in lib else 'torchaudio')} "
                 "needs a torch symbol the installed torch lacks", [e],
                 cmds=("python -c \"import torch; print(torch.__version__)\"",
                       "pip install --force-reinstall torch==<ver> torchvision==<matching> --index-url "
                       "https://download.pytorch.org/whl/<cuXYZ>"),
                 neighbour="abi_torch_version_mismatch: your own extension, which you rebuild")
        elif owner in ("torch", "c10"):
            try:
                code, extra, cmds, title = decide_torch_symbol(sym, lib, facts)
            except Exception as exc:  # a demangler failure must not hide the finding
                code, extra, cmds, title = ("abi_torch_version_mismatch", [f"{type(exc).__name__}: {exc}"], [],
                                            f"Undefined symbol {sym[:120]}")
            find(17, code, title, [e], cmds=cmds, extra=extra,
                 neighbour=("abi_torch_version_mismatch: the same torch symbol in the other string ABI is defined"
                            if code == "cxx11_abi_mismatch" else
                            "cxx11_abi_mismatch: the same symbol exists in torch in the other std::string ABI; "
                            "an old-ABI `Ss` symbol with a pre-2.7 pip torch is a version mismatch, not a flag"))
            if _torch_flag_unknown(sym, facts) and string_abi(sym, demangle(sym)) != "none":
                # the text alone cannot say which: an old-ABI torch (pip wheels before 2.7) turns one into the other
                alt, _, alt_cmds, alt_title = decide_torch_symbol(sym, lib, {"torch": {"cxx11_abi": False}})
                find(18, alt, alt_title, [e], cmds=alt_cmds,
                     extra=["if torch is an old-ABI build (pip wheels before 2.7): the text does not say which torch "
                            "is installed; `python -c \"import torch; print(torch._C._GLIBCXX_USE_CXX11_ABI)\"` does"],
                     neighbour=f"{code}: the reading when torch uses the new ABI (pip wheels from 2.7 on, conda)")
        elif owner == "cuda_runtime" and sym.startswith("__cudaRegister"):
            find(20, "nvcc_torch_cuda_mismatch", f"{sym} is missing: the extension was compiled by a newer nvcc than "
                 "the CUDA runtime it loads", [e],
                 cmds=("python -c \"import torch; print(torch.version.cuda)\"", "nvcc --version"),
                 neighbour="cudart_not_found: no CUDA runtime found at all")
            find(24, "extension_undefined_symbol", f"Undefined symbol {sym[:120]}", [e],
                 cmds=("pip install --no-build-isolation --no-cache-dir --force-reinstall <the package>",),
                 neighbour="nvcc_torch_cuda_mismatch when the nvcc that built it is newer than the runtime loaded")
        else:
            dem = demangle(sym) if sym.startswith("_Z") else None
            find(24, "extension_undefined_symbol",
                 f"Undefined symbol {(dem or sym)[:120]}: built against another library version", [e],
                 cmds=(f"nm -D --defined-only <the library that should define it> | grep '{sym[:60]}'",
                       "pip install --force-reinstall --no-cache-dir <the package that owns "
                       + (lib or "the extension") + ">"),
                 neighbour="abi_torch_version_mismatch when the symbol is torch's (c10::, at::, torch::)",
                 extra=[f"demangled: {dem}"] if dem else [])
    if "cudnn_version_mismatch" in kinds:
        find(13, "library_shadowed_older_copy", "Another cuDNN is loaded than torch was built with",
             first("cudnn_version_mismatch"), cmds=("echo $LD_LIBRARY_PATH",),
             neighbour="cudart_not_found is no copy at all")
    majors, torch_cuda = _facts_cuda_majors(facts)
    for e in missing:
        fam, ver, name = (e.value.split(":", 2) + ["", ""])[:3]
        if fam in _CUDA_FAMILIES:
            from smrnb.doctor.rules._loader import runtime_wheel_command

            major = ver.split(".")[0] if ver else ""
            wrong = bool(fam == "cudart" and major and majors and major not in majors)
            have = (f"nothing here provides CUDA {major}: found CUDA major(s) {', '.join(sorted(majors))}"
                    if wrong else None)
            extra = [f"the binary asks for {name}" + (f" (CUDA {major}.x)" if fam == "cudart" and major else "")] + \
                ([f"torch here is built for CUDA {torch_cuda}"] if torch_cuda else []) + ([have] if have else [])
            if fam == "cudart" and major and (wrong or not majors):
                find(25 if wrong else 27, "prebuilt_binary_wrong_cuda",
                     f"{name} missing: a binary built for CUDA {major}"
                     + (f", torch here uses CUDA {torch_cuda}" if torch_cuda else ""), [e],
                     cmds=("python -c \"import torch; print(torch.__version__, torch.version.cuda)\"",
                           "pip install --no-cache-dir --force-reinstall <package>   # the build made for this "
                           "torch's CUDA" + (f" {_major(torch_cuda)}" if torch_cuda else "")),
                     neighbour=f"cudart_not_found when CUDA {major} is the environment's own major", extra=extra)
            if not wrong:
                cmds = ["ldconfig -p | grep " + fam, "pip list | grep nvidia-"]
                if fam == "cudart" and major.isdigit():
                    cmds.append(runtime_wheel_command(int(major)) + "   # the CUDA runtime as a pip wheel")
                find(25, "cudart_not_found", f"{name} is not on the loader path", [e], cmds=cmds,
                     neighbour="gpu_not_exposed_to_process when the missing library is libcuda.so.1 (the driver); "
                               "prebuilt_binary_wrong_cuda when the environment has another CUDA major",
                     extra=extra)
        elif fam == "torch" and name.lower().startswith(("libtorch_cuda_cu.", "libtorch_cuda_cpp.")):
            # only torch 1.11 and 1.12 split libtorch_cuda.so in two: the binary was built for one of them
            find(17, "abi_torch_version_mismatch", f"{name} missing: the extension was built for torch 1.11/1.12",
                 [e], cmds=("python -c \"import torch; print(torch.__version__)\"",
                            "pip install --no-build-isolation --no-cache-dir --force-reinstall <package>   # rebuild "
                            "(or install the wheel) for the installed torch"),
                 extra=["libtorch_cuda_cu.so / libtorch_cuda_cpp.so exist only in torch 1.11 and 1.12 (split "
                        "libtorch_cuda.so); other torch releases have neither"],
                 neighbour="torch_libs_not_loaded: a torch library every torch has (libc10.so), not yet loaded")
            find(21, "torch_libs_not_loaded", f"{name} not found: import torch first", [e],
                 cmds=("python -c \"import torch; import <extension>\"",),
                 neighbour="abi_torch_version_mismatch: the library belongs to another torch release")
        elif fam == "torch":
            find(20, "torch_libs_not_loaded", f"{name} not found: import torch first", [e],
                 cmds=("python -c \"import torch; import <extension>\"",),
                 neighbour="library_not_found: a library that is not torch's")
        elif fam not in ("driver", "libstdcxx", "glibc") and ("cannot open shared object" in e.line.lower()
                                                              or "could not load" in e.line.lower()):
            find(30, "library_not_found", f"{name} is not found by the loader", [e],
                 cmds=("ldconfig -p | grep " + name.split(".so")[0],
                       "sudo apt-get install libegl1 libgl1   # EGL / OpenGL" if fam == "gl"
                       else f"apt-file search {name}   # or: conda search / pip the package that ships it"),
                 neighbour="cudart_not_found is a CUDA library; build_dependency_missing is a header or library a "
                           "build needs")
    for e in _ev(ev, "symbol_version"):
        if e.value.startswith("GLIBC_"):
            find(18, "symbol_version_missing", f"{e.value} not found: the C library is older", [e],
                 cmds=("ldd --version",), neighbour="libstdcxx_too_old is GLIBCXX_/CXXABI_")
        else:
            m = _LIBSTDCXX_RE.search(e.line)
            path = m.group(1) if m and "/" in m.group(1) else None
            cmds = ([f"strings {path} | grep -c {e.value}   # 0 here"] if path else []) + [
                "conda install -c conda-forge 'libstdcxx-ng>=12'   # conda envs: a newer libstdc++",
                "ls /usr/lib/x86_64-linux-gnu/libstdc++.so.6*   # the system one, if newer: put its directory first "
                "on LD_LIBRARY_PATH at start (smr-doctor fix kernelspec)"]
            find(18, "libstdcxx_too_old", f"{e.value} not found in the libstdc++ loaded", [e], cmds=cmds,
                 neighbour="symbol_version_missing is GLIBC_")
    # --- GPU archs
    if "torch_drops_gpu" in kinds:
        line_archs = [a for a in archs if a in first("torch_drops_gpu")[0].line.lower()]
        shown = f"sm_{line_archs[0]}" if line_archs else None
        find(16, "torch_wheel_lacks_gpu_arch", "The installed torch has no kernels for this GPU"
             + (f" ({shown})" if shown else ""), first("torch_drops_gpu"),
             cmds=("python -c \"import torch; print(torch.cuda.get_arch_list())\"",
                   "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/<variant>"),
             neighbour="no_kernel_image_for_gpu is an extension lacking the arch")
    if "flash_min_gpu" in kinds:
        find(16, "gpu_below_extension_minimum", "The GPU is older than the extension supports", first("flash_min_gpu"),
             cmds=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
             neighbour="no_kernel_image_for_gpu: a rebuild fixes it")
    if "no_kernel_image" in kinds:
        code, extra = "no_kernel_image_for_gpu", []
        cc = _gpu_cc(facts)
        arch_list = _f(facts, "torch", "arch_list")
        if cc:
            extra.append(f"the GPU has compute capability {cc}")
            if isinstance(arch_list, list):
                from smrnb.doctor.rules._torch import arch_covers

                if arch_covers(arch_list, cc)[0]:
                    extra.append(f"torch has kernels for it ({' '.join(arch_list)}): the extension lacks them")
                else:
                    code = "torch_wheel_lacks_gpu_arch"
                    extra.append(f"torch lacks kernels for it (it has {' '.join(arch_list)})")
        for ext in _f(facts, "abi", "extensions") or []:
            if isinstance(ext, Mapping) and ext.get("embedded_archs") is not None:
                extra.append(f"{ext.get('path')}: embeds {' '.join(ext['embedded_archs']) or 'nothing'}"
                             f"{', PTX' if ext.get('has_ptx') else ', no PTX'}")
        nv = text_nvcc or _build_nvcc(facts)[0]
        cmds = ["nvidia-smi --query-gpu=compute_cap --format=csv"]
        if code == "no_kernel_image_for_gpu":
            al = build_arch_list(archs + ([cc] if cc else []), nv)
            cmds.append(f"TORCH_CUDA_ARCH_LIST=\"{al or '<compute_cap from nvidia-smi>'}\" pip install "
                        "--no-build-isolation --no-cache-dir --force-reinstall .")
            title = "No kernel image for this GPU in a binary that ran"
        else:
            cmds.append("pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/<variant>")
            title = "No kernel image for this GPU: the installed torch lacks its architecture"
        find(22, code, title, first("no_kernel_image"), cmds=cmds, extra=extra,
             neighbour="torch_wheel_lacks_gpu_arch: torch's own ops fail too" if code == "no_kernel_image_for_gpu"
             else "no_kernel_image_for_gpu: torch has the arch, an extension lacks it")
    if "unsupported_arch" in kinds and (archs or "arch_requested" in kinds or any(
            e.value != "nvcc fatal" or "arch" in e.line.lower() for e in _ev(ev, "unsupported_arch"))):
        req = value("arch_requested")
        nv_ver, nv_archs = _build_nvcc(facts)
        nv = nv_ver or text_nvcc
        extra = [f"the build here would use nvcc {nv_ver}; it supports: {' '.join(nv_archs) or '?'}"] if nv_ver else []
        cc = _gpu_cc(facts)
        if cc:
            extra.append(f"the GPU here has compute capability {cc}")
        wanted = ([a for a in archs]) + ([cc] if cc else [])
        cmds = ["nvcc --version; nvcc --list-gpu-arch"]
        if nv:
            cmds += _arch_commands(wanted, nv)
        elif archs or cc:
            cmds.append("export TORCH_CUDA_ARCH_LIST=\"<X.Y>+PTX\"   # X.Y: the highest arch `nvcc --list-gpu-arch` "
                        "prints below the GPU's; or a newer toolkit")
        find(24, "unsupported_gpu_arch", "The build cannot target the requested GPU arch" + (f" ({req})" if req else ""),
             first("unsupported_arch") + first("arch_requested"), cmds=cmds, extra=extra,
             neighbour="no_kernel_image_for_gpu is a built binary without the arch")
    # --- toolkit / build
    homes = [e for e in _ev(ev, "cuda_home") if cuda_home_problem(e.value)]
    if homes:
        v = homes[0].value
        find(14, "cuda_home_malformed",
             f"CUDA_HOME is not one toolkit directory: '{v[:100]}{'...' if len(v) > 100 else ''}' "
             f"{(cuda_home_problem(v) or '').split(' (')[0]}", homes[:1],
             cmds=("echo \"$CUDA_HOME\"", "export CUDA_HOME=/usr/local/cuda-<x.y>"),
             neighbour="cuda_home_missing is a CUDA_HOME pointing where there is no nvcc")
    if "nvcc_missing" in kinds:
        env_hint = "jupyter" in kinds and "terminal_works" in kinds
        extra = [f"nvcc {n.get('version')} exists at {n.get('path')}" for n in _f(facts, "toolkit", "nvccs") or []
                 if isinstance(n, Mapping)]
        find(26 if env_hint else 19, "cuda_home_missing", "No nvcc where the build looks for it", first("nvcc_missing"),
             cmds=("ls -d /usr/local/cuda*/bin/nvcc",
                   "export CUDA_HOME=/usr/local/cuda-<x.y> PATH=$CUDA_HOME/bin:$PATH"),
             neighbour="cuda_home_malformed is a CUDA_HOME that is not one directory", extra=extra)
    if "env_dropped" in kinds and ("nvcc_missing" in kinds or "lib_missing" in kinds and
                                   any(e.value.split(":")[0] in _CUDA_FAMILIES for e in missing)):
        find(20, "env_not_propagated_to_kernel", "A variable set in your shell is dropped by sudo or the scheduler",
             first("env_dropped") + (first("nvcc_missing") or missing[:1]),
             cmds=("sudo env \"CUDA_HOME=$CUDA_HOME\" \"PATH=$PATH\" <command>   # or: sudo -E (if the sudoers "
                   "policy keeps it)", "#SBATCH --export=ALL   # or export the variables inside the job script"),
             neighbour="cuda_home_missing: no toolkit where the build looks, whoever runs it", severity="warning")
    if "nvcc_torch_mismatch" in kinds:
        nvc, tc = value("nvcc_cuda"), value("torch_cuda")
        find(21, "nvcc_torch_cuda_mismatch", f"nvcc is CUDA {nvc} but torch was built with CUDA {tc}" if nvc and tc
             else "nvcc and torch use different CUDA versions", first("nvcc_torch_mismatch"),
             cmds=("python -c \"import torch; print(torch.version.cuda)\"", "nvcc --version",
                   f"export CUDA_HOME=/usr/local/cuda-{tc or '<torch.version.cuda>'} PATH=$CUDA_HOME/bin:$PATH"),
             neighbour="multiple_cuda_toolkits: the intended toolkit exists but another is picked")
    if "gcc_unsupported" in kinds or _ev(ev, "gcc_max"):
        g = value("gcc_max")
        find(17, "host_compiler_unsupported", f"gcc is newer than nvcc accepts{(' (gcc ' + g + ' at most)') if g else ''}",
             (_ev(ev, "gcc_max") or first("gcc_unsupported"))[:1],
             cmds=(f"export CC=gcc-{g} CXX=g++-{g} CUDAHOSTCXX=g++-{g}" if g else "export CC=gcc-<n> CXX=g++-<n>",),
             neighbour="windows_msvc_toolchain is cl.exe on Windows")
    if "msvc" in kinds:
        find(15, "windows_msvc_toolchain", "The MSVC toolchain is not usable for this build", first("msvc"),
             cmds=("where cl",), neighbour="host_compiler_unsupported is gcc on Linux")
    if "torch_symbol_missing_api" in kinds:
        e = first("torch_symbol_missing_api")[0]
        i = e.line.lower().find(e.value)
        api = e.line[i:i + len(e.value)] if i >= 0 else e.value
        find(16, "torch_api_incompatible_source", f"The source uses a torch API that torch removed ({api})", [e],
             cmds=("pip install --upgrade <the extension>   # a release written for this torch",),
             neighbour="abi_torch_version_mismatch is a compiled binary")
    if "companion_mismatch" in kinds:
        find(13, "companion_built_for_other_torch", "torchvision/torchaudio do not match the installed torch",
             first("companion_mismatch"),
             cmds=("python -c \"import torch; print(torch.__version__)\"",
                   "pip install --force-reinstall torch==<ver> torchvision==<matching> --index-url "
                   "https://download.pytorch.org/whl/<cuXYZ>"), neighbour="abi_torch_version_mismatch is your own extension")
    nomods = _ev(ev, "no_module")
    if "torch_absent_at_build" in kinds or any(e.value == "torch" for e in nomods) and "build_isolation" in kinds or (
            "build_isolation" in kinds and any("getting requirements to build wheel" in e.line.lower()
                                               or "pip-build-env" in e.line.lower() for e in ev)):
        find(15, "torch_not_found_at_build", "pip's build isolation hides torch from the build",
             first("torch_absent_at_build") + [e for e in nomods if e.value == "torch"][:1] + first("build_isolation"),
             cmds=("pip install ninja setuptools wheel", "pip install --no-build-isolation <package>"),
             neighbour="a torch missing at run time is another environment (kernel_wrong_python)")
    if "cannot_import_c" in kinds or any(e.value.split(".")[-1] in ("_C", "_ext") or "scatter_c" in e.value
                                         for e in nomods):
        find(20, "extension_not_compiled", "The package's compiled module was never built",
             first("cannot_import_c") + nomods[:1],
             cmds=("pip install --no-build-isolation --force-reinstall --no-cache-dir <package>",),
             neighbour="abi_torch_version_mismatch: the .so exists but fails to load")
    if "cpu_torch" in kinds or any(e.value.endswith("+cpu") for e in _ev(ev, "torch_build")):
        find(18, "cpu_only_torch_with_gpu", "torch is a CPU-only build", first("cpu_torch") + first("torch_build"),
             cmds=("python -c \"import torch; print(torch.__version__, torch.version.cuda)\"",
                   "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/<cuXYZ>   "
                   "# a variant the driver supports"),
             neighbour="no_gpu: the machine has no GPU at all")
    if "kaolin" in kinds and "from_versions_none" in kinds:
        page = value("links_page")
        extra = [f"pip saw only the PyPI placeholder: {first('from_versions_none')[0].line[:120]}"]
        if page:
            extra.append(f"looked in: {page}")
        tv, tc = _f(facts, "torch", "version_base"), _f(facts, "torch", "cuda")
        if tv:
            want = KAOLIN_WHEEL_PAGE.format(torch=tv, cuda=str(tc or "").replace(".", "") or "<xy>")
            extra.append(f"this torch {tv} (CUDA {tc}) would need the page {want}")
            if page and page != want:
                extra.append("the page pip looked in does not match the installed torch")
        inst = _f(facts, "kaolin", "install_command")
        cmds = [str(inst)] if inst else [
            "python -c \"import torch, sys; print(torch.__version__, torch.version.cuda, sys.version_info[:2])\"",
            "pip install kaolin==<ver> -f " + KAOLIN_WHEEL_PAGE.format(torch="<torch>", cuda="<xy>")
            + "   # a combination listed at https://nvidia-kaolin.s3.us-east-2.amazonaws.com/index.html",
            "# none for this torch: build from source with IGNORE_TORCH_VER=1 pip install --no-build-isolation ."]
        find(14, "kaolin_no_wheel_for_combo", "No kaolin wheel for this torch / CUDA / Python",
             first("from_versions_none") + first("links_page"), cmds=cmds, extra=extra,
             neighbour="kaolin_version_gate: a source build refused by setup.py")
    if "kaolin_gate" in kinds and "torch_absent_at_build" not in kinds:
        fv = value("found_version")
        find(20, "kaolin_version_gate", "kaolin's setup.py refuses this torch version"
             + (f" (found {fv})" if fv else ""), first("kaolin_gate"),
             cmds=("IGNORE_TORCH_VER=1 pip install --no-build-isolation .",),
             neighbour="torch_not_found_at_build: setup.py sees no torch at all")
    if "ninja_missing" in kinds:
        find(22, "ninja_missing", "ninja is not on PATH", first("ninja_missing"), cmds=("pip install ninja",),
             neighbour="cuda_home_missing: nvcc (not ninja) is what the build cannot find")
    for e in _ev(ev, "missing_header"):
        low = e.value.lower()
        if low.startswith("thc/"):
            continue
        if low.startswith(("cuda", "cusparse", "cublas", "curand", "cufft", "cusolver", "nv", "crt/")):
            find(26, "cuda_home_incomplete", f"{e.value} is missing from the toolkit", [e],
                 cmds=("ls $CUDA_HOME/include",), neighbour="build_dependency_missing is a non-CUDA header")
        else:
            find(24, "build_dependency_missing", f"The header {e.value} is missing", [e],
                 cmds=("sudo apt-get install libegl1-mesa-dev   # EGL/GL headers" if "gl" in low
                       else "apt-file search " + e.value,), neighbour="cuda_home_incomplete is a CUDA header")
    for e in _ev(ev, "link_lib_missing"):
        lib = e.value.lower()
        if lib.startswith(("cudart", "cublas", "cusparse", "cusolver", "cufft", "curand", "nvrtc", "nvtoolsext",
                           "nvjitlink", "cudadevrt")):
            find(24, "cuda_home_incomplete", f"The linker cannot find -l{e.value}: the toolkit's libraries are "
                 "not where the build looks", [e], cmds=("ls $CUDA_HOME/lib64 $CUDA_HOME/lib",
                                                         "export LIBRARY_PATH=$CUDA_HOME/lib64:$LIBRARY_PATH"),
                 neighbour="build_dependency_missing is a library that is not CUDA's")
        else:
            find(26, "build_dependency_missing", f"The linker cannot find -l{e.value}", [e],
                 cmds=("export LIBRARY_PATH=/usr/local/cuda/lib64/stubs:$LIBRARY_PATH   # libcuda: the toolkit's "
                       "stub, for a build without a driver" if lib == "cuda" else f"apt-file search lib{e.value}.so",),
                 neighbour="cuda_home_incomplete is a CUDA toolkit library (-lcudart)")
    from smrnb.doctor.rules._loader import ENV_FIX_COMMANDS

    if "ld_set_in_process" in kinds:
        extra = []
        changed = _f(facts, "loader", "changed_since_start") or {}
        for var, ch in changed.items() if isinstance(changed, Mapping) else ():
            if isinstance(ch, Mapping):
                extra.append(f"in this process {var} was {ch.get('start')!r} at start and is {ch.get('now')!r} now")
        find(19, "env_not_propagated_to_kernel",
             "LD_LIBRARY_PATH set inside the running process: its loader does not see it",
             first("ld_set_in_process"), cmds=ENV_FIX_COMMANDS, extra=extra, severity="warning",
             neighbour="cudart_not_found: the library is nowhere on the loader's path, set or not")
    if "jupyter" in kinds and ("terminal_works" in kinds or "sys_executable" in kinds):
        if "sys_executable" in kinds and "env_var_set" not in kinds or (nomods and "env_var_set" not in kinds):
            find(19, "kernel_wrong_python", "The kernel runs another Python than the terminal",
                 first("sys_executable") + first("terminal_works"),
                 cmds=("python -m ipykernel install --user --name <env>",),
                 neighbour="env_not_propagated_to_kernel: same Python, variables lost")
        find(21, "env_not_propagated_to_kernel", "A variable set in the shell is not in the kernel",
             first("env_var_set") + first("terminal_works"), cmds=ENV_FIX_COMMANDS,
             neighbour="kernel_wrong_python: another Python", severity="warning")
    in_notebook = "jupyter" in kinds and not ("terminal_works" in kinds or "sys_executable" in kinds)
    if in_notebook and "env_var_set" in kinds:
        find(30, "env_not_propagated_to_kernel", "A variable set in a shell or profile may not reach the kernel",
             first("env_var_set") + first("jupyter"), cmds=ENV_FIX_COMMANDS, severity="warning",
             neighbour="kernel_wrong_python: the kernel runs another Python altogether")
    if in_notebook and nomods and "build_isolation" not in kinds and not out:
        find(35, "kernel_wrong_python", f"No module named '{nomods[0].value}' in a notebook: the kernel may run "
             "another Python than the one it was installed into", nomods[:1] + first("jupyter"),
             cmds=("import sys; print(sys.executable)   # in the notebook", "%pip install " + nomods[0].value.split(".")[0]
                   + "   # into the kernel's own Python"), severity="warning",
             neighbour="env_not_propagated_to_kernel: same Python, variables lost")
    if "multiple_nvcc" in kinds and not out:
        find(40, "multiple_cuda_toolkits", "Another installed toolkit is picked than intended", first("multiple_nvcc"),
             cmds=("which -a nvcc",), severity="warning",
             neighbour="nvcc_torch_cuda_mismatch: the text says which two CUDA versions differ")
    return out


def explain_text(text: str | bytes, facts: Mapping[str, Any] | None = None, max_findings: int = 20) -> list[Finding]:
    """Findings for the causes the evidence in ``text`` points at, best first; never raises.

    Parameters
    ----------
    text : str or bytes
        A pasted error: one line, a traceback or a build log (bytes are decoded as UTF-8).
    facts : dict, optional
        ``{layer: facts}`` of the machine (from ``collect``); refines codes and adds evidence.

    Returns
    -------
    list of Finding
        One per cause, ranked by how decisive its evidence is; empty when nothing is recognised.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str) or not text.strip():
        return []
    text = cap_text(text)  # head and tail of a long log, long lines cut: bounded work below
    try:
        ranked = decide(extract(text), facts)
    except Exception as exc:  # never raises
        ranked = [(99, Finding("rule_failed", "loader", "info", "explain failed", (f"{type(exc).__name__}: {exc}",)))]
    best: dict[str, tuple[int, int, Finding]] = {}
    for i, (rank, f) in enumerate(ranked):
        if f.code not in best or rank < best[f.code][0]:
            best[f.code] = (rank, i, f)
    return [f for _, _, f in sorted(best.values(), key=lambda t: (t[0], t[1]))][:max_findings]
