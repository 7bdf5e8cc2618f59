# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Reading the doctor's data files: the folder they live in and the cached CSV reader every table uses."""

from __future__ import annotations

import csv
import functools
from pathlib import Path

#: the folder holding the data files (tests point it at a copy)
HERE = Path(__file__).resolve().parent

#: (round 29v) what every table's ``verified`` column holds: its row read in the named source (``yes``), read in
#: part or in a secondary copy of it (``partial``), or not reached (``no``); one word for the middle case in every table
VERIFIED = ("yes", "partial", "no")


@functools.cache
def rows(name: str) -> tuple[dict[str, str], ...]:
    """All rows of ``<name>.csv`` as dicts (strings), cached."""
    path = Path(HERE) / f"{name}.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        return tuple(dict(r) for r in csv.DictReader(fh))
