# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 38c. (1) torch 1.7-1.10 in the pin tables (torch_wheel_archs.csv from pytorch/builder's wheel script of each
release, torch_python.csv, torch_companions.csv, torch_cuda.csv with the ``-f`` page and unlabelled pins of PyTorch's
install commands of those releases): "no kernels for this GPU" on torch 1.7.1+cu101 and an RTX 3090 pins the oldest
build of a release at or after 1.7 whose wheels carry sm_80/sm_86 code, that the driver runs and that has a wheel for
the text's Python, instead of jumping to 1.11; the companions of those releases pinned as PyTorch's command of the
release pins them."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from smrnb.doctor import tables
from smrnb.doctor.rules._driver import indexes_for_driver_cuda
from smrnb.doctor.rules._torchpin import torch_pin_for_gpu


def _explain(text: str) -> dict:
    run = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline", "--json"], input=text,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _text(torch: str, gpu: str, cc: str, python: int, driver: str, cuda: str, companions: dict[str, str]) -> str:
    lines = ["$ nvidia-smi", f"| NVIDIA-SMI {driver}    Driver Version: {driver}    CUDA Version: {cuda}     |",
             "$ pip list | grep torch", f"torch                    {torch}"]
    lines += [f"{k:<24} {v}" for k, v in companions.items()]
    lines += ["$ python train.py", f"/home/u/venv/lib/python3.{python}/site-packages/torch/cuda/__init__.py:104: "
              "UserWarning:", f"NVIDIA GeForce {gpu} with CUDA capability sm_{cc.replace('.', '')} is not compatible "
              "with the current PyTorch installation.", "Traceback (most recent call last):",
              "RuntimeError: CUDA error: no kernel image is available for execution on the device"]
    return "\n".join(lines) + "\n"


_PIN_RE = re.compile(r"^pip install torch==(\d+\.\d+\.\d+)(?:\+(cu\d+))?\s")


def _pin(report: dict) -> tuple[str, str, str]:
    """(release, variant, command) of the one pinned torch install of torch_wheel_lacks_gpu_arch."""
    cmds = [c for f in report["findings"] if f["code"] == "torch_wheel_lacks_gpu_arch" for c in f["fix"]["commands"]
            if _PIN_RE.match(c)]
    assert len(cmds) == 1, report["findings"]
    m = _PIN_RE.match(cmds[0])
    return m.group(1), m.group(2) or "", cmds[0]


@pytest.mark.parametrize("torch, gpu, cc, python, driver, cuda, older_than", [
    ("1.7.1+cu101", "RTX 3090", "8.6", 8, "470.82.01", "11.4", (1, 8)),   # the classic: 1.7.1+cu110 carries sm_80
    ("1.7.1+cu101", "RTX 3090", "8.6", 8, "450.80.02", "11.0", (1, 8)),   # a driver of CUDA 11.0 runs cu110
    ("1.8.1+cu102", "A100", "8.0", 9, "450.80.02", "11.0", (1, 9)),       # cu111 under minor-version compatibility
    ("1.9.0+cu102", "RTX 3080", "8.6", 9, "470.82.01", "11.4", (1, 10)),
])
def test_old_torch_pinned_to_a_build_of_its_own_line(torch, gpu, cc, python, driver, cuda, older_than):
    """Fails before: torch 1.11.0+cu113 (the oldest release the tables had), not the installed line's own CUDA 11
    build."""
    companions = {"torchvision": {"1.7": "0.8.2", "1.8": "0.9.1", "1.9": "0.10.0"}[torch[:3]]}
    rel, variant, cmd = _pin(_explain(_text(torch, gpu, cc, python, driver, cuda, companions)))
    assert tables.version_key(torch)[:2] <= tables.version_key(rel)[:2] < older_than, cmd
    n = int(cc.replace(".", ""))
    assert tables.torch_wheel_runs(rel, variant, n) is True, cmd
    assert variant in indexes_for_driver_cuda(cuda, driver, tags=tables.torch_cuda_tags()), cmd
    row = next(r for r in tables.rows("torch_python") if r["newest"] == rel)
    assert tables.version_key(row["python_min"]) <= (3, python) <= tables.version_key(row["python_max"]), cmd
    # the oldest such build: no variant of an older CUDA of the same release fits
    tv = tables.torch_cuda_variants(rel, find_links=True)
    for v in tv.variants[:tv.variants.index(variant)]:
        assert not tables.torch_wheel_runs(rel, v, n) or v == torch.split("+")[1], (v, cmd)
    # installed as PyTorch's page of the release installs it: -f its wheel page, torchvision of the same build
    assert tv.find_links and cmd.split("   #")[0].endswith(f" -f {tv.find_links.replace('{variant}', variant)}"), cmd
    assert re.search(rf" torchvision==\d+\.\d+\.\d+\+{variant} ", cmd), cmd


