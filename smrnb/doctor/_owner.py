# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Which pip package installed a file: so a fix names the package to reinstall instead of ``<package>``."""

from __future__ import annotations

import functools
import importlib.metadata
from typing import Any


@functools.lru_cache(maxsize=1)
def _top_level_owners() -> dict[str, list[str]]:
    try:
        return dict(importlib.metadata.packages_distributions())
    except Exception:  # broken metadata of some other package: no names, the caller falls back
        return {}


def owning_distribution(path: str) -> str | None:
    """The distribution (pip name) that installed ``path``, a file under ``site-packages`` or
    ``dist-packages``: found through the installed packages' metadata, else the top-level folder's
    name (pip accepts it where it is the project name, ``torch_scatter`` for ``torch-scatter``) where
    ``tables/compiled_modules.csv`` does not name another (round 38a: ``flash_attn_2_cuda`` -> flash-attn). None
    for a file outside those folders (a source checkout, a build tree)."""
    parts = str(path).replace("\\", "/").split("/")
    for i, part in enumerate(parts[:-1]):
        if part in ("site-packages", "dist-packages"):
            top = parts[i + 1]
            break
    else:
        return None
    if i + 2 == len(parts):  # a top-level module file: foo.cpython-311-x86_64-linux-gnu.so -> foo
        top = top.split(".", 1)[0]
    if not top:
        return None
    owners = _top_level_owners().get(top)
    if owners:
        return owners[0]
    from smrnb.doctor.tables import compiled_module_distribution  # (round 38a) a module the table knows

    dist = compiled_module_distribution(path)
    return dist if dist and dist.lower().replace("-", "_") != top.lower() else top


def metadata_owner(name: str) -> str | None:
    """(blind audit 36, F10) The distribution the installed packages' metadata says provides the top-level module
    ``name`` (an import name: ``yaml`` -> ``PyYAML``), None where none does: never the import name itself as a guess."""
    owners = _top_level_owners().get(str(name).split(".", 1)[0])
    return owners[0] if owners else None


def package_name(path: Any, placeholder: str) -> str:
    """The pip name of the package owning ``path`` (:func:`owning_distribution`), else ``placeholder`` (a
    text read without a path, a file outside site-packages)."""
    name = owning_distribution(str(path)) if path else None
    return name or placeholder


__all__ = ["metadata_owner", "owning_distribution", "package_name"]
