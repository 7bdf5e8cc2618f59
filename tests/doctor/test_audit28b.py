# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 28b: blind audit 28's printed commands: a torch companion pinned for the installed torch's line on its own
CUDA's index (never torchvision's release in torch's pin), a PyG wheel page of the torch installed now (not of an old
wheel's URL), every force-reinstall of a package other than torch with --no-deps (pip replaces torch from the index
otherwise), mmcv as the text shows it (mmcv-full by its name, the text's release from OpenMMLab's index), no torch
command where the text shows no torch or shows a CUDA torch against a CPU-only reading, no CUDA 11 runtime beside a
CUDA 12 torch, builds that keep the text's archs, no ``rm -rf build/`` joined to a git URL, no ABI flag forced by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from smrnb.doctor._explain import explain_result


def _found(text: str) -> list:
    return list(explain_result(text, similar=False).findings)


def _all_commands(text: str) -> list[str]:
    return [c for f in _found(text) for c in (f.fix.commands if f.fix else ())]


def _pip_targets(c: str) -> list[str]:
    body = re.split(r"\s#", c, maxsplit=1)[0]
    m = re.search(r"\bpip3? install\b(.*)$", body)
    if not m:
        return []
    args = re.sub(r"\s(?:-f|--find-links|--index-url|--extra-index-url|-i|-c|-r)[ =]\S+", " ", m.group(1)).split()
    return [re.split(r"[=<>!~\[]", a.strip("'\""), maxsplit=1)[0].lower() for a in args if not a.startswith("-")]


def _force_without_no_deps(cmds: list[str]) -> list[str]:
    return [c for c in cmds if "--force-reinstall" in c.split("#", 1)[0] and "--no-deps" not in c
            and not c.lstrip().startswith("#") and "torch" not in _pip_targets(c)]


# ---- H1: torchvision / torchaudio of the installed torch's line, on its CUDA's index, torch untouched ----

NMS = ("$ python -c \"import torchvision\"\nTraceback (most recent call last):\n"
       "  File \"/home/i/.venv/lib/python3.11/site-packages/torchvision/__init__.py\", line 6, in <module>\n"
       "    from torchvision import _meta_registrations, datasets, io, models, ops, transforms, utils\n"
       "RuntimeError: operator torchvision::nms does not exist\n")

COMPANIONS = [
    (NMS + "$ pip list | grep torch\ntorch                    2.5.1+cu124\ntorchvision              0.17.2+cu121\n",
     "torchvision==0.20.1", "whl/cu124"),
    ("$ pip list | grep torch\ntorch                    2.3.1+cu118\ntorchvision              0.15.2+cu118\n" + NMS,
     "torchvision==0.18.1", "whl/cu118"),
    (NMS + "pip list:\ntorch        2.4.1+cu121\ntorchvision  0.16.0+cu121\n", "torchvision==0.19.1", "whl/cu121"),
]


@pytest.mark.parametrize(("text", "pin", "index"), COMPANIONS)
def test_the_companion_of_the_installed_torch_on_its_index(text, pin, index):
    cmds = _all_commands(text)
    joined = "\n".join(cmds)
    assert pin in joined and index in joined, cmds
    assert not re.search(r"torch==0\.", joined), cmds
    assert not any("torch" in _pip_targets(c) for c in cmds), cmds  # torch stays


def test_a_companion_column_is_not_read_as_torch():
    from smrnb.doctor._textfacts import read_text

    facts = read_text("torch                    2.5.1+cu124\ntorchvision              0.17.2+cu121\n")
    assert facts["torch"]["version_base"] == "2.5.1"


# ---- H2: the PyG wheel page of the torch installed now ----

