# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Shared fixtures and the markers' skip logic (visible reasons, never silent)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("SMRNB_SHARED_DATA", REPO.parent / "shared" / "data"))


def pytest_configure(config):
    from _depaudit import DependencyAudit  # tests/ is on sys.path beside this conftest

    config.pluginmanager.register(DependencyAudit(REPO), "smrnb-dependency-audit")


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def _kaolin_available() -> tuple[bool, str]:
    try:
        from smrnb.geometry._backend import kaolin_status
    except ImportError as exc:  # torch missing
        return False, str(exc)
    st = kaolin_status()
    return st.available, st.reason or ""


def pytest_collection_modifyitems(config, items):
    cuda = _cuda_available()
    kaolin_ok, kaolin_reason = (_kaolin_available() if any(i.get_closest_marker("kaolin") for i in items)
                                else (True, ""))
    chromium = shutil.which("chromium") or os.path.exists("/usr/bin/chromium")
    for item in items:
        if item.get_closest_marker("cuda") and not cuda:
            item.add_marker(pytest.mark.skip(reason="no CUDA GPU visible to torch (CUDA tests run on a GPU machine)"))
        if item.get_closest_marker("kaolin") and not kaolin_ok:
            item.add_marker(pytest.mark.skip(reason=f"kaolin not usable here: {kaolin_reason}"))
        if item.get_closest_marker("browser") and not chromium:
            item.add_marker(pytest.mark.skip(reason="Debian chromium not installed (/usr/bin/chromium); .ci/run installs it"))
        if item.get_closest_marker("long") and os.environ.get("SMRNB_LONG_TESTS") != "1":
            item.add_marker(pytest.mark.skip(reason=f"long: {item.get_closest_marker('long').args[0]}; "
                                                    "run with SMRNB_LONG_TESTS=1 (CI's 40 minutes leave it out)"))
        if item.get_closest_marker("shared_data") and not SHARED_DATA.is_dir():
            item.add_marker(pytest.mark.skip(reason=f"../shared/data not found at {SHARED_DATA}"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout; tests using it carry the ``shared_data`` marker."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"../shared/data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def bunny_path(shared_data) -> Path:
    p = shared_data / "stanford-bunny-pymeshfix" / "StanfordBunny.ply"
    if not p.is_file():
        pytest.skip(f"{p} missing")
    return p


@pytest.fixture(scope="session")
def redwood_micro(shared_data) -> Path:
    p = shared_data / "redwood-livingroom1-clean-micro"
    if not p.is_dir():
        pytest.skip(f"{p} missing")
    return p


@pytest.fixture(autouse=True)
def _few_threads():
    """2-core machines: keep torch from oversubscribing while tests run in parallel helpers/CI."""
    try:
        import torch
    except ImportError:
        yield
        return
    n = torch.get_num_threads()
    torch.set_num_threads(min(n, 2))
    yield
    torch.set_num_threads(n)


@pytest.fixture(autouse=True)
def _no_machine_seen_before():
    """Each test starts as a fresh kernel: the exception hook has seen no earlier look at this machine (the doctor
    keeps the last whole look of its process, smrnb.doctor.machine_facts_seen), so no test ranks by another's."""
    import sys

    doctor = sys.modules.get("smrnb.doctor")
    if doctor is not None:
        doctor._MACHINE.clear()
    yield
    doctor = sys.modules.get("smrnb.doctor")
    if doctor is not None:
        doctor._MACHINE.clear()
