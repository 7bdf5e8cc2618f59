# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Explain: turn a pasted error (one line, a traceback or a whole build log) into findings.

Two sources, ranked together: :func:`decide` takes the evidence facts that
:func:`smrnb.doctor._evidence.extract` reads from any wording (library families and versions,
undefined symbols and their owners, GPU archs, CUDA versions on both sides, CUDA_HOME forms, ...)
and names causes, each finding listing the evidence that fired it and its nearest neighbour; the
signatures below still add their richer, fact-refined fixes for the phrasings they know. The text
is capped first (head, tail and the middle's error lines), so the work is linear and bounded.

The signatures are data (``tables/signatures.json``): a regular expression per known error text,
the finding code it means (the same vocabulary as the rules), the layer, a title and a fix, both
templated with the fields the expression extracts (the undefined symbol, the missing library, the
arch, versions). A few signatures have a *handler* that refines the code with the facts of the
live machine when they are given (``facts`` as returned by ``collect``): for example an undefined
``c10::`` symbol is a C++ ABI flag mismatch when the symbol's std::string flavour differs from
torch's ``_GLIBCXX_USE_CXX11_ABI``, and a torch-version mismatch otherwise.

:func:`explain_text` is pure (no probes); :func:`smrnb.doctor.explain` adds live facts.
"""

from __future__ import annotations

import functools
import json
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from smrnb.doctor._evidence import cap_text, cuda_home_problem, extract
from smrnb.doctor._model import CmdResult, Finding, Fix, Runner

KAOLIN_WHEEL_PAGE = "https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-{torch}_cu{cuda}.html"
_TORCH_NS_RE = re.compile(r"(?:^_Z|N|K|L)(?:3c10|2at|5torch|6caffe2)")
_OLD_STRING_RE = re.compile(r"(?:E|K|P|R|I|S_|[0-9]|^)Ss(?![a-z])")


@functools.lru_cache(maxsize=1)
def load_signatures() -> tuple[dict[str, Any], ...]:
    """The signatures of ``tables/signatures.json`` with compiled ``regex`` / ``unless_regex``."""
    raw = json.loads((Path(__file__).parent / "tables" / "signatures.json").read_text("utf-8"))
    out = []
    for s in raw["signatures"]:
        flags = 0
        for name in s.get("flags", ()):
            flags |= getattr(re, name)
        d = dict(s)
        d["regex"] = re.compile(s["pattern"], flags)
        d["unless_regex"] = re.compile(s["unless"], flags) if s.get("unless") else None
        out.append(d)
    return tuple(out)


#: every code an explain finding may carry -> its meaning (merged into ``all_codes()`` / CODES.md)
CODES: dict[str, str] = {
    "abi_torch_version_mismatch": "A compiled extension needs a torch symbol that the installed torch lacks: it was "
                                  "built against another torch version.",
    "cxx11_abi_mismatch": "An extension and torch disagree on _GLIBCXX_USE_CXX11_ABI (old `Ss` vs `__cxx11` "
                          "std::string in the undefined symbol).",
    "extension_undefined_symbol": "A compiled extension needs a symbol (not torch's) that the loaded libraries lack.",
    "torch_libs_not_loaded": "libc10.so / libtorch*.so not found: an extension without RPATH was loaded before "
                             "`import torch`.",
    "cudart_not_found": "A CUDA runtime library (libcudart.so.N, ...) is not on the loader's search path.",
    "prebuilt_binary_wrong_cuda": "A prebuilt binary was built for a CUDA major version this environment does not have.",
    "libstdcxx_too_old": "The libstdc++.so.6 the process loads lacks the GLIBCXX version an extension needs.",
    "unsupported_gpu_arch": "The toolkit (nvcc) or torch's cpp_extension does not support the GPU architecture asked for.",
    "torch_wheel_lacks_gpu_arch": "The installed torch has no kernels for the GPU's compute capability.",
    "no_kernel_image_for_gpu": "A binary that ran has neither SASS for the GPU's capability nor usable PTX.",
    "nvcc_torch_cuda_mismatch": "The nvcc a build would use differs in CUDA major version from torch.version.cuda.",
    "cuda_home_missing": "No nvcc where a build looks for it (CUDA_HOME unset / wrong, runtime-only CUDA).",
    "cuda_home_malformed": "CUDA_HOME holds a PATH-style list instead of one toolkit directory.",
    "host_compiler_unsupported": "The host gcc is newer than the nvcc accepts (crt/host_config.h).",
    "driver_too_old": "The NVIDIA driver supports an older CUDA than the torch build needs.",
    "torch_not_found_at_build": "pip's build isolation hides torch from a setup.py that imports it.",
    "ninja_missing": "ninja is not on PATH, so torch.utils.cpp_extension cannot build.",
    "kaolin_no_wheel_for_combo": "No kaolin wheel exists for this torch / CUDA / Python combination.",
    "kaolin_version_gate": "kaolin's setup.py refuses this torch (or cython) version.",
    "torch_api_incompatible_source": "The source uses a torch API that the installed torch removed (torch._six, "
                                     "tensor.type() in dispatch macros).",
    "env_not_propagated_to_kernel": "LD_LIBRARY_PATH (or CUDA_HOME/PATH) set after the kernel started: the running "
                                    "process's loader does not see it.",
}


def explain_codes() -> dict[str, str]:
    """Every code an explain finding may carry -> a one-line meaning."""
    return dict(CODES)


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return "?"


# ---------------------------------------------------------------------- demangling
@functools.lru_cache(maxsize=256)
def _demangle_cached(symbol: str) -> str | None:
    res: CmdResult = Runner(default_timeout=2.0)(["c++filt", symbol])
    if res.ok and res.stdout.strip() and res.stdout.strip() != symbol:
        return res.stdout.strip()
    return None


def demangle(symbol: str) -> str | None:
    """The demangled C++ name of ``symbol`` (via ``c++filt``), or None when it cannot be."""
    if not symbol.startswith("_Z"):
        return None
    try:
        from smrnb.doctor import elf  # the ABI engineer's demangler, when present

        out = elf.demangle([symbol], timeout=2.0)
        if out and isinstance(out[0], str) and out[0] != symbol:
            return out[0]
        return None
    except Exception:  # absent or broken: fall back to c++filt
        pass
    return _demangle_cached(symbol)


def string_abi(mangled: str, demangled: str | None = None) -> str:
    """``"cxx11"`` (std::__cxx11::basic_string), ``"old"`` (``Ss``) or ``"none"`` (no std::string)."""
    try:  # the ABI engineer's tokenizer knows identifiers from substitutions
        from smrnb.doctor.elf import abi_flavour

        flav = abi_flavour(mangled)
        if flav in ("cxx11", "old", "none") and mangled.startswith("_Z"):
            return flav
    except Exception:  # absent: the heuristics below
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


# ---------------------------------------------------------------------- handlers
Refined = tuple[str, str, list[str], list[str]]  # code, layer, extra evidence, extra commands


def _h_undefined_symbol(fields: dict[str, str], facts: Mapping[str, Any] | None, sig: Mapping[str, Any]) -> Refined:
    sym = fields.get("symbol", "")
    dem = demangle(sym)
    fields["demangled"] = dem or sym
    fields["symbol_short"] = (dem or sym)[:120]
    ev = [f"undefined symbol: {sym}"]
    if dem:
        ev.append(f"demangled: {dem}")
    lib = fields.get("library")
    if lib:
        ev.append(f"needed by: {lib}")
    if not is_torch_symbol(sym, dem):
        ev.append("the symbol is not torch's (c10::/at::/torch::/caffe2::): the extension was built against "
                  "another version of the library that defines it")
        return "extension_undefined_symbol", "abi", ev, [
            f"nm -D --defined-only <the library that should define it> | grep '{sym[:60]}'",
            "pip install --force-reinstall --no-cache-dir <the package that owns " + (lib or "the extension") + ">"]
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
                  "symbol means the extension was compiled with -D_GLIBCXX_USE_CXX11_ABI=0")
    else:
        code = "abi_torch_version_mismatch"
        if flavour == "cxx11":
            ev.append("(if this torch is an old-ABI build, pip wheels before 2.7, it is an ABI flag mismatch instead)")
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
        cmds = ["python -c \"import torch; print(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)\"",
                f"rm -rf build/ && CXXFLAGS=-D_GLIBCXX_USE_CXX11_ABI={flag} pip install --no-build-isolation "
                "--no-cache-dir --force-reinstall .   # rebuild with torch's ABI flag"]
    else:
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
    return code, "abi", ev, cmds


def _h_cudart(fields: dict[str, str], facts: Mapping[str, Any] | None, sig: Mapping[str, Any]) -> Refined:
    want = fields.get("major")
    ev = [f"the binary asks for {fields.get('lib')} (CUDA {want}.x)"]
    torch_cuda = _f(facts, "torch", "cuda")
    nvccs = _f(facts, "toolkit", "nvccs") or []
    have = {(_major(torch_cuda), "torch")} if torch_cuda else set()
    for n in nvccs:
        if isinstance(n, Mapping) and n.get("version"):
            have.add((_major(n["version"]), f"nvcc at {n.get('path')}"))
    if torch_cuda:
        ev.append(f"torch here is built for CUDA {torch_cuda}")
    majors = {m for m, _ in have if m}
    if want and majors and want not in majors:
        ev.append(f"nothing here provides CUDA {want}: found CUDA major(s) {', '.join(sorted(majors))}")
        return "prebuilt_binary_wrong_cuda", "loader", ev, [
            f"pip install --force-reinstall <package> built for CUDA {_major(torch_cuda) or sorted(majors)[0]}   "
            "# the variant matching this torch",
            (f"# or provide the CUDA {want} runtime: pip install nvidia-cuda-runtime-cu{want}"
             if want in ("11", "12") else f"# or provide a CUDA {want} runtime from a CUDA {want} toolkit "
             "(no pip package exists for it)")]
    return "cudart_not_found", "loader", ev, ["smr-doctor fix kernelspec   # if the library's directory is known "
                                              "but only set after the kernel started"]


def _h_arch(fields: dict[str, str], facts: Mapping[str, Any] | None, sig: Mapping[str, Any]) -> Refined:
    ev = []
    cc = _gpu_cc(facts)
    if cc:
        ev.append(f"the GPU here has compute capability {cc}")
    bn = _f(facts, "toolkit", "build_nvcc")
    for n in _f(facts, "toolkit", "nvccs") or []:
        if isinstance(n, Mapping) and n.get("path") == bn:
            archs = n.get("list_gpu_arch") or []
            ev.append(f"the build here would use nvcc {n.get('version')} at {bn}; it supports: "
                      + (" ".join(archs) or "?"))
            if fields.get("arch") in archs:
                ev.append(f"that nvcc supports {fields['arch']}: the failing build used another nvcc "
                          "(check CUDA_HOME and PATH where it ran)")
    env = _f(facts, "toolkit", "torch_cuda_arch_list_env")
    if env:
        ev.append(f"TORCH_CUDA_ARCH_LIST={env}")
    nvcc_ver = None
    for n in _f(facts, "toolkit", "nvccs") or []:
        if isinstance(n, Mapping) and n.get("path") == bn:
            nvcc_ver = n.get("version")
    nvcc_ver = nvcc_ver or fields.get("text_nvcc")  # "release X.Y, V..." in the same log
    if not nvcc_ver and sig.get("id") == "nvcc_unsupported_arch":  # the nvcc refused it: its list lacks it
        return sig["code"], sig["layer"], ev, [
            "export TORCH_CUDA_ARCH_LIST=\"<X.Y>+PTX\"   # X.Y: the highest arch `nvcc --list-gpu-arch` prints "
            f"below {fields.get('arch')}; or a newer toolkit"]
    wanted = [fields.get("arch") or ""] + ([cc] if cc else [])
    al = build_arch_list([a for a in wanted if a], str(nvcc_ver) if nvcc_ver else None)
    cmds = [f"export TORCH_CUDA_ARCH_LIST=\"{al}\"   # computed from {', '.join(a for a in wanted if a)}"
            + (f" and nvcc {nvcc_ver}" if nvcc_ver else "")] if al else [
        "export TORCH_CUDA_ARCH_LIST=\"<X.Y>\"   # X.Y: the GPU's capability (nvidia-smi --query-gpu=compute_cap "
        "--format=csv), if the nvcc in use lists it (nvcc --list-gpu-arch)"]
    return sig["code"], sig["layer"], ev, cmds


def _h_no_kernel_image(fields: dict[str, str], facts: Mapping[str, Any] | None, sig: Mapping[str, Any]) -> Refined:
    ev = []
    cc = _gpu_cc(facts)
    layer = sig["layer"]
    arch_list = _f(facts, "torch", "arch_list")
    if cc:
        ev.append(f"the GPU has compute capability {cc}")
        if isinstance(arch_list, list):
            sm = "sm_" + cc.replace(".", "")
            same_major = [a for a in arch_list if a.startswith("sm_" + cc.split(".")[0])]
            if sm in arch_list or same_major:
                ev.append(f"torch has kernels for it ({' '.join(arch_list)}): the extension lacks them")
            else:
                layer = "torch"
                ev.append(f"torch lacks kernels for it (it has {' '.join(arch_list)})")
    for ext in _f(facts, "abi", "extensions") or []:
        if isinstance(ext, Mapping) and ext.get("embedded_archs") is not None:
            ev.append(f"{ext.get('path')}: embeds {' '.join(ext['embedded_archs']) or 'nothing'}"
                      f"{', PTX' if ext.get('has_ptx') else ', no PTX'}")
    return sig["code"], layer, ev, []


def _h_nvcc_torch(fields: dict[str, str], facts: Mapping[str, Any] | None, sig: Mapping[str, Any]) -> Refined:
    fields["torch_major"] = _major(fields.get("torch")) or "?"
    return sig["code"], sig["layer"], [], []


def _h_driver(fields: dict[str, str], facts: Mapping[str, Any] | None, sig: Mapping[str, Any]) -> Refined:
    try:
        n = int(fields.get("found", "0"))
        fields["driver_cuda"] = f"{n // 1000}.{(n % 1000) // 10}"
        fields["driver_cu"] = f"{n // 1000}{(n % 1000) // 10}"
    except ValueError:
        fields["driver_cuda"] = fields["driver_cu"] = "?"
    ev = [f"found version {fields.get('found')} = cudaDriverGetVersion(): the driver supports CUDA up to "
          f"{fields['driver_cuda']}"]
    tc = _f(facts, "torch", "cuda")
    if tc:
        ev.append(f"torch here is built for CUDA {tc}")
    dv = _f(facts, "driver", "driver_version")
    if dv:
        ev.append(f"driver version {dv}")
    return sig["code"], sig["layer"], ev, []


def _h_kaolin_wheel(fields: dict[str, str], facts: Mapping[str, Any] | None, sig: Mapping[str, Any]) -> Refined:
    ev = [f"pip saw only the PyPI placeholder kaolin {fields.get('versions')}"]
    if fields.get("page"):
        ev.append(f"looked in: {fields['page']}")
    tv, tc = _f(facts, "torch", "version_base"), _f(facts, "torch", "cuda")
    cmds: list[str] = []
    if tv:
        page = KAOLIN_WHEEL_PAGE.format(torch=tv, cuda=str(tc or "").replace(".", "") or "<xy>")
        ev.append(f"this torch {tv} (CUDA {tc}) would need the page {page}")
        if fields.get("page") and fields["page"] != page:
            ev.append("the page pip looked in does not match the installed torch")
    inst = _f(facts, "kaolin", "install_command")
    if inst:
        cmds.append(str(inst))
    else:
        cmds += ["python -c \"import torch, sys; print(torch.__version__, torch.version.cuda, sys.version_info[:2])\"",
                 "pip install kaolin==<ver> -f " + KAOLIN_WHEEL_PAGE.format(torch="<torch>", cuda="<xy>")
                 + "   # a combination listed at https://nvidia-kaolin.s3.us-east-2.amazonaws.com/index.html",
                 "# none for this torch: build from source with IGNORE_TORCH_VER=1 pip install --no-build-isolation ."]
    return sig["code"], sig["layer"], ev, cmds


def _h_toolkit_hint(fields: dict[str, str], facts: Mapping[str, Any] | None, sig: Mapping[str, Any]) -> Refined:
    ev = []
    nv = fields.get("nvcc")
    if nv:
        ev.append(f"the build looked for {nv}")
    for n in _f(facts, "toolkit", "nvccs") or []:
        if isinstance(n, Mapping):
            ev.append(f"nvcc {n.get('version')} exists at {n.get('path')}")
    return sig["code"], sig["layer"], ev, []


def _h_ld_env(fields: dict[str, str], facts: Mapping[str, Any] | None, sig: Mapping[str, Any]) -> Refined:
    ev = []
    changed = _f(facts, "loader", "changed_since_start") or {}
    for var, ch in changed.items() if isinstance(changed, Mapping) else ():
        if isinstance(ch, Mapping):
            ev.append(f"in this process {var} was {ch.get('start')!r} at start and is {ch.get('now')!r} now")
    return sig["code"], sig["layer"], ev, []


HANDLERS: dict[str, Callable[[dict[str, str], Mapping[str, Any] | None, Mapping[str, Any]], Refined]] = {
    "undefined_symbol": _h_undefined_symbol,
    "cudart": _h_cudart,
    "arch": _h_arch,
    "no_kernel_image": _h_no_kernel_image,
    "nvcc_torch": _h_nvcc_torch,
    "driver": _h_driver,
    "kaolin_wheel": _h_kaolin_wheel,
    "toolkit_hint": _h_toolkit_hint,
    "ld_env": _h_ld_env,
}


def _line_of(text: str, start: int, end: int) -> str:
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    line = text[a: b if b != -1 else len(text)].strip()
    return line if len(line) <= 300 else line[:297] + "..."


def explain_text(text: str, facts: Mapping[str, Any] | None = None, max_findings: int = 20) -> list[Finding]:
    """Findings for every known error signature in ``text``; never raises.

    Parameters
    ----------
    text : str
        A pasted error: one line, a traceback or a build log.
    facts : dict, optional
        ``{layer: facts}`` of the machine (from ``collect``); refines codes and adds evidence.

    Returns
    -------
    list of Finding
        In order of appearance in the text, one per distinct (code, extracted fields); empty when
        nothing is recognised.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str) or not text.strip():
        return []
    text = cap_text(text)  # head and tail of a long log, long lines cut: bounded work below
    try:
        ranked = decide(extract(text), facts)
    except Exception as exc:  # never raises
        ranked = [(99, Finding("rule_failed", "loader", "info", "explain evidence failed",
                               (f"{type(exc).__name__}: {exc}",)))]
    sig = _signature_findings(text, facts, max_findings)
    best: dict[str, tuple[float, int, Finding]] = {}
    for i, f in enumerate(sig):
        best[f.code] = (23.0, i, f)
    for i, (rank, f) in enumerate(ranked):
        if f.code in best:  # the signature's finding has the richer fix: keep it, at the better rank
            r, j, g = best[f.code]
            best[f.code] = (min(r, rank), j, g)
        else:
            best[f.code] = (float(rank), 1000 + i, f)
    return [f for _, _, f in sorted(best.values(), key=lambda t: (t[0], t[1]))][:max_findings]


