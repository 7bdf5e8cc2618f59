# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The doctor's enumeration and message tables: every file parses, every row is sourced and names a
known finding code, numbers and names are unique, and samples agree with the primary sources present
on the machine (CUDA headers and libcudart, nvcc, glibc's loader, torch's cpp_extension, IPython)."""

from __future__ import annotations

import csv
import ctypes
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smrnb.doctor import tables
from smrnb.doctor._codes import CODES
from smrnb.doctor._model import LAYERS

REPO = Path(__file__).resolve().parents[2]
TABLES = REPO / "smrnb" / "doctor" / "tables"
CUDA_INCLUDE = Path("/usr/local/cuda/include")

ENUMS = list(tables.ENUM_TABLES)
MESSAGES = list(tables.MESSAGE_TABLES)
PLAIN = ["nvcc_options", "cuda_home_shapes"]
NEW = ENUMS + MESSAGES + PLAIN
EXTENSIONS = {"apex", "detectron2", "mmcv", "pytorch3d", "flash-attn", "xformers", "torch-scatter", "tiny-cuda-nn",
              "gsplat", "nvdiffrast", "kaolin"}


def _known_codes() -> set[str]:
    """Every code of the one code table, and ``none`` (a row that is not a fault)."""
    return set(CODES) | {"none"}


def _tool():
    spec = importlib.util.spec_from_file_location("cuda_enums_tool", REPO / "tests" / "tools" / "cuda_enums.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _local_cuda() -> tuple[int, int] | None:
    h = CUDA_INCLUDE / "cuda_runtime_api.h"
    if not h.exists():
        return None
    m = re.search(r"#define CUDART_VERSION\s+(\d+)", h.read_text(errors="replace"))
    return (int(m.group(1)) // 1000, int(m.group(1)) % 1000 // 10) if m else None


def _v(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text))


# --- every file ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NEW)
def test_every_row_parses_is_sourced_and_maps_to_a_known_code(name):
    with open(TABLES / f"{name}.csv", newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
        header = reader.fieldnames
    assert rows, name
    assert "source" in header and "verified" in header and "code" in header
    known = _known_codes()
    for r in rows:
        assert None not in r and all(v is not None for v in r.values()), (name, r)  # no ragged rows
        assert r["source"].strip(), (name, r)
        assert r["verified"] in ("yes", "no", "partial"), (name, r)
        codes = [c for c in r["code"].split("|")]
        assert codes and all(c in known for c in codes), (name, r["code"], r)


@pytest.mark.parametrize("name", MESSAGES)
def test_message_patterns_compile_and_match_their_example(name):
    rows = tables.message_rows(name)
    keys = [r.key for r in rows]
    assert len(keys) == len(set(keys)), name
    for r in rows:
        if r.pattern is None:
            assert r.meaning, r.key  # a situation without a message still says what it means
            continue
        assert r.example, r.key
        assert r.pattern.search(r.example), (name, r.key)


@pytest.mark.parametrize("name", ENUMS)
def test_enum_numbers_and_names_are_unique_per_numbering(name):
    rows = tables.enum_rows(name)
    seen_numbers, seen_names = set(), set()
    for r in rows:
        assert (r.numbering, r.number) not in seen_numbers, (name, r.number)
        assert (r.numbering, r.name) not in seen_names, (name, r.name)
        seen_numbers.add((r.numbering, r.number))
        seen_names.add((r.numbering, r.name))
        assert r.numbering in ("current", "pre-10.1")
        assert r.meaning, r.name
        assert _v(r.first_seen) <= _v(r.last_seen), r.name
    assert {r.numbering for r in rows} == ({"current", "pre-10.1"} if name == "cuda_errors" else {"current"})


def test_every_code_the_tables_use_is_in_the_one_code_table_with_its_wording():
    """The codes the enumeration and message tables name are codes of smrnb/doctor/_codes.py, each with its
    layer, meaning, fix wording, what tells it from its neighbour and its primary source; and every code
    the corpus's CAUSES.md defines is one of them (one name per cause)."""
    used: set[str] = set()
    for name in NEW:
        for r in tables.rows(name):
            used.update(r["code"].split("|"))
    used.discard("none")
    assert used <= set(CODES), used - set(CODES)
    notes = {c for c in used if c.startswith("context_") or c == "kernelspec_env"}  # where it runs: no fault
    for code in used - notes:
        e = CODES[code]
        assert e.layer in LAYERS and e.meaning and e.fix and e.told_from and e.source, code
    assert all(CODES[c].severity == "info" and not CODES[c].fix for c in notes), notes
    causes = set(re.findall(r"^- `(\w+)`", (REPO / "tests/doctor/corpus/CAUSES.md").read_text(encoding="utf-8"), re.M))
    assert causes <= set(CODES), causes - set(CODES)
    assert not (TABLES / "NEW_CODES.md").exists()  # the proposals are in the table now


