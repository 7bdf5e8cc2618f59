# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The package map and the module naming rule (CONTRIBUTING.md), checked on the source of every module
under ``smrnb/``: parsed, never imported.

1. a cross-package import is ``from smrnb.<package> import name`` (or ``import smrnb.<package>``) with
   ``name`` in that package's literal ``__all__`` or ``INTERNAL_API``; root modules ``smrnb._x`` are open to
   all; a package's command-line module ``cli.py`` is open to the root entry points only;
2. imports follow the floors: widgets -> pipeline -> datasets -> geometry, pipeline -> doctor,
   widgets -> doctor; doctor and geometry import no other package; root modules import no package at
   module level;
3. no import circle between modules, imports inside functions included;
4. no function longer than 150 lines (one allowlisted, which must still exist and still be long);
5. at most 10 standard-library imports inside functions in the whole of ``smrnb/``, each with a
   ``# reason`` comment on its line;
6. every module file inside a package is named ``_name.py`` (or ``__init__.py``, ``__main__.py``, ``cli.py``).

Run as a script (``python tests/test_architecture.py``) it prints every finding and the count per rule.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: package -> the packages it may import (the floors; nothing imports upwards)
MAY_IMPORT: dict[str, frozenset[str]] = {
    "widgets": frozenset({"pipeline", "datasets", "geometry", "doctor"}),
    "pipeline": frozenset({"datasets", "geometry", "doctor"}),
    "datasets": frozenset({"geometry"}),
    "geometry": frozenset(),
    "doctor": frozenset(),
}
#: module files allowed without a leading underscore: inside a package, and at the root beside ``_x.py``
PUBLIC_MODULE_FILES = frozenset({"__init__.py", "__main__.py", "cli.py"})
PUBLIC_ROOT_MODULES = frozenset({"lessons.py"})  # notebooks import it by path
#: root modules that start a command and may hand over to a package's ``cli`` module
ROOT_ENTRY_MODULES = frozenset({"smrnb._cli", "smrnb.__main__"})

MAX_FUNCTION_LINES = 150
#: functions allowed over MAX_FUNCTION_LINES: "path::name" (each entry must exist and be that long)
LONG_FUNCTIONS_ALLOWED: frozenset[str] = frozenset()

MAX_STDLIB_IN_FUNCTIONS = 10
#: comments that are tool directives, not a reason
_DIRECTIVES = ("noqa", "type:", "pragma", "pylint:", "fmt:")


@dataclass
class Import:
    line: int
    target: str  # the module imported from (``from X import ...``) or imported (``import X``)
    names: tuple[str, ...]  # the names taken by ``from X import a, b``; () for ``import X``
    in_function: bool
    text: str  # the source line


@dataclass
class Module:
    name: str  # dotted: smrnb.doctor._model
    path: Path
    root: Path  # the folder holding smrnb/
    is_package: bool  # an __init__.py
    tree: ast.Module
    lines: list[str]
    comments: dict[int, str] = field(default_factory=dict)  # line -> comment text

    @property
    def rel(self) -> str:
        return self.path.relative_to(self.root).as_posix()

    @property
    def package(self) -> str | None:
        """The top-level package (``doctor``, ``geometry``...), None for a root module."""
        parts = self.name.split(".")
        if len(parts) == 2 and not self.is_package:
            return None
        return parts[1] if len(parts) > 1 else None


