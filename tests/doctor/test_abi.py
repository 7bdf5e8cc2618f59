# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The ABI layer on extensions built here with g++: undefined ``c10::`` symbols looked up statically
in a fake libc10.so and in the installed torch's, predictions checked against the real loader."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from smrnb.doctor._model import ProbeContext
from smrnb.doctor.probes import _abi as abi_probe
from smrnb.doctor.probes import _loader as loader_probe
from smrnb.doctor.rules import evaluate

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not on PATH (needed to build test ELF files)")

NVCC = next((p for p in ("/usr/local/cuda-13.0/bin/nvcc", shutil.which("nvcc") or "") if p and os.path.isfile(p)),
            None)

C10_DECL = """#include <string>
namespace c10 {
struct Error { Error(std::string msg); char pad[64]; };
int foo(int);
int bar_v2(int);
void gone(std::string);
}
"""


def sh(argv: list[str], timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    res = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False, env=env)
    assert res.returncode == 0, f"{argv}: {res.stderr}"
    return res


def gxx(out: Path, code: str, *flags: str) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.with_suffix(".cpp")
    src.write_text(code)
    sh(["g++", "-shared", "-fPIC", "-o", str(out), str(src), *flags])
    return out


def load_in_child(*paths: Path) -> tuple[bool, str]:
    """dlopen ``paths`` in order (RTLD_GLOBAL | RTLD_NOW, like Python's extension import)."""
    code = ["import ctypes, os, sys", "try:"]
    code += [f"    ctypes.CDLL({str(p)!r}, mode=ctypes.RTLD_GLOBAL | os.RTLD_NOW)" for p in paths]
    code += ["except OSError as e:", "    print(e); sys.exit(3)"]
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    res = subprocess.run([sys.executable, "-c", "\n".join(code)], capture_output=True, text=True, timeout=60,
                         check=False, env=env)
    return res.returncode == 0, res.stdout + res.stderr


