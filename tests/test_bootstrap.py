# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``python3 -m smrnb demo|test``: the decisions of the set-up (CI runs the real thing from nothing)."""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

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
    monkeypatch.delenv(b.WHEELS_ENV, raising=False)
    monkeypatch.setattr(b, "reach", lambda url, **kw: None)  # a registry that answers, without asking one
    monkeypatch.setattr(b, "_pip_config", lambda py: "")
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


# ------------------------------------------------------------------ the starting Python's torch

def _fake_torch(root: Path, version: str = "2.11.0+cu130", cuda: str | None = "13.0", broken: str | None = None) -> Path:
    """A package folder holding a stand-in ``torch`` (with its dist-info and one requirement, installed in a
    second folder), as a site-packages of another Python would hold the real one."""
    site, other = root / "site", root / "other"
    (site / "torch").mkdir(parents=True)
    body = (f"raise ImportError({broken!r})\n" if broken else
            f"import types\n__version__ = {version!r}\nversion = types.SimpleNamespace(cuda={cuda!r})\n")
    (site / "torch" / "__init__.py").write_text(body)
    (site / f"torch-{version.split('+')[0]}.dist-info").mkdir()
    (site / f"torch-{version.split('+')[0]}.dist-info" / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\nRequires-Dist: fakedep>=1\n"
        "Requires-Dist: optdep ; extra == 'opt'\n")
    (other / "fakedep").mkdir(parents=True)
    (other / "fakedep" / "__init__.py").write_text("")
    (other / "fakedep-1.0.dist-info").mkdir()
    (other / "fakedep-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: fakedep\nVersion: 1.0\n")
    return root


def _fake_smi(bin_dir: Path, cuda: str) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho '| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: "
                   f"{cuda}     |'\n")
    smi.chmod(0o755)


def test_the_probe_reads_another_pythons_torch_and_the_folders_it_needs(tmp_path, monkeypatch):
    root = _fake_torch(tmp_path)
    monkeypatch.setenv("PYTHONPATH", f"{root / 'site'}{os.pathsep}{root / 'other'}")
    info = b.starting_torch(sys.executable)
    assert info["version"] == "2.11.0+cu130" and info["cuda"] == "13.0", info
    assert str((root / "site").resolve()) in info["paths"] and str((root / "other").resolve()) in info["paths"]
    broken = _fake_torch(tmp_path / "b", broken="libcudart.so.13: cannot open shared object file")
    monkeypatch.setenv("PYTHONPATH", str(broken / "site"))
    info = b.starting_torch(sys.executable)
    assert "libcudart.so.13" in info["error"]
    ok, why = b.reuse_decision(info, "13.0", env={})
    assert not ok and "no working torch" in why and "libcudart" in why


def test_which_starting_torch_is_used():
    cu130 = {"version": "2.11.0+cu130", "cuda": "13.0", "python": "/opt/torch/bin/python3", "paths": ["/x"]}
    cpu = {"version": "2.13.0+cpu", "cuda": None, "paths": ["/y"]}
    assert b.reuse_decision(cu130, "13.0", env={})[0]
    assert b.reuse_decision(cu130, "13.1", env={})[0]  # a newer driver runs an older CUDA build
    ok, why = b.reuse_decision(cu130, "12.4", env={})
    assert not ok and "newer than the driver's CUDA 12.4" in why
    ok, why = b.reuse_decision(cpu, "13.0", env={})
    assert not ok and "CPU build" in why  # a GPU machine gets the GPU build
    assert b.reuse_decision(cpu, None, env={})[0] and b.reuse_decision(cu130, None, env={})[0]  # no driver: any
    assert not b.reuse_decision({**cu130, "version": "2.0.1+cu118", "cuda": "11.8"}, "13.0", env={})[0]  # too old
    assert not b.reuse_decision(cu130, "13.0", env={"SMRNB_TORCH": "torch==2.8.0"})[0]  # an explicit choice wins
    assert not b.reuse_decision(cu130, "13.0", env={b.REUSE_ENV: "0"})[0]


