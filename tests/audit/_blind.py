# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Helpers of the blind audit (``blind_*.py``): child processes of the CLIs, snapshots of a folder,
secret and control-sequence checks, a full disk, an unprivileged user, small datasets on disk.

Only public names of smrnb are used (``smrnb.X``, ``smrnb.<package>.X`` listed in ``__all__``) and
the two documented commands, ``smrnb`` and ``smr-doctor``.
"""

from __future__ import annotations

import ctypes
import hashlib
import html
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.audit._cases import (
    AuditCrash,
    AuditHang,
    AuditLost,
    AuditMisleading,
    AuditRaw,
    AuditSecret,
    AuditSilent,
    check_message,
    tmp,
)

TRACEBACK = "Traceback (most recent call last)"


# ------------------------------------------------------------------------------------------- CLIs

def _command(name: str) -> list[str]:
    """The console script ``name`` of this environment (what a user types), else its module."""
    script = Path(sys.executable).parent / name
    if script.exists():
        return [str(script)]
    module = {"smrnb": "smrnb.pipeline.cli", "smr-doctor": "smrnb.doctor.cli"}[name]
    return [sys.executable, "-m", module]


@dataclass
class Ran:
    rc: int
    out: str
    err: str
    seconds: float

    @property
    def both(self) -> str:
        return self.out + "\n" + self.err


def cli(name: str, *args: str, input: str | bytes | None = None, env: dict | None = None, timeout: float = 60.0,
        cwd: str | os.PathLike | None = None, preexec: Callable[[], None] | None = None,
        allow_signal: bool = False) -> Ran:
    """Run ``smrnb`` or ``smr-doctor`` with ``args``; a hang or a death by signal ends the case."""
    full_env = dict(os.environ)
    full_env.pop("SMRNB_AUDIT_TMP", None)
    full_env.update(env or {})
    data = input.encode() if isinstance(input, str) else input
    t0 = time.monotonic()
    proc = subprocess.Popen([*_command(name), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=full_env, cwd=cwd, preexec_fn=preexec,
                            start_new_session=True)
    try:
        out, err = proc.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AuditHang(f"{name} {' '.join(args)[:200]}: no answer within {timeout:g} s") from None
    ran = Ran(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - t0)
    if ran.rc < 0 and not allow_signal:
        raise AuditCrash(f"{name} {' '.join(args)[:200]}: killed by {signal.Signals(-ran.rc).name}\n{ran.err[-800:]}")
    return ran


def no_traceback(ran: Ran, what: str = "") -> None:
    if TRACEBACK in ran.both:
        raise AuditRaw(f"{what}: a traceback reached the user (exit {ran.rc}):\n{ran.both[-1500:]}")


def refused(ran: Ran, pattern: str, what: str) -> None:
    """A CLI refusal: non-zero exit, no traceback, a message matching ``pattern``."""
    no_traceback(ran, what)
    if ran.rc == 0:
        raise AuditSilent(f"{what}: exit 0 (accepted):\n{ran.both[-800:]}")
    if not check_message(pattern, ran.both):
        raise AuditMisleading(f"{what}: exit {ran.rc}, message does not match {pattern!r}:\n{ran.both[-800:]}")


# --------------------------------------------------------------------------------- verdict helpers

def attempt(fn: Callable[[], object]) -> tuple[object, BaseException | None]:
    """(result, None) or (None, the exception): the case checks the files first, then the error."""
    try:
        return fn(), None
    except Exception as exc:
        return None, exc


def settle(exc: BaseException | None, pattern: str | None = None, *, os_errors: bool = True,
           what: str = "") -> None:
    """Judge an error after the data checks passed.

    None passes. A SmrnbError passes when its message matches ``pattern`` (if given), else it is
    misleading. With ``os_errors``, an ``OSError`` from the file system (disk full, file too large,
    permission, read-only) names its cause and passes too. Anything else is raw.
    """
    import smrnb

    if exc is None:
        return
    if isinstance(exc, smrnb.SmrnbError):
        if pattern is None or check_message(pattern, str(exc)):
            return
        raise AuditMisleading(f"{what}: {type(exc).__name__} does not match {pattern!r}: {str(exc)[:1500]}")
    import errno

    if os_errors and isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EACCES,
                                                                 errno.EPERM, errno.EROFS, errno.EDQUOT):
        return
    raise AuditRaw(f"{what}: {type(exc).__module__}.{type(exc).__name__}: {str(exc)[:1500]}")


def either(fn: Callable[[], object], check: Callable[[object], str | None], pattern: str, what: str = "") -> None:
    """A correct result (``check`` returns None) or a SmrnbError matching ``pattern``.

    ``check`` returns a description of what is wrong with the result (then: silent). Other
    exceptions propagate (the runner reports them as raw).
    """
    import smrnb

    try:
        res = fn()
    except smrnb.SmrnbError as exc:
        if check_message(pattern, str(exc)):
            return
        raise AuditMisleading(f"{what}: {type(exc).__name__} does not match {pattern!r}: {str(exc)[:1500]}") from None
    problem = check(res)
    if problem:
        raise AuditSilent(f"{what}: accepted without an error: {problem}")


def not_a_wrong_cause(exc_or_text: BaseException | str, wrong: str, right: str | None, what: str) -> None:
    """An error that must not claim ``wrong`` (a regex) and, when given, should say ``right``."""
    import smrnb

    text = str(exc_or_text)
    if isinstance(exc_or_text, BaseException) and not isinstance(exc_or_text, smrnb.SmrnbError):
        raise AuditRaw(f"{what}: {type(exc_or_text).__name__}: {text[:1500]}")
    if re.search(wrong, text, re.I):
        raise AuditMisleading(f"{what}: the error claims {wrong!r}: {text[:1500]}")
    if right is not None and not re.search(right, text, re.I):
        raise AuditMisleading(f"{what}: the error does not say {right!r}: {text[:1500]}")


# ------------------------------------------------------------------------------------- file system

def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under ``root`` (itself included): files by content hash, links by target."""
    out: dict[str, tuple] = {}
    root = Path(root)

    def visit(p: Path) -> None:
        rel = str(p.relative_to(root)) if p != root else "."
        if p.is_symlink():
            out[rel] = ("link", os.readlink(p))
        elif p.is_dir():
            out[rel] = ("dir",)
            for q in sorted(p.iterdir()):
                visit(q)
        elif p.exists():
            out[rel] = ("file", hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_size)

    if root.exists() or root.is_symlink():
        visit(root)
    return out


