# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Child side of the audit: ``python -m tests.audit._runner CASE...``.

The runner imports torch and smrnb once, then forks one process per case (a fork costs
milliseconds; a fresh interpreter with torch costs seconds). Each forked case runs under its own
address-space limit (``RLIMIT_AS``: what the runner already maps plus the case's ``mem_gib``), no
core dumps, and its own timeout; a native crash or a hang ends only that case. One JSON line per
case on stdout (``status``: ``ok`` returned, ``smrnb`` a SmrnbError, ``raw`` another exception,
``wrong`` a failed check, ``crash`` a signal, ``hang`` past the timeout).
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import sys
import time
import traceback


def _run_case(c) -> dict:
    import smrnb

    out = {"name": c.name}
    try:
        c.fn()
        out["status"] = "ok"
    except smrnb.SmrnbError as exc:
        out.update(status="smrnb", type=type(exc).__name__, message=str(exc)[:4000],
                   is_value_or_type=isinstance(exc, (ValueError, TypeError)))
    except AssertionError as exc:
        out.update(status="wrong", type="AssertionError", message=(str(exc) or traceback.format_exc(limit=3))[:4000])
    except BaseException as exc:  # the point of the audit is to see these
        out.update(status="raw", type=type(exc).__name__, message=f"{str(exc)[:2000]}\n"
                   f"{traceback.format_exc(limit=-4)[-2000:]}")
    return out


def _mapped_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _forked(c) -> dict:
    rfd, wfd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(rfd)
            limit = _mapped_bytes() + int(c.mem_gib * (1 << 30))
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            data = json.dumps(_run_case(c)).encode()
            with os.fdopen(wfd, "wb") as fh:
                fh.write(data)
        except BaseException:
            code = 3
        finally:
            os._exit(code)
    os.close(wfd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + c.timeout
    hung = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            hung = True
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([rfd], [], [], min(left, 1.0))
        if ready:
            b = os.read(rfd, 1 << 20)
            if not b:
                break
            chunks.append(b)
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    if hung:
        return {"name": c.name, "status": "hang", "message": f"no answer within {c.timeout:g} s"}
    if chunks:
        try:
            return json.loads(b"".join(chunks))
        except ValueError:
            pass
    if os.WIFSIGNALED(status):
        what = f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    else:
        what = f"exit status {os.WEXITSTATUS(status)}"
    return {"name": c.name, "status": "crash", "message": f"the case process ended without an answer ({what})"}


def main(names: list[str]) -> int:
    import torch  # noqa: F401

    import smrnb  # noqa: F401  (imported once, before the forks)
    from tests.audit._cases import all_cases, frames

    cases = all_cases()
    frames(2)  # decoded once here (no torch kernels run before the forks), shared by the cases
    for name in names:
        t0 = time.monotonic()
        rec = _forked(cases[name])
        rec["seconds"] = round(time.monotonic() - t0, 2)
        sys.stdout.write("AUDIT " + json.dumps(rec) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
