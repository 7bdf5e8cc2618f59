# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""(round 37g, blind audit 37 F1) The torch release to install for a GPU the installed torch has no kernels for,
pinned to what the text shows: the installed release, the text's Python, the driver's CUDA, and the torchvision /
torchaudio it shows (tables/torch_python.csv, torch_cuda.csv, torch_wheel_archs.csv, torch_companions.csv). Used by
the rule of ``torch_wheel_lacks_gpu_arch`` through :func:`smrnb.doctor._printed._variant_filled`, where the text is."""

from __future__ import annotations

import dataclasses
import re

from smrnb.doctor import tables
from smrnb.doctor._install import nvcc_archs
from smrnb.doctor.rules import Facts
from smrnb.doctor.rules._driver import _companions_for, driver_platform, indexes_for_driver_cuda
from smrnb.doctor.rules._events import value


@dataclasses.dataclass(frozen=True)
class TorchPin:
    """(round 37g, blind audit 37 F1) A torch release and CUDA variant chosen for a GPU its installed torch has no
    kernels for: ``fits`` False where it fits the GPU and the driver but not the text's Python (``python_min`` ..
    ``python_max`` are the Pythons it has wheels for)."""
    torch: str  # "1.13.1"
    variant: str  # "cu117"
    fits: bool
    python_min: str
    python_max: str


def _wheel_fits_gpu(release: str, variant: str, n: int, native: bool) -> bool:
    """Whether torch ``release``'s ``variant`` wheels carry kernels compute capability ``n`` runs (its row of
    tables/torch_wheel_archs.csv; no row: no, a variant's CUDA compiling for an arch is no sign its wheels carry it:
    sm_35 left them in 2019); ``native``: the variant's CUDA must also compile for the GPU itself (its NVRTC targets
    it; or the installed build's table row already runs there, so more of the same arch list is no fix)."""
    if native and n not in (nvcc_archs(f"{variant[2:-1]}.{variant[-1]}") or ()):
        return False
    return bool(tables.torch_wheel_runs(release, variant, n))


def torch_pin_for_gpu(n: int, installed: str, installed_cuda: str, python: int, runs: list[str] | None,
                      native: bool = False) -> TorchPin | None:
    """(round 37g, blind audit 37 F1) The torch release to install for a GPU of compute capability ``n`` (``86``)
    that the installed torch (``installed``, ``"1.7.1"``; ``""`` when not shown) has no kernels for: the oldest release
    at or after the installed one (tables/torch_python.csv: each line's last patch and its Pythons) with a CUDA
    variant (tables/torch_cuda.csv, oldest CUDA first) whose wheels carry kernels the GPU runs
    (:func:`_wheel_fits_gpu`), that the driver runs (``runs``: the wheel indexes of :func:`indexes_for_driver_cuda`;
    None when the driver is not shown) and that has wheels for Python 3.``python`` (0 when not shown); where the
    installed release is newer than every release that fits (a GPU newer wheels dropped), or no torch is shown, the
    newest older one. Never the installed build itself. Where none has a wheel for the Python, the first that fits
    the rest, ``fits`` False; None where none fits the GPU and the driver."""
    pys = {r["torch"]: r for r in tables.rows("torch_python") if r["verified"] in ("yes", "partial")}
    releases = sorted((r for r in tables.rows("torch_cuda") if r["torch"] in pys),
                      key=lambda r: tables.version_key(r["torch"]))
    mine = tables.parse_version(installed) or ()
    tag = f"cu{installed_cuda.replace('.', '')}" if installed_cuda else ""
    later = [r for r in releases if mine and tables.parse_version(r["torch"]) >= mine[:2]]
    older = [r for r in releases if r not in later][::-1]  # no torch shown: the newest first
    first: TorchPin | None = None
    for r in later + older:
        row = pys[r["torch"]]
        for v in r["variants"].split():
            same = bool(mine) and tables.parse_version(r["torch"]) == mine[:2]
            if (same and v == tag) or (runs is not None and v not in runs):
                continue
            if same and native and installed_cuda and \
                    tables.version_key(f"{v[2:-1]}.{v[-1]}") <= tables.version_key(installed_cuda):
                continue
            if not _wheel_fits_gpu(r["torch"], v, n, native):
                continue
            ok = not python or tables.version_key(row["python_min"]) <= (3, python) <= tables.version_key(
                row["python_max"])
            pin = TorchPin(row["newest"], v, ok, row["python_min"], row["python_max"])
            if ok:
                return pin
            first = first or pin
            break
    return first


