# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The exact kaolin install command for *this* environment.

kaolin is not on PyPI (``pip install kaolin`` only finds a placeholder). It is installed either

* from a wheel page ``https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-{torch}_cu{cuda}.html``
  that must match the installed torch *patch* version and its CUDA variant, for a kaolin release
  that supports this Python; or
* from source, with the toolkit whose nvcc matches ``torch.version.cuda`` as ``CUDA_HOME``,
  ``TORCH_CUDA_ARCH_LIST`` = the GPUs' compute capabilities that this nvcc can compile for,
  ``IGNORE_TORCH_VER=1`` when torch is outside kaolin's ``setup.py`` range, stale ``build/`` and
  ``*.egg-info`` removed, and ``pip install --no-build-isolation`` (so the build sees this torch).

:func:`install_plan` takes the facts of the driver, torch and toolkit layers and returns an
:class:`InstallPlan`; it never raises on missing facts.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from smrnb.doctor import tables


@dataclass(frozen=True)
class InstallPlan:
    """How to install kaolin here.

    ``kind`` is ``"wheel"``, ``"source"`` or ``"none"`` (no torch: install torch first).
    ``command`` is a copyable shell text (one line for a wheel, a script for a source build).
    """

    kind: str
    command: str
    kaolin_version: str | None
    wheel_page: str | None
    wheel_available: bool | None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "command": self.command, "kaolin_version": self.kaolin_version,
                "wheel_page": self.wheel_page, "wheel_available": self.wheel_available, "notes": list(self.notes)}


def conda_nvcc_command(cuda: str) -> str:
    """Install an nvcc of CUDA ``cuda`` (``"12.1"``) into the active conda env (no root needed). The nvidia
    channel's split packages (cuda-nvcc, cuda-cudart-dev) begin with CUDA 11.3 (its first label is
    nvidia/label/cuda-11.3.0); before that, conda-forge's cudatoolkit-dev (10.1.243 to 11.x, Linux; it runs NVIDIA's
    installer into the env) has nvcc, and for older releases only NVIDIA's own installer does."""
    try:
        major, minor = (int(x) for x in str(cuda).split(".")[:2])
    except ValueError:
        return f"conda install -c nvidia cuda-nvcc={cuda} cuda-cudart-dev={cuda}"
    if (major, minor) >= (11, 3):
        return f"conda install -c nvidia cuda-nvcc={cuda} cuda-cudart-dev={cuda}"
    if (major, minor) >= (10, 1):
        return (f"conda install -c conda-forge cudatoolkit-dev={cuda}   # Linux; the nvidia channel's cuda-nvcc "
                "begins with CUDA 11.3")
    return (f"# no conda package has an nvcc {cuda}: NVIDIA's installer from https://developer.nvidia.com/"
            "cuda-toolkit-archive (--toolkit --silent --toolkitpath=<a folder>), then CUDA_HOME=<that folder>")


def cc_to_int(cc: str | None) -> int | None:
    """``"9.0" -> 90``, ``"12.1" -> 121``."""
    v = tables.parse_version(cc)
    if not v or len(v) < 2:
        return None
    return v[0] * 10 + v[1]


def int_to_cc(n: int) -> str:
    return f"{n // 10}.{n % 10}"


def nvcc_supported_ccs(nvcc: dict[str, Any]) -> set[int] | None:
    """Compute capabilities one nvcc fact entry compiles for (its --list-gpu-arch, else the table)."""
    if nvcc.get("list_gpu_arch"):
        out = set()
        for a in nvcc["list_gpu_arch"]:
            try:
                out.add(int(str(a).split("_")[1].rstrip("abf")))
            except (IndexError, ValueError):
                continue
        return out
    if nvcc.get("version"):
        archs = tables.nvcc_archs(nvcc["version"])
        return set(archs) if archs is not None else None
    return None