PYG = [
    ("After `pip install -U torch` (2.0.1 -> 2.1.0+cu121) my PyG stuff breaks:\n\n>>> import torch_scatter\n"
     "OSError: /home/b/venv/lib/python3.10/site-packages/torch_scatter/_scatter_cuda.so: undefined symbol: "
     "_ZNK3c1010TensorImpl36is_contiguous_nondefault_policy_implENS_12MemoryFormatE\n"
     "torch-scatter 2.1.1+pt20cu118 from https://data.pyg.org/whl/torch-2.0.0+cu118.html\n",
     "torch-2.1.0+cu121.html", "torch-2.0.0+cu118.html"),
    (">>> import torch_cluster\nOSError: /home/b/venv/lib/python3.11/site-packages/torch_cluster/_version_cuda.so: "
     "undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSs\n"
     "torch 2.4.0+cu124 installed now; torch-cluster 1.6.1+pt21cu121 from https://data.pyg.org/whl/torch-2.1.0+cu121.html\n",
     "torch-2.4.0+cu124.html", "torch-2.1.0+cu121.html"),
]


@pytest.mark.parametrize(("text", "page", "old"), PYG)
def test_the_pyg_page_of_the_torch_installed_now(text, page, old):
    cmds = [c for c in _all_commands(text) if "data.pyg.org" in c]
    assert cmds and all(page in c and old not in c and "--no-deps" in c for c in cmds), cmds


def test_a_wheel_page_alone_is_not_the_installed_torch():
    from smrnb.doctor._textfacts import read_text

    facts = read_text("pip install torch-scatter -f https://data.pyg.org/whl/torch-2.0.0+cu118.html\n")
    assert "2.0.0" not in str((facts.get("torch") or {}).get("version") or "")


# ---- H5 and the pattern: no force-reinstall of a package but torch without --no-deps ----

GSPLAT = ("$ python -c \"import gsplat\"\nImportError: /lib64/libc.so.6: version `GLIBC_2.28' not found (required by "
          "/home/u/venv/lib/python3.10/site-packages/gsplat/csrc.so)\n$ ldd --version\nldd (GNU libc) 2.17\n")
FORCE_TEXTS = [GSPLAT, PYG[0][0], PYG[1][0],
               "ModuleNotFoundError: No module named 'mmcv._ext'\ninstalled with `pip install mmcv==2.1.0`, "
               "torch 2.1.0+cu118\n"]


@pytest.mark.parametrize("text", FORCE_TEXTS)
def test_a_force_reinstall_keeps_the_dependencies(text):
    cmds = _all_commands(text)
    assert not _force_without_no_deps(cmds), cmds


_AUDIT = Path("/work/audit28/texts")
_CORPUS = Path(__file__).parent / "corpus"


def _sample() -> list[str]:
    texts = [p.read_text() for p in sorted(_AUDIT.glob("*.txt"))] if _AUDIT.is_dir() else []
    for part in ("dev20.jsonl", "dev19.jsonl", "heldout15.jsonl"):
        rows = [json.loads(x) for x in (_CORPUS / part).read_text().splitlines() if x.strip()]
        texts += [r["text"] for r in rows[::3]]
    return texts


def test_no_printed_force_reinstall_lacks_no_deps_on_a_sample():
    bad = []
    for text in _sample():
        bad += _force_without_no_deps(_all_commands(text))
    assert not bad, bad[:10]


# ---- H3, H8: mmcv as the text shows it ----

MMCV_FULL = (">>> import torch; print(torch.__version__)\n2.4.0+cu124\n>>> from mmcv.ops import nms\n"
             "Traceback (most recent call last):\n"
             "  File \"/home/q/venv/lib/python3.10/site-packages/mmcv/utils/ext_loader.py\", line 13, in load_ext\n"
             "    ext = importlib.import_module('mmcv.' + name)\n"
             "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
             "(mmcv-full 1.7.2 installed from https://download.openmmlab.com/mmcv/dist/cu113/torch1.12/index.html)\n")
MMCV_2 = ("  File \"/home/z/miniconda3/envs/mm/lib/python3.8/site-packages/mmcv/utils/ext_loader.py\", line 13, in "
          "load_ext\n    ext = importlib.import_module('mmcv.' + name)\nModuleNotFoundError: No module named "
          "'mmcv._ext'\ninstalled with `pip install mmcv==2.1.0`, torch 2.1.0+cu118\n")


