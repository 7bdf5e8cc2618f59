# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The doctor's data tables: small CSV / JSON files beside this module, with typed, cached loaders.

Every row carries ``verified`` (``yes`` / ``no`` / ``partial``) and ``source`` columns, so a wrong
row can be corrected without touching logic. Adding a CUDA release is one line in
``cuda_driver.csv`` (and, when it adds architectures or raises the gcc limit, one line in
``nvcc_archs.csv`` / ``nvcc_gcc.csv``).

Files
-----
``cuda_driver.csv``   CUDA release -> minimum Linux x86_64 and Windows x86_64 driver (NVIDIA release notes, Table 3)
``cuda_family.csv``   CUDA major -> minimum driver under minor-version compatibility (Linux, Windows; Table 2)
``nvcc_archs.csv``    nvcc major.minor (first release of a row) -> compute capabilities it compiles for
``nvcc_gcc.csv``      nvcc major.minor (first release of a row) -> newest host gcc major
``gpu_cc.csv``        GPU marketing-name regex -> compute capability
``torch_cuda.csv``    torch major.minor -> CUDA variants on download.pytorch.org, PyPI default; (round 38c) for the
    releases before 1.11 (from 1.7) the ``-f`` page PyTorch's install commands read (``find_links``) and what they
    write without a ``+cuXYZ`` label (``unlabelled``)
``torch_wheel_archs.csv`` torch major.minor and CUDA variant -> the compute capabilities its wheels carry kernels
    for (and the one shipped as PTX too): PyTorch's support matrix (RELEASE.md), not what nvcc can compile
``kaolin.json``       kaolin release -> Python / torch range and ``{torch}_cu{cuda}`` wheel pages
``pythreejs_labext.csv`` pythreejs version -> the ``jupyter-threejs`` lab extension version it ships
``extension_minimums.csv`` a CUDA extension (its pip and import names) -> the oldest nvcc its setup.py builds with
``build_variables.csv`` a CUDA extension built from source -> the variables its setup.py reads (FORCE_CUDA=1,
    MMCV_WITH_OPS=1; TORCH_CUDA_ARCH_LIST or TCNN_CUDA_ARCHITECTURES), set in a printed build command (round 37f)
``source_built_modules.csv`` a CUDA extension built from a project's source tree (no PyPI wheel of that import
    name) -> the project and the command that builds it
``compiled_modules.csv`` a compiled module of site-packages (its path there without the ``.cpython-*.so`` suffix,
    shell-style wildcards: ``flash_attn_2_cuda``, ``tinycudann_bindings/_*_C``) -> the distribution that installs it,
    read in the project's setup.py (round 38a; read by rules._rebuild and _owner)
``removed_apis.csv``  a module or name (``module``, ``name``) -> the release of its library (or of Python) that
    removed or renamed it, its replacement and the release note that says so (round 23e; read by rules._abi)
