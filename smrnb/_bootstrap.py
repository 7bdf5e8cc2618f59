# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``python3 -m smrnb demo`` / ``python3 -m smrnb test``: a fresh machine in two commands.

Run from a source checkout with any Python >= 3.10 (Debian's own, externally managed one too),
each command sets up what it needs on first use and then runs:

1. a project-local virtual environment, ``.venv`` beside ``pyproject.toml`` (``SMRNB_VENV`` moves it);
   nothing is ever installed into the Python that started the command;
2. the torch build that fits the machine (:func:`torch_choice`: a CPU build where no NVIDIA driver
   answers, PyPI's CUDA build where one does; ``SMRNB_TORCH`` overrides the requirement);
3. smrnb itself, editable, with the extras the command needs (:data:`smrnb._extras.COMMAND_EXTRAS`:
   ``demo``: ``recon``; ``test``: ``test,docs``; ``lab``: ``lab``);
4. for ``test``: Debian's ``chromium`` (the real-browser tests drive it), through apt-get when run
   as root, otherwise the command to run is printed.

A stamp file in the environment records what was installed, from which ``pyproject.toml``: a second
run installs nothing and starts at once. Then the command runs inside the environment
(``smrnb demo`` / ``python -m pytest -q``) and the next thing to try is printed. Everything here is
standard library (and smrnb's own root modules, which are too): it runs before any dependency exists. Outside a source checkout (smrnb installed
from a wheel) ``demo`` runs in the current environment and ``test`` says where the tests live.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from smrnb._extras import COMMAND_EXTRAS

#: the CPU build used where there is no NVIDIA driver (a local wheel where pip's configuration has
#: one, else the CPU index of download.pytorch.org)
TORCH_CPU = "torch==2.13.0"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
STAMP = ".smrnb-setup.json"
_TAG = "[smrnb setup]"


def say(msg: str) -> None:
    print(f"{_TAG} {msg}", flush=True)


def checkout_root() -> Path | None:
    """The source checkout this smrnb runs from (``pyproject.toml`` naming smrnb beside the package)."""
    root = Path(__file__).resolve().parent.parent
    pp = root / "pyproject.toml"
    try:
        text = pp.read_text(encoding="utf-8")
    except OSError:
        return None
    return root if 'name = "smrnb"' in text and (root / "tests").is_dir() else None


def venv_dir(root: Path) -> Path:
    return Path(os.environ.get("SMRNB_VENV") or root / ".venv").expanduser().resolve()


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def inside(venv: Path) -> bool:
    return Path(sys.prefix).resolve() == venv


def nvidia_driver(run=subprocess.run) -> str | None:
    """The CUDA version the NVIDIA driver supports (``nvidia-smi``'s "CUDA Version"), or None: no tool,
    no GPU, or a broken driver (which the doctor then explains)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        r = run([smi], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"CUDA Version:\s*([0-9]+\.[0-9]+)", r.stdout or "") if r.returncode == 0 else None
    return m.group(1) if m else None


def _vt(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def torch_table() -> list[tuple[str, list[str]]]:
    """``(torch minor, [CUDA variants])`` from the doctor's own table (``doctor/tables/torch_cuda.csv``)."""
    with open(Path(__file__).resolve().parent / "doctor" / "tables" / "torch_cuda.csv", newline="",
              encoding="utf-8") as fh:
        rows = [(r["torch"], r["variants"].split()) for r in csv.DictReader(fh)]
    return sorted(rows, key=lambda r: _vt(r[0]))


def torch_choice(driver_cuda: str | None, env: dict[str, str] | None = None,
                 table: list[tuple[str, list[str]]] | None = None) -> dict[str, object]:
    """What to install for torch: ``{"requirement", "index" (or None), "why"}``.

    ``SMRNB_TORCH`` (a requirement such as ``torch==2.8.0``) and ``SMRNB_TORCH_INDEX`` override.
    No driver: the CPU build (:data:`TORCH_CPU`), tried from pip's own configuration first (a local
    wheel or mirror) and from :data:`TORCH_CPU_INDEX` otherwise. A driver supporting CUDA X.Y: the
    newest torch in the doctor's table with a CUDA build <= X.Y, from that build's PyTorch index
    (PyPI's default CUDA build may need a newer driver than the machine has).
    """
    env = os.environ if env is None else env
    if env.get("SMRNB_TORCH"):
        return {"requirement": env["SMRNB_TORCH"], "index": env.get("SMRNB_TORCH_INDEX") or None,
                "why": "SMRNB_TORCH is set"}
    cpu = {"requirement": TORCH_CPU, "index": TORCH_CPU_INDEX}
    if driver_cuda is None:
        return {**cpu, "why": "no NVIDIA driver answers (nvidia-smi): the CPU build"}
    drv = _vt(driver_cuda)[:2]
    for minor, variants in reversed(table if table is not None else torch_table()):
        runnable = [v for v in variants if v.startswith("cu") and v[2:].isdigit()
                    and (int(v[2:-1]), int(v[-1])) <= drv]
        if runnable:
            best = max(runnable, key=lambda v: (int(v[2:-1]), int(v[-1])))
            return {"requirement": f"torch=={minor}.*", "index": f"https://download.pytorch.org/whl/{best}",
                    "why": f"NVIDIA driver for CUDA {driver_cuda}: torch {minor} built for CUDA "
                           f"{best[2:-1]}.{best[-1]} ({best})"}
    return {**cpu, "why": f"the driver's CUDA {driver_cuda} is older than every CUDA build of torch: the CPU build"}


def _pip(py: Path, *args: str) -> int:
    cmd = [str(py), "-m", "pip", "--disable-pip-version-check", *args]
    say("$ " + " ".join(cmd[2:]))
    return subprocess.call(cmd)


def _has(py: Path, module: str) -> bool:
    r = subprocess.run([str(py), "-c", f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"],
                       capture_output=True, timeout=120)
    return r.returncode == 0


def _stamp(venv: Path) -> dict:
    try:
        return json.loads((venv / STAMP).read_text())
    except (OSError, ValueError):
        return {}


def _pyproject_hash(root: Path) -> str:
    return hashlib.sha256((root / "pyproject.toml").read_bytes()).hexdigest()[:16]


def make_venv(venv: Path) -> Path:
    py = venv_python(venv)
    if py.exists():
        return py
    say(f"creating the project's virtual environment {venv} (nothing goes into {sys.executable})")
    r = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
    if r.returncode != 0 and "ensurepip" in (r.stdout + r.stderr) and _can_apt():
        pkg = f"python3.{sys.version_info.minor}-venv"
        say(f"this Python has no ensurepip: installing Debian's {pkg}")
        _apt(pkg)
        shutil.rmtree(venv, ignore_errors=True)
        r = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(venv, ignore_errors=True)
        raise SystemExit(f"{_TAG} could not create {venv}: {(r.stderr or r.stdout).strip()[-600:]}\n"
                         f"{_TAG} on Debian/Ubuntu: sudo apt-get install python3-venv, then run this again")
    return py


def _can_apt() -> bool:
    return shutil.which("apt-get") is not None and hasattr(os, "geteuid") and os.geteuid() == 0


def _apt(*pkgs: str) -> int:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    say("$ apt-get install -y --no-install-recommends " + " ".join(pkgs))
    subprocess.call(["apt-get", "update", "-qq"], env=env)
    return subprocess.call(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *pkgs], env=env)


def ensure(root: Path, command: str) -> Path:
    """Set up ``.venv`` for ``command`` (idempotent); returns the environment's Python."""
    venv = venv_dir(root)
    want = set(COMMAND_EXTRAS[command])
    py = make_venv(venv)
    stamp = _stamp(venv)
    pp_hash = _pyproject_hash(root)
    same_project = stamp.get("pyproject") == pp_hash
    fresh = same_project and want <= set(stamp.get("extras", []))
    steps = ["torch", f"smrnb[{','.join(sorted(want))}]"] + (["chromium"] if command == "test" else [])
    if fresh and _has(py, "torch"):
        say(f"{venv} is up to date for `{command}` ({', '.join(steps)})")
    else:
        n = len(steps)
        if _has(py, "torch"):
            say(f"1/{n} torch: already in {venv}")
        else:
            choice = torch_choice(nvidia_driver())
            say(f"1/{n} torch: {choice['requirement']} ({choice['why']})")
            req = str(choice["requirement"])
            # a wheel that pip's own configuration finds without an index (a local file or mirror) first;
            # then its dependencies the usual way
            local = choice["index"] is not None and _pip(py, "install", "--no-index", "--no-deps", req) == 0
            extra = [] if local or not choice["index"] else \
                ["--index-url", str(choice["index"]), "--extra-index-url", "https://pypi.org/simple"]
            if _pip(py, "install", req, *extra) != 0:
                raise SystemExit(f"{_TAG} could not install {req}; set SMRNB_TORCH (and SMRNB_TORCH_INDEX) to "
                                 "the torch build for this machine and run this again")
        extras = sorted(want | set(stamp.get("extras", [])) if same_project else want)
        say(f"2/{n} smrnb (editable) with the extras {', '.join(extras)}")
        if _pip(py, "install", "-e", f"{root}[{','.join(extras)}]") != 0:
            raise SystemExit(f"{_TAG} pip could not install smrnb[{','.join(extras)}] (see above)")
        (venv / STAMP).write_text(json.dumps({"extras": extras, "pyproject": pp_hash}))
    if command == "test":
        ensure_chromium(len(steps))
    return py


def ensure_chromium(n: int) -> None:
    if shutil.which("chromium") or shutil.which("chromium-browser"):
        say(f"{n}/{n} chromium: {shutil.which('chromium') or shutil.which('chromium-browser')}")
        return
    if _can_apt():
        say(f"{n}/{n} chromium: installing Debian's chromium for the real-browser tests")
        if _apt("chromium", "fonts-dejavu-core") == 0:
            return
    say(f"{n}/{n} chromium is missing: the real-browser tests will fail. As root: "
        "apt-get install -y chromium fonts-dejavu-core")


NEXT = {
    "demo": ("next: open {output}/mesh.glb in any glTF viewer (Blender, the three.js editor), then try "
             "`python3 -m smrnb lab` for the teaching notebooks or `python3 -m smrnb test` for the tests"),
    "test": "next: `python3 -m smrnb demo`, or `python3 -m smrnb lab` to open the teaching notebooks",
    "lab": "",
}


def run_inside(command: str, args: list[str], root: Path | None) -> int:
    """Run ``command`` in this (already set-up) environment."""
    if command == "demo":
        from smrnb._cli import main as smrnb_main

        if not any(a == "--output" or a.startswith("--output=") for a in args):
            args = [*args, "--output", "out"]
        rc = smrnb_main(["demo", *args])
        out = next((a.split("=", 1)[1] for a in args if a.startswith("--output=")), None) or \
            args[args.index("--output") + 1]
        if rc == 0:
            print(NEXT["demo"].format(output=out), flush=True)
        return rc
    if command == "test":
        if root is None:
            print("smrnb: the tests live in the source checkout: clone it and run `python3 -m smrnb test` there",
                  file=sys.stderr)
            return 2
        rc = subprocess.call([sys.executable, "-m", "pytest", "-q", *args], cwd=root)
        print(NEXT["test"], flush=True)
        return rc
    if command == "lab":
        notebooks = str(root / "notebooks") if root is not None else "."
        return subprocess.call([sys.executable, "-m", "jupyter", "lab", notebooks, *args])
    raise AssertionError(command)


USAGE = """usage: python3 -m smrnb demo [--output DIR] [smrnb demo options]   # sample -> textured GLB
       python3 -m smrnb test [pytest options]                         # the test suite
       python3 -m smrnb lab                                           # JupyterLab on the notebooks
       python3 -m smrnb setup [demo|test|lab]                         # set up only
       python3 -m smrnb COMMAND ...                                   # any other `smrnb` command
In a source checkout each sets up .venv (torch for this machine, smrnb and its extras; chromium for
the tests) on first use, then runs inside it."""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    command, args = argv[0], argv[1:]
    if command not in ("demo", "test", "lab", "setup"):  # any other smrnb command, in this environment
        from smrnb._cli import main as smrnb_main

        return smrnb_main(argv)
    root = checkout_root()
    target = (args[0] if args else "test") if command == "setup" else command
    if target not in COMMAND_EXTRAS:
        print(f"smrnb: setup takes demo, test or lab, got {target!r}", file=sys.stderr)
        return 2
    if root is None:  # an installed smrnb: use the environment as it is
        return 0 if command == "setup" else run_inside(command, args, None)
    venv = venv_dir(root)
    if not inside(venv):
        py = ensure(root, target)
        if command == "setup":
            say(f"done: {py}")
            return 0
        os.environ["SMRNB_BOOTSTRAPPED"] = "1"
        return subprocess.call([str(py), "-m", "smrnb", command, *args], cwd=os.getcwd())
    if os.environ.get("SMRNB_BOOTSTRAPPED") != "1":  # started with .venv's own Python: still check it
        ensure(root, target)
    return 0 if command == "setup" else run_inside(command, args, root)


__all__ = ["TORCH_CPU", "checkout_root", "ensure", "main", "nvidia_driver", "torch_choice"]