def test_torchaudio_of_an_old_release_pinned_without_a_label():
    """torchaudio 0.7.2 has no +cu110 build: PyTorch's v1.7.1 command pins torchaudio==0.7.2."""
    text = _text("1.7.1+cu101", "RTX 3090", "8.6", 8, "470.82.01", "11.4",
                 {"torchvision": "0.8.2+cu101", "torchaudio": "0.7.2"})
    rel, variant, cmd = _pin(_explain(text))
    assert re.search(r" torchaudio==\d+\.\d+\.\d+ ", cmd) and "torchaudio==0.7.2+" not in cmd, cmd


def test_python_310_moves_past_releases_without_its_wheels():
    """torch 1.7-1.10 have no cp310 wheel: the pin is the oldest release that has one."""
    rel, variant, cmd = _pin(_explain(_text("1.7.1+cu101", "RTX 3090", "8.6", 10, "470.82.01", "11.4", {})))
    firsts = [r["torch"] for r in tables.rows("torch_python") if tables.version_key(r["python_max"]) >= (3, 10)]
    assert tables.version_key(rel)[:2] == min(tables.version_key(t) for t in firsts), cmd


def test_pre_111_variants_are_tags_not_indexes():
    """cu92, cu101, cu110 and cu111 name wheels read with -f (no download.pytorch.org/whl/<variant> index): the other
    rules that print an --index-url never get them; the pin chooser reads every tag."""
    old = {v for r in tables.rows("torch_cuda") if r["find_links"] for v in r["variants"].split()}
    assert {"cu92", "cu101", "cu110", "cu111"} <= old
    new = {v for r in tables.rows("torch_cuda") if not r["find_links"] for v in r["variants"].split()}
    assert set(tables.torch_cuda_indexes()) == new and not (old - new) & set(tables.torch_cuda_indexes())
    assert set(tables.torch_cuda_tags()) == old | new
    assert "cu110" not in indexes_for_driver_cuda("11.4") and "cu110" in indexes_for_driver_cuda(
        "11.4", tags=tables.torch_cuda_tags())


def test_every_pin_table_row_pairs_with_the_others():
    """Every release of torch_cuda.csv has its Pythons and its wheels' archs for each variant, and the reverse."""
    cuda = {r["torch"]: r["variants"].split() for r in tables.rows("torch_cuda")}
    pythons = {r["torch"] for r in tables.rows("torch_python")}
    assert set(cuda) == pythons
    archs = {(r["torch"], r["variant"]) for r in tables.rows("torch_wheel_archs")}
    assert {(t, v) for t, vs in cuda.items() for v in vs} == archs
    for r in tables.rows("torch_cuda"):
        assert set(r["unlabelled"].split()) <= set(r["variants"].split()) | {"torch", "torchvision", "torchaudio"}, r


