# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 36 (the live doctor, the CLI and the magic; findings H1, H5, H6 and explain's FILE argument)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from jupyter_client.kernelspec import KernelSpecManager

from smrnb import SmrnbValueError
from smrnb.doctor._fixes import write_kernelspec

ENV = {"LD_LIBRARY_PATH": "/usr/local/cuda-13.0/lib64"}


@pytest.fixture()
def ksm(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path))
    return KernelSpecManager()


def _users_spec(tmp_path, folder="mykernel"):
    spec = tmp_path / "kernels" / folder
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({"argv": ["python", "-m", "ipykernel_launcher", "-f",
                                                           "{connection_file}"], "display_name": "My precious kernel",
                                                  "language": "python", "env": {"MY_SETTING": "1"}}))
    (spec / "logo-64x64.png").write_bytes(b"\x89PNG the user's logo")
    return spec


@pytest.mark.parametrize("asked", ["MyKernel", "MYKERNEL", "mykernel"])
def test_a_name_that_differs_only_in_case_is_refused_and_nothing_is_touched(ksm, tmp_path, asked):
    spec = _users_spec(tmp_path)
    before = {p.name: p.read_bytes() for p in spec.iterdir()}
    for dry in (True, False):
        with pytest.raises(SmrnbValueError, match="is an existing kernelspec"):
            write_kernelspec(asked, env=ENV, ksm=ksm, dry_run=dry)
    assert {p.name: p.read_bytes() for p in spec.iterdir()} == before


def test_the_dry_run_names_the_folder_the_write_uses(ksm, tmp_path):
    dry = write_kernelspec("LabGPU", env=ENV, ksm=ksm, dry_run=True)
    real = write_kernelspec("LabGPU", env=ENV, ksm=ksm)
    assert dry.path == real.path
    assert os.path.isfile(tmp_path / "kernels" / "labgpu" / "kernel.json")
    assert "labgpu" in dry.describe()


def test_force_on_a_case_twin_backs_up_the_users_spec_first(ksm, tmp_path):
    _users_spec(tmp_path)
    res = write_kernelspec("MyKernel", env=ENV, ksm=ksm, force=True)
    assert res.replaced and res.backup and os.path.isfile(os.path.join(res.backup, "logo-64x64.png"))
    assert json.loads(open(os.path.join(res.backup, "kernel.json")).read())["env"] == {"MY_SETTING": "1"}


def test_a_folder_jupyter_does_not_list_is_never_replaced(ksm, tmp_path):
    odd = tmp_path / "kernels" / "notes"
    odd.mkdir(parents=True)
    (odd / "README.txt").write_text("the user's own file")
    with pytest.raises(SmrnbValueError, match="exists and is no kernelspec"):
        write_kernelspec("notes", env=ENV, ksm=ksm, force=True)
    assert (odd / "README.txt").read_text() == "the user's own file"


def test_the_cli_refuses_the_case_twin(tmp_path):
    _users_spec(tmp_path)
    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path), HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "fix", "kernelspec", "--name", "MyKernel"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode != 0 and "existing kernelspec" in out.stderr
    assert (tmp_path / "kernels" / "mykernel" / "logo-64x64.png").exists()


# --- explain FILE (F15): the file's text, not its name -------------------------------------------------------------

LOG = ("Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n    import torch\n"
       "  File \"/opt/venv/lib/python3.10/site-packages/torch/__init__.py\", line 237, in <module>\n"
       "    from torch._C import *  # noqa: F403\n"
       "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n")


def _explain(args, stdin=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline", "--json", *args],
                          input=stdin, capture_output=True, text=True, timeout=120, cwd=cwd,
                          env=dict(os.environ, PYTHONPATH=os.getcwd()))


def _codes(out):
    return [f["code"] for f in json.loads(out.stdout)["findings"]]


