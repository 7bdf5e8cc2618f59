# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 37, auditor D, finding F1 (round 37g): "the installed torch has no kernels for this GPU" printed a
force-reinstall of the newest torch whatever the text showed (t02: Python 3.8, where no such wheel exists, and
torchvision 0.8.2 left behind; t11: Python 3.9, where pip takes another torch than the comment names). The torch
reinstall is now pinned to the oldest release at or after the installed one whose wheels run on the GPU, in a CUDA
variant the text's driver runs and with a wheel for the text's Python, its companions pinned beside it; where no
release fits the Python, the line says Python must change first. The texts t02/t11/t13 are the auditor's."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from smrnb.doctor import tables
from smrnb.doctor._install import nvcc_archs
from smrnb.doctor.rules._torchpin import torch_pin_for_gpu


def _explain(text: str) -> dict:
    """smr-doctor explain --offline --json on ``text``."""
    run = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline", "--json"], input=text,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _commands(report: dict, code: str = "torch_wheel_lacks_gpu_arch") -> list[str]:
    return [c for f in report["findings"] if f["code"] == code for c in f["fix"]["commands"]]


_TORCH_INSTALL_RE = re.compile(r"\bpip3? install\b[^#]*\btorch(?:==|\s|$)")
_PIN_RE = re.compile(r"\btorch==(\d+\.\d+\.\d+)(?:\+(cu\d+))?(?=\s|$)")
#: a variant's wheel index, or (round 38c: releases before 1.11) the -f page PyTorch's command of the release reads
_INDEX_RE = re.compile(r"--(?:extra-)?index-url https://download\.pytorch\.org/whl/(cu\d+)\b"
                       r"|-f https://download\.pytorch\.org/whl/(?:(cu\d+)/)?torch_stable\.html")


def _index_variant(cmd: str) -> str:
    """The CUDA variant the command's index names ("" for the one -f page of every variant)."""
    m = _INDEX_RE.search(cmd)
    assert m, cmd
    return m.group(1) or m.group(2) or ""


def _pinned_variant(cmd: str) -> tuple[str, str]:
    """(release, variant) of a pinned torch install: the variant from the local label, else the index, else the
    release's unlabelled PyPI variant (1.7's cu102: its command has no label and no index of its own)."""
    m = _PIN_RE.search(cmd)
    assert m, cmd
    tv = tables.torch_cuda_variants(m.group(1), find_links=True)
    assert tv is not None, cmd
    v = m.group(2) or _index_variant(cmd)
    if not v:
        v = tv.pypi_default
        assert v in tv.unlabelled, cmd  # no label only where PyTorch's command of the release has none
    elif not m.group(2):
        assert v in tv.unlabelled, cmd
    return m.group(1), v