def test_every_extension_of_the_brief_has_rows():
    assert EXTENSIONS <= {r.fields["project"] for r in tables.message_rows("extension_checks")}


# --- lookups ---------------------------------------------------------------------------------


def test_cuda_error_lookup_by_number_name_message_and_release():
    r = tables.cuda_error(209)
    assert r.name == "cudaErrorNoKernelImageForDevice" and "no_kernel_image_for_gpu" in r.codes
    assert tables.cuda_error("209") == r and tables.cuda_error("cudaerrornokernelimagefordevice") == r
    assert tables.cuda_error("no kernel image is available for execution on the device") == r
    assert tables.cuda_error(48) is None  # 48 is no code in the current numbering
    old = tables.cuda_error(48, release="10.0")
    assert old.name == "cudaErrorNoKernelImageForDevice" and old.numbering == "pre-10.1" and old.codes == r.codes
    assert tables.cuda_error(11, release="9.2").name == "cudaErrorInvalidValue"
    assert tables.cuda_error(1, release="12.4").name == "cudaErrorInvalidValue"
    assert tables.cuda_error(35).codes == ("driver_too_old",)
    assert tables.cuda_error(2).codes == ("cuda_oom",)
    assert tables.cuda_error(700).codes == ("user_code_error",)
    assert tables.cuda_error(True) is None and tables.cuda_error(None) is None and tables.cuda_error("") is None
    assert tables.cu_result("CUDA_ERROR_NO_BINARY_FOR_GPU").number == 209
    assert tables.nvrtc_result(5).name == "NVRTC_ERROR_INVALID_OPTION"
    assert tables.nvml_error("Unknown Error").name == "NVML_ERROR_UNKNOWN"
    assert tables.nvml_error(18).codes == ("driver_broken",)
    with pytest.raises(ValueError, match="table must be one of"):
        tables.enum_rows("nope")


def test_enum_rows_in_text_reads_real_error_shapes():
    torch_text = ("RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be "
                  "asynchronously reported at some other API call\nCompile with `TORCH_USE_CUDA_DSA` to enable "
                  "device-side assertions.")
    assert [r.name for r in tables.enum_rows_in_text(torch_text)] == ["cudaErrorIllegalAddress"]
    mixed = "cudaErrorInsufficientDriver then CUDA_ERROR_OUT_OF_MEMORY and NVML_ERROR_GPU_IS_LOST"
    assert [r.name for r in tables.enum_rows_in_text(mixed)] == [
        "cudaErrorInsufficientDriver", "CUDA_ERROR_OUT_OF_MEMORY", "NVML_ERROR_GPU_IS_LOST"]
    assert tables.enum_rows_in_text("cudaSuccess") == []  # a success code is never a finding
    assert tables.enum_rows_in_text(None) == [] and tables.enum_rows_in_text(b"bytes") == []
    huge = "x" * 1_000_000 + " cudaErrorAssert"
    assert [r.name for r in tables.enum_rows_in_text(huge)] == ["cudaErrorAssert"]  # the tail is read


def test_match_messages_orders_by_position_and_first_match_prefers_the_specific_row():
    text = ("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n"
            "nvcc fatal   : Unsupported gpu architecture 'compute_120'\n")
    got = [(m.row.table, m.row.key) for m in tables.match_messages(text)]
    assert got[0] == ("loader_errors", "cannot_open_cudart")
    assert ("nvcc_errors", "unsupported_gpu_arch") in got
    assert tables.first_match("loader_errors", text).row.key == "cannot_open_cudart"
    nvcc = tables.first_match("nvcc_errors", text)
    assert nvcc.groups["arch"] == "compute_120"
    assert tables.first_match("loader_errors", "libGL.so.1: cannot open shared object file: No such file or "
                              "directory").row.key == "cannot_open_other"
    assert tables.match_messages(12) == [] and tables.first_match("loader_errors", None) is None


