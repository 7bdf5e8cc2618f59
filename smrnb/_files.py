# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Output files, the one home of "may I write here": checked before the work, written whole and
swapped in as a unit, never over what is in the way.

Before a long computation (``smrnb run``, ``smrnb demo``, ``smrnb batch``, :func:`smrnb.export_mesh`):

* :func:`check_writable`: a file can be written at the path: it is not a folder, no parent is a file,
  and the nearest existing folder accepts a new file (tried, not guessed from permission bits, so
  read-only mounts and full quotas show up too);
* :func:`check_new_file`: the same, and an existing file is refused unless the caller may replace it;
* :func:`check_folder`: a folder exists or can be made there (a file of that name is refused);
* :func:`check_free_space`: the file system has room for an estimate of what will be written.

Writing:

* :func:`atomic_write` writes a temporary file beside the target, flushes and fsyncs it, then
  ``os.replace``-s it over the target: a full disk, an error or a kill mid-write leaves the previous
  file whole;
* :func:`atomic_write_set` does that for files that belong together (OBJ + MTL + PNG): every file is
  staged first, and only when all are complete are they renamed into place, back to back; a failure
  while staging leaves every previous file as it was;
* inside :func:`no_clobber`, both publish a file only where none exists (a hard link, which fails
  when the name is taken), so two commands writing into one folder never replace each other's files;
* temporary files carry the writer's host and process id, so one left by a killed writer is removed
  by the next write to the same target.

Reading: :func:`check_input` names what is wrong with a path before a reader opens it (missing,
a symlink loop, no permission, a folder where a file is expected, empty).
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import hashlib
import os
import re
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from smrnb._errors import SmrnbTypeError, SmrnbValueError, format_bytes
from smrnb._text import short

_PATH_CHARS = 120  # a path echoed in a message is cut to about this many characters
#: the demo's folder when no --output is given (``python3 -m smrnb demo`` and ``smrnb demo``): ./out, or
#: ./out-2, -3, ... once ./out holds files (:func:`default_output_folder`)
DEMO_OUTPUT = "out"
_NO_CLOBBER: contextvars.ContextVar[bool] = contextvars.ContextVar("smrnb_no_clobber", default=False)


def _s(p: Any) -> str:
    return short(os.fspath(p), _PATH_CHARS)


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


def path_state(p: Path) -> str:
    """What is at ``p``: ``missing``, ``file``, ``folder``, ``other`` (a device, a socket), ``loop``
    (a symlink cycle), ``denied`` (a parent folder may not be searched) or ``not-a-folder`` (a parent
    is a file)."""
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return {errno.ELOOP: "loop", errno.EACCES: "denied", errno.EPERM: "denied",
                errno.ENOTDIR: "not-a-folder", errno.ENAMETOOLONG: "too-long"}.get(exc.errno, "missing")
    if stat.S_ISDIR(st.st_mode):
        return "folder"
    return "file" if stat.S_ISREG(st.st_mode) else "other"


