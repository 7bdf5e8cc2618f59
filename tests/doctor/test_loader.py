# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""smrnb.doctor._ldso and the loader probe/rules on libraries built here with gcc, checked against
the real ld.so (``ldd`` and ``ctypes.CDLL`` in subprocesses)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from smrnb.doctor import _ldso as ldso
from smrnb.doctor._model import ProbeContext
from smrnb.doctor.probes import _loader as loader_probe
from smrnb.doctor.rules import evaluate

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("g++") is None,
                                reason="gcc/g++ not on PATH (needed to build test ELF files)")


def sh(argv: list[str], timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False, env=env)


def build_so(out: Path, code: str, *flags: str, lang: str = "c", soname: str | None = None) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.parent / (out.name.replace(".", "_") + (".c" if lang == "c" else ".cpp"))
    src.write_text(code)
    argv = ["gcc" if lang == "c" else "g++", "-shared", "-fPIC", "-o", str(out), str(src), *flags]
    if soname:
        argv.append(f"-Wl,-soname,{soname}")
    res = sh(argv)
    assert res.returncode == 0, res.stderr
    return out


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env.update(extra)
    return env


def ldd(path: Path, llp: str | None = None) -> dict[str, str | None]:
    """``{name: path or None}`` for the direct NEEDED entries, as the real ld.so resolves them."""
    env = clean_env(**({"LD_LIBRARY_PATH": llp} if llp else {}))
    res = sh(["ldd", str(path)], env=env, timeout=30)
    out: dict[str, str | None] = {}
    for line in res.stdout.splitlines():
        m = re.match(r"\s*(\S+) => (not found|(\S+) \(0x)", line)
        if m:
            out[m.group(1)] = None if m.group(2) == "not found" else m.group(3)
    return out


def cdll(*paths: Path, llp: str | None = None, set_env_after_start: str | None = None) -> tuple[bool, str]:
    """Load ``paths`` in order (RTLD_GLOBAL) in a fresh Python; (ok, error text)."""
    code = ["import ctypes, os, sys"]
    if set_env_after_start is not None:
        code.append(f"os.environ['LD_LIBRARY_PATH'] = {set_env_after_start!r}")
    code.append("try:")
    code += [f"    ctypes.CDLL({str(p)!r}, mode=ctypes.RTLD_GLOBAL)" for p in paths]
    code += ["except OSError as e:", "    print(e); sys.exit(3)"]
    env = clean_env(**({"LD_LIBRARY_PATH": llp} if llp else {}))
    res = sh([sys.executable, "-c", "\n".join(code)], env=env, timeout=60)
    return res.returncode == 0, res.stdout + res.stderr


LO = "extern int user(void); int lo(void){return user();}"


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("ld")
    t: dict[str, Path] = {"root": d}
    t["dep"] = build_so(d / "app/lib/libdep.so", "int dep_id(void){return 1;}", soname="libdep.so")
    t["dep_other"] = build_so(d / "other/libdep.so", "int dep_id(void){return 2;}", soname="libdep.so")
    use = "extern int dep_id(void); int user(void){return dep_id();}"
    t["user_rpath"] = build_so(d / "app/bin/libuser_rpath.so", use, f"-L{d}/app/lib", "-ldep",
                               "-Wl,-rpath,$ORIGIN/../lib", "-Wl,--disable-new-dtags")
    t["user_runpath"] = build_so(d / "app/bin/libuser_runpath.so", use, f"-L{d}/app/lib", "-ldep",
                                 "-Wl,-rpath,$ORIGIN/../lib", "-Wl,--enable-new-dtags")
    t["user_plain"] = build_so(d / "app/bin/libuser_plain.so", use, f"-L{d}/app/lib", "-ldep", soname="libuser_plain.so")
    # objects that NEED libuser_plain.so: their RPATH (not RUNPATH) also serves libuser_plain's own NEEDED
    t["chain_loader"] = build_so(d / "loaderobj/libloaderobj.so", LO, f"-L{d}/app/bin",
                                 "-luser_plain", f"-Wl,-rpath,{d}/app/bin:{d}/app/lib", "-Wl,--disable-new-dtags")
    t["chain_loader_runpath"] = build_so(d / "loaderobj/libloaderrun.so", LO, f"-L{d}/app/bin",
                                         "-luser_plain", f"-Wl,-rpath,{d}/app/bin:{d}/app/lib", "-Wl,--enable-new-dtags")
    t["hidden"] = build_so(d / "hidden/libhidden.so", "int hidden(void){return 7;}", soname="libhidden.so")
    t["user_hidden"] = build_so(d / "ext/libuser_hidden.so", "extern int hidden(void); int uh(void){return hidden();}",
                                f"-L{d}/hidden", "-lhidden")
    t["cudart"] = build_so(d / "cuda11/lib64/libcudart.so.11.0", "int cudaFake(void){return 11;}",
                           soname="libcudart.so.11.0")
    t["needs_cudart"] = build_so(d / "ext/libneedscuda.so", "extern int cudaFake(void); int f(void){return cudaFake();}",
                                 f"-L{d}/cuda11/lib64", "-l:libcudart.so.11.0")
    # a fake libstdc++.so.6 that defines only GLIBCXX_3.4 and GLIBCXX_3.4.20
    vmap = d / "fakestd.map"
    vmap.write_text("GLIBCXX_3.4 { global: fake_a; };\nGLIBCXX_3.4.20 { global: fake_b; } GLIBCXX_3.4;\n"
                    "CXXABI_1.3 { global: fake_c; };\n")
    t["fake_stdcxx"] = build_so(d / "oldstd/libstdc++.so.6", "int fake_a(void){return 1;} int fake_b(void){return 2;}"
                                " int fake_c(void){return 3;}", f"-Wl,--version-script={vmap}", soname="libstdc++.so.6")
    t["cxx_user"] = build_so(d / "ext/libcxxuser.so", "#include <string>\nstd::string mk(int n){return std::string(n,'y');}\n",
                             lang="cxx")
    return t


