# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain: real error texts (verbatim from public issue threads) -> findings with the right code."""

from __future__ import annotations

import shutil

import pytest

from smrnb.doctor import explain
from smrnb.doctor._codes import CODES as TABLE
from smrnb.doctor._explain import CODES, explain_text, string_abi
from smrnb.doctor.rules import all_codes

# NVIDIAGameWorks/kaolin#678 (whole traceback)
KAOLIN_678 = """code$ python3.9 main.py
Traceback (most recent call last):
  File "2dimageto3dmodel/code/main.py", line 21, in <module>
    from rendering.mesh_template import MeshTemplate
  File "2dimageto3dmodel/code/rendering/mesh_template.py", line 1, in <module>
    import kaolin as kal
  File "/usr/local/lib/python3.9/dist-packages/kaolin/__init__.py", line 1, in <module>
    from . import io
  File "/usr/local/lib/python3.9/dist-packages/kaolin/ops/batch.py", line 17, in <module>
    from kaolin import _C
ImportError: /usr/local/lib/python3.9/dist-packages/kaolin/_C.so: undefined symbol: _ZN3c106detail19maybe_wrap_dim_slowEllb
"""
# NVIDIAGameWorks/kaolin#924 (title)
KAOLIN_924 = ("ImportError: python3.10/site-packages/kaolin/_C.so: undefined symbol: "
              "_ZN3c105ErrorC2ENS_14SourceLocationESs")
# NVIDIAGameWorks/kaolin#937 (last line of the traceback)
KAOLIN_937 = ("ImportError: /tmp/pyenv1/vto3D/lib/python3.10/site-packages/kaolin/_C.so: undefined symbol: "
              "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE")
# CannyLab/tsne-cuda#126
CUDART = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"
# ali-vilab/dreamtalk#32 (TensorFlow's dso loader line)
CUDART_TF = ("2024-02-25 18:52:47.991396: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not "
             "load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: "
             "No such file or directory; LD_LIBRARY_PATH: /usr/local/lib/python3.10/dist-packages/cv2/../../lib64:"
             "/usr/lib64-nvidia")
# thu-ml/TurboDiffusion#80 / mit-han-lab/Block-Sparse-Attention#15
NVCC_120 = "nvcc fatal   : Unsupported gpu architecture 'compute_120'"
# CityU-AIM-Group/SIGMA#40
UNKNOWN_ARCH = """  File "/home/hc/anaconda3/envs/SIGMA/lib/python3.7/site-packages/torch/utils/cpp_extension.py", line 1027, in _get_cuda_arch_flags
    raise ValueError("Unknown CUDA arch ({}) or GPU not supported".format(arch))
ValueError: Unknown CUDA arch (8.6) or GPU not supported
"""
# Comfy-Org/ComfyUI#10326
NO_KERNEL = """RuntimeError: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
"""
# kodenii/Responsible-Visual-Editing#4
NVCC_TORCH = """ raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version, torch.version.cuda))
RuntimeError:
The detected CUDA version (12.4) mismatches the version that was used to compile
PyTorch (11.8). Please make sure to use the same CUDA versions.
"""
# NVIDIA/flownet2-pytorch#218
CUDA_HOME_TB = """  File "/home/user/.local/lib/python3.7/site-packages/torch/utils/cpp_extension.py", line 1252, in _join_cuda_home
    raise EnvironmentError('CUDA_HOME environment variable is not set. '

OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.
"""
# microsoft/Oscar#113
NVCC_MISSING = ("FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc': "
                "'/usr/local/cuda/bin/nvcc'")
# NVIDIA/apex#368
CUDA_HOME_LIST = ("FileNotFoundError: [Errno 2] No such file or directory: ':/usr/local/cuda:/usr/local/cuda-10.1/bin/"
                  "nvcc': ':/usr/local/cuda:/usr/local/cuda-10.1/bin/nvcc'")
