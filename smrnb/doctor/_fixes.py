# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Fixes: a Jupyter kernelspec whose ``env`` carries the loader environment, and shell snippets.

The dynamic loader reads ``LD_LIBRARY_PATH`` once, when a process starts, so a kernel only sees
what its launcher gave it. The durable fix is a kernelspec (``kernel.json``) whose ``env`` sets
``LD_LIBRARY_PATH`` / ``CUDA_HOME`` / ``PATH``: Jupyter applies it before the kernel process starts.
:func:`write_kernelspec` writes one through ``jupyter_client.kernelspec.KernelSpecManager`` (never
over an existing spec unless ``force``), always able to show what it would write first
(``dry_run``). :func:`snippets` gives the same variables for ~/.bashrc, an sbatch script, a
systemd unit and JupyterHub's ``c.Spawner.environment``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._files import replace_folder
from smrnb.doctor._install import matching_nvcc, toolkit_dir_for
from smrnb.doctor._redact import display_env, process_secrets, redact_text
from smrnb.doctor.probes._toolkit import cuda_home_malformed

#: the variables a kernelspec fix carries
ENV_VARS: tuple[str, ...] = ("LD_LIBRARY_PATH", "CUDA_HOME", "PATH")
#: (blind audit 36, C-L5) not starting with "-": `jupyter console --kernel -x` reads it as an option
_NAME_RE = re.compile(r"^[A-Za-z0-9._][A-Za-z0-9._-]*$")
#: the mark a kernelspec this command wrote carries (``metadata.smrnb.written_by``)
WRITTEN_BY = "smr-doctor fix kernelspec"


def _facts_get(facts: Mapping[str, Any] | None, layer: str, key: str) -> Any:
    d = (facts or {}).get(layer)
    if isinstance(d, Mapping) and d.get("status", "ok") == "ok":
        return d.get(key)
    return None


def _cuda_home_verdict(value: str, facts: Mapping[str, Any] | None) -> str | None:
    """Why the doctor flags ``value`` as CUDA_HOME (so a kernelspec must not carry it), or None."""
    why = cuda_home_malformed(value)
    if why:
        return why
    nvcc = os.path.join(value, "bin", "nvcc")
    if not (os.path.isfile(nvcc) and os.access(nvcc, os.X_OK)):
        return "has no bin/nvcc"
    if not os.path.isfile(os.path.join(value, "include", "cuda_runtime.h")):
        return "has no include/cuda_runtime.h (not a complete toolkit)"
    tcuda = _facts_get(facts, "torch", "cuda")
    if tcuda:
        real = os.path.realpath(nvcc)
        for n in _facts_get(facts, "toolkit", "nvccs") or []:
            if isinstance(n, Mapping) and n.get("realpath") == real and n.get("version"):
                if str(n["version"]).split(".")[:2] != str(tcuda).split(".")[:2]:
                    return f"holds nvcc {n['version']}, but torch was built with CUDA {tcuda}"
    return None


