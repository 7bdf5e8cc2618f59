# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audits 36 C and 37 D: what the live doctor still said wrong (session 38b).

* C-L3: ``--package six`` (pure Python) was ``could_not_look``, though the doctor did look.
* C-L8: the exception hook named ``[cudart_not_found]`` first while ``%smr_doctor --explain-last`` said
  ``prebuilt_binary_wrong_cuda``: the hook read the text alone, explain-last with this machine's facts.
* C-L12: the live ``cpu_only_torch_with_gpu`` fix began "This torch (or the library the text names)".
* C-L5: ``fix kernelspec`` run twice made ``python3-smrnb``, then ``python3-smrnb-smrnb``.
* D-F13: live, this machine's container decided a reading of a text that shows none, and the text's own evidence
  ("the GPU worked before the kernel update") was lost; the machine's facts that decided were not shown.
* nvidia-smi's exit status 9: one sentence for the probe's reason and the rule's title.

From the user's side: the CLI in a subprocess, the public API, IPython's magics with a fake machine.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from smrnb.doctor import explain
from smrnb.doctor._codes import CODES, why
from smrnb.doctor.rules import evaluate

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "smrnb.doctor.cli"]
CUDART_11 = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"

#: audit 37 D's t10: a bare-metal host after a kernel update (no container, no job in the text)
T10 = """After a kernel update (6.5.0-35 -> 6.8.0-31) and reboot:
$ nvidia-smi
NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.
$ lsmod | grep nvidia
$ dkms status
nvidia/550.67, 6.5.0-35-generic, x86_64: installed
$ python -c "import torch; print(torch.cuda.is_available())"
False
"""

#: a CPU-only container with a CUDA 13 nvcc (the audit's machine)
CONTAINER_CUDA13 = {
    "driver": {"status": "absent", "driver_version": None, "cuda_driver_version": None, "gpus": [],
               "reason": "no NVIDIA driver: NVML does not load and nvidia-smi is not on PATH"},
    "torch": {"status": "ok", "installed": True, "version": "2.13.0+cpu", "version_base": "2.13.0", "cuda": None,
              "hip": None, "cxx11_abi": True},
    "toolkit": {"status": "ok", "nvccs": [{"path": "/usr/local/bin/nvcc", "version": "13.0",
                                           "paths": ["/usr/local/bin/nvcc"], "toolkit_dir": "/usr/local",
                                           "has_headers": False}],
                "build_nvcc": "/usr/local/bin/nvcc", "build_nvcc_version": "13.0", "build_cuda_home": "/usr/local",
                "build_cuda_home_has_headers": False, "gcc": "12.2.0"},
    "context": {"status": "ok", "container": "docker", "slurm": None, "python_version": "3.11.7"},
    "loader": {"status": "ok", "changed_since_start": {}},
    "abi": {"status": "ok", "torch_cxx11_abi": True},
}
#: a GPU server whose torch is CUDA 11.8's (libcudart.so.11.0 is its own CUDA major)
SERVER_CUDA11 = {
    "driver": {"status": "ok", "driver_version": "535.104.05", "cuda_driver_version": "12.2",
               "gpus": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "compute_capability": "8.0"}]},
    "torch": {"status": "ok", "installed": True, "version": "2.1.0+cu118", "version_base": "2.1.0", "cuda": "11.8",
              "hip": None, "cxx11_abi": False},
    "toolkit": {"status": "ok", "nvccs": [], "build_nvcc": None},
    "context": {"status": "ok", "container": None, "slurm": None, "python_version": "3.11.7"},
    "loader": {"status": "ok", "changed_since_start": {}},
}


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def _json(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict]:
    p = _cli(*args, "--json", env=env)
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else {})


# ------------------------------------------------------------------ C-L3: a pure-Python distribution
def _pure_python_dist() -> str:
    for name in ("six", "pip", "packaging", "idna"):
        try:
            files = md.distribution(name).files or []
        except md.PackageNotFoundError:
            continue
        if files and not any(str(f).endswith((".so", ".pyd")) for f in files):
            return name
    pytest.skip("no pure-Python distribution with a RECORD is installed here")


