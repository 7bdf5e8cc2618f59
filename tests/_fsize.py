# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A full disk for one call: Python code run in a fresh interpreter whose writes past ``limit`` bytes
fail (``RLIMIT_FSIZE``: EFBIG, as a full disk fails with ENOSPC), for the tests of every writer."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys


def run_with_file_size_limit(code: str, *args: str, limit: int = 200, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run ``code`` (``sys.argv[1:]`` = ``args``) with every file write capped at ``limit`` bytes."""
    def cap():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, preexec_fn=cap,
                          timeout=timeout)


#: the body of a call that prints a SmrnbValueError and exits 3 (any other exception: a traceback, exit 1)
SMRNB_ERROR_EXITS_3 = "except smrnb.SmrnbValueError as exc:\n    print(exc)\n    sys.exit(3)\n"
