# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Layer 7, Jupyter: the kernel's Python vs the server's, the kernelspec in use and its ``env``,
widget/lab versions, and whether the ``jupyter-threejs`` lab extension is where the server looks.

Kernelspec directories are scanned the way ``jupyter_client.kernelspec.KernelSpecManager`` does
(``jupyter_path("kernels")``: user, env, system), reading ``kernel.json`` directly: importing
jupyter_client and asking ``find_kernel_specs()`` took 0.8 s here, over the doctor's budget.
Of a kernelspec's ``env`` only the names are stored, and the values of path-like variables.
"""

from __future__ import annotations

import glob
import importlib.metadata as md
import json
import os
import shutil
import sys
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._model import ProbeContext
from smrnb.doctor._redact import display_env

DISTS = ("jupyterlab", "notebook", "jupyter_server", "ipywidgets", "jupyterlab_widgets", "pythreejs",
         "ipykernel", "jupyter_client")
REDACTED = "<redacted>"


def jupyter_paths(subdir: str, environ: dict[str, str], prefix: str) -> list[str]:
    """``jupyter_core.paths.jupyter_path(subdir)`` against ``environ`` (JUPYTER_PATH first, user
    data dir, ``<prefix>/share/jupyter``, system dirs)."""
    out: list[str] = []
    for p in environ.get("JUPYTER_PATH", "").split(os.pathsep):
        if p:
            out.append(os.path.join(p, subdir))
    data = environ.get("JUPYTER_DATA_DIR")
    if not data:
        xdg = environ.get("XDG_DATA_HOME") or os.path.join(environ.get("HOME", os.path.expanduser("~")),
                                                           ".local", "share")
        data = os.path.join(xdg, "jupyter")
    out.append(os.path.join(data, subdir))
    out.append(os.path.join(prefix, "share", "jupyter", subdir))
    out += [os.path.join("/usr/local/share/jupyter", subdir), os.path.join("/usr/share/jupyter", subdir)]
    seen: list[str] = []
    for p in out:
        if p not in seen:
            seen.append(p)
    return seen


def redact_env(env: dict[str, Any]) -> dict[str, str]:
    """A kernelspec ``env`` as the doctor may show it: every name, values only of path-like variables
    (``PATH``, ``LD_LIBRARY_PATH``, ``CUDA_HOME``, ``*_DIR``...); see :func:`smrnb.doctor._redact.display_env`."""
    return display_env(env)


def _read_json(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
        return d if isinstance(d, dict) else None
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def kernelspecs(dirs: list[str]) -> dict[str, dict[str, Any]]:
    """name -> {"name", "path", "argv", "env"} of every kernelspec in ``dirs`` (first dir wins)."""
    specs: dict[str, dict[str, Any]] = {}
    for d in dirs:
        for kj in sorted(glob.glob(os.path.join(d, "*", "kernel.json"))):
            name = os.path.basename(os.path.dirname(kj)).lower()
            if name in specs:
                continue
            data = _read_json(kj)
            if data is None:
                continue
            argv = data.get("argv") if isinstance(data.get("argv"), list) else []
            env = data.get("env") if isinstance(data.get("env"), dict) else {}
            specs[name] = {"name": name, "path": os.path.dirname(kj), "argv": [str(a) for a in argv],
                           "env": redact_env(env), "display_name": data.get("display_name")}
    return specs


def _connection_file() -> str | None:
    if "ipykernel" not in sys.modules:
        return None
    try:
        from ipykernel.connect import get_connection_file

        return get_connection_file()
    except Exception:
        pass
    for i, a in enumerate(sys.argv):
        if a == "-f" and i + 1 < len(sys.argv):
            return sys.argv[i + 1]
        if a.startswith("--f="):
            return a[4:]
    return None


def _same_python(a: str, b: str, path: str) -> bool:
    if not a or not b:
        return False
    if os.sep not in a:
        a = shutil.which(a, path=path) or a
    return os.path.realpath(a) == os.path.realpath(b)


def ancestors(pid: int, proc: str = "/proc", limit: int = 32) -> list[int] | None:
    """Parent, grandparent... of process ``pid`` (from ``/proc/<pid>/stat``); None when ``/proc``
    cannot be read (masked), ``[]`` for a process without readable parents."""
    out: list[int] = []
    cur = pid
    for _ in range(limit):
        try:
            with open(os.path.join(proc, str(cur), "stat"), "rb") as fh:
                stat = fh.read(4096).decode(errors="replace")
        except OSError:
            return None if not out and cur == pid else out
        try:
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (ValueError, IndexError):
            return out
        if ppid <= 0 or ppid in out:
            return out
        out.append(ppid)
        cur = ppid
    return out


def _owned(prefix: str | None) -> bool | None:
    """True when ``prefix`` is this user's to install into (owned by us and writable), False when it
    belongs to someone else, None when it cannot be told."""
    if not prefix:
        return None
    try:
        st = os.stat(prefix)
    except OSError:
        return None
    return st.st_uid == os.getuid() and os.access(prefix, os.W_OK)


def find_server(runtime_dir: str, proc: str = "/proc", ppid: int | list[int] | None = None
                ) -> tuple[dict | None, list[dict]]:
    """``(the server running this kernel, every live server)`` from ``jpserver-*.json`` (pid) and
    ``/proc/<pid>/exe``. ``ppid`` is this kernel's parent pid or list of ancestor pids; the server
    is the one among them (None when this process is not a kernel or none of them is a server:
    another running server is someone else's, never "this kernel's server")."""
    servers = []
    for f in sorted(glob.glob(os.path.join(runtime_dir, "jpserver-*.json")) +
                    glob.glob(os.path.join(runtime_dir, "nbserver-*.json"))):
        d = _read_json(f)
        if not d or not isinstance(d.get("pid"), int):
            continue
        try:
            exe = os.readlink(os.path.join(proc, str(d["pid"]), "exe"))
        except OSError:
            continue  # stale file: the server is gone
        argv: list[str] = []
        try:
            with open(os.path.join(proc, str(d["pid"]), "cmdline"), "rb") as fh:
                argv = [a.decode(errors="replace") for a in fh.read(65536).split(b"\0") if a]
        except OSError:
            pass
        # argv[0] keeps the venv path (/venv/bin/python); exe is already resolved to the base binary
        python = argv[0] if argv and os.path.isabs(argv[0]) and "python" in os.path.basename(argv[0]) else exe
        prefix = os.path.dirname(os.path.dirname(python))
        if len(argv) > 1 and os.path.isabs(argv[1]) and os.path.basename(argv[1]).startswith("jupyter"):
            prefix = os.path.dirname(os.path.dirname(argv[1]))
        servers.append({"pid": d["pid"], "python": python, "exe": exe, "prefix": prefix,
                        "root_dir": d.get("root_dir") or d.get("notebook_dir"), "version": d.get("version")})
    if not servers:
        return None, []
    mine = [ppid] if isinstance(ppid, int) else list(ppid or [])
    for s in servers:
        if s["pid"] in mine:
            return s, servers
    return None, servers


def threejs_labextension(dirs: list[str], pythreejs_version: str | None) -> dict[str, Any]:
    for d in dirs:
        pj = os.path.join(d, "jupyter-threejs", "package.json")
        data = _read_json(pj)
        if data is None:
            continue
        version = str(data.get("version")) if data.get("version") is not None else None
        expected = tables.threejs_labext_for_pythreejs(pythreejs_version) if pythreejs_version else None
        matches = None
        if pythreejs_version and version:
            if expected is not None:
                matches = version == expected
            else:  # unknown pythreejs release: same major.minor is the best we can say
                matches = (tables.parse_version(version) or ())[:2] == (tables.parse_version(pythreejs_version) or ())[:2]
        return {"installed": True, "path": pj, "version": version, "expected_version": expected,
                "matches_pythreejs": matches, "searched": dirs}
    return {"installed": False, "path": None, "version": None, "expected_version": None,
            "matches_pythreejs": None, "searched": dirs}


def probe(ctx: ProbeContext, *, prefix: str | None = None, runtime_dir: str | None = None,
          proc: str = "/proc", site_dirs: list[str] | None = None,
          kernel_ancestors: list[int] | None = None) -> dict[str, Any]:
    """Facts of the jupyter layer (schema in ``smrnb/doctor/FACTS.md``).

    Parameters
    ----------
    prefix : str, optional
        The environment prefix whose ``share/jupyter`` is searched (default ``sys.prefix``).
    runtime_dir : str, optional
        Jupyter runtime dir with ``jpserver-*.json`` (default from JUPYTER_RUNTIME_DIR / data dir).
    proc : str
        ``/proc`` (tests pass a fabricated tree).
    kernel_ancestors : list of int, optional
        Pids above this kernel (default from ``/proc/<pid>/stat`` when running in a kernel): the
        server running *this* kernel is the one among them; others are not compared.
    """
    env = ctx.environ
    prefix = prefix or sys.prefix
    versions: dict[str, str | None] = {}
    for name in DISTS:
        try:
            versions[name] = md.version(name) if site_dirs is None else next(
                (d.version for d in md.distributions(name=name, path=site_dirs)), None)
        except Exception:
            versions[name] = None
    conn = _connection_file()
    in_kernel = "ipykernel" in sys.modules and conn is not None
    kernel_name = None
    if conn:
        d = _read_json(conn if os.path.isabs(conn) else os.path.join(env.get("JUPYTER_RUNTIME_DIR", ""), conn))
        if d and isinstance(d.get("kernel_name"), str) and d["kernel_name"]:
            kernel_name = d["kernel_name"]
    specs = kernelspecs(jupyter_paths("kernels", env, prefix))
    spec = specs.get(kernel_name) if kernel_name else None
    matched_by = "connection file" if spec else None
    if spec is None:
        cands = [s for s in specs.values() if s["argv"] and _same_python(s["argv"][0], ctx.python, env.get("PATH", ""))]
        if cands:
            spec, matched_by = cands[0], "argv[0] == kernel python"
    if runtime_dir is None:
        runtime_dir = env.get("JUPYTER_RUNTIME_DIR") or os.path.join(
            env.get("JUPYTER_DATA_DIR") or os.path.join(
                env.get("XDG_DATA_HOME") or os.path.join(env.get("HOME", os.path.expanduser("~")), ".local", "share"),
                "jupyter"), "runtime")
    not_checked: list[str] = []
    if kernel_ancestors is None and in_kernel:
        kernel_ancestors = ancestors(os.getpid(), proc)
        if kernel_ancestors is None:
            kernel_ancestors = [os.getppid()]
            not_checked.append(f"{proc} could not be read: the server running this kernel is looked for among its "
                               "direct parent only")
    server, servers = find_server(runtime_dir, proc, kernel_ancestors if in_kernel or kernel_ancestors else None)
    if servers and not os.path.isdir(os.path.join(proc, "self")):
        not_checked.append(f"{proc} could not be read: the servers' Pythons are unknown")
    srv_python = server["python"] if server else None
    kernel_prefix = os.path.dirname(os.path.dirname(os.path.abspath(ctx.python)))
    differs = None
    if server:
        differs = os.path.realpath(server["prefix"]) != os.path.realpath(kernel_prefix)
    labext_dirs = jupyter_paths("labextensions", env, prefix)
    if server and differs:
        # the server looks for lab extensions in its own prefix, not the kernel's
        labext_dirs.insert(0, os.path.join(server["prefix"], "share", "jupyter", "labextensions"))
        labext_dirs.remove(os.path.join(prefix, "share", "jupyter", "labextensions"))
    return {
        "status": "ok",
        "in_kernel": in_kernel,
        "connection_file": conn,
        "kernel_python": ctx.python,
        "server_python": srv_python,
        "servers": servers,
        "server_prefix": server["prefix"] if server else None,
        "kernel_prefix": kernel_prefix,
        "server_python_differs": differs,
        "server_prefix_owned": _owned(server["prefix"]) if server else None,
        "not_checked": not_checked,
        "kernelspec": spec,
        "kernelspec_matched_by": matched_by,
        "kernelspecs": sorted(specs),
        "versions": versions,
        "threejs_labextension": threejs_labextension(labext_dirs, versions.get("pythreejs")),
        "stale_modules": stale_modules(sys.modules) if in_kernel else [],
    }


#: top-level modules looked at by :func:`stale_modules` (each costs one metadata lookup)
MAX_STALE_CHECKS = 80


def stale_modules(modules: Any, version_of: Any = None) -> list[dict[str, str]]:
    """Modules this process imported whose installed release is now another one: ``[{"module", "imported",
    "installed"}]`` (the module's ``__version__`` against its distribution's metadata, for top-level modules named
    like their distribution). Such a module stays the old one until the process restarts: Python runs a module once
    and keeps it in ``sys.modules``."""
    version_of = version_of or md.version
    out: list[dict[str, str]] = []
    n = 0
    for name, mod in list(modules.items()):
        if "." in name or name.startswith("_") or name in sys.stdlib_module_names:
            continue
        imported = getattr(mod, "__version__", None)
        if not isinstance(imported, str) or not imported:
            continue
        n += 1
        if n > MAX_STALE_CHECKS:
            break
        try:
            installed = version_of(name)
        except Exception:  # no distribution of that name (the module belongs to another one): not compared
            continue
        if isinstance(installed, str) and installed and _release(installed) != _release(imported):
            out.append({"module": name, "imported": imported, "installed": installed})
    return out


def _release(v: str) -> str:
    return v.strip().lower().split("+")[0].removeprefix("v")