# pytorch/pytorch#136556
GCC_LOG = """/usr/include/crt/host_config.h:132:2: error: #error -- unsupported GNU version! gcc versions later than 12 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your own risk.
  132 | #error -- unsupported GNU version! gcc versions later than 12 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your own risk.
      |  ^~~~~
"""
# lllyasviel/Fooocus#1313
DRIVER = ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
          "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
          "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your "
          "version of the CUDA driver.")
# kvcache-ai/ktransformers#524
GLIBCXX = ("ImportError: /usr/local/miniconda3/envs/ktransformers/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.30' "
           "not found (required by /usr/local/miniconda3/envs/ktransformers/lib/python3.11/site-packages/"
           "cpuinfer_ext.cpython-311-x86_64-linux-gnu.so)")
# NVIDIAGameWorks/kaolin#729 (build log)
BUILD_ISOLATION = """  Installing build dependencies ... done
  Getting requirements to build wheel ... error
  error: subprocess-exited-with-error

  × Getting requirements to build wheel did not run successfully.
  │ exit code: 1
  ╰─> [17 lines of output]
      Traceback (most recent call last):
        File "C:\\Users\\Name\\anaconda3\\envs\\ObjectSegmentSelection\\lib\\site-packages\\pip\\_vendor\\pyproject_hooks\\_in_process\\_in_process.py", line 353, in <module>
          main()
        File "C:\\Users\\Name\\anaconda3\\envs\\ObjectSegmentSelection\\lib\\site-packages\\pip\\_vendor\\pyproject_hooks\\_in_process\\_in_process.py", line 118, in get_requires_for_build_wheel
          return hook(config_settings)
      ModuleNotFoundError: No module named 'torch'
      [end of output]
"""
KAOLIN_729_TITLE = "ImportError: Kaolin requires PyTorch >=1.6.0, <=2.0.0, but couldn't find the module installed."
# NVIDIAGameWorks/kaolin#886
KAOLIN_886 = "ImportError: Kaolin requires PyTorch >= 1.6.0, <= 2.6.0. Please install it before proceeding."
# unifiedparsing#12 / KNN_CUDA#14
NINJA = """  File "/home/liy0r/anaconda3/envs/pt/lib/python3.7/site-packages/torch/utils/cpp_extension.py", line 1430, in verify_ninja_availability
    raise RuntimeError("Ninja is required to load C++ extensions")
RuntimeError: Ninja is required to load C++ extensions
"""
# NVIDIAGameWorks/kaolin#712
KAOLIN_00 = """(base) [yshan@neptune5 textured-3d-gan]$ pip install kaolin==0.13.0 -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-1.12.1_cu113.html
Looking in links: https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-1.12.1_cu113.html
ERROR: Could not find a version that satisfies the requirement kaolin==0.13.0 (from versions: 0.0)
ERROR: No matching distribution found for kaolin==0.13.0
"""
# NVIDIAGameWorks/kaolin#896
KAOLIN_01 = """[x@machine ~]$ pip install kaolin==0.17.0 -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.7.0_cu128.html

Looking in links: https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.7.0_cu128.html
ERROR: Could not find a version that satisfies the requirement kaolin==0.17.0 (from versions: 0.1)
ERROR: No matching distribution found for kaolin==0.17.0
"""
# NVIDIAGameWorks/kaolin#694
KAOLIN_694 = "ImportError: Kaolin requires PyTorch >=1.6.0, <=1.13.0, but found version 1.13.1 instead.If yo"
# heroding77/fedavg_encrypt#1, NVIDIAGameWorks/kaolin#865
SIX = "AttributeError: module 'torch' has no attribute '_six'"
DEPRECATED_TYPE = ('error: no suitable conversion function from "const at::DeprecatedTypeProperties" to '
                   '"c10::ScalarType" exists')
