# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 28v: the tables' unverified rows checked against their primary sources (no new rule, no new code).

Every CSV row keeps its fields in their columns; torch's companion releases (torchvision / torchaudio) come from
tables/torch_companions.csv, each row sourced (torchvision's README table, torchaudio's Compatibility Matrix,
PyTorch's previous-versions page), with the pairs after torch 2.8 those sources list and the patch releases whose
companion carries another patch number; gpu_cc.csv names the CUDA GPUs page's 11.0 Jetson modules.
"""

from __future__ import annotations

import csv

import pytest

from smrnb.doctor import tables
from smrnb.doctor._explain import explain_result
from smrnb.doctor.rules._abi import companion_for_torch
from smrnb.doctor.tables import _read

#: the values each table's ``verified`` column may hold (round 29v: one word, ``partial``, in every table)
ALLOWED: dict[str, set[str]] = {}


@pytest.mark.parametrize("path", sorted(_read.HERE.glob("*.csv")), ids=lambda p: p.stem)
def test_every_csv_row_keeps_its_fields_in_their_columns(path):
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        rows = list(reader)
    assert rows and "verified" in header and "source" in header, path.name
    for r in rows:
        assert None not in r, (path.name, r.get(None))  # more fields than the header: a comma left unquoted
        assert all(r[k] is not None for k in header), (path.name, r)  # fewer fields than the header
        assert r["verified"] in ALLOWED.get(path.stem, {"yes", "no", "partial"}), (path.name, r["verified"][:80])
        assert r["source"].strip(), (path.name, r)


def test_the_kpconv_row_has_its_build_command_in_built_by():
    row = next(r for r in tables.rows("source_built_modules") if r["module"] == "cpp_wrappers")
    assert row["built_by"].startswith("cd cpp_wrappers && sh compile_wrappers.sh"), row
    assert row["project"].startswith("KPConv") and "KPConvX" in row["project"], row
    assert row["verified"] == "partial" and row["source"].startswith("HuguesTHOMAS/KPConv-PyTorch"), row


def test_the_companion_table_is_sourced_and_one_line_per_release():
    rows = tables.rows("torch_companions")
    for lib in ("torchvision", "torchaudio"):
        mine = [r for r in rows if r["library"] == lib]
        assert len({r["line"] for r in mine}) == len(mine) and len({r["torch"] for r in mine}) == len(mine), lib
        assert all(r["verified"] == "yes" and r["source"].startswith("https://") for r in mine), lib
    for r in rows:
        for pair in r["exceptions"].split():
            torch, _, companion = pair.partition("=")
            assert torch.startswith(r["torch"] + ".") and companion.startswith(r["line"] + "."), r


@pytest.mark.parametrize(("lib", "torch", "want"), [
    # torchvision's README table as published with 0.29.2: torch 2.9 -> 0.24 ... 2.13 -> 0.28
    ("torchvision", "2.9.1", "0.24.1"), ("torchvision", "2.10.0", "0.25.0"), ("torchvision", "2.11", "0.26.*"),
    ("torchvision", "2.12.0", "0.27.0"), ("torchvision", "2.13.0", "0.28.0"),
    # torchaudio's Compatibility Matrix: 2.9 / 2.10 / 2.11
    ("torchaudio", "2.9.1", "2.9.1"), ("torchaudio", "2.10.0", "2.10.0"), ("torchaudio", "2.11.0", "2.11.0"),
    # the wheels of PyTorch's previous-versions page: the companions whose patch number is not torch's
    ("torchaudio", "2.0.0", "2.0.1"), ("torchaudio", "2.0.1", "2.0.2"), ("torchvision", "1.10.1", "0.11.2"),
    ("torchvision", "2.0.0", "0.15.1"), ("torchvision", "2.0.1", "0.15.2"),
])
def test_the_companion_of_each_torch_release_follows_the_sources(lib, torch, want):
    assert companion_for_torch(lib, torch) == want


@pytest.mark.parametrize(("lib", "torch"), [
    ("torchaudio", "2.12.0"),  # the matrix says torchaudio 2.11 works with later torch: no 2.12 pin guessed
    ("torchvision", "2.14.0"), ("torchvision", "1.6.0"), ("torchaudio", "3.0.0"),
])
def test_a_torch_release_the_sources_do_not_pair_gets_no_pin(lib, torch):
    assert companion_for_torch(lib, torch) == ""


NMS = """torch=={torch}
torchvision==0.17.2
Traceback (most recent call last):
  File "/home/u/.venv/lib/python3.12/site-packages/torchvision/_meta_registrations.py", line 164, in <module>
    @torch.library.register_fake("torchvision::nms")
RuntimeError: operator torchvision::nms does not exist
"""

CUDA_MAJOR = """torch=={torch}+cu130
torchvision==0.22.1
Traceback (most recent call last):
  File "/opt/conda/lib/python3.11/site-packages/torchvision/extension.py", line 92, in _check_cuda_version
RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. \
PyTorch has CUDA Version=13.0 and torchvision has CUDA Version=12.8. \
Please reinstall the torchvision that matches your PyTorch install.
"""

AUDIO = """$ pip freeze | grep torch
torch=={torch}
torchaudio==2.1.0
Traceback (most recent call last):
  File "app.py", line 2, in <module>
    import torchaudio
  File "/usr/lib/python3/site-packages/torchaudio/_extension/utils.py", line 60, in _init_dll_path
OSError: /usr/lib/python3/site-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: _ZN3c104cuda9SetDeviceEi
"""


def _companion_command(text: str) -> str:
    f = next(f for f in explain_result(text, similar=False).findings if f.code == "companion_built_for_other_torch")
    return f.fix.commands[-1]


@pytest.mark.parametrize(("text", "torch", "pin"), [
    (NMS, "2.9.1", 'pip install "torchvision==0.24.1"'),
    (NMS, "2.13.0", 'pip install "torchvision==0.28.0"'),
    (CUDA_MAJOR, "2.10.0", 'pip install "torchvision==0.25.0" --index-url https://download.pytorch.org/whl/cu130'),
    (AUDIO, "2.0.1", 'pip install "torchaudio==2.0.2"'),
    (AUDIO, "2.10.0", 'pip install "torchaudio==2.10.0"'),
])
def test_the_printed_fix_pins_the_companion_of_the_installed_torch(text, torch, pin):
    cmd = _companion_command(text.format(torch=torch))
    assert cmd.startswith(pin) and "torch stays" in cmd, cmd


def test_a_torch_the_sources_do_not_pair_keeps_the_placeholder():
    cmd = _companion_command(AUDIO.format(torch="2.12.0"))
    assert 'torchaudio=="<the matching release>"' in cmd and "torchaudio==2.1" not in cmd, cmd


@pytest.mark.parametrize(("name", "cc"), [
    ("NVIDIA Jetson T5000", "11.0"), ("Jetson T4000 module", "11.0"), ("Jetson AGX Thor", "11.0"),
    ("NVIDIA GB10", "12.1"), ("NVIDIA B300", "10.3"), ("Jetson Orin Nano", "8.7"), ("Tesla P100-PCIE-16GB", "6.0"),
])
def test_gpu_names_follow_the_cuda_gpus_pages(name, cc):
    assert tables.compute_capability_for_gpu(name) == cc


@pytest.mark.parametrize("name", ["NVIDIA T1000", "Quadro T4000 Mobile", "NVIDIA T400"])
def test_a_turing_t_card_is_not_a_thor_module(name):
    assert tables.compute_capability_for_gpu(name) != "11.0"
