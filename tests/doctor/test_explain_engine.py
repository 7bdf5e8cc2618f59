# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain as a machine: a text's facts go through the live rules; unknown texts are never an all-clear.

The texts here are written from the primary messages of the doctor's tables (CUDA headers, glibc, nvcc,
torch's own strings, extensions' setup checks), not taken from the corpus: each family of the domain is
tested as a kind, not as one phrasing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from smrnb.doctor import explain, tables
from smrnb.doctor._codes import CODES
from smrnb.doctor._corpus import accuracy, load
from smrnb.doctor._explain import explain_result, explain_text, merge, read
from smrnb.doctor._magics import diagnosis_line, error_text
from smrnb.doctor._paste import normalise
from smrnb.doctor.rules import evaluate
from tests.doctor._rules import rule_codes as _codes

CORPUS = Path(os.environ.get("SMRNB_CORPUS") or Path(__file__).parent / "corpus")


# ------------------------------------------------------------------ every row of the domain's tables
def _message_rows():
    for table in tables.MESSAGE_TABLES:
        for row in tables.message_rows(table):
            if row.pattern is not None and row.example and row.codes != ("none",):
                yield pytest.param(table, row, id=f"{table}:{row.key}")


#: rows whose example alone is a sign, not a cause: the table's own words say a message must come with it
_CONTEXT_ONLY = {"jupyter_kernel:pip_restart_note", "jupyter_kernel:bang_pip", "jupyter_kernel:module_not_found_notebook",
                 "cpp_extension_checks:ptx_suffix", "cpp_extension_checks:cxx11_abi_flag",
                 "nvidia_smi_messages:cuda_version_column",
                 "container_messages:k8s_no_limit", "container_messages:visible_devices_void",
                 "container_messages:driver_capabilities", "slurm_gpu:cvd_local_indices", "slurm_gpu:export_none",
                 "extension_checks:gsplat:build_no_cuda", "extension_checks:mmcv:cpu_only_ops",
                 "extension_checks:xformers:force_cuda", "cpp_extension_checks:arch_list_empty_index",
                 "jupyter_kernel:kernel_restarting",  # a kernel that died: a cause only with what the log shows beside
                 "torch_messages:dataloader_worker_exited"}  # a worker that died: /dev/shm only in a container


@pytest.mark.parametrize(("table", "row"), list(_message_rows()))
def test_every_message_of_the_tables_is_recognised_as_one_of_its_codes(table, row):
    res = explain_result(row.example)
    key = f"{table}:{row.key}"
    if key in _CONTEXT_ONLY:
        return  # a hint that needs company; it must still never raise
    codes = [f.code for f in res.findings][:2]
    assert res.recognised and set(codes) & set(row.codes), (key, row.example, codes)


def _enum_rows(table: str):
    return [r for r in tables.enum_rows(table) if r.numbering == "current" and r.codes != ("none",)]


@pytest.mark.parametrize("table", tables.ENUM_TABLES)
def test_every_error_code_by_name_gives_one_of_its_codes(table):
    wrong = []
    for r in _enum_rows(table):
        text = {"cuda_errors": f"RuntimeError: CUDA error {r.name}", "cu_results": f"cuInit failed: {r.name}",
                "nvml_errors": f"pynvml.NVMLError: {r.name}", "nvrtc_results": f"nvrtc: error: {r.name}"}[table]
        if not set(_codes(text)) & set(r.codes):
            wrong.append((r.name, _codes(text)))
    assert not wrong, wrong


def test_every_cuda_runtime_error_by_message_and_by_number_gives_one_of_its_codes():
    wrong = []
    for r in _enum_rows("cuda_errors"):
        if len(r.message.rstrip(".")) >= 18:  # short generic messages ("invalid argument") need the name
            text = f"RuntimeError: CUDA error: {r.message}\nCUDA kernel errors might be asynchronously reported"
            if not set(_codes(text)) & set(r.codes):
                wrong.append(("message", r.name, _codes(text)))
        text = f"cuda runtime error ({r.number}) : {r.message} at /pytorch/aten/src/THC/THCGeneral.cpp:47"
        if not set(_codes(text)) & set(r.codes):
            wrong.append(("number", r.name, _codes(text)))
    assert not wrong, wrong


def test_old_runtime_numbers_follow_the_message_they_come_with():
    # before CUDA 10.1, 30 was cudaErrorUnknown and 48 cudaErrorNoKernelImageForDevice
    assert _codes("THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=405 error=48 : no kernel image "
                  "is available for execution on the device")[0] == "no_kernel_image_for_gpu"


# ------------------------------------------------------------------ not the environment
@pytest.mark.parametrize("text", [
    "RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be asynchronously "
    "reported at some other API call, so the stacktrace below might be incorrect.",
    "RuntimeError: CUDA error: device-side assert triggered\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "
    "assertions.",
    "/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: "
    "[3,0,0] Assertion `t >= 0 && t < n_classes` failed.",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 256x10)",
    "RuntimeError: CUDA error: misaligned address",
    "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered",
])
def test_errors_of_the_users_code_are_recognised_as_not_the_environment(text):
    rep = explain(text, live=False)
    f = rep.findings[0]
    assert f.code == "user_code_error" and f.severity == "info" and f.title.startswith("Not your environment")
    assert rep.recognised and rep.exit_code == 0
    assert "CUDA_LAUNCH_BLOCKING=1" in f.fix.why