def _signature_findings(text: str, facts: Mapping[str, Any] | None, max_findings: int) -> list[Finding]:
    from smrnb.doctor._evidence import _NVCC_REL_RE

    m_nv = _NVCC_REL_RE.search(text) if "release" in text else None
    text_nvcc = m_nv.group(1) if m_nv else None
    hits: list[tuple[int, Finding]] = []
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    lines: list[str] | None = None
    for sig in load_signatures():
        if sig["unless_regex"] is not None and sig["unless_regex"].search(text):
            continue
        hay = text
        needle = sig.get("needle")
        if needle:  # patterns without a literal start: search only the lines around the needle (long logs)
            if needle not in text:
                continue
            lines = text.split("\n") if lines is None else lines
            ctx = int(sig.get("context_lines", 0))
            keep: set[int] = set()
            for i, ln in enumerate(lines):
                if needle in ln:
                    keep.update(range(max(0, i - ctx), i + 1))
            hay = "\n".join(lines[i] for i in sorted(keep))
        for m in sig["regex"].finditer(hay):
            fields = {k: v for k, v in m.groupdict().items() if v is not None}
            if sig.get("handler") == "arch" and text_nvcc:
                fields["text_nvcc"] = text_nvcc
            key = (sig["id"], tuple(sorted(fields.items())))
            if key in seen:
                continue
            seen.add(key)
            try:
                finding = _make_finding(sig, fields, facts, _line_of(hay, m.start(), m.end()))
            except Exception as exc:  # a handler bug must not hide the other findings
                finding = Finding("rule_failed", sig["layer"], "info", f"explain signature {sig['id']} failed",
                                  (f"{type(exc).__name__}: {exc}",))
            pos = m.start() if hay is text else max(0, text.find(m.group(0)[:60]))
            hits.append((pos, finding))
            if len(hits) >= max_findings:
                break
    hits.sort(key=lambda h: h[0])
    return [f for _, f in hits]


