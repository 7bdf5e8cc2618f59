# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 36, C: what round 36 left of the live doctor and its options (session 37).

* M5: a silent ``nvidia-smi`` exiting 9 was a confident ``gpu_not_exposed_to_process``; nvidia-smi(1)'s RETURN VALUE
  documents 9 as "NVIDIA driver is not loaded".
* M11: a damaged ``libc10.so`` on LD_LIBRARY_PATH (ld.so takes it before torch's own, whose libraries carry DT_RUNPATH)
  went unseen by the loader layer; the one fix offered was "reinstall".
* ``--layer loader`` alone did not report a plain undefined symbol; ``--layer abi`` alone did not report a missing
  NEEDED library.
* The lows: ``--package yaml`` (PyYAML), ``fix kernelspec`` name errors' exit status, ``codes --json``, empty or relative
  LD_LIBRARY_PATH entries, the public API's argument checks.

Every test runs the CLI in a subprocess or calls the public API, as a user does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "smrnb.doctor.cli"]
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed: the test .so files are built "
                                                                    "with it")


def _doctor(*args: str, env: dict[str, str] | None = None, cwd: str | None = None,
            timeout: float = 120) -> tuple[int, dict, str]:
    p = subprocess.run([*CLI, *args, "--json"], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                       env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else {}), p.stderr


def _codes(d: dict) -> dict[str, dict]:
    return {f["code"]: f for f in d["findings"]}


def _fake_smi(tmp_path: Path, body: str) -> dict[str, str]:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    smi = bindir / "nvidia-smi"
    smi.write_text("#!/bin/sh\n" + body + "\n")
    smi.chmod(0o755)
    return {"PATH": f"{bindir}:{os.environ['PATH']}"}


# ------------------------------------------------------------------ M5: nvidia-smi's exit status 9

def test_a_silent_nvidia_smi_exiting_9_is_read_as_its_man_page_says(tmp_path):
    rc, d, err = _doctor("--layer", "driver", env=_fake_smi(tmp_path, "exit 9"))
    c = _codes(d)
    assert "gpu_not_exposed_to_process" not in c and "no_gpu" not in c, d["findings"]
    f = c["driver_broken"]
    assert "status 9" in f["title"] and "NVIDIA driver is not loaded" in f["title"]
    assert any("printed nothing" in e and "nvidia-smi(1)" in e for e in f["evidence"])
    assert d["facts"]["driver"]["broken_kind"] == "not_loaded" and d["facts"]["driver"]["exit_status_only"] is True


def test_other_failures_of_nvidia_smi_keep_their_reading(tmp_path):
    """Exit 6 with "No devices were found" is a driver without a GPU, as before; the driver's own words keep theirs."""
    _, d, _ = _doctor("--layer", "driver", env=_fake_smi(tmp_path, "echo 'No devices were found'; exit 6"))
    assert d["facts"]["driver"]["status"] == "absent" and "driver_broken" not in _codes(d)
    (tmp_path / "b").mkdir()
    _, d, _ = _doctor("--layer", "driver", env=_fake_smi(
        tmp_path / "b", "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\"; exit 9"))
    f = _codes(d)["driver_broken"]
    assert "exit_status_only" not in d["facts"]["driver"] and "status 9" not in f["title"]


# ------------------------------------------------------------------ M11: a copy of torch's library on LD_LIBRARY_PATH

def _torch_lib(name: str) -> Path:
    p = subprocess.run([sys.executable, "-c", "import importlib.util, os; s = importlib.util.find_spec('torch'); "
                        "print(os.path.dirname(s.origin) if s else '')"], capture_output=True, text=True, timeout=60)
    lib = Path(p.stdout.strip() or "/nonexistent") / "lib" / name
    if not lib.is_file():
        pytest.skip(f"torch's {name} is not installed here")
    return lib


def test_a_damaged_torch_library_on_ld_library_path_is_named_with_its_folder(tmp_path):
    own = _torch_lib("libc10.so")
    bad = tmp_path / "badlib"
    bad.mkdir()
    (bad / "libc10.so").write_text("version https://git-lfs.github.com/spec/v1\n")
    rc, d, _ = _doctor("--layer", "loader", env={"LD_LIBRARY_PATH": str(bad)})
    f = _codes(d)["torch_library_shadowed"]
    assert rc == 1 and str(bad) in f["title"] and "libc10.so" in f["title"] and "damaged" in f["title"]
    assert any(str(own) in e for e in f["evidence"])
    cmds = f["fix"]["commands"]
    assert any("LD_LIBRARY_PATH" in c and str(bad) in c for c in cmds)
    assert not any("reinstall" in c for c in cmds) and "Reinstalling torch changes nothing" in f["fix"]["why"]


def test_another_elf_named_as_torchs_library_is_a_shadowing_copy(tmp_path):
    _torch_lib("libc10.so")
    other = tmp_path / "other"
    other.mkdir()
    libm = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6", "/lib64/libm.so.6")
                 if os.path.isfile(p)), None)
    if libm is None:
        pytest.skip("no libm.so.6 to copy")
    shutil.copy(libm, other / "libc10.so")
    _, d, _ = _doctor("--layer", "loader", env={"LD_LIBRARY_PATH": f"/nonexistent:{other}"})
    f = _codes(d)["torch_library_shadowed"]
    assert str(other) in f["title"] and "libc10.so" in f["title"] and "another build" in f["title"]