# ----------------------------------------------------------------------------- resolution vs ld.so


def test_rpath_with_origin_beats_ld_library_path_like_ldso(tree):
    for llp in (None, str(tree["dep_other"].parent)):
        env = {"LD_LIBRARY_PATH": llp} if llp else {}
        r = ldso.resolve_needed(str(tree["user_rpath"]), env, mapped={}, ld_cache=ldso.parse_ld_cache())
        assert r["resolved"]["libdep.so"]["via"] == "rpath"
        assert r["resolved"]["libdep.so"]["path"] == str(tree["root"] / "app/bin/../lib/libdep.so")
        real = ldd(tree["user_rpath"], llp)["libdep.so"]
        assert os.path.realpath(real) == os.path.realpath(r["resolved"]["libdep.so"]["path"])


def test_runpath_comes_after_ld_library_path_like_ldso(tree):
    other = str(tree["dep_other"].parent)
    r = ldso.resolve_needed(str(tree["user_runpath"]), {"LD_LIBRARY_PATH": other}, mapped={})
    assert r["runpath"] == ["$ORIGIN/../lib"] and r["rpath"] == []
    assert r["resolved"]["libdep.so"]["via"] == "ld_library_path"
    assert r["resolved"]["libdep.so"]["path"] == str(tree["dep_other"])
    assert os.path.realpath(ldd(tree["user_runpath"], other)["libdep.so"]) == str(tree["dep_other"])
    r2 = ldso.resolve_needed(str(tree["user_runpath"]), {}, mapped={})
    assert r2["resolved"]["libdep.so"]["via"] == "runpath"
    assert os.path.realpath(ldd(tree["user_runpath"])["libdep.so"]) == os.path.realpath(tree["dep"])


def test_loader_chain_rpath_is_used_only_without_runpath(tree):
    r = ldso.resolve_needed(str(tree["user_plain"]), {}, mapped={}, loaders=[str(tree["chain_loader"])])
    assert r["resolved"]["libdep.so"]["via"] == "rpath"
    assert r["resolved"]["libdep.so"]["path"] == str(tree["dep"])
    assert ldso.resolve_needed(str(tree["user_plain"]), {}, mapped={})["missing"] == ["libdep.so"]
    r = ldso.resolve_needed(str(tree["user_plain"]), {}, mapped={}, loaders=[str(tree["chain_loader_runpath"])])
    assert r["missing"] == ["libdep.so"]
    # the real ld.so: libdep.so is found through the loading object's RPATH, never through a RUNPATH
    assert ldd(tree["chain_loader"])["libdep.so"] == str(tree["dep"])
    assert ldd(tree["chain_loader_runpath"])["libdep.so"] is None
    assert ldd(tree["user_plain"])["libdep.so"] is None


