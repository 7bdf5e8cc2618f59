# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Events: facts that happened (a library that failed to load, an undefined symbol, an error code, a
message of one of the doctor's tables), and how the rules turn one into findings.

An event is a dict in ``facts[layer]["events"]`` (FACTS.md): ``kind``, ``from`` (``"text"`` when read in a
pasted error, ``"live"`` when a probe produced it), ``line``, ``weight`` (how decisive the reading is) and
fields of its kind. A table row's event names the codes the row indicates (``codes``); a rule narrows them
with the facts (:func:`decide`: a library's CUDA major against torch's, a container against a machine
without GPU, ...) and, when the facts cannot decide, every reading is given, the first ranked higher, each
saying what would decide (the code's ``check``). Each code's finding is built by one function of the rules
module of the code's layer (:func:`builds`), so a cause has one title, one fix wording (the table's) and one
set of commands whether its facts came from a text or from the machine.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._codes import CODES, why
from smrnb.doctor._model import Finding, Fix, value
from smrnb.doctor._redact import quote
from smrnb.doctor.rules._rebuild import PIP_REBUILD, tree_rebuild

Facts = Mapping[str, Any]
Builder = Callable[[Facts, dict[str, Any]], "dict[str, Any] | None"]

#: code -> the function that builds its finding from (facts, event)
BUILDERS: dict[str, Builder] = {}
#: candidate codes kept per event when the facts cannot decide
MAX_READINGS = 3


def _first(code: str, codes: list[str], n: int | None = MAX_READINGS) -> list[str]:
    """``codes`` with ``code`` read first (once), at most ``n`` of them (all where ``n`` is None)."""
    return [code, *(x for x in codes if x != code)][:n]


def cut_at_word(text: str, width: int) -> str:
    """``text`` no longer than ``width``: cut at a word boundary with an ellipsis, never mid-word."""
    text = str(text)
    if len(text) <= width:
        return text
    head = re.sub(r"\s+\S*$", "", text[:width - 2]).rstrip(" ,;:(/")
    return (head or text[:width - 3]) + "..."


def builds(*codes: str) -> Callable[[Builder], Builder]:
    """Register the finding builder of ``codes``: ``fn(facts, event) -> {"title", "commands", "evidence",
    "detail", "severity", "rank", "check"}`` (all optional) or None when the event does not show this cause after all."""
    for c in codes:
        if c not in CODES:
            raise ValueError(f"unknown finding code {c!r}")

    def deco(fn: Builder) -> Builder:
        for c in codes:
            BUILDERS[c] = fn
        return fn

    return deco


def events(facts: Facts, layer: str | None = None, kind: str | None = None,
           table: str | None = None) -> list[dict[str, Any]]:
    """The events of ``layer`` (all layers when None), of ``kind`` / ``table`` when given, each with ``layer``."""
    from smrnb.doctor._model import LAYERS

    out = []
    for ly in ([layer] if layer else LAYERS):
        d = facts.get(ly)
        if not isinstance(d, Mapping):
            continue
        for e in d.get("events") or ():
            if isinstance(e, dict) and (kind is None or e.get("kind") == kind) and (table is None or e.get("table") == table):
                out.append({**e, "layer": ly})
    return out


def signs(facts: Facts) -> set[str]:
    """The names of every ``sign`` event (phrases of FACTS.md's sign list)."""
    return {str(e.get("sign")) for e in events(facts, kind="sign")}


def has_sign(facts: Facts, *names: str) -> bool:
    s = signs(facts)
    return any(n in s for n in names)


def _peek(facts: Facts, layer: str, key: str) -> Any:
    """:func:`value` without noting the read (``dict.get`` of the traced layer): for a fact that may decide nothing."""
    d = facts.get(layer)
    if not isinstance(d, Mapping):
        return None
    get = functools.partial(dict.get, d) if isinstance(d, dict) else d.get
    return None if get("status") == "unavailable" else get(key)


def major(v: Any) -> int | None:
    m = re.match(r"\s*(\d+)", str(v)) if v is not None else None
    return int(m.group(1)) if m else None


def cuda_majors(facts: Facts) -> set[int]:
    """CUDA majors this environment has: torch's build and every nvcc known."""
    out = {major(value(facts, "torch", "cuda"))}
    for n in value(facts, "toolkit", "nvccs") or []:
        if isinstance(n, Mapping):
            out.add(major(n.get("version")))
    return {m for m in out if m}


def cuda_in_use(facts: Facts) -> str | None:
    """The CUDA version the failing run uses: torch's build, else the build's nvcc, else the first CUDA version
    the text names (``toolkit.cuda_named``)."""
    named = value(facts, "toolkit", "cuda_named") or []
    return value(facts, "torch", "cuda") or value(facts, "toolkit", "build_nvcc_version") or (named[0] if named else None)


def gpu_ccs(facts: Facts) -> list[str]:
    return [str(g["compute_capability"]) for g in value(facts, "driver", "gpus") or []
            if isinstance(g, Mapping) and g.get("compute_capability")]


def _runs_on(archs: Iterable[str], cc: int) -> bool:
    """Machine code of ``archs`` (``80``, ``86``) runs on compute capability ``cc``: one of its major at or below it."""
    return tables.wheel_runs([int(a) for a in archs if str(a).isdigit()], None, cc)


def torch_in_text(facts: Facts) -> bool:
    """(round 37f) Whether the text itself shows torch: its version, CUDA build or arch list (read from the text, not
    this machine), or a frame of torch's own files."""
    d = facts.get("torch")
    for key in ("version", "cuda", "arch_list", "version_base"):
        if _peek(facts, "torch", key) and (not isinstance(d, Mapping) or
                                           (d.get("provenance") or {}).get(key, "text") == "text"):
            return True
    return any("torch/" in str(f).replace("\\", "/") for f in _peek(facts, "torch", "source_files") or ())


#: (round 37f) CuPy's own modules, as a traceback names their files (cupy/_core/core.pyx, cupy_backends/cuda/...)
_CUPY_FILE_RE = re.compile(r"(?:^|/)cupy(?:_backends)?/")


def cupy_fails(facts: Facts) -> str:
    """(round 37f, blind audit 37 F2) The CuPy distribution whose code failed (``cupy-cuda102`` where the text lists
    it, else ``cupy``), or "": the traceback's frames are CuPy's and the text shows no torch. CuPy's wheels are built
    once per CUDA release and read their CUDA root from CUDA_PATH: neither a torch reinstall nor TORCH_CUDA_ARCH_LIST
    changes them."""
    files = [str(f).replace("\\", "/") for f in _peek(facts, "torch", "source_files") or ()]
    if not any(_CUPY_FILE_RE.search(f) for f in files) or torch_in_text(facts):
        return ""
    value(facts, "torch", "source_files")  # it decides: noted as read
    rel = _peek(facts, "loader", "package_releases") or {}
    return next((str(k).replace("_", "-") for k in rel if str(k).lower().startswith("cupy")), "cupy")


def own_program_fails(facts: Facts) -> bool:
    """(round 37f, blind audit 37 F2) A CUDA program of the user's own (no Python traceback, import or exception, no
    torch in the text) whose build architectures the text names (-gencode arch=compute_75,code=sm_75): its own nvcc
    build, not a pip package."""
    return bool(_peek(facts, "toolkit", "extension_archs")) and not _peek(facts, "torch", "source_files") and \
        not _peek(facts, "loader", "modules_imported") and not torch_in_text(facts) and \
        not has_sign(facts, "jetson", "kaolin") and \
        not any(_PYTHON_ERROR_RE.match(str(e.get("line") or "")) for e in events(facts))


#: a Python exception's line ("RuntimeError: CUDA error: ...", torch's own words for a CUDA error)
_PYTHON_ERROR_RE = re.compile(r"\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning)\b:")


def own_nvcc_version(facts: Facts) -> str | None:
    """The nvcc release a program was built with: the toolkit's, else 'nvcc 11.4' as a build line names it."""
    nv = value(facts, "toolkit", "build_nvcc_version")
    if nv:
        return str(nv)
    named = (_peek(facts, "loader", "package_releases") or {}).get("nvcc") or []
    return str(named[0]) if named and tables.parse_version(str(named[0])) else None


def _extension_lacks_gpu(facts: Facts, ccs: list[str]) -> str:
    """(round 26d) Why 'no kernel image' is an extension's and not torch's, or "": the text tells an extension's build
    architectures (TORCH_CUDA_ARCH_LIST=, -gencode, TCNN_/CMAKE_CUDA_ARCHITECTURES=) that lack the GPU, and torch's
    wheels carry it: those of the torch release (and CUDA variant) the text shows (tables/torch_wheel_archs.csv), or,
    where it shows none, those of the newest release in one of its variants; on a Jetson (JetPack's torch, built for
    the board) the extension's archs alone decide."""
    from smrnb.doctor._install import cc_to_int

    ext = [str(a) for a in value(facts, "toolkit", "extension_archs") or []]
    nums = [n for n in (cc_to_int(cc) for cc in ccs) if n]
    if not ext or not nums or any(_runs_on(ext, n) for n in nums):
        return ""
    said = f"the extension was built for {', '.join(f'sm_{a}' for a in ext)}, not the GPU's {', '.join(ccs)}"
    if has_sign(facts, "jetson"):
        return said + " (a Jetson: JetPack's torch is built for the board)"
    tv, tc = value(facts, "torch", "version_base"), value(facts, "torch", "cuda")
    if tv:
        known = tables.torch_cuda_variants(str(tv))
        variants = [f"cu{str(tc).replace('.', '')}"] if tc else list(known.variants if known else ())
        runs = [tables.torch_wheel_runs(str(tv), v, n) for v in variants for n in nums]
        if runs and all(r is True for r in runs):
            return said + f"; torch {tv}'s wheels carry it"
        return ""
    newest = max(tables.rows("torch_cuda"), key=lambda r: tables.version_key(r["torch"]))
    if all(any(tables.torch_wheel_runs(newest["torch"], v, n) for v in newest["variants"].split()) for n in nums):
        return said + f"; torch's current wheels ({newest['torch']}) carry it"
    return ""


def _whose_kernels(facts: Facts) -> tuple[list[str], str] | None:
    """'no kernel image' read as torch's or an extension's (the readings, best first, and why), or None where the text
    cannot tell: torch's arch list the text prints against the GPU, else torch's wheel (_wheel_kernels), else an
    extension's build archs (_extension_lacks_gpu)."""
    from smrnb.doctor._install import arch_covers

    arch_list, ccs = value(facts, "torch", "arch_list"), gpu_ccs(facts)
    if isinstance(arch_list, list) and arch_list and ccs:
        if all(arch_covers(arch_list, cc)[0] for cc in ccs):
            return ["no_kernel_image_for_gpu"], (f"torch has kernels for compute capability {', '.join(ccs)}: an "
                                                 "extension lacks them")
        return ["torch_wheel_lacks_gpu_arch"], (f"torch's arch list ({' '.join(arch_list)}) lacks compute capability "
                                                f"{', '.join(ccs)}")
    wheel = _wheel_kernels(facts, ccs)
    if wheel:
        return wheel
    why_ext = _extension_lacks_gpu(facts, ccs)
    return (["no_kernel_image_for_gpu"], why_ext) if why_ext else None