def _python_range(torch: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    row = next(r for r in tables.rows("torch_python") if r["newest"] == torch)
    return tables.version_key(row["python_min"]), tables.version_key(row["python_max"])


def _check_pinned(cmds: list[str], python: int | None, shown: tuple[str, ...] = ()) -> str:
    """Every torch install among ``cmds`` is pinned (``torch==X.Y.Z+cuXYZ``) to a release whose ``cuXYZ`` index
    the tables list for it, with a wheel for Python 3.``python``; the companions the text shows pinned beside it.
    Returns the release."""
    installs = [c.split("   #")[0] for c in cmds if _TORCH_INSTALL_RE.search(c.split("   #")[0])]
    assert installs, cmds
    for c in installs:
        rel, variant = _pinned_variant(c)
        assert _index_variant(c) in (variant, ""), c
        assert "--force-reinstall" not in c, c  # the local label picks the build; pip keeps what fits
        tv = tables.torch_cuda_variants(rel, find_links=True)
        assert variant in tv.variants, c
        if python:
            lo, hi = _python_range(rel)
            assert lo <= (3, python) <= hi, c
        for lib in shown:
            label = "" if {variant, lib} & set(tv.unlabelled) else rf"\+{variant}"
            assert re.search(rf"\b{lib}==\d+\.\d+\.\d+{label}(?=\s|$)", c), c
    return _PIN_RE.search(installs[0]).group(1)


T02 = """$ nvidia-smi
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.105.17   Driver Version: 525.105.17   CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0  On |                  N/A |
+-------------------------------+----------------------+----------------------+
$ pip list | grep torch
torch                    1.7.1
torchvision              0.8.2
$ python -c "import torch; print(torch.__version__, torch.version.cuda); x=torch.ones(3).cuda(); print(x*2)"
/home/ana/venv/lib/python3.8/site-packages/torch/cuda/__init__.py:104: UserWarning:
NVIDIA GeForce RTX 3080 with CUDA capability sm_86 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 sm_75.
If you want to use the NVIDIA GeForce RTX 3080 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/

  warnings.warn(incompatible_device_warn.format(device_name, capability, " ".join(arch_list), device_name))
1.7.1 10.2
Traceback (most recent call last):
  File "<string>", line 1, in <module>
RuntimeError: CUDA error: no kernel image is available for execution on the device
"""

T11 = """$ python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))"
1.12.1+cu113 11.3 NVIDIA GeForce RTX 4090
$ python train.py
/home/mei/miniconda3/envs/mm/lib/python3.9/site-packages/torch/cuda/__init__.py:146: UserWarning:
NVIDIA GeForce RTX 4090 with CUDA capability sm_89 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86.
Traceback (most recent call last):
  File "train.py", line 140, in <module>
    out = scripted_model(x)
  File "/home/mei/miniconda3/envs/mm/lib/python3.9/site-packages/torch/nn/modules/module.py", line 1130, in _call_impl
    return forward_call(*input, **kwargs)
RuntimeError: The following operation failed in the TorchScript interpreter.
Traceback of TorchScript (most recent call last):
RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)

nvrtc compilation failed: \n
#define NAN __int_as_float(0x7fffffff)
#define POS_INFINITY __int_as_float(0x7f800000)
extern "C" __global__
void fused_mul_add(float* tx_1, float* aten_add) {
"""

T13 = """$ nvcc --version | tail -2
Cuda compilation tools, release 11.7, V11.7.99
Build cuda_11.7.r11.7/compiler.31442593_0
$ python -c "import torch; print(torch.__version__, torch.cuda.get_device_name(0))"
1.13.1+cu117 NVIDIA GeForce RTX 4090
$ pip install --no-build-isolation -e .
...
  [1/6] /usr/local/cuda-11.7/bin/nvcc  -I/home/raj/proj/csrc -I/home/raj/.venv/lib/python3.10/site-packages/torch/include -c -c /home/raj/proj/csrc/knn.cu -o /home/raj/proj/build/temp.linux-x86_64-cpython-310/csrc/knn.o -D__CUDA_NO_HALF_OPERATORS__ --expt-relaxed-constexpr --compiler-options ''"'"'-fPIC'"'"'' -O3 -DTORCH_EXTENSION_NAME=_C -D_GLIBCXX_USE_CXX11_ABI=0 -gencode=arch=compute_89,code=compute_89 -gencode=arch=compute_89,code=sm_89 -std=c++14
  FAILED: /home/raj/proj/build/temp.linux-x86_64-cpython-310/csrc/knn.o
  nvcc fatal   : Unsupported gpu architecture 'compute_89'
  ninja: build stopped: subcommand failed.
  RuntimeError: Error compiling objects for extension
  error: subprocess-exited-with-error
"""


def test_t02_python38_torch17_pinned_with_its_torchvision():
    """Fails before: `pip install --force-reinstall torch --index-url .../cu126` (torch 2.11, no cp38 wheel)."""
    cmds = _commands(_explain(T02))
    rel = _check_pinned(cmds, 8, ("torchvision",))
    assert tables.version_key(rel) >= (1, 7)  # never older than the installed 1.7.1
    install = next(c for c in cmds if "torch==" in c)
    # the driver shown (CUDA 12.0) runs the variant chosen
    cuda = _pinned_variant(install)[1]
    assert (int(cuda[2:-1]), int(cuda[-1])) <= (12, 0) or cuda.startswith("cu12"), install


def test_t11_python39_sm89_gets_a_torch_that_has_python39_wheels():
    """Fails before: the same newest-torch command (torch >= 2.9 has no cp39 wheel: pip takes another release)."""
    cmds = _commands(_explain(T11))
    rel = _check_pinned(cmds, 9)
    assert tables.version_key(rel) >= (1, 12)
    # sm_89: NVRTC and the GPU's own code need CUDA 11.8 (the installed cu113 build is what fails)
    cuda = _pinned_variant(next(c for c in cmds if "torch==" in c))[1]
    assert 89 in (nvcc_archs(f"{cuda[2:-1]}.{cuda[-1]}") or ())


def test_t13_no_unpinned_torch_reinstall():
    """Fails before: its third reading printed the newest torch's unpinned force-reinstall; torch 1.13.1+cu117's wheels
    carry sm_86 code, which runs on the 4090: the extension's build is what fails."""
    report = _explain(T13)
    for c in [c for f in report["findings"] for c in f["fix"]["commands"]]:
        body = c.split("   #")[0]
        if _TORCH_INSTALL_RE.search(body):
            assert _PIN_RE.search(body), c


def _synthetic(python: int | None, cc: str, torch: str, cuda_driver: str | None, torchvision: str | None) -> str:
    lines = []
    if cuda_driver:
        lines += ["$ nvidia-smi", f"| NVIDIA-SMI 570.86.10   Driver Version: 570.86.10   CUDA Version: {cuda_driver}     |"]
    lines += ["$ pip list | grep torch", f"torch                    {torch}"]
    if torchvision:
        lines.append(f"torchvision              {torchvision}")
    site = f"/home/u/venv/lib/python3.{python}/site-packages" if python else "/opt/torchenv/site-packages"
    lines += ["$ python train.py", f"{site}/torch/cuda/__init__.py:104: UserWarning:",
              f"NVIDIA GPU with CUDA capability sm_{cc.replace('.', '')} is not compatible with the current PyTorch "
              "installation.",
              "Traceback (most recent call last):",
              "RuntimeError: CUDA error: no kernel image is available for execution on the device"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("python", [8, 9, 10, 11, 12, 13])
@pytest.mark.parametrize("cc,torch,driver,tvis", [
    ("8.6", "1.7.1", "12.0", "0.8.2"), ("8.9", "1.12.1", None, None), ("12.0", "2.5.1", "12.8", "0.20.1"),
    ("6.1", "1.11.0", "11.4", None), ("9.0", "1.13.1", "12.2", "0.14.1")])
def test_synthetic_every_torch_install_is_pinned_for_the_python(python, cc, torch, driver, tvis):
    """Fails before: the newest torch unpinned, whatever the Python."""
    text = _synthetic(python, cc, torch, driver, tvis)
    cmds = _commands(_explain(text))
    assert cmds, text
    said = [c for c in cmds if c.startswith("# torch ") and "change Python first" in c]
    if said:  # no release fits this Python: said, with the Python it needs, and no command that cannot resolve
        assert not [c for c in cmds if _TORCH_INSTALL_RE.search(c.split("   #")[0]) and not c.startswith("#")]
        assert re.search(rf"wheels for Python 3\.\d+-3\.\d+ only, not the text's Python 3\.{python}\b", said[0])
        return
    _check_pinned(cmds, python, ("torchvision",) if tvis else ())


def test_no_python_no_driver_pinned_with_the_assumption_said():
    cmds = _commands(_explain(_synthetic(None, "8.9", "1.12.1", None, "0.13.1")))
    _check_pinned(cmds, None, ("torchvision",))
    install = next(c for c in cmds if "torch==" in c)
    assert "assumed" in install and "Python" in install and "CUDA Version" in install, install


def test_python38_blackwell_says_python_must_change():
    """sm_120 needs torch 2.7+ (cu128), which has no Python 3.8 wheel."""
    cmds = _commands(_explain(_synthetic(8, "12.0", "2.4.1", "12.8", None)))
    said = [c for c in cmds if "change Python first" in c]
    assert said and "Python 3.9" in said[0], cmds
    assert not [c for c in cmds if not c.startswith("#") and _TORCH_INSTALL_RE.search(c.split("   #")[0])], cmds


# the chooser itself, over (torch installed, Python, GPU, driver)
# (round 38c) with the releases before 1.11 (1.7-1.10) and the drivers of their CUDA (10.1, 10.2, 11.0)
_RELEASES = ["", "1.6.0", "1.7.1", "1.8.1", "1.9.1", "1.10.1", "1.11.0", "1.12.1", "1.13.1", "2.0.1", "2.3.1",
             "2.5.1", "2.7.1", "2.9.1", "2.11.0"]
_CCS = [37, 50, 61, 70, 75, 80, 86, 89, 90, 100, 120]
_DRIVER = [None, "10.1", "10.2", "11.0", "11.4", "11.8", "12.0", "12.4", "12.8", "13.0"]


def _driver_runs(d: str | None) -> list[str] | None:
    from smrnb.doctor.rules._driver import indexes_for_driver_cuda

    return None if d is None else indexes_for_driver_cuda(d, tags=tables.torch_cuda_tags())


def test_sweep_the_pin_fits_what_it_was_given():
    for installed in _RELEASES:
        for n in _CCS:
            for d in _DRIVER:
                runs = _driver_runs(d)
                for python in range(7, 15):
                    pin = torch_pin_for_gpu(n, installed, "", python, runs)
                    if pin is None:
                        continue
                    tv = tables.torch_cuda_variants(pin.torch, find_links=True)
                    assert tv is not None and pin.variant in tv.variants
                    assert runs is None or pin.variant in runs
                    assert tables.torch_wheel_runs(pin.torch, pin.variant, n) is True, (installed, n, d, python, pin)
                    lo, hi = tables.version_key(pin.python_min), tables.version_key(pin.python_max)
                    assert pin.fits == (lo <= (3, python) <= hi), pin
                    if pin.fits and installed and tables.version_key(pin.torch)[:2] >= tables.version_key(installed)[:2]:
                        # the oldest: no release between the installed one and it fits as well
                        for r in tables.rows("torch_python"):
                            k = tables.version_key(r["torch"])
                            if tables.version_key(installed)[:2] <= k < tables.version_key(pin.torch)[:2] and \
                                    tables.version_key(r["python_min"]) <= (3, python) <= tables.version_key(
                                        r["python_max"]):
                                fit = [v for v in tables.torch_cuda_variants(r["torch"], find_links=True).variants
                                       if (runs is None or v in runs) and tables.torch_wheel_runs(r["torch"], v, n)]
                                assert not fit, (installed, n, d, python, pin, r["torch"], fit)


def test_no_pin_for_a_gpu_no_wheel_in_the_tables_carries():
    """sm_35 left PyTorch's wheels in 2019 (tables/torch_wheel_archs_dropped.csv: which release last carried it is
    not read): no pin, though CUDA 11.8's nvcc still compiles for it."""
    assert 35 in (nvcc_archs("11.8") or ())
    assert torch_pin_for_gpu(35, "", "", 10, None) is None
    cmds = _commands(_explain(_synthetic(10, "3.5", "2.1.2", "11.8", None)))
    assert not [c for c in cmds if "torch==" in c], cmds


def test_torch_python_rows_are_sourced():
    for r in tables.rows("torch_python"):
        assert r["verified"] in ("yes", "partial") and r["source"].strip(), r
        assert tables.version_key(r["newest"])[:2] == tables.version_key(r["torch"]), r
        assert tables.torch_cuda_variants(r["torch"], find_links=True) is not None, r