@pytest.mark.parametrize("layers", [("loader", "abi"), ("abi",), ("loader",)])
def test_a_pure_python_package_is_said_to_have_no_compiled_module_not_could_not_look(layers):
    name = _pure_python_dist()
    rc, d = _json("--package", name, *[a for ly in layers for a in ("--layer", ly)])
    assert rc == 0, d
    codes = [f["code"] for f in d["findings"]]
    assert "could_not_look" not in codes, d["findings"]
    f = next(f for f in d["findings"] if f["code"] == "package_no_compiled_module")
    assert f["severity"] == "info" and f["layer"] == layers[0] and name in f["title"]
    assert codes.count("package_no_compiled_module") == 1  # once, under the first layer asked for
    assert CODES["package_no_compiled_module"].severity == "info"


def test_a_package_that_is_not_installed_keeps_its_usage_error():
    p = _cli("--package", "no-such-dist-xyz-38b", "--layer", "loader")
    assert p.returncode == 2 and "no installed distribution named 'no-such-dist-xyz-38b'" in p.stderr


# ------------------------------------------------------------------ C-L8: the hook and --explain-last, one order
IPython = pytest.importorskip("IPython")


@pytest.fixture()
def ip(monkeypatch, tmp_path):
    from IPython.testing.globalipapp import start_ipython

    from smrnb.doctor._magics import SmrnbEnvironmentWarning
    from smrnb.doctor._model import read_proc_environ

    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SMRNB_NO_EXCEPTION_HOOK", raising=False)
    start = read_proc_environ() or {}
    for var in ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH"):
        if var in start:
            monkeypatch.setenv(var, start[var])
        else:
            monkeypatch.delenv(var, raising=False)
    shell = start_ipython() or IPython.get_ipython()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmrnbEnvironmentWarning)
        shell.run_line_magic("load_ext", "smrnb")
    yield shell
    shell.run_line_magic("unload_ext", "smrnb")


@pytest.mark.parametrize("facts, first", [(CONTAINER_CUDA13, "prebuilt_binary_wrong_cuda"),
                                          (SERVER_CUDA11, "cudart_not_found")])
def test_the_hook_and_explain_last_name_the_same_cause_first(ip, capsys, machine, facts, first):
    """The rules decide between the two by the library's CUDA major against this environment's. The hook never
    probes; once --explain-last has looked at this machine, the hook ranks the next such error with those facts,
    so both put the same code first. Before that it ranks by the text and names the other reading."""
    machine(facts)
    ip.run_cell(f"raise OSError({CUDART_11.split(': ', 1)[1]!r})")
    before = next(ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("smrnb doctor: ["))
    assert before.startswith("smrnb doctor: [cudart_not_found]") and "(or [prebuilt_binary_wrong_cuda]" in before
    assert "this machine's facts decide" in before
    rep = ip.run_line_magic("smr_doctor", "--explain-last --timeout 2")
    ip.run_cell(f"raise OSError({CUDART_11.split(': ', 1)[1]!r})")
    line = next(ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("smrnb doctor: ["))
    hook_codes = [c.split("]", 1)[0] for c in line.split("[")[1:]]
    assert rep.codes[0] == first and hook_codes[0] == first, (line, rep.codes)
    likely = rep.codes[:int(rep.meta["matched"])]
    assert hook_codes == likely[:len(hook_codes)], (line, likely)
    assert line.endswith("Details and fix: %smr_doctor --explain-last")


def test_the_hook_never_probes_the_machine(ip, capsys, monkeypatch):
    """The hook runs at every traceback: it reads the text (and facts already seen), never the machine, for an
    error it knows as for one it does not."""
    import smrnb.doctor as doctor

    def no_probe(*a, **k):
        raise AssertionError("the hook probed the machine")
    monkeypatch.setattr(doctor, "collect", no_probe)
    ip.run_cell("raise RuntimeError('the frobnicator gave up')")
    assert "smrnb doctor:" not in capsys.readouterr().err
    ip.run_cell(f"raise OSError({CUDART_11.split(': ', 1)[1]!r})")
    assert "smrnb doctor: [cudart_not_found]" in capsys.readouterr().err


# ------------------------------------------------------------------ C-L12: live words in a live report
_H100_SMI = r"""#!/bin/sh
for a in "$@"; do case "$a" in --query-gpu=*) q="${a#--query-gpu=}";; esac; done
[ -z "$q" ] && { echo "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |"; exit 0; }
out=""
for f in $(echo "$q" | tr ',' ' '); do
  case "$f" in
    name) v="NVIDIA H100 80GB HBM3";; driver_version) v="550.54.15";; compute_cap) v="9.0";;
    memory.total) v="81559 MiB";; uuid) v="GPU-12345678-1234-1234-1234-123456789abc";; index) v=0;; *) v="[N/A]";;
  esac
  out="${out:+$out, }$v"
done
echo "$out"
"""


