# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Decide: turn facts into findings.

Each layer's rules live in ``rules/_<layer>.py``; a rule is a function ``(facts) -> iterable of
Finding`` registered with :func:`rule`. The codes, their meanings and fix wordings live in one
table (:mod:`smrnb.doctor._codes`); each rules module's ``CODES`` is its view of it, and explain
uses the same table.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterable
from typing import Any

from smrnb.doctor._codes import CODES
from smrnb.doctor._model import LAYERS, SEVERITIES, Finding

Facts = dict[str, dict[str, Any]]
RuleFn = Callable[[Facts], Iterable[Finding]]

#: layer -> the module holding its rules
RULE_MODULES: dict[str, str] = {layer: f"smrnb.doctor.rules._{layer}" for layer in LAYERS}

_RULES: list[tuple[str, RuleFn]] = []


#: rule -> the layers it also runs for, shown there, when its own layer is not checked (:func:`rule`'s ``stand_in``)
_STAND_IN: dict[RuleFn, tuple[str, ...]] = {}


def rule(layer: str, *, stand_in: tuple[str, ...] = ()) -> Callable[[RuleFn], RuleFn]:
    """Register a rule for ``layer``. ``stand_in``: layers that also show its findings where ``layer`` itself is not
    checked (blind audit 36: ``--layer abi`` alone said nothing of an ``--extension`` file that cannot be loaded,
    a loader rule's finding); the first of them that is checked shows them."""
    if layer not in LAYERS or any(ly not in LAYERS for ly in stand_in):
        raise ValueError(f"layer must be one of {LAYERS}, got {layer!r} (stand_in {stand_in!r})")

    def deco(fn: RuleFn) -> RuleFn:
        _RULES.append((layer, fn))
        if stand_in:
            _STAND_IN[fn] = tuple(stand_in)
        return fn

    return deco


#: layer -> (rules module, why it failed to import)
_LOAD_ERRORS: dict[str, tuple[str, str]] = {}


def _load_rule_modules() -> list[Any]:
    """Import every existing rules module; a missing one is skipped, a broken one is recorded."""
    mods = []
    for layer, name in RULE_MODULES.items():
        try:
            mods.append(importlib.import_module(name))
        except ModuleNotFoundError as exc:
            if exc.name != name:
                _LOAD_ERRORS[layer] = (name, f"ModuleNotFoundError: {exc}")
        except Exception as exc:  # a broken rules module must not take the doctor down
            _LOAD_ERRORS[layer] = (name, f"{type(exc).__name__}: {exc}")
    return mods


def all_codes() -> dict[str, str]:
    """Every documented finding code -> its meaning (the one table, :data:`smrnb.doctor._codes.CODES`)."""
    return {code: entry.meaning for code, entry in CODES.items()}


def evaluate(facts: Facts, layers: Iterable[str] | None = None) -> list[Finding]:
    """Run every rule (of ``layers``, default all) over ``facts``; never raises.

    Findings are sorted by layer order then severity.
    """
    out = [f for f, _ in evaluate_traced(facts, layers)]
    order = {ly: i for i, ly in enumerate(LAYERS)}
    sev = {s: i for i, s in enumerate(SEVERITIES)}
    out.sort(key=lambda f: (order[f.layer], sev[f.severity]))
    return out


def _pure_python_packages(facts: Facts, wanted: set[str]) -> list[Finding]:
    """(blind audit 36, C-L3) A distribution asked for (``--package``) whose RECORD lists no compiled module: the
    doctor looked, and there is nothing of it for the loader and ABI checks (``package_no_compiled_module``), shown
    once, under the loader layer when it was asked for, else the abi layer."""
    for layer in ("loader", "abi"):
        lf = facts.get(layer)
        names = lf.get("packages_without_modules") if layer in wanted and isinstance(lf, dict) else None
        if names:
            return [Finding("package_no_compiled_module", layer, "info",
                            f"package {name} has no compiled module (its RECORD lists no .so/.pyd): pure Python, "
                            "nothing for the loader and ABI checks",
                            (f"pip show -f {name}: none of the files it installed is a .so or .pyd",))
                    for name in dict.fromkeys(str(n) for n in names)]
    return []


class _Traced(dict):
    """A layer's facts that note every key a rule reads (``get``, ``[]``, ``in``)."""

    def __init__(self, layer: str, data: dict[str, Any], log: set[tuple[str, str]]):
        super().__init__(data)
        self._layer, self._log = layer, log

    def get(self, key: Any, default: Any = None) -> Any:
        self._log.add((self._layer, key))
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self._log.add((self._layer, key))
        return super().__getitem__(key)

    def __contains__(self, key: Any) -> bool:
        self._log.add((self._layer, key))
        return super().__contains__(key)


def evaluate_traced(facts: Facts, layers: Iterable[str] | None = None) -> list[tuple[Finding, frozenset]]:
    """Every finding with the ``(layer, key)`` facts its rule had read when it gave it (in rule order);
    explain says with them which facts came from the text and which from the machine. Never raises."""
    _load_rule_modules()
    wanted = set(LAYERS if layers is None else layers)
    out: list[tuple[Finding, frozenset]] = []
    for layer, (name, err) in _LOAD_ERRORS.items():
        if layer in wanted:
            out.append((Finding("rule_failed", layer, "info", f"rules module {name} failed to import", (err,)),
                        frozenset()))
    for layer in LAYERS:
        lf = facts.get(layer)
        if layer in wanted and isinstance(lf, dict) and lf.get("not_checked"):
            items = [str(x) for x in lf["not_checked"]]
            # (blind audit 30, X09) what was not checked is in the title: the text and HTML reports show a note's title
            # only (a package with no compiled module was named in the JSON evidence alone)
            one = "; ".join(items)
            title = items[0] if len(items) == 1 else f"{len(items)} part(s) of this layer could not be checked: " + (
                one if len(one) <= 240 else one[:240].rsplit(" ", 1)[0] + " ...")
            out.append((Finding("could_not_look", layer, "info", title, tuple(items)), frozenset()))
    out += [(f, frozenset()) for f in _pure_python_packages(facts, wanted)]
    log: set[tuple[str, str]] = set()
    traced = {ly: (_Traced(ly, d, log) if isinstance(d, dict) else d) for ly, d in facts.items()}
    for layer, fn in list(_RULES):
        shown = layer if layer in wanted else next((ly for ly in _STAND_IN.get(fn, ()) if ly in wanted), None)
        if shown is None:
            continue
        log.clear()
        try:
            for f in fn(traced) or ():
                out.append((f if shown == layer else dataclasses.replace(f, layer=shown), frozenset(log)))
        except Exception as exc:  # a rule bug must not take the report down
            out.append((Finding("rule_failed", layer, "info", f"rule {fn.__name__} failed",
                                (f"{type(exc).__name__}: {exc}",)), frozenset()))
    return out
