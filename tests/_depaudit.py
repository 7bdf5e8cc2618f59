# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Every package the tests import must come from the project's own install steps.

A pytest plugin (registered by ``conftest.py``): it remembers the modules loaded when the session
starts, and at the end maps every top-level module imported since (by the tests, or by a library
a test called, as trimesh imports ``rtree`` for ray casting) to the distribution that installed it.
Each distribution must be declared: by ``pyproject.toml`` for the extras the README's test command
installs (:data:`smrnb._extras.COMMAND_EXTRAS` ``["test"]``), or as a requirement of a declared one,
followed down the tree. An undeclared one fails the session with its name -- the missing install
step that a machine where someone had installed it by hand would hide. ``SMRNB_DEP_AUDIT=0`` turns
the audit off (for a quick local run against a hand-made environment).
"""

from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path

import pytest

ALWAYS = {"pip", "setuptools", "wheel", "torch"}  # torch: installed by the test command itself, first
#: optional speed-ups that libraries import when they happen to be installed and do without otherwise
#: (jupyter_client tries orjson, others regex): present by hand on a developer's machine, never needed by a test
OPTIONAL_BY_LIBRARIES = {"orjson", "regex"}


def _canon(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _project_requirements(repo: Path, extras: tuple[str, ...]) -> list[str]:
    """The requirement strings of smrnb[extras], from pyproject.toml (self-references expanded)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: the installed metadata says the same for an editable install
        reqs = metadata.requires("smrnb") or []
        from packaging.requirements import Requirement

        return [r for r in reqs if Requirement(r).marker is None
                or any(Requirement(r).marker.evaluate({"extra": e}) for e in extras)]
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    optional = project.get("optional-dependencies", {})
    out: list[str] = list(project.get("dependencies", []))
    todo, seen = list(extras), set()
    while todo:
        e = todo.pop()
        if e in seen:
            continue
        seen.add(e)
        for r in optional.get(e, []):
            if r.replace(" ", "").startswith("smrnb["):
                todo.extend(x.strip() for x in r.split("[", 1)[1].split("]", 1)[0].split(","))
            else:
                out.append(r)
    return out


def declared_distributions(repo: Path, extras: tuple[str, ...]) -> set[str]:
    """Canonical names of every distribution the project's install steps bring (requirements of
    requirements included, markers evaluated for this interpreter)."""
    from packaging.requirements import Requirement

    seen: dict[str, set[str]] = {}
    # what every environment has (pip's setuptools with the packages it uses itself, e.g. jaraco.text
    # through pkg_resources) and the project's own requirements
    todo = [(Requirement(r), None) for r in ("setuptools[core]", *_project_requirements(repo, extras))]
    while todo:
        req, _ = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = _canon(req.name)
        if name in seen and set(req.extras) <= seen[name]:
            continue
        seen.setdefault(name, set()).update(req.extras)
        reqs = None
        for candidate in dict.fromkeys((req.name, req.name.replace(".", "_"), name, name.replace("-", "_"))):
            try:  # metadata lookups are not name-normalised on every Python: jaraco.text is jaraco_text
                reqs = metadata.requires(candidate) or []
                break
            except metadata.PackageNotFoundError:
                continue
        if reqs is None:
            continue
        for r in reqs:
            sub = Requirement(r)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in (seen[name] or {""})):
                todo.append((Requirement(str(sub).split(";")[0]) if sub.marker is not None else sub, None))
    return set(seen) | ALWAYS


def _own(path: str, repo: Path) -> bool:
    """A module of the repository itself -- not one installed into a virtual environment that happens to
    live inside the checkout (``.venv``, where the README's commands put it)."""
    p = Path(path).resolve()
    return p.is_relative_to(repo) and not p.is_relative_to(Path(sys.prefix).resolve())


def _env_prefix() -> Path | None:
    """The virtual environment the tests run in (the README's ``.venv``), or None outside of one."""
    return Path(sys.prefix).resolve() if sys.prefix != sys.base_prefix else None


def undeclared(modules: set[str], declared: set[str], repo: Path,
               env: Path | None = None) -> tuple[dict[str, list[str]], list[str], list[str]]:
    """``({distribution: [modules]}, [modules of unknown origin], [modules from outside the environment])`` for
    modules no declared distribution installed; standard-library, smrnb's own and the repository's modules are
    fine. ``env`` is the virtual environment the project's install steps fill: an undeclared module installed
    outside it (the starting Python's site-packages, which an environment reusing a GPU server's torch sees, where
    torch imports opt_einsum or Cython because they happen to be there) was not left out by an install step of the
    project, so it is listed, not failed; inside it, or with no environment, it fails."""
    owners = metadata.packages_distributions()
    missing: dict[str, list[str]] = {}
    unknown: list[str] = []
    outside: list[str] = []
    for top in sorted(modules):
        if top in sys.stdlib_module_names or top in ("smrnb", *OPTIONAL_BY_LIBRARIES) or \
                top in sys.builtin_module_names:
            continue
        mod = sys.modules.get(top)
        f = getattr(mod, "__file__", None)
        where = [f] if f else [str(x) for x in getattr(mod, "__path__", [])]  # a namespace package: its folders
        if where and all(_own(w, repo) or "/_vendor/" in w for w in where):
            continue  # the repository's own modules; copies a package vendors (setuptools' jaraco, ...)
        dists = owners.get(top)
        if not dists:
            if f:  # a module file no distribution claims (and not the repository's)
                unknown.append(top)
            continue
        if not any(_canon(d) in declared for d in dists):
            if env is not None and where and not any(Path(w).resolve().is_relative_to(env) for w in where):
                outside.append(top)
                continue
            for d in dists:
                missing.setdefault(d, []).append(top)
    return missing, unknown, outside


class DependencyAudit:
    """The plugin object (see the module docstring)."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo.resolve()
        self.before: set[str] = set()

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.before = set(sys.modules)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if os.environ.get("SMRNB_DEP_AUDIT") == "0":
            return
        from smrnb._extras import COMMAND_EXTRAS

        new = {m.split(".")[0] for m in set(sys.modules) - self.before}
        missing, unknown, outside = undeclared(new, declared_distributions(self.repo, COMMAND_EXTRAS["test"]),
                                               self.repo, _env_prefix())
        tr = session.config.pluginmanager.get_plugin("terminalreporter")
        lines = [f"the tests imported {', '.join(sorted(set(mods)))} from the distribution {dist!r}, which no "
                 f"install step of the project declares: add {dist} to an extra in pyproject.toml"
                 for dist, mods in sorted(missing.items())]
        if tr is not None:
            tr.ensure_newline()
            for line in lines:
                tr.write_line(f"DEPENDENCY AUDIT: {line}", red=True)
            if unknown:
                tr.write_line(f"dependency audit: modules no distribution claims (not failed): {', '.join(unknown)}")
            if outside:
                tr.write_line("dependency audit: undeclared modules from outside the test environment, imported by "
                              f"libraries that found them there (not failed): {', '.join(outside)}")
        if lines and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