# pytorch/pytorch#150733 family (lmoe/wyoming-xtts#1)
SM120 = """/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:287: UserWarning:
NVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
If you want to use the NVIDIA GeForce RTX 5060 Ti GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/
"""
# doctor-facts.md (d): _C.so loaded before import torch on the H200 machine
LIBC10 = "ImportError: libc10.so: cannot open shared object file: No such file or directory"
KERNEL_CELL = 'import os\nos.environ["LD_LIBRARY_PATH"] = "/usr/local/cuda-12.1/lib64:" + os.environ.get("LD_LIBRARY_PATH", "")'
ENV_MAGIC = "%env LD_LIBRARY_PATH=/opt/conda/lib"

CASES = [
    (KAOLIN_678, "abi_torch_version_mismatch", "maybe_wrap_dim_slow"),
    (KAOLIN_924, "cxx11_abi_mismatch", "SourceLocation"),
    (KAOLIN_937, "abi_torch_version_mismatch", "SourceLocation"),
    (CUDART, "cudart_not_found", "libcudart.so.11.0"),
    (CUDART_TF, "cudart_not_found", "libcudart.so.11.0"),
    (NVCC_120, "unsupported_gpu_arch", "compute_120"),
    (UNKNOWN_ARCH, "arch_list_value_rejected", "8.6"),
    (NO_KERNEL, "no_kernel_image_for_gpu", "No kernel image"),
    (NVCC_TORCH, "nvcc_torch_cuda_mismatch", "12.4"),
    (CUDA_HOME_TB, "cuda_home_missing", "nvcc"),
    (NVCC_MISSING, "cuda_home_missing", "nvcc"),
    (CUDA_HOME_LIST, "cuda_home_malformed", ":/usr/local/cuda:/usr/local/cuda-10.1"),
    (GCC_LOG, "host_compiler_unsupported", "gcc 12"),
    (DRIVER, "driver_too_old", "CUDA up to 11.4"),
    (GLIBCXX, "libstdcxx_too_old", "GLIBCXX_3.4.30"),
    (BUILD_ISOLATION, "torch_not_found_at_build", "build isolation"),
    (KAOLIN_729_TITLE, "torch_not_found_at_build", "build isolation"),
    (KAOLIN_886, "torch_not_found_at_build", "build isolation"),
    (NINJA, "ninja_missing", "ninja"),
    (KAOLIN_00, "kaolin_no_wheel_for_combo", "No kaolin wheel"),
    (KAOLIN_01, "kaolin_no_wheel_for_combo", "No kaolin wheel"),
    (KAOLIN_694, "kaolin_version_gate", "1.13.1"),
    (SIX, "torch_api_incompatible_source", "_six"),
    (DEPRECATED_TYPE, "torch_api_incompatible_source", "DeprecatedTypeProperties"),
    (SM120, "torch_wheel_lacks_gpu_arch", "sm_120"),
    (LIBC10, "torch_libs_not_loaded", "libc10.so"),
    (KERNEL_CELL, "env_not_propagated_to_kernel", "LD_LIBRARY_PATH"),
    (ENV_MAGIC, "env_not_propagated_to_kernel", "LD_LIBRARY_PATH"),
]


@pytest.mark.parametrize(("text", "code", "in_title"), CASES, ids=[f"{i:02d}-{c[1]}" for i, c in enumerate(CASES)])
def test_real_error_texts_give_their_code(text, code, in_title):
    found = explain_text(text)
    assert found, "no cause found"
    f = found[0]
    assert f.code == code, [x.code for x in found]
    assert in_title in f.title
    assert f.fix is not None and f.fix.why
    assert f.severity in ("error", "warning")
    assert any(ev.startswith("evidence: ") for ev in f.evidence)  # which evidence fired it
    assert f.fix.why.startswith(TABLE[f.code].fix) and f.layer == TABLE[f.code].layer  # the one table's wording
    assert len({x.code for x in found}) == len(found), "one finding per distinct cause"


