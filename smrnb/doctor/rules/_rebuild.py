# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""How a compiled extension is rebuilt or reinstalled: one decision, made where a rule builds its fix, from the facts
it has (session 37; blind audit 36 C-M12 and B-F9).

* a module file under site-packages: its distribution reinstalled by name (a PyG operator package from PyG's wheel
  page for the installed torch; where no metadata names the distribution, how to find it);
* a module file in a source tree's ``build/lib*`` or ``build/temp*`` folder: that tree built again, ``cd`` there
  first;
* no file, or a file elsewhere: what explain read in the text (:data:`SOURCE_KEY`: the one source tree whose path it
  shows, or the package it shows installed from a registry, reinstalled by that name), else ``cd`` to a source tree
  the user names.

Never ``rm -rf build/`` of whatever folder the user stands in: run there it deletes that folder's build/ and
force-installs whatever project is there.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._model import value
from smrnb.doctor._owner import metadata_owner

#: pip's rebuild of an extension against the installed torch: no isolated build (it would fetch the newest torch to
#: build against), not the wheel pip cached from the build before, in place of the installed one
PIP_REBUILD = "pip install --no-build-isolation --no-cache-dir --force-reinstall"
#: the facts' key explain fills from the text (``{"tree": the one source tree whose path it shows, "installed": the
#: package it shows installed from a registry}``); read with ``dict.get``: it says where a command runs, no cause
SOURCE_KEY = "extension_source"
#: where a rebuild runs when nothing names the source tree
TREE_PLACEHOLDER = "<the extension's source tree>"
#: the usual note of a source-tree rebuild (a by-name reinstall keeps what follows it)
IN_THE_TREE = "in the extension's source tree"
#: the folder holding a setuptools build/ folder of a module file (``~/src/x/build/lib.linux-x86_64-3.10/x/_C.so``)
_BUILD_TREE_RE = re.compile(r"^(.+?)[\\/]build[\\/](?:lib|temp)[\w.-]*[\\/]")
#: PyG's operator packages: PyPI has their sources only (the build imports torch); data.pyg.org has a wheel per torch
_PER_TORCH_WHEELS = ("torch_scatter", "torch_sparse", "torch_cluster", "torch_spline_conv", "pyg_lib")


def text_source(facts: Mapping[str, Any]) -> dict[str, str] | None:
    """What explain read in the text about the extension's source (:data:`SOURCE_KEY`), None where nothing read it
    (the live check, a caller of the rules with its own facts)."""
    d = facts.get(SOURCE_KEY)
    if not isinstance(d, Mapping):
        return None
    get = functools.partial(dict.get, d) if isinstance(d, dict) else d.get  # no read noted: it decides no cause
    return {"tree": str(get("tree") or ""), "installed": str(get("installed") or "")}


def per_torch_wheel(path: str) -> str:
    """The PyG operator package (:data:`_PER_TORCH_WHEELS`) whose module file ``path`` names, else ``""``."""
    low = path.replace("\\", "/").lower()
    return next((n for n in _PER_TORCH_WHEELS if f"/{n}/" in low or low.startswith(f"{n}/") or f"{n}." in low), "")


def pyg_wheel_command(facts: Mapping[str, Any], pkg: str) -> str:
    """(round 26d; blind audit 36 F3) A PyG operator package (torch-scatter, torch-cluster, ...) reinstalled from PyG's
    wheel page for the installed torch and CUDA: PyPI has only its source, whose build needs torch."""
    tv, tc = value(facts, "torch", "version_base"), value(facts, "torch", "cuda")
    mm = ".".join(str(tv).split(".")[:2]) + ".0" if tv else "<torch major.minor>.0"
    var = f"cu{str(tc).replace('.', '')}" if tc else ("cpu" if value(facts, "torch", "cpu_build") else "<cuXYZ|cpu>")
    return (f"pip install --force-reinstall --no-cache-dir {pkg.replace('_', '-')} -f "
            f"https://data.pyg.org/whl/torch-{mm}+{var}.html   # its wheel made for the installed torch")


def distribution_finder(module: str) -> str:
    """(blind audit 36, F10) How to find the pip distribution that installed the top-level module ``module``: an
    import name is no distribution's name (it may be none, or another project's)."""
    return (f"python -c \"import importlib.metadata as m; print(m.packages_distributions().get('{module}'))\"   # the "
            f"pip distribution that installed {module} (None: none did, it was built from a source tree; pip show -f "
            "NAME lists a distribution's files)")


def installed_name(path: str, folder: str = "") -> str:
    """(round 38a, brief R38A item 3) The distribution to reinstall for the compiled module ``path`` of site-packages,
    whose package folder there is ``folder`` (``""``: a top-level module, ``flash_attn_2_cuda.cpython-310-*.so``):
    the distribution ``tables/compiled_modules.csv`` names for it where that is another name than the folder's
    (``tinycudann_bindings/_86_C`` -> tinycudann, ``MinkowskiEngineBackend/_C`` -> MinkowskiEngine; a top-level
    module: ``flash_attn_2_cuda`` -> flash-attn), else the folder; ``""`` for a top-level module no row names."""
    dist = tables.compiled_module_distribution(path) or ""
    if folder and dist.lower().replace("-", "_") == folder.lower():
        return folder  # the folder is the distribution's own name (simple_knn): as the text writes it
    return dist or folder


