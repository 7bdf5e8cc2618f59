# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``python3 -m smrnb demo`` / ``python3 -m smrnb test``: a fresh machine in two commands.

Run from a source checkout with any Python >= 3.10 (Debian's own, externally managed one too),
each command sets up what it needs on first use and then runs:

1. a project-local virtual environment, ``.venv`` beside ``pyproject.toml`` (``SMRNB_VENV`` moves it);
   nothing is ever installed into the Python that started the command;
2. torch: the starting Python's own torch when it imports, this machine's driver runs its CUDA build and
   it satisfies smrnb's requirement (:func:`reuse_decision`; the environment links to it, nothing is
   downloaded and smrnb never changes it), else the build that fits the machine (:func:`torch_choice`: a
   CPU build where no NVIDIA driver answers, a CUDA build the driver runs where one does;
   ``SMRNB_TORCH`` overrides the requirement);
3. smrnb itself, editable, with the extras the command needs (:data:`smrnb._extras.COMMAND_EXTRAS`:
   ``demo``: ``recon``; ``test``: ``test,docs``; ``lab``: ``lab``);
4. for ``test``: Debian's ``chromium`` (the real-browser tests drive it), through apt-get when run
   as root, otherwise the command to run is printed.

Where no package registry can be reached (offline compute nodes), a folder of wheels stands in for it
(``SMRNB_WHEELS=DIR`` or ``--wheels DIR``: pip's ``--no-index --find-links DIR``). Before pip first
reaches for a registry, one request to it tells whether it answers; when it does not, the set-up stops
at once and names the two ways forward (a wheel folder, or a Python whose torch works here).

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
import platform
import re
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from smrnb._extras import COMMAND_EXTRAS
from smrnb._files import DEMO_OUTPUT, default_output_folder

#: the CPU build used where there is no NVIDIA driver (a local wheel where pip's configuration has
#: one, else the CPU index of download.pytorch.org)
TORCH_CPU = "torch==2.13.0"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
STAMP = ".smrnb-setup.json"
#: the oldest torch smrnb's ``recon`` extra accepts (pyproject.toml: ``torch>=2.1``)
TORCH_MIN = (2, 1)
#: a folder of wheels that stands in for the package registry (also ``--wheels DIR``)
WHEELS_ENV = "SMRNB_WHEELS"
#: ``0`` never uses the starting Python's torch (install one into the environment instead)
REUSE_ENV = "SMRNB_REUSE_TORCH"
#: the file in the environment that puts the starting Python's torch on its path, and pip's constraint
#: that keeps that torch as it is
LINK_PTH = "_smrnb_starting_torch.pth"
CONSTRAINTS = "smrnb-constraints.txt"
PYPI = "https://pypi.org/simple"
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


#: run by the starting Python: does its torch import, which build is it, and which folders hold it and
#: the packages it needs (printed as one JSON line; never raises)
_PROBE = r"""
import json, re, sys
try:
    import torch
except BaseException as exc:
    print(json.dumps({"error": (type(exc).__name__ + ": " + str(exc))[:400]}))
    raise SystemExit(0)
from importlib import metadata
from pathlib import Path
dirs, seen, todo = {str(Path(torch.__file__).resolve().parent.parent)}, set(), ["torch"]
while todo:
    name = todo.pop()
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in seen:
        continue
    seen.add(key)
    try:
        dist = metadata.distribution(name)
    except Exception:
        continue
    try:
        dirs.add(str(Path(dist.locate_file("")).resolve()))
    except Exception:
        pass
    for req in dist.requires or ():
        if "extra ==" in req.replace("extra==", "extra =="):
            continue
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        if m:
            todo.append(m.group(1))
print(json.dumps({"version": torch.__version__, "cuda": torch.version.cuda, "file": torch.__file__,
                  "python": sys.executable, "paths": sorted(dirs)}))
"""


def starting_torch(python: str | None = None, run=subprocess.run, timeout: float = 180) -> dict:
    """What the starting Python's torch is, read in a child process of ``python`` (default: this one):
    ``{"version", "cuda" (None for a CPU build), "file", "paths"}`` (the folders holding torch and the
    packages it needs), or ``{"error": why}`` when torch is missing, fails to import or the probe fails."""
    try:
        r = run([python or sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        return {"error": f"the probe could not run: {type(exc).__name__}: {exc}"[:400]}
    line = next((ln for ln in reversed((r.stdout or "").splitlines()) if ln.startswith("{")), None)
    try:
        info = json.loads(line) if line else None
    except ValueError:
        info = None
    if not isinstance(info, dict):
        return {"error": f"the probe failed (exit {r.returncode}): {(r.stderr or r.stdout or '').strip()[-300:]}"}
    return info


def reuse_decision(info: dict, driver_cuda: str | None, env: dict[str, str] | None = None) -> tuple[bool, str]:
    """Whether the project environment uses the starting Python's torch (``info`` from
    :func:`starting_torch`), and why. It does when that torch imports, satisfies smrnb's requirement
    (>= :data:`TORCH_MIN`) and, where an NVIDIA driver answers, is a CUDA build for a CUDA version the
    driver supports (a CPU build on a GPU machine is not used: the GPU build is installed instead).
    ``SMRNB_TORCH`` (an explicit choice) and ``SMRNB_REUSE_TORCH=0`` turn it off."""
    blocked = _reuse_blocked(os.environ if env is None else env)
    if blocked:
        return False, blocked
    if "error" in info:
        return False, f"the starting Python has no working torch ({info['error'][:200]})"
    version = str(info.get("version", ""))
    if _vt(version)[:2] < TORCH_MIN:
        return False, (f"the starting Python's torch {version} is older than smrnb needs "
                       f"(>= {'.'.join(map(str, TORCH_MIN))})")
    cuda = info.get("cuda")
    where = f"torch {version} of {info.get('python') or 'the starting Python'}"
    if driver_cuda is None:
        return True, f"{where} ({'CUDA ' + cuda + ' build' if cuda else 'CPU build'}; no NVIDIA driver answers)"
    if not cuda:
        return False, f"{where} is a CPU build and an NVIDIA driver for CUDA {driver_cuda} answers"
    if _vt(cuda)[:2] > _vt(driver_cuda)[:2]:
        return False, f"{where} is built for CUDA {cuda}, newer than the driver's CUDA {driver_cuda}"
    return True, f"{where}, built for CUDA {cuda}, which the driver (CUDA {driver_cuda}) runs"


def _reuse_blocked(env: dict[str, str] | os._Environ) -> str | None:
    """Why the starting Python's torch is not even looked at (an explicit choice), or None."""
    if env.get("SMRNB_TORCH"):
        return "SMRNB_TORCH is set"
    if env.get(REUSE_ENV, "").strip().lower() in ("0", "no", "false", "off"):
        return f"{REUSE_ENV}={env[REUSE_ENV]}"
    return None


def _site_packages(py: Path) -> Path:
    r = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not r.stdout.strip():
        raise SystemExit(f"{_TAG} could not ask {py} for its site-packages: {(r.stderr or '').strip()[-300:]}")
    return Path(r.stdout.strip())


def link_torch(py: Path, venv: Path, info: dict) -> None:
    """Put the starting Python's torch (and the packages it needs) on the environment's path, after the
    environment's own packages (a ``.pth`` file), and pin it for pip (a constraint file), so that no
    install into the environment ever replaces or upgrades it. Nothing of the starting Python changes."""
    site = _site_packages(py)
    site.mkdir(parents=True, exist_ok=True)
    (site / LINK_PTH).write_text("".join(f"{p}\n" for p in info["paths"]), encoding="utf-8")
    (venv / CONSTRAINTS).write_text(f"torch=={info['version']}\n", encoding="utf-8")


def wheel_folder(env: dict[str, str] | None = None) -> Path | None:
    """The folder of wheels standing in for the package registry (``SMRNB_WHEELS``), or None."""
    env = os.environ if env is None else env
    value = env.get(WHEELS_ENV, "").strip()
    if not value:
        return None
    path = Path(value).expanduser().resolve()
    if not path.is_dir():
        raise SystemExit(f"{_TAG} {WHEELS_ENV} (or --wheels) must name a folder of wheels, got {value!r} "
                         f"({'not a folder' if path.exists() else 'not found'})")
    return path


def pip_index(env: dict[str, str] | None = None, config: str | None = None) -> str:
    """The index URL pip will use: ``PIP_INDEX_URL``, else ``index-url`` from pip's configuration
    (``config``: the output of ``pip config list``), else PyPI."""
    env = os.environ if env is None else env
    if env.get("PIP_INDEX_URL"):
        return env["PIP_INDEX_URL"]
    for line in (config or "").splitlines():
        key, _, value = line.partition("=")
        if key.strip().endswith("index-url") and not key.strip().endswith("extra-index-url") and value.strip():
            return value.strip().strip("'\"")
    return PYPI


def _pip_config(py: Path) -> str:
    try:
        r = subprocess.run([str(py), "-m", "pip", "config", "list"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    return r.stdout if r.returncode == 0 else ""


def _pip_proxy(config: str) -> str | None:
    for line in config.splitlines():
        key, _, value = line.partition("=")
        if key.strip().endswith(".proxy") and value.strip():
            return value.strip().strip("'\"")
    return None


def reach(url: str, timeout: float = 6.0, proxy: str | None = None, opener=None) -> str | None:
    """One request to ``url``: None when something answers (any HTTP status, or a TLS handshake that
    fails on certificates: pip may trust others), else why it cannot be reached (no name resolution,
    connection refused or timed out, no route). Proxies come from the environment, or ``proxy``."""
    if opener is None:
        handlers = [urllib.request.ProxyHandler({"http": proxy, "https": proxy})] if proxy else []
        opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(urllib.request.Request(url.rstrip("/") + "/pip/", method="HEAD"), timeout=timeout):
            return None
    except urllib.error.HTTPError:  # an answer, whatever its status
        return None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, ssl.SSLError) or not isinstance(reason, OSError):
            return None  # the host answered (certificates are pip's business), or a URL this check cannot try
        return f"{type(reason).__name__}: {reason}"[:200]
    except OSError as exc:  # a timeout while reading, a reset connection
        return f"{type(exc).__name__}: {exc}"[:200]
    except ValueError:
        return None


def wheel_download_command(root: Path, extras: list[str], with_torch: str | None = None) -> str:
    """The ``pip download`` command that fills a wheel folder for this Python and machine with what
    ``smrnb[extras]`` needs (and the build backend), to run where a registry answers."""
    reqs = ["hatchling", "editables"] + _requirements(root, extras)  # the build backend, for an editable install
    if with_torch:
        reqs.insert(0, with_torch)
    pyver = f"{sys.version_info.major}.{sys.version_info.minor}"
    machine = platform.machine() or "x86_64"
    plats = " ".join(f"--platform {p}_{machine}" for p in ("manylinux2014", "manylinux_2_28", "manylinux_2_34")) \
        if sys.platform.startswith("linux") else ""
    quoted = " ".join(f'"{r}"' for r in reqs)
    return (f"python3 -m pip download -d smrnb-wheels --only-binary=:all: --python-version {pyver} "
            f"--implementation cp {plats} {quoted}").replace("  ", " ")


def _requirements(root: Path, extras: list[str]) -> list[str]:
    """smrnb's own requirements plus those of ``extras`` (following ``smrnb[...]`` references), read
    from ``pyproject.toml``; torch left out (it comes from the starting Python or its own step)."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")

    def block(name: str) -> list[str]:
        m = re.search(rf"(?m)^{re.escape(name)}\s*=\s*\[(.*?)^\]", text, re.S)
        return re.findall(r'"([^"]+)"', m.group(1)) if m else []

    out, todo, seen = block("dependencies"), list(extras), set()
    while todo:
        extra = todo.pop(0)
        if extra in seen:
            continue
        seen.add(extra)
        for req in block(extra):
            inner = re.fullmatch(r"smrnb\[([^\]]+)\]", req)
            if inner:
                todo.extend(x.strip() for x in inner.group(1).split(","))
            elif not re.match(r"torch\b", req) and req not in out:
                out.append(req)
    return out


def offline_message(root: Path, index: str, why: str, extras: list[str], torch_needed: str | None) -> str:
    """Why set-up stops when the registry cannot be reached, and the two ways forward."""
    cmd = wheel_download_command(root, extras, torch_needed)
    return "\n".join([
        f"{_TAG} the package registry {index} cannot be reached from this machine ({why}; one try, "
        "no retries); nothing was downloaded. Two ways forward:",
        f"{_TAG}   1. a folder of wheels instead of the registry: where a registry answers, run",
        f"{_TAG}        {cmd}",
        f"{_TAG}      copy smrnb-wheels/ here, then: {WHEELS_ENV}=/path/to/smrnb-wheels python3 -m smrnb "
        f"{'demo' if extras == ['recon'] else 'setup'}   (or --wheels /path/to/smrnb-wheels)",
        f"{_TAG}   2. start from a Python whose torch works on this machine (e.g. the cluster's PyTorch module or "
        "container): smrnb's environment uses that torch as it is, so only the small packages above are needed "
        "(from the wheel folder, or a mirror named by PIP_INDEX_URL)",
    ])


def _pip(py: Path, *args: str) -> int:
    cmd = [str(py), "-m", "pip", "--disable-pip-version-check", *args]
    say("$ " + " ".join(cmd[2:]))
    return subprocess.call(cmd)


def _has(py: Path, module: str) -> bool:
    r = subprocess.run([str(py), "-c", f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"],
                       capture_output=True, timeout=120)
    return r.returncode == 0


def _torch_in(venv: Path) -> bool:
    """torch is in the environment's site-packages, or in a folder its link file names (a file check:
    no interpreter started, so a set-up environment starts the command at once)."""
    for site in [*venv.glob("lib/python*/site-packages"), venv / "Lib" / "site-packages"]:
        if (site / "torch" / "__init__.py").is_file():
            return True
        try:
            linked = (site / LINK_PTH).read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        if any(p.strip() and (Path(p.strip()) / "torch" / "__init__.py").is_file() for p in linked):
            return True
    return False


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


class _Registry:
    """Asks once per set-up whether an index answers (:func:`reach`), and stops with the two ways
    forward (:func:`offline_message`) when it does not."""

    def __init__(self, root: Path, py: Path, extras: list[str]) -> None:
        self.root, self.py, self.extras = root, py, extras
        self.checked: set[str] = set()
        self.torch_needed: str | None = None
        self._config: str | None = None

    def config(self) -> str:
        if self._config is None:
            self._config = _pip_config(self.py)
        return self._config

    def require(self, index: str | None = None) -> None:
        url = index or pip_index(config=self.config())
        if url in self.checked:
            return
        why = reach(url, proxy=_pip_proxy(self.config()))
        if why is not None:
            raise SystemExit(offline_message(self.root, url, why, self.extras, self.torch_needed))
        self.checked.add(url)


def _install_torch(py: Path, venv: Path, n: int, wheels: Path | None, registry: _Registry) -> dict:
    """Step 1: torch for the environment. Returns what the stamp records about it."""
    driver = nvidia_driver()
    reuse, why = (False, "")
    info: dict = {}
    if not inside(venv):
        blocked = _reuse_blocked(os.environ)
        if blocked:
            why = blocked
        else:
            info = starting_torch()
            reuse, why = reuse_decision(info, driver)
    if reuse:
        say(f"1/{n} torch: the starting Python's own, {why}; nothing to download, and smrnb never changes it "
            f"(linked from {info['paths'][0]})")
        link_torch(py, venv, info)
        return {"source": "starting Python", "version": info["version"], "cuda": info.get("cuda"),
                "paths": info["paths"]}
    choice = torch_choice(driver)
    req = str(choice["requirement"])
    say(f"1/{n} torch: {req} ({choice['why']})" + (f"; not the starting Python's: {why}" if why else ""))
    if wheels is not None:
        if _pip(py, "install", "--no-index", "--find-links", str(wheels), req) != 0:
            raise SystemExit(f"{_TAG} {req} is not in the wheel folder {wheels} (see pip's message above): add its "
                             f"wheel (and its dependencies), or start from a Python whose torch works here")
        return {"source": "wheels", "requirement": req}
    # a wheel that pip's own configuration finds without an index (a local file or mirror) first;
    # then from the registry, once it is known to answer
    if choice["index"] is not None and _pip(py, "install", "--no-index", "--no-deps", req) == 0:
        extra: list[str] = []
    else:
        registry.torch_needed = req
        registry.require()
        extra = []
        if choice["index"]:
            registry.require(str(choice["index"]))
            extra = ["--index-url", str(choice["index"]), "--extra-index-url", pip_index(config=registry.config())]
    if _pip(py, "install", req, *extra) != 0:
        raise SystemExit(f"{_TAG} could not install {req}; set SMRNB_TORCH (and SMRNB_TORCH_INDEX) to the torch "
                         "build for this machine, or start from a Python whose torch works here, and run this again")
    return {"source": "installed", "requirement": req}


def ensure(root: Path, command: str) -> Path:
    """Set up ``.venv`` for ``command`` (idempotent); returns the environment's Python."""
    venv = venv_dir(root)
    want = set(COMMAND_EXTRAS[command])
    wheels = wheel_folder()
    py = make_venv(venv)
    stamp = _stamp(venv)
    pp_hash = _pyproject_hash(root)
    same_project = stamp.get("pyproject") == pp_hash
    fresh = same_project and want <= set(stamp.get("extras", []))
    steps = ["torch", f"smrnb[{','.join(sorted(want))}]"] + (["chromium"] if command == "test" else [])
    if fresh and (_torch_in(venv) or _has(py, "torch")):
        say(f"{venv} is up to date for `{command}` ({', '.join(steps)})")
    else:
        n = len(steps)
        extras = sorted(want | set(stamp.get("extras", [])) if same_project else want)
        registry = _Registry(root, py, extras)
        if wheels is not None:
            say(f"packages come from the wheel folder {wheels} (no registry is asked)")
        torch_rec = stamp.get("torch") if same_project else None
        if _has(py, "torch"):
            say(f"1/{n} torch: already in {venv}" + (" (the starting Python's, linked)"
                                                     if (venv / CONSTRAINTS).exists() else ""))
        else:
            torch_rec = _install_torch(py, venv, n, wheels, registry)
        say(f"2/{n} smrnb (editable) with the extras {', '.join(extras)}")
        source = ["--no-index", "--find-links", str(wheels)] if wheels is not None else []
        if wheels is None:
            registry.require()
        where = f" from the wheel folder {wheels} (a wheel it needs is missing there?)" if wheels else ""
        if (venv / CONSTRAINTS).exists():
            # the starting Python's torch: smrnb's other requirements first, then smrnb itself without
            # dependencies, so that pip never re-resolves (or "repairs") that torch and what it needs
            reqs = _requirements(root, extras)
            if _pip(py, "install", *source, "-c", str(venv / CONSTRAINTS), *reqs) != 0:
                raise SystemExit(f"{_TAG} pip could not install what smrnb[{','.join(extras)}] needs{where} (see above)")
            rc = _pip(py, "install", *source, "--no-deps", "-e", f"{root}[{','.join(extras)}]")
        else:
            rc = _pip(py, "install", *source, "-e", f"{root}[{','.join(extras)}]")
        if rc != 0:
            raise SystemExit(f"{_TAG} pip could not install smrnb[{','.join(extras)}]{where} (see above)")
        (venv / STAMP).write_text(json.dumps({"extras": extras, "pyproject": pp_hash, "torch": torch_rec}))
        precompile(py, venv)
    offline_exports(venv)
    if command == "test":
        ensure_chromium(len(steps))
    return py


#: ``jupyter nbconvert --to html`` run from this environment loads nothing from the network: its default
#: template adds require.js (for widget views, which smrnb's exports do not store) and MathJax (the notebooks
#: have no formulas) from a CDN; a script whose ``src`` is empty fetches nothing
NBCONVERT_OFFLINE = {"HTMLExporter": {"require_js_url": "", "mathjax_url": ""}}


def offline_exports(venv: Path) -> Path:
    """Write :data:`NBCONVERT_OFFLINE` as ``venv``'s own nbconvert config (``etc/jupyter`` of the environment
    this set-up made), unless a config is there already; returns its path."""
    path = venv / "etc" / "jupyter" / "jupyter_nbconvert_config.json"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(NBCONVERT_OFFLINE, indent=1) + "\n")
    return path


#: what a demo imports, byte-compiled once at set-up where bytecode goes to the environment's own cache
_PRECOMPILE = ("torch", "numpy", "scipy.ndimage", "scipy.spatial", "PIL.Image", "yaml", "tqdm.auto", "trimesh",
               "fast_simplification", "xatlas", "smrnb.pipeline.cli", "smrnb.geometry", "smrnb.datasets")


def child_env(venv: Path, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of the command run inside ``venv``. Where ``PYTHONDONTWRITEBYTECODE`` is set (images
    often set it; nothing may be written beside the sources) and no ``PYTHONPYCACHEPREFIX`` is, bytecode
    goes to the environment's own ``pycache`` folder instead: without any cached bytecode every process
    compiles the modules it imports from source again (a second or more for torch alone). Nothing is
    written beside any source file, the starting Python's included."""
    env = dict(os.environ if environ is None else environ)
    if env.get("PYTHONDONTWRITEBYTECODE") and not env.get("PYTHONPYCACHEPREFIX"):
        env.pop("PYTHONDONTWRITEBYTECODE")
        env["PYTHONPYCACHEPREFIX"] = str(venv / "pycache")
    return env


def precompile(py: Path, venv: Path) -> None:
    """Where :func:`child_env` moves bytecode into the environment, compile what a demo imports now (once,
    at set-up), so the first command does not pay for it."""
    env = child_env(venv)
    if env.get("PYTHONPYCACHEPREFIX") != str(venv / "pycache"):
        return
    say(f"byte-compiling what the demo imports into {venv / 'pycache'} (PYTHONDONTWRITEBYTECODE is set: nothing "
        "is written beside the sources)")
    code = ("import importlib, sys\nfor m in sys.argv[1:]:\n    try:\n        importlib.import_module(m)\n"
            "    except ImportError:\n        pass\n")
    try:
        subprocess.run([str(py), "-c", code, *_PRECOMPILE], env=env, capture_output=True, timeout=600)
    except (OSError, subprocess.SubprocessError):  # only a speed-up: the command compiles what it imports
        pass


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
            folder, note = default_output_folder(DEMO_OUTPUT)  # an earlier result is never replaced
            if note:
                print(f"smrnb demo: {note}", flush=True)
            args = [*args, "--output", os.fspath(folder)]
        rc = smrnb_main(["demo", *args])
        out = next((a.split("=", 1)[1] for a in args if a.startswith("--output=")), None) or \
            args[args.index("--output") + 1]
        if rc == 0:
            print(NEXT["demo"].format(output=out), flush=True)
        if os.environ.get("SMRNB_BOOTSTRAPPED") == "1":
            # the launcher's child, whose files are written and closed: leave without tearing down CUDA,
            # torch's thread pools and the UV helper one by one (measured 0.4-0.5 s on an H200 server; the
            # helper exits by itself when its pipe closes)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)
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
        return subprocess.call([sys.executable, "-m", "jupyter", "lab", notebooks, *lab_args(args)])
    raise AssertionError(command)


def lab_args(args: list[str], euid: int | None = None) -> list[str]:
    """``jupyter lab``'s arguments: as root (a container, a Binder-like image) ``--allow-root`` is added, said
    once on stderr; JupyterLab would otherwise exit with "Running as root is not recommended"."""
    if euid is None:
        euid = os.geteuid() if hasattr(os, "geteuid") else -1
    if euid == 0 and not any(a.split("=")[0] in ("--allow-root", "--ServerApp.allow_root") for a in args):
        print(f"{_TAG} running as root (a container?): starting JupyterLab with --allow-root", file=sys.stderr)
        return [*args, "--allow-root"]
    return list(args)


USAGE = """usage: python3 -m smrnb demo [--output DIR] [smrnb demo options]   # sample -> textured GLB
       python3 -m smrnb test [pytest options]                         # the test suite
       python3 -m smrnb lab                                           # JupyterLab on the notebooks
       python3 -m smrnb setup [demo|test|lab]                         # set up only
       python3 -m smrnb COMMAND ...                                   # any other `smrnb` command
In a source checkout each sets up .venv (torch for this machine, smrnb and its extras; chromium for
the tests) on first use, then runs inside it. The starting Python's torch is used when it works here
(SMRNB_REUSE_TORCH=0: never); --wheels DIR (or SMRNB_WHEELS=DIR) installs from a folder of wheels
instead of a package registry (offline machines)."""


#: the demo's options, for `python3 -m smrnb demo --help` before the set-up (the full help needs torch)
DEMO_OPTIONS = """smrnb demo options (`smrnb demo --help` inside .venv gives the full help):
  --output DIR    output folder (default: ./out, or ./out-2, -3, ... when ./out holds files already)
  --device DEV    cpu (default) or cuda
  --overwrite     replace the files the demo writes in --output DIR if they exist (default: refuse)
  --wheels DIR    set-up only: install from a folder of wheels (offline machines)"""


def _help(command: str) -> int:
    """``python3 -m smrnb COMMAND --help`` at once, without setting anything up."""
    if command == "demo":
        from smrnb._cli import main as smrnb_main

        try:
            smrnb_main(["demo", "--help"])  # argparse prints the demo's help and exits; a return: not installed yet
        except SystemExit:
            print("set-up option of `python3 -m smrnb demo`:\n  --wheels DIR    install from a folder of wheels "
                  "(offline machines)")
            return 0
        except Exception:  # torch or another dependency is not installed yet: the summary below
            pass
        print(USAGE + "\n\n" + DEMO_OPTIONS)
        return 0
    print(USAGE)
    return 0


def _call(cmd: list[str], **kwargs) -> int:
    """Run the command in the environment and wait: a Ctrl-C reaches it (one process group) and it says
    what it kept; this process waits for it instead of dying with a traceback."""
    proc = subprocess.Popen(cmd, **kwargs)
    old = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        return proc.wait()
    finally:
        signal.signal(signal.SIGINT, old)


def _take_option(args: list[str], name: str) -> tuple[list[str], str | None]:
    """``args`` without ``name VALUE`` / ``name=VALUE`` (the set-up's own options), and its value."""
    rest, value, i = [], None, 0
    while i < len(args):
        a = args[i]
        if a == name:
            if i + 1 >= len(args):
                raise SystemExit(f"smrnb: {name} needs a value (a folder of wheels)")
            value, i = args[i + 1], i + 2
            continue
        if a.startswith(name + "="):
            value = a.split("=", 1)[1]
        else:
            rest.append(a)
        i += 1
    return rest, value


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    os.environ.setdefault("SMRNB_STARTED", repr(time.time()))  # the demo reports the whole command's time
    command, args = argv[0], argv[1:]
    if command in ("demo", "test", "lab", "setup") and any(a in ("-h", "--help") for a in args):
        return _help(command)
    try:
        return _main(command, args, argv)
    except KeyboardInterrupt:
        print(f"smrnb {command}: interrupted (Ctrl-C) while starting; nothing was written (a set-up of .venv is "
              "recorded only once complete: run the command again to finish it)", file=sys.stderr, flush=True)
        return 130


def _main(command: str, args: list[str], argv: list[str]) -> int:
    if command in ("demo", "test", "lab", "setup"):
        args, wheels = _take_option(args, "--wheels")
        if wheels is not None:
            os.environ[WHEELS_ENV] = wheels
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
        return _call([str(py), "-m", "smrnb", command, *args], cwd=os.getcwd(), env=child_env(venv))
    if os.environ.get("SMRNB_BOOTSTRAPPED") != "1":  # started with .venv's own Python: still check it
        ensure(root, target)
    return 0 if command == "setup" else run_inside(command, args, root)


__all__ = ["TORCH_CPU", "checkout_root", "ensure", "link_torch", "main", "nvidia_driver", "reach",
           "reuse_decision", "starting_torch", "torch_choice", "wheel_folder"]