def _wheel_kernels(facts: Facts, ccs: list[str]) -> tuple[list[str], str] | None:
    """(round 33) 'no kernel image' read from torch's own wheel, or None: where torch's version shows a pip wheel's CUDA
    variant (``2.11.0+cu130``, from the text or this machine) and the GPU's compute capability is known,
    tables/torch_wheel_archs.csv (PyTorch's support matrix and its wheel build scripts: round 38c) says whether that
    variant's wheels carry kernels the GPU runs. They
    do: torch's own operations run there, so the binary without them is an extension. They do not: torch's. A
    conda or source build (no ``+cu`` variant) and a release or variant the table lacks decide nothing."""
    from smrnb.doctor._install import cc_to_int

    # read without noting: a finding's evidence names the facts its rule read, and these decide only below
    full, base = str(_peek(facts, "torch", "version") or ""), _peek(facts, "torch", "version_base")
    variant = tables.torch_wheel_variant(full)
    nums = [cc_to_int(cc) for cc in ccs]
    if not variant or not base or not nums or not all(nums):
        return None
    runs = [tables.torch_wheel_runs(str(base), variant, n) for n in nums]
    if any(r is None for r in runs):
        return None
    value(facts, "torch", "version"), value(facts, "torch", "version_base")  # they decide: noted as read
    caps = ", ".join(ccs)
    if all(runs):
        return ["no_kernel_image_for_gpu"], (f"torch {full}'s wheels carry kernels for compute capability {caps} "
                                             "(tables/torch_wheel_archs.csv: PyTorch's release notes and wheel "
                                             "build scripts): the binary without them is an extension")
    # torch first; an extension that failed may lack the GPU too (it is rebuilt against the torch that replaces this one)
    return ["torch_wheel_lacks_gpu_arch", "no_kernel_image_for_gpu"], (
        f"torch {full}'s wheels have no kernels for compute capability {caps} (tables/torch_wheel_archs.csv: "
        "PyTorch's release notes and wheel build scripts)")


def _no_cpu_build(facts: Facts) -> str:
    """(round 26d) Why torch finding no toolkit is not the CPU build, or "": the text shows a CUDA build of torch (its
    '+cu121', its torch.version.cuda), or runs on macOS (PyTorch publishes no CUDA build for it)."""
    if value(facts, "torch", "cpu_build"):
        return ""
    if value(facts, "torch", "cuda"):
        return f"torch is a CUDA {value(facts, 'torch', 'cuda')} build"
    return "macOS: PyTorch has no CUDA build for it" if value(facts, "context", "os") == "macos" else ""


def describe(ev: Mapping[str, Any]) -> str:
    """A short name of what an event is: ``loader_errors:cannot_open_cudart``, ``cudaErrorAssert (710)``."""
    kind = ev.get("kind")
    if kind == "message":
        return f"{ev.get('table')}:{ev.get('key')}"
    if kind == "cuda_error":
        return f"{ev.get('name')} ({ev.get('number')})"
    if kind == "sign":
        return f"sign {ev.get('sign')} ({ev.get('phrase')!r})"
    for k in ("library", "symbol", "version", "module", "header", "lib", "variable", "package"):
        if ev.get(k):
            return f"{kind} {str(ev[k])[:120]}"
    return str(kind)


def origin(ev: Mapping[str, Any]) -> str:
    return "this machine" if ev.get("from") == "live" else "the text"


def from_text(facts: Facts, layer: str, key: str | None = None) -> bool:
    """Whether ``facts[layer][key]`` (any key of the layer when None) was read in a pasted error."""
    d = facts.get(layer)
    if not isinstance(d, Mapping):
        return False
    if d.get("source") == "the error text":
        return key is None or key in d
    prov = d.get("provenance") or {}
    return any(v == "text" for v in prov.values()) if key is None else prov.get(key) == "text"


#: rows of a notebook's package installer that say the running kernel keeps what it imported before the install
RESTART_NOTES = frozenset({"pip_restart_note", "colab_restart_runtime"})


def restart_said(facts: Facts) -> bool:
    """Whether the text shows a notebook install whose kernel was not restarted since: IPython's or Colab's note
    after an install, the user saying so, or the process still showing the release pip replaced."""
    return has_sign(facts, "kernel_not_restarted") or has_sign(facts, "old_release_imported") or any(
        e.get("key") in RESTART_NOTES for e in events(facts, "jupyter", "message"))


def kernel_python_codes(facts: Facts) -> list[str]:
    """What a package the notebook cannot import (or imports old) means: a kernel of another Python, or a kernel
    that started before the install (the text says it was not restarted since, or that the notebook runs the
    terminal's Python): then a restart first, another Python second."""
    notebook = has_sign(facts, "in_notebook") or bool(value(facts, "jupyter", "in_kernel"))
    if has_sign(facts, "colab"):  # (round 26) Colab's runtime has one Python: the package is not installed in it
        return ["kernel_restart_needed", "python_package_missing"] if restart_said(facts) else ["python_package_missing"]
    if restart_said(facts) or (notebook and has_sign(facts, "same_python")):
        return ["kernel_restart_needed", "kernel_wrong_python"]
    return ["kernel_wrong_python"]


# ------------------------------------------------------------------ deciding between a row's codes
#: (round 28c) NVIDIA's CUDA on WSL User Guide (11.4 onwards): CUDA on WSL 2 with the R470 and later Windows drivers (the
#: earlier ones were preview drivers of Windows Insider builds)
_WSL_MIN_DRIVER = 470


def _in_container_or_job(facts: Facts) -> bool:
    return bool(value(facts, "context", "container") or value(facts, "context", "slurm")
                or value(facts, "context", "wsl"))


def _whose_container(facts: Facts) -> str:
    """(blind audit 36 B, t41) Where the container, job or WSL that decides came from: ``""`` where the text shows
    it, else the words that say this machine's fact decided (the text shows none)."""
    shown = any(from_text(facts, "context", k) for k in ("container", "slurm", "wsl"))
    return "" if shown else " (this machine runs in one; the text shows none)"


def _has_gpu(facts: Facts) -> bool:
    return bool(value(facts, "driver", "gpus") or value(facts, "driver", "driver_version"))


def _all_half_capable(facts: Facts) -> bool:
    """(round 34c) Whether the text shows GPUs and each has a known compute capability of 7.0 or above (efficient
    float16: Volta's tensor cores and later)."""
    ccs = [major(c) for c in gpu_ccs(facts)]
    return bool(ccs) and len(ccs) == len(value(facts, "driver", "gpus") or []) and all(c and c >= 7 for c in ccs)


def _lib_major(ev: Mapping[str, Any]) -> int | None:
    fam = ev.get("family")
    ver = str(ev.get("version") or "")
    if fam in ("cudnn", "nccl") or not ver:  # their versions are not CUDA's
        return None
    return major(ver)


def _device_count_reading(facts: Facts, c: list[str]) -> tuple[list[str], str] | None:
    """What the error number after torch's 'Unexpected error from cudaGetDeviceCount()' says (c10/cuda/
    CUDAFunctions.cpp prints it): 500 (named symbol not found) is a libcuda without an entry point this CUDA runtime
    needs, a driver older than it or, in a container or WSL, a driver library that is not the host's whole driver;
    a number other than 804 is no forward-compatibility refusal. None when the text shows no number or 804."""
    nums = [e.get("number") for e in events(facts, "driver", "cuda_error")
            if "cudaGetDeviceCount" in str(e.get("line") or "") and e.get("number") is not None]
    if not nums or nums[0] == 804:
        return None
    if nums[0] == 500:
        codes = ["gpu_not_exposed_to_process", "driver_too_old"] if _in_container_or_job(facts) else \
            ["driver_too_old", "driver_broken"]
        return codes, "Error 500 (named symbol not found): the libcuda loaded lacks an entry point of this CUDA runtime"
    rest = [x for x in c if x != "forward_compat_unsupported"]
    if nums[0] == 802 and (_has_gpu(facts) or _fabric_named(facts)):
        # (round 28c) cudaErrorSystemNotReady with a driver that answers (nvidia-smi lists the GPUs) or the fabric
        # manager named: the NVSwitch fabric is not ready, not a kernel module that is not loaded
        # (round 29a, blind audit 28 c09) 802 is no insufficient driver (35): no driver_too_old reading; a driver whose
        # nvidia-smi lists the GPUs is loaded: no driver_broken reading either
        drop = {"fabric_manager_not_running", "driver_too_old"} | ({"driver_broken"} if _has_gpu(facts) else set())
        rest = ["fabric_manager_not_running"] + [x for x in rest if x not in drop]
        return rest, ("Error 802 (system not yet initialized) while the driver answers or the text names the fabric "
                      "manager: NVSwitch's fabric is not ready")
    return (rest, f"Error {nums[0]} is not forward compatibility's refusal (804)") if rest else None


def _fabric_named(facts: Facts) -> bool:
    """(round 28c) a line the text reader read names NVIDIA's fabric manager (its service or its own log)."""
    return has_sign(facts, "fabric_manager")


#: faults of a kernel while it runs or is launched (driver_types.h / cuda.h): the kernel's own code, or its inputs
_KERNEL_FAULTS = frozenset({
    "cudaErrorIllegalAddress", "cudaErrorLaunchOutOfResources", "cudaErrorLaunchFailure", "cudaErrorMisalignedAddress",
    "cudaErrorIllegalInstruction", "cudaErrorInvalidAddressSpace", "cudaErrorInvalidPc", "cudaErrorHardwareStackError",
    "cudaErrorInvalidConfiguration", "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
    "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE", "CUDA_ERROR_INVALID_PC", "CUDA_ERROR_HARDWARE_STACK_ERROR"})
#: (round 34a) NVIDIA Container Toolkit releases whose own bug stops a GPU container from starting, and the release
#: that fixed it (NVIDIA/nvidia-container-toolkit CHANGELOG.md)
NVIDIA_CTK_BROKEN = {"1.17.0": "whose bug in creating the container's symlinks (nvidia-cdi-hook create-symlinks) stops "
                                "containers from starting: fixed in 1.17.1"}
#: (round 34a) a kernel's bad memory address as the driver API names it (cu_results.csv), the form XLA prints
#: (torch and the runtime API print "an illegal memory access was encountered" without it)
_KERNEL_ADDRESS_FAULTS = frozenset({"CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_MISALIGNED_ADDRESS",
                                    "CUDA_ERROR_INVALID_ADDRESS_SPACE"})
#: the runtime API's names of the same faults: read from the message on a line that also names the driver's form
_KERNEL_ADDRESS_RUNTIME = frozenset({"cudaErrorIllegalAddress", "cudaErrorMisalignedAddress",
                                     "cudaErrorInvalidAddressSpace"})
#: "the API call requires a newer driver" (driver_types.h / cuda.h): a driver older than the call's CUDA release
_NEWER_DRIVER_ERRORS = frozenset({"cudaErrorCallRequiresNewerDriver", "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"})


#: a device image the driver refuses as invalid (CUresult 200 / cudaErrorInvalidKernelImage)
_INVALID_IMAGE_ERRORS = frozenset({"cudaErrorInvalidKernelImage", "CUDA_ERROR_INVALID_IMAGE"})
#: compilers of device code at run time, as their errors name themselves: pycuda's driver wrapper (SourceModule runs
#: the nvcc on PATH and loads its cubin with cuModuleLoadDataEx), triton's launcher
_RUNTIME_COMPILER_RE = re.compile(r"pycuda\._driver|cuModuleLoadDataEx failed|Triton Error \[CUDA\]")
#: a kernel image or PTX the driver could not load or JIT-compile (driver_types.h / cuda.h)
_PTX_JIT_ERRORS = frozenset({"cudaErrorInvalidKernelImage", "CUDA_ERROR_INVALID_IMAGE", "cudaErrorInvalidPtx",
                             "CUDA_ERROR_INVALID_PTX", "cudaErrorUnsupportedPtxVersion",
                             "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"})


def _driver_runs_cuda_in_use(facts: Facts) -> str | None:
    """A line saying the driver the text shows supports a CUDA release not older than the one in use (then an error
    asking for a newer driver is the caller's request, not the driver's age), or None."""
    dmax, used = value(facts, "driver", "cuda_driver_version"), cuda_in_use(facts)
    if not dmax or not used or tables.version_key(dmax) < tables.version_key(used):
        return None
    return f"the driver supports CUDA {dmax}, not older than the CUDA {used} in use: not a driver too old"


