# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Explain, stage 1: structured evidence from any error text, in linear time.

:func:`cap_text` keeps the head and tail of a long log and cuts very long lines, so no later step
sees more than a bounded amount of text. :func:`extract` walks the capped text once, line by line;
each extractor is gated by a literal substring test and its expressions have no nested quantifiers,
so the work is linear in the text. The result is a list of :class:`Evidence` facts (what the text
*says*: a missing library split into family and version, an undefined symbol and its owner, a GPU
arch, a CUDA version on the driver or runtime side...), never a cause. Causes are decided from these
facts by :mod:`smrnb.doctor._explain`.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from smrnb.doctor.probes._toolkit import cuda_home_shape_problem

#: bytes of text kept from the head and from the tail of a long log
HEAD_CHARS = 256 * 1024
TAIL_CHARS = 256 * 1024
#: characters kept of one line (head and tail halves)
LINE_CHARS = 2000
#: lines kept from the middle of a long log: those holding one of MIDDLE_KEYS
MIDDLE_LINES = 2000
MIDDLE_KEYS = ("error", "fatal", "undefined symbol", "not found", "no such file", "unsupported", "mismatch")
#: seconds extraction may take before it stops reading further lines
TIME_BUDGET_S = 0.5


@dataclass(frozen=True)
class Evidence:
    """One fact read from the text: ``kind`` (stable name), ``value`` (a short string) and the line."""

    kind: str
    value: str
    line: str