def test_extracted_fields_drive_title_and_commands():
    [f] = explain_text(GCC_LOG, similar=False)  # the same line twice -> one finding
    assert "gcc 12" in f.title
    assert any("g++-12" in c for c in f.fix.commands)
    [f] = explain_text(NVCC_TORCH)
    assert f.title == "nvcc is CUDA 12.4 but torch was built with CUDA 11.8"
    [f] = explain_text(GLIBCXX)
    assert any("/usr/local/miniconda3/envs/ktransformers/bin/../lib/libstdc++.so.6" in c for c in f.fix.commands)
    [f] = explain_text(KAOLIN_01)
    assert any("torch-2.7.0_cu128.html" in ev for ev in f.evidence)
    [f] = explain_text(SM120)
    assert "sm_120" in f.title


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="c++filt (binutils) not installed")
def test_undefined_symbol_is_demangled():
    f, alt = explain_text(KAOLIN_924)
    # without the machine's torch, the old-ABI symbol has two readings: flag mismatch, or an old-ABI torch
    assert (f.code, alt.code) == ("cxx11_abi_mismatch", "abi_torch_version_mismatch")
    assert any("pip wheels before 2.7" in ev for ev in alt.evidence)
    assert any(ev == "demangled: c10::Error::Error(c10::SourceLocation, std::basic_string<char, std::char_traits"
               "<char>, std::allocator<char> >)" for ev in f.evidence), f.evidence
    assert any("needed by: python3.10/site-packages/kaolin/_C.so" == ev for ev in f.evidence)


def test_string_abi_flavours():
    assert string_abi("_ZN3c105ErrorC2ENS_14SourceLocationESs") == "old"
    assert string_abi("_ZN3c105ErrorC1ENS_14SourceLocationERKSs") == "old"
    assert string_abi("_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE") == "cxx11"
    assert string_abi("_ZN3c106detail19maybe_wrap_dim_slowEllb") == "none"


def _torch_facts(cxx11: bool, version: str = "2.11.0+cu130", cuda: str = "13.0") -> dict:
    return {"torch": {"status": "ok", "installed": True, "version": version, "version_base": version.split("+")[0],
                      "cuda": cuda, "cxx11_abi": cxx11, "arch_list": ["sm_75", "sm_80", "sm_86", "sm_90"]}}


def test_facts_decide_abi_flag_vs_version_mismatch():
    # new-ABI symbol missing from an old-ABI torch: the ABI flag differs
    [f] = explain_text(KAOLIN_937, _torch_facts(cxx11=False, version="2.4.0+cu118", cuda="11.8"), similar=False)
    assert f.code == "cxx11_abi_mismatch"
    assert any("_GLIBCXX_USE_CXX11_ABI=0" in ev for ev in f.evidence)
    # same symbol, torch with the same (new) ABI: the torch version differs
    [f] = explain_text(KAOLIN_937, _torch_facts(cxx11=True))
    assert f.code == "abi_torch_version_mismatch"
    # old-ABI symbol against a new-ABI torch (the H200 machine's broken build)
    [f] = explain_text(KAOLIN_924, _torch_facts(cxx11=True))
    assert f.code == "cxx11_abi_mismatch"
    assert any("never force it by hand" in c for c in f.fix.commands)  # round 28b: torch's own flag, never forced
    # a kaolin extension: the kaolin wheel page for this torch is offered
    assert any("torch-2.11.0_cu130.html" in c for c in f.fix.commands)


def test_facts_decide_cudart_not_found_vs_wrong_cuda():
    assert explain_text(CUDART, _torch_facts(True, cuda="11.8"))[0].code == "cudart_not_found"
    f = explain_text(CUDART, _torch_facts(True, cuda="12.4"))[0]
    assert f.code == "prebuilt_binary_wrong_cuda"
    assert "CUDA 11" in f.title and "torch here uses CUDA 12.4" in f.title
    assert any("nothing here provides CUDA 11" in ev for ev in f.evidence)
    assert any("torch's CUDA 12" in c for c in f.fix.commands)
    # without facts both readings are offered, the plain one first
    assert [x.code for x in explain_text(CUDART)][:2] == ["cudart_not_found", "prebuilt_binary_wrong_cuda"]