#: types every OpenMMLab release registers (mmcv 1.x and mmengine-based mmdet/mmseg/mmpretrain): a registry error for a
#: name one typing slip away from one of them is a misspelt config, not another release
_OPENMMLAB_TYPES = ("ResNet", "ResNeXt", "ResNetV1d", "ResNeSt", "Res2Net", "RegNet", "HRNet", "SwinTransformer",
                    "VisionTransformer", "MobileNetV2", "MobileNetV3", "ConvNeXt", "FPN", "RPNHead", "FasterRCNN",
                    "MaskRCNN", "RetinaNet", "CascadeRCNN", "EncoderDecoder", "CascadeEncoderDecoder", "FCNHead",
                    "UPerHead", "ASPPHead", "LoadImageFromFile", "LoadAnnotations", "RandomFlip", "CocoDataset",
                    "CrossEntropyLoss", "FocalLoss", "SmoothL1Loss")
_REGISTRY_NAME_RE = re.compile(r"(\w{2,80}) is not in the (?:\w+::)?\w+ registry")


#: a project's .gitmodules naming its submodules by SSH URLs (tables/library_messages.csv git_submodule_ssh_url): the
#: commands of both its readings (rules._torch: the project's setting; rules._toolkit: the source its build fetches)
GIT_SUBMODULE_OVER_HTTPS = ['git config --global url."https://github.com/".insteadOf git@github.com:   # SSH URLs of '
                            "GitHub over HTTPS (or add an SSH key to the account)",
                            "git submodule sync --recursive && git submodule update --init --recursive"]


def one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one inserted, deleted or replaced letter, or two swapped neighbours (one
    Damerau edit; the misspelt-import and misspelt-project readings of rules._abi and rules._kaolin)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long_[k]), len(short))
    return short[i:] == long_[i + 1:]


def typing_slip(word: str, name: str) -> bool:
    """Whether ``word`` is ``name`` with one typing slip: another case, a letter typed twice or once too few, two
    neighbouring letters swapped."""
    if word == name:
        return False
    if word.lower() == name.lower():
        return True
    longer, shorter = (word, name) if len(word) > len(name) else (name, word)
    if len(longer) == len(shorter) + 1:
        return any(longer[:i] + longer[i + 1:] == shorter and i > 0 and longer[i] == longer[i - 1]
                   for i in range(len(longer)))
    return len(word) == len(name) and any(
        word[:i] + word[i + 1] + word[i] + word[i + 2:] == name for i in range(len(word) - 1))


#: old torch's THC state (aten/src/THC/THCGeneral.cpp of torch 0.4 to 1.10, removed with THC in 1.11): THCudaCheck on
#: torch's own CUDA calls (device properties, cuBLAS/cuDNN handles, scratch space), which no argument of the user's reaches
_THC_STATE_RE = re.compile(r"THCGeneral\.c(?:pp)?\b")


#: (round 30a) message rows of a shape, broadcast or index check on values: the calling code's values, or a library's
#: handling of them where the raise is in its frame (both); raised in the person's own frame, theirs alone
_VALUE_SHAPE_ROWS = frozenset({"index_out_of_bounds_dim", "numpy_broadcast_shapes", "size_of_tensor",
                               "cat_sizes_mismatch", "mat_shapes"})
#: (round 30a) frames whose raise is the argument check of the call, not a library's own computation ("": the
#: person's own file; torch's and NumPy's Python wrappers)
_VALUE_CHECKING_PACKAGES = frozenset({"", "torch", "numpy", "torchvision", "torchaudio"})


#: library_messages rows refusing a float16 compute type on the device in use: the CPU, or a GPU without efficient
#: float16 when the text shows one
_HALF_ON_DEVICE_ROWS = frozenset({"ctranslate2_float16_unsupported"})


#: (round 25) library_messages rows of a script's code meeting a Jupyter kernel's process whose words alone do not show
#: the kernel (an asyncio loop already running, spawn workers and __main__, fileno refused): a notebook in the text
#: decides for script_code_in_kernel, first; none, for the calling code's own doing
_KERNEL_PROCESS_ROWS = frozenset({"asyncio_run_in_running_loop", "asyncio_loop_already_running",
                                  "pickle_main_attribute_spawn", "ipykernel_outstream_no_fd"})


def _kernel_process_reading(c: list[str], facts: Facts, ev: Mapping[str, Any]) -> tuple[list[str], str] | None:
    """A kernel-process row's readings: the kernel first where the text shows one (a notebook's signs, a spawned
    worker's "<module '__main__' (built-in)>": the parent's __main__ had no file, an interactive session's); a script
    nesting asyncio.run with no kernel shown, its own code's; else the row's order (a library running its own loop
    first where only the library's frame shows)."""
    line = str(ev.get("line") or "").lower()
    rest = [x for x in c if x != "script_code_in_kernel"]
    if has_sign(facts, "in_notebook") or value(facts, "jupyter", "in_kernel") or "'__main__' (built-in)" in line:
        return ["script_code_in_kernel", *rest], "the text shows a Jupyter kernel (or an interactive session) running the code"
    if ev.get("key") == "asyncio_run_in_running_loop":
        return ["user_code_error", *(x for x in rest if x != "user_code_error")], (
            "no notebook or kernel in the text: the code itself calls asyncio.run where its own loop already runs")
    return None


#: (round 31c) the folder pip's "neither 'setup.py' nor 'pyproject.toml' found" names (pip's "Directory 'x' is not
#: installable", "The directory 'x' cannot be installed", "file:///x does not appear to be a Python project")
_PIP_NOT_PROJECT_DIR_RE = re.compile(r"(?:[Dd]irectory '([^'\n]{1,300})'|file://([^\s'\n]{1,300}) does not appear)")
#: folders projects keep their git submodules (and vendored sources) in
_SUBMODULE_DIR_RE = re.compile(r"(?:^|[/\\])(?:submodules?|third[_-]?party|3rdparty|thirdparty|external|externals|extern|"
                               r"deps|vendor|ext|libs?)(?:[/\\]|$)", re.I)


def _message_decides(c: list[str], s: set[str], facts: Facts, ev: Mapping[str, Any]) -> tuple[list[str], str] | None:
    """Readings the event's own words decide before the other facts: a registry name one typing slip from a type every
    OpenMMLab release registers (a misspelt config), a call asking for a newer driver from a driver whose CUDA is not
    older than the CUDA in use (the call's request, not the driver's age); None otherwise."""
    if ev.get("key") in _KERNEL_PROCESS_ROWS and "script_code_in_kernel" in s:
        return _kernel_process_reading(c, facts, ev)
    if "user_code_error" in s and "invalid device ordinal" in str(ev.get("line") or "").lower():
        asked, listed = _peek(facts, "context", "device_index_asked"), _peek(facts, "driver", "gpu_indices_listed")
        if isinstance(asked, int) and isinstance(listed, list) and listed and all(isinstance(i, int) for i in listed) \
                and asked > max(listed) and value(facts, "context", "device_index_asked") is not None and \
                value(facts, "driver", "gpu_indices_listed") is not None:
            # (round 37e) the code asks for a GPU index past the GPUs the text lists: the index is the code's
            return _first("user_code_error", c), (
                f"the code asks for GPU index {asked}; the text lists {len(listed)} GPU"
                f"{'s' if len(listed) > 1 else ''} (index {', '.join(map(str, sorted(listed)))})")
    if ev.get("kind") == "cuda_error" and (ev.get("name") in _KERNEL_ADDRESS_FAULTS or (
            ev.get("name") in _KERNEL_ADDRESS_RUNTIME and any(x in str(ev.get("line") or "")
                                                               for x in _KERNEL_ADDRESS_FAULTS))) and \
            has_sign(facts, "xla_compiled") and not has_sign(facts, "jax_own_kernel") and "library_bug" in CODES:
        # (round 34a) a GPU kernel's bad address in a program whose kernels XLA writes (JAX, torch_xla): a JAX program
        # computes with pure array operations and launches no kernel of its own, so a kernel that reads or writes
        # outside its buffers or misaligned is one XLA generated (or a library kernel XLA calls): a bug of the
        # jaxlib/XLA release (JAX-ReaxFF's maintainer: 'This issue stems from XLA ... Upgrading JAX to >=0.4.26
        # fixes the issue'), the program's inputs second. XLA reports the driver's CUresult by name
        # (xla/stream_executor/cuda/cuda_driver.cc: 'CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was
        # encountered'). A Pallas / Triton / FFI kernel the program brings is its own code (jax_own_kernel)
        return _first("library_bug", c), (
            "the faulting kernel is one XLA compiled (JAX / torch_xla): the program launches no kernel of its own")
    if (ctk := str(value(facts, "context", "nvidia_ctk_version") or "")) in NVIDIA_CTK_BROKEN and \
            "gpu_not_exposed_to_process" in s and "library_bug" in CODES:
        # (round 34a) a GPU container that does not start under an NVIDIA Container Toolkit release whose own bug stops
        # containers from starting: NVIDIA/nvidia-container-toolkit CHANGELOG.md v1.17.1 'Fixed a bug where specific
        # symlinks existing in a container image could cause a container to fail to start', 'Fixed a bug on
        # Tegra-based systems where a container would fail to start' (the nvidia-cdi-hook's create-symlinks of
        # 1.17.0; its maintainer on podman#24502: 'There was an error in symlink creation that should have been
        # addressed in v1.17.1'): that release first, the container's GPU request second
        return _first("library_bug", c), (
            f"the NVIDIA Container Toolkit is {ctk}, {NVIDIA_CTK_BROKEN[ctk]}")
    if ev.get("key") == "openmmlab_registry_missing" and "user_code_error" in s:
        m = _REGISTRY_NAME_RE.search(str(ev.get("line") or ""))
        near = [t for t in _OPENMMLAB_TYPES if m and typing_slip(m.group(1), t)]
        if m and near:
            return _first("user_code_error", c, None), (
                f"'{m.group(1)}' is one typing slip from '{near[0]}', a type every release registers: a misspelt name")
    if ev.get("key") == "nccl_unhandled_cuda_error" and any(
            w in str(ev.get("line") or "").lower() for w in ("processgroupnccl", "distbackenderror")):
        # (round 31c) NCCL inside torch's own process group: the NCCL torch's wheel pins (nvidia-nccl-cuXX) is built
        # for torch's own CUDA, so a CUDA call failing inside it is that NCCL release's bug (a newer wheel fixes it) or
        # a driver older than torch's CUDA; a library built for another CUDA (the distribution's libnccl packages of
        # a framework built apart) third
        return ["library_bug", "driver_too_old", *(x for x in c if x not in ("library_bug", "driver_too_old"))], (
            "the NCCL of torch's own process group (ProcessGroupNCCL): the one its wheel pins, built for its CUDA")
    if ev.get("key") == "nccl_internal_error" and str(value(facts, "torch", "nccl_version") or "").startswith("2.18."):
        # (round 32b) NCCL 2.18's proxy answered every failed proxy operation (the network transport's connect and
        # progress: ncclRemoteError / ncclSystemError of src/misc/socket.cc, src/transport/net_ib.cc) as
        # ncclInternalError; 2.19 passes the operation's own result back (NVIDIA/nccl src/proxy.cc,
        # v2.18.6-1..v2.19.3-1: ncclPollProxyResponse returns resp.res, proxyProgressAsync sets it from the op's
        # res). NCCL's maintainer: "With NCCL 2.18, all network errors will be erroneously reported as 'Internal
        # Error'" (NVIDIA/nccl#1092), "If you are running with NCCL 2.18, you can ignore that message, and simply run
        # again setting NCCL_DEBUG=WARN" (NVIDIA/nccl-tests#275). So under 2.18 the network between the ranks first,
        # the release's own bug second
        return ["nccl_network_unreachable", "library_bug", *(x for x in c if x not in (
            "nccl_network_unreachable", "library_bug"))], (
            f"NCCL {value(facts, 'torch', 'nccl_version')} (2.18) reports a network transport's failure as "
            "'internal error': NCCL_DEBUG=WARN shows the real one")
    if ev.get("key") == "pip_directory_not_a_project" and "library_bug" not in s and (
            m := _PIP_NOT_PROJECT_DIR_RE.search(str(ev.get("line") or ""))) and \
            not _SUBMODULE_DIR_RE.search(m.group(1) or m.group(2)):
        # (round 31c) a folder with no setup.py / pyproject.toml outside the folders projects keep git submodules in:
        # an empty submodule still reads first (a ZIP download, a clone without --recursive), the project's own
        # instructions installing a folder that is no package (its repository's bug) second
        return [*c[:1], "library_bug", *c[1:]], (f"'{(m.group(1) or m.group(2))[-80:]}' is not under a submodule "
                                                 "folder: an empty submodule, or the project's instructions")
    if ev.get("key") == "unpack_count_mismatch" and value(facts, "torch", "shape_unpacked"):
        # (round 30a) the unpacked value is a tensor's or array's shape: the value has another number of dimensions
        # than the code reads (a library's documented input contract: kaolin's batched (batch_size, V, 3)), the value
        # the calling code passed first where its frame shows, else a library passing its own value on
        own = bool(value(facts, "torch", "source_files")) or has_sign(facts, "in_notebook")
        why = (f"the line unpacks a shape ({str(value(facts, 'torch', 'shape_unpacked'))[:80]}): the value passed has "
               "another number of dimensions than it reads; ")
        if own and value(facts, "torch", "last_frame_package") == "":
            return ["user_code_error"], why + "the line is the calling code's own"
        return (["user_code_error", "library_bug"], why + "the calling code's value first") if own else (
            ["library_bug", "user_code_error"], why + "no calling code shown")
    if ev.get("key") in _VALUE_SHAPE_ROWS and "library_bug" in s and str(
            value(facts, "torch", "last_frame_package") or "").lower() in _VALUE_CHECKING_PACKAGES:
        # (round 30a) a shape or index check raised in the person's own frame (or torch's, NumPy's argument checks,
        # or no frame shown): the values the code passes, the one reading; raised in another library's frame, both
        return ["user_code_error"], "not raised in another library's frame: the values the calling code passes"
    if ev.get("key") == "pybind11_incompatible_arguments" and has_sign(facts, "extension_op_call"):
        # the call pybind11 refused is an extension's wrapper calling its own compiled module (_C.x(...)): the
        # Python files and the compiled module disagree on the signature, one of them from another build (round 18)
        return ["package_api_version_mismatch", "library_bug"], (
            "the refused call is the extension's own wrapper calling its compiled module: the two are of different "
            "builds (rebuild the extension from the sources its Python files come from)")
    if ev.get("key") == "mmcv_version_range":
        inside = _version_inside_range(str(ev.get("line") or ""))
        if inside:
            return ["library_bug", "package_api_version_mismatch"], inside
    if ev.get("key") in _HALF_ON_DEVICE_ROWS and _has_gpu(facts) and _all_half_capable(facts):
        # (round 34c) every GPU shown has efficient float16 (compute capability 7.0 or above: CTranslate2's own test,
        # src/cuda/utils.cc gpu_has_fp16_tensor_cores): the refusal is of the CPU, so the model ran there on a GPU
        # machine: the code asked for device='cpu', or chose the CPU because its check saw no CUDA (whisperX's and
        # faster-whisper's scripts pick "cuda" only where torch.cuda.is_available(): a CPU-only torch)
        return ["user_code_error", "cpu_only_torch_with_gpu"], (
            "the GPU shown has efficient float16 (compute capability 7.0 or above): the model ran on the CPU")
    if ev.get("key") in _HALF_ON_DEVICE_ROWS and (_has_gpu(facts) or has_sign(facts, "cuda_device_asked")):
        return ["user_code_error", "gpu_below_extension_minimum"], (
            "the code runs on an NVIDIA GPU: one without efficient float16 (compute capability below 7.0)")
    if ev.get("name") == "cudaErrorInvalidValue" and _THC_STATE_RE.search(str(ev.get("line") or "")):
        # the enum's own reading (an argument torch passed on from the caller) stays second
        return ["library_bug", "user_code_error", "torch_wheel_lacks_gpu_arch"], (
            "the refused call is old torch's own (THCGeneral.cpp: its device properties, cuBLAS/cuDNN handles and "
            "scratch space), mostly not an argument of the calling code's: a fault of that torch release with this "
            "GPU, often a GPU newer than the release's CUDA build; another torch release fixes it")
    own = value(facts, "torch", "device_sources") if ev.get("name") in _KERNEL_FAULTS and "user_code_error" in s else None
    if own:
        return ["library_bug", "user_code_error"], (
            f"the fault is reported from {str(own[0])[-80:]}, a project's own CUDA kernel (not torch's): a bug of that "
            "kernel (its launch configuration, its indexing), else the inputs the calling code gives it")
    by = str(value(facts, "torch", "last_frame_package") or "") if ev.get("name") in _KERNEL_FAULTS else ""
    if by and by not in ("torch", "torchvision", "torchaudio") and c == ["user_code_error"] and ev.get("from") != "live":
        # (round 22) a kernel's fault reported from an installed extension's own Python file (the traceback's
        # innermost frame is torch_sparse/spspmm.py, not the calling code's nor torch's): the inputs the calling code
        # gives it first, else that extension's kernel (its release: sparse and custom ops have faulted on valid
        # inputs); where the inputs are valid, its issue tracker and another release decide
        return ["user_code_error", "library_bug"], (f"the fault is reported from {by}'s own code: the inputs first, "
                                                    f"else a kernel of the installed {by} release")
    if c[:1] == ["user_code_error"] and ev.get("kind") == "message" and has_sign(facts, "code_unchanged_said"):
        # (round 22) the person runs the project's code as published ("all code related to models is unchanged"): a
        # misuse the message lays on the calling code is then the project's code's (a bug of it, or of the releases
        # it was written for), the person's data or configuration second
        return ["library_bug", *c], "the text says the code that fails is unchanged: the project's code, as published"
    newer_ok = _driver_runs_cuda_in_use(facts) if ev.get("name") in _NEWER_DRIVER_ERRORS else None
    if newer_ok:
        return [x for x in c if x not in ("driver_below_cuda_minor", "driver_too_old")], newer_ok
    return None


