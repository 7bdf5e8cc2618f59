# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the driver layer: GPU present, driver new enough for torch's CUDA (family rule)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._codes import meanings, why
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor.rules import Facts, rule
from smrnb.doctor.rules._context import layer
from smrnb.doctor.rules._events import (
    builds,
    cuda_in_use,
    events,
    finding,
    from_text,
    has_sign,
    major,
    resolve,
    torch_in_text,
    value,
)

CODES = meanings("rules.driver")  # this module's codes, from the one table (codes.py)

DRIVER_DOCS = ("https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html",)


def driver_platform(facts: Facts) -> str:
    """(round 32l) The driver column (tables.driver_platform) the driver's number is read against: "windows" where the
    driver layer says so (``driver.platform``: a text that shows Windows or WSL 2, _textfacts._WINDOWS_DRIVER_RE; the
    probe on Windows or in WSL 2, whose nvidia-smi prints the Windows host driver), else "linux"."""
    return "windows" if layer(facts, "driver").get("platform") == "windows" else "linux"


def _cmp(a: str, b: str) -> int:
    va, vb = tables.parse_version(a) or (), tables.parse_version(b) or ()
    n = max(len(va), len(vb))
    va, vb = va + (0,) * (n - len(va)), vb + (0,) * (n - len(vb))
    return (va > vb) - (va < vb)


def torch_variants_for_driver(torch_version: str, driver: str, platform: str = "linux") -> list[str]:
    """torch CUDA variants (``cu126``...) of this torch release that ``driver`` (of ``platform``) can run."""
    tv = tables.torch_cuda_variants(torch_version)
    if tv is None:
        return []
    out = []
    for v in tv.variants:
        cuda = f"{v[2:-1]}.{v[-1]}"
        fam = tables.family_min_driver(cuda, platform)
        if fam and _cmp(driver, fam) >= 0:
            out.append(v)
    return out


def indexes_for_driver_cuda(dcuda: str, driver: str | None = None, platform: str = "linux",
                            tags: tuple[str, ...] | None = None) -> list[str]:
    """The torch CUDA wheel indexes (``tables.torch_cuda_indexes``; ``tags`` in its place: other variant tags, oldest
    first) a driver that runs CUDA <= ``dcuda`` can run,
    oldest first: a CUDA not newer than ``dcuda`` natively; a newer minor of the same major (11 on) under minor-version
    compatibility when the driver reaches the major's minimum (``driver``, or when unknown the driver of ``dcuda``'s
    first release: a driver that reports CUDA 11.4 is at least 470.42.01)."""
    d = tables.parse_version(dcuda)
    if not d or len(d) < 2:
        return []
    if not driver:
        ga = tables.min_driver_for_cuda(dcuda, platform)
        driver = ga.min_driver if ga else None
    fam = tables.family_min_driver(d[0], platform)
    compat = bool(d[0] >= 11 and fam and driver and _cmp(driver, fam) >= 0)
    out = []
    for v in tables.torch_cuda_indexes() if tags is None else tags:
        c = (int(v[2:-1]), int(v[-1]))
        if c <= d[:2] or (compat and c[0] == d[0]):
            out.append(v)
    return out


def _visible_none(value: Any, gpus: list[Mapping[str, Any]]) -> str:
    """Why a CUDA_VISIBLE_DEVICES value shows CUDA none of ``gpus`` ("" when it shows some, or cannot tell). CUDA reads
    the comma-separated list up to its first entry that names no device (CUDA C++ Programming Guide, "CUDA
    Environment Variables"; a negative index or a name such as Slurm's "NoDevFiles" ends it), so an empty value, or a
    first entry that is not an index below the device count nor a GPU-/MIG- UUID, shows none."""
    if value is None:
        return ""
    first = str(value).split(",")[0].strip()
    if not first:
        return "CUDA_VISIBLE_DEVICES is set to an empty value: CUDA shows this process no device"
    if first.upper().startswith(("GPU-", "MIG-")):
        uuids = [str(g.get("uuid") or "") for g in gpus]
        if first.upper().startswith("GPU-") and all(uuids) and not any(u.lower().startswith(first.lower()) for u in uuids):
            return f"CUDA_VISIBLE_DEVICES names {first}, a UUID of none of this node's GPUs"
        return ""
    if re.fullmatch(r"\d{1,3}", first):
        if int(first) >= len(gpus):
            return f"CUDA_VISIBLE_DEVICES starts with device {first}; this node has devices 0-{len(gpus) - 1}"
        return ""
    return (f"CUDA_VISIBLE_DEVICES starts with {first!r}, which names no device (a negative index, or Slurm's "
            "'NoDevFiles' for a job given no GPU): CUDA stops there and shows none")


#: (blind audit 36, C-M4) a command that changes the driver: only the host can run it where the doctor runs in a container
_HOST_ONLY_RE = re.compile(r"\b(?:modprobe|rmmod|dkms|reboot|nvidia-installer|ubuntu-drivers)\b|update the NVIDIA driver|"
                           r"apt(?:-get)? (?:install|remove|purge)[^#\n]{0,80}nvidia-(?:driver|dkms|kernel|utils)")
_CONTAINER_RUNS = {"docker": "docker run --gpus all ...", "podman": "podman run --device nvidia.com/gpu=all ...",
                   "kubernetes": "resources: limits: nvidia.com/gpu: 1 (the pod's spec)"}


def on_the_host(facts: Facts, f: Finding) -> Finding:
    """(blind audit 36, C-M4) ``f`` where the doctor runs (or the text ran) in a container and its fix changes the
    driver: a first line saying those commands are the host's (the container shares the host's kernel module), and
    how the container gets the GPU again; ``f`` unchanged elsewhere."""
    where = value(facts, "context", "container")
    if not where or f.fix is None or not any(_HOST_ONLY_RE.search(c) for c in f.fix.commands):
        return f
    run = _CONTAINER_RUNS.get(str(where), "the container's GPU option")
    note = (f"# inside a {where} container: the driver is the host's; run the driver commands below on the host "
            f"(not in the container), then start the container again with its GPU ({run})")
    return dataclasses.replace(f, fix=Fix(f.fix.why, (note, *f.fix.commands), f.fix.docs))


@rule("driver")
def driver_findings(facts: Facts) -> Iterable[Finding]:
    """The live driver's findings (:func:`_driver_findings`), each with its host-side note in a container."""
    for f in _driver_findings(facts):
        yield on_the_host(facts, f)