def test_nvcc_option_change_lookup():
    assert tables.nvcc_option_change("--std", "c++23").cuda == "13.3"
    assert tables.nvcc_option_change("--std", "c++20").cuda == "12.0"
    assert tables.nvcc_option_change("--threads").cuda == "11.2"
    assert tables.nvcc_option_change("-t") is None or tables.nvcc_option_change("-t").cuda == "11.2"
    assert tables.nvcc_option_change("--gpu-architecture", "sm_35").change == "removed"
    assert tables.nvcc_option_change("--gpu-architecture", "sm_120").cuda == "12.8"
    assert tables.nvcc_option_change("--no-such-option") is None


def test_nvcc_gcc_table_gained_clang_and_msvc_limits():
    assert tables.max_gcc_for_nvcc("13.4") == 16 and tables.max_gcc_for_nvcc("13.5") == 16
    assert tables.max_gcc_for_nvcc("12.3") == 12  # torch's own table says <14 for 12.3; host_config.h refuses 13
    for r in tables.rows("nvcc_gcc"):
        if r["max_clang"]:
            lo, hi = r["msvc"].split("-")
            assert int(lo) < int(hi) and r["verified"] == "yes", r


# --- against the primary sources on this machine ----------------------------------------------


needs_headers = pytest.mark.skipif(not (CUDA_INCLUDE / "driver_types.h").exists(),
                                   reason="no CUDA toolkit headers under /usr/local/cuda/include")


@needs_headers
@pytest.mark.parametrize(("table", "header", "opener"), [
    ("cuda_errors", "driver_types.h", r"enum\s+__device_builtin__\s+cudaError\s*\{"),
    ("cu_results", "cuda.h", r"typedef\s+enum\s+cudaError_enum\s*\{"),
])
def test_enum_table_agrees_with_the_local_header(table, header, opener):
    local = _local_cuda()
    parsed = _tool().parse_enum((CUDA_INCLUDE / header).read_text(errors="replace"), opener)
    assert len(parsed) > 90
    by_name = {r.name: r for r in tables.enum_rows(table) if r.numbering == "current"}
    for name, number, _doc in parsed:
        assert name in by_name, f"{header} has {name} = {number}: run tests/tools/cuda_enums.py"
        assert by_name[name].number == number, name
        assert _v(by_name[name].first_seen) <= local <= _v(by_name[name].last_seen), name
    in_header = {name for name, _, _ in parsed}
    for r in by_name.values():
        if _v(r.first_seen) <= local <= _v(r.last_seen):
            assert r.name in in_header, f"{r.name} claims CUDA {local} but {header} lacks it"
        else:
            assert r.name not in in_header, r.name


@needs_headers
def test_runtime_messages_are_what_the_local_libcudart_returns():
    libs = sorted(glob.glob("/usr/local/cuda/lib64/libcudart.so*"))
    if not libs:
        pytest.skip("no libcudart.so in /usr/local/cuda/lib64")
    fn = ctypes.CDLL(libs[0]).cudaGetErrorString  # needs no GPU and no driver
    fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_int]
    local = _local_cuda()
    checked = 0
    for r in tables.enum_rows("cuda_errors"):
        if r.numbering != "current":
            continue
        text = fn(r.number).decode()
        if _v(r.first_seen) <= local:
            assert text == r.message, (r.number, text, r.message)
            checked += 1
        else:
            assert text == "unrecognized error code", r.name  # newer than the local runtime
    assert checked > 100


@needs_headers
def test_host_compiler_limits_agree_with_the_local_host_config():
    text = (CUDA_INCLUDE / "crt" / "host_config.h").read_text(errors="replace")
    local = ".".join(map(str, _local_cuda()))
    gcc = int(re.search(r"#if __GNUC__ > (\d+)", text).group(1))
    clang_lt = int(re.search(r"unsupported clang version! clang version must be less than (\d+)", text).group(1))
    lo, hi = re.search(r"_MSC_VER < (\d+) \|\| _MSC_VER >= (\d+)", text).groups()
    assert tables.max_gcc_for_nvcc(local) == gcc
    row = max((r for r in tables.rows("nvcc_gcc") if r["max_clang"] and _v(r["cuda"]) <= _v(local)),
              key=lambda r: _v(r["cuda"]))
    assert int(row["max_clang"]) == clang_lt - 1 and row["msvc"] == f"{lo}-{int(hi) - 1}"
    unsupported_gnu = tables.first_match("nvcc_errors", re.search(r"#error -- unsupported GNU version![^\n]*", text).group(0))
    assert unsupported_gnu.row.key == "unsupported_gnu" and unsupported_gnu.groups["max"] == str(gcc)