# ------------------------------------------------------------------ never an all-clear
UNKNOWNS = [
    "Segmentation fault (core dumped)",
    # (round 28a) a KeyError in the person's own line is read now (user_code_error): no frame shown here
    "KeyError: 'learning_rate'",
    "Error: the frobnicator returned status 7 while building the widget (torch 2.3.1+cu121, nvcc release 12.1, V12.1.105)",
]  # (blind audit 36 A-L3) an empty text is no unknown text: bad input, as in the CLI (test_audit37d's L3 test)


@pytest.mark.parametrize("text", UNKNOWNS)
def test_an_unknown_text_is_not_recognised_in_every_output(text):
    rep = explain(text, live=False)
    # never a finding of a rule; at most the readings of similar known reports, each a guess saying so
    assert not rep.recognised and rep.exit_code == 3
    assert all(f.sources == ("similar reports",) and f.severity == "info" for f in rep.findings)
    if rep.findings:
        assert "a guess to check, not a finding" in rep.to_text()
    head = "smrnb doctor: NOT RECOGNISED"
    assert rep.to_text().startswith(head) and "nothing to report" not in rep.to_text()
    assert "smr-doctor --import-check" in rep.to_text() and "--markdown" in rep.to_text()
    d = json.loads(rep.to_json())
    assert d["recognised"] is False and d["summary"]["recognised"] is False and d["summary"]["exit_code"] == 3
    assert d["next_steps"] and "NOT RECOGNISED" in rep.to_markdown().split("\n")[2]
    html = rep.as_format("html")._repr_html_()
    assert "NOT RECOGNISED" in html and "nothing to report" not in html
    assert diagnosis_line(text) is None  # the hook stays silent on what it does not know


def test_an_unknown_text_lists_what_it_read():
    rep = explain(UNKNOWNS[2], live=False)
    read_lines = "\n".join(rep.meta["read"])
    assert "torch: 2.3.1+cu121 (CUDA 12.1)" in read_lines and "nvcc: 12.1" in read_lines
    crash = explain("Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f (most recent call first):", live=False)
    assert not crash.recognised and any("crashed" in x for x in crash.meta["read"])


def test_an_unknown_text_with_this_machine_is_still_not_recognised():
    rep = explain(UNKNOWNS[2], live=True, timeout=2.0)
    assert not rep.recognised and rep.exit_code == 3 and rep.layers() == []


# ------------------------------------------------------------------ facts in the text are used
def test_versions_in_a_build_log_decide_when_no_wording_is_known():
    log = ("torch.__version__  = 2.1.0+cu121\nCompiling cuda extensions with\nnvcc: NVIDIA (R) Cuda compiler driver\n"
           "Cuda compilation tools, release {rel}, V{rel}.52\nerror: the frobnicator gave up (a wording no table has)\n")
    minor = explain_text(log.format(rel="12.3"))
    assert minor[0].code == "nvcc_torch_cuda_mismatch" and minor[0].severity == "warning"
    assert any(e.startswith("from the text: torch.cuda = 12.1") for e in minor[0].evidence)
    major = explain_text(log.format(rel="11.8"))
    assert major[0].code == "nvcc_torch_cuda_mismatch" and major[0].severity == "error"


def test_the_driver_in_a_text_against_the_torch_in_it():
    smi = "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
    assert _codes(smi + "pip install torch==2.1.0+cu121\n", n=1) == ["driver_too_old"]
    assert _codes(smi + "pip install torch==2.1.0+cu118\n", n=1) == ["driver_below_cuda_minor"]
    assert _codes(smi + "pip install torch==2.1.0+cu113\nerror: frobnication failed\n") == []  # 11.3 runs on it
    assert _codes(smi + "Cuda compilation tools, release 11.3, V11.3.109\n", n=1) == ["driver_cuda_version_not_toolkit"]


def test_where_a_build_looked_is_checked_for_its_shape():
    cmd = ("/usr/local/cuda/bin/nvcc -I/env/lib/python3.10/site-packages/torch/include -I:/usr/local/cuda-11.8/include "
           "-c kernel.cu -o kernel.o\nerror: command '/usr/local/cuda/bin/nvcc' failed with exit code 1")
    f = explain_text(cmd)[0]
    assert f.code == "cuda_home_malformed" and any("':/usr/local/cuda-11.8'" in e for e in f.evidence)
    assert _codes("building with CUDA_HOME=/usr/local/cuda-12.1/bin/nvcc\nerror: command failed", n=1) == [
        "cuda_home_malformed"]


def test_compilers_and_gpus_in_a_text_against_its_nvcc():
    gcc = "gcc (Ubuntu 13.2.0-4ubuntu3) 13.2.0\nCuda compilation tools, release 12.1, V12.1.105\nerror: command failed\n"
    assert _codes(gcc, n=1) == ["host_compiler_unsupported"]
    gpu = "GPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-1)\nCuda compilation tools, release 12.4, V12.4.131\nbuild failed\n"
    assert "unsupported_gpu_arch" in _codes(gpu)


