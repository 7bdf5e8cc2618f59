# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the runtime-loader layer: libraries ld.so will not find, libstdc++ too old, and an
environment changed after the process started (facts: ``facts["loader"]``, FACTS.md)."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator, Mapping
from typing import Any

from smrnb.doctor._codes import CODES as CODE_TABLE
from smrnb.doctor._codes import meanings, why
from smrnb.doctor._ldso import change_effect
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor._owner import package_name
from smrnb.doctor.rules import rule
from smrnb.doctor.rules._events import builds, cuda_majors, events, has_sign, major, resolve, value

CODES = meanings("rules.loader")  # this module's codes, from the one table (codes.py)

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


def _live_event(ext: Mapping[str, Any], lib: str) -> dict[str, Any]:
    """The event of a library the loader probe found missing for ``ext`` (the shape a text's event has)."""
    from smrnb.doctor._evidence import lib_family

    fam, ver = lib_family(lib)
    return {"kind": "library_missing", "from": "live", "weight": 14, "library": lib, "family": fam, "version": ver,
            "needed_by": ext.get("path"), "ext": ext,
            "line": f"{ext.get('path')}: {lib}: cannot open shared object file (the doctor's ld.so resolution)"}


_CUDA_FAMILIES = {"cudart", "cudnn", "nccl", "nvjitlink", "cublas", "cusparse", "cusolver", "cufft", "curand",
                  "nvrtc", "nvtx", "cupti"}


#: torch's libraries that exist since torch 1.5 (caffe2/CMakeLists.txt splits torch into torch_cpu and torch_cuda)
_TORCH_LIBS_SINCE_1_5 = ("libtorch_cpu.", "libtorch_cuda.")


#: ctypes on Windows (Lib/ctypes/__init__.py, Python 3.8+) for ERROR_MOD_NOT_FOUND: "Could not find module 'PATH' (or
#: one of its dependencies)"; PATH a full path of a DLL under a directory naming a CUDA build (llama_cpp_cuda, cuda_v12)
_WIN_CUDA_DLL_RE = re.compile(r"Could not find module '(?:[A-Za-z]:)?[\\/][^'\n]{0,300}?[\\/]"
                              r"(?:[\w.-]*[_-]cuda[\w.-]*|cuda[_-][\w.-]*)[\\/][^'\n]{0,200}\.dll'", re.IGNORECASE)


def _cuda_build_dll(line: str) -> bool:
    """Whether the line is Windows' ctypes failing on the full path of a DLL inside a CUDA build's directory: the file
    is the package's own, so what LoadLibrary did not find is one of its dependencies, the CUDA runtime's DLLs
    (cudart64_NN.dll, cublas64_NN.dll) of the CUDA major the build was made for."""
    return bool(_WIN_CUDA_DLL_RE.search(line))


#: torch's companion packages, published one release per torch release (each pins the torch it was built with)
_COMPANIONS = ("torchvision", "torchaudio", "torchtext")
#: the API sets of Windows' own core (learn.microsoft.com, "Windows API sets": a contract the loader resolves to the OS's
#: host DLL; each function's page names its set and the oldest Windows with it, PathCchCanonicalizeEx:
#: api-ms-win-core-path-l1-1-0.dll, Windows 8); not api-ms-win-crt-* (the universal CRT, installable on Windows 7)
WINDOWS_API_SET_PREFIX = "api-ms-win-core-"


