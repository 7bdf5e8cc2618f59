# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 36 (B F3, F9, F10; C M12): the reinstall / rebuild commands printed for a compiled extension. A package
the text shows installed from a registry is reinstalled by its distribution's name, never by ``rm -rf build/`` of
whatever folder the user stands in; a source tree is named (``cd <tree> && ...``); an import name is never used as a
pip distribution's name; no ``pip uninstall`` before an install that can fail."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smrnb.doctor._explain import explain_result

ROOT = Path(__file__).resolve().parents[2]
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

# the auditors' texts (/work/audit36/B/tNN.txt)
T32 = """$ pip install --upgrade torch   # went from 2.3.1 to 2.4.0
$ python -c "import flash_attn"
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/home/uma/venv/lib/python3.10/site-packages/flash_attn/__init__.py", line 3, in <module>
    from flash_attn.flash_attn_interface import (
  File "/home/uma/venv/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py", line 10, in <module>
    import flash_attn_2_cuda as flash_attn_cuda
ImportError: /home/uma/venv/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined \
symbol: _ZN3c104cuda9SetDeviceEi
"""
T46 = """GPU: NVIDIA GeForce RTX 5090, torch 2.7.1+cu128, nvcc: Cuda compilation tools, release 12.4, V12.4.131
gsplat 1.4.0 compiled from source (pip install --no-build-isolation gsplat)
Traceback (most recent call last):
  File "/home/gw/splat/train.py", line 210, in <module>
    renders, alphas, info = rasterization(means, quats, scales, opacities, colors, viewmats, Ks, W, H)
  File "/home/gw/venv/lib/python3.11/site-packages/gsplat/cuda/_wrapper.py", line 312, in forward
    ) = _make_lazy_cuda_func("fully_fused_projection_fwd")(
RuntimeError: CUDA error: no kernel image is available for execution on the device
"""
T35 = """In [3]: import os; os.environ["LD_LIBRARY_PATH"] = "/usr/local/cuda-11.8/lib64:" + os.environ.get("LD_LIBRARY_PATH", "")
In [4]: import tensorrt_llm_ext
---------------------------------------------------------------------------
ImportError                               Traceback (most recent call last)
Cell In[4], line 1
----> 1 import tensorrt_llm_ext
ImportError: libcublasLt.so.11: cannot open shared object file: No such file or directory
$ ls /usr/local/cuda-11.8/lib64/libcublasLt.so.11
/usr/local/cuda-11.8/lib64/libcublasLt.so.11
"""
T39 = """#!/bin/bash
#SBATCH --partition=gpu
#SBATCH --export=NONE
#SBATCH --gres=gpu:a100:1
module load cuda/12.1
python -c "import torch_cluster"
---- slurm-48213.out ----
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/home/zed/.conda/envs/g/lib/python3.11/site-packages/torch_cluster/__init__.py", line 18, in <module>
    torch.ops.load_library(spec.origin)
OSError: libcusparse.so.12: cannot open shared object file: No such file or directory
"""
T44 = """$ python -c "import torch; print(torch.__version__)"
2.1.2+cu121
$ python demo/demo.py --config-file configs/COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_3x.yaml
Traceback (most recent call last):
  File "/home/dk/detectron2/demo/demo.py", line 12, in <module>
    from detectron2.config import get_cfg
  File "/home/dk/detectron2/detectron2/layers/deform_conv.py", line 11, in <module>
    from detectron2 import _C
ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory
"""
#: t32 as a source tree's build: the module lies in the tree's own build/ folder
T32_TREE = T32.replace("/home/uma/venv/lib/python3.10/site-packages/flash_attn_2_cuda",
                       "/home/uma/src/myattn/build/lib.linux-x86_64-cpython-310/myattn_cuda").replace(
    "flash_attn", "myattn").replace("$ pip install --upgrade torch", "$ pip install --upgrade torch && cd myattn")


def _commands(text: str, code: str | None = None) -> list[str]:
    return [c for f in explain_result(text, similar=False).findings if f.fix and (code is None or f.code == code)
            for c in f.fix.commands]


def _runs(c: str) -> str:
    """What the shell runs of a printed command (its comment aside)."""
    return c.split("   #", 1)[0].strip()


def _bare_rm_build(cmds: list[str]) -> list[str]:
    return [c for c in cmds if _runs(c).startswith("rm -rf build")]


# --- F9 / C-M12: a registry install is reinstalled by its name ------------------------------------------------------