def test_no_kernel_image_points_at_torch_or_extension():
    facts = _torch_facts(True)
    facts["driver"] = {"status": "ok", "gpus": [{"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0"}]}
    f = explain_text(NO_KERNEL, facts)[0]
    assert f.code == "no_kernel_image_for_gpu" and any("the extension lacks them" in ev for ev in f.evidence)
    assert any('TORCH_CUDA_ARCH_LIST="9.0"' in c for c in f.fix.commands)
    facts["driver"]["gpus"][0]["compute_capability"] = "12.0"
    f = explain_text(NO_KERNEL, facts)[0]
    assert f.code == "torch_wheel_lacks_gpu_arch" and f.layer == "torch"
    assert any(ev.startswith("decided by: torch's arch list") and "12.0" in ev for ev in f.evidence)
    # without the machine both readings, the extension's first, each saying what decides
    assert [x.code for x in explain_text(NO_KERNEL)][:2] == ["no_kernel_image_for_gpu", "torch_wheel_lacks_gpu_arch"]


def test_unrelated_text_gives_nothing():
    assert explain_text("") == []
    assert explain_text("Traceback (most recent call last):\nKeyError: 'x'\n") == []
    # not during a build: no rule reads build isolation; the Python that ran it has no torch
    assert [f.code for f in explain_text("No module named 'torch'", similar=False)] == ["torch_not_installed"]


def test_build_log_with_several_causes_gives_each_once():
    log = GCC_LOG + "\n" + NVCC_120 + "\n" + NVCC_120 + "\n" + NINJA
    codes = [f.code for f in explain_text(log)]
    # ranked by how decisive the evidence is (not by position); each cause once
    assert sorted(codes) == sorted(["host_compiler_unsupported", "unsupported_gpu_arch", "ninja_missing"])


def test_one_decision_path_explain_and_its_reader_name_no_code():
    """explain reads and merges facts and runs the rules: neither it nor the text reader names a finding code
    (no second decision chain); every cause a text can show is decided in the rules module of its layer (a
    builder or a rule there names it) or comes from a table row that names it (built from the table's words)."""
    import re
    from pathlib import Path

    from smrnb.doctor import tables

    root = Path(__file__).resolve().parents[2] / "smrnb" / "doctor"
    fact_keys = set(re.findall(r"`(\w+)`", (root / "FACTS.md").read_text(encoding="utf-8")))  # the probes' keys
    for name in ("_explain.py", "_textfacts.py", "_evidence.py", "_paste.py"):
        src = (root / name).read_text(encoding="utf-8")
        named = {c for c in TABLE if TABLE[c].fix and c not in fact_keys and (f'"{c}"' in src or f"'{c}'" in src)}
        assert not named, (name, named)  # a cause named here would be a decision outside the rules
    rows = set()
    for t in (*tables.ENUM_TABLES, *tables.MESSAGE_TABLES):
        for r in tables.rows(t):
            rows.update(r["code"].split("|"))
    for code, e in TABLE.items():
        if "text" not in e.homes or not e.fix:
            continue
        home = (root / "rules" / f"_{e.layer}.py").read_text(encoding="utf-8")
        assert f'"{code}"' in home or code in rows, code
    assert set(CODES) <= set(all_codes())