def test_system_libraries_resolve_where_ldd_finds_them(tree):
    cache = ldso.parse_ld_cache()
    r = ldso.resolve_needed(str(tree["cxx_user"]), {}, mapped={}, ld_cache=cache)
    real = ldd(tree["cxx_user"])
    assert r["missing"] == []
    for name, entry in r["resolved"].items():
        if name in real and real[name]:
            assert os.path.realpath(entry["path"]) == os.path.realpath(real[name]), name
            assert entry["via"] in ("ldconfig", "default")


def test_missing_library_names_the_directory_that_has_it(tree):
    r = ldso.resolve_needed(str(tree["needs_cudart"]), {}, mapped={},
                              elsewhere=[str(tree["dep"].parent), str(tree["cudart"].parent)])
    assert r["missing"] == ["libcudart.so.11.0"]
    entry = r["resolved"]["libcudart.so.11.0"]
    assert entry["path"] is None and entry["via"] is None
    assert entry["found_elsewhere"] == [str(tree["cudart"].parent)]
    assert ldd(tree["needs_cudart"])["libcudart.so.11.0"] is None
    ok, err = cdll(tree["needs_cudart"])
    assert not ok and "libcudart.so.11.0: cannot open shared object file" in err
    ok, _ = cdll(tree["needs_cudart"], llp=str(tree["cudart"].parent))
    assert ok


def test_already_loaded_library_satisfies_needed_like_kaolin_after_torch(tree, tmp_path):
    hidden = tree["hidden"]
    maps = tmp_path / "maps"
    maps.write_text(
        "55d0c0000000-55d0c0001000 r--p 00000000 fe:00 1234   /usr/bin/python3.11\n"
        f"7f0000000000-7f0000001000 r-xp 00000000 fe:00 42     {hidden}\n"
        f"7f0000001000-7f0000002000 r--p 00001000 fe:00 42     {hidden}\n"
        "7f0000003000-7f0000004000 rw-p 00000000 00:00 0 \n"
        "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0      [stack]\n"
        "7f0000005000-7f0000006000 r--p 00000000 fe:00 43     /tmp/gone/libold.so (deleted)\n"
        "7f0000007000-7f0000008000 r--p 00000000 fe:00 44     /usr/share/locale/data.bin\n")
    mapped = ldso.read_mapped_libraries(str(maps))
    assert mapped == {"libhidden.so": str(hidden)}
    r = ldso.resolve_needed(str(tree["user_hidden"]), {}, mapped=mapped)
    assert r["missing"] == []
    assert r["resolved"]["libhidden.so"] == {"path": str(hidden), "via": "already-loaded", "found_elsewhere": [],
                                             "loaded_by": "process"}
    # without the mapping it is missing, exactly what plain ldd says ...
    assert ldso.resolve_needed(str(tree["user_hidden"]), {}, mapped={})["missing"] == ["libhidden.so"]
    assert ldd(tree["user_hidden"])["libhidden.so"] is None
    # ... while the real loader, with libhidden already mapped, loads it fine, and fails without it
    assert cdll(hidden, tree["user_hidden"])[0]
    ok, err = cdll(tree["user_hidden"])
    assert not ok and "libhidden.so: cannot open shared object file" in err


def test_glibcxx_need_above_the_mapped_libstdcxx(tree):
    fake = tree["fake_stdcxx"]
    r = ldso.resolve_needed(str(tree["cxx_user"]), {}, mapped={"libstdc++.so.6": str(fake)})
    assert r["resolved"]["libstdc++.so.6"]["via"] == "already-loaded"
    assert r["glibcxx_loaded"] == "3.4.20"
    needed = r["glibcxx_needed"]
    assert tuple(map(int, needed.split("."))) > (3, 4, 20)
    assert "libstdc++.so.6" in r["version_missing"]
    assert f"GLIBCXX_{needed}" in r["version_missing"]["libstdc++.so.6"]
    # with the real libstdc++ nothing is missing
    ok = ldso.resolve_needed(str(tree["cxx_user"]), {}, mapped={}, ld_cache=ldso.parse_ld_cache())
    assert ok["version_missing"] == {} and ok["glibcxx_loaded"] is not None
    # the real ld.so agrees: with the old libstdc++ first on the path the load fails on the version
    good, err = cdll(tree["cxx_user"], llp=str(fake.parent))
    assert not good and "GLIBCXX_" in err and "not found" in err
    facts = {"loader": {"status": "ok", "extensions": [r], "mapped_libraries": {"libstdc++.so.6": str(fake)}}}
    codes = [f.code for f in evaluate(facts, ["loader"])]
    assert codes == ["libstdcxx_too_old"]