def library_missing_codes(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> list[str]:
    """The codes a library that failed to load may mean, from the loader table's row for its message (or
    the library's family when the message is not one of the table's): the same for a text and the probe."""
    from smrnb.doctor import tables

    name = str(ev.get("library") or "")
    fam = ev.get("family")
    low = name.lower()
    if low.startswith(WINDOWS_API_SET_PREFIX):
        # (round 30c) an API set of Windows itself ("api-ms-win-core-path-l1-1-0.dll is missing from your computer"):
        # the loader maps it onto the OS's own DLLs, and a Windows release older than the contract lacks it (the
        # PathCch functions of api-ms-win-core-path-l1-1-0: Windows 8 and later; CPython 3.9+ needs them and supports
        # no Windows 7): the program's build is for a newer Windows, no file to install. The universal C runtime's
        # api-ms-win-crt-* sets are a redistributable (KB2999226, the VC++ runtime): missing files, not this
        return ["package_no_build_for_platform", "library_not_found"]
    if fam == "torch" and low.startswith(("libtorch_cuda_cu.", "libtorch_cuda_cpp.")):
        # only torch 1.11 and 1.12 split libtorch_cuda.so in two: the binary was built for one of them
        return ["abi_torch_version_mismatch", "torch_libs_not_loaded"]
    row = tables.first_match("loader_errors", f"{name}: cannot open shared object file: No such file or directory")
    codes = list(row.row.codes) if row is not None else []
    if fam == "driver" and value(facts, "context", "wsl"):
        # WSL keeps the driver's libcuda in /usr/lib/wsl/lib, which the loader searches only through ld.so.conf.d or
        # LD_LIBRARY_PATH: the GPU is given, the directory is not searched
        codes = ["library_not_found", "gpu_not_exposed_to_process"]
    elif fam == "driver" and low in ("libcuda.so", "libnvidia-ml.so") and not (
            value(facts, "context", "container") or value(facts, "context", "slurm")):
        # the unversioned name is the driver's development link (the runtime loads libcuda.so.1, NVML's users
        # libnvidia-ml.so.1): a program that dlopens it needs that link, or the directory that has it (WSL:
        # /usr/lib/wsl/lib) on the loader's path
        codes = ["library_not_found", "gpu_not_exposed_to_process", "no_gpu"]
    elif fam == "driver" and not low.startswith(("libcuda.", "libnvidia-ml")) and not (
            value(facts, "context", "container") or value(facts, "context", "slurm")):
        # a component of the driver beside libcuda (the PTX JIT, OptiX, NVENC/NVDEC, OpenCL): distributions package
        # them apart from libcuda (libnvidia-compute, -decode, -gl), so a host driver install can lack one
        codes = ["library_not_found", "driver_broken"]
    elif fam == "driver":
        codes = ["gpu_not_exposed_to_process", "no_gpu"]
    elif fam == "other" and _cuda_build_dll(str(ev.get("line") or "")):
        codes = ["cudart_not_found", "prebuilt_binary_wrong_cuda", "library_not_found"]
    elif fam in _CUDA_FAMILIES and codes != ["cudart_not_found", "prebuilt_binary_wrong_cuda"]:
        codes = ["cudart_not_found", "prebuilt_binary_wrong_cuda"]  # a CUDA library the row's list has no name for
    if fam in _CUDA_FAMILIES and _torch_own_cuda_lib(facts, ev) and (major(str(ev.get("version") or "")) or 0) >= 12 \
            and not _other_cuda_shown(facts, ev):
        # (round 36g, audit 36 F1) `import torch` itself fails ("from torch._C import *", torch's own frame last): the
        # binary asking for the CUDA library is torch's own _C, and a torch of CUDA 12 is a wheel that brings its CUDA
        # libraries itself (the nvidia-* wheels it depends on, or bundled in it): one missing is not found, not of
        # another CUDA than the environment's, where the text shows no other (an old torch of CUDA 8 or 10 asking for
        # the system's libraries keeps both readings, pytorch/pytorch#20750)
        codes = [c for c in codes if c != "prebuilt_binary_wrong_cuda"]
    elif fam == "torch" and low.endswith(".dll"):
        codes = ["library_not_found"]  # torch's own DLL or one of its dependencies (the VC++ runtime, CUDA's DLLs)
    elif fam == "torch" and "error in dlopen" in str(ev.get("line") or "").lower():
        # torch itself loads it at run time (ATen's DynamicLibrary: libcaffe2_nvrtc.so, libtorch_cuda_linalg.so): no
        # extension was imported too early; the torch install lacks the file or its directory is not searched
        codes = ["library_not_found"]
    elif fam == "torch" and ev.get("from") != "live" and has_sign(facts, "torch_own_import"):
        # torch's own _C fails to load one of torch's libraries: _C finds them through its RPATH ($ORIGIN/lib), so
        # the torch install lacks the file (an interrupted or mixed install, two torch releases in one
        # site-packages); no extension and no import order is involved, and a CPU build never asks for a CUDA library
        codes = ["torch_import_failed"]
    elif fam == "torch" and low.startswith(_TORCH_LIBS_SINCE_1_5):
        # libtorch.so was split into libtorch_cpu.so / libtorch_cuda.so in torch 1.5: a binary that needs them was
        # built for 1.5 or later; an older torch (the text's) has no such file, else both readings
        tv = tables.parse_version(value(facts, "torch", "version"))
        shown = [str(p).lower() for p in value(facts, "torch", "packages_installed") or []]
        if not tv and "torch" not in shown and any(c in shown for c in _COMPANIONS):
            # a companion the text shows installed (pip's "Successfully installed torchtext-0.7.0") and no torch: its
            # compiled module was built for a torch (1.5 or later) other than the one it loads into
            return ["companion_built_for_other_torch", "torch_libs_not_loaded"]
        codes = (["abi_torch_version_mismatch", "torch_libs_not_loaded"] if tv and tv[:2] < (1, 5) else
                 ["torch_libs_not_loaded"] if tv else ["torch_libs_not_loaded", "abi_torch_version_mismatch"])
    elif fam == "torch":
        codes = ["torch_libs_not_loaded"]
    elif fam in ("libstdcxx", "glibc"):
        return []
    elif not codes:
        codes = ["library_not_found"]
    if ev.get("from") != "live" and has_sign(facts, "env_var_set") and has_sign(
            facts, "env_dropped", "terminal_works", "in_notebook") and fam not in ("torch", "driver"):
        codes = ["env_not_propagated_to_kernel"] + codes  # a path set in a shell that this process never saw
    elif ev.get("from") != "live" and fam in _CUDA_FAMILIES and has_sign(facts, "env_dropped"):
        codes = codes + ["env_not_propagated_to_kernel"]
    return codes


def _torch_own_cuda_lib(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> bool:
    """(round 36g) Whether a text's missing CUDA library is one torch's own compiled core asks for: ``import torch``
    itself failing ("from torch._C import *" with torch's own frame last)."""
    return ev.get("from") != "live" and has_sign(facts, "torch_own_import") \
        and value(facts, "torch", "last_frame_package") == "torch"


def _other_cuda_shown(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> list[str]:
    """(round 36g) The CUDA releases the text shows this environment has (its nvcc, a CUDA it names) of another major
    than the missing library's: a torch built for CUDA 8 in a CUDA 10 environment asks for libcurand.so.8.0."""
    m = major(str(ev.get("version") or ""))
    shown = [str(n.get("version")) for n in value(facts, "toolkit", "nvccs") or [] if isinstance(n, Mapping)
             and n.get("version")] + [str(v) for v in value(facts, "toolkit", "cuda_named") or []]
    return [v for v in dict.fromkeys(shown) if m and major(v) and major(v) != m]


def _needed_commands(ev: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(evidence, commands) the probe's resolution adds: where ld.so looked, where the library is."""
    ext = ev.get("ext")
    if not isinstance(ext, Mapping):
        return [], []
    lib = str(ev.get("library"))
    ev_lines = _lib_evidence(ext, lib, ev.get("start_ld_library_path"))
    elsewhere = ((ext.get("resolved") or {}).get(lib) or {}).get("found_elsewhere") or []
    cmds = []
    if elsewhere:
        cmds += [f"smr-doctor fix kernelspec   # a kernel whose env puts {elsewhere[0]} on LD_LIBRARY_PATH at start",
                 f"export LD_LIBRARY_PATH={elsewhere[0]}:$LD_LIBRARY_PATH   # in the shell that starts jupyter / "
                 "python, before it starts"]
    return ev_lines, cmds


def _who(ev: Mapping[str, Any]) -> str:
    nb = ev.get("needed_by")
    return f"{os.path.basename(str(nb))}: " if nb else ""


#: loader-table rows whose message does not name the library it could not load
_UNNAMED_LIBS = {"nvrtc_builtins": "libnvrtc-builtins"}


def on_windows(facts: Mapping[str, Any], ev: Mapping[str, Any], lib: str) -> bool:
    """Whether a missing library is a Windows DLL: a .dll name, or a text that reads as Windows (WinError, C:\\)."""
    return lib.lower().endswith(".dll") or (ev.get("from") != "live" and (
        has_sign(facts, "windows") or value(facts, "context", "os") == "windows" or str(ev.get("key")) in _WINDOWS_ROWS
        or "dll load failed" in str(ev.get("line") or "").lower()))


#: loader-table rows of Windows' own loader errors (CPython's dynload_win.c, ctypes' LoadLibrary)
_WINDOWS_ROWS = frozenset({"win_mod_not_found", "win_proc_not_found", "win_bad_exe_format"})


def search_path_detail(windows: bool, cuda: bool = False) -> str:
    """How a library's directory is made visible to the loader of the system the text (or machine) is on."""
    if windows:
        return ("On Windows: put the DLL's folder on PATH before Python starts, or call os.add_dll_directory(<folder>) "
                "before the import (Python 3.8+ does not search PATH for the DLLs an extension loads, except conda's "
                "Python); 'or one of its dependencies' means a DLL it needs is missing, for torch's own DLLs "
                "(c10.dll, torch_cpu.dll) usually the Microsoft Visual C++ Redistributable (x64)" +
                (" or the CUDA runtime DLLs (cudart64_*.dll) of its CUDA release." if cuda else "."))
    return ("On Linux: its directory on LD_LIBRARY_PATH before the process starts (for Jupyter: in the kernelspec "
            "env), or in the ld.so cache (ldconfig).")


@builds("cudart_not_found")
def _cudart(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    lib = str(ev.get("library") or (ev.get("groups") or {}).get("lib") or _UNNAMED_LIBS.get(str(ev.get("key")))
              or "the CUDA library")
    fam, ver = ev.get("family"), str(ev.get("version") or "")
    evidence, cmds = _needed_commands(ev)
    m = major(ver) if fam == "cudart" else None
    win = on_windows(facts, ev, lib)
    # (round 31a, issue 25) no library named: the CUDA libraries by their names' stem ("grep the CUDA library" greps
    # for "the" in two files)
    named = lib != "the CUDA library"
    look, grep = (lib, lib.split(".so")[0]) if named else ("cudart64_*.dll", "-i -E 'libcuda|libcudart|libcublas|libcudnn'")
    cmds += ["python -c \"import torch\"   # torch's own CUDA wheels: import torch before the extension so its "
             "RPATH-loaded runtime is already mapped", *([f"where {look}", "pip list | findstr nvidia-"] if win else
                                                          [f"ldconfig -p | grep {grep}",
                                                           "pip list 2>/dev/null | grep nvidia-"])]
    tc = value(facts, "torch", "cuda")
    if m and not (tc and major(str(tc)) and major(str(tc)) != m):
        # (round 28b, blind audit 28) never a CUDA m runtime beside a torch of another CUDA major: two runtimes in
        # one process; there the binary needs its build for torch's CUDA (prebuilt_binary_wrong_cuda)
        cmds.append(runtime_wheel_command(m) + "   # the runtime as a pip wheel")
    evidence += [f"the binary asks for {lib}" + (f" (CUDA {m}.x)" if m else "")] + ([f"torch here is built for CUDA {tc}"]
                                                                                    if tc else [])
    return {"title": f"{_who(ev)}{lib} not found by the loader" if ev.get("from") == "live" else
            f"{lib} is not on the loader path", "commands": cmds, "evidence": evidence,
            "detail": f"{lib} is not on the RPATH, the start-time LD_LIBRARY_PATH, the ld.so cache or the default "
                      "directories." if ev.get("from") == "live" and not win else search_path_detail(win, cuda=True)}


@builds("prebuilt_binary_wrong_cuda")
def _wrong_cuda(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any] | None:
    lib, ver = str(ev.get("library") or ""), str(ev.get("version") or "")
    m = major(ver) if ev.get("family") not in ("cudnn", "nccl") else None
    if not m and ev.get("kind") == "message":
        return _wrong_cuda_of_message(facts, ev)
    if not m:
        return None
    tc, tv = value(facts, "torch", "cuda"), value(facts, "torch", "version")
    have = cuda_majors(facts)
    evidence, _ = _needed_commands(ev)
    evidence += [f"the binary asks for {lib} (CUDA {m}.x)"] + ([f"torch {tv or ''}: torch.version.cuda = {tc}"]
                                                               if tc else [])
    if have and m not in have:
        evidence.append(f"nothing here provides CUDA {m}: found CUDA major(s) {', '.join(map(str, sorted(have)))}")
    if _torch_own_cuda_lib(facts, ev):
        return _torch_own_wrong_cuda(facts, ev, m, evidence)
    cmds = ["python -c \"import torch; print(torch.__version__, torch.version.cuda)\"", *_rebuilt_for_cuda(facts, ev, tc)]
    who = _who(ev).rstrip(": ") or "a binary"
    title = (f"{who} was built for CUDA {m}, torch here uses CUDA {major(tc)}" if tc and ev.get("from") == "live" else
             f"{lib} missing: a binary built for CUDA {m}" + (f", torch here uses CUDA {tc}" if tc else ""))
    return {"title": title, "commands": cmds, "evidence": evidence, "detail": f"{lib} belongs to CUDA {m}."}


def _torch_own_wrong_cuda(facts: Mapping[str, Any], ev: Mapping[str, Any], m: int,
                          evidence: list[str]) -> dict[str, Any]:
    """(round 36g, audit 36 F1) torch's own _C asks for a CUDA library of another major than the environment the text
    shows: the installed torch's release reinstalled from the wheel index of the environment's CUDA (a fresh
    environment else), never an unpinned torch (the newest release, another CUDA variant, maybe a newer driver)."""
    from smrnb.doctor import tables

    lib = str(ev.get("library") or "")
    env = _other_cuda_shown(facts, ev)
    tv = str(value(facts, "torch", "version_base") or "")
    tags = [t for t in (f"cu{v.replace('.', '')}" for v in env) if t in tables.torch_cuda_indexes()]
    idx = tags[0] if tags else "<cuXYZ of the CUDA this environment has>"
    return {"title": f"torch's own {lib} missing: this torch was built for CUDA {m}, "
                     + (f"the environment has CUDA {', '.join(env)}" if env else "another CUDA than the environment's"),
            "evidence": evidence + ([f"the environment has CUDA {', '.join(env)}"] if env else []),
            "commands": ["pip show torch 2>/dev/null | grep -E '^(Name|Version|Location)'   # the torch release "
                         "installed (its import fails, so ask pip)",
                         f"pip install --force-reinstall --no-cache-dir torch=={tv or '<the release pip show prints>'}"
                         f" --index-url https://download.pytorch.org/whl/{idx}   # that torch release's build for "
                         "this environment's CUDA (or a fresh environment)"],
            "detail": f"{lib} belongs to CUDA {m}."}


def _rebuilt_for_cuda(facts: Mapping[str, Any], ev: Mapping[str, Any], tc: Any) -> list[str]:
    """The build of the failing binary's package made for torch's CUDA: one ``pip install --force-reinstall`` (it
    replaces the package in place), never an uninstall first that leaves nothing where the install fails (blind audit
    36, F3); a PyG operator package from PyG's wheel page for this torch (PyPI has only its source, which needs torch
    to build); a module of a source tree's build/ folder, that tree built again (:mod:`smrnb.doctor.rules._rebuild`,
    the decision the abi rules take too)."""
    from smrnb.doctor.rules._rebuild import built_in_tree, per_torch_wheel, pyg_wheel_command, tree_rebuild

    needed = str(ev.get("needed_by") or "")
    if pyg := per_torch_wheel(needed):
        return [pyg_wheel_command(facts, pyg)]
    if built_in_tree(needed):  # a module of a source tree's build/ folder: that tree built again (no registry's name)
        return [tree_rebuild(facts, path=needed, note=f"{needed} was built in this tree: rebuild it against this "
                                                      "torch's CUDA" + (f" {major(tc)}" if tc else ""))]
    pkg = package_name(needed, "<package>")
    return [f"pip install --no-cache-dir --force-reinstall {pkg}   # the build made for this torch's CUDA"
            + (f" {major(tc)}" if tc else ""),
            f"# or rebuild against this torch: pip install --no-build-isolation --no-cache-dir --force-reinstall {pkg}"]


def _wrong_cuda_of_message(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    """A library's own message that a CUDA call it made failed or that its CUDA part did not load (NCCL's
    ``unhandled cuda error``, onnxruntime's CUDA provider): no file named; the row's library and the text's CUDA."""
    from smrnb.doctor import tables

    have = cuda_majors(facts)
    row = next((r for r in tables.message_rows(str(ev.get("table"))) if r.key == ev.get("key")), None) \
        if ev.get("table") in tables.MESSAGE_TABLES else None
    lib = str(ev.get("library") or (row.fields.get("library") if row is not None else "") or "the library")
    evidence = [f"{lib}: {ev.get('meaning')}"] if ev.get("meaning") else []
    if ev.get("key") == "tensorrt_engine_other_version":
        return {"title": "A TensorRT engine serialized by another TensorRT release than the one loading it",
                "evidence": evidence,
                "commands": ["python -c \"import tensorrt; print(tensorrt.__version__)\"   # the release loading it",
                             "trtexec --onnx=model.onnx --saveEngine=model.engine   # build the engine again with the "
                             "installed TensorRT (or delete the cached .engine so the program rebuilds it)"]}
    if have:
        evidence.append(f"CUDA major(s) named in the text: {', '.join(map(str, sorted(have)))}")
    cmds = ["python -c \"import torch; print(torch.__version__, torch.version.cuda)\"", "nvidia-smi",
            "pip list 2>/dev/null | grep -i -E 'nvidia-|nccl|onnxruntime|cudnn'",
            "# reinstall the package's build made for this CUDA major (its index or wheel tag names the CUDA release)"]
    return {"title": f"{lib}: a build made for another CUDA release than the runtime and driver it runs with",
            "commands": cmds, "evidence": evidence}


#: a library's own message that names no file, with what it looks for (round 21: never a filler word where a name
#: belongs in a command): row key -> (title, commands)
_NO_FILE_NAMED: dict[str, tuple[str, list[str]]] = {
    "torchaudio_no_backend": (
        "torchaudio found no audio I/O backend (soundfile, sox or FFmpeg)",
        ["python -c \"import torchaudio; print(torchaudio.__version__, torchaudio.list_audio_backends())\"",
         "pip install soundfile   # the soundfile backend (its wheel ships libsndfile)",
         "ffmpeg -version   # or FFmpeg's shared libraries, a release torchaudio supports: "
         "conda install -c conda-forge 'ffmpeg<7'"]),
    "torchaudio_ffmpeg_not_found": (
        "torchaudio's FFmpeg extension: FFmpeg's shared libraries (libavutil, libavcodec, libavformat) not found",
        ["ldconfig -p | grep -E 'libavutil|libavcodec|libavformat'",
         "conda install -c conda-forge 'ffmpeg<7'   # FFmpeg's shared libraries of a release torchaudio supports "
         "(4 to 6); or the OS's: sudo apt-get install ffmpeg"]),
}


#: (blind audit 36) the driver's libraries WSL2 maps from Windows (NVIDIA's CUDA on WSL user guide: /usr/lib/wsl/lib)
_WSL_DRIVER_LIB_RE = re.compile(r"lib(?:cuda|nvidia-ml|nvcuvid|nvidia-encode|nvoptix)\.so\b")


@builds("library_not_found")
def _library_not_found(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    lib = str(ev.get("library") or (ev.get("groups") or {}).get("lib") or "the library")
    evidence, cmds = _needed_commands(ev)
    fam = ev.get("family")
    win = on_windows(facts, ev, lib)
    named = bool(ev.get("library") or (ev.get("groups") or {}).get("lib"))
    if not cmds and not named and str(ev.get("key")) in _NO_FILE_NAMED:
        title, cmds = _NO_FILE_NAMED[str(ev.get("key"))]
        return {"title": title, "commands": list(cmds), "evidence": evidence, "detail": search_path_detail(win)}
    if not cmds and win and not named:
        # Windows' ERROR_MOD_NOT_FOUND names no DLL: the module's file exists, one of the DLLs it depends on is
        # missing; for torch's own (c10.dll, torch_cpu.dll, torch_python.dll) the usual ones are the MSVC runtime
        # (vcruntime140.dll, msvcp140.dll of the Visual C++ Redistributable) and CUDA's DLLs of its CUDA release
        m = _WIN_IMPORT_RE.search(str(ev.get("line") or ""))
        mod = m.group(1) if m else ""
        tc = value(facts, "torch", "cuda")
        idx = f"cu{str(tc).replace('.', '')}" if tc else "<cuXYZ or cpu>"
        cmds = ["# install the Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe, "
                "then open a new terminal",
                "where vcruntime140.dll msvcp140.dll cudart64_*.dll   # the MSVC runtime and CUDA DLLs on PATH (a CUDA "
                "build of torch ships its CUDA DLLs in torch\\lib)",
                "# Dependencies (https://github.com/lucasg/Dependencies) opened on the module's .pyd (for torch: "
                "torch\\lib\\torch_python.dll) shows which DLL is missing",
                "pip install --force-reinstall --no-cache-dir torch --index-url "
                f"https://download.pytorch.org/whl/{idx}   # when the module is torch's own"]
        return {"title": (f"A DLL that {mod} depends on is not found" if mod else
                          "A DLL that the module depends on is not found") + " (Windows: DLL load failed)",
                "commands": cmds, "evidence": evidence, "detail": search_path_detail(True)}
    if not cmds and win:
        cmds = ["# install the Microsoft Visual C++ Redistributable (x64), then open a new terminal",
                "pip install --force-reinstall --no-cache-dir torch --index-url https://download.pytorch.org/whl/<cuXYZ>",
                f"where {lib}"]
    elif not cmds and value(facts, "context", "wsl") and _WSL_DRIVER_LIB_RE.match(lib):
        # (blind audit 36, F11) WSL2 maps the Windows driver's libcuda / NVML into /usr/lib/wsl/lib (listed in
        # /etc/ld.so.conf.d/ld.wsl.conf): the loader's cache or LD_LIBRARY_PATH must reach it; no Linux package ships it
        cmds = ["ls -l /usr/lib/wsl/lib/libcuda.so* /usr/lib/wsl/lib/libnvidia-ml.so*   # WSL2: the Windows driver's "
                "libraries, mapped here",
                "cat /etc/ld.so.conf.d/ld.wsl.conf; sudo ldconfig; ldconfig -p | grep libcuda   # the loader's cache "
                "should list /usr/lib/wsl/lib",
                "export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH   # for this shell (a Jupyter kernel: "
                "smr-doctor fix kernelspec)",
                "# never install a Linux NVIDIA driver (or a libcuda from apt) inside WSL: the Windows driver provides "
                "it; /usr/lib/wsl/lib empty -> update the Windows driver, then 'wsl --shutdown'"]
    elif not cmds:
        cmds = [f"ldconfig -p | grep {lib.split('.so')[0]}",
                "sudo apt-get install libegl1 libgl1   # EGL / OpenGL" if fam == "gl" else
                f"apt-file search {lib}   # or: conda search / pip the package that ships it"]
        if not named:  # (round 27e, blind audit 27) no file named: never the words "the library" as grep's pattern
            cmds = ["ldd <the module's .so file> | grep 'not found'   # the message names no library file: ldd names "
                    "the one the loader cannot find (its own line 'cannot open shared object file' does too)"]
    return {"title": f"{_who(ev)}{lib} not found by the loader", "commands": cmds, "evidence": evidence,
            "detail": f"ld.so will fail with '{lib}: cannot open shared object file'." if ev.get("from") == "live" and
            not win else search_path_detail(win)}


@builds("torch_libs_not_loaded")
def _torch_libs(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    lib = str(ev.get("library") or ev.get("symbol") or "libc10.so")
    evidence, _ = _needed_commands(ev)
    cmds = ["python -c \"import torch; import <extension module>\"   # torch's libraries are found only once torch is "
            "imported"]
    if ev.get("from") == "live" and not value(facts, "torch", "installed"):
        cmds.append("pip install torch   # the version the extension was built for")
    return {"title": f"{_who(ev)}{lib} not found: import torch first" if ev.get("kind") == "library_missing" else
            "The extension was loaded before torch", "commands": cmds, "evidence": evidence}


@rule("loader", stand_in=("abi",))
def missing_libraries(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """Libraries the loader cannot find: probed (each extension's NEEDED entries) or read in an error text;
    one decision (:func:`library_missing_codes`, then the facts) for both."""
    lf = facts.get("loader") or {}
    if lf.get("status") != "ok":
        return
    via_new = {(d.get("extension"), d.get("library")) for d in lf.get("only_findable_via_new_dirs") or []}
    for ext in lf.get("extensions") or []:
        if ext.get("status") != "ok":
            continue  # unloadable_extensions below
        for lib in ext.get("missing") or []:
            if (ext.get("path"), lib) in via_new:
                continue  # reported by env_changed below, with the right fix
            ev = {**_live_event(ext, lib), "start_ld_library_path": lf.get("start_ld_library_path")}
            yield from resolve(facts, ev, library_missing_codes(facts, ev))
    for ev in events(facts, "loader", "library_missing"):
        yield from resolve(facts, ev, library_missing_codes(facts, ev))


#: (blind audit 36) what to do about an extension path the loader would refuse, by the kind of refusal
_REFUSAL_FIX = {
    "directory": ("Name the compiled module file itself (its .so), not the folder that holds it.",
                  "find {q} -maxdepth 3 -name '*.so'   # the compiled modules in that folder"),
    "not_regular": ("Name the compiled module file itself: a FIFO, a socket or a device is never opened by the doctor, "
                    "and the loader cannot map it.", "ls -l {q}"),
    "executable": ("This is a program, not a shared library: the loader refuses to load an executable into a process. "
                   "Name the extension module (the .so built with -shared) instead.", "file {q}"),
    "object_file": ("This is an object file, not a shared library: link it into one (gcc/g++ -shared, or let the "
                    "build do it: pip install / python setup.py build_ext), then name the .so.", "file {q}"),
}


@rule("loader", stand_in=("abi",))
def unloadable_extensions(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """An extension path named to the doctor (``--extension``, ``--package``, kaolin's) that the loader would refuse
    (:func:`smrnb.doctor._elf.load_refusal`): another architecture is ``wrong_architecture_binary``; missing,
    unreadable, a directory, a FIFO, an executable, not ELF is ``extension_unreadable``. Shown in the abi layer
    when the loader layer is not checked (blind audit 36), never silently nothing."""
    lf = facts.get("loader") or {}
    if lf.get("status") != "ok":
        return
    for ext in lf.get("extensions") or []:
        if not isinstance(ext, Mapping) or ext.get("status") == "ok":
            continue
        path, kind, reason = str(ext.get("path")), ext.get("refusal"), str(ext.get("reason") or "unreadable")
        q = shlex.quote(path)
        if kind == "wrong_architecture":
            yield Finding("wrong_architecture_binary", "loader", "error",
                          f"{_name(ext)} is built for {ext.get('machine')}, this machine is {ext.get('host_machine')}",
                          (f"{path}: {reason}", "the loader refuses it before mapping it (glibc: 'wrong ELF class' "
                           "for another word size, 'cannot open shared object file' for another CPU)"),
                          Fix(why("wrong_architecture_binary"),
                              (f"file {q}", 'python -c "import platform; print(platform.machine())"')),
                          sources=("machine",))
            continue
        text, cmd = _REFUSAL_FIX.get(str(kind), ("Check the path: the doctor reads the ELF file named, it does not "
                                                  "import it.", "ls -l {q}"))
        cmds = tuple(dict.fromkeys((cmd.format(q=q), f"ls -ld {q}" if kind == "directory" else f"file {q}")))
        yield Finding("extension_unreadable", "loader", CODE_TABLE["extension_unreadable"].severity,
                      f"{_name(ext)}: {reason}", (f"path: {path}",), Fix(text, cmds), sources=("machine",))


@rule("loader")
def libcuda_not_the_drivers(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """(round 33) A ``libcuda.so.1`` first on ``LD_LIBRARY_PATH`` that is not the driver's (probes/_loader.py's
    ``libcuda_on_path``): CUDA's runtime loads it instead of the driver's and reports no driver, or a stub."""
    lf = facts.get("loader") or {}
    lc = lf.get("libcuda_on_path") if lf.get("status") == "ok" else None
    if not isinstance(lc, Mapping) or not lc.get("not_driver"):
        return
    d = os.path.dirname(str(lc.get("path")))
    yield Finding("cuda_stub_driver_loaded", "loader", "error",
                  f"LD_LIBRARY_PATH puts a libcuda.so.1 that is not the driver's first ({lc['not_driver']})",
                  (f"{lc.get('path')}" + (f" -> {lc.get('realpath')}" if lc.get("realpath") != lc.get("path") else "")
                   + f": {lc['not_driver']}",
                   "CUDA's runtime and torch open libcuda.so.1 by name: the loader takes LD_LIBRARY_PATH's before the "
                   "driver's in its cache; CUDA then says no driver (cudaErrorInsufficientDriver, 'Found no NVIDIA "
                   "driver') or 'CUDA driver is a stub library'"),
                  Fix(why("cuda_stub_driver_loaded"),
                      (_off_llp(d),
                       "ldconfig -p | grep 'libcuda.so.1 '   # the driver's, which the loader then finds")),
                  sources=("machine",))


def _off_llp(d: str) -> str:
    """The command that takes directory ``d`` off LD_LIBRARY_PATH in this shell."""
    return (f"export LD_LIBRARY_PATH=$(echo \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -vxF {shlex.quote(d)} | paste -sd:)"
            "   # that directory off the path; for Jupyter: in the kernelspec's env, then restart the kernel")


@rule("loader")
def torch_libs_shadowed(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """(blind audit 36, C-M11) A directory of LD_LIBRARY_PATH holds a file named as one of the libraries ``import
    torch`` maps (probes/_loader.py's ``torch_libs_shadowed``): ld.so takes it before torch's own (ld.so(8):
    LD_LIBRARY_PATH before DT_RUNPATH). A damaged one fails ``import torch`` ('file too short'), another build's breaks
    it: the fix is that directory off LD_LIBRARY_PATH, not a reinstall (torch's own file is untouched)."""
    lf = facts.get("loader") or {}
    for s in (lf.get("torch_libs_shadowed") or []) if lf.get("status") == "ok" else []:
        d, name = str(s.get("dir")), str(s.get("name"))
        damaged = bool(s.get("damaged"))
        yield Finding("torch_library_shadowed", "loader", "error",
                      f"LD_LIBRARY_PATH's {d} holds {'a damaged' if damaged else 'another build of'} {name}, which "
                      "the loader takes before torch's own",
                      (f"{s.get('path')}: " + ("not a loadable ELF library (empty, truncated, a Git LFS pointer or "
                                               "another file): `import torch` fails with 'file too short' or 'invalid "
                                               "ELF header' naming it" if damaged else
                                               "an ELF library that is not torch's file: torch's other libraries were "
                                               "built against their own copy (undefined symbols, crashes)"),
                       f"torch's own: {s.get('torch_own')}",
                       "torch's libraries find each other through their DT_RUNPATH ($ORIGIN), which ld.so(8) searches "
                       "after LD_LIBRARY_PATH: a file of the same name on LD_LIBRARY_PATH wins"),
                      Fix(why("torch_library_shadowed", f"Here: {d} (or {name} in it)."),
                          (_off_llp(d), f"ls -l {shlex.quote(str(s.get('path')))}   # the file that shadows torch's")),
                      sources=("machine",))


@rule("loader")
def ld_library_path_relative(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """(blind audit 36, C-L7) LD_LIBRARY_PATH at process start with empty or relative entries (probes/_loader.py's
    ``ld_library_path_relative``): ld.so reads them against the current directory."""
    lf = facts.get("loader") or {}
    rel = lf.get("ld_library_path_relative") if lf.get("status") == "ok" else None
    if not isinstance(rel, Mapping) or not (rel.get("empty") or rel.get("relative")):
        return
    what = ([f"{rel['empty']} empty entr{'y' if rel['empty'] == 1 else 'ies'} (a ':' at either end or '::')"]
            if rel.get("empty") else []) + ([f"relative: {', '.join(repr(e) for e in rel['relative'][:5])}"]
                                            if rel.get("relative") else [])
    yield Finding("ld_library_path_relative", "loader", CODE_TABLE["ld_library_path_relative"].severity,
                  f"LD_LIBRARY_PATH has {' and '.join(what)}: the loader searches them in the current directory",
                  (f"LD_LIBRARY_PATH at process start: {rel.get('value')!r}",
                   f"this process's current directory: {rel.get('cwd')} (another start directory loads other files)",
                   "ld.so(8): an empty entry of LD_LIBRARY_PATH is the current directory, as is a relative path's base"),
                  Fix(why("ld_library_path_relative"),
                      ("export LD_LIBRARY_PATH=$(echo \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep '^/' | paste -sd:)"
                       "   # absolute entries only; where it is set (~/.bashrc, a module file, the kernelspec's env)",)),
                  sources=("machine",))


#: a mangled name in the namespace torch's source build gives its bundled ONNX (pytorch/pytorch CMakeLists.txt:
#: set(ONNX_NAMESPACE "onnx_torch" CACHE STRING "A namespace for ONNX; needed to build with other frameworks that share
#: ONNX.") unless USE_SYSTEM_ONNX): only torch's own libraries define it
_TORCH_ONNX_SYM_RE = re.compile(r"_ZN[KVRO]*10onnx_torch")


def _torch_own_lib_symbol(ev: Mapping[str, Any]) -> bool:
    """Whether an undefined symbol is one of torch's own build (its TH/THC/THNN libraries', its bundled ONNX's
    onnx_torch::) that one of torch's own libraries (torch/lib/lib*.so, torch/_C...so) lacks."""
    sym, nb = str(ev.get("symbol") or ""), str(ev.get("needed_by") or "")
    return bool((re.match(r"TH[A-Z]", sym) or _TORCH_ONNX_SYM_RE.match(sym))
                and re.search(r"[/\\]torch[/\\](?:lib[/\\]lib[^/\\]{1,60}\.so|_C\.)", nb))


#: (round 32i) the old C++ ABI's std::string (the standard substitution Ss for std::basic_string<char>) as a function's
#: parameter: by const reference, by pointer, by value after the name's end
_OLD_ABI_STRING_PARAM_RE = re.compile(r"(?:RKSs|PKSs|ESs|PSs)")
#: (round 32i) functions that return a std::string, in their untagged (old ABI) mangled form: the new ABI's carries
#: B5cxx11 ("_ZN10tensorflow8internal21CheckOpMessageBuilder9NewStringB5cxx11Ev")
_UNTAGGED_STRING_RETURNERS = frozenset({"_ZN10tensorflow8internal21CheckOpMessageBuilder9NewStringEv"})


def symbol_codes(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> list[str]:
    """The codes an undefined symbol may mean, by who defines it (torch's own symbols are the abi layer's)."""
    owner, sym, nb = ev.get("owner"), str(ev.get("symbol") or ""), str(ev.get("needed_by") or "")
    if owner in ("torch", "c10"):
        if "torchvision" in nb or "torchaudio" in nb:
            return ["companion_built_for_other_torch"]
        return []  # rules.abi: C++ ABI flag or torch version
    if owner in _CUDA_FAMILIES - {"cudart"} and ev.get("at") == "link":
        # the linker found the library but not the function: it linked another (older) toolkit's copy
        return ["multiple_cuda_toolkits", "library_shadowed_older_copy"]
    if owner in _CUDA_FAMILIES - {"cudart"} or ev.get("version_lib"):
        return ["library_shadowed_older_copy"]
    if owner == "torch_python":
        return ["torch_libs_not_loaded"]
    if owner == "openmp":
        # an OpenMP runtime function undefined: the module was built with OpenMP and the runtime (libgomp, libomp)
        # is not linked in or not found where the loader looks (macOS' @rpath to a compiler's lib directory)
        return ["library_not_found", "extension_undefined_symbol"]
    if sym.startswith("__cudaRegisterLinkedBinary"):
        # (blind audit 36, F14) defined by nvcc's device-link step: relocatable device code (-rdc=true / -dc) that was
        # never device-linked (torch/utils/cpp_extension.py, CUDAExtension's "Relocatable device code linking": rdc
        # objects need an extra -dlink step, dlink=True), not another CUDA release
        return ["extension_undefined_symbol"]
    if owner == "cuda_runtime" and sym.startswith("__cudaRegister"):
        return ["nvcc_torch_cuda_mismatch", "extension_undefined_symbol"]
    if "torchvision" in nb or "torchaudio" in nb:
        return ["companion_built_for_other_torch", "extension_undefined_symbol"]
    if _torch_own_lib_symbol(ev):
        # one of torch's own libraries (torch/lib/libATen.so, torch/_C...so) lacks a symbol of torch's own TH/THC/THNN
        # libraries: its files come from two builds (a stale library left by an earlier source build or install, a
        # libtorch that LD_LIBRARY_PATH puts first); else the extension layer's reading of a torch of another release.
        # A symbol of another library (MKL's iJIT_NotifyEvent) is that library's release, read below.
        # (round 30c) Likewise a function of the ONNX copy torch builds into its own libraries under its own namespace
        # onnx_torch:: (_TORCH_ONNX_SYM_RE): no other package defines it
        return ["library_shadowed_older_copy", "abi_torch_version_mismatch"]
    if sym.startswith("_Z") and not sym.startswith(("_ZNSt", "_ZNKSt", "_ZSt", "_ZNSs", "_ZNKSs")) and (
            "B5cxx11" in sym or _OLD_ABI_STRING_PARAM_RE.search(sym) or sym in _UNTAGGED_STRING_RETURNERS):
        # (round 32i) the other two forms of one ABI choice: GCC's [abi:cxx11] tag (B5cxx11) that the new ABI adds to
        # a function returning a std::string ("NewStringB5cxx11Ev"), and the old ABI's std::string as a parameter
        # (Ss: "ERKSs", const std::string&); a function that returns a std::string and carries no tag is the old
        # ABI's form of it, known by name: TensorFlow's CheckOpMessageBuilder::NewString(), which every op's CHECK /
        # OP_REQUIRES macros reference (tensorflow/tensorflow#9137: NewStringEv missing where TF defines
        # NewStringB5cxx11Ev; TensorFlow's 'Create an op' guide: build with TF's own -D_GLIBCXX_USE_CXX11_ABI from
        # tf.sysconfig.get_compile_flags())
        return ["cxx11_abi_mismatch", "extension_undefined_symbol"]
    if "__cxx11" in sym and sym.startswith("_Z") and not sym.startswith(("_ZNSt", "_ZNKSt", "_ZSt", "_ZNSs", "_ZNKSs")):
        # a library's own function taking a std::__cxx11 string or list (GCC's new C++ ABI) that the library does not
        # define: it was built with the old ABI (_GLIBCXX_USE_CXX11_ABI=0, as TensorFlow's pip wheels before 2.9 and
        # torch's before 2.7), the extension with the new one; a release without the function reads the same
        return ["cxx11_abi_mismatch", "extension_undefined_symbol"]
    return ["extension_undefined_symbol"]


@builds("library_shadowed_older_copy")
def _shadowed(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    fam = ev.get("owner") or ev.get("family") or ""
    what = f"{ev.get('version_lib') or fam} " if (ev.get("version_lib") or fam) not in ("", "other") else ""
    line = str(ev.get("line") or "")
    owner = next((name for rx, name in ((r"\bjax(?:lib)?\b", "JAX"), (r"\btensorflow\b|\bTF_", "TensorFlow"),
                                        (r"\bcupy\b", "CuPy")) if re.search(rx, line, re.IGNORECASE)), "")
    if ev.get("sign") == "old_release_still_seen":  # (round 24) rules._torch.old_release_still_seen
        return {"title": "Another, older copy of the package is imported before the one just installed",
                "fix": "Python imports the first copy of a package on its path: an older copy (a user site-packages "
                       "one in ~/.local, one installed by apt or into another environment on PYTHONPATH) hides the "
                       "release just installed; uninstall the older copy (with the installer that put it there) so "
                       "one copy is left.",
                "commands": ["python -c \"import <package>; print(<package>.__version__, <package>.__file__)\"   # "
                             "which copy is imported", "python -m pip list -v   # each package's location",
                             "python -m pip uninstall <package>   # repeat until no copy is left, then install once"]}
    if ev.get("kind") == "module_missing" and str(ev.get("module") or "").startswith("torch._C.") and \
            value(facts, "torch", "init_c_attr"):  # (round 32i) rules._abi._module_codes: torch's __init__ vs its _C
        return {"title": "torch's own Python files and its compiled torch._C come from different builds (two torch "
                         "installs mixed, or a stale _C)",
                "fix": "torch/__init__.py calls a function its compiled _C does not have: the two are from different "
                       "releases or builds (pip over conda, a source build over a wheel, a torch folder of another "
                       "release earlier on sys.path). Uninstall torch until no copy is left, then install one.",
                "commands": ["python -c \"import sys; print(sys.path)\"; pip list -v 2>/dev/null | grep -i torch; "
                             "conda list torch",
                             "pip uninstall -y torch; pip uninstall -y torch   # until pip finds none; conda remove "
                             "pytorch where conda installed it; then install torch once"]}
    if ev.get("key") == "dyld_incompatible_library_version":  # (round 24) macOS's loader, any library
        return {"title": "An older copy of a library (a stale build or install) is found before the one the binary "
                         "was linked against",
                "commands": ["otool -L <the binary the message names>   # the libraries and compatibility versions it "
                             "needs", "echo $DYLD_LIBRARY_PATH",
                             "python setup.py clean   # for a source build: then build again, no stale copy left"]}
    if ev.get("kind") == "undefined_symbol" and _torch_own_lib_symbol(ev):
        # (round 30c) symbol_codes: torch's own library lacks a symbol of torch's own build (TH*, onnx_torch::)
        lib = os.path.basename(str(ev.get("needed_by") or "")) or "torch's library"
        return {"title": f"torch's own {lib} lacks a function of torch's own build: torch's files come from two "
                         "builds (an older copy loaded first)",
                "fix": "torch's own libraries must come from one build: a stale library left by an earlier source "
                       "build or install in torch/lib, or a libtorch (LibTorch for C++, another torch) that "
                       "LD_LIBRARY_PATH puts first, is loaded instead of the one this torch ships. Remove that "
                       "directory from LD_LIBRARY_PATH, or uninstall torch until no copy is left and install it once "
                       "(python setup.py clean before a source build).",
                "commands": ["echo $LD_LIBRARY_PATH   # a libtorch or another torch's lib directory here is loaded first",
                             "pip uninstall -y torch   # repeat until pip finds none, then install torch once",
                             "python setup.py clean   # in a torch source tree, before building again"]}
    if owner:  # another framework's own check: its build, not torch's, names the version it needs
        return {"title": f"An older {what}library is loaded than the one {owner} was built against",
                "commands": ["echo $LD_LIBRARY_PATH",
                             "pip list 2>/dev/null | grep -iE 'nvidia-(cublas|cudnn|cusparse|nccl|nvjitlink)'   # the "
                             "CUDA wheels installed into this environment",
                             "unset LD_LIBRARY_PATH   # or drop the toolkit's lib64 (or the conda env's lib) from it, so "
                             "the newer copy of the pip wheels is loaded"]}
    return {"title": f"An older {what}library is loaded before the one torch ships",
            "commands": ["echo $LD_LIBRARY_PATH",
                         "python -c \"import torch\" ; ldd $(python -c 'import torch,os;print(os.path.dirname(torch.__file__))')"
                         "/lib/libtorch_cuda.so | grep -iE 'cublas|cudnn|nccl|nvjitlink|cusparse'",
                         "unset LD_LIBRARY_PATH   # or drop the toolkit's lib64 (or the conda env's lib) from it"]}


@builds("extension_undefined_symbol")
def _undef(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    from smrnb.doctor._symbols import demangle

    sym = str(ev.get("symbol") or (ev.get("groups") or {}).get("sym") or "")
    dem = demangle(sym) if sym.startswith("_Z") else None
    lib = ev.get("needed_by")
    if sym.startswith("__cudaRegisterLinkedBinary"):  # (blind audit 36, F14) symbol_codes
        return {"title": "Relocatable device code never device-linked: __cudaRegisterLinkedBinary_* is defined by "
                         "nvcc's device-link step, which the build did not run",
                "detail": "Code compiled with -rdc=true (or -dc) references device symbols across files; such "
                          "objects need a device link (nvcc -dlink) before the host link "
                          "(torch.utils.cpp_extension, CUDAExtension: 'Relocatable device code linking').",
                "commands": ["# setup.py: CUDAExtension(..., dlink=True, extra_compile_args={'nvcc': ['-rdc=true', "
                             "...]})   # BuildExtension then runs the device link (needs ninja)",
                             "# or without relocatable device code: drop -rdc=true / -dc from the nvcc flags "
                             "(extra_compile_args['nvcc'], or load()'s extra_cuda_cflags), where no kernel calls a "
                             "__device__ function of another file",
                             "grep -rn -e '-rdc' -e \"'-dc'\" setup.py *.py   # where the flag comes from"]}
    return {"title": f"Undefined symbol {(dem or sym)[:120]}: built against another library version" if sym else
            "An undefined symbol: built against another library version",
            "commands": [f"nm -D --defined-only <the library that should define it> | grep '{sym[:60]}'",
                         "pip install --force-reinstall --no-cache-dir <the package that owns "
                         + (re.sub(r"[`*<>]", "", os.path.basename(str(lib))) if lib else "the extension") + ">"],
            "evidence": [f"demangled: {dem}"] if dem else []}


@rule("loader", stand_in=("abi",))
def extension_plain_symbols_undefined(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """(blind audit 30) A checked extension (``--extension``, ``--package``, kaolin's) needs plain C symbols that
    nothing it can be bound to defines (the abi probe's ``unresolved_other``): Python imports it with RTLD_NOW, so the
    import fails with ``undefined symbol: NAME``, whatever its torch symbols."""
    missing = {e.get("path") for e in value(facts, "loader", "extensions") or []
               if isinstance(e, Mapping) and (e.get("missing") or e.get("status") != "ok")}
    for ext in value(facts, "abi", "extensions") or []:
        if not isinstance(ext, Mapping) or ext.get("status") != "ok" or not ext.get("unresolved_other"):
            continue
        if ext.get("path") in missing:
            continue  # a NEEDED library is missing (its own finding): the symbols may well be that library's
        path, names = str(ext.get("path")), [str(n) for n in ext["unresolved_other"]]
        checked = ", ".join(os.path.basename(str(p)) for p in ext.get("checked_in") or []) or "no torch library"
        base = re.sub(r"[`*<>]", "", os.path.basename(path))
        yield Finding(
            "extension_undefined_symbol", "loader", "error",
            f"{base} will fail to import: undefined symbol {names[0][:80]}"
            + (f" and {len(names) - 1} more" if len(names) > 1 else ""),
            (f"{path} needs {', '.join(names[:5])}{' ...' if len(names) > 5 else ''}: defined by none of its "
             f"resolved libraries (and theirs), torch's ({checked}), the C library (libc, libm, libpthread, libdl), "
             "the Python executable or the libraries this process has loaded",
             f"python -c \"import {base.split('.')[0]}\" fails with ImportError: {path}: undefined symbol: {names[0]}"),
            Fix(why("extension_undefined_symbol", "Or its build left out the object file that defines the symbol."),
                (f"nm -D --defined-only <the library that should define it> | grep '{names[0][:60]}'",
                 f"pip install --force-reinstall --no-cache-dir {package_name(path, f'<the package that owns {base}>')}")))


@rule("loader")
def undefined_symbols(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """Undefined symbols that are not torch's, and symbol versions a library lacks, read in an error text."""
    for ev in events(facts, "loader", "undefined_symbol"):
        yield from resolve(facts, ev, symbol_codes(facts, ev))
    for ev in events(facts, "loader", "symbol_version_not_found"):
        ver = str(ev.get("version") or "")
        code = ("symbol_version_missing" if ver.startswith("GLIBC_") else "libstdcxx_too_old"
                if ver.startswith(("GLIBCXX_", "CXXABI_")) else "library_shadowed_older_copy")
        yield from resolve(facts, ev, [code])


#: rows of the loader table that the structured events above already read (library, symbol, version)
_STRUCTURED_ROWS = {"cannot_open_cudart", "cannot_open_libcuda", "cannot_open_torch_lib", "cannot_open_other",
                    "undefined_symbol_torch", "undefined_symbol_versioned", "undefined_symbol_cuda_runtime",
                    "undefined_symbol", "symbol_lookup_error", "version_glibcxx", "version_glibc", "version_other",
                    "error_while_loading", "dlopen_not_found_python"}


#: rows of the loader's "<file>: cannot open shared object file" whose file the library reading did not take (a name
#: without the "lib" prefix: a Mesa driver swrast_dri.so, a module cpu_adam.so; a name typed with a comma)
_UNNAMED_FILE_ROWS = ("cannot_open_other", "error_while_loading")


def _unnamed_file(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> Iterator[Finding]:
    """The loader's message for a file the library reading did not name, read by the file's name like any library
    (its family, the CUDA major it carries); a module of torch's just-in-time builds (torch_extensions/) that is not
    there is a build that never produced it."""
    from smrnb.doctor._evidence import lib_family

    name = str((ev.get("groups") or {}).get("lib") or "")
    if not name:
        return
    if "torch_extensions" in str(ev.get("line") or ""):
        yield from resolve(facts, {**ev, "module": name.split(".")[0]}, ["extension_not_compiled"])
        return
    fam, ver = lib_family(name)
    lev = {**ev, "kind": "library_missing", "library": name, "family": fam, "version": ver}
    yield from resolve(facts, lev, library_missing_codes(facts, lev))


@rule("loader")
def loader_messages(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """The loader table's other messages (wrong ELF class, damaged files, static TLS, security policy...),
    a variable set inside a running process, and a crash that depends on the import order."""
    for ev in events(facts, "loader", "message", table="loader_errors"):
        if ev.get("key") == "pip_unsupported_wheel":
            codes, extra = wheel_codes(facts, ev)
            yield from resolve(facts, {**ev, **extra}, codes)
            continue
        if ev.get("key") == "file_too_short" and "libcuda.so" in str(ev.get("line") or ""):
            continue  # (round 25b) an empty libcuda.so.1: a container's placeholder, read by library_messages' row
        if ev.get("key") in ("win_mod_not_found", "win_proc_not_found") and (who := _companion_module_failed(facts, ev)):
            # (round 30c) torchvision's/torchaudio's own compiled module (_C.pyd, torchvision.dll): it imports torch
            # first, so torch's DLLs are loaded; what it then misses (a DLL of the CUDA variant it was built for:
            # torch_cuda.dll beside a CPU torch) or a torch function it does not find is a companion built for another
            # torch (release or CUDA variant); else a DLL of its own not on the search path, or an older copy first
            yield from resolve(facts, {**ev, "module": who}, ["companion_built_for_other_torch",
                                           "library_not_found" if ev.get("key") == "win_mod_not_found" else
                                           "library_shadowed_older_copy"])
            continue
        if ev.get("key") == "win_mod_not_found":
            # a DLL the module needs is missing; for a compiled module other than torch's own, torch's DLLs are
            # among them (an extension imported before torch), so that reading comes second
            m = _WIN_IMPORT_RE.search(str(ev.get("line") or ""))
            if m and _extension_after_torch(facts):
                yield from resolve(facts, ev, ["prebuilt_binary_wrong_cuda", "library_not_found"])
                continue
            theirs = bool(m) and m.group(1) not in ("_C", "torch", "_C_flatbuffer")
            if not theirs and has_sign(facts, "conda_env_windows") and (
                    has_sign(facts, "in_notebook") or value(facts, "jupyter", "in_kernel")):
                # a conda environment's Python in a kernel: its DLLs (Library\\bin) are on PATH only where the
                # environment was activated, which a kernel started from its python.exe (a kernelspec, an editor's
                # raw kernel) skips (conda docs, 'Managing environments': activation sets PATH for the DLLs)
                yield from resolve(facts, ev, ["library_not_found", "env_not_propagated_to_kernel"])
                continue
            yield from resolve(facts, {**ev, "bug": "wheel_lacks_dll", "module": m.group(1)} if theirs else ev,
                               ["library_not_found"] + (_module_dll_reading(facts, m.group(1)) if theirs else []))
            continue
        if ev.get("key") == "exec_required_file_not_found" and _SCRIPT_NOT_STARTED_RE.search(str(ev.get("line") or "")):
            continue  # a script whose #! interpreter is missing ('/bin/bash\r' of CRLF line ends): no binary's kind
        if ev.get("key") == "win_proc_not_found" and "LibTorchSharp" in str(ev.get("line") or ""):
            continue  # TorchSharp's native library and its libtorch: library_messages' torchsharp rows read it
        if ev.get("key") == "musl_loader_glibc_binary" and str(ev.get("line") or "").lstrip().startswith(
                "Error relocating") and any(e.get("key") == "musl_library_not_found"
                                            for e in events(facts, "loader", "message", table="loader_errors")):
            continue  # the symbols of a library musl could not find (its own row reads that), not a glibc binary
        if ev.get("key") == "win_proc_not_found" and _torch_own_dll_failed(facts):
            # (round 25b) torch's own __init__ loading a DLL of its torch\lib folder ('Error loading "...\torch\lib\
            # caffe2_detectron_ops.dll" or one of its dependencies'): no extension is involved; an older copy of a
            # library it imports from found first (another package's OpenMP/MKL, System32), and torch's import failing
            # whatever the package being installed
            yield from resolve(facts, ev, ["library_shadowed_older_copy", "torch_import_failed"])
            continue
        if ev.get("key") == "win_proc_not_found" and _torch_extension_import(facts, ev):
            yield from resolve(facts, ev, ["abi_torch_version_mismatch", *ev.get("codes", ())])
            continue
        if ev.get("key") == "cannot_open_torch_cuda_lib" and has_sign(facts, "torch_own_import"):
            continue  # torch's own import: the structured event above reads it (library_missing_codes)
        if ev.get("key") in _STRUCTURED_ROWS:
            if ev.get("key") == "dlopen_not_found_python" and not events(facts, "loader", "library_missing"):
                yield from resolve(facts, ev)
            elif ev.get("key") in _UNNAMED_FILE_ROWS and not events(facts, "loader", "library_missing"):
                yield from _unnamed_file(facts, ev)
            continue
        yield from resolve(facts, ev)
    for ev in events(facts, "loader", "env_set_in_process"):
        yield from resolve(facts, ev, ["env_not_propagated_to_kernel"])
    for ev in events(facts, "loader", "sign"):
        if ev.get("sign") == "cudnn_mismatch":
            said = ev.get("groups") or {}  # the releases the text reader read on the line (none where it did not say)
            lib, loaded, built = str(said.get("library") or "cuDNN"), said.get("loaded"), said.get("built")
            yield from resolve(facts, {**ev, "kind": "message", "library": lib, "meaning": (
                f"the binary was built with {lib} {built} and {lib} {loaded} was loaded: install the {lib} "
                f"release the binary was built with (same major, at least its minor), or the build made for this {lib}"
            ) if loaded and built else None}, _cudnn_mismatch_codes(loaded, built))
    yield from _crash_readings(facts)


def _extension_after_torch(facts: Mapping[str, Any]) -> bool:
    """Whether the text imports a torch CUDA extension the doctor's tables know (detectron2, pytorch3d, mmcv, ...: each
    imports torch before its compiled module) and not torch itself: Windows resolves a DLL already loaded by its name,
    so with torch's DLLs loaded, what its compiled module misses is most often a DLL of the CUDA release it was built
    with (cudart64_110.dll beside a torch of CUDA 12), else another library it links."""
    from smrnb.doctor import tables

    imported = {str(x).lower() for x in value(facts, "loader", "modules_imported") or []}
    if not imported or "torch" in imported:
        return False
    known = {str(r.fields.get("project") or "").replace("-", "_").lower() for r in tables.message_rows("extension_checks")}
    return bool(imported & (known - {"kaolin", "deepspeed"}))


def _cudnn_release(v: str) -> tuple[int, int]:
    """(major, minor) of a cuDNN release as TensorFlow prints it: ``7.3.1`` or ``7301`` (CUDNN_VERSION = major * 1000
    + minor * 100 + patch before cuDNN 9)."""
    if "." in v:
        p = [int(x) for x in v.split(".")[:2]]
        return (p[0], p[1] if len(p) > 1 else 0)
    n = int(v)
    return (n // 1000, n % 1000 // 100) if n >= 1000 else (n, 0)


def _cudnn_mismatch_codes(loaded: str | None, built: str | None) -> list[str]:
    """A cuDNN (or CUDA) release ``loaded`` other than the one a binary was ``built`` with (as the text reader read
    them: sign ``cudnn_mismatch``'s groups): an older one loaded is another copy found first (or an old install); a
    newer one the binary does not accept is a binary built for another cuDNN (install the cuDNN it was built with, or
    the build made for this one)."""
    if loaded and built and _cudnn_release(loaded) > _cudnn_release(built):
        return ["prebuilt_binary_wrong_cuda", "library_shadowed_older_copy"]
    return ["library_shadowed_older_copy", "prebuilt_binary_wrong_cuda"]


#: bash's ENOENT for a script (by its name): its #! interpreter missing, not a program of another libc or architecture
_SCRIPT_NOT_STARTED_RE = re.compile(r"\.(?:sh|bash|py|pl|rb)'?: cannot execute: required file not found")


#: Python's importdl.c on Windows: "DLL load failed while importing <module>: <FormatMessage of the error>"
_WIN_IMPORT_RE = re.compile(r"DLL load failed while importing ([A-Za-z_][A-Za-z0-9_]{0,80})")


#: the names torch extensions' compiled modules take by convention (torch.utils.cpp_extension's CUDAExtension names
#: in setup.py: "_ext" of mmcv, "exllamav2_ext", "<op>_cuda"); "_C" (pytorch3d, detectron2, the Gaussian rasterisers)
#: is torch's own core's name too, read apart in _torch_extension_import
_TORCH_EXT_MODULE_RE = re.compile(r"_ext|[a-z][a-z0-9_]{1,40}_(?:ext|cuda|C)")


def _module_dll_reading(facts: Mapping[str, Any], module: str) -> list[str]:
    """The second reading of a DLL missing for a compiled module other than torch's: torch's own DLLs when the text is
    about torch (an extension imported before torch); else, where the text names a CUDA release, the CUDA runtime DLL
    of the release the package's binary was built for (cudart64_12.dll beside a CUDA 11 install); else the package's
    own wheel, which lacks a DLL it needs (a Visual C++ runtime it neither bundles nor links statically, a library its
    packaging left out: a release that ships it is the fix)."""
    imported = {str(x).split(".")[0].lower() for x in (value(facts, "loader", "modules_imported") or [])}
    installed = {str(x).lower() for x in (value(facts, "torch", "packages_installed") or [])}
    if value(facts, "torch", "version") or "torch" in imported | installed or _TORCH_EXT_MODULE_RE.fullmatch(module):
        if _TORCH_EXT_MODULE_RE.fullmatch(module) and value(facts, "toolkit", "cuda_named") and module.lower() not in {
                str(x).lower() for x in (value(facts, "loader", "typed_imports") or [])}:
            # (round 32b) a compiled module named as torch's CUDA extensions are (mmcv's _ext, <op>_cuda), imported by
            # its package's own Python (which imports torch first), in a text that names a CUDA release: Windows
            # resolves torch's DLLs by name once loaded, so what it misses is most often a DLL of the CUDA release
            # the prebuilt binary was built with (cudart64_110.dll beside a torch of CUDA 10.2): _extension_after_torch's
            # reading where the package's import is not shown; torch not yet imported second
            return ["prebuilt_binary_wrong_cuda", "torch_libs_not_loaded"]
        return ["torch_libs_not_loaded"]
    return ["prebuilt_binary_wrong_cuda"] if value(facts, "toolkit", "cuda_named") else ["library_bug"]


#: a companion's own compiled module or native library named on Windows: torchvision\_C.pyd, torchvision.dll (the R
#: torch package's), torchaudio\lib\libtorchaudio.pyd
_COMPANION_DLL_RE = re.compile(r"(?<![\w-])(torchvision|torchaudio)(?:[\\/](?:lib[\\/])?(?:lib)?\w{0,40}\.(?:pyd|dll)|\.dll)\b",
                               re.IGNORECASE)


def _companion_module_failed(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> str:
    """Whether Windows' loader error came for torchvision's or torchaudio's own compiled module: CPython's "DLL load
    failed while importing _C" (or an older Python's bare "DLL load failed") where the text's import of that _C is the
    companion's ("from torchvision import _C": ``torch.called_names``), or the message (or a library the text says
    failed to load) names the companion's .pyd/.dll: its name, else "". Not torch's own _C (its import reads apart)."""
    if has_sign(facts, "torch_own_import") or _torch_own_dll_failed(facts):
        return ""
    line = str(ev.get("line") or "")
    m = _WIN_IMPORT_RE.search(line)
    called = str((value(facts, "torch", "called_names") or {}).get("_C") or "").split(".")[0].lower()
    if (not m or m.group(1) == "_C") and called in _COMPANIONS and "dll load failed" in line.lower():
        return called
    # the file a loader could not load, as the text names it: a library event's, or the "Error loading "<file>" or one
    # of its dependencies" line of a framework's own loader (the message event holds its first part only)
    named = [line] + [str(e.get("library") or "") for e in events(facts, "loader", "library_missing")] + [
        str(e.get("line") or "") for e in events(facts, "torch", "sign") if e.get("sign") == "torch_own_dll_error"]
    return next((h.group(1).lower() for n in named if (h := _COMPANION_DLL_RE.search(n))), "")


def _torch_own_dll_failed(facts: Mapping[str, Any]) -> bool:
    """Whether torch's __init__ (Windows) says a DLL of its own lib folder failed to load ('Error loading
    "...\\torch\\lib\\x.dll" or one of its dependencies.'); another package's same words (Paddle loading cuDNN's DLLs)
    are not torch's."""
    return any(e.get("sign") == "torch_own_dll_error" and re.search(r"[\\/]torch[\\/]lib[\\/]", str(e.get("line") or ""),
                                                                     re.IGNORECASE)
               for e in events(facts, "torch", "sign"))


def _torch_extension_import(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> bool:
    """Whether ERROR_PROC_NOT_FOUND (127) came while importing a compiled module other than torch's own, in a text
    that shows a torch release: an extension built against torch imports torch's C++ functions from c10.dll and
    torch_cpu.dll by name, and another torch release lacks some of them (Windows' form of Linux's undefined
    ``at::``/``c10::`` symbol, whose name Windows does not print)."""
    m = _WIN_IMPORT_RE.search(str(ev.get("line") or ""))
    if not m or m.group(1) in ("torch", "_C_flatbuffer"):
        return False
    if m.group(1) == "_C":
        # torch's own compiled core has that name too: an extension's only where the text imports another package
        # (its traceback: "from diff_gaussian_rasterization import ..." then "from . import _C") and not torch's _C
        imported = {str(x).split(".")[0] for x in value(facts, "loader", "modules_imported") or []}
        # (round 18: or where the text names a torch CUDA extension that builds a _C of its own, pytorch3d's, in prose)
        return bool(imported - {"torch"} or value(facts, "loader", "extensions_named")) and \
            not has_sign(facts, "torch_own_import")
    # the compiled module torch's extension builder names by convention (_ext, <project>_ext) is a torch extension
    # even where the text shows no torch release (a title of one line)
    # (round 24a) or a torch CUDA extension's own compiled module that only its project's source tree builds
    # (tables/source_built_modules.csv: custom_rasterizer_kernel)
    from smrnb.doctor.rules._abi import source_built_module

    return bool(value(facts, "torch", "version")) or _TORCH_EXT_MODULE_RE.fullmatch(m.group(1)) is not None or \
        bool(source_built_module(m.group(1)))


#: the oldest glibc of the legacy manylinux tags (PEP 513, 571, 599)
_LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
_PLATFORM_OS = (("win", "windows"), ("macosx", "macos"), ("manylinux", "linux"), ("musllinux", "linux"),
                ("linux", "linux"))


def wheel_codes(facts: Mapping[str, Any], ev: Mapping[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """What pip's 'X.whl is not a supported wheel on this platform' means from the wheel's tags (PEP 425) against
    the machine the text describes: another OS or CPU architecture (wrong_architecture_binary), a manylinux_2_N tag
    needing a newer glibc than this system's (symbol_version_missing: PEP 600's manylinux_x_y is glibc x.y). Both
    readings when the text names neither. Where only the Python tags can differ (the platform fits, or is one every
    Linux of the last years runs: manylinux1/2010/2014), the wheel is for another interpreter (another Python version,
    or ABI: cp27m against a cp27mu build): no file of that release fits this Python (package_no_build_for_platform,
    kaolin_no_wheel_for_combo for a kaolin wheel), another platform second where the text does not show the machine."""
    wheel = str((ev.get("groups") or {}).get("wheel") or "")
    parts = wheel[:-4].split("-") if wheel.endswith(".whl") else []
    if len(parts) < 5:
        return list(ev.get("codes") or ()), {}
    plats = parts[-1].split(".")
    machine, glibc, os_ = (value(facts, "context", k) for k in ("machine", "glibc", "os"))
    oses = {next((o for p, o in _PLATFORM_OS if pl.startswith(p)), None) for pl in plats} - {None}
    extra: dict[str, Any] = {"wheel": wheel, "platforms": plats}
    if (os_ and oses and os_ not in oses) or (machine and not any(pl.endswith((machine, "any", "universal2"))
                                                                  for pl in plats)):
        return ["wrong_architecture_binary"], {**extra, "machine": machine or os_}
    needs = [n for n in (_manylinux_glibc(pl) for pl in plats) if n]
    need = min(needs) if needs else None
    if need and glibc:
        have = tuple(int(x) for x in re.findall(r"\d+", str(glibc))[:2])
        if have < need:
            return ["symbol_version_missing"], {**extra, "needs_glibc": ".".join(map(str, need)), "have_glibc": glibc}
        return [_no_build(parts[0])], {**extra, "package": parts[0].lower()}
    if need and need > (2, 17):
        return ["symbol_version_missing", "wrong_architecture_binary"], {**extra, "needs_glibc": ".".join(map(str, need))}
    if need:
        return [_no_build(parts[0]), "wrong_architecture_binary"], {**extra, "package": parts[0].lower()}
    # (round 35c) the plain linux_<arch> tag of a wheel built on a Linux and never audited (torch's own index,
    # torch-scatter's wheel pages) fits every Linux of that CPU: pip's supported tags end with it (packaging
    # src/packaging/tags.py _linux_platforms yields linux_<arch> after the manylinux/musllinux ones). Refused there,
    # the Python tag is what differs; another OS or CPU second where the text does not show the machine.
    if plats and all(re.fullmatch(r"linux_\w+", pl) for pl in plats):
        return [_no_build(parts[0]), "wrong_architecture_binary"], {**extra, "package": parts[0].lower()}
    return ["wrong_architecture_binary"], extra


def _no_build(dist: str) -> str:
    """The code of no file of a release for this interpreter: kaolin's own for a kaolin wheel (its wheel pages), the
    platform's for any other package (round 23)."""
    return "kaolin_no_wheel_for_combo" if dist.lower() == "kaolin" else "package_no_build_for_platform"


def _manylinux_glibc(platform_tag: str) -> tuple[int, int] | None:
    """The oldest glibc a manylinux platform tag runs on: ``manylinux_2_27_x86_64`` -> (2, 27),
    ``manylinux2014_aarch64`` -> (2, 17); None for another platform."""
    m = re.match(r"manylinux_(\d+)_(\d+)_", platform_tag)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.match(r"(manylinux1|manylinux2010|manylinux2014)_", platform_tag)
    return _LEGACY_MANYLINUX[m.group(1)] if m else None


#: torch_messages rows that are the process dying on a signal (the shell's, an IDE's or faulthandler's words)
CRASH_ROWS = ("segfault", "illegal_instruction", "abort", "bus_error")


def _crash_readings(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """A process that died on a signal, or a crash told in prose ("leads to core dump", "the kernel dies"), read
    with what else the text shows: SIGBUS where shared memory is small (a container, DataLoader workers) is /dev/shm;
    a crash on torch's MPS backend is that backend's bug; two packages with native code sharing the process (the
    text says the import order matters, shows the crash right at an import, or imports two such packages) are their
    runtimes clashing; a crash the text says began with a release is that release's bug. A bare crash stays
    unrecognised: the text does not say whose code crashed. SIGILL has its own reading (its table row)."""
    crash = [e for e in events(facts, "torch", "message", table="torch_messages") if e.get("key") in CRASH_ROWS]
    said = [e for e in events(facts, "torch", "sign") if e.get("sign") == "crash_said"]
    if not crash and not said:
        return
    first = (crash or said)[0]
    kinds = {e.get("key") for e in crash}
    line = str(first.get("line") or "")
    if "bus_error" in kinds and (value(facts, "context", "container") or has_sign(facts, "dataloader", "shm_named")):
        where = "a container" if value(facts, "context", "container") else "DataLoader workers"
        yield from resolve(facts, {"kind": "state", "from": "text", "line": line, "weight": 14,
                                   "fact": f"SIGBUS in {where}: a shared-memory file ran out of room"},
                           ["container_shm_too_small"])
    if kinds == {"illegal_instruction"}:
        return
    if has_sign(facts, "mps_backend"):
        yield from resolve(facts, {"kind": "state", "from": "text", "line": line, "weight": 16, "bug": "mps_crash",
                                   "fact": "the process crashed on torch's MPS backend"}, ["library_bug"])
    order = [e for e in events(facts, "loader", "sign") if e.get("sign") == "import_order"]
    coinstall = [e for e in events(facts, "loader", "sign") if e.get("sign") == "coinstall_decides"]
    mods = [str(m) for m in value(facts, "loader", "modules_imported") or []]
    at = value(facts, "loader", "crashed_at_import")
    if order:
        yield from resolve(facts, {**order[0], "line": line, "modules": mods}, ["native_library_conflict"])
    elif len(mods) >= 2:
        ev = {"kind": "state", "from": "text", "line": line, "modules": mods, "weight": 20 if at else 28,
              "fact": f"crashed {'at import ' + str(at) if at else 'in a process'} importing {', '.join(mods)}"}
        yield from resolve(facts, ev, ["native_library_conflict"])
    elif coinstall:
        # (round 18) the text says the crash comes and goes with another package installed (uninstalling it cures it):
        # that package's native libraries and the crashing one's clash in the process (two copies of a library, a
        # symbol resolved to the other's), whatever is imported
        yield from resolve(facts, {**coinstall[0], "line": line, "modules": [*mods, str(coinstall[0].get("package"))],
                                   "weight": 24}, ["native_library_conflict", "library_bug"])
    elif at and at.split(".")[0] not in ("torch", "numpy", "tensorflow") and len(mods) < 2:
        # (round 31c) the process died right at `import X` (the line after it is the crash), X the one package of its
        # own shown and no code of the person's run yet: X's native code crashed while loading, its release's bug (a
        # broken binary, fixed by the release before or after), or a library X loads clashing with one already in
        # the process; after every reading of the text's own words (torch, NumPy and TensorFlow crashing at import
        # are their own rows' readings: CPU instructions, a mixed install)
        yield from resolve(facts, {"kind": "state", "from": "text", "line": line, "modules": mods or [at],
                                   "weight": 30, "bug": "import_crash", "package": at,
                                   "fact": f"the process crashed at `import {at}`"},
                           ["library_bug", "native_library_conflict"])
    regression = [e for e in events(facts, "torch", "sign") if e.get("sign") == "regression_said"]
    if regression and not order and len(mods) < 2:
        pkg = mods[0] if mods else None
        yield from resolve(facts, {**regression[0], "weight": 20, "bug": "regression", "package": pkg,
                                   "fact": f"a crash the text says began with a release ({regression[0].get('phrase')})"},
                           ["library_bug"])


@builds("cpu_instruction_unsupported")
def _cpu_instruction(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    isa = (ev.get("groups") or {}).get("isa")
    mods = [str(m) for m in value(facts, "loader", "modules_imported") or []]
    who = value(facts, "loader", "crashed_at_import") or (mods[-1] if mods else None)
    cmds = ["grep -o -w -E 'avx|avx2|avx512f|fma|sse4_2' /proc/cpuinfo | sort -u   # the instruction sets this CPU "
            "has (no avx2: an older or low-power CPU)",
            f'python -X faulthandler -c "import {who or "<the package>"}"   # the library that dies, and where']
    if "torch" in mods or value(facts, "torch", "version"):
        cmds.append("ATEN_CPU_CAPABILITY=default python <your script>   # torch's generic CPU kernels (no AVX2/AVX-512)")
    if value(facts, "context", "os") == "macos":
        cmds.append('python -c "import platform; print(platform.machine())"   # x86_64 on Apple silicon: an x86 '
                    "Python under Rosetta, which has no AVX: install an arm64 Python")
    else:
        cmds.append("OPENBLAS_CORETYPE=ARMV8 python <your script>   # on Jetson/ARM boards: numpy's OpenBLAS picks "
                    "a core type the CPU lacks")
    what = f" ({isa})" if isa else ""
    return {"title": f"A library uses CPU instructions{what} this processor lacks"
            + (f": the process died loading {who}" if who else ""), "commands": cmds}


@builds("native_library_conflict")
def _native_conflict(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    mods = [m for m in ev.get("modules") or value(facts, "loader", "modules_imported") or [] if isinstance(m, str)]
    a, b = (mods[0], mods[-1]) if len(mods) >= 2 else ("torch", "<the other package>")
    at = value(facts, "loader", "crashed_at_import")
    evidence = ([f"the text imports {', '.join(mods)}"] if mods else []) + (
        [f"the process crashed at `import {at}`"] if at else [])
    return {"title": f"Two native packages clash in one process ({a}, {b})" if len(mods) >= 2 else
            "Two native packages clash in one process: the import order decides",
            "evidence": evidence,
            "commands": [f'python -X faulthandler -c "import {a}; import {b}"   # and in the other order:',
                         f'python -X faulthandler -c "import {b}; import {a}"',
                         f'LD_DEBUG=libs python -c "import {a}; import {b}" 2>&1 | grep -E "libstdc|libgomp|libiomp|'
                         'libcudart"   # which copy of each runtime is loaded first',
                         "# then import the one that works first in every module (or upgrade the package whose "
                         "bundled runtime is older)"]}


@builds("env_not_propagated_to_kernel")
def _env_not_propagated(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    extra = []
    changed = value(facts, "loader", "changed_since_start") or {}
    for var, ch in changed.items() if isinstance(changed, Mapping) else ():
        if isinstance(ch, Mapping):
            extra.append(f"in this process {var} was {ch.get('start')!r} at start and is {ch.get('now')!r} now")
    sign = ev.get("sign")
    if ev.get("key") == "module_function_missing":
        cmd = (ev.get("groups") or {}).get("cmd") or "module"
        return {"title": f"'{cmd}' is not defined in this shell: the script is not a login shell, so the toolkit its "
                         "module load would set never reaches the job",
                "commands": ["#!/bin/bash -l   # the job script's first line: a login shell reads /etc/profile.d",
                             "source /etc/profile.d/lmod.sh   # or modules.sh: defines module/ml before `module load`",
                             "type module   # 'module is a function' where it works"],
                "evidence": extra, "severity": "warning"}
    if ev.get("kind") == "env_set_in_process":
        title = "LD_LIBRARY_PATH set inside the running process: its loader does not see it"
    elif sign in ("env_dropped",) or has_sign(facts, "env_dropped"):
        title = "A variable set in your shell is dropped by sudo, the scheduler or the spawner"
    elif ev.get("kind") == "library_missing":
        title = f"{ev.get('library')} is where a shell's LD_LIBRARY_PATH points, which this process never saw"
    else:
        title = "A variable set in a shell or profile does not reach the process"
    cmds = list(ENV_FIX_COMMANDS)
    if has_sign(facts, "env_dropped"):
        cmds += ["sudo env \"CUDA_HOME=$CUDA_HOME\" \"PATH=$PATH\" \"LD_LIBRARY_PATH=$LD_LIBRARY_PATH\" <command>   "
                 "# or: sudo -E (if the sudoers policy keeps it)",
                 "#SBATCH --export=ALL   # or export the variables inside the job script"]
    return {"title": title, "commands": cmds, "evidence": extra, "severity": "warning"}


def _gcc_hint(version: str | None) -> str:
    return f"GLIBCXX_{version}" if version else "the needed GLIBCXX version"


#: (round 28b, blind audit 28) the GCC release whose libstdc++ first has GLIBCXX_3.4.N: libstdc++'s manual, ABI Policy
#: and Guidelines, "Symbol versioning" history (https://gcc.gnu.org/onlinedocs/libstdc++/manual/abi.html: GCC 12.1.0:
#: GLIBCXX_3.4.30, 13.1.0: 3.4.31, 13.2.0: 3.4.32, 14.1.0: 3.4.33, per the gcc r13-7295 and 2024-04 14.1 doc
#: patches; GCC 9.2.0: 3.4.27, 9.3.0 and 10.1.0: 3.4.28, 11.1.0: libstdc++.so.6.0.29 per gcc r11-7392's abi.xml diff,
#: read in the gcc-cvs archive; 4.9-8.1 and 15.1 as that history lists them, not re-read); conda-forge's libstdcxx-ng /
#: libstdcxx carry GCC's release as their version
_GLIBCXX_GCC = {20: "4.9", 21: "5.1", 22: "6.1", 23: "7.1", 24: "7.2", 25: "8.1", 26: "9.1", 27: "9.2", 28: "9.3",
                29: "11.1", 30: "12.1", 31: "13.1", 32: "13.2", 33: "14.1", 34: "15.1"}


def libstdcxx_command(version: str | None) -> str:
    """The conda install of a libstdc++ that has ``GLIBCXX_<version>`` (3.4.32 -> GCC 13.2's), not a bound that
    an older one satisfies."""
    m = re.search(r"3\.4\.(\d{1,2})\b", str(version or ""))
    gcc = _GLIBCXX_GCC.get(int(m.group(1))) if m else None
    if not gcc:
        return "conda install -c conda-forge 'libstdcxx-ng>=12'   # conda envs: a newer libstdc++"
    return (f"conda install -c conda-forge 'libstdcxx-ng>={gcc}'   # conda envs: GLIBCXX_3.4.{m.group(1)} first came "
            f"with GCC {gcc}'s libstdc++ (libstdc++'s ABI docs)")


@rule("loader", stand_in=("abi",))
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
                         libstdcxx_command(ext.get("glibcxx_needed")),
                         "ls /usr/lib/x86_64-linux-gnu/libstdc++.so.6*   # the system one, if newer: put its "
                         "directory first on LD_LIBRARY_PATH at start (smr-doctor fix kernelspec)")))
            else:
                yield Finding(
                    "symbol_version_missing", "loader", "error",
                    f"{_name(ext)} needs {', '.join(versions)} from {lib}, which {path} does not define",
                    (f"{ext.get('path')} requires {', '.join(versions)} from {lib}", f"{lib} resolves to {path}"),
                    Fix(why("symbol_version_missing", f"Here {lib} is the older one."),
                        ("ldd --version   # this system's glibc",
                         "pip install --no-build-isolation --no-cache-dir --force-reinstall "
                         + package_name(ext.get("path"), "<package>"))))


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


_LIBSTDCXX_RE = re.compile(r"([^\s:'\"`]{0,300}libstdc\+\+\.so[.0-9]{0,12})")


@builds("libstdcxx_too_old")
def _libstdcxx(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    if ev.get("kind") == "stdlib_undefined_at_link":  # the linker's, at build time (rules.toolkit)
        return {"title": f"The link finds no {str(ev.get('symbol'))[:100]}: the libstdc++ it links is older than the "
                         "compiler's headers",
                "fix": "The objects were compiled by a GCC whose C++ headers are newer than the libstdc++ the linker "
                       "picks (an Anaconda/conda environment's older libstdc++ first on the library path, or one "
                       "compiler's objects linked with another's runtime): build with the compiler that matches the "
                       "environment's libstdc++ (conda's gxx in a conda environment), or link the newer libstdc++.",
                "commands": ["g++ --version; g++ -print-file-name=libstdc++.so",
                             "echo $LIBRARY_PATH $LD_LIBRARY_PATH   # a conda env's lib before the compiler's?",
                             "conda install -c conda-forge gxx_linux-64   # conda env: a compiler of its own libstdc++"]}
    ver = str(ev.get("version") or (ev.get("groups") or {}).get("ver") or "GLIBCXX_x")
    m = _LIBSTDCXX_RE.search(str(ev.get("library") or ev.get("line") or ""))
    path = m.group(1).lstrip("([{<") if m and "/" in m.group(1) else None
    if path and not re.fullmatch(r"/[\w./+-]+", path) or path and "/.../" in path:
        path = None  # (round 31a) a path the text elides (".../anaconda3/lib/...") or quotes in brackets: none to run on
    by = ev.get("required_by") or (ev.get("groups") or {}).get("by")
    cmds = ([f"strings {path} | grep -c {ver}   # 0 here"] if path else []) + [
        libstdcxx_command(ver),
        "ls /usr/lib/x86_64-linux-gnu/libstdc++.so.6*   # the system one, if newer: put its directory first on "
        "LD_LIBRARY_PATH at start (smr-doctor fix kernelspec)"]
    return {"title": f"{ver} not found in the libstdc++ loaded", "commands": cmds,
            "evidence": [f"required by: {by}"] if by else []}


@builds("symbol_version_missing")
def _symver(facts: Mapping[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    if ev.get("needs_glibc"):
        have, osr = ev.get("have_glibc") or value(facts, "context", "glibc"), value(facts, "context", "os_release")
        return {"title": f"{ev.get('wheel') or 'The wheel'} needs glibc >= {ev['needs_glibc']}"
                + (f"; this system has glibc {have}" + (f" ({osr})" if osr else "") if have else ""),
                "commands": ["ldd --version   # this system's glibc",
                             "pip download --no-deps <package>==<version> --platform manylinux2014_x86_64 "
                             "--only-binary=:all: -d .   # a release built for older glibc, if one exists",
                             "pip install <package>==<an older release>   # or a newer OS / a container with newer glibc"]}
    ver = str(ev.get("version") or (ev.get("groups") or {}).get("ver") or "")
    by = ev.get("required_by") or (ev.get("groups") or {}).get("by")
    lib = "the C library" if ver.startswith("GLIBC_") else (ev.get("library") or "a system library")
    return {"title": f"{ver} not found: {lib} is older than the binary needs" if ver else
            "A symbol version is missing: a system library is older than the binary needs",
            "commands": ["ldd --version   # this system's glibc",
                         "pip install --no-build-isolation --no-cache-dir --force-reinstall "
                         f"{package_name(by, '<package>')}   # a build made here"],
            "evidence": [f"required by: {by}"] if by else []}


#: a pip distribution built for one CUDA release, by its name: mxnet-cu92, cupy-cuda11x, jaxlib-cuda12 style tags
_CUDA_DIST_RE = re.compile(r"^[a-z][a-z0-9_.]*-cu(?:da)?(\d{2,3}|\d{2}x)$")


@rule("loader")
def windows_module_not_found_of_a_cuda_build(facts: Mapping[str, Any]) -> Iterator[Finding]:
    """Windows' ERROR_MOD_NOT_FOUND ('[WinError 126] The specified module could not be found') with no DLL named, in a
    text that installs a distribution built for one CUDA release (its name says so: mxnet-cu92, cupy-cuda11x): the
    DLL LoadLibrary did not find is one of that build's CUDA runtime DLLs (cudart64_92.dll, cublas64_92.dll), absent
    or of another CUDA release on this machine."""
    if value(facts, "context", "os") != "windows" or events(facts, "loader", "library_missing"):
        return
    dists = [d for d in value(facts, "toolkit", "building") or [] if _CUDA_DIST_RE.match(str(d).lower())]
    if not dists:
        return
    tag = _CUDA_DIST_RE.match(str(dists[0]).lower()).group(1)  # type: ignore[union-attr]
    ver = tag[:-1] if tag.endswith("x") else f"{tag[:-1]}.{tag[-1]}"  # 92 -> 9.2, 118 -> 11.8, 11x -> 11
    for ev in events(facts, "context", "sign"):
        line = str(ev.get("line") or "")
        if ev.get("sign") == "windows" and "[WinError 126]" in line:
            yield from resolve(facts, {"kind": "state", "from": "text", "weight": 22, "line": line,
                                       "library": f"a CUDA {ver} runtime DLL of {dists[0]}", "version": ver,
                                       "fact": f"{line.strip()[:120]} after installing {dists[0]} (built for CUDA "
                                               f"{ver})"},
                               ["cudart_not_found", "prebuilt_binary_wrong_cuda"])
            return