def _machine_words_codes() -> list[str]:
    return [c for c, e in CODES.items() if getattr(e, "machine_fix", "")]


def test_a_live_cpu_torch_on_a_gpu_machine_is_worded_without_a_text(tmp_path):
    """The CLI with a fake H100 nvidia-smi and the CPU-only torch installed here: no "the text" anywhere."""
    try:
        ver = md.version("torch")
    except md.PackageNotFoundError:
        pytest.skip("torch is not installed here")
    if "+cpu" not in ver:
        pytest.skip(f"the installed torch {ver} is not a CPU-only build")
    (tmp_path / "nvidia-smi").write_text(_H100_SMI)
    (tmp_path / "nvidia-smi").chmod(0o755)
    env = {"PATH": f"{tmp_path}:{os.environ['PATH']}"}
    rc, d = _json("--layer", "driver", "--layer", "torch", env=env)
    f = next(f for f in d["findings"] if f["code"] == "cpu_only_torch_with_gpu")
    assert f["fix"]["why"].startswith("This torch is a CPU-only build"), f["fix"]
    text = _cli("--layer", "driver", "--layer", "torch", env=env).stdout
    assert "[cpu_only_torch_with_gpu]" in text and "the text" not in text, text


@pytest.mark.parametrize("code", _machine_words_codes())
def test_each_code_with_live_words_never_says_the_text_where_no_text_was_given(code):
    """Every code whose table fix speaks of a text has words for a live report, and they say no "the text"."""
    assert "the text" in CODES[code].fix and "the text" not in CODES[code].machine_fix
    assert why(code, machine=True) == CODES[code].machine_fix and why(code) == CODES[code].fix