def test_sweep_old_installed_releases_never_skip_their_own_line():
    """For each installed release 1.7-1.10, GPU and Python its line has wheels for: where a build of that line
    carries code the GPU runs (and the driver runs it), the pin is of that line."""
    for installed in ("1.7.1", "1.8.1", "1.9.1", "1.10.1"):
        tv = tables.torch_cuda_variants(installed, find_links=True)
        for n in (50, 61, 70, 75, 80, 86, 89):
            for python in (6, 7, 8, 9):
                pin = torch_pin_for_gpu(n, installed, "", python, None)
                own = [v for v in tv.variants if tables.torch_wheel_runs(installed, v, n)]
                if own:
                    assert pin is not None and pin.torch == installed and pin.variant == own[0], (installed, n, pin)


@pytest.mark.parametrize("lib, torch, want", [
    ("torchvision", "1.7.1", "0.8.2"), ("torchvision", "1.8.1", "0.9.1"), ("torchvision", "1.9.0", "0.10.0"),
    ("torchaudio", "1.7.1", "0.7.2"), ("torchaudio", "1.8.0", "0.8.0"), ("torchaudio", "1.9.1", "0.9.1")])
def test_companions_of_the_releases_before_111(lib, torch, want):
    """Fails before: "" (no torch_companions.csv row for torchvision 0.8-0.10, torchaudio 0.7-0.9)."""
    from smrnb.doctor.rules._abi import companion_for_torch

    assert companion_for_torch(lib, torch) == want


def test_old_companion_reinstalled_from_the_page_its_release_used():
    """Fails before: `pip install --force-reinstall torch==1.8.1 torchaudio=="<the matching release>" --index-url
    .../whl/"<cuXYZ>"` (no pair in the tables); a pair printed with --index-url .../whl/cu111 would name an index
    that never held torch 1.8 (its wheels are on the -f page of PyTorch's v1.8.1 command)."""
    from smrnb.doctor._explain import explain_text

    text = ("OSError: /home/l/.venv/lib/python3.8/site-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: "
            "_ZN2at4_ops9fft_irfft4callERKNS_6TensorEN3c108optionalINS5_6SymIntEEElNS6_ISt17basic_string_viewIcSt11"
            "char_traitsIcEEEE\ntorch 1.8.1 torchaudio 0.10.0\n")
    cmds = [c for f in explain_text(text, similar=False) if f.code == "companion_built_for_other_torch"
            for c in f.fix.commands]
    tv = tables.torch_cuda_variants("1.8.1", find_links=True)
    pin = [c for c in cmds if c.startswith('pip install "torchaudio==')]
    assert pin and '"torchaudio==0.8.1"' in pin[0] and f" -f {tv.find_links}" in pin[0], cmds
    assert not [c for c in cmds if "--index-url" in c], cmds


def test_an_old_wheel_that_carries_the_gpu_puts_the_blame_on_the_extension():
    """Fails before: torch 1.8.1+cu111 (its wheels carry sm_86: builder's release list for CUDA 11.1) on an RTX 3090
    whose extension has no kernel image got torch_wheel_lacks_gpu_arch as a second reading, the table having no 1.8
    row; the decision names the table and its sources (not "PyTorch's release notes" alone: the rows before 2.8
    come from PyTorch's wheel build scripts)."""
    text = "\n".join(['$ python -c "import torch; print(torch.__version__)"', "1.8.1+cu111", "$ nvidia-smi -L",
                      "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5e2a7f11-0c3b-4f5e-9a51-1d2b3c4d5e6f)",
                      "$ python train.py", "Traceback (most recent call last):",
                      '  File "/home/u/proj/models/dcn.py", line 40, in forward', "    out = _C.dcn_forward(x)",
                      "RuntimeError: CUDA error: no kernel image is available for execution on the device"]) + "\n"
    assert tables.torch_wheel_runs("1.8.1", "cu111", 86) is True
    findings = _explain(text)["findings"]
    assert [f["code"] for f in findings][:1] == ["no_kernel_image_for_gpu"], findings
    assert "torch_wheel_lacks_gpu_arch" not in [f["code"] for f in findings], findings
    said = [e for f in findings for e in f["evidence"] if e.startswith("decided by: torch 1.8.1+cu111's wheels carry")]
    assert said and "tables/torch_wheel_archs.csv" in said[0] and "wheel build scripts" in said[0], findings
