# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the jupyter layer: kernel vs server environment, kernelspec env, the threejs lab extension."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from smrnb.doctor._codes import meanings, why
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor.rules import Facts, rule
from smrnb.doctor.rules._context import layer
from smrnb.doctor.rules._events import builds, events, has_sign, kernel_python_codes, resolve, signs

CODES = meanings("rules.jupyter")  # this module's codes, from the one table (codes.py)


@rule("jupyter")
def jupyter_findings(facts: Facts) -> Iterable[Finding]:
    j = layer(facts, "jupyter")
    if not j:
        return
    versions = j.get("versions") or {}
    server_python = j.get("server_python")
    owned = j.get("server_prefix_owned")
    if j.get("server_python_differs"):
        wheels = f"jupyterlab_widgets pythreejs=={versions.get('pythreejs') or '2.4.2'}"
        if server_python and owned:
            fix = Fix("Front-end extensions (ipywidgets, jupyter-threejs) must be installed in the server's "
                      "environment; Python packages in the kernel's.",
                      (f"{shlex.quote(server_python)} -m pip install {wheels}",))
        else:
            fix = Fix("Front-end extensions (ipywidgets, jupyter-threejs) must be installed in the server's "
                      f"environment ({j.get('server_prefix')}), which is not yours to change: ask whoever manages "
                      f"it to install {wheels} there.")
        yield Finding("kernel_server_python_differs", "jupyter", "info",
                      "This kernel and the Jupyter server running it use different Python environments",
                      (f"kernel: {j.get('kernel_python')} (prefix {j.get('kernel_prefix')})",
                       f"server (pid {next((s.get('pid') for s in j.get('servers') or [] if s.get('python') == server_python), '?')}, "
                       f"an ancestor of this kernel): {server_python} (prefix {j.get('server_prefix')})"), fix)
    ext = j.get("threejs_labextension") or {}
    pv = versions.get("pythreejs")
    if pv and (not ext.get("installed") or ext.get("matches_pythreejs") is False):
        title = ("jupyter-threejs lab extension not found" if not ext.get("installed") else
                 f"jupyter-threejs {ext.get('version')} does not match pythreejs {pv}")
        text = ("Without it 3D views show 'Error displaying widget: model not found'; smrnb falls back to "
               "static pictures. Reinstall pythreejs in the server's environment and reload the page.")
        if server_python and owned is False:
            cmds: tuple[str, ...] = ("jupyter labextension list",)
            text += f" The server's environment ({j.get('server_prefix')}) is not yours: ask whoever manages it."
        else:
            target = shlex.quote(server_python) if server_python else "python"
            cmds = (f"{target} -m pip install --force-reinstall pythreejs=={pv}", "jupyter labextension list")
        yield Finding("threejs_extension_missing", "jupyter", "warning", title,
                      (f"pythreejs {pv} in the kernel",
                       f"expected jupyter-threejs {ext.get('expected_version') or 'matching'}",
                       f"found: {ext.get('path') or 'nothing'}",
                       f"searched: {', '.join(ext.get('searched') or [])}"),
                      Fix(why("threejs_extension_missing", text), cmds))
    stale = [m for m in j.get("stale_modules") or [] if isinstance(m, dict) and m.get("module")]
    if stale:
        names = ", ".join(f"{m['module']} {m.get('imported')} (installed: {m.get('installed')})" for m in stale[:6])
        yield Finding("kernel_restart_needed", "jupyter", "warning",
                      f"This kernel runs an older release of {len(stale)} package(s) than the one now installed",
                      (f"imported in this kernel: {names}",
                       "a module runs once per process: the kernel keeps the release it imported until it restarts"),
                      Fix(why("kernel_restart_needed"),
                          ("# Kernel > Restart, then run the cells again",
                           f'python -c "import {stale[0]["module"]}; print({stale[0]["module"]}.__version__)"   '
                           "# the release a fresh process imports")))
    spec = j.get("kernelspec")
    if spec and spec.get("env"):
        yield Finding("kernelspec_env", "jupyter", "info", f"Kernelspec '{spec.get('name')}' sets {len(spec['env'])} variable(s)",
                      (f"{spec.get('path')}/kernel.json", *(f"{k}={v}" for k, v in spec["env"].items())),
                      Fix("These apply to kernels started from this kernelspec only; a shell or another kernel does "
                          "not see them.", ("jupyter kernelspec list",)))


