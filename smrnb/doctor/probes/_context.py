# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Layer 8, context: where this kernel runs, so that fixes can be written for it.

Slurm job (``SLURM_*``), JupyterHub (``JUPYTERHUB_*``), systemd service (``INVOCATION_ID``,
``/proc/self/cgroup``, ``/proc/1/comm``), container (``/.dockerenv``, ``/run/.containerenv``,
``APPTAINER_*`` / ``SINGULARITY_*``, cgroup paths), environment modules (Lmod), conda env,
virtualenv, OS release and glibc. Only variable *names* that look secret are ever kept, never values.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from smrnb.doctor._model import ProbeContext, is_secret_name
from smrnb.doctor._redact import holds_url_credentials

#: the variables a job's CUDA environment depends on, which an `sbatch --export=NONE` drops
SLURM_WATCHED = ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH")
SLURM_VARS = ("SLURM_JOB_ID", "SLURM_JOB_NAME", "SLURM_JOB_PARTITION", "SLURM_JOB_NODELIST", "SLURM_CLUSTER_NAME",
              "SLURM_CPUS_ON_NODE", "SLURM_GPUS", "SLURM_JOB_GPUS", "SLURM_GPUS_ON_NODE", "SLURM_SUBMIT_DIR")
HUB_VARS = ("JUPYTERHUB_USER", "JUPYTERHUB_SERVICE_PREFIX", "JUPYTERHUB_SERVER_NAME", "JUPYTERHUB_BASE_URL",
            "JUPYTERHUB_HOST")


def _read(path: str, limit: int = 65536) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode(errors="replace")
    except OSError:
        return None


