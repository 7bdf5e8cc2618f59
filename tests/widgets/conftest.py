# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Each widget test starts without a front end seen: the process-wide "a live front end was seen" flag
(sticky in a kernel) is reset, so a test that fakes a front end does not change the next one."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_front_end_seen():
    from smrnb.widgets import _display

    _display._FRONT_END_SEEN[0] = False
    yield
    _display._FRONT_END_SEEN[0] = False
