# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Refresh the three.js files that ``Viewer.save_html`` inlines, from the npm registry.

    python tests/tools/refresh_threejs.py            # the version in smrnb/widgets/_js/VERSION
    python tests/tools/refresh_threejs.py 0.170.0    # another one (must ship a standalone build/three.module.min.js)

Runs ``npm pack three@VERSION`` in a temporary folder and copies the module build, OrbitControls and the
licence into ``smrnb/widgets/_js``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

DEST = Path(__file__).resolve().parents[2] / "smrnb" / "widgets" / "_js"
FILES = {"package/build/three.module.min.js": "three.module.min.js",
         "package/examples/jsm/controls/OrbitControls.js": "OrbitControls.js",
         "package/LICENSE": "LICENSE.three"}


def main(argv: list[str]) -> int:
    version = argv[0] if argv else (DEST / "VERSION").read_text().strip()
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(["npm", "pack", f"three@{version}", "--silent"], cwd=tmp, capture_output=True,
                           text=True, timeout=300)
        if r.returncode != 0:
            print(r.stderr, file=sys.stderr)
            return 1
        tgz = Path(tmp) / r.stdout.strip().splitlines()[-1]
        with tarfile.open(tgz) as tar:
            for src, dst in FILES.items():
                member = tar.extractfile(src)
                if member is None:
                    print(f"{src} is missing from three@{version}", file=sys.stderr)
                    return 1
                text = member.read()
                if dst == "three.module.min.js" and b"from\"./" in text.replace(b" ", b""):
                    print(f"three@{version}'s module build imports other files; pick <= 0.170.0", file=sys.stderr)
                    return 1
                (DEST / dst).write_bytes(text)
    (DEST / "VERSION").write_text(version + "\n")
    shutil.rmtree(DEST / "__pycache__", ignore_errors=True)
    print(f"three@{version} -> {DEST}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