def intact(before: dict, root: Path, *, may_change: Iterable[str] = (), may_appear: Iterable[str] = (),
           what: str = "") -> dict:
    """Raise AuditLost when an entry of ``before`` changed or vanished (other than ``may_change``) or
    an entry appeared that is not in ``may_appear`` (regexes over the relative path)."""
    after = snapshot(root)
    may_change, may_appear = list(may_change), list(may_appear)
    lost = [k for k, v in before.items() if after.get(k) != v and not any(re.fullmatch(m, k) for m in may_change)]
    stray = [k for k in after if k not in before and not any(re.fullmatch(m, k) for m in may_appear)]
    if lost:
        raise AuditLost(f"{what}: the user's {', '.join(lost[:6])} changed or vanished "
                        f"(before {[before[k] for k in lost[:3]]}, after {[after.get(k) for k in lost[:3]]})")
    if stray:
        raise AuditLost(f"{what}: stray entries left: {', '.join(stray[:8])}")
    return after


def user_file(path: Path, text: str | bytes = "the user's own work, not to be lost\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


_libc = ctypes.CDLL(None, use_errno=True)


def full_disk(folder: Path, free_bytes: int, prefill: dict[str, bytes] | None = None, *, fsize: bool = False) -> str:
    """Make ``folder`` a small file system with about ``free_bytes`` left, holding ``prefill`` first.

    As root: a private mount namespace (this process and its children only) with a tmpfs on
    ``folder`` filled up to ``free_bytes`` (ENOSPC, a real full disk). Elsewhere: ``RLIMIT_FSIZE``
    (EFBIG past ``free_bytes`` in any file; also with ``fsize=True``, where deleting other files must
    not make room). Child processes inherit either. Returns ``"tmpfs"`` or ``"fsize"``.
    """
    folder.mkdir(parents=True, exist_ok=True)
    prefill = prefill or {}
    mode = "fsize"
    if not fsize and os.geteuid() == 0 and _libc.unshare(0x00020000) == 0:  # CLONE_NEWNS
        ms_rec, ms_private = 16384, 1 << 18
        if _libc.mount(b"none", b"/", None, ms_rec | ms_private, None) == 0:
            size = 4 * 1024 * 1024
            if _libc.mount(b"tmpfs", str(folder).encode(), b"tmpfs", 0, f"size={size},mode=0755".encode()) == 0:
                mode = "tmpfs"
    for rel, data in prefill.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    if mode == "tmpfs":
        st = os.statvfs(folder)
        avail = st.f_bavail * st.f_frsize
        with open(folder / ".filler", "wb") as fh:  # the rest of the disk, other files
            left = avail - free_bytes
            chunk = b"\0" * (1 << 20)
            while left > 0:
                n = fh.write(chunk[: min(left, len(chunk))])
                left -= n
    else:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (free_bytes, free_bytes))
    return mode