# ------------------------------------------------------------------ a notebook's signs
#: (round 27a) library_messages rows whose second reading is another Python than the one the package went into,
#: with no kernel: jupyter's own subcommand, a console script's distribution, PyVista's notebook backend
_OTHER_PYTHON_ROWS = {
    "jupyter_subcommand_not_found": "The jupyter that ran belongs to another Python than the one the package went into "
                                    "(another jupyter earlier on PATH)",
    "console_script_distribution_missing": "pip installed into another Python than the one on the script's first line",
    "pyvista_notebook_backend_failed": "The kernel runs another Python than the one PyVista's backend packages went into",
    # (round 32i) tables/library_messages.csv: a Windows embeddable Python's folder, where 'pip' is another Python's
    "embedded_python_bare_pip": "The 'pip' typed in the embedded Python's folder belongs to another Python: the package "
                                "went there, not into the embedded python.exe (use python.exe -m pip)",
}


@builds("kernel_wrong_python")
def _wrong_python(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    if ev.get("key") == "embedded_python_bare_pip":
        return {"title": _OTHER_PYTHON_ROWS["embedded_python_bare_pip"],
                "commands": ["where pip   # the pip.exe that ran: another Python's Scripts folder",
                             ".\\python.exe -s -m pip install <the package or wheel>   # in the embedded Python's folder"]}
    if ev.get("key") in _OTHER_PYTHON_ROWS:  # (round 27a) a command-line program's Python, not a kernel's
        return {"title": _OTHER_PYTHON_ROWS[str(ev["key"])],
                "commands": ["which -a python pip jupyter   # more than one: the first on PATH runs",
                             "python -m pip --version   # the Python pip installs into"]}
    mod = ev.get("module")
    top = str(mod).split(".")[0] if mod else None
    notebook = "in_notebook" in signs(facts) or bool(layer(facts, "jupyter").get("in_kernel"))
    where = ("in a notebook: the kernel may run another Python than the one it was installed into" if notebook else
             "although it is installed: this Python may be another than the one it was installed into")
    if mod and "-" in str(ev.get("pip_name") or mod):  # a pip name: no import finds a module whose name has a hyphen
        under = str(mod).replace("-", "_")
        mod = ev.get("pip_name") or mod
        return {"title": f"No module named '{mod}': a name with '-' is a pip name, never an importable module "
                         f"(the module would be {under})",
                "fix": f"Python cannot import a name with a hyphen: the code that imports '{mod}' names the package's "
                       f"pip name instead of its module ({under}); correct the import (or update the package whose "
                       "code does it), installing another package does not help.",
                "commands": [f"pip show {mod}   # installed? its files show the module's real name",
                             f"python -c \"import {under}\"   # the importable name"]}
    return {"title": f"No module named '{mod}' {where}" if mod else "The kernel runs another Python than the terminal",
            "commands": ['python -c "import sys; print(sys.executable)"   # in the terminal; in a notebook cell: '
                         "import sys; print(sys.executable): two different paths are two Pythons",
                         _kaolin_into_kernel(facts) if top == "kaolin" else
                         "pip install ipykernel && python -m ipykernel install --user --name <env>   # in the environment "
                         "that lacks ipykernel (its python -m pip where pip is another's)" if top == "ipykernel" or
                         "ipykernel" in str(ev.get("line") or "").lower() else
                         f"%pip install {top}   # into the kernel's own Python" if top else
                         "python -m ipykernel install --user --name <env>   # from the environment that has the packages"]}


def _kaolin_into_kernel(facts: Facts) -> str:
    """kaolin's install into the kernel's Python: not on PyPI, from its wheel page for the torch and CUDA in use."""
    from smrnb.doctor.rules._abi import _kaolin_command

    cmd = _kaolin_command(facts)
    return ("%" + cmd if cmd.startswith("pip ") else cmd) + "   # into the kernel's own Python (kaolin is not on PyPI)"


#: jupyter-kernel rows that are only a hint (every %pip prints the note): ranked after real errors
_HINT_ROWS = {"pip_restart_note": 20, "bang_pip": 16, "kernel_restarting": 10}


def _variable_decides(facts: Facts) -> bool:
    """(round 30b) A failure an environment variable decides: a library the loader did not find (LD_LIBRARY_PATH,
    PATH), a toolkit not found (CUDA_HOME, nvcc on PATH)."""
    return bool(events(facts, "loader", "library_missing") or has_sign(facts, "nvcc_missing", "env_dropped"))


@rule("jupyter")
def notebook_messages(facts: Facts) -> Iterable[Finding]:
    """A kernel of another Python (tables/jupyter_kernel.csv), and a notebook where what works in a terminal
    fails: another Python, or a variable the kernel never got."""
    colab = "colab" in signs(facts)  # Colab's '!pip' is the kernel's own Python: no other environment to blame
    for ev in events(facts, "jupyter", "message"):
        if ev.get("key") == "module_not_found_notebook" or (colab and ev.get("key") == "bang_pip"):
            continue  # rules.torch decides a module that cannot be imported (build, package, kernel)
        for f in resolve(facts, ev):
            yield replace(f, rank=f.rank + _HINT_ROWS.get(str(ev.get("key")), 0))
    s = signs(facts)
    notebook = "in_notebook" in s or bool(layer(facts, "jupyter").get("in_kernel"))
    if not notebook:
        return
    first = next((e for e in events(facts, "jupyter", "sign") if e.get("sign") in ("terminal_works", "sys_executable")
                  and not (colab and e.get("phrase") == "!pip")), None)
    env_set = next((e for e in events(facts, kind="sign") if e.get("sign") == "env_var_set"), None)
    if first is not None:
        # what works in a terminal and fails in the notebook: another Python unless the text is about a
        # variable (then the kernel never got it), each reading with the other second; a kernel said to run the
        # same Python, or not restarted since the install, first needs a restart
        py = resolve(facts, {**first, "weight": 18 if env_set is None else 26}, kernel_python_codes(facts))
        # (round 30b, blind audit 29) a module the kernel cannot import after "I installed it in a terminal" is the
        # kernel's Python, no variable: a variable only where the text sets one or fails on what a variable finds
        # (the loader's library path, CUDA_HOME); a failure of another kind (a command not on the kernel's PATH, a
        # dead kernel) keeps both readings
        env = resolve(facts, {**(env_set or first), "weight": 22 if env_set is None else 16},
                      ["env_not_propagated_to_kernel"]) if env_set is not None or _variable_decides(facts) or not \
            events(facts, "torch", "module_missing") else []
        yield from py + env
    elif env_set is not None:
        yield from resolve(facts, {**env_set, "weight": 30}, ["env_not_propagated_to_kernel"])
    for ev in events(facts, "jupyter", "sign"):  # the user (or Colab) saying so; the old release shown is the next rule's
        if ev.get("sign") == "kernel_not_restarted":
            yield from resolve(facts, {**ev, "weight": 24}, ["kernel_restart_needed"])



@rule("jupyter")
def old_release_after_install(facts: Facts) -> Iterable[Finding]:
    """pip replaced a package and the text then shows the replaced release (pip's "Successfully uninstalled X-V" then V
    printed, or a notebook's "!pip install X==V" then another release shown: one sign, ``old_release_imported``): the
    interpreter (a notebook kernel, a Colab runtime, a REPL) imported it before the install and keeps the module it
    loaded until it restarts."""
    for ev in events(facts, "jupyter", "sign"):
        if ev.get("sign") == "old_release_imported":
            yield from resolve(facts, {**ev, "weight": 26}, ["kernel_restart_needed"])


#: (round 25) what each message row of code meeting a kernel's process asks of the code (moved from rules._torch's
#: user_code_error rows of round 19b)
_KERNEL_ROW_COMMANDS: dict[str, list[str]] = {
    "jupyter_kernel_argv_argparse": ["args = parser.parse_args([])   # in a notebook: the defaults (or a list of the "
                                     "script's arguments), or parser.parse_known_args()[0]"],
    "asyncio_run_in_running_loop": ["result = await main()   # in a notebook cell: the kernel's loop already runs",
                                    "pip install nest_asyncio   # then nest_asyncio.apply() where a library needs it"],
    "asyncio_loop_already_running": ["pip install -U nest_asyncio   # then nest_asyncio.apply() before the library "
                                     "runs its loop"],
    "pickle_main_attribute_spawn": ["# move the function or class into a .py module and import it from there"],
    "ipykernel_outstream_no_fd": ["# run the code as a script (python script.py), or use getattr(sys.stdout, 'buffer', "
                                  "sys.stdout) in the code that writes"],
}
#: the part of a kernel's process each row meets
_KERNEL_PART = {"jupyter_kernel_argv_argparse": "sys.argv holds the kernel launcher's arguments",
                "asyncio_run_in_running_loop": "the kernel's asyncio loop is already running",
                "asyncio_loop_already_running": "the kernel's asyncio loop is already running",
                "pickle_main_attribute_spawn": "spawned workers cannot import the notebook's __main__",
                "ipykernel_outstream_no_fd": "sys.stdout is ipykernel's OutStream (no file descriptor, no buffer)"}


@builds("script_code_in_kernel")
def _script_in_kernel(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    """(round 25) Code written for a script's process in a Jupyter kernel: which part of the kernel's process it
    meets, and the change (or the script) that fits."""
    key = str(ev.get("key") or "")
    part = _KERNEL_PART.get(key, "the kernel's process is not a script's")
    return {"title": f"Code written for a script runs in a Jupyter kernel: {part}",
            "commands": [*_KERNEL_ROW_COMMANDS.get(key, []), "jupyter nbconvert --to script notebook.ipynb && python "
                         "notebook.py   # the same code as a script (notebook.ipynb: your notebook's file)"]}