def built_in_tree(path: str) -> str:
    """The source tree above the setuptools ``build/lib*`` (``build/temp*``) folder ``path`` lies in, else ``""``."""
    m = _BUILD_TREE_RE.match(str(path).replace("\\", "/")) if path else None
    return m.group(1) if m else ""


def tree_rebuild(facts: Mapping[str, Any], *, path: str = "", env: str = "", pip: str = PIP_REBUILD,
                 note: str = IN_THE_TREE) -> str:
    """The rebuild of the extension from its source tree, ``cd`` there first: the tree above the ``build/lib*`` folder
    of ``path``, else the one the text shows (:data:`SOURCE_KEY`); where the text shows the package installed from a
    registry instead, that package reinstalled by name (pip builds, or fetches, the release for the installed torch).
    ``env``: variables for the build (``TORCH_CUDA_ARCH_LIST="9.0" ``); ``note``: the command's comment."""
    said = text_source(facts)
    where = built_in_tree(path)
    if not where and said:
        if said["installed"] and not said["tree"]:
            name = said["installed"]
            rest = re.sub(r"^in the extension's source tree[:,;]?\s*", "", note)
            return (f"{env}{pip} {name}   # {name} as the text installed it, by name: pip builds (or fetches) the release "
                    "for the installed torch; --no-cache-dir: not the wheel it built before" + (f"; {rest}" if rest else ""))
        where = said["tree"]
    if not where:
        where = f"<the source tree {os.path.basename(str(path))} was built from>" if path and not said \
            else TREE_PLACEHOLDER
    return f"cd {where} && rm -rf build/ && {env}{pip} .   # {note}"


def rebuild_of_file(path: str, facts: Mapping[str, Any], *, env: str = "", note: str = "") -> list[str]:
    """(blind audit 36, C-M12 and B-F9) The rebuild of a compiled module the doctor found at ``path``: installed in
    site-packages, its distribution reinstalled by name (a PyG operator package from PyG's wheel page for this torch),
    or, where no metadata names it, how to find it; built in a source tree's build/ folder, that tree's build again
    (``cd`` there first); elsewhere its source tree left for the user to name (:func:`tree_rebuild`)."""
    norm = str(path).replace("\\", "/")
    name = os.path.basename(str(path))
    if "/site-packages/" in norm or "/dist-packages/" in norm:
        top = norm.split("-packages/", 1)[1].split("/", 1)[0].split(".", 1)[0]
        if pyg := per_torch_wheel(norm):
            return [pyg_wheel_command(facts, pyg)]
        dist = metadata_owner(top) or tables.compiled_module_distribution(norm)  # (round 38a) else the table's
        if dist:
            return [f"{env}{PIP_REBUILD} --no-deps {dist}   # rebuild (or install the release made) for the installed "
                    f"torch{'; ' + note if note else ''}"]
        return [distribution_finder(top),
                f"# then: {env}{PIP_REBUILD} --no-deps <the distribution it prints>   # {name}'s package rebuilt for "
                f"the installed torch{'; ' + note if note else ''}"]
    return [tree_rebuild(facts, path=path, env=env, pip=f"{PIP_REBUILD} --no-deps",
                         note=f"{path} is no installed package's file: rebuild it in its source tree, against the "
                              "installed torch (a build made in place: its own build command there)"
                              f"{'; ' + note if note else ''}")]


#: a kaolin install line (a wheel's, or a source build's ``pip install ... .``) without --force-reinstall
_KAOLIN_INSTALL_RE = re.compile(r"(?m)^(.*?\bpip3? install )(?!-r\s)(?![^\n#]*--force-reinstall)"
                                r"(?=[^\n#]*(?:\bkaolin(?:==|\s|$)|\s\.(?:\s|$)))")


def kaolin_reinstall(cmd: str) -> str:
    """(session 37, as blind audit 36 F3 for the other packages) kaolin's install as one ``--force-reinstall`` that
    replaces the installed kaolin in place: never ``pip uninstall -y kaolin`` first, which leaves no kaolin (not even a
    half-working one) where the install that follows fails."""
    return _KAOLIN_INSTALL_RE.sub(r"\1--force-reinstall ", cmd)


__all__ = ["IN_THE_TREE", "PIP_REBUILD", "SOURCE_KEY", "TREE_PLACEHOLDER", "built_in_tree", "distribution_finder",
           "installed_name", "kaolin_reinstall", "per_torch_wheel", "pyg_wheel_command", "rebuild_of_file", "text_source", "tree_rebuild"]