def test_nvml_codes_agree_with_pynvml():
    pynvml = pytest.importorskip("pynvml")
    consts = {k: v for k, v in vars(pynvml).items() if re.fullmatch(r"NVML_(SUCCESS|ERROR_[A-Z_]+)", k) and isinstance(v, int)}
    assert len(consts) > 25
    by_name = {r.name: r for r in tables.enum_rows("nvml_errors")}
    for name, value in consts.items():
        assert name in by_name and by_name[name].number == value, name
    strings = pynvml.NVMLError._errcode_to_string
    for number, text in strings.items():
        assert tables.nvml_error(number).message == text, number


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists(),
                                reason="no nvcc on this machine")


def _nvcc(*args: str, tmp: Path) -> str:
    exe = "/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else shutil.which("nvcc")
    r = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120, cwd=tmp)
    return r.stdout + r.stderr


@needs_nvcc
def test_nvcc_error_patterns_match_what_the_local_nvcc_prints(tmp_path):
    (tmp_path / "a.cu").write_text("__global__ void k(){}\n")
    cases = [(("-arch=sm_35", "-c", "a.cu"), "unsupported_gpu_arch"),
             (("-std=c++99", "-c", "a.cu"), "value_not_defined"),
             (("--no-such-flag", "-c", "a.cu"), "unknown_option"),
             ((), "no_input_files"),
             (("-arch=sm_80", "-code=sm_75", "-c", "a.cu"), "arch_code_incompatible"),
             (("-arch=all", "-code=sm_80", "-c", "a.cu"), "arch_all_with_code"),
             (("-std=c++17", "-std=c++14", "-E", "a.cu"), "redefinition")]
    for args, key in cases:
        out = _nvcc(*args, tmp=tmp_path)
        got = tables.first_match("nvcc_errors", out)
        assert got is not None and got.row.key == key, (args, out)


@needs_nvcc
def test_nvcc_option_table_agrees_with_the_local_nvcc_help(tmp_path):
    help_text = _nvcc("--help", tmp=tmp_path)
    local = _v(re.search(r"release (\d+\.\d+)", _nvcc("--version", tmp=tmp_path)).group(1))
    checked = 0
    for row in tables.nvcc_option_changes():
        if row.option.startswith("--gpu-architecture") or row.option.startswith("host") or row.value:
            continue
        if row.verified != "yes" or "-" in row.cuda:
            continue
        for opt in row.option.split():
            if not opt.startswith("--"):
                continue
            present = re.search(rf"^{re.escape(opt)}\b", help_text, re.M) is not None
            expect = (_v(row.cuda) <= local) if row.change == "added" else (_v(row.cuda) > local)
            assert present == expect, (opt, row.change, row.cuda, local)
            checked += 1
    assert checked >= 10
    std = re.search(r"^--std \{([^}]*)\}", help_text, re.M).group(1).split("|")
    for value in ("c++20", "c++23"):
        assert (value in std) == (_v(tables.nvcc_option_change("--std", value).cuda) <= local), value


needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None or not sys.platform.startswith("linux"),
                               reason="needs gcc and glibc's loader")


@needs_gcc
def test_loader_patterns_match_what_this_glibc_says(tmp_path):
    def dlopen_error(path: str) -> str:
        try:
            ctypes.CDLL(path, mode=os.RTLD_NOW)
        except OSError as exc:
            return str(exc)
        raise AssertionError(f"{path} loaded")

    assert tables.first_match("loader_errors", dlopen_error("libdoesnotexist.so.7")).row.key == "cannot_open_other"
    assert tables.first_match("loader_errors", dlopen_error("libcudart.so.99")).row.key == "cannot_open_cudart"
    text = tmp_path / "libtext.so"
    text.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 1\n" * 4)
    assert tables.first_match("loader_errors", dlopen_error(str(text))).row.key == "invalid_elf_header"
    empty = tmp_path / "libempty.so"
    empty.write_bytes(b"")
    assert tables.first_match("loader_errors", dlopen_error(str(empty))).row.key == "file_too_short"
    src = tmp_path / "u.c"
    src.write_text("extern int smrnb_missing_symbol(void); int f(void) { return smrnb_missing_symbol(); }\n")
    so = tmp_path / "libundef.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(so), str(src)], check=True, capture_output=True, timeout=120)
    m = tables.first_match("loader_errors", dlopen_error(str(so)))
    assert m.row.key == "undefined_symbol" and m.groups["sym"] == "smrnb_missing_symbol"


