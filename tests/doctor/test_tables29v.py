# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 29v: the tables' rows round 28v left unverified, read against their primary sources.

nvrtc_results.csv against nvrtc.h (CUDA 12.9, whole) and the per-release enums generated from each release's header;
gpu_cc.csv against copies of NVIDIA's CUDA GPUs pages and measured capabilities; added_apis.csv against the libraries'
own releases (PyPI wheels, tagged sources); glibc's "FATAL: kernel too old" against glibc's dl-osinfo.h. Every row of
every table names its source and says ``yes`` / ``partial`` / ``no`` (one word for the middle case). torch's companion
builder pins torchvision / torchaudio from tables/torch_companions.csv and no other companion from their columns.
"""

from __future__ import annotations

import csv
import json

import pytest

from smrnb.doctor import tables
from smrnb.doctor._explain import explain_result
from smrnb.doctor.tables import _read


def _csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


# --- every row of every table: a source and one of the three words ------------------------------------------------


@pytest.mark.parametrize("path", sorted(_read.HERE.glob("*.csv")), ids=lambda p: p.stem)
def test_every_row_names_its_source_and_says_yes_partial_or_no(path):
    for r in _csv(path):
        assert r["source"].strip(), (path.name, r)
        assert r["verified"] in _read.VERIFIED, (path.name, r["verified"][:80])


def test_kaolin_json_releases_say_yes_partial_or_no():
    releases = json.loads((_read.HERE / "kaolin.json").read_text(encoding="utf-8"))["releases"]
    assert releases
    for rel in releases:
        assert rel["verified"] in _read.VERIFIED and str(rel["source"]).strip(), rel


def test_one_word_for_the_middle_case():
    assert _read.VERIFIED == ("yes", "partial", "no")
    assert not [r["key"] for r in tables.rows("added_apis") if r["verified"] == "partly"]


#: the rows round 29v could not read in any source (what is left ``no``, table by table)
LEFT_NO = {"gpu_cc": {r"GTX ?2[6-9]0\b"},
           "nvcc_options": {"--list-gpu-arch --list-gpu-code", "--threads (-t)", "--split-compile"},
           # round 29a: sm_35's last torch wheels not found in a source (no pin is printed for it)
           "torch_wheel_archs_dropped": {"35"}}


def test_the_rows_left_unverified_are_the_known_ones():
    found: dict[str, set[str]] = {}
    for path in sorted(_read.HERE.glob("*.csv")):
        for r in _csv(path):
            if r["verified"] == "no":
                first = next(iter(r.values()))
                found.setdefault(path.stem, set()).add(first)
    assert found == LEFT_NO


# --- nvrtc_results.csv: nvrtc.h and the per-release enums -----------------------------------------------------------


@pytest.mark.parametrize(("name", "first"), [
    ("NVRTC_SUCCESS", "11.4"), ("NVRTC_ERROR_INTERNAL_ERROR", "11.4"),
    ("NVRTC_ERROR_TIME_FILE_WRITE_FAILED", "12.1"),      # was 12.4: cudarc's cuda-12010 enum adds it
    ("NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED", "12.8"),     # was 12.9: nvrtc.h 'Precompiled header (PCH) (CUDA 12.8+)'
    ("NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED", "12.8"), ("NVRTC_ERROR_PCH_CREATE", "12.8"),
    ("NVRTC_ERROR_CANCELLED", "12.8"), ("NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED", "13.0"),
    ("NVRTC_ERROR_BUSY", "13.3"),                        # was 13.5: cudarc's cuda-13030 enum adds it
])
def test_nvrtc_first_seen_follows_the_per_release_headers(name, first):
    row = tables.nvrtc_result(name)
    assert row is not None and row.first_seen == first and row.last_seen == "13.5", row


def test_nvrtc_busy_is_the_bundled_headers_install_of_another_process():
    row = tables.nvrtc_result(18)
    assert row is not None and row.name == "NVRTC_ERROR_BUSY" and row.verified == "yes"
    assert "nvrtcInstallBundledHeaders" in row.meaning and "NO_WAIT" in row.meaning, row.meaning
    assert "another thread" not in row.meaning


def test_nvrtc_rows_quote_the_header_and_keep_the_name_as_message():
    rows = tables.enum_rows("nvrtc_results")
    assert len(rows) == 19 and [r.number for r in rows] == list(range(19))
    for r in rows:
        assert r.message == r.name and "nvrtc.h" in r.source and "cudarc" in r.source, r.name
    partial = {r.name for r in rows if r.verified == "partial"}
    assert partial == {"NVRTC_ERROR_OUT_OF_MEMORY", "NVRTC_ERROR_INTERNAL_ERROR",
                       "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED"}


# --- gpu_cc.csv -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "cc"), [
    ("GeForce 8800 GTX", "1.0"), ("GeForce 8800 Ultra", "1.0"),    # G80: was read as 1.1
    ("GeForce 8800 GT", "1.1"), ("GeForce 9800 GT", "1.1"), ("GeForce GTX 280", "1.3"),
    ("GeForce GTX 580", "2.0"), ("Tesla C2050", "2.0"), ("GeForce GTX 560 Ti", "2.1"), ("Tesla K80", "3.7"),
    ("NVIDIA A100-SXM4-80GB", "8.0"), ("NVIDIA A30", "8.0"), ("NVIDIA A800 80GB PCIe", "8.0"),
])
def test_old_and_ampere_gpu_names(name, cc):
    assert tables.compute_capability_for_gpu(name) == cc


def test_the_gpu_rows_read_this_round_say_what_was_read():
    by_cc = {r["cc"]: r for r in tables.rows("gpu_cc")}
    assert by_cc["8.0"]["verified"] == "partial" and "sm_80" in by_cc["8.0"]["source"]
    assert by_cc["3.7"]["verified"] == "partial" and "Tesla K80 | 3.7" in by_cc["3.7"]["source"]
    assert by_cc["1.0"]["verified"] == "partial" and "G80=1.0" in by_cc["1.0"]["source"]
    assert by_cc["1.3"]["verified"] == "no"


# --- added_apis.csv -------------------------------------------------------------------------------------------------


def _finding(text):
    return explain_result(text, similar=False).findings[0]


@pytest.mark.parametrize("text", [
    "from diffusers import StableDiffusionXLPipeline\nImportError: cannot import name 'StableDiffusionXLPipeline' "
    "from 'diffusers' (/opt/conda/lib/python3.10/site-packages/diffusers/__init__.py)\n",
    "  File \"sdxl.py\", line 3, in <module>\n    from diffusers import StableDiffusionXLPipeline, AutoencoderKL\n"
    "ImportError: cannot import name 'StableDiffusionXLPipeline' from 'diffusers' "
    "(/home/u/.venv/lib/python3.11/site-packages/diffusers/__init__.py)\ndiffusers==0.17.1\n",
])
def test_sdxl_arrived_in_diffusers_0_18(text):
    f = _finding(text)
    assert f.code == "package_api_version_mismatch" and "diffusers 0.18.0" in f.title, f.title
    assert 'pip install -U "diffusers>=0.18.0"' in " ".join(f.fix.commands)


def test_sdxl_row_is_keyed_by_its_release():
    row = next(r for r in tables.rows("added_apis") if r["name"] == "StableDiffusionXLPipeline")
    assert row["key"] == "diffusers018_sdxl" and row["added_in"] == "0.18.0" and row["verified"] == "yes"


@pytest.mark.parametrize(("key", "added_in"), [
    ("transformers428_llama", "4.28.0"), ("transformers434_mistral", "4.34.0"), ("transformers437_qwen2", "4.37.0"),
    ("transformers445_qwen2vl", "4.45.0"), ("transformers449_qwen25vl", "4.49.0"),
    ("diffusers029_sd3", "0.29.0"), ("diffusers030_flux", "0.30.0"), ("whisperx3_load_model", "3.0.0"),
    ("monai04_basicunet", "0.4.0"), ("torch21_compiler", "2.1"),
])
def test_added_rows_confirmed_in_their_releases(key, added_in):
    row = next(r for r in tables.rows("added_apis") if r["key"] == key)
    assert row["added_in"] == added_in and row["verified"] == "yes" and "read this round" in row["source"], row


# --- glibc's "FATAL: kernel too old" --------------------------------------------------------------------------------


def test_kernel_too_old_row_is_glibc_2_35_or_older():
    row = next(r for r in tables.rows("library_messages") if r["key"] == "glibc_kernel_too_old")
    assert row["verified"] == "yes" and "dl-osinfo.h at glibc-2.35" in row["source"]
    assert "glibc 2.36 removed the check" in row["meaning"], row["meaning"]


# --- torch's companion builder: a pin only from the companion's own column ------------------------------------------

PIP_WARN = ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. "
            "This behaviour is the source of the following dependency conflicts.\n"
            "{lib} {ver} requires torch=={want}, but you have torch 2.1.0 which is incompatible.\n")
PIP_RESOLVE = ("ERROR: Cannot install torch==2.1.0 and {lib}=={ver} because these package versions have conflicting "
               "dependencies.\n\nThe conflict is caused by:\n    The user requested torch==2.1.0\n"
               "    {lib} {ver} depends on torch=={want}\n")


def _companion(text):
    f = next(f for f in explain_result(text, similar=False).findings if f.code == "companion_built_for_other_torch")
    return f.title, " ".join(f.fix.commands)


@pytest.mark.parametrize("form", [PIP_WARN, PIP_RESOLVE], ids=["warning", "resolver"])
@pytest.mark.parametrize(("lib", "ver", "want"), [
    ("torchtext", "0.15.2", "2.0.1"), ("torchdata", "0.6.1", "2.0.1"), ("torchrec", "0.5.0", "2.0.1"),
    ("torchao", "0.1", "2.3.0"), ("torch-tensorrt", "1.4.0", "2.0.1"),
])
def test_a_pytorch_index_companion_gets_its_own_fix_not_a_torchvision_pin(form, lib, ver, want):
    title, cmds = _companion(form.format(lib=lib, ver=ver, want=want))
    assert title.startswith(f"{lib} does not match the installed torch"), title
    assert "torchvision" not in cmds and "torchaudio" not in cmds, cmds
    assert f'pip install "{lib}==<the {lib} release made for torch 2.1.0>"' in cmds, cmds
    assert "download.pytorch.org/whl/" in cmds and "torch stays" in cmds


@pytest.mark.parametrize("form", [PIP_WARN, PIP_RESOLVE], ids=["warning", "resolver"])
@pytest.mark.parametrize("lib", ["torch-scatter", "torch-sparse", "torch-cluster"])
def test_a_pyg_companion_named_by_pip_gets_pyg_s_wheel_index(form, lib):
    title, cmds = _companion(form.format(lib=lib, ver="2.1.1", want="2.0.1"))
    assert title.startswith(f"{lib} does not match"), title
    assert "https://data.pyg.org/whl/torch-2.1.0+" in cmds and "torchvision" not in cmds, cmds


@pytest.mark.parametrize("text", [
    "RuntimeError: roi_align_forward_impl: implementation for device cuda:0 not found.\n",
    "  File \"/usr/local/lib/python3.8/dist-packages/mmcv/ops/nms.py\", line 27, in forward\n"
    "RuntimeError: nms_impl: implementation for device cuda:0 not found.\n",
])
def test_mmcv_s_device_registry_gets_openmmlab_s_index(text):
    title, cmds = _companion(text)
    assert title.startswith("mmcv does not match"), title
    assert "download.openmmlab.com/mmcv/dist/" in cmds and "torchvision" not in cmds, cmds


def test_a_companion_shown_installed_by_pip_is_the_one_named():
    text = ("Successfully installed torchtext-0.7.0\nTraceback (most recent call last):\n  File \"x.py\", line 1, in "
            "<module>\n    import torchtext\nOSError: libtorch_cpu.so: cannot open shared object file: No such file or "
            "directory\n")
    title, cmds = _companion(text)
    assert title.startswith("torchtext does not match") and "torchvision" not in cmds, (title, cmds)


# near-misses: the two companions the table pairs keep their table pins
@pytest.mark.parametrize(("form", "lib", "ver", "pin"), [
    (PIP_WARN, "torchvision", "0.15.2", 'pip install "torchvision==0.16.0"'),
    (PIP_RESOLVE, "torchvision", "0.15.2", 'pip install "torchvision==0.16.0"'),
    (PIP_WARN, "torchaudio", "2.0.2", 'pip install "torchaudio==2.1.0"'),
])
def test_torchvision_and_torchaudio_keep_the_table_pin(form, lib, ver, pin):
    title, cmds = _companion(form.format(lib=lib, ver=ver, want="2.0.1"))
    assert title.startswith(f"{lib} does not match") and pin in cmds, cmds


def test_a_libtorchaudio_line_without_a_path_is_still_torchaudio():
    text = ("torch==2.3.1\ntorchaudio==2.1.0\nOSError: libtorchaudio.so: undefined symbol: "
            "_ZN3c104cuda9SetDeviceEi\n")
    title, cmds = _companion(text)
    assert title.startswith("torchaudio does not match") and 'pip install "torchaudio==2.3.1"' in cmds, cmds