``torch_companions.csv`` a torchvision / torchaudio release line -> the torch release line it is built for, and the
    torch patch releases whose companion has another patch number (torchvision's README table, torchaudio's
    Compatibility Matrix, PyTorch's previous-versions page; round 28v; read by rules._abi)
``added_apis.csv``    the reverse: a module or name -> the release of its library that ADDED it, and the release note
    that says so (round 27d; read by rules._abi: the installed release is older than the code's); rows of form
    ``cpp`` name a torch C++ API, read from a compiler's error (round 31b: source_needs_newer_torch)
``released_import_names.txt`` the import names of the 15,000 most downloaded PyPI projects
    (github.com/hugovk/top-pypi-packages, its date in the file's header) less the names a project's own folder may
    have, one a line; written by ``tests/tools/released_import_names.py`` (round 33k; read by rules._abi)

The domain's enumerations and messages, each row naming the finding code it indicates, are described in
:mod:`smrnb.doctor.tables._enums` (re-exported here): ``cuda_errors``, ``cu_results``, ``nvrtc_results``,
``nvml_errors`` (read from the CUDA headers by ``tests/tools/cuda_enums.py``), ``loader_errors``, ``nvcc_errors``,
``nvcc_options``, ``cpp_extension_checks``, ``extension_checks``, ``nvidia_smi_messages``,
``container_messages``, ``slurm_gpu``, ``jupyter_kernel``, ``torch_messages``, ``library_messages`` and
``cuda_home_shapes``. Every
code those rows use is a code of the one table (:mod:`smrnb.doctor._codes`).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smrnb.doctor.tables import _read
from smrnb.doctor.tables._read import rows

__all__ = [
    "ENUM_TABLES",
    "MESSAGE_TABLES",
    "CudaHomeShape",
    "CudaRelease",
    "EnumRow",
    "ExtensionMinimum",
    "MessageMatch",
    "MessageRow",
    "NvccOptionChange",
    "GpuPattern",
    "KaolinRelease",
    "TorchVariants",
    "compute_capability_for_gpu",
    "clear_caches",
    "cu_result",
    "cuda_error",
    "cuda_home_shapes",
    "cuda_releases",
    "cuda_releases_for_arch",
    "enum_lookup",
    "enum_rows",
    "enum_rows_in_text",
    "extension_minimum",
    "family_min_driver",
    "driver_platform",
    "first_match",
    "kaolin_release",
    "kaolin_releases",
    "kaolin_wheel_page",
    "library_import_names",
    "match_messages",
    "max_gcc_for_nvcc",
    "message_rows",
    "min_driver_for_cuda",
    "newest_cuda_for_driver",
    "nvcc_archs",
    "nvcc_option_change",
    "nvcc_option_changes",
    "nvml_error",
    "hip_error",
    "hip_error_rows",
    "nvrtc_result",
    "parse_version",
    "released_import_names",
    "rows",
    "compiled_module_distribution",
    "source_built_row",
    "cloud_gpu",
    "glibc_for_os",
    "loader_translations",
    "threejs_labext_for_pythreejs",
    "torch_cuda_indexes",
    "torch_cuda_tags",
    "torch_cuda_variants",
    "torch_wheel_runs",
    "torch_last_for_arch",
    "triton_for_torch",
    "version_key",
]


def source_built_row(name: str) -> dict[str, str] | None:
    """The row of ``source_built_modules.csv`` (a CUDA extension that only its project's source tree builds) whose
    import name is ``name`` (or, for a row marked ``prefix``, starts it: a fork's renamed copy); None for any other
    name. The one lookup of the table: the rules (``rules._abi``) and the text reader (round 31b) share it."""
    for r in rows("source_built_modules"):
        mod = r["module"]
        if name == mod or (r.get("prefix") == "yes" and name.startswith(mod + "_")):
            return r
    return None


def compiled_module_distribution(path: str) -> str | None:
    """(round 38a) The distribution (pip name) that installs the compiled module at ``path`` (a file under
    site-packages or dist-packages, or its path below that folder: ``flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so``
    -> flash-attn, ``tinycudann_bindings/_86_C.so`` -> tinycudann) from ``compiled_modules.csv``; None for a module
    it has no row for."""
    rel = re.split(r"[\\/](?:site|dist)-packages[\\/]+", str(path or "").replace("\\", "/"))[-1].strip("/")
    if not rel:
        return None
    head, _, name = rel.rpartition("/")
    key = (head + "/" if head else "") + name.split(".", 1)[0]
    return next((r["distribution"] for r in rows("compiled_modules") if fnmatch.fnmatchcase(key, r["module"])), None)


#: the usual short names of packages in calling code (``np.array(``, ``o3d.geometry.TriangleMesh(``, ``ti.Vector.var(``):
#: read by rules._abi and the text reader (round 34b), here so that neither imports the other
IMPORT_ALIASES = {"np": "numpy", "o3d": "open3d", "tf": "tensorflow", "pd": "pandas", "nn": "torch", "F": "torch",
                  "tm": "torchmetrics", "pl": "pytorch_lightning", "L": "lightning", "ti": "taichi", "wp": "warp",
                  "ME": "MinkowskiEngine", "pcu": "point_cloud_utils"}


def release_tuple(v: object) -> tuple[int, ...]:
    """A release's first three numbers ("2.0.3" -> (2, 0, 3), "v10.0.1" -> (10, 0, 1)), for comparing releases."""
    return tuple(int(x) for x in re.findall(r"[0-9]+", str(v))[:3])


def shown_before_removal(row: Mapping[str, str], package_releases: Mapping[str, Any]) -> bool:
    """Whether the text shows releases of a tables/removed_apis.csv row's library (``package_releases``, the text
    reader's ``loader.package_releases``; under the library's name or the row's top-level module) and every one is
    older than the release that removed the row's name: the row does not explain the name's absence then. Read by
    rules._abi and the text reader, here so that neither imports the other."""
    lib = str(row.get("library") or "").lower().replace("-", "_")
    top = str(row.get("module") or "").split(".")[0].lower()
    shown = [str(v) for k in dict.fromkeys([lib, top]) for v in package_releases.get(k) or []]
    removed = release_tuple(row.get("removed_in") or "")
    return bool(shown) and all(release_tuple(v) < removed for v in shown)


@functools.cache
def released_import_names() -> frozenset[str]:
    """(round 33k) The import names of released PyPI projects (``released_import_names.txt``: the 15,000 most
    downloaded, hugovk/top-pypi-packages, less the names a project's own folder may have: ``utils``, ``models``,
    ``data``, English words outside the 1,000 most downloaded), lower-case."""
    with open(Path(_read.HERE) / "released_import_names.txt", encoding="utf-8") as fh:
        return frozenset(ln.strip() for ln in fh if ln.strip() and not ln.startswith("#"))


def clear_caches() -> None:
    """Forget loaded tables (after editing a data file, or pointing ``_read.HERE`` elsewhere)."""
    for fn in (rows, released_import_names, cuda_releases, _families, _gpu_patterns, _kaolin, kaolin_releases, _extension_minimums,
               _os_glibc, _cloud_gpus, loader_translations):
        fn.cache_clear()
    _enums.clear_caches()


def parse_version(text: object) -> tuple[int, ...] | None:
    """Leading dotted integers of a version string: ``"580.159.04" -> (580, 159, 4)``,
    ``"2.11.0+cu130" -> (2, 11, 0)``, ``"13.0" -> (13, 0)``; None when there are none."""
    if text is None:
        return None
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(text))
    if not m:
        return None
    return tuple(int(p) for p in m.group(1).split("."))


def version_key(text: object) -> tuple[int, ...]:
    """Sort key for version strings; unparsable sorts first."""
    return parse_version(text) or ()


def _cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """Compare dotted versions, padding the shorter with zeros."""
    n = max(len(a), len(b))
    aa, bb = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return (aa > bb) - (aa < bb)




# --- CUDA -> driver --------------------------------------------------------------------------


@dataclass(frozen=True)
class CudaRelease:
    cuda: str  # "12.8"
    release: str  # "CUDA 12.8 Update 1"
    min_driver: str  # "570.124.06"
    verified: str
    source: str
    min_driver_windows: str = ""  # "572.61"; "" where Table 3 says N/A (CUDA 13.x ships no Windows toolkit driver)


#: (round 32l) the platforms of NVIDIA's two driver columns: Linux x86_64 and Windows x86_64 (a WSL 2 machine runs the
#: Windows driver: its nvidia-smi prints the Windows driver's number). Windows drivers are numbered apart (Table 3:
#: CUDA 12.0 Update 1 needs 525.85.12 on Linux, 528.33 on Windows), so a Windows number read against the Linux column
#: can be told it is too old (or new enough) by the wrong minimum.
PLATFORMS = ("linux", "windows")


def _for_platform(r: CudaRelease, platform: str) -> CudaRelease:
    """``r`` with ``min_driver`` of ``platform``'s column. Where Table 3 has no Windows number (N/A: CUDA 13.x) the Linux
    one stays: it is the branch's floor (R580 for 13.0), and a Windows driver of that branch is numbered above it."""
    if platform == "windows" and r.min_driver_windows:
        return dataclasses.replace(r, min_driver=r.min_driver_windows)
    return r


def driver_platform(os_name: object = None, wsl: object = False) -> str:
    """The driver column a machine's driver number is read against: "windows" on Windows and in WSL 2 (whose
    nvidia-smi prints the Windows host driver's number), else "linux"."""
    return "windows" if os_name == "windows" or wsl else "linux"


@functools.cache
def cuda_releases(platform: str = "linux") -> tuple[CudaRelease, ...]:
    """Every CUDA release row, newest first; ``min_driver`` from ``platform``'s column ("linux" or "windows")."""
    out = [_for_platform(CudaRelease(r["cuda"], r["release"], r["min_driver"], r["verified"], r["source"],
                                     r.get("min_driver_windows") or ""), platform)
           for r in rows("cuda_driver")]
    out.sort(key=lambda r: (version_key(r.cuda), version_key(r.min_driver)), reverse=True)
    return tuple(out)


def min_driver_for_cuda(cuda: str, platform: str = "linux") -> CudaRelease | None:
    """The GA row (lowest driver) of the toolkit ``cuda`` (``"12.8"``, ``"12.8.93"``): the driver
    that toolkit release needs for its *full* feature set, on ``platform`` ("linux" or "windows"). None when the
    table lacks that minor."""
    v = parse_version(cuda)
    if not v or len(v) < 2:
        return None
    same = [r for r in cuda_releases(platform) if parse_version(r.cuda)[:2] == v[:2]]
    if not same:
        return None
    return min(same, key=lambda r: version_key(r.min_driver))


@functools.cache
def _families(platform: str = "linux") -> dict[int, str]:
    return {int(r["major"]): (r.get("min_driver_windows") or r["min_driver"]) if platform == "windows" else
            r["min_driver"] for r in rows("cuda_family")}


def family_min_driver(cuda: str | int, platform: str = "linux") -> str | None:
    """Minimum driver for *any* binary built with CUDA major ``cuda`` under minor-version
    compatibility (13 -> "580", 12 -> "525.60.13", 11 -> "450.80.02"; on Windows 12 -> "528.33", 11 -> "452.39");
    None if unknown."""
    v = parse_version(cuda)
    return _families(platform).get(v[0]) if v else None


def newest_cuda_for_driver(driver: str, platform: str = "linux") -> str | None:
    """The newest CUDA minor whose GA driver requirement ``driver`` meets (from the release table, ``platform``'s
    column), e.g. ``"535.129.03" -> "12.2"``, Windows ``"528.02" -> "12.0"``; None for unparsable or too-old
    drivers."""
    d = parse_version(driver)
    if not d:
        return None
    best: tuple[int, ...] | None = None
    for r in cuda_releases(platform):
        ga = min_driver_for_cuda(r.cuda, platform)
        if ga and _cmp(d, parse_version(ga.min_driver) or ()) >= 0:
            cv = parse_version(r.cuda) or ()
            if best is None or cv > best:
                best = cv
    return ".".join(str(p) for p in best) if best else None


# --- nvcc -> archs, gcc --------------------------------------------------------------------


def _floor_row(table: str, version: str) -> dict[str, str] | None:
    """The row of ``table`` with the greatest ``cuda`` <= ``version`` (same major required)."""
    v = parse_version(version)
    if not v or len(v) < 2:
        return None
    best = None
    for r in rows(table):
        rv = parse_version(r["cuda"]) or ()
        if rv[:1] == v[:1] and rv[:2] <= v[:2] and (best is None or rv > (parse_version(best["cuda"]) or ())):
            best = r
    return best


@dataclass(frozen=True)
class NvccArchs:
    """(round 38d) What the nvcc of one CUDA release compiles for, by ``nvcc_archs.csv``: ``sure`` it does; ``unsure``
    whether it still does (only for a major newer than the table's, ``newer_major``); ``row`` the table's row read."""
    row: str
    sure: tuple[int, ...]
    unsure: tuple[int, ...] = ()
    newer_major: bool = False

    def compiles(self, cc: int) -> bool | None:
        """Whether the nvcc compiles for compute capability ``cc`` (``120``); None when the table cannot say: an arch
        of ``unsure``, or one newer than every arch the newest known release compiles (a new major adds some)."""
        if cc in self.sure:
            return True
        if not self.newer_major:
            return False
        if cc in self.unsure or cc > max(self.sure + self.unsure, default=0):
            return None
        return False  # dropped by the newest known release already: no major has taken a dropped arch back


def nvcc_arch_support(version: str) -> NvccArchs | None:
    """(round 38d) The one reading of ``nvcc_archs.csv`` for nvcc ``version``: the row of its release (the greatest
    row of the same major at or before it); None for a version older than the table or unparsable.

    A major newer than the table's (CUDA 14 while the newest row is 13.x): NVIDIA's practice is that a new major drops
    the oldest architectures (11.0: sm_30/32; 12.0: sm_35/37; 13.0: sm_50 to sm_72, the CUDA 13.0 release notes'
    "Deprecated Architectures": Maxwell, Pascal and Volta no longer supported for offline compilation), always the
    oldest ones, and none an architecture the major before it had added (12.x kept 11.x's 80-90, 13.x kept 12.x's
    100-121). So it surely compiles the newest known release's archs from the oldest one the newest known major added
    (13.x added 88, 107, 110: 88 and above), not whether the older ones (75-87) are still there; an arch the newest
    known release no longer compiles is not compiled either."""
    v = parse_version(version)
    if not v or len(v) < 2:
        return None
    r = _floor_row("nvcc_archs", version)
    if r is not None:
        return NvccArchs(r["cuda"], tuple(int(a) for a in r["archs"].split()))
    table = sorted(rows("nvcc_archs"), key=lambda x: version_key(x["cuda"]))
    if not table or v[0] <= (parse_version(table[-1]["cuda"]) or (0,))[0]:
        return None
    newest = table[-1]
    m = (parse_version(newest["cuda"]) or (0,))[0]
    before = {a for x in table if (parse_version(x["cuda"]) or (0,))[0] < m for a in x["archs"].split()}
    added = [int(a) for x in table if (parse_version(x["cuda"]) or (0,))[0] == m for a in x["archs"].split()
             if a not in before]
    archs = sorted(int(a) for a in newest["archs"].split())
    floor = min(added, default=max(archs) + 1)
    return NvccArchs(newest["cuda"], tuple(a for a in archs if a >= floor), tuple(a for a in archs if a < floor), True)


def nvcc_archs(version: str) -> tuple[int, ...] | None:
    """Compute capabilities (``75`` = 7.5) nvcc ``version`` compiles for, per the table (used when
    ``nvcc --list-gpu-arch`` is unavailable): the whole list, so None where the table does not know it, a major older
    or newer than the table's (:func:`nvcc_arch_support` says what is known of a newer one)."""
    r = nvcc_arch_support(version)
    return r.sure if r is not None and not r.newer_major else None


def cuda_releases_for_arch(cc: int) -> tuple[str, ...]:
    """(round 38c) The CUDA releases of ``nvcc_archs.csv`` (the first release of each row, oldest first) whose nvcc
    compiles for compute capability ``cc`` (``120``): ``("12.8", "12.9", "13.0", "13.4")``; ``()`` for none. Its first
    is the first CUDA release whose nvcc compiles for the GPU, its last the newest row that still does (CUDA 13.0
    dropped sm_50 to sm_72). The one reading of that question (``_install.first_nvcc_for``, ``_printed``'s variant
    comment and the CuPy commands of ``rules._abi`` ask it here)."""
    found = [r["cuda"] for r in rows("nvcc_archs") if str(cc) in r["archs"].split()]
    return tuple(sorted(found, key=version_key))


def max_gcc_for_nvcc(version: str) -> int | None:
    """Newest host gcc major that nvcc ``version`` accepts (``crt/host_config.h``)."""
    r = _floor_row("nvcc_gcc", version)
    if r is None:
        # a newer major than the table knows: the newest row is a lower bound, not an answer
        return None
    return int(r["max_gcc"])


# --- CUDA extensions -> the oldest toolkit their build accepts --------------------------------
@dataclass(frozen=True)
class ExtensionMinimum:
    project: str
    needs: str
    minimum: str
    source: str


@functools.cache
def _extension_minimums() -> dict[str, ExtensionMinimum]:
    out: dict[str, ExtensionMinimum] = {}
    for r in rows("extension_minimums"):
        m = ExtensionMinimum(r["project"], r["needs"], r["minimum"], r["source"])
        for name in r["names"].split():
            out[name.lower()] = m
    return out


def extension_minimum(package: str) -> ExtensionMinimum | None:
    """The oldest toolkit (``needs``: ``"nvcc"``) the build of ``package`` (a pip or import name, any case,
    ``-``/``_`` alike) accepts, from its setup.py; None when the table has no row for it."""
    key = str(package or "").lower().strip()
    table = _extension_minimums()
    return table.get(key) or table.get(key.replace("_", "-")) or table.get(key.replace("-", "_"))


def triton_for_torch(torch_version: str) -> str | None:
    """The triton release (``"3.1"``) the torch release ``torch_version`` (``"2.5.1+cu124"``) pins in its Linux
    wheels' requirements (``torch_triton.csv``); None for a release the table does not list."""
    v = parse_version(torch_version)
    if not v or len(v) < 2:
        return None
    for r in rows("torch_triton"):
        if parse_version(r["torch"]) == v[:2]:
            return r["triton"]
    return None


# --- an operating system -> its C library; a cloud machine type -> its GPU ---------------------
@functools.cache
def _os_glibc() -> tuple[tuple[re.Pattern[str], str, str], ...]:
    return tuple((re.compile(r["pattern"], re.IGNORECASE), r["os"], r["glibc"]) for r in rows("os_glibc"))


def glibc_for_os(text: str) -> tuple[str, str] | None:
    """``(os, glibc)`` of the first Linux release named in ``text`` ("CentOS 7" -> ``("CentOS/RHEL 7", "2.17")``),
    from the distributions' own glibc packages (``os_glibc.csv``); None when none is named."""
    low = str(text or "")[:2000]
    for pat, name, glibc in _os_glibc():
        if pat.search(low):
            return name, glibc
    return None


@functools.cache
def loader_translations() -> tuple[tuple[str, str], ...]:
    """``(translated, english)`` of the dynamic loader's messages (and the ``strerror`` texts it appends) in the
    languages glibc ships, longest first: what ld.so prints under another locale, from glibc's own message catalogs
    (``loader_translations.csv``)."""
    pairs = {(r["msgstr"], r["msgid"]) for r in rows("loader_translations") if r["msgstr"] and r["msgstr"] != r["msgid"]}
    return tuple(sorted(pairs, key=lambda p: -len(p[0])))


@functools.cache
def _cloud_gpus() -> tuple[tuple[re.Pattern[str], str, str], ...]:
    return tuple((re.compile(r["pattern"], re.IGNORECASE), r["gpu"], r["cc"]) for r in rows("cloud_gpus"))


def cloud_gpu(text: str) -> tuple[str, str] | None:
    """``(gpu, compute capability)`` of a cloud GPU machine type named in ``text`` ("g4dn.xlarge" -> ``("Tesla T4",
    "7.5")``), from the providers' instance-type pages (``cloud_gpus.csv``); None when none is named."""
    low = str(text or "")[:2000]
    for pat, gpu, cc in _cloud_gpus():
        if pat.search(low):
            return gpu, cc
    return None


# --- GPU -> compute capability ---------------------------------------------------------------


@dataclass(frozen=True)
class GpuPattern:
    pattern: re.Pattern[str]
    cc: str
    verified: str
    source: str


@functools.cache
def _gpu_patterns() -> tuple[GpuPattern, ...]:
    return tuple(GpuPattern(re.compile(r["pattern"], re.IGNORECASE), r["cc"], r["verified"], r["source"])
                 for r in rows("gpu_cc"))


def compute_capability_for_gpu(name: str) -> str | None:
    """Compute capability (``"9.0"``) of a GPU by its name (``"NVIDIA H200"``); None if unknown.
    Used only when the driver does not report the capability itself (drivers before ~510)."""
    if not name:
        return None
    name = split_gpu_vendor(name)
    for p in _gpu_patterns():
        if p.pattern.search(name):
            return p.cc
    return None


#: a vendor or line word written onto the model without a space ("TeslaV100", "NVIDIAA100", "GeForceRTX3090",
#: "QuadroRTX8000"): the table's patterns begin at a word boundary
_GLUED_VENDOR_RE = re.compile(r"\b(NVIDIA|Tesla|GeForce|Quadro|TITAN)(?-i:(?=[A-Z0-9]))", re.IGNORECASE)


def split_gpu_vendor(name: str) -> str:
    """``name`` with a space after a vendor or line word glued to the model ("TeslaV100" -> "Tesla V100")."""
    return _GLUED_VENDOR_RE.sub(r"\1 ", name)


# --- torch -> CUDA variants ------------------------------------------------------------------


@dataclass(frozen=True)
class TorchVariants:
    torch: str  # "2.8"
    variants: tuple[str, ...]  # ("cu126", "cu128", "cu129")
    pypi_default: str
    verified: str
    source: str
    #: (round 38c) what PyTorch's install command of the release writes without a ``+cuXYZ`` local label: a variant
    #: (every package of it: 1.7's cu102 is PyPI's wheel) or a package (torchaudio before 1.11)
    unlabelled: tuple[str, ...] = ()
    #: (round 38c) the page pip's ``-f`` reads the release's wheels from (``{variant}`` filled in), "" where each
    #: variant has a wheel index of its own (``https://download.pytorch.org/whl/<variant>``, from 1.11)
    find_links: str = ""


def torch_cuda_variants(torch_version: str, find_links: bool = False) -> TorchVariants | None:
    """CUDA variants published for torch ``major.minor`` of ``torch_version``; None if unknown. (round 38c) A release
    whose wheels pip reads from a ``-f`` page (before 1.11: no ``download.pytorch.org/whl/<variant>`` index holds
    them) only with ``find_links``: the callers that print ``--index-url .../whl/<variant>`` never get one."""
    v = parse_version(torch_version)
    if not v or len(v) < 2:
        return None
    for r in rows("torch_cuda"):
        if parse_version(r["torch"]) == v[:2]:
            if (r.get("find_links") or "").strip() and not find_links:
                return None
            return TorchVariants(r["torch"], tuple(r["variants"].split()), r["pypi_default"],
                                 r["verified"], r["source"], tuple((r.get("unlabelled") or "").split()),
                                 (r.get("find_links") or "").strip())
    return None


#: a pip wheel's local version names its CUDA variant: ``2.11.0+cu130``, ``1.7.1+cu92``
_WHEEL_VARIANT_RE = re.compile(r"\+(cu\d{2,3})\b")


def torch_wheel_variant(version: str) -> str | None:
    """(round 33) The CUDA variant a pip wheel's version names (``2.11.0+cu130``: ``cu130``); None for a conda or
    source build's version (no ``+cu``)."""
    m = _WHEEL_VARIANT_RE.search(str(version or ""))
    return m.group(1) if m else None


def torch_wheel_archs(torch_version: str, variant: str) -> tuple[list[int], int | None] | None:
    """The machine-code architectures (``[75, 80, 86, 90, 100, 120]``) and the PTX (``120``, or None) of torch
    ``major.minor``'s ``variant`` wheels (``cu126``), from table torch_wheel_archs; None when it has no row for them."""
    v = parse_version(torch_version)
    for r in rows("torch_wheel_archs"):
        if v and parse_version(r["torch"]) == v[:2] and r["variant"] == variant:
            return [int(a) for a in r["archs"].split()], int(r["ptx"]) if r["ptx"].strip() else None
    return None


def pyg_wheel_pythons(torch_version: str) -> tuple[list[str], list[str], str] | None:
    """(blind audit 36, F13) The Pythons (``["3.9", ..., "3.13"]``) PyG's wheel page of torch ``major.minor``
    (data.pyg.org/whl/torch-X.Y.0+...) has torch-scatter wheels for, its CUDA variants where read (``[]`` where not),
    and the row's ``verified``, from table pyg_wheel_pythons (torch-scatter's build matrix); None when it has no row."""
    v = parse_version(torch_version)
    for r in rows("pyg_wheel_pythons"):
        if v and parse_version(r["torch"]) == v[:2]:
            return r["pythons"].split(), r["variants"].split(), r["verified"]
    return None


def pyg_torches_for_python(python: str) -> list[tuple[str, list[str]]]:
    """(blind audit 36, F13) The torch releases (``"2.6"``) whose PyG wheel page has wheels for ``python`` (``"3.13"``),
    oldest first, each with its CUDA variants where read, from table pyg_wheel_pythons."""
    return [(r["torch"], r["variants"].split()) for r in rows("pyg_wheel_pythons") if python in r["pythons"].split()
            and r["verified"] == "yes"]


def wheel_runs(archs: list[int], ptx: int | None, cc: int) -> bool:
    """Whether code of ``archs`` and ``ptx`` runs on compute capability ``cc`` (``70`` = 7.0): machine code of its
    major at or below its minor (8.6's runs on 8.9), or PTX of an arch at or below it (JIT-compiled)."""
    return any(a // 10 == cc // 10 and a <= cc for a in archs) or (ptx is not None and ptx <= cc)


def torch_wheel_runs(torch_version: str, variant: str, cc: int) -> bool | None:
    """Whether torch ``major.minor``'s ``variant`` wheels (``cu126``) carry kernels a GPU of compute capability ``cc``
    (``70`` = 7.0, ``120`` = 12.0) runs (:func:`wheel_runs`); None when the table has no row for them."""
    got = torch_wheel_archs(torch_version, variant)
    return None if got is None else wheel_runs(*got, cc)


def torch_last_for_arch(cc: int) -> tuple[str, str] | None:
    """(round 29a) The last torch release and CUDA variant (``("2.7.1", "cu118")``) whose wheels carry kernels for
    compute capability ``cc`` (``37``), from torch_wheel_archs_dropped.csv; None where it has no sourced row."""
    for r in rows("torch_wheel_archs_dropped"):
        if r["cc"].strip() == str(cc) and r["verified"] in ("yes", "partial") and r["last_torch"] and r["variant"]:
            return r["last_torch"], r["variant"]
    return None


def _cuda_tag_key(tag: str) -> tuple[int, int]:
    """``cu92`` -> (9, 2), ``cu130`` -> (13, 0): a CUDA variant tag's release, for sorting."""
    return int(tag[2:-1]), int(tag[-1])


def torch_cuda_indexes() -> tuple[str, ...]:
    """Every CUDA variant with a wheel index of its own (``https://download.pytorch.org/whl/<variant>``) for the torch
    releases of the table, oldest CUDA first: ``cu102`` ... ``cu130``. A tag not in it (``cu114``, ``cu122``) names
    no index. (round 38c) The releases before 1.11 (their row's ``find_links``: PyTorch's pages install them with
    ``-f .../torch_stable.html``) add none: ``cu92``, ``cu101``, ``cu110``, ``cu111`` are tags of a wheel, no index."""
    tags = {v for r in rows("torch_cuda") if not (r.get("find_links") or "").strip() for v in r["variants"].split()}
    return tuple(sorted(tags, key=_cuda_tag_key))


def torch_cuda_tags() -> tuple[str, ...]:
    """(round 38c) Every CUDA variant of a torch release in the table, oldest CUDA first: :func:`torch_cuda_indexes`
    and the variants of the releases before 1.11 (``cu92`` ... ``cu111``), whose wheels are read with ``-f``."""
    return tuple(sorted({v for r in rows("torch_cuda") for v in r["variants"].split()}, key=_cuda_tag_key))


# --- kaolin ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class KaolinRelease:
    version: str
    python_min: str
    python_max: str
    torch_min: str
    torch_max: str
    wheels: tuple[str, ...]  # "2.8.0_cu128"
    verified: str
    source: str

    def supports_python(self, python: str) -> bool:
        v = parse_version(python)
        if not v:
            return False
        return (_cmp(v[:2], parse_version(self.python_min) or ()) >= 0
                and _cmp(v[:2], parse_version(self.python_max) or ()) <= 0)

    def torch_in_range(self, torch_version: str) -> bool:
        """Whether kaolin's ``setup.py`` gate accepts this torch (base version, local tag dropped)."""
        v = parse_version(torch_version)
        if not v:
            return False
        return (_cmp(v, parse_version(self.torch_min) or ()) >= 0
                and _cmp(v, parse_version(self.torch_max) or ()) <= 0)

    def has_wheel(self, torch_base: str, cuda: str | None) -> bool:
        return cuda is not None and f"{torch_base}_cu{cuda.replace('.', '')}" in self.wheels


@functools.cache
def _kaolin() -> dict:
    with open(Path(_read.HERE) / "kaolin.json", encoding="utf-8") as fh:
        return json.load(fh)


@functools.cache
def kaolin_releases() -> tuple[KaolinRelease, ...]:
    """Every kaolin release in the table, newest first."""
    out = [KaolinRelease(r["version"], r["python_min"], r["python_max"], r["torch_min"], r["torch_max"],
                         tuple(r["wheels"]), r["verified"], r["source"]) for r in _kaolin()["releases"]]
    out.sort(key=lambda r: version_key(r.version), reverse=True)
    return tuple(out)


def kaolin_release(version: str) -> KaolinRelease | None:
    """The table row for kaolin ``version`` (``"0.18.0"``), matched on major.minor.patch."""
    v = parse_version(version)
    for r in kaolin_releases():
        if parse_version(r.version) == (v[:3] if v else None):
            return r
    return None


def kaolin_wheel_page(torch_base: str, cuda: str) -> str:
    """URL of the kaolin wheel page for ``torch_base`` (``"2.8.0"``) and CUDA ``"12.8"``."""
    return _kaolin()["wheel_page"].format(torch=torch_base, cuda=cuda.replace(".", ""))


def kaolin_repository() -> str:
    return _kaolin()["repository"]


# --- pythreejs -> lab extension ------------------------------------------------------------


def threejs_labext_for_pythreejs(pythreejs_version: str) -> str | None:
    """The ``jupyter-threejs`` lab extension version that pythreejs ``pythreejs_version`` ships."""
    for r in rows("pythreejs_labext"):
        if r["pythreejs"] == pythreejs_version:
            return r["jupyter_threejs"]
    return None


from smrnb.doctor.tables import _enums  # noqa: E402
from smrnb.doctor.tables._enums import (  # noqa: E402
    ENUM_TABLES,
    MESSAGE_TABLES,
    CudaHomeShape,
    EnumRow,
    MessageMatch,
    MessageRow,
    NvccOptionChange,
    cu_result,
    cuda_error,
    cuda_home_shapes,
    enum_lookup,
    enum_rows,
    enum_rows_in_text,
    first_match,
    hip_error,
    hip_error_rows,
    library_import_names,
    match_messages,
    message_rows,
    nvcc_option_change,
    nvcc_option_changes,
    nvml_error,
    nvrtc_result,
)
