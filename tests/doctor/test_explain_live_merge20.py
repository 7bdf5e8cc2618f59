# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 20a: a pasted text from another machine is not read with this machine's facts.

From the user's side: ``smrnb.explain`` / ``smr-doctor explain`` on a fake live machine (``collect`` replaced by one
that reports injected facts) of three kinds -- a CPU-only Linux container, a GPU Linux server with a CUDA 12 torch,
a Windows PC -- with texts in other wordings than the audit's (audit19: protenix-2, weaviate-1685, vision-1018,
mmdetection3d-2543, dreamgaussian-6, get3d-108); each asserts what is printed and the exit status. And the contract
over every corpus part, offline and merged with a fake machine unlike the texts': no text gets an all-clear.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from smrnb.doctor import cli, explain
from smrnb.doctor._corpus import load
from smrnb.doctor._explain import _FAILED_LINE_RE, _went_well, explain_result, machine_contradictions, read

CPU_CONTAINER = {
    "driver": {"status": "absent", "driver_version": None, "cuda_driver_version": None, "gpus": [],
               "reason": "no NVIDIA driver: NVML does not load and nvidia-smi is not on PATH"},
    "torch": {"status": "ok", "installed": True, "version": "2.13.0+cpu", "version_base": "2.13.0", "cuda": None,
              "hip": None, "cxx11_abi": True},
    "toolkit": {"status": "ok", "nvccs": [{"path": "/usr/local/bin/nvcc", "version": "13.0", "paths": ["/usr/local/bin/nvcc"],
                                           "toolkit_dir": "/usr/local", "has_headers": False}],
                "build_nvcc": "/usr/local/bin/nvcc", "build_nvcc_version": "13.0", "build_cuda_home": "/usr/local",
                "build_cuda_home_has_headers": False, "gcc": "12.2.0"},
    "context": {"status": "ok", "container": "docker", "slurm": None, "python_version": "3.11.7"},
    "loader": {"status": "ok", "changed_since_start": {}},
    "abi": {"status": "ok", "torch_cxx11_abi": True},
}
GPU_SERVER = {
    "driver": {"status": "ok", "driver_version": "550.54.15", "cuda_driver_version": "12.4",
               "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}]},
    "torch": {"status": "ok", "installed": True, "version": "2.4.1+cu121", "version_base": "2.4.1", "cuda": "12.1",
              "hip": None, "cxx11_abi": False, "arch_list": ["sm_80", "sm_90"]},
    "toolkit": {"status": "ok", "nvccs": [{"path": "/usr/local/cuda/bin/nvcc", "version": "12.1",
                                           "paths": ["/usr/local/cuda/bin/nvcc"], "toolkit_dir": "/usr/local/cuda",
                                           "has_headers": True}],
                "build_nvcc": "/usr/local/cuda/bin/nvcc", "build_nvcc_version": "12.1",
                "build_cuda_home": "/usr/local/cuda", "build_cuda_home_has_headers": True, "gcc": "11.4.0"},
    "context": {"status": "ok", "container": None, "slurm": None, "python_version": "3.11.7"},
    "loader": {"status": "ok", "changed_since_start": {}},
}
WINDOWS = {
    "driver": {"status": "ok", "driver_version": "537.58", "cuda_driver_version": "12.2",
               "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3060", "compute_capability": "8.6"}]},
    "torch": {"status": "ok", "installed": True, "version": "2.3.0+cu118", "version_base": "2.3.0", "cuda": "11.8"},
    "toolkit": {"status": "ok", "nvccs": [], "build_nvcc": None},
    "context": {"status": "ok", "os": "windows", "container": None, "slurm": None, "python_version": "3.10.11"},
}




def _cli(capsys, text, *opts):
    rc = cli.main(["explain", *opts, text])
    return rc, capsys.readouterr().out


def _all_outputs(capsys, text):
    """(exit status, text, JSON, markdown) of ``smr-doctor explain`` on ``text``; the three statuses agree."""
    rc, out = _cli(capsys, text)
    rc_j, js = _cli(capsys, text, "--json")
    rc_m, md = _cli(capsys, text, "--markdown")
    assert rc == rc_j == rc_m
    return rc, out, json.loads(js), md


