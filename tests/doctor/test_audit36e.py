# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 36 (outside users, the docs only) on ``smr-doctor --extension`` / ``--package``: what it found, held here.

* H3: a module whose plain C symbol nothing defines, named like a Python extension module but without ``PyInit_``,
  was ``extension_ok`` though ``import`` fails with ``undefined symbol``.
* H4: a .so of another CPU architecture, and executables (``/bin/ls``, nvcc), were ``extension_ok``.
* M1: with ``--layer abi`` alone a missing ``--extension`` was "nothing to report"; ``--extension ""`` was the
  current directory; a directory was "not a dynamic ELF object"; CODES.md said info where the report said warning.
* M10: a FIFO named as an extension hung the loader layer until the overall deadline.
* L1: extension_ok claimed "torch symbols and GPU code" of files that have neither.

The .so files are built here with the system gcc at test time (skipped, with the reason shown, where it is absent).
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smrnb.doctor._codes import CODES

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "smrnb.doctor.cli"]
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed: the test .so files are built "
                                                                    "with it")
UNDEF_SRC = "int frobnicate_v2(void); int f(void){return frobnicate_v2();}\n"


def _doctor(*args: str, timeout: float = 120) -> tuple[int, dict, str]:
    p = subprocess.run([*CLI, *args, "--json"], capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else {}), p.stderr


def _gcc(out: Path, source: str, *args: str, shared: bool = True) -> Path:
    src = out.parent / (out.name.split(".")[0] + "_src.c")
    src.write_text(source)
    cmd = ["gcc", *(["-shared", "-fPIC"] if shared else []), "-o", str(out), str(src), *args]
    subprocess.run(cmd, check=True, capture_output=True)
    return out


def _codes(d: dict) -> dict[str, dict]:
    return {f["code"]: f for f in d["findings"]}


def _dlopen_error(path: Path) -> str:
    """What the dynamic loader itself says of ``path`` (RTLD_NOW, as Python's import)."""
    try:
        ctypes.CDLL(str(path), mode=os.RTLD_NOW)
    except OSError as exc:
        return str(exc)
    return ""


# ------------------------------------------------------------------ H3: a plain symbol nothing defines

@needs_gcc
@pytest.mark.parametrize("libs", [("-lm",), ()], ids=["with-NEEDED", "without-NEEDED"])
def test_a_module_named_as_python_extension_with_an_undefined_plain_symbol_is_not_ok(tmp_path, libs):
    so = _gcc(tmp_path / "undef.cpython-311-x86_64-linux-gnu.so", UNDEF_SRC, *libs)
    assert "undefined symbol: frobnicate_v2" in _dlopen_error(so)  # what the import would say
    rc, d, _ = _doctor("--extension", str(so), "--layer", "loader", "--layer", "abi")
    c = _codes(d)
    assert rc == 1 and "extension_ok" not in c, d["findings"]
    assert "frobnicate_v2" in c["extension_undefined_symbol"]["title"]
    ext = next(e for e in d["facts"]["abi"]["extensions"] if e["path"] == str(so))
    assert ext["unresolved_other"] == ["frobnicate_v2"]


@needs_gcc
def test_weak_names_the_c_library_and_python_define_are_not_flagged(tmp_path):
    src = ("#include <math.h>\n#include <pthread.h>\n#include <dlfcn.h>\n"
           "extern int maybe_there(void) __attribute__((weak));\nextern void Py_IncRef(void *);\n"
           "volatile double x = 2.0;\n"
           "double g(void){ Py_IncRef(0); pthread_self(); dlerror(); return cos(x) + (maybe_there ? maybe_there() : 0);}\n")
    so = _gcc(tmp_path / "fine.cpython-311-x86_64-linux-gnu.so", src)  # no -lm, -lpthread, -ldl: names left plain
    rc, d, _ = _doctor("--extension", str(so), "--layer", "loader", "--layer", "abi")
    c = _codes(d)
    assert "extension_undefined_symbol" not in c and "extension_ok" in c, d["findings"]
    ext = next(e for e in d["facts"]["abi"]["extensions"] if e["path"] == str(so))
    assert ext["plain_checked"] and ext["plain_undefined"] >= 2 and ext["unresolved_other"] == []


# ------------------------------------------------------------------ H4: another architecture, executables

def _other_machine() -> tuple[int, str]:
    from smrnb.doctor._elf import host_elf

    host = host_elf()
    return (62, "x86_64") if host and host[1] == 183 else (183, "aarch64")


@needs_gcc
def test_a_library_of_another_architecture_is_an_error_naming_both(tmp_path):
    so = _gcc(tmp_path / "arm64.so", "int f(void){return 1;}\n")
    machine, name = _other_machine()
    data = bytearray(so.read_bytes())
    data[18:20] = machine.to_bytes(2, "little")
    so.write_bytes(bytes(data))
    assert _dlopen_error(so)  # the loader refuses it
    for layers in (("--layer", "loader", "--layer", "abi"), ("--layer", "abi")):
        rc, d, _ = _doctor("--extension", str(so), *layers)
        c = _codes(d)
        assert rc == 1 and "extension_ok" not in c, d["findings"]
        f = c["wrong_architecture_binary"]
        assert f["severity"] == "error" and name in f["title"], f
        import platform
        host_name = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
        assert host_name in f["title"], f