# ----------------------------------------------------------------------------- ld.so.cache


def test_ld_so_cache_parse_agrees_with_ldconfig_p():
    cache = ldso.parse_ld_cache("/etc/ld.so.cache")
    if cache is None or shutil.which("ldconfig") is None:
        pytest.skip("no /etc/ld.so.cache or ldconfig here")
    res = sh(["ldconfig", "-p"], timeout=30)
    parsed = ldso.parse_ldconfig_p(res.stdout)
    assert set(parsed) == set(cache)
    for name, entries in parsed.items():
        assert sorted(entries) == sorted(cache[name]), name


def _fake_cache(entries: list[tuple[int, str, str]]) -> bytes:
    strings = b""
    offsets = []
    header = 48 + 24 * len(entries)
    for _flags, key, value in entries:
        k = header + len(strings)
        strings += key.encode() + b"\0"
        v = header + len(strings)
        strings += value.encode() + b"\0"
        offsets.append((k, v))
    out = b"glibc-ld.so.cache1.1" + struct.pack("<II", len(entries), len(strings)) + bytes(4) + bytes(4) + bytes(12)
    for (flags, _k, _v), (k, v) in zip(entries, offsets):
        out += struct.pack("<iIIIQ", flags, k, v, 0, 0)
    return out + strings


def test_fabricated_cache_and_arch_filter(tree, tmp_path):
    cache_file = tmp_path / "ld.so.cache"
    cache_file.write_bytes(_fake_cache([(0x0003, "libdep.so", "/nonexistent/libdep.so"),       # i386 entry
                                        (0x0303, "libdep.so", str(tree["dep_other"])),          # x86-64
                                        (0x0000, "libweird.so", "/x/libweird.so")]))            # not ELF libc6
    cache = ldso.parse_ld_cache(str(cache_file))
    assert cache == {"libdep.so": [("/nonexistent/libdep.so", 0x0000), (str(tree["dep_other"]), 0x0300)]}
    r = ldso.resolve_needed(str(tree["user_plain"]), {}, mapped={}, ld_cache=cache)
    assert r["resolved"]["libdep.so"] == {"path": str(tree["dep_other"]), "via": "ldconfig", "found_elsewhere": []}
    # old-format table in front of the new one is skipped
    old = b"ld.so-1.7.0\0" + struct.pack("<I", 1) + struct.pack("<iII", 3, 0, 0)
    old += bytes((-len(old)) % 8)
    combo = tmp_path / "combo.cache"
    combo.write_bytes(old + cache_file.read_bytes())
    assert ldso.parse_ld_cache(str(combo)) == cache


def test_ldconfig_fallback_through_a_runner(tmp_path):
    from smrnb.doctor._model import CmdResult

    text = ("2 libs found in cache `/etc/ld.so.cache'\n"
            "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1\n"
            "\tlibz.so.1 (libc6) => /lib/i386-linux-gnu/libz.so.1\n")

    def run(argv, timeout=None, env=None, input=None):
        return CmdResult(tuple(argv), 0, stdout=text)

    cache = ldso.load_ld_cache(str(tmp_path / "missing"), run=run)
    assert cache == {"libz.so.1": [("/lib/x86_64-linux-gnu/libz.so.1", 0x0300), ("/lib/i386-linux-gnu/libz.so.1", 0)]}

    def hang(argv, timeout=None, env=None, input=None):
        return CmdResult(tuple(argv), None, timed_out=True, error="timeout after 5 s")

    assert ldso.load_ld_cache(str(tmp_path / "missing"), run=hang) is None


# ----------------------------------------------------------------------------- start environment


