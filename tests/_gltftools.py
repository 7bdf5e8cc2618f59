# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The Khronos glTF validator and gltfpack (npm packages run by node), found where `.ci/run` installs them.

``SMRNB_NPM_TOOLS`` names a folder whose ``node_modules`` holds ``gltf-validator`` (and ``gltfpack``, and
``three`` for the browser tests' page, tests/browser/_glbpage.py); default ``~/.cache/smrnb-npm``. Tests that need them skip with a reason when node or the package is absent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

_VALIDATE = r"""
const fs = require('fs');
const validator = require(process.argv[1]);
validator.validateBytes(new Uint8Array(fs.readFileSync(process.argv[2])), {maxIssues: 100}).then((r) => {
  console.log(JSON.stringify({errors: r.issues.numErrors, warnings: r.issues.numWarnings, infos: r.issues.numInfos,
    messages: r.issues.messages.map((m) => `${m.severity} ${m.code} ${m.pointer || ''} ${m.message}`),
    extensionsUsed: (r.info && r.info.extensionsUsed) || [], extensionsRequired: (r.info && r.info.extensionsRequired) || []}));
}).catch((e) => { console.log(JSON.stringify({fatal: String(e)})); process.exit(2); });
"""


def tools_dir() -> Path:
    return Path(os.environ.get("SMRNB_NPM_TOOLS") or Path.home() / ".cache" / "smrnb-npm").expanduser()


def missing(package: str) -> str | None:
    """Why ``package`` cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (tools_dir() / "node_modules" / package).is_dir():
        return (f"npm package {package} not found in {tools_dir()}/node_modules (`npm install --prefix "
                f"{tools_dir()} {package}`, or set SMRNB_NPM_TOOLS)")
    return None


def validate(path: Path) -> dict:
    """The Khronos validator's verdict on a .glb: errors, warnings, infos, messages, extensions."""
    mod = tools_dir() / "node_modules" / "gltf-validator"
    r = subprocess.run(["node", "-e", _VALIDATE, str(mod), str(path)], capture_output=True, text=True, timeout=120)  # -e: argv[1..]
    return json.loads(r.stdout.strip().splitlines()[-1])


def gltfpack(src: Path, dst: Path, *args: str) -> subprocess.CompletedProcess:
    exe = tools_dir() / "node_modules" / ".bin" / "gltfpack"
    return subprocess.run([str(exe), "-i", str(src), "-o", str(dst), *args], capture_output=True, text=True,
                          timeout=300)