def _driver_findings(facts: Facts) -> Iterable[Finding]:
    drv = facts.get("driver") or {}
    torch = layer(facts, "torch")
    if not drv:
        return  # not collected (a text that shows nothing of the driver)
    if drv.get("status") == "broken":
        if not (drv.get("broken_kind") == "not_loaded" and from_text(facts, "driver", "broken_kind") and
                has_sign(facts, "colab") and not (layer(facts, "context").get("container") or
                                                  layer(facts, "context").get("slurm"))):
            yield broken_driver_finding(drv)
        # (in a Google Colab runtime no driver reached is a runtime without a GPU accelerator: the message's
        # readings, no_gpu first, say so; tables nvidia_smi_messages and rules._events._platform_decides)
        return
    if drv.get("status") == "unavailable":
        yield Finding("driver_unavailable", "driver", "warning", "The NVIDIA driver did not answer",
                      (drv.get("reason") or "unknown reason",
                       "whether a driver and GPUs are present is unknown (not the same as 'no GPU')"),
                      # (blind audit 36, C-L11) stopped for its output's size: it answered, without end, not a hang
                      # (a wrapper script or another program named nvidia-smi first on PATH, or a driver printing
                      # errors in a loop)
                      Fix("nvidia-smi printed without end and was stopped: not a hang. Look at what it prints and "
                          "which nvidia-smi runs (a wrapper script or another program of that name first on PATH, "
                          "or a driver printing errors in a loop).",
                          ("command -v nvidia-smi; file \"$(command -v nvidia-smi)\"",
                           "timeout 20 nvidia-smi | head -c 2000"))
                      if "output over" in str(drv.get("reason")) else
                      Fix("A hung nvidia-smi usually means a wedged driver or a GPU that fell off the bus; the "
                          "kernel log says which.", ("timeout 20 nvidia-smi", "sudo dmesg | grep -iE 'nvrm|xid'")))
        return
    if drv.get("source") == "the error text" or from_text(facts, "driver", "cuda_driver_version") or from_text(
            facts, "driver", "driver_version"):
        yield from _text_driver_versions(facts)
        return
    ctx = layer(facts, "context")
    if (drv.get("status") == "absent" or not drv.get("gpus")) and drv.get("nvidia_smi") and (
            ctx.get("slurm") or ctx.get("container")) and not from_text(facts, "context"):
        # (blind audit 30, L09) nvidia-smi is installed (a driver) but sees no device inside a Slurm job or a
        # container: the job or container was not given a GPU (no --gres / --gpus), not a machine without one
        where = (f"Slurm job {(ctx.get('slurm') or {}).get('job_id')}" if ctx.get("slurm") else
                 f"{'an' if str(ctx.get('container'))[:1] in 'aeiou' else 'a'} {ctx.get('container')} container")
        yield Finding("gpu_not_exposed_to_process", "driver", "error", f"No GPU is given to {where}",
                      (drv.get("reason") or "nvidia-smi lists no GPU",
                       f"nvidia-smi is installed ({drv.get('nvidia_smi')}): the node has an NVIDIA driver; {where} "
                       "sees no GPU"),
                      Fix(why("gpu_not_exposed_to_process", ""), _not_exposed_live(facts)))
        return
    if drv.get("status") == "absent" or not drv.get("gpus"):
        ev = [drv.get("reason") or "no GPU reported"]
        if torch.get("cuda"):
            ev.append(f"torch {torch.get('version')} is a CUDA {torch['cuda']} build; it will run on the CPU here")
        yield Finding("no_gpu", "driver", "info", "No NVIDIA GPU on this machine: CPU only", tuple(ev))
        return
    hidden = _visible_none(ctx.get("cuda_visible_devices"), drv["gpus"]) if not from_text(
        facts, "context", "cuda_visible_devices") else None
    if hidden:
        # (blind audit 30, L06-L08) CUDA shows this process none of the GPUs nvidia-smi lists
        yield Finding("gpu_not_exposed_to_process", "driver", "error",
                      f"CUDA_VISIBLE_DEVICES={ctx.get('cuda_visible_devices')!r} hides every GPU from this process",
                      (f"nvidia-smi lists {len(drv['gpus'])} GPU(s): "
                       + ", ".join(str(g.get("name")) for g in drv["gpus"][:4]), hidden),
                      Fix(why("gpu_not_exposed_to_process", ""),
                          ("echo \"CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES\"",
                           "unset CUDA_VISIBLE_DEVICES   # or set it to the GPUs to use (0, 0,1); then remove the line "
                           "that sets it (~/.bashrc, the job script, the kernel spec's env)"
                           if not ctx.get("slurm") else
                           "srun --gres=gpu:1 ...   # in a Slurm job CUDA_VISIBLE_DEVICES is Slurm's: ask for a GPU")))
    driver = drv.get("driver_version") or ""
    gpus = ", ".join(f"{g.get('name')} (CC {g.get('compute_capability')})" for g in drv["gpus"])
    ev = [f"driver {driver}, supports CUDA up to {drv.get('cuda_driver_version')} (source: {drv.get('source')})",
          f"GPUs: {gpus}"]
    tcuda = torch.get("cuda")
    plat = driver_platform(facts)
    if tcuda and driver:
        fam = tables.family_min_driver(tcuda, plat)
        ev.append(f"torch {torch.get('version')} needs driver >= {fam} (CUDA {tcuda.split('.')[0]}.x family)")
        if fam and _cmp(driver, fam) < 0:
            ok_variants = torch_variants_for_driver(torch.get("version_base") or "", driver, plat)
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
        ga = tables.min_driver_for_cuda(tcuda, plat)
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
                      Fix(why("driver_cuda_version_not_toolkit", "The local toolkit (nvcc) is only used to build "
                              "extensions such as kaolin.")))