def pinned_torch_command(n: int, facts: Facts, python: int, nvrtc: bool = False) -> str:
    """(round 37g, blind audit 37 F1) The torch reinstall for a GPU of compute capability ``n`` its torch has no
    kernels for, pinned to what the text shows (:func:`torch_pin_for_gpu`: the installed release, the driver's CUDA,
    Python 3.``python``), with the torchvision / torchaudio it shows pinned to that release, each with its CUDA
    variant's local label (``+cu117``: a different build of the same release is not taken for the one installed);
    where that release has no wheel for the text's Python, a line saying Python must change first; "" where no
    release in the tables fits the GPU and the driver."""
    tv = str(value(facts, "torch", "version_base") or str(value(facts, "torch", "version") or "").split("+")[0])
    shown = (value(facts, "loader", "package_releases") or {}).get("torch") or []
    tv = tv or (str(shown[0]).split("+")[0] if len(set(shown)) == 1 else "")  # a `pip list` line: torch 1.7.1
    pythons = {str(p) for p in value(facts, "loader", "pythons_named") or []}
    if not python and len(pythons) == 1 and re.fullmatch(r"3\.\d{1,2}", next(iter(pythons))):
        python = int(next(iter(pythons)).split(".")[1])
    tc = str(value(facts, "torch", "cuda") or "")
    dcuda, dv = value(facts, "driver", "cuda_driver_version"), value(facts, "driver", "driver_version")
    runs = indexes_for_driver_cuda(str(dcuda), dv, driver_platform(facts), tables.torch_cuda_tags()) if dcuda else None
    installed = tv if re.fullmatch(r"\d+\.\d+(?:\.\d+)?", tv) else ""
    variant = tables.torch_wheel_variant(str(value(facts, "torch", "version") or ""))
    listed = tables.torch_wheel_archs(installed, variant) if installed and variant else None
    # the table says the installed wheel runs on the GPU, yet the text shows it has no kernels for it: a GPU newer
    # than its code (sm_89 on sm_86's) needs a build by a CUDA that compiles for it; an old one the last release
    # whose wheels carried it (tables/torch_wheel_archs_dropped.csv)
    contradicted = bool(listed and tables.wheel_runs(listed[0], listed[1], n))
    native = nvrtc or (contradicted and n > max(listed[0]))
    last = tables.torch_last_for_arch(n) if contradicted and not native else None
    if last:
        installed, tc = last[0], ""
    pin = torch_pin_for_gpu(n, last[0] if last else installed, "" if last else tc, python, runs, native)
    if pin is None:
        return ""
    cmd, pins = _pin_command(pin, _companions_for(facts, pin.torch))
    cuda = f"{pin.variant[2:-1]}.{pin.variant[-1]}"
    what = _which_release(pin, installed, n, bool(last)) + (
        f" and whose CUDA {cuda} NVRTC targets it" if nvrtc else f", built by a CUDA ({cuda}) that compiles for "
        f"sm_{n} itself" if native else "")
    if not pin.fits:
        want = pin.python_max if tables.version_key(pin.python_max) < (3, python) else pin.python_min
        return (f"# torch {pin.torch}, {what}, has wheels for Python {pin.python_min}-{pin.python_max} only, not the "
                f"text's Python 3.{python}: change Python first (a Python {want} environment), then: {cmd}")
    said = (f"Python 3.{python}" if python else f"a Python {pin.python_min}-{pin.python_max} (assumed: the text "
            "shows none)", f"a driver of CUDA {dcuda}" if dcuda else f"a driver that runs CUDA {cuda} (assumed: "
            "the text shows no nvidia-smi 'CUDA Version')")
    names = " and ".join(p.split("==")[0] for p in pins)
    return (f"{cmd}   # torch {pin.torch}, {what}, with wheels for {said[0]} and {said[1]}"
            + (f"; with the {names} of its release" if names else ""))


def _pin_command(pin: TorchPin, companions: list[str]) -> tuple[str, list[str]]:
    """The ``pip install`` of ``pin`` and the ``companions`` (``torchvision==0.14.1``), as PyTorch's install page of
    the release writes it (tables/torch_cuda.csv): each pin with the variant's local label (``+cu117``: a different
    build of the same release is not taken for the one installed) but where the release's command has none (1.7's
    cu102 is PyPI's wheel; torchaudio before 1.11); the variant's wheel index (``--extra-index-url`` before 2.0, PyPI
    for the rest, as PyTorch's pages had it), or before 1.11 the ``-f`` page the wheels are listed on. Returns the
    command and the companions' pins."""
    row = tables.torch_cuda_variants(pin.torch, find_links=True)
    bare = set(row.unlabelled if row else ())

    def pinned(name: str, spec: str) -> str:
        return spec if "==" not in spec or pin.variant in bare or name in bare else f"{spec}+{pin.variant}"

    pins = [pinned(p.split("==")[0], p) for p in companions]
    if row and row.find_links:
        index = f"-f {row.find_links.replace('{variant}', pin.variant)}"
    else:
        index = ("--extra-index-url" if tables.version_key(pin.torch) < (2, 0) else "--index-url") + \
            f" https://download.pytorch.org/whl/{pin.variant}"
    return f"pip install {pinned('torch', f'torch=={pin.torch}')}{''.join(' ' + p for p in pins)} {index}", pins


def _which_release(pin: TorchPin, installed: str, n: int, last: bool) -> str:
    """How ``pin`` was chosen, in words: "the oldest release at or after the installed 1.12.1 whose cu118 wheels
    carry kernels for sm_89"."""
    runs = f"whose {pin.variant} wheels carry kernels for sm_{n}"
    if last:
        return f"the last release {runs} (newer releases dropped it; tables/torch_wheel_archs_dropped.csv)"
    if not installed:
        return f"the newest release in smrnb's tables {runs} (the text shows no torch release)"
    if tables.version_key(pin.torch)[:2] < tables.version_key(installed)[:2]:
        return f"the newest release before the installed {installed} {runs} (the releases after it dropped this GPU)"
    first = min((r["torch"] for r in tables.rows("torch_python")), key=tables.version_key)
    if tables.version_key(installed)[:2] < tables.version_key(first):
        return f"the oldest release newer than the installed {installed} in smrnb's tables (from {first}) {runs}"
    return f"the oldest release at or after the installed {installed} {runs}"