def test_libraries_of_torchs_companions_in_a_loader_error():
    text = ("OSError: /env/lib/python3.11/site-packages/torchvision/_C.so: undefined symbol: "
            "_ZN3c1017RegisterOperatorsD1Ev")
    assert _codes(text, n=1) == ["companion_built_for_other_torch"]
    text = "ImportError: /env/lib/python3.11/site-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: _ZN2at4_ops5zeros4callEv"
    assert _codes(text, n=1) == ["companion_built_for_other_torch"]


@pytest.mark.parametrize(("text", "code"), [
    ("docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].",
     "gpu_not_exposed_to_process"),
    ("sbatch: error: Batch job submission failed: Requested node configuration is not available",
     "slurm_gpu_request_rejected"),
    ("RuntimeError: No CUDA GPUs are available\n$ srun --partition=cpu python train.py", "gpu_not_exposed_to_process"),
    ("fatal error: cuda_runtime.h: No such file or directory\n #include <cuda_runtime.h>", "cuda_home_incomplete"),
    ("/usr/bin/ld: cannot find -lcudart: No such file or directory", "cuda_home_incomplete"),
    ("ImportError: /opt/conda/lib/python3.10/site-packages/apex_C.so: wrong ELF class: ELFCLASS32",
     "wrong_architecture_binary"),
    ("OSError: /usr/lib/libgomp.so.1: cannot allocate memory in static TLS block", "static_tls_exhausted"),
    ("nvcc fatal   : Value 'c++20' is not defined for option 'std'", "nvcc_option_unsupported"),
    ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "gpu_below_extension_minimum"),
    ("RuntimeError: eglInitialize() failed", "opengl_egl_unavailable"),
    ("RuntimeError: t.numel() == 0 INTERNAL ASSERT FAILED at \"../aten/src/ATen/native/Foo.cpp\":42, please report a "
     "bug to PyTorch.", "library_bug"),
    ("ModuleNotFoundError: No module named 'kaolin.models'", "package_api_version_mismatch"),
    ("AttributeError: module 'numpy' has no attribute 'float'", "package_api_version_mismatch"),
    ("NVRM: API mismatch: the client has the version 535.104.05, but\nNVRM: this kernel module has the version 535.86.10.",
     "driver_broken"),
    ("Segmentation fault (core dumped) when I import open3d after torch; importing torch first works",
     "native_library_conflict"),
])
def test_families_of_the_domain(text, code):
    assert code in _codes(text), (text, _codes(text, n=4))


# ------------------------------------------------------------------ one decision path
def _same(a, b) -> None:
    assert (a.code, a.layer, a.severity) == (b.code, b.layer, b.severity)
    assert a.fix.why.startswith(CODES[a.code].fix) and b.fix.why.startswith(CODES[b.code].fix)


def _live(facts: dict, code: str):
    return next(f for f in evaluate(facts) if f.code == code)


def test_a_broken_driver_read_or_probed_gives_the_same_finding():
    text = "Failed to initialize NVML: Driver/library version mismatch"
    live = _live({"driver": {"status": "broken", "broken_kind": "version_mismatch", "source": "nvml",
                             "message": text}}, "driver_broken")
    _same(explain_text(text)[0], live)
    assert explain_text(text)[0].title == live.title


def test_a_driver_too_old_read_or_probed_gives_the_same_finding():
    text = ("| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
            "torch 2.1.0+cu121\n")
    live = _live({"driver": {"status": "ok", "driver_version": "470.82.01", "cuda_driver_version": "11.4",
                             "gpus": [{"index": 0, "name": "Tesla T4", "compute_capability": "7.5"}]},
                  "torch": {"status": "ok", "installed": True, "version": "2.1.0+cu121", "version_base": "2.1.0",
                            "cuda": "12.1"}}, "driver_too_old")
    _same(explain_text(text)[0], live)


def test_a_library_of_another_cuda_read_or_probed_gives_the_same_finding(tmp_path):
    torch = {"status": "ok", "installed": True, "version": "2.4.0+cu124", "version_base": "2.4.0", "cuda": "12.4"}
    ext = {"path": "/env/site-packages/pkg/_C.so", "status": "ok", "needed": ["libcudart.so.11.0"], "missing":
           ["libcudart.so.11.0"], "resolved": {"libcudart.so.11.0": {"path": None, "found_elsewhere": []}}}
    live = _live({"torch": torch, "loader": {"status": "ok", "extensions": [ext]}}, "prebuilt_binary_wrong_cuda")
    text = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"
    _same(explain_text(text, {"torch": torch})[0], live)