def matching_nvcc(toolkit: dict[str, Any], torch_cuda: str | None) -> dict[str, Any] | None:
    """The nvcc entry best suited to build for ``torch_cuda``: same major.minor, preferring the one
    reached through CUDA_HOME, then the one cpp_extension would pick; else the same major; else None."""
    nvccs = [n for n in toolkit.get("nvccs") or [] if n.get("version")]
    if not torch_cuda or not nvccs:
        return None
    tv = tables.parse_version(torch_cuda) or ()
    build_nvcc = toolkit.get("build_nvcc")

    def rank(n: dict[str, Any]) -> tuple[bool, bool, bool, int]:
        return (n.get("has_headers", True), "CUDA_HOME" in n.get("found_via", []),
                build_nvcc is not None and build_nvcc in n.get("paths", []),
                -len(n.get("toolkit_dir") or ""))

    exact = [n for n in nvccs if (tables.parse_version(n["version"]) or ())[:2] == tv[:2]]
    if exact:
        return max(exact, key=rank)
    same_major = [n for n in nvccs if (tables.parse_version(n["version"]) or ())[:1] == tv[:1]]
    if same_major:
        return max(same_major, key=lambda n: (tables.version_key(n["version"]), rank(n)))
    return None


def toolkit_dir_for(nvcc: dict[str, Any]) -> str:
    """The CUDA_HOME to export for an nvcc entry: the directory above ``bin/`` of the path as the
    user reaches it (``/usr/local/cuda``, not the resolved ``/etc/alternatives`` target)."""
    for p in nvcc.get("paths") or [nvcc["path"]]:
        if p.endswith("/bin/nvcc"):
            return p[: -len("/bin/nvcc")] or "/"
    return nvcc.get("toolkit_dir") or ""


def arch_list_for(gpu_ccs: list[str], nvcc: dict[str, Any] | None) -> tuple[list[str], list[str]]:
    """(archs to build, GPU archs this nvcc cannot build) as ``"9.0"`` strings."""
    want = sorted({c for c in (cc_to_int(x) for x in gpu_ccs) if c is not None})
    supported = nvcc_supported_ccs(nvcc) if nvcc else None
    if supported is None:
        return [int_to_cc(c) for c in want], []
    return [int_to_cc(c) for c in want if c in supported], [int_to_cc(c) for c in want if c not in supported]