def test_start_env_changes():
    start = {"LD_LIBRARY_PATH": "/a", "PATH": "/usr/bin:/usr/local/cuda-12.1/bin", "CUDA_HOME": "/usr/local/cuda-12.1"}
    now = {"LD_LIBRARY_PATH": "/a:/usr/local/cuda/lib64", "PATH": "/usr/local/cuda-13.0/bin:/usr/bin:/home/u/bin",
           "CUDA_HOME": "/usr/local/cuda-12.1"}
    ch = ldso.start_env_changes(start, now)
    assert set(ch) == {"LD_LIBRARY_PATH", "PATH"}
    assert ch["LD_LIBRARY_PATH"]["added"] == ["/usr/local/cuda/lib64"] and ch["LD_LIBRARY_PATH"]["removed"] == []
    assert ch["PATH"]["start"] == "/usr/local/cuda-12.1/bin" and ch["PATH"]["now"] == "/usr/local/cuda-13.0/bin"
    assert ldso.start_env_changes(start, dict(start)) == {}
    assert ldso.start_env_changes(start, {**start, "PATH": "/usr/bin:/usr/local/cuda-12.1/bin:/opt/x"}) == {}
    assert set(ldso.start_env_changes({}, {"CUDA_HOME": "/c"})) == {"CUDA_HOME"}
    assert ldso.start_env_changes(None, now) == {}


def test_library_only_findable_via_dir_added_after_start(tree):
    ext, cuda_dir = str(tree["needs_cudart"]), str(tree["cudart"].parent)
    got = ldso.libraries_only_findable_via_new_dirs([ext], {}, {"LD_LIBRARY_PATH": cuda_dir}, mapped={})
    assert got == [{"extension": ext, "library": "libcudart.so.11.0", "path": str(tree["cudart"]), "dir": cuda_dir,
                    "variable": "LD_LIBRARY_PATH"}]
    same = {"LD_LIBRARY_PATH": cuda_dir}
    assert ldso.libraries_only_findable_via_new_dirs([ext], same, same, mapped={}) == []
    assert ldso.libraries_only_findable_via_new_dirs(
        [ext], {}, same, mapped={"libcudart.so.11.0": str(tree["cudart"])}) == []
    assert ldso.libraries_only_findable_via_new_dirs([ext, "/nonexistent.so"], None, same, mapped={}) == []
    # the claim behind the warning, on the real loader: setting LD_LIBRARY_PATH after start does not help
    ok, err = cdll(tree["needs_cudart"], set_env_after_start=cuda_dir)
    assert not ok and "libcudart.so.11.0" in err
    facts = {"loader": {"status": "ok", "changed_since_start": ldso.start_env_changes({}, same),
                        "only_findable_via_new_dirs": got,
                        "extensions": [ldso.resolve_needed(ext, {}, mapped={}, elsewhere_env=same)]}}
    found = evaluate(facts, ["loader"])
    assert [(f.code, f.severity) for f in found] == [("env_not_propagated_to_kernel", "error")]
    assert any("smr-doctor fix kernelspec" in c for c in found[0].fix.commands)
    warn = evaluate({"loader": {"status": "ok", "changed_since_start": ldso.start_env_changes({}, same),
                                "extensions": []}}, ["loader"])
    assert [(f.code, f.severity) for f in warn] == [("env_not_propagated_to_kernel", "warning")]


def test_cudart_rules_wrong_cuda_and_not_found(tree):
    r = ldso.resolve_needed(str(tree["needs_cudart"]), {}, mapped={}, elsewhere=[str(tree["cudart"].parent)])
    base = {"loader": {"status": "ok", "extensions": [r]}}
    cu13 = evaluate({**base, "torch": {"installed": True, "version": "2.11.0+cu130", "cuda": "13.0"}}, ["loader"])
    assert [f.code for f in cu13] == ["prebuilt_binary_wrong_cuda"]
    assert "CUDA 11" in cu13[0].title and "CUDA 13" in cu13[0].title
    cu11 = evaluate({**base, "torch": {"installed": True, "version": "2.0.0+cu118", "cuda": "11.8"}}, ["loader"])
    assert [f.code for f in cu11] == ["cudart_not_found"]
    assert any(str(tree["cudart"].parent) in e for e in cu11[0].evidence)
    assert any(str(tree["cudart"].parent) in c for c in cu11[0].fix.commands)
    plain = ldso.resolve_needed(str(tree["user_hidden"]), {}, mapped={}, elsewhere=[])
    lib = evaluate({"loader": {"status": "ok", "extensions": [plain]}}, ["loader"])
    assert [f.code for f in lib] == ["library_not_found"]


# ----------------------------------------------------------------------------- the probe, end to end


