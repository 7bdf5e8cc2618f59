# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""smrnb.doctor._elf on real ELF files built here with gcc/g++ (and nvcc for fatbins), cross-checked
against pyelftools, readelf and c++filt."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from smrnb.doctor import _elf as elf
from smrnb.doctor._model import CmdResult

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("g++") is None,
                                reason="gcc/g++ not on PATH (needed to build test ELF files)")

NVCC = next((p for p in ("/usr/local/cuda-13.0/bin/nvcc", shutil.which("nvcc") or "") if p and os.path.isfile(p)),
            None)


def sh(argv: list[str], cwd: Path | None = None, timeout: float = 120) -> str:
    res = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    assert res.returncode == 0, f"{argv} failed: {res.stderr}"
    return res.stdout


def build_so(d: Path, name: str, code: str, *flags: str, lang: str = "c", soname: str | None = None) -> Path:
    src = d / f"{name}.{ 'c' if lang == 'c' else 'cpp'}"
    src.write_text(code)
    out = d / name
    cc = "gcc" if lang == "c" else "g++"
    argv = [cc, "-shared", "-fPIC", "-o", str(out), str(src)]
    if soname:
        argv.append(f"-Wl,-soname,{soname}")
    sh(argv + list(flags))
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("elf")
    out: dict[str, Path] = {}
    out["cudart"] = build_so(d, "libcudart.so.11.0", "int cudaFake(void){return 11;}", soname="libcudart.so.11.0")
    out["needs_cudart"] = build_so(
        d, "libneedscuda.so", "extern int cudaFake(void); int smr_defined_fn(void){return cudaFake();}",
        f"-L{d}", "-l:libcudart.so.11.0", "-Wl,-rpath,$ORIGIN/../lib:/opt/x", "-Wl,--disable-new-dtags",
        soname="libneedscuda.so.1")
    out["runpath"] = build_so(d, "librunpath.so", "int g(void){return 2;}", "-Wl,-rpath,$ORIGIN/../lib",
                              "-Wl,--enable-new-dtags")
    out["cxx"] = build_so(d, "libcxx.so", '#include <string>\n#include <iostream>\n'
                          'std::string make(int n){ return std::string(n, \'x\'); }\n'
                          'void say(const std::string& s){ std::cout << s << std::endl; }\n', lang="cxx")
    out["sysv"] = build_so(d, "libsysv.so", "int alpha(void){return 1;} int beta(void){return 2;} "
                           "extern int gamma_ext(void); int delta(void){return gamma_ext();}",
                           "-Wl,--hash-style=sysv")
    c10 = "namespace c10 { struct Error { Error(std::string); char pad[64]; }; int foo(int); }\n" \
          "int use(){ c10::Error e(std::string(\"x\")); return c10::foo(1); }\n"
    out["abi0"] = build_so(d, "libabi0.so", "#include <string>\n" + c10, "-D_GLIBCXX_USE_CXX11_ABI=0", lang="cxx")
    out["abi1"] = build_so(d, "libabi1.so", "#include <string>\n" + c10, "-D_GLIBCXX_USE_CXX11_ABI=1", lang="cxx")
    out["dir"] = d
    return out


def test_dynamic_segment_matches_readelf(built):
    info = elf.read_elf(built["needs_cudart"])
    assert info is not None
    assert info.soname == "libneedscuda.so.1"
    assert "libcudart.so.11.0" in info.needed
    assert info.rpath == ("$ORIGIN/../lib", "/opt/x")
    assert info.runpath == ()
    assert info.elf_class == 64 and info.machine_name in ("x86_64", "aarch64")
    text = sh(["readelf", "-d", str(built["needs_cudart"])])
    assert re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", text) == list(info.needed)
    rp = elf.read_elf(built["runpath"])
    assert rp.runpath == ("$ORIGIN/../lib",) and rp.rpath == ()