@needs_gcc
@pytest.mark.parametrize("pie", [True, False], ids=["pie", "no-pie"])
def test_an_executable_is_not_a_shared_library(tmp_path, pie):
    exe = _gcc(tmp_path / "prog", "int main(void){return 0;}\n", "-pie" if pie else "-no-pie", "-fPIE" if pie else
               "-fno-pie", shared=False)
    assert "cannot dynamically load" in _dlopen_error(exe)
    rc, d, _ = _doctor("--extension", str(exe), "--layer", "loader", "--layer", "abi")
    c = _codes(d)
    assert "extension_ok" not in c, d["findings"]
    f = c["extension_unreadable"]
    assert "not a shared library" in f["title"] and "executable" in f["title"], f


def test_bin_ls_is_not_an_extension():
    if not os.path.isfile("/bin/ls"):
        pytest.skip("no /bin/ls here")
    rc, d, _ = _doctor("--extension", "/bin/ls", "--layer", "loader", "--layer", "abi")
    c = _codes(d)
    assert "extension_ok" not in c and "not a shared library" in c["extension_unreadable"]["title"], d["findings"]


# ------------------------------------------------------------------ M1: whatever layers run; bad input

def test_a_missing_extension_is_reported_with_the_abi_layer_alone(tmp_path):
    missing = tmp_path / "nonexist.so"
    rc, d, _ = _doctor("--extension", str(missing), "--layer", "abi")
    found = [f for f in d["findings"] if f["code"] == "extension_unreadable"]
    assert len(found) == 1 and found[0]["layer"] == "abi" and "nonexist.so" in found[0]["title"], d["findings"]
    # with both layers, once (the loader layer's)
    rc, d, _ = _doctor("--extension", str(missing), "--layer", "loader", "--layer", "abi")
    found = [f for f in d["findings"] if f["code"] == "extension_unreadable"]
    assert len(found) == 1 and found[0]["layer"] == "loader", d["findings"]


@needs_gcc
def test_an_undefined_plain_symbol_is_reported_with_the_abi_layer_alone(tmp_path):
    so = _gcc(tmp_path / "undef.cpython-311-x86_64-linux-gnu.so", UNDEF_SRC)
    rc, d, _ = _doctor("--extension", str(so), "--layer", "abi")
    assert rc == 1 and "extension_undefined_symbol" in _codes(d), d["findings"]


@pytest.mark.parametrize("bad", ["", "   "])
def test_an_empty_extension_path_is_refused_naming_the_option(bad):
    p = subprocess.run([*CLI, "--extension", bad, "--layer", "abi"], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 2 and "--extension" in p.stderr and repr(bad) in p.stderr, p.stderr


def test_an_empty_extension_path_is_refused_by_the_api():
    from smrnb._errors import SmrnbValueError
    from smrnb.doctor import diagnose

    with pytest.raises(SmrnbValueError, match="extension_paths"):
        diagnose(layers=["abi"], extension_paths=[""])


def test_a_directory_is_named_a_directory(tmp_path):
    rc, d, _ = _doctor("--extension", str(tmp_path), "--layer", "loader", "--layer", "abi")
    f = _codes(d)["extension_unreadable"]
    assert "is a directory" in f["title"] and "not a dynamic ELF" not in f["title"], f


def test_the_report_and_the_code_table_agree_on_extension_unreadable(tmp_path):
    rc, d, _ = _doctor("--extension", str(tmp_path / "gone.so"), "--layer", "loader")
    f = _codes(d)["extension_unreadable"]
    assert f["severity"] == CODES["extension_unreadable"].severity
    md = (ROOT / "smrnb" / "doctor" / "CODES.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| `extension_unreadable`"))
    assert f"| {f['severity']} |" in row


# ------------------------------------------------------------------ M10: a FIFO is never opened

@needs_gcc
def test_a_fifo_is_refused_at_once_and_the_rest_of_the_layer_checked(tmp_path):
    fifo = tmp_path / "fifo.so"
    os.mkfifo(fifo)
    good = _gcc(tmp_path / "good.cpython-311-x86_64-linux-gnu.so", "int f(void){return 1;}\n")
    rc, d, _ = _doctor("--extension", str(fifo), "--extension", str(good), "--layer", "loader", "--layer", "abi",
                       timeout=30)  # subprocess.TimeoutExpired (a failure) if it blocks on the FIFO
    c = _codes(d)
    assert "fifo.so: not a regular file" in c["extension_unreadable"]["title"], d["findings"]
    lf = d["facts"]["loader"]
    assert lf["status"] == "ok" and lf["elapsed_s"] < 10, lf
    assert "good.cpython-311-x86_64-linux-gnu.so" in c["extension_ok"]["title"]


# ------------------------------------------------------------------ L1: extension_ok says what was checked

def test_extension_ok_names_only_what_was_checked():
    np = pytest.importorskip("numpy")
    import glob

    mods = sorted(glob.glob(os.path.join(os.path.dirname(np.__file__), "_core", "_multiarray_umath*.so")) +
                  glob.glob(os.path.join(os.path.dirname(np.__file__), "core", "_multiarray_umath*.so")))
    if not mods:
        pytest.skip("numpy without _multiarray_umath .so")
    rc, d, _ = _doctor("--extension", mods[0], "--layer", "loader", "--layer", "abi")
    f = _codes(d)["extension_ok"]
    ext = next(e for e in d["facts"]["abi"]["extensions"] if e["path"] == mods[0])
    assert ext["torch_undefined"] == 0 and not ext.get("has_gpu_code")
    assert "torch symbols" not in f["title"] and "GPU code" not in f["title"], f
    assert "NEEDED" in f["title"] and "plain C symbols are defined" in f["title"], f