def _make_finding(sig: Mapping[str, Any], fields: dict[str, str], facts: Mapping[str, Any] | None,
                  line: str) -> Finding:
    code, layer, extra_ev, extra_cmds = sig["code"], sig["layer"], [], []
    h = sig.get("handler")
    if h:
        code, layer, extra_ev, extra_cmds = HANDLERS[h](fields, facts, sig)
    fmt = defaultdict(lambda: "?", fields)
    title = sig["title"].format_map(fmt)
    if code != sig["code"]:
        title = {
            "cxx11_abi_mismatch": "Undefined symbol {symbol_short}: the extension and torch use different C++ ABIs",
            "prebuilt_binary_wrong_cuda": "{lib} missing: a prebuilt binary for CUDA {major} in an environment "
                                          "without CUDA {major}",
            "extension_undefined_symbol": "Undefined symbol {symbol_short}: built against another library version",
        }.get(code, title).format_map(fmt)
    evidence = [f"matched: {line}"] + extra_ev
    commands = [c.format_map(fmt) for c in sig.get("commands", ())] + extra_cmds
    fix = Fix(sig["why"].format_map(fmt), tuple(commands), tuple(sig.get("docs", ())))
    return Finding(code, layer, sig.get("severity", "error"), title, tuple(evidence), fix)