def test_symbols_and_versions_match_pyelftools(built):
    from elftools.elf.elffile import ELFFile

    for key in ("cxx", "needs_cudart", "abi0"):
        info = elf.read_elf(built[key])
        assert info is not None and info.symbols_read
        with open(built[key], "rb") as fh:
            pe = ELFFile(fh)
            dynsym = pe.get_section_by_name(".dynsym")
            want_def = {s.name for s in dynsym.iter_symbols() if s.name and s["st_shndx"] != "SHN_UNDEF"}
            want_undef = {s.name for s in dynsym.iter_symbols() if s.name and s["st_shndx"] == "SHN_UNDEF"}
            want_needs: dict[str, list[str]] = {}
            vr = pe.get_section_by_name(".gnu.version_r")
            if vr is not None:
                for ver, auxes in vr.iter_versions():
                    want_needs[ver.name] = [a.name for a in auxes]
        assert {s.name for s in info.defined} == want_def
        assert {s.name for s in info.undefined} == want_undef
        assert info.version_needs == want_needs
    cxx = elf.read_elf(built["cxx"])
    assert any(v.startswith("GLIBCXX_3.4") for v in cxx.version_needs["libstdc++.so.6"])
    # a C++ symbol from libstdc++ carries its GLIBCXX version
    assert any(s.version and s.version.startswith("GLIBCXX_") for s in cxx.undefined)
    needs = elf.read_elf(built["needs_cudart"])
    assert "cudaFake" in {s.name for s in needs.undefined} and "smr_defined_fn" in {s.name for s in needs.defined}


def test_version_definitions_of_the_real_libstdcxx():
    path = "/lib/x86_64-linux-gnu/libstdc++.so.6"
    if not os.path.exists(path):
        pytest.skip("no Debian multiarch libstdc++ here")
    info = elf.read_elf(path, symbols=False)
    text = sh(["readelf", "-V", "--wide", path])
    section = text.split("Version definition section")[1].split("Version needs section")[0]
    names = re.findall(r"Name: (\S+)", section)
    assert set(info.version_defs) == set(names[1:])  # the first (BASE) names the file itself
    assert "GLIBCXX_3.4.21" in info.version_defs


@pytest.mark.parametrize("key", ["needs_cudart", "sysv", "abi1"])
def test_hash_lookup_agrees_with_pyelftools(built, key):
    from elftools.elf.elffile import ELFFile

    info = elf.read_elf(built[key])
    names = [s.name for s in info.defined] + [s.name for s in info.undefined] + ["no_such_symbol", "x", "_Z3zzzv"]
    got = elf.lookup_symbols(built[key], names)
    with open(built[key], "rb") as fh:
        pe = ELFFile(fh)
        table = pe.get_section_by_name(".gnu.hash") or pe.get_section_by_name(".hash")
        assert table is not None
        for n in names:
            s = table.get_symbol(n)
            assert got[n] == (s is not None and s["st_shndx"] != "SHN_UNDEF"), n
    assert got["no_such_symbol"] is False
    if key == "sysv":
        assert "hash" in info.layout and "gnu_hash" not in info.layout
        assert got["alpha"] and got["delta"] and not got["gamma_ext"]


def test_hash_lookup_on_torch_libc10_agrees_with_pyelftools():
    import importlib.util

    spec = importlib.util.find_spec("torch")
    lib = Path(spec.origin).parent / "lib" / "libc10.so" if spec and spec.origin else None
    if lib is None or not lib.is_file():
        pytest.skip("torch/lib/libc10.so not installed")
    from elftools.elf.elffile import ELFFile

    info = elf.read_elf(lib)
    rng = random.Random(7)
    names = rng.sample([s.name for s in info.defined], 300) + rng.sample([s.name for s in info.undefined], 50)
    names += [n + "_nope" for n in names[:50]]
    got = elf.lookup_symbols(lib, names)  # >= 256 names: the numpy hashing path
    with open(lib, "rb") as fh:
        table = ELFFile(fh).get_section_by_name(".gnu.hash")
        for n in names:
            s = table.get_symbol(n)
            assert got[n] == (s is not None and s["st_shndx"] != "SHN_UNDEF"), n
            assert elf._gnu_hash(n.encode()) == table.gnu_hash(n)
    assert sum(got.values()) == 300


