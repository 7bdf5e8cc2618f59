# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain from the user's side, round 22a: the host-compiler limit compared with the text's own gcc and CUDA, the
same import message recognised whatever surrounds it, no filler where a library's or package's name belongs, GPU
names written without spaces, and a companion's failing build beside a CPU torch the text asks for. Texts in other
wordings than the audit's (audit20)."""

from __future__ import annotations

import re

import pytest

from smrnb.doctor import tables
from smrnb.doctor._explain import explain_result


def _result(text: str):
    return explain_result(text, similar=False)


def _commands(text: str) -> list[str]:
    return [c for f in _result(text).findings if f.fix for c in f.fix.commands]


def _finding(text: str, code: str):
    return next(f for f in _result(text).findings if f.code == code)


# ------------------------------------------------------------------ item 1: nvcc's gcc limit against the text
def test_the_host_compiler_table_follows_host_config_per_release():
    # crt/host_config.h's "gcc versions later than N are not supported", per release (tables/nvcc_gcc.csv's sources)
    assert [tables.max_gcc_for_nvcc(v) for v in ("8.0", "9.0", "9.1", "9.2", "10.0", "10.1", "10.2", "11.0", "11.3",
                                                 "11.6", "11.8")] == [5, 6, 6, 7, 7, 8, 8, 9, 10, 11, 11]
    for r in tables.rows("nvcc_gcc"):
        assert r["verified"] in ("yes", "partial", "no") and r["source"].strip(), r
        assert "(mem)" not in r["source"] or r["verified"] == "no", r  # a row from memory says so


CMAKE_GCC10_CUDA113 = """\
$ cmake -S . -B out -DCMAKE_CUDA_COMPILER=/usr/local/cuda-11.3/bin/nvcc -DCMAKE_BUILD_TYPE=Release
-- The CUDA compiler identification is NVIDIA 11.3.109
-- Configuring done
CMake Error in src/CMakeLists.txt:
  No known features for CXX compiler

  "GNU"

  version 10.2.0.
-- Generating done
"""


def test_a_gcc_nvcc_accepts_is_not_called_too_new():
    f = _finding(CMAKE_GCC10_CUDA113, "host_compiler_unsupported")
    assert "newer than" not in f.title and "10" in f.title and "11.3" in f.title, f.title
    assert "CMake" in f.title
    cmds = f.fix.commands
    assert any(c.startswith("cmake --version") for c in cmds), cmds
    assert not any("<n>" in c or "export CC=gcc-" in c for c in cmds), cmds


def test_a_gcc_newer_than_the_texts_nvcc_names_the_newest_it_accepts():
    text = CMAKE_GCC10_CUDA113.replace("cuda-11.3", "cuda-10.2").replace("11.3.109", "10.2.89")
    f = _finding(text, "host_compiler_unsupported")
    assert "gcc 10 is newer than nvcc 10.2 accepts (gcc 8 at most)" in f.title, f.title
    cmds = " ".join(f.fix.commands)
    assert "gcc-8" in cmds and "<n>" not in cmds, f.fix.commands


# ------------------------------------------------------------------ item 2: the message, not its surroundings
@pytest.mark.parametrize("line", [
    "ImportError: cannot import name 'compare_ssim' from 'skimage.measure' (/usr/lib/python3/skimage/measure/__init__.py)",
    "ImportError: Cannot import name \"compare_ssim' from skimage.measure'",
    "ImportError: cannot import name `compare_ssim` from `skimage.measure`",
    'ImportError: cannot import name "compare_ssim" from "skimage.measure"',
])
def test_the_same_import_message_in_any_quoting_is_read_the_same(line):
    text = f"evaluation script fails\n  File \"eval.py\", line 3, in <module>\n{line}\n"
    got = [(f.code, f.title) for f in _result(text).findings]
    assert got and got[0][0] == "package_api_version_mismatch", got
    assert "compare_ssim" in got[0][1], got


def test_ipythons_arrow_without_a_line_number_names_the_module_of_a_bare_import_error():
    text = ("Notebook cell fails: ImportError: cannot import name 'joblib'\n\n"
            "--> from sklearn.externals import joblib\n\nImportError: cannot import name 'joblib'\n")
    f = _result(text).findings
    assert f and f[0].code == "package_api_version_mismatch" and "sklearn.externals.joblib" in f[0].title, \
        [(x.code, x.title) for x in f]


# ------------------------------------------------------------------ item 3: no filler where a name belongs
UNDEF = """\
Traceback (most recent call last):
  File "run.py", line 2, in <module>
    import fastops
ImportError: /srv/env/lib/python3.10/site-packages/fastops/_kernels.so: undefined symbol: cblas_sgemm_batch
"""


def test_an_undefined_symbol_names_the_texts_library_not_a_filler():
    cmds = _commands(UNDEF)
    nm = [c for c in cmds if "nm -D" in c]
    assert nm and all("<" not in c.split("#")[0] for c in nm), nm
    assert any("ldd /srv/env/lib/python3.10/site-packages/fastops/_kernels.so" in c and "cblas_sgemm_batch" in c
               for c in nm), nm


def test_no_filler_library_words_in_any_printed_command():
    texts = [UNDEF, "ImportError: DLL load failed while importing _fastops: The specified procedure could not be found.",
             "error: Directory 'third_party/knn' is not installable. Neither 'setup.py' nor 'pyproject.toml' found."]
    for text in texts:
        for c in _commands(text):
            body = c.split("   #")[0]
            assert not re.search(r"<the (?:missing header or library|library that should define it|library named)>",
                                 body), (text[:40], c)
            assert "grep ''" not in c and "grep the library" not in c and "search the library" not in c, c
        for f in _result(text).findings:  # nor in the command that decides between readings
            for e in f.evidence:
                assert not re.search(r"<the (?:missing header or library|library that should define it)>", e), e