def test_mmcv_full_by_its_name_and_release_no_second_runtime():
    cmds = _all_commands(MMCV_FULL)
    joined = "\n".join(cmds)
    # (blind audit 36, F3) no uninstall before the install: one --force-reinstall replaces mmcv-full in place
    assert "--force-reinstall --no-deps \"mmcv-full==1.7.2\"" in joined, cmds
    assert not re.search(r"pip uninstall -y mmcv", joined), cmds
    assert '"mmcv-full==1.7.2"' in joined and "dist/cu124/torch2.4/index.html" in joined, cmds
    assert "nvidia-cuda-runtime-cu11" not in joined, cmds  # never a CUDA 11 runtime beside a cu124 torch


def test_mmcv_release_of_the_text_from_openmmlab():
    cmds = _all_commands(MMCV_2)
    joined = "\n".join(cmds)
    assert '"mmcv==2.1.0"' in joined and "download.openmmlab.com/mmcv/dist/cu118/torch2.1/index.html" in joined, cmds
    assert not [c for c in cmds if re.search(r"\bpip install\b[^#]*\smmcv(?:\s|$)", c)], cmds  # never unpinned


def test_a_cuda11_runtime_stays_where_torch_is_cuda11():  # near-miss: the same message beside a cu118 torch
    text = MMCV_FULL.replace("2.4.0+cu124", "1.12.1+cu113")
    assert "nvidia-cuda-runtime-cu11" in "\n".join(_all_commands(text))


# ---- item 5: no torch command the text does not implicate ----

SAXPY = ("$ nvcc -O2 -arch=sm_80 -o saxpy saxpy.cu\n$ ./saxpy\nCUDA error at saxpy.cu:41: no kernel image is "
         "available for execution on the device (cudaErrorNoKernelImage)\n$ nvidia-smi --query-gpu=name,compute_cap "
         "--format=csv\nname, compute_cap\nNVIDIA GeForce GTX 1080, 6.1\n")
DEVICEQUERY = ("$ docker run --rm --gpus all nvidia/cuda:12.2.2-devel-ubuntu22.04 bash -c \"/usr/local/cuda/extras/"
               "demo_suite/deviceQuery\"\ncudaGetDeviceCount returned 35\n-> CUDA driver version is insufficient for "
               "CUDA runtime version\nResult = FAIL\nhost: NVIDIA-SMI 470.239.06   Driver Version: 470.239.06   "
               "CUDA Version: 11.4\n")


def test_no_cpu_torch_reinstall_where_the_text_shows_a_cuda_torch():
    text = ("  Building wheel for pytorch3d (setup.py) ... error\n"
            "        File \"/home/sam/miniconda3/envs/p3d/lib/python3.10/site-packages/torch/utils/cpp_extension.py\", "
            "line 2416, in _join_cuda_home\n          raise OSError('CUDA_HOME environment variable is not set. '\n"
            "      OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n"
            "      No CUDA runtime is found, using CUDA_HOME='None'\ntorch 2.1.0+cu121, A10G (AWS g5), Ubuntu 22.04\n")
    cmds = _all_commands(text)
    assert not [c for c in cmds if "torch" in _pip_targets(c)], cmds


# ---- item 6: builds ----

KAOLIN = ("kaolin built from source on our old A6000 box, copied the env to the H100 node. torch works fine there:\n"
          "torch 2.4.0+cu121 cuda True NVIDIA H100 80GB HBM3 (9, 0)\n"
          "  File \"/scratch/jl/envs/k/lib/python3.10/site-packages/kaolin/ops/mesh/mesh.py\", line 12, in f\n"
          "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
          "The build was done with TORCH_CUDA_ARCH_LIST=\"8.6\" python setup.py develop\n")


def test_a_rebuild_keeps_the_texts_archs_and_no_rm_joined_to_a_url():
    cmds = _all_commands(KAOLIN)
    arch = [c for c in cmds if "TORCH_CUDA_ARCH_LIST=" in c]
    assert arch and all("8.6" in c and "9.0" in c for c in arch), cmds
    assert not [c for c in cmds if c.startswith("rm -rf build/") and "git+" in c], cmds