def cap_text(text: str) -> str:
    """``text`` with at most HEAD_CHARS + TAIL_CHARS characters and lines of at most LINE_CHARS."""
    if len(text) > HEAD_CHARS + TAIL_CHARS:  # head, tail, and the middle's error lines (up to MIDDLE_LINES)
        mid = text[HEAD_CHARS:-TAIL_CHARS]
        spans: set[tuple[int, int]] = set()
        for key in MIDDLE_KEYS:  # str.find scans (C speed), each jumping to the next line after a hit
            for k in dict.fromkeys((key, key.capitalize(), key.upper())):
                i = mid.find(k)
                while i != -1 and len(spans) < MIDDLE_LINES:
                    a = mid.rfind("\n", 0, i) + 1
                    b = mid.find("\n", i)
                    b = len(mid) if b == -1 else b
                    spans.add((a, b))
                    i = mid.find(k, b)
        middle = [mid[a: min(b, a + LINE_CHARS)] for a, b in sorted(spans)]
        text = text[:HEAD_CHARS] + "\n...\n" + "\n".join(middle) + "\n...\n" + text[-TAIL_CHARS:]
    out = []
    for ln in text.split("\n"):
        if len(ln) > LINE_CHARS:
            ln = ln[: LINE_CHARS // 2] + " ... " + ln[-LINE_CHARS // 2:]
        out.append(ln)
    return "\n".join(out)


# ------------------------------------------------------------------ library names
#: library stem -> family (the family a loader error names; versions of cudnn/nccl are not CUDA versions)
LIB_FAMILIES: tuple[tuple[str, str], ...] = (
    ("libcudart", "cudart"), ("libcuda", "driver"), ("libnvidia-ml", "driver"), ("libnvidia-", "driver"),
    ("libcudnn", "cudnn"), ("libnccl", "nccl"), ("libnvjitlink", "nvjitlink"), ("libcublaslt", "cublas"),
    ("libcublas", "cublas"), ("libcusparse", "cusparse"), ("libcusolver", "cusolver"), ("libcufft", "cufft"),
    ("libcurand", "curand"), ("libnvrtc", "nvrtc"), ("libnvtoolsext", "nvtx"), ("libcupti", "cupti"),
    ("libc10", "torch"), ("libtorch", "torch"), ("libcaffe2", "torch"), ("libshm", "torch"),
    ("libstdc++", "libstdcxx"), ("libc.so", "glibc"), ("libm.so", "glibc"), ("libpython", "python"),
    ("libegl", "gl"), ("libgl", "gl"), ("libopengl", "gl"),
)
_LIB_RE = re.compile(r"(lib[A-Za-z0-9_+\-]{1,60}\.so(?:\.[0-9]{1,6}){0,3})")
_UNDEF_RE = re.compile(r"undefined symbol:? ?([A-Za-z_][A-Za-z0-9_@.]{0,600})")
_SYMVER_RE = re.compile(r"version `?'?((?:GLIBCXX|CXXABI|GLIBC)_[0-9.]{1,12})'? not found")
_VERLIB_RE = re.compile(r"version (lib[A-Za-z0-9_]{1,40}\.so(?:\.[0-9]{1,4}){0,2})")


def lib_family(name: str) -> tuple[str, str]:
    """``("cudnn", "8")`` for ``libcudnn_ops_infer.so.8``; family ``"other"`` when unknown."""
    low = name.lower()
    fam = "other"
    for stem, f in LIB_FAMILIES:
        if low.startswith(stem):
            if stem == "libcuda" and not (low.startswith("libcuda.") or low.startswith("libcuda.so")):
                continue
            fam = f
            break
    ver = low.split(".so", 1)[1].lstrip(".") if ".so" in low else ""
    return fam, ver


# ------------------------------------------------------------------ symbols
_OWNER_PREFIXES = (("3c10", "c10"), ("2at", "torch"), ("5torch", "torch"), ("6caffe2", "torch"))


def symbol_owner(sym: str) -> str:
    """Who defines ``sym``: torch / c10 / python / libstdcxx / a CUDA family / cuda_runtime / other."""
    if sym.startswith("_Z"):
        body = sym[2:12]
        for pre, owner in _OWNER_PREFIXES:
            if pre in body:
                return owner
        if "St" in sym[:6] or "__cxx11" in sym[:40]:
            return "libstdcxx"
        return "other"
    low = sym.lower()
    if sym.startswith(("Py", "_Py", "THP")):
        return "torch_python" if sym.startswith("THP") else "python"
    for fam in ("nvjitlink", "cublaslt", "cublas", "cusparse", "cudnn", "nccl", "cufft", "curand", "cusolver"):
        if low.startswith(fam) or low.startswith("__" + fam):
            return "cublas" if fam == "cublaslt" else fam
    if low.startswith("__cuda") or low.startswith("cuda"):
        return "cuda_runtime"
    return "other"


# ------------------------------------------------------------------ archs and versions
_SM_RE = re.compile(r"\b(?:sm|compute)_([0-9]{2,3}[a-z]?)\b")
_CAP_RE = re.compile(r"capability (?:sm_)?([0-9]{1,2})\.?([0-9])")
_GCC_RE = re.compile(r"gcc versions? later than ([0-9]{1,2})")
_CUDA_VER_RE = re.compile(r"CUDA (?:Version|version)[ :=]{0,3}([0-9]{1,2}\.[0-9]{1,2})")
_NVCC_REL_RE = re.compile(r"release ([0-9]{1,2}\.[0-9]{1,2}), V")
_TORCH_BUILD_RE = re.compile(r"\btorch[=-]{1,2}([0-9]{1,2}\.[0-9]{1,2}(?:\.[0-9]{1,3})?)\+(cpu|cu[0-9]{2,3})")
_CUDA_HOME_RE = re.compile(r"CUDA_HOME ?[=:] ?['\"]?([^\s'\",]{0,300})")
_NO_MODULE_RE = re.compile(r"No module named '([A-Za-z0-9_.]{1,100})'")
_HEADER_RE = re.compile(r"fatal error: ([A-Za-z0-9_./+\-]{1,120}\.(?:h|hpp|cuh)): No such file")
_RUNTIME_ERR_RE = re.compile(r"(?:cuda runtime error|CUDA error) ?\(?([0-9]{1,3})\)?")
_LINKS_RE = re.compile(r"Looking in links: (\S{1,300})")
_DRIVER_FOUND_RE = re.compile(r"found version ([0-9]{4,6})\)")
_DETECTED_CUDA_RE = re.compile(r"detected CUDA version \(([0-9.]{1,12})\)")
_PT_CUDA_RE = re.compile(r"PyTorch \(([0-9.]{1,12})\)")
_ARCH_ASKED_RE = re.compile(r"(?:Unsupported gpu architecture '([A-Za-z0-9_]{1,20})'|Unknown CUDA arch \(([^)\n]{1,40})\))")
_DRIVER_HDR_RE = re.compile(r"Driver Version: ?([0-9]{3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?)")
_CUDA_WANTED_RE = re.compile(r"(?:cudatoolkit|pytorch-cuda|cuda-toolkit|cuda-runtime)[= ]{1,2}([0-9]{1,2}\.[0-9]{1,2})")
_LINK_LIB_RE = re.compile(r"cannot find -l([A-Za-z0-9_+\-]{1,60})")
_FOUND_VERSION_RE = re.compile(r"but found version ([0-9][0-9A-Za-z.+]{0,30})")

#: (kind, literal substrings any of which fires it) -- phrases whose mere presence is the fact
PHRASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("nvml_mismatch", ("driver/library version mismatch",)),
    ("driver_unreachable", ("couldn't communicate with the nvidia driver", "couldn‘t communicate with the nvidia",
                            "couldn’t communicate with the nvidia", "nvidia probe routine was not called",
                            "cuda driver initialization failed", "error 999", "cuda_error_unknown")),
    ("driver_insufficient", ("driver version is insufficient", "nvidia driver on your system is too old",
                             "error 35", "cudaerrorinsufficientdriver", "error 804",
                             "forward compatibility was attempted")),
    ("ptx_toolchain", ("ptx was compiled with an unsupported toolchain", "cudaerrorunsupportedptxversion",
                       "error 222")),
    ("no_driver_found", ("found no nvidia driver on your system",)),
    ("no_cuda_gpus", ("no cuda gpus are available", "no cuda-capable device is detected", "error 100",
                      "nvidia-container-cli", "--gpus all", "could not select device driver")),
    ("no_cuda_runtime_at_build", ("no cuda runtime is found",)),
    ("cpu_torch", ("torch not compiled with cuda enabled", "+cpu", "cpu版本", "cpu version of pytorch",
                   "is_available() 就是false", "cuda.is_available()只会返回false")),
    ("torch_drops_gpu", ("is not compatible with the current pytorch installation", "no longer supports this gpu",
                         "which is older than the minimum", "too old to be supported by the pytorch",
                         "cuda capability sm_", "pytorch no longer supports")),
    ("no_kernel_image", ("no kernel image is available", "cudaerrornokernelimagefordevice",
                         "invalid device function")),
    ("unsupported_arch", ("unsupported gpu architecture", "value 'sm_", "nvcc fatal", "unknown cuda arch",
                          "invalid value for --gpu-architecture")),
    ("oom", ("out of memory", "outofmemoryerror", "cudaerrormemoryallocation", "cublas_status_alloc_failed")),
    ("gcc_unsupported", ("unsupported gnu version", "unsupported clang version", "host_config.h",
                         "parameter packs not expanded")),
    ("msvc", ("cl.exe", "microsoft visual c++", "error checking compiler version for cl", "vcvars",
              "msvc", "visual studio")),
    ("nvcc_missing", ("nvcc: not found", "nvcc: command not found", "nvcc binary could not be",
                      "/bin/nvcc': no such file", "/bin/nvcc: no such file", "/bin/nvcc' failed: no such file",
                      "error launching cuda compiler", "nvcc was not found", "cuda_home environment variable is not set",
                      "could not find nvcc", "no such file or directory: '/usr/local/cuda/bin/nvcc'")),
    ("nvcc_torch_mismatch", ("detected cuda version", "does not match the version that was used to compile pytorch",
                             "mismatches the version that was used to compile")),
    ("companion_mismatch", ("torchvision::", "torchaudio::", "compiled with different cuda",
                            "reinstall the torchvision", "operator does not exist")),
    ("torch_symbol_missing_api", ("thc/thc.h", "thc/thc", "at_check", "torch/_six", "torch._six",
                                  "has no attribute '_six'", "deprecatedtypeproperties",
                                  ".type().is_cuda()", "data<t>()", "thcstate", "is deprecated: tensor.data<t>")),
    ("build_isolation", ("pip-build-env", "getting requirements to build wheel", "build_meta",
                         "installing build dependencies", "--no-build-isolation", "build-system.requires",
                         "build backend returned an error", "failed to build", "setup.py")),
    ("torch_absent_at_build", ("couldn't find the module installed", "depends on `torch`, but doesn't declare",
                               "please install it before proceeding")),
    ("ninja_missing", ("'ninja'", "ninja is required", "ninja: not found", "ninja: command not found")),
    ("flash_min_gpu", ("only supports ampere", "requires a gpu with compute capability", "turing or newer",
                       "fullyfusedmlp", "ampere gpus or newer", "sm80 or newer")),
    ("jupyter", ("notebook", "jupyter", "ipykernel", "kernel", "ipython-input", "jupyterhub")),
    ("terminal_works", ("in terminal", "in my terminal", "from terminal", "works in the terminal",
                        "in the terminal", "from the terminal")),
    ("sys_executable", ("sys.executable", "which python", "kernelspec", "!pip")),
    ("env_var_set", ("ld_library_path", ".bashrc", ".profile", "pythonpath", "module load", "printenv", "export ")),
    ("kaolin", ("kaolin",)),
    ("kaolin_gate", ("searching for torch<", "ignore_torch_ver", "but found version")),
    ("from_versions_none", ("from versions: none", "from versions: 0.", "no matching distribution")),
    ("cudnn_version_mismatch", ("cudnn version mismatch", "cudnn version incompatibility",
                                "was compiled against", "loaded runtime cudnn")),
    ("module_load", ("module load",)),
    ("env_dropped", ("sudo ", "sudo: ", "srun ", "sbatch ", "systemd", "crontab", "env_reset")),
    ("cannot_import_c", ("cannot import name '_c'", "no module named 'detectron2._c'", "mmcv._ext",
                         "_ext' ", "scatter_cuda", "scatter_cpu", "cannot import name '_ext'")),
    ("multiple_nvcc", ("which nvcc", "/usr/bin/nvcc", "nvcc -v` returns", "cudatoolkit=")),
    ("libtorch_first", ("import torch first", "libc10.so", "libtorch_cpu.so", "libtorch_python.so")),
    ("lowercase_build", ("error: command", "building '", "running build_ext", "ninja: build stopped")),
)