def test_abi_flavour_of_compiled_symbols(built):
    old = {s.name for s in elf.read_elf(built["abi0"]).undefined if "c10" in s.name}
    new = {s.name for s in elf.read_elf(built["abi1"]).undefined if "c10" in s.name}
    ctor_old = next(n for n in old if "Error" in n)
    ctor_new = next(n for n in new if "Error" in n)
    foo = next(n for n in old if "foo" in n)
    assert elf.abi_flavour(ctor_old) == "old" and ctor_old.endswith("Ss")
    assert elf.abi_flavour(ctor_new) == "cxx11"
    assert elf.abi_flavour(foo) == "none" and foo in new  # no std::string: identical in both ABIs
    assert elf.other_abi_spelling(ctor_old) == ctor_new
    assert elf.other_abi_spelling(ctor_new) == ctor_old


@pytest.mark.parametrize(("mangled", "want"), [
    ("_ZN3c105ErrorC2ENS_14SourceLocationESs", "old"),
    ("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs", "old"),
    ("_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "cxx11"),
    ("_ZN3c1010demangleB5cxx11EPKc", "cxx11"),
    ("_ZN3foo4BoSsEv", "none"),          # "Ss" inside an identifier is not std::string
    ("_ZN2at4_ops3add4callERKNS_6TensorES4_RKN3c106ScalarE", "none"),
    ("_Z1fILi5EEvSs", "old"),            # literal template argument, then std::string
    ("malloc", "none"), ("", "none"),
])
def test_abi_flavour_table(mangled, want):
    assert elf.abi_flavour(mangled) == want


def test_demangle_with_real_cxxfilt_and_fallbacks(built):
    if shutil.which("c++filt") is None:
        pytest.skip("c++filt not on PATH")
    names = ["_ZN3c105ErrorC2ENS_14SourceLocationESs", "plain_c_name"]
    out = elf.demangle(names)
    assert out[0].startswith("c10::Error::Error(c10::SourceLocation, std::")
    assert out[1] == "plain_c_name"

    def failing(argv, timeout=None, input=None, env=None):
        return CmdResult(tuple(argv), None, error="not found")

    def hanging(argv, timeout=None, input=None, env=None):
        return CmdResult(tuple(argv), None, timed_out=True, error=f"timeout after {timeout} s")

    def short(argv, timeout=None, input=None, env=None):
        return CmdResult(tuple(argv), 0, stdout="only one line\n")

    def no_input_kwarg(argv, timeout=None):  # a runner that cannot feed stdin
        return CmdResult(tuple(argv), 0, stdout="")

    for run in (failing, hanging, short, no_input_kwarg):
        assert elf.demangle(names, run=run) == names  # the clear fallback: names unchanged
    assert elf.demangle([]) == []


def _fatbin(d: Path, name: str, *gencode: str) -> Path:
    cu = d / "k.cu"
    cu.write_text("__global__ void k(float* x){ x[threadIdx.x] *= 2.0f; }\n")
    out = d / name
    sh([NVCC, "-fatbin", *gencode, "-o", str(out), str(cu)], timeout=300)
    return out


@pytest.fixture(scope="module")
def fatbins(built) -> dict[str, Path]:
    if NVCC is None:
        pytest.skip("nvcc not installed (/usr/local/cuda-13.0/bin/nvcc)")
    d = built["dir"]
    out = {}
    for key, gencode in {"sm80": ["-gencode", "arch=compute_80,code=sm_80"],
                         "mixed": ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90",
                                   "-gencode", "arch=compute_90,code=compute_90"],
                         "specific": ["-gencode", "arch=compute_90a,code=sm_90a", "-gencode",
                                      "arch=compute_100f,code=compute_100f"]}.items():
        fb = _fatbin(d, f"{key}.fatbin", *gencode)
        so = d / f"lib{key}.so"
        shutil.copy(built["sysv"], so)
        sh(["objcopy", "--add-section", f".nv_fatbin={fb}", str(so)])
        out[key] = so
        out[key + "_raw"] = fb
    return out