def test_live_facts_give_the_live_words_and_a_text_keeps_its_own():
    gpu = {"status": "ok", "driver_version": "550.54.15", "cuda_driver_version": "12.4",
           "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}]}
    torch = {"status": "ok", "installed": True, "version": "2.4.1+cpu", "version_base": "2.4.1", "cuda": None}
    live = next(f for f in evaluate({"driver": gpu, "torch": torch}) if f.code == "cpu_only_torch_with_gpu")
    assert "the text" not in live.fix.why and live.fix.why.startswith(CODES["cpu_only_torch_with_gpu"].machine_fix)
    text = explain("torch 2.4.1+cpu\nAssertionError: Torch not compiled with CUDA enabled", live=False)
    f = next(f for f in text.findings if f.code == "cpu_only_torch_with_gpu")
    assert f.fix.why.startswith(CODES["cpu_only_torch_with_gpu"].fix)


def test_no_live_rule_emits_a_code_whose_table_fix_speaks_of_a_text_without_live_words():
    """Static scan: a code built with ``Finding("code", ...)`` in a live rule (``@rule``) whose table fix says "the
    text" has ``machine_fix`` (the rule asks ``why(code, ..., machine=...)``)."""
    import ast

    missing = []
    for py in (ROOT / "smrnb" / "doctor" / "rules").glob("*.py"):
        tree = ast.parse(py.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not (isinstance(fn, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and getattr(d.func, "id", None) == "rule" for d in fn.decorator_list)):
                continue
            for n in ast.walk(fn):
                if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Finding" and n.args and isinstance(
                        n.args[0], ast.Constant) and n.args[0].value in CODES:
                    e = CODES[n.args[0].value]
                    if "the text" in e.fix and not getattr(e, "machine_fix", ""):
                        missing.append(f"{py.name}:{n.lineno} {n.args[0].value}")
    assert not missing, missing


# ------------------------------------------------------------------ C-L5: fix kernelspec twice
def _specs(tmp_path: Path) -> list[str]:
    return sorted(os.listdir(tmp_path / "kernels"))


def test_fix_kernelspec_twice_finds_its_own_spec_current_and_rewrites_it_in_place(tmp_path):
    env = {"JUPYTER_DATA_DIR": str(tmp_path), "HOME": str(tmp_path)}
    first = _cli("fix", "kernelspec", env=env)
    assert first.returncode == 0 and first.stdout.startswith("Wrote "), first.stderr
    [name] = _specs(tmp_path)
    before = (tmp_path / "kernels" / name / "kernel.json").read_text()
    again = _cli("fix", "kernelspec", env=env)
    assert again.returncode == 0 and again.stdout.startswith("Current: "), (again.stdout[:300], again.stderr)
    assert _specs(tmp_path) == [name] and (tmp_path / "kernels" / name / "kernel.json").read_text() == before
    changed = _cli("fix", "kernelspec", env={**env, "LD_LIBRARY_PATH": "/opt/lib-for-kernel-38b"})
    assert changed.returncode == 0 and changed.stdout.startswith("Wrote "), changed.stderr
    assert _specs(tmp_path) == [name]  # rewritten in place: no third name
    kj = json.loads((tmp_path / "kernels" / name / "kernel.json").read_text())
    assert kj["env"]["LD_LIBRARY_PATH"] == "/opt/lib-for-kernel-38b"
    backups = list((tmp_path / "smrnb-kernelspec-backups").iterdir())
    assert len(backups) == 1 and (backups[0] / "kernel.json").read_text() == before


def test_fix_kernelspec_never_takes_a_users_own_spec_or_another_pythons_for_its_own(tmp_path):
    env = {"JUPYTER_DATA_DIR": str(tmp_path), "HOME": str(tmp_path)}
    mine = tmp_path / "kernels" / "python3-smrnb"
    mine.mkdir(parents=True)
    users = json.dumps({"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                        "display_name": "mine", "language": "python", "env": {"MY_SETTING": "1"}})
    (mine / "kernel.json").write_text(users)
    other = tmp_path / "kernels" / "other-smrnb"
    other.mkdir()
    others = json.dumps({"argv": ["/opt/other/bin/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                         "display_name": "x", "language": "python",
                         "metadata": {"smrnb": {"written_by": "smr-doctor fix kernelspec", "vars": []}}})
    (other / "kernel.json").write_text(others)
    p = _cli("fix", "kernelspec", env=env)
    assert p.returncode == 0 and p.stdout.startswith("Wrote "), p.stderr
    assert (mine / "kernel.json").read_text() == users and (other / "kernel.json").read_text() == others
    assert len(_specs(tmp_path)) == 3


# ------------------------------------------------------------------ D-F13: the text's evidence against this machine's
def test_this_machines_container_does_not_replace_the_texts_own_evidence(machine):
    machine(CONTAINER_CUDA13)
    rep = explain(T10)
    first = rep.findings[0]
    assert first.code == "driver_broken", rep.codes
    assert any(e.startswith("decided by: the GPU worked before the kernel update") for e in first.evidence), first
    for f in rep.findings:
        assert not any("the process runs in a container" in e for e in f.evidence), f
    # offline, the same evidence (it never came from the machine)
    off = explain(T10, live=False).findings[0]
    assert off.code == "driver_broken" and [e for e in off.evidence if e.startswith("decided by")] == \
        [e for e in first.evidence if e.startswith("decided by")]


def test_a_reading_this_machine_decided_says_which_facts_came_from_the_machine(machine):
    machine(CONTAINER_CUDA13)
    rep = explain(CUDART_11)
    f = rep.findings[0]
    assert f.code == "prebuilt_binary_wrong_cuda" and "machine" in f.sources
    text = rep.to_text()
    assert "decided by: the library is of CUDA 11; this environment has CUDA 13" in text
    assert "from this machine: toolkit.nvccs = 13.0" in text, text

def test_a_reading_the_text_alone_decides_the_same_way_keeps_no_line_of_this_machines_facts(machine):
    machine(SERVER_CUDA11)  # no container, no job: the text's own evidence decides, as offline
    f = explain(T10).findings[0]
    assert f.code == "driver_broken" and any(e.startswith("decided by: the GPU worked before") for e in f.evidence)
    assert not [e for e in f.evidence if e.startswith("from this machine: ")], f.evidence


# ------------------------------------------------------------------ nvidia-smi's exit status 9: one sentence
def test_the_exit_9_reason_and_the_driver_findings_title_are_one_sentence(tmp_path):
    (tmp_path / "nvidia-smi").write_text("#!/bin/sh\nexit 9\n")
    (tmp_path / "nvidia-smi").chmod(0o755)
    rc, d = _json("--layer", "driver", env={"PATH": f"{tmp_path}:{os.environ['PATH']}"})
    f = next(f for f in d["findings"] if f["code"] == "driver_broken")
    assert d["facts"]["driver"]["exit_status_only"] is True
    assert f["title"] == d["facts"]["driver"]["reason"] and "'NVIDIA driver is not loaded'" in f["title"]