def check_input(path: Any, name: str = "path", kind: str = "file", *, empty_ok: bool = False,
                what: str = "file") -> Path:
    """``path`` as a readable ``kind`` ("file" or "folder"), or a :class:`SmrnbValueError` naming why not:
    it does not exist, it is a symlink loop, permission is denied, it is the other kind, or (a file) it is
    empty. ``what`` names the file expected ("mesh file"). Returns the path."""
    p = as_path(path, name)
    state = path_state(p)
    where = f"{name} {_s(p)}"
    if state == "loop":
        raise SmrnbValueError(f"{where} is a symbolic link that leads back to itself (a symlink loop); "
                              "point it at a real file")
    if state == "denied":
        raise SmrnbValueError(f"{where} cannot be reached: permission denied on a folder above it")
    if state == "not-a-folder":
        raise SmrnbValueError(f"{where} does not exist: a part of the path above it is a file, not a folder")
    if state == "too-long":
        raise SmrnbValueError(f"{where}: the path is too long for this file system")
    if state == "missing":
        raise SmrnbValueError(f"{where} does not exist" + (" (a symbolic link to a missing file)"
                                                          if os.path.islink(p) else ""))
    if kind == "folder":
        if state != "folder":
            raise SmrnbValueError(f"{where} is not a folder (it is a file)")
        if not os.access(p, os.R_OK | os.X_OK):
            raise SmrnbValueError(f"{where}: permission denied (the folder may not be read)")
        return p
    if state == "folder":
        raise SmrnbValueError(f"{name} must be a {what}, got the folder {_s(p)}")
    if state == "other":
        raise SmrnbValueError(f"{where} must be a regular file, got a device, socket or pipe")
    if not os.access(p, os.R_OK):
        raise SmrnbValueError(f"{where}: permission denied (the file may not be read)")
    if not empty_ok and os.path.getsize(p) == 0:
        raise SmrnbValueError(f"{where} is empty (0 bytes): was it copied or downloaded completely?")
    return p


def _nearest_existing(p: Path, name: str) -> Path:
    """The nearest existing ancestor folder of ``p``; refuses a file, a loop or a denied folder on the way."""
    anc = p.parent
    while True:
        state = path_state(anc)
        if state == "folder":
            return anc
        if state in ("file", "other", "not-a-folder"):
            raise SmrnbValueError(f"{name} {_s(p)} cannot be written: {_s(anc)} is a file, not a folder")
        if state in ("loop", "denied"):
            why = "a symlink loop" if state == "loop" else "a folder that may not be searched (permission denied)"
            raise SmrnbValueError(f"{name} {_s(p)} cannot be written: {_s(anc)} is {why}")
        if anc.parent == anc:
            return anc
        anc = anc.parent


def _probe(folder: Path, p: Path, name: str) -> None:
    try:
        fd, tmp = tempfile.mkstemp(prefix=".smrnb-probe-", dir=folder)
    except OSError as exc:
        raise SmrnbValueError(f"{name} {_s(p)} cannot be written: folder {_s(folder)} does not accept "
                              f"new files ({exc.strerror or exc})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def check_writable(path: Any, name: str = "path") -> Path:
    """Raise unless a file can be written at ``path`` (parents may be missing: they will be created)."""
    p = as_path(path, name)
    state = path_state(p)
    if state == "folder":
        raise SmrnbValueError(f"{name} {_s(p)} is a folder; give a file name inside it, e.g. {_s(p / 'mesh.glb')}")
    if state == "loop":
        raise SmrnbValueError(f"{name} {_s(p)} is a symbolic link that leads back to itself (a symlink loop)")
    if state == "other":
        raise SmrnbValueError(f"{name} {_s(p)} is a device, socket or pipe, not a file")
    _probe(_nearest_existing(p, name), p, name)
    return p


def check_new_file(path: Any, name: str = "path", *, overwrite: bool = False) -> Path:
    """:func:`check_writable`, and an existing file is refused unless ``overwrite``."""
    p = check_writable(path, name)
    if not overwrite and (p.exists() or p.is_symlink()):
        raise SmrnbValueError(f"{name} {_s(p)} exists; pass --overwrite to replace it (it is replaced "
                              "atomically, only once the new file is complete)")
    return p


def check_folder(path: Any, name: str = "output") -> Path:
    """Raise unless ``path`` is a folder that accepts new files, or one can be made there."""
    p = as_path(path, name)
    state = path_state(p)
    if state in ("file", "other"):
        raise SmrnbValueError(f"{name} {_s(p)} is a file, not a folder; give a folder (it is made if missing)")
    if state == "loop":
        raise SmrnbValueError(f"{name} {_s(p)} is a symbolic link that leads back to itself (a symlink loop)")
    if state == "folder":
        _probe(p, p / "x", name)
        return p
    _probe(_nearest_existing(p / "x", name), p, name)
    return p


def free_bytes(path: Any) -> int | None:
    """Bytes free for this user on the file system that holds ``path`` (its nearest existing folder), or None."""
    p = Path(os.path.abspath(as_path(path)))
    while not p.exists() and p.parent != p:
        p = p.parent
    try:
        return shutil.disk_usage(p).free
    except OSError:
        return None


def check_free_space(path: Any, need: int, name: str = "output") -> None:
    """Refuse before the work when the file system holding ``path`` has less than ``need`` bytes free."""
    free = free_bytes(path)
    if free is not None and need > free:
        raise SmrnbValueError(f"{name} {_s(path)}: about {format_bytes(need)} will be written there but only "
                              f"{format_bytes(free)} is free on that file system; free some space or choose "
                              "another folder")


@contextlib.contextmanager
def no_clobber() -> Iterator[None]:
    """Inside, :func:`atomic_write` and :func:`atomic_write_set` refuse to replace a file that exists
    when they publish (not only when the work started): another writer's file is never replaced."""
    token = _NO_CLOBBER.set(True)
    try:
        yield
    finally:
        _NO_CLOBBER.reset(token)


_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]
_TMP_RX = re.compile(r"\.(?P<name>.+)\.(?P<host>[0-9a-f]{6})-(?P<pid>\d+)-[a-z0-9_]+\.(?:tmp|old)")


