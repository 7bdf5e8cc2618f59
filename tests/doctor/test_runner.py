# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The doctor's command runner: list form, timeouts that end the whole process group, never raises."""

import os
import time

from smrnb.doctor._model import Runner


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as fh:
            state = [line for line in fh if line.startswith("State:")][0]
    except OSError:
        return False
    return "Z" not in state.split()[1]


def test_timeout_kills_the_tool_and_its_children(tmp_path):
    tool = tmp_path / "hang"
    tool.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {tmp_path}/child.pid\nsleep 300\n")
    tool.chmod(0o755)
    t0 = time.perf_counter()
    r = Runner()([str(tool)], timeout=1.0)
    assert time.perf_counter() - t0 < 5
    assert r.timed_out and r.error == "timeout after 1 s" and not r.ok and r.returncode is None
    pid = int((tmp_path / "child.pid").read_text())
    deadline = time.time() + 3
    while _alive(pid) and time.time() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the tool's own child survived the timeout"


def test_outputs_input_and_failures_never_raise(tmp_path):
    run = Runner()
    assert run(["echo", "hi"]).stdout == "hi\n"
    assert run(["cat"], input="abc").stdout == "abc"
    r = run(["sh", "-c", "echo err >&2; exit 3"])
    assert r.returncode == 3 and r.stderr == "err\n" and not r.ok
    assert run([str(tmp_path / "missing")]).error == "not found"
    noexec = tmp_path / "noexec"
    noexec.write_text("#!/bin/sh\n")
    assert run([str(noexec)]).error == "permission denied"
    bad = run(["printf", "\\377\\376"])  # not UTF-8
    assert bad.ok and "\ufffd" in bad.stdout
    assert os.environ.get("PATH")
