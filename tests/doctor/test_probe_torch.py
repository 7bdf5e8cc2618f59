# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Torch-build probe on fabricated site-packages with real ELF libraries built by gcc here."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smrnb.doctor._model import ProbeContext, Runner
from smrnb.doctor.probes import _torch_build as torch_build
from smrnb.doctor.rules import evaluate
from smrnb.doctor.rules._torch import arch_covers

pytestmark = pytest.mark.skipif(not shutil.which("g++"), reason="needs g++ to build test ELF files")

CXX_SRC = '#include <string>\nstd::string c10_name(const std::string& s) { return s + "x"; }\n'


def gxx(out: Path, src: str, *flags: str) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    c = out.with_suffix(".cpp")
    c.write_text(src)
    subprocess.run(["g++", "-shared", "-fPIC", "-o", str(out), str(c), *flags], check=True, timeout=60,
                   capture_output=True)
    c.unlink()
    return out


def write_dist(site: Path, name: str, version: str) -> None:
    d = site / f"{name.replace('-', '_')}-{version}.dist-info"
    d.mkdir(parents=True)
    (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


VERSION_PY = """from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'rocm', 'xpu']
__version__ = '2.11.0+cu130'
debug = False
cuda: Optional[str] = '13.0'
git_version = '70d99e998b5d5d9fc0b1d3b0a6a2b4c1b61e2c3d'
hip: Optional[str] = None
rocm: Optional[str] = None
xpu: Optional[str] = None
"""


@pytest.fixture(scope="module")
def cu130_site(tmp_path_factory):
    """site-packages with torch 2.11.0+cu130: libc10.so (new ABI), libtorch_cuda.so NEEDing
    libcudart.so.13 through RPATH $ORIGIN/../../nvidia/cu13/lib, and the nvidia-cuda-runtime wheel."""
    site = tmp_path_factory.mktemp("site")
    lib = site / "torch" / "lib"
    (site / "torch" / "__init__.py").parent.mkdir(parents=True)
    (site / "torch" / "__init__.py").write_text("raise RuntimeError('the probe must not import torch')\n")
    (site / "torch" / "version.py").write_text(VERSION_PY)
    gxx(lib / "libc10.so", CXX_SRC, "-D_GLIBCXX_USE_CXX11_ABI=1")
    cudart = gxx(site / "nvidia" / "cu13" / "lib" / "libcudart.so.13", "int cudaRuntimeGetVersion(int*v){*v=13000;return 0;}\n",
                 "-Wl,-soname,libcudart.so.13")
    gxx(lib / "libtorch_cuda.so", "extern int cudaRuntimeGetVersion(int*); int f(){int v; return cudaRuntimeGetVersion(&v);}\n",
        f"-L{cudart.parent}", "-l:libcudart.so.13", "-Wl,--disable-new-dtags",
        "-Wl,-rpath,$ORIGIN/../../nvidia/cu13/lib:$ORIGIN")
    write_dist(site, "torch", "2.11.0+cu130")
    write_dist(site, "nvidia-cuda-runtime", "13.0.96")
    write_dist(site, "nvidia-ml-py", "13.615.71")
    return site


def ctx() -> ProbeContext:
    return ProbeContext(run=Runner(), environ={"PATH": "/usr/bin:/bin"})


def test_cu130_wheel_facts(cu130_site):
    facts = torch_build.probe(ctx(), site_dirs=[str(cu130_site)])
    assert facts["status"] == "ok" and facts["installed"]
    assert facts["version"] == "2.11.0+cu130" and facts["version_base"] == "2.11.0"
    assert facts["cuda"] == "13.0" and facts["hip"] is None
    assert facts["imported"] is False
    assert facts["cxx11_abi"] is True and facts["cxx11_abi_from"] == "libc10.so dynamic symbols"
    assert facts["nvidia_wheels"] == {"nvidia-cuda-runtime": "13.0.96"}  # nvidia-ml-py is not a CUDA lib
    assert facts["cuda_runtime_libs"] == [{"name": "libcudart.so.13",
                                           "path": str(cu130_site / "nvidia/cu13/lib/libcudart.so.13"),
                                           "origin": "pip-wheel"}]
    assert "torch" not in sys.modules or sys.modules["torch"].__file__ != str(cu130_site / "torch/__init__.py")
    json.dumps(facts)
    found = {f.code: f for f in evaluate({"torch": facts}, layers=["torch"])}
    assert "pip-wheel" in found["torch_cuda_runtime"].title


def test_old_abi_libc10(tmp_path):
    site = tmp_path / "site"
    (site / "torch").mkdir(parents=True)
    (site / "torch" / "version.py").write_text("__version__ = '2.6.0+cu124'\ncuda = '12.4'\n")
    gxx(site / "torch" / "lib" / "libc10.so", CXX_SRC, "-D_GLIBCXX_USE_CXX11_ABI=0")
    facts = torch_build.probe(ctx(), site_dirs=[str(site)])
    assert facts["cxx11_abi"] is False
    assert facts["cuda"] == "12.4" and facts["cuda_runtime_libs"] == []


def test_no_torch_is_absent(tmp_path):
    facts = torch_build.probe(ctx(), site_dirs=[str(tmp_path)])
    assert facts["status"] == "absent" and facts["installed"] is False
    found = evaluate({"torch": facts}, layers=["torch"])
    assert [f.code for f in found] == ["torch_not_installed"]


@pytest.mark.parametrize("text", ["", "\x00\xff garbage", "cuda = open('/etc/passwd').read()\n__version__ = 7\n",
                                  "cuda: Optional[str] = 'thirteen'\n"])
def test_garbage_version_py_never_raises(tmp_path, text):
    site = tmp_path / "site"
    (site / "torch" / "lib").mkdir(parents=True)
    (site / "torch" / "version.py").write_text(text, errors="replace")
    (site / "torch" / "lib" / "libc10.so").write_bytes(b"\x7fELF not really")
    facts = torch_build.probe(ctx(), site_dirs=[str(site)])
    assert facts["installed"] and facts["cuda"] is None and facts["cxx11_abi"] is None
    json.dumps(facts)


def test_the_real_torch_of_this_machine():
    facts = torch_build.probe(ctx())
    if not facts["installed"]:
        pytest.skip("torch not installed")
    import importlib.metadata as md

    assert facts["version"] == md.version("torch")
    if "+cpu" in facts["version"]:
        assert facts["cuda"] is None and facts["cuda_runtime_libs"] == []
    # torch >= 2.7 pip wheels use the new C++ ABI (and so does every build here)
    assert facts["cxx11_abi"] in (True, False)


def test_import_check_uses_a_subprocess(tmp_path):
    """With ctx.import_check the arch list comes from a child python (here a fake one printing the
    H200's real answers), never from importing torch in this process."""
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\necho \'{"cxx11_abi": true, "cuda_available": true, '
                    '"arch_list": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]}\'\n')
    fake.chmod(0o755)
    site = tmp_path / "site"
    (site / "torch").mkdir(parents=True)
    (site / "torch" / "version.py").write_text(VERSION_PY)
    c = ProbeContext(run=Runner(), environ={"PATH": "/usr/bin:/bin"}, import_check=True, python=str(fake))
    facts = torch_build.probe(c, site_dirs=[str(site)])
    assert facts["arch_list"] == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert facts["cuda_available"] is True and facts["cxx11_abi_from"] == "torch._C"
    drv = {"status": "ok", "driver_version": "580.159.04",
           "gpus": [{"name": "NVIDIA H200", "compute_capability": "9.0"}]}
    found = evaluate({"torch": facts, "driver": drv}, layers=["torch"])
    assert not [f for f in found if f.severity in ("error", "warning")]
    assert "torch_gpu_arch_ok" in {f.code for f in found}


