# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``python3 -m smrnb demo|test|lab|setup|...``: see :mod:`smrnb._bootstrap`."""

import sys

from smrnb._bootstrap import main

rc = main()
from smrnb._cli import guard_shutdown  # noqa: E402  (after the command: a Ctrl-C while Python shuts down is ignored)

guard_shutdown()
sys.exit(rc)
