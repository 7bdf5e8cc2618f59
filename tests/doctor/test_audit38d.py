# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 38d (issue 25: "a fact read from a text and the same fact probed live give the same finding").

* A compiled module that needs ``libcudart.so.11.0``, which the loader cannot find, beside a CUDA 12 toolkit: the live
  run (``--extension``, ``--layer loader``/``abi``) and ``explain`` of the loader's error text on the same machine take
  their first reading from one decision (rules/_events.py's ``decide``) over the same facts.
* One reading of tables/nvcc_archs.csv for a CUDA major newer than the table.
* ``explain`` with this machine's facts prints this process's interpreter where the text shows none.

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
_PAIR = ("cudart_not_found", "prebuilt_binary_wrong_cuda")


def _doctor(*args: str, env: dict[str, str] | None = None, stdin: str | None = None,
            timeout: float = 180) -> dict:
    p = subprocess.run([*CLI, *args, "--json"], capture_output=True, text=True, timeout=timeout, input=stdin,
                       env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    assert p.stdout.strip(), p.stderr
    return json.loads(p.stdout)


def _gcc(*args: str, cwd: Path) -> None:
    subprocess.run(["gcc", "-shared", "-fPIC", *args], cwd=cwd, check=True, capture_output=True, timeout=120)


@pytest.fixture()
def cuda11_extension(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A real ELF that needs libcudart.so.11.0 (linked against a stand-in, then deleted) and a PATH whose first nvcc
    is a CUDA 12.4 one (a script printing nvcc's --version)."""
    (tmp_path / "rt.c").write_text("int cudaRuntimeStandIn(void) { return 0; }\n")
    _gcc("-Wl,-soname,libcudart.so.11.0", "-o", "libcudart.so.11.0", "rt.c", cwd=tmp_path)
    (tmp_path / "ext.c").write_text("int cudaRuntimeStandIn(void);\nint ext_entry(void) { return cudaRuntimeStandIn(); }\n")
    _gcc("-o", "cuda11_ext.so", "ext.c", "-L.", "-l:libcudart.so.11.0", cwd=tmp_path)
    (tmp_path / "libcudart.so.11.0").unlink()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    nvcc = bindir / "nvcc"
    nvcc.write_text("#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                    "echo 'Cuda compilation tools, release 12.4, V12.4.131'\n")
    nvcc.chmod(0o755)
    return tmp_path / "cuda11_ext.so", {"PATH": f"{bindir}:{os.environ['PATH']}"}


def _first_of_pair(d: dict) -> str:
    got = [f["code"] for f in d["findings"] if f["code"] in _PAIR]
    assert got, [f["code"] for f in d["findings"]]
    return got[0]


def _majors_shown(d: dict) -> set[int]:
    f = d.get("facts") or {}
    vers = [(f.get("torch") or {}).get("cuda")] + [n.get("version") for n in (f.get("toolkit") or {}).get("nvccs") or []
                                                   if isinstance(n, dict)]
    return {int(str(v).split(".")[0]) for v in vers if v and str(v).split(".")[0].isdigit()}


@needs_gcc
def test_a_missing_cudart_reads_the_same_live_and_from_its_text(cuda11_extension):
    """Before round 38d `--layer loader` / `--layer abi` did not collect the toolkit's facts, so the live reading of
    the missing libcudart.so.11.0 beside a CUDA 12 nvcc was `cudart_not_found` while `explain` of the loader's own
    message on the same machine read `prebuilt_binary_wrong_cuda` (CUDA 11 is none of this environment's)."""
    ext, env = cuda11_extension
    text = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
    full = _doctor("--layer", "toolkit", "--layer", "torch", env=env)
    assert 12 in _majors_shown(full), full["facts"]
    runs = {
        "live": _doctor("--extension", str(ext), env=env),
        "live --layer loader": _doctor("--extension", str(ext), "--layer", "loader", env=env),
        "live --layer abi": _doctor("--extension", str(ext), "--layer", "abi", env=env),
        "explain": _doctor("explain", env=env, stdin=text),
        "explain --layer loader": _doctor("explain", "--layer", "loader", env=env, stdin=text),
    }
    firsts = {k: _first_of_pair(d) for k, d in runs.items()}
    assert len(set(firsts.values())) == 1, firsts
    # the rule's own logic: a library of a CUDA major none of torch's build or the toolkits has is another CUDA's
    want = "cudart_not_found" if 11 in _majors_shown(full) else "prebuilt_binary_wrong_cuda"
    assert set(firsts.values()) == {want}, firsts



# ------------------------------------------------------------------ the other pairs: one fact, probed and in a text

#: the readings a loader / abi event (a missing library, an undefined symbol) may have
_EVENT_CODES = {"cudart_not_found", "prebuilt_binary_wrong_cuda", "library_not_found", "extension_undefined_symbol",
                "cxx11_abi_mismatch", "abi_torch_version_mismatch", "torch_libs_not_loaded", "nvcc_torch_cuda_mismatch",
                "companion_built_for_other_torch", "symbol_version_missing", "libstdcxx_too_old", "env_not_propagated_to_kernel"}


def _torch_lib_dir() -> str:
    p = subprocess.run([sys.executable, "-c", "import importlib.util, os; s = importlib.util.find_spec('torch'); "
                        "print(os.path.join(os.path.dirname(s.origin), 'lib') if s else '')"],
                       capture_output=True, text=True, timeout=60)
    d = p.stdout.strip()
    return d if d and os.path.exists(os.path.join(d, "libc10.so")) else ""


def _module_needing(tmp: Path, name: str, symbol: str, link: list[str]) -> Path:
    """A Python extension module (it defines PyInit_<name>) that calls ``symbol``, linked with ``link``."""
    (tmp / f"{name}.c").write_text(f"void {symbol}(void);\nvoid *PyInit_{name}(void) {{ {symbol}(); return 0; }}\n")
    _gcc("-o", f"{name}.so", f"{name}.c", *link, cwd=tmp)
    return tmp / f"{name}.so"


def _missing_lib_case(tmp: Path) -> tuple[Path, str]:
    (tmp / "l.c").write_text("int smrnb_test_lib_fn(void) { return 1; }\n")
    _gcc("-Wl,-soname,libsmrnbgone.so.1", "-o", "libsmrnbgone.so.1", "l.c", cwd=tmp)
    ext = _module_needing(tmp, "needs_gone", "smrnb_test_lib_fn", ["-L.", "-l:libsmrnbgone.so.1"])
    (tmp / "libsmrnbgone.so.1").unlink()
    return ext, "ImportError: libsmrnbgone.so.1: cannot open shared object file: No such file or directory"


def _plain_symbol_case(tmp: Path) -> tuple[Path, str]:
    ext = _module_needing(tmp, "plain_undef", "smrnb_nowhere_defined_fn", [])
    return ext, f"ImportError: {ext}: undefined symbol: smrnb_nowhere_defined_fn"


def _symbol_version_case(tmp: Path) -> tuple[Path, str]:
    """A module needing GLIBCXX_3.4.99 of libstdc++.so.6 (linked against a stand-in defining it, then deleted): no
    libstdc++ has it; the loader's message names the system's copy."""
    (tmp / "ver.map").write_text("GLIBCXX_3.4.99 { global: smrnb_new_cxx_fn; };\n")
    (tmp / "s.c").write_text("int smrnb_new_cxx_fn(void) { return 1; }\n")
    (tmp / "stand_in").mkdir()
    _gcc("-Wl,--version-script=ver.map", "-Wl,-soname,libstdc++.so.6", "-o", "stand_in/libstdc++.so.6", "s.c", cwd=tmp)
    ext = _module_needing(tmp, "needs_glibcxx", "smrnb_new_cxx_fn", ["-Lstand_in", "-l:libstdc++.so.6"])
    shutil.rmtree(tmp / "stand_in")
    return ext, (f"ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.99' not found "
                 f"(required by {ext})")


def _torch_symbol_case(symbol: str):
    def make(tmp: Path) -> tuple[Path, str]:
        lib = _torch_lib_dir()
        if not lib:
            pytest.skip("no torch with libc10.so installed: the extension links torch's library")
        ext = _module_needing(tmp, "torch_undef", symbol, [f"-L{lib}", "-lc10", f"-Wl,-rpath,{lib}"])
        return ext, f"ImportError: {ext}: undefined symbol: {symbol}"
    return make


@needs_gcc
@pytest.mark.parametrize("make", [
    pytest.param(_missing_lib_case, id="missing-library"),
    pytest.param(_plain_symbol_case, id="plain-undefined-symbol"),
    pytest.param(_symbol_version_case, id="symbol-version-missing"),
    # torchCheckFail with the pre-C++11 std::string (Ss): the other ABI's spelling of a symbol torch defines
    pytest.param(_torch_symbol_case("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs"), id="torch-symbol-other-abi"),
    pytest.param(_torch_symbol_case("_ZN3c1019SmrnbNoSuchFunctionEv"), id="torch-symbol-no-such-function"),
])
def test_a_fact_probed_live_and_read_from_its_text_give_the_same_first_code(make, tmp_path):
    """(issue 25) Each fact probed live (--extension, whichever of the loader / abi layers is asked) and the same fact in
    the error text it makes (explain with this machine, whole or --layer loader) give the same first reading. Before
    round 38d `--layer loader` reported nothing of a torch symbol the extension needs and torch lacks, which
    `explain --layer loader` of its `undefined symbol` line reports."""
    ext, text = make(tmp_path)
    runs = {
        "live": _doctor("--extension", str(ext)),
        "live --layer loader": _doctor("--extension", str(ext), "--layer", "loader"),
        "live --layer abi": _doctor("--extension", str(ext), "--layer", "abi"),
        "explain": _doctor("explain", stdin=text + "\n"),
        "explain --layer loader": _doctor("explain", "--layer", "loader", stdin=text + "\n"),
    }
    firsts = {k: next((f["code"] for f in d["findings"] if f["code"] in _EVENT_CODES), None) for k, d in runs.items()}
    assert None not in firsts.values() and len(set(firsts.values())) == 1, firsts


# ------------------------------------------------------------------ item 2: one reading of nvcc_archs.csv

def _newest_row() -> tuple[str, list[int]]:
    from smrnb.doctor import tables

    r = max(tables.rows("nvcc_archs"), key=lambda x: tables.version_key(x["cuda"]))
    return r["cuda"], sorted(int(a) for a in r["archs"].split())


def test_the_two_readers_of_nvcc_archs_agree_for_a_major_newer_than_the_table():
    """_install.nvcc_archs read a major newer than the table (CUDA 14 beside rows up to 13.x) as the newest known
    release's list; tables.nvcc_archs said None (unknown). One answer now: the whole list is unknown."""
    from smrnb.doctor import _install, tables

    newest, _ = _newest_row()
    later = f"{int(newest.split('.')[0]) + 1}.0"
    for v in ("10.2", "11.8", "12.4", newest, later, "9.2"):
        t = tables.nvcc_archs(v)
        assert _install.nvcc_archs(v) == (sorted(t) if t is not None else None), v
    assert tables.nvcc_archs(later) is None


def test_a_newer_major_surely_compiles_the_newest_archs_and_may_have_dropped_the_oldest():
    from smrnb.doctor import tables

    newest, archs = _newest_row()
    m = int(newest.split(".")[0])
    s = tables.nvcc_arch_support(f"{m + 1}.0")
    assert s is not None and s.newer_major and s.row == newest
    assert s.compiles(max(archs)) is True  # the newest arch the newest known release compiles
    assert s.compiles(min(archs)) is None  # its oldest: a new major drops the oldest archs (13.0 dropped sm_50-72)
    assert s.compiles(max(archs) + 10) is None  # newer than any known: a new major adds archs
    dropped = [a for a in (tables.nvcc_archs("12.0") or ()) if a not in archs]
    assert dropped and all(s.compiles(a) is False for a in dropped)  # dropped before: never taken back
    # a release the table knows: its own row, every answer sure
    known = tables.nvcc_arch_support(newest)
    assert known is not None and not known.newer_major and known.compiles(min(archs)) is True
    assert known.compiles(max(archs) + 10) is False


def test_the_arch_list_for_a_newer_major_keeps_an_arch_the_table_cannot_rule_out():
    """Before, nvcc 14.0 was read as 13.x's list, so a GPU newer than 13.x's newest arch got the PTX of 13.x's newest
    ("12.1+PTX") although a new major adds archs; an arch 13.x dropped stays out."""
    from smrnb.doctor import _install

    newest, archs = _newest_row()
    later = f"{int(newest.split('.')[0]) + 1}.0"
    new = max(archs) + 10
    assert _install.build_arch_list([f"sm_{new}"], later) == f"{new // 10}.{new % 10}"
    assert _install.build_arch_list([f"sm_{max(archs)}"], later) == f"{max(archs) // 10}.{max(archs) % 10}"
    assert _install.build_arch_list(["sm_70"], later) is None  # dropped by CUDA 13.0: no nvcc after compiles it


# ------------------------------------------------------------------ item 3: explain with this machine: its Python

# a traceback whose frames show no interpreter (a path relative to the working directory), a computed command's cause
_CUDNN_NO_PREFIX = """>>> print(torch.backends.cudnn.version())
Traceback (most recent call last):
  File "torch/backends/cudnn/__init__.py", line 50, in _init
    raise RuntimeError(f'{base_error_msg}'
RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but found runtime version (8, 4, 1). \
PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure PyTorch can find the bundled \
cuDNN.Looks like your LD_LIBRARY_PATH contains incompatible version of cudnnPlease either remove it from the path or \
install cudnn (8, 5, 0)
"""


def _computed(d: dict) -> list[str]:
    return [c for f in d["findings"] for c in (f.get("fix") or {}).get("commands") or [] if "$(" in c and "python" in c]


@pytest.fixture()
def other_python_first(tmp_path: Path) -> dict[str, str]:
    """PATH whose first ``python`` is in another folder than this process's interpreter (as an unactivated venv)."""
    bindir = tmp_path / "pybin"
    bindir.mkdir()
    (bindir / "python").symlink_to(shutil.which("python3") or sys.executable)
    return {"PATH": f"{bindir}:{os.environ['PATH']}"}


def test_explain_with_this_machine_computes_with_the_python_it_examined(other_python_first):
    """Before round 38d `smr-doctor explain` read with this machine's facts printed `$(python -c ...)` (the python PATH
    finds first) where the text shows no interpreter; diagnose printed the interpreter it examined. Both now do."""
    exe = sys.executable  # the CLI's interpreter (CLI[0]): the Python explain examined
    live = _computed(_doctor("explain", env=other_python_first, stdin=_CUDNN_NO_PREFIX))
    assert live and all(f"$({exe} -c " in c and "$(python " not in c for c in live), live
    # read alone (--offline): no machine's interpreter, the bare python as before
    offline = _computed(_doctor("explain", "--offline", env=other_python_first, stdin=_CUDNN_NO_PREFIX))
    assert offline and all("$(python -c " in c and exe not in c for c in offline), offline


def test_explain_with_this_machine_keeps_the_python_the_text_shows(other_python_first):
    text = _CUDNN_NO_PREFIX.replace('File "torch/', 'File "/opt/conda/envs/server/lib/python3.8/site-packages/torch/')
    cmds = _computed(_doctor("explain", env=other_python_first, stdin=text))
    assert cmds and all("$(/opt/conda/envs/server/bin/python -c " in c and sys.executable not in c for c in cmds), cmds


_H200_SMI = """#!/bin/sh
case "$*" in
  '--query-gpu=name,driver_version,compute_cap,memory.total,uuid --format=csv,noheader')
    echo 'NVIDIA H200, 580.159.04, 9.0, 143771 MiB, GPU-6f2b7c0e-2d1a-4c1e-9a51-0c7e3e2b9d11';;
  '') echo '| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |'
      echo '|   0  NVIDIA H200                    On  |   00000000:19:00.0 Off |                    0 |';;
esac
"""


def _nvcc() -> str:
    return shutil.which("nvcc") or next((p for p in ("/usr/local/cuda/bin/nvcc",) if os.access(p, os.X_OK)), "")


@pytest.mark.skipif(not _nvcc(), reason="no nvcc: the module's GPU code is built with it")
def test_a_gpu_arch_fact_probed_live_and_read_from_its_text_give_the_same_first_code(tmp_path):
    """A module whose only GPU code is sm_75 on a GPU of compute capability 9.0 (nvidia-smi's answer): the abi probe
    reads its embedded archs; the text is the CUDA runtime's error at its first kernel launch."""
    (tmp_path / "k.cu").write_text("__global__ void kern(float *x) { x[threadIdx.x] = 1.0f; }\n"
                                   'extern "C" void *PyInit_kmod(void) { kern<<<1, 1>>>(0); return 0; }\n')
    subprocess.run([_nvcc(), "-shared", "-Xcompiler", "-fPIC", "-gencode", "arch=compute_75,code=sm_75", "k.cu", "-o",
                    "kmod.so"], cwd=tmp_path, check=True, capture_output=True, timeout=300)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "nvidia-smi").write_text(_H200_SMI)
    (bindir / "nvidia-smi").chmod(0o755)
    env = {"PATH": f"{bindir}:{os.environ['PATH']}"}
    ext = str(tmp_path / "kmod.so")
    live = _doctor("--extension", ext, env=env)
    gpus = (live["facts"].get("driver") or {}).get("gpus") or []
    if not gpus or any(str(g.get("compute_capability")).startswith("7.") for g in gpus):
        pytest.skip(f"this machine's GPU facts are not nvidia-smi's answer of 9.0 (NVML's own GPU?): {gpus}")
    text = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    runs = {"live": live, "live --layer abi": _doctor("--extension", ext, "--layer", "abi", env=env),
            "explain": _doctor("explain", env=env, stdin=text),
            "explain --layer abi": _doctor("explain", "--layer", "abi", env=env, stdin=text)}
    arch_codes = {"no_kernel_image_for_gpu", "torch_wheel_lacks_gpu_arch", "unsupported_gpu_arch"}
    firsts = {k: next((f["code"] for f in d["findings"] if f["code"] in arch_codes), None) for k, d in runs.items()}
    assert None not in firsts.values() and len(set(firsts.values())) == 1, firsts