def plan_env(facts: Mapping[str, Any] | None = None,
             environ: Mapping[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """``(env, notes)``: :func:`needed_env` and why a variable was left out or replaced."""
    env = dict(os.environ if environ is None else environ)
    out: dict[str, str] = {}
    notes: list[str] = []
    if env.get("LD_LIBRARY_PATH"):
        out["LD_LIBRARY_PATH"] = env["LD_LIBRARY_PATH"]
    given = env.get("CUDA_HOME")
    cuda_home = given or _facts_get(facts, "toolkit", "build_cuda_home")
    if cuda_home:
        why = _cuda_home_verdict(str(cuda_home), facts)
        if why is None:
            out["CUDA_HOME"] = str(cuda_home)
        else:
            better = None
            tcuda = _facts_get(facts, "torch", "cuda")
            tk = (facts or {}).get("toolkit")
            if tcuda and isinstance(tk, Mapping):
                m = matching_nvcc(dict(tk), tcuda)
                if m and str(m.get("version")).split(".")[:2] == str(tcuda).split(".")[:2]:
                    cand = toolkit_dir_for(m)
                    if cand and _cuda_home_verdict(cand, facts) is None:
                        better = cand
            if better:
                out["CUDA_HOME"] = better
                notes.append(f"CUDA_HOME={cuda_home!r} {why}: the kernelspec uses {better} (nvcc {tcuda}) instead")
            else:
                notes.append(f"CUDA_HOME={cuda_home!r} {why}: left out of the kernelspec (the doctor flags it)")
    if env.get("PATH") and cuda_path_entries(env["PATH"]):
        out["PATH"] = env["PATH"]
    elif env.get("PATH"):  # (blind audit 36, C-M9) nothing of CUDA's on PATH: the kernel keeps the PATH it gets
        notes.append("PATH holds no CUDA toolkit folder: not copied (the kernel keeps the PATH Jupyter gives it)")
    return out, notes


def cuda_path_entries(path: str) -> list[str]:
    """(blind audit 36, C-M9) The folders of ``path`` that belong to a CUDA toolkit: a name with cuda or nvidia in it,
    or a folder holding nvcc."""
    out = []
    for d in str(path).split(os.pathsep):
        if d and d not in out and ("cuda" in d.lower() or "nvidia" in d.lower() or
                                   os.path.isfile(os.path.join(d, "nvcc"))):
            out.append(d)
    return out


def needed_env(facts: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a kernel should start with: this process's current values of ``ENV_VARS``.

    ``LD_LIBRARY_PATH`` and ``PATH`` are taken as they are *now* (including changes made after
    the process started, which the loader could not see); ``CUDA_HOME`` from the environment or,
    when unset, the toolkit the doctor found for builds (``facts["toolkit"]["build_cuda_home"]``),
    but never one the doctor flags (relative, missing, a file, a list, without nvcc or headers, or
    of another CUDA than torch's): then the matching toolkit the doctor found, or nothing
    (:func:`plan_env` says why). Variables that are unset and unknown are left out.
    """
    return plan_env(facts, environ)[0]


def _kernel_python(facts: Mapping[str, Any] | None) -> str:
    py = _facts_get(facts, "jupyter", "kernel_python")
    return os.path.abspath(py) if isinstance(py, str) and py else sys.executable


def current_kernel_argv(facts: Mapping[str, Any] | None = None) -> list[str]:
    """argv of the kernelspec in use (from the jupyter facts), with the kernel's own absolute Python
    as ``argv[0]``; else this Python's ipykernel."""
    py = _kernel_python(facts)
    spec = _facts_get(facts, "jupyter", "kernelspec")
    if isinstance(spec, Mapping) and isinstance(spec.get("argv"), list) and spec["argv"]:
        argv = [str(a) for a in spec["argv"]]
        first = argv[0]
        if (not os.path.isabs(first) or os.path.basename(first).startswith("python")
                or os.path.realpath(first) == os.path.realpath(py)):
            argv[0] = py  # "python" on PATH would be whatever PATH finds first when Jupyter starts it
        return argv
    return [py, "-m", "ipykernel_launcher", "-f", "{connection_file}"]


def base_spec(facts: Mapping[str, Any] | None) -> dict[str, Any]:
    """The ``kernel.json`` of the kernelspec in use, read from disk (its env values are not in the
    facts, which keep only names and path-like values); ``{}`` when unknown or unreadable."""
    spec = _facts_get(facts, "jupyter", "kernelspec")
    if not isinstance(spec, Mapping) or not spec.get("path"):
        return {}
    try:
        with open(os.path.join(str(spec["path"]), "kernel.json"), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def build_kernel_json(name: str, env: Mapping[str, str], argv: list[str] | None = None,
                      display_name: str | None = None, base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``kernel.json`` content: argv, display_name, language, env (the base spec's env with
    ``env`` on top), metadata; other fields of ``base`` (``interrupt_mode``...) are kept."""
    base = dict(base or {})
    merged = {str(k): str(v) for k, v in base["env"].items()} if isinstance(base.get("env"), dict) else {}
    merged.update(env)
    meta = dict(base["metadata"]) if isinstance(base.get("metadata"), dict) else {}
    meta["smrnb"] = {"written_by": WRITTEN_BY, "vars": sorted(env)}
    out = {k: v for k, v in base.items() if k not in ("argv", "display_name", "env", "metadata", "language")}
    out.update({
        "argv": list(argv) if argv else current_kernel_argv(),
        "display_name": display_name or f"Python ({name}, env fixed by smr-doctor)",
        "language": base.get("language") or "python",
        "env": merged,
        "metadata": meta,
    })
    return out


@dataclass(frozen=True)
class KernelspecResult:
    """What :func:`write_kernelspec` did (or would do, for a dry run)."""

    name: str
    path: str  # directory of the kernelspec
    kernel_json: dict[str, Any]
    written: bool
    dry_run: bool
    replaced: bool
    backup: str | None = None  # where the replaced spec was (or would be) copied first
    notes: tuple[str, ...] = ()
    current: bool = False  # the spec this command wrote before for this Python already holds this content

    def _what_was_done(self) -> str:
        if self.current:
            return (f"Current: {os.path.join(self.path, 'kernel.json')}, which smr-doctor wrote for this Python, "
                    f"already holds this kernelspec; nothing was written")
        if self.dry_run:
            return f"Dry run: would write {os.path.join(self.path, 'kernel.json')}" + (
                f" (replacing the existing spec, backed up first to {self.backup})" if self.replaced else "")
        return f"Wrote {os.path.join(self.path, 'kernel.json')}" + (
            f" (replaced; the previous spec is backed up in {self.backup})" if self.replaced else "")

    def describe(self) -> str:
        """What was (or would be) written. Of ``env`` every name is shown but values only of
        path-like variables (:func:`smrnb.doctor._redact.display_env`); the file holds the values."""
        shown = dict(self.kernel_json)
        shown["env"] = display_env(self.kernel_json.get("env") or {})
        body = json.dumps(shown, indent=1)
        head = self._what_was_done()
        tail = ("" if self.dry_run and not self.current else
                f"\nChoose the kernel '{self.kernel_json['display_name']}' (or `jupyter console --kernel "
                f"{self.name}`) and restart into it: its loader then sees {', '.join(self.kernel_json['env'])}.")
        notes = "".join(f"\nnote: {n}" for n in self.notes)
        return redact_text(f"{head}:\n{body}{tail}{notes}", process_secrets())


def _manager(ksm: Any = None, data_dir: str | None = None) -> Any:
    if ksm is not None:
        return ksm
    from jupyter_client.kernelspec import KernelSpecManager

    return KernelSpecManager(data_dir=data_dir) if data_dir else KernelSpecManager()


def _read_kernel_json(folder: str) -> dict[str, Any] | None:
    try:
        with open(os.path.join(folder, "kernel.json"), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _written_here(data: Mapping[str, Any] | None, python: str) -> bool:
    """Whether ``data`` (a kernel.json) is one this command wrote for the kernel Python ``python``."""
    meta = data.get("metadata") if isinstance(data, Mapping) else None
    mark = meta.get("smrnb") if isinstance(meta, Mapping) else None
    argv = data.get("argv") if isinstance(data, Mapping) else None
    return isinstance(mark, Mapping) and mark.get("written_by") == WRITTEN_BY and isinstance(argv, list) and \
        bool(argv) and isinstance(argv[0], str) and os.path.abspath(argv[0]) == os.path.abspath(python)


def _own_spec(mgr: Any, existing: set[str], facts: Mapping[str, Any] | None) -> str | None:
    """(blind audit 36, C-L5) The kernelspec this command wrote before for this kernel's Python (the one in use
    first, else the first by name), which a run without --name rewrites (or finds current) instead of making
    ``<name>-smrnb`` of it; None when there is none. Another Python's, or a user's own spec, is never it."""
    py = _kernel_python(facts)
    try:
        dirs = mgr.find_kernel_specs()
    except Exception:  # unreadable dirs: none of ours is known
        return None
    spec = _facts_get(facts, "jupyter", "kernelspec")
    in_use = spec.get("name") if isinstance(spec, Mapping) else None
    for n in ([in_use] if in_use in existing else []) + sorted(existing):
        if n in dirs and _written_here(_read_kernel_json(dirs[n]), py):
            return n
    return None


def _default_name(existing: set[str], facts: Mapping[str, Any] | None) -> str:
    spec = _facts_get(facts, "jupyter", "kernelspec")
    base = (spec.get("name") if isinstance(spec, Mapping) and spec.get("name") else "python3") + "-smrnb"
    base = re.sub(r"[^A-Za-z0-9._-]", "-", base)
    if base not in existing:
        return base
    i = 2
    while f"{base}-{i}" in existing:
        i += 1
    return f"{base}-{i}"


def write_kernelspec(name: str | None = None, *, dry_run: bool = False, force: bool = False,
                     env: Mapping[str, str] | None = None, facts: Mapping[str, Any] | None = None,
                     argv: list[str] | None = None, display_name: str | None = None,
                     user: bool = True, prefix: str | None = None, ksm: Any = None,
                     data_dir: str | None = None) -> KernelspecResult:
    """Write (or with ``dry_run`` only describe) a kernelspec whose ``env`` fixes the loader path.

    Parameters
    ----------
    name : str, optional
        Kernelspec name (letters, digits, ``._-``). Default: the kernelspec this function wrote before for
        the same kernel Python (rewritten in place, whole, or left as it is when it already holds this content:
        the result's ``current``), else ``<current kernel>-smrnb``, with a numeric suffix if taken. An explicit
        name that exists raises unless ``force``.
    dry_run : bool
        Write nothing; the result's :meth:`~KernelspecResult.describe` shows the kernel.json.
    force : bool
        Replace an existing kernelspec of that name; its folder is first copied to
        ``<jupyter data dir>/smrnb-kernelspec-backups/<name>-<time>/`` (the result's ``backup``).
    env : mapping, optional
        Variables for the spec's ``env`` (default :func:`needed_env`), on top of the ``env`` of the
        kernelspec in use (read from its kernel.json), which is kept.
    facts : dict, optional
        Doctor facts (the jupyter layer gives the current kernel's argv and name).
    argv, display_name : optional
        Override the kernel command line / the name shown in the launcher.
    user, prefix, ksm, data_dir :
        Where to install (``KernelSpecManager.install_kernel_spec`` arguments; ``data_dir`` or
        ``ksm`` choose another Jupyter data directory, e.g. in tests).

    Returns
    -------
    KernelspecResult
    """
    if name is not None and not isinstance(name, str):
        raise SmrnbTypeError(f"name must be a str, got {type(name).__name__}")
    if name is not None and not _NAME_RE.match(name):
        raise SmrnbValueError(f"name must contain only letters, digits, '.', '_' or '-' (not first), got {name!r}")
    mgr = _manager(ksm, data_dir)
    try:
        existing = set(mgr.find_kernel_specs())
    except Exception:  # unreadable dirs: treat as none
        existing = set()
    own = _own_spec(mgr, existing, facts) if name is None else None
    if name is None:
        name = own or _default_name(existing, facts)
    asked, name = name, name.lower()  # (blind audit 36, H1) Jupyter names kernels in lower case: MyKernel is mykernel
    replaced = name in existing
    if replaced and not force and not own:  # (blind audit 30, F03) a dry run says what the real one would do: refuse
        same = "" if asked == name else f" (kernel names ignore case: {asked!r} is {name!r})"
        raise SmrnbValueError(f"name {asked!r} is an existing kernelspec{same} ({mgr.find_kernel_specs()[name]}); "
                              "choose another name or pass force=True (--force) to replace it")
    notes: list[str] = []
    if env is None:
        env, notes = plan_env(facts)
    env = dict(env)
    base = base_spec(facts)
    base_home = (base.get("env") or {}).get("CUDA_HOME") if isinstance(base.get("env"), dict) else None
    if base_home and "CUDA_HOME" not in env:
        why = _cuda_home_verdict(str(base_home), facts)
        if why:  # the spec being copied carries a CUDA_HOME the doctor flags: not into the new one
            base = dict(base, env={k: v for k, v in base["env"].items() if k != "CUDA_HOME"})
            notes.append(f"the base kernelspec's CUDA_HOME={base_home!r} {why}: not copied")
    kj = build_kernel_json(name, env, argv or current_kernel_argv(facts), display_name, base=base)
    if prefix is not None:
        target_root = os.path.join(prefix, "share", "jupyter", "kernels")
    elif user:
        target_root = mgr.user_kernel_dir
    else:
        from jupyter_client.kernelspec import SYSTEM_JUPYTER_PATH

        target_root = os.path.join(SYSTEM_JUPYTER_PATH[0], "kernels")
    target = os.path.join(target_root, name)
    if replaced:
        target = mgr.find_kernel_specs()[name]
        if own and _read_kernel_json(target) == kj:  # written before for this Python, with this content: current
            return KernelspecResult(name, target, kj, written=False, dry_run=dry_run, replaced=False,
                                    notes=tuple(notes), current=True)
    elif os.path.lexists(target):
        # (blind audit 36) a folder (or file) Jupyter does not list as a kernel, where Jupyter's install would replace it
        raise SmrnbValueError(f"name {asked!r}: {target} exists and is no kernelspec Jupyter lists (a folder without a "
                              "readable kernel.json?); choose another name (nothing was written)")
    backup = _backup_path(mgr, name) if replaced else None
    if dry_run:
        return KernelspecResult(name, target, kj, written=False, dry_run=True, replaced=replaced, backup=backup,
                                notes=tuple(notes))
    if replaced and backup:
        # never delete a spec (an edited kernel.json, a logo) without a copy: a failed copy stops here
        shutil.copytree(target, backup, symlinks=True)
    with tempfile.TemporaryDirectory(prefix="smrnb-kernelspec-") as tmp:
        src = os.path.join(tmp, name)
        os.makedirs(src)
        with open(os.path.join(src, "kernel.json"), "w", encoding="utf-8") as fh:
            json.dump(kj, fh, indent=1)
        if replaced:  # the new spec swapped in whole (--force, or our own): a failed write leaves the old one in place
            path = replace_folder(src, target, "kernelspec")
        else:
            path = mgr.install_kernel_spec(src, kernel_name=name, user=user, prefix=prefix)
    return KernelspecResult(name, str(path), kj, written=True, dry_run=False, replaced=replaced, backup=backup,
                            notes=tuple(notes))


def _backup_path(mgr: Any, name: str) -> str:
    """A fresh directory for a copy of the spec ``name``, outside every kernels/ directory (a copy
    there would show up as one more kernel): ``<jupyter data dir>/smrnb-kernelspec-backups/``."""
    root = os.path.join(os.path.dirname(str(mgr.user_kernel_dir).rstrip(os.sep)), "smrnb-kernelspec-backups")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = os.path.join(root, f"{name}-{stamp}")
    i = 2
    while os.path.exists(path):
        path = os.path.join(root, f"{name}-{stamp}-{i}")
        i += 1
    return path


# ---------------------------------------------------------------------- snippets
def snippets(env: Mapping[str, str] | None = None, facts: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Text to paste, per place the environment can be set: ``bashrc``, ``sbatch``, ``systemd``,
    ``jupyterhub``; ordered so the one matching this machine's context (Slurm job, JupyterHub,
    systemd unit) comes first."""
    env = dict(needed_env(facts) if env is None else env)
    if not env:
        env = {"LD_LIBRARY_PATH": "/path/to/lib"}
    # (blind audit 36, C-M9) PATH as its CUDA folders before the PATH each place already has, never a snapshot of this
    # shell's whole PATH (a ~/.bashrc, a job, every user's JupyterHub server)
    cuda_bins = os.pathsep.join(cuda_path_entries(env.get("PATH", "")))
    exports = "\n".join(f'export PATH={shlex.quote(cuda_bins)}:"$PATH"' if k == "PATH" and cuda_bins else
                         f"export {k}={shlex.quote(v)}" for k, v in env.items())
    hub = "\n".join(f"    {json.dumps(k)}: {json.dumps(cuda_bins + os.pathsep)} + os.environ.get('PATH', '')," if
                    k == "PATH" and cuda_bins else f"    {json.dumps(k)}: {json.dumps(v)}," for k, v in env.items())
    out = {
        "bashrc": "# ~/.bashrc (then start Jupyter from a new login shell)\n" + exports,
        "sbatch": ("#!/bin/bash\n#SBATCH --job-name=jupyter\n#SBATCH --export=NONE   # do not inherit the "
                   "submitting shell; set what the kernel needs here:\n" + exports
                   + "\nsrun jupyter lab --no-browser --ip=0.0.0.0"),
        "systemd": ("# systemctl --user edit jupyter.service  (or the unit that starts Jupyter)\n[Service]\n"
                    + "\n".join(f'Environment="{k}={v}"' for k, v in env.items())),
        "jupyterhub": ("# jupyterhub_config.py\nimport os\nc.Spawner.environment = {\n" + hub + "\n}"
                       + "\nc.Spawner.env_keep = c.Spawner.env_keep + " + json.dumps(sorted(env))),
    }
    ctx = (facts or {}).get("context") if facts else None
    first: list[str] = []
    if isinstance(ctx, Mapping):
        if ctx.get("slurm"):
            first.append("sbatch")
        if ctx.get("jupyterhub"):
            first.append("jupyterhub")
        if ctx.get("systemd_unit"):
            first.append("systemd")
    order = first + [k for k in out if k not in first]
    return {k: out[k] for k in order}


def snippets_text(env: Mapping[str, str] | None = None, facts: Mapping[str, Any] | None = None) -> str:
    """:func:`snippets` as one text, each under a heading."""
    return "\n\n".join(f"== {k} ==\n{v}" for k, v in snippets(env, facts).items()) + "\n"
