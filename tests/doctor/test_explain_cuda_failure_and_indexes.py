# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, from the user's side: NCCL's ``Cuda failure '<cudaGetErrorString>'`` read through the runtime's error
table (not as NCCL's guess for an unnamed CUDA failure), and the torch wheel index a too-old driver is sent to:
always one PyTorch publishes, of a CUDA that driver runs."""

from __future__ import annotations

import re

import pytest

from smrnb.doctor import tables
from smrnb.doctor._explain import explain_text

NCCL_GUESS = {"prebuilt_binary_wrong_cuda", "driver_too_old"}


def _nccl(last_error: str) -> str:
    return ("[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
            "ProcessGroupNCCL.cpp:2027, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version "
            f"2.21.5\n[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.\n[rank0]: Last error:\n"
            f"[rank0]: {last_error}\n")


def _runtime_rows():
    return [r for r in tables.enum_rows("cuda_errors")
            if r.numbering == "current" and r.message and r.codes != ("none",)]


@pytest.mark.parametrize("row", _runtime_rows(), ids=lambda r: r.name)
def test_the_cuda_error_nccl_quotes_is_read_like_the_runtimes_own(row):
    codes = [f.code for f in explain_text(_nccl(f"Cuda failure '{row.message}'"), similar=False)]
    assert codes and codes[0] in row.codes, (row.message, codes)
    assert not (NCCL_GUESS - set(row.codes)) & set(codes), (row.message, codes)


@pytest.mark.parametrize("line, code", [
    ("Cuda failure 2 'out of memory'", "cuda_oom"),  # CUCHECK: the CUresult and cuGetErrorString
    ("misc/cudawrap.cc:188 NCCL WARN Cuda failure 101 'invalid device ordinal'", "gpu_not_exposed_to_process"),
    ("node3: Test CUDA failure common.cu:891 'out of memory'", "cuda_oom"),  # nccl-tests
    ("transport/p2p.cc:275 NCCL WARN Cuda failure 'out of memory'", "cuda_oom"),
])
def test_nccls_other_cuda_checks_are_read_too(line, code):
    codes = [f.code for f in explain_text(_nccl(line), similar=False)]
    assert codes[0] == code and not NCCL_GUESS & set(codes), codes


def test_an_unhandled_cuda_error_that_names_nothing_keeps_its_reading():
    # (round 31c) inside torch's own process group the NCCL is the one torch's wheel pins, built for its CUDA: that
    # NCCL release's bug first, the driver second (a library of another CUDA after them)
    text = _nccl("Cuda failure 'a message no CUDA release prints'")
    assert [f.code for f in explain_text(text, similar=False)][:2] == ["library_bug", "driver_too_old"]


def _driver_message(cuda: tuple[int, int]) -> str:
    return ("RuntimeError: The NVIDIA driver on your system is too old (found version "
            f"{cuda[0] * 1000 + cuda[1] * 10}). Please update your GPU driver by downloading and installing a new "
            "version from the URL: http://www.nvidia.com/Download/index.aspx")


DRIVER_CUDAS = [(10, 0), (10, 1), (10, 2), (11, 0), (11, 1), (11, 2), (11, 4), (11, 6), (11, 7), (11, 8), (12, 0),
                (12, 2), (12, 4), (12, 6), (12, 8), (13, 0)]


@pytest.mark.parametrize("cuda", DRIVER_CUDAS, ids=lambda c: f"{c[0]}.{c[1]}")
@pytest.mark.parametrize("torch_line", ["", "\ntorch 2.1.0+cu121", "\ntorch 2.9.0+cu130"])
def test_a_too_old_driver_is_sent_only_to_a_published_index_it_can_run(cuda, torch_line):
    findings = [f for f in explain_text(_driver_message(cuda) + torch_line, similar=False) if f.code == "driver_too_old"]
    assert findings
    commands = " ".join(c for f in findings for c in f.fix.commands)
    tags = re.findall(r"download\.pytorch\.org/whl/(cu[0-9]+)", commands)
    published = tables.torch_cuda_indexes()
    for tag in tags:
        assert tag in published, commands
        v = (int(tag[2:-1]), int(tag[-1]))
        # natively, or a newer minor of the same major (11 on) under minor-version compatibility
        assert v <= cuda or (v[0] == cuda[0] >= 11), (cuda, tag)
    if not tags:
        assert "update the NVIDIA driver" in commands
    if cuda[0] >= 11 and cuda != (11, 0):  # every 11.x / 12.x / 13.x driver past 11.0 GA runs a published build
        assert tags, commands


def test_a_cuda_11_4_driver_gets_the_newest_cuda_11_build():
    f = next(f for f in explain_text(_driver_message((11, 4)), similar=False) if f.code == "driver_too_old")
    assert any("whl/cu118" in c for c in f.fix.commands)
    assert any("minor-version compatibility" in e for e in f.evidence)


def test_the_index_table_lists_real_tags_only():
    assert tables.torch_cuda_indexes()[0] == "cu102" and "cu130" in tables.torch_cuda_indexes()
    assert not {"cu114", "cu122", "cu123", "cu125", "cu127"} & set(tables.torch_cuda_indexes())


@pytest.mark.parametrize("part", ["dev", "test", "heldout", "heldout2", "heldout3", "heldout4", "dev6", "dev7"])
def test_no_fix_for_a_real_report_names_an_index_pytorch_never_published(part):
    from pathlib import Path

    from smrnb.doctor._corpus import load

    published = set(tables.torch_cuda_indexes())
    # (round 38c) the -f pages of PyTorch's commands of the releases before 1.11 (tables/torch_cuda.csv find_links)
    pages = {r["find_links"].replace("{variant}", v) for r in tables.rows("torch_cuda") if r["find_links"]
             for v in r["variants"].split()}
    invented = []
    for case in load(Path(__file__).parent / "corpus" / f"{part}.jsonl"):
        text = case.text if hasattr(case, "text") else case["text"]
        for f in explain_text(text, similar=False):
            invented += [(f.code, tag) for cmd in f.fix.commands
                         for tag in re.findall(r"download\.pytorch\.org/whl/(cu[0-9]+)",
                                               re.sub(r"-f (\S+)", lambda m: "" if m.group(1) in pages else m.group(0),
                                                      cmd))
                         if tag not in published]
    assert not invented
