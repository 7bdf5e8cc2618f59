# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""File-fault cases: a full disk (RLIMIT_FSIZE in the child makes writes fail with EFBIG), a kill
mid-write, an unwritable folder. Nothing may be lost: the previous file stays whole."""

from __future__ import annotations

import os

from tests.audit._cases import OK, case, limit_file_size, sphere, tmp


def _s():
    import smrnb

    return smrnb


@case("disk_full_keeps_previous_glb", ("export_mesh",), OK, timeout=60)
def _():
    p = tmp() / "mesh.glb"
    _s().export_mesh(sphere(1), p)
    before = p.read_bytes()
    limit_file_size(4096)  # the next mesh is larger than 4 KiB
    err = None
    try:
        _s().export_mesh(sphere(4), p)
    except _s().SmrnbError as exc:
        err = exc
    assert err is not None and "previous file is unchanged" in str(err), err
    assert p.read_bytes() == before, "the previous file was damaged"
    assert [q.name for q in p.parent.iterdir()] == ["mesh.glb"], list(p.parent.iterdir())


@case("disk_full_new_ply_is_error", ("export_mesh",), r"could not be written.*nothing was written")
def _():
    limit_file_size(1024)
    p = tmp() / "new.ply"
    try:
        _s().export_mesh(sphere(4), p)
    finally:
        assert not p.exists()


@case("killed_mid_write_keeps_previous", ("export_mesh",), OK, timeout=60)
def _():
    """A child killed while writing (SIGKILL from inside the write) leaves the old file whole."""
    import signal

    p = tmp() / "k.ply"
    _s().export_mesh(sphere(1), p)
    before = p.read_bytes()
    pid = os.fork()
    if pid == 0:
        import smrnb._files as files

        real = os.fsync

        def die(fd):  # the data is in the temporary file, not yet renamed
            os.kill(os.getpid(), signal.SIGKILL)
            real(fd)
        files.os.fsync = die
        _s().export_mesh(sphere(3), p)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status)
    assert p.read_bytes() == before
    _s().export_mesh(sphere(2), p)  # and the next export still works (leftover temp files aside)
    assert p.read_bytes() != before


@case("unwritable_folder_checked_before_work", ("export_mesh",), r"cannot be written")
def _():
    """/proc takes no new files, even from root (who bypasses permission bits)."""
    _s().export_mesh(sphere(1), "/proc/1/smrnb/x.ply")