# ------------------------------------------------------------------ a text of another machine is read alone
SHM_RTX = ("Traceback (most recent call last):\n  File \"infer.py\", line 88, in <module>\n"
           "RuntimeError: DataLoader worker (pid 1311) is killed by signal: Bus error. It is possible that dataloader's "
           "workers are out of shared memory. Please try to raise your shared memory limit.\n"
           "My box has a single RTX 3090; num_workers=2 did not help.\n")


WIN_DLL = ("C:\\Users\\ana\\miniconda3\\envs\\det\\lib\\site-packages\\torchvision\\extension.py in <module>\n"
           "----> 1 from torchvision import _C\n"
           "ImportError: DLL load failed while importing _C: The specified module could not be found.\n"
           "installed with: conda install pytorch torchvision cudatoolkit=11.3 -c pytorch\n")


#: (text, what the line that says why it is read alone names, the text's own first finding, what no output shows)
READ_ALONE_ON_A_CPU_CONTAINER = [
    (SHM_RTX, ("the text shows an NVIDIA GPU (RTX 3090)", "this machine has no NVIDIA driver or GPU"),
     "container_shm_too_small", ("cpu_only_torch_with_gpu", "2.13.0", "from this machine")),
    # (round 30c) torchvision's own _C failing on Windows reads as torchvision built for another torch first (its DLLs
    # of another torch or CUDA variant), library_not_found second
    (WIN_DLL, ("the text shows Windows", "this machine has Linux"), "companion_built_for_other_torch",
     ("nvcc 13.0", "/usr/local/bin/nvcc", "toolkit.gcc", "CUDA_HOME=/usr/local has nvcc", "in this container")),
]


@pytest.mark.parametrize("text, said, code, never", READ_ALONE_ON_A_CPU_CONTAINER, ids=["gpu_text", "windows_text"])
def test_a_text_of_another_machine_is_read_alone_and_keeps_its_own_error(machine, capsys, text, said, code, never):
    """A GPU text, or a Windows one, on a Linux container without a GPU: read alone, its own error first, nothing of
    this machine (its torch, its toolkit) in any output."""
    machine(CPU_CONTAINER)
    rc, out, js, md = _all_outputs(capsys, text)
    lines = out.splitlines()
    assert rc == 1 and lines[1].startswith("read as text alone: the text shows ")
    assert all(s in lines[1] for s in said) and "run smr-doctor on the machine where it failed" in lines[1]
    assert lines[2].startswith(f"most likely: [{code}]") and js["findings"][0]["code"] == code
    for shown in (out, md, json.dumps(js["findings"])):
        assert not any(n in shown for n in never), [n for n in never if n in shown]
    assert js["read_alone"].startswith("read as text alone") and js["facts"] == {} and js["summary"]["exit_code"] == 1
    assert "read as text alone" in md.split("#### ")[0]
    assert "this machine:" not in out  # nothing of this machine is shown when the text is read alone


def test_a_cuda_torch_printed_in_the_text_is_never_called_cpu_only(machine, capsys):
    text = (">>> import torch\n>>> torch.__version__\n'1.9.1'\n>>> torch.version.cuda\n'11.1'\n"
            ">>> torch.cuda.get_device_name(0)\n'NVIDIA GeForce RTX 2080 Ti'\n>>> torch.ones(4, 4).cuda() @ torch.ones(4, 4).cuda()\n"
            "RuntimeError: CUDA error: CUBLAS_STATUS_INTERNAL_ERROR when calling `cublasCreate(handle)`\n")
    for facts in (CPU_CONTAINER, GPU_SERVER):
        machine(facts)
        rc, out, js, md = _all_outputs(capsys, text)
        assert out.splitlines()[1].startswith("read as text alone: the text shows ")
        out = "\n".join(out.splitlines()[2:])  # after the line that says what decided
        assert "torch.version.cuda is None" not in out and "most likely: [cpu_only_torch_with_gpu]" not in out
        assert not any(f["code"] == "cpu_only_torch_with_gpu" and "similar reports" not in f["sources"] for f in js["findings"])
        assert rc in (1, 3) and "2.13.0" not in out and "2.4.1" not in out