#: OpenMMLab's version assertion: the installed mmcv and the range the package accepts (round 18)
_MMCV_RANGE_RE = re.compile(r"MMCV==(\d{1,3}(?:\.\d{1,4}){0,3}) is used but incompatible\. Please install "
                            r"mmcv>=(\d{1,3}(?:\.\d{1,4}){0,3}), ?(<=?)(\d{1,3}(?:\.\d{1,4}){0,3})\b(?![\w.]*[a-z])")


def _version_inside_range(line: str) -> str | None:
    """Why an OpenMMLab package refusing an mmcv inside the very range it names is its own check's fault: its version
    comparison (mmcv's digit_version of the 1.3 releases compared lists of unequal length, so 1.3.0 > 1.3); None when
    the version is outside the range, or one of them is not plain numbers (rc/dev releases order otherwise)."""
    m = _MMCV_RANGE_RE.search(line)
    if not m:
        return None

    def key(v: str) -> tuple[int, ...]:
        nums = [int(x) for x in v.split(".")]
        return tuple(nums + [0] * (4 - len(nums)))

    have, low, op, high = key(m.group(1)), key(m.group(2)), m.group(3), key(m.group(4))
    if low <= have and (have <= high if op == "<=" else have < high):
        return (f"mmcv {m.group(1)} is inside the range the check names (>={m.group(2)}, {op}{m.group(4)}): the "
                "package's version check compares wrongly (a release with the fixed check, or mmcv's own fix)")
    return None


def _driver_state_decides(c: list[str], facts: Facts, ev: Mapping[str, Any]) -> tuple[list[str], str] | None:
    """Readings the driver's state decides for a CUDA failure: told with a suspend/resume of the machine, or a kernel
    image/PTX the driver cannot load where its CUDA is older than the CUDA in use; None otherwise."""
    if (ev.get("kind") == "cuda_error" or ev.get("key") == "cuda_unknown_error_init") and \
            has_sign(facts, "suspend_said") and "driver_broken" in CODES:
        # a CUDA failure told with a suspend/resume (or hibernation) of the machine: the driver's state (nvidia_uvm's)
        # did not survive it; reloading nvidia_uvm or a reboot decides (the failure gone: it was the driver's state)
        return _first("driver_broken", c), (
            "the failure came after the machine was suspended or resumed, which the NVIDIA driver's state may not "
            "survive")
    if ev.get("name") in _PTX_JIT_ERRORS:
        # a kernel image or PTX the driver could not load where the driver's CUDA is older than the CUDA in use: the
        # driver cannot JIT PTX of a newer toolkit (CUDA's minor-version compatibility excludes it), and of a newer
        # major it cannot run the code at all
        dmax, used = value(facts, "driver", "cuda_driver_version"), cuda_in_use(facts)
        if dmax and used and tables.version_key(dmax) < tables.version_key(used):
            code = "driver_below_cuda_minor" if major(dmax) == major(used) else "driver_too_old"
            return _first(code, c), (
                f"the driver runs CUDA <= {dmax} and the code is built with CUDA {used}: its PTX is too new for the "
                "driver's JIT compiler")
    return None