def _tmp_prefix(p: Path) -> str:
    return f".{p.name[:60]}.{_HOST}-{os.getpid()}-"


def _sweep_stale(p: Path) -> None:
    """Remove temporary files of ``p`` left by writers of this host that are no longer running."""
    try:
        names = os.listdir(p.parent)
    except OSError:
        return
    for n in names:
        m = _TMP_RX.fullmatch(n)
        if not m or m["name"] != p.name[:60] or m["host"] != _HOST:
            continue
        pid = int(m["pid"])
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                os.unlink(p.parent / n)
        except OSError:
            pass


def _stage(p: Path, blob: bytes) -> str:
    """``blob`` in a fsync-ed temporary file beside ``p`` (mode of the file it replaces, else the umask's)."""
    fd, tmp = tempfile.mkstemp(prefix=_tmp_prefix(p), suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            mode = os.stat(p).st_mode & 0o7777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _publish(tmp: str, p: Path, replace: bool) -> None:
    """Move the staged ``tmp`` to ``p``: ``os.replace``, or where nothing may be replaced a hard link
    (atomic, fails when ``p`` exists) and the temporary name removed."""
    if replace:
        os.replace(tmp, p)
        return
    try:
        os.link(tmp, p)
    except FileExistsError:
        raise
    except OSError as exc:  # a file system without hard links: check, then rename (a small race)
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(p):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fspath(p)) from None
        os.replace(tmp, p)
        return
    os.unlink(tmp)


def _hold_old(p: Path) -> str | None:
    """A second name (hard link) for the file at ``p`` while a set is swapped in: the rename over ``p`` then
    only changes a directory entry (freeing the old file inside the rename costs a file-system journal wait,
    milliseconds on a busy disk, in which a kill would find the set half-replaced), and the set can be put
    back if a later rename fails. None where there is no plain file or no hard links."""
    if p.is_symlink() or not p.is_file():
        return None
    name = os.fspath(p.parent / f"{_tmp_prefix(p)}{os.urandom(4).hex()}.old")
    try:
        os.link(p, name)
    except OSError:
        return None
    return name


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):  # make the renames themselves durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _blob(data: bytes | str) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def atomic_write(path: Any, data: bytes | str, name: str = "path", *, replace: bool | None = None) -> bool:
    """Write ``data`` to ``path`` atomically; returns True when an existing file was replaced.

    The bytes go to a temporary file in the same folder, are fsync-ed, then renamed over ``path``
    (``os.replace``, atomic on POSIX and Windows). On any failure the temporary file is removed,
    the previous ``path`` is left as it was, and a :class:`SmrnbValueError` says why. With
    ``replace=False`` (the default inside :func:`no_clobber`) an existing ``path`` is never replaced.
    """
    return bool(atomic_write_set([(path, data)], name, replace=replace))


