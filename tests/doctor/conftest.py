# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Fixtures of the doctor's tests."""
from __future__ import annotations

import copy

import pytest

import smrnb.doctor as doctor


@pytest.fixture()
def machine(monkeypatch):
    """``machine(facts)``: this process's probes answer ``facts`` (a fake live machine) for explain."""
    def use(facts):
        def fake_collect(ctx=None, layers=None, deadline=None):
            ctx.facts.update(copy.deepcopy(facts))
            return copy.deepcopy(facts)
        monkeypatch.setattr(doctor, "collect", fake_collect)
    return use
