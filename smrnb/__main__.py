# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``python3 -m smrnb demo|test|lab|setup|...``: see :mod:`smrnb._bootstrap`."""

import sys

from smrnb._bootstrap import main

sys.exit(main())