def _fake_site(tree, tmp: Path) -> dict[str, Path]:
    """A site-packages with a fake torch (lib/libc10.so, RUNPATH $ORIGIN) and a kaolin-like package whose
    _C.so needs libc10.so with no RPATH (kaolin's real layout on the H200 machine)."""
    site = tmp / "site-packages"
    torch_lib = site / "torch" / "lib"
    c10 = build_so(torch_lib / "libc10.so", "int c10_thing(void){return 10;}", soname="libc10.so")
    build_so(torch_lib / "libtorch_global_deps.so", "extern int c10_thing(void); int g(void){return c10_thing();}",
             f"-L{torch_lib}", "-lc10", "-Wl,-rpath,$ORIGIN", "-Wl,--enable-new-dtags")
    (site / "torch" / "__init__.py").write_text("")
    kao = site / "kaolin"
    kao.mkdir(parents=True)
    (kao / "__init__.py").write_text("")
    ext = build_so(kao / "_C.cpython-311-x86_64-linux-gnu.so",
                   "extern int c10_thing(void); int kaolin_op(void){return c10_thing();}", f"-L{torch_lib}", "-lc10")
    return {"site": site, "c10": c10, "ext": ext, "torch_lib": torch_lib}


def test_probe_reports_kaolin_like_extension_resolvable_not_broken(tree, tmp_path):
    fake = _fake_site(tree, tmp_path)
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "maps").write_text("")  # torch not imported in this process
    (proc / "environ").write_bytes(b"PATH=/usr/bin\0HOME=/root\0")
    ctx = ProbeContext(environ={"PATH": "/usr/bin"}, proc_self=str(proc),
                       extension_paths=[str(tree["needs_cudart"]), str(tmp_path / "nope.so")])
    ctx.facts["torch"] = {"status": "ok", "installed": True, "lib_dir": str(fake["torch_lib"]), "cuda": None}
    facts = loader_probe.probe(ctx, site_dirs=[str(fake["site"])])
    json.dumps(facts)  # JSON-able
    assert facts["start_environ_known"] and facts["changed_since_start"] == {}
    by = {e["path"]: e for e in facts["extensions"]}
    kaolin = by[str(fake["ext"])]
    assert kaolin["source"] == "kaolin" and kaolin["rpath"] == [] and kaolin["runpath"] == []
    assert kaolin["missing"] == []
    assert kaolin["resolved"]["libc10.so"] == {"path": str(fake["c10"]), "via": "already-loaded",
                                               "found_elsewhere": [], "loaded_by": "import torch"}
    assert ldd(fake["ext"])["libc10.so"] is None  # plain ldd's false alarm, which the doctor avoids
    assert by[str(tree["needs_cudart"])]["missing"] == ["libcudart.so.11.0"]
    assert by[str(tmp_path / "nope.so")]["status"] == "unavailable"
    ctx.facts["loader"] = facts
    codes = sorted(f.code for f in evaluate(ctx.facts, ["loader"]))
    assert codes == ["cudart_not_found", "extension_unreadable"]
    assert not any("c10" in f.title for f in evaluate(ctx.facts, ["loader"]))


def test_probe_in_this_process_sees_the_real_maps(tree):
    ctx = ProbeContext(extension_paths=[str(tree["user_rpath"])])
    facts = loader_probe.probe(ctx)
    assert "libc.so.6" in facts["mapped_libraries"]
    assert facts["extensions"][0]["resolved"]["libdep.so"]["via"] == "rpath"
    assert facts["ld_cache"]["entries"] and facts["ld_cache"]["source"] == "/etc/ld.so.cache"


# ----------------------------------------------------------------------------- robustness