def extract(text: str, budget_s: float = TIME_BUDGET_S) -> list[Evidence]:
    """Every fact of ``text`` (capped first), in order of appearance; stops at ``budget_s`` seconds."""
    text = cap_text(text)
    out: list[Evidence] = []
    seen: set[tuple[str, str]] = set()
    t0 = time.perf_counter()

    def add(kind: str, value: str, line: str) -> None:
        if (kind, value) not in seen and len(out) < 2000:
            seen.add((kind, value))
            out.append(Evidence(kind, value, line.strip()[:300]))

    for i, line in enumerate(text.split("\n")):
        if i % 256 == 0 and time.perf_counter() - t0 > budget_s:
            add("truncated", "time budget", "")
            break
        if not line.strip():
            continue
        low = line.lower()
        for kind, keys in PHRASES:
            for k in keys:
                if k in low:
                    add(kind, k, line)
                    break
        if ".so" in low:
            for name in _LIB_RE.findall(line):
                fam, ver = lib_family(name)
                if "cannot open shared object" in low or "could not load" in low or "not found" in low \
                        or "no such file" in low:
                    add("lib_missing", f"{fam}:{ver}:{name}", line)
                else:
                    add("lib_named", f"{fam}:{ver}:{name}", line)
        if "undefined symbol" in low:
            for sym in _UNDEF_RE.findall(line):
                sym = sym.rstrip(".,")
                owner = symbol_owner(sym)
                vm = _VERLIB_RE.search(line)
                if vm:
                    owner = lib_family(vm.group(1))[0]
                add("undefined_symbol", f"{owner}:{sym}", line)
        if "not found" in low and "version" in low:
            for v in _SYMVER_RE.findall(line):
                add("symbol_version", v, line)
        if "sm_" in low or "compute_" in low:
            for a in _SM_RE.findall(low):
                add("gpu_arch", a, line)
        if "capability" in low:
            for maj, mnr in _CAP_RE.findall(low):
                add("gpu_arch", maj + mnr, line)
        if "later than" in low:
            for g in _GCC_RE.findall(low):
                add("gcc_max", g, line)
        if "cuda" in low and "version" in low:
            for v in _CUDA_VER_RE.findall(line):
                add("cuda_version", v, line)
        if "cannot find -l" in low:  # the linker of a build
            for v in _LINK_LIB_RE.findall(line):
                add("link_lib_missing", v, line)
        if "cuda version" in low and ("driver version" in low or "nvcc" not in low
                                      and -1 < low.find("nvidia-smi") < low.find("cuda version")):  # nvidia-smi's
            for v in _DRIVER_HDR_RE.findall(line):
                add("driver_version", v, line)
            for v in _CUDA_VER_RE.findall(line):
                add("driver_max_cuda", v, line)
        if "cuda" in low and ("=" in low or "cuda-" in low):
            for v in _CUDA_WANTED_RE.findall(low):
                add("cuda_wanted", v, line)
        if "release" in low:
            for v in _NVCC_REL_RE.findall(line):
                add("nvcc_version", v, line)
        if "torch" in low and "+" in line:
            for ver, build in _TORCH_BUILD_RE.findall(line):
                add("torch_build", f"{ver}+{build}", line)
        if "cuda_home" in low or "cudahome" in low:
            for v in _CUDA_HOME_RE.findall(line):
                add("cuda_home", v, line)
        if "/bin/nvcc'" in line:  # the quoted nvcc path a build tried (spaces and colons included)
            for piece in line.split("'"):
                if piece.endswith("/bin/nvcc") and len(piece) <= 2000:
                    add("cuda_home", piece[:-len("/bin/nvcc")], line)
        if "looking in links" in low:
            for v in _LINKS_RE.findall(line):
                add("links_page", v, line)
        if "found version" in low:
            for v in _DRIVER_FOUND_RE.findall(line):
                add("driver_cuda_found", v, line)
            for v in _FOUND_VERSION_RE.findall(line):
                add("found_version", v.rstrip("."), line)
        if "detected cuda version" in low:
            for v in _DETECTED_CUDA_RE.findall(line):
                add("nvcc_cuda", v, line)
        if "pytorch (" in low:
            for v in _PT_CUDA_RE.findall(line):
                add("torch_cuda", v, line)
        if "gpu architecture '" in low or "unknown cuda arch" in low:
            for a, b in _ARCH_ASKED_RE.findall(line):
                digits = "".join(ch for ch in (a or b) if ch.isdigit())
                if digits:  # not the "({})" of the source line that raises it
                    add("arch_requested", a or b, line)
                if 2 <= len(digits) <= 3:
                    add("gpu_arch", digits, line)
        if "ld_library_path" in low and ("os.environ" in low or "%env" in low or "putenv" in low
                                         or "%set_env" in low):
            add("ld_set_in_process", "LD_LIBRARY_PATH", line)
        if "no module named" in low:
            for m in _NO_MODULE_RE.findall(line):
                add("no_module", m, line)
        if "fatal error" in low:
            for h in _HEADER_RE.findall(line):
                add("missing_header", h, line)
        if "error" in low and ("cuda" in low):
            for n in _RUNTIME_ERR_RE.findall(line):
                add("cuda_error_number", n, line)
    return out


def cuda_home_problem(value: str) -> str | None:
    """Why a CUDA_HOME value read in a text is broken, or None: the live probe's rule
    (:func:`smrnb.doctor.probes._toolkit.cuda_home_shape_problem`), on the value as the text shows it
    (a shell variable or ``~`` not yet expanded is not judged)."""
    v = value.strip().strip("'\"")
    if not v or v.lower() in ("none", "''") or v.startswith(("$", "~")):
        return None
    return cuda_home_shape_problem(v)