NOBODY = 65534


def as_nobody() -> None:
    """Drop this (case) process to an unprivileged user, so permissions mean what they say; the
    case's folder (and the audit's, up to ``SMRNB_AUDIT_TMP``) stays reachable for it."""
    if os.geteuid() == 0:
        base = Path(os.environ.get("SMRNB_AUDIT_TMP") or "/tmp").resolve()
        here = tmp().resolve()
        for q in [here, *here.parents]:
            os.chmod(q, q.stat().st_mode | 0o005)
            if q == base or q == q.parent:
                break
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)


def owned_by_nobody(*paths: Path) -> None:
    if os.geteuid() == 0:
        for p in paths:
            os.chown(p, NOBODY, NOBODY)


# ------------------------------------------------------------------------------ secrets and escapes

def token(label: str, n: int = 32, alphabet: str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") -> str:
    """A deterministic random-looking string of ``n`` characters for ``label``."""
    h = hashlib.sha512(label.encode()).digest() * 4
    return "".join(alphabet[b % len(alphabet)] for b in h[:n])


def leaked(secret: str, text: str, window: int = 10) -> str | None:
    """The first run of ``window`` characters of ``secret`` found in ``text`` (None: nothing)."""
    if len(secret) <= window:
        return secret if secret in text else None
    for i in range(len(secret) - window + 1):
        part = secret[i:i + window]
        if part in text:
            return part
    return None


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")


def control_chars(text: str) -> list[str]:
    return sorted({repr(m.group()) for m in _CONTROL.finditer(text)})


def _json_strings(obj) -> Iterable[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield str(k)
            yield from _json_strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _json_strings(v)


def report_views(report) -> dict[str, str]:
    """What a user sees of a doctor Report: text, verbose text, JSON (and its decoded strings),
    markdown, the notebook's HTML (and its unescaped text), repr and summary."""
    views = {
        "text": report.to_text(),
        "text_verbose": report.to_text(verbose=True),
        "json": report.to_json(),
        "markdown": report.to_markdown(),
        "html": report._repr_html_() or "",
        "repr": repr(report),
        "summary": report.summary(),
    }
    views["json_decoded"] = "\n".join(_json_strings(json.loads(views["json"])))
    views["html_unescaped"] = html.unescape(views["html"])
    return views


def check_no_secret(views: dict[str, str], secrets: Iterable[str], what: str, *, controls: bool = True) -> None:
    for name, text in views.items():
        for s in secrets:
            part = leaked(s, text)
            if part is not None:
                i = text.find(part)
                raise AuditSecret(f"{what}: the secret ({part!r}...) appears in the {name} output: "
                                  f"...{text[max(0, i - 120):i + 60]!r}...")
        if controls and name not in ("json",):
            bad = control_chars(text.replace("\r\n", "\n") if name.startswith("json") else text)
            if bad:
                raise AuditSecret(f"{what}: raw control characters {bad} in the {name} output")


# ---------------------------------------------------------------------------------------- fixtures

def mesh_sphere(subdiv: int = 2):
    import torch
    import trimesh

    import smrnb

    tm = trimesh.creation.icosphere(subdiv)
    return smrnb.Mesh(torch.tensor(tm.vertices, dtype=torch.float32), torch.tensor(tm.faces, dtype=torch.int64))


def textured_sphere(subdiv: int = 2, tex: int = 64):
    import torch

    import smrnb

    m = mesh_sphere(subdiv)
    uv = smrnb.auto_uv(m.vertices, m.faces, chart_num=8, resolution=128)
    g = torch.Generator().manual_seed(1)
    return m.replace(uvs=uv.uvs, face_uvs_idx=uv.face_uvs_idx, texture=torch.rand(tex, tex, 3, generator=g))


def redwood_copy(n: int = 3, name: str = "redwood") -> Path:
    """The first ``n`` frames of the bundled sample as a Redwood folder (public sample_path())."""
    import shutil

    import smrnb.datasets

    src = smrnb.datasets.sample_path()
    dst = tmp() / name
    if dst.exists():
        shutil.rmtree(dst)
    (dst / "depth").mkdir(parents=True)
    (dst / "image").mkdir()
    for sub in ("depth", "image"):
        for f in sorted((src / sub).iterdir())[:n]:
            shutil.copy(f, dst / sub / f.name)
    shutil.copy(src / "camera_primesense.json", dst)
    lines = (src / "trajectory.log").read_text().splitlines()[: 5 * n]
    (dst / "trajectory.log").write_text("\n".join(lines) + "\n")
    return dst


def tiny_frames(n: int = 2, h: int = 48, w: int = 64, depth: float = 1.5):
    """``n`` synthetic frames of a flat wall ``depth`` metres away, identity-ish poses."""
    import torch

    import smrnb

    d = torch.full((n, h, w), depth, dtype=torch.float32)
    K = torch.tensor([[50.0, 0, (w - 1) / 2], [0, 50.0, (h - 1) / 2], [0, 0, 1]])
    poses = torch.eye(4).repeat(n, 1, 1)
    for i in range(n):
        poses[i, 0, 3] = 0.01 * i
    color = torch.full((n, h, w, 3), 128, dtype=torch.uint8)
    return smrnb.Frames(depth=d, K=K, color=color, poses=poses, names=[f"{i:05d}" for i in range(n)])


def sevenscenes_folder(n: int = 2, name: str = "seq-01") -> Path:
    import shutil

    import numpy as np
    from PIL import Image

    root = tmp() / "7scenes" / name
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for i in range(n):
        stem = f"frame-{i:06d}"
        Image.fromarray(np.full((48, 64), 1500, np.uint16)).save(root / f"{stem}.depth.png")
        Image.fromarray(np.full((48, 64, 3), 90, np.uint8)).save(root / f"{stem}.color.png")
        pose = np.eye(4)
        pose[0, 3] = 0.01 * i
        np.savetxt(root / f"{stem}.pose.txt", pose)
    (root / "camera-intrinsics.txt").write_text("50 0 31.5\n0 50 23.5\n0 0 1\n")  # fits the 64x48 images
    return root


CONFIG = """source: {path: sample, stride: 20, max_frames: 2}
steps:
  - step: tsdf
    params: {voxel_size: 0.05}
  - step: extract_mesh
  - step: export
    params: {path: PATH}
"""


def small_config(folder: Path, path: str = "mesh.glb", name: str = "scan.yaml", text: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    cfg = folder / name
    cfg.write_text((text or CONFIG).replace("PATH", path))
    return cfg


def glb_ok(data: bytes) -> str | None:
    """None when ``data`` is a whole GLB (header length matches, JSON chunk parses), else why not."""
    import struct

    if len(data) < 20 or data[:4] != b"glTF":
        return f"not a GLB ({len(data)} bytes, starts {data[:8]!r})"
    (_, _, length) = struct.unpack("<4sII", data[:12])
    if length != len(data):
        return f"GLB header says {length} bytes, file has {len(data)}"
    clen, ctype = struct.unpack("<II", data[12:20])
    try:
        json.loads(data[20:20 + clen])
    except ValueError as exc:
        return f"GLB JSON chunk does not parse: {exc}"
    return None


def cli_until(name: str, *args: str, marker: bytes, timeout: float = 120.0, env: dict | None = None) -> Ran | None:
    """Run a command; None as soon as ``marker`` shows on its stderr (it is then killed, with its
    process group), else its Ran once it ends. Tells whether a refusal came before the work."""
    full_env = dict(os.environ)
    full_env.pop("SMRNB_AUDIT_TMP", None)
    full_env.update(env or {})
    t0 = time.monotonic()
    proc = subprocess.Popen([*_command(name), *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=full_env, start_new_session=True)
    os.set_blocking(proc.stderr.fileno(), False)
    err = b""
    while proc.poll() is None:
        err += proc.stderr.read() or b""
        if marker in err:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None
        if time.monotonic() - t0 > timeout:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise AuditHang(f"{name} {' '.join(args)[:200]}: no answer within {timeout:g} s")
        time.sleep(0.01)
    out, rest = proc.communicate()
    err += rest or b""
    return Ran(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - t0)


def kill_at(fn: Callable[[], object], delay: float) -> int:
    """Run ``fn`` in a forked child, SIGKILL it after ``delay`` seconds (if still running); its status."""
    pid = os.fork()
    if pid == 0:
        try:
            fn()
        finally:
            os._exit(0)
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.002)
    os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]