@pytest.fixture(scope="module")
def fake(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("abi")
    site = d / "site-packages"
    lib = site / "torch" / "lib"
    (site / "torch").mkdir(parents=True)
    (site / "torch" / "__init__.py").write_text("")
    out: dict[str, Path] = {"site": site, "lib": lib}
    # torch built with the new ABI defines only the std::__cxx11 spelling; no bar_v2 / gone at all
    out["c10"] = gxx(lib / "libc10.so", C10_DECL + "namespace c10 { Error::Error(std::string m){ pad[0] = m.size(); }"
                     " int foo(int x){ return x + 1; } }\n", "-D_GLIBCXX_USE_CXX11_ABI=1", "-Wl,-soname,libc10.so")
    gxx(lib / "libtorch_global_deps.so", "namespace c10 { int foo(int); } int g(){ return c10::foo(1); }",
        f"-L{lib}", "-lc10", "-Wl,-rpath,$ORIGIN", "-Wl,--enable-new-dtags")
    # torch/_C*.so -> libtorch_python.so (RUNPATH $ORIGIN/lib), as in the real wheel: import torch maps it
    gxx(lib / "libtorch_python.so", "int THPFake_Wrap(int x){ return x; }\n", "-Wl,-soname,libtorch_python.so")
    gxx(site / "torch" / "_C.cpython-311-x86_64-linux-gnu.so", "int THPFake_Wrap(int); int m(){ return THPFake_Wrap(1); }",
        f"-L{lib}", "-ltorch_python", "-Wl,-rpath,$ORIGIN/lib", "-Wl,--enable-new-dtags")
    out["global"] = gxx(d / "ext" / "libext_global.so", "int THPFake_Wrap(int); int THPGone(int);\n"
                        "int use(){ return THPFake_Wrap(1) + THPGone(2); }\n", f"-L{lib}", "-ltorch_python")
    use = "int use(){ c10::Error e(std::string(\"x\")); return c10::foo(1); }\n"
    link = (f"-L{lib}", "-lc10")
    out["old"] = gxx(d / "ext" / "libext_old.so", C10_DECL + use, "-D_GLIBCXX_USE_CXX11_ABI=0", *link)
    out["new"] = gxx(d / "ext" / "libext_new.so", C10_DECL + use, "-D_GLIBCXX_USE_CXX11_ABI=1", *link)
    out["missing"] = gxx(d / "ext" / "libext_missing.so", C10_DECL + "int use(){ c10::gone(std::string(\"x\")); "
                         "return c10::bar_v2(1) + c10::foo(2); }\n", "-D_GLIBCXX_USE_CXX11_ABI=1", *link)
    out["missing_old"] = gxx(d / "ext" / "libext_missing_old.so", C10_DECL + "void use(){ c10::gone(std::string(\"x\"));"
                             " }\n", "-D_GLIBCXX_USE_CXX11_ABI=0", *link)
    return out


def run_layers(paths: list[Path], fake: dict[str, Path], gpus: list[dict] | None = None,
               torch_facts: dict | None = None) -> ProbeContext:
    # a fabricated /proc/self: this test process has the real torch mapped (conftest imports it), and
    # its libc10.so / libtorch_python.so would satisfy the fake extensions' NEEDED by soname
    proc = fake["site"].parent / "proc"
    proc.mkdir(exist_ok=True)
    (proc / "maps").write_text("")
    (proc / "environ").write_bytes(b"PATH=/usr/bin\0")
    ctx = ProbeContext(extension_paths=[str(p) for p in paths], proc_self=str(proc), environ={"PATH": "/usr/bin"})
    ctx.facts["torch"] = torch_facts if torch_facts is not None else {
        "status": "ok", "installed": True, "lib_dir": str(fake["lib"]), "version": "2.11.0+cu130", "cuda": "13.0",
        "cxx11_abi": None}
    ctx.facts["driver"] = {"status": "ok", "gpus": gpus or []}
    ctx.facts["loader"] = loader_probe.probe(ctx, site_dirs=[str(fake["site"])])
    ctx.facts["abi"] = abi_probe.probe(ctx, site_dirs=[str(fake["site"])])
    json.dumps(ctx.facts["abi"])
    return ctx


def _by_path(ctx: ProbeContext) -> dict[str, dict]:
    return {e["path"]: e for e in ctx.facts["abi"]["extensions"]}


def test_old_abi_extension_predicted_to_fail_and_classified_as_abi_flag(fake):
    ctx = run_layers([fake["old"], fake["new"]], fake)
    assert ctx.facts["abi"]["torch_cxx11_abi"] is True  # read off libc10.so's symbols
    by = _by_path(ctx)
    old, new = by[str(fake["old"])], by[str(fake["new"])]
    assert old["torch_undefined"] == 2 and old["unresolved_count"] == 1
    (u,) = old["unresolved"]
    assert u["mangled"] == "_ZN3c105ErrorC1ESs" and u["abi"] == "old" and u["other_abi_defined"] is True
    assert u["diagnosis"] == "cxx11_abi_mismatch"
    assert u["demangled"].startswith("c10::Error::Error(std::")
    assert old["uses_old_abi"] and not old["uses_cxx11_abi"]
    assert new["unresolved"] == [] and new["uses_cxx11_abi"] and new["torch_undefined"] == 2
    # the real loader agrees with both predictions
    ok, err = load_in_child(fake["c10"], fake["old"])
    assert not ok and "undefined symbol: _ZN3c105ErrorC1ESs" in err
    assert load_in_child(fake["c10"], fake["new"])[0]
    found = {(f.code, os.path.basename(f.title.split(":")[0].split(" ")[0])) for f in evaluate(ctx.facts, ["abi"])}
    assert ("cxx11_abi_mismatch", "libext_old.so") in found
    assert ("extension_ok", "libext_new.so") in found
    assert not any(code == "abi_torch_version_mismatch" for code, _ in found)


def test_symbols_missing_in_both_abis_mean_another_torch_version(fake):
    ctx = run_layers([fake["missing"], fake["missing_old"]], fake)
    by = _by_path(ctx)
    miss = by[str(fake["missing"])]
    diag = {u["demangled"].split("(")[0]: (u["abi"], u["diagnosis"]) for u in miss["unresolved"]}
    assert diag == {"c10::bar_v2": ("none", "abi_torch_version_mismatch"),
                    "c10::gone": ("cxx11", "abi_torch_version_mismatch")}
    (u,) = by[str(fake["missing_old"])]["unresolved"]
    assert u["abi"] == "old" and u["other_abi_defined"] is False and u["diagnosis"] == "abi_torch_version_mismatch"
    ok, err = load_in_child(fake["c10"], fake["missing"])
    assert not ok and "undefined symbol: _ZN3c10" in err
    codes = sorted(f.code for f in evaluate(ctx.facts, ["abi"]))
    assert codes == ["abi_torch_version_mismatch", "abi_torch_version_mismatch"]
    f = next(f for f in evaluate(ctx.facts, ["abi"]) if "libext_missing.so" in f.title)
    assert any("c10::bar_v2(int)" in e for e in f.evidence)
    assert any("--force-reinstall" in c for c in f.fix.commands)


def test_global_namespace_torch_symbols_are_checked_too(fake):
    ctx = run_layers([fake["global"]], fake)
    (e,) = ctx.facts["abi"]["extensions"]
    assert e["torch_undefined"] == 0 and e["unresolved_count"] == 1
    assert e["defined_in"]["libtorch_python.so"] == 1
    (u,) = e["unresolved"]
    assert u["demangled"] == "THPGone(int)" and u["diagnosis"] == "abi_torch_version_mismatch"
    lres = ctx.facts["loader"]["extensions"][0]["resolved"]["libtorch_python.so"]
    assert lres["via"] == "already-loaded" and lres["loaded_by"] == "import torch"


def test_torch_abi_flag_from_torch_facts_wins(fake):
    facts = {"status": "ok", "installed": True, "lib_dir": str(fake["lib"]), "cxx11_abi": False}
    ctx = run_layers([fake["new"]], fake, torch_facts=facts)
    assert ctx.facts["abi"]["torch_cxx11_abi"] is False and ctx.facts["abi"]["torch_cxx11_abi_from"] == "torch facts"


@pytest.mark.parametrize(("cc", "archs", "ptx", "ok", "via"), [
    ("9.0", ["sm_80"], [], False, None),                    # the kaolin sm_80-only build on the H200
    ("8.6", ["sm_80"], [], True, "sm_80"),                  # binary compatible within major 8
    ("8.0", ["sm_86"], [], False, None),                    # not backwards
    ("9.0", ["sm_80"], ["compute_80"], True, "compute_80 (PTX JIT)"),
    ("7.5", ["sm_80"], ["compute_80"], False, None),        # PTX JITs only upwards
    ("9.0", ["sm_80", "sm_90"], ["compute_90"], True, "sm_90"),
    ("12.0", ["sm_90"], ["compute_90a"], False, None),      # arch-specific PTX does not JIT forward
    ("9.0", ["sm_90a"], [], True, "sm_90a"),
    ("10.3", ["sm_100f"], [], True, "sm_100f"),             # family cubin within major 10
    ("12.0", [], ["compute_100f"], False, None),            # family PTX stays in its family
    ("10.3", [], ["compute_100f"], True, "compute_100f (PTX JIT)"),
    ("garbage", ["sm_80"], [], None, None),
])
def test_kernel_image_for(cc, archs, ptx, ok, via):
    assert abi_probe.kernel_image_for(cc, archs, ptx) == {"ok": ok, "via": via}


@pytest.mark.slow
def test_no_kernel_image_predicted_from_real_fatbin(fake, tmp_path):
    if NVCC is None:
        pytest.skip("nvcc not installed")
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k(float* x){ x[threadIdx.x] *= 2.0f; }\n")
    fb = tmp_path / "k.fatbin"
    sh([NVCC, "-fatbin", "-gencode", "arch=compute_80,code=sm_80", "-o", str(fb), str(cu)], timeout=300)
    ext = tmp_path / "libext_gpu.so"
    shutil.copy(fake["new"], ext)
    sh(["objcopy", "--add-section", f".nv_fatbin={fb}", str(ext)])
    h200 = [{"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0"}]
    ctx = run_layers([ext], fake, gpus=h200)
    (e,) = ctx.facts["abi"]["extensions"]
    assert e["embedded_archs"] == ["sm_80"] and e["has_ptx"] is False
    assert e["gpu_images"] == [{"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0", "ok": False,
                                "via": None}]
    (f,) = evaluate(ctx.facts, ["abi"])
    assert f.code == "no_kernel_image_for_gpu" and f.severity == "error"
    assert any('TORCH_CUDA_ARCH_LIST="9.0"' in c for c in f.fix.commands)
    build = [c for c in f.fix.commands if "pip install" in c and "uninstall" not in c]
    assert build and all('TORCH_CUDA_ARCH_LIST="9.0"' in c for c in build)  # the build line runs as printed
    a100 = run_layers([ext], fake, gpus=[{"index": 0, "name": "A100", "compute_capability": "8.0"}])
    assert [x.code for x in evaluate(a100.facts, ["abi"])] == ["extension_ok"]


def test_unreadable_extension_does_not_break_the_layer(fake, tmp_path):
    junk = tmp_path / "junk.so"
    junk.write_bytes(os.urandom(3000))
    ctx = run_layers([junk, tmp_path / "absent.so", fake["new"]], fake)
    by = _by_path(ctx)
    assert by[str(junk)]["status"] == "unavailable" and by[str(tmp_path / "absent.so")]["status"] == "unavailable"
    assert by[str(fake["new"])]["status"] == "ok"
    codes = sorted(f.code for f in evaluate(ctx.facts, ["loader", "abi"]))
    assert codes == ["extension_ok", "extension_unreadable", "extension_unreadable"]


def _real_torch_lib() -> Path | None:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None
    lib = Path(spec.origin).parent / "lib"
    return lib if (lib / "libc10.so").is_file() else None


REAL_EXT = """#include <string>
#include <cstdint>
namespace c10 {
struct Allocator;
Allocator* GetCPUAllocator();
namespace detail {
[[noreturn]] void torchCheckFail(const char* func, const char* file, uint32_t line, const std::string& msg);
}
}
void* smr_alloc(){ return c10::GetCPUAllocator(); }
void smr_check(){ c10::detail::torchCheckFail("f", "file.cpp", 1, std::string("boom")); }
"""


def test_against_the_installed_torch(tmp_path):
    """A small extension linked against the real torch/lib/libc10.so: the loader + abi layers on the
    real torch install (pip wheel, cxx11 ABI since torch 2.7) and the old-ABI build of the same code."""
    lib = _real_torch_lib()
    if lib is None:
        pytest.skip("torch/lib/libc10.so not installed")
    new = gxx(tmp_path / "libreal_new.so", REAL_EXT, "-D_GLIBCXX_USE_CXX11_ABI=1", f"-L{lib}", "-lc10")
    old = gxx(tmp_path / "libreal_old.so", REAL_EXT, "-D_GLIBCXX_USE_CXX11_ABI=0", f"-L{lib}", "-lc10")
    ctx = ProbeContext(extension_paths=[str(new), str(old)])
    ctx.facts["torch"] = {"status": "ok", "installed": True, "lib_dir": str(lib), "cxx11_abi": None, "cuda": None}
    ctx.facts["driver"] = {"status": "absent", "gpus": []}
    t0 = time.perf_counter()
    ctx.facts["loader"] = loader_probe.probe(ctx, site_dirs=[])
    ctx.facts["abi"] = abi_probe.probe(ctx, site_dirs=[])
    elapsed = time.perf_counter() - t0
    print(f"loader+abi probes on the installed torch: {elapsed * 1000:.0f} ms")
    by = _by_path(ctx)
    assert ctx.facts["abi"]["torch_cxx11_abi"] is True
    assert by[str(new)]["torch_undefined"] == 2 and by[str(new)]["unresolved"] == []
    assert by[str(new)]["defined_in"]["libc10.so"] == 2
    (u,) = by[str(old)]["unresolved"]
    assert u["mangled"] == "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs" and u["diagnosis"] == "cxx11_abi_mismatch"
    lres = {e["path"]: e for e in ctx.facts["loader"]["extensions"]}[str(new)]["resolved"]["libc10.so"]
    assert lres["via"] == "already-loaded" and lres["path"] == str(lib / "libc10.so")
    codes = {(f.code, f.title.split(" ")[0]) for f in evaluate(ctx.facts, ["loader", "abi"])}
    assert codes == {("extension_ok", "libreal_new.so"), ("cxx11_abi_mismatch", "libreal_old.so")}