def atomic_write_set(items: Sequence[tuple[Any, bytes | str]], name: str = "path", *,
                     replace: bool | None = None) -> list[str]:
    """Write files that belong together (``[(path, data), ...]``) as one unit; returns those replaced.

    Every file is staged complete (written and fsync-ed beside its target) before the first one is
    renamed into place; the renames follow back to back, the first item last (a reader that opens the
    main file finds its side files new already), each replaced file held under a second name meanwhile (so
    a rename is only a directory change, microseconds, and a failed one puts the set back). A failure while
    staging (full disk, quota, a kill) leaves every previous file whole and removes the staged ones; a
    killed writer's leftovers are removed by the next write. With ``replace=False`` (default
    inside :func:`no_clobber`), an existing target is refused and the files already published by this
    call are removed again.
    """
    replace = (not _NO_CLOBBER.get()) if replace is None else bool(replace)
    paths = [check_writable(p, name) for p, _ in items]
    blobs = [_blob(d) for _, d in items]
    for p in paths:
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SmrnbValueError(f"{name} {_s(p)}: cannot create folder {_s(p.parent)} ({exc.strerror or exc})") from None
        _sweep_stale(p)
    existed = [p.exists() for p in paths]
    if not replace:
        taken = [p for p, e in zip(paths, existed) if e or p.is_symlink()]
        if taken:
            raise SmrnbValueError(f"{name} {_s(taken[0])} exists; it is not replaced (pass --overwrite to replace it)")
    staged: list[str | None] = []
    published: list[Path] = []
    held: dict[int, str | None] = {}
    order = list(range(1, len(paths))) + [0]
    try:
        try:
            for p, blob in zip(paths, blobs):
                staged.append(_stage(p, blob))
        except OSError as exc:
            kept = ("nothing was written" if not any(existed) else "the previous file is unchanged" if len(paths) == 1
                    else "the previous files are unchanged")
            raise SmrnbValueError(f"{name} {_s(paths[0])} could not be written ({exc.strerror or exc}); {kept}") from None
        if replace and len(order) > 1:
            held = {i: _hold_old(paths[i]) for i in order}
        if len(order) > 1 and hasattr(os, "sched_yield"):
            os.sched_yield()  # the renames start on a fresh time slice: back to back, microseconds in all
        try:
            for i in order:
                _publish(staged[i], paths[i], replace)  # type: ignore[arg-type]
                staged[i] = None
                published.append(paths[i])
        except FileExistsError:
            for q in published:  # ours, published a moment ago: the unit is all or nothing
                with contextlib.suppress(OSError):
                    os.unlink(q)
            busy = next(p for p in paths if p not in published)
            raise SmrnbValueError(f"{name} {_s(busy)} appeared while this was written (another process writes "
                                  "there); it is not replaced") from None
        except OSError as exc:
            undone = _put_back(published, {paths[i]: held.get(i) for i in order})
            kept = "the previous files are unchanged" if undone else \
                f"already replaced: {', '.join(_s(q) for q in published)}"
            raise SmrnbValueError(f"{name} {_s(paths[0])} could not be written ({exc.strerror or exc}); {kept}") from None
    finally:
        for tmp in [*staged, *held.values()]:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
    for folder in dict.fromkeys(p.parent for p in paths):
        _sync_folder(folder)
    return [os.fspath(p) for p, e in zip(paths, existed) if e]


