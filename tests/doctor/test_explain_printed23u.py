# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain from the user's side, round 23u: printed fixes runnable as printed where the text gives the value (audit23,
promise 4): the package whose build lacks torch (not torch itself), the environment a kernel is registered from, the
kaolin release and torch build of kaolin's wheel page (a release without a wheel for that torch is never printed as
if it had one), and PyTorch's CUDA variant for a GPU arch the finding names. Texts in other wordings than the
audit's."""

from __future__ import annotations

import pytest

from smrnb.doctor import _printed, tables
from smrnb.doctor._explain import explain_result


def _printed_lines(text: str) -> list[str]:
    out: list[str] = []
    for f in explain_result(text, similar=False).findings:
        out += list(f.fix.commands) if f.fix else []
    return out


def _one_with(text: str, word: str) -> str:
    got = [c for c in _printed_lines(text) if word in c]
    assert len(got) == 1, _printed_lines(text)
    return got[0]


# ------------------------------------------------------------------ item 1: the package being built, not torch
@pytest.mark.parametrize("text, built", [
    ("(venv) ~/work $ pip3 install mamba-ssm==1.2.0.post1\nCollecting mamba-ssm==1.2.0.post1\n"
     "  Getting requirements to build wheel ... error\n  error: subprocess-exited-with-error\n"
     "      ModuleNotFoundError: No module named 'torch'\n", "mamba-ssm==1.2.0.post1"),  # pinned: its version too
    ("$ pip install causal-conv1d\n  Preparing metadata (pyproject.toml) ... error\n"
     "  ModuleNotFoundError: No module named 'torch'\n", "causal-conv1d"),
    ("> pip install git+https://github.com/facebookresearch/pytorch3d.git\n"
     "  Getting requirements to build wheel ... error\n  ModuleNotFoundError: No module named 'torch'\n",
     "git+https://github.com/facebookresearch/pytorch3d.git"),
])
def test_a_build_that_lacks_torch_builds_the_texts_package_without_isolation(text, built):
    cmd = _one_with(text, "--no-build-isolation")
    assert cmd == f"pip install --no-build-isolation {built}", cmd


def test_the_built_package_keeps_the_pin_of_the_texts_own_pip_command():
    text = "pip install xformers==0.0.23\n"
    assert _printed._isolated_target("pip install --no-build-isolation torch", "xformers", text) == "xformers==0.0.23"
    # another package's pin is not this one's; a range is not repeated unquoted
    assert _printed._isolated_target("pip install --no-build-isolation torch", "apex", text) == "apex"
    assert _printed._isolated_target("pip install --no-build-isolation torch", "", "pip install 'vllm>=0.4'\n") == ""
    assert _printed._isolated_target("pip install --no-build-isolation torch", "", "pip install torch==2.1.0\n") == ""


# ------------------------------------------------------------------ item 2: the environment the text names
@pytest.mark.parametrize("text, env", [
    ("$ jupyter kernelspec list\nAvailable kernels:\n  python3     /usr/local/share/jupyter/kernels/python3\n"
     "  nerfstudio  /home/me/.local/share/jupyter/kernels/nerfstudio\nModuleNotFoundError: No module named 'torch'\n",
     "nerfstudio"),  # the kernelspec's own folder (python3, the default, is no environment)
    ("(base) $ conda activate lavis\n(lavis) $ python -c \"import torch\"   # works\nIn the notebook:\n"
     "import sys; print(sys.executable)\n/opt/conda/bin/python\nModuleNotFoundError: No module named 'torch'\n",
     "lavis"),  # conda's activate and prompt; base and /opt/conda are no environment of the user's
])
def test_the_kernel_is_registered_under_the_environment_the_text_names(text, env):
    cmd = _one_with(text, "ipykernel install")
    assert cmd.startswith(f"python -m ipykernel install --user --name {env}   #"), cmd


@pytest.mark.parametrize("text, env", [
    ("me@node:~$ source /scratch/me/envs/dino/bin/activate\n", "dino"),
    ("PS C:\\> C:\\Users\\me\\anaconda3\\envs\\dl39\\python.exe -c \"import torch\"\n", "dl39"),
    ("$ python -m venv torchenv\n", "torchenv"),
    ("$ /home/a/venvs/nerf/bin/python train.py\n", "nerf"),
    ("(yolo) user@host:~$ ls\n", "yolo"),
    ("(base) user@host:~$ ls\n", "base"),  # base where it is the only one
    ("/usr/bin/python3\n/opt/conda/bin/python\n/usr/local/bin/python3.10\n", ""),  # system and base folders
    ("(a) $ x\n(b) $ y\n", ""),  # two environments: which one has the packages the text does not say
    ("print(foo(x)) # yes\nThe kernel (Python 3) died\n", ""),  # parentheses that are no prompt
])
def test_the_environment_a_text_names(text, env):
    assert _printed._env_named(text) == env
    filled = _printed._kernel_named("python -m ipykernel install --user --name <env>", text)
    assert filled == f"python -m ipykernel install --user --name {env or '<env>'}"