# ---------------------------------------------------------------------- decide from evidence
CODES.update({
    "library_shadowed_older_copy": "A CUDA library (cuDNN, NCCL, nvJitLink, cuBLAS...) is found, but an older copy "
                                   "on the loader path is loaded before the one torch ships.",
    "gpu_not_exposed_to_process": "The host has a GPU and driver but this process is not given it (container "
                                  "without --gpus, Slurm without --gres, CUDA_VISIBLE_DEVICES).",
    "driver_broken_or_mismatch": "An NVIDIA driver is installed but unusable (kernel module and user-space library "
                                 "differ, or nvidia-smi cannot talk to it).",
    "companion_built_for_other_torch": "torchvision/torchaudio (a companion with compiled operators) was built for "
                                       "another torch or CUDA than the installed torch.",
    "cuda_oom": "The GPU ran out of memory: the setup is right, the workload is too large.",
    "kernel_wrong_python": "The Jupyter kernel runs another Python than the one the packages were installed into.",
    "gpu_below_extension_minimum": "The GPU is older than the minimum the extension's own code supports.",
    "build_dependency_missing": "A non-CUDA system header, library or tool the build needs is absent.",
    "extension_not_compiled": "The package is installed but its compiled module (_C, _ext) was never built.",
    "windows_msvc_toolchain": "A Windows build fails in the MSVC toolchain (cl.exe, Visual C++ build tools).",
})