def _platform_decides(c: list[str], s: set[str], facts: Facts, ev: Mapping[str, Any]) -> tuple[list[str], str] | None:
    """Readings the platform decides for a CUDA failure: a device image compiled at run time that the driver refuses,
    the nvidia kernel module finding no device, an insufficient driver on macOS, CUDA IPC refused between processes,
    a graphics-interop call the platform refuses; None otherwise."""
    said = str(ev.get("line") or "")
    low = said.lower()
    jit = _RUNTIME_COMPILER_RE.search(said) if ev.get("name") in _INVALID_IMAGE_ERRORS else None
    if jit and "driver_below_cuda_minor" in CODES:
        # code compiled at run time on this machine (pycuda's SourceModule with the nvcc on PATH, triton with its own
        # ptxas) is for this very GPU, so an image the driver calls invalid is one of a newer toolchain than the driver
        # (newer than its CUDA); pycuda's nvcc is whichever PATH gives, another toolkit than the one meant
        second = "multiple_cuda_toolkits" if jit.group(0).lower().startswith(("pycuda", "cumoduleload")) else \
            "no_kernel_image_for_gpu"
        return ["driver_below_cuda_minor", second], (
            f"the image was compiled at run time ({jit.group(0)}) for this GPU: the toolchain that made it is newer "
            "than the driver")
    if s & _NO_DEVICE_CODES and "no_gpu" in s and not _in_container_or_job(facts) and any(
            e.get("key") == "modprobe_nvidia_no_device" for e in events(facts, "torch", "message")):
        # the nvidia kernel module's own probe found no NVIDIA GPU (ENODEV): whatever CUDA then says of its devices
        return _first("no_gpu", c), (
            "the nvidia kernel module would not load: 'No such device', its probe found no NVIDIA GPU it supports")
    if ev.get("kind") == "cuda_error" and s == {"driver_too_old"} and value(facts, "context", "os") == "macos" and \
            not _has_gpu(facts) and not value(facts, "driver", "other_gpus"):
        # CUDA's driver on macOS (CUDA 10.2 was the last release for it) answers "insufficient driver" where the Mac has
        # no NVIDIA GPU (an AMD or Intel one): an older CUDA driver than the runtime, else no GPU CUDA can use (the
        # other vendor's GPU named: decide's reading, no_gpu first)
        return ["driver_too_old", "no_gpu"], "macOS, where most Macs have no NVIDIA GPU and CUDA ended with 10.2"
    if "driver_too_old" in s and "insufficient" in low and value(facts, "context", "container_gpu_flag") is False:
        # (round 32b) the text's own docker/podman run gives the container no GPU (no --gpus, NVIDIA runtime or
        # device): the NVIDIA runtime mounts the host driver's libcuda into the container at start, and a CUDA runtime
        # that finds no driver library answers cudaErrorInsufficientDriver (35) whatever the host driver's age.
        # NVIDIA's nvidia-docker maintainer (NVIDIA/nvidia-docker#24, 'CUDA driver version is insufficient despite
        # sufficient drivers'): "we need to mount the driver libraries from the host inside the container when it is
        # started"; the NVIDIA Container Toolkit docs (docker run --runtime=nvidia / --gpus all)
        return ["gpu_not_exposed_to_process", "driver_too_old"], (
            "the text's container command gives the container no GPU (no --gpus / NVIDIA runtime): no driver "
            "library inside it, which CUDA's runtime reports as an insufficient driver")
    if "driver_too_old" in s and "insufficient" in low and "found version" not in low and \
            "gpu_not_exposed_to_process" in CODES and value(facts, "driver", "driver_version"):
        # (round 32h) cudaErrorInsufficientDriver (35) where the driver the text names runs the CUDA in use (its
        # newest CUDA, tables/cuda_driver.csv, at or above the CUDA of the torch build, the build's nvcc or the CUDA
        # the text names): the CUDA runtime found no driver library of that driver, not an old one. cudart answers
        # 35 when libcuda.so.1 cannot be loaded (a container without the NVIDIA runtime, a docker build step, which
        # never has the GPU) or a stub libcuda is found first (toolkit's lib64/stubs on LD_LIBRARY_PATH); the
        # nvidia-docker maintainers (NVIDIA/nvidia-docker#24, 'CUDA driver version is insufficient despite sufficient
        # drivers': "we need to mount the driver libraries from the host inside the container when it is started")
        # the CUDA of the failing code, known: torch's build, the build's nvcc, or a CUDA container image's tag (not a
        # CUDA the reporter names in prose, often the driver's own or another toolkit's)
        image_line = str(((facts.get("toolkit") or {}).get("read_from") or {}).get("cuda_named") or "")
        used = value(facts, "torch", "cuda") or value(facts, "toolkit", "build_nvcc_version") or (
            cuda_in_use(facts) if _CUDA_IMAGE_TAG_RE.search(image_line) else None)
        dmax = value(facts, "driver", "cuda_driver_version")
        if dmax and used and tables.version_key(dmax) >= tables.version_key(used):
            return ["gpu_not_exposed_to_process", "driver_too_old"], (
                f"the driver the text names runs CUDA <= {dmax}, and the code uses CUDA {used}: the process found no "
                "library of that driver (a container or docker build step without the NVIDIA runtime, a stub libcuda)")
    if ev.get("kind") == "cuda_error" and "user_code_error" in s and \
            "cuipcopenmemhandle" in low:
        # CUDA IPC refusing another process's memory (an invalid value or context from cuIpcOpenMemHandle): the peer's
        # GPU hidden from this process or no peer access between the two (library_messages cuda_ipc_open_refused), not
        # the arguments of the calling code (a handle MPI or NCCL made and passed on)
        return ["gpu_not_exposed_to_process", "gpu_p2p_unsupported"], (
            "the call that failed is cuIpcOpenMemHandle, which maps another process's GPU memory into this one")
    if ev.get("name") in ("cudaErrorOperatingSystem", "CUDA_ERROR_OPERATING_SYSTEM") and "opengl_egl_unavailable" in \
            CODES and _GRAPHICS_INTEROP_RE.search(said):
        # a CUDA-OpenGL/Direct3D interop call refused by the platform (WSL 2 has no CUDA-GL interop): the graphics
        # context CUDA cannot reach, not a broken driver
        return _first("opengl_egl_unavailable", c), (
            "the call that failed is a CUDA graphics-interop call (cudaGraphics*GL*/D3D*): the platform gives CUDA no "
            "access to the graphics context")
    if {"driver_broken", "user_code_error"} <= s and "cuinit" in low and "initialization error" in low and \
            has_sign(facts, "forked_child"):
        # cuInit's own 'initialization error' (CUDA_ERROR_NOT_INITIALIZED) in a process forked from one that
        # initialised CUDA: CUDA's state does not survive fork(), the child must be started with spawn; else the
        # driver's initialisation itself failed
        return ["user_code_error", "driver_broken"], "the text tells of a forked (multiprocessing) child process"
    if ev.get("table") == "container_messages" and ev.get("key") in _DOCKER_GPU_REQUEST_ROWS and \
            (value(facts, "context", "os") == "macos" or value(facts, "driver", "other_gpus")) and not _has_gpu(facts):
        # docker run --gpus on a Mac: Docker Desktop runs containers in a Linux VM that no NVIDIA GPU reaches, and the
        # Mac has none CUDA can use (Apple silicon, or an AMD/Intel GPU): no GPU to give, whatever the daemon lacks
        # (round 18: the same where the text names the machine's GPU as another vendor's, Intel's or AMD's, and no
        # NVIDIA one: the daemon has no NVIDIA device to hand over)
        return ["no_gpu", "gpu_not_exposed_to_process"], (
            "the container was started on macOS, whose Docker runs a Linux VM without an NVIDIA GPU"
            if value(facts, "context", "os") == "macos" else
            f"the machine's GPU is {value(facts, 'driver', 'other_gpus')[0]} (not NVIDIA's)")
    if s & {"driver_broken", "gpu_not_exposed_to_process", "no_gpu"} and has_sign(facts, "colab") and \
            (ev.get("key") in _NO_DRIVER_ROWS or ev.get("sign") == "nvrm") and not _has_gpu(facts) and \
            not _in_container_or_job(facts):
        # Google Colab's driver is the service's: nvidia-smi failing to reach it (or NVML finding none) in a Colab
        # runtime is a runtime started without a GPU accelerator (Runtime > Change runtime type), not a broken install
        return _first("no_gpu", c), (
            "a Google Colab runtime, whose driver comes with a GPU accelerator chosen for the runtime")
    if "no_gpu" in s and s & {"gpu_not_exposed_to_process", "driver_broken", "driver_too_old"} and \
            has_sign(facts, "no_gpu_said") and not _has_gpu(facts) and not _in_container_or_job(facts):
        # the user says the machine has no (NVIDIA) GPU, and no GPU is named nor a container or job shown: no device to
        # give the process, no driver to break (round 18b: gpu_not_exposed_to_process was first on such texts)
        return _first("no_gpu", c), (
            "the text says the machine has no NVIDIA GPU")
    if ev.get("key") == "torch_distributed_no_nccl" and value(facts, "context", "os") in ("windows", "macos"):
        # torch's Windows and macOS builds have no NCCL at all (CUDA build or not): the code's choice of backend;
        # (round 27e, blind audit 27) no CPU-only reading beside it: no torch reinstall gives NCCL there
        return ["user_code_error"], (
            f"{value(facts, 'context', 'os')}, where no torch build has NCCL (gloo is its backend)")
    return None


#: container_messages rows of docker's GPU request refused (moby's 'could not select device driver', no nvidia runtime)
_DOCKER_GPU_REQUEST_ROWS = frozenset({"no_device_driver", "unknown_runtime"})
#: nvidia_smi_messages rows of no driver reached (nvidia-smi's 'couldn't communicate', NVML's driver not loaded / its
#: library not found); the nvrm sign ('nvidia-smi has failed') is the same failure told in prose
_NO_DRIVER_ROWS = frozenset({"couldnt_communicate", "driver_not_loaded_pynvml", "library_not_found_pynvml",
                             "nvml_lib_not_found"})


def _xformers_beside_cuda_torch(facts: Facts, ev: Mapping[str, Any]) -> bool:
    """(round 28a, blind audit 27) xformers' dispatcher finding no operator beside a CUDA torch the text shows
    (xformers' own warning: "built for: PyTorch 2.1.0+cu121 ... (you have 2.3.1+cu121)"): no CPU build in the text;
    its reasons ('device=cpu', "wasn't build with CUDA support") would say one."""
    line = str(ev.get("line") or "").lower()
    return ev.get("key") == "xformers_no_operator_found" and "+cu" in str(value(facts, "torch", "version") or "") \
        and "build with cuda support" not in line and "device=cpu" not in line


def gpu_shown(facts: Facts) -> bool:
    """(round 30b, blind audit 29) Whether a GPU or CUDA in use is shown: a word of the text (``context.gpu_said``: a
    GPU, its vendor, a CUDA device, call, library or release; not the lines of torch's build helpers that only look for
    the toolkit), a GPU or driver the text names, or this machine's GPUs. A CPU-only torch is a cause only "on a machine
    with an NVIDIA GPU" (CODES.md): a CPU kernel's internal assert beside torch '+cpu', or a CUDA_HOME that is not set
    while a CUDA extension is configured, shows none (torch '+cpu' alone is the machine's choice)."""
    return bool(value(facts, "context", "gpu_said") or value(facts, "driver", "gpus") or
                value(facts, "driver", "gpus_named") or value(facts, "driver", "driver_version"))


def _no_gpu_here(facts: Facts) -> bool:
    """Whether this machine's probe (explain with live facts, not a text read alone) found no NVIDIA driver or GPU and
    the text names none (a GPU or driver of its own would be another machine's): code that asks for CUDA here (".cuda()")
    meets a machine without a GPU, whatever torch's build."""
    drv = facts.get("driver")
    return bool(isinstance(drv, Mapping) and drv.get("status") == "absent" and not from_text(facts, "driver"))


def _gpu_to_show(facts: Facts, ev: Mapping[str, Any]) -> bool:
    """(round 30b) Whether the CPU-build reading of ``ev`` needs a GPU shown elsewhere (:func:`gpu_shown`): torch's
    '+cpu' listed beside a failure (a state, which says nothing of a GPU itself), and a CUDA_HOME that is not set with no
    CPU torch shown (cpp_extension's toolkit lookup; with torch '+cpu' shown, CUDA_HOME is None because of it, torch 2.3
    and later). A library's own message about its missing GPU build (onnxruntime's providers, FFmpeg's NVENC, OpenCV's
    CUDA module, torch's "not compiled with CUDA") is itself the GPU asked for."""
    return ev.get("kind") == "state" or (ev.get("key") == "cuda_home_not_set" and not value(facts, "torch", "cpu_build"))