def parse_os_release(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (text or "").splitlines():
        m = re.match(r"^([A-Z_]+)=(.*)$", line.strip())
        if m:
            out[m.group(1)] = m.group(2).strip().strip('"').strip("'")
    return out


def detect_container(root: str, environ: dict[str, str], cgroup: str | None) -> str | None:
    if environ.get("APPTAINER_CONTAINER") or environ.get("SINGULARITY_CONTAINER") or environ.get("APPTAINER_NAME"):
        return "apptainer"
    if os.path.exists(os.path.join(root, ".dockerenv")):
        return "docker"
    if os.path.exists(os.path.join(root, "run", ".containerenv")):
        return "podman"
    cg = cgroup or ""
    if "kubepods" in cg:
        return "kubernetes"
    if re.search(r"docker|containerd", cg):
        return "docker"
    if "libpod" in cg:
        return "podman"
    if environ.get("container"):
        return environ["container"]
    return None


def systemd_unit(environ: dict[str, str], cgroup: str | None) -> str | None:
    """The systemd unit this process runs in (``jupyter.service``), when started by systemd."""
    for line in (cgroup or "").splitlines():
        m = re.search(r"/([^/]+\.service)\s*$", line.strip())
        if m and not m.group(1).startswith(("user@", "session-")):
            return m.group(1)
    if environ.get("INVOCATION_ID"):
        return "unknown.service"
    return None


def probe(ctx: ProbeContext, *, root: str = "/") -> dict[str, Any]:
    """Facts of the context layer (schema in ``smrnb/doctor/FACTS.md``).

    Parameters
    ----------
    root : str
        File system root (tests pass a temp dir holding ``etc/os-release``, ``.dockerenv``...).
    """
    env = ctx.environ
    proc_self = ctx.proc_self if root == "/" else os.path.join(root, "proc", "self")
    cgroup = _read(os.path.join(proc_self, "cgroup"))
    slurm = None
    if env.get("SLURM_JOB_ID"):
        slurm = {k.removeprefix("SLURM_").lower(): env[k] for k in SLURM_VARS if env.get(k)}
        # what the scheduler did to the environment: sbatch records --export in SLURM_EXPORT_ENV
        # (NONE, ALL, or a list such as ALL,CUDA_HOME or NIL); which loader/toolkit variables the job has
        if env.get("SLURM_EXPORT_ENV") is not None:
            slurm["export_env"] = env["SLURM_EXPORT_ENV"]
        slurm["has_env"] = {k: bool(env.get(k)) for k in SLURM_WATCHED}
        slurm["path_has_cuda"] = any("cuda" in d.lower() for d in env.get("PATH", "").split(":"))
    hub_names = sorted(k for k in env if k.startswith("JUPYTERHUB_"))
    jupyterhub = bool(hub_names)
    pid1 = (_read(os.path.join(root, "proc", "1", "comm")) or "").strip() or None
    osr = parse_os_release(_read(os.path.join(root, "etc", "os-release")) or
                           _read(os.path.join(root, "usr", "lib", "os-release")))
    try:
        glibc = os.confstr("CS_GNU_LIBC_VERSION") if root == "/" else None
    except (ValueError, OSError, AttributeError):
        glibc = None
    venv = env.get("VIRTUAL_ENV")
    if not venv and root == "/" and sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        venv = sys.prefix
    modules = [m for m in env.get("LOADEDMODULES", "").split(":") if m]
    not_checked = []
    if cgroup is None:
        not_checked.append(f"{proc_self}/cgroup could not be read: containers and systemd units are detected from "
                           "the environment and marker files only")
    return {
        "status": "ok",
        "slurm": slurm,
        "jupyterhub": jupyterhub,
        "jupyterhub_info": {k.removeprefix("JUPYTERHUB_").lower(): env[k] for k in HUB_VARS if env.get(k)},
        "jupyterhub_variables": hub_names,  # names only
        "systemd_unit": systemd_unit(env, cgroup),
        "pid1": pid1,
        "container": detect_container(root, env, cgroup),
        "conda_env": env.get("CONDA_PREFIX"),
        "conda_env_name": env.get("CONDA_DEFAULT_ENV"),
        "venv": venv,
        "env_modules": {"system": "lmod" if env.get("LMOD_CMD") or env.get("LMOD_DIR") else (
            "environment-modules" if env.get("MODULESHOME") else None), "loaded": modules},
        "os_release": osr.get("PRETTY_NAME") or (f"{osr.get('NAME', '')} {osr.get('VERSION_ID', '')}".strip() or None),
        "os_id": osr.get("ID"),
        "glibc": glibc.split()[-1] if glibc else None,
        # names only; (blind audit 36, C-L10) also those holding a URL with credentials (PIP_INDEX_URL, HTTPS_PROXY)
        "secret_variable_names": sorted(k for k in env if is_secret_name(k) or holds_url_credentials(env[k])),
        # (blind audit 30) the GPUs CUDA shows this process: "" / "-1" / "NoDevFiles" (Slurm's, no GPU allocated) hide
        # every GPU nvidia-smi lists; None when unset
        "cuda_visible_devices": env.get("CUDA_VISIBLE_DEVICES"),
        "nccl_socket_ifname": nccl_socket_ifname(env.get("NCCL_SOCKET_IFNAME"), os.path.join(root, "sys", "class", "net")),
        "not_checked": not_checked,
    }


def nccl_socket_ifname(value: str | None, net_dir: str = "/sys/class/net") -> dict[str, Any] | None:
    """``NCCL_SOCKET_IFNAME`` against this node's network interfaces (``/sys/class/net``), read as NCCL reads it
    (NCCL User Guide, Environment Variables): comma-separated prefixes, ``=`` before a name for an exact match,
    ``^`` before the list to exclude. ``{"value", "interfaces", "matches"}``; None when the variable is unset or
    the interfaces cannot be listed."""
    if not value or len(value) < 2:  # NCCL itself ignores a value of one character
        return None
    try:
        names = sorted(os.listdir(net_dir))
    except OSError:
        return None
    spec = value.strip()
    exclude = spec.startswith("^")
    spec = spec[1:] if exclude else spec
    exact = spec.startswith("=")
    spec = spec[1:] if exact else spec
    wanted = [w for w in spec.split(",") if w]

    def hit(name: str) -> bool:
        return any(name == w if exact else name.startswith(w) for w in wanted)

    matches = [n for n in names if hit(n) != exclude]
    return {"value": value, "interfaces": names, "matches": matches}
