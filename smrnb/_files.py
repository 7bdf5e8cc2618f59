# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Output files: checked before the work, written atomically, confined to the output folder.

* :func:`check_writable` runs before a long computation: the path is not a folder, no parent is a
  file, and the nearest existing folder accepts a new file (tried, not guessed from permission bits,
  so read-only mounts and full quotas show up too).
* :func:`atomic_write` writes a temporary file in the target's folder, flushes and fsyncs it, then
  ``os.replace``-s it over the target: a full disk or a kill mid-write leaves the previous file whole.
* :func:`confine` keeps a config's relative path inside the output folder.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._text import short

_PATH_CHARS = 120  # a path echoed in a message is cut to about this many characters


def as_path(path: Any, name: str = "path") -> Path:
    """``path`` as a :class:`Path`, refusing None, numbers and empty strings by ``name``."""
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise SmrnbTypeError(f"{name} must be a str or os.PathLike file path, got {type(path).__name__}")
    p = os.fspath(path)
    if not isinstance(p, str) or not p.strip():
        raise SmrnbValueError(f"{name} must be a non-empty file path, got {short(p, _PATH_CHARS)}")
    if "\x00" in p:
        raise SmrnbValueError(f"{name} must not contain NUL characters, got {short(p, _PATH_CHARS)}")
    return Path(p).expanduser()


def check_writable(path: Any, name: str = "path") -> Path:
    """Raise unless a file can be written at ``path`` (parents may be missing: they will be created)."""
    p = as_path(path, name)
    if p.is_dir():
        raise SmrnbValueError(f"{name} {short(str(p), _PATH_CHARS)} is a folder; give a file name inside it, e.g. "
                              f"{short(str(p / 'mesh.glb'), _PATH_CHARS)}")
    anc = p.parent
    while not anc.exists():
        if anc.parent == anc:
            break
        anc = anc.parent
    if anc.exists() and not anc.is_dir():
        raise SmrnbValueError(f"{name} {short(str(p), _PATH_CHARS)} cannot be written: {short(str(anc), _PATH_CHARS)} is a file, not a folder")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".smrnb-probe-", dir=anc)
    except OSError as exc:
        raise SmrnbValueError(f"{name} {short(str(p), _PATH_CHARS)} cannot be written: folder {short(str(anc), _PATH_CHARS)} does not accept "
                              f"new files ({exc.strerror or exc})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)
    return p


def atomic_write(path: Any, data: bytes | str, name: str = "path") -> bool:
    """Write ``data`` to ``path`` atomically; returns True when an existing file was replaced.

    The bytes go to a temporary file in the same folder, are fsync-ed, then renamed over ``path``
    (``os.replace``, atomic on POSIX and Windows). On any failure the temporary file is removed,
    the previous ``path`` is left as it was, and a :class:`SmrnbValueError` says why.
    """
    p = check_writable(path, name)
    blob = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SmrnbValueError(f"{name} {short(str(p), _PATH_CHARS)}: cannot create folder {short(str(p.parent), _PATH_CHARS)} "
                              f"({exc.strerror or exc})") from None
    existed = p.exists()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:60]}.", suffix=".tmp", dir=p.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
            fh.flush()
            os.fsync(fh.fileno())
        if existed:
            with contextlib.suppress(OSError):
                os.chmod(tmp, os.stat(p).st_mode & 0o7777)
        else:
            with contextlib.suppress(OSError):
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, p)
        tmp = None
    except OSError as exc:
        kept = "the previous file is unchanged" if existed else "nothing was written"
        raise SmrnbValueError(f"{name} {short(str(p), _PATH_CHARS)} could not be written ({exc.strerror or exc}); {kept}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    with contextlib.suppress(OSError):  # make the rename itself durable
        dfd = os.open(p.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    return existed


def confine(path: Any, root: Any, name: str = "path") -> Path:
    """``root / path`` for a relative ``path`` that stays inside ``root``; refuses absolute paths and ``..`` escapes."""
    p = as_path(path, name)
    r = Path(os.path.abspath(as_path(root, "output folder")))
    if p.is_absolute():
        raise SmrnbValueError(f"{name} {short(str(p), _PATH_CHARS)} is absolute; a config writes only inside the output folder "
                              f"{short(str(r), _PATH_CHARS)}: give a relative path (or pass --output)")
    full = Path(os.path.abspath(r / p))
    real_root = Path(os.path.realpath(r))
    real_full = Path(os.path.realpath(full))
    if not (full == r or r in full.parents) or not (real_full == real_root or real_root in real_full.parents):
        raise SmrnbValueError(f"{name} {short(str(p), _PATH_CHARS)} leads outside the output folder {short(str(r), _PATH_CHARS)}; "
                              "use a path inside it")
    return full


__all__ = ["as_path", "check_writable", "atomic_write", "confine"]