def broken_driver_finding(drv: Mapping[str, Any]) -> Finding:
    """The finding for a driver that is installed but does not work (``status: "broken"``), whether the
    probe saw it on this machine or explain read it in an error text (``source: "the error text"``)."""
    kind = drv.get("broken_kind")
    ev = [f"{drv.get('source')}: {drv.get('message') or drv.get('reason')}"]
    if drv.get("library_version"):
        ev.append(f"driver libraries (NVML): {drv['library_version']}")
    unread = "kernel_module_version" in drv and not drv.get("kernel_module_version")
    if "kernel_module_version" in drv and kind == "version_mismatch" and unread:
        # (round 31b, blind audit 30 L04) NVML's mismatch is a module that answered with another version than its
        # libraries, so a module was there when it answered: /proc/driver/nvidia/version missing now means its version
        # cannot be read here (a container that does not mount /proc/driver/nvidia), or the module was unloaded since
        ev.append("the kernel module's version could not be read here (/proc/driver/nvidia/version does not exist): "
                  "NVML's mismatch means a module of another version answered it, so either this is a container that "
                  "does not show /proc/driver/nvidia, or that module was unloaded since (on the host, `modinfo -F "
                  "version nvidia` names the version modprobe would load)")
    elif "kernel_module_version" in drv:  # only what the probe looked at
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
    elif kind == "init_failed":
        title = "NVIDIA driver installed, but CUDA cannot initialise it (cuInit fails)"
        detail = ("The driver answers but its initialisation fails: most often the nvidia_uvm module (not loaded, or "
                  "wedged after a suspend or a driver update), a /dev/nvidia* node this process may not open, or a "
                  "driver bug that a module option or a driver update fixes; the kernel log names it.")
        cmds = ("sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm   # with nothing using the GPU",
                "ls -l /dev/nvidia*; lsmod | grep nvidia",
                "sudo dmesg | grep -iE 'nvrm|nvidia|uvm' | tail -20",
                "sudo reboot   # after a driver or kernel update")
    else:
        # (blind audit 36, C-M5) an exit status without the driver's words: its documented meaning, said as such
        from smrnb.doctor.probes._driver import SMI_EXIT_9_SAID

        title = SMI_EXIT_9_SAID if drv.get("exit_status_only") else \
            "NVIDIA driver broken: installed, but its kernel module is not loaded"
        detail = ("Usual causes: the driver or the kernel was updated without a reboot, a DKMS build failed for the "
                  "running kernel, or Secure Boot refused the unsigned module (in a VM or container without a GPU "
                  "attached the driver packages are simply useless).")
        cmds = ("sudo modprobe nvidia && nvidia-smi   # load it; the error says why it does not",
                "sudo dmesg | grep -iE 'nvrm|nvidia' | tail -20",
                "dkms status; mokutil --sb-state   # module built for this kernel? Secure Boot on?",
                "sudo dkms autoinstall && sudo modprobe nvidia   # after a kernel update: build the module for the "
                "running kernel first (or reinstall the driver's nvidia-dkms package)",
                "sudo reboot   # after a driver or kernel update")
    return Finding("driver_broken", "driver", "error", title, tuple(ev),
                   Fix(why("driver_broken", detail), cmds,
                       ("https://docs.nvidia.com/deploy/driver-persistence/index.html",)))


def driver_too_old_title(driver: str | None, torch_cuda: str | None, driver_cuda: str | None = None,
                         used: str | None = None, compared: bool = True) -> str:
    """The title of ``driver_too_old`` from what is known: the driver's version or the newest CUDA it runs, the CUDA
    torch is built with (else the CUDA the text ``used``); ``compared``: a comparison of versions says so (else a
    message does, and the title says "may be")."""
    who = f"Driver {driver}" if driver else "The NVIDIA driver"
    if driver_cuda:
        who += f" (supports CUDA up to {driver_cuda})"
    what = f"torch built with CUDA {torch_cuda}" if torch_cuda else f"CUDA {used}" if used else "this CUDA runtime"
    return f"{who} {'is' if compared else 'may be'} too old for {what}"


@rule("driver")
def driver_vs_toolkits(facts: Facts) -> Iterable[Finding]:
    """The driver against every nvcc a build would use: what it compiles must run on this driver."""
    for f in _driver_vs_toolkits(facts):
        yield on_the_host(facts, f)


def _driver_vs_toolkits(facts: Facts) -> Iterable[Finding]:
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
        fam = tables.family_min_driver(ver, driver_platform(facts))
        if not fam or _cmp(driver, fam) >= 0:
            continue
        is_build = bool(build_nvcc) and build_nvcc in (n.get("paths") or [])
        torch = layer(facts, "torch")
        ev = (f"driver {driver} (supports CUDA <= {drv.get('cuda_driver_version')})",
              f"nvcc {ver} at {n.get('path')} ({'the one a build would use' if is_build else 'reachable via ' + ', '.join(n.get('found_via') or [])})",
              f"CUDA {ver.split('.')[0]}.x binaries need a driver >= {fam}",
              f"torch: {torch.get('version')} ({'CUDA ' + torch['cuda'] if torch.get('cuda') else 'CPU build'})"
              if torch.get("installed") else "torch: not installed")
        # (blind audit 36, C-M3) an error only where a build uses that nvcc for a CUDA torch: beside a CPU-only torch (or
        # none) nothing installed fails by it yet (CODES.md's rule for a toolkit cause)
        cuda_torch = bool(torch.get("installed") and torch.get("cuda"))
        yield Finding("driver_too_old_for_toolkit", "driver", "error" if is_build and cuda_torch else "warning",
                      f"Driver {driver} is too old for nvcc {ver}: what it builds will not run here", ev,
                      Fix(f"Code built by nvcc {ver} fails at run time with 'CUDA driver version is insufficient for "
                          f"CUDA runtime version' on driver {driver}. Update the driver (>= {fam}), or build with a "
                          "toolkit this driver supports"
                          + (f" (CUDA <= {drv.get('cuda_driver_version')})." if drv.get("cuda_driver_version") else "."),
                          ("# update the NVIDIA driver (needs root), then reboot",
                           "nvidia-smi   # 'CUDA Version' = the newest CUDA this driver runs"), DRIVER_DOCS))