def _ruled_out(c: list[str], facts: Facts, ev: Mapping[str, Any]) -> list[str]:
    """(round 28c) Readings the text's own facts rule out: a CPU-only torch where the text shows torch's CUDA build
    (+cuXYZ) and the message itself does not say torch has no CUDA ("Torch not compiled with CUDA enabled" is the
    running torch's own word, whatever a listing shows); a binary of another CUDA where the same binary loads in a
    terminal."""
    if "cpu_only_torch_with_gpu" in c and len(c) > 1 and value(facts, "torch", "cuda") and not value(
            facts, "torch", "cpu_build") and "compiled with cuda" not in str(ev.get("line") or "").lower():
        c.remove("cpu_only_torch_with_gpu")
    if "cpu_only_torch_with_gpu" in c and _gpu_to_show(facts, ev) and not gpu_shown(facts):
        c.remove("cpu_only_torch_with_gpu")  # (round 30b) "a CPU-only torch on a machine with an NVIDIA GPU": no GPU
    if "cpu_only_torch_with_gpu" in c and _no_gpu_here(facts):
        # (blind audit 30, E01/E02) explain on the machine where it failed, which has no NVIDIA GPU, and a text that
        # shows none: the CPU build is no cause there ("on a machine with an NVIDIA GPU"); the machine's reading is
        c[c.index("cpu_only_torch_with_gpu")] = "no_gpu"
        c[:] = list(dict.fromkeys(c))
    if "cpu_only_torch_with_gpu" in c and len(c) > 1 and value(facts, "torch", "cuda_available") is True:
        # (round 31c) torch.cuda.is_available() said True: this torch has CUDA
        c.remove("cpu_only_torch_with_gpu")
    if "prebuilt_binary_wrong_cuda" in c and len(c) > 1 and has_sign(facts, "terminal_works"):
        c.remove("prebuilt_binary_wrong_cuda")
    if "cpu_only_torch_with_gpu" in c and len(c) > 1 and any(
            e.get("key") == "xformers:not_built_with_cuda" for e in events(facts, kind="message", table="extension_checks")):
        # xformers says "xFormers wasn't build with CUDA support" only of a CUDA tensor (xformers/ops/fmha/common.py
        # not_supported_reasons: device_type == "cuda" and not _built_with_cuda): torch has CUDA, xformers' library not
        c.remove("cpu_only_torch_with_gpu")
    if {"extension_not_compiled", "companion_built_for_other_torch"} <= set(c) and _built_for_other_torch(facts, ev):
        # (round 37f, blind audit 37 F12) the same package's own words say its build is of another torch ("xFormers
        # was built for: PyTorch 2.1.0+cu121 ... (you have 2.2.0+cu121)"): its library exists and does not load, so
        # the release made for this torch, not an unpinned rebuild that pulls the mismatch back
        c.remove("extension_not_compiled")
    if c and set(c) & {"no_gpu", "gpu_not_exposed_to_process"} and has_sign(facts, "nvidia_smi_missing") and \
            gpu_shown(facts) and any(e.get("key") == "load_library_failed" for e in events(facts, kind="message",
                                                                                            table="container_messages")):
        # (round 37f, blind audit 37 F16) NVIDIA's container runtime finds no libnvidia-ml.so.1 on the host, whose
        # nvidia-smi is not even installed, and the GPU is there (lspci): the host has no driver, which neither --gpus
        # nor a kernel module load gives
        c[:] = ["no_gpu"]
    if "torch_wheel_lacks_gpu_arch" in c and len(c) > 1 and (cupy_fails(facts) or own_program_fails(facts)):
        c.remove("torch_wheel_lacks_gpu_arch")  # (round 37f) CuPy's code or a program of its own failed, no torch shown
    if "user_code_error" in c and len(c) > 1 and has_sign(facts, "nvrtc_arch") and (
            ("unsupported_gpu_arch" in c and cupy_fails(facts)) or ev.get("kind") == "cuda_error"):
        # (rounds 37e, 37f) the option NVRTC refused is the GPU architecture (nvrtc's "invalid value for
        # --gpu-architecture"; CuPy's -arch for this GPU): the setup's release against the GPU, not the code's arguments
        c.remove("user_code_error")
    return c


def _built_for_other_torch(facts: Facts, ev: Mapping[str, Any]) -> bool:
    """(round 37f) The text holds the package's own 'built for another torch' check (extension_checks.csv's
    ``<package>:built_for_other`` row) beside the event of ``ev`` of the same package."""
    pkg = str(ev.get("key") or "").partition(":")[0]
    return bool(pkg) and ev.get("table") == "extension_checks" and any(
        e.get("key") == f"{pkg}:built_for_other" for e in events(facts, kind="message", table="extension_checks"))


def ruled_out_by_facts(code: str, facts: Facts) -> bool:
    """(round 37e) Whether the text's own facts rule ``code`` out as a reading (:func:`_ruled_out`): a similar
    report's guess of a CPU-only torch beside a text showing torch's CUDA build, say. Asked with a second, empty
    reading beside it (the checks that keep a lone reading apply to a guess beside a rule's) and no event."""
    return code not in _ruled_out([code, ""], facts, {})


def _worked_before(facts: Facts) -> str:
    """What decides a driver that worked before: the kernel update the text names (its module must be rebuilt), else
    a state of the driver with the setup unchanged."""
    if any("kernel" in str(e.get("phrase") or "") for e in events(facts, "driver", "sign") if e.get("sign") == "worked_before"):
        return "the GPU worked before the kernel update the text names: the driver's module must be built (DKMS) and " \
               "loaded for the new kernel"
    return "the GPU worked on this machine before and the setup did not change"


def _worked_before_reading(c: list[str], facts: Facts) -> tuple[list[str], str]:
    """The GPU worked here and nothing in the setup changed: the driver's state (a kernel or driver update without a
    reboot, a module unloaded, a suspend), not a missing GPU or a process not given it."""
    c = ["driver_broken"] + [x for x in c if x not in ("driver_broken", "no_gpu")]
    return c[:MAX_READINGS], _worked_before(facts)


def _only_this_machine_gives_the_gpu(facts: Facts) -> bool:
    """(blind audit 37, F13) Whether what would decide that the process is not given the GPU (a container or job, a
    CUDA_VISIBLE_DEVICES) is this machine's fact alone, the text showing none of it."""
    cvd = value(facts, "context", "cuda_visible_devices")
    return bool(_in_container_or_job(facts) and _whose_container(facts)) or (
        not _in_container_or_job(facts) and cvd is not None and not from_text(facts, "context", "cuda_visible_devices"))


def _hardware_decides(s: set[str], facts: Facts) -> tuple[list[str], str] | None:
    """(round 28c) The kernel's own log (an NVRM Xid line whose row reads a hardware fault only) says the GPU failed:
    not a driver module that is not loaded."""
    if not {"driver_broken", "gpu_hardware_fault"} <= s:
        return None
    hw = next((e for e in events(facts, "driver", "message") if list(e.get("codes") or ()) == ["gpu_hardware_fault"]),
              None)
    if hw is None:
        return None
    return ["gpu_hardware_fault", "driver_broken"], (
        f"the text's kernel log reports the GPU's own failure ({str(hw.get('line') or '').strip()[:90]})")


def _wsl_decides(c: list[str], s: set[str], facts: Facts) -> tuple[list[str], str] | None:
    """(round 28c) Under WSL2 (no container, no job) the Windows driver gives the GPU: one older than R470, CUDA on WSL
    2's first production drivers, is the driver's reading first; else the GPU not given to WSL."""
    if not value(facts, "context", "wsl") or value(facts, "context", "container") or value(facts, "context", "slurm"):
        return None
    dv = str(value(facts, "driver", "driver_version") or "")
    if "driver_broken" in s and re.fullmatch(r"\d{3}(?:\.\d+)*", dv) and int(dv[:3]) < _WSL_MIN_DRIVER:
        c = ["driver_broken"] + [x for x in c if x not in ("driver_broken", "no_gpu")]
        return c[:MAX_READINGS], (f"under WSL2 the Windows NVIDIA driver gives the GPU, and the text's {dv} is older "
                                  f"than R{_WSL_MIN_DRIVER}, the first production drivers with CUDA on WSL 2")
    c = ["gpu_not_exposed_to_process"] + [x for x in c if x not in ("gpu_not_exposed_to_process", "no_gpu")]
    return c, "under WSL2 the Windows NVIDIA driver gives the GPU to WSL (no Linux driver inside it)"


def _stub_libcuda_decides(c: list[str], s: set[str], facts: Facts, llp: str) -> tuple[list[str], str] | None:
    """No driver or no device read as a libcuda that is not the driver's, where LD_LIBRARY_PATH shows one: a
    ``stubs`` directory on it (the text's or the machine's), or (round 33) the machine's first ``libcuda.so.1`` on it
    that is not the driver's (probes/_loader.py's ``libcuda_on_path``)."""
    if not s & {"gpu_not_exposed_to_process", "no_gpu", "driver_broken"}:
        return None
    if "/stubs" in llp:
        # (round 37e) the stub answers every call with an error: not the calling code's
        c = [x for x in c if x != "user_code_error"]
        return ["cuda_stub_driver_loaded"] + c[:MAX_READINGS - 1], (
            f"LD_LIBRARY_PATH holds a stubs directory ({llp[:120]}): the toolkit's stub libcuda.so is loaded")
    lc = value(facts, "loader", "libcuda_on_path")
    if isinstance(lc, Mapping) and lc.get("not_driver"):
        return _first("cuda_stub_driver_loaded", c), (
            f"{lc.get('path')} comes first on LD_LIBRARY_PATH and is not the driver's ({lc['not_driver']})")
    return None


