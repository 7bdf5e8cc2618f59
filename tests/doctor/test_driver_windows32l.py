# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 32l: Windows driver numbers are read against the Windows x86_64 column of NVIDIA's CUDA Toolkit release notes
(Table 3, "CUDA Toolkit and Corresponding Driver Versions"; Table 2, the minimum driver for minor-version
compatibility), not the Linux one: tables/cuda_driver.csv and cuda_family.csv carry both, and every reader picks the
column by the platform the text (a drive-letter path, nvidia-smi.exe, a DLL, Windows 10/11, nvidia-smi's TCC/WDDM
column, WSL 2) or the machine shows."""

from __future__ import annotations

import pytest

from smrnb.doctor import tables
from smrnb.doctor._explain import explain_result
from smrnb.doctor._textfacts import read_text
from smrnb.doctor.rules._driver import indexes_for_driver_cuda, torch_variants_for_driver

# (cuda, Linux minimum, Windows minimum, the release below) from Table 3
_TABLE3 = [
    ("9.0", "384.81", "385.54", "8.0"),
    ("10.0", "410.48", "411.31", "9.2"),
    ("10.1", "418.39", "418.96", "10.0"),
    ("11.8", "520.61.05", "520.06", "11.7"),
    ("12.0", "525.60.13", "527.41", "11.8"),
    ("12.2", "535.54.03", "536.25", "12.1"),
    ("12.6", "560.28.03", "560.76", "12.5"),
    ("12.8", "570.26", "570.65", "12.6"),
    ("12.9", "575.51.03", "576.02", "12.8"),
]


def _just_below(v: str) -> str:
    parts = [int(p) for p in v.split(".")]
    parts[-1] -= 1
    return ".".join(str(p) for p in parts)


@pytest.mark.parametrize("cuda, linux, windows, below", _TABLE3)
def test_each_platform_reads_its_own_column(cuda, linux, windows, below):
    assert tables.min_driver_for_cuda(cuda).min_driver == linux
    assert tables.min_driver_for_cuda(cuda, "windows").min_driver == windows
    assert tables.newest_cuda_for_driver(linux) == cuda
    assert tables.newest_cuda_for_driver(_just_below(linux)) == below
    assert tables.newest_cuda_for_driver(windows, "windows") == cuda
    assert tables.newest_cuda_for_driver(_just_below(windows), "windows") == below


def test_the_columns_disagree_where_the_numbers_fall_between():
    # a Windows 536.23 (Game Ready for CUDA 12.1's branch) is 12.2 by the Linux column, 12.1 by its own
    assert tables.newest_cuda_for_driver("536.23") == "12.2"
    assert tables.newest_cuda_for_driver("536.23", "windows") == "12.1"
    assert tables.newest_cuda_for_driver("418.81") == "10.1"
    assert tables.newest_cuda_for_driver("418.81", "windows") == "10.0"
    # and the other way: Windows 520.06 is CUDA 11.8's own driver, below the Linux 520.61.05
    assert tables.newest_cuda_for_driver("520.06") == "11.7"
    assert tables.newest_cuda_for_driver("520.06", "windows") == "11.8"


def test_table2_family_minimum_per_platform_and_13x_without_a_windows_row():
    assert tables.family_min_driver("12.4") == "525.60.13"
    assert tables.family_min_driver("12.4", "windows") == "528.33"
    assert tables.family_min_driver(11, "windows") == "452.39"
    assert tables.family_min_driver(13, "windows") == "580"
    # Table 3 says N/A for Windows from CUDA 13.0 on: the branch's Linux floor stays (Windows R580 is numbered above)
    assert tables.newest_cuda_for_driver("581.57", "windows") == "13.0"
    assert tables.min_driver_for_cuda("13.0", "windows").min_driver == "580.65.06"
    # torch variants and wheel indexes follow the column: Windows 527.56 runs no cu121 (needs 528.33 there)
    assert "cu121" in torch_variants_for_driver("2.1.0", "527.56")
    assert "cu121" not in torch_variants_for_driver("2.1.0", "527.56", "windows")
    assert "cu121" in indexes_for_driver_cuda("12.0", "527.56")
    assert "cu121" not in indexes_for_driver_cuda("12.0", "527.56", "windows")


# an nvidia-smi of a Windows machine before 'CUDA Version' could be read (the release table answers), then torch
_W418 = """C:\\Users\\me>nvidia-smi.exe
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 418.81       Driver Version: 418.81                              |
|-------------------------------+----------------------+----------------------+
| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |
|   0  GeForce GTX 1080   WDDM  | 00000000:01:00.0  On |                  N/A |
>>> import torch
>>> torch.__version__
'1.5.1+cu101'
>>> torch.cuda.is_available()
False
"""
# the same on Linux: 418.81 is above CUDA 10.1's Linux minimum (418.39)
_L418 = _W418.replace("C:\\Users\\me>nvidia-smi.exe", "$ nvidia-smi").replace("TCC/WDDM", "Persistence-M").replace(
    "GTX 1080   WDDM", "GTX 1080    Off")


def _codes(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings[:2]]


def test_a_windows_nvidia_smi_is_read_against_the_windows_column():
    f = read_text(_W418)
    assert f["driver"]["driver_version"] == "418.81" and f["driver"]["platform"] == "windows"
    assert f["driver"]["cuda_driver_version"] == "10.0"
    assert "driver_too_old" in _codes(_W418)


def test_near_miss_the_same_driver_on_linux_runs_cuda_10_1():
    f = read_text(_L418)
    assert f["driver"]["cuda_driver_version"] == "10.1" and "platform" not in f["driver"]
    assert "driver_too_old" not in _codes(_L418)


def test_near_miss_windows_only_named_in_prose_is_no_windows_driver():
    text = _L418 + "The same script works on my Windows laptop.\n"
    assert read_text(text)["driver"]["cuda_driver_version"] == "10.1"
    assert "driver_too_old" not in _codes(text)


# nvidia-smi as it prints on Windows (driver and 'CUDA Version' read as printed); 527.56 is below Table 2's Windows
# 528.33, so no CUDA 12.1 binary runs on it (minor-version compatibility needs 528.33 there)
_W527 = """PS C:\\Users\\me> nvidia-smi
Mon Jan 30 10:00:00 2023
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 527.56       Driver Version: 527.56       CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |
|   0  NVIDIA GeForce ... WDDM  | 00000000:01:00.0  On |                  N/A |
PS C:\\Users\\me> python -c "import torch; print(torch.__version__)"
2.1.0+cu121
"""
# WSL 2 prints the Windows host driver's number
_WSL527 = """$ uname -r
5.15.153.1-microsoft-standard-WSL2
$ nvidia-smi
| NVIDIA-SMI 527.56       Driver Version: 527.56       CUDA Version: 12.0     |
$ python -c "import torch; print(torch.__version__)"
2.1.0+cu121
"""
# Linux: 525.60.13 is the 12.x family minimum, so CUDA 12.1 runs under minor-version compatibility
_L525 = """$ nvidia-smi
| NVIDIA-SMI 525.60.13    Driver Version: 525.60.13    CUDA Version: 12.0     |
$ python -c "import torch; print(torch.__version__)"
2.1.0+cu121
"""


@pytest.mark.parametrize("text", [_W527, _WSL527])
def test_windows_driver_below_the_windows_family_minimum_is_too_old(text):
    f = read_text(text)
    assert (f["driver"]["driver_version"], f["driver"]["cuda_driver_version"]) == ("527.56", "12.0")
    assert "driver_too_old" in _codes(text)


def test_near_miss_linux_driver_at_the_family_minimum_runs_newer_minors():
    codes = _codes(_L525)
    assert "driver_below_cuda_minor" in codes and "driver_too_old" not in codes


def test_near_miss_windows_driver_at_the_windows_family_minimum():
    text = _W527.replace("527.56", "528.33")
    codes = _codes(text)
    assert "driver_too_old" not in codes and "driver_below_cuda_minor" in codes


def test_the_probe_reads_wsl_2_as_a_windows_driver(tmp_path):
    from smrnb.doctor.probes import _driver as probe_driver

    (tmp_path / "version").write_text("Linux version 5.15.153.1-microsoft-standard-WSL2 (root@1c602f52c2e4) ...\n")
    assert probe_driver._platform(str(tmp_path)) == "windows"
    (tmp_path / "version").write_text("Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) ...\n")
    assert probe_driver._platform(str(tmp_path)) == "linux"