@pytest.mark.slow
def test_embedded_archs_from_real_nvcc_fatbins(fatbins):
    assert elf.embedded_cuda_archs(fatbins["sm80"]) == {"archs": ["sm_80"], "ptx": [], "containers": 1}
    mixed = elf.embedded_cuda_archs(fatbins["mixed"])
    assert mixed["archs"] == ["sm_80", "sm_90"] and mixed["ptx"] == ["compute_90"]
    assert elf.read_elf(fatbins["mixed"]).has_fatbin
    assert elf.embedded_cuda_archs(fatbins["specific"]) == {"archs": ["sm_90a"], "ptx": ["compute_100f"],
                                                            "containers": 1}
    if shutil.which("cuobjdump"):
        listed = sh(["cuobjdump", "--list-elf", str(fatbins["mixed"])])
        assert sorted(set(re.findall(r"sm_\d+", listed))) == mixed["archs"]


def test_embedded_archs_without_fatbin_and_on_garbage(built, tmp_path):
    assert elf.embedded_cuda_archs(built["cxx"]) == {"archs": [], "ptx": [], "containers": 0}
    assert elf.read_elf(built["cxx"]).has_fatbin is False
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"\x7fELF" + bytes(200))
    assert elf.embedded_cuda_archs(junk) is None
    assert elf.embedded_cuda_archs(tmp_path / "missing.so") is None


@pytest.mark.slow
def test_damaged_fatbin_gives_none(fatbins, tmp_path):
    raw = bytearray(fatbins["mixed_raw"].read_bytes())
    raw[0:4] = b"\x00\x01\x02\x03"  # bad magic
    bad = tmp_path / "bad.fatbin"
    bad.write_bytes(bytes(raw))
    so = tmp_path / "libbad.so"
    shutil.copy(fatbins["sm80"].with_name("libsysv.so"), so)
    sh(["objcopy", "--add-section", f".nv_fatbin={bad}", str(so)])
    assert elf.embedded_cuda_archs(so) is None


def test_never_raises_on_garbage(built, tmp_path):
    rng = random.Random(1234)
    real = built["needs_cudart"].read_bytes()
    cases: list[bytes] = [b"", b"\x7fELF", b"\x7fELF\x02\x01\x01" + bytes(60), bytes(rng.randrange(256) for _ in range(4096))]
    cases += [real[:n] for n in (16, 52, 64, 200, 1000, len(real) // 2, len(real) - 1)]
    for _ in range(60):  # random byte flips in a real library
        b = bytearray(real)
        for _ in range(rng.randrange(1, 40)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        cases.append(bytes(b))
    for i, data in enumerate(cases):
        p = tmp_path / f"fuzz{i}.so"
        p.write_bytes(data)
        info = elf.read_elf(p)
        assert info is None or isinstance(info, elf.ElfInfo)
        found = elf.lookup_symbols(p, ["smr_defined_fn", "cudaFake"])
        assert found is None or set(found) == {"smr_defined_fn", "cudaFake"}
        arch = elf.embedded_cuda_archs(p)
        assert arch is None or set(arch) == {"archs", "ptx", "containers"}
    assert elf.read_elf(tmp_path) is None  # a directory
    assert elf.read_elf(tmp_path / "nope.so") is None
    assert elf.read_dynamic(b"\0bad".decode()) is None  # NUL in the path
    assert elf.read_elf(built["cudart"]).needed == ()  # a library with no NEEDED is fine