def test_an_abi_flag_read_or_probed_gives_the_same_finding():
    sym = "_ZN3c105ErrorC2ENS_14SourceLocationESs"
    torch = {"status": "ok", "installed": True, "version": "2.8.0+cu128", "cuda": "12.8", "cxx11_abi": True}
    live = _live({"torch": torch, "abi": {"status": "ok", "torch_cxx11_abi": True, "extensions": [
        {"path": "/env/kaolin/_C.so", "status": "ok", "unresolved_count": 1, "uses_old_abi": True, "uses_cxx11_abi": False,
         "unresolved": [{"mangled": sym, "demangled": "c10::Error::Error(...)", "abi": "old", "other_abi_defined": True,
                         "diagnosis": "cxx11_abi_mismatch"}]}]}}, "cxx11_abi_mismatch")
    _same(explain_text(f"ImportError: /env/kaolin/_C.so: undefined symbol: {sym}", {"torch": torch})[0], live)


def test_an_nvcc_of_another_cuda_read_or_probed_gives_the_same_finding():
    torch = {"status": "ok", "installed": True, "version": "2.1.0+cu121", "version_base": "2.1.0", "cuda": "12.1"}
    live = _live({"torch": torch, "toolkit": {"status": "ok", "nvccs": [{"path": "/usr/local/cuda/bin/nvcc",
                                                                         "version": "11.8", "paths": ["/usr/local/cuda/bin/nvcc"]}],
                                              "build_nvcc": "/usr/local/cuda/bin/nvcc", "build_nvcc_version": "11.8",
                                              "build_cuda_home": "/usr/local/cuda", "build_cuda_home_has_headers": True}},
                 "nvcc_torch_cuda_mismatch")
    _same(explain_text("torch 2.1.0+cu121\nCuda compilation tools, release 11.8, V11.8.89\n")[0], live)


def test_no_kaolin_wheel_read_or_probed_gives_the_same_code():
    live = _live({"torch": {"status": "ok", "installed": True, "version": "2.9.0+cu130", "version_base": "2.9.0",
                            "cuda": "13.0"},
                  "kaolin": {"status": "ok", "installed": False, "wheel_available": False, "python_version": "3.12.3",
                             "install_command": "x"}}, "kaolin_no_wheel_for_combo")
    text = ("Looking in links: https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.9.0_cu130.html\nERROR: Could not "
            "find a version that satisfies the requirement kaolin==0.18.0 (from versions: 0.1)")
    f = explain_text(text)[0]
    assert (f.code, f.layer) == (live.code, live.layer) and f.fix.why.startswith(CODES[f.code].fix)


# ------------------------------------------------------------------ text and machine together
def test_each_finding_says_which_facts_came_from_the_text_and_which_from_the_machine():
    text = "torch.__version__ = 2.1.0+cu121\nRuntimeError: Error building extension 'fused'"
    live = {"torch": {"status": "ok", "installed": True, "version": "2.1.0+cu118", "version_base": "2.1.0",
                      "cuda": "11.8"},
            "toolkit": {"status": "ok", "nvccs": [{"path": "/usr/local/cuda/bin/nvcc", "version": "11.8",
                                                   "paths": ["/usr/local/cuda/bin/nvcc"]}],
                        "build_nvcc": "/usr/local/cuda/bin/nvcc", "build_nvcc_version": "11.8",
                        "build_cuda_home": "/usr/local/cuda", "build_cuda_home_has_headers": True, "ninja": "1.11"}}
    merged = merge(read(text), live)
    assert merged["torch"]["provenance"]["cuda"] == "text" and merged["toolkit"]["provenance"]["build_nvcc_version"] == "live"
    assert merged["torch"]["disagree"]["cuda"] == {"text": "12.1", "live": "11.8"}
    f = next(f for f in explain_text(text, live) if f.code == "nvcc_torch_cuda_mismatch")
    assert any(e.startswith("from this machine: toolkit.build_nvcc_version = 11.8") for e in f.evidence)
    assert any(e == "torch.cuda: the text says 12.1, this machine has 11.8" for e in f.evidence)
    assert set(f.sources) == {"text", "machine"}


def test_the_machine_decides_what_the_text_cannot():
    text = "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"
    first, second = explain_text(text)[:2]
    assert (first.code, second.code) == ("cudart_not_found", "prebuilt_binary_wrong_cuda")
    assert any(e.startswith("another reading of the same text") and "what decides: `" in e for e in second.evidence)
    torch13 = {"torch": {"status": "ok", "installed": True, "version": "2.9.0+cu130", "cuda": "13.0"}}
    decided = explain_text(text, torch13)
    assert [f.code for f in decided] == ["prebuilt_binary_wrong_cuda"]
    assert any(e.startswith("decided by: the library is of CUDA 12") for e in decided[0].evidence)


def test_a_fix_command_runs_as_printed():
    h200 = {"driver": {"status": "ok", "gpus": [{"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0"}]},
            "torch": {"status": "ok", "installed": True, "version": "2.8.0+cu128", "cuda": "12.8",
                      "arch_list": ["sm_80", "sm_90"]}}
    text = ("kaolin/_C.so: CUDA Error: no kernel image is available for execution on the device\n"
            "  File \"/env/lib/python3.12/site-packages/kaolin/render/mesh/rasterization.py\", line 300")
    f = explain_text(text, h200)[0]
    build = next(c for c in f.fix.commands if "pip install" in c)
    assert 'TORCH_CUDA_ARCH_LIST="9.0"' in build and "<" not in build.split("#")[0]


