# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Layer 6, kaolin: installed or not, version, location, compiled extensions, and how to install it.

kaolin is **never imported in this process** (an ABI mismatch would break the kernel, and the
import took 10.8 s on the GPU machine). Facts come from package metadata and the file system;
with ``ctx.import_check`` a subprocess runs ``import torch, kaolin`` with a timeout (default 60 s).
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
from typing import Any

from smrnb.doctor._install import install_plan
from smrnb.doctor._model import ProbeContext
from smrnb.doctor.probes._torch_build import find_distribution, find_package_dir, site_dirs_default

IMPORT_CHECK_TIMEOUT = 60.0
_IMPORT_CODE = (
    "import json, sys, time\n"
    "t = time.perf_counter()\n"
    "import torch, kaolin\n"
    "print(json.dumps({'version': getattr(kaolin, '__version__', None), 'seconds': time.perf_counter() - t}))\n"
)


def _python_version(ctx: ProbeContext) -> str | None:
    if os.path.realpath(ctx.python) == os.path.realpath(sys.executable):
        return ".".join(str(p) for p in sys.version_info[:3])
    res = ctx.run([ctx.python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                  timeout=min(ctx.timeout, 10.0))
    m = re.search(r"(\d+\.\d+\.\d+)", res.stdout) if res.ok else None
    return m.group(1) if m else None


def import_check(ctx: ProbeContext, timeout: float = IMPORT_CHECK_TIMEOUT) -> dict[str, Any]:
    """Import torch and kaolin in a child of ``ctx.python``; ``{"ok", "seconds", "error"}``."""
    res = ctx.run([ctx.python, "-c", _IMPORT_CODE], timeout=timeout)
    if res.timed_out:
        return {"ok": False, "seconds": res.seconds, "error": f"import did not finish within {timeout:g} s"}
    if not res.ok:
        lines = [ln for ln in (res.stderr or "").strip().splitlines() if ln.strip()]
        err = lines[-1].strip() if lines else (res.error or f"exit status {res.returncode}")
        return {"ok": False, "seconds": res.seconds, "error": err[:500]}
    seconds = res.seconds
    try:
        seconds = float(json.loads(res.stdout.strip().splitlines()[-1])["seconds"])
    except (ValueError, KeyError, IndexError, TypeError):
        pass
    return {"ok": True, "seconds": seconds, "error": None}


def _version_from_file(location: str) -> str | None:
    try:
        with open(os.path.join(location, "version.py"), encoding="utf-8", errors="replace") as fh:
            m = re.search(r"__version__\s*=\s*['\"]([^'\"]+)['\"]", fh.read(10_000))
            return m.group(1) if m else None
    except OSError:
        return None


def probe(ctx: ProbeContext, *, site_dirs: list[str] | None = None) -> dict[str, Any]:
    """Facts of the kaolin layer (schema in ``smrnb/doctor/FACTS.md``); reads ``ctx.facts`` of the
    driver, torch and toolkit layers for the install command."""
    dirs = site_dirs if site_dirs is not None else site_dirs_default()
    dist = find_distribution("kaolin", dirs)
    location = find_package_dir("kaolin", dirs)
    facts: dict[str, Any] = {"installed": False, "version": None, "location": None, "extension_paths": [],
                             "install_kind": None, "import_check": None}
    if dist is not None or location is not None:
        facts["installed"] = True
        facts["location"] = location
        facts["version"] = (dist.version if dist is not None else None) or (
            _version_from_file(location) if location else None)
        if dist is not None:
            try:
                direct = dist.read_text("direct_url.json")
                if direct and json.loads(direct).get("dir_info", {}).get("editable"):
                    facts["install_kind"] = "editable"
                elif direct:
                    facts["install_kind"] = "direct-url"
                else:
                    facts["install_kind"] = "wheel"
            except Exception:
                facts["install_kind"] = None
        elif location:
            facts["install_kind"] = "source-tree (no dist-info: setup.py develop / egg-link or PYTHONPATH)"
        if location:
            facts["extension_paths"] = sorted(glob.glob(os.path.join(location, "_C*.so")))
    pyver = _python_version(ctx)
    facts["python_version"] = pyver
    plan = install_plan(ctx.facts.get("torch"), ctx.facts.get("driver"), ctx.facts.get("toolkit"),
                        pyver or "", ctx.python)
    facts["wheel_page"] = plan.wheel_page
    facts["wheel_available"] = plan.wheel_available
    facts["install_command"] = plan.command
    facts["install_kind_suggested"] = plan.kind
    facts["install_notes"] = list(plan.notes)
    facts["install_kaolin_version"] = plan.kaolin_version
    if ctx.import_check and facts["installed"] and not ctx.imports_deferred:
        facts["import_check"] = import_check(ctx)
    facts["status"] = "ok" if facts["installed"] else "absent"
    return facts