def test_explain_reads_a_file_named_alone_as_stdin_does(tmp_path):
    (tmp_path / "build.log").write_text(LOG)
    by_file = _explain(["build.log"], cwd=tmp_path)
    by_stdin = _explain([], stdin=LOG)
    assert by_file.returncode == by_stdin.returncode == 1
    assert _codes(by_file) == _codes(by_stdin) and "cudart_not_found" in _codes(by_file)


@pytest.mark.parametrize("make, want", [
    (lambda p: None, "no such file"),
    (lambda p: p.mkdir(), "not a regular file"),
    (lambda p: os.mkfifo(p), "not a regular file"),
])
def test_explain_refuses_a_file_argument_it_cannot_read(tmp_path, make, want):
    make(tmp_path / "err.log")
    out = _explain(["err.log"], cwd=tmp_path)  # a FIFO is never opened: no hang
    assert out.returncode == 2 and want in out.stderr and "err.log" in out.stderr


def test_a_one_word_error_is_still_the_text(tmp_path):
    out = _explain(["Killed"], cwd=tmp_path)
    assert out.returncode in (0, 1, 3) and "no such file" not in out.stderr


# --- H5: a live report's pip and python commands are the examined Python's ----------------------------------------

from smrnb.doctor._model import Finding, Fix  # noqa: E402
from smrnb.doctor._printed import this_pythons_commands  # noqa: E402


def _one(*commands):
    return [Finding("torch_not_found_at_build", "toolkit", "info", "t", fix=Fix("w", tuple(commands)))]


def test_commands_name_the_examined_python_where_path_finds_another():
    exe = "/home/u/my env/bin/python"
    got = this_pythons_commands(_one("pip install ninja   # build tools", "python -m pip show torch",
                                     "rm -rf build/ && pip install --no-build-isolation .",
                                     'python -c "import torch"', "# pip install x", "%pip install y",
                                     "git clone x\ncd x\npython -m pip install -e ."),
                                exe, "/usr/bin/python", "/usr/bin/pip")[0].fix.commands
    q = "'/home/u/my env/bin/python'"
    assert got == (f"{q} -m pip install ninja   # build tools", f"{q} -m pip show torch",
                   f"rm -rf build/ && {q} -m pip install --no-build-isolation .", f'{q} -c "import torch"',
                   "# pip install x", "%pip install y", f"git clone x\ncd x\n{q} -m pip install -e .")


def test_commands_stay_where_path_finds_the_examined_python():
    found = _one("pip install ninja", "python -m pip show torch")
    assert this_pythons_commands(found, "/v/bin/python", "/v/bin/python", "/v/bin/pip") == found


def test_the_cli_run_from_an_unactivated_venv_prints_its_python(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = str(tmp_path)  # no python, no pip on PATH
    env["PYTHONPATH"] = os.getcwd()
    out = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "--json", "--layer", "toolkit"],
                         capture_output=True, text=True, env=env, timeout=120)
    cmds = [c for f in json.loads(out.stdout)["findings"] for c in (f.get("fix") or {}).get("commands", [])]
    pips = [c for c in cmds if " -m pip " in c or c.startswith("pip")]
    if not pips:
        pytest.skip("this machine's toolkit report prints no pip command to check")
    assert all(c.startswith(sys.executable) for c in pips), pips


# --- A-M1..M3: explain's input and options -------------------------------------------------------------------------


def _cli(args, **kw):
    return subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", *args], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=os.getcwd()), **kw)


def test_explain_with_stdin_closed_is_a_usage_error():
    out = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "explain", "--json"], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=os.getcwd()))
    assert out.returncode == 2  # an empty stdin, as before
    closed = subprocess.run(["sh", "-c", f"exec {sys.executable} -m smrnb.doctor.cli explain <&-"],
                            capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=os.getcwd()))
    assert closed.returncode == 2 and "stdin is closed" in closed.stderr and "AttributeError" not in closed.stderr