def arch_covers(arch_list: list[str], cc: str) -> tuple[bool, str]:
    """Whether a torch arch list (``["sm_80", "sm_90", "compute_90"]``) runs on capability ``cc``:
    a cubin of the same major and lower-or-equal minor runs (``sm_80`` on 8.6); PTX of a lower or
    equal capability is JIT-compiled by the driver. Returns (covered, how)."""
    v = tables.parse_version(cc)
    if not v or len(v) < 2:
        return True, "unknown capability"
    want = v[0] * 10 + v[1]
    sms, ptx = [], []
    for a in arch_list or []:
        kind, _, num = str(a).partition("_")
        try:
            n = int(num.rstrip("abf"))
        except ValueError:
            continue
        if num[-1:].isalpha():  # sm_90a: arch-specific, runs only on exactly that chip
            if n == want and kind == "sm":
                sms.append(n)
            continue
        (sms if kind == "sm" else ptx).append(n)
    if want in sms:
        return True, f"sm_{want} cubins"
    same_major = [s for s in sms if s // 10 == want // 10 and s <= want]
    if same_major:
        return True, f"sm_{max(same_major)} cubins (binary-compatible within major {want // 10})"
    lower_ptx = [p for p in ptx if p <= want]
    if lower_ptx:
        return True, f"compute_{max(lower_ptx)} PTX, JIT-compiled at first use"
    return False, "no cubin or PTX it can run"


def nvcc_archs(nvcc: str | None) -> list[int] | None:
    """Compute capabilities (as 86, 90...) the nvcc release ``nvcc`` compiles for (tables/nvcc_archs.csv,
    :func:`smrnb.doctor.tables.nvcc_archs`); None where the table does not know the whole list."""
    if not nvcc:
        return None
    # (round 38d) the table's one reading: a major newer than the table's is not the newest known release's list (it
    # may have dropped the oldest of those archs, as each major did): unknown, None
    archs = tables.nvcc_archs(nvcc)
    return sorted(archs) if archs is not None else None


def _capabilities(gpu_archs: list[str]) -> list[int]:
    """GPU arch(s) as written (``"sm_86"``, ``"8.6"``, ``"86"``, ``"compute_120"``) as sorted capabilities (86, 120)."""
    return sorted({int(d) for d in ("".join(ch for ch in str(a) if ch.isdigit()) for a in gpu_archs)
                   if d and 2 <= len(d) <= 3})


def first_nvcc_for(cc: int) -> str | None:
    """The first CUDA release whose nvcc compiles for compute capability ``cc`` (as 120), by tables/nvcc_archs.csv
    (its rows are the releases where the list changed: 11.8 added 89 and 90, 12.8 added 100, 101 and 120), or None
    (:func:`smrnb.doctor.tables.cuda_releases_for_arch`, the one reading of the table for it)."""
    return next(iter(tables.cuda_releases_for_arch(cc)), None)


def newer_toolkit_command(gpu_archs: list[str], nvcc: str | None) -> str | None:
    """Where a GPU of ``gpu_archs`` is newer than every arch the nvcc release ``nvcc`` builds (so
    :func:`build_arch_list` falls back to an older arch's PTX, which the driver compiles at first use), the build for
    the GPU's own code with the first toolkit that has it: ``CUDA_HOME``, ``PATH`` and ``TORCH_CUDA_ARCH_LIST`` set for
    that release. None when the nvcc builds every GPU named, or no release in the table does."""
    have = nvcc_archs(nvcc)
    caps = _capabilities(gpu_archs)
    newer = [c for c in caps if have is not None and c not in have and c > max(have, default=0)]
    firsts = [first_nvcc_for(c) for c in newer]
    if not newer or None in firsts:
        return None
    cuda = max(firsts, key=tables.version_key)
    own = ";".join(f"{c // 10}.{c % 10}" for c in newer)
    return (f'export CUDA_HOME=/usr/local/cuda-{cuda} PATH=/usr/local/cuda-{cuda}/bin:$PATH '
            f'TORCH_CUDA_ARCH_LIST="{own}"   # better, with CUDA {cuda} or later installed: the first nvcc that builds '
            f"sm_{newer[-1]} (nvcc {nvcc} cannot), the GPU's own code instead of PTX; torch must then be of a CUDA "
            f"variant at least as new (torch.version.cuda)")


#: embedded (Jetson/Tegra) archs: never the PTX fallback for a discrete GPU
_TEGRA_ARCHS = frozenset({32, 53, 62, 72, 87, 88, 101, 110})


def build_arch_list(gpu_archs: list[str], nvcc: str | None) -> str | None:
    """TORCH_CUDA_ARCH_LIST for GPU arch(s) (``"sm_86"``, ``"8.6"``, ``"86"``) and what the nvcc release ``nvcc`` can build.

    An arch the nvcc supports is kept (``8.6``); a newer one becomes the highest arch the nvcc has, with
    PTX the driver compiles for the newer GPU (``8.6+PTX``); None when no arch is given (or none can run).
    """
    caps = _capabilities(gpu_archs)
    if not caps:
        return None
    known = tables.nvcc_arch_support(nvcc) if nvcc else None
    have = sorted(known.sure) if known is not None else None
    out = []
    for c in caps:
        if have is None or known is None or known.compiles(c) is not False:  # (round 38d) or the table cannot say
            out.append(f"{c // 10}.{c % 10}")
        else:
            lower = [a for a in have if a < c and a not in _TEGRA_ARCHS]
            if lower:
                out.append(f"{lower[-1] // 10}.{lower[-1] % 10}+PTX")
    return ";".join(dict.fromkeys(out)) or None


def _pip(python: str) -> str:
    return f"{shlex.quote(python)} -m pip"


def install_plan(torch: dict[str, Any] | None, driver: dict[str, Any] | None, toolkit: dict[str, Any] | None,
                 python_version: str, python: str = "python") -> InstallPlan:
    """The kaolin install command for this environment.

    Parameters
    ----------
    torch, driver, toolkit : dict or None
        Facts of those layers (``smrnb/doctor/FACTS.md``).
    python_version : str
        The kernel's Python, ``"3.12.3"``.
    python : str
        The interpreter to run pip with (the kernel's ``sys.executable``).
    """
    torch = torch or {}
    driver = driver or {}
    toolkit = toolkit or {}
    pip = _pip(python)
    if not torch.get("installed") or not torch.get("version_base"):
        return InstallPlan("none", f"# install torch first (https://pytorch.org/get-started/locally/), then:\n"
                                   f"{pip} install kaolin -f {tables._kaolin()['wheel_index']}",
                           None, None, None, ("torch is not installed in this Python",))
    tbase, tcuda = torch["version_base"], torch.get("cuda")
    page = tables.kaolin_wheel_page(tbase, tcuda) if tcuda else None
    notes: list[str] = []
    releases = tables.kaolin_releases()
    for rel in releases:
        if rel.supports_python(python_version) and rel.has_wheel(tbase, tcuda):
            return InstallPlan("wheel", f"{pip} install kaolin=={rel.version} -f {page}", rel.version, page, True,
                               (f"kaolin {rel.version} has a wheel for torch {tbase} + CUDA {tcuda} "
                                f"(Python {rel.python_min}-{rel.python_max})",))
    if tcuda:
        for rel in releases:
            if rel.has_wheel(tbase, tcuda):
                notes.append(f"kaolin {rel.version} has a wheel page for torch {tbase}_cu{tcuda.replace('.', '')}, "
                             f"but not for Python {python_version} (supports {rel.python_min}-{rel.python_max})")
                break
        else:
            notes.append(f"no kaolin release in the table has a wheel for torch {tbase} + CUDA {tcuda} "
                         f"({page} does not list one)")
    else:
        notes.append(f"torch {torch.get('version')} is a CPU-only build: kaolin wheels are per CUDA variant; "
                     "building from source gives the CPU-only subset of kaolin")
    rel = releases[0]
    lines = [f"# kaolin {rel.version} from source for torch {torch.get('version')} on Python {python_version}"]
    env: list[str] = []
    nvcc = None
    if tcuda:
        nvcc = matching_nvcc(toolkit, tcuda)
        if nvcc is None:
            lines.append(f"# no nvcc {tcuda} found: install the toolkit matching torch.version.cuda first, e.g.")
            lines.append("#   " + conda_nvcc_command(str(tcuda)).lstrip("# "))
            lines.append("#   (then CUDA_HOME=$CONDA_PREFIX)")
            env.append('export CUDA_HOME="$CONDA_PREFIX"')
            notes.append(f"no installed nvcc matches torch's CUDA {tcuda}")
        else:
            env.append(f"export CUDA_HOME={shlex.quote(toolkit_dir_for(nvcc))}")
            env.append('export PATH="$CUDA_HOME/bin:$PATH"')
            if nvcc.get("version") != tcuda:
                notes.append(f"nvcc {nvcc.get('version')} differs in minor from torch's CUDA {tcuda} (works, warns)")
        gpu_ccs = [g.get("compute_capability") for g in driver.get("gpus") or [] if g.get("compute_capability")]
        if gpu_ccs:
            archs, missing = arch_list_for(gpu_ccs, nvcc)
            if missing:
                notes.append(f"this nvcc cannot compile for compute capability {', '.join(missing)}")
            if archs:
                env.append(f'export TORCH_CUDA_ARCH_LIST="{";".join(archs)}"')
        else:
            env.append("export FORCE_CUDA=1  # no GPU visible: cross-compile")
            if toolkit.get("torch_cuda_arch_list_env"):
                env.append(f'export TORCH_CUDA_ARCH_LIST="{toolkit["torch_cuda_arch_list_env"]}"')
            else:
                lines.append('# set TORCH_CUDA_ARCH_LIST to the compute capability of the GPU that will run it, e.g. "8.6"')
        gcc = toolkit.get("gcc") or {}
        max_gcc = tables.max_gcc_for_nvcc(nvcc["version"]) if nvcc and nvcc.get("version") else None
        if gcc.get("major") and max_gcc and gcc["major"] > max_gcc:
            lines.append(f"# host gcc {gcc.get('version')} is newer than nvcc {nvcc['version']} accepts (<= {max_gcc}):")
            lines.append(f"#   install gcc-{max_gcc} g++-{max_gcc} (or conda gxx_linux-64={max_gcc})")
            env.append(f"export CC=gcc-{max_gcc} CXX=g++-{max_gcc} CUDAHOSTCXX=g++-{max_gcc}")
            notes.append(f"gcc {gcc.get('version')} is too new for nvcc {nvcc['version']}")
    if not rel.torch_in_range(tbase):
        env.append("export IGNORE_TORCH_VER=1")
        notes.append(f"torch {tbase} is outside kaolin {rel.version}'s setup.py range {rel.torch_min}-{rel.torch_max}")
    if not toolkit.get("ninja"):
        lines.append(f"{pip} install ninja")
    lines += [
        f"git clone --recursive --branch v{rel.version} {tables.kaolin_repository()}",
        "cd kaolin",
        "rm -rf build/ *.egg-info",
        *env,
        f"{pip} install -r tools/build_requirements.txt -r tools/viz_requirements.txt -r tools/requirements.txt",
        f"{pip} install --no-build-isolation .",
    ]
    return InstallPlan("source", "\n".join(lines), rel.version, page, False if tcuda else None, tuple(notes))
