# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Functions tests/test_native.py runs in smrnb's native helper process."""

from __future__ import annotations

import ctypes
import os
import sys
import time


def echo(d: dict) -> dict:
    return {**d, "pid": os.getpid(), "has_pytest": "pytest" in sys.modules}


def print_lines(n: int) -> dict:
    libc = ctypes.CDLL(None)
    for i in range(n):
        libc.puts(f"ASSERT line {i}".encode())
    libc.fflush(None)
    return {}


def segfault() -> None:
    ctypes.string_at(0)


def hang() -> None:
    while True:
        time.sleep(0.05)


def fail() -> None:
    raise ValueError("no good")