def decide(codes: Iterable[str], facts: Facts, ev: Mapping[str, Any]) -> tuple[list[str], str | None]:
    """``(readings, how)``: the codes of an event ordered by what the facts say (the first one the facts
    chose, when they could), and one line saying what decided, or None when nothing did."""
    c = _ruled_out([x for x in codes if x in CODES], facts, ev)
    s = set(c)
    said = _message_decides(c, s, facts, ev) or _driver_state_decides(c, facts, ev) or \
        _platform_decides(c, s, facts, ev) or _hardware_decides(s, facts)
    if said:
        return said

    def first(code: str, how: str) -> tuple[list[str], str]:
        return [code], how

    if {"cudart_not_found", "prebuilt_binary_wrong_cuda"} <= s:
        lm, have = _lib_major(ev), cuda_majors(facts)
        if lm and have:
            if lm not in have:
                return first("prebuilt_binary_wrong_cuda", f"the library is of CUDA {lm}; this environment has CUDA "
                             f"{', '.join(map(str, sorted(have)))}")
            return first("cudart_not_found", f"CUDA {lm} is this environment's own CUDA major")
        named = {major(v) for v in value(facts, "toolkit", "cuda_named") or []} - {None}
        if lm and not have and named and lm not in named:  # no torch or nvcc shown: the CUDA release the text names
            return ["prebuilt_binary_wrong_cuda", "cudart_not_found"], (
                f"the library is of CUDA {lm}; the text names CUDA {', '.join(map(str, sorted(named)))}")
    llp = str(value(facts, "loader", "current_ld_library_path") or value(facts, "loader", "start_ld_library_path") or "")
    if stub := _stub_libcuda_decides(c, s, facts, llp):
        return stub
    if ev.get("key") == "device_count_unexpected" or (
            ev.get("kind") == "cuda_error" and "error from cudaGetDeviceCount" in str(ev.get("line") or "")):
        got = _device_count_reading(facts, c)
        if got:
            return got
    if {"driver_broken", "forward_compat_unsupported"} <= s and ("compat" in llp or has_sign(facts, "compat_package")):
        return ["forward_compat_unsupported"] + ([] if "compat" in llp else ["driver_broken"]), (
            f"LD_LIBRARY_PATH holds a CUDA forward-compatibility directory ({llp[:120]})" if "compat" in llp else
            "the text names the CUDA forward-compatibility package (cuda-compat)")
    if {"driver_broken", "forward_compat_unsupported"} <= s:
        dmax, used = value(facts, "driver", "cuda_driver_version"), cuda_in_use(facts)
        if dmax and used and tables.version_key(dmax) < tables.version_key(used):
            # the driver works (it answers with its version) and is older than the CUDA in use, so a compat package
            # was loaded to run it, which this GPU refuses. Another major: without the compat package the driver
            # cannot run it at all (a newer driver first); the same major: minor-version compatibility would run it
            # without the compat package (removing it first, a newer driver second)
            how = f"the driver runs CUDA <= {dmax} and the text uses CUDA {used}"
            if major(dmax) != major(used):
                return ["driver_too_old", "forward_compat_unsupported"], how + " (another major)"
            return ["forward_compat_unsupported", "driver_too_old"], how + " (the same major)"
    if value(facts, "driver", "other_gpus") and not _has_gpu(facts) and s & _NO_DEVICE_CODES and not \
            _in_container_or_job(facts):
        # the text names another vendor's GPU and no NVIDIA one: CUDA has no device here, whatever the runtime said
        return _first("no_gpu", c), (
            f"the machine's GPU is {value(facts, 'driver', 'other_gpus')[0]} (not NVIDIA's)")
    if ev.get("kind") == "cuda_error" and s & {"driver_broken", "user_code_error"} and has_sign(facts, "display_reset"):
        return _first("gpu_watchdog_timeout", c, 2), (
            "the display went black with the error: Windows' display-driver watchdog (TDR) reset the GPU under a "
            "long kernel")
    if {"no_gpu", "gpu_not_exposed_to_process"} <= s or {"driver_broken", "gpu_not_exposed_to_process"} <= s:
        if wsl := _wsl_decides(c, s, facts):
            return wsl
        if has_sign(facts, "worked_before") and "driver_broken" in s and _only_this_machine_gives_the_gpu(facts):
            # (blind audit 37, F13) the text says the GPU worked before (a kernel update): its own evidence decides,
            # not a container, job or CUDA_VISIBLE_DEVICES of this machine's that the text does not show
            return _worked_before_reading(c, facts)
        if _in_container_or_job(facts):
            c = _first("gpu_not_exposed_to_process", c, None)
            if "no_gpu" in c and not _runtime_reports_host(ev):
                c.remove("no_gpu")
            return c, "the process runs in a container or a job, which must be given the GPU" + _whose_container(facts)
        cvd = value(facts, "context", "cuda_visible_devices")
        if cvd is not None and "gpu_not_exposed_to_process" in s:
            c = ["gpu_not_exposed_to_process"] + [x for x in c if x != "gpu_not_exposed_to_process" and not (
                _has_gpu(facts) and x in ("no_gpu", "driver_broken"))]  # (round 28c) nvidia-smi answers: neither
            return c[:MAX_READINGS], (f"CUDA_VISIBLE_DEVICES={cvd!s} chooses which GPUs CUDA shows this process"
                                      + (" (empty: none)" if not cvd else ""))
        if has_sign(facts, "worked_before") and "driver_broken" in s:
            return _worked_before_reading(c, facts)
        if _has_gpu(facts) and "no_gpu" in s:
            c.remove("no_gpu")
            return c, "the machine has an NVIDIA driver and GPU (nvidia-smi answers)"
        if value(facts, "driver", "status") == "absent" and "no_gpu" in s:
            return first("no_gpu", "no NVIDIA driver or GPU on this machine")
    if {"driver_broken", "user_code_error"} <= s:
        said = str(ev.get("line") or "").lower()
        if "cuinit" in said or "init failure" in said or "init failed" in said:
            return first("driver_broken", "the call that failed is the driver's initialisation (cuInit) itself, which "
                                          "no calling code can skip")
        if ev.get("name") == "CUDA_ERROR_NOT_INITIALIZED":
            c = ["user_code_error", "driver_broken"]  # a driver API call before cuInit (after a fork), else init failed
    if {"no_kernel_image_for_gpu", "torch_wheel_lacks_gpu_arch"} <= s:
        whose = _whose_kernels(facts)
        if whose:
            return whose
    if {"unsupported_gpu_arch", "torch_wheel_lacks_gpu_arch"} <= s:
        # a compiler that does not know the GPU: the toolkit's nvcc/NVRTC, or the NVRTC of torch's own CUDA (torch
        # ships it and compiles with it at run time); torch's CUDA release against the GPU decides
        from smrnb.doctor._install import cc_to_int, nvcc_archs

        tc, ccs = value(facts, "torch", "cuda"), gpu_ccs(facts)
        known = nvcc_archs(tc) if tc else None
        newer = [cc for cc in ccs if known and (cc_to_int(cc) or 0) > max(known)]
        if newer:
            return ["torch_wheel_lacks_gpu_arch", "unsupported_gpu_arch"], (
                f"torch's CUDA {tc} compiles for compute capabilities up to {max(known) // 10}.{max(known) % 10}; "
                f"the GPU is {', '.join(newer)}")
    if {"build_dependency_missing", "companion_built_for_other_torch"} <= s and value(facts, "torch", "triton_version"):
        return first("companion_built_for_other_torch", f"triton {value(facts, 'torch', 'triton_version')} is installed: "
                     "another release than this torch pins")
    if {"build_dependency_missing", "windows_msvc_toolchain"} <= s:
        if value(facts, "context", "os") == "windows":
            return ["windows_msvc_toolchain", "build_dependency_missing"], "Windows: the compiler is MSVC's cl.exe"
        return ["build_dependency_missing", "windows_msvc_toolchain"], None
    if {"cpu_only_torch_with_gpu", "no_gpu"} <= s and value(facts, "context", "os") == "macos":
        return first("no_gpu", "macOS: no NVIDIA GPU, no CUDA build of torch")
    if {"cpu_only_torch_with_gpu"} & s and value(facts, "torch", "cpu_build"):
        return first("cpu_only_torch_with_gpu", "torch is a CPU-only build ('+cpu')")
    if {"cuda_home_missing", "cpu_only_torch_with_gpu"} <= s and _no_cpu_build(facts):
        return [x for x in c if x != "cpu_only_torch_with_gpu"], _no_cpu_build(facts)
    if "cpu_only_torch_with_gpu" in s and len(c) > 1 and _xformers_beside_cuda_torch(facts, ev):
        return [x for x in c if x != "cpu_only_torch_with_gpu"], "the text shows a CUDA build of torch (+cu)"
    if "cpu_only_torch_with_gpu" in s and value(facts, "torch", "cuda") and len(c) > 1:
        c.append(c.pop(c.index("cpu_only_torch_with_gpu")))  # (round 24a) a CUDA torch listed: the CPU build last
    if "cuda_home_malformed" in s and len(s) > 1 and value(facts, "toolkit", "cuda_home_malformed"):
        return first("cuda_home_malformed", "the CUDA_HOME value is not one toolkit directory")
    if {"library_shadowed_older_copy", "symbol_version_missing"} <= s:
        lib = str(ev.get("groups", {}).get("ver") or ev.get("version") or "")
        if lib.startswith(("GLIBC", "GLIBCXX", "CXXABI")):
            return first("symbol_version_missing", "a C library version")
        return first("library_shadowed_older_copy", "a version of a library that is not the C library")
    gcc = value(facts, "toolkit", "gcc") or {}
    if ev.get("key") == "cxx17_required" and isinstance(gcc, Mapping) and int(gcc.get("major") or 0) >= 8:
        return ["library_bug", "host_compiler_unsupported"], (
            f"gcc {gcc.get('version')} compiles C++17: the build's own -std flag (its setup.py or CMakeLists) asks "
            "for an older standard")
    if ev.get("key") == "value_not_defined" and not str((ev.get("groups") or {}).get("value") or "").strip():
        return first("user_code_error", "the option's value is empty: the build command passes the option with nothing "
                                        "after it (an unset variable, a flag split or mangled in the build script)")
    if ev.get("key") == "value_not_defined" and str((ev.get("groups") or {}).get("option")) in _ARCH_OPTIONS:
        val = str((ev.get("groups") or {}).get("value") or "")
        if _ARCH_VALUE_RE.fullmatch(val):
            return first("unsupported_gpu_arch", f"'{val}' is a GPU architecture this nvcc release does not know "
                                                 "(too new for it, or dropped by it)")
        if val.lower() not in _ARCH_KEYWORDS:
            return first("user_code_error", f"'{val}' is not written as an architecture (compute_XY, sm_XY, lto_XY): "
                                            "the build command or script passes it malformed")
    if {"nvcc_option_unsupported", "nvcc_torch_cuda_mismatch"} <= s:
        nv, tc = value(facts, "toolkit", "build_nvcc_version"), value(facts, "torch", "cuda")
        if nv and tc and major(nv) != major(tc):
            return first("nvcc_torch_cuda_mismatch", f"nvcc {nv} is of another CUDA major than torch's {tc}")
        return first("nvcc_option_unsupported", "the option is one this nvcc release lacks")
    return c[:MAX_READINGS], None


#: CUDA's graphics-interoperability calls (cudaGraphicsGLRegisterImage, cudaGraphicsD3D11RegisterResource, ...)
#: (round 32h) or the location cupoch's visualizer prints after a failed call ("Error: <message>\t<file>:<line>",
#: neka-nat/cupoch src/cupoch/utility/platform.h cudaSafeCall): its src/cupoch/visualization/shader/*_shader.cu files
#: call only graphics-interop functions (cudaGraphicsGLRegisterBuffer, cudaGraphicsMapResources) through it
_GRAPHICS_INTEROP_RE = re.compile(r"\bcu(?:da)?Graphics(?:GL|D3D\d{1,2}|EGL|VDPAU)\w{0,40}|"
                                  r"operation not supported on this OS[ \t]{1,4}\w{1,40}_shader\.cu:\d+")
#: (round 32h) a CUDA container image's tag naming its CUDA release (nvidia/cuda:7.5-cudnn5-devel-ubuntu14.04)
_CUDA_IMAGE_TAG_RE = re.compile(r"\bnvidia/cuda:\d{1,2}\.\d")
#: codes of a process that finds no usable CUDA device (the machine may have none at all)
_NO_DEVICE_CODES = frozenset({"driver_too_old", "driver_broken", "gpu_not_exposed_to_process", "no_gpu",
                              "torch_cuda_unavailable", "cpu_only_torch_with_gpu"})
#: nvcc options whose value is a GPU architecture, and the keywords they accept besides one
_ARCH_OPTIONS = frozenset({"gpu-architecture", "gpu-name", "gpu-code", "arch", "code"})
_ARCH_KEYWORDS = frozenset({"all", "all-major", "native"})
_ARCH_VALUE_RE = re.compile(r"(?:compute|sm|lto)_[0-9]{2,3}[a-z]?")


# ------------------------------------------------------------------ building findings
def default_build(code: str, ev: Mapping[str, Any]) -> dict[str, Any]:
    # the row's meaning describes its first reading; another reading of the same row gets its own code's words (two
    # readings of one line never share a title)
    first = list(ev.get("codes") or ())[:1]
    meaning = str((ev.get("meaning") if not first or first[0] == code else None) or CODES[code].meaning)
    # the first clause, its parentheses left out ("On NVSwitch systems (HGX/DGX) CUDA cannot start ..." keeps its end)
    title = re.sub(r" \([^()]{0,200}\)", "", first_clause(meaning)).rstrip(".")
    return {"title": cut_at_word(title, 160), "commands": [CODES[code].check] if CODES[code].check else []}


def first_clause(meaning: str) -> str:
    """(round 28c) A row's meaning up to its first ': ' or '; ' outside parentheses ("... not on PATH (on Windows: no Visual
    Studio developer environment)." is one clause, not cut inside its parenthesis)."""
    depth = 0
    for i, ch in enumerate(meaning):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch in ":;" and depth == 0 and meaning[i + 1:i + 2] == " ":
            return meaning[:i]
    return meaning


#: how often a cause is the root when a text shows several (lower first): a broken driver before the
#: library it makes fail, a specific loader failure before the build that stopped because of it
PRIORITY: dict[str, int] = {
    "driver_broken": 10, "gpu_hardware_fault": 10, "library_shadowed_older_copy": 11, "cuda_stub_driver_loaded": 11,
    "driver_too_old": 12, "gpu_busy_exclusive": 12, "gpu_watchdog_timeout": 12, "fabric_manager_not_running": 12,
    "forward_compat_unsupported": 12, "cuda_mps_failure": 12, "vgpu_not_licensed": 12, "gpu_device_permission_denied": 12,
    "wrong_architecture_binary": 12, "binary_corrupt": 12, "static_tls_exhausted": 12, "loader_security_policy": 12,
    "companion_built_for_other_torch": 13, "kaolin_no_wheel_for_combo": 14, "package_no_build_for_platform": 14,
    "gpu_not_exposed_to_process": 14,
    "cuda_home_malformed": 14, "slurm_gpu_request_rejected": 14, "slurm_memory_request_rejected": 13, "opengl_egl_unavailable": 14, "gpu_p2p_unsupported": 14,
    "cuda_oom": 15, "windows_msvc_toolchain": 15, "torch_not_found_at_build": 15, "toolkit_below_extension_minimum": 15,
    "torch_wheel_lacks_gpu_arch": 16, "gpu_below_extension_minimum": 16, "torch_api_incompatible_source": 16, "source_needs_newer_torch": 16,
    "extension_torch_version_gate": 16, "arch_list_value_rejected": 16, "user_code_error": 16,
    "abi_torch_version_mismatch": 17, "cxx11_abi_mismatch": 17, "host_compiler_unsupported": 17,
    "driver_below_cuda_minor": 17, "cpu_only_torch_with_gpu": 18, "symbol_version_missing": 18, "libstdcxx_too_old": 18,
    "nvcc_option_unsupported": 18, "native_library_conflict": 18, "cuda_home_missing": 19, "kernel_wrong_python": 19,
    "env_not_propagated_to_kernel": 19, "no_gpu": 20, "kaolin_version_gate": 20, "extension_not_compiled": 20,
    "torch_libs_not_loaded": 20, "library_bug": 20, "nvcc_torch_cuda_mismatch": 21, "ninja_missing": 22,
    "no_kernel_image_for_gpu": 22, "unsupported_gpu_arch": 22, "extension_undefined_symbol": 24,
    "build_dependency_missing": 24, "prebuilt_binary_wrong_cuda": 25, "cudart_not_found": 25,
    "cuda_home_incomplete": 26, "library_not_found": 30, "package_api_version_mismatch": 30,
    "multiple_cuda_toolkits": 40, "extension_build_failed": 40, "driver_cuda_version_not_toolkit": 28,
    "torch_cuda_unavailable": 26, "kernel_restart_needed": 19, "nccl_network_unreachable": 14,
    "python_package_missing": 21, "port_in_use": 14, "host_memory_exhausted": 14, "script_code_in_kernel": 16,
}


