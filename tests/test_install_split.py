# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``pip install smrnb`` is the doctor alone, and never touches the torch it diagnoses.

One fresh virtual environment, built only from this checkout (``pip install <repo>``, no extras),
walked through three situations in order:

1. no torch at all: ``smr-doctor --json`` gives the full report with the torch layer "not
   installed", and ``%load_ext smrnb`` + ``%smr_doctor`` work in a real kernel of that environment;
   a geometry name gives one clear error naming the extra;
2. a torch whose import raises ``OSError: libcudart.so.12: cannot open shared object file``: the
   doctor reports it as the finding and never crashes;
3. that torch is an old one (2.0.0, below the core's ``torch>=2.1``): installing smrnb again leaves it
   in place. The old torch is a distribution built here (a wheel named ``torch`` 2.0.0 whose import
   raises): what is tested is pip's resolution against smrnb's metadata, which is the same for a
   real 600 MB torch 2.0.0 wheel.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
CUDART_ERROR = "libcudart.so.12: cannot open shared object file: No such file or directory"


def run(cmd: list[str], timeout: float = 600, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("doctor-only")
    env_dir = root / "venv"
    r = run([sys.executable, "-m", "venv", env_dir])
    assert r.returncode == 0, r.stderr
    py = env_dir / "bin" / "python"
    r = run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", REPO], timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return env_dir


def pip_list(env_dir: Path) -> dict[str, str]:
    r = run([env_dir / "bin" / "python", "-m", "pip", "list", "--format=json", "--disable-pip-version-check"])
    return {d["name"].lower(): d["version"] for d in json.loads(r.stdout)}


def torch_wheel(dest: Path, version: str = "2.0.0") -> Path:
    """A wheel named torch ``version`` whose import raises the classic missing-cudart OSError."""
    whl = dest / f"torch-{version}-py3-none-any.whl"
    info = f"torch-{version}.dist-info"
    files = {
        "torch/__init__.py": f"raise OSError({CUDART_ERROR!r})\n",
        "torch/version.py": f"__version__ = {version!r}\ncuda = '12.1'\ngit_version = 'unknown'\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: smrnb-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/top_level.txt": "torch\n",
    }
    with zipfile.ZipFile(whl, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr(f"{info}/RECORD", "".join(f"{n},,\n" for n in [*files, f"{info}/RECORD"]))
    return whl


def test_1_the_doctor_installs_without_torch_and_reports_it_not_installed(venv):
    pkgs = pip_list(venv)
    assert "smrnb" in pkgs and "torch" not in pkgs and "numpy" not in pkgs
    r = run([venv / "bin" / "smr-doctor", "--json"], timeout=300)
    assert r.returncode in (0, 1), r.stderr[-2000:]  # 1: the report has errors; never a traceback
    report = json.loads(r.stdout)
    assert report["facts"]["torch"]["installed"] is False
    codes = {f["code"]: f for f in report["findings"]}
    assert "torch_not_installed" in codes and codes["torch_not_installed"]["layer"] == "torch"
    assert {"driver", "toolkit", "loader", "kaolin"} <= set(report["facts"])  # every layer still reported
    text = run([venv / "bin" / "smr-doctor"], timeout=300).stdout
    assert "torch is not installed" in text
    # the core says which extra it needs, once, whatever way it is reached
    r = run([venv / "bin" / "python", "-c", "import smrnb; smrnb.fuse_tsdf"])
    assert r.returncode == 1 and "MissingExtraError" in r.stderr
    assert 'smrnb.fuse_tsdf: smrnb.geometry is part of the reconstruction core, which needs torch' in r.stderr
    assert 'pip install "smrnb[recon]"' in r.stderr
    r = run([venv / "bin" / "smrnb", "demo"])
    assert r.returncode == 2 and 'pip install "smrnb[recon]"' in r.stderr and "Traceback" not in r.stderr


def test_1_magics_work_in_a_real_kernel_without_torch(venv, tmp_path, monkeypatch):
    from jupyter_client.manager import start_new_kernel

    py = venv / "bin" / "python"
    r = run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "ipykernel"], timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    spec = tmp_path / "kernels" / "doctoronly"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(py), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "doctor only", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))  # finds kernels/doctoronly
    km, kc = start_new_kernel(kernel_name="doctoronly")
    try:
        outputs: list[dict] = []
        reply = kc.execute_interactive("%load_ext smrnb\n%smr_doctor --layer torch", timeout=300,
                                       output_hook=lambda m: outputs.append(m))
        assert reply["content"]["status"] == "ok", reply["content"]
        shown = " ".join(json.dumps(m["content"]) for m in outputs)
        assert "torch is not installed" in shown
        reply = kc.execute_interactive("import sys; assert 'torch' not in sys.modules", timeout=60)
        assert reply["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_2_a_torch_whose_import_raises_is_the_finding(venv, tmp_path):
    r = run([venv / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
             torch_wheel(tmp_path)])
    assert r.returncode == 0, r.stderr
    r = run([venv / "bin" / "smr-doctor", "--import-check", "--json"], timeout=300)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr[-2000:]
    report = json.loads(r.stdout)
    failed = [f for f in report["findings"] if f["code"] == "torch_import_failed"]
    assert failed and failed[0]["severity"] == "error"
    assert any(CUDART_ERROR in e for e in failed[0]["evidence"])
    assert report["facts"]["torch"]["version"] == "2.0.0"


def test_3_installing_smrnb_leaves_an_old_torch_in_place(venv, tmp_path):
    assert pip_list(venv)["torch"] == "2.0.0"  # installed by the previous test: below the core's torch>=2.1
    r = run([venv / "bin" / "python", "-m", "pip", "install", "--disable-pip-version-check", "--upgrade", REPO],
            timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert pip_list(venv)["torch"] == "2.0.0"
    assert "Uninstalling torch" not in r.stdout and "torch-2.0.0" not in r.stdout.split("Successfully installed")[-1]