# ------------------------------------------------------------------ item 3: kaolin's release and wheel page
_KAOLIN_SO = "ImportError: /opt/venv/lib/python3.9/site-packages/kaolin/_C.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev\n"


def test_kaolin_the_text_has_is_printed_where_the_table_has_its_wheel_for_that_torch():
    text = "$ python -c 'import torch; print(torch.__version__)'\n2.0.1+cu118\n" + _KAOLIN_SO + "kaolin==0.14.0\n"
    assert tables.kaolin_release("0.14.0").has_wheel("2.0.1", "118")
    cmd = _one_with(text, "kaolin")
    assert cmd == "pip install kaolin==0.14.0 -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.0.1_cu118.html"


def test_a_kaolin_release_without_a_wheel_for_that_torch_is_replaced_by_one_with_it():
    text = "Version: 2.1.1+cu121\n" + _KAOLIN_SO + "kaolin-0.13.0 installed\n"
    assert not tables.kaolin_release("0.13.0").has_wheel("2.1.1", "121")
    cmd = _one_with(text, "kaolin")
    assert cmd.startswith("pip install kaolin==0.15.0 -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/"
                          "torch-2.1.1_cu121.html   # kaolin 0.13.0 has no wheel for torch 2.1.1+cu121"), cmd
    assert "<" not in cmd


def test_no_release_is_printed_as_if_it_had_a_wheel_where_the_table_lists_none_for_that_torch():
    text = "torch 2.2.0+cu121\n" + _KAOLIN_SO + "kaolin 0.15.0\n"
    assert not any(r.has_wheel("2.2.0", "121") for r in tables.kaolin_releases())
    cmd = _one_with(text, "kaolin")
    assert cmd.startswith("pip install kaolin==\"<version>\" -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/"
                          "torch-2.2.0_cu121.html   # no kaolin release in smrnb's table has a wheel for torch "
                          "2.2.0+cu121 (0.15.0 has none)"), cmd
    assert "kaolin==0.15.0" not in cmd


def test_kaolin_release_alone_fills_the_version_only():
    c = "pip install kaolin==<version> -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-<torch>_cu<xy>.html"
    assert _printed._kaolin_filled(c, "kaolin 0.17.0\n").startswith("pip install kaolin==0.17.0 -f ")
    assert _printed._kaolin_filled(c, "torch 2.0.1+cu118 and 2.1.0+cu121\n") == c  # two torch builds: unfilled


# ------------------------------------------------------------------ item 4: the CUDA variant for the GPU's arch
@pytest.mark.parametrize("gpu, arch", [("NVIDIA GeForce RTX 4090", "sm_89"), ("NVIDIA RTX PRO 6000 Blackwell", "sm_120")])
def test_pytorchs_index_for_the_gpus_arch_is_a_variant_that_compiles_for_it(gpu, arch):
    text = (f"UserWarning: {gpu} with CUDA capability {arch} is not compatible with the current PyTorch installation.\n"
            "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80.\n"
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    cmd = _one_with(text, "--index-url")
    assert "<" not in cmd, cmd
    variant = cmd.split("/whl/", 1)[1].split()[0]
    n = int(arch[3:])
    assert n in tables.nvcc_archs(f"{variant[2:-1]}.{variant[-1]}"), cmd
    assert variant in tables.torch_cuda_indexes()


def test_an_arch_no_variant_of_the_newest_torch_compiles_for_keeps_a_comment_saying_what_to_pick():
    c = "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/<a CUDA variant built for the GPU>"
    got = _printed._variant_filled(c, "The installed torch has no kernels for this GPU (sm_35)")
    assert got.startswith(c + "   # pick a variant of CUDA ") and "sm_35" in got
    # (round 29a) where tables/torch_wheel_archs_dropped.csv names the last release whose wheels carry it: that pin
    got = _printed._variant_filled(c, "The installed torch has no kernels for this GPU (sm_37)")
    assert got.startswith("pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/cu118"), got
    assert _printed._variant_filled(c, "The installed torch has no kernels for this GPU") == c