# ------------------------------------------------------------------ a driver read in an error text
def _text_driver_versions(facts: Facts) -> Iterable[Finding]:
    """The driver a text shows (nvidia-smi's header, torch's 'found version 11040') against the CUDA the
    text's torch (``+cu121``, ``cudatoolkit=11.8``) was built with: the family rule of the live check on the
    CUDA version the driver supports (CUDA 11+ runs newer minors of its major, 10.x does not)."""
    drv = facts.get("driver") or {}
    dmax, tcuda = drv.get("cuda_driver_version"), value(facts, "torch", "cuda")
    nvccs = [n.get("version") for n in value(facts, "toolkit", "nvccs") or [] if isinstance(n, Mapping) and n.get("version")]
    if dmax and nvccs and any(v != dmax for v in nvccs) and drv.get("cuda_driver_version_from") != "table":
        f = finding("driver_cuda_version_not_toolkit", facts, {
            "kind": "state", "from": "text", "weight": 20, "line": (drv.get("read_from") or {}).get("cuda_driver_version", ""),
            "fact": f"nvidia-smi: CUDA Version {dmax}; nvcc {', '.join(nvccs)}"})
        if f is not None:
            yield f
    if not dmax or not tcuda or events(facts, "driver", "cuda_error") and any(
            "driver_too_old" in (e.get("codes") or ()) for e in events(facts, "driver", "cuda_error")):
        return
    if tables.version_key(tcuda) <= tables.version_key(dmax):
        return
    same_major = major(tcuda) == major(dmax) and (major(tcuda) or 0) > 10
    line = (drv.get("read_from") or {}).get("cuda_driver_version", "")
    ev = {"kind": "state", "from": "text", "weight": 16, "line": line,
          "fact": f"the driver runs CUDA <= {dmax}; torch uses CUDA {tcuda}"}
    dv, plat = drv.get("driver_version"), driver_platform(facts)
    fam = tables.family_min_driver(tcuda, plat) if same_major and dv else None
    # (a number shortened as a reporter writes it, "525.60", is compared on the parts it shows)
    shown = len(tables.parse_version(dv) or ()) if fam else 0
    if fam and shown and _cmp(str(dv), ".".join(fam.split(".")[:shown])) < 0:
        # (round 32l) minor-version compatibility needs the major's minimum driver (release notes Table 2: CUDA 12.x
        # >= 525.60.13 on Linux, >= 528.33 on Windows; 11.x >= 450.80.02 / 452.39): a driver of the same major below
        # it (a Windows 527.56 that prints 'CUDA Version: 12.0') does not run a newer minor's binary at all
        same_major = False
        ev["fact"] += f"; CUDA {major(tcuda)}.x minor-version compatibility needs driver >= {fam} ({plat}), this is {dv}"
    f = finding("driver_below_cuda_minor" if same_major else "driver_too_old", facts, ev)
    if f is not None:
        yield f


def _driver_cuda_of(facts: Facts) -> str | None:
    return value(facts, "driver", "cuda_driver_version")