def test_an_abi_verdict_is_never_built_from_this_machines_torch_for_the_texts_older_torch(machine, capsys):
    text = ("ImportError: /home/lee/anaconda3/envs/m3d/lib/python3.8/site-packages/mmcv/_ext.cpython-38-x86_64-linux-"
            "gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs\n"
            "environment: pytorch 1.11, cuda 11.3, python 3.8, mmcv 2.0.0rc4\n")
    machine(CPU_CONTAINER)
    rc, out, js, md = _all_outputs(capsys, text)
    assert rc == 1 and out.splitlines()[1].startswith("read as text alone: the text shows torch 1.11")
    out = "\n".join(out.splitlines()[2:])
    assert "2.13" not in out and "torch.cxx11_abi" not in out and "this torch 1.11 uses" not in out
    assert "CXXFLAGS=-D_GLIBCXX_USE_CXX11_ABI=1" not in out


def test_a_linux_text_on_windows_is_read_alone_by_its_site_packages_folder(machine, capsys):
    text = ("Traceback (most recent call last):\n  File \"/home/zoe/venvs/r3d/lib/python3.11/site-packages/pytorch3d/"
            "renderer/mesh/rasterize_meshes.py\", line 231, in forward\n"
            "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 11.76 GiB total capacity)\n")
    machine(WINDOWS)
    rc, out, js, md = _all_outputs(capsys, text)
    assert rc == 1 and "/home/zoe/venvs/r3d/lib/python3.11/site-packages" in out.splitlines()[1]
    assert js["findings"][0]["code"] == "cuda_oom" and "this machine:" not in out


# ------------------------------------------------------------------ a text of this machine: live facts fill gaps
def test_a_text_that_agrees_with_this_machine_is_merged_and_its_machine_lines_say_so(machine, capsys):
    text = ("torch 2.4.1+cu121 on the H100 node\n"
            "RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB (GPU 0; 79.10 GiB total capacity)\n")
    machine(GPU_SERVER)
    rc, out, js, md = _all_outputs(capsys, text)
    assert rc == 1 and "read as text alone" not in out and js["read_alone"] == ""
    assert js["findings"][0]["code"] == "cuda_oom"
    head = out.split("\n\n")[0].splitlines()
    env = [ln for ln in head[1:] if not ln.startswith(("most likely", "or"))]
    assert env and all(ln.startswith("  this machine: ") for ln in env), head
    assert not any(ln.startswith(("  torch:", "  nvcc:")) for ln in out.splitlines())
    assert "layers ok" not in out.splitlines()[0]


def test_a_finding_of_the_machine_never_ranks_above_the_texts_own_error(machine, capsys):
    text = ("RuntimeError: DataLoader worker (pid 77) is killed by signal: Bus error. It is possible that dataloader's "
            "workers are out of shared memory. Please try to raise your shared memory limit.\n")
    machine(CPU_CONTAINER)  # nothing in the text contradicts this machine
    rc, out, js, md = _all_outputs(capsys, text)
    assert "read as text alone" not in out
    assert js["findings"][0]["code"] == "container_shm_too_small"
    assert out.splitlines()[1].startswith("most likely: [container_shm_too_small]")
    assert "toolkit.gcc" not in out  # a line of this machine's facts on a finding they did not decide


def test_the_decision_names_the_facts_that_decided():
    text = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.8, V11.8.89\n"
    assert [w for w, _, _ in machine_contradictions(read(text), GPU_SERVER)] == ["nvcc"]
    assert machine_contradictions(read("Cuda compilation tools, release 12.1, V12.1.105\n"), GPU_SERVER) == []
    assert [w for w, _, _ in machine_contradictions(read(WIN_DLL), GPU_SERVER)][:1] == ["OS"]
    assert machine_contradictions(read("ImportError: DLL load failed while importing _C\nC:\\Users\\x\\a.py"),
                                  WINDOWS) == []
    assert machine_contradictions(read("torch 2.4.1+cu121"), GPU_SERVER) == []
    assert [w for w, _, _ in machine_contradictions(read("torch 2.4.1+cu118"), GPU_SERVER)] == ["torch"]
    assert machine_contradictions(read("anything"), None) == []
    so = ("ImportError: /home/nobody-here-r20a/proj/ops/nms_cuda.cpython-39-x86_64-linux-gnu.so: undefined symbol: "
          "_ZNK2at6Tensor8data_ptrIfEEPT_v\n")
    assert [w for w, _, _ in machine_contradictions(read(so), GPU_SERVER)] == ["Python", "path"]


