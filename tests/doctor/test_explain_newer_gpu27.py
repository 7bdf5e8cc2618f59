# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A GPU newer than every arch of the nvcc in use (an RTX 5090, sm_120, under nvcc 12.4): besides the older arch's PTX
the driver compiles at first use, the build for the GPU's own code with the first toolkit whose nvcc has it
(tables/nvcc_archs.csv), which the blind audit of round 26 found missing."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor._install import first_nvcc_for, newer_toolkit_command

BUILD_5090 = ("  /usr/local/cuda-12.4/bin/nvcc -I/env/lib/python3.10/site-packages/torch/include -c "
              "cuda_rasterizer/forward.cu -gencode=arch=compute_120,code=sm_120\n"
              "  nvcc fatal   : Unsupported gpu architecture 'compute_120'\n"
              "  ninja: build stopped: subcommand failed.\n"
              "  torch 2.5.1+cu124, GPU: NVIDIA GeForce RTX 5090\n")


def _commands(text: str, code: str) -> list[str]:
    return [c for f in explain_result(text, similar=False).findings if f.code == code
            for c in (f.fix.commands if f.fix else ())]


@pytest.mark.parametrize(("cc", "cuda"), [(120, "12.8"), (100, "12.8"), (90, "11.8"), (89, "11.8"), (86, "11.1"),
                                          (121, "12.9"), (110, "13.0"), (999, None)])
def test_the_first_nvcc_for_an_arch_is_the_tables(cc, cuda):
    assert first_nvcc_for(cc) == cuda


@pytest.mark.parametrize("text", [
    BUILD_5090,
    BUILD_5090.replace("GeForce RTX 5090", "GeForce RTX 5080"),
    BUILD_5090.replace("  torch 2.5.1+cu124, GPU: NVIDIA GeForce RTX 5090\n", ""),  # the arch the build asked for
])
def test_an_arch_newer_than_the_nvcc_gets_the_first_toolkit_that_builds_it(text):
    cmds = _commands(text, "unsupported_gpu_arch")
    assert any('TORCH_CUDA_ARCH_LIST="9.0+PTX"' in c for c in cmds), cmds  # what runs with nvcc 12.4
    better = [c for c in cmds if "cuda-12.8" in c]
    assert better and 'TORCH_CUDA_ARCH_LIST="12.0"' in better[0] and "sm_120" in better[0], cmds


def test_the_no_kernel_image_rebuild_says_the_same():
    cmds = _commands(BUILD_5090, "no_kernel_image_for_gpu")
    assert any("cuda-12.8" in c and 'TORCH_CUDA_ARCH_LIST="12.0"' in c for c in cmds), cmds


def test_on_windows_cmd_the_toolkit_is_set_in_cmds_words():
    text = ("C:\\src\\diff-gaussian-rasterization>pip install .\n"
            + BUILD_5090.replace("/usr/local/cuda-12.4/bin/nvcc", '"C:\\Program Files\\NVIDIA GPU Computing Toolkit'
                                 '\\CUDA\\v12.4\\bin\\nvcc.exe"'))
    cmds = _commands(text, "unsupported_gpu_arch")
    assert not any(c.startswith("export ") for c in cmds), cmds
    assert any("v12.8" in c and "TORCH_CUDA_ARCH_LIST=12.0" in c.replace('"', "") for c in cmds), cmds


@pytest.mark.parametrize(("archs", "nvcc"), [(["8.9"], "12.4"), (["9.0"], "12.4"), (["12.0"], "12.8"),
                                             (["3.7"], "12.4"), ([], "12.4"), (["12.0"], None)])
def test_near_miss_no_newer_toolkit_where_the_nvcc_has_the_arch_or_the_gpu_is_older(archs, nvcc):
    # an arch the nvcc builds, an arch the nvcc dropped (sm_37 under CUDA 12: an older toolkit, not a newer one), no
    # GPU, no nvcc named
    assert newer_toolkit_command(archs, nvcc) is None


def test_near_miss_an_rtx_4090_under_nvcc_12_4_keeps_its_own_arch():
    text = BUILD_5090.replace("compute_120,code=sm_120", "compute_89,code=sm_89").replace(
        "'compute_120'", "'compute_89'").replace("RTX 5090", "RTX 4090")
    assert not any("cuda-12.8" in c for f in explain_result(text, similar=False).findings
                   for c in (f.fix.commands if f.fix else ()))