def rank_of(code: str, weight: int = 10, reading: int = 0) -> int:
    """The rank of a finding of ``code`` from a reading of ``weight`` (lower first): the cause's priority,
    then how specific the wording was, then the order of the readings of one event."""
    return PRIORITY.get(code, 25) + max(0, int(weight) - 10) // 3 + 2 * reading


#: commands that exist on Linux alone: a report of a Windows machine does not offer them
_LINUX_ONLY = ("apt-file ", "apt-get ", "apt ", "dpkg ", "ldconfig", "ldd ", "yum ", "dnf ", "sudo ")


def _package_named(facts: Facts, ev: Mapping[str, Any]) -> str:
    """The top-level module the text could not import (the event's, else the text's first), to put in a command's
    ``<package>``; ``""`` when none or several."""
    mods = [str(ev["module"])] if ev.get("module") else list(dict.fromkeys(
        str(e.get("module")) for e in events(facts, "torch", "module_missing") if e.get("module")))
    tops = {m.split(".")[0] for m in mods}
    top = next(iter(tops)) if len(tops) == 1 else ""
    return top if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,60}", top) else ""


#: (round 32k) the fix of a HIP runtime error's reading (tables/hip_errors.csv): ROCm's tools, not CUDA's. rocminfo
#: prints the GPU's gfx target (ROCm/rocminfo), rocm-smi its state; HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES hide
#: GPUs (ROCm docs, "GPU isolation techniques"); /dev/kfd and /dev/dri/renderD* belong to the render and video groups
#: (ROCm install docs, "Configuring permissions for GPU access"); a container needs --device=/dev/kfd --device=/dev/dri
#: (ROCm docs, "Running ROCm Docker containers"); HSA_OVERRIDE_GFX_VERSION makes the runtime report another gfx target
#: (ROCR-Runtime's environment variables, rocm.docs.amd.com "ROCm environment variables")
HIP_FIXES: dict[str, dict[str, Any]] = {
    "torch_wheel_lacks_gpu_arch": {
        "title": "The ROCm build in use has no loadable code object for this AMD GPU's gfx target",
        "fix": "HIP could not find or load a code object for this GPU's gfx target (the one rocminfo prints): install "
               "a ROCm build of torch (or rebuild the extension, PYTORCH_ROCM_ARCH=<gfx target>) that includes "
               "it; for a consumer GPU that ROCm does not list, HSA_OVERRIDE_GFX_VERSION runs it as the closest "
               "supported target (10.3.0 for RDNA2 gfx103x, 11.0.0 for RDNA3 gfx110x).",
        "commands": ["rocminfo | grep -m1 -o 'gfx[0-9a-f]*'",
                     "python -c \"import torch; print(torch.__version__, torch.version.hip, torch.cuda.get_arch_list())\"",
                     "HSA_OVERRIDE_GFX_VERSION=10.3.0 python -c \"import torch; print(torch.ones(1, device='cuda') + 1)\""
                     "   # RDNA2 (gfx103x); 11.0.0 for RDNA3 (gfx110x)"]},
    "no_kernel_image_for_gpu": {
        "title": "A binary that ran has no code object for this AMD GPU's gfx target",
        "fix": "A kernel of the program (an extension built here, or a package's wheel) was not compiled for the gfx "
               "target rocminfo prints: rebuild it for that target (torch.utils.cpp_extension reads "
               "PYTORCH_ROCM_ARCH), or install a release built for it.",
        "commands": ["rocminfo | grep -m1 -o 'gfx[0-9a-f]*'"]},  # then its rebuild for that target: _hip_build
    "nvcc_torch_cuda_mismatch": {
        "title": "Code built by another ROCm release than the HIP runtime that loads it",
        "fix": "The code object was built by a ROCm (hipcc) other than the one whose HIP runtime runs it (torch's "
               "+rocmX.Y against the machine's /opt/rocm): use the torch built for the installed ROCm and rebuild "
               "the extension with it.",
        "commands": ["python -c \"import torch; print(torch.__version__, torch.version.hip)\"",
                     "hipcc --version; ls -d /opt/rocm*"]},
    "gpu_device_permission_denied": {
        "title": "This user may not open /dev/kfd or /dev/dri/renderD* (the AMD GPU's device files)",
        "fix": "The HIP runtime counts only the GPUs it can open: add the user to the groups that own /dev/kfd and "
               "/dev/dri/renderD* (render and video), then log in again.",
        "commands": ["ls -l /dev/kfd /dev/dri/render*; id",
                     "sudo usermod -a -G render,video $USER   # then log out and in"]},
    "gpu_not_exposed_to_process": {
        "title": "This process is not given the AMD GPU",
        "fix": "The ROCm runtime sees no GPU to use here: HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES hide it, or the "
               "container is not given /dev/kfd and /dev/dri.",
        "commands": ["rocminfo | grep -i gfx; rocm-smi",
                     "echo \"HIP_VISIBLE_DEVICES=$HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES=$ROCR_VISIBLE_DEVICES\"",
                     "docker run --device=/dev/kfd --device=/dev/dri --group-add video ...   # ...: the rest of your "
                     "own command (its image and arguments)"]},
    "driver_broken": {
        "title": "The ROCm runtime or the amdgpu driver failed",
        "fix": "The HIP runtime or the amdgpu kernel driver under it failed: check that rocminfo and rocm-smi list the "
               "GPU, then reinstall the ROCm release (or the amdgpu-dkms driver) that the GPU and torch need.",
        "commands": ["rocminfo | grep -i gfx; rocm-smi"]},
}


#: library_messages.csv's rows of HIP's own messages (invalid device function, no code object for the GPU, torch's
#: hipGetDeviceCount warning, rocBLAS's Tensile library for a gfx target): their readings take ROCm's fix too
HIP_MESSAGE_ROWS = frozenset({"hip_invalid_device_function", "hip_no_binary", "hip_device_count", "rocblas_tensile_arch"})


def _hip_build(code: str, facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    """(round 32k) The finding of a HIP runtime error's reading: its code's ROCm fix (:data:`HIP_FIXES`); a missing
    code object's, the extension rebuilt for the GPU's gfx target (torch.utils.cpp_extension reads PYTORCH_ROCM_ARCH)
    where its source tree is (:func:`smrnb.doctor.rules._rebuild.tree_rebuild`)."""
    got = dict(HIP_FIXES[code])
    if code == "no_kernel_image_for_gpu":
        got["commands"] = [*got["commands"], tree_rebuild(
            facts, env="PYTORCH_ROCM_ARCH=\"$(rocminfo | grep -m1 -o 'gfx[0-9a-f]*')\" ", pip=f"{PIP_REBUILD} --no-deps")]
    return got


def finding(code: str, facts: Facts, ev: Mapping[str, Any], *, rank: int | None = None, reading: int = 0,
            how: str | None = None, extra: Iterable[str] = ()) -> Finding | None:
    """The finding of ``code`` for event ``ev`` (built by the code's registered builder), or None when the
    builder says the event does not show it. ``reading`` > 0 marks another reading of the same text."""
    built = BUILDERS.get(code)
    if (ev.get("table") == "hip_errors" or ev.get("key") in HIP_MESSAGE_ROWS) and code in HIP_FIXES:
        # (round 32k) a HIP runtime error (or library_messages.csv's HIP rows): ROCm's fix, not CUDA's
        built = functools.partial(_hip_build, code)
    try:
        got = built(facts, dict(ev)) if built is not None else default_build(code, ev)
    except Exception as exc:  # a builder bug must not hide the cause: the table's words instead
        got = {**default_build(code, ev), "evidence": [f"(the finding's details failed: {type(exc).__name__}: {exc})"]}
    if got is None:
        return None
    entry = CODES[code]
    line = str(ev.get("line") or "")
    ev_lines = [f"evidence: {describe(ev)} (from {origin(ev)}; line: {quote(line, 160)})"]
    ev_lines += [str(x) for x in got.get("evidence") or ()]
    ev_lines += [str(x) for x in extra]
    if how:
        ev_lines.append(f"decided by: {how}")
    windows = (facts.get("context") or {}).get("os") == "windows"
    pkg = _package_named(facts, ev)
    if reading:
        check = str(got.get("check") or entry.check)  # a builder may name the deciding command of its case
        if windows and check.startswith(_LINUX_ONLY):
            check = "where <the missing tool or DLL>   # in the prompt the build runs in"
        if pkg:
            check = check.replace("<package>", pkg)
        ev_lines.append("another reading of the same text (the text alone cannot decide); what decides: "
                        f"`{check}`" if check else "another reading of the same text")
    if entry.told_from:
        ev_lines.append(f"told from its neighbour: {entry.told_from}")
    cmds = tuple(dict.fromkeys(str(c).replace("<package>", pkg) if pkg else str(c) for c in got.get("commands") or ()
                               if c and not (windows and str(c).startswith(_LINUX_ONLY))))
    r = (rank_of(code, int(ev.get("weight", 30)), reading) if rank is None else rank) + int(got.get("rank", 0))
    src = ("machine",) if ev.get("from") == "live" else ("text",)
    return Finding(code, entry.layer, got.get("severity") or entry.severity, str(got.get("title") or code),
                   tuple(dict.fromkeys(ev_lines)), Fix(str(got.get("fix") or why(code, str(got.get("detail") or ""))), cmds,
                                                       tuple(got.get("docs") or ())),
                   rank=r, sources=src)


def _runtime_reports_host(ev: Mapping[str, Any]) -> bool:
    """Whether the event is the container runtime's own message about the host it runs on (nvidia-container-cli
    enumerating the host's GPUs or WSL adapters, tables/container_messages.csv), not a program inside the container:
    a host without a GPU stays a reading there."""
    return ev.get("table") == "container_messages" and ev.get("key") != "torch_no_driver"


def resolve(facts: Facts, ev: Mapping[str, Any], codes: Iterable[str] | None = None) -> list[Finding]:
    """Findings for one event: its codes (the event's ``codes`` unless given) narrowed by :func:`decide`,
    each built by its builder; the readings after the first are ranked lower and say what decides."""
    cand = [c for c in (codes if codes is not None else ev.get("codes") or ()) if c in CODES]
    if not cand:
        return []
    readings, how = decide(cand, facts, ev)
    if ev.get("from") == "live":
        readings = readings[:1]  # the machine's facts decide; no second reading of a probed fact
    out: list[Finding] = []
    base = rank_of(readings[0], int(ev.get("weight", 30))) if readings else 0
    for code in readings:  # the readings of one event keep its first reading's rank, in their order
        f = finding(code, facts, ev, reading=len(out), how=how if not out else None, rank=base + 2 * len(out))
        if f is not None:
            out.append(f)
    return out
