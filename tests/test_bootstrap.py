# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``python3 -m smrnb demo|test``: the decisions of the set-up (CI runs the real thing from nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from smrnb import _bootstrap as b
from smrnb._extras import COMMAND_EXTRAS

REPO = Path(__file__).resolve().parents[1]


def test_torch_for_a_machine_without_a_driver_is_the_cpu_build():
    c = b.torch_choice(None, env={})
    assert c["requirement"] == b.TORCH_CPU and c["index"] == "https://download.pytorch.org/whl/cpu"
    assert "no NVIDIA driver" in c["why"]


def test_torch_for_a_driver_is_the_newest_build_it_can_run_and_the_override_wins():
    table = [("2.6", ["cu118", "cu124", "cu126"]), ("2.9", ["cu126", "cu128", "cu130"]), ("2.11", ["cu128", "cu130"])]
    c = b.torch_choice("13.0", env={}, table=table)
    assert c["requirement"] == "torch==2.11.*" and c["index"] == "https://download.pytorch.org/whl/cu130"
    c = b.torch_choice("12.6", env={}, table=table)  # an older driver: the newest torch with a cu126 build
    assert c["requirement"] == "torch==2.9.*" and c["index"].endswith("/cu126") and "CUDA 12.6" in c["why"]
    assert b.torch_choice("11.4", env={}, table=table)["requirement"] == b.TORCH_CPU  # too old for any
    assert b.torch_choice("13.0", env={})["index"].startswith("https://download.pytorch.org/whl/cu")  # the real table
    c = b.torch_choice(None, env={"SMRNB_TORCH": "torch==2.8.0", "SMRNB_TORCH_INDEX": "https://example.invalid/cu128"})
    assert c == {"requirement": "torch==2.8.0", "index": "https://example.invalid/cu128", "why": "SMRNB_TORCH is set"}


def test_the_driver_is_read_from_nvidia_smi_and_a_broken_one_is_none(monkeypatch):
    monkeypatch.setattr(b.shutil, "which", lambda name: "/usr/bin/nvidia-smi")

    def ok(cmd, **kw):
        return subprocess.CompletedProcess(cmd, 0, "| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   "
                                                   "CUDA Version: 13.0     |\n", "")

    def broken(cmd, **kw):
        return subprocess.CompletedProcess(cmd, 9, "NVIDIA-SMI has failed because it couldn't communicate with the "
                                                   "NVIDIA driver.\n", "")

    def hangs(cmd, **kw):
        raise subprocess.TimeoutExpired(cmd, kw.get("timeout"))

    assert b.nvidia_driver(run=ok) == "13.0"
    assert b.nvidia_driver(run=broken) is None and b.nvidia_driver(run=hangs) is None
    monkeypatch.setattr(b.shutil, "which", lambda name: None)
    assert b.nvidia_driver(run=ok) is None


def test_commands_and_extras():
    assert b.checkout_root() == REPO
    assert COMMAND_EXTRAS["demo"] == ("recon",) and set(COMMAND_EXTRAS["test"]) == {"test", "docs"}
    r = subprocess.run([sys.executable, "-m", "smrnb", "--help"], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert r.returncode == 0 and "python3 -m smrnb demo" in r.stdout and "python3 -m smrnb test" in r.stdout
    r = subprocess.run([sys.executable, "-m", "smrnb", "setup", "banana"], capture_output=True, text=True, cwd=REPO,
                       timeout=60)
    assert r.returncode == 2 and "setup takes demo, test or lab, got 'banana'" in r.stderr


def test_the_stamp_makes_a_second_set_up_install_nothing(tmp_path, monkeypatch, capsys):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    # an environment that has torch already: said outright, not read through the symlink (which resolves to
    # the base interpreter, with or without torch depending on the machine)
    monkeypatch.setattr(b, "_has", lambda py, module: True)
    monkeypatch.setenv("SMRNB_VENV", str(venv))
    calls = []
    monkeypatch.setattr(b, "_pip", lambda py, *args: calls.append(args) or 0)
    b.ensure(REPO, "demo")
    assert [c[0] for c in calls] == ["install"] and "torch" not in " ".join(calls[0])  # smrnb only
    assert calls and calls[-1][:2] == ("install", "-e") and calls[-1][2].endswith("[recon]")
    calls.clear()
    b.ensure(REPO, "demo")
    assert calls == [] and "is up to date for `demo`" in capsys.readouterr().out
    b.ensure(REPO, "lab")  # another extra: installed on top, keeping recon
    assert calls and calls[-1][2].endswith("[lab,recon]")