def test_never_raises_on_garbage_and_missing_proc_files(tree, tmp_path):
    rng = random.Random(99)
    garbage = tmp_path / "garbage"
    garbage.write_bytes(bytes(rng.randrange(256) for _ in range(5000)))
    assert ldso.read_mapped_libraries(str(garbage)) == {}
    assert ldso.read_mapped_libraries(str(tmp_path / "missing_maps")) == {}
    assert ldso.parse_ld_cache(str(garbage)) is None
    assert ldso.parse_ld_cache(str(tmp_path)) is None
    real_cache = Path("/etc/ld.so.cache").read_bytes() if os.path.exists("/etc/ld.so.cache") else _fake_cache([])
    for n in (0, 10, 20, 47, 48, 100, len(real_cache) // 2):
        p = tmp_path / f"cache{n}"
        p.write_bytes(real_cache[:n])
        c = ldso.parse_ld_cache(str(p))
        assert c is None or isinstance(c, dict)
    bad_counts = bytearray(real_cache)
    bad_counts[20:24] = struct.pack("<I", 0xFFFFFFF)
    p = tmp_path / "cache_badcount"
    p.write_bytes(bytes(bad_counts))
    assert ldso.parse_ld_cache(str(p)) is None
    r = ldso.resolve_needed(str(garbage), {})
    assert r["status"] == "unavailable" and r["missing"] == []
    assert ldso.resolve_needed(str(tmp_path / "nope.so"), {})["reason"] == "file not found"
    flipped = bytearray(tree["user_rpath"].read_bytes())
    for _ in range(200):
        b = bytearray(flipped)
        for _ in range(rng.randrange(1, 30)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        p = tmp_path / "flip.so"
        p.write_bytes(bytes(b))
        res = ldso.resolve_needed(str(p), {"LD_LIBRARY_PATH": "::;/x"}, mapped={})
        assert res["status"] in ("ok", "unavailable")
    proc = tmp_path / "emptyproc"
    proc.mkdir()
    ctx = ProbeContext(proc_self=str(proc), extension_paths=[str(garbage)])
    facts = loader_probe.probe(ctx, site_dirs=[])
    assert facts["start_environ_known"] is False and facts["mapped_libraries"] == {}
    assert facts["extensions"][0]["status"] == "unavailable"


def test_expand_tokens():
    import platform

    assert ldso.expand_tokens("$ORIGIN/../lib", "/a/b") == "/a/b/../lib"
    assert ldso.expand_tokens("${ORIGIN}/x", "/o") == "/o/x"
    assert ldso.expand_tokens("/opt/$PLATFORM", "/o") == f"/opt/{platform.machine()}"
    lib = ldso.expand_tokens("/usr/$LIB", "/o")
    assert lib in {"/usr/lib64", "/usr/lib", f"/usr/lib/{ldso._multiarch()}"} and os.path.isdir(lib)
    assert ldso.expand_tokens("$NOPE/x", "/o") == "$NOPE/x"  # glibc keeps an unknown $NAME literally
    assert ldso.expand_tokens("$ORIGINAL/x", "/o") == "$ORIGINAL/x"
    assert ldso.expand_tokens("$ORIGIN/x", "") is None
    assert ldso.expand_tokens("", "/o") == os.getcwd()
    assert ldso.expand_tokens("$ORIGIN-x/y", "/o") == "$ORIGIN-x/y"
    assert ldso.expand_tokens("${ORIGIN}-x/y", "/o") == "/o-x/y"


def test_fix_commands_name_the_package_that_installed_the_extension():
    import numpy

    from smrnb.doctor._owner import owning_distribution, package_name

    so = str(next(Path(numpy.__file__).parent.rglob("_multiarray_umath*.so")))  # a real installed extension
    assert owning_distribution(so) == "numpy" and package_name(so, "<package>") == "numpy"
    top = "/x/lib/python3.11/site-packages/torch_scatter/_scatter_cuda.so"  # not installed here: its folder's name
    assert owning_distribution(top) == "torch_scatter"
    assert owning_distribution("/x/site-packages/quux.cpython-311-x86_64-linux-gnu.so") == "quux"
    assert owning_distribution("/home/me/src/ext/build/lib/ext/_C.so") is None
    assert package_name(None, "<package>") == "<package>"
    # a live finding about that extension: its fix names numpy, not "<package>"
    torch = {"installed": True, "version": "2.11.0+cu130", "cuda": "13.0"}
    ext = {"path": so, "status": "ok", "missing": ["libcudart.so.11.0"], "resolved": {}}
    (f,) = evaluate({"loader": {"status": "ok", "extensions": [ext]}, "torch": torch}, ["loader"])
    assert f.code == "prebuilt_binary_wrong_cuda", f
    # (blind audit 36, F3) one --force-reinstall by that name, never an uninstall first
    assert any(c.startswith("pip install --no-cache-dir --force-reinstall numpy") for c in f.fix.commands), f.fix.commands
    assert not any("<package" in c or "uninstall" in c for c in f.fix.commands), f.fix.commands
    ext = {"path": so, "status": "ok", "missing": [], "resolved": {}, "version_missing": {"libm.so.6": ["GLIBC_9.99"]}}
    (f,) = evaluate({"loader": {"status": "ok", "extensions": [ext]}}, ["loader"])
    assert f.code == "symbol_version_missing" and f.fix.commands[-1].endswith("--force-reinstall numpy")