_CUDA_FAMILIES = {"cudart", "cudnn", "nccl", "nvjitlink", "cublas", "cusparse", "cusolver", "cufft", "curand",
                  "nvrtc", "nvtx", "cupti"}


def _ev(ev: list[Any], kind: str) -> list[Any]:
    return [e for e in ev if e.kind == kind]


def _arch_list(archs: list[str]) -> str | None:
    """TORCH_CUDA_ARCH_LIST value for the (CUDA) archs named in the text, e.g. ``"8.6"``."""
    out = []
    for a in archs:
        d = "".join(ch for ch in a if ch.isdigit())
        if 2 <= len(d) <= 3:
            v = f"{d[:-1]}.{d[-1]}"
            if v not in out:
                out.append(v)
    return ";".join(out) or None


def nvcc_archs(nvcc: str | None) -> list[int] | None:
    """Compute capabilities (as 86, 90...) the nvcc release ``nvcc`` compiles for (tables/nvcc_archs.csv)."""
    from smrnb.doctor.tables import rows, version_key

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


def decide(ev: list[Any], facts: Mapping[str, Any] | None = None) -> list[tuple[int, Finding]]:
    """Ranked findings (rank, Finding) from evidence facts; lower rank first."""
    kinds = {e.kind for e in ev}
    out: list[tuple[int, Finding]] = []

    def find(rank: int, code: str, layer: str, title: str, fired: list[Any], why: str,
             cmds: tuple[str, ...] = (), neighbour: str = "", severity: str = "error") -> None:
        evidence = tuple([f"evidence: {e.kind} {e.value} (line: {e.line[:160]})" for e in fired[:4]]
                         + ([f"told from its neighbour: {neighbour}"] if neighbour else []))
        out.append((rank, Finding(code, layer, severity, title, evidence, Fix(why, cmds))))

    def first(kind: str) -> list[Any]:
        return _ev(ev, kind)[:1]

    missing = _ev(ev, "lib_missing")
    undef = _ev(ev, "undefined_symbol")
    archs = [e.value for e in _ev(ev, "gpu_arch")]
    # --- driver side
    if "nvml_mismatch" in kinds or "driver_unreachable" in kinds:
        find(10, "driver_broken_or_mismatch", "driver", "The NVIDIA driver is installed but broken",
             first("nvml_mismatch") + first("driver_unreachable"),
             "The kernel module and the user-space driver library differ (often after an upgrade without reboot) "
             "or the module is not loaded.",
             ("nvidia-smi", "sudo reboot   # or reload the module: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset "
              "nvidia && sudo modprobe nvidia"),
             "driver_too_old is a working driver older than the CUDA runtime needs")
    if "driver_insufficient" in kinds:
        find(12, "driver_too_old", "driver", "The NVIDIA driver is older than the CUDA runtime needs",
             first("driver_insufficient"),
             "The CUDA runtime (torch's build) needs a newer driver than the one installed.",
             ("nvidia-smi   # 'CUDA Version' is the newest CUDA the driver supports",
              "pip install torch --index-url https://download.pytorch.org/whl/cu118   # a build the driver "
              "supports, or upgrade the driver"),
             "driver_broken_or_mismatch is a driver that does not answer at all")
    if "ptx_toolchain" in kinds:
        find(12, "driver_below_cuda_minor", "driver", "The driver is older than the toolkit that produced the PTX",
             first("ptx_toolchain"), "Upgrade the driver or build with the CUDA version the driver supports.",
             ("nvidia-smi", "nvcc --version"), "driver_too_old: the runtime itself refuses to start")
    container = [e for e in ev if e.kind == "no_cuda_gpus"] + \
        [e for e in missing if e.value.startswith("driver:")]
    if container or "no_cuda_runtime_at_build" in kinds:
        find(14, "gpu_not_exposed_to_process", "driver", "This process is not given the GPU",
             container[:2] + first("no_cuda_runtime_at_build"),
             "The driver library (libcuda.so.1 / NVML) or the device is not visible here: a container started "
             "without the NVIDIA runtime, a scheduler job without a GPU, or CUDA_VISIBLE_DEVICES.",
             ("docker run --gpus all ...   # or: srun --gres=gpu:1 ...", "echo $CUDA_VISIBLE_DEVICES; nvidia-smi",
              "TORCH_CUDA_ARCH_LIST=<arch> FORCE_CUDA=1 pip install ...   # building in a GPU-less docker build"),
             "cudart_not_found is a toolkit library missing while the driver is there")
    if "no_driver_found" in kinds:
        find(20, "no_gpu", "driver", "No NVIDIA driver (or GPU) on this machine", first("no_driver_found"),
             "torch found no NVIDIA driver: the machine or runtime has no NVIDIA GPU, or the driver is not installed.",
             ("nvidia-smi", "lspci | grep -i nvidia"), "gpu_not_exposed_to_process: a GPU exists but is hidden")
        find(40, "gpu_not_exposed_to_process", "driver", "This process may not be given the GPU",
             first("no_driver_found"), "In a container or job, the GPU must be passed in.",
             ("docker run --gpus all ...",), severity="warning")
    if "oom" in kinds:
        find(15, "cuda_oom", "torch", "The GPU ran out of memory", first("oom"),
             "The setup works; the workload (batch, resolution, other processes) does not fit the GPU's memory.",
             ("nvidia-smi   # other processes holding memory",
              "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True   # fragmentation"),
             "driver_broken_or_mismatch / no_kernel_image_for_gpu are setup errors", "error")
    # --- libraries and symbols
    for e in undef:
        owner = e.value.split(":", 1)[0]
        if owner in _CUDA_FAMILIES - {"cudart"} or owner == "cuda_runtime" and "version lib" in e.line:
            find(11, "library_shadowed_older_copy", "loader",
                 f"An older {owner} library is loaded before the one torch ships", [e],
                 "A copy of the CUDA library on LD_LIBRARY_PATH (system toolkit, conda) shadows the newer copy in "
                 "torch's nvidia/* wheels.",
                 ("echo $LD_LIBRARY_PATH", "python -c \"import torch\" ; ldd $(python -c 'import torch,os;"
                  "print(os.path.dirname(torch.__file__))')/lib/libtorch_cuda.so | grep -i " + owner,
                  "unset LD_LIBRARY_PATH   # or drop the toolkit's lib64 from it"),
                 "cudart_not_found is no copy found at all")
        elif owner == "torch_python":
            find(20, "torch_libs_not_loaded", "loader", "The extension was loaded before torch", [e],
                 "Import torch before the extension.", ("python -c \"import torch; import <extension>\"",))
    if "cudnn_version_mismatch" in kinds:
        find(13, "library_shadowed_older_copy", "loader", "Another cuDNN is loaded than torch was built with",
             first("cudnn_version_mismatch"),
             "An older libcudnn on the loader path is loaded before torch's own.",
             ("echo $LD_LIBRARY_PATH",), "cudart_not_found is no copy at all")
    for e in missing:
        fam, ver, name = (e.value.split(":", 2) + ["", ""])[:3]
        if fam in _CUDA_FAMILIES:
            major = ver.split(".")[0] if ver else ""
            if fam == "cudart" and major:
                find(25, "prebuilt_binary_wrong_cuda", "loader", f"{name} missing: a binary built for CUDA {major}",
                     [e], f"A prebuilt binary asks for the CUDA {major} runtime.",
                     (f"pip install --force-reinstall <package> built for this environment's CUDA   "
                      f"# or provide the CUDA {major} runtime",), "cudart_not_found when CUDA "
                     f"{major} is the environment's own major", "error")
            find(30, "cudart_not_found", "loader", f"{name} is not on the loader path", [e],
                 f"The {fam} library{(' (major ' + major + ')') if major else ''} is not found by the loader.",
                 ("ldconfig -p | grep " + fam, "pip list | grep nvidia-"),
                 "gpu_not_exposed_to_process when the missing library is libcuda.so.1 (the driver)")
        elif fam == "torch":
            find(20, "torch_libs_not_loaded", "loader", f"{name} not found: import torch first", [e],
                 "An extension without RPATH to torch's lib directory was loaded before `import torch`.",
                 ("python -c \"import torch; import <extension>\"",))
        elif fam == "gl":
            find(30, "build_dependency_missing", "toolkit", f"{name} (a system library) is missing", [e],
                 "Install the system package providing it.", ("sudo apt-get install libegl1 libgl1",))
    for e in _ev(ev, "symbol_version"):
        if e.value.startswith("GLIBC_"):
            find(18, "symbol_version_missing", "loader", f"{e.value} not found: the C library is older",
                 [e], "The binary needs a newer glibc than this system has; use a build for this system.",
                 ("ldd --version",), "libstdcxx_too_old is GLIBCXX_/CXXABI_")
        else:
            find(18, "libstdcxx_too_old", "loader", f"{e.value} not found in the libstdc++ loaded", [e],
                 "An older libstdc++.so.6 (often conda's) is loaded first.",
                 ("conda install -c conda-forge libstdcxx-ng",), "symbol_version_missing is GLIBC_")
    # --- GPU archs
    if "torch_drops_gpu" in kinds:
        find(16, "torch_wheel_lacks_gpu_arch", "torch", "The installed torch has no kernels for this GPU",
             first("torch_drops_gpu"), "torch dropped this GPU's compute capability; install an older torch "
             "that still has it.", ("python -c \"import torch; print(torch.cuda.get_arch_list())\"",),
             "no_kernel_image_for_gpu is an extension lacking the arch")
    if "flash_min_gpu" in kinds:
        find(16, "gpu_below_extension_minimum", "torch", "The GPU is older than the extension supports",
             first("flash_min_gpu"), "No build will run on this GPU; use another implementation or GPU.",
             ("nvidia-smi --query-gpu=name,compute_cap --format=csv",), "no_kernel_image_for_gpu: a rebuild fixes it")
    if "no_kernel_image" in kinds:
        nv = [e.value for e in _ev(ev, "nvcc_version")]
        al = build_arch_list(archs, nv[0] if nv else None)
        find(22, "no_kernel_image_for_gpu", "abi", "A binary has no kernels for this GPU", first("no_kernel_image"),
             "Rebuild the extension with this GPU's arch in TORCH_CUDA_ARCH_LIST.",
             ("nvidia-smi --query-gpu=compute_cap --format=csv",
              f"TORCH_CUDA_ARCH_LIST=\"{al or '<compute_cap from nvidia-smi>'}\" pip install --no-build-isolation "
              "--no-cache-dir --force-reinstall ."),
             "torch_wheel_lacks_gpu_arch: torch's own ops fail too")
    if "unsupported_arch" in kinds and ("nvcc fatal" in " ".join(e.line.lower() for e in ev) or archs):
        find(24, "unsupported_gpu_arch", "toolkit", "nvcc cannot build the requested GPU arch",
             first("unsupported_arch"), "The nvcc in use does not know this arch (too new or dropped).",
             ("nvcc --version; nvcc --list-gpu-arch",) + tuple(
                 f"export TORCH_CUDA_ARCH_LIST=\"{al}\"   # from the arch in the text and nvcc {nv[0]}"
                 for nv in [[e.value for e in _ev(ev, "nvcc_version")]] if nv
                 for al in [build_arch_list(archs, nv[0])] if al),
             "no_kernel_image_for_gpu is a built binary without the arch")
    # --- toolkit / build
    homes = [e for e in _ev(ev, "cuda_home") if cuda_home_problem(e.value)]
    if homes:
        find(14, "cuda_home_malformed", "toolkit",
             f"CUDA_HOME is not one toolkit directory ({cuda_home_problem(homes[0].value)})", homes[:1],
             "CUDA_HOME must be one absolute directory such as /usr/local/cuda-12.4.",
             ("echo \"$CUDA_HOME\"", "export CUDA_HOME=/usr/local/cuda-<x.y>"),
             "cuda_home_missing is a CUDA_HOME pointing where there is no nvcc")
    if "nvcc_missing" in kinds:
        env_hint = "jupyter" in kinds and "terminal_works" in kinds
        find(26 if env_hint else 19, "cuda_home_missing", "toolkit", "No nvcc where the build looks for it",
             first("nvcc_missing"), "Install a CUDA toolkit matching torch.version.cuda and point CUDA_HOME at it.",
             ("ls -d /usr/local/cuda*/bin/nvcc", "export CUDA_HOME=/usr/local/cuda-<x.y> PATH=$CUDA_HOME/bin:$PATH"),
             "cuda_home_malformed is a CUDA_HOME that is not one directory")
    if "nvcc_torch_mismatch" in kinds:
        find(21, "nvcc_torch_cuda_mismatch", "toolkit", "nvcc and torch use different CUDA versions",
             first("nvcc_torch_mismatch"), "Use the toolkit of torch.version.cuda for the build.",
             ("python -c \"import torch; print(torch.version.cuda)\"", "nvcc --version"))
    if "gcc_unsupported" in kinds or _ev(ev, "gcc_max"):
        g = _ev(ev, "gcc_max")
        find(17, "host_compiler_unsupported", "toolkit",
             f"gcc is newer than nvcc accepts{(' (gcc ' + g[0].value + ' at most)') if g else ''}",
             (g or first("gcc_unsupported"))[:1], "Use a host compiler the nvcc accepts.",
             (f"export CC=gcc-{g[0].value} CXX=g++-{g[0].value}" if g else "export CC=gcc-<n> CXX=g++-<n>",))
    if "msvc" in kinds:
        find(15, "windows_msvc_toolchain", "toolkit", "The MSVC toolchain is not usable for this build",
             first("msvc"), "Install the Visual C++ Build Tools and build from an x64 Native Tools prompt.",
             ("where cl",), "host_compiler_unsupported is gcc on Linux")
    if "torch_symbol_missing_api" in kinds:
        find(16, "torch_api_incompatible_source", "abi", "The source uses a torch API that torch removed",
             first("torch_symbol_missing_api"),
             "Use a release of the extension written for this torch (THC, AT_CHECK, .data<T>() are gone).",
             ("pip install --upgrade <the extension>",), "abi_torch_version_mismatch is a compiled binary")
    if "companion_mismatch" in kinds:
        find(13, "companion_built_for_other_torch", "torch", "torchvision/torchaudio do not match the installed torch",
             first("companion_mismatch"),
             "Install the companion version that matches torch, from the same index.",
             ("python -c \"import torch; print(torch.__version__)\"",
              "pip install --force-reinstall torch==<ver> torchvision==<matching> --index-url "
              "https://download.pytorch.org/whl/<cuXYZ>"), "abi_torch_version_mismatch is your own extension")
    nomods = [e for e in _ev(ev, "no_module")]
    if "torch_absent_at_build" in kinds or any(e.value == "torch" for e in nomods) and "build_isolation" in kinds or (
            "build_isolation" in kinds and any("getting requirements to build wheel" in e.line.lower()
                                               or "pip-build-env" in e.line.lower() for e in ev)):
        find(15, "torch_not_found_at_build", "torch", "pip's build isolation hides torch from the build",
             first("torch_absent_at_build") + [e for e in nomods if e.value == "torch"][:1] + first("build_isolation"),
             "The package imports torch in setup.py; build without isolation.",
             ("pip install --no-build-isolation <package>",), "a missing torch at run time is another env")
    if "cannot_import_c" in kinds or any(e.value.split(".")[-1] in ("_C", "_ext") or "scatter_c" in e.value
                                         for e in nomods):
        find(20, "extension_not_compiled", "abi", "The package's compiled module was never built",
             first("cannot_import_c") + [e for e in nomods][:1],
             "Reinstall the package with its compiled extension (mmcv-full, a CUDA build of the source).",
             ("pip install --no-build-isolation --force-reinstall --no-cache-dir <package>",),
             "abi_torch_version_mismatch: the .so exists but fails to load")
    if "cpu_torch" in kinds or any(e.value.endswith("+cpu") for e in _ev(ev, "torch_build")):
        find(18, "cpu_only_torch_with_gpu", "torch", "torch is a CPU-only build", first("cpu_torch"),
             "Install a CUDA build of torch from the PyTorch index.",
             ("pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu124",),
             "no_gpu: the machine has no GPU at all")
    if "kaolin_gate" in kinds and "torch_absent_at_build" not in kinds:
        find(20, "kaolin_version_gate", "kaolin", "kaolin's setup.py refuses this torch version", first("kaolin_gate"),
             "Use a kaolin release for this torch, or IGNORE_TORCH_VER=1 when building from source.",
             ("IGNORE_TORCH_VER=1 pip install --no-build-isolation .",))
    if "ninja_missing" in kinds:
        find(22, "ninja_missing", "toolkit", "ninja is not on PATH", first("ninja_missing"),
             "torch.utils.cpp_extension needs ninja.", ("pip install ninja",))
    for e in _ev(ev, "missing_header"):
        low = e.value.lower()
        if low.startswith("thc/"):
            continue
        if low.startswith(("cuda", "cusparse", "cublas", "curand", "cufft", "cusolver", "nv", "crt/")):
            find(26, "cuda_home_incomplete", "toolkit", f"{e.value} is missing from the toolkit", [e],
                 "The toolkit in CUDA_HOME lacks its development headers.", ("ls $CUDA_HOME/include",))
        else:
            find(24, "build_dependency_missing", "toolkit", f"The header {e.value} is missing", [e],
                 "Install the system development package that provides it.",
                 ("sudo apt-get install libegl1-mesa-dev   # EGL/GL headers" if "gl" in low
                  else "apt-file search " + e.value,), "cuda_home_incomplete is a CUDA header")
    if "jupyter" in kinds and ("terminal_works" in kinds or "sys_executable" in kinds):
        if "sys_executable" in kinds and "env_var_set" not in kinds or (_ev(ev, "no_module") and
                                                                        "env_var_set" not in kinds):
            find(19, "kernel_wrong_python", "jupyter", "The kernel runs another Python than the terminal",
                 first("sys_executable") + first("terminal_works"),
                 "Install the kernel of the environment you installed into.",
                 ("python -m ipykernel install --user --name <env>",), "env_not_propagated_to_kernel: same Python")
        find(21, "env_not_propagated_to_kernel", "loader", "A variable set in the shell is not in the kernel",
             first("env_var_set") + first("terminal_works"),
             "Variables set in a shell profile are not seen by a kernel started elsewhere.",
             ("smr-doctor fix kernelspec",), "kernel_wrong_python: another Python", "warning")
    if "multiple_nvcc" in kinds and not out:
        find(40, "multiple_cuda_toolkits", "toolkit", "Another installed toolkit is picked than intended",
             first("multiple_nvcc"), "Put the intended toolkit first on PATH and CUDA_HOME.", ("which -a nvcc",))
    return out