def _module_name(path: Path, root: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _comments(source: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string.lstrip("#").strip()
    return out


def load_modules(root: Path = ROOT) -> dict[str, Module]:
    """Every module under ``root/smrnb``, parsed."""
    mods = {}
    for path in sorted((root / "smrnb").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name, is_package = _module_name(path, root)
        mods[name] = Module(name, path, root, is_package, ast.parse(text, str(path)), text.splitlines(),
                            _comments(text))
    return mods


def _resolve_relative(mod: Module, node: ast.ImportFrom) -> str:
    base = mod.name.split(".") if mod.is_package else mod.name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(mod: Module) -> list[Import]:
    """Every import statement of ``mod``, at any depth; ``from smrnb import x`` of a module ``smrnb.x`` is
    read as ``import smrnb.x``."""
    out: list[Import] = []

    def walk(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    out.append(Import(child.lineno, alias.name, (), in_function, mod.lines[child.lineno - 1]))
            elif isinstance(child, ast.ImportFrom):
                target = _resolve_relative(mod, child) if child.level else (child.module or "")
                names = tuple(a.name for a in child.names)
                text = mod.lines[child.lineno - 1]
                if target == "smrnb":  # the facade's names, or a package / root module taken as a name
                    top = mod.root / "smrnb"
                    subs = tuple(n for n in names if (top / n / "__init__.py").is_file() or (top / f"{n}.py").is_file())
                    out.extend(Import(child.lineno, f"smrnb.{n}", (), in_function, text) for n in subs)
                    names = tuple(n for n in names if n not in subs)
                    if not names:
                        continue
                out.append(Import(child.lineno, target, names, in_function, text))
            walk(child, inner)

    walk(mod.tree, False)
    return out


def _assignment(tree: ast.Module, var: str) -> ast.expr | None:
    """The value of the module-level assignment to ``var``, if any."""
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == var for t in targets) and node.value is not None:
            return node.value
    return None


def _literal_names(value: ast.expr | None) -> tuple[str, ...] | None:
    """The strings of a ``[...]`` / ``(...)`` literal; None when absent or not such a literal."""
    if value is None:
        return None
    try:
        names = ast.literal_eval(value)
    except ValueError:
        return None
    if isinstance(names, (list, tuple)) and all(isinstance(v, str) for v in names):
        return tuple(names)
    return None


def offered(mods: dict[str, Module], package: str) -> tuple[set[str], list[str]]:
    """The names ``smrnb.<package>`` offers (literal ``__all__`` + ``INTERNAL_API``) and what is wrong with them."""
    init = mods.get(f"smrnb.{package}")
    if init is None:
        return set(), [f"smrnb/{package}/__init__.py is missing"]
    problems = []
    public = _literal_names(_assignment(init.tree, "__all__"))
    if public is None:
        problems.append(f"{init.rel}:1: rule 1 (package surface): no literal __all__ (a list or tuple of strings)")
    internal_value = _assignment(init.tree, "INTERNAL_API")
    internal = _literal_names(internal_value)
    if internal is None and internal_value is not None:
        problems.append(f"{init.rel}:{internal_value.lineno}: rule 1 (package surface): INTERNAL_API is not a "
                        "literal tuple of strings")
    return set(public or ()) | set(internal or ()), problems


def _package_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in MAY_IMPORT else None


# ---------------------------------------------------------------------------------------------- rules
def rule1_package_surfaces(mods: dict[str, Module]) -> list[str]:
    found: list[str] = []
    surfaces = {}
    for pkg in MAY_IMPORT:
        surfaces[pkg], problems = offered(mods, pkg)
        found += problems
    for mod in mods.values():
        for imp in imports_of(mod):
            other = _package_of(imp.target)
            if other is None or other == mod.package:
                continue
            where = f"{mod.rel}:{imp.line}: rule 1 (cross-package import)"
            if imp.target != f"smrnb.{other}":
                if mod.package is None and mod.name in ROOT_ENTRY_MODULES and imp.target == f"smrnb.{other}.cli":
                    continue
                found.append(f"{where}: reaches the module {imp.target} of package {other}; import from smrnb.{other}")
                continue
            for name in imp.names:
                if name.startswith("_"):
                    found.append(f"{where}: takes the private name {name} of package {other}")
                elif name != "*" and name not in surfaces[other]:
                    found.append(f"{where}: {name} is in neither __all__ nor INTERNAL_API of smrnb.{other}")
    return found


def rule2_floors(mods: dict[str, Module]) -> list[str]:
    found: list[str] = []
    for mod in mods.values():
        for imp in imports_of(mod):
            if not imp.target.startswith("smrnb"):
                continue
            other = _package_of(imp.target)
            where = f"{mod.rel}:{imp.line}: rule 2 (floors)"
            if imp.target == "smrnb" and mod.package is not None:
                found.append(f"{where}: {mod.package} imports {', '.join(imp.names) or 'smrnb'} from the facade "
                             "smrnb, which stands above every package")
                continue
            if other is None or other == mod.package:
                continue
            if mod.package is None:
                if not imp.in_function:
                    found.append(f"{where}: the root module {mod.name} imports package {other} at module level")
            elif other not in MAY_IMPORT[mod.package]:
                found.append(f"{where}: {mod.package} may not import {other} "
                             f"(it may import: {', '.join(sorted(MAY_IMPORT[mod.package])) or 'no package'})")
    return found


def import_graph(mods: dict[str, Module]) -> dict[str, dict[str, tuple[str, int]]]:
    """``{module: {imported module: (file, line)}}``; ``from P import x`` is an import of the module P.x
    when there is one, else of P (a package's ``__init__``)."""
    graph: dict[str, dict[str, tuple[str, int]]] = {name: {} for name in mods}
    for mod in mods.values():
        for imp in imports_of(mod):
            targets = []
            if imp.names:
                subs = [f"{imp.target}.{n}" for n in imp.names if f"{imp.target}.{n}" in mods]
                targets += subs
                if len(subs) < len(imp.names):
                    targets.append(imp.target)
            else:
                targets.append(imp.target)
            for t in targets:
                if t in mods and t != mod.name:
                    graph[mod.name].setdefault(t, (mod.rel, imp.line))
    return graph


def _cycles(graph: dict[str, dict[str, tuple[str, int]]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _one_circle(graph: dict[str, dict[str, tuple[str, int]]], comp: list[str]) -> list[str]:
    """A shortest circle through the first module of a strongly connected component."""
    inside = set(comp)
    start = comp[0]
    prev: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for t in sorted(graph[node]):
                if t not in inside:
                    continue
                if t == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return [*reversed(path), start]
                if t not in prev:
                    prev[t] = node
                    nxt.append(t)
        frontier = nxt
    return comp


def rule3_circles(mods: dict[str, Module]) -> list[str]:
    graph = import_graph(mods)
    found = []
    for comp in _cycles(graph):
        circle = _one_circle(graph, comp)
        steps = [f"{a} -> {b} ({graph[a][b][0]}:{graph[a][b][1]})" for a, b in zip(circle, circle[1:])]
        rel, line = graph[circle[0]][circle[1]]
        found.append(f"{rel}:{line}: rule 3 (import circle of {len(comp)} modules: {', '.join(comp)}): "
                     + "; ".join(steps))
    return found


def _functions(mod: Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(mod.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def rule4_long_functions(mods: dict[str, Module]) -> list[str]:
    found, seen = [], set()
    for mod in mods.values():
        for fn in _functions(mod):
            n = fn.end_lineno - fn.lineno + 1
            key = f"{mod.rel}::{fn.name}"
            if key in LONG_FUNCTIONS_ALLOWED:
                seen.add(key)
                if n <= MAX_FUNCTION_LINES:
                    found.append(f"{mod.rel}:{fn.lineno}: rule 4 (function length): {fn.name} is {n} lines now; "
                                 "take it off LONG_FUNCTIONS_ALLOWED")
            elif n > MAX_FUNCTION_LINES:
                found.append(f"{mod.rel}:{fn.lineno}: rule 4 (function length): {fn.name} is {n} lines "
                             f"(at most {MAX_FUNCTION_LINES})")
    for key in sorted(LONG_FUNCTIONS_ALLOWED - seen):
        found.append(f"{key.split('::')[0]}:1: rule 4 (function length): the allowlisted {key} no longer exists; "
                     "take it off LONG_FUNCTIONS_ALLOWED")
    return found


def _stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names


def _has_reason(mod: Module, imp: Import) -> bool:
    comment = mod.comments.get(imp.line, "")
    text = comment.split("#")[0].strip() if comment else ""
    return bool(text) and not text.lower().startswith(_DIRECTIVES)


def rule5_stdlib_in_functions(mods: dict[str, Module]) -> list[str]:
    found, count = [], 0
    for mod in mods.values():
        for imp in imports_of(mod):
            if imp.in_function and _stdlib(imp.target):
                count += 1
                if not _has_reason(mod, imp):
                    found.append(f"{mod.rel}:{imp.line}: rule 5 (standard-library import inside a function): "
                                 f"`{imp.text.strip()}` goes at module top, or says why on its line (# reason)")
    if count > MAX_STDLIB_IN_FUNCTIONS:
        found.append(f"smrnb/:1: rule 5 (standard-library import inside a function): {count} in smrnb/, "
                     f"at most {MAX_STDLIB_IN_FUNCTIONS}")
    return found


def rule6_module_names(mods: dict[str, Module]) -> list[str]:
    found = []
    for mod in mods.values():
        fname = mod.path.name
        if fname in PUBLIC_MODULE_FILES or fname.startswith("_"):
            continue
        if mod.package is None and fname in PUBLIC_ROOT_MODULES:
            continue
        where = "the package smrnb" if mod.package is None else f"package {mod.package}"
        found.append(f"{mod.rel}:1: rule 6 (module name): {fname} in {where} is a public module; name it "
                     f"_{fname} (public names go through the package's __init__)")
    return found


RULES = {
    "1 cross-package imports": rule1_package_surfaces,
    "2 floors": rule2_floors,
    "3 import circles": rule3_circles,
    "4 function length": rule4_long_functions,
    "5 standard-library imports in functions": rule5_stdlib_in_functions,
    "6 module names": rule6_module_names,
}


# ---------------------------------------------------------------------------------------------- tests
def _check(rule: str) -> None:
    found = RULES[rule](load_modules())
    assert not found, f"{len(found)} finding(s) of rule {rule}:\n" + "\n".join(found)


def test_rule1_cross_package_imports_go_through_the_package_surface():
    _check("1 cross-package imports")


def test_rule2_imports_follow_the_floors():
    _check("2 floors")


def test_rule3_no_import_circle():
    _check("3 import circles")


def test_rule4_no_function_over_150_lines():
    _check("4 function length")


def test_rule5_standard_library_imports_at_module_top():
    _check("5 standard-library imports in functions")


def test_rule6_modules_inside_packages_are_private():
    _check("6 module names")


# ---------------------------------------------------------------------------------------------- the checker, checked
def _findings(tmp_path: Path, files: dict[str, str], rule: str) -> list[str]:
    """What ``rule`` finds in a tree of ``files`` (path -> source) written under ``tmp_path``."""
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return RULES[rule](load_modules(tmp_path))


_PKGS = {f"smrnb/{p}/__init__.py": "__all__ = []\n" for p in MAY_IMPORT}


def test_the_checker_finds_each_kind_of_breach(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "LONG_FUNCTIONS_ALLOWED", frozenset({"smrnb/doctor/_explain.py::decide"}))
    files = dict(_PKGS)
    files.update({
        "smrnb/__init__.py": "",
        "smrnb/_root.py": "from smrnb.geometry import mesh_fn\n",
        "smrnb/geometry/__init__.py": "__all__ = ['mesh_fn']\nINTERNAL_API = ('helper',)\n",
        "smrnb/geometry/_a.py": "import smrnb.geometry._b\n\ndef f():\n    import json\n",
        "smrnb/geometry/_b.py": "def g():\n    import smrnb.geometry._a\n    import os  # the reason\n",
        "smrnb/geometry/public.py": "",
        "smrnb/datasets/_d.py": ("from smrnb.geometry import mesh_fn, helper, _hidden, other\n"
                                 "from smrnb.geometry._a import f\nfrom smrnb.pipeline import run\n"),
        "smrnb/doctor/_long.py": "def long():\n" + "    x = 1\n" * 151,
        "smrnb/doctor/_up.py": "from smrnb import Mesh, _errors\nfrom smrnb import geometry\n",
        "smrnb/_errors.py": "",
    })
    r1 = _findings(tmp_path, files, "1 cross-package imports")
    assert len(r1) == 4 and all("rule 1" in f for f in r1), r1
    assert any("_d.py:1" in f and "_hidden" in f for f in r1) and any("other is in neither" in f for f in r1)
    assert any("_d.py:2" in f and "reaches the module smrnb.geometry._a" in f for f in r1)
    r2 = _findings(tmp_path, files, "2 floors")
    assert any("_d.py:3" in f and "datasets may not import pipeline" in f for f in r2), r2
    assert any("_root.py:1" in f and "at module level" in f for f in r2), r2
    assert any("_up.py:1" in f and "imports Mesh from the facade" in f for f in r2), r2
    assert any("_up.py:2" in f and "doctor may not import geometry" in f for f in r2), r2
    assert len(r2) == 4, r2
    r3 = _findings(tmp_path, files, "3 import circles")
    assert len(r3) == 1 and "smrnb.geometry._a -> smrnb.geometry._b" in r3[0], r3
    r4 = _findings(tmp_path, files, "4 function length")
    assert any("_long.py:1" in f and "long is 152 lines" in f for f in r4), r4
    assert any("_explain.py::decide no longer exists" in f for f in r4), r4
    r5 = _findings(tmp_path, files, "5 standard-library imports in functions")
    assert r5 == ["smrnb/geometry/_a.py:4: rule 5 (standard-library import inside a function): `import json` "
                  "goes at module top, or says why on its line (# reason)"], r5
    r6 = _findings(tmp_path, files, "6 module names")
    assert r6 and "smrnb/geometry/public.py:1: rule 6" in r6[0] and len(r6) == 1, r6


def test_the_checker_passes_what_the_rules_allow(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "LONG_FUNCTIONS_ALLOWED", frozenset({"smrnb/doctor/_explain.py::decide"}))
    files = dict(_PKGS)
    files.update({
        "smrnb/__init__.py": "from smrnb._errors import E\n\ndef hook():\n    from smrnb.doctor import load\n",
        "smrnb/_errors.py": "",
        "smrnb/_cli.py": "def main():\n    from smrnb.pipeline.cli import main\n",
        "smrnb/doctor/__init__.py": "__all__ = ['diagnose']\nINTERNAL_API = ('load',)\n",
        "smrnb/doctor/_model.py": "from smrnb import _errors\nfrom smrnb._errors import E\n",
        "smrnb/doctor/cli.py": "from smrnb.doctor import diagnose\n",
        "smrnb/doctor/probes/__init__.py": "from smrnb.doctor.probes import _x\n",
        "smrnb/doctor/probes/_x.py": "from smrnb.doctor import tables\n",
        "smrnb/doctor/tables/__init__.py": "",
        "smrnb/pipeline/cli.py": "",
        "smrnb/widgets/_w.py": "from smrnb.doctor import diagnose\nimport smrnb.pipeline\n",
        "smrnb/doctor/_explain.py": "def decide():\n" + "    x = 1\n" * 200,
        "smrnb/lessons.py": "",
    })
    for rule in RULES:
        assert _findings(tmp_path, files, rule) == [], rule


if __name__ == "__main__":
    modules = load_modules()
    total = 0
    for title, check in RULES.items():
        results = check(modules)
        total += len(results)
        for line in results:
            print(line)
        print(f"== rule {title}: {len(results)}")
    sys.exit(1 if total else 0)
