# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``smrnb._files``: the one home of "may I write here" (checks before the work, whole-file and
whole-set writes, no-clobber publishing, stale temporary files, readable inputs)."""

from __future__ import annotations

import os
import resource
import signal
import time

import pytest

from smrnb._errors import SmrnbValueError
from smrnb._files import (
    atomic_write,
    atomic_write_set,
    check_folder,
    check_free_space,
    check_input,
    check_new_file,
    check_writable,
    next_free_folder,
    no_clobber,
)


def _tree(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def test_atomic_write_replaces_whole_and_leaves_nothing_else(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("old")
    assert atomic_write(p, "new") is True
    assert p.read_text() == "new" and _tree(tmp_path) == ["a.txt"]


def _fsize_limited(fn, limit):
    """Run ``fn`` in a forked child under RLIMIT_FSIZE = ``limit`` bytes (a write past it fails, EFBIG)."""
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        try:
            fn()
        except SmrnbValueError as exc:
            os._exit(3 if "unchanged" in str(exc) else 4)
        except BaseException:
            os._exit(5)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_a_set_that_cannot_be_written_whole_leaves_every_old_file(tmp_path):
    names = ["scan.obj", "scan.mtl", "scan.png"]
    for n in names:
        (tmp_path / n).write_bytes(b"old " + n.encode())
    # the .obj and .mtl fit under the limit, the .png does not: nothing may change, no temp file stays
    items = [(tmp_path / "scan.obj", b"o" * 100), (tmp_path / "scan.mtl", b"m" * 100), (tmp_path / "scan.png", b"p" * 5000)]
    assert _fsize_limited(lambda: atomic_write_set(items), 1000) == 3
    assert {n: (tmp_path / n).read_bytes() for n in names} == {n: b"old " + n.encode() for n in names}
    assert _tree(tmp_path) == sorted(names)


def test_set_publishes_the_main_file_last(tmp_path, monkeypatch):
    import smrnb._files as F

    order = []
    real = F._publish
    monkeypatch.setattr(F, "_publish", lambda tmp, p, replace: (order.append(p.name), real(tmp, p, replace)))
    atomic_write_set([(tmp_path / "m.obj", "o"), (tmp_path / "m.mtl", "m"), (tmp_path / "m.png", b"p")])
    assert order == ["m.mtl", "m.png", "m.obj"]


def test_no_clobber_refuses_a_file_that_appeared_and_removes_its_own_half(tmp_path, monkeypatch):
    import smrnb._files as F

    real = F._publish

    def racing(tmp, p, replace):  # another writer publishes the .obj between our two renames
        if p.name == "m.obj":
            p.write_text("the other run's")
        return real(tmp, p, replace)

    monkeypatch.setattr(F, "_publish", racing)
    with no_clobber(), pytest.raises(SmrnbValueError, match="m.obj.*appeared"):
        atomic_write_set([(tmp_path / "m.obj", "o"), (tmp_path / "m.mtl", "m")])
    assert _tree(tmp_path) == ["m.obj"] and (tmp_path / "m.obj").read_text() == "the other run's"


def test_no_clobber_refuses_an_existing_file_up_front(tmp_path):
    (tmp_path / "a.glb").write_text("mine")
    with no_clobber(), pytest.raises(SmrnbValueError, match="exists"):
        atomic_write(tmp_path / "a.glb", b"new")
    assert (tmp_path / "a.glb").read_text() == "mine" and _tree(tmp_path) == ["a.glb"]
    assert atomic_write(tmp_path / "b.glb", b"new", replace=False) is False


def test_a_temp_file_of_a_killed_writer_is_swept_by_the_next_write(tmp_path):
    p = tmp_path / "scan.glb"
    pid = os.fork()
    if pid == 0:
        import smrnb._files as F

        F._stage(p, b"x" * 10)
        os.kill(os.getpid(), signal.SIGKILL)
    os.waitpid(pid, 0)
    assert len(_tree(tmp_path)) == 1  # the killed writer's temp file
    atomic_write(p, b"whole")
    assert _tree(tmp_path) == ["scan.glb"]


def test_sigkill_during_a_set_leaves_whole_files_and_no_strays(tmp_path):
    names = ["s.obj", "s.mtl", "s.png"]
    old = {n: b"old" + n.encode() for n in names}
    new = {n: (n.encode() * 200_000) for n in names}
    for delay in (0.0, 0.002, 0.005, 0.01, 0.02, 0.05):
        for n, b in old.items():
            (tmp_path / n).write_bytes(b)
        pid = os.fork()
        if pid == 0:
            atomic_write_set([(tmp_path / n, new[n]) for n in names])
            os._exit(0)
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        have = {n: (tmp_path / n).read_bytes() for n in names}
        # each file whole (old or new), and no temporary file left once the next write has run
        assert all(have[n] in (old[n], new[n]) for n in names), {n: len(have[n]) for n in names}
        atomic_write_set([(tmp_path / n, have[n]) for n in names])
        assert _tree(tmp_path) == sorted(names)


def test_checks_before_the_work(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "d.glb").mkdir()
    with pytest.raises(SmrnbValueError, match="notes.txt.*is a file"):
        check_writable(tmp_path / "notes.txt" / "x.glb")
    with pytest.raises(SmrnbValueError, match="is a folder"):
        check_writable(tmp_path / "d.glb")
    with pytest.raises(SmrnbValueError, match="exists; pass --overwrite"):
        check_new_file(tmp_path / "notes.txt")
    assert check_new_file(tmp_path / "notes.txt", overwrite=True) == tmp_path / "notes.txt"
    with pytest.raises(SmrnbValueError, match="notes.txt.*is a file, not a folder"):
        check_folder(tmp_path / "notes.txt")
    assert check_folder(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()
    with pytest.raises(SmrnbValueError, match="free"):
        check_free_space(tmp_path, 1 << 62)
    check_free_space(tmp_path, 1)
    os.symlink("loop_b", tmp_path / "loop_a")
    os.symlink("loop_a", tmp_path / "loop_b")
    with pytest.raises(SmrnbValueError, match="symlink loop"):
        check_writable(tmp_path / "loop_a")


def test_check_input_names_the_cause(tmp_path):
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    (tmp_path / "empty.ply").write_bytes(b"")
    (tmp_path / "f").write_text("x")
    with pytest.raises(SmrnbValueError, match="symlink loop") as e:
        check_input(tmp_path / "a")
    assert "not exist" not in str(e.value)
    with pytest.raises(SmrnbValueError, match="empty"):
        check_input(tmp_path / "empty.ply")
    with pytest.raises(SmrnbValueError, match="does not exist"):
        check_input(tmp_path / "nope.ply")
    with pytest.raises(SmrnbValueError, match="not a folder|does not exist"):
        check_input(tmp_path / "f" / "x.ply")
    with pytest.raises(SmrnbValueError, match="is not a folder"):
        check_input(tmp_path / "f", kind="folder")
    assert check_input(tmp_path / "f") == tmp_path / "f"


@pytest.mark.skipif(os.geteuid() != 0, reason="drops to an unprivileged user (needs root)")
def test_check_input_permission_denied_as_another_user(tmp_path):
    d = tmp_path / "scan"
    (d / "depth").mkdir(parents=True)
    os.chmod(d, 0o000)
    os.chmod(tmp_path, 0o755)
    pid = os.fork()
    if pid == 0:
        os.setgid(65534)
        os.setuid(65534)
        try:
            check_input(d, kind="folder")
        except SmrnbValueError as exc:
            os._exit(0 if "permission denied" in str(exc) else 3)
        os._exit(4)
    _, status = os.waitpid(pid, 0)
    os.chmod(d, 0o755)
    assert os.waitstatus_to_exitcode(status) == 0


def test_next_free_folder(tmp_path):
    base = tmp_path / "out"
    assert next_free_folder(base, ["mesh.glb"]) == base
    base.mkdir()
    (base / "notes.txt").write_text("x")
    assert next_free_folder(base, ["mesh.glb"]) == base
    (base / "mesh.glb").write_text("x")
    assert next_free_folder(base, ["mesh.glb"]) == tmp_path / "out-2"
    (tmp_path / "out-2").write_text("a file")
    assert next_free_folder(base, ["mesh.glb"]) == tmp_path / "out-3"


def test_a_rename_that_fails_inside_a_set_puts_the_whole_set_back(tmp_path, monkeypatch):
    import errno

    import smrnb._files as F

    names = ["m.obj", "m.mtl", "m.png"]
    for n in names:
        (tmp_path / n).write_bytes(b"old " + n.encode())
    real, calls = F._publish, []

    def second_fails(tmp, p, replace):
        calls.append(p.name)
        if len(calls) == 2:
            raise OSError(errno.EIO, "Input/output error")
        return real(tmp, p, replace)

    monkeypatch.setattr(F, "_publish", second_fails)
    with pytest.raises(SmrnbValueError, match="previous files are unchanged"):
        atomic_write_set([(tmp_path / n, b"new") for n in names])
    assert {n: (tmp_path / n).read_bytes() for n in names} == {n: b"old " + n.encode() for n in names}
    assert _tree(tmp_path) == sorted(names)


def test_replaced_files_are_held_during_the_swap_and_a_killed_writers_holds_are_swept(tmp_path, monkeypatch):
    import smrnb._files as F

    names = ["m.obj", "m.mtl"]
    for n in names:
        (tmp_path / n).write_bytes(b"old")
    seen = []
    real = F._publish

    def look(tmp, p, replace):  # while the set is swapped in, each old file has a second name
        seen.append(sorted(x for x in os.listdir(tmp_path) if x.endswith(".old")))
        return real(tmp, p, replace)

    monkeypatch.setattr(F, "_publish", look)
    atomic_write_set([(tmp_path / n, b"new") for n in names])
    assert all(len(s) == 2 for s in seen) and _tree(tmp_path) == sorted(names)
    pid = os.fork()
    if pid == 0:
        F._hold_old(tmp_path / "m.obj")
        os.kill(os.getpid(), signal.SIGKILL)
    os.waitpid(pid, 0)
    assert len(_tree(tmp_path)) == 3
    atomic_write(tmp_path / "m.obj", b"again")
    assert _tree(tmp_path) == sorted(names)