def replace_folder(src: Any, target: Any, name: str = "folder") -> Path:
    """Put a copy of the folder ``src`` at ``target`` as a unit: copied complete into a staging folder beside
    ``target``'s parent (same file system, outside any folder a program lists), then swapped in with two
    renames; a failure while copying leaves ``target`` as it was, one between the renames puts it back."""
    s, t = as_path(src, name), as_path(target, name)
    stage_root = t.parent.parent / ".smrnb-staging"
    tag = f"{t.name[:60]}.{_HOST}-{os.getpid()}-{os.urandom(4).hex()}"
    staged, old = stage_root / f"{tag}.new", stage_root / f"{tag}.old"
    try:
        stage_root.mkdir(parents=True, exist_ok=True)
        shutil.copytree(s, staged, symlinks=True)
    except OSError as exc:
        shutil.rmtree(staged, ignore_errors=True)
        with contextlib.suppress(OSError):
            stage_root.rmdir()
        raise SmrnbValueError(f"{name} {_s(t)} could not be written ({exc.strerror or exc}); it is unchanged") from None
    had = os.path.lexists(t)
    try:
        if had:
            os.replace(t, old)
        try:
            os.replace(staged, t)
        except OSError:
            if had:
                os.replace(old, t)
            raise
    except OSError as exc:
        shutil.rmtree(staged, ignore_errors=True)
        raise SmrnbValueError(f"{name} {_s(t)} could not be replaced ({exc.strerror or exc}); it is unchanged") from None
    finally:
        shutil.rmtree(old, ignore_errors=True)
        with contextlib.suppress(OSError):
            stage_root.rmdir()
    return t


def _put_back(published: Sequence[Path], held: dict[Path, str | None]) -> bool:
    """Undo a set's renames after one failed: each replaced file back from its held name, each new one
    removed. True when every file is as it was."""
    ok = True
    for q in published:
        try:
            old = held.get(q)
            if old is not None:
                os.replace(old, q)
                held[q] = None
            else:
                os.unlink(q)
        except OSError:
            ok = False
    return ok


def next_free_folder(base: Any, names: Sequence[str] = ()) -> Path:
    """``base`` when it is missing, or holds none of ``names`` (or is empty when no names are given);
    else the first ``base-2``, ``base-3``, ... that is: a default output folder that never holds an
    earlier result."""
    b = as_path(base, "output")

    def free(p: Path) -> bool:
        state = path_state(p)
        if state == "missing":
            return True
        if state != "folder":
            return False
        if not names:
            return not any(p.iterdir())
        return not any(os.path.lexists(p / n) for n in names)

    if free(b):
        return b
    k = 2
    while not free(b.with_name(f"{b.name}-{k}")):
        k += 1
    return b.with_name(f"{b.name}-{k}")


def default_output_folder(base: str) -> tuple[Path, str | None]:
    """The folder a command writes into when none was given: ``base``, or the next free ``base-N`` when
    ``base`` holds files already (they are kept); with the sentence that says so (None for ``base``)."""
    out = next_free_folder(base)
    if out == Path(base):
        return out, None
    return out, f"./{base} holds files already (kept); this run writes into ./{out} (--output DIR chooses the folder)"


def confine(path: Any, root: Any, name: str = "path") -> Path:
    """``root / path`` for a relative ``path`` that stays inside ``root``; refuses absolute paths and ``..`` escapes."""
    p = as_path(path, name)
    r = Path(os.path.abspath(as_path(root, "output folder")))
    if p.is_absolute():
        raise SmrnbValueError(f"{name} {_s(p)} is absolute; a config writes only inside the output folder "
                              f"{_s(r)}: give a relative path (or pass --output)")
    full = Path(os.path.abspath(r / p))
    real_root = Path(os.path.realpath(r))
    real_full = Path(os.path.realpath(full))
    if not (full == r or r in full.parents) or not (real_full == real_root or real_root in real_full.parents):
        raise SmrnbValueError(f"{name} {_s(p)} leads outside the output folder {_s(r)}; use a path inside it")
    return full


__all__ = ["DEMO_OUTPUT", "as_path", "path_state", "check_input", "check_writable", "check_new_file", "check_folder", "free_bytes",
           "check_free_space", "no_clobber", "atomic_write", "atomic_write_set", "next_free_folder", "default_output_folder", "replace_folder",
           "confine"]