# ------------------------------------------------------------------ item 4: placeholders the text fills
def test_the_package_pips_log_builds_fills_the_build_command():
    text = ("$ pip install ./fused_ssim\nProcessing ./fused_ssim\n  Building wheel for fused_ssim (setup.py) ... error\n"
            "  nvcc fatal   : Unsupported gpu architecture 'compute_89'\n"
            "  ERROR: Failed building wheel for fused_ssim\nFailed to build fused_ssim\n")
    cmds = [c for c in _commands(text) if "pip install" in c]
    assert cmds and not any("<package>" in c for c in cmds), cmds


def test_the_texts_own_pip_target_fills_the_build_command():
    text = ('pip install "git+https://github.com/example-org/splatkit.git" fails:\n'
            "  /tmp/pip-req-build-x/csrc/raster.cu(41): error: identifier \"__hmax\" is undefined\n"
            "  error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1\n")
    cmds = [c for c in _commands(text) if "pip install" in c and "--no-build-isolation" in c]
    assert cmds and all("<package>" not in c for c in cmds), cmds
    assert any("git+https://github.com/example-org/splatkit.git" in c for c in cmds), cmds


def test_a_jit_build_named_by_torch_clears_its_own_folder():
    text = "RuntimeError: Error building extension 'fastblur_cuda'\nninja: build stopped: subcommand failed.\n"
    cmds = _commands(text)
    assert any("torch_extensions/*/fastblur_cuda" in c for c in cmds), cmds
    assert not any(re.search(r"pip install [^#]*<package>", c) for c in cmds), cmds


def test_the_failing_imports_package_owns_the_library():
    text = ("Traceback (most recent call last):\n  File \"train.py\", line 4, in <module>\n"
            "    from mmcv.ops import nms\n"
            "ImportError: libcudart.so.10.1: cannot open shared object file: No such file or directory\n")
    cmds = _commands(text)
    assert not any("<package-owning-the-extension>" in c for c in cmds), cmds
    # (blind audit 36, F3) reinstalled in place by its name, never uninstalled first
    assert any(re.match(r"pip install [^#]*--force-reinstall [^#]*\bmmcv\b", c) for c in cmds), cmds
    assert not any(c.startswith("pip uninstall") for c in cmds), cmds


def test_a_library_path_names_its_owner():
    text = ("ImportError: /opt/py/lib/python3.8/site-packages/torchsparse/backend/libspops.so: undefined symbol: "
            "_ZN3c104cuda20getCurrentCUDAStreamEa\n")
    for c in _commands(text):
        assert "<the package that owns libspops.so>" not in c, c


# ------------------------------------------------------------------ item 5: GPU names written without spaces
@pytest.mark.parametrize(("name", "cc"), [("TeslaP100", "6.0"), ("NVIDIA-A100-PCIE-40GB", "8.0"),
                                          ("QuadroRTX6000", "7.5"), ("GeForceRTX3080Ti", "8.6"),
                                          ("Tesla-V100-SXM2-32GB", "7.0"), ("teslaT4", "7.5")])
def test_gpu_names_without_spaces_read_as_the_gpu(name, cc):
    assert tables.compute_capability_for_gpu(name) == cc
    text = f"CUDA error: no kernel image is available for execution on the device\nThe card is a {name}.\n"
    assert any(f"compute capability {cc}" in c or f'TORCH_CUDA_ARCH_LIST="{cc}"' in c for c in _commands(text)), \
        _commands(text)


def test_a_vendor_word_in_prose_is_not_split():
    assert tables.split_gpu_vendor("Teslas and Quadros") == "Teslas and Quadros"


# ------------------------------------------------------------------ item 6: a companion's build beside a CPU torch
def test_a_cpu_torch_the_requirements_ask_for_gets_the_companions_build_fix():
    text = """\
requirements.txt:
-f https://download.pytorch.org/whl/cpu/torch_stable.html
-f https://data.pyg.org/whl/torch-2.0.0+cpu.html
torch==2.0.0+cpu
torch-cluster

Collecting torch==2.0.0+cpu
Collecting torch-cluster
  Downloading torch_cluster-1.6.3.tar.gz (54 kB)
    ERROR: Command errored out with exit status 1:
      File "/tmp/pip-install-k2j1/torch-cluster_0123456789abcdef0123456789abcdef/setup.py", line 9, in <module>
        import torch
    ModuleNotFoundError: No module named 'torch'
"""
    cmds = _commands(text)
    assert not any("download.pytorch.org/whl/cu" in c for c in cmds), cmds
    assert any(c.startswith("pip install torch-cluster -f https://data.pyg.org/whl/torch-2.0.0+cpu.html") for c in cmds), \
        cmds


def test_nvdiffrast_from_its_repository_builds_against_the_installed_torch():
    # nvdiffrast's docs (Installation): pip install git+https://github.com/NVlabs/nvdiffrast.git --no-build-isolation,
    # its setup importing the torch already installed; without the flag pip's isolated build has no torch
    from smrnb.doctor._printed import pip_names
    out = pip_names("pip install nvdiffrast")
    assert "git+https://github.com/NVlabs/nvdiffrast.git --no-build-isolation" in out, out
    assert out.count("--no-build-isolation") >= 1 and "pip install nvdiffrast " not in out + " "