# ------------------------------------------------------------------ copies of a text
TRANSFORMS = {
    "nbsp": lambda t: t.replace(" ", "\u00a0"),
    "unicode spaces": lambda t: t.replace(" ", "\u202f", 3).replace(" ", "\u2007", 3).replace(" ", "\u3000", 2),
    "zero width": lambda t: " \u200b".join(t.split(" ", 8)).replace("_", "_\u200d", 2) + "\ufeff",
    "ansi": lambda t: "\n".join(f"\x1b[1;31m{ln}\x1b[0m" for ln in t.split("\n")) + "\x1b]8;;https://x\x07",
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "quoted": lambda t: "\n".join(f"> {ln}" for ln in t.split("\n")),
    "smart quotes": lambda t: t.replace("'", "\u2019"),
}


def test_normalise_undoes_each_copy_artifact():
    base = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"
    for name, fn in TRANSFORMS.items():
        assert normalise(fn(base)) == base, name


@pytest.mark.parametrize("part", ["dev", "test"])
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_the_corpus_reads_the_same_through_every_copy(part, name):
    p = CORPUS / f"{part}.jsonl"
    if not p.exists():
        pytest.skip(f"{p} absent")
    rows = load(p)
    fn = TRANSFORMS[name]
    changed = [(r["id"], _codes(r["text"]), _codes(fn(r["text"]))) for r in rows
               if _codes(r["text"]) != _codes(fn(r["text"]))]
    assert not changed, changed[:5]
    assert accuracy(rows, transform=fn) == accuracy(rows)


# ------------------------------------------------------------------ the exception hook: the same engine
@pytest.mark.parametrize("part", ["dev", "test"])
def test_the_hook_gives_explains_first_code_for_every_corpus_text(part):
    p = CORPUS / f"{part}.jsonl"
    if not p.exists():
        pytest.skip(f"{p} absent")
    spoke = 0
    for r in load(p):
        exc = RuntimeError(r["text"])
        line = diagnosis_line(error_text(RuntimeError, exc))
        first = explain_text(r["text"])
        if line is None:
            assert not any(CODES[f.code].fix for f in first), r["id"]
            continue
        spoke += 1
        code = line.split("[", 1)[1].split("]", 1)[0]
        assert code == first[0].code, (r["id"], code, first[0].code)
        assert line.endswith("Details and fix: %smr_doctor --explain-last")
    assert spoke >= 100


def test_ld_library_path_in_a_text_decides_between_driver_readings():
    stub = ("export LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs:$LD_LIBRARY_PATH\n"
            "RuntimeError: CUDA error: no CUDA-capable device is detected")
    f = explain_text(stub)[0]
    assert f.code == "cuda_stub_driver_loaded" and any(e.startswith("decided by: LD_LIBRARY_PATH holds a stubs") for e in f.evidence)
    err804 = ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
              "NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on "
              "non supported HW")
    assert _codes(err804) == ["driver_broken", "forward_compat_unsupported"]  # a reboot first, then compat
    assert _codes("LD_LIBRARY_PATH=/usr/local/cuda-12.4/compat:/usr/lib\n" + err804)[0] == "forward_compat_unsupported"
    # the probe's start-time LD_LIBRARY_PATH decides the same way for a text read on this machine
    live = {"loader": {"status": "ok", "start_ld_library_path": "/usr/local/cuda/lib64/stubs"}}
    assert explain_text("RuntimeError: CUDA error: no CUDA-capable device is detected", live)[0].code == \
        "cuda_stub_driver_loaded"


# ------------------------------------------------------------------ the driver's own libraries and its initialisation
def test_a_driver_library_names_the_driver_version_and_only_the_drivers_libraries_are_the_driver():
    facts = read("dlopen /usr/lib64/libnvidia-ml.so.535.104.05 ok")
    assert facts["driver"]["driver_version"] == "535.104.05"
    # libnvidia-container is the container toolkit's library: a program that cannot start without it is a
    # library the loader does not find (ldconfig after `make install`), not a GPU hidden from the process
    text = ("nvidia-container-cli: error while loading shared libraries: libnvidia-container-go.so.1: cannot open "
            "shared object file: No such file or directory")
    assert _codes(text, n=1) == ["library_not_found"]
    assert set(_codes("ImportError: libnvidia-ml.so.1: cannot open shared object file: No such file or directory")) <= {
        "gpu_not_exposed_to_process", "no_gpu"}


@pytest.mark.parametrize("text", [
    # ollama's discovery (gpu_info_nvcuda.c: snprintf "cuda driver library init failure: %d" of cuInit's CUresult)
    'level=INFO msg="Unable to load cudart library /usr/lib64/libcuda.so.560.35.03: cuda driver library init failure: 3"',
    "cuInit(0) failed with error 3",
    "E external/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_NOT_INITIALIZED: "
    "initialization error",
])
def test_a_failed_cuinit_is_the_driver_that_does_not_initialise(text):
    res = explain_result(text)
    first = res.findings[0]
    assert first.code == "driver_broken" and "cuInit" in first.title, (text, first)
    assert "user_code_error" not in [f.code for f in res.findings]
    assert not any(e["kind"] == "library_missing" for e in res.facts.get("loader", {}).get("events", []))