# ------------------------------------------------------------------ a failure is never an all-clear
FAILED_WHEEL = ("  Building wheel for simple-knn (setup.py) ... error\n  error: subprocess-exited-with-error\n"
                "  TypeError: expected string or bytes-like object\n  ERROR: Failed building wheel for simple-knn\n"
                "nvcc -V\nCuda compilation tools, release 11.8, V11.8.89\n")


@pytest.mark.parametrize("facts", [None, CPU_CONTAINER, GPU_SERVER, WINDOWS])
def test_a_failed_build_with_only_notes_is_not_recognised_in_every_output(machine, capsys, facts):
    if facts is not None:
        machine(facts)
    opts = ("--offline",) if facts is None else ()
    rc, out = _cli(capsys, FAILED_WHEEL, *opts)
    rc_j, js = _cli(capsys, FAILED_WHEEL, *opts, "--json")
    rc_m, md = _cli(capsys, FAILED_WHEEL, *opts, "--markdown")
    assert rc == rc_j == rc_m != 0
    if rc == 3:
        assert out.startswith("smrnb doctor: NOT RECOGNISED") and json.loads(js)["recognised"] is False
        assert "NOT RECOGNISED" in md
    assert "layers ok" not in out + md + js
    rep = explain(FAILED_WHEEL, live=facts is not None)
    assert rep.exit_code == rc and "layers ok" not in rep._repr_html_()


def test_notes_only_of_a_failure_in_the_notebook_magic(machine):
    IPython = pytest.importorskip("IPython")
    from IPython.testing.globalipapp import start_ipython

    machine(CPU_CONTAINER)
    shell = start_ipython() or IPython.get_ipython()
    shell.run_line_magic("load_ext", "smrnb")
    try:
        rep = shell.run_cell_magic("smr_explain", "", FAILED_WHEEL)
        assert rep.exit_code != 0 and "layers ok" not in rep._repr_html_()
        rep = shell.run_line_magic("smr_doctor", "--explain " + SHM_RTX.split("\n")[2] + " " + SHM_RTX.split("\n")[3])
        assert "read as text alone" in rep._repr_html_() and "cpu_only_torch_with_gpu" not in rep.codes
    finally:
        shell.run_line_magic("unload_ext", "smrnb")


def test_a_note_that_says_not_the_environment_keeps_exit_0():
    rep = explain("RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 256x10)", live=False)
    assert rep.recognised and rep.exit_code == 0


CORPUS = Path(__file__).parent / "corpus"
PARTS = sorted(p for p in CORPUS.glob("*.jsonl") if not p.name.startswith(("heldout20", "heldout21")))


def _all_clear(res) -> bool:
    """Whether explain's answer reads as an all-clear: recognised, no error or warning, and no note that is an
    answer of its own (the user's code, the environment not at fault, an error of before)."""
    if not res.recognised or any(f.severity in ("error", "warning") for f in res.findings):
        return False
    return not any(f.code == "user_code_error" or f.title.startswith(("Not your environment", "before, not now"))
                   for f in res.findings)


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.stem)
def test_no_corpus_text_gets_an_all_clear_offline_or_merged_with_an_unlike_machine(part):
    bad = []
    for row in load(part):
        text = row["text"]
        for facts in (None, CPU_CONTAINER):
            res = explain_result(text, facts, similar=False, same_machine=True)
            if _all_clear(res) and _FAILED_LINE_RE.search(text) and not _went_well(text):
                bad.append((row.get("id") or text[:60], "offline" if facts is None else "merged",
                            [(f.code, f.severity) for f in res.findings]))
    assert not bad, bad[:10]