def test_t32_flash_attn_in_site_packages_is_reinstalled_by_its_name_not_rebuilt_in_the_current_folder():
    cmds = _commands(T32, "abi_torch_version_mismatch")
    assert cmds and not _bare_rm_build(cmds), cmds
    assert not any(re.search(r"\s\.$", _runs(c)) for c in cmds), cmds  # no `pip install .` of the current folder
    assert any(re.search(r"pip install --no-build-isolation\b.*--force-reinstall\b.*\sflash[-_]attn$", _runs(c))
               for c in cmds), cmds


def test_t46_gsplat_installed_by_name_is_rebuilt_by_its_name_for_the_gpu():
    cmds = _commands(T46, "no_kernel_image_for_gpu")
    assert cmds and not _bare_rm_build(cmds), cmds
    assert any(re.search(r'TORCH_CUDA_ARCH_LIST="[^"]+" pip install --no-build-isolation\b.*--force-reinstall\b.*\sgsplat$',
                         _runs(c)) for c in cmds), cmds


def test_a_source_tree_the_text_shows_is_named_in_the_rebuild():
    cmds = _commands(T32_TREE, "abi_torch_version_mismatch")
    assert cmds and not _bare_rm_build(cmds), cmds
    assert any(_runs(c).startswith("cd $HOME/src/myattn && rm -rf build/ && pip install --no-build-isolation")
               for c in cmds), cmds


@needs_gcc
@pytest.mark.parametrize("where", ["loose", "build", "site"])
def test_the_live_check_of_a_module_of_unknown_sources_never_deletes_the_current_folders_build(tmp_path, where):
    folder = {"loose": tmp_path / "loose", "build": tmp_path / "myext" / "build" / "lib.linux-x86_64-cpython-311",
              "site": tmp_path / "venv" / "lib" / "python3.11" / "site-packages"}[where]
    folder.mkdir(parents=True)
    src = tmp_path / "u.c"
    src.write_text("extern void _ZN3c104cuda9SetDeviceEi(int);\nint PyInit_undefx(void){_ZN3c104cuda9SetDeviceEi(0);return 0;}\n")
    so = folder / "undefx.cpython-311-x86_64-linux-gnu.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(so), str(src)], check=True, capture_output=True)
    p = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "--extension", str(so), "--layer", "abi", "--json"],
                       capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    found = [f for f in json.loads(p.stdout)["findings"] if f["code"] == "abi_torch_version_mismatch"]
    if not found:
        pytest.skip("no torch here to check the module's torch symbols against")
    cmds = [re.sub(r"^\S*python\S* -m pip", "pip", c) for c in found[0]["fix"]["commands"]]
    assert not _bare_rm_build(cmds), cmds
    assert not any("<package-owning-" in c for c in cmds), cmds
    if where == "build":  # the tree above build/ is the module's source tree
        assert any(_runs(c).startswith(f"cd {tmp_path / 'myext'} && rm -rf build/ && ") for c in cmds), cmds
    elif where == "loose":  # its sources are unknown: the user names them
        assert any(_runs(c).startswith('cd "<the source tree undefx.') for c in cmds), cmds
    else:  # installed, but no metadata names its distribution: how to find it, not the import name as one
        assert any("packages_distributions().get('undefx')" in c for c in cmds), cmds
        assert not any(re.search(r"pip install\b[^#]*\sundefx\b", _runs(c)) for c in cmds), cmds


# --- F10: an import name is no distribution name --------------------------------------------------------------------

def test_t35_an_import_name_is_not_uninstalled_or_installed_as_a_distribution():
    cmds = _commands(T35)
    assert not any(re.search(r"\bpip3? (?:install|uninstall)\b[^#]*\btensorrt_llm_ext\b", _runs(c)) for c in cmds), cmds
    assert any("packages_distributions().get('tensorrt_llm_ext')" in c for c in cmds), cmds


# --- F3: no uninstall before an install that can fail; PyG's wheel pages; git builds without isolation -------------

def test_t39_torch_cluster_comes_from_pygs_wheel_page_and_is_never_uninstalled_first():
    cmds = _commands(T39, "prebuilt_binary_wrong_cuda")
    assert not any(_runs(c).startswith("pip uninstall") for c in cmds), cmds
    assert any(re.search(r"pip install --force-reinstall\b[^#]*\btorch-cluster -f https://data\.pyg\.org/whl/torch-",
                         _runs(c)) for c in cmds), cmds


def test_t44_detectron2_from_git_builds_without_isolation_and_is_never_uninstalled_first():
    cmds = _commands(T44, "prebuilt_binary_wrong_cuda")
    assert not any(_runs(c).startswith("pip uninstall") for c in cmds), cmds
    git = [c for c in cmds if "git+https://github.com/facebookresearch/detectron2" in c and not c.startswith("#")]
    assert git and all("--no-build-isolation" in _runs(c) for c in git), cmds