def test_a_driver_call_before_cuinit_is_the_calling_code_first():
    assert _codes("cuCtxGetDevice failed: CUDA_ERROR_NOT_INITIALIZED") == ["user_code_error", "driver_broken"]


# ------------------------------------------------------------------ versions a user names in prose
def test_versions_named_in_prose_are_facts_of_their_component():
    f = read("Setup: NVIDIA driver 525.147.05, CUDA 12.1, two RTX3090 cards")
    assert f["driver"]["driver_version"] == "525.147.05" and f["driver"]["cuda_driver_version"] == "12.0"
    assert f["toolkit"]["cuda_named"] == ["12.1"]
    assert {g["compute_capability"] for g in f["driver"]["gpus"]} == {"8.6"}
    # nvidia-smi prints only the driver's CUDA: a version said of it is the driver's, never the toolkit's
    f = read("nvcc says release 11.3, V11.3.109 but nvidia-smi shows cuda 12.4")
    assert f["driver"]["cuda_driver_version"] == "12.4" and "cuda_named" not in f.get("toolkit", {})
    assert "driver_cuda_version_not_toolkit" in _codes("nvcc: Cuda compilation tools, release 11.3, V11.3.109\n"
                                                       "nvidia-smi reports CUDA 12.4", n=3)
    # torch's local version tag names its CUDA wherever the word torch is on the line; a companion's does not
    assert read("pytorch: tried 2.0.1+cu117 and then 2.1.2+cu118")["torch"]["cuda"] in ("11.7", "11.8")
    assert "torch" not in read("torchvision 0.16.2+cu121")


def test_forward_compatibility_asked_for_by_a_runtime_newer_than_the_driver_is_the_driver_first():
    err804 = "RuntimeError: CUDA error: forward compatibility was attempted on non supported HW"
    assert _codes(err804) == ["driver_broken", "forward_compat_unsupported"]
    # a driver of another major than the CUDA in use cannot run it without the compat package: the driver first
    res = explain_result("nvidia-smi: Driver Version: 470.256.02\ntorch 2.1.0+cu121\n" + err804)
    assert [f.code for f in res.findings][:2] == ["driver_too_old", "forward_compat_unsupported"]
    assert any(e.startswith("decided by: the driver runs CUDA <= 11.4") for e in res.findings[0].evidence)
    # the same major runs under minor-version compatibility once the compat package is gone: that reading first;
    # the CUDA a user names decides as torch's does; a driver new enough leaves the reboot reading first
    assert _codes("nvidia-smi: Driver Version: 450.236.01\ntorch 2.0.1+cu118\n" + err804) == [
        "forward_compat_unsupported", "driver_too_old"]
    assert _codes("driver 470.57.02, CUDA 11.6 toolkit\n" + err804) == ["forward_compat_unsupported", "driver_too_old"]
    assert _codes("driver 535.104.05, CUDA 11.6 toolkit\n" + err804)[0] == "driver_broken"


# ------------------------------------------------------------------ NVRTC: the runtime compiler of torch's CUDA
def test_nvrtc_that_does_not_know_the_gpu_is_torchs_cuda_when_the_text_shows_both():
    err = "RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)"
    assert _codes(err) == ["unsupported_gpu_arch", "torch_wheel_lacks_gpu_arch"]  # the text alone: both readings
    res = explain_result(err + "\ntorch 1.12.1+cu113 on an RTX 4070")  # CUDA 11.3 predates sm_89 (11.8)
    first = res.findings[0]
    assert [f.code for f in res.findings][:2] == ["torch_wheel_lacks_gpu_arch", "unsupported_gpu_arch"]
    assert "NVRTC" in first.title and any("torch's CUDA 11.3" in e for e in first.evidence)
    assert not any("cu113" in c or "cu115" in c for c in first.fix.commands)  # no variant of 1.12 knows sm_89
    # torch's CUDA new enough for the GPU: the compiler at fault is another one (the toolkit's NVRTC or nvcc)
    assert _codes(err + "\ntorch 2.1.0+cu121 on an RTX 4070", n=1) == ["unsupported_gpu_arch"]


def test_nvrtc_without_its_builtins_library_is_a_cuda_library_the_loader_does_not_find():
    f = explain_text("Exception: Error compiling program: nvrtc: error: failed to load builtins")[0]
    assert f.code == "cudart_not_found" and "libnvrtc-builtins" in f.title


# ------------------------------------------------------------------ torch that sees no GPU: where it runs decides
def test_a_value_printed_on_the_next_line_of_a_session_is_read_with_its_expression():
    f = read("In [4]: torch.cuda.is_available()\nOut[4]: False\n\nIn [5]: torch.cuda.device_count()\nOut[5]: 0")
    assert f["torch"]["cuda_available"] is False and f["torch"]["device_count"] == 0
    f = read(">>> import torch\n>>> torch.cuda.device_count()\n2")
    assert f["torch"]["device_count"] == 2 and "driver" not in f
    assert "torch" not in read("In [4]: x = 1\nOut[4]: False")