def test_arch_covers():
    h200 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert arch_covers(h200, "9.0") == (True, "sm_90 cubins")
    assert arch_covers(h200, "8.9")[0] is True  # sm_86 cubins run on 8.9
    assert arch_covers(["sm_80", "sm_90a"], "9.0") == (True, "sm_90 cubins")
    assert arch_covers(["sm_80", "sm_90a"], "10.0")[0] is False
    assert arch_covers(["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"], "12.0")[0] is False
    assert arch_covers(["sm_80", "compute_90"], "12.0") == (True, "compute_90 PTX, JIT-compiled at first use")
    assert arch_covers(["sm_75", "sm_80"], "6.1")[0] is False


def test_rules_blackwell_on_cu126_and_cpu_torch_on_gpu():
    drv = {"status": "ok", "driver_version": "575.51.03",
           "gpus": [{"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}]}
    torch = {"status": "ok", "installed": True, "version": "2.7.1+cu126", "version_base": "2.7.1", "cuda": "12.6",
             "arch_list": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]}
    found = {f.code: f for f in evaluate({"torch": torch, "driver": drv}, layers=["torch"])}
    assert found["torch_wheel_lacks_gpu_arch"].severity == "error"
    cpu = {"status": "ok", "installed": True, "version": "2.7.1+cpu", "version_base": "2.7.1", "cuda": None}
    found = {f.code: f for f in evaluate({"torch": cpu, "driver": drv}, layers=["torch"])}
    assert found["cpu_only_torch_with_gpu"].severity == "warning"
    assert "whl/cu128" in found["cpu_only_torch_with_gpu"].fix.commands[0]  # newest variant driver 575 runs