def test_cpp_extension_rows_agree_with_the_installed_torch():
    torch = pytest.importorskip("torch")
    src = Path(torch.__file__).parent.joinpath("utils", "cpp_extension.py").read_text(encoding="utf-8")
    version = _v(torch.__version__)[:2]
    literal = {"cuda_home_not_set": "CUDA_HOME environment variable is not set. ",
               "cuda_not_found": "CUDA was not found on the system, please set the CUDA_HOME or the CUDA_PATH",
               "nvcc_not_found_at": "nvcc not found at '{nvcc}'. Ensure CUDA path '{CUDA_HOME}' is correct.",
               "cuda_major_mismatch": "The detected CUDA version (%s) mismatches the version that was used to compile",
               "cuda_minor_mismatch": "has a minor version mismatch with the version that was used to compile PyTorch",
               "gcc_too_new": "than the maximum required version by CUDA",
               "no_compiler_bounds": "There are no %s version bounds defined for CUDA version %s",
               "ninja_required": "Ninja is required to load C++ extensions",
               "unknown_cuda_arch": 'raise ValueError(f"Unknown CUDA arch ({arch}) or GPU not supported")',
               "arch_list_empty_index": "arch_list[-1] += '+PTX'",
               "no_cuda_runtime": "No CUDA runtime is found, using CUDA_HOME='%s'",
               "error_building_extension": "Error building extension '{name}'",
               "msvc_required": "MSVC is required to load C++ extensions"}
    rows = {r.key: r for r in tables.message_rows("cpp_extension_checks")}
    for key, text in literal.items():
        r = rows[key]
        covers = _v(r.fields["torch_min"]) <= version and (not r.fields["torch_max"] or version <= _v(r.fields["torch_max"]))
        assert covers and text in src, (key, torch.__version__)
    # supported_arches of this torch: the row's claim that 12.0 is known since 2.9
    assert "'12.0'" in src and "'10.0'" in src


def test_cuda_home_shapes_reproduce_with_the_installed_torch(monkeypatch, tmp_path):
    pytest.importorskip("torch")
    import logging

    from torch.utils import cpp_extension

    monkeypatch.setattr(logging.getLogger("torch.utils.cpp_extension"), "disabled", True)
    checked = 0
    for shape in tables.cuda_home_shapes():
        m = re.fullmatch(r"(CUDA_HOME|CUDA_PATH)=(.*)", shape.env)
        if not m or "<" in shape.env or "$" in shape.env:
            continue
        monkeypatch.delenv("CUDA_HOME", raising=False)
        monkeypatch.delenv("CUDA_PATH", raising=False)
        monkeypatch.setenv("PATH", str(tmp_path))  # no nvcc on PATH: only the variable decides
        monkeypatch.setenv(m.group(1), m.group(2))
        got = cpp_extension._find_cuda_home()
        if shape.torch_home == "verbatim":
            assert got == m.group(2), shape.shape
        elif shape.torch_home == "''":
            assert got == "", shape.shape
        else:
            continue
        checked += 1
    assert checked >= 10


def test_jupyter_rows_quote_ipython_and_jupyter_client():
    ipython = pytest.importorskip("IPython")
    jc = pytest.importorskip("jupyter_client.kernelspec")
    packaging = Path(ipython.__file__).parent.joinpath("core", "magics", "packaging.py").read_text(encoding="utf-8")
    rows = {r.key: r for r in tables.message_rows("jupyter_kernel")}
    assert "Note: you may need to restart the kernel to use updated packages." in packaging
    assert rows["pip_restart_note"].pattern.search("Note: you may need to restart the kernel to use updated packages.")
    assert "does not appear to be a conda environment" in packaging
    assert rows["no_such_kernel"].pattern.search(str(jc.NoSuchKernel("recon")))
    assert '[python, "-m", "pip", line]' in packaging  # %pip runs the kernel's own interpreter
