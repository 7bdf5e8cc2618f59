# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 30 (the doctor on a machine, from the docs only): what it found, held here.

* X01: ``--extension`` called a module fine whose plain C symbol nothing defines (``import`` fails with
  ``undefined symbol``): the abi probe now looks plain undefined symbols up in everything the module can be bound
  to, and the loader layer reports ``extension_undefined_symbol``.
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
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


def _doctor(*args: str, env: dict | None = None) -> tuple[int, dict]:
    p = subprocess.run([*CLI, *args, "--json"], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    return p.returncode, json.loads(p.stdout)


def _gcc(path: Path, source: str, *args: str) -> Path:
    src = path.parent / (path.name.split(".")[0] + "_src.c")
    src.write_text(source)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(path), str(src), *args], check=True, capture_output=True)
    return path


def _ext(d: Path, name: str, source: str, *args: str) -> Path:
    return _gcc(d / f"{name}.cpython-311-x86_64-linux-gnu.so", source, *args)


def _codes(d: dict) -> dict[str, dict]:
    return {f["code"]: f for f in d["findings"]}


@needs_gcc
def test_a_plain_symbol_nothing_defines_is_an_undefined_symbol_not_fine(tmp_path):
    so = _ext(tmp_path, "undefmod", "extern int frobnicate_v2(int);\nint PyInit_undefmod(void){return frobnicate_v2(3);}")
    # what Python itself says of this module
    p = subprocess.run([sys.executable, "-c", "import undefmod"], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert "undefined symbol: frobnicate_v2" in p.stderr
    rc, d = _doctor("--extension", str(so), "--layer", "loader", "--layer", "abi")
    c = _codes(d)
    assert rc == 1 and "extension_ok" not in c, d["findings"]
    f = c["extension_undefined_symbol"]
    assert f["severity"] == "error" and "frobnicate_v2" in f["title"] and "undefmod" in f["title"]
    assert any("frobnicate_v2" in cmd for cmd in f["fix"]["commands"])


@needs_gcc
def test_python_api_libc_libm_and_needed_libraries_define_their_symbols(tmp_path):
    lib = _gcc(tmp_path / "libsmrtwo.so", "int two(void){return 2;}")
    _gcc(tmp_path / "libsmrone.so", "extern int two(void); int one(void){return two() - 1;}",
         f"-L{tmp_path}", "-lsmrtwo", f"-Wl,-rpath,{tmp_path}")
    src = ("#include <Python.h>\n#include <math.h>\nextern int one(void);\n"
           "PyObject* PyInit_goodmod(void){return PyFloat_FromDouble(sqrt((double)one()));}\n")
    inc = subprocess.run([sys.executable, "-c", "import sysconfig;print(sysconfig.get_paths()['include'])"],
                         capture_output=True, text=True).stdout.strip()
    so = _ext(tmp_path, "goodmod", src, f"-I{inc}", f"-L{tmp_path}", "-lsmrone", "-lm", f"-Wl,-rpath,{tmp_path}")
    rc, d = _doctor("--extension", str(so), "--layer", "loader", "--layer", "abi")
    assert rc == 0 and "extension_undefined_symbol" not in _codes(d) and "extension_ok" in _codes(d), d["findings"]
    # the library two levels down gone: the module's own names (one, the Python API) are still all defined; what
    # libsmrone lacks is the loader's finding of libsmrone, not an undefined symbol of this module
    lib.unlink()
    rc, d = _doctor("--extension", str(so), "--layer", "loader", "--layer", "abi")
    assert "extension_undefined_symbol" not in _codes(d), d["findings"]


@needs_gcc
def test_a_plugin_library_is_not_checked_alone(tmp_path):
    """A shared library that is no Python module (no PyInit_): a plugin loaded into a process that defines its plain
    names (nvshmem's PMIx bootstrap needs pmix_value_load from the MPI it is loaded into) is not called broken."""
    so = _gcc(tmp_path / "libsmrplugin.so", "extern int pmix_like_load(int);\nint boot(void){return pmix_like_load(1);}")
    rc, d = _doctor("--extension", str(so), "--layer", "loader", "--layer", "abi")
    assert "extension_undefined_symbol" not in _codes(d), d["findings"]


@needs_gcc
def test_a_missing_needed_library_is_reported_alone(tmp_path):
    dep = _gcc(tmp_path / "libsmrfoo.so.3", "int foo_answer(void){return 42;}", "-Wl,-soname,libsmrfoo.so.3")
    so = _ext(tmp_path, "needfoo", "extern int foo_answer(void); int g(void){return foo_answer();}",
              str(dep))
    dep.unlink()
    rc, d = _doctor("--extension", str(so), "--layer", "loader", "--layer", "abi")
    c = _codes(d)
    assert rc == 1 and "library_not_found" in c and "extension_undefined_symbol" not in c, d["findings"]


def test_every_compiled_module_of_this_environment_binds(tmp_path):
    """Every .so of the installed packages and of the standard library imports here (they are in use), so none may
    have a plain symbol the probe calls undefined."""
    import glob
    import sysconfig

    from smrnb.doctor._elf import read_elf
    from smrnb.doctor._ldso import load_ld_cache, resolve_needed
    from smrnb.doctor.probes._abi import _unresolved_plain

    cache = load_ld_cache()
    files = glob.glob(sysconfig.get_paths()["purelib"] + "/**/*.so", recursive=True)
    files += glob.glob(sysconfig.get_paths()["platstdlib"] + "/lib-dynload/*.so")
    checked, flagged = 0, {}
    for f in files:
        info = read_elf(f, symbols=True)
        got = resolve_needed(f, os.environ, mapped={}, ld_cache=cache, elsewhere=[]) if info else {}
        if info is None or got.get("missing"):
            continue
        plain = [s.name for s in info.undefined if not s.weak and s.version is None and not s.name.startswith("_Z")]
        checked += 1
        r = _unresolved_plain(plain, [e["path"] for e in got["resolved"].values() if e.get("path")])
        if r:
            flagged[f] = r[:3]
    assert checked > 20 and not flagged, flagged


def _live(cvd=None, gpus=None, slurm=None, driver="580.65.06", container=None, **drv):
    from smrnb.doctor.rules import evaluate

    g = [{"index": i, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "uuid": f"GPU-{i}aaa"}
         for i in range(2)] if gpus is None else gpus
    facts = {"driver": {"status": "ok" if g else "absent", "source": "nvidia-smi", "driver_version": driver if g else
                        None, "cuda_driver_version": "13.0" if g else None, "gpus": g, **drv},
             "torch": {"status": "ok", "installed": True, "version": "2.9.1+cpu", "version_base": "2.9.1", "cuda": None},
             "context": {"status": "ok", "cuda_visible_devices": cvd, "slurm": slurm, "container": container}}
    return {f.code: f for f in evaluate(facts, layers=["driver", "torch", "context"])}


@pytest.mark.parametrize("cvd", ["", "-1", "NoDevFiles", "2", "GPU-ffff", " -1,0"])
def test_a_cuda_visible_devices_that_shows_no_gpu_is_named(cvd):
    f = _live(cvd)["gpu_not_exposed_to_process"]
    assert f.severity == "error" and "CUDA_VISIBLE_DEVICES" in f.title
    assert any("unset CUDA_VISIBLE_DEVICES" in c for c in f.fix.commands)


@pytest.mark.parametrize("cvd", [None, "0", "1", "0,1", "1,0", "GPU-0", "GPU-1aaa", "MIG-abc"])
def test_a_cuda_visible_devices_that_shows_a_gpu_is_not_a_finding(cvd):
    assert "gpu_not_exposed_to_process" not in _live(cvd)


def test_a_slurm_job_with_no_device_is_not_given_one_not_a_cpu_machine():
    no_dev = dict(nvidia_smi="/usr/bin/nvidia-smi", reason="nvidia-smi failed: No devices were found")
    c = _live(gpus=[], slurm={"job_id": "48213"}, **no_dev)
    assert "no_gpu" not in c and c["gpu_not_exposed_to_process"].severity == "error"
    assert "48213" in c["gpu_not_exposed_to_process"].title
    assert any("--gres=gpu:1" in x for x in c["gpu_not_exposed_to_process"].fix.commands)
    # no job and no container: a driver that lists no device is a machine without one (as before)
    assert "no_gpu" in _live(gpus=[], **no_dev) and "gpu_not_exposed_to_process" not in _live(gpus=[], **no_dev)
    # no nvidia-smi at all in the job: nothing says a driver is there
    assert "gpu_not_exposed_to_process" not in _live(gpus=[], slurm={"job_id": "1"}, reason="no NVIDIA driver")


@pytest.mark.parametrize("driver,want", [("470.82.01", 'torch==2.7.*" --index-url https://download.pytorch.org/whl/cu118'),
                                         ("525.60.13", "whl/cu12")])
def test_a_cpu_torch_on_an_old_driver_gets_a_build_the_driver_runs(driver, want):
    from smrnb.doctor import tables

    f = _live(driver=driver)["cpu_only_torch_with_gpu"]
    cmds = " ".join(f.fix.commands)
    assert want in cmds and "choose the CUDA variant on pytorch.org" not in cmds, cmds
    if tables.torch_cuda_variants("2.9.1") is not None and driver.startswith("470"):
        assert "no CUDA build of torch 2.9.1 runs on driver 470.82.01" in cmds


def test_a_package_with_no_compiled_module_is_named_in_every_form(tmp_path):
    site = tmp_path / "site"
    (site / "puredemo").mkdir(parents=True)
    (site / "puredemo" / "__init__.py").write_text("")
    info = site / "puredemo-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: puredemo\nVersion: 1.0\n")
    (info / "RECORD").write_text("puredemo/__init__.py,,\npuredemo-1.0.dist-info/METADATA,,\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    for form in ([], ["--markdown"]):
        p = subprocess.run([*CLI, "--package", "puredemo", "--layer", "loader", *form], capture_output=True, text=True,
                           timeout=120, env=env)
        assert "puredemo" in p.stdout and "no compiled module" in p.stdout, (form, p.stdout[-2000:])
    html = subprocess.run([sys.executable, "-c", "import smrnb.doctor as d; print(d.diagnose(layers=['loader'], "
                           "packages=['puredemo'])._repr_html_())"], capture_output=True, text=True, timeout=120,
                          env=env).stdout
    assert "puredemo" in html and "no compiled module" in html, html[-2000:]


@pytest.mark.parametrize("tcuda,env,want", [(None, "/opt/cuda-nonvcc", "info"), ("12.4", "/opt/cuda-nonvcc", "warning"),
                                            (None, None, None)])
def test_a_cuda_home_with_no_nvcc_is_said(tcuda, env, want):
    from smrnb.doctor.rules import evaluate

    facts = {"torch": {"status": "ok", "installed": True, "version": "2.9.1" + (f"+cu{tcuda.replace('.', '')}" if tcuda
                                                                                  else "+cpu"), "cuda": tcuda},
             "toolkit": {"status": "ok", "nvccs": [], "build_nvcc": None, "build_nvcc_version": None,
                         "build_cuda_home": env or "/usr/local/cuda", "cuda_home_env": env}}
    found = [f for f in evaluate(facts, layers=["toolkit"]) if f.code == "cuda_home_missing"]
    assert [f.severity for f in found] == ([want] if want else []), found
    if want == "info":
        assert "/opt/cuda-nonvcc" in found[0].title and "bin/nvcc" in found[0].title


def _tk(*nvccs, prov="live", tcuda=None):
    return {"toolkit": {"nvccs": list(nvccs), "provenance": {"nvccs": prov}}, "torch": {"cuda": tcuda}}


WRAP = {"path": "/usr/local/bin/nvcc", "paths": ["/usr/local/bin/nvcc"], "version": "13.0", "has_headers": False}
REAL = {"path": "/usr/local/cuda/bin/nvcc", "paths": ["/usr/local/cuda/bin/nvcc", "/usr/local/cuda-13.0/bin/nvcc"],
        "version": "13.0", "has_headers": True}
CMD = "export CUDA_HOME=/usr/local/cuda-<x.y> PATH=/usr/local/cuda-<x.y>/bin:$PATH"


@pytest.mark.parametrize("facts,want", [
    (_tk(WRAP, REAL), "/usr/local/cuda-13.0"),
    (_tk(WRAP, REAL, tcuda="13.0"), "/usr/local/cuda-13.0"),
    (_tk(WRAP, REAL, prov="text"), None),  # a text's nvcc is another machine's
    (_tk(WRAP, REAL, tcuda="12.4"), None),  # torch's CUDA is another release
    (_tk(REAL, dict(REAL, paths=["/opt/cuda-12.4/bin/nvcc"], version="12.4")), None),  # two releases: which?
    (_tk(WRAP), None),  # only a wrapper without headers
])
def test_a_toolkit_placeholder_is_filled_from_the_one_toolkit_this_machine_has(facts, want):
    from smrnb.doctor._printed import _one_live_toolkit

    got = _one_live_toolkit(CMD, facts)
    assert got == (CMD.replace("/usr/local/cuda-<x.y>", want) if want else CMD)


def _e02() -> str:
    """This machine's own "Torch not compiled with CUDA enabled" (its torch's path in the traceback)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    cuda_init = os.path.join(os.path.dirname(spec.origin), "cuda", "__init__.py") if spec and spec.origin else ""
    return ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    x = torch.zeros(3).cuda()\n'
            f'  File "{cuda_init}", line 403, in _lazy_init\n'
            '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
            'AssertionError: Torch not compiled with CUDA enabled\n')


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has an NVIDIA driver (nvidia-smi)")
def test_explain_on_a_machine_without_a_gpu_does_not_offer_a_cuda_torch():
    from smrnb.doctor import explain
    from smrnb.doctor._model import ProbeContext

    E02 = _e02()
    live = explain(E02, live=True, ctx=ProbeContext(timeout=5.0))
    assert (live.facts.get("driver") or {}).get("status") == "absent", live.facts.get("driver")  # merged, not alone
    codes = [f.code for f in live.findings]
    assert codes[:1] == ["no_gpu"] and "cpu_only_torch_with_gpu" not in codes, codes
    assert not any("force-reinstall torch" in c for f in live.findings if f.fix for c in f.fix.commands)
    # the text read alone (another machine's, or --offline): the CPU build is the reading, as before
    assert [f.code for f in explain(E02, live=False).findings][:1] == ["cpu_only_torch_with_gpu"]
    # a text that names its own GPU is another machine's: not decided by this one
    named = E02 + "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1234)\n"
    assert "no_gpu" not in [f.code for f in explain(named, live=True, ctx=ProbeContext(timeout=5.0)).findings][:1]


@pytest.mark.parametrize("name,runtime", [
    ("_ZSt17__throw_bad_allocv", True), ("_ZNSt13basic_filebufIcSt11char_traitsIcEEC1EOS2_", True),
    ("_ZNSs4_Rep20_S_empty_rep_storageE", True), ("_ZTTSt14basic_ifstreamIcSt11char_traitsIcEE", True),
    ("_ZTTNSt7__cxx1119basic_istringstreamIwSt11char_traitsIwESaIwEEE", True), ("_ZTISt9exception", True),
    ("_ZTVN10__cxxabiv117__class_type_infoE", True), ("_ZNKSt9type_info15__is_function_pEv", True),
    ("_Znwm", True), ("_ZdlPvm", True), ("_ZThn16_NSt9basic_iosIcSt11char_traitsIcEED0Ev", True),
    # torch's and an extension's own names stay checked
    ("_ZN3c105ErrorC2ENS_14SourceLocationESs", False), ("_Z16THPVariable_WrapN2at10TensorBaseE", False),
    ("_ZTVN3c1011StorageImplE", False), ("_ZNK2at6Tensor7is_cudaEv", False)])
def test_the_cxx_runtime_names_are_libstdcxx_not_torch(name, runtime):
    from smrnb.doctor.probes._abi import CXX_RUNTIME_SYMBOL

    assert bool(CXX_RUNTIME_SYMBOL.match(name)) is runtime