def _fake_venv(tmp_path: Path, monkeypatch) -> tuple[Path, Path, list]:
    """An environment whose python is this interpreter (no venv is made), whose site-packages is a temporary
    folder, and a recording pip."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    site = tmp_path / "venv-site"
    monkeypatch.setenv("SMRNB_VENV", str(venv))
    monkeypatch.setattr(b, "_site_packages", lambda py: site)
    monkeypatch.setattr(b, "inside", lambda venv: False)
    has = {"torch": False}
    monkeypatch.setattr(b, "_has", lambda py, module: has[module] if module in has else True)
    calls: list = []
    monkeypatch.setattr(b, "_pip", lambda py, *args: calls.append(args) or 0)
    return venv, site, calls


def test_a_gpu_servers_torch_and_a_wheel_folder_set_up_without_a_registry(tmp_path, monkeypatch, capsys):
    """The starting Python's CUDA torch, which this driver runs, is linked (not downloaded) and pinned; every
    other package comes from the wheel folder; no registry is asked."""
    root = _fake_torch(tmp_path / "py")
    _fake_smi(tmp_path / "bin", "13.0")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", f"{root / 'site'}{os.pathsep}{root / 'other'}")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    monkeypatch.setenv(b.WHEELS_ENV, str(wheels))
    monkeypatch.delenv("SMRNB_TORCH", raising=False)
    monkeypatch.delenv(b.REUSE_ENV, raising=False)

    def no_registry(url, **kw):
        raise AssertionError(f"a registry was asked: {url}")

    monkeypatch.setattr(b, "reach", no_registry)
    venv, site, calls = _fake_venv(tmp_path, monkeypatch)
    b.ensure(REPO, "demo")
    out = capsys.readouterr().out
    assert "the starting Python's own, torch 2.11.0+cu130" in out and "the driver (CUDA 13.0) runs" in out
    assert (site / b.LINK_PTH).read_text().split() == sorted([str((root / "other").resolve()),
                                                             str((root / "site").resolve())])
    assert (venv / b.CONSTRAINTS).read_text().strip() == "torch==2.11.0+cu130"
    assert not any(a.startswith("torch") for c in calls for a in c)  # no torch requirement went to pip
    source = ("--no-index", "--find-links", str(wheels))
    assert calls[0][:4] == ("install", *source) and "trimesh>=4.0" in calls[0] and "-c" in calls[0]
    assert calls[1] == ("install", *source, "--no-deps", "-e", f"{REPO}[recon]")
    stamp = json.loads((venv / b.STAMP).read_text())
    assert stamp["torch"]["source"] == "starting Python" and stamp["torch"]["version"] == "2.11.0+cu130"


def test_a_starting_torch_the_driver_cannot_run_is_not_used(tmp_path, monkeypatch, capsys):
    root = _fake_torch(tmp_path / "py")  # cu130
    _fake_smi(tmp_path / "bin", "12.4")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", str(root / "site"))
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    monkeypatch.setenv(b.WHEELS_ENV, str(wheels))
    monkeypatch.delenv("SMRNB_TORCH", raising=False)
    venv, site, calls = _fake_venv(tmp_path, monkeypatch)
    b.ensure(REPO, "demo")
    out = capsys.readouterr().out
    assert "built for CUDA 13.0, newer than the driver's CUDA 12.4" in out
    assert not (site / b.LINK_PTH).exists() and not (venv / b.CONSTRAINTS).exists()
    torch_call = calls[0]
    assert torch_call[:4] == ("install", "--no-index", "--find-links", str(wheels)) and torch_call[4].startswith("torch==")


class _Index(http.server.BaseHTTPRequestHandler):
    def do_HEAD(self):
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args):
        pass


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_registry_that_answers_and_one_that_does_not_are_told_apart_in_one_try():
    srv = http.server.HTTPServer(("127.0.0.1", 0), _Index)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        assert b.reach(f"http://127.0.0.1:{srv.server_address[1]}/simple") is None  # a 404 is an answer
    finally:
        srv.shutdown()
    t0 = time.monotonic()
    why = b.reach(f"http://127.0.0.1:{_closed_port()}/simple")
    assert why is not None and "refused" in why.lower() and time.monotonic() - t0 < 5
    assert b.pip_index(env={"PIP_INDEX_URL": "http://mirror/simple"}) == "http://mirror/simple"
    assert b.pip_index(env={}, config="global.index-url='http://conf/simple'\n") == "http://conf/simple"
    assert b.pip_index(env={}, config="global.extra-index-url='http://x'\n") == b.PYPI


def test_an_unreachable_registry_stops_the_set_up_at_once_naming_the_two_ways_forward(tmp_path, monkeypatch):
    monkeypatch.delenv(b.WHEELS_ENV, raising=False)
    monkeypatch.setenv(b.REUSE_ENV, "0")
    monkeypatch.delenv("SMRNB_TORCH", raising=False)
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{_closed_port()}/simple")
    monkeypatch.setattr(b, "_pip_config", lambda py: "")
    monkeypatch.setattr(b, "nvidia_driver", lambda: "13.0")
    venv, site, calls = _fake_venv(tmp_path, monkeypatch)
    monkeypatch.setattr(b, "_pip", lambda py, *args: calls.append(args) or (1 if "--no-index" in args else 0))
    t0 = time.monotonic()
    with pytest.raises(SystemExit) as exc:
        b.ensure(REPO, "demo")
    assert time.monotonic() - t0 < 10
    msg = str(exc.value)
    assert "cannot be reached" in msg and "one try" in msg and "refused" in msg.lower()
    assert f"{b.WHEELS_ENV}=" in msg and "--wheels" in msg and "pip download" in msg and '"trimesh>=4.0"' in msg
    assert "torch==2.11.*" in msg  # the wheel folder must then hold torch too
    assert "start from a Python whose torch works" in msg
    assert all("--no-index" in c for c in calls)  # no pip call went to the registry


def test_wheel_folder_option_and_variable(tmp_path, monkeypatch):
    assert b._take_option(["--output", "o", "--wheels", "/w", "--device", "cuda"], "--wheels") == (
        ["--output", "o", "--device", "cuda"], "/w")
    assert b._take_option(["--wheels=/w"], "--wheels") == ([], "/w")
    assert b.wheel_folder(env={}) is None
    assert b.wheel_folder(env={b.WHEELS_ENV: str(tmp_path)}) == tmp_path.resolve()
    with pytest.raises(SystemExit, match="must name a folder of wheels"):
        b.wheel_folder(env={b.WHEELS_ENV: str(tmp_path / "missing")})
    cmd = b.wheel_download_command(REPO, ["recon"])
    assert cmd.startswith("python3 -m pip download -d smrnb-wheels --only-binary=:all:")
    assert all(f'"{r}"' in cmd for r in ("hatchling", "editables", "trimesh>=4.0", "xatlas>=0.0.9"))
    assert "torch" not in cmd


def test_a_set_up_environment_is_recognised_without_starting_python(tmp_path):
    venv = tmp_path / "v"
    site = venv / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    assert not b._torch_in(venv)
    other = _fake_torch(tmp_path / "py")
    (site / b.LINK_PTH).write_text(f"{other / 'site'}\n{other / 'other'}\n")
    assert b._torch_in(venv)  # the starting Python's torch, linked
    (site / b.LINK_PTH).write_text(f"{tmp_path / 'gone'}\n")
    assert not b._torch_in(venv)  # that Python's torch was removed: set up again
    (site / "torch").mkdir()
    (site / "torch" / "__init__.py").write_text("")
    assert b._torch_in(venv)


def test_bytecode_goes_to_the_environment_where_none_may_be_written_beside_the_sources(tmp_path):
    venv = tmp_path / "v"
    env = b.child_env(venv, {"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/bin"})
    assert "PYTHONDONTWRITEBYTECODE" not in env and env["PYTHONPYCACHEPREFIX"] == str(venv / "pycache")
    assert b.child_env(venv, {"PATH": "/bin"}) == {"PATH": "/bin"}  # bytecode beside the sources: as it was
    mine = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/mine"}
    assert b.child_env(venv, mine) == mine  # the user's own prefix wins
    # a module imported under that environment leaves its bytecode in the prefix, none beside it
    src = tmp_path / "src"
    src.mkdir()
    (src / "probe_mod.py").write_text("X = 1\n")
    # the test's own process may run under a prefix already (`python3 -m smrnb test` where the caller set
    # PYTHONDONTWRITEBYTECODE): that one is left out here, or it would win as the user's own
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    env = b.child_env(venv, {**base, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(src)})
    subprocess.run([sys.executable, "-c", "import probe_mod"], env=env, check=True, timeout=60)
    assert not (src / "__pycache__").exists()
    assert list((venv / "pycache").rglob("probe_mod*.pyc"))


def test_command_help_is_printed_at_once_without_any_set_up(monkeypatch, capsys):
    def no_setup(*a, **k):
        raise AssertionError("the set-up ran for --help")

    monkeypatch.setattr(b, "ensure", no_setup)
    monkeypatch.setattr(b, "make_venv", no_setup)
    assert b.main(["demo", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--output" in out and "--overwrite" in out and "--device" in out and "--wheels" in out
    assert b.main(["test", "-h"]) == 0 and "python3 -m smrnb test" in capsys.readouterr().out


def test_demo_options_before_set_up_match_the_demo_parser():
    from smrnb.pipeline.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command").choices["demo"]
    flags = {o for a in sub._actions for o in a.option_strings if o.startswith("--") and o != "--help"}
    assert flags and all(f in b.DEMO_OPTIONS for f in flags), (flags, b.DEMO_OPTIONS)


def test_the_demo_run_twice_writes_a_new_folder_and_says_so(tmp_path, monkeypatch, capsys):
    import smrnb._cli

    calls = []
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SMRNB_BOOTSTRAPPED", raising=False)

    def fake_demo(argv):
        calls.append(argv)
        out = Path(argv[argv.index("--output") + 1])
        out.mkdir(exist_ok=True)
        (out / "mesh.glb").write_bytes(b"glb")
        return 0

    monkeypatch.setattr(smrnb._cli, "main", fake_demo)
    assert b.run_inside("demo", [], None) == 0
    assert b.run_inside("demo", [], None) == 0
    assert [c[c.index("--output") + 1] for c in calls] == ["out", "out-2"]
    out = capsys.readouterr().out
    assert "./out holds files already (kept); this run writes into ./out-2" in out and "open out-2/mesh.glb" in out
    assert (tmp_path / "out" / "mesh.glb").read_bytes() == b"glb"


def test_lab_as_root_allows_root_and_says_so(capsys):
    assert b.lab_args(["--port", "9000"], euid=0) == ["--port", "9000", "--allow-root"]
    assert "--allow-root" in capsys.readouterr().err
    assert b.lab_args(["--allow-root"], euid=0) == ["--allow-root"]  # given already: not twice
    assert b.lab_args(["--ServerApp.allow_root=True"], euid=0) == ["--ServerApp.allow_root=True"]
    assert b.lab_args([], euid=1000) == []


def test_setup_makes_html_exports_offline_without_replacing_a_config(tmp_path):
    path = b.offline_exports(tmp_path / "venv")
    assert path == tmp_path / "venv" / "etc" / "jupyter" / "jupyter_nbconvert_config.json"
    assert json.loads(path.read_text()) == {"HTMLExporter": {"require_js_url": "", "mathjax_url": ""}}
    path.write_text('{"HTMLExporter": {"mathjax_url": "mine"}}')
    b.offline_exports(tmp_path / "venv")
    assert "mine" in path.read_text()  # someone's own config stays
