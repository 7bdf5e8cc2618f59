# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Child side of the audit: ``python -m tests.audit._runner [--suite blind] CASE...``.

The runner imports torch and smrnb once, then forks one process per case (a fork costs
milliseconds; a fresh interpreter with torch costs seconds). Each forked case runs under its own
address-space limit (``RLIMIT_AS``: what the runner already maps plus the case's ``mem_gib``), no
core dumps, and its own timeout; a native crash or a hang ends only that case. One JSON line per
case on stdout (``status``: ``ok`` returned, ``smrnb`` a SmrnbError, ``raw`` another exception,
``wrong`` a failed check, ``crash`` a signal, ``hang`` past the timeout, or the status of the
:class:`~tests.audit._cases.AuditFailure` the case raised: ``lost``, ``secret``, ``silent``,
``misleading``, ``raw``, ``crash``, ``hang``).

The parent side (:func:`run_cases`) spreads the cases over a few runner processes.
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
    from tests.audit._cases import AuditFailure

    out = {"name": c.name}
    try:
        c.fn()
        out["status"] = "ok"
    except AuditFailure as exc:
        out.update(status=exc.status, type=type(exc).__name__, message=str(exc)[:4000])
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

    suite = "audit"
    if names[:1] == ["--suite"]:
        suite, names = names[1], names[2:]
    cases = all_cases(suite)
    frames(2)  # decoded once here (no torch kernels run before the forks), shared by the cases
    for name in names:
        t0 = time.monotonic()
        rec = _forked(cases[name])
        rec["seconds"] = round(time.monotonic() - t0, 2)
        sys.stdout.write("AUDIT " + json.dumps(rec) + "\n")
        sys.stdout.flush()
    return 0


# ------------------------------------------------------------------------------------ parent side

def _no_core() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_batch(cases: dict, names: list[str], suite: str = "audit") -> dict[str, dict]:
    """One runner process for ``names``; it forks one process per case (limits and timeouts there)."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    timeout = min(900.0, 60.0 + sum(cases[n].timeout for n in names))
    work = tempfile.mkdtemp(prefix="smrnb-audit-")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")]),
               SMRNB_AUDIT_TMP=work, OMP_NUM_THREADS="1")
    out: dict[str, dict] = {}
    try:
        proc = subprocess.Popen([sys.executable, "-m", "tests.audit._runner", "--suite", suite, *names], cwd=work,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=_no_core, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
        for line in stdout.splitlines():
            if line.startswith("AUDIT "):
                rec = json.loads(line[6:])
                out[rec["name"]] = rec
        for n in names:
            out.setdefault(n, {"status": "crash", "message": f"the audit runner ended before this case: "
                                                             f"{stderr[-1500:]}"})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def run_cases(cases: dict, suite: str = "audit", workers: int | None = None) -> dict[str, dict]:
    """All ``cases`` over a few runner processes (two on a two-core machine), slow cases spread out."""
    from concurrent.futures import ThreadPoolExecutor

    workers = workers or max(1, min(4, os.cpu_count() or 1))
    order = sorted(cases.values(), key=lambda c: -c.timeout)
    batches: list[list[str]] = [[] for _ in range(workers)]
    for i, c in enumerate(order):
        batches[i % workers].append(c.name)
    results: dict[str, dict] = {}
    with ThreadPoolExecutor(workers) as ex:
        for res in ex.map(lambda b: run_batch(cases, b, suite), [b for b in batches if b]):
            results.update(res)
    return results


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