def test_torch_without_a_gpu_in_a_container_is_a_process_not_given_the_gpu():
    session = "In [2]: torch.cuda.is_available()\nOut[2]: False"
    assert _codes(session) == ["torch_cuda_unavailable", "no_gpu"]  # nothing says the machine has an NVIDIA GPU
    assert _codes("nvidia-smi: Driver Version: 535.104.05, one RTX 3090\n" + session, n=3) == ["torch_cuda_unavailable"]
    for where in ("$ docker run -it --rm my/image:cuda12 ipython", "podman run -it my/image python",
                  "I built the docker image from the repository's Dockerfile and ran it."):
        assert _codes(where + "\n" + session) == ["gpu_not_exposed_to_process", "torch_cuda_unavailable"], where
    assert _codes("torch 2.3.1+cpu inside the container\n" + session, n=1) == ["cpu_only_torch_with_gpu"]


def test_no_device_and_an_empty_cuda_visible_devices_give_both_readings_with_what_decides():
    text = ("torch.cuda.is_available(): False\ntorch.cuda.device_count(): 0\n"
            "os.environ['CUDA_VISIBLE_DEVICES']: \nSee the install instructions.")
    res = explain_result(text)
    assert [f.code for f in res.findings][:2] == ["gpu_not_exposed_to_process", "no_gpu"]
    assert "slurm" not in res.facts.get("context", {})  # any shell empties it, not only a job
    second = res.findings[1]
    assert any("what decides" in e and "nvidia-smi" in e for e in second.evidence)
    assert "gpu_not_exposed_to_process" not in _codes("CUDA_VISIBLE_DEVICES=0 python train.py\n"
                                                      "torch.cuda.is_available(): True")


def test_a_cuda_visible_devices_the_text_sets_is_the_first_reading_of_a_torch_without_gpu():
    text = "run.sh sets\nexport CUDA_VISIBLE_DEVICES=3\nand then this prints False:\n`torch.cuda.is_available()`"
    res = explain_result(text)
    assert res.facts["context"]["cuda_visible_devices"] == "3" and res.facts["torch"]["cuda_available"] is False
    assert [f.code for f in res.findings][:2] == ["gpu_not_exposed_to_process", "torch_cuda_unavailable"]
    res = explain_result("CUDA_VISIBLE_DEVICES=1 python train.py\nRuntimeError: No CUDA GPUs are available")
    assert res.findings[0].code == "gpu_not_exposed_to_process"
    assert any("CUDA_VISIBLE_DEVICES=1" in e for e in res.findings[0].evidence)


# ------------------------------------------------------------------ a module that is installed, yet not found
@pytest.mark.parametrize("where", ["When I execute the first cell I get", "cell [3] fails with", "Running the cell:"])
def test_a_cell_is_a_notebook(where):
    res = explain_result(f"{where}\nModuleNotFoundError: No module named 'torch'")
    assert res.findings[0].code == "kernel_wrong_python" and "notebook" in res.findings[0].title


def test_torch_said_installed_yet_not_found_is_another_environment_with_both_readings():
    text = "pip install mypkg\n...\nModuleNotFoundError: No module named 'torch'"
    assert _codes(text, n=1) == ["torch_not_found_at_build"]  # a build: pip's isolated environment
    said = "ModuleNotFoundError: No module named 'torch', but torch is already installed (2.4.0)"
    res = explain_result(said)
    assert [f.code for f in res.findings][:2] == ["torch_not_found_at_build", "kernel_wrong_python"]
    assert any("what decides" in e for e in res.findings[1].evidence)
    plain = explain_result("ModuleNotFoundError: No module named 'torch'")  # no build, nothing said installed
    assert plain.recognised and plain.findings[0].code == "torch_not_installed"
    assert "torch_said_installed" not in str(read("I have torch==2.1 and No module named 'torchvision'"))


# ------------------------------------------------------------------ a crash with two native packages in the process
@pytest.mark.parametrize("text", [
    ">>> import pyrender\n>>> import torch\nFatal Python error: Segmentation fault",
    "import numpy as np\nimport tensorflow as tf\nimport torch\n...\n"
    "Process finished with exit code 134 (interrupted by signal 6: SIGABRT)",
    "$ python -c \"import cv2; import torch\"\nAborted (core dumped)",
])
def test_a_crash_in_a_process_that_imports_two_native_packages_is_read_as_their_clash(text):
    res = explain_result(text)
    assert res.findings[0].code == "native_library_conflict", (text, [f.code for f in res.findings])
    assert any("faulthandler" in c for c in res.findings[0].fix.commands)


@pytest.mark.parametrize("text", ["Segmentation fault (core dumped)", "import os\nimport sys\nSegmentation fault",
                                  "import torch\nSegmentation fault (core dumped)", "Bus error (core dumped)",
                                  "import torch\nAborted (core dumped)"])
