# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 36, part B (``smr-doctor explain``, the printed fixes): the auditor's own texts, held here.

* F8: ``print(torch.__version__, torch.version.cuda)`` printed ``2.5.1+cu124 12.4`` (or ``2.1.0+cpu None``) on the line
  after the code: read as torch's release and CUDA, so the driver fix pins that torch release.
* F6: the CUDA_HOME fix said "torch.version.cuda's (12.1)" where neither the text nor the machine showed it: the note
  says how to read it instead.
* F1: ``import torch`` itself failing on libcudart.so.12 is no "binary built for another CUDA than torch" (the binary
  is torch's own _C): no such reading, no ``pip uninstall -y torch`` and unpinned reinstall.
* F4: the driver fix that moves torch to another CUDA index moves the torchvision / torchaudio the text shows with it,
  pinned to the releases of that torch.
* F2: xformers built for another torch: the xformers release built for the installed torch, from its CUDA's index
  (xformers pins its torch exactly: an unpinned ``-U xformers`` replaces torch).
* F5: torch 2.7.1+cu128 carries sm_120: on an RTX 5090 "the installed torch has no kernels for this GPU" is no reading.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline"]


def _explain(text: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], input=text, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def _json(text: str) -> dict:
    p = _explain(text, "--json")
    assert p.returncode in (0, 1, 2, 3), p.stderr
    return json.loads(p.stdout)


def _commands(d: dict, code: str) -> list[str]:
    return [c for f in d["findings"] if f["code"] == code for c in (f.get("fix") or {}).get("commands") or []]


F8_REPRO = """$ python -c "import torch; print(torch.__version__, torch.version.cuda)"
2.5.1+cu124 12.4
RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version
"""
T01 = """$ python -c "import torch; print(torch.__version__, torch.version.cuda); print(torch.cuda.is_available())"
2.5.1+cu124 12.4
/home/alice/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)
  return torch._C._cuda_getDeviceCount() > 0
False
$ nvidia-smi
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.199.02   Driver Version: 470.199.02   CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
|   0  Tesla V100-SXM2...  Off  | 00000000:00:1E.0 Off |                    0 |
"""
T08 = """Traceback (most recent call last):
  File "/data/proj/run.py", line 3, in <module>
    import torch
  File "/data/proj/venv/lib/python3.10/site-packages/torch/__init__.py", line 237, in <module>
    from torch._C import *  # noqa: F403
ImportError: libcudart.so.12: cannot open shared object file: No such file or directory
"""
T23 = """$ python -c "import xformers.ops"
WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.4.1+cu121)
    Python  3.10.14 (you have 3.10.14)
  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)
  Memory-efficient attention, SwiGLU, sparse and more won't be available.
  Set XFORMERS_MORE_DETAILS=1 for more details
Traceback (most recent call last):
  File "/home/quin/sd/gen.py", line 40, in <module>
    out = xformers.ops.memory_efficient_attention(q, k, v)
NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:
     query       : shape=(1, 4096, 8, 40) (torch.float16)
     key         : shape=(1, 4096, 8, 40) (torch.float16)
     value       : shape=(1, 4096, 8, 40) (torch.float16)
     attn_bias   : <class 'NoneType'>
     p           : 0.0
`cutlassF` is not supported because:
    xFormers wasn't build with CUDA support
"""
T30 = """$ export CUDA_HOME=/usr/local/cuda-12.4:/usr/local/cuda-11.8
$ pip install --no-build-isolation torch-scatter
  ...
  OSError: [Errno 2] No such file or directory: '/usr/local/cuda-12.4:/usr/local/cuda-11.8/bin/nvcc'
"""
T45 = """$ pip list | grep torch
torch        2.5.1+cu124
torchvision  0.20.1+cu124
torchaudio   2.5.1+cu124
""" + T01  # t45.txt: t01 with the pip list that shows torch's companions
T46 = """GPU: NVIDIA GeForce RTX 5090, torch 2.7.1+cu128, nvcc: Cuda compilation tools, release 12.4, V12.4.131
gsplat 1.4.0 compiled from source (pip install --no-build-isolation gsplat)
Traceback (most recent call last):
  File "/home/gw/splat/train.py", line 210, in <module>
    renders, alphas, info = rasterization(means, quats, scales, opacities, colors, viewmats, Ks, W, H)
  File "/home/gw/venv/lib/python3.11/site-packages/gsplat/cuda/_wrapper.py", line 312, in forward
    ) = _make_lazy_cuda_func("fully_fused_projection_fwd")(
RuntimeError: CUDA error: no kernel image is available for execution on the device
"""


def test_f8_the_printed_version_and_cuda_line_is_torchs():
    p = _explain(F8_REPRO)
    assert "most likely: [driver_too_old]" in p.stdout and "for torch built with CUDA 12.4" in p.stdout
    assert "from the text: torch.cuda = 12.4 (line: 2.5.1+cu124 12.4)" in p.stdout


def test_f8_t01_pins_the_torch_release_it_printed():
    d = _json(T01)
    assert "pip install --force-reinstall torch==2.5.1 --index-url https://download.pytorch.org/whl/cu118" in " ".join(
        _commands(d, "driver_too_old"))
    assert "the newest torch build" not in json.dumps(d)


_CODE = '$ python -c "import torch; print(torch.__version__, torch.version.cuda)"\n'
_INSUFFICIENT = "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"


def test_f8_a_cpu_build_and_an_untagged_build_printed_with_their_cuda():
    cpu = _explain(_CODE + "2.1.0+cpu None\nAssertionError: Torch not compiled with CUDA enabled\n").stdout
    assert "most likely: [cpu_only_torch_with_gpu] torch is a CPU-only build (2.1.0+cpu)" in cpu
    conda = _explain(_CODE + "2.1.0 12.1\n" + _INSUFFICIENT).stdout  # a conda or source build: no +cu tag
    assert "from the text: torch.cuda = 12.1 (line: 2.1.0 12.1)" in conda and "torch built with CUDA 12.1" in conda
    # another package's release printed after torch's is not torch's CUDA
    other = _explain('$ python -c "import torch, numpy; print(torch.__version__, numpy.__version__)"\n2.1.0 1.26\n'
                     + _INSUFFICIENT).stdout
    assert "from the text: torch.version = 2.1.0 (line: 2.1.0 1.26)" in other
    assert "torch.cuda =" not in other and "CUDA 1.26" not in other


def test_f6_no_torch_cuda_release_the_text_never_showed():
    p = _explain(T30)
    assert "cuda_home_malformed" in p.stdout
    assert "12.1" not in p.stdout  # neither the text nor --offline's empty machine shows a 12.1
    assert "python -c 'import torch; print(torch.version.cuda)'" in p.stdout


def test_f1_import_torch_failing_is_no_other_binarys_cuda():
    p = _explain(T08)
    assert "cudart_not_found" in p.stdout
    assert "[prebuilt_binary_wrong_cuda]" not in p.stdout  # (its name stays in the first one's "told from" line)
    assert "pip uninstall -y torch" not in p.stdout and "--force-reinstall torch " not in p.stdout
    d = _json(T08)
    assert [f["code"] for f in d["findings"]] == ["cudart_not_found"]
    assert "pip uninstall -y torch" not in json.dumps(d)


def test_f4_the_companions_shown_move_with_torch():
    d = _json(T45)
    cmds = _commands(d, "driver_too_old")
    assert any(c.startswith("pip install --force-reinstall torch==2.5.1 torchvision==0.20.1 torchaudio==2.5.1 "
                            "--index-url https://download.pytorch.org/whl/cu118") for c in cmds), cmds


def test_f2_xformers_pinned_to_the_release_of_the_installed_torch():
    d = _json(T23)
    cmds = _commands(d, "companion_built_for_other_torch")
    assert any(c.startswith("pip install xformers==0.0.28.post1 --index-url https://download.pytorch.org/whl/cu121")
               for c in cmds), cmds
    assert not any("-U xformers" in c or "<cuXYZ" in c for c in cmds), cmds


def test_f5_a_torch_whose_wheels_carry_the_gpu_is_no_reading():
    d = _json(T46)
    assert d["findings"][0]["code"] == "no_kernel_image_for_gpu"
    assert "torch_wheel_lacks_gpu_arch" not in [f["code"] for f in d["findings"]]
    assert "pip install --force-reinstall torch --index-url" not in json.dumps(d)
    assert "torch 2.7.1+cu128's wheels carry kernels for compute capability 12.0" in json.dumps(d)


def test_f1_an_old_torchs_own_library_of_another_cuda_keeps_a_pinned_reinstall():
    # a CUDA 10 torch's own _C in an environment that shows CUDA 11.8: that reading, and never an unpinned torch
    text = T08.replace("libcudart.so.12", "libcudart.so.10.0") + "$ nvcc --version\nCuda compilation tools, " \
        "release 11.8, V11.8.89\n"
    d = _json(text)
    assert d["findings"][0]["code"] == "prebuilt_binary_wrong_cuda"
    cmds = _commands(d, "prebuilt_binary_wrong_cuda")
    assert any("torch==" in c and "--index-url https://download.pytorch.org/whl/cu118" in c for c in cmds), cmds
    assert "pip uninstall -y torch" not in json.dumps(d) and "--force-reinstall torch " not in json.dumps(d)