@builds("driver_too_old")
def _too_old(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    dv, dcuda, tc = value(facts, "driver", "driver_version"), _driver_cuda_of(facts), value(facts, "torch", "cuda")
    found = (ev.get("groups") or {}).get("found")
    evidence = ([f"found version {found} = cudaDriverGetVersion(): the driver supports CUDA up to {dcuda}"]
                if found and dcuda else [f"the driver runs CUDA <= {dcuda}"] if dcuda else [])
    used = None if tc else cuda_in_use(facts)
    evidence += ([f"torch is built for CUDA {tc}"] if tc else [f"the text uses CUDA {used}"] if used else []) + (
        [f"driver version {dv}"] if dv else [])
    # where the newest CUDA the driver runs is not known, no comparison says it is too old: a message does; (round
    # 32h) nor where it is known and runs the CUDA in use (a driver's CUDA read from tables/cuda_driver.csv at or
    # above it): then too the message alone says so, and the title says "may be"
    cuda = tc or used
    compared = bool(dcuda) and not (cuda and tables.version_key(dcuda) >= tables.version_key(cuda))
    title = driver_too_old_title(dv, tc, dcuda if compared else None, used, compared=compared)
    cmds = ["nvidia-smi   # 'CUDA Version' is the newest CUDA the driver supports"]
    image = _cuda_image(facts) if not tc and not value(facts, "torch", "version") else None
    if image and used and tables.min_driver_for_cuda(used):  # a CUDA release the table knows
        # (round 29a, blind audit 28 F8) the CUDA is a container image's (nvidia/cuda:12.2.2-...) and no torch is in
        # the text: the host driver, or an image of a CUDA it runs (tables/cuda_driver.csv, cuda_family.csv)
        return {"title": title, "evidence": evidence,
                "commands": cmds + _image_commands(image, used, dcuda, dv, driver_platform(facts)),
                "docs": DRIVER_DOCS}
    own = value(facts, "toolkit", "nvcc_command") if not tc and not torch_in_text(facts) else None
    if own and dcuda and compared:  # (round 37f, blind audit 37 F14) the user's own nvcc build, no torch in the text
        return {"title": title, "evidence": evidence, "docs": DRIVER_DOCS,
                "fix": f"The program was built with CUDA {cuda}, newer than the newest CUDA this driver runs ({dcuda}): "
                       f"build it with a CUDA {dcuda} or older toolkit, or update the driver.",
                "commands": cmds + [f"export PATH=/usr/local/cuda-{dcuda}/bin:$PATH && {own}   # a CUDA <= {dcuda} "
                                    "toolkit installed, which this driver runs",
                                    _driver_update_line(cuda, driver_platform(facts))]}
    if dcuda:
        runs = indexes_for_driver_cuda(dcuda, dv, driver_platform(facts))
        tv = str(value(facts, "torch", "version") or "").split("+")[0]
        tvars = tables.torch_cuda_variants(tv) if tv else None
        mine = [v for v in (tvars.variants if tvars else ()) if v in runs]
        pick = mine[-1] if mine else runs[-1] if runs else None
        if pick:
            pins = _companions_for(facts, tv if mine else "")
            cmds.append(f"pip install --force-reinstall torch{'==' + tv if mine else ''}{''.join(' ' + p for p in pins)}"
                        f" --index-url https://download.pytorch.org/whl/{pick}   # "
                        + (f"torch {tv}'s build for CUDA {_cuda_of(pick)}" if mine else
                           f"the newest torch build for CUDA {_cuda_of(pick)}") + ", which this driver runs"
                        + (f", with the {' and '.join(p.split('==')[0] for p in pins)} of its release" if pins else ""))
            if tables.version_key(_cuda_of(pick)) > tables.version_key(dcuda):
                evidence.append(f"CUDA {_cuda_of(pick)} runs on a CUDA {dcuda} driver under minor-version "
                                "compatibility")
        cmds.append("# or update the NVIDIA driver (needs root)" if runs else
                    f"# update the NVIDIA driver (needs root): no PyTorch CUDA build with a wheel index runs on a "
                    f"CUDA {dcuda} driver")
    else:
        cmds.append("# update the NVIDIA driver (needs root), or install the torch build of a CUDA release "
                    "'nvidia-smi' says it supports: https://pytorch.org/get-started/previous-versions/")
    return {"title": title, "evidence": evidence, "commands": cmds, "docs": DRIVER_DOCS}


def _driver_update_line(cuda: str | None, platform: str) -> str:
    """(round 37f) The driver release a CUDA needs, as an update to make: its major's minimum under minor-version
    compatibility (tables/cuda_family.csv) and the release's own (tables/cuda_driver.csv)."""
    row = tables.min_driver_for_cuda(str(cuda), platform) if cuda else None
    fam = tables.family_min_driver(str(cuda), platform) if cuda else None
    if not row or not fam:
        return "# or update the NVIDIA driver (needs root)"
    return (f"# or update the NVIDIA driver (needs root): {fam} or newer runs CUDA {major(cuda)}.x programs (minor-version "
            f"compatibility), {row.min_driver} or newer all of CUDA {cuda} (NVIDIA's release notes, Tables 2 and 3)")


#: torch's companions whose builds are made per torch release and CUDA variant (tables/torch_companions.csv pairs them)
_PAIRED_COMPANIONS = ("torchvision", "torchaudio")


def _companions_for(facts: Facts, tv: str) -> list[str]:
    """(round 36g, audit 36 F4) The torchvision / torchaudio the text shows installed, to reinstall beside torch from
    the same CUDA index: pinned to the release of torch ``tv``'s line (tables/torch_companions.csv), unpinned where
    torch is not pinned either; one of another CUDA variant beside torch fails
    to load ("compiled with different CUDA major versions"). A companion the table cannot pair goes unpinned: its
    wheels pin one torch release each, so pip's resolver takes the one made for the torch beside it."""
    from smrnb.doctor.rules._abi import companion_for_torch

    shown = {str(k).lower().replace("_", "-") for k in value(facts, "loader", "package_releases") or {}}
    shown |= {str(p).lower().replace("_", "-") for p in value(facts, "torch", "packages_installed") or []}
    out = []
    for lib in _PAIRED_COMPANIONS:
        if lib not in shown:
            continue
        rel = companion_for_torch(lib, tv) if tv else ""
        out.append(f"{lib}=={rel}" if rel and "*" not in rel else lib)  # unpinned: pip takes the one torch's pin fits
    return out


#: (round 29a) a CUDA container image a text runs: NVIDIA's ``nvidia/cuda:12.2.2-devel-ubuntu22.04`` (Docker Hub or NGC)
#: NCCL's own CUDA checks (NVIDIA/nccl src/include/checks.h CUDACHECK: WARN("Cuda failure '%s'", cudaGetErrorString(err));
#: CUCHECK: WARN("Cuda failure %d '%s'", err, errStr)), not nccl-tests' "Test CUDA failure" of the test's own calls
_NCCL_CUDA_FAILURE_RE = re.compile(r"\bCuda failure (?:[0-9]{1,4} )?'")
#: CUDA's graphics-interop calls (rules._events reads a 304 from them as the platform's missing GL/D3D access)
_GRAPHICS_CALL_RE = re.compile(r"\bcu(?:da)?Graphics(?:GL|D3D\d{1,2}|EGL|VDPAU)\w{0,40}")
_INVALID_VALUE_NAMES = frozenset({"cudaErrorInvalidValue", "CUDA_ERROR_INVALID_VALUE"})
_CUDA_IMAGE_RE = re.compile(r"\b((?:nvcr\.io/)?nvidia/cuda):(\d{1,2}\.\d{1,2})(?:\.\d{1,2})?([\w.-]*)")


def _cuda_image(facts: Facts) -> re.Match[str] | None:
    """The ``nvidia/cuda:<version>`` image of the line the text's CUDA version was read from, if any."""
    line = str(((facts.get("toolkit") or {}).get("read_from") or {}).get("cuda_named") or "")
    return _CUDA_IMAGE_RE.search(line)


def _image_commands(image: re.Match[str], used: str, dcuda: str | None, dv: str | None,
                    platform: str = "linux") -> list[str]:
    """The host driver an image's CUDA needs (its GA row, and its major's minimum under minor-version
    compatibility), or an image of a CUDA release this driver runs, both from the tables."""
    ga = tables.min_driver_for_cuda(used, platform)
    u = tables.parse_version(used) or (0,)
    fam = tables.family_min_driver(u[0], platform)
    out = [f"# update the host's NVIDIA driver (needs root) to >= {ga.min_driver if ga else fam} for CUDA {used}"
           + (f" (any CUDA {u[0]}.x image runs from {fam} on, under minor-version compatibility)"
              if fam and ga and fam != ga.min_driver else "")]
    d = tables.parse_version(dcuda) if dcuda else None
    if d and len(d) >= 2:
        same = [r.cuda for r in tables.cuda_releases() if (tables.parse_version(r.cuda) or (0,))[0] == d[0]]
        dfam = tables.family_min_driver(d[0], platform)
        compat = bool(d[0] >= 11 and same and dfam and dv and tables.version_key(dv) >= tables.version_key(dfam))
        newest = max(same, key=tables.version_key) if compat else dcuda
        out.append(f"# or an image of CUDA {newest} or older ({image.group(1)}:{newest}.x{image.group(3)} tags): this "
                   f"driver runs CUDA <= {dcuda} natively" + (
                       f", and CUDA {d[0]}.x up to {newest} under minor-version compatibility"
                       if compat and newest != dcuda else ""))
    return out


def _cuda_of(variant: str) -> str:
    return f"{variant[2:-1]}.{variant[-1]}"


@builds("driver_below_cuda_minor")
def _below_minor(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    dcuda, tc = _driver_cuda_of(facts), value(facts, "torch", "cuda")
    title = (f"The driver (CUDA up to {dcuda}) runs CUDA {tc} only under minor-version compatibility" if dcuda and tc
             else "The driver is older than the toolkit that produced the code it must load")
    return {"title": title, "commands": ["nvidia-smi", "nvcc --version"], "docs": DRIVER_DOCS}


@builds("driver_broken")
def _broken_from_event(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    from smrnb.doctor.probes._driver import broken_kind

    drv = dict(facts.get("driver") or {})
    if drv.get("status") != "broken" and has_sign(facts, "suspend_said"):
        # (round 37f, blind audit 37 F9) a failure told after a suspend/resume: the driver is loaded (nvidia-smi may
        # well answer) and CUDA's nvidia_uvm state did not survive the resume; reloading nvidia_uvm restores it
        return {"title": "CUDA cannot use the NVIDIA driver after a suspend/resume (nvidia_uvm's state did not survive it)",
                "fix": "The driver is loaded, but CUDA's unified-memory module (nvidia_uvm) lost its state in the "
                       "suspend/resume, so CUDA's initialisation fails (unknown error, 999): reload nvidia_uvm with "
                       "nothing using the GPU, or reboot; where it happens after each resume, NVIDIA's power-management "
                       "services (nvidia-suspend/nvidia-resume) keep the driver's state.",
                "commands": ["sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm   # with nothing using the GPU; then "
                             "run it again", "sudo dmesg | grep -iE 'nvrm|nvidia|uvm' | tail -20",
                             "sudo reboot   # where nvidia_uvm is in use and will not unload"],
                "docs": ["https://docs.nvidia.com/deploy/driver-persistence/index.html"]}
    if drv.get("status") != "broken":
        line = str(ev.get("line") or "")
        kind = broken_kind(line) or (_ERROR_BROKEN_KIND.get(str(ev.get("name")), "init_failed")
                                     if ev.get("kind") == "cuda_error" else "not_loaded")
        drv = {"status": "broken", "broken_kind": kind, "source": origin_name(ev), "message": line}
    f = broken_driver_finding(drv)
    return {"title": f.title, "evidence": list(f.evidence[1:]), "commands": list(f.fix.commands),
            "detail": f.fix.why[len(why("driver_broken")):].strip(), "docs": list(f.fix.docs)}


#: error codes whose driver reading is a kernel module of another version than the user-space driver
#: (cuda_errors.csv / cu_results.csv meanings); every other CUDA error read as a broken driver is a failed cuInit
_ERROR_BROKEN_KIND = {"cudaErrorCompatNotSupportedOnDevice": "version_mismatch",
                      "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE": "version_mismatch",
                      "cudaErrorSystemDriverMismatch": "version_mismatch", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH": "version_mismatch"}


def origin_name(ev: Mapping[str, Any]) -> str:
    return "the error text" if ev.get("from") != "live" else "this machine"


#: (round 28c) how each container tool gives a container the GPU, other than Docker's ``--gpus``: Podman through the
#: NVIDIA Container Toolkit's CDI spec (docs.nvidia.com/datacenter/cloud-native/container-toolkit, "Support for
#: Container Device Interface": nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml, nvidia-ctk cdi list, podman run
#: --device nvidia.com/gpu=all), Apptainer/Singularity with ``--nv`` (apptainer.org/docs/user "GPU Support": --nv binds
#: the host's driver libraries and /dev/nvidia* into the container), Kubernetes with the NVIDIA device plugin's
#: ``nvidia.com/gpu`` resource in the container's ``resources.limits`` (kubernetes.io "Schedule GPUs": GPUs are
#: requested only in limits)
_CONTAINER_GPU = {
    "podman": ["sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml   # the CDI spec of this host's GPUs (again "
               "after each driver update)",
               "nvidia-ctk cdi list   # must list nvidia.com/gpu=all",
               "podman run --device nvidia.com/gpu=all ...   # the GPU as a CDI device"],
    "apptainer": ["apptainer exec --nv ...   # --nv binds the host's NVIDIA driver libraries and /dev/nvidia* into "
                  "the container"],
    "singularity": ["singularity exec --nv ...   # --nv binds the host's NVIDIA driver libraries and /dev/nvidia* into "
                    "the container"],
    "kubernetes": ["# Kubernetes: the pod's container needs 'resources: limits: nvidia.com/gpu: 1' (the NVIDIA device "
                   "plugin's resource, on a GPU node), then the pod created again"],
}
#: (round 28c) WSL2's GPU is the Windows host's driver's (CUDA on WSL User Guide: no Linux driver inside WSL)
#: Docker's way of giving a container the GPU
_DOCKER_GPUS = "docker run --gpus all ...   # needs the NVIDIA Container Toolkit (nvidia-ctk runtime configure)"
#: (round 37f) the NVIDIA Container Toolkit's install for Docker on Debian/Ubuntu (docs.nvidia.com/datacenter/
#: cloud-native/container-toolkit/latest/install-guide.html, "With apt: Ubuntu, Debian" and "Configuring Docker")
_TOOLKIT_INSTALL = (
    "curl -fsSL https://nvidia.github.io/libnvidia-container/gpgkey | sudo gpg --dearmor -o "
    "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg && curl -s -L "
    "https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-toolkit.list | sed 's#deb https://#deb "
    "[signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] https://#g' | sudo tee "
    "/etc/apt/sources.list.d/nvidia-container-toolkit.list   # NVIDIA's apt repository (the Container Toolkit install "
    "guide; dnf/zypper on other distributions)",
    "sudo apt-get update && sudo apt-get install -y nvidia-container-toolkit",
    "sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker   # registers the NVIDIA "
    "runtime with docker; then the same docker run --gpus all again")
_WSL_WINDOWS_DRIVER = ("# WSL2: the GPU comes from the Windows NVIDIA driver: update it in Windows, then 'wsl "
                       "--shutdown' (PowerShell) and reopen WSL; never install a Linux driver inside WSL")


@builds("gpu_not_exposed_to_process")
def _not_exposed(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    ctx = facts.get("context") or {}
    cmds = ["nvidia-smi; echo \"CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES\"; ls -l /dev/nvidia*"]
    tool = str(ctx.get("container") or "")
    if ctx.get("cuda_visible_devices") is not None and not tool and not ctx.get("slurm") and not ctx.get("wsl"):
        # (round 28c) the variable the text shows set hides the GPUs: no container or job to give them
        cmds.append("unset CUDA_VISIBLE_DEVICES   # then remove the line that sets it (~/.bashrc, ~/.zshrc, the "
                    "script or the notebook)")
        return {"title": "This process is not given the GPU", "commands": cmds}
    if ctx.get("wsl") and not tool and not ctx.get("slurm"):
        # (round 28c) under WSL2 no container or job gives the GPU: the Windows host's driver does
        cmds.append(_WSL_WINDOWS_DRIVER)
    elif ev.get("key") == "no_device_driver" and value(facts, "context", "os") == "windows":
        # Docker Desktop on Windows gives containers the GPU through its WSL 2 engine and the Windows driver (Docker's
        # "GPU support in Docker Desktop for Windows": WSL 2 backend only); no Container Toolkit to install by hand
        cmds.append("# Docker Desktop: Settings > General > 'Use the WSL 2 based engine' on, the Windows NVIDIA driver "
                    "up to date, Docker Desktop restarted; then the same docker run --gpus all again")
    elif ev.get("key") == "no_device_driver" and value(facts, "context", "os") != "macos":
        # (round 37f, blind audit 37 F16) docker was given --gpus (its own message says so) and has no NVIDIA runtime
        # registered: the NVIDIA Container Toolkit to install and configure, not --gpus again
        return {"title": "Docker has no NVIDIA runtime: the NVIDIA Container Toolkit is not installed or not configured",
                "fix": "docker run was given --gpus, and Docker has no NVIDIA device driver registered to give it: install "
                       "the NVIDIA Container Toolkit on the host, register its runtime with Docker (nvidia-ctk runtime "
                       "configure) and restart Docker; the same --gpus all then works.",
                "commands": ["dpkg -l | grep nvidia-container-toolkit; nvidia-ctk --version   # installed?",
                             *_TOOLKIT_INSTALL]}
    elif tool in _CONTAINER_GPU:
        cmds += _CONTAINER_GPU[tool]
    elif tool or not ctx.get("slurm"):
        cmds.append(_DOCKER_GPUS)
    if (ctx.get("slurm") or not tool and not ctx.get("wsl")) and not (tool in ("apptainer", "singularity")
                                                                        and value(facts, "driver", "gpus")):
        cmds.append("srun --gres=gpu:1 ...   # or #SBATCH --gres=gpu:1 / --gpus=1")
    if has_sign(facts, "pip_build", "build_context"):
        cmds.append("TORCH_CUDA_ARCH_LIST=<X.Y> FORCE_CUDA=1 pip install ...   # building in a GPU-less docker build")
    return {"title": "This process is not given the GPU", "commands": cmds}


def _not_exposed_live(facts: Facts) -> tuple[str, ...]:
    """(round 31b) The commands of a live Slurm job or container whose nvidia-smi sees no device: the
    gpu_not_exposed_to_process builder's (Docker's --gpus, Podman's CDI device, Apptainer/Singularity's --nv,
    Kubernetes' nvidia.com/gpu limit, Slurm's --gres), less its look at nvidia-smi (the check just ran it), and in a
    job what Slurm gave it."""
    cmds = [c for c in _not_exposed(facts, {})["commands"] if not c.startswith("nvidia-smi;")]
    if layer(facts, "context").get("slurm"):
        cmds.append("scontrol show job $SLURM_JOB_ID | grep -iE 'tres|gres'   # what the job was given")
    return tuple(cmds)


@builds("no_gpu")
def _no_gpu(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    gpus = [str(g.get("name")) for g in value(facts, "driver", "gpus") or [] if isinstance(g, Mapping) and g.get("name")]
    if gpus and has_sign(facts, "nvidia_smi_missing"):
        # (round 37f, blind audit 37 F16) the GPU is there (lspci) and nvidia-smi is not even installed: the machine
        # has no NVIDIA driver, which a container cannot bring (the runtime mounts the host's driver libraries)
        return {"title": f"No NVIDIA driver is installed on this machine (its GPU, {gpus[0]}, is there)", "severity": "error",
                "fix": "The machine has an NVIDIA GPU but no NVIDIA driver (nvidia-smi is not installed; NVIDIA's "
                       "container runtime finds no libnvidia-ml.so.1 to mount): install the driver on the host, "
                       "reboot, and then nvidia-smi and containers given --gpus see the GPU.",
                "commands": ["sudo ubuntu-drivers install   # Ubuntu: the recommended NVIDIA driver (ubuntu-drivers list "
                             "shows the choices); other distributions: their nvidia-driver package",
                             "sudo reboot", "nvidia-smi   # then the driver answers"]}
    return {"title": "No NVIDIA driver (or GPU) on this machine", "commands": ["nvidia-smi", "lspci | grep -i nvidia"],
            "detail": "torch found no NVIDIA driver: the machine or runtime has no NVIDIA GPU, or the driver is not installed."}


@builds("opengl_egl_unavailable")
def _egl(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    if ev.get("key") == "qt_xcb_no_display":  # Qt's X11 plugin without an X server: no NVIDIA library is missing
        return {"title": "A Qt program found no X display (a server, container or notebook without one)",
                "fix": "Qt's xcb platform plugin needs an X display and there is none (DISPLAY unset, or no X server "
                       "behind it): run the program without a window (QT_QPA_PLATFORM=offscreen), under a virtual X "
                       "server (xvfb-run), or with DISPLAY set to a running X server (ssh -X); where Qt still says the "
                       "xcb plugin cannot load, QT_DEBUG_PLUGINS=1 names the missing libxcb-* library.",
                "commands": ["echo \"DISPLAY=$DISPLAY\"   # empty: no X display",
                             "QT_QPA_PLATFORM=offscreen <the command>",
                             "xvfb-run -a <the command>   # a virtual X server (Debian/Ubuntu package xvfb)",
                             "QT_DEBUG_PLUGINS=1 <the command>   # names a libxcb-* library the plugin lacks"]}
    if ev.get("key") == "pyglet_no_such_config":  # (round 33d) a window's configuration, not a missing EGL vendor
        return {"title": "pyglet found no OpenGL configuration of this display that gives what the window asks for",
                "fix": "The window asked for an OpenGL framebuffer (multisampling, a 24-bit depth buffer, an OpenGL 3.3 "
                       "core context) that the machine's OpenGL cannot provide: a driver without it, a remote desktop or "
                       "VM's software renderer, no GPU graphics driver installed. Ask for less (samples=0 and no "
                       "sample_buffers in the program's window settings, a 16-bit depth buffer) or install the GPU "
                       "vendor's graphics driver.",
                "commands": ["glxinfo -B   # Linux: the OpenGL renderer and version in use ('llvmpipe': software)",
                             "# Windows: the GPU vendor's driver (not Microsoft Basic Display Adapter) in Device Manager",
                             "# in the program's window setup: pyglet.gl.Config(double_buffer=True, sample_buffers=0, "
                             "samples=0)"]}
    return {"title": "No NVIDIA OpenGL/EGL context for the renderer",
            "commands": ["ls /usr/share/glvnd/egl_vendor.d/   # 10_nvidia.json must be there",
                         "ldconfig -p | grep -E 'libEGL_nvidia|libGLX_nvidia'",
                         "docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics ...   # in a container",
                         "# or: dr.RasterizeCudaContext() instead of dr.RasterizeGLContext() (nvdiffrast)"]}


@rule("driver")
def driver_events(facts: Facts) -> Iterable[Finding]:
    """CUDA runtime/driver, NVML and NVRTC errors by number, name or message (tables/cuda_errors.csv and the
    other enumerations) and nvidia-smi / NVML messages, whoever reported them: each becomes the codes its
    table row names, narrowed by the facts."""
    # (round 32g) an OS call the CUDA driver makes refused (cudaErrorOperatingSystem, 304, "OS call failed or
    # operation not supported on this OS") inside a container given the GPU: the container's own limits (its seccomp
    # profile, capabilities, locked-memory limit) refuse what the host allows; the driver answers (the GPU was given)
    # and no argument of the code is involved, so neither of the table's readings (driver_broken, user_code_error)
    # holds and no code names the container's profile: the line is read as no CUDA error at all (the 801 its words
    # also fit included)
    os_refused = {str(e.get("line") or "") for e in events(facts, "driver", "cuda_error")
                  if e.get("name") in ("cudaErrorOperatingSystem", "CUDA_ERROR_OPERATING_SYSTEM")
                  and not _GRAPHICS_CALL_RE.search(str(e.get("line") or ""))}
    if os_refused and not (value(facts, "context", "container") and value(facts, "context", "container_gpu_flag")):
        os_refused = set()
    for ev in events(facts, "driver", "cuda_error"):
        if str(ev.get("line") or "") in os_refused:
            continue
        if ev.get("name") in _INVALID_VALUE_NAMES and _NCCL_CUDA_FAILURE_RE.search(str(ev.get("line") or "")):
            # (round 32g) the invalid argument of a CUDA call NCCL makes itself: NCCL checks the caller's arguments
            # first (ncclInvalidArgument, ncclInvalidUsage) and builds the arguments of its internal CUDA calls from
            # the communicator it set up, so beside the runtime table's reading (the calling code, first as
            # test_explain_cuda_failure_and_indexes keeps it) the NCCL release's bug is the second
            yield from resolve(facts, {**ev, "inside": "nccl"}, ["user_code_error", "library_bug"])
            continue
        yield from resolve(facts, ev)
    for ev in events(facts, "driver", "message"):
        if ev.get("key") == "cuda_version_column":
            continue  # nvidia-smi's header is a fact (driver.cuda_driver_version), judged with the others above
        yield from resolve(facts, ev)
    # a library's own message that its build has no CUDA (Open3D, DGL, LightGBM, ...): a device count of 0 it prints
    # is that build's, not a process without a GPU
    cpu_build_said = any(list(e.get("codes") or ())[:1] == ["cpu_only_torch_with_gpu"]
                         for e in events(facts, "torch", "message", table="library_messages"))
    for ev in events(facts, "driver", "sign"):
        if cpu_build_said and ev.get("sign") == "no_devices_seen":
            continue
        if ev.get("sign") == "no_devices_seen" and value(facts, "torch", "cuda_available") is True:
            continue  # (round 31c) torch said CUDA is available: the count of 0 is rules._torch.available_without_devices
        if ev.get("sign") == "egl" and ev.get("phrase") == "rasterizeglcontext" and any(
                True for _ in events(facts, "toolkit", "header_missing")):
            continue  # (round 37e) the renderer's class named where its build stopped on a missing header: no context ran
        code = {"no_cuda_gpus": ["gpu_not_exposed_to_process", "no_gpu"], "egl": ["opengl_egl_unavailable"],
                "no_kernel_image": ["no_kernel_image_for_gpu", "torch_wheel_lacks_gpu_arch"],
                "nvrm": ["driver_broken"], "nvidia_smi_missing": ["gpu_not_exposed_to_process", "no_gpu"],
                "no_devices_seen": ["gpu_not_exposed_to_process", "no_gpu"]}.get(
            str(ev.get("sign")))
        if code and ev.get("sign") == "no_cuda_gpus" and value(facts, "context", "os") == "windows" and not (
                value(facts, "context", "container") or value(facts, "context", "wsl")):
            # (round 24a) a program finding no CUDA GPU on native Windows: there, torch's default wheel (PyPI's, what
            # a requirements file installs) is the CPU build, so the CPU build is the second reading beside a GPU the
            # process does not see
            code = [code[0], "cpu_only_torch_with_gpu", *code[1:]]
        if code:
            yield from resolve(facts, ev, code)


@builds("driver_cuda_version_not_toolkit")
def _smi_cuda(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    dmax = _driver_cuda_of(facts)
    return {"title": f"'CUDA Version: {dmax}' in nvidia-smi is the driver's limit, not your toolkit" if dmax else
            "nvidia-smi's 'CUDA Version' is the driver's limit, not your toolkit",
            "commands": ["nvcc --version", "python -c \"import torch; print(torch.version.cuda)\""]}


@builds("forward_compat_unsupported")
def _forward_compat(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    dcuda, used = _driver_cuda_of(facts), cuda_in_use(facts)
    evidence = ([f"the driver runs CUDA <= {dcuda}; the run uses CUDA {used}: a newer user-space driver (cuda-compat) "
                 "was loaded for it"] if dcuda and used else [])
    return {"title": "A CUDA forward-compatibility package is loaded on a GPU that does not support forward "
                     "compatibility", "evidence": evidence,
            "commands": ["echo $LD_LIBRARY_PATH | tr ':' '\\n' | grep -i compat   # drop that directory (and any "
                         "libcuda.so.* copied next to the program)",
                         "ldconfig -p | grep libcuda.so   # the driver's own libcuda; a copy on LD_LIBRARY_PATH wins over it",
                         "nvidia-smi   # the driver's own CUDA; update the driver to run a newer CUDA natively"],
            "docs": ["https://docs.nvidia.com/deploy/cuda-compatibility/"]}
