# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Explain: turn a pasted error (one line, a traceback or a whole build log) into findings.

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
            f"# or provide the CUDA {want} runtime: pip install nvidia-cuda-runtime-cu{want}"]
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
    return sig["code"], sig["layer"], ev, []


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


#: a line longer than this is cut before matching: some signatures backtrack quadratically on one huge
#: token (a 100 kB line took minutes), and no real error line is this long
MAX_LINE = 2000


def _cap_lines(text: str) -> str:
    if all(len(ln) <= MAX_LINE for ln in text.split("\n")):
        return text
    return "\n".join(ln[:MAX_LINE] for ln in text.split("\n"))


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
    if not isinstance(text, str) or not text.strip():
        return []
    text = _cap_lines(text)
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
