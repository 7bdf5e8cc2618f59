# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The compiled modules of an installed distribution (pytorch3d, flash_attn, torch_scatter, ...).

:func:`package_extensions` reads the distribution's file list (``RECORD``, through ``importlib.metadata``)
and returns its shared objects, which ``smr-doctor --package NAME`` / ``diagnose(packages=...)`` check like
``--extension PATH``: the loader (NEEDED libraries), the C++ ABI (undefined torch symbols) and the GPU code
(architectures) of each. Nothing is imported.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import re
from collections.abc import Iterable

#: file names of compiled Python modules and the shared libraries beside them
_COMPILED_RE = re.compile(r"\.(?:so(?:\.[0-9]+)*|pyd)$")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def find_distribution(name: str, path: Iterable[str] | None = None) -> md.Distribution | None:
    """The installed distribution called ``name`` (``flash-attn``, ``flash_attn`` and ``Flash_Attn`` are one
    name, PEP 503), searched in ``path`` (default ``sys.path``); None when none is installed."""
    want = _normal(name)
    dirs = list(path) if path is not None else None
    try:
        for dist in md.distributions(path=dirs) if dirs is not None else md.distributions():
            try:
                dname = dist.metadata["Name"]
            except Exception:  # a broken dist-info: skip it
                continue
            if dname and _normal(dname) == want:
                return dist
    except Exception:  # an unreadable site directory: nothing found there
        return None
    return None


def import_name_owners(name: str, path: Iterable[str] | None = None) -> list[str]:
    """(blind audit 36, C-L2) The installed distributions that provide the top-level import name ``name`` (``yaml``
    -> ``PyYAML``, ``PIL`` -> ``Pillow``), from their metadata (``importlib.metadata.packages_distributions``, or
    each distribution's ``top_level.txt`` / RECORD where ``path`` is given); ``[]`` when none does."""
    want = name.strip()
    try:
        if path is None:
            return sorted(set(md.packages_distributions().get(want, [])))
        found = set()
        for dist in md.distributions(path=list(path)):
            tops = (dist.read_text("top_level.txt") or "").split()
            tops += [str(f).split("/")[0].split(".")[0] for f in dist.files or () if "/" in str(f)]
            if want in tops:
                found.add(dist.metadata["Name"])
        return sorted(found)
    except Exception:  # broken metadata: no hint
        return []


def package_extensions(name: str, path: Iterable[str] | None = None) -> list[str]:
    """Absolute paths of the compiled modules (``.so``, ``.so.N``, ``.pyd``) the distribution ``name`` installed,
    from its RECORD, that exist on disk; ``[]`` when it lists none.

    Raises ``SmrnbValueError`` naming the argument when no distribution of that name is installed."""
    from smrnb._errors import SmrnbValueError

    if not isinstance(name, str) or not name.strip():
        raise SmrnbValueError(f"package must be the name of an installed distribution, got {name!r}")
    dist = find_distribution(name.strip(), path)
    if dist is None:
        owners = import_name_owners(name.strip(), path)
        hint = (f"; {name.strip()!r} is the import name of the distribution{'s' if len(owners) > 1 else ''} "
                f"{', '.join(repr(o) for o in owners)}: pass {'one of those' if len(owners) > 1 else 'that'}"
                if owners else "")
        raise SmrnbValueError(f"package: no installed distribution named {name!r} in this Python{hint} "
                              "(`pip show <name>` lists what is installed)")
    out = []
    for f in dist.files or ():
        if _COMPILED_RE.search(str(f)):
            p = os.path.abspath(str(dist.locate_file(f)))
            if os.path.isfile(p) and p not in out:
                out.append(p)
    return sorted(out)
