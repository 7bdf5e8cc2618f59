# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the driver layer: GPU present, driver new enough for torch's CUDA (family rule)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._codes import meanings, why
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor.rules import Facts, rule
from smrnb.doctor.rules._context import layer

CODES = meanings("rules.driver")  # this module's codes, from the one table (codes.py)

DRIVER_DOCS = ("https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html",)


def _cmp(a: str, b: str) -> int:
    va, vb = tables.parse_version(a) or (), tables.parse_version(b) or ()
    n = max(len(va), len(vb))
    va, vb = va + (0,) * (n - len(va)), vb + (0,) * (n - len(vb))
    return (va > vb) - (va < vb)


def torch_variants_for_driver(torch_version: str, driver: str) -> list[str]:
    """torch CUDA variants (``cu126``...) of this torch release that ``driver`` can run."""
    tv = tables.torch_cuda_variants(torch_version)
    if tv is None:
        return []
    out = []
    for v in tv.variants:
        cuda = f"{v[2:-1]}.{v[-1]}"
        fam = tables.family_min_driver(cuda)
        if fam and _cmp(driver, fam) >= 0:
            out.append(v)
    return out


@rule("driver")
def driver_findings(facts: Facts) -> Iterable[Finding]:
    drv = facts.get("driver") or {}
    torch = layer(facts, "torch")
    if drv.get("status") == "broken":
        yield broken_driver_finding(drv)
        return
    if drv.get("status") == "unavailable":
        yield Finding("driver_unavailable", "driver", "warning", "The NVIDIA driver did not answer",
                      (drv.get("reason") or "unknown reason",
                       "whether a driver and GPUs are present is unknown (not the same as 'no GPU')"),
                      Fix("A hung nvidia-smi usually means a wedged driver or a GPU that fell off the bus; the "
                          "kernel log says which.",
                          ("timeout 20 nvidia-smi", "sudo dmesg | grep -iE 'nvrm|xid'")))
        return
    if drv.get("status") == "absent" or not drv.get("gpus"):
        ev = [drv.get("reason") or "no GPU reported"]
        if torch.get("cuda"):
            ev.append(f"torch {torch.get('version')} is a CUDA {torch['cuda']} build; it will run on the CPU here")
        yield Finding("no_gpu", "driver", "info", "No NVIDIA GPU on this machine: CPU only", tuple(ev))
        return
    driver = drv.get("driver_version") or ""
    gpus = ", ".join(f"{g.get('name')} (CC {g.get('compute_capability')})" for g in drv["gpus"])
    ev = [f"driver {driver}, supports CUDA up to {drv.get('cuda_driver_version')} (source: {drv.get('source')})",
          f"GPUs: {gpus}"]
    tcuda = torch.get("cuda")
    if tcuda and driver:
        fam = tables.family_min_driver(tcuda)
        ev.append(f"torch {torch.get('version')} needs driver >= {fam} (CUDA {tcuda.split('.')[0]}.x family)")
        if fam and _cmp(driver, fam) < 0:
            ok_variants = torch_variants_for_driver(torch.get("version_base") or "", driver)
            cmds = ["# update the NVIDIA driver (needs root), e.g. the R580 branch for CUDA 13"]
            if ok_variants:
                v = ok_variants[-1]
                cmds.append(f"pip install --force-reinstall torch=={torch.get('version_base')} "
                            f"--index-url https://download.pytorch.org/whl/{v}")
            yield Finding("driver_too_old", "driver", "error",
                          driver_too_old_title(driver, tcuda, drv.get("cuda_driver_version")), tuple(ev),
                          Fix(why("driver_too_old", f"A CUDA {tcuda} binary needs a driver >= {fam}; "
                                  "torch.cuda.is_available() is False and torch reports 'The NVIDIA driver on your "
                                  "system is too old'."
                                  + (f" Variants this driver runs: {', '.join(ok_variants)}." if ok_variants else "")),
                              tuple(cmds), DRIVER_DOCS))
            return
        ga = tables.min_driver_for_cuda(tcuda)
        if ga and _cmp(driver, ga.min_driver) < 0:
            yield Finding("driver_below_cuda_minor", "driver", "info",
                          f"Driver {driver} runs CUDA {tcuda} through minor-version compatibility",
                          (*ev, f"{ga.release} ships with driver >= {ga.min_driver}"),
                          Fix(why("driver_below_cuda_minor", "Most of torch works."), (), DRIVER_DOCS))
        else:
            yield Finding("driver_ok", "driver", "ok", f"Driver {driver} supports torch's CUDA {tcuda}", tuple(ev))
    cdv = drv.get("cuda_driver_version")
    if cdv:
        nvccs = sorted({n.get("version") for n in (layer(facts, "toolkit").get("nvccs") or []) if n.get("version")},
                       key=tables.version_key)
        yield Finding("driver_cuda_version_not_toolkit", "driver", "info",
                      f"'CUDA Version: {cdv}' in nvidia-smi is the driver's limit, not your toolkit",
                      (f"driver supports CUDA <= {cdv}",
                       f"torch's CUDA: {tcuda or 'none (CPU build)'}",
                       f"installed nvcc: {', '.join(nvccs) if nvccs else 'none'}"),
                      Fix("torch brings its own CUDA runtime (pip nvidia-* wheels); the local toolkit (nvcc) is only "
                          "used to build extensions such as kaolin. Compare torch.version.cuda and nvcc --version, "
                          "not nvidia-smi."))