def test_a_crash_that_names_no_two_native_packages_stays_unrecognised(text):
    assert explain_result(text).recognised is False, text


def test_sigill_is_an_instruction_the_cpu_lacks_not_two_packages_clashing():
    res = explain_result("import torch\nimport numpy\nIllegal instruction (core dumped)")
    codes = [f.code for f in res.findings]
    assert codes[0] == "cpu_instruction_unsupported" and "native_library_conflict" not in codes, codes


def test_a_crash_right_at_an_import_says_so():
    f = read(">>> from sklearn.neighbors import KDTree\n>>> import open3d\nSegmentation fault (core dumped)")
    assert f["loader"]["modules_imported"] == ["sklearn", "open3d"] and f["loader"]["crashed_at_import"] == "open3d"


# ------------------------------------------------------------------ an extension's own minimum toolkit
def test_the_packages_pip_builds_are_read_from_its_lines_and_its_command():
    f = read("$ pip install --no-build-isolation -v mamba-ssm==2.2.2 -i https://pypi.org/simple\n"
             "  Building wheel for mamba-ssm (setup.py) ... error\nERROR: Failed building wheel for causal-conv1d")
    assert f["toolkit"]["building"] == ["mamba-ssm", "causal-conv1d"]
    assert "building" not in read("pip install -r requirements.txt -e .").get("toolkit", {})


@pytest.mark.parametrize(("text", "first"), [
    # the toolkit the build uses, from nvcc's own line, older than the extension's setup.py accepts
    ("Cuda compilation tools, release 11.4, V11.4.152\n  Building wheel for flash-attn (setup.py) ... error",
     "toolkit_below_extension_minimum"),
    # the CUDA version the user names stands in for the toolkit when nvcc's line is absent
    ("My machine has CUDA 11.4.\npip install mamba-ssm\nerror: subprocess-exited-with-error",
     "toolkit_below_extension_minimum"),
])
def test_a_build_below_the_extensions_minimum_toolkit(text, first):
    res = explain_result(text)
    assert res.findings[0].code == first, [f.code for f in res.findings]
    assert "CUDA >= 11." in res.findings[0].title and any("setup.py" in e for e in res.findings[0].evidence)


def test_a_toolkit_at_or_above_the_minimum_is_not_that_cause():
    text = "Cuda compilation tools, release 12.1, V12.1.105\nERROR: Failed building wheel for flash-attn"
    assert "toolkit_below_extension_minimum" not in _codes(text, n=5)
    assert "toolkit_below_extension_minimum" not in _codes("CUDA 11.4\nFailed building wheel for apex", n=5)


# ------------------------------------------------------------------ a job's shell, a variable's value, torch's own headers
@pytest.mark.parametrize("text", ["/var/spool/slurm/d/job4242/slurm_script: line 7: module: command not found",
                                  "run.sh: line 2: ml: command not found\nnvcc: command not found"])
def test_a_module_command_the_shell_lacks_is_an_environment_that_does_not_reach_the_job(text):
    f = explain_text(text)[0]
    assert f.code == "env_not_propagated_to_kernel" and "login shell" in f.title, f
    assert any("#!/bin/bash -l" in c for c in f.fix.commands)


@pytest.mark.parametrize("text", [
    "$ echo $CUDA_HOME\n/usr/local/cuda-11.8:\n$ python setup.py install\nerror: [Errno 2] No such file or directory: "
    "'/usr/local/cuda-11.8:/bin/nvcc'",
    "nvcc not found although I installed it; echo $CUDA_HOME gives /usr/local/cuda/bin",
])
def test_a_variables_value_from_its_echo_is_checked_for_its_shape(text):
    assert _codes(text, n=1) == ["cuda_home_malformed"], _codes(text, n=3)


def test_a_header_torchs_own_headers_need_is_torch_without_its_cuda_headers():
    own = ("/env/lib/python3.9/site-packages/torch/include/ATen/cuda/detail/IndexUtils.cuh:4:10: fatal error: "
           "THC/THCTensorInfo.cuh: No such file or directory")
    f = explain_text(own)[0]
    assert f.code == "cpu_only_torch_with_gpu" and any("torch's own header" in e for e in f.evidence)
    # the extension's own source including a header torch removed is the source, not the install
    assert _codes("src/roi_align_kernel.cu:3:10: fatal error: THC/THC.h: No such file or directory", n=1) == [
        "torch_api_incompatible_source"]
    # torch's header including a CUDA toolkit header is the toolkit the build uses
    assert _codes("/env/lib/python3.9/site-packages/torch/include/c10/cuda/CUDAStream.h:6:10: fatal error: "
                  "cuda_runtime_api.h: No such file or directory", n=1) == ["cuda_home_incomplete"]


def test_a_command_that_gives_a_container_the_gpu_is_where_it_runs_not_an_error():
    assert explain_result("docker run --gpus all -it nvcr.io/nvidia/pytorch:24.01-py3").recognised is False
    res = explain_result("docker run --gpus all -it my/image\nRuntimeError: No CUDA GPUs are available")
    assert res.facts["context"]["container"] and res.findings[0].code == "gpu_not_exposed_to_process"
