# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``import smrnb`` and the doctor stay light: no torch, kaolin, pythreejs, ipywidgets, no CUDA init."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("torch", "kaolin", "pythreejs", "ipywidgets")


def _run(code: str) -> dict:
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_import_smrnb_imports_nothing_heavy():
    code = (
        "import sys, json\n"
        "import smrnb\n"
        "mods = set(sys.modules)\n"
        "cuda_libs = [l for l in open('/proc/self/maps') if 'libcuda.so' in l or 'libcudart' in l]\n"
        f"print(json.dumps({{'heavy': sorted(m for m in {HEAVY!r} if m in mods),"
        " 'cuda_mapped': len(cuda_libs), 'ipython': 'IPython' in mods,"
        " 'has_loader': callable(getattr(smrnb, 'load_ipython_extension', None))}))\n"
    )
    d = _run(code)
    assert d["heavy"] == []
    assert d["cuda_mapped"] == 0  # CUDA never initialised (no libcuda / libcudart mapped)
    assert d["ipython"] is False  # load_ipython_extension exists but was not called
    assert d["has_loader"] is True


def test_diagnose_imports_neither_torch_nor_kaolin():
    code = (
        "import sys, json\n"
        "import smrnb.doctor\n"
        "r = smrnb.doctor.diagnose(timeout=3)\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'kaolin': 'kaolin' in sys.modules,"
        " 'layers': r.layers()}))\n"
    )
    d = _run(code)
    assert d["torch"] is False and d["kaolin"] is False
    assert d["layers"] == ["driver", "torch", "toolkit", "loader", "abi", "kaolin", "jupyter", "context"]
