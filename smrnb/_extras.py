# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The extras of smrnb: what each brings, which part of smrnb needs which, which each ``python3 -m smrnb``
command installs, and the one message when one is missing.

``pip install smrnb`` is the doctor alone (no torch: the doctor must not change the torch it
diagnoses). The reconstruction core (``smrnb.geometry``, ``smrnb.datasets``, ``smrnb.pipeline``)
needs the ``recon`` extra, the widgets the ``lab`` extra. Importing a part whose extra is missing
raises :class:`MissingExtraError` naming the extra to install, whatever the name was reached by
(``smrnb.fuse_tsdf``, ``from smrnb.geometry import ...``, the ``smrnb`` command).
"""

from __future__ import annotations

import importlib.util

from smrnb._errors import SmrnbError

#: extra -> (what it brings, the import names it needs); ``lab`` includes ``recon``
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "recon": ("the reconstruction core", ("torch", "numpy", "trimesh", "scipy", "PIL", "yaml", "tqdm",
                                          "xatlas", "fast_simplification")),
    "lab": ("the widgets and JupyterLab", ("ipywidgets", "pythreejs", "IPython")),
    "cluster": ("batch runs on Dask", ("dask", "distributed")),
}
#: ``python3 -m smrnb`` command -> the extras it installs into the project's environment (:mod:`smrnb._bootstrap`)
COMMAND_EXTRAS: dict[str, tuple[str, ...]] = {"demo": ("recon",), "test": ("test", "docs"), "lab": ("lab",)}
#: smrnb subpackage -> the extras it needs
PARTS: dict[str, tuple[str, ...]] = {
    "smrnb.geometry": ("recon",),
    "smrnb.datasets": ("recon",),
    "smrnb.pipeline": ("recon",),
    "smrnb.widgets": ("recon", "lab"),
}


class MissingExtraError(SmrnbError, ImportError):
    """A part of smrnb was used whose optional dependencies are not installed."""


def missing(extra: str) -> list[str]:
    """The import names of ``extra`` that cannot be found (without importing them). An extra found
    complete once is not looked up again (each of geometry, datasets, pipeline and widgets asks when
    it is imported); a missing one is, so a `pip install` in a running kernel is seen."""
    if extra in _COMPLETE:
        return []
    absent = [m for m in EXTRAS[extra][1] if importlib.util.find_spec(m) is None]
    if not absent:
        _COMPLETE.add(extra)
    return absent


_COMPLETE: set[str] = set()


def message(part: str, extra: str, absent: list[str]) -> str:
    what = EXTRAS[extra][0]
    torch_first = (" Install the torch build for your machine first (see the README), or let "
                   "`python3 -m smrnb demo` in a source checkout set everything up.") if "torch" in absent else ""
    return (f"{part} is part of {what}, which needs {', '.join(absent)} (not installed): "
            f"pip install \"smrnb[{extra}]\".{torch_first}")


def require(part: str) -> None:
    """Raise :class:`MissingExtraError` when an extra that ``part`` needs is missing."""
    for extra in PARTS.get(part, ()):
        absent = missing(extra)
        if absent:
            raise MissingExtraError(message(part, extra, absent))


__all__ = ["COMMAND_EXTRAS", "EXTRAS", "PARTS", "MissingExtraError", "message", "missing", "require"]