def broken_driver_finding(drv: Mapping[str, Any]) -> Finding:
    """The finding for a driver that is installed but does not work (``status: "broken"``), whether the
    probe saw it on this machine or explain read it in an error text (``source: "the error text"``)."""
    kind = drv.get("broken_kind")
    ev = [f"{drv.get('source')}: {drv.get('message') or drv.get('reason')}"]
    if drv.get("library_version"):
        ev.append(f"driver libraries (NVML): {drv['library_version']}")
    if "kernel_module_version" in drv:  # only what the probe looked at
        kmod = drv.get("kernel_module_version")
        ev.append(f"loaded kernel module: {kmod}" if kmod else
                  "no NVIDIA kernel module is loaded (/proc/driver/nvidia/version does not exist)")
    if kind == "version_mismatch":
        title = "NVIDIA driver broken: the kernel module and the driver libraries are of different versions"
        detail = "Without a reboot, stop everything using the GPU and reload the module."
        cmds: tuple[str, ...] = (
            "sudo reboot   # simplest",
            "# or, with nothing using the GPU (stop X / display manager, nvidia-persistenced, jobs):\n"
            "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia && nvidia-smi",
            "cat /proc/driver/nvidia/version; dpkg -l | grep -E 'nvidia-(driver|utils)'   # the two versions")
    else:
        title = "NVIDIA driver broken: installed, but its kernel module is not loaded"
        detail = ("Usual causes: the driver or the kernel was updated without a reboot, a DKMS build failed for the "
                  "running kernel, or Secure Boot refused the unsigned module (in a VM or container without a GPU "
                  "attached the driver packages are simply useless).")
        cmds = ("sudo modprobe nvidia && nvidia-smi   # load it; the error says why it does not",
                "sudo dmesg | grep -iE 'nvrm|nvidia' | tail -20",
                "dkms status; mokutil --sb-state   # module built for this kernel? Secure Boot on?",
                "sudo reboot   # after a driver or kernel update")
    return Finding("driver_broken", "driver", "error", title, tuple(ev),
                   Fix(why("driver_broken", detail), cmds,
                       ("https://docs.nvidia.com/deploy/driver-persistence/index.html",)))


def driver_too_old_title(driver: str | None, torch_cuda: str | None, driver_cuda: str | None = None) -> str:
    """The title of ``driver_too_old`` from what is known: the driver's version or the newest CUDA it runs."""
    who = f"Driver {driver}" if driver else "The NVIDIA driver"
    if driver_cuda:
        who += f" (supports CUDA up to {driver_cuda})"
    return f"{who} is too old for " + (f"torch built with CUDA {torch_cuda}" if torch_cuda else "this CUDA runtime")


@rule("driver")
def driver_vs_toolkits(facts: Facts) -> Iterable[Finding]:
    """The driver against every nvcc a build would use: what it compiles must run on this driver."""
    drv = layer(facts, "driver")
    tk = layer(facts, "toolkit")
    driver = drv.get("driver_version")
    if drv.get("status") != "ok" or not driver or not drv.get("gpus") or not tk:
        return
    build_nvcc = tk.get("build_nvcc")
    seen: set[str] = set()
    for n in sorted(tk.get("nvccs") or [], key=lambda n: build_nvcc not in (n.get("paths") or [])):
        ver = n.get("version")
        if not ver or ver in seen:
            continue
        seen.add(ver)
        fam = tables.family_min_driver(ver)
        if not fam or _cmp(driver, fam) >= 0:
            continue
        is_build = bool(build_nvcc) and build_nvcc in (n.get("paths") or [])
        torch = layer(facts, "torch")
        ev = (f"driver {driver} (supports CUDA <= {drv.get('cuda_driver_version')})",
              f"nvcc {ver} at {n.get('path')} ({'the one a build would use' if is_build else 'reachable via ' + ', '.join(n.get('found_via') or [])})",
              f"CUDA {ver.split('.')[0]}.x binaries need a driver >= {fam}",
              f"torch: {torch.get('version')} ({'CUDA ' + torch['cuda'] if torch.get('cuda') else 'CPU build'})"
              if torch.get("installed") else "torch: not installed")
        yield Finding("driver_too_old_for_toolkit", "driver", "error" if is_build else "warning",
                      f"Driver {driver} is too old for nvcc {ver}: what it builds will not run here", ev,
                      Fix(f"Code built by nvcc {ver} fails at run time with 'CUDA driver version is insufficient for "
                          f"CUDA runtime version' on driver {driver}. Update the driver (>= {fam}), or build with a "
                          "toolkit this driver supports"
                          + (f" (CUDA <= {drv.get('cuda_driver_version')})." if drv.get("cuda_driver_version") else "."),
                          ("# update the NVIDIA driver (needs root), then reboot",
                           "nvidia-smi   # 'CUDA Version' = the newest CUDA this driver runs"), DRIVER_DOCS))