def test_broken_driver_is_one_cause_with_the_live_rule():
    from smrnb.doctor.rules._driver import driver_findings

    for text, kind in (("Failed to initialize NVML: Driver/library version mismatch", "version_mismatch"),
                       ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
                        "that the latest NVIDIA driver is installed and running.", "not_loaded")):
        f = explain_text(text)[0]
        [live] = driver_findings({"driver": {"status": "broken", "broken_kind": kind, "source": "nvidia-smi",
                                             "message": text, "kernel_module_version": None}})
        assert f.code == live.code == "driver_broken" and f.layer == live.layer == "driver"
        assert f.title == live.title and f.fix.why == live.fix.why and f.fix.commands == live.fix.commands
        assert not any("kernel module is loaded" in ev for ev in f.evidence)  # the text says nothing about /proc
        assert any(ev.startswith("told from its neighbour: driver_too_old") for ev in f.evidence)


def test_explain_offline_report():
    rep = explain(NVCC_TORCH, live=False)
    assert rep.codes == ["nvcc_torch_cuda_mismatch"]
    assert rep.exit_code == 1
    assert rep.meta["matched"] == 1 and rep.meta["live"] is False
    assert rep.facts == {}


def test_explain_live_uses_facts_of_this_machine():
    rep = explain(KAOLIN_924, live=True, timeout=2.0)
    assert rep.codes[0] in ("cxx11_abi_mismatch", "abi_torch_version_mismatch")
    assert rep.meta["live"] is True and "abi" in rep.layers()


def test_explain_rejects_non_text():
    from smrnb import SmrnbTypeError

    with pytest.raises(SmrnbTypeError, match="text must be a str"):
        explain(12, live=False)
    # bytes (a log opened in binary mode) are decoded, not refused
    assert explain(b"RuntimeError: CUDA out of memory. \xff", live=False).codes[0] == "cuda_oom"


def test_a_long_build_log_is_scanned_quickly_and_in_order():
    import time

    noise = ("building 'kaolin._C' extension -Ixxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n" * 40000)
    log = noise + GCC_LOG + noise + KAOLIN_678 + noise + KAOLIN_01
    t0 = time.perf_counter()
    codes = [f.code for f in explain_text(log)]
    assert time.perf_counter() - t0 < 10.0  # ~1 s here for ~10 MB; no regex scans every position of every line
    assert set(codes) >= {"host_compiler_unsupported", "abi_torch_version_mismatch", "kaolin_no_wheel_for_combo"}