@pytest.mark.parametrize("args", [
    ["explain", "--extension", "/nonexistent.so", "ImportError: libcudart.so.11.0"],
    ["explain", "--package", "no_such_pkg_zz", "ImportError: libcudart.so.11.0"],
    ["--import-check", "explain", "ImportError: libcudart.so.11.0"],
    ["explain", "-", "more text"],
])
def test_explain_never_drops_an_option_without_a_word(args):
    out = _cli(args, input="ImportError: libcudart.so.11.0\n")
    assert out.returncode == 2 and "explain:" in out.stderr


def test_a_layer_whose_rule_failed_is_not_counted_ok(monkeypatch):
    # (C-M7) a rule that raises: the layer reads "not checked", never "ok"
    from smrnb.doctor import diagnose, rules

    def broken(facts):
        raise RuntimeError("a rule's own bug")

    rules._load_rule_modules()
    monkeypatch.setattr(rules, "_RULES", [*rules._RULES, ("torch", broken)])
    rep = diagnose(layers=["torch"], timeout=2.0)
    assert "rule_failed" in [f.code for f in rep.findings]
    assert "1 not checked" in rep.summary() and "1 of 1 layers ok" not in rep.summary()


def test_a_timeout_too_short_to_start_a_program_is_said_not_blamed_on_the_tools():
    # (C-M2) --timeout 0.001: every tool is stopped before it starts; the report says so, as a note
    out = _cli(["--timeout", "0.001", "--layer", "toolkit", "--json"])
    found = [f for f in json.loads(out.stdout)["findings"] if f["code"] == "tool_did_not_answer"]
    if not found:
        pytest.skip("no build tool on PATH here to time out")
    assert found[0]["severity"] == "info" and "--timeout given (0.001 s)" in found[0]["title"]


def test_driver_fixes_inside_a_container_say_they_are_the_hosts(tmp_path):
    # (C-M4) a container shares the host's kernel module: modprobe / dkms / reboot are the host's to run
    from smrnb.doctor._model import Finding, Fix
    from smrnb.doctor.rules._driver import on_the_host

    f = Finding("driver_broken", "driver", "error", "t", fix=Fix("w", ("sudo modprobe nvidia", "sudo reboot")))
    inside = on_the_host({"context": {"status": "ok", "container": "docker"}}, f)
    assert inside.fix.commands[0].startswith("# inside a docker container: the driver is the host's")
    assert "--gpus all" in inside.fix.commands[0] and inside.fix.commands[1:] == f.fix.commands
    assert on_the_host({"context": {"status": "ok", "container": None}}, f) is f
    other = Finding("cuda_oom", "driver", "error", "t", fix=Fix("w", ("nvidia-smi",)))
    assert on_the_host({"context": {"status": "ok", "container": "docker"}}, other) is other


# --- F11: WSL2's libcuda is the Windows driver's, in /usr/lib/wsl/lib ------------------------------------------------

WSL = 'ivan@DESKTOP-7Q2:~$ uname -r\n5.15.153.1-microsoft-standard-WSL2\nivan@DESKTOP-7Q2:~$ python3 -c "import torch; print(torch.cuda.is_available())"\nCould not load library libcuda.so. Error: libcuda.so: cannot open shared object file: No such file or directory\n/home/ivan/.local/lib/python3.10/site-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 500: named symbol not found (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\nFalse\nivan@DESKTOP-7Q2:~$ ls /usr/lib/wsl/lib\nlibcuda.so  libcuda.so.1  libcuda.so.1.1  libd3d12.so  libdxcore.so  libnvidia-ml.so.1  nvidia-smi\nivan@DESKTOP-7Q2:~$ echo $LD_LIBRARY_PATH\n/usr/local/cuda-11.8/lib64\n'


def test_wsl_libcuda_not_found_points_the_loader_at_usr_lib_wsl_lib():
    from smrnb.doctor._explain import explain_result

    [f] = [f for f in explain_result(WSL, similar=False).findings if f.code == "library_not_found"]
    cmds = list(f.fix.commands)
    assert any(c.startswith("export LD_LIBRARY_PATH=/usr/lib/wsl/lib:") for c in cmds)
    assert not any("apt-file search" in c or "apt-get install" in c for c in cmds)
    linux = "\n".join(line for line in WSL.splitlines() if "wsl" not in line.lower() and "libd3d12" not in line)
    plain = explain_result(linux, similar=False)  # the same failure on a plain Linux machine
    assert not any("/usr/lib/wsl" in c for f in plain.findings if f.code == "library_not_found"
                   for c in f.fix.commands)