def test_no_abi_flag_forced_by_hand():
    text = ("OSError: /home/u/venv/lib/python3.10/site-packages/torch_cluster/_version_cuda.so: undefined symbol: "
            "_ZN5torch3jit17parseSchemaOrNameERKSs\ntorch 2.4.0+cu124 installed now\n")
    cmds = _all_commands(text)
    assert not [c for c in cmds if "-D_GLIBCXX_USE_CXX11_ABI=" in c and not c.lstrip().startswith("#")], cmds
    assert not [c for c in cmds if "<torch's flag>" in c], cmds


# ---- H4, F10, F11 ----

def test_an_arch_newer_than_torch_gets_no_older_arch_list():
    text = ("(venv) $ TORCH_CUDA_ARCH_LIST=\"12.0\" pip install --no-build-isolation git+https://github.com/NVlabs/"
            "nvdiffrast.git\n        File \"/home/o/venv/lib/python3.11/site-packages/torch/utils/cpp_extension.py\", "
            "line 1974, in _get_cuda_arch_flags\n          raise ValueError(f\"Unknown CUDA arch ({arch}) or GPU not "
            "supported\")\n      ValueError: Unknown CUDA arch (12.0) or GPU not supported\ntorch==2.5.1+cu124, RTX 5080\n")
    cmds = _all_commands(text)
    assert not [c for c in cmds if 'TORCH_CUDA_ARCH_LIST="8.6"' in c], cmds


@pytest.mark.parametrize(("need", "gcc"), [("3.4.32", "13.2"), ("3.4.30", "12.1"), ("3.4.29", "11.1")])
def test_glibcxx_names_the_gcc_that_first_has_it(need, gcc):
    text = (f"ImportError: /home/x/miniconda3/envs/rec/bin/../lib/libstdc++.so.6: version `GLIBCXX_{need}' not found "
            "(required by /home/x/miniconda3/envs/rec/lib/python3.11/site-packages/kaolin/_C.so)\n")
    joined = "\n".join(_all_commands(text))
    assert f"'libstdcxx-ng>={gcc}'" in joined, joined


def test_the_py_launcher_installs_into_its_own_python():
    text = ("C:\\Users\\lee\\proj>py -3.12 demo.py\nTraceback (most recent call last):\n  File "
            "\"C:\\Users\\lee\\proj\\demo.py\", line 1, in <module>\n    import torch\n"
            "ModuleNotFoundError: No module named 'torch'\n")
    cmds = _all_commands(text)
    assert any(c.startswith("py -3.12 -m pip install torch") for c in cmds), cmds


# (after round 28v's note) xformers' own "built for another torch" warning is xformers', not torchvision's: the
# companion builder named torchvision for every companion but torchaudio
@pytest.mark.parametrize("text", [
    "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
    "    PyTorch 2.10.0+cu128 with CUDA 1208 (you have 2.11.0+cu130)\n"
    "    Python  3.10.19 (you have 3.13.9)\n"
    "  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)\n",
    "Aug 12 10:38:34 host app[1]: [xformers|WARNING]WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. "
    "xFormers was built for:\nAug 12 10:38:34 host app[1]:     PyTorch 2.1.0+cu121 with CUDA 1201 (you have "
    "2.3.1+cu121)\nAug 12 10:38:34 host app[1]:     Python  3.10.13 (you have 3.10.14)\n",
])
def test_xformers_built_for_another_torch_is_xformers_not_torchvision(text):
    f = explain_result(text, similar=False).findings[0]
    assert f.code == "companion_built_for_other_torch"
    assert "xformers" in f.title and "torchvision" not in f.title
    cmds = " ".join(f.fix.commands)
    assert "torchvision" not in cmds and "xformers" in cmds
    assert "--force-reinstall torch" not in cmds


def test_torchvision_companion_stays_torchvision():
    text = ("RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are "
            "incompatible, or if you had errors while compiling torchvision from source. For further information on "
            "the compatible versions, check https://github.com/pytorch/vision#installation for the compatibility "
            "matrix.\ntorch 2.5.1+cu124, torchvision 0.19.0\n")
    f = explain_result(text, similar=False).findings[0]
    assert "xformers" not in f.title
    assert any("torchvision" in c for c in f.fix.commands)