def test_torchs_own_folder_on_ld_library_path_is_no_shadow(tmp_path):
    own = _torch_lib("libc10.so")
    _, d, _ = _doctor("--layer", "loader", env={"LD_LIBRARY_PATH": str(own.parent)})
    assert not d["facts"]["loader"]["torch_libs_shadowed"]
    assert "torch_library_shadowed" not in _codes(d)


# ------------------------------------------------------------------ each layer alone reports what belongs to it

UNDEF_SRC = "int frobnicate_v2(void); int f(void){return frobnicate_v2();}\n"


def _gcc(out: Path, source: str, *args: str) -> Path:
    src = out.parent / (out.name.split(".")[0] + "_src.c")
    src.write_text(source)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(out), str(src), *args], check=True, capture_output=True)
    return out


@needs_gcc
def test_layer_loader_alone_reports_a_plain_undefined_symbol(tmp_path):
    so = _gcc(tmp_path / "undef.cpython-311-x86_64-linux-gnu.so", UNDEF_SRC, "-lm")
    rc, d, _ = _doctor("--extension", str(so), "--layer", "loader")
    c = _codes(d)
    assert rc == 1 and "frobnicate_v2" in c["extension_undefined_symbol"]["title"], d["findings"]
    assert c["extension_undefined_symbol"]["layer"] == "loader"


@needs_gcc
def test_layer_abi_alone_reports_a_missing_needed_library(tmp_path):
    dep = _gcc(tmp_path / "libmissingdep.so", "int g(void){return 1;}\n")
    so = _gcc(tmp_path / "needs.so", "int g(void); int f(void){return g();}\n", f"-L{tmp_path}", "-lmissingdep")
    dep.unlink()
    rc, d, _ = _doctor("--extension", str(so), "--layer", "abi")
    c = _codes(d)
    assert rc == 1 and "libmissingdep.so" in c["library_not_found"]["title"], d["findings"]
    assert c["library_not_found"]["layer"] == "abi" and "extension_ok" not in c


# ------------------------------------------------------------------ L7: empty or relative LD_LIBRARY_PATH entries

@pytest.mark.parametrize("value, empty, relative", [
    ("::/usr/lib:", 3, []), (":/usr/lib", 1, []), ("/usr/lib:", 1, []),
    ("relative/lib:./x", 0, ["relative/lib", "./x"]), (".", 0, ["."]),
])
def test_empty_or_relative_ld_library_path_entries_get_a_warning(tmp_path, value, empty, relative):
    rc, d, _ = _doctor("--layer", "loader", env={"LD_LIBRARY_PATH": value}, cwd=str(tmp_path))
    f = _codes(d)["ld_library_path_relative"]
    assert f["severity"] == "warning" and "current directory" in f["title"]
    rel = d["facts"]["loader"]["ld_library_path_relative"]
    assert (rel["empty"], rel["relative"], rel["cwd"]) == (empty, relative, str(tmp_path))
    assert any("grep '^/'" in c for c in f["fix"]["commands"])


def test_absolute_ld_library_path_entries_get_no_such_warning(tmp_path):
    _, d, _ = _doctor("--layer", "loader", env={"LD_LIBRARY_PATH": "/usr/lib:/usr/local/lib"})
    assert "ld_library_path_relative" not in _codes(d) and d["facts"]["loader"]["ld_library_path_relative"] is None


# ------------------------------------------------------------------ L5: fix kernelspec's refused names are usage errors

def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def test_fix_kernelspec_name_refusals_exit_2_in_the_clis_words(tmp_path):
    spec = tmp_path / "kernels" / "mykernel"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({"argv": ["python", "-m", "ipykernel_launcher", "-f",
                                                           "{connection_file}"], "display_name": "mine",
                                                  "language": "python"}))
    env = {"JUPYTER_DATA_DIR": str(tmp_path), "HOME": str(tmp_path)}
    for name in ("mykernel", "MyKernel"):
        p = _cli("fix", "kernelspec", "--name", name, env=env)
        assert p.returncode == 2 and "existing kernelspec" in p.stderr and "--name" in p.stderr, p.stderr
        assert "force=True" not in p.stderr and "--force" in p.stderr
    for bad in ("-x", "a/b", "two words"):
        p = _cli("fix", "kernelspec", f"--name={bad}", "--dry-run", env=env)
        assert p.returncode == 2 and "--name" in p.stderr, (bad, p.stderr)
    assert sorted(os.listdir(tmp_path / "kernels")) == ["mykernel"]


# ------------------------------------------------------------------ L6: codes --json

@pytest.mark.parametrize("args", [("--json", "codes"), ("codes", "--json")])
def test_codes_as_json_wherever_json_is_given(args):
    p = _cli(*args)
    table = json.loads(p.stdout)
    md = (ROOT / "smrnb" / "doctor" / "CODES.md").read_text()
    assert p.returncode == 0 and len(table) == md.count("\n| `") and "driver_broken" in table
    assert table["driver_broken"]["layer"] == "driver" and table["driver_broken"]["severity"] == "error"