def test_cuda_home_fixes_beside_a_cpu_torch_name_the_whole_toolkit_found():
    # (C-M6) the wrapper /usr/local/bin/nvcc gives CUDA_HOME=/usr/local (no headers); /usr/local/cuda-13.0 is whole
    from smrnb.doctor.rules import evaluate

    nvccs = [{"path": "/usr/local/bin/nvcc", "paths": ["/usr/local/bin/nvcc"], "version": "13.0",
              "toolkit_dir": "/usr/local", "has_headers": False},
             {"path": "/usr/local/cuda-13.0/bin/nvcc", "paths": ["/usr/local/cuda-13.0/bin/nvcc"], "version": "13.0",
              "toolkit_dir": "/usr/local/cuda-13.0", "has_headers": True}]
    facts = {"torch": {"status": "ok", "installed": True, "version": "2.13.0+cpu", "cuda": None},
             "toolkit": {"status": "ok", "nvccs": nvccs, "build_nvcc": "/usr/local/bin/nvcc",
                         "build_cuda_home": "/usr/local", "build_cuda_home_exists": True,
                         "build_cuda_home_has_headers": False}}
    [f] = [f for f in evaluate(facts, layers=["toolkit"]) if f.code == "cuda_home_incomplete"]
    assert any("export CUDA_HOME=/usr/local/cuda-13.0" in c for c in f.fix.commands)
    facts["toolkit"].update(cuda_home_malformed=True, cuda_home_malformed_var="CUDA_HOME",
                            cuda_home_env="/nonexistent/cuda", cuda_home_malformed_why="does not exist")
    [g] = [f for f in evaluate(facts, layers=["toolkit"]) if f.code == "cuda_home_malformed"]
    assert any("export CUDA_HOME=/usr/local/cuda-13.0" in c for c in g.fix.commands)


# --- F14: __cudaRegisterLinkedBinary_* undefined: relocatable device code without the device link -------------------

RDC = '$ python -c "import torch; print(torch.__version__)"\n2.4.0+cu121\n$ nvcc -V | tail -1\nBuild cuda_12.6.r12.6/compiler.34714021_0\n$ python -c "from torch.utils.cpp_extension import load; load(\'gridops\', [\'grid.cpp\', \'grid_kernel.cu\'], verbose=True)"\nEmitting ninja build file /home/bea/.cache/torch_extensions/py310_cu121/gridops/build.ninja...\nBuilding extension module gridops...\n[1/3] /usr/local/cuda/bin/nvcc ... -gencode=arch=compute_89,code=sm_89 -c grid_kernel.cu\n...\nImportError: /home/bea/.cache/torch_extensions/py310_cu121/gridops/gridops.so: undefined symbol: __cudaRegisterLinkedBinary_39_tmpxft_00001a2b_00000000_7_grid_kernel_cpp1_ii_3f1c2d4e\n'


def test_a_linked_binary_registration_undefined_reads_as_no_device_link():
    from smrnb.doctor._explain import explain_result

    first = explain_result(RDC, similar=False).findings[0]
    assert first.code == "extension_undefined_symbol" and "device-linked" in first.title
    assert any("dlink=True" in c for c in first.fix.commands)
    # the runtime's own registration functions keep their reading (another CUDA runtime than the build's)
    other = RDC.replace("__cudaRegisterLinkedBinary_39_tmpxft_00001a2b_00000000_7_grid_kernel_cpp1_ii_3f1c2d4e",
                        "__cudaRegisterFatBinaryEnd")
    assert "device-linked" not in explain_result(other, similar=False).findings[0].title
