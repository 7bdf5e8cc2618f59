# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 18b: precision narrowings from benchmarks/audit_rule_precision.py (rules that fired a wrong first or second
finding over the corpus), each with near misses written in other words than the corpus': texts the rule must still
catch and texts it must no longer catch."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor.rules import evaluate

from ._rules import rule_codes

# --- cpu_only_torch_with_gpu from the torch layer's facts: only where torch's CUDA release is known to be none ---------

_GPU_AND_TORCH = "Setup: Ubuntu 22.04, graphics card NVIDIA GeForce RTX 4070, torch==2.2.2, python 3.11\n"


@pytest.mark.parametrize("error", [
    "RuntimeError: CUDA error: an illegal memory access was encountered\n",
    "ImportError: libcublasLt.so.11: cannot open shared object file: No such file or directory\n",
    "OSError: [WinError 126] The specified module could not be found. Error loading \"caffe2_nvrtc.dll\"\n",
])
def test_a_torch_version_beside_a_gpu_is_no_cpu_only_build(error):
    codes = rule_codes(_GPU_AND_TORCH + error, n=3)
    assert "cpu_only_torch_with_gpu" not in codes, codes


@pytest.mark.parametrize("text", [
    "torch==2.2.2+cpu, graphics card NVIDIA GeForce RTX 4070\nAssertionError: Torch not compiled with CUDA enabled\n",
    "pip list says torch 2.0.1+cpu; my GPU: NVIDIA RTX A4000\nAssertionError: Torch not compiled with CUDA enabled\n",
])
def test_a_cpu_build_said_in_the_text_is_still_read(text):
    assert "cpu_only_torch_with_gpu" in rule_codes(text), rule_codes(text, n=3)


def test_the_live_probe_of_a_cpu_only_torch_is_still_read():
    """The machine's probe reports torch.version.cuda as None: that one is a CPU-only build."""
    facts = {"torch": {"status": "ok", "installed": True, "version": "2.2.2", "cuda": None},
             "driver": {"status": "ok", "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4070"}],
                        "driver_version": "550.54.14"}}
    assert "cpu_only_torch_with_gpu" in {f.code for f in evaluate(facts, ["torch"])}
    del facts["torch"]["cuda"]  # nothing known of torch's CUDA: no finding
    assert "cpu_only_torch_with_gpu" not in {f.code for f in evaluate(facts, ["torch"])}


# --- torch's 'Found no NVIDIA driver': no GPU first, unless a container or a job is shown ------------------------------

_NO_DRIVER = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
              "installed a driver from http://www.nvidia.com/Download/index.aspx\n")


@pytest.mark.parametrize("before", [
    "Running the demo on my laptop (it only has an AMD Radeon 780M):\n",
    "I wanted to try it on the CPU.\n",
    "",
])
def test_no_driver_without_a_container_reads_no_gpu_first(before):
    assert rule_codes(before + _NO_DRIVER)[0] == "no_gpu", rule_codes(before + _NO_DRIVER, n=3)


@pytest.mark.parametrize("before", [
    "docker run --rm -it my-image:latest python train.py\n",
    "inside the container (podman, image built from nvidia/cuda:12.1.0-runtime):\n",
])
def test_no_driver_in_a_container_still_reads_the_gpu_not_given_first(before):
    assert rule_codes(before + _NO_DRIVER)[0] == "gpu_not_exposed_to_process", rule_codes(before + _NO_DRIVER, n=3)


# --- 'works in the terminal': the terminal where the error shows or Jupyter is launched is no such sign ----------------

_NB_ERR = "In [3]: import foo\nModuleNotFoundError: No module named 'foo'\n(in a Jupyter notebook)\n"


@pytest.mark.parametrize("said", [
    "The same traceback error also shows up in the terminal.\n",
    "Steps to reproduce, in a terminal: conda create -n x python=3.10\n",
    "This happens when launching the notebook server from the command line.\n",
    "Everything is fine with a plain jupyter notebook started from the terminal.\n",
])
def test_a_terminal_that_shows_the_error_is_no_terminal_works_sign(said):
    text = said + _NB_ERR
    res = explain_result(text, similar=False)
    signs = {e.get("sign") for e in res.facts.get("jupyter", {}).get("events") or ()}
    assert "terminal_works" not in signs, rule_codes(text, n=3)


@pytest.mark.parametrize("said", [
    "import foo runs without errors in the terminal.\n",
    "I get an error in the notebook, but in my terminal the import works.\n",
    "From the command line python -c 'import foo' is fine.\n",
    "在终端里 import foo 没问题\n",
])
def test_a_terminal_where_the_code_works_is_still_the_sign(said):
    text = said + _NB_ERR
    res = explain_result(text, similar=False)
    signs = {e.get("sign") for e in res.facts.get("jupyter", {}).get("events") or ()}
    assert "terminal_works" in signs
    assert "kernel_wrong_python" in rule_codes(text), rule_codes(text, n=3)


# --- the user says the machine has no NVIDIA GPU: no GPU first, not a GPU kept from the process -------------------------

@pytest.mark.parametrize("text", [
    "Tried the CLI on my office PC, I don't have an NVIDIA card in it.\n"
    "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n",
    "Our cluster's cpu-only nodes fail at start-up:\nCUDA error: no CUDA-capable device is detected\n",
    "ps: i have no gpu, only the integrated one\nRuntimeError: No CUDA GPUs are available\n",
])
def test_a_machine_said_to_have_no_gpu_reads_no_gpu_first(text):
    assert rule_codes(text)[0] == "no_gpu", rule_codes(text, n=3)


@pytest.mark.parametrize("text", [
    # torch's own words about a CPU-only machine are no statement of the user's
    "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are "
    "running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu')\n",
    # in a container the GPU not given stays a reading first, whatever the host
    "docker run --rm my-image python run.py   (the host has no NVIDIA GPU on it? it has an RTX 3060)\n"
    "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n",
])
def test_no_gpu_said_is_not_read_from_torch_or_inside_a_container(text):
    res = explain_result(text, similar=False)
    assert not any("the text says the machine has no NVIDIA GPU" in e for f in res.findings for e in f.evidence), \
        rule_codes(text, n=3)