def test_fuzzed_texts_never_raise():
    import random
    import string

    rng = random.Random(1234)
    alphabet = string.printable + "'`()\u2018\u2019×│╰─>"
    pieces = [NVCC_120, GLIBCXX, KAOLIN_00, "undefined symbol: ", "libcudart.so.", "(from versions: 0.", "GLIBCXX_"]
    for _ in range(300):
        parts = [rng.choice(pieces)[: rng.randint(0, 80)] if rng.random() < 0.3 else
                 "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200))) for _ in range(rng.randint(1, 8))]
        for f in explain_text("".join(parts)):
            assert f.code in CODES, f  # a handler failure would show as rule_failed


def test_the_static_abi_check_decides_when_it_saw_the_symbol():
    sym = "_ZN3c105ErrorC2ENS_14SourceLocationESs"
    facts = {"abi": {"status": "ok", "torch_cxx11_abi": True, "extensions": [
        {"path": "/env/kaolin/_C.so", "unresolved": [{"mangled": sym, "abi": "old", "other_abi_defined": True,
                                                      "diagnosis": "cxx11_abi_mismatch"}]}]}}
    [f] = explain_text(KAOLIN_924, facts, similar=False)
    assert f.code == "cxx11_abi_mismatch"
    assert any("static check of /env/kaolin/_C.so" in ev and "IS defined in torch" in ev for ev in f.evidence)
    assert any("_GLIBCXX_USE_CXX11_ABI=1" in ev for ev in f.evidence)  # torch's flag from the abi layer
    facts["abi"]["extensions"][0]["unresolved"][0].update(other_abi_defined=False,
                                                          diagnosis="abi_torch_version_mismatch")
    [f] = explain_text(KAOLIN_924, facts)
    assert f.code == "abi_torch_version_mismatch"


def test_ld_library_path_text_with_live_loader_facts():
    facts = {"loader": {"status": "ok", "changed_since_start": {
        "LD_LIBRARY_PATH": {"start": None, "now": "/usr/local/cuda-12.1/lib64:"}}}}
    [f] = explain_text(KERNEL_CELL, facts)
    assert f.code == "env_not_propagated_to_kernel" and f.severity == "warning"
    assert "in this process LD_LIBRARY_PATH was None at start and is '/usr/local/cuda-12.1/lib64:' now" in f.evidence
    assert f.fix.commands[0].startswith("smr-doctor fix kernelspec")


@pytest.mark.parametrize(("text", "codes"), [
    # wordings built for these tests (the shapes torch, ld and nvidia-smi print), not corpus texts
    ("ImportError: libtorch_cuda_cu.so: cannot open shared object file: No such file or directory",
     ["abi_torch_version_mismatch", "torch_libs_not_loaded"]),  # only torch 1.11/1.12 have that library
    ("/usr/bin/ld: cannot find -lcudart", ["cuda_home_incomplete"]),
    ("/usr/bin/ld: cannot find -lcuda", ["build_dependency_missing"]),
    ("| NVIDIA-SMI 418.67   Driver Version: 418.67   CUDA Version: 10.1 |\nconda install pytorch cudatoolkit=10.2",
     ["driver_too_old"]),  # CUDA 10 has no minor-version compatibility
    ("| NVIDIA-SMI 525.60   Driver Version: 525.60   CUDA Version: 12.0 |\npip install torch==2.1.0+cu121",
     ["driver_below_cuda_minor"]),  # 12.1 runs on a 12.0 driver, without PTX JIT of newer PTX
    ("nvidia-smi says CUDA Version: 11.4\npip install torch==2.1.0+cu121", ["driver_too_old"]),
    ("OSError: libGL.so.1: cannot open shared object file: No such file or directory", ["library_not_found"]),
    ("OSError: /env/lib/python3.10/site-packages/torchvision/_C.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev",
     ["companion_built_for_other_torch"]),  # torchvision's own binary: install the matching torchvision
    ("nvrtc: error: invalid value for --gpu-architecture (-arch)", ["unsupported_gpu_arch"]),
    ("nvcc fatal   : Cannot find compiler 'cl.exe' in PATH", ["windows_msvc_toolchain"]),  # not an arch problem
    ("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", ["cuda_oom"]),
    ("$ sudo python setup.py install\nOSError: CUDA_HOME environment variable is not set. Please set it to your CUDA "
     "install root.", ["cuda_home_missing", "env_not_propagated_to_kernel"]),  # sudo resets the environment
    ("export CUDA_HOME=/usr/local/cuda-12.1/bin/nvcc", ["cuda_home_malformed"]),  # nvcc itself
    ("CUDA_HOME=/usr/local/cuda-12.1/bin", ["cuda_home_malformed"]),
    ("CUDA_HOME=cuda-12.1 pip install .", ["cuda_home_malformed"]),  # relative
])
def test_evidence_decides_unseen_wordings(text, codes):
    found = explain_text(text)
    assert [f.code for f in found][:len(codes)] == codes
    assert all(f.fix.why.startswith(TABLE[f.code].fix) for f in found)


def test_cuda_home_shapes_are_judged_by_the_live_probes_rule():
    from smrnb.doctor._evidence import cuda_home_problem
    from smrnb.doctor.probes._toolkit import cuda_home_malformed

    for value in (":/usr/local/cuda", "/a::/b", "/usr/local/cuda:/opt/cuda", "/usr/local/cuda/bin/nvcc",
                  "/usr/local/cuda/bin", "cuda-12.1"):
        assert cuda_home_problem(value) == cuda_home_malformed(value) is not None, value
    assert cuda_home_problem("$CUDA_HOME") is None and cuda_home_problem("/usr/local/cuda-12.4") is None