@pytest.mark.parametrize("args", [("--layer", "driver", "codes"), ("--extension", "x.so", "codes"),
                                  ("--json", "codes", "--write")])
def test_codes_refuses_options_it_cannot_honour(args):
    p = _cli(*args)
    assert p.returncode == 2 and "codes" in p.stderr and not p.stdout


# ------------------------------------------------------------------ L2: an import name given as --package

def test_an_import_name_given_as_package_names_its_distribution():
    from importlib.metadata import packages_distributions

    owners = packages_distributions().get("yaml")
    if not owners:
        pytest.skip("PyYAML is not installed here")
    p = _cli("--package", "yaml", "--layer", "abi")
    assert p.returncode == 2 and "no installed distribution named 'yaml'" in p.stderr
    assert f"import name of the distribution {owners[0]!r}" in p.stderr, p.stderr
    p = _cli("--package", "no-such-dist-r37c", "--layer", "abi")
    assert p.returncode == 2 and "import name" not in p.stderr


# ------------------------------------------------------------------ L9: the public API's argument checks

@pytest.mark.parametrize("kwargs, error, words", [
    ({"layers": []}, "SmrnbValueError", "layers must name at least one layer"),
    ({"layers": 5}, "SmrnbTypeError", "layers must be a layer name"),
    ({"layers": [None]}, "SmrnbTypeError", "layers must be layer names"),
    ({"layers": ["abi"], "extension_paths": b"/x.so"}, "SmrnbTypeError", "extension_paths must be"),
    ({"layers": ["abi"], "extension_paths": 5}, "SmrnbTypeError", "extension_paths must be"),
    ({"layers": ["abi"], "packages": ["numpy", None]}, "SmrnbTypeError", "packages must be names"),
    ({"layers": ["abi"], "packages": b"numpy"}, "SmrnbTypeError", "packages must be names"),
    ({"layers": ["context"], "import_check": "yes"}, "SmrnbTypeError", "import_check must be True or False"),
])
def test_diagnose_refuses_bad_arguments_naming_them(kwargs, error, words):
    import smrnb

    with pytest.raises(Exception) as exc:
        smrnb.diagnose(**kwargs)
    assert type(exc.value).__name__ == error and words in str(exc.value)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"live": "no"}, "SmrnbTypeError", "live must be True or False"),
    ({"layers": []}, "SmrnbValueError", "layers must name at least one layer"),
    ({"layers": 5}, "SmrnbTypeError", "layers must be a layer name"),
    ({"live": False, "layers": "bogus"}, "SmrnbValueError", "layers must be a subset"),
    ({"live": False, "timeout": -1}, "SmrnbValueError", "timeout must be > 0"),
])
def test_explain_refuses_bad_arguments_naming_them(kwargs, error, words):
    import smrnb

    with pytest.raises(Exception) as exc:
        smrnb.explain("Killed", **kwargs)
    assert type(exc.value).__name__ == error and words in str(exc.value)


# ------------------------------------------------------------------ L11: an nvidia-smi that floods is not "hung"

def test_a_flooding_nvidia_smi_is_not_called_hung(tmp_path):
    rc, d, _ = _doctor("--layer", "driver", env=_fake_smi(tmp_path, "head -c 20000000 /dev/zero | tr '\\0' x"))
    f = _codes(d)["driver_unavailable"]
    assert "output over" in d["facts"]["driver"]["reason"]
    assert "hung" not in f["fix"]["why"].lower() and "without end" in f["fix"]["why"]
    assert any("command -v nvidia-smi" in c for c in f["fix"]["commands"])


# ------------------------------------------------------------------ L4: a layer alone says what the full report says of it

@pytest.mark.parametrize("layer", ["toolkit", "loader", "abi"])
def test_a_layer_alone_has_the_findings_the_full_report_shows_under_it(layer):
    _, full, _ = _doctor("--timeout", "5")
    _, alone, _ = _doctor("--layer", layer, "--timeout", "5")
    assert sorted(f["code"] for f in alone["findings"]) == sorted(
        f["code"] for f in full["findings"] if f["layer"] == layer)


# ------------------------------------------------------------------ L10: variables holding a URL's credentials

def test_variables_holding_url_credentials_are_named_as_secret_never_shown():
    env = {"PIP_INDEX_URL": "https://alice:S3cretPassw0rd@pypi.example.org/simple",
           "HTTPS_PROXY": "http://bob:Pr0xyPassw0rd@proxy:3128", "NO_PROXY": "localhost,127.0.0.1",
           "MY_MIRROR": "https://pypi.example.org/simple"}
    _, d, _ = _doctor("--layer", "context", env=env)
    names = d["facts"]["context"]["secret_variable_names"]
    assert {"PIP_INDEX_URL", "HTTPS_PROXY"} <= set(names) and not {"NO_PROXY", "MY_MIRROR"} & set(names)
    assert "S3cretPassw0rd" not in json.dumps(d) and "Pr0xyPassw0rd" not in json.dumps(d)
